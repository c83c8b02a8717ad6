"""Citations in the code name sections of documents in the repository (issue 20).

Code cites a section as ``docs/<file>.md#<anchor>``, the anchor GitHub gives the heading,
so every citation can be checked here: the file exists and has a heading with that anchor.
The product contract the service was built to is not in the repository, so no comment or
docstring under ``service/`` or ``bench/`` cites it by its section numbers.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"\bdocs/([\w.-]+\.md)#([\w-]+)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
OLD = "SPEC §"

# API-facing text that still cites the contract by number: OpenAPI descriptions, the
# summaries flask-smorest takes from route docstrings, an error message the corpus records.
# Changing any of it changes openapi/openapi.json or corpus/. Path -> occurrences.
API_FACING = {
    "service/api/hands.py": 2,
    "service/api/matches/routes.py": 3,
    "service/api/melds.py": 1,
    "service/api/referee.py": 4,
    "service/docs/contract.py": 4,
    "service/engine/record.py": 1,
    "service/engine/rules.py": 1,
}


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, every character but letters,
    digits, ``_``, ``-`` and spaces dropped (backticks, slashes, colons, dots, §), each
    space a hyphen (so `` / `` becomes ``--``)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """Every heading anchor of a Markdown file (outside code fences; a repeated heading
    gets ``-1``, ``-2``… as on GitHub)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def python_files(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py") if ".venv" not in p.parts)


def citations() -> list[tuple[str, int, str, str]]:
    found = []
    for path in python_files("service", "tests", "bench"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in CITATION.finditer(line):
                found.append((str(path.relative_to(ROOT)), n, m.group(1), m.group(2)))
    return found


def test_slug_is_githubs() -> None:
    assert slug("Rulings: 200 with `valid` / `legal`") == "rulings-200-with-valid--legal"
    assert slug("nginx (`deploy/nginx/nginx.conf`)") == "nginx-deploynginxnginxconf"
    assert slug("Scorekeeping (SPEC §7.1)") == "scorekeeping-spec-71"
    assert slug("Hand notation (`text/vnd.kaluki.hand`)") == "hand-notation-textvndkalukihand"
    assert slug("kalooki-jamaica: rule set, melds, the lay, scoring, solver, matches") == \
        "kalooki-jamaica-rule-set-melds-the-lay-scoring-solver-matches"
    assert slug("Redis Cluster: `cluster-require-full-coverage no`") == \
        "redis-cluster-cluster-require-full-coverage-no"


def test_anchors_skip_code_fences_and_number_repeats(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("# Title\n\n```\n# not a heading\n```\n\n## Part\n\n## Part\n", encoding="utf-8")
    assert anchors(doc) == {"title", "part", "part-1"}


def test_the_docs_own_links_resolve() -> None:
    """The slug agrees with the links the documents already make to each other."""
    assert "scorekeeping-spec-71" in anchors(ROOT / "docs" / "ledger.md")
    assert "rulings-200-with-valid--legal" in anchors(ROOT / "docs" / "api.md")


def test_there_are_citations() -> None:
    assert len(citations()) > 300


@pytest.mark.parametrize("doc", sorted({c[2] for c in citations()}))
def test_every_citation_names_a_section_that_exists(doc: str) -> None:
    path = ROOT / "docs" / doc
    cited = [c for c in citations() if c[2] == doc]
    assert path.is_file(), f"docs/{doc} does not exist: cited at {cited[0][0]}:{cited[0][1]}"
    have = anchors(path)
    broken = [f"{f}:{n}: docs/{doc}#{a}" for f, n, _, a in cited if a not in have]
    assert not broken, "no such heading:\n" + "\n".join(broken)


def _old_citations(path: Path) -> list[int]:
    """Lines of comments and docstrings that cite the contract by number."""
    src = path.read_text(encoding="utf-8")
    docs = {(n.lineno, n.col_offset) for n in ast.walk(ast.parse(src))
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)}
    return [tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(src).readline)
            if OLD in tok.string and (tok.type == tokenize.COMMENT
                                      or (tok.type == tokenize.STRING and tok.start in docs))]


def test_nothing_under_service_or_bench_cites_the_contract_by_number() -> None:
    counts, lines = {}, []
    for path in python_files("service", "bench"):
        src = path.read_text(encoding="utf-8")
        if OLD in src:
            rel = str(path.relative_to(ROOT))
            counts[rel] = src.count(OLD)
            if rel not in API_FACING:
                lines += [f"{rel}:{ln}" for ln in _old_citations(path)]
    assert not lines, f"cite docs/<file>.md#<anchor> instead of {OLD}n:\n" + "\n".join(lines)
    assert counts == API_FACING, f"{OLD}n outside the API-facing text listed: {counts}"
