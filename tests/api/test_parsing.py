"""The fast body loader agrees with marshmallow wherever it answers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.api.hands import AnalyzeSchema, ScoreSchema
from service.api.jokers import ReleaseSchema
from service.api.melds import BuildSchema, OpeningSchema, ValidateSchema
from service.api.parsing import FastLoader
from service.api.referee import TurnCheckSchema
from service.app import create_app

from .test_stateless import VALID_BODIES

SCHEMAS = {
    "/v1/melds/validate": ValidateSchema(),
    "/v1/melds/opening": OpeningSchema(),
    "/v1/melds/build": BuildSchema(),
    "/v1/jokers/release": ReleaseSchema(),
    "/v1/hands/score": ScoreSchema(),
    "/v1/hands/analyze": AnalyzeSchema(),
    "/v1/turns/check": TurnCheckSchema(),
}
BODIES = {**VALID_BODIES, "/v1/turns/check": {
    "ruleset": "kaluki-hunt", "table": [["5h", "6h", "7h"]], "opened": True, "discard_top": "9h",
    "hand": ["Kh", "Ks", "Kd", "2c", "3c", "4c", "8h", "9s"],
    "turn": {"draw": {"from": "discard", "card": "9h"},
             "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"build": {"meld": 0, "cards": ["8h", "9h"]}}],
             "discard": "9s"}}}

leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.sampled_from(
    ["kaluki-51", "Ah", "JK", "set", "run", "low", "out", "special", "a", "", "10h"]))
values = st.recursive(leaf, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
    st.sampled_from(["card", "end", "cards", "kind", "id", "base", "overrides", "x"]), inner,
    max_size=3), max_leaves=10)


@pytest.mark.parametrize("path", list(SCHEMAS))
def test_valid_bodies_take_the_fast_path(path: str) -> None:
    schema = SCHEMAS[path]
    fast = FastLoader(schema)
    assert fast.usable
    assert fast.load(BODIES[path]) == schema.load(BODIES[path])


@pytest.mark.parametrize("path", list(SCHEMAS))
@given(data=st.data())
@settings(max_examples=150)
def test_fast_path_agrees_with_marshmallow(path: str, data: st.DataObject) -> None:
    schema = SCHEMAS[path]
    body: Any = dict(BODIES[path])
    for key in data.draw(st.lists(st.sampled_from([*body, "extra"]), max_size=3)):
        if data.draw(st.booleans()):
            body.pop(key, None)
        else:
            body[key] = data.draw(values)
    fast = FastLoader(schema).load(body)
    try:
        slow = schema.load(body)
    except ValidationError:
        assert fast is None
        return
    assert fast is None or fast == slow


FAST = create_app({"TESTING_NO_METRICS": True})
SLOW = create_app({"TESTING_NO_METRICS": True, "FAST_VIEWS": False})


def test_hot_views_have_a_fast_path() -> None:
    fast_views = {e for e, f in FAST.view_functions.items() if f.__qualname__.endswith("fast")}
    assert {"melds.validate_meld", "melds.opening", "melds.build", "jokers.release",
            "hands.score", "hands.analyze", "referee.check_turn"} <= fast_views
    assert not any(f.__qualname__.endswith("fast") for f in SLOW.view_functions.values())


@pytest.mark.parametrize("path", list(SCHEMAS))
@given(data=st.data())
@settings(max_examples=60)
def test_fast_views_answer_exactly_like_the_full_path(path: str, data: st.DataObject) -> None:
    """Same status, same body, byte for byte, whichever path a request takes."""
    body: Any = dict(BODIES[path])
    for key in data.draw(st.lists(st.sampled_from([*body, "extra"]), max_size=2)):
        body[key] = data.draw(values)
    raw = json.dumps(body)
    same_id = {"X-Request-ID": "same-request"}  # problems carry the request's id
    a = FAST.test_client().post(path, data=raw, content_type="application/json", headers=same_id)
    b = SLOW.test_client().post(path, data=raw, content_type="application/json", headers=same_id)
    assert (a.status_code, a.data) == (b.status_code, b.data)
