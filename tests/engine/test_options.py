"""Legal next plays (docs/api.md#legal-next-plays): one engine, both ways.

States are drawn from self-play hands of every catalog rule set, cut at a random point of a
random turn, and seen as ``/turns/check`` sees them (a one-player game from the table, the
hand, opened, laid_before and the discard's top card). Then:

* every listed play, appended to the turn so far, gives a turn the referee rules legal
  (:func:`.referee.play_turn_so_far`, the code ``/turns/check`` uses), and one that ends it
  (a discard) a turn :func:`.referee.check_turn` rules legal;
* every single play of the listed kinds that is not listed is refused: every draw, every
  one-card build of every card on every meld at every end, every release of up to three of
  the hand's cards on every meld, every discard of every card, and many melds (random
  subsets of the hand, jokers declared or not).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import Card, MeldCard, parse_cards
from service.engine.game import Game, Phase
from service.engine.options import (
    DiscardOption,
    DrawOption,
    apply_option,
    callers,
    can_end,
    hint,
    legal_actions,
    option_to_data,
    turn_phase,
)
from service.engine.record import (
    DISCARD,
    STOCK,
    BuildPlay,
    Call,
    Draw,
    LayPlay,
    MeldPlay,
    ReleasePlay,
    ShiftPlay,
    Turn,
    parse_record,
)
from service.engine.referee import _play_turn, check_turn, play_turn_so_far, turn_game
from service.engine.rules import CATALOG, RuleSet, resolve
from service.engine.selfplay import Bot
from service.engine.solver import analyze

NAMES = sorted(CATALOG)


# -- states -----------------------------------------------------------------------------------

class State:
    """A stateless turn as /turns/check takes it: rules, table, hand, opened, laid_before,
    discard_top, and the turn so far (``draw`` None: before the draw); in a contract rule
    set also ``round``, the seats from the player to move (``seats``), the other players
    who are ``down``, ``calls_made`` and this turn's ``call`` so far
    (docs/api.md#contract-rule-sets)."""

    def __init__(self, rules: RuleSet, table, hand, opened, laid_before, top, draw, plays, *,
                 round=None, seats=None, down=(), calls_made=None, call=None):
        self.rules, self.table, self.hand, self.opened = rules, table, hand, opened
        self.laid_before, self.top, self.draw, self.plays = laid_before, top, draw, tuple(plays)
        self.round, self.seats, self.down = round, seats, tuple(down)
        self.calls_made, self.call = dict(calls_made or {}), call
        self.player = seats[0] if seats else "player"

    @property
    def context(self) -> dict:
        """The contract keywords of turn_game / check_turn."""
        return {"round": self.round, "players": self.seats, "down": self.down,
                "calls_made": self.calls_made}

    def turn(self, *, draw=None, plays=(), discard=None, call=None) -> Turn:
        d = draw if draw is not None else self.draw
        return Turn(self.player, d, self.plays + tuple(plays), discard, None,
                    call if call is not None else self.call)

    def game(self) -> Game:
        return turn_game(self.rules, self.table, self.hand, self.opened, self.top,
                         laid_before=self.laid_before, **self.context)

    def ruling(self, turn: Turn):
        """The referee's ruling on this turn so far (None: legal)."""
        return play_turn_so_far(self.game(), turn)


def state_from_selfplay(name: str | dict, seed: int, cut: float, where: float) -> State | None:
    """A state cut from a self-play hand of ``name`` (a catalog name or a rule-set spec with
    overrides). In a contract rule set the cut may fall before a turn's call, after it
    (before the draw), or among its plays."""
    rules = CATALOG[name] if isinstance(name, str) else resolve(name)
    seats = rules.players_min + seed % (rules.players_max - rules.players_min + 1)
    bot = Bot(rules, [f"p{i}" for i in range(seats)], seed=seed, ruleset=name)
    record = parse_record(bot.play())
    turns = record.turns
    if not turns:
        return None
    t = min(int(cut * len(turns)), len(turns) - 1)
    g = Game(rules, record.players, record.deal, record.stock, record.discard,
             round=record.round)
    for i, turn in enumerate(turns[:t]):
        assert _play_turn(g, i, turn, True) is None
    turn = turns[t]
    p = turn.player
    state = g.state
    extra = 1 if turn.call is not None else 0
    # -2: before the turn's call, -1: before the draw, k >= 0: after the draw and k plays
    k = int(where * (len(turn.plays) + 2 + extra)) - 1 - extra
    order = [*record.players[record.players.index(p):], *record.players[:record.players.index(p)]]
    call = None
    probe = g.copy()
    if turn.call is not None and k >= -1:
        if t == 0 and turn.call.player == order[-1]:
            return None  # the deal's pile card: statelessly the last seat discarded it
        op = probe.call(turn.call.player, turn.call.granted, turn.call.penalty)
        call = Call(turn.call.player, turn.call.granted, op.penalty if turn.call.granted else None)
    draw = None
    if k >= 0 and turn.draw is not None:
        # the stateless game has no stock: a stock draw names its card (the true one)
        card = turn.draw.card
        if card is None:
            probe.draw(turn.draw.source, None, turn.restock)
            card = probe.operations[-1].card  # type: ignore[attr-defined]
        if turn.restock is not None or (turn.draw.source == DISCARD and g.discard_top is None):
            return None  # a restock has no stateless form
        draw = Draw(turn.draw.source, card)
    plays = turn.plays[:max(0, k)] if draw is not None else ()
    if record.round is None:
        return State(rules, g.table, g.hand(p), p in g.opened, p in state.laid, g.discard_top,
                     draw, plays)
    return State(rules, g.table, g.hand(p), p in g.opened, p in state.laid, g.discard_top, draw,
                 plays, round=record.round, seats=order,
                 down=[q for q in g.opened if q != p], calls_made=dict(g.calls_made), call=call)


# -- the two directions -----------------------------------------------------------------------

def _key(tokens) -> tuple:
    return tuple(sorted((t.card.index, t.as_rank or 0, t.as_suit or "") for t in tokens))


def _unseen_card(game: Game) -> Card:
    unseen = game.state.unseen
    assert unseen
    return unseen[0]


def check_state(s: State, rng: random.Random) -> dict[str, int]:
    game = s.game()
    v = play_turn_so_far(game, s.turn())
    assert v is None, v  # the self-play turn so far is legal
    phase = turn_phase(game, 0)
    options = legal_actions(game)
    data = [option_to_data(o) for o in options]
    assert len({repr(d) for d in data}) == len(data), "an option is listed twice"
    ended = phase == "ended"
    assert can_end(game, options, ended) == (ended or any(isinstance(o, DiscardOption)
                                                          for o in options))
    hint(game, ended)  # the hint answers for every state (no exception)
    if ended:
        assert options == []
        return {"options": 0}

    # every listed play is accepted
    for o in options:
        if isinstance(o, DrawOption):
            card = _unseen_card(game) if o.source == STOCK else s.top
            assert s.ruling(s.turn(draw=Draw(o.source, card))) is None, o
        elif isinstance(o, DiscardOption):
            turn = s.turn(discard=o.card)
            assert s.ruling(turn) is None, o
            checked = check_turn(s.rules, s.table, s.hand, s.opened, s.top, turn, s.laid_before,
                                 **s.context)
            assert checked.legal, (o, checked.violation)
        else:
            assert s.ruling(s.turn(plays=[o])) is None, (option_to_data(o), s.ruling(s.turn(plays=[o])))

    if phase == "draw":
        for source in (STOCK, DISCARD):
            card = _unseen_card(game) if source == STOCK else s.top
            if card is None:
                continue
            ok = s.ruling(s.turn(draw=Draw(source, card))) is None
            assert ok == (DrawOption(source) in options), source
        if s.round is not None:  # docs/api.md#contract-rule-sets: the callers, both ways
            listed = callers(game)
            assert len(set(listed)) == len(listed)
            for q in game.players:
                ok = s.call is None and any(
                    s.ruling(s.turn(call=Call(q, granted, _penalty(game) if granted else None)))
                    is None for granted in (True, False))
                assert ok == (q in listed), (q, listed)
        else:
            assert callers(game) == []
        return {"options": len(options)}

    # every single play of the listed kinds not listed is refused
    hand = Counter(game.hand(s.player))
    cards = sorted(hand)
    listed_builds: dict[tuple[int, str], set[tuple]] = {}
    for o in options:
        if isinstance(o, BuildPlay):
            trial = game.copy()
            apply_option(trial, o)
            listed_builds.setdefault((o.meld, str(o.cards[0].token)), set()).add(
                _key(trial.table[o.meld].cards) if trial.phase is not Phase.OVER else "out")
    for idx, meld in enumerate(game.table):
        for c in cards:
            for end in (None, "low", "high"):
                play = BuildPlay(idx, (m.Placed(MeldCard(c), end),))
                if s.ruling(s.turn(plays=[play])) is not None:
                    continue
                trial = game.copy()
                apply_option(trial, play)
                got = _key(trial.table[idx].cards) if trial.phase is not Phase.OVER else "out"
                assert got in listed_builds.get((idx, str(c)), set()), (
                    "an accepted build is not listed", idx, str(c), end)
        # releases of up to three cards of the hand
        pool = [c for c in cards if not c.is_joker and (
            isinstance(meld, m.SetMeld) and c.rank == meld.rank
            or isinstance(meld, m.RunMeld) and c.suit == meld.suit)]
        listed = {o.cards for o in options if isinstance(o, ReleasePlay) and o.meld == idx}
        freed = {len(o.cards): m.release(meld, o.cards, s.rules).released for o in options
                 if isinstance(o, ReleasePlay) and o.meld == idx}
        for n in range(1, min(3, len(pool)) + 1):
            for laid in _combos(pool, n, hand):
                play2 = ReleasePlay(idx, laid)
                if s.ruling(s.turn(plays=[play2])) is not None:
                    assert laid not in listed
                    continue
                released = m.release(meld, laid, s.rules).released
                assert laid in listed or any(
                    k < n and freed[k] >= released for k in freed), (
                    "an accepted release is not listed", idx, [str(c) for c in laid])
        # shifts (docs/api.md#contract-rule-sets): every accepted one gives a run a listed one gives
        listed_shifts = set()
        for o in options:
            if isinstance(o, ShiftPlay) and o.meld == idx:
                trial = game.copy()
                apply_option(trial, o)
                listed_shifts.add(_key(trial.table[idx].cards) if trial.phase is not Phase.OVER
                                  else "out")
        for c in cards:
            for end in (None, "low", "high"):
                play4 = ShiftPlay(idx, c, end)
                if s.ruling(s.turn(plays=[play4])) is not None:
                    continue
                trial = game.copy()
                apply_option(trial, play4)
                got = _key(trial.table[idx].cards) if trial.phase is not Phase.OVER else "out"
                assert got in listed_shifts, ("an accepted shift is not listed", idx, str(c), end)
    # the lay (docs/api.md#legal-next-plays: one, with the most cards; the refusal direction sets
    # lays aside)
    lays = [o for o in options if isinstance(o, LayPlay)]
    assert len(lays) <= 1
    if s.round is not None and s.player not in game.opened:
        best = analyze(game.hand(s.player), s.rules, False, round=s.round)
        if s.rules.final_discard.value == "optional":
            assert bool(lays) == best.can_open, (best, lays)
        if lays:
            assert sum(len(x.cards) for x in lays[0].melds) >= best.melded_count
    else:
        assert not lays
    if s.round is not None and (s.player not in game.opened
                                or not s.rules.melds_after_contract):
        assert not any(isinstance(o, MeldPlay) for o in options)  # contract-not-met / -extra-meld
    # discards
    for c in [*cards, Card.parse("2c")]:
        ok = s.ruling(s.turn(discard=c)) is None
        assert ok == (DiscardOption(c) in options), str(c)
    # melds: the listed ones' readings, and random subsets of the hand
    listed_melds = {_key(o.cards) for o in options if isinstance(o, MeldPlay)}
    physical = [c for c in cards for _ in range(hand[c])]
    for _ in range(60):
        least = max(1, min(s.rules.set_min, s.rules.run_min))
        if least > len(physical):
            break
        size = rng.randint(least, max(least, min(len(physical), 6)))
        chosen = rng.sample(physical, size)
        if rng.random() < 0.5:
            chosen.sort(key=lambda c: (c.suit, c.rank))
        tokens = [MeldCard(c) for c in chosen]
        play3 = MeldPlay(tuple(tokens))
        if s.ruling(s.turn(plays=[play3])) is not None:
            continue
        trial = game.copy()
        apply_option(trial, play3)
        laid = trial.table[len(game.table)]
        assert _key(laid.cards) in listed_melds, ("an accepted meld is not listed", str(laid))
    return {"options": len(options)}


def _penalty(game: Game):
    """Penalty cards a granted call may name statelessly (the stock's unseen cards)."""
    unseen = game.state.unseen or ()
    return tuple(unseen[:game.rules.call_penalty_cards]) or None


def _combos(pool, n, hand):
    from itertools import combinations
    seen = set()
    for laid in combinations([c for c in pool for _ in range(min(hand[c], 2))], n):
        if laid not in seen:
            seen.add(laid)
            yield laid


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), cut=st.floats(0, 1, exclude_max=True),
       where=st.floats(0, 1, exclude_max=True))
def test_listed_plays_are_accepted_and_the_rest_refused(name: str, seed: int, cut: float,
                                                        where: float) -> None:
    s = state_from_selfplay(name, seed, cut, where)
    if s is None:
        return
    check_state(s, random.Random(seed))


VARIANTS = [  # the modes the catalog leaves out, with more jokers to release
    {"base": "kaluki-hunt", "overrides": {"release_set": "one_missing", "jokers": 6}},
    {"base": "kaluki-hunt", "overrides": {"release_closed_four": True, "jokers": 6,
                                          "final_discard": "optional"}},
    {"base": "kaluki-51", "overrides": {"released_joker": "hand", "ace": "around", "jokers": 6}},
    {"base": "kalooki-40", "overrides": {"final_discard": "optional", "jokers": 6,
                                         "discard_pickup": "new_meld_same_turn"}},
    {"base": "kaluki-uk", "overrides": {"build_requires_opening": False, "jokers": 6,
                                        "release_requires_opening": False}},
    {"base": "kaluki-hunt", "overrides": {"set_distinct_suits": False, "set_max": 6,
                                          "jokers": 6}},
]


@pytest.mark.parametrize("spec", VARIANTS, ids=lambda v: ",".join(v["overrides"]))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), cut=st.floats(0, 1, exclude_max=True),
       where=st.floats(0, 1, exclude_max=True))
def test_both_ways_under_overrides(spec: dict, seed: int, cut: float, where: float) -> None:
    s = state_from_selfplay(spec, seed, cut, where)
    if s is None:
        return
    check_state(s, random.Random(seed))


# -- hand-made states: each rule that shapes the list -------------------------------------------

def _cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def _opts(rules, table, hand, opened, top, draw, plays=(), laid_before=False):
    s = State(rules, table, _cards(hand), opened, laid_before, Card.parse(top) if top else None,
              draw, plays)
    game = s.game()
    assert play_turn_so_far(game, s.turn()) is None
    return s, game, [option_to_data(o) for o in legal_actions(game)]


def test_draw_phase_lists_both_sources_and_no_discard_without_a_pile() -> None:
    rules = CATALOG["kaluki-hunt"]
    _, _, opts = _opts(rules, [], "2c 3c 4c 9d Td Jd Qd Ad Ac 5h 6h 7h 8h", False, "Ks", None)
    assert opts == [{"draw": {"from": "stock"}}, {"draw": {"from": "discard"}}]
    _, _, opts = _opts(rules, [], "2c 3c 4c 9d Td Jd Qd Ad Ac 5h 6h 7h 8h", False, None, None)
    assert opts == [{"draw": {"from": "stock"}}]


def test_pickup_obligation_leaves_no_discard_until_the_card_is_laid() -> None:
    # docs/api.md#rule-sets-and-overrides discard_pickup meld_same_turn (kalooki-40): the card taken
    # must be laid this turn
    rules = CATALOG["kalooki-40"]
    table = [m.table_meld(["Kh", "Ks", "Kd"], rules)]
    hand = "2c 3c 4c 9d Td Jd Qd Jc 6h 7h 8s 9s"
    s, game, opts = _opts(rules, table, hand, True, "Jh", Draw(DISCARD, Card.parse("Jh")))
    assert not any("discard" in o for o in opts)
    assert not can_end(game, legal_actions(game), False)
    assert {"meld": ["Jc", "Jd", "Jh"]} in opts
    # once it is laid the turn may end, but not by discarding a copy of the card taken
    _, game2, opts2 = _opts(rules, table, hand, True, "Jh", Draw(DISCARD, Card.parse("Jh")),
                            [MeldPlay(tuple(m.as_tokens(["Jc", "Jd", "Jh"])))])
    assert {"discard": "2c"} in opts2
    assert can_end(game2, legal_actions(game2), False)


def test_opening_threshold_gates_builds_and_discards() -> None:
    # kaluki-51: 51 points before anything but melds (docs/api.md#rule-sets-and-overrides
    # opening_min_points)
    rules = CATALOG["kaluki-51"]
    table = [m.table_meld(["2s", "3s", "4s", "5s"], rules)]
    plays = [MeldPlay(tuple(m.as_tokens(["6h", "7h", "8h", "9h"])))]  # 30 points
    _, _, opts = _opts(rules, table, "6h 7h 8h 9h 2c 2d 2h Qc Kd 9c Tc 5c 6d", False, None,
                       Draw(STOCK, Card.parse("6s")), plays)
    assert not any("discard" in o or "build" in o for o in opts)
    assert any("meld" in o for o in opts)


def test_released_joker_must_be_used_before_a_discard() -> None:
    # kaluki-hunt: released_joker any_meld (docs/api.md#joker-release): no discard until the joker
    # is laid
    rules = CATALOG["kaluki-hunt"]
    table = [m.table_meld(["5h", "JK", "7h"], rules), m.table_meld(["Ks", "Kd", "Kc"], rules)]
    plays = [ReleasePlay(0, (Card.parse("6h"),))]
    _, _, opts = _opts(rules, table, "6h 2c 3d 9s Ts", True, None,
                       Draw(STOCK, Card.parse("4d")), plays)
    assert not any("discard" in o for o in opts)
    assert {"build": {"meld": 1, "cards": ["JK"]}} in opts


def test_a_card_that_fits_both_ends_is_listed_once_per_end() -> None:
    rules = CATALOG["kaluki-hunt"]
    table = [m.table_meld(["5h", "6h", "7h"], rules)]
    _, _, opts = _opts(rules, table, "JK 8h 4h 2c 9s", True, None, Draw(STOCK, Card.parse("4d")))
    builds = [o["build"] for o in opts if "build" in o]
    assert {"meld": 0, "cards": [{"card": "JK", "end": "low"}]} in builds
    assert {"meld": 0, "cards": [{"card": "JK", "end": "high"}]} in builds
    assert {"meld": 0, "cards": ["8h"]} in builds and {"meld": 0, "cards": ["4h"]} in builds


def test_set_jokers_are_declared_by_rank_and_run_jokers_by_card() -> None:
    rules = CATALOG["kaluki-hunt"]
    _, _, opts = _opts(rules, [], "7c 7d JK 2s 9h Th", True, None, Draw(STOCK, Card.parse("4d")))
    melds = [o["meld"] for o in opts if "meld" in o]
    assert ["7c", "7d", "JK=7"] in melds
    assert ["JK=8h", "9h", "Th"] in melds and ["9h", "Th", "JK=Jh"] in melds


def test_final_discard_required_forbids_laying_the_last_card() -> None:
    # kaluki-hunt final_discard required: a meld of every card held is refused
    rules = CATALOG["kaluki-hunt"]
    _, _, opts = _opts(rules, [], "7c 7d", True, None, Draw(STOCK, Card.parse("7h")))
    assert {"meld": ["7c", "7d", "7h"]} not in opts
    assert {"discard": "7h"} in opts
    # kaluki-51 final_discard optional: going out by the meld is listed
    rules = CATALOG["kaluki-51"]
    _, _, opts = _opts(rules, [], "7c 7d", True, None, Draw(STOCK, Card.parse("7h")))
    assert {"meld": ["7c", "7d", "7h"]} in opts


def test_a_closed_set_releases_nothing() -> None:
    # a set closed by its history (docs/api.md#checking-one-turn {"cards", "closed": true}) frees no
    # joker
    rules = CATALOG["kaluki-hunt"]
    locked = m.SetMeld(7, tuple(m.as_tokens(["7c", "7d", "JK=7"])), 21, locked=True)
    _, _, opts = _opts(rules, [locked], "7h 7s 2c", True, None, Draw(STOCK, Card.parse("4d")))
    assert not any("release" in o for o in opts)
    open_set = m.table_meld(["7c", "7d", "JK"], rules)
    _, _, opts = _opts(rules, [open_set], "7h 7s 2c", True, None, Draw(STOCK, Card.parse("4d")))
    assert {"release": {"meld": 0, "cards": ["7h", "7s"]}} in opts  # all_missing: both suits


def test_ended_turn_has_no_options() -> None:
    rules = CATALOG["kaluki-hunt"]
    s = State(rules, [], _cards("7c 7d 2s"), True, False, None, Draw(STOCK, Card.parse("4d")), ())
    game = s.game()
    assert play_turn_so_far(game, s.turn(discard=Card.parse("2s"))) is None
    assert turn_phase(game, 0) == "ended"


# -- contract rule sets (docs/api.md#contract-rule-sets): callers, the lay, shifts -------------

JAMAICA = CATALOG["kalooki-jamaica"]
SEATS = ["ann", "bob", "cy", "dee", "eve"]


def _jopts(hand, *, round=1, table=(), opened=False, top="9s", draw=None, plays=(), call=None,
           down=(), calls_made=None, rules=JAMAICA, seats=SEATS):
    s = State(rules, list(table), _cards(hand), opened, False, Card.parse(top) if top else None,
              draw, plays, round=round, seats=seats, down=down, calls_made=calls_made, call=call)
    game = s.game()
    assert play_turn_so_far(game, s.turn()) is None
    return s, game, [option_to_data(o) for o in legal_actions(game)]


def test_callers_are_the_players_who_may_call_now() -> None:
    # docs/api.md#contract-rule-sets: not the player to move, not the one who discarded (eve, the
    # last seat), not a down player (cy), not one with no calls left (dee: call_max 3)
    hand = "2c 3c 4c 5c 6c 8h 8s Td Jd"
    _, game, opts = _jopts(hand, down=["cy"], calls_made={"dee": 3})
    assert callers(game) == ["bob"]
    assert opts == [{"draw": {"from": "stock"}}, {"draw": {"from": "discard"}}]
    # after a granted call the player draws from the stock; after a refused one, the discard
    granted = Call("bob", True, (Card.parse("Ah"),))
    _, game, opts = _jopts(hand, down=["cy"], calls_made={"dee": 3}, call=granted)
    assert callers(game) == [] and opts == [{"draw": {"from": "stock"}}]
    _, game, opts = _jopts(hand, down=["cy"], calls_made={"dee": 3}, call=Call("bob", False))
    assert callers(game) == [] and opts == [{"draw": {"from": "discard"}}]
    # no discard pile, or no seats: nobody calls
    _, game, _ = _jopts(hand, top=None)
    assert callers(game) == []
    _, game, _ = _jopts(hand, seats=None)
    assert callers(game) == []


def test_a_down_player_draws_no_discard_and_still_may_be_called() -> None:
    # docs/api.md#contract-rule-sets discard_after_down false: the down player draws from the stock
    # only; a call may still be granted (a refusal would make them take the discard:
    # discard-after-down)
    table = [m.table_meld(r.split(), JAMAICA) for r in ("7h 7s 7c", "9d 9d JK", "Kc Kh Ks")]
    _, game, opts = _jopts("2c 3c", table=table, opened=True)
    assert opts == [{"draw": {"from": "stock"}}]
    assert callers(game) == ["bob", "cy", "dee"]
    s, game, _ = _jopts("2c 3c", table=table, opened=True)
    refused = play_turn_so_far(s.game(), s.turn(call=Call("bob", False)))
    assert refused is not None and refused.code == "discard-after-down"


def test_before_going_down_the_lay_is_the_only_play_but_a_discard() -> None:
    # docs/api.md#contract-rule-sets: no meld before going down (contract-not-met), no build
    # (build-before-opening); docs/api.md#legal-next-plays: the lay that meets the
    # contract with the most cards (not the lowest deadwood)
    hand = "Kc Kd Kh Qc Qd Qh 2c 2d 2h 2s 2c Ac As"
    table = [m.table_meld(["5h", "6h", "7h", "8h"], JAMAICA)]
    _, game, opts = _jopts(hand, table=table, draw=Draw(STOCK, Card.parse("JK")))
    lays = [o for o in opts if "lay" in o]
    assert lays == [{"lay": [["2c", "2c", "2d", "2h", "2s"], ["Qc", "Qd", "Qh"],
                             ["Kc", "Kd", "Kh", "JK=K"]]}]
    assert not any("meld" in o or "build" in o or "shift" in o for o in opts)
    assert {"discard": "JK"} not in opts and {"discard": "Ac"} in opts  # joker_discard false
    # the analysis keeps the lowest deadwood instead: fewer cards
    assert analyze(game.hand("ann"), JAMAICA, False, round=1).melded_count == 9
    # a hand without the contract has no lay
    _, _, opts = _jopts("Kc Kd Kh Qc Qd 2c 3d 4h 5s", draw=Draw(STOCK, Card.parse("9c")))
    assert not any("lay" in o for o in opts)


def test_a_lay_of_every_card_goes_out_or_gives_way() -> None:
    # kalooki-jamaica final_discard optional: down-and-out by the lay is listed
    hand = "7h 7s 7c 9d 9d JK Kc Kh Ks"
    _, _, opts = _jopts(hand, draw=Draw(STOCK, Card.parse("Kd")))
    assert {"lay": [["7c", "7h", "7s"], ["9d", "9d", "JK=9"], ["Kc", "Kd", "Kh", "Ks"]]} in opts
    # final_discard required: every card laid would be final-discard-required, so the listed
    # lay keeps one card back, and it is accepted
    rules = resolve({"base": "kalooki-jamaica", "overrides": {"final_discard": "required"}})
    s, _, opts = _jopts(hand, draw=Draw(STOCK, Card.parse("Kd")), rules=rules)
    lays = [o for o in opts if "lay" in o]
    assert len(lays) == 1 and sum(len(x) for x in lays[0]["lay"]) == 9
    lay = LayPlay(tuple(MeldPlay(tuple(m.as_tokens(x))) for x in lays[0]["lay"]))
    assert s.ruling(s.turn(plays=[lay])) is None


def test_down_players_shift_and_build_but_meld_nothing() -> None:
    # docs/api.md#contract-rule-sets joker_shift run_end: the natural takes the joker's place, the
    # joker moves to an end (each end listed); melds_after_contract false: no meld of one's own
    table = [m.table_meld(["5h", "JK", "7h", "8h"], JAMAICA),
             m.table_meld(["Kc", "Kh", "Ks"], JAMAICA)]
    _, _, opts = _jopts("6h 2c 2d 2s 4h", table=table, opened=True,
                        draw=Draw(STOCK, Card.parse("Kd")))
    assert {"shift": {"meld": 0, "card": "6h", "end": "low"}} in opts
    assert {"shift": {"meld": 0, "card": "6h", "end": "high"}} in opts
    assert {"build": {"meld": 1, "cards": ["Kd"]}} in opts
    assert {"build": {"meld": 0, "cards": ["4h"]}} in opts
    assert not any("meld" in o or "lay" in o for o in opts)  # 2c 2d 2s: contract-extra-meld
    # not down: no shift (joker-not-shiftable), no build
    _, _, opts = _jopts("6h 2c 2d 2s 4h", table=table, draw=Draw(STOCK, Card.parse("Kd")))
    assert not any("shift" in o or "build" in o for o in opts)
    # melds_after_contract true (an override): the down player's own melds are listed
    rules = resolve({"base": "kalooki-jamaica", "overrides": {"melds_after_contract": True}})
    _, _, opts = _jopts("6h 2c 2d 2s 4h", table=table, opened=True, rules=rules,
                        draw=Draw(STOCK, Card.parse("Kd")))
    assert {"meld": ["2c", "2d", "2s"]} in opts


@pytest.mark.parametrize("spec", [
    {"base": "kalooki-jamaica", "overrides": {"melds_after_contract": True}},
    {"base": "kalooki-jamaica", "overrides": {"discard_after_down": True, "joker_discard": True,
                                              "final_discard": "required"}},
], ids=["melds_after_contract", "discard_after_down,joker_discard,final_discard"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), cut=st.floats(0, 1, exclude_max=True),
       where=st.floats(0, 1, exclude_max=True))
def test_both_ways_under_contract_overrides(spec: dict, seed: int, cut: float,
                                            where: float) -> None:
    s = state_from_selfplay(spec, seed, cut, where)
    if s is None:
        return
    check_state(s, random.Random(seed))
