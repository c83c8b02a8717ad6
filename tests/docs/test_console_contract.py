"""The console and Jamaican records (docs/api.md#contract-rule-sets): its example hand adjudicates
legal with a call, a lay and a shift, and the stepper's words for them are in every catalog."""

from __future__ import annotations

from pathlib import Path

from service.docs.console import STRINGS
from service.engine.notation import parse_text, text_to_data
from service.engine.referee import adjudicate

STATIC = Path(__file__).parent.parent.parent / "service" / "console" / "static"


def test_the_jamaican_example_is_a_legal_down_and_out() -> None:
    text = (STATIC / "examples" / "jamaica.hand").read_text(encoding="utf-8")
    turn = text_to_data(text)["turns"][0]
    assert "call" in turn and [next(iter(p)) for p in turn["plays"]] == ["lay", "shift"]
    ruling = adjudicate(parse_text(text))
    assert ruling.legal and ruling.result is not None
    assert (ruling.result.winner, ruling.result.finish) == ("ann", "special")
    # cy: 60 dealt + the called 2s + the penalty Kh
    assert [s.penalty for s in ruling.result.score.scores] == [0, 62, 72]
    assert (ruling.state.round, ruling.state.contract) == (2, "334")


def test_the_stepper_names_calls_lays_shifts_and_the_contract() -> None:
    for key in ("call-granted", "call-refused", "lay", "shift", "round-contract", "down",
                "calls-made", "ex-jamaica"):
        assert key in STRINGS
    js = (STATIC / "console.js").read_text(encoding="utf-8")
    assert "played.call" in js and "p.lay" in js and "p.shift" in js and "s.contract" in js
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    assert 'data-example="jamaica.hand"' in html
