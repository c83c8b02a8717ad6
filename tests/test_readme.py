"""Every curl example in README.md answers as the README says (run in-process)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from service.app import create_app

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(sh|json)\n(.*?)```", re.S)


def _examples() -> list[tuple[list[str], object]]:
    blocks = [(m.group(1), m.group(2), m.end(), m.start()) for m in BLOCK.finditer(README)]
    out = []
    for i, (lang, text, end, _) in enumerate(blocks):
        if lang != "sh":
            continue
        expected = None
        if i + 1 < len(blocks) and blocks[i + 1][0] == "json" and README[end:blocks[i + 1][3]].strip() == "":
            expected = json.loads(blocks[i + 1][1])
        for cmd in text.replace("\\\n", " ").splitlines():
            if cmd.strip().startswith("curl"):
                out.append((shlex.split(cmd), expected))
    return out


EXAMPLES = _examples()


def test_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("argv,expected", EXAMPLES, ids=[" ".join(a[2:3]) for a, _ in EXAMPLES])
def test_curl_example(argv: list[str], expected: object) -> None:
    client = create_app({"TESTING_NO_METRICS": True}).test_client()
    url = next(a for a in argv if "localhost:8000" in a)
    path = url.split("localhost:8000", 1)[1]
    headers = {}
    body = None
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == "-H":
            k, _, v = value.partition(":")
            headers[k.strip()] = v.strip()
        if flag == "-d":
            body = value
    if body is None:
        resp = client.get(path, headers=headers)
    else:
        resp = client.post(path, data=body.encode(), headers=headers)
    if expected is None:
        assert resp.status_code == 200
    else:
        assert resp.get_json(force=True) == expected
