"""Melds: sets and runs, with jokers (SPEC §2).

A **set** is ``set_min``..``set_max`` cards of one rank, of different suits when
``set_distinct_suits``; jokers fill missing suits. A **run** is ``run_min`` or
more cards of one suit in sequence, given in order (ascending or descending);
a joker stands for the card at its place; the ace stands where ``ace`` allows.
Every meld needs natural cards (``set_min_naturals``/``run_min_naturals``).

A run is kept as its suit, the *value* of its lowest card and its length.
Values run 1..14 where the ace is 1 at the low end and 14 above the king; under
``ace: around`` values continue past 14 (15 is the two after the ace), so
``Q K A 2`` is 12 13 14 15.

>>> from service.engine.rules import CATALOG
>>> r = validate(["Jd", "JK", "Kd"], CATALOG["kaluki-hunt"])
>>> r.valid, [str(c) for c in r.meld.cards], r.meld.points
(True, ['Jd', 'JK=Qd', 'Kd'], 30)
>>> validate(["4c", "4c", "4d"], CATALOG["kaluki-51"]).violations[0].code
'duplicate-suit'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from .cards import ACE, JOKER, RANKS, Card, MeldCard, check_deck, parse_meld_card
from .errors import EngineError
from .rules import REPRESENTED, AceMode, ReleaseRunMode, ReleaseSetMode, RuleSet
from .violations import Violation


class MeldKind(StrEnum):
    """The two kinds of meld; each member equals (and renders as) its name."""

    SET = "set"
    RUN = "run"


SET, RUN = MeldKind.SET, MeldKind.RUN


def rank_of_value(v: int) -> int:
    """The rank at run value ``v`` (1 and 14 are aces; 15 is a two under ``around``)."""
    return (v - 1) % 13 + 1


# the same, looked up: values reach 25 (a 13-card run from the king under ``around``)
_RANK_AT = tuple(rank_of_value(v) for v in range(40))


class _Cards:
    """What every meld offers, from its ``cards`` (a base without fields of its own)."""

    __slots__ = ()

    cards: tuple[MeldCard, ...]

    @property
    def naturals(self) -> list[Card]:
        return [c.card for c in self.cards if not c.is_joker]

    @property
    def joker_count(self) -> int:
        return sum(1 for c in self.cards if c.is_joker)

    def jokers(self) -> list[tuple[int, str]]:
        """``(index, what it stands for)`` for every joker: ``"Qd"`` in runs, ``"7"`` in sets."""
        out = []
        for i, c in enumerate(self.cards):
            if c.is_joker:
                assert c.as_rank is not None  # a meld's jokers are always declared
                out.append((i, RANKS[c.as_rank - 1] + (c.as_suit or "")))
        return out

    def physical(self) -> list[Card]:
        """The cards themselves (jokers as plain jokers)."""
        return [c.card for c in self.cards]

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class SetMeld(_Cards):
    """A legal set as it lies on the table: cards of one ``rank``.

    ``cards`` are in canonical order with every joker's ``as_rank`` filled in.
    ``locked`` marks a set closed by its history (``all_missing``: a two-joker
    set that gave up one joker), which its cards alone cannot show.
    """

    rank: int
    cards: tuple[MeldCard, ...]
    points: int = 0
    locked: bool = False

    kind: ClassVar[MeldKind] = MeldKind.SET


@dataclass(frozen=True, slots=True)
class RunMeld(_Cards):
    """A legal run as it lies on the table: cards of one ``suit`` in sequence.

    ``cards`` are ascending with every joker's ``as_rank``/``as_suit`` filled
    in; ``start`` is the value of the lowest card (see the module docs).
    """

    suit: str
    start: int
    cards: tuple[MeldCard, ...]
    points: int = 0
    locked: bool = False

    kind: ClassVar[MeldKind] = MeldKind.RUN

    @property
    def end(self) -> int:
        """Value of the highest card."""
        return self.start + len(self.cards) - 1


Meld = SetMeld | RunMeld
"""A legal meld as it lies on the table: a :class:`SetMeld` or a :class:`RunMeld`."""


@dataclass(frozen=True, slots=True)
class MeldRuling:
    valid: bool
    meld: Meld | None = None
    alternatives: tuple[Meld, ...] = ()
    violations: tuple[Violation, ...] = ()


Tokens = Sequence[MeldCard]


def as_tokens(cards: Sequence[str | Card | MeldCard]) -> list[MeldCard]:
    out = []
    for c in cards:
        if isinstance(c, MeldCard):
            out.append(c)
        elif isinstance(c, Card):
            out.append(MeldCard(c))
        else:
            out.append(parse_meld_card(c))
    return out


# -- values ----------------------------------------------------------------------------

def run_card_value(value: int, rules: RuleSet) -> int:
    """A run card's value: an ace at the low end counts ``ace_low_value``."""
    rank = rank_of_value(value)
    if rank == ACE:
        return rules.ace_low_value if value == 1 else rules.card_values.ace
    return rules.natural_value(rank)


def _joker_points(represented: int, rules: RuleSet) -> int:
    jv = rules.joker_opening_value
    return represented if jv == REPRESENTED else int(jv)


def set_points(rank: int, naturals: int, jokers: int, rules: RuleSet) -> int:
    v = rules.natural_value(rank)
    return naturals * v + jokers * _joker_points(v, rules)


def run_points(start: int, tokens: Tokens, rules: RuleSet) -> int:
    total = 0
    represented = rules.joker_opening_value == REPRESENTED
    for i, t in enumerate(tokens):
        v = run_card_value(start + i, rules)
        total += v if represented or not t.is_joker else _joker_points(v, rules)
    return total


# -- sets ------------------------------------------------------------------------------

def read_set(tokens: Tokens, rules: RuleSet) -> SetMeld | Violation:
    """The set these cards form, or the first rule they break."""
    n = len(tokens)
    naturals = [t.card for t in tokens if not t.is_joker]
    if n < rules.set_min:
        return Violation("set-too-short", {"min": rules.set_min, "count": n})
    if n > rules.effective_set_max:
        return Violation("set-too-long", {"max": rules.effective_set_max, "count": n})
    if len(naturals) < max(1, rules.set_min_naturals):
        return Violation("too-few-naturals", {"min": max(1, rules.set_min_naturals)})
    rank = naturals[0].rank
    if any(c.rank != rank for c in naturals):
        return Violation("mixed-ranks")
    if rules.set_distinct_suits:
        seen: set[str] = set()
        for c in naturals:
            if c.suit in seen:
                return Violation("duplicate-suit", {"suit": c.suit})
            seen.add(c.suit)
    for t in tokens:
        if t.is_joker and t.as_rank is not None and t.as_rank != rank:
            return Violation("joker-mismatch", {"declared": str(t), "actual": "JK=" + RANKS[rank - 1]})
    cards = tuple([MeldCard(JOKER, rank, None) if t.is_joker else t for t in tokens])
    return SetMeld(rank, cards, set_points(rank, len(naturals), n - len(naturals), rules))


# -- runs ------------------------------------------------------------------------------

_ACE_LOW = (AceMode.LOW, AceMode.HIGH_OR_LOW, AceMode.AROUND)
_ACE_HIGH = (AceMode.HIGH, AceMode.HIGH_OR_LOW, AceMode.AROUND)


def _ace_ok(value: int, mode: AceMode) -> bool:
    if value == 1:
        return mode in _ACE_LOW
    if value == 14:
        return mode in _ACE_HIGH
    return True


def _starts(n: int, mode: AceMode) -> range:
    """Values a run of ``n`` cards may start at under ace ``mode``."""
    if mode == AceMode.AROUND:
        return range(1, 14)
    return range(1, 14 - n + 2)


def _ends_ok(start: int, n: int, mode: AceMode) -> bool:
    """Whether an ace may lie at either end of the run ``start``..``start + n - 1``.

    Runs start within :func:`_starts`, so outside ``around`` an ace can only be
    the lowest card (value 1) or the highest (value 14): checking the ends is
    checking every card.
    """
    return mode == AceMode.AROUND or (_ace_ok(start, mode) and _ace_ok(start + n - 1, mode))


def _fits(tokens: Tokens, start: int, suit: str, declared: bool) -> bool:
    """Every natural is the card at its place, and every declared joker says so too."""
    for i, t in enumerate(tokens):
        rank = _RANK_AT[start + i]
        if t.is_joker:
            if declared and t.as_rank is not None and (
                    t.as_rank != rank or (t.as_suit is not None and t.as_suit != suit)):
                return False
        elif t.card.rank != rank:
            return False
    return True


def _run_starts(tokens: Tokens, suit: str, mode: AceMode, declared: bool = True) -> list[int]:
    n = len(tokens)
    if n > 13:
        return []
    # the first natural pins the start: one candidate, two when it is an ace (low or high)
    i = 0
    while tokens[i].is_joker:
        i += 1
    first = tokens[i].card
    if mode == AceMode.AROUND:
        candidates = {(first.rank - i - 1) % 13 + 1}
    else:
        candidates = {v - i for v in ((1, 14) if first.rank == ACE else (first.rank,))}
    allowed = _starts(n, mode)
    return sorted([s for s in candidates
                   if s in allowed and _ends_ok(s, n, mode) and _fits(tokens, s, suit, declared)])


def _make_run(tokens: Tokens, start: int, suit: str, rules: RuleSet) -> RunMeld:
    cards = tuple([MeldCard(JOKER, _RANK_AT[start + i], suit) if t.is_joker else t
                   for i, t in enumerate(tokens)])
    return RunMeld(suit, start, cards, run_points(start, tokens, rules))


def _run_suit(tokens: Tokens) -> str | None:
    for t in tokens:
        if not t.is_joker:
            return t.card.suit
        if t.as_suit is not None:
            return t.as_suit
    return None


def read_runs(tokens: Tokens, rules: RuleSet) -> list[RunMeld] | Violation:
    """Every run these cards form (read ascending or descending), or the first rule they break."""
    n = len(tokens)
    naturals = [t.card for t in tokens if not t.is_joker]
    if n < rules.run_min:
        return Violation("run-too-short", {"min": rules.run_min, "count": n})
    if n > rules.effective_run_max:
        return Violation("run-too-long", {"max": rules.effective_run_max, "count": n})
    if len(naturals) < max(1, rules.run_min_naturals):
        return Violation("too-few-naturals", {"min": max(1, rules.run_min_naturals)})
    suit = _run_suit(tokens)
    assert suit is not None
    if any(c.suit != suit for c in naturals):
        return Violation("mixed-suits")
    ranks = [c.rank for c in naturals]
    if len(set(ranks)) != len(ranks):
        dup = next(r for r in ranks if ranks.count(r) > 1)
        return Violation("duplicate-rank", {"rank": RANKS[dup - 1]})
    readings: dict[tuple[int, int], RunMeld] = {}
    for seq in (tokens, tokens[::-1]):
        for s in _run_starts(seq, suit, rules.ace):
            readings.setdefault((s, len(seq)), _make_run(seq, s, suit, rules))
        if readings and len(naturals) > 1:
            break  # two naturals fix the direction: 13 is prime, so no run reads both ways
    if readings:
        return list(readings.values())
    return _diagnose_run(tokens, suit, rules)


def _diagnose_run(tokens: Tokens, suit: str, rules: RuleSet) -> Violation:
    """Why no run reading exists: the most specific broken rule."""
    if rules.ace != AceMode.AROUND:
        for seq in (list(tokens), list(reversed(tokens))):
            for s in _run_starts(seq, suit, AceMode.AROUND):
                last = s + len(seq) - 1
                if last > 14:
                    return Violation("ace-wraparound")
                if s == 1 and rules.ace == AceMode.HIGH:
                    return Violation("ace-not-low")
                if last == 14 and rules.ace == AceMode.LOW:
                    return Violation("ace-not-high")
    for seq in (list(tokens), list(reversed(tokens))):
        for s in _run_starts(seq, suit, rules.ace, declared=False):
            for i, t in enumerate(seq):
                actual = RANKS[rank_of_value(s + i) - 1] + suit
                if t.is_joker and t.as_rank is not None and (
                        t.as_rank != rank_of_value(s + i) or (t.as_suit or suit) != suit):
                    return Violation("joker-mismatch", {"declared": str(t), "actual": "JK=" + actual})
    return Violation("not-in-sequence")


# -- either kind -----------------------------------------------------------------------

def validate(cards: Sequence[str | Card | MeldCard], rules: RuleSet, kind: str | None = None) -> MeldRuling:
    """Rule on a meld. Without ``kind`` every legal reading counts: the one with the
    most points is the meld, the rest are ``alternatives`` (SPEC §2)."""
    tokens = as_tokens(cards)
    if not tokens:
        return MeldRuling(False, violations=(Violation("meld-empty"),))
    # Naturals of two ranks cannot be a set; two naturals of one rank cannot be a run.
    # A reading that cannot be legal is read only if no reading is (to say why not).
    ranks = [t.card.rank for t in tokens if not t.is_joker]
    distinct = len(set(ranks))
    set_reading = read_set(tokens, rules) if kind == SET or (kind is None and distinct <= 1) else None
    run_readings = (read_runs(tokens, rules)
                    if kind == RUN or (kind is None and distinct == len(ranks)) else None)
    legal: list[Meld] = []
    if isinstance(set_reading, SetMeld):
        legal.append(set_reading)
    if isinstance(run_readings, list):
        legal.extend(run_readings)
    if len(legal) == 1:
        return MeldRuling(True, legal[0])
    if legal:
        # most points first; a set before a run; then the lower run
        legal.sort(key=lambda m: (-m.points, m.kind != SET, m.start if isinstance(m, RunMeld) else 0))
        return MeldRuling(True, legal[0], tuple(legal[1:]))
    if kind is None:
        set_reading = set_reading or read_set(tokens, rules)
        run_readings = run_readings or read_runs(tokens, rules)
    return MeldRuling(False, violations=(_why_not(tokens, set_reading, run_readings, kind),))


def _why_not(tokens: Tokens, set_v: object, run_v: object, kind: str | None) -> Violation:
    if kind == SET:
        assert isinstance(set_v, Violation)
        return set_v
    if kind == RUN:
        assert isinstance(run_v, Violation)
        return run_v
    assert isinstance(set_v, Violation) and isinstance(run_v, Violation)
    naturals = [t.card for t in tokens if not t.is_joker]
    same_rank = len({c.rank for c in naturals}) == 1
    same_suit = len({c.suit for c in naturals}) == 1
    if len(naturals) >= 2 and same_rank and not same_suit:
        return set_v
    if len(naturals) >= 2 and same_suit and not same_rank:
        return run_v
    if len(naturals) >= 2 and not same_rank and not same_suit:
        return Violation("not-a-meld")
    # one natural (or identical naturals): the reading whose rule is broken least
    order = ["set-too-short", "run-too-short", "too-few-naturals"]
    if set_v.code in order and run_v.code in order:
        return set_v if order.index(set_v.code) <= order.index(run_v.code) else run_v
    return set_v


# -- closedness ------------------------------------------------------------------------

def is_closed(meld: Meld, rules: RuleSet) -> bool:
    """No joker can ever be released from this meld (False for a meld without jokers)."""
    k = meld.joker_count
    if k == 0:
        return False
    if isinstance(meld, RunMeld):
        return meld.locked or rules.release_run == ReleaseRunMode.NEVER
    if meld.locked or rules.release_set == ReleaseSetMode.NEVER:
        return True
    n = len(meld.cards) - k
    if rules.set_distinct_suits and n == 3 and k == 1:
        return not rules.release_closed_four
    return False


@dataclass(frozen=True, slots=True)
class Placed:
    """A card to build onto a run, optionally at a named end (SPEC §5 ``{"card", "end"}``)."""

    token: MeldCard
    end: str | None = None  # "low" | "high" | None (high when both fit)


@dataclass(frozen=True, slots=True)
class BuildRuling:
    valid: bool
    meld: Meld
    violations: tuple[Violation, ...] = ()


def build(meld: Meld, added: Sequence[Placed], rules: RuleSet, opened: bool = True) -> BuildRuling:
    """Add cards to a meld on the table: a set takes naturals of missing suits (and
    jokers) up to ``set_max``; a run takes cards at either end."""
    if rules.build_requires_opening and not opened:
        return BuildRuling(False, meld, (Violation("build-before-opening"),))
    pending = list(added)
    current = meld
    while pending:
        for p in pending:
            grown = _grow(current, p, rules)
            if grown is not None:
                current = grown
                pending.remove(p)
                break
        else:
            return BuildRuling(False, meld, (_why_not_fit(current, pending[0], rules),))
    return BuildRuling(True, current)


def _grow(meld: Meld, p: Placed, rules: RuleSet) -> Meld | None:
    t = p.token
    if isinstance(meld, SetMeld):
        if len(meld.cards) >= rules.effective_set_max:
            return None
        if t.is_joker:
            if t.as_rank is not None and t.as_rank != meld.rank:
                return None
            return _set_with(meld, MeldCard(JOKER, meld.rank, None), rules)
        if t.card.rank != meld.rank:
            return None
        if rules.set_distinct_suits and t.card.suit in {c.suit for c in meld.naturals}:
            return None
        return _set_with(meld, t, rules)
    # runs: high end first unless told otherwise
    if len(meld.cards) >= rules.effective_run_max:
        return None
    ends = [p.end] if p.end else ["high", "low"]
    for end in ends:
        v = meld.end + 1 if end == "high" else meld.start - 1
        if rules.ace == AceMode.AROUND:
            if v < 1:
                v = 13  # the king below a low ace: values become 13 (K), 14 (A), 15 (2), ...
        elif v < 1 or v > 14 or not _ace_ok(v, rules.ace):
            continue
        rank = rank_of_value(v)
        if t.is_joker:
            if t.as_rank is not None and (t.as_rank != rank or (t.as_suit or meld.suit) != meld.suit):
                continue
            card = MeldCard(JOKER, rank, meld.suit)
        else:
            if t.card.rank != rank or t.card.suit != meld.suit:
                continue
            card = t
        tokens = (*meld.cards, card) if end == "high" else (card, *meld.cards)
        start = meld.start if end == "high" else v
        return RunMeld(meld.suit, start, tuple(tokens), run_points(start, tokens, rules),
                       locked=meld.locked)
    return None


def _set_with(meld: SetMeld, card: MeldCard, rules: RuleSet) -> SetMeld:
    cards = (*meld.cards, card)
    n = sum(1 for c in cards if not c.is_joker)
    return SetMeld(meld.rank, cards, set_points(meld.rank, n, len(cards) - n, rules),
                   locked=meld.locked)


def _why_not_fit(meld: Meld, p: Placed, rules: RuleSet) -> Violation:
    card = str(p.token)
    if isinstance(meld, SetMeld) and len(meld.cards) >= rules.effective_set_max:
        return Violation("set-too-long", {"max": rules.effective_set_max, "count": len(meld.cards) + 1})
    if isinstance(meld, RunMeld) and len(meld.cards) >= rules.effective_run_max:
        return Violation("run-too-long", {"max": rules.effective_run_max, "count": len(meld.cards) + 1})
    if isinstance(meld, SetMeld) and not p.token.is_joker and p.token.card.rank == meld.rank:
        return Violation("duplicate-suit", {"suit": p.token.card.suit})
    return Violation("build-does-not-fit", {"card": card})


# -- joker release ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ReleaseRuling:
    legal: bool
    released: int
    meld: Meld
    violations: tuple[Violation, ...] = ()


def release(meld: Meld, laid: Sequence[Card], rules: RuleSet, opened: bool = True) -> ReleaseRuling:
    """Lay naturals on a table meld to free its jokers (SPEC §3, joker release)."""
    def no(v: Violation) -> ReleaseRuling:
        return ReleaseRuling(False, 0, meld, (v,))

    if rules.release_requires_opening and not opened:
        return no(Violation("release-before-opening"))
    if meld.joker_count == 0:
        return no(Violation("no-joker"))
    if not laid or any(c.is_joker for c in laid):
        return no(Violation("joker-not-releasable", {"reason": "lay natural cards"}))
    if isinstance(meld, RunMeld):
        return _release_run(meld, laid, rules)
    return _release_set(meld, laid, rules)


def _release_run(meld: RunMeld, laid: Sequence[Card], rules: RuleSet) -> ReleaseRuling:
    if rules.release_run == ReleaseRunMode.NEVER:
        return ReleaseRuling(False, 0, meld, (Violation("joker-not-releasable",
                                                        {"reason": "jokers never leave a run"}),))
    if meld.locked:  # closed by its history, as a table meld may say (SPEC §5)
        return ReleaseRuling(False, 0, meld, (Violation("joker-not-releasable",
                                                        {"reason": "this run is closed"}),))
    cards = list(meld.cards)
    for c in laid:
        for i, t in enumerate(cards):
            if t.is_joker and t.as_rank == c.rank and t.as_suit == c.suit:
                cards[i] = MeldCard(c)
                break
        else:
            return ReleaseRuling(False, 0, meld, (Violation("release-wrong-card", {"card": str(c)}),))
    new = RunMeld(meld.suit, meld.start, tuple(cards), run_points(meld.start, cards, rules),
                  locked=meld.locked)
    return ReleaseRuling(True, len(laid), new)


def _release_set(meld: SetMeld, laid: Sequence[Card], rules: RuleSet) -> ReleaseRuling:
    def no(reason: str) -> ReleaseRuling:
        return ReleaseRuling(False, 0, meld, (Violation("joker-not-releasable", {"reason": reason}),))

    if rules.release_set == ReleaseSetMode.NEVER:
        return no("jokers never leave a set")
    if meld.locked:
        return no("this set is closed")
    held = {c.suit for c in meld.naturals}
    for c in laid:
        if c.rank != meld.rank:
            return ReleaseRuling(False, 0, meld, (Violation("release-wrong-card", {"card": str(c)}),))
    suits = [c.suit for c in laid]
    if rules.set_distinct_suits and (len(set(suits)) != len(suits) or held & set(suits)):
        dup = next(s for s in suits if s in held or suits.count(s) > 1)
        return ReleaseRuling(False, 0, meld, (Violation("duplicate-suit", {"suit": dup}),))
    k = meld.joker_count
    n = len(meld.cards) - k
    if rules.release_set == ReleaseSetMode.ONE_MISSING:
        if len(laid) > k:
            return no("more cards than jokers")
        # one natural at a time takes a joker's place; a closed four stays closed
        for _ in laid:
            if n == 3 and k == 1 and not rules.release_closed_four:
                return no("three naturals and a joker make a closed set")
            n, k = n + 1, k - 1
        return ReleaseRuling(True, len(laid), _set_after(meld, laid, locked=False, rules=rules))
    # ReleaseSetMode.ALL_MISSING
    missing = 4 - n if rules.set_distinct_suits else k
    if n == 3 and k == 1:
        if not rules.release_closed_four:
            return no("a 4-card set with a joker is closed")
        return ReleaseRuling(True, 1, _set_after(meld, laid, locked=False, rules=rules))
    if len(laid) == missing and n + missing <= rules.effective_set_max:
        # the naturals of every missing suit, laid together, free every joker
        return ReleaseRuling(True, k, _set_after(meld, laid, locked=False, rules=rules, all_jokers=True))
    if k == 2 and len(laid) == 1:
        return ReleaseRuling(True, 1, _set_after(meld, laid, locked=True, rules=rules))
    return no(f"lay the naturals of all {missing} missing suits together")


def _set_after(meld: SetMeld, laid: Sequence[Card], *, locked: bool, rules: RuleSet,
               all_jokers: bool = False) -> SetMeld:
    cards = list(meld.cards)
    if all_jokers:
        cards = [c for c in cards if not c.is_joker] + [MeldCard(c) for c in laid]
    else:
        for c in laid:
            i = next(i for i, t in enumerate(cards) if t.is_joker)
            cards[i] = MeldCard(c)
    n = sum(1 for c in cards if not c.is_joker)
    return SetMeld(meld.rank, tuple(cards), set_points(meld.rank, n, len(cards) - n, rules),
                   locked=locked)


class InvalidMeld(EngineError):
    """A meld said to lie on the table that is not legal; ``violation`` is the first rule
    it breaks (``params``: its ``violation`` code)."""

    code = "invalid-meld"

    def __init__(self, violation: Violation, field: str | None = None) -> None:
        self.violation = violation
        super().__init__(f"the table meld is not legal: {violation.message()}", field=field,
                         params={"violation": violation.code})


def table_meld(cards: Sequence[str | Card | MeldCard], rules: RuleSet) -> Meld:
    """A meld lying on the table (build and release requests, a turn's table), read like
    :func:`validate`: its cards come from one deck (else :class:`.cards.ImpossibleCards`)
    and it must itself be legal (else :class:`InvalidMeld`).

    >>> from service.engine.rules import CATALOG
    >>> str(table_meld(["7c", "7d", "JK"], CATALOG["kaluki-hunt"]))
    '7c 7d JK=7'
    >>> table_meld(["7c", "8d", "JK"], CATALOG["kaluki-hunt"])  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    InvalidMeld: the table meld is not legal: ...
    """
    tokens = as_tokens(cards)
    check_deck(validate_deck(tokens), rules.decks, rules.jokers)
    ruling = validate(tokens, rules)
    if ruling.meld is None:
        raise InvalidMeld(ruling.violations[0])
    return ruling.meld


# -- which cards come from one deck, per request (SPEC §1 ``impossible-cards``) ----------

def validate_deck(tokens: Tokens) -> list[Card]:
    """A meld ruled on alone (``/melds/validate``, a table meld): its own cards."""
    return [t.card for t in tokens]


def opening_deck(melds: Sequence[Tokens]) -> list[Card]:
    """An opening: every meld's cards together (one player lays them from one hand)."""
    return [t.card for tokens in melds for t in tokens]


def build_deck(meld: Meld, added: Tokens) -> list[Card]:
    """A build: the table meld's cards and the cards added to it."""
    return [c.card for c in meld.cards] + [t.card for t in added]


def release_deck(meld: Meld, laid: Sequence[Card]) -> list[Card]:
    """A joker release: the table meld's cards and the naturals laid on it."""
    return [c.card for c in meld.cards] + list(laid)


@dataclass(frozen=True, slots=True)
class OpeningRuling:
    valid: bool
    points: int
    threshold: int
    melds: tuple[Meld | None, ...]
    violations: tuple[Violation, ...] = field(default_factory=tuple)


def opening(melds: Sequence[Sequence[str | Card | MeldCard]], rules: RuleSet,
            kinds: Sequence[str | None] | None = None) -> OpeningRuling:
    """Rule on a first meld-down: every meld legal, their points together at least
    ``opening_min_points`` (jokers at ``joker_opening_value``)."""
    rulings = [validate(m, rules, (kinds[i] if kinds else None)) for i, m in enumerate(melds)]
    violations = [v.at(meld=i) for i, r in enumerate(rulings) for v in r.violations]
    points = sum(r.meld.points for r in rulings if r.meld is not None)
    threshold = rules.opening_min_points
    if not melds:
        violations.append(Violation("meld-empty"))
    if points < threshold:
        violations.append(Violation("opening-below-threshold", {"points": points, "threshold": threshold}))
    return OpeningRuling(not violations, points, threshold, tuple(r.meld for r in rulings),
                         tuple(violations))
