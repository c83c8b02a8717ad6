"""Who owes whom (docs/api.md#scorekeeping), in exact decimal arithmetic, pure Python.

* Each player pays ``stake`` into a pool at the start and ``buy_in`` per buy-in;
  the pool goes to the match's winner, split evenly among co-winners, a remainder
  going one minor unit each to the co-winners in seat order.
* Each loser of a hand pays its winner ``per_hand`` (after a special win
  ``per_special``, where given).
* At the end each pair of players settles ``per_point`` × the difference of their
  totals (rounded half-even to the minor unit), the worse total paying.

The balances (positive: receives) sum to exactly zero. :func:`fewest_transfers`
settles them with the fewest payments, found exactly: ``n`` non-zero balances
need ``n - g`` payments, where ``g`` is the largest number of disjoint groups
summing to zero that partition them (each group of ``m`` settles in ``m - 1``
payments, and no settlement does better); a dynamic programme over the subsets
finds ``g`` (at most 2^16 subsets for 16 players).

>>> b = balances(["ann", "bob", "cy"], 2, stake=Decimal("5"), winners=["ann"])
>>> [(p, str(a)) for p, a in b.items()]
[('ann', '10.00'), ('bob', '-5.00'), ('cy', '-5.00')]
>>> [(t.payer, t.payee, str(t.amount)) for t in fewest_transfers(b)]
[('bob', 'ann', '5.00'), ('cy', 'ann', '5.00')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

ZERO = Decimal(0)
MAX_PLAYERS = 16


@dataclass(frozen=True, slots=True)
class HandResult:
    """One hand as it counts: its winner, whether it was a special win, who played it."""

    winner: str
    special: bool
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Transfer:
    payer: str
    payee: str
    amount: Decimal


def unit(digits: int) -> Decimal:
    return Decimal(1).scaleb(-digits)


def balances(players: Sequence[str], digits: int, *, stake: Decimal = ZERO,
             buy_in: Decimal = ZERO, per_hand: Decimal = ZERO,
             per_special: Decimal | None = None, per_point: Decimal = ZERO,
             winners: Sequence[str] = (), buy_ins: Mapping[str, int] | None = None,
             hands: Sequence[HandResult] = (), totals: Mapping[str, int] | None = None,
             lower_is_better: bool = False) -> dict[str, Decimal]:
    """Every player's balance, in seat order, each a multiple of the minor unit."""
    q = unit(digits)
    bal = {p: ZERO for p in players}
    # the pool
    pool = ZERO
    for p in players:
        paid = stake + buy_in * (buy_ins or {}).get(p, 0)
        bal[p] -= paid
        pool += paid
    if winners:
        seated = [p for p in players if p in set(winners)]
        units = int((pool / q).to_integral_value())
        share, extra = divmod(units, len(seated))
        for i, p in enumerate(seated):
            bal[p] += (share + (1 if i < extra else 0)) * q
    else:  # no winner to take it: everyone has their money back
        for p in players:
            bal[p] += stake + buy_in * (buy_ins or {}).get(p, 0)
    # per hand
    for h in hands:
        each = per_special if h.special and per_special is not None else per_hand
        for p in h.players:
            if p != h.winner:
                bal[p] -= each
                bal[h.winner] += each
    # per point, pairwise on the totals
    if per_point and totals:
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                diff = totals[a] - totals[b]
                if diff == 0:
                    continue
                amount = (per_point * abs(diff)).quantize(q, rounding=ROUND_HALF_EVEN)
                a_worse = diff > 0 if lower_is_better else diff < 0
                payer, payee = (a, b) if a_worse else (b, a)
                bal[payer] -= amount
                bal[payee] += amount
    return {p: v.quantize(q) + ZERO for p, v in bal.items()}  # + 0: never "-0.00"


def zero_sum_groups(amounts: Sequence[Decimal]) -> list[list[int]]:
    """A partition of the indices of ``amounts`` (non-zero, summing to zero) into as many
    groups summing to zero as there can be."""
    n = len(amounts)
    if n > MAX_PLAYERS:
        raise ValueError(f"at most {MAX_PLAYERS} balances")
    full = (1 << n) - 1
    total = [ZERO] * (1 << n)
    best = [0] * (1 << n)
    came = [0] * (1 << n)  # the index added last on the best way to reach mask
    for mask in range(1, full + 1):
        low = (mask & -mask).bit_length() - 1
        total[mask] = total[mask & (mask - 1)] + amounts[low]
        top, arg = -1, 0
        m = mask
        while m:
            bit = m & -m
            v = best[mask ^ bit]
            if v > top:
                top, arg = v, bit.bit_length() - 1
            m ^= bit
        best[mask] = top + (1 if total[mask] == 0 else 0)
        came[mask] = arg
    # walk back: a group ends at each mask on the path whose sum is zero
    groups: list[list[int]] = []
    current: list[int] = []
    mask = full
    while mask:
        if total[mask] == 0 and current:
            groups.append(current)
            current = []
        i = came[mask]
        current.append(i)
        mask ^= 1 << i
    if current:
        groups.append(current)
    return groups


def fewest_transfers(bal: Mapping[str, Decimal]) -> list[Transfer]:
    """Payments that settle ``bal`` (summing to zero), as few as there can be."""
    people = [p for p, v in bal.items() if v != 0]
    amounts = [bal[p] for p in people]
    if sum(amounts, ZERO) != 0:
        raise ValueError("balances do not sum to zero")
    out: list[Transfer] = []
    for group in zero_sum_groups(amounts):
        left = {people[i]: amounts[i] for i in sorted(group)}
        while any(v != 0 for v in left.values()):
            payer = min(left, key=lambda p: (left[p], list(left).index(p)))
            payee = max(left, key=lambda p: (left[p], -list(left).index(p)))
            amount = min(-left[payer], left[payee])
            out.append(Transfer(payer, payee, amount))
            left[payer] += amount
            left[payee] -= amount
    return out
