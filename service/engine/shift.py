"""The joker shift of contract rule sets (docs/api.md#contract-rule-sets, ``joker_shift``
``run_end``).

The holder of the natural card a run's joker stands for lays it in the joker's
place, and the joker moves to an end of the same run (``high`` by default, or
``low`` when it cannot stand at the high end), standing for the card beyond
it; the run must stay legal under the rule set (its length, the ace, no two
jokers side by side unless ``run_jokers_adjacent``). Anything else is
``joker-not-shiftable`` with its ``reason``.

>>> from service.engine.rules import CATALOG
>>> from service.engine.melds import table_meld
>>> rules = CATALOG["kalooki-jamaica"]
>>> run = table_meld(["5h", "JK", "7h", "8h"], rules)
>>> str(shift(run, Card.parse("6h"), None, rules))
'5h 6h 7h 8h JK=9h'
>>> str(shift(run, Card.parse("6h"), "low", rules))
'JK=4h 5h 6h 7h 8h'
>>> shift(run, Card.parse("9h"), None, rules).params["reason"]
'no joker in this run stands for 9h'
"""

from __future__ import annotations

from . import melds as m
from .cards import JOKER, Card, MeldCard
from .rules import AceMode, JokerShiftMode, RuleSet
from .violations import Violation

__all__ = ["not_shiftable", "shift"]

HIGH, LOW = m.RunEnd.HIGH, m.RunEnd.LOW


def not_shiftable(reason: str) -> Violation:
    """The one violation of a shift that cannot be made, with its reason."""
    return Violation("joker-not-shiftable", {"reason": reason})


def shift(meld: m.Meld, card: Card, end: str | None, rules: RuleSet) -> m.RunMeld | Violation:
    """The run after ``card`` takes its joker's place and the joker moves to ``end``
    (None: high, or low when high is not possible), or the violation."""
    if rules.joker_shift != JokerShiftMode.RUN_END:
        return not_shiftable("this rule set has no joker shift (joker_shift none)")
    if not isinstance(meld, m.RunMeld):
        return not_shiftable("only a run's joker shifts; this meld is a set")
    if card.is_joker:
        return not_shiftable("a joker cannot take a joker's place")
    at = next((i for i, c in enumerate(meld.cards)
               if c.is_joker and c.as_rank == card.rank and card.suit == meld.suit), None)
    if at is None:
        return not_shiftable(f"no joker in this run stands for {card}")
    cards = list(meld.cards)
    cards[at] = MeldCard(card)
    first = _moved(meld, cards, end or HIGH, rules)
    if isinstance(first, m.RunMeld) or end is not None:
        return first
    second = _moved(meld, cards, LOW, rules)
    return second if isinstance(second, m.RunMeld) else first


def _moved(meld: m.RunMeld, cards: list[MeldCard], end: str, rules: RuleSet
           ) -> m.RunMeld | Violation:
    """The joker placed at ``end`` of ``cards`` (the run with the natural in its place)."""
    if len(cards) >= rules.effective_run_max:
        return not_shiftable(f"the run already holds {len(cards)} cards, the most a run may")
    value = meld.end + 1 if end == HIGH else meld.start - 1
    if rules.ace == AceMode.AROUND:
        value = 13 if value < 1 else value
    elif not 1 <= value <= 14:
        return not_shiftable(f"the run has no room at its {end} end")
    joker = MeldCard(JOKER, m.rank_of_value(value), meld.suit)
    tokens = [*cards, joker] if end == HIGH else [joker, *cards]
    start = meld.start if end == HIGH else value
    ruling = m.validate(tokens, rules, m.RUN)
    if not ruling.valid:
        why = ruling.violations[0]
        return not_shiftable(f"the run would not stay legal with the joker at its {end} end: "
                             + why.message())
    for reading in (ruling.meld, *ruling.alternatives):
        if isinstance(reading, m.RunMeld) and reading.start == start:
            return reading
    return not_shiftable(f"the run has no room at its {end} end")
