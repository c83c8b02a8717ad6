"""Corrections fold as if the hand had been entered right (docs/api.md#scorekeeping).

A ledger with corrections folds (``fold_events``) to the same match as the ledger in
which each corrected hand was entered as its latest correction says and each voided
hand never was; where that ledger is impossible (a hand after the match would have
ended), the corrected one is refused at the same entry.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.match import (
    BuyInEvent,
    CorrectionEvent,
    HandEvent,
    ReplayError,
    apply_buy_in,
    apply_hand,
    effective,
    fold_events,
    new_state,
)
from service.engine.rules import MatchEnd

PLAYERS = ["ann", "bob", "cy"]


@st.composite
def hand(draw, seq):
    winner = draw(st.sampled_from(PLAYERS))
    return HandEvent(seq, winner, tuple((p, draw(st.integers(0, 60)) if p == winner else 0,
                                         0 if p == winner else draw(st.integers(0, 40)))
                                        for p in PLAYERS))


@st.composite
def ledgers(draw):
    n = draw(st.integers(1, 8))
    events: list = [draw(hand(i)) for i in range(n)]
    for _ in range(draw(st.integers(0, 5))):
        seq = len(events)
        target = draw(st.sampled_from([e.seq for e in events if isinstance(e, HandEvent)]))
        fixed = None if draw(st.booleans()) else draw(hand(seq))
        events.append(CorrectionEvent(seq, target, fixed))
    return events


def entered_right(events):
    """The ledger as it should have been: corrected hands in their place, voided ones gone."""
    return effective(events)


def fold_plain(end, events):
    state = new_state(PLAYERS)
    for ev in events:
        try:
            state = (apply_buy_in(state, end, ev.player) if isinstance(ev, BuyInEvent)
                     else apply_hand(state, end, ev.winner, ev.scores))
        except Exception as exc:  # noqa: BLE001 - the entry that cannot be
            return ("refused", ev.seq, getattr(exc, "code", ""))
    return state


@settings(max_examples=300, deadline=None)
@given(ledgers(), st.sampled_from([MatchEnd("goal", goal_points=120),
                                   MatchEnd("hands", match_hands=5)]))
def test_corrected_ledger_folds_as_if_entered_right(events, end):
    try:
        got = fold_events(PLAYERS, end, events)
    except ReplayError as exc:
        # a corrected hand is named by the original hand's seq (the slot it stands in)
        slot = {ev.seq: ev.corrects for ev in events if isinstance(ev, CorrectionEvent)}
        refused = fold_plain(end, entered_right(events))
        assert isinstance(refused, tuple)
        assert (refused[0], slot.get(refused[1], refused[1]), refused[2]) == (
            "refused", exc.seq, exc.code)
        return
    want = fold_plain(end, entered_right(events))
    assert not isinstance(want, tuple), want
    assert got.to_dict()["standings"] == want.to_dict()["standings"]
    assert (got.hands_played, got.status, got.winner, got.co_winners) == (
        want.hands_played, want.status, want.winner, want.co_winners)
    latest = {}
    for ev in events:
        if isinstance(ev, CorrectionEvent):
            latest[ev.corrects] = ev.seq
    assert dict(got.corrected) == latest  # corrected_by: the latest correction of each hand


def test_a_buy_in_re_enters_at_the_refolded_penalty():
    # elimination over 20: cy is out after hand 0 and buys in at the highest penalty still in
    end = MatchEnd("elimination", elimination_over=20, buy_ins=True, buy_ins_max=1,
                   buy_in_min_players=3)
    h0 = HandEvent(0, "ann", (("ann", 0, 0), ("bob", 0, 5), ("cy", 0, 30)))
    events = [h0, BuyInEvent(1, "cy")]
    assert {s.player: s.penalty for s in fold_events(PLAYERS, end, events).standings}["cy"] == 5
    bob_more = HandEvent(2, "ann", (("ann", 0, 0), ("bob", 0, 12), ("cy", 0, 30)))
    state = fold_events(PLAYERS, end, [*events, CorrectionEvent(2, 0, bob_more)])
    assert {s.player: s.penalty for s in state.standings}["cy"] == 12
    keeps_cy_in = HandEvent(2, "ann", (("ann", 0, 0), ("bob", 0, 5), ("cy", 0, 10)))
    try:
        fold_events(PLAYERS, end, [*events, CorrectionEvent(2, 0, keeps_cy_in)])
    except ReplayError as exc:
        assert (exc.seq, exc.code) == (1, "player-not-eliminated")
    else:
        raise AssertionError("a buy-in of a player no longer eliminated must be refused")
