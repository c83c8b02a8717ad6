"""The game's public surface (engine/game.py): for each action, ``can_`` is false for a
broken rule (and ``verify_`` names it) and true otherwise; the action raises
IllegalPlay and changes nothing when illegal; the phases follow the turn; and
replaying a game's operations gives the same state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import melds as m
from service.engine.cards import JOKER, Card, MeldCard, parse_cards
from service.engine.game import (
    ActionError,
    Building,
    Discarding,
    Drawing,
    Game,
    GoingOut,
    IllegalPlay,
    Melding,
    Opening,
    Phase,
    Releasing,
    Restocking,
)
from service.engine.rules import CATALOG, resolve
from service.engine.selfplay import Bot
from tests.engine.hands import ANN, BOB

HUNT, K51, K40, UK = (CATALOG[n] for n in ("kaluki-hunt", "kaluki-51", "kalooki-40", "kaluki-uk"))


def C(text: str) -> Card:
    return Card.parse(text)


def toks(text: str) -> list[MeldCard]:
    return m.as_tokens(text.split())


def placed(text: str) -> list[m.Placed]:
    return [m.Placed(t) for t in toks(text)]


def game(rules=HUNT, stock: str | None = "Qc 2h 3h", discard: str = "9h", **kw) -> Game:
    return Game(rules, ["ann", "bob"], [parse_cards(ANN), parse_cards(BOB)],
                None if stock is None else parse_cards(stock.split()), parse_cards(discard.split()),
                **kw)


def code(v) -> str | None:
    return None if v is None else v.code


def refused(g: Game, action: str, *args, expect: str) -> None:
    """``action`` is illegal with code ``expect``: verify says so, can_ is false, the action
    raises IllegalPlay carrying it and leaves the game (and its log) as it was."""
    before, ops = g.state, len(g.operations)
    assert code(getattr(g, f"verify_{action}")(*args)) == expect
    assert not getattr(g, f"can_{action}")(*args)
    with pytest.raises(IllegalPlay) as err:
        getattr(g, action)(*args)
    assert err.value.violation.code == expect and err.value.code == "illegal-play"
    assert g.state == before and len(g.operations) == ops


def allowed(g: Game, action: str, *args):
    assert getattr(g, f"verify_{action}")(*args) is None
    assert getattr(g, f"can_{action}")(*args)
    op = getattr(g, action)(*args)
    assert g.operations[-1] is op
    return op


# -- whose turn ----------------------------------------------------------------------------

def test_actor() -> None:
    g = game()
    assert g.actor == "ann" and g.can_act("ann")
    v = g.verify_actor("bob")
    assert (v.code, dict(v.params)) == ("out-of-turn", {"player": "bob", "expected": "ann"})


# -- draw and restock ----------------------------------------------------------------------

def test_draw_from_the_stock() -> None:
    g = game()
    refused(g, "draw", "stock", C("2h"), expect="stock-mismatch")
    refused(g, "draw", "stock", None, (C("9h"),), expect="restock-mismatch")
    op = allowed(g, "draw", "stock", C("Qc"))
    assert op == Drawing("ann", "stock", C("Qc")) and g.phase is Phase.PLAY
    assert g.stock == (C("2h"), C("3h")) and C("Qc") in g.hand("ann")
    assert not g.can_draw("stock")  # one draw a turn
    with pytest.raises(ActionError):
        g.verify_draw("stock")


def test_draw_from_an_unknown_stock_names_an_unseen_card() -> None:
    g = game(stock=None, discard="9h 9h")
    refused(g, "draw", "stock", C("9h"), expect="card-not-in-stock")  # both 9h are in the pile
    assert allowed(g, "draw", "stock", C("Qc")).card == C("Qc")


def test_draw_from_the_discard_pile() -> None:
    refused(game(discard=""), "draw", "discard", None, expect="discard-pile-empty")
    g = game()
    refused(g, "draw", "discard", C("2h"), expect="discard-draw-mismatch")
    refused(g, "draw", "discard", None, (C("2h"),), expect="restock-mismatch")
    assert allowed(g, "draw", "discard").card == C("9h") and g.discard_pile == ()


def test_restock() -> None:
    refused(game(), "restock", None, expect="restock-mismatch")  # the stock is not empty
    refused(game(stock="", discard="9h"), "restock", None, expect="stock-empty")
    g = game(stock="", discard="2h 3h 9h")
    refused(g, "restock", None, expect="restock-mismatch")  # a known stock needs its order
    refused(g, "restock", (C("2h"), C("4h")), expect="restock-mismatch")
    op = allowed(g, "restock", (C("3h"), C("2h")))
    assert op == Restocking("ann", (C("3h"), C("2h")))
    assert g.stock == (C("3h"), C("2h")) and g.discard_pile == (C("9h"),) and g.phase is Phase.DRAW


def test_a_draw_from_an_empty_stock_restocks_first() -> None:
    g = game(stock="", discard="2h 3h 9h")
    assert not g.can_draw("stock", C("2h"), (C("3h"), C("2h")))  # the new top is 3h
    assert g.can_draw("stock", C("3h"), (C("3h"), C("2h")))
    with pytest.raises(IllegalPlay):
        g.draw("stock", C("2h"), (C("3h"), C("2h")))
    assert [type(op) for op in g.operations] == [Restocking]  # the restock stands
    assert g.draw("stock", C("3h")).card == C("3h")


# -- plays ---------------------------------------------------------------------------------

def test_plays_before_the_draw_are_draw_missing() -> None:
    g = game()
    refused(g, "meld", toks("Kh Ks Kd"), expect="draw-missing")
    refused(g, "discard", C("8h"), expect="draw-missing")
    assert code(g.verify_end_turn()) == "draw-missing"


def test_meld() -> None:
    g = game()
    g.draw("stock")
    refused(g, "meld", toks("Kh Ks Kc"), expect="card-not-in-hand")
    refused(g, "meld", toks("Kh Ks"), expect="set-too-short")
    op = allowed(g, "meld", toks("Kh Ks Kd"))
    assert op == Melding("ann", tuple(toks("Kh Ks Kd"))) and g.phase is Phase.OPENING
    assert [str(x) for x in g.table] == ["Kh Ks Kd"] and len(g.hand("ann")) == 11
    assert dict(g.hands)["ann"] == g.hand("ann") and g.state.hands == g.hands


def test_the_last_card_on_the_table_needs_final_discard_optional() -> None:
    g = Game(HUNT, ["ann", "bob"], [parse_cards(["Kh", "Ks"]), parse_cards(BOB)],
             parse_cards(["Kd"]), (), opened=["ann"])
    g.draw("stock")
    refused(g, "meld", toks("Kh Ks Kd"), expect="final-discard-required")
    g = Game(K51, ["ann", "bob"], [parse_cards(["Kh", "Ks"]), parse_cards(BOB)],
             parse_cards(["Kd"]), (), opened=["ann"])
    g.draw("stock")
    allowed(g, "meld", toks("Kh Ks Kd"))
    assert g.phase is Phase.OUT and g.cards_left == 0


def test_build() -> None:
    table = [m.validate(["5h", "6h", "7h"], K40).meld]
    g = game(K40, stock="8h Qc", table=table)
    g.draw("stock")
    refused(g, "build", 0, placed("8h"), expect="build-before-opening")
    g = game(K40, stock="8h Qc", table=table, opened=["ann"])
    g.draw("stock")
    refused(g, "build", 1, placed("8h"), expect="no-such-meld")
    refused(g, "build", 0, placed("9c"), expect="build-does-not-fit")
    refused(g, "build", 0, placed("9h"), expect="card-not-in-hand")
    op = allowed(g, "build", 0, placed("8h"))
    assert op == Building("ann", 0, tuple(placed("8h")))
    assert str(g.table[0]) == "5h 6h 7h 8h"


def test_release() -> None:
    table = [m.validate(["9s", "JK", "Js"], HUNT).meld]
    g = game(table=table, stock="Ts Qc")
    g.draw("stock")
    refused(g, "release", 1, [C("Ts")], expect="no-such-meld")
    refused(g, "release", 0, [C("2d")], expect="release-wrong-card")
    op = allowed(g, "release", 0, [C("Ts")])
    assert op == Releasing("ann", 0, (C("Ts"),)) and JOKER in g.hand("ann")
    # released_joker any_meld: the joker must be laid again before the turn ends
    assert code(g.verify_discard(C("8h"))) == "released-joker-unused"
    allowed(g, "build", 0, [m.Placed(MeldCard(JOKER), "high")])
    assert g.can_discard(C("8h"))


def test_opening_counts_at_the_first_action_that_is_not_a_meld() -> None:
    g = game(K51)
    g.draw("stock")
    g.meld(toks("Kh Ks Kd"))  # 30 points: short of 51
    assert g.phase is Phase.OPENING and g.opened == ()
    refused(g, "open", expect="opening-below-threshold")
    refused(g, "discard", C("8h"), expect="opening-below-threshold")
    g.meld(toks("9c Tc Jc Qc"))  # 69 in all
    op = allowed(g, "open")
    assert op == Opening("ann", 69) and g.opened == ("ann",) and g.phase is Phase.PLAY
    assert not g.can_open()  # nothing left to count
    with pytest.raises(ActionError):
        g.open()


def test_a_discard_counts_the_opening_itself() -> None:
    g = game(K51)
    g.draw("stock")
    g.meld(toks("Kh Ks Kd"))
    g.meld(toks("9c Tc Jc Qc"))
    g.discard(C("8h"))
    assert g.opened == ("ann",) and [type(op) for op in g.operations][-1] is Discarding


# -- the end of a turn ---------------------------------------------------------------------

def test_discard() -> None:
    g = game(K40, table=[m.validate(["5h", "6h", "7h"], K40).meld], opened=["ann"], discard="8h")
    g.draw("discard")
    assert code(g.verify_end_turn()) == "discard-missing"
    refused(g, "discard", C("2d"), expect="pickup-not-melded")  # meld_same_turn
    g.build(0, placed("8h"))
    refused(g, "discard", C("Qd"), expect="card-not-in-hand")
    op = allowed(g, "discard", C("2d"))
    assert op == Discarding("ann", C("2d")) and g.discard_top == C("2d")
    assert (g.phase, g.actor, g.turn) == (Phase.DRAW, "bob", 1)


def test_the_card_just_taken_stays() -> None:
    g = game()
    g.draw("discard")
    refused(g, "discard", C("9h"), expect="discard-just-taken")


def test_new_meld_pickup_and_going_out() -> None:
    g = Game(UK, ["ann", "bob"], [parse_cards(["Kh", "Ks", "2d"]), parse_cards(BOB)],
             parse_cards(["Qc"]), parse_cards(["Kd"]), opened=["ann"])
    g.draw("discard")
    assert not g.can_go_out()  # still holding cards
    with pytest.raises(ActionError):
        g.go_out()
    g.meld(toks("Kh Ks Kd"))
    g.discard(C("2d"))
    assert (g.phase, g.winner, g.finish, g.actor) == (Phase.OVER, "ann", "out", None)
    refused(g, "draw", "stock", expect="hand-already-over")
    refused(g, "meld", toks("2c 3c 4c"), expect="hand-already-over")
    assert code(g.verify_actor("bob")) == "hand-already-over" and g.can_end_turn()


def test_going_out_special() -> None:
    hand = parse_cards(["Kh", "Ks", "Kd", "9c", "Tc", "Jc"])
    g = Game(K51, ["ann", "bob"], [hand, parse_cards(BOB)], parse_cards(["Qc"]), ())
    g.draw("stock")
    g.meld(toks("Kh Ks Kd"))
    g.meld(toks("9c Tc Jc Qc"))
    assert g.phase is Phase.OPENING and g.cards_left == 0
    assert code(g.verify_end_turn()) == "discard-missing"
    op = allowed(g, "go_out")  # counts the opening too
    assert op == GoingOut("ann", "special") and g.opened == ("ann",) and g.phase is Phase.OVER


def test_going_out_checks_the_turns_duties() -> None:
    # released_joker new_meld: a joker built on an old meld does not count as laid again
    rules = resolve({"base": "kaluki-uk", "overrides": {"final_discard": "optional"}})
    g = Game(rules, ["ann", "bob"], [parse_cards(["Ts"]), parse_cards(BOB)], parse_cards(["8s"]),
             (), table=[m.validate(["9s", "JK", "Js"], rules).meld], opened=["ann"])
    g.draw("stock")
    g.release(0, [C("Ts")])
    g.build(0, [m.Placed(MeldCard(C("8s")), "low")])
    g.build(0, [m.Placed(MeldCard(JOKER), "high")])
    assert g.phase is Phase.OUT and g.cards_left == 0
    refused(g, "go_out", expect="released-joker-unused")
    assert code(g.verify_end_turn()) == "released-joker-unused"


# -- the phases and the log ----------------------------------------------------------------

def test_phase_sequence_of_a_turn() -> None:
    g = game(K51)
    phases = [g.phase]
    g.draw("stock")
    phases.append(g.phase)
    g.meld(toks("Kh Ks Kd"))
    phases.append(g.phase)
    g.meld(toks("9c Tc Jc Qc"))
    g.open()
    phases.append(g.phase)
    g.discard(C("8h"))
    phases.append(g.phase)
    assert phases == [Phase.DRAW, Phase.PLAY, Phase.OPENING, Phase.PLAY, Phase.DRAW]
    assert [type(op).__name__ for op in g.operations] == [
        "Drawing", "Melding", "Melding", "Opening", "Discarding"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(CATALOG)), st.integers(0, 10_000), st.integers(0, 2))
def test_replaying_the_operations_gives_the_same_game(name: str, seed: int, extra: int) -> None:
    rules = CATALOG[name]
    seats = min(rules.players_min + extra, rules.players_max)
    bot = Bot(rules, [f"p{i}" for i in range(seats)], seed=seed)
    bot.play()
    g = bot.game
    again = Game.replay(rules, bot.players, [bot.deal[p] for p in bot.players],
                        bot.start_stock, bot.start_pile, g.operations, round=bot.round)
    assert again.state == g.state
    assert again.operations == g.operations
    # and from any point of the log
    cut = seed % (len(g.operations) + 1)
    part = Game.replay(rules, bot.players, [bot.deal[p] for p in bot.players],
                       bot.start_stock, bot.start_pile, g.operations[:cut], round=bot.round)
    assert part.operations == g.operations[:cut]


def test_an_operation_out_of_turn_does_not_replay() -> None:
    g = game()
    with pytest.raises(IllegalPlay) as err:
        g.apply(Drawing("bob", "stock", C("Qc")))
    assert err.value.violation.code == "out-of-turn"
    assert g.apply(Drawing("ann", "stock", C("Qc"))) == Drawing("ann", "stock", C("Qc"))
