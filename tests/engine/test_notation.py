"""The text notation converts both ways with the JSON record without loss."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine.cards import RANKS, SUITS, full_deck
from service.engine.notation import data_to_text, parse_text, record_to_text, text_to_data
from service.engine.record import RecordError, parse_record, record_to_data
from service.engine.rules import CATALOG

NAMES = st.sampled_from(["ann", "bob", "cy", "dee", "Ed-2", "f_g", "zoë"])
NATURAL = st.builds(lambda r, s: r + s, st.sampled_from(list(RANKS)), st.sampled_from(list(SUITS)))
MELD_CARD = st.one_of(NATURAL, st.just("JK"), st.builds(lambda c: "JK=" + c, NATURAL),
                      st.builds(lambda r: "JK=" + r, st.sampled_from(list(RANKS))))
PLAY = st.one_of(
    st.builds(lambda cs: {"meld": cs}, st.lists(MELD_CARD, min_size=1, max_size=5)),
    st.builds(lambda cs, k: {"meld": {"cards": cs, "kind": k}},
              st.lists(MELD_CARD, min_size=1, max_size=5), st.sampled_from(["set", "run"])),
    st.builds(lambda i, cs: {"build": {"meld": i, "cards": cs}}, st.integers(0, 30), st.lists(
        st.one_of(MELD_CARD, st.builds(lambda c, e: {"card": c, "end": e}, MELD_CARD,
                                       st.sampled_from(["low", "high"]))), min_size=1, max_size=3)),
    st.builds(lambda i, cs: {"release": {"meld": i, "cards": cs}}, st.integers(0, 30),
              st.lists(NATURAL, min_size=1, max_size=3)),
)
CLASSIC = sorted(n for n, r in CATALOG.items() if not r.is_contract)  # records without round
RULESET = st.one_of(st.sampled_from(CLASSIC), st.builds(
    lambda b, n: {"base": b, "overrides": {"run_min": n}}, st.sampled_from(CLASSIC),
    st.integers(3, 4)))


@st.composite
def records(draw):
    ruleset = draw(RULESET)
    players = draw(st.lists(NAMES, min_size=2, max_size=4, unique=True))
    deck = draw(st.permutations(full_deck(2, 2)))
    deck = [str(c) for c in deck]
    deal = {p: deck[i * 13:(i + 1) * 13] for i, p in enumerate(players)}
    rest = deck[len(players) * 13:]
    known = draw(st.booleans())
    npile = draw(st.integers(0, 2))
    data = {"ruleset": ruleset, "players": players, "deal": deal}
    if known:
        data["stock"] = rest[npile:npile + draw(st.integers(0, 60))]
    if npile:
        data["discard"] = rest[:npile]
    turns = []
    for _ in range(draw(st.integers(0, 8))):
        t = {"player": draw(st.sampled_from(players))}
        if draw(st.booleans()):
            t["restock"] = draw(st.lists(NATURAL, max_size=4))
        if draw(st.integers(0, 5)):
            src = draw(st.sampled_from(["stock", "discard"]))
            t["draw"] = {"from": src}
            if draw(st.booleans()) or (src == "stock" and not known):
                t["draw"]["card"] = draw(NATURAL)
        t["plays"] = draw(st.lists(PLAY, max_size=4))
        if draw(st.booleans()):
            t["discard"] = draw(st.one_of(NATURAL, st.just("JK")))
        turns.append(t)
    data["turns"] = turns
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_record_text_record_is_identity(data) -> None:
    record = parse_record(data)
    assert parse_text(record_to_text(record)) == record
    assert parse_record(record_to_data(record)) == record
    assert text_to_data(data_to_text(record_to_data(record))) == record_to_data(record)


def test_comments_blank_lines_and_aliases() -> None:
    text = """
    # a hand of Kaluki
    ruleset kaluki-hunt   # S1
    players ann bob

    deal ann 10h Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
    deal bob 2c 3c 4c 5c 6c 7c 8c 9d Td Jd Qd Ad Ac
    turn 0 ann
      draw stock q♣      # aliases are read, canonical form written
      build 0 low:4h high:JK=5h
    """
    record = parse_text(text)
    assert record.deal[0][0].rank == 10
    out = record_to_text(record)
    assert "draw stock Qc" in out and "build 0 low:4h high:JK=5h" in out
    assert parse_text(out) == record


@pytest.mark.parametrize("text, where", [
    ("rules kaluki-hunt", "line 1"),
    ("ruleset kaluki-hunt\nplayers a b\nturn 1 a", "line 3"),
    ("ruleset kaluki-hunt\nplayers a b\nturn 0 a\n  draw sideways", "line 4"),
    ("ruleset kaluki-hunt\nplayers a b\nturn 0 a\n  jump 3", "line 4"),
    ("ruleset {oops\nplayers a b", "line 1"),
])
def test_bad_notation_names_the_line(text: str, where: str) -> None:
    with pytest.raises(RecordError) as err:
        parse_text(text)
    assert err.value.code == "invalid-notation" and err.value.field == where


def test_documented_example() -> None:
    from pathlib import Path

    from service.engine.referee import adjudicate
    doc = (Path(__file__).parent.parent.parent / "docs" / "notation.md").read_text()
    text = doc.split("```\n", 2)[1]
    ruling = adjudicate(parse_text(text))
    v = ruling.violation
    assert (v.code, v.where["turn"], v.where["play"]) == ("card-not-in-hand", 2, 0)
