"""The conformance corpus as data: reading it, comparing an answer with a case, what it covers.

The format is documented in ``docs/corpus.md`` and described by ``corpus/case.schema.json``.
A case is a request and the answer the service gave it; ``compare.free`` names the parts
of the answer that are not part of the ruling (message wording, ``request_id``, a
problem's ``title`` and ``detail``...). Everything else is compared exactly.

>>> matches("/violations/0/message", "/**/message")
True
>>> matches("/meld/points", "/**/message")
False
>>> diff({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]}, [])
[('/b/1', 2, 3)]
>>> diff({"detail": "x"}, {"detail": "y"}, ["/detail"])
[]
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = ROOT / "corpus"  # another corpus: the runner's --corpus, the generator's --out
CASES_DIR = "cases"
FORMAT = 1  # the case format's version (docs/corpus.md); the corpus's own is corpus/VERSION

MISSING = "<missing>"

# What is free, by kind of answer (the generator writes these into every case)
FREE_RULING = ["/**/message"]
FREE_PROBLEM = ["/title", "/detail", "/request_id", "/errors/*"]
FREE_CATALOG = ["/**/message", "/**/rule", "/**/description", "/**/descriptions/*", "/**/source"]


def version(corpus_dir: Path = CORPUS_DIR) -> str:
    return (corpus_dir / "VERSION").read_text(encoding="utf-8").strip()


def case_files(corpus_dir: Path = CORPUS_DIR) -> list[Path]:
    d = corpus_dir / CASES_DIR
    return sorted([*d.glob("*.json"), *d.glob("*.json.gz")])


def read_file(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    data: dict[str, Any] = json.loads(raw)
    return data


def load(corpus_dir: Path = CORPUS_DIR) -> list[dict[str, Any]]:
    """Every case of the corpus, in file order."""
    cases: list[dict[str, Any]] = []
    for path in case_files(corpus_dir):
        cases.extend(read_file(path)["cases"])
    return cases


# -- comparing ------------------------------------------------------------------------------

def _segments(pointer: str) -> list[str]:
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer.split("/")[1:]] if pointer else []


def matches(pointer: str, pattern: str) -> bool:
    """Does a JSON Pointer match a pattern (``*``: one segment, ``**``: any number)?"""
    return _match(_segments(pointer), _segments(pattern))


def _match(path: Sequence[str], pat: Sequence[str]) -> bool:
    if not pat:
        return not path
    if pat[0] == "**":
        return any(_match(path[i:], pat[1:]) for i in range(len(path) + 1))
    if not path:
        return False
    return (pat[0] == "*" or pat[0] == path[0]) and _match(path[1:], pat[1:])


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def diff(expected: Any, actual: Any, free: Sequence[str], *, allow_extra: bool = False,
         at: str = "") -> list[tuple[str, Any, Any]]:
    """Where ``actual`` differs from ``expected``: (pointer, expected, actual) triples.

    A pointer matching a ``free`` pattern is not compared (nor need it be present). An
    object key the expected answer lacks is a difference unless ``allow_extra``."""
    if at and any(matches(at, p) for p in free):
        return []
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in expected.keys() | actual.keys():
            where = f"{at}/{_escape(str(key))}"
            if key not in actual:
                if not any(matches(where, p) for p in free):
                    out.append((where, expected[key], MISSING))
            elif key not in expected:
                if not allow_extra and not any(matches(where, p) for p in free):
                    out.append((where, MISSING, actual[key]))
            else:
                out.extend(diff(expected[key], actual[key], free, allow_extra=allow_extra,
                                at=where))
        return sorted(out, key=lambda d: d[0])
    if isinstance(expected, list) and isinstance(actual, list):
        out = []
        for i in range(max(len(expected), len(actual))):
            where = f"{at}/{i}"
            if i >= len(actual):
                out.append((where, expected[i], MISSING))
            elif i >= len(expected):
                out.append((where, MISSING, actual[i]))
            else:
                out.extend(diff(expected[i], actual[i], free, allow_extra=allow_extra, at=where))
        return out
    if type(expected) is not type(actual) or expected != actual:
        return [(at or "/", expected, actual)]
    return []


def compare(case: Mapping[str, Any], status: int, media_type: str | None, body: Any, *,
            allow_extra: bool = False) -> list[tuple[str, Any, Any]]:
    """Every difference between a case's expected answer and the one received
    (``status`` and ``content-type`` as pseudo-pointers, then the body's)."""
    exp = case["expected"]
    out: list[tuple[str, Any, Any]] = []
    if status != exp["status"]:
        out.append(("status", exp["status"], status))
    if exp.get("media_type") is not None and media_type != exp["media_type"]:
        out.append(("content-type", exp["media_type"], media_type))
    free = case.get("compare", {}).get("free", [])
    out.extend(diff(exp.get("body"), body, free, allow_extra=allow_extra))
    return out


# -- what a case covers ----------------------------------------------------------------------

def endpoint(case: Mapping[str, Any]) -> str:
    """``POST /v1/melds/validate``: the method and the path without its query."""
    req = case["request"]
    return f"{req['method']} {req['path'].split('?')[0]}"


def problem_code(case: Mapping[str, Any]) -> str | None:
    body = case["expected"].get("body")
    if case["expected"]["status"] >= 400 and isinstance(body, dict):
        code = body.get("code")
        return code if isinstance(code, str) else None
    return None


def violation_codes(case: Mapping[str, Any]) -> list[str]:
    """The violation codes an expected answer cites (a ruling's, or a problem's ``violations``)."""
    body = case["expected"].get("body")
    found: list[str] = []
    if isinstance(body, dict):
        for v in body.get("violations") or ():
            if isinstance(v, dict) and isinstance(v.get("code"), str):
                found.append(v["code"])
    return found


def ruleset_names(case: Mapping[str, Any]) -> list[str]:
    """The catalog rule sets a case's request names (a rule set with overrides names its base)."""
    req = case["request"]
    rs: Any = None
    body = req.get("body")
    if isinstance(body, dict):
        rs = body.get("ruleset")
    if isinstance(rs, dict):
        rs = rs.get("base")
    return [rs] if isinstance(rs, str) else []


def has_overrides(case: Mapping[str, Any]) -> bool:
    body = case["request"].get("body")
    return isinstance(body, dict) and isinstance(body.get("ruleset"), dict)


def summary(cases: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts per endpoint and rule set, and the codes covered."""
    per_endpoint: dict[str, int] = {}
    per_ruleset: dict[str, int] = {}
    problems: dict[str, int] = {}
    violations: dict[str, int] = {}
    n = 0
    for c in cases:
        n += 1
        ep = endpoint(c)
        per_endpoint[ep] = per_endpoint.get(ep, 0) + 1
        label = str(c.get("ruleset") or "")
        per_ruleset[label] = per_ruleset.get(label, 0) + 1
        code = problem_code(c)
        if code:
            problems[code] = problems.get(code, 0) + 1
        for v in violation_codes(c):
            violations[v] = violations.get(v, 0) + 1
    return {"cases": n, "endpoints": dict(sorted(per_endpoint.items())),
            "rulesets": dict(sorted(per_ruleset.items())),
            "problem_codes": dict(sorted(problems.items())),
            "violation_codes": dict(sorted(violations.items()))}


def iter_ids(cases: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for c in cases:
        yield str(c["id"])
