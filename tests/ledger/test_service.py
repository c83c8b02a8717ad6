"""The ledger's typed entries (service/ledger/service.py): each type writes its JSON once
(``to_data``) and reads it back (``entry_from_data``), sealed or not; the engine folds
what they write as its typed events (docs/api.md#scorekeeping)."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from service.engine.match import EntryType, event_of
from service.engine.scoring import Finish, PlayerScore
from service.ledger.chain import GENESIS, seal, verify
from service.ledger.service import (
    BuyInEntry,
    CorrectionEntry,
    Entry,
    HandEntry,
    entry_from_data,
)

PLAYERS = st.sampled_from(["ann", "bob", "cy", "dee"])
SCORES = st.lists(st.builds(PlayerScore, PLAYERS, st.integers(0, 200), st.integers(0, 50),
                            st.integers(0, 200)), min_size=2, max_size=4).map(tuple)
INPUT = st.fixed_dictionaries({"winner": PLAYERS, "finish": st.sampled_from(list(Finish))})


def hands(seq: st.SearchStrategy[int]) -> st.SearchStrategy[HandEntry]:
    return st.builds(HandEntry, seq, st.sampled_from(["score", "record"]), INPUT, PLAYERS,
                     st.sampled_from(list(Finish)), st.booleans(), SCORES, st.just(""))


ENTRIES: st.SearchStrategy[Entry] = st.one_of(
    hands(st.integers(0, 999)),
    st.builds(BuyInEntry, st.integers(0, 999), PLAYERS, st.just("")),
    st.builds(CorrectionEntry.of, st.integers(1, 999), st.integers(0, 998), st.text(max_size=20),
              st.none() | hands(st.just(0))))


@given(ENTRIES)
def test_an_entry_is_written_once_and_read_back(entry: Entry) -> None:
    unsealed = entry.to_data()
    assert "hash" not in unsealed and unsealed["type"] == entry.type
    data = seal(orjson.loads(orjson.dumps(unsealed)), GENESIS)  # as stored: JSON text
    back = entry_from_data(data)
    assert type(back) is type(entry) and back.hash == data["hash"]
    assert back.to_data() == data  # sealed: the hash comes last, once
    assert list(data)[-1] == "hash"
    # the engine reads the same JSON as its typed event
    assert event_of(data).seq == entry.seq


def test_a_void_correction_carries_no_hand() -> None:
    void = CorrectionEntry.of(3, 1, "never played", None).to_data()
    assert void == {"seq": 3, "type": EntryType.CORRECTION, "corrects": 1,
                    "reason": "never played", "void": True}


def test_sealed_entries_chain() -> None:
    first = seal(BuyInEntry(0, "bob", "").to_data(), GENESIS)
    second = seal(CorrectionEntry.of(1, 0, "typo", None).to_data(), first["hash"])
    assert verify([first, second]) == second["hash"]
