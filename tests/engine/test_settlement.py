"""Settlement (docs/api.md#scorekeeping): balances sum to zero; transfers are the fewest, found
exactly.

The minimality proof is a brute force: every partition of the non-zero balances into
groups summing to zero; a settlement needs at least n - (most groups) payments (each
payment joins at most two parties' accounts), and the answer must reach that bound.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.settlement import HandResult, balances, fewest_transfers, zero_sum_groups

D = Decimal


def partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first, *part[i]]] + part[i + 1:]
        yield [[first], *part]


def brute_force_fewest(amounts: list[Decimal]) -> int:
    """n - the most zero-sum groups any partition has (independent of the DP)."""
    nonzero = [a for a in amounts if a != 0]
    best = max(sum(1 for g in part if sum(g, D(0)) == 0 and g) for part in partitions(nonzero))
    return len(nonzero) - best


def settles(bal, transfers) -> bool:
    left = dict(bal)
    for t in transfers:
        assert t.amount > 0 and t.payer != t.payee
        left[t.payer] += t.amount
        left[t.payee] -= t.amount
    return all(v == 0 for v in left.values())


cents = st.integers(min_value=-500, max_value=500).map(lambda c: D(c).scaleb(-2))


@st.composite
def zero_sum(draw, max_size=8):
    n = draw(st.integers(2, max_size))
    head = draw(st.lists(cents, min_size=n - 1, max_size=n - 1))
    # favour small values so that zero-sum subgroups exist often
    return [*head, -sum(head, D(0))]


@settings(max_examples=300, deadline=None)
@given(zero_sum())
def test_transfers_are_the_fewest_by_brute_force(amounts):
    bal = {f"p{i}": a for i, a in enumerate(amounts)}
    transfers = fewest_transfers(bal)
    assert settles(bal, transfers)
    assert len(transfers) == brute_force_fewest(amounts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([D("-3"), D("-2"), D("-1"), D("1"), D("2"), D("3")]),
                min_size=1, max_size=7))
def test_many_small_zero_sum_groups(values):
    amounts = [*values, -sum(values, D(0))]
    bal = {f"p{i}": a for i, a in enumerate(amounts)}
    transfers = fewest_transfers(bal)
    assert settles(bal, transfers) and len(transfers) == brute_force_fewest(amounts)


def test_sixteen_players_are_settled():
    amounts = [D(v) for v in (5, -5, 3, -3, 1, 1, -2, 7, -7, 4, -1, -3, 2, -2, 6, -6)]
    bal = {f"p{i}": a for i, a in enumerate(amounts)}
    assert sum(amounts) == 0
    transfers = fewest_transfers(bal)
    assert settles(bal, transfers)
    groups = zero_sum_groups(amounts)
    assert len(transfers) == 16 - len(groups) and len(groups) >= 7


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6), st.integers(0, 1000), st.integers(0, 500), st.integers(0, 300),
       st.integers(0, 50), st.data())
def test_balances_sum_to_exactly_zero(n, stake, buy_in, per_hand, per_point, data):
    players = [f"p{i}" for i in range(n)]
    winners = data.draw(st.lists(st.sampled_from(players), min_size=1, unique=True))
    hands = [HandResult(w, s, tuple(players)) for w, s in data.draw(st.lists(
        st.tuples(st.sampled_from(players), st.booleans()), max_size=6))]
    totals = {p: data.draw(st.integers(-300, 300)) for p in players}
    buys = {p: data.draw(st.integers(0, 2)) for p in players}
    bal = balances(players, 2, stake=D(stake).scaleb(-2), buy_in=D(buy_in).scaleb(-2),
                   per_hand=D(per_hand).scaleb(-2), per_special=D("1.25"),
                   per_point=D(per_point).scaleb(-2), winners=winners, buy_ins=buys,
                   hands=hands, totals=totals)
    assert sum(bal.values(), D(0)) == 0
    assert all(v == v.quantize(D("0.01")) for v in bal.values())


def test_pool_split_among_co_winners_remainder_in_seat_order():
    # docs/api.md#scorekeeping: 3 × 0.01 pool... here 3 players × 1.00 = 3.00 over 2 co-winners:
    # 1.50 each; with 0.01 stakes from 3 players (0.03) the remainder cent goes to the first in seat
    # order
    bal = balances(["a", "b", "c"], 2, stake=D("0.01"), winners=["c", "a"])
    assert bal == {"a": D("0.01"), "b": D("-0.01"), "c": D("0.00")}
    bal = balances(["a", "b", "c", "d"], 0, stake=D("1"), winners=["b", "c", "d"])
    assert bal == {"a": D("-1"), "b": D("1"), "c": D("0"), "d": D("0")}


def test_per_hand_per_special_and_per_point():
    hands = [HandResult("a", False, ("a", "b", "c")), HandResult("b", True, ("a", "b", "c")),
             HandResult("a", False, ("a", "b"))]  # c was out of the third hand
    bal = balances(["a", "b", "c"], 2, per_hand=D("1.00"), per_special=D("5.00"),
                   hands=hands)
    assert bal == {"a": D("-2.00"), "b": D("8.00"), "c": D("-6.00")}
    # per point: lower is better under penalty scoring; pairwise on the difference
    bal = balances(["a", "b", "c"], 2, per_point=D("0.05"), totals={"a": 10, "b": 30, "c": 10},
                   lower_is_better=True)
    assert bal == {"a": D("1.00"), "b": D("-2.00"), "c": D("1.00")}
    bal = balances(["a", "b"], 0, per_point=D("1"), totals={"a": 10, "b": 30})
    assert bal == {"a": D("-20"), "b": D("20")}
