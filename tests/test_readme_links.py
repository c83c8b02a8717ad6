"""Every file and link README.md names exists in the repository (clients read it first)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE = re.compile(r"`([^`\s]+)`")
PATHLIKE = re.compile(r"^[\w.-]+(/[\w.…-]*)+$|^[\w-]+\.(py|md|json|toml|txt)$")


def named_paths() -> set[str]:
    links = {m.group(1) for m in LINK.finditer(README) if "://" not in m.group(1)}
    code = {m.group(1).rstrip(",.") for m in CODE.finditer(README)}
    files = {c for c in code if PATHLIKE.match(c) and "…" not in c
             and not c.startswith(("/", "localhost", "application/", "text/"))}
    return links | files


def _exists(path: str) -> bool:
    if path == "./var":  # where `make run` keeps the embedded Redis's data (created on start)
        return True
    if "/" not in path:  # a module named beside its package in the layout table
        return any(ROOT.glob(f"service/**/{path}"))
    return (ROOT / path).exists()


def test_readme_names_only_files_that_exist() -> None:
    paths = named_paths()
    assert "docs/api.md" in paths and "docs/notation.md" in paths
    missing = sorted(p for p in paths if not _exists(p))
    assert missing == []


def test_readme_points_clients_to_the_contract_in_the_repository() -> None:
    assert "[docs/api.md](docs/api.md)" in README
    assert "SPEC.md" not in README
