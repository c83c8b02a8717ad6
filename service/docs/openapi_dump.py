"""Print the OpenAPI document the app serves: ``python -m service.docs.openapi_dump``."""

from __future__ import annotations

import json
import sys

from ..app import create_app


def spec_text() -> str:
    app = create_app({"TESTING_NO_METRICS": True})
    with app.test_client() as client:
        spec = client.get("/openapi.json").get_json()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(spec_text())
