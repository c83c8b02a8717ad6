"""Contract rule sets (docs/api.md#contract-rule-sets, Jamaican Kalooki): melds, the lay, scoring,
the solver.

Sources: docs/api.md#contract-rule-sets (the catalog entry ``kalooki-jamaica``); pagat.com
"Caribbean Kalooki" (threes may repeat suits; no two jokers together in a four; ace high or low,
never round the corner; contracts 333 … 4444; black ace 15, red ace 1, joker 50); Wikipedia
"Kalooki" (the nine contracts; deal sizes 9 … 16; going down lays exactly the contract).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import JOKER, Card, full_deck, parse_cards
from service.engine.contracts import lay
from service.engine.rules import CATALOG, InvalidRound, RoundRequired, RuleSet, resolve
from service.engine.scoring import card_value, hand_value, score_hand
from service.engine.solver import HandTooLarge, SearchTooLarge, analyze
from tests.engine.oracle import all_melds

J = CATALOG["kalooki-jamaica"]


def codes(ruling) -> list[str]:
    return [v.code for v in ruling.violations]


# -- melds ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cards,valid,code", [
    (["7c", "7c", "7d"], True, None),                    # pagat: threes may repeat suits
    (["7c", "7c", "7c", "7c", "7d", "7h", "JK"], True, None),  # set_max null: no limit
    (["7c", "JK", "JK"], False, "too-few-naturals"),     # at least 2 naturals (kind: set)
    (["7c", "8c", "JK", "Tc"], True, None),
    (["7c", "JK", "JK", "Tc"], False, "adjacent-jokers"),  # no two jokers side by side
    (["JK", "7c", "JK", "9c"], True, None),
    (["JK", "8c", "9c", "JK"], True, None),
    (["Qh", "Kh", "Ah", "2h"], False, "ace-wraparound"),  # ace at an end only
    (["Ah", "2h", "3h", "4h"], True, None),
    (["Jh", "Qh", "Kh", "Ah"], True, None),
    (["7c", "8c", "9c"], False, "run-too-short"),         # a four has 4+ cards
])
def test_jamaican_melds(cards: list[str], valid: bool, code: str | None) -> None:
    """docs/api.md#contract-rule-sets: threes with repeated suits and 2+ naturals; fours of 4+
    cards, 2+ naturals, no adjacent jokers, ace high or low at an end."""
    kind = "set" if cards == ["7c", "JK", "JK"] else None
    r = m.validate(cards, J, kind)
    assert r.valid is valid, r.violations
    if code:
        assert codes(r)[0] == code


def test_a_four_needs_two_naturals() -> None:
    r = m.validate(["7c", "JK", "9c", "JK"], J, "run")
    assert r.valid  # two naturals, jokers apart
    assert codes(m.validate(["JK", "7c", "JK", "JK"], J, "run"))[0] == "too-few-naturals"


def test_the_same_melds_are_legal_where_jokers_may_touch() -> None:
    """run_jokers_adjacent true (every other rule set, or an override) allows JK JK."""
    loose = resolve({"base": "kalooki-jamaica", "overrides": {"run_jokers_adjacent": True}})
    assert m.validate(["7c", "JK", "JK", "Tc"], loose).valid
    assert m.validate(["7c", "JK", "JK", "Tc"], CATALOG["kaluki-hunt"]).valid


def test_building_keeps_jokers_apart() -> None:
    """A joker built on a run's end next to a joker goes to the other end, or does not fit."""
    run = m.table_meld(["7c", "8c", "9c", "JK"], J)
    grown = m.build(run, [m.Placed(m.as_tokens(["JK"])[0])], J)
    assert grown.valid and [str(c) for c in grown.meld.cards][0] == "JK=6c"
    stuck = m.table_meld(["JK", "7c", "8c", "JK"], J)
    assert not m.build(stuck, [m.Placed(m.as_tokens(["JK"])[0])], J).valid


def test_jokers_are_never_released_in_jamaica() -> None:
    """docs/api.md#contract-rule-sets: release_set and release_run never (the shift is the game's
    play)."""
    run = m.table_meld(["7c", "8c", "9c", "JK"], J)
    r = m.release(run, parse_cards(["Tc"]), J)
    assert not r.legal and r.violations[0].code == "joker-not-releasable"
    s = m.table_meld(["7c", "7d", "JK"], J)
    assert not m.release(s, parse_cards(["7h"]), J).legal


def test_meld_points_count_aces_by_colour() -> None:
    """docs/api.md#contract-rule-sets: a meld's points count aces by colour wherever they stand (red
    1, black 15), ace_low_value does not apply; a joker counts as the card it stands for."""
    assert m.validate(["Ah", "2h", "3h", "4h"], J).meld.points == 1 + 2 + 3 + 4
    assert m.validate(["As", "2s", "3s", "4s"], J).meld.points == 15 + 9
    assert m.validate(["JK", "2s", "3s", "4s"], J).meld.points == 15 + 9
    assert m.validate(["Jd", "Qd", "Kd", "JK"], J).meld.points == 30 + 1
    assert m.validate(["Ah", "Ad", "As", "Ac"], J).meld.points == 1 + 1 + 15 + 15
    assert m.validate(["Ah", "Ad", "JK"], J).meld.points == 2 + 15  # a set's joker: no colour
    assert m.validate(["7h", "7d", "JK"], J).meld.points == 21


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(set(full_deck(1, 1)))), min_size=3, max_size=7))
def test_a_legal_jamaican_meld_obeys_every_rule(cards: list[Card]) -> None:
    """Property: whatever validate accepts under kalooki-jamaica is a three (one rank, 2+
    naturals) or a four (one suit, 4..13 cards, 2+ naturals, no jokers side by side)."""
    r = m.validate(cards, J)
    if not r.valid:
        return
    meld = r.meld
    naturals = [c for c in meld.cards if not c.is_joker]
    assert len(naturals) >= 2
    if meld.kind == m.SET:
        assert len({c.card.rank for c in naturals}) == 1 and len(meld.cards) >= 3
    else:
        assert 4 <= len(meld.cards) <= 13
        assert not any(a.is_joker and b.is_joker for a, b in zip(meld.cards, meld.cards[1:], strict=False))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10), st.integers(4, 13), st.sampled_from("cdhs"),
       st.sets(st.integers(0, 12), max_size=4), st.booleans())
def test_four_points_count_aces_by_colour(start: int, n: int, suit: str, holes: set[int],
                                          backwards: bool) -> None:
    """Property (docs/api.md#contract-rule-sets): a four's points are its cards' values, each ace by
    its colour wherever it stands, each joker as the card it stands for."""
    n = min(n, 14 - start)
    ranks = [(start + i - 1) % 13 + 1 for i in range(n)]
    texts = ["JK" if i in holes else "A23456789TJQK"[r - 1] + suit for i, r in enumerate(ranks)]
    if backwards:
        texts.reverse()
    r = m.validate(texts, J, "run")
    if not r.valid:
        return
    expected = sum(J.natural_value(c.card.rank if not c.is_joker else c.as_rank, suit)
                   for c in r.meld.cards)
    assert r.meld.points == expected


# -- the lay ---------------------------------------------------------------------------

def test_a_lay_meets_its_contract_exactly() -> None:
    """docs/api.md#contract-rule-sets: going down lays exactly the round's threes and fours, longer
    melds allowed."""
    r = lay([["7c", "7d", "7h"], ["8c", "8c", "JK", "8s"], ["As", "2s", "JK", "4s"]], J, 2)
    assert r.valid and r.contract == "334" and r.points == 21 + 32 + 15 + 2 + 3 + 4
    short = lay([["7c", "7d", "7h"], ["8c", "8c", "JK"]], J, 2)
    assert codes(short) == ["contract-not-met"]
    v = short.violations[0]
    assert (v.params["missing"], v.params["extra"], v.params["contract"]) == ("4", "", "334")
    assert lay([["7c", "7d", "7h"], ["8c", "8c", "JK"], ["9c", "9d", "9h"]], J, 1).valid
    over = lay([["7c", "7d", "7h"], ["8c", "8c", "JK"], ["9c", "9d", "9h"],
                ["2s", "3s", "4s", "5s"]], J, 1)
    assert codes(over) == ["contract-not-met"] and over.violations[0].params["extra"] == "4"


def test_contract_distinct_ranks_and_suits() -> None:
    """docs/api.md#contract-rule-sets contract_distinct: no two threes of one rank, no two fours of
    one suit."""
    r = lay([["7c", "7d", "7h"], ["7s", "7s", "JK"], ["8c", "8d", "JK"]], J, 1)
    assert codes(r) == ["contract-duplicate-rank"] and r.violations[0].params["melds"] == [0, 1]
    r = lay([["2s", "3s", "4s", "5s"], ["9s", "Ts", "Js", "Qs"], ["8c", "8d", "JK"]], J, 3)
    assert codes(r) == ["contract-duplicate-suit"] and r.violations[0].params["suit"] == "s"
    loose = resolve({"base": "kalooki-jamaica", "overrides": {"contract_distinct": False}})
    assert lay([["7c", "7d", "7h"], ["7s", "7s", "JK"], ["8c", "8d", "JK"]], loose, 1).valid


def test_a_bad_meld_in_a_lay_says_why() -> None:
    r = lay([["7c", "7d", "7h"], ["8c", "JK", "JK", "Jc"], ["9c", "9d", "9h"]], J, 2)
    assert codes(r)[0] == "adjacent-jokers" and r.violations[0].where == {"meld": 1}
    assert r.melds[1] is None and "contract-not-met" in codes(r)


def test_a_lay_needs_a_round() -> None:
    with pytest.raises(InvalidRound):
        lay([["7c", "7d", "7h"]], J, 10)


def test_an_ambiguous_meld_is_read_to_meet_the_contract() -> None:
    """With one natural allowed, JK JK 7h reads as a three or a four-less run: the lay
    takes the reading that meets the contract."""
    one = resolve({"base": "kalooki-jamaica", "overrides": {
        "set_min_naturals": 1, "run_min_naturals": 1, "run_min": 3, "run_jokers_adjacent": True}})
    r = lay([["JK", "JK", "7h"], ["8c", "8d", "8h"], ["9c", "9d", "9h"]], one, 1)
    assert r.valid and r.melds[0].kind == m.SET
    r = lay([["JK", "JK", "7h"], ["8c", "8d", "8h"], ["9c", "9d", "9h"]], one, 2)
    assert r.valid and r.melds[0].kind == m.RUN


# -- scoring -------------------------------------------------------------------------------

def test_card_values_red_and_black_aces() -> None:
    """docs/api.md#contract-rule-sets: joker 50, black ace 15, red ace 1, T J Q K 10, 2-9 face
    (pagat)."""
    values = {t: card_value(c, J) for t, c in zip(["JK", "As", "Ac", "Ah", "Ad", "Kd", "7h"],
                                                   parse_cards(["JK", "As", "Ac", "Ah", "Ad", "Kd", "7h"]), strict=False)}
    assert values == {"JK": 50, "As": 15, "Ac": 15, "Ah": 1, "Ad": 1, "Kd": 10, "7h": 7}
    reversed_ = resolve({"base": "kalooki-jamaica", "overrides": {"card_values": {"ace": 1, "ace_red": 15}}})
    assert hand_value(parse_cards(["As", "Ah"]), reversed_) == 16


def test_penalty_scoring_and_down_and_out() -> None:
    """docs/api.md#contract-rule-sets, docs/api.md#end-of-hand-scoring penalty: the winner scores 0,
    each other player's penalty grows by their hand value; a down-and-out (finish special)
    multiplies by special_multiplier (1, or 2 as superkalooki's override)."""
    players = [("a", []), ("b", parse_cards(["As", "Ah", "JK"])), ("c", parse_cards(["Kd"]))]
    out = score_hand(J, "a", "out", players)
    assert [(s.id, s.penalty, s.points) for s in out.scores] == [("a", 0, 0), ("b", 66, 0), ("c", 10, 0)]
    special = score_hand(J, "a", "special", players)
    assert special.special and [s.penalty for s in special.scores] == [0, 66, 10]
    doubled = resolve({"base": "kalooki-jamaica", "overrides": {"special_multiplier": 2}})
    assert [s.penalty for s in score_hand(doubled, "a", "special", players).scores] == [0, 132, 20]


def test_the_deck_follows_the_seats_when_scoring() -> None:
    """docs/api.md#contract-rule-sets deck_by_players: five seats play three decks and eight
    jokers."""
    hands = [("p0", [])] + [(f"p{i}", [JOKER, JOKER]) for i in range(1, 5)]  # 8 jokers
    score_hand(J, "p0", "out", hands)
    with pytest.raises(Exception) as e:
        score_hand(J, "p0", "out", hands[:4])  # four seats: 4 jokers only
    assert getattr(e.value, "code", None) == "impossible-cards"


# -- the solver ----------------------------------------------------------------------------

def _kind_of(key: Sequence[int]) -> tuple[str, int | str]:
    naturals = [c for c in _cards(key) if not c.is_joker]
    if len({c.rank for c in naturals}) == 1 and len(naturals) >= 2:
        return "set", naturals[0].rank
    return "run", naturals[0].suit


def _cards(key: Sequence[int]) -> list[Card]:
    from service.engine.cards import card_at
    return [card_at(i) for i in key]


def brute_lay(hand: Sequence[Card], rules: RuleSet, round: int):
    """Every collection of exactly the contract's melds (the oracle's melds of the hand),
    distinct ranks and suits: the best (deadwood, -melded, -points), and whether one lays
    every card or all but one discardable card."""
    threes, fours = rules.contract(round)
    melds = [(k, p, *_kind_of(k)) for k, p in sorted(all_melds(hand, rules, exhaustive=False).items())]
    best = None
    whole = one = False
    full = Counter(c.index for c in hand)

    def visit(start: int, left: Counter, t: int, f: int, ranks: frozenset, suits: frozenset,
              melded: int, points: int) -> None:
        nonlocal best, whole, one
        if t == threes and f == fours:
            rest = [i for i, n in left.items() for _ in range(n)]
            dead = sum(card_value(c, rules) for c in _cards(sorted(rest)))
            key = (dead, -melded, -points)
            best = key if best is None or key < best else best
            whole = whole or not rest
            one = one or (len(rest) == 1 and (rest[0] != 52 or rules.joker_discard))
            return
        for j in range(start, len(melds)):
            key, pts, kind, what = melds[j]
            need = Counter(key)
            if any(left[i] < n for i, n in need.items()):
                continue
            if kind == "set":
                if t == threes or (rules.contract_distinct and what in ranks):
                    continue
                visit(j, left - need, t + 1, f, ranks | {what}, suits, melded + len(key), points + pts)
            else:
                if f == fours or (rules.contract_distinct and what in suits):
                    continue
                visit(j, left - need, t, f + 1, ranks, suits | {what}, melded + len(key), points + pts)

    visit(0, full, 0, 0, frozenset(), frozenset(), 0, 0)
    return best, whole, one


def _hand(rng: random.Random, size: int, jokers: int, suits: str = "cdhs") -> list[Card]:
    pool = [c for c in full_deck(2, 0) if c.suit in suits and c.rank in range(1, 14)]
    rng.shuffle(pool)
    return pool[: size - jokers] + [JOKER] * jokers


def _near_lay(rng: random.Random, round_: int) -> list[Card]:
    """A hand built around the round's contract (threes of repeated suits, fours with a
    joker now and then), plus stray cards, sometimes a card short: dense in lays."""
    hand: list[Card] = []
    for digit in J.contract_text(round_):
        if digit == "3":
            rank = rng.randint(1, 13)
            hand += [Card(rank, rng.choice("cdhs")) for _ in range(rng.choice([2, 3, 3, 4]))]
        else:
            suit, start = rng.choice("cdhs"), rng.randint(1, 10)
            hand += [Card((start + i - 1) % 13 + 1, suit) for i in range(rng.choice([4, 4, 5]))]
    for _ in range(rng.randint(0, 2)):
        hand.append(JOKER if rng.random() < 0.4 else Card(rng.randint(1, 13), rng.choice("cdhs")))
    rng.shuffle(hand)
    if rng.random() < 0.3:
        hand.pop()
    if rng.random() < 0.5:
        hand[rng.randrange(len(hand))] = JOKER
    hand = hand[:12]
    if any(n > 2 for c, n in Counter(hand).items() if not c.is_joker):
        hand = [c for i, c in enumerate(hand) if hand[:i].count(c) < 2]
    return hand


@pytest.mark.parametrize("seed", range(120))
def test_the_best_lay_is_exact(seed: int) -> None:
    """docs/api.md#contract-rule-sets /hands/analyze with round: melds/deadwood are the lay meeting
    the contract with the lowest deadwood (then most cards melded, then points); can_open = one
    exists; can_go_out = can_special = a lay melds the whole hand or all but one discardable card.
    Checked against a brute force over the oracle's melds (dense hands, few suits)."""
    rng = random.Random(seed)
    round_ = rng.choice([1, 2, 3, 4])  # 333, 334, 344, 444
    rules = J if seed % 4 else resolve({"base": "kalooki-jamaica", "overrides": {
        "contract_distinct": False, "run_jokers_adjacent": True, "final_discard": "required"}})
    hand = _near_lay(rng, round_)
    a = analyze(hand, rules, round=round_)
    best, whole, one = brute_lay(hand, rules, round_)
    assert a.can_open is (best is not None)
    if best is None:
        assert a.melds == () and a.deadwood_value == sum(card_value(c, rules) for c in hand)
        assert not a.can_go_out and not a.can_special
        return
    assert (a.deadwood_value, -a.melded_count, -a.points) == best
    optional = rules.final_discard == "optional"
    assert a.can_go_out is a.can_special is ((whole and optional) or one)
    assert lay([list(x.cards) for x in a.melds], rules, round_).valid  # a legal lay
    assert Counter(c.index for x in a.melds for c in x.physical()) + Counter(
        c.index for c in a.deadwood) == Counter(c.index for c in hand)


def test_going_out_needs_a_discardable_last_card() -> None:
    """docs/api.md#contract-rule-sets joker_discard false: a lay leaving only a joker cannot go
    out."""
    hand = parse_cards(["7c", "7d", "7h", "8c", "8d", "8h", "9c", "9d", "9h", "JK"])
    a = analyze(hand, J, round=1)
    assert a.can_go_out and a.deadwood == ()  # the joker joins a three
    down = analyze(parse_cards(["JK"]), J, opened=True, round=1)
    assert not down.can_go_out and down.melds == ()
    assert analyze(parse_cards(["Kd"]), J, opened=True, round=1).can_go_out


def test_a_down_player_melds_nothing_of_their_own() -> None:
    """docs/api.md#contract-rule-sets: melds_after_contract false: a down player has no melds; with
    it, any melds."""
    hand = parse_cards(["7c", "7d", "7h", "Kd"])
    a = analyze(hand, J, opened=True, round=1)
    assert a.melds == () and not a.can_go_out and not a.can_special
    free = resolve({"base": "kalooki-jamaica", "overrides": {"melds_after_contract": True}})
    b = analyze(hand, free, opened=True, round=1)
    assert [str(x) for x in b.melds] == ["7c 7d 7h"] and b.can_go_out and not b.can_special


def test_analyze_takes_round_only_in_contract_rule_sets() -> None:
    """docs/api.md#contract-rule-sets: round-required / invalid-round; the hand cap is deal + 1 +
    calls."""
    with pytest.raises(RoundRequired):
        analyze(parse_cards(["7c"]), J)
    with pytest.raises(InvalidRound):
        analyze(parse_cards(["7c"]), CATALOG["kaluki-51"], round=1)
    with pytest.raises(HandTooLarge) as e:
        analyze(_hand(random.Random(1), 17, 0), J, round=1)
    assert e.value.limit == 9 + 1 + 3 * 2


def test_many_jokers_stay_inside_the_budget_or_refuse() -> None:
    """Issue 22: hands of up to 17 cards with four or more jokers are answered or refused
    with search-too-large, never a long wait (bench/contract_bench.py measures the time)."""
    for seed in range(20):
        rng = random.Random(seed)
        hand = _hand(rng, 17, 4 + seed % 7)
        for round_ in (5, 8, 9):
            try:
                a = analyze(hand, J, round=round_)
            except SearchTooLarge:
                continue
            assert a.melded_count + len(a.deadwood) == 17


def test_the_lay_found_for_four_fours() -> None:
    hand = parse_cards(["2h", "3h", "4h", "5h", "2c", "3c", "4c", "5c", "2s", "3s", "4s", "5s", "2d", "3d", "JK", "JK", "Ad"])
    a = analyze(hand, J, round=9)
    assert a.can_open and a.can_go_out and a.deadwood == ()
    assert sorted(x.suit for x in a.melds) == ["c", "d", "h", "s"]


def test_every_lay_size_found_is_a_combination_of_the_hand() -> None:
    """Sanity: the solver never uses a card twice."""
    rng = random.Random(7)
    for _ in range(30):
        hand = _hand(rng, 14, rng.randint(0, 4))
        a = analyze(hand, J, round=7)
        used = Counter(c.index for x in a.melds for c in x.physical()) + Counter(c.index for c in a.deadwood)
        assert used == Counter(c.index for c in hand)


@pytest.mark.parametrize("seed", range(40))
def test_a_down_players_free_melds_agree_with_the_oracle(seed: int) -> None:
    """melds_after_contract true: a down player's arrangement is any melds
    (docs/api.md#analyzing-a-hand with opened), under Jamaican melds (repeated suits,
    jokers apart, aces by colour)."""
    from tests.engine.oracle import judge
    free = resolve({"base": "kalooki-jamaica", "overrides": {
        "melds_after_contract": True, "joker_discard": True}})
    rng = random.Random(seed)
    hand = _near_lay(rng, rng.choice([1, 2, 3]))[:11]
    a = analyze(hand, free, opened=True, round=1)
    v = judge(hand, free, opened=True, exhaustive=False)
    assert (a.deadwood_value, a.melded_count, a.points) == (v.deadwood_value, v.melded_count, v.points)
    assert a.can_go_out is v.can_go_out and a.can_special is False


# -- matches -------------------------------------------------------------------------------

def test_a_contract_match_takes_each_round_in_turn() -> None:
    """docs/api.md#contract-rule-sets: match_end contracts: appends must be the next round
    (wrong-round); the match ends after the last contract; the lowest total penalty wins; ties:
    co_winners."""
    from service.engine.match import MatchError, apply_hand, match_end_of, new_match, rescore
    end = match_end_of(J)
    assert end.rounds == 9 and end.to_dict()["rounds"] == 9
    state = new_match(["a", "b", "c"], J)
    with pytest.raises(MatchError) as e:
        apply_hand(state, end, "a", [("a", 0, 0), ("b", 0, 5), ("c", 0, 5)], round=2)
    assert e.value.code == "wrong-round"
    for n in range(1, 10):
        state = apply_hand(state, end, "a", [("a", 0, 0), ("b", 0, 5), ("c", 0, 5)], round=n)
        assert state.status == ("finished" if n == 9 else "in_progress")
    assert state.winner == "a"
    tie = new_match(["a", "b", "c"], J)
    for n in range(1, 10):
        tie = apply_hand(tie, end, "c", [("a", 0, 1), ("b", 0, 1), ("c", 0, 0 if n < 9 else 9)],
                         round=n)
    assert (tie.winner, tie.co_winners) == (None, ("a", "b", "c"))
    # a ledger re-scored (an import) checks the rounds again
    body = {"winner": "a", "finish": "out", "players": [
        {"id": "a", "cards": []}, {"id": "b", "cards": ["Kd"]}, {"id": "c", "cards": ["Ah"]}]}
    entry = {"type": "hand", "source": "score", "winner": "a", "finish": "out", "special": False,
             "scores": [{"id": "a", "hand_value": 0, "points": 0, "penalty": 0},
                        {"id": "b", "hand_value": 10, "points": 0, "penalty": 10},
                        {"id": "c", "hand_value": 1, "points": 0, "penalty": 1}]}
    ok = rescore("kalooki-jamaica", J, ["a", "b", "c"], end,
                 [{**entry, "input": {**body, "round": 1}}, {**entry, "input": {**body, "round": 2}}])
    assert ok.hands_played == 2
    with pytest.raises(MatchError) as e:
        rescore("kalooki-jamaica", J, ["a", "b", "c"], end,
                [{**entry, "input": {**body, "round": 1}}, {**entry, "input": {**body, "round": 1}}])
    assert e.value.code == "rescore-mismatch"


def test_a_contract_match_end_fits_its_rule_set() -> None:
    from service.engine.match import MatchError, match_end_of
    with pytest.raises(MatchError):
        match_end_of(J, {"match_end": "goal"})
    with pytest.raises(MatchError):
        match_end_of(CATALOG["kaluki-51"], {"match_end": "contracts"})
    assert "rounds" not in match_end_of(CATALOG["kaluki-51"]).to_dict()
