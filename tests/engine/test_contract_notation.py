"""The text notation of contract records (docs/api.md#contract-rule-sets; docs/notation.md): a line
for ``round``, ``lay``, ``shift`` and ``call``, and every record converts both ways without
loss."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine.cards import full_deck
from service.engine.notation import data_to_text, parse_text, record_to_text, text_to_data
from service.engine.record import RecordError, parse_record, record_to_data
from service.engine.rules import CATALOG
from tests.engine.test_notation import MELD_CARD, NAMES, NATURAL, PLAY

JAM = CATALOG["kalooki-jamaica"]
MELD = st.one_of(st.lists(MELD_CARD, min_size=1, max_size=5),
                 st.builds(lambda cs, k: {"cards": cs, "kind": k},
                           st.lists(MELD_CARD, min_size=1, max_size=5),
                           st.sampled_from(["set", "run"])))
CONTRACT_PLAY = st.one_of(
    PLAY,
    st.builds(lambda ms: {"lay": ms}, st.lists(MELD, min_size=1, max_size=5)),
    st.builds(lambda i, c, e: {"shift": {"meld": i, "card": c} | ({"end": e} if e else {})},
              st.integers(0, 30), NATURAL, st.sampled_from([None, "low", "high"])),
)


@st.composite
def contract_records(draw):
    round_ = draw(st.integers(1, JAM.rounds))
    players = draw(st.lists(NAMES, min_size=3, max_size=5, unique=True))
    decks, jokers = JAM.deck_for(len(players))
    deck = [str(c) for c in draw(st.permutations(full_deck(decks, jokers)))]
    n = JAM.deal_size(round_)
    data = {"ruleset": "kalooki-jamaica", "round": round_, "players": players,
            "deal": {p: deck[i * n:(i + 1) * n] for i, p in enumerate(players)}}
    rest = deck[len(players) * n:]
    known = draw(st.booleans())
    if known:
        data["stock"] = rest[1:1 + draw(st.integers(0, 40))]
    data["discard"] = rest[:1]
    turns = []
    for _ in range(draw(st.integers(0, 6))):
        t = {"player": draw(st.sampled_from(players))}
        if draw(st.booleans()):
            call = {"player": draw(st.sampled_from(players)), "granted": draw(st.booleans())}
            if call["granted"] and (draw(st.booleans()) or not known):
                call["penalty"] = [draw(NATURAL)]
            t["call"] = call
        t["draw"] = {"from": "stock", "card": draw(NATURAL)}
        t["plays"] = draw(st.lists(CONTRACT_PLAY, max_size=3))
        if draw(st.booleans()):
            t["discard"] = draw(NATURAL)
        turns.append(t)
    data["turns"] = turns
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contract_records())
def test_contract_record_text_record_is_identity(data) -> None:
    """docs/notation.md: round, lay, shift and call lines round-trip."""
    record = parse_record(data)
    assert parse_text(record_to_text(record)) == record
    assert parse_record(record_to_data(record)) == record
    assert text_to_data(data_to_text(record_to_data(record))) == record_to_data(record)


def test_the_lines() -> None:
    text = """ruleset kalooki-jamaica
round 1
players ann bob cy
deal ann 7h 7s 7c 9d 9d JK Kc Kh Ks
deal bob 2c 3c 4c 5c 6c 8h 8s Td Jd
deal cy 2h 3h 4h 5h 6d 6s Qc Qd 4s
pile 2s
turn 0 ann
  call cy granted Ad          # the penalty card named
  draw stock 3s
  lay 7h 7s 7c | set 9d 9d JK | Kc Kh Ks
  shift 1 7d low
  discard 3s
"""
    lines: dict[str, int] = {}
    data = text_to_data(text, lines)
    turn = data["turns"][0]
    assert data["round"] == 1
    assert turn["call"] == {"player": "cy", "granted": True, "penalty": ["Ad"]}
    assert turn["plays"][0] == {"lay": [["7h", "7s", "7c"], {"cards": ["9d", "9d", "JK"],
                                                              "kind": "set"}, ["Kc", "Kh", "Ks"]]}
    assert turn["plays"][1] == {"shift": {"meld": 1, "card": "7d", "end": "low"}}
    assert lines["round"] == 2 and lines["turns.0.call"] == 9 and lines["turns.0.plays.1"] == 12
    assert "  call cy refused" in data_to_text({**data, "turns": [{**turn, "call": {
        "player": "cy", "granted": False}}]})


@pytest.mark.parametrize("line", ["round", "round x", "round 1 2", "call cy", "call cy maybe",
                                  "call cy refused Ad", "shift 1", "shift x 7d",
                                  "shift 1 7d middle", "lay", "lay 7h 7s 7c |"])
def test_malformed_lines_name_their_line(line: str) -> None:
    head = "ruleset kalooki-jamaica\nplayers ann bob cy\n"
    text = head + (line + "\n" if line.startswith("round") else "turn 0 ann\n  " + line + "\n")
    with pytest.raises(RecordError) as err:
        text_to_data(text)
    assert err.value.code == "invalid-notation"
    assert err.value.field == f"line {text.count(chr(10))}"
