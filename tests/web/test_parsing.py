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
from service.api.referee import TurnCheckSchema
from service.app import create_app
from service.web.parsing import FastLoader
from tests.api.test_stateless import VALID_BODIES

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
    ["kaluki-51", "Ah", "JK", "set", "run", "low", "out", "special", "a", "", "10h",
     # docs/api.md#errors-and-codes type confusions: strings and numbers where a boolean or integer
     # belongs
     "yes", "no", "on", "true", "false", "1", "0", 1.0, 0.0, 2.5]))
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
    # with strict types (docs/api.md#errors-and-codes) the fast loader steps aside exactly when
    # marshmallow refuses
    assert fast == slow


BOOL_FIELDS = [("/v1/melds/build", "opened"), ("/v1/jokers/release", "opened"),
               ("/v1/hands/analyze", "opened"), ("/v1/turns/check", "opened"),
               ("/v1/turns/check", "laid_before")]


@pytest.mark.parametrize("path,name", BOOL_FIELDS)
@pytest.mark.parametrize("value", ["yes", 1, 0, "on", "false", "true", 1.0, None, [], {}])
def test_booleans_take_only_true_or_false(path: str, name: str, value: Any) -> None:
    """docs/api.md#errors-and-codes: a boolean is true or false, never "yes", 1, 0, "on" or "false";
    the same 422 on the fast and the full path."""
    body = {**BODIES[path], name: value}
    assert FastLoader(SCHEMAS[path]).load(body) is None
    with pytest.raises(ValidationError):
        SCHEMAS[path].load(body)
    for app in (FAST, SLOW):
        r = app.test_client().post(path, json=body)
        assert r.status_code == 422 and r.get_json()["code"] == "validation-error", r.get_json()
        assert name in r.get_json()["errors"]
    assert FAST.test_client().post(path, json={**BODIES[path], name: True}).status_code == 200


def test_every_request_field_is_strictly_typed() -> None:
    """docs/api.md#errors-and-codes for every body schema of the service: no permissive Boolean or
    Integer (query-string arguments, which arrive as text, are the one exception)."""
    from marshmallow import Schema
    from marshmallow import fields as mf

    from service.api import matches
    from service.web.parsing import Bool, Int

    query = {matches.PageArgs}
    schemas = [c for c in _subclasses(Schema) if c.__module__.startswith("service.api")
               and c not in query]
    seen = 0
    for cls in schemas:
        for f in cls().fields.values():
            for x in (f, getattr(f, "inner", None)):
                if isinstance(x, mf.Boolean):
                    seen += 1
                    assert type(x) is Bool, (cls.__name__, f.name)
                if isinstance(x, mf.Integer):
                    seen += 1
                    assert type(x) is Int, (cls.__name__, f.name)
    assert len(schemas) > 20 and seen > 30


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out
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
