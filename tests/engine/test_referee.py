"""The referee's public API: adjudicate state, check_turn."""

from __future__ import annotations

from service.engine import melds as m
from service.engine.cards import parse_cards
from service.engine.record import Turn, parse_record, parse_turn
from service.engine.referee import adjudicate, check_turn
from service.engine.rules import CATALOG
from tests.engine.hands import ANN, record


def test_state_before_the_violation() -> None:
    turns = [{"player": "ann", "draw": {"from": "stock", "card": "Qc"},
              "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"meld": ["9c", "Tc", "Jc", "Kc"]}],
              "discard": "8h"}]
    ruling = adjudicate(parse_record(record(turns=turns)))
    assert not ruling.legal
    assert ruling.violation.where == {"turn": 0, "play": 1}
    s = ruling.state
    assert [str(x) for x in s.table] == ["Kh Ks Kd"]
    assert dict(s.hands)["ann"] == tuple(sorted(parse_cards(ANN[3:] + ["Qc"])))
    assert s.opened == () and s.discard_top is None and s.turn == 0
    assert s.stock_count == 106 - 26 - 1


def test_legal_unfinished_record_has_no_result() -> None:
    ruling = adjudicate(parse_record(record()))
    assert ruling.legal and ruling.result is None and ruling.state.next_player == "ann"


def test_check_turn_opening_and_special() -> None:
    rules = CATALOG["kaluki-51"]
    turn = parse_turn({"draw": {"from": "stock", "card": "Qc"},
                       "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"meld": ["9c", "Tc", "Jc", "Qc"]}],
                       "discard": "8h"})
    checked = check_turn(rules, [], parse_cards(ANN), False, None, turn)
    assert checked.legal and checked.opened and not checked.finished
    assert len(checked.table) == 2 and len(checked.hand) == 6
    short = Turn("", turn.draw, turn.plays[:1], turn.discard)
    checked = check_turn(rules, [], parse_cards(ANN), False, None, short)
    assert not checked.legal and checked.violation.code == "opening-below-threshold"
    # opened before: a lone set is fine
    assert check_turn(rules, [], parse_cards(ANN), True, None, short).legal


def test_check_turn_build_on_table_and_pickup() -> None:
    rules = CATALOG["kalooki-40"]
    table = [m.validate(["5h", "6h", "7h"], rules).meld]
    turn = parse_turn({"draw": {"from": "discard", "card": "8h"},
                       "plays": [{"build": {"meld": 0, "cards": ["8h"]}}], "discard": "2c"})
    checked = check_turn(rules, table, parse_cards(["2c", "3d"]), True, parse_cards(["8h"])[0], turn)
    assert checked.legal and [str(c) for c in checked.table[0].cards] == ["5h", "6h", "7h", "8h"]
    assert [str(c) for c in checked.hand] == ["3d"]
    lazy = parse_turn({"draw": {"from": "discard"}, "discard": "2c"})
    checked = check_turn(rules, table, parse_cards(["2c", "3d"]), True, parse_cards(["8h"])[0], lazy)
    assert checked.violation.code == "pickup-not-melded"
