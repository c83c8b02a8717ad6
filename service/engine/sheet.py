"""A match as a score sheet (docs/api.md#scorekeeping): one row per hand as it counts, pure Python.

A hand shows its latest correction's values (``corrected``), a voided hand is left
out, buy-ins and corrections are no rows of their own. ``round`` is the hand
input's ``round`` (contract rule sets, docs/api.md#contract-rule-sets), else None.

>>> hand = {"seq": 0, "type": "hand", "winner": "ann", "finish": "out", "input": {},
...         "scores": [{"id": "ann", "points": 5, "penalty": 0},
...                    {"id": "bob", "points": 0, "penalty": 3}]}
>>> fix = {**hand, "seq": 1, "type": "correction", "corrects": 0, "winner": "bob"}
>>> [(r.seq, r.winner, r.corrected) for r in rows([hand, fix])]
[(0, 'bob', True)]
>>> rows([hand, {"seq": 1, "type": "correction", "corrects": 0, "void": True}])
[]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Row:
    seq: int  # the original hand's
    round: int | None
    winner: str
    finish: str
    special: bool
    corrected: bool
    cells: tuple[tuple[str, int, int], ...]  # (player, points, penalty), as the hand lists them


def rows(entries: Sequence[Mapping[str, Any]]) -> list[Row]:
    """The hands of a ledger as they count, in order."""
    latest: dict[int, Mapping[str, Any]] = {}
    for e in entries:
        if e["type"] == "correction":
            latest[e["corrects"]] = e
    out = []
    for e in entries:
        if e["type"] != "hand":
            continue
        fix = latest.get(e["seq"])
        shown = e if fix is None else fix
        if shown.get("void"):
            continue
        given = shown.get("input") or {}
        rnd = given.get("round") if isinstance(given, Mapping) else None
        out.append(Row(e["seq"], rnd if type(rnd) is int else None, shown["winner"],
                       shown["finish"], bool(shown.get("special")), fix is not None,
                       tuple((s["id"], s["points"], s["penalty"]) for s in shown["scores"])))
    return out
