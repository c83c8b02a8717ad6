"""Hypothesis strategies the engine's property tests share."""

from __future__ import annotations

from hypothesis import strategies as st

from service.engine.cards import SUITS
from service.engine.rules import RuleSet


@st.composite
def set_naturals(draw: st.DrawFn, rules: RuleSet, rank: str) -> list[str]:
    """The naturals of a set of ``rank`` that ``rules`` allow: set_min to 6 cards (at most
    the set's maximum), in distinct suits where the rule set asks for them."""
    n = draw(st.integers(rules.set_min, min(rules.effective_set_max, 6)))
    if rules.set_distinct_suits:
        suits = list(draw(st.permutations(SUITS)))[:n]
    else:
        suits = draw(st.lists(st.sampled_from(SUITS), min_size=n, max_size=n))
    return [rank + s for s in suits]
