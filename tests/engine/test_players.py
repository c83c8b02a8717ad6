"""Player ids (issue 14): one rule, NFC-normalised, used by scoring, records and matches."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engine.match import MatchError, apply_buy_in, new_state
from service.engine.players import MAX_LENGTH, PlayerIdError, player_id, player_ids
from service.engine.record import RecordError, parse_record
from service.engine.rules import CATALOG
from service.engine.scoring import ScoringError, score_hand

NFC, NFD = "ren\u00e9", "rene\u0301"


def test_two_spellings_are_one_player() -> None:
    assert NFC != NFD and player_id(NFC) == player_id(NFD) == NFC
    with pytest.raises(PlayerIdError) as info:
        player_ids([NFC, NFD])
    assert info.value.code == "duplicate-player"


@pytest.mark.parametrize("bad", [
    "", " ", "\t", "\u3000", " ann", "ann ", "ann smith", "ann\nbob", "a\u0000b", "a\u0007",
    "\u202eevil", "ann\u200b", "a\u200db", "\ufeffann", "a\u2066b", "\ue000", "\u0301ann",
    "ａｎｎ", "ﬁsh", "a#b", "x" * (MAX_LENGTH + 1), 7, None, ["ann"],
])
def test_refused(bad: object) -> None:
    with pytest.raises(PlayerIdError) as info:
        player_id(bad)
    assert info.value.code == "invalid-player-id"


@pytest.mark.parametrize("good", ["ann", "Ann", "bob_2", "zoë", "Łukasz", "李雷", "o'neil", "x" * 64,
                                  "a-b.c@d", "\"quoted\""])
def test_accepted(good: str) -> None:
    assert player_id(good) == good


@given(st.text(min_size=0, max_size=80))
def test_every_accepted_id_round_trips(text: str) -> None:
    try:
        pid = player_id(text)
    except PlayerIdError:
        return
    assert pid == unicodedata.normalize("NFC", text)
    assert player_id(pid) == pid  # idempotent: an answer's id is accepted back unchanged
    assert 1 <= len(pid) <= MAX_LENGTH and not any(c.isspace() for c in pid)
    assert player_id(unicodedata.normalize("NFD", pid)) == pid  # every spelling collides


@given(st.text(alphabet=st.characters(categories=["Ll", "Lu", "Mn"]), min_size=1, max_size=20))
def test_normalised_ids_collide(text: str) -> None:
    nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
    try:
        player_id(nfc)
    except PlayerIdError:
        return
    with pytest.raises(PlayerIdError) as info:
        player_ids([nfc, nfd])
    assert info.value.code == "duplicate-player"


def test_scoring_normalises_and_renders_the_normalised_id() -> None:
    s = score_hand(CATALOG["kaluki-hunt"], NFD, "out", [(NFD, []), ("lou", [])])
    assert [p.id for p in s.scores] == [NFC, "lou"]
    with pytest.raises(ScoringError) as info:
        score_hand(CATALOG["kaluki-hunt"], NFC, "out", [(NFC, []), (NFD, [])])
    assert info.value.code == "duplicate-player"
    with pytest.raises(PlayerIdError):
        score_hand(CATALOG["kaluki-hunt"], "ann smith", "out", [("ann smith", []), ("lou", [])])


def _record(players: list[str], deal_keys: list[str]) -> dict:
    hands = [["4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "2c", "3c"],
             ["2d", "5d", "8d", "Jd", "3s", "6s", "9s", "Qs", "4c", "7c", "Tc", "Kc", "JK"]]
    return {"ruleset": "kaluki-hunt", "players": players,
            "deal": dict(zip(deal_keys, hands, strict=True)),
            "turns": [{"player": deal_keys[0], "draw": {"from": "stock", "card": "4c"},
                       "plays": [], "discard": "4c"}]}


def test_records_use_the_same_rule() -> None:
    rec = parse_record(_record([NFD, "bob"], [NFC, "bob"]))  # deal and turns spelled otherwise
    assert rec.players == (NFC, "bob") and rec.turns[0].player == NFC
    for players, code in (([NFC, NFD], "duplicate-player"), (["ann smith", "bob"], "invalid-player-id"),
                          (["ann\u200b", "bob"], "invalid-player-id")):
        with pytest.raises(RecordError) as info:
            parse_record(_record(players, ["x", "y"]))
        assert info.value.code == code


def test_matches_use_the_same_rule() -> None:
    assert new_state([NFD, "lou"]).players == [NFC, "lou"]
    with pytest.raises(MatchError) as info:
        new_state([NFC, NFD])
    assert info.value.code == "duplicate-player"
    with pytest.raises(MatchError) as info:
        new_state([" ann", "lou"])
    assert info.value.code == "invalid-player-id"
    from service.engine.rules import MatchEnd
    with pytest.raises(MatchError) as info:
        apply_buy_in(new_state(["a", "b", "c"]), MatchEnd("elimination", buy_ins=True), "a\u0000")
    assert info.value.code == "invalid-player-id"
