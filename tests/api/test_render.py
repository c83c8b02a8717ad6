"""Every answer the renderers (service/api/render.py) write matches its documented schema.

Hypothesis draws plays of every shape, legal or not, and posts them; the 200 answers
(the fast path renders them without marshmallow) are validated against the response
schema the committed openapi/openapi.json documents for that operation, and every
problem against the Problem schema.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
RANKS, SUITS = "A23456789TJQK", "cdhs"
CARD = st.one_of(st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS)),
                 st.just("JK"))
MELD_CARD = st.one_of(CARD, st.builds(lambda r, s: f"JK={r}{s}", st.sampled_from(RANKS),
                                      st.sampled_from(SUITS)))
RULESET = st.sampled_from(["kaluki-51", "kaluki-uk", "kaluki-hunt"])


@cache
def _doc() -> dict[str, Any]:
    return json.loads((ROOT / "openapi" / "openapi.json").read_text())


def _validator(path: str, status: str) -> Draft202012Validator:
    doc = _doc()
    responses = doc["paths"][path]["post"]["responses"]
    if status in responses:
        content = responses[status]["content"]
        schema = next(iter(content.values()))["schema"]
    else:
        schema = {"$ref": "#/components/schemas/Problem"}
    return Draft202012Validator({**schema, "components": doc["components"]})


def _check(client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = client.post(path, json=body)
    assert resp.status_code in (200, 422), (resp.status_code, resp.get_data(as_text=True))
    answer = resp.get_json(force=True)
    errors = sorted(_validator(path, str(resp.status_code)).iter_errors(answer), key=str)
    assert not errors, (body, answer, [e.message for e in errors])
    return answer


@settings(max_examples=60)
@given(ruleset=RULESET, cards=st.lists(MELD_CARD, min_size=0, max_size=9),
       kind=st.sampled_from([None, "set", "run"]))
def test_validate_answers_as_documented(client, ruleset: str, cards: list[str],
                                        kind: str | None) -> None:
    answer = _check(client, "/v1/melds/validate", {"ruleset": ruleset, "cards": cards, "kind": kind})
    if "valid" in answer:
        assert answer["valid"] == (answer["meld"] is not None and not answer["violations"])


@settings(max_examples=40)
@given(ruleset=RULESET, melds=st.lists(st.lists(MELD_CARD, min_size=1, max_size=6), min_size=1,
                                       max_size=4))
def test_opening_answers_as_documented(client, ruleset: str, melds: list[list[str]]) -> None:
    _check(client, "/v1/melds/opening", {"ruleset": ruleset, "melds": melds})


@settings(max_examples=40)
@given(ruleset=RULESET, meld=st.sampled_from([["5h", "6h", "7h", "8h"], ["7c", "7d", "7h"],
                                              ["9s", "JK", "Js", "Qs"], ["Kd", "Kc", "JK"]]),
       cards=st.lists(CARD, min_size=1, max_size=3), opened=st.booleans())
def test_build_and_release_answer_as_documented(client, ruleset: str, meld: list[str],
                                                cards: list[str], opened: bool) -> None:
    body = {"ruleset": ruleset, "meld": meld, "cards": cards, "opened": opened}
    _check(client, "/v1/melds/build", body)
    _check(client, "/v1/jokers/release", body)


@settings(max_examples=30)
@given(ruleset=RULESET, cards=st.lists(CARD, min_size=1, max_size=14), opened=st.booleans())
def test_analyze_answers_as_documented(client, ruleset: str, cards: list[str],
                                       opened: bool) -> None:
    _check(client, "/v1/hands/analyze", {"ruleset": ruleset, "cards": cards, "opened": opened})


@settings(max_examples=30)
@given(ruleset=RULESET, hands=st.lists(st.lists(CARD, max_size=5), min_size=2, max_size=4),
       finish=st.sampled_from(["out", "special"]))
def test_score_answers_as_documented(client, ruleset: str, hands: list[list[str]],
                                     finish: str) -> None:
    players = [{"id": f"p{i}", "cards": [] if i == 0 else h} for i, h in enumerate(hands)]
    _check(client, "/v1/hands/score", {"ruleset": ruleset, "winner": "p0", "finish": finish,
                                       "players": players})


def test_the_renderer_takes_only_types_and_constants_from_the_engine() -> None:
    """Views parse, make one engine call and render: the renderer itself never calls the
    engine (no engine function or module among its names; types and constants only)."""
    import inspect

    from service.api import render

    def origin(value: object) -> str:
        if inspect.ismodule(value):
            return value.__name__
        return value.__module__ if inspect.isclass(value) or inspect.isfunction(value) else ""

    from_engine = {name: value for name, value in vars(render).items()
                   if origin(value).startswith("service.engine")}
    assert {"SetMeld", "Violation", "MeldAnswer"} <= set(from_engine)
    for name, value in from_engine.items():
        assert inspect.isclass(value), name  # no function, no module
