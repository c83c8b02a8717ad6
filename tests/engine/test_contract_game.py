"""The game under a contract rule set (docs/api.md#contract-rule-sets):
going down with the round's contract, no meld or build before it, the joker shift,
calls (granted and refused, with their limits), no joker discards, no discard pickup
after going down, the optional final discard and down-and-out, the hand-size cap, and
the records' ``round``. Each test names the ruling it checks."""

from __future__ import annotations

import pytest

from service.engine import melds as m
from service.engine.cards import ImpossibleCards, parse_cards
from service.engine.game import ActionError, Calling, Game, IllegalPlay, Laying, Phase, Shifting
from service.engine.record import RecordError, parse_record
from service.engine.referee import adjudicate, check_turn
from service.engine.rules import CATALOG, InvalidRound, RoundRequired, resolve
from service.engine.solver import HandTooLarge
from tests.engine.test_game import C, allowed, code, refused, toks

JAM = CATALOG["kalooki-jamaica"]
P3 = ["ann", "bob", "cy"]
# round 1 (contract 333, 9 cards each)
ANN = "7h 7s 7c 9d 9d JK Kc Kh Ks"
BOB = "2c 3c 4c 5c 6c 8h 8s Td Jd"
CY = "2h 3h 4h 5h 6d 6s Qc Qd 4s"
STOCK = "Ad 3s 5d 8c Tc Jh 2d 9s"
CONTRACT = [(toks("7h 7s 7c"), None), (toks("9d 9d JK"), None), (toks("Kc Kh Ks"), None)]


def jam(rules=JAM, hands=(ANN, BOB, CY), stock: str | None = STOCK, discard: str = "2s",
        round: int = 1, **kw) -> Game:
    return Game(rules, P3, [parse_cards(h.split()) for h in hands],
                None if stock is None else parse_cards(stock.split()),
                parse_cards(discard.split()), round=round, **kw)


def over(**overrides) -> object:
    return resolve({"base": "kalooki-jamaica", "overrides": overrides})


# -- going down ------------------------------------------------------------------------

def test_the_lay_is_the_opening_and_its_melds_join_the_table_in_order() -> None:
    """docs/api.md#contract-rule-sets: going down is {"lay": [...]}, exactly the round's contract;
    the melds join the table in the order listed; the player is then down."""
    g = jam()
    g.draw("stock")
    op = allowed(g, "lay", CONTRACT)
    assert isinstance(op, Laying)
    assert [str(x) for x in g.table] == ["7h 7s 7c", "9d 9d JK=9", "Kc Kh Ks"]
    assert g.opened == ("ann",) and g.phase is Phase.PLAY
    assert g.state.round == 1 and g.contract == "333"


def test_a_lay_short_of_the_contract_is_contract_not_met() -> None:
    """docs/api.md#contract-rule-sets: exactly the round's number of threes and fours
    (contract-not-met)."""
    g = jam()
    g.draw("stock")
    refused(g, "lay", CONTRACT[:2], expect="contract-not-met")


def test_before_going_down_no_meld_and_no_build() -> None:
    """docs/api.md#contract-rule-sets: before going down a player lays no meld (contract-not-met)
    and builds nothing (build-before-opening: going down is the opening)."""
    g = jam(table=[m.table_meld(["2h", "3h", "4h", "5h"], JAM)], opened=["cy"])
    g.draw("stock")  # Ad
    refused(g, "meld", toks("7h 7s 7c"), expect="contract-not-met")
    refused(g, "build", 0, [m.Placed(t) for t in toks("Ad")], expect="build-before-opening")


def test_after_going_down_a_meld_or_a_second_lay_is_contract_extra_meld() -> None:
    """docs/api.md#contract-rule-sets: after going down a meld of one's own is contract-extra-meld
    unless melds_after_contract, and so is a second lay in one deal."""
    hands = ("7h 7s 7c 9d 9d JK Kc Kh Ks".replace("JK", "9c"), BOB, CY)
    g = jam(hands=hands, stock="5c " + STOCK, table=[], opened=["ann"])
    g.draw("stock")
    refused(g, "meld", toks("7h 7s 7c"), expect="contract-extra-meld")
    refused(g, "lay", [(toks("7h 7s 7c"), None), (toks("9d 9d 9c"), None),
                       (toks("Kc Kh Ks"), None)], expect="contract-extra-meld")
    g2 = jam(rules=over(melds_after_contract=True), hands=hands, stock="5c " + STOCK,
             opened=["ann"])
    g2.draw("stock")
    allowed(g2, "meld", toks("7h 7s 7c"))


def test_a_lay_is_no_play_of_a_rule_set_without_contracts() -> None:
    """docs/api.md#contract-rule-sets: a lay replaces the opening in a contract rule set only."""
    from tests.engine.hands import ANN as HUNT_ANN
    from tests.engine.hands import record
    data = record(turns=[{"player": "ann", "draw": {"from": "stock", "card": "Qc"},
                          "plays": [{"lay": [HUNT_ANN[:3]]}], "discard": "8h"}])
    with pytest.raises(RecordError) as err:
        parse_record(data)
    assert err.value.code == "invalid-record" and err.value.field == "turns.0.plays.0"
    g = Game(CATALOG["kaluki-hunt"], ["ann", "bob"], [parse_cards(HUNT_ANN), []], discard=[C("2s")])
    g.draw("discard")
    with pytest.raises(ActionError):
        g.lay([(toks("Kh Ks Kd"), None)])


# -- down-and-out, the optional final discard ------------------------------------------

def test_down_and_out_is_the_special_win() -> None:
    """docs/api.md#contract-rule-sets: down-and-out, the contract and every other card in one turn
    with nothing laid before, is the special win; final_discard optional."""
    g = jam()
    g.draw("stock")  # Ad
    g.lay(CONTRACT)
    g.discard(C("Ad"))
    assert g.winner == "ann" and g.finish == "special"


def test_going_out_by_the_lay_alone_needs_no_discard() -> None:
    """docs/api.md#contract-rule-sets final_discard optional: the last card may go to the table."""
    g = jam(stock="9c " + STOCK)
    g.draw("stock")  # 9c builds on the nines
    g.lay(CONTRACT)
    g.build(1, [m.Placed(t) for t in toks("9c")])
    assert g.phase is Phase.OUT
    g.go_out()
    assert g.finish == "special"


def test_going_out_after_an_earlier_lay_is_out() -> None:
    """docs/api.md#contract-rule-sets: nothing laid before: a player down in an earlier turn only
    goes out."""
    g = jam(hands=("8d", BOB, CY), stock="9s " + STOCK,
            table=[m.table_meld(["8h", "8s", "8c"], JAM)], opened=["ann"])
    g.draw("stock")
    g.build(0, [m.Placed(t) for t in toks("8d")])
    g.discard(C("9s"))
    assert g.winner == "ann" and g.finish == "out"


# -- the joker shift -------------------------------------------------------------------

R2 = ("5h JK 7h 8h 9c 9s 9d Qc Qs Qd", "2c 3c 4c 5c 6c 8s 8s Td Jd 6h", "2h 3h 4h 5d 6d 6s Kc Kd 4s Ks")
LAY2 = [(toks("5h JK 7h 8h"), None), (toks("9c 9s 9d"), None), (toks("Qc Qs Qd"), None)]


def test_a_shift_lays_the_natural_and_moves_the_joker_to_the_high_end() -> None:
    """docs/api.md#contract-rule-sets: the natural takes the joker's place; the joker moves to that
    end of the same run (default high), standing for the card beyond it; here it is the
    down-and-out."""
    g = jam(hands=R2, stock="6h " + STOCK, round=2)
    g.draw("stock")
    g.lay(LAY2)
    op = allowed(g, "shift", 0, C("6h"), None)
    assert isinstance(op, Shifting)
    assert str(g.table[0]) == "5h 6h 7h 8h JK=9h"
    g.go_out()
    assert g.finish == "special"


def test_a_shift_to_the_low_end() -> None:
    """docs/api.md#contract-rule-sets: "end": "low" puts the joker below the run."""
    g = jam(hands=R2, stock="6h " + STOCK, round=2)
    g.draw("stock")
    g.lay(LAY2)
    g.shift(0, C("6h"), "low")
    assert str(g.table[0]) == "JK=4h 5h 6h 7h 8h"


def test_a_shift_goes_low_when_the_high_end_has_no_room() -> None:
    """docs/api.md#contract-rule-sets: default high, or low when the high end has no room (beyond
    the ace)."""
    run = m.table_meld(["Jh", "Qh", "Kh", "JK"], JAM)  # JK=Ah
    g = jam(hands=("Ah 2c 3c", BOB, CY), stock="4d " + STOCK, table=[run], opened=["ann"])
    g.draw("stock")
    g.shift(0, C("Ah"))
    assert str(g.table[0]) == "JK=Th Jh Qh Kh Ah"
    g2 = jam(hands=("Ah 2c 3c", BOB, CY), stock="4d " + STOCK, table=[run], opened=["ann"])
    g2.draw("stock")
    v = g2.verify_shift(0, C("Ah"), "high")
    assert code(v) == "joker-not-shiftable" and "no room" in v.params["reason"]


def test_a_shifted_joker_may_not_land_beside_another() -> None:
    """docs/api.md#contract-rule-sets: the run must stay legal: no two jokers side by side
    (run_jokers_adjacent false); by default the joker then goes low."""
    run = m.table_meld(["5h", "JK", "7h", "8h", "JK"], JAM)  # JK=6h, JK=9h
    assert str(run) == "5h JK=6h 7h 8h JK=9h"
    g = jam(hands=("6h 2c 3c", BOB, CY), stock="4d " + STOCK, table=[run], opened=["ann"])
    g.draw("stock")
    v = g.verify_shift(0, C("6h"), "high")
    assert code(v) == "joker-not-shiftable" and "side by side" in v.params["reason"]
    g.shift(0, C("6h"))
    assert str(g.table[0]) == "JK=4h 5h 6h 7h 8h JK=9h"


def test_a_shift_the_rules_do_not_allow_is_joker_not_shiftable_with_its_reason() -> None:
    """docs/api.md#contract-rule-sets: anything else, a shift by a player who is not down included,
    is joker-not-shiftable with its reason."""
    run = m.table_meld(["5h", "JK", "7h", "8h"], JAM)
    three = m.table_meld(["9c", "9s", "JK"], JAM)
    table = [run, three]
    g = jam(hands=("6h 9d 2c", BOB, CY), stock="4d " + STOCK, table=table, opened=["bob"])
    g.draw("stock")
    refused(g, "shift", 0, C("6h"), None, expect="joker-not-shiftable")  # ann is not down
    assert "down" in g.verify_shift(0, C("6h")).params["reason"]
    g = jam(hands=("6h 9d 2c", BOB, CY), stock="4d " + STOCK, table=table, opened=["ann"])
    g.draw("stock")
    assert "stands for" in g.verify_shift(0, C("2c")).params["reason"]  # no joker is the 2c
    assert "set" in g.verify_shift(1, C("9d")).params["reason"]  # a three's joker stays
    assert "no meld" in g.verify_shift(5, C("6h")).params["reason"]
    assert code(g.verify_shift(0, C("Kd"))) == "card-not-in-hand"
    g = jam(rules=over(joker_shift="none"), hands=("6h 9d 2c", BOB, CY), stock="4d " + STOCK,
            table=table, opened=["ann"])
    g.draw("stock")
    assert "joker_shift" in g.verify_shift(0, C("6h")).params["reason"]


# -- calls -----------------------------------------------------------------------------

def test_a_granted_call_gives_the_caller_the_discard_and_a_penalty_card() -> None:
    """docs/api.md#contract-rule-sets: granted, P takes the discard and call_penalty_cards from the
    stock, then the player whose turn it is draws from the stock; granted calls count."""
    g = jam()
    op = allowed(g, "call", "cy", True, None)
    assert isinstance(op, Calling) and op.penalty == (C("Ad"),)
    assert g.hand("cy") == tuple(sorted(parse_cards((CY + " 2s Ad").split())))
    assert g.discard_top is None and dict(g.calls_made)["cy"] == 1
    refused(g, "draw", "discard", None, None, expect="call-refused-draw")
    assert g.draw("stock").card == C("3s")
    assert g.state.calls_made == (("ann", 0), ("bob", 0), ("cy", 1))


def test_a_refused_call_makes_the_player_to_move_take_the_discard() -> None:
    """docs/api.md#contract-rule-sets: refused, the player whose turn it is must take that discard
    themselves; refused calls do not count."""
    g = jam()
    g.call("bob", False)
    assert dict(g.calls_made)["bob"] == 0 and g.discard_top == C("2s")
    refused(g, "draw", "stock", None, None, expect="call-refused-draw")
    assert g.draw("discard").card == C("2s")


def test_who_may_call() -> None:
    """docs/api.md#contract-rule-sets: P is neither the player whose turn it is nor the one who
    discarded the card, not yet down, with calls left this deal; the pile has a card; the rule set
    has calls."""
    g = jam()
    refused(g, "call", "ann", True, None, expect="call-own-turn")
    g.draw("stock")
    g.discard(C("Ad"))  # bob to move; ann discarded the top
    refused(g, "call", "ann", True, None, expect="call-own-discard")
    allowed(g, "call", "cy", True, None)
    assert code(jam(opened=["cy"]).verify_call("cy", True)) == "call-after-down"
    assert code(jam(calls_made={"cy": 3}).verify_call("cy", True)) == "call-limit"
    assert jam(calls_made={"cy": 2}).can_call("cy", True)
    assert code(jam(discard="").verify_call("cy", True)) == "call-no-discard"
    assert code(jam(rules=over(call_max=0)).verify_call("cy", True)) == "call-not-allowed"


def test_a_down_player_who_may_not_take_the_discard_cannot_refuse() -> None:
    """docs/api.md#contract-rule-sets: a down player may not take the discard (discard-after-down),
    so cannot refuse a call; a granted call is fine."""
    g = jam(opened=["ann"])
    refused(g, "call", "cy", False, None, expect="discard-after-down")
    refused(g, "draw", "discard", None, None, expect="discard-after-down")
    assert g.can_call("cy", True)
    g2 = jam(rules=over(discard_after_down=True), opened=["ann"])
    assert g2.can_call("cy", False) and g2.can_draw("discard")


def test_penalty_cards_are_named_like_a_stock_draw() -> None:
    """docs/api.md#contract-rule-sets: a granted call's penalty cards are named like a stock draw's:
    the stock's top when it is known (stock-mismatch), required without a stock (missing-card), and
    unseen (card-not-in-stock)."""
    refused(jam(), "call", "cy", True, parse_cards(["3s"]), expect="stock-mismatch")
    assert jam().can_call("cy", True, parse_cards(["Ad"]))
    g = jam(stock=None)
    with pytest.raises(RecordError) as err:
        g.verify_call("cy", True)
    assert err.value.code == "missing-card"
    assert code(g.verify_call("cy", True, parse_cards(["7h"]))) is None  # a copy is unseen
    assert code(g.verify_call("cy", True, parse_cards(["JK"]))) is None
    g.call("cy", True, parse_cards(["7h"]))
    assert dict(g.hands)["cy"].count(C("7h")) == 1
    g3 = jam(stock=None, hands=("7h 7h 7c 9d 9d JK Kc Kh Ks", BOB, CY))
    assert code(g3.verify_call("cy", True, parse_cards(["7h"]))) == "card-not-in-stock"


def test_a_called_card_carries_no_pickup_obligation() -> None:
    """docs/api.md#contract-rule-sets: a called card carries no pickup obligation (even where
    discard_pickup would bind a card taken from the pile)."""
    g = jam(rules=over(discard_pickup="meld_same_turn"))
    g.call("cy", True)
    g.draw("stock")
    g.discard(C("3s"))
    g.draw("stock")  # bob
    g.discard(C("2c"))
    g.draw("stock")  # cy
    allowed(g, "discard", C("2s"))


def test_a_call_comes_before_the_draw() -> None:
    g = jam()
    g.draw("stock")
    with pytest.raises(ActionError):
        g.verify_call("cy", True)


# -- discards and pickups --------------------------------------------------------------

def test_a_joker_may_not_be_discarded() -> None:
    """docs/api.md#contract-rule-sets: a joker may not be discarded (joker-discard) unless
    joker_discard."""
    g = jam()
    g.draw("stock")
    refused(g, "discard", C("JK"), expect="joker-discard")
    g2 = jam(rules=over(joker_discard=True))
    g2.draw("stock")
    assert g2.can_discard(C("JK"))


# -- the replay ------------------------------------------------------------------------

def test_calls_lays_and_shifts_replay() -> None:
    g = jam(hands=R2, stock="6h " + STOCK, round=2)
    g.call("bob", True)
    g.draw("stock")
    g.lay(LAY2)
    g.discard(C("Ad"))
    again = Game.replay(JAM, P3, [parse_cards(h.split()) for h in R2],
                        parse_cards(("6h " + STOCK).split()), parse_cards(["2s"]), g.operations,
                        round=2)
    assert again.state == g.state


# -- records: round, deal sizes, decks -------------------------------------------------

def _record(**over):
    base = {"ruleset": "kalooki-jamaica", "round": 1, "players": P3,
            "deal": {"ann": ANN.split(), "bob": BOB.split(), "cy": CY.split()},
            "discard": ["2s"], "turns": []}
    return {**base, **over}


def test_a_record_carries_its_round_and_the_deal_follows_it() -> None:
    """docs/api.md#contract-rule-sets: a contract record carries round (1-based), which picks the
    contract and the deal size (deal-size); missing: round-required; out of range or without
    contracts:
    invalid-round."""
    assert parse_record(_record()).round == 1
    with pytest.raises(RecordError) as err:
        parse_record(_record(round=2))  # round 2 deals 10
    assert err.value.code == "deal-size"
    with pytest.raises(RoundRequired):
        parse_record({k: v for k, v in _record().items() if k != "round"})
    with pytest.raises(InvalidRound):
        parse_record(_record(round=10))
    from tests.engine.hands import record
    with pytest.raises(InvalidRound):
        parse_record(record(round=1))


def test_the_deck_grows_with_the_seats() -> None:
    """docs/api.md#contract-rule-sets deck_by_players: 4 seats -> 2 decks, 6 -> 3: three copies of a
    card need five seats or more."""
    five = ["a", "b", "c", "d", "e"]
    hands = ["7h 7h 7h 2c 3c 4c 5c 6c 8c", "2d 3d 4d 5d 6d 7d 8d 9d Td",
             "2s 3s 4s 5s 6s 7s 8s 9s Ts", "2h 3h 4h 5h 6h 8h 9h Th Jh",
             "Ac Kc Qc Jc Tc 9c Ad Kd Qd"]
    data = {"ruleset": "kalooki-jamaica", "round": 1, "players": five,
            "deal": dict(zip(five, (h.split() for h in hands), strict=True)), "turns": []}
    assert parse_record(data).players == tuple(five)
    four = {**data, "players": five[:4], "deal": {p: data["deal"][p] for p in five[:4]}}
    with pytest.raises(ImpossibleCards):
        parse_record(four)


def test_the_state_says_round_contract_down_and_calls() -> None:
    """docs/api.md#contract-rule-sets: a contract hand's state (and each step) says round, contract,
    down and calls_made."""
    data = _record(turns=[{"player": "ann", "call": {"player": "cy", "granted": True,
                                                     "penalty": ["Ad"]},
                           "draw": {"from": "stock", "card": "3s"}, "plays": [{"lay": [
                               ["7h", "7s", "7c"], ["9d", "9d", "JK"], ["Kc", "Kh", "Ks"]]}],
                           "discard": "3s"}])
    steps: list = []
    ruling = adjudicate(parse_record(data), steps)
    assert ruling.legal and ruling.result is not None and ruling.result.finish == "special"
    s = steps[0]
    assert (s.round, s.contract, s.down, dict(s.calls_made)) == (1, "333", (), {
        "ann": 0, "bob": 0, "cy": 0})
    s = ruling.state
    assert (s.down, dict(s.calls_made)["cy"]) == (("ann",), 1)


# -- one turn: /turns/check's engine ---------------------------------------------------

def test_check_turn_takes_round_players_down_and_calls_made() -> None:
    """docs/api.md#contract-rule-sets: /turns/check takes round, players (from the player to move;
    the last seat discarded discard_top), down and calls_made; without players no call is
    possible."""
    hand = parse_cards(ANN.split())
    call = {"player": "bob", "granted": True, "penalty": ["Ad"]}
    from service.engine.record import parse_turn
    turn = parse_turn({"call": call, "draw": {"from": "stock", "card": "3s"}, "discard": "3s"})
    ok = check_turn(JAM, [], hand, False, C("2s"), turn, round=1, players=P3)
    assert ok.legal, ok.violation
    bad = check_turn(JAM, [], hand, False, C("2s"), parse_turn(
        {"call": {"player": "cy", "granted": True, "penalty": ["Ad"]},
         "draw": {"from": "stock", "card": "3s"}, "discard": "3s"}), round=1, players=P3)
    assert code(bad.violation) == "call-own-discard"
    limit = check_turn(JAM, [], hand, False, C("2s"), turn, round=1, players=P3,
                       calls_made={"bob": 3})
    assert code(limit.violation) == "call-limit"
    down = check_turn(JAM, [], hand, False, C("2s"), turn, round=1, players=P3, down=["bob"])
    assert code(down.violation) == "call-after-down"
    with pytest.raises(RecordError) as err:
        check_turn(JAM, [], hand, False, C("2s"), turn, round=1)
    assert err.value.code == "unknown-player"
    with pytest.raises(RoundRequired):
        check_turn(JAM, [], hand, False, C("2s"), turn)


def test_check_turn_caps_the_hand() -> None:
    """docs/api.md#contract-rule-sets: a hand holds at most the round's deal size + 1 + call_max ×
    (1 + call_penalty_cards) cards (hand-too-large)."""
    from service.engine.record import parse_turn
    turn = parse_turn({"draw": {"from": "stock", "card": "3s"}, "discard": "3s"})
    cap = JAM.hand_cap(1)
    assert cap == 9 + 1 + 3 * 2
    fifteen = parse_cards(["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Kc", "Ac", "2d", "3d"])
    assert len(fifteen) == cap - 1
    assert check_turn(JAM, [], fifteen, False, None, turn, round=1).legal
    with pytest.raises(HandTooLarge):
        check_turn(JAM, [], [*fifteen, C("4d")], False, None, turn, round=1)


def test_illegal_play_carries_its_violation() -> None:
    g = jam()
    g.draw("stock")
    with pytest.raises(IllegalPlay) as err:
        g.discard(C("JK"))
    assert err.value.violation.code == "joker-discard"
