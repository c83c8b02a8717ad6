"""Hand records (engine/record.py): reading the JSON form (its errors and their fields)
and writing it back."""

from __future__ import annotations

import pytest

from service.engine.cards import CardError
from service.engine.record import (
    BuildPlay,
    Draw,
    MeldPlay,
    RecordError,
    ReleasePlay,
    parse_record,
    parse_turn,
    record_to_data,
    turn_to_data,
)
from service.engine.rules import RuleSetError
from tests.engine.hands import ANN, BOB, record


@pytest.mark.parametrize("over, code, field", [
    ({"players": ["ann", "ann"]}, "duplicate-player", "players"),
    ({"players": ["ann", "bob", "cy"]}, "deal-size", "deal.cy"),
    ({"deal": {"ann": ANN, "bob": BOB[:12]}}, "deal-size", "deal.bob"),
    ({"deal": {"ann": ANN, "bob": BOB, "eve": BOB}}, "invalid-record", "deal"),
    ({"turns": [{"player": "eve", "draw": {"from": "stock", "card": "Qc"}}]}, "unknown-player",
     "turns.0.player"),
    ({"turns": [{"player": "ann", "draw": {"from": "stock"}}]}, "missing-card", "turns.0.draw.card"),
    ({"turns": [{"player": "ann", "draw": {"from": "sky"}}]}, "invalid-record", "turns.0.draw.from"),
    ({"turns": [{"player": "ann", "plays": [{"jump": 1}]}]}, "invalid-record", "turns.0.plays.0"),
    ({"turns": [{"player": "ann", "plays": [{"build": {"meld": -1, "cards": ["Kc"]}}]}]},
     "invalid-record", "turns.0.plays.0.build.meld"),
    ({"turns": "x"}, "invalid-record", "turns"),
    ({"extra": 1}, "invalid-record", "record"),
])
def test_malformed_records_raise_record_error(over, code, field) -> None:
    with pytest.raises(RecordError) as err:
        parse_record(record(**over))
    assert (err.value.code, err.value.field) == (code, field)


def test_a_record_seats_players_by_the_one_seat_rule() -> None:
    """docs/api.md#rule-sets-and-overrides players_min/players_max: the same check (and error) as
    scoring and matches."""
    from service.engine.scoring import ScoringError

    with pytest.raises(ScoringError) as err:
        parse_record(record(players=["ann"]))
    assert (err.value.code, err.value.field) == ("player-count", "players")
    assert str(err.value) == "kaluki-hunt seats 2 to 4 players, not 1"


def test_card_and_ruleset_errors_propagate() -> None:
    with pytest.raises(CardError) as err:
        parse_record(record(deal={"ann": ANN[:-1] + ["Qz"], "bob": BOB}))
    assert err.value.field == "deal.ann.12"
    with pytest.raises(CardError) as err:  # three Kh in a two-deck game
        parse_record(record(discard=["Kh", "Kh"]))
    assert err.value.code == "impossible-cards"
    with pytest.raises(RuleSetError):
        parse_record(record(ruleset="kaluki-52"))


def test_a_turn_reads_each_play_and_writes_back_canonically() -> None:
    data = {"player": "ann", "restock": ["2h"], "draw": {"from": "stock", "card": "Qc"},
            "plays": [{"meld": {"cards": ["9c", "Tc", "JK=Jc"], "kind": "run"}},
                      {"build": {"meld": 0, "cards": [{"card": "8c", "end": "low"}, "Qc"]}},
                      {"release": {"meld": 1, "cards": ["Jc"]}}],
            "discard": "8h"}
    turn = parse_turn(data)
    assert turn.draw == Draw("stock", turn.draw.card) and str(turn.draw.card) == "Qc"
    assert [type(p) for p in turn.plays] == [MeldPlay, BuildPlay, ReleasePlay]
    assert turn.plays[0].kind == "run" and turn.plays[1].cards[0].end == "low"
    assert turn_to_data(turn) == data
    assert parse_turn(turn_to_data(turn)) == turn


def test_a_record_writes_back_what_it_read() -> None:
    data = record(stock=["Qc", "2h"], discard=["Kc"],
                  turns=[{"player": "ann", "draw": {"from": "discard", "card": "Kc"},
                          "plays": [{"meld": ["Kh", "Ks", "Kd", "Kc"]}], "discard": "8h"}])
    r = parse_record(data)
    assert record_to_data(r) == data
    assert parse_record(record_to_data(r)) == r


def test_a_stock_draw_names_its_card_only_when_asked() -> None:
    with pytest.raises(RecordError) as err:
        parse_turn({"draw": {"from": "stock"}})
    assert (err.value.code, err.value.field) == ("missing-card", "turn.draw.card")
    assert parse_turn({"draw": {"from": "stock"}}, need_card=False).draw == Draw("stock")
