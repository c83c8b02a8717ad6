"""The OpenAPI document is one client generators can use, and its examples are true.

Checks operationIds, tags, bearer security, problem responses, reused components,
required fields, defaults, summaries and content types; then sends every request
example to the app and compares the answer with the response example.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_spec

from service.app import create_app
from service.docs.examples import TOUR, Example

METHODS = ("get", "put", "post", "delete", "patch")
OPERATION_IDS = {
    "getHealth", "getReadiness", "validateMeld", "checkOpening", "buildOnMeld", "releaseJoker",
    "scoreHand", "analyzeHand", "adjudicateHand", "checkTurn", "listTurnOptions", "createMatch",
    "importMatch",
    "getMatch", "deleteMatch", "buyIn", "exportMatch", "listHands", "appendHand", "getHand",
    "correctHand", "getSheet", "getSettlement", "streamEvents",
    "listRuleSets", "getRuleSet", "listViolations", "getProblem"}
NEEDS_TOKEN = {"appendHand", "buyIn", "deleteMatch", "exportMatch", "correctHand"}
# only for an id that was deleted or expired (docs/api.md#export-and-import)
TOKEN_OPTIONAL = {"importMatch"}
COMPONENTS = {"Card", "MeldCard", "RuleSetRef", "Meld", "Violation", "HandRecord", "Turn", "Play",
              "Match", "Standing", "Problem"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    app = create_app({"TESTING_NO_METRICS": True})
    return app.test_client().get("/openapi.json").get_json()


def operations(spec: dict[str, Any]):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield path, method, op


def test_document_is_valid_openapi(spec) -> None:
    validate_spec(spec)


def test_operation_ids_and_tags(spec) -> None:
    ids = [op["operationId"] for _, _, op in operations(spec)]
    assert sorted(ids) == sorted(OPERATION_IDS)
    tags = {t["name"] for t in spec["tags"]}
    for _, _, op in operations(spec):
        assert len(op["tags"]) == 1 and op["tags"][0] in tags


def test_bearer_auth_on_exactly_the_token_operations(spec) -> None:
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        **spec["components"]["securitySchemes"]["bearerAuth"], "type": "http", "scheme": "bearer"}
    assert "security" not in spec
    for _, _, op in operations(spec):
        security = op.get("security")
        if op["operationId"] in NEEDS_TOKEN:
            assert security == [{"bearerAuth": []}]
        elif op["operationId"] in TOKEN_OPTIONAL:
            assert security == [{"bearerAuth": []}, {}]
        else:
            assert security is None, op["operationId"]
        assert not any(p["name"].lower() == "authorization" for p in op.get("parameters", []))


# Safe to send twice (a client may retry them): reads, the stateless rulings and an import.
# Never: creating or deleting a match, and appends, which are safe only under their
# Idempotency-Key (a header parameter the operation declares). The SDK's route facts
# (clients/typescript/src/routes.ts) are generated from these.
NOT_IDEMPOTENT = {"createMatch", "deleteMatch", "appendHand", "buyIn", "correctHand"}


def test_x_idempotent_marks_the_operations_safe_to_retry(spec) -> None:
    for path, method, op in operations(spec):
        if op["operationId"] in NOT_IDEMPOTENT:
            assert "x-idempotent" not in op, op["operationId"]
        else:
            assert op.get("x-idempotent") is True, op["operationId"]
            assert method == "get" or path.startswith(("/v1/melds/", "/v1/jokers/", "/v1/hands/",
                                                       "/v1/turns/", "/v1/matches/import"))


def test_ledger_writes_declare_their_headers(spec) -> None:
    """An append and a buy-in take an Idempotency-Key (required on an append) and If-Match;
    a delete takes If-Match: the server reads each of them (service/api/matches/routes.py)."""
    def headers(op):
        return {p["name"]: p["required"] for p in op.get("parameters", []) if p["in"] == "header"}
    m = spec["paths"]["/v1/matches/{match_id}"]
    assert headers(m["delete"]) == {"If-Match": False}
    assert headers(spec["paths"]["/v1/matches/{match_id}/hands"]["post"]) == {
        "Idempotency-Key": True, "If-Match": False}
    assert headers(spec["paths"]["/v1/matches/{match_id}/buy-ins"]["post"]) == {
        "Idempotency-Key": False, "If-Match": False}


def test_every_error_response_is_a_problem(spec) -> None:
    for _, _, op in operations(spec):
        statuses = {int(s) for s in op["responses"] if s != "default"}
        if op["operationId"] in ("getHealth", "getReadiness"):
            for s, r in op["responses"].items():
                assert list(r["content"]) == ["application/json"], (op["operationId"], s)
            continue
        assert 429 in statuses
        if "requestBody" in op:
            assert {400, 413, 415, 422} <= statuses, op["operationId"]
        if op["tags"] == ["Matches"]:
            assert 503 in statuses, op["operationId"]
        for status, response in op["responses"].items():
            if status == "default":
                continue
            if int(status) >= 400:
                assert response["content"]["application/problem+json"]["schema"] == {
                    "$ref": "#/components/schemas/Problem"}, (op["operationId"], status)
        if 401 in statuses:
            assert op["operationId"] in NEEDS_TOKEN | TOKEN_OPTIONAL
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail", "code"}


def test_components_are_defined_once_and_referenced(spec) -> None:
    schemas = spec["components"]["schemas"]
    assert set(schemas) >= COMPONENTS
    text = json.dumps(spec)
    for name in COMPONENTS:
        assert text.count(f'"#/components/schemas/{name}"') >= 1, name
    assert text.count('"#/components/schemas/RuleSetOverrides"') == 1  # defined once
    assert text.count('"ace_low_value": {"type"') == 1
    assert "ScoreLine" not in schemas
    assert re.compile(schemas["Card"]["pattern"]).match("Qs")
    assert re.compile(schemas["MeldCard"]["pattern"]).match("JK=7h")
    assert not re.compile(schemas["Card"]["pattern"]).match("JK=7h")


def test_request_fields_optional_unless_required(spec) -> None:
    schemas = spec["components"]["schemas"]
    assert sorted(schemas["Validate"]["required"]) == ["cards", "ruleset"]
    assert sorted(schemas["Build"]["required"]) == ["cards", "meld", "ruleset"]
    for name in ("Validate", "Build", "Release", "Analyze", "TurnCheck", "CreateMatch", "Import"):
        for prop, body in schemas[name]["properties"].items():
            assert "default" not in body, (name, prop)  # generators make defaults mandatory


def test_response_fields_always_present_are_required(spec) -> None:
    schemas = spec["components"]["schemas"]
    assert set(schemas["ValidateResponse"]["required"]) == {
        "valid", "meld", "alternatives", "violations"}
    assert set(schemas["Meld"]["required"]) == {"kind", "cards", "points", "jokers", "closed"}
    assert set(schemas["Violation"]["required"]) == {"code", "message", "type"}
    assert {"id", "standings", "status", "version", "head"} <= set(schemas["Match"]["required"])


def test_summaries_are_plain_text(spec) -> None:
    for _, _, op in operations(spec):
        assert op.get("summary"), op["operationId"]
        for key in ("summary", "description"):
            assert "``" not in op.get(key, ""), op["operationId"]


def test_content_types(spec) -> None:
    adjudicate = spec["paths"]["/v1/hands/adjudicate"]["post"]["requestBody"]["content"]
    assert set(adjudicate) == {"application/json", "text/vnd.kaluki.hand"}
    assert adjudicate["application/json"]["schema"] == {"$ref": "#/components/schemas/HandRecord"}
    problem = spec["paths"]["/problems/{code}"]["get"]["responses"]["200"]["content"]
    assert set(problem) == {"application/json", "text/html"}
    assert "content" not in spec["paths"]["/v1/matches/{match_id}"]["delete"]["responses"]["204"]


def test_every_operation_has_a_request_and_a_response_example(spec) -> None:
    for _, _, op in operations(spec):
        if "requestBody" in op:
            assert "example" in op["requestBody"]["content"]["application/json"], op["operationId"]
        ok = [r for s, r in op["responses"].items() if s.startswith("2")]
        assert any("example" in c for r in ok for c in r.get("content", {}).values()) or \
            op["operationId"] == "deleteMatch", op["operationId"]


def _validator(spec: dict[str, Any], schema: dict[str, Any]) -> OAS31Validator:
    """A validator for ``schema`` whose ``#/components/…`` references resolve in ``spec``."""
    return OAS31Validator({"allOf": [schema], "components": spec["components"]})


def test_examples_match_their_schemas(spec) -> None:
    for _, _, op in operations(spec):
        for response in op["responses"].values():
            for media, content in response.get("content", {}).items():
                if "example" in content and media.endswith("json"):
                    schema = content["schema"]
                    _validator(spec, schema).validate(content["example"])
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        if body and "example" in body:
            _validator(spec, body["schema"]).validate(body["example"])


def _shape(value: Any) -> Any:
    """The structure of a JSON value: keys and types, not the values themselves."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return type(value).__name__


def _fill(value: Any, ctx: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in ctx.items():
            if isinstance(v, str):
                value = value.replace("{" + k + "}", v)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, ctx) for k, v in value.items()}
    return value


def _send(client, e: Example, ctx: dict[str, Any], body: Any = None):
    path = _fill(e.path, ctx)
    if e.query:
        path += "?" + "&".join(f"{k}={v}" for k, v in e.query.items())
    headers = _fill(e.headers, ctx)
    if body is None:
        return client.open(path, method=e.method, headers=headers)
    return client.open(path, method=e.method, headers=headers, json=body)


def test_the_tour_answers_as_documented(tmp_path) -> None:
    """Every request example, sent in order (create, append, … import), gets its example."""
    client = create_app({"TESTING_NO_METRICS": True, "KALUKI_DATA_DIR": str(tmp_path)}).test_client()
    uk = client.post("/v1/matches", json={"ruleset": "kaluki-uk", "players": [
        "ann", "bob", "cy", "dee"], "elimination_over": 20}).get_json()
    ctx: dict[str, Any] = {"uk": uk["id"], "uk_token": uk["token"]}
    r = client.post(f"/v1/matches/{uk['id']}/hands", headers={
        "Authorization": f"Bearer {uk['token']}", "Idempotency-Key": "h1"}, json={"score": {
            "winner": "ann", "finish": "out", "players": [
                {"id": "ann", "cards": []}, {"id": "bob", "cards": ["2c"]},
                {"id": "cy", "cards": ["Qs", "Kd", "9h"]}, {"id": "dee", "cards": ["3c"]}]}})
    assert r.status_code == 201
    # a live stream does not end while its match is in progress: no tour stop (its example
    # is in the document; tests/ledger/test_events.py checks what it sends)
    assert {e.operation_id for e in TOUR} == OPERATION_IDS - {"streamEvents"}
    for e in TOUR:
        body = ctx["export"] if e.operation_id == "importMatch" else e.request
        r = _send(client, e, ctx, body)
        assert r.status_code == e.status, (e.operation_id, r.get_json())
        answer = r.get_json() if r.data else None
        if e.path.startswith("/v1/matches") or e.operation_id == "getReadiness":
            assert _shape(answer) == _shape(e.response), e.operation_id
        else:
            assert answer == e.response, e.operation_id
        if e.operation_id == "createMatch":
            ctx["id"], ctx["token"] = answer["id"], answer["token"]
        if e.operation_id == "exportMatch":
            ctx["export"] = answer
        if e.notation is not None:
            r = client.post(e.path, data=e.notation.encode(),
                            headers={"Content-Type": "text/vnd.kaluki.hand"})
            assert r.get_json() == e.response


def test_415_on_adjudicate_names_both_media_types(client) -> None:
    r = client.post("/v1/hands/adjudicate", data="x", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    detail = r.get_json()["detail"]
    assert "application/json" in detail and "text/vnd.kaluki.hand" in detail
    r = client.post("/v1/melds/validate", data="x", headers={"Content-Type": "text/plain"})
    assert "text/vnd.kaluki.hand" not in r.get_json()["detail"]
