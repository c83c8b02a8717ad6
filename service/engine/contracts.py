"""Contracts: going down in a contract rule set (docs/api.md#contract-rule-sets, Jamaican Kalooki).

Deal ``k`` of a contract rule set has the contract ``contracts[k-1]``, a string of
digits: each ``3`` one *three* (a set), each ``4`` one *four* (a run). Going down
("laying the contract", the play ``{"lay": [...]}``) is a player's first cards on
the table: exactly the round's number of threes and fours, each a legal meld of its
kind (longer melds allowed), laid as one play; with ``contract_distinct`` no two
threes of one rank and no two fours of one suit.

:func:`lay` is the one ruling on a lay, used by ``/melds/opening`` with ``round`` and
by the game's ``lay`` play.

>>> from service.engine.rules import CATALOG
>>> r = lay([["7c", "7c", "JK"], ["Kd", "Kh", "Ks"], ["2s", "2s", "2h"]], CATALOG["kalooki-jamaica"], 1)
>>> r.valid, r.contract, [m.kind.value for m in r.melds]
(True, '333', ['set', 'set', 'set'])
>>> lay([["7c", "7d", "7h"]], CATALOG["kalooki-jamaica"], 1).violations[0].code
'contract-not-met'
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, MeldCard
from .melds import SET, Meld, RunMeld, SetMeld, validate
from .rules import RuleSet
from .violations import Violation

MAX_READINGS = 4096
"""Reading combinations :func:`lay` tries to meet the contract (melds read both ways)."""


@dataclass(frozen=True, slots=True)
class LayRuling:
    """A ruling on a lay: each meld as read (None where it is not legal), their points
    together, the round's ``contract`` (digits) and the rules broken."""

    valid: bool
    points: int
    contract: str
    melds: tuple[Meld | None, ...]
    violations: tuple[Violation, ...] = ()


def counts(melds: Sequence[Meld]) -> tuple[int, int]:
    """``(threes, fours)``: the sets and the runs among these melds."""
    threes = sum(1 for m in melds if m.kind == SET)
    return threes, len(melds) - threes


def contract_not_met(rules: RuleSet, round: int, threes: int, fours: int) -> Violation:
    """``contract-not-met`` for a lay (or a meld before going down) of ``threes`` sets
    and ``fours`` runs: names the contract, what it needs, what was laid, and what is
    missing and extra (as contract digits, e.g. ``"34"``)."""
    contract = rules.contract_text(round)
    need3, need4 = rules.contract(round)
    missing = "3" * max(0, need3 - threes) + "4" * max(0, need4 - fours)
    extra = "3" * max(0, threes - need3) + "4" * max(0, fours - need4)
    return Violation("contract-not-met", {
        "contract": contract, "need_threes": need3, "need_fours": need4, "threes": threes,
        "fours": fours, "missing": missing, "extra": extra})


def distinct_violation(melds: Sequence[tuple[int, Meld]]) -> Violation | None:
    """``contract_distinct``: the first two threes of one rank
    (``contract-duplicate-rank``) or fours of one suit (``contract-duplicate-suit``);
    ``melds`` are ``(index, meld)`` pairs."""
    ranks: dict[int, int] = {}
    suits: dict[str, int] = {}
    for i, m in melds:
        if isinstance(m, SetMeld):
            if m.rank in ranks:
                return Violation("contract-duplicate-rank", {
                    "rank": "A23456789TJQK"[m.rank - 1], "melds": [ranks[m.rank], i]})
            ranks[m.rank] = i
        else:
            assert isinstance(m, RunMeld)
            if m.suit in suits:
                return Violation("contract-duplicate-suit", {"suit": m.suit,
                                                             "melds": [suits[m.suit], i]})
            suits[m.suit] = i
    return None


def _meets(readings: Sequence[Meld], rules: RuleSet, need: tuple[int, int]) -> bool:
    if counts(readings) != need:
        return False
    return not rules.contract_distinct or distinct_violation(list(enumerate(readings))) is None


def lay(melds: Sequence[Sequence[str | Card | MeldCard]], rules: RuleSet, round: int,
        kinds: Sequence[str | None] | None = None) -> LayRuling:
    """Rule on going down in ``round`` (docs/api.md#contract-rule-sets): every meld legal (its own
    codes, with ``meld``: its index), exactly the contract's threes and fours
    (``contract-not-met``), distinct ranks and suits under ``contract_distinct``. A meld that reads
    both as a three and a four (or as two runs) without its ``kind`` is read the way that meets
    the contract, if any does. :class:`.rules.InvalidRound` for a round the rule set
    does not have."""
    contract = rules.contract_text(round)
    need = rules.contract(round)
    rulings = [validate(cards, rules, kinds[i] if kinds else None) for i, cards in enumerate(melds)]
    violations = [v.at(meld=i) for i, r in enumerate(rulings) for v in r.violations]
    legal = [(i, r) for i, r in enumerate(rulings) if r.meld is not None]
    chosen: list[Meld] = [r.meld for _, r in legal if r.meld is not None]
    options = [[r.meld, *r.alternatives] for _, r in legal if r.meld is not None]
    if not _meets(chosen, rules, need) and any(len(o) > 1 for o in options):
        combos = 1
        for o in options:
            combos *= len(o)
        if combos <= MAX_READINGS:
            found = next((c for c in itertools.product(*options) if _meets(c, rules, need)), None)
            if found is not None:
                chosen = list(found)
    read: list[Meld | None] = [None] * len(melds)
    for (i, _), m in zip(legal, chosen, strict=True):
        read[i] = m
    threes, fours = counts(chosen)
    if (threes, fours) != need:  # a meld that is not legal counts for nothing
        violations.append(contract_not_met(rules, round, threes, fours))
    if rules.contract_distinct:
        dup = distinct_violation([(i, m) for (i, _), m in zip(legal, chosen, strict=True)])
        if dup is not None:
            violations.append(dup)
    points = sum(m.points for m in chosen)
    return LayRuling(not violations, points, contract, tuple(read), tuple(violations))
