"""The score sheet's two renderings (docs/api.md#scorekeeping): JSON, and RFC 4180 CSV for
spreadsheets.

The CSV is written with the standard ``csv`` module (CRLF line ends, quotes
where a cell needs them): no title line; the header ``seq``, ``round`` (where
the rule set has rounds), ``winner``, ``finish``, then "NAME points" and "NAME
penalty" per player (display names where given); a row per hand as it counts;
a last row ``total`` (the standings). Text that came from a client (names,
player ids) and begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return gets a leading ``'`` (OWASP CSV injection), so a player named
``=HYPERLINK(…)`` stays text; numbers are written as they are.

>>> guard("=HYPERLINK(1)"), guard("-5"), guard("ann")
("'=HYPERLINK(1)", "'-5", 'ann')
"""

from __future__ import annotations

import csv
import io
from typing import Any

from ...engine.sheet import Row, rows
from ...ledger.service import Match

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def guard(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def has_rounds(m: Match, table: list[Row]) -> bool:
    return bool(getattr(m.rules, "contracts", None)) or any(r.round is not None for r in table)


def sheet(m: Match, entries: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Row]]:
    table = rows(entries)
    with_rounds = has_rounds(m, table)
    out_rows = []
    for r in table:
        row: dict[str, Any] = {"seq": r.seq}
        if with_rounds:
            row["round"] = r.round
        row.update({"winner": r.winner, "finish": r.finish, "corrected": r.corrected,
                    "cells": {p: {"points": pts, "penalty": pen} for p, pts, pen in r.cells}})
        out_rows.append(row)
    doc = {"id": m.id, "title": m.title,
           "players": [{"id": p, "name": m.name(p)} for p in m.players],
           "rows": out_rows,
           "totals": {s.player: {"points": s.points, "penalty": s.penalty}
                      for s in m.state.standings}}
    return doc, table


def sheet_csv(m: Match, entries: list[dict[str, Any]]) -> str:
    doc, table = sheet(m, entries)
    with_rounds = has_rounds(m, table)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")  # RFC 4180
    head = ["seq", *(["round"] if with_rounds else []), "winner", "finish"]
    for p in m.players:
        head += [guard(f"{m.name(p)} points"), guard(f"{m.name(p)} penalty")]
    w.writerow(head)
    for r in table:
        cells = {p: (pts, pen) for p, pts, pen in r.cells}
        line: list[Any] = [r.seq, *([r.round if r.round is not None else ""]
                                    if with_rounds else []), guard(m.name(r.winner)), r.finish]
        for p in m.players:
            line += list(cells.get(p, ("", "")))
        w.writerow(line)
    total: list[Any] = ["total", *([""] if with_rounds else []), "", ""]
    for p in m.players:
        t = doc["totals"][p]
        total += [t["points"], t["penalty"]]
    w.writerow(total)
    return buf.getvalue()
