"""openapi/openapi.json in the repository equals what the service serves
(docs/api.md#the-kaluki-api-for-client-developers)."""

from __future__ import annotations

import json
from pathlib import Path

from service.docs.openapi_dump import spec_text

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_spec_matches_the_app() -> None:
    served = spec_text()
    assert COMMITTED.read_text(encoding="utf-8") == served, (
        "openapi/openapi.json is stale: run `make openapi` and commit it")


def test_served_spec_is_openapi_3(client) -> None:
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    assert json.loads(COMMITTED.read_text())["info"]["title"] == spec["info"]["title"]
