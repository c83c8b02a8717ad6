"""Standings and match end (service.engine.match), pure."""

import pytest

from service.engine.match import (
    FINISHED,
    IN_PROGRESS,
    MatchError,
    MatchState,
    apply_buy_in,
    apply_hand,
    match_end_of,
    new_match,
    new_state,
    replay,
)
from service.engine.rules import CATALOG, InvalidParameter, MatchEnd, resolve
from service.engine.scoring import ScoringError


def test_config_from_rules_and_overrides():
    cfg = match_end_of(CATALOG["kaluki-uk"])
    assert (cfg.mode, cfg.elimination_over, cfg.buy_ins) == ("elimination", 150, True)
    cfg = match_end_of(CATALOG["kaluki-51"], {"match_end": "hands", "match_hands": 3,
                                             "goal_points": None})
    assert (cfg.mode, cfg.match_hands, cfg.goal_points) == ("hands", 3, 500)


def test_bad_config():
    with pytest.raises(MatchError) as e:
        match_end_of(CATALOG["kaluki-51"], {"match_end": "sudden-death"})
    assert (e.value.code, e.value.field) == ("invalid-parameter", "match_end")
    with pytest.raises(MatchError) as e:
        match_end_of(CATALOG["kaluki-51"], {"goal_points": 0})
    assert (e.value.code, e.value.field) == ("invalid-parameter", "goal_points")
    with pytest.raises(InvalidParameter):
        MatchEnd("sudden-death")


def test_match_end_is_one_value_nested_in_the_rule_set():
    """docs/api.md#rule-sets-and-overrides: the match-end parameters are published flat; a rule set
    holds them as one MatchEnd, and overrides by their flat names reach it."""
    uk = CATALOG["kaluki-uk"]
    assert uk.match_end == MatchEnd("elimination", elimination_over=150, buy_ins=True)
    assert {k: uk.to_dict()[k] for k in uk.match_end.to_dict()} == uk.match_end.to_dict()
    assert type(uk.to_dict()["match_end"]) is str
    derived = resolve({"base": "kaluki-uk", "overrides": {"match_end": "hands", "match_hands": 4}})
    assert (derived.match_end.mode, derived.match_end.match_hands) == ("hands", 4)
    assert derived.match_end.elimination_over == 150
    with pytest.raises(InvalidParameter) as e:
        resolve({"base": "kaluki-uk", "overrides": {"buy_ins_max": 0}})
    assert e.value.field == "ruleset.overrides.buy_ins_max"
    assert MatchEnd.from_dict(derived.match_end.to_dict()) == derived.match_end


def test_a_match_seats_what_its_rule_set_seats():
    """docs/api.md#rule-sets-and-overrides players_min..players_max: a match of one player, or more
    than the rule set seats, cannot start (player-count), whatever the ids."""
    assert new_match(["a", "b", "c", "d", "e"], CATALOG["kaluki-uk"]).players == ["a", "b", "c", "d", "e"]
    for players in (["a"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(ScoringError) as e:
            new_match(players, CATALOG["kaluki-51"])
        assert (e.value.code, e.value.field) == ("player-count", "players")


def test_goal_first_to_reach_wins():
    """S0: "the first player to reach this score wins"; docs/api.md#rule-sets-and-overrides
    match_end goal."""
    cfg = MatchEnd("goal", goal_points=100)
    s = new_state(["a", "b", "c"])
    s = apply_hand(s, cfg, "a", [("a", 60, 0), ("b", 0, 0), ("c", 0, 0)])
    assert s.status == IN_PROGRESS
    s = apply_hand(s, cfg, "c", [("a", -25, 0), ("b", -25, 0), ("c", 100, 0)])
    assert (s.status, s.winner, s.hands_played) == (FINISHED, "c", 2)
    with pytest.raises(MatchError) as e:
        apply_hand(s, cfg, "a", [("a", 1, 0), ("b", 0, 0), ("c", 0, 0)])
    assert e.value.code == "match-finished"


def test_elimination_and_last_one_standing():
    """pagat (kaluki-uk): over 150 penalty points a player is out; the last one left wins."""
    cfg = MatchEnd("elimination", elimination_over=20)
    s = new_state(["a", "b", "c"])
    s = apply_hand(s, cfg, "a", [("a", 0, 0), ("b", 0, 20), ("c", 0, 21)])
    assert [x.eliminated for x in s.standings] == [False, False, True]  # 20 is not over 20
    assert s.active == ["a", "b"]
    with pytest.raises(MatchError) as e:  # c no longer plays
        apply_hand(s, cfg, "a", [("a", 0, 0), ("b", 0, 5), ("c", 0, 5)])
    assert e.value.code == "hand-players"
    s = apply_hand(s, cfg, "a", [("a", 0, 0), ("b", 0, 1)])
    assert (s.status, s.winner) == (FINISHED, "a")


def test_buy_in_rules():
    """pagat (kaluki-uk): an eliminated player may buy back in at the highest remaining
    score; docs/api.md#match-ledgers buy_ins, buy_ins_max (per player), buy_in_min_players (counting
    the one buying in)."""
    cfg = MatchEnd("elimination", elimination_over=20, buy_ins=True)
    s = new_state(["a", "b", "c", "d"])
    s = apply_hand(s, cfg, "a", [("a", 0, 0), ("b", 0, 30), ("c", 0, 12), ("d", 0, 7)])
    assert s.active == ["a", "c", "d"]
    with pytest.raises(MatchError) as e:
        apply_buy_in(s, cfg, "c")
    assert e.value.code == "player-not-eliminated"
    with pytest.raises(MatchError) as e:
        apply_buy_in(s, cfg, "zed")
    assert e.value.code == "unknown-player"
    s = apply_buy_in(s, cfg, "b")
    b = s.standings[1]
    assert (b.eliminated, b.penalty, b.buy_ins) == (False, 12, 1)  # highest remaining penalty
    s = apply_hand(s, cfg, "a", [("a", 0, 0), ("b", 0, 30), ("c", 0, 30), ("d", 0, 0)])
    assert s.active == ["a", "d"]
    # docs/api.md#match-ledgers buy_ins_max 1: b has had the one buy-in
    with pytest.raises(MatchError) as e:
        apply_buy_in(s, cfg, "b")
    assert e.value.code == "buy-ins-exhausted"
    # docs/api.md#match-ledgers buy_in_min_players 3 counts the one buying in: a, d and c make three
    s2 = apply_buy_in(s, cfg, "c")
    assert s2.active == ["a", "c", "d"] and s2.standings[2].penalty == 7  # d's
    twice = MatchEnd("elimination", elimination_over=20, buy_ins=True, buy_ins_max=2)
    assert apply_buy_in(s, twice, "b").standings[1].buy_ins == 2
    closed = MatchEnd("elimination", elimination_over=20, buy_ins=True, buy_in_min_players=4)
    with pytest.raises(MatchError) as e:  # a, d and c make three, four needed
        apply_buy_in(s, closed, "c")
    assert e.value.code == "buy-ins-closed"
    with pytest.raises(MatchError) as e:
        apply_buy_in(s, MatchEnd("elimination", elimination_over=20), "b")
    assert e.value.code == "buy-ins-not-allowed"


def test_hands_winner_and_ties():
    """docs/api.md#rule-sets-and-overrides match_end hands (kaluki-hunt: 10 hands): most points,
    then least penalty."""
    cfg = MatchEnd("hands", match_hands=2)
    s = new_state(["a", "b", "c"])
    s = apply_hand(s, cfg, "a", [("a", 20, 0), ("b", 0, 5), ("c", 0, 9)])
    s = apply_hand(s, cfg, "b", [("a", 0, 5), ("b", 20, 0), ("c", 0, 9)])
    # a and b: 20 points each; a has 5 penalty, b has 5: level on points, penalty, hands won
    assert (s.status, s.winner, s.co_winners) == (FINISHED, None, ("a", "b"))
    s2 = new_state(["a", "b"])
    s2 = apply_hand(s2, cfg, "a", [("a", 0, 0), ("b", 0, 3)])
    s2 = apply_hand(s2, cfg, "b", [("a", 0, 2), ("b", 0, 0)])
    assert s2.winner == "a"  # penalty scoring: least penalty


def test_replay_equals_fold_and_roundtrip():
    cfg = MatchEnd("elimination", elimination_over=10, buy_ins=True)
    events = [("hand", "a", [("a", 0, 0), ("b", 0, 11), ("c", 0, 3), ("d", 0, 1)]),
              ("buy-in", "b", None),
              ("hand", "c", [("a", 0, 4), ("b", 0, 9), ("c", 0, 0), ("d", 0, 2)])]
    s = replay(["a", "b", "c", "d"], cfg, events)
    assert MatchState.from_dict(s.to_dict()) == s
    assert [(x.player, x.penalty, x.eliminated) for x in s.standings] == [
        ("a", 4, False), ("b", 12, True), ("c", 3, False), ("d", 3, False)]


def test_duplicate_players():
    with pytest.raises(MatchError):
        new_state(["a", "a"])
