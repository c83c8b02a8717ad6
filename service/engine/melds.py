"""Melds: sets and runs, with jokers (docs/api.md#melds).

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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar

from .cards import ACE, JOKER, RANKS, SUITS, Card, MeldCard, card_at, check_deck, parse_meld_card
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

def run_card_value(value: int, rules: RuleSet, suit: str | None = None) -> int:
    """A run card's value: an ace at the low end counts ``ace_low_value``; in a contract
    rule set (docs/api.md#contract-rule-sets) an ace counts by its colour wherever it stands
    (``suit``: the run's; ``card_values.ace_red`` for red aces)."""
    rank = rank_of_value(value)
    if rank == ACE:
        if value == 1 and not rules.is_contract:
            return rules.ace_low_value
        return rules.natural_value(ACE, suit)
    return rules.natural_value(rank)


def _joker_points(represented: int, rules: RuleSet) -> int:
    jv = rules.joker_opening_value
    return represented if jv == REPRESENTED else int(jv)


def set_points(rank: int, naturals: int, jokers: int, rules: RuleSet, red: int = 0) -> int:
    """A set's points: ``naturals`` cards of ``rank`` (``red`` of them red: with
    ``card_values.ace_red`` a red ace counts that) and ``jokers`` jokers, each as a
    natural of the rank (a black ace: a set's joker names no suit) or
    ``joker_opening_value``."""
    v = rules.natural_value(rank)
    red_v = rules.natural_value(rank, "h") if red else v
    return (naturals - red) * v + red * red_v + jokers * _joker_points(v, rules)


def _red(cards: Sequence[MeldCard]) -> int:
    return sum(1 for c in cards if not c.is_joker and c.card.suit in ("h", "d"))


def set_points_of(rank: int, cards: Sequence[MeldCard], rules: RuleSet) -> int:
    """:func:`set_points` of these cards."""
    n = sum(1 for c in cards if not c.is_joker)
    return set_points(rank, n, len(cards) - n, rules, _red(cards))


def run_points(start: int, tokens: Tokens, rules: RuleSet, suit: str | None = None) -> int:
    """A run's points from its lowest value ``start``; ``suit`` (default: the tokens')
    decides an ace's colour."""
    total = 0
    represented = rules.joker_opening_value == REPRESENTED
    if suit is None and rules.card_values.ace_red is not None:
        suit = _run_suit(tokens)
    for i, t in enumerate(tokens):
        v = run_card_value(start + i, rules, suit)
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
    return SetMeld(rank, cards, set_points_of(rank, cards, rules))


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
    return RunMeld(suit, start, cards, run_points(start, tokens, rules, suit))


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
    if not rules.run_jokers_adjacent and _adjacent_jokers(tokens):
        return Violation("adjacent-jokers")
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


def _adjacent_jokers(tokens: Sequence[MeldCard]) -> bool:
    """Two jokers side by side (a run's cards are in sequence order)."""
    return any(a.is_joker and b.is_joker for a, b in zip(tokens, tokens[1:], strict=False))


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
    most points is the meld, the rest are ``alternatives`` (docs/api.md#melds)."""
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
    """No joker can ever be released from this meld as it lies (False for a meld without
    jokers): :func:`release` itself, the rule that rules on a release, refuses every lay of
    naturals that could free one (issue 19; docs/api.md#melds ``closed``,
    docs/api.md#joker-release).

    The lays asked are every lay that could count, up to the suits' symmetry: a run's joker
    can only be freed by the card it stands for; a set's by 1 to ``max(4, jokers)``
    naturals of its rank (a release rule looks at how many are laid, and with
    ``set_distinct_suits`` at whether their suits are missing ones, never at which missing
    suits they are), each lay as the deck allows it.
    """
    if meld.joker_count == 0:
        return False
    # what a release reads of the meld: its kind, the suits of its naturals, its jokers,
    # whether its history closed it (never its rank, nor which card a run's joker is)
    key = ((meld.kind, meld.joker_count, meld.locked) if isinstance(meld, RunMeld) else
           (meld.kind, meld.joker_count, meld.locked, tuple(sorted(c.suit for c in meld.naturals))))
    entry = _CLOSED.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_CLOSED) > 4096:
            _CLOSED.clear()
        entry = _CLOSED[id(rules)] = (rules, {})
    known = entry[1].get(key)
    if known is None:
        known = entry[1][key] = not any(release(meld, laid, rules).legal
                                        for laid in _release_lays(meld, rules))
    return known


_CLOSED: dict[int, tuple[RuleSet, dict[tuple[object, ...], bool]]] = {}
""":func:`is_closed`'s answers per rule set (by identity) and per what a release reads."""


def _release_lays(meld: Meld, rules: RuleSet) -> Iterator[list[Card]]:
    if isinstance(meld, RunMeld):
        joker = next(c for c in meld.cards if c.is_joker)
        assert joker.as_rank is not None
        yield [_card(joker.as_rank, joker.as_suit or meld.suit)]
        return
    held = [c.suit for c in meld.naturals]
    if rules.set_distinct_suits:
        missing = [s for s in SUITS if s not in held]
        for k in range(1, len(missing) + 1):
            yield [_card(meld.rank, s) for s in missing[:k]]
        return
    # repeated suits allowed: the copies left in the deck, most plentiful suit first
    left = sorted(((rules.decks - held.count(s), s) for s in SUITS), key=lambda x: -x[0])
    pool = [s for count, s in left for _ in range(max(count, 0))]
    for k in range(1, min(max(4, meld.joker_count), len(pool)) + 1):
        yield [_card(meld.rank, s) for s in pool[:k]]


def _card(rank: int, suit: str) -> Card:
    return card_at(SUITS.index(suit) * 13 + rank - 1)


class RunEnd(StrEnum):
    """Which end of a run a built card (or a shifted joker) goes to
    (docs/api.md#rulings-200-with-valid--legal)."""

    LOW = "low"
    HIGH = "high"


RUN_ENDS = tuple(RunEnd)


@dataclass(frozen=True, slots=True)
class Placed:
    """A card to build onto a run, optionally at a named end
    (docs/api.md#rulings-200-with-valid--legal: ``{"card", "end"}``); ``end`` None: high
    when the card fits both ends."""

    token: MeldCard
    end: RunEnd | None = None

    def __post_init__(self) -> None:
        if self.end is not None and type(self.end) is not RunEnd:
            object.__setattr__(self, "end", RunEnd(self.end))  # "low" -> RunEnd.LOW


@dataclass(frozen=True, slots=True)
class BuildRuling:
    valid: bool
    meld: Meld
    violations: tuple[Violation, ...] = ()


def build(meld: Meld, added: Sequence[Placed], rules: RuleSet, opened: bool = True) -> BuildRuling:
    """Add cards to a meld on the table: a set takes naturals of missing suits (and
    jokers) up to ``set_max``; a run takes cards at either end
    (docs/api.md#rulings-200-with-valid--legal).

    The order the cards are listed in never changes the ruling or the resulting meld
    (issue 19): a run's placements are searched by :func:`_build_run` (one card by
    :func:`_build_run_one`, which answers the same without the search), a set's cards
    are taken in card order (:func:`_card_order`).
    """
    if rules.build_requires_opening and not opened:
        return BuildRuling(False, meld, (Violation("build-before-opening"),))
    if isinstance(meld, RunMeld):
        if len(added) == 1:
            return _build_run_one(meld, added[0], rules)
        return _build_run(meld, added, rules)
    return _build_set(meld, added, rules)


def _build_set(meld: SetMeld, added: Sequence[Placed], rules: RuleSet) -> BuildRuling:
    pending = sorted(added, key=_card_order)
    current: SetMeld = meld
    for p in pending:
        grown = _grow_set(current, p, rules)
        if grown is None:
            return BuildRuling(False, meld, (_why_not_fit(current, p, rules),))
        current = grown
    return BuildRuling(True, current)


def _card_order(p: Placed) -> tuple[int, int, int, str, str]:
    """A build's cards in card order (naturals by suit then rank, jokers last): the
    order a set takes them in and the order a refusal names them in."""
    t = p.token
    return (int(t.is_joker), t.card.index, t.as_rank or 0, t.as_suit or "", p.end or "")


def _grow_set(meld: SetMeld, p: Placed, rules: RuleSet) -> SetMeld | None:
    t = p.token
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


# -- building on a run: the placement search ---------------------------------------------
#
# Cards built on a run lie at its ends, so the run they make is the table run grown by
# ``a`` cards below it and ``b`` above (a *window*). In a window every place has one
# rank, so each natural (and each joker that names its card) has at most one place in
# it, and the undeclared jokers fill the places left: a window decides the resulting
# run. Which windows can the cards reach, taken one at a time in some order, each going
# high when it fits both ends (docs/api.md#rulings-200-with-valid--legal)? A card goes low only when
# at that moment it does not fit high: for an undeclared joker only once the high end is complete
# and can grow no further (Q-K-A, say); for a natural (or a declared joker) only while the
# place above the high end is not its rank (it can be, once: the ace above a K-high end
# is the ace below a 2). :func:`_reachable` decides that for a window in one pass.
# The search tries the windows of ``a + b`` cards, most cards first, stopping at the first
# size with a legal one: at most (r + 1)(r + 2) / 2 windows for room for r cards, so 78
# (a 2-card run, room 11); each is filled in time linear in its places, and windows that
# need more jokers than the build has are skipped unfilled. No orders are enumerated
# (bench/build_bench.py).

def _build_run(meld: RunMeld, added: Sequence[Placed], rules: RuleSet) -> BuildRuling:
    n = len(added)
    most = min(n, max(rules.effective_run_max - len(meld.cards), 0))
    pool = _pool(added, meld.suit)
    # the jokers the first k places below (above) the run need, for every k: a window
    # needing more jokers than the build has is not tried
    jokers = sum(len(v) for k, v in pool.items() if k[0] == "j")
    need: dict[RunEnd, list[int]] = {side: [0] for side in RUN_ENDS}
    lo, hi = meld.start, meld.end
    for k in range(1, most + 1):
        for side, v in ((RunEnd.LOW, lo - k), (RunEnd.HIGH, hi + k)):
            rank = rank_of_value(v)
            named = (("n", rank, None) in pool or ("n", rank, side) in pool
                     or ("d", rank, None) in pool or ("d", rank, side) in pool)
            need[side].append(need[side][-1] + (not named))
    for total in range(most, -1, -1):
        found = [w for b in range(total, -1, -1)
                 if need[RunEnd.LOW][total - b] + need[RunEnd.HIGH][b] <= jokers
                 and (w := _window(meld, added, pool, total - b, b, rules)) is not None]
        # the most points, then the cards placed highest (docs/api.md#rulings-200-with-valid--legal;
        # issue 19)
        found.sort(key=lambda w: (-w[0].points, -w[0].end))
        for grown, used in found:
            if not _legal_run(grown, rules):
                continue
            if total == n:
                return BuildRuling(True, grown)
            left = sorted((p for i, p in enumerate(added) if i not in used), key=_card_order)
            return BuildRuling(False, meld, (_why_not_fit(grown, left[0], rules),))
    return BuildRuling(False, meld, (_why_not_fit(meld, sorted(added, key=_card_order)[0], rules),))


_Pool = dict[tuple[str, int, str | None], list[int]]
"""A build's cards that could lie in the run, by what they are (``"n"`` a natural of the
run's suit, ``"d"`` a joker naming a card of it, ``"j"`` any other joker), their rank (0
for ``"j"``) and the end they are written for; each list in card order."""


def _pool(added: Sequence[Placed], suit: str) -> _Pool:
    pool: _Pool = {}
    for i in sorted(range(len(added)), key=lambda i: _card_order(added[i])):
        p = added[i]
        t = p.token
        if not t.is_joker:
            if t.card.suit != suit:
                continue
            key = ("n", t.card.rank, p.end)
        elif t.as_rank is not None:
            if (t.as_suit or suit) != suit:
                continue
            key = ("d", t.as_rank, p.end)
        else:
            key = ("j", 0, p.end)
        pool.setdefault(key, []).append(i)
    return pool


def _place_ok(v: int, mode: AceMode) -> bool:
    """Whether run value ``v`` is a place a run may reach under ace ``mode``."""
    return mode == AceMode.AROUND or (1 <= v <= 14 and _ace_ok(v, mode))


def _window(meld: RunMeld, added: Sequence[Placed], pool: _Pool, a: int, b: int, rules: RuleSet
            ) -> tuple[RunMeld, set[int]] | None:
    """The run ``meld`` grown by ``a`` cards below and ``b`` above, filled from ``added``
    (for each place its natural, else a joker naming that card, else a joker written for
    that end, else any joker; a card written with an ``end`` only at that end), if the
    cards fill it and can reach it in some order; with the indices of the cards it uses."""
    mode = rules.ace
    lo, hi = meld.start, meld.end
    if not (_place_ok(lo - a, mode) and _place_ok(hi + b, mode)):
        return None
    suit = meld.suit
    taken: dict[tuple[str, int, str | None], int] = {}  # how many of each pool list are used
    low: list[tuple[Placed, int]] = []  # (card, value), from the table run outwards
    high: list[tuple[Placed, int]] = []
    used: set[int] = set()
    for side, values, out in ((RunEnd.LOW, range(lo - 1, lo - a - 1, -1), low),
                              (RunEnd.HIGH, range(hi + 1, hi + b + 1), high)):
        for v in values:
            rank = rank_of_value(v)
            for key in (("n", rank, None), ("n", rank, side), ("d", rank, None),
                        ("d", rank, side), ("j", 0, side), ("j", 0, None)):
                cards = pool.get(key)
                k = taken.get(key, 0)
                if cards is not None and k < len(cards):
                    taken[key] = k + 1
                    used.add(cards[k])
                    out.append((added[cards[k]], v))
                    break
            else:
                return None
    top_joker = [meld.cards[-1].is_joker] + [p.token.is_joker for p, _v in high]
    if not _reachable(low, hi, b, mode, top_joker, not rules.run_jokers_adjacent):
        return None
    tokens = [MeldCard(JOKER, rank_of_value(v), suit) if p.token.is_joker else p.token
              for p, v in reversed(low)]
    tokens += list(meld.cards)
    tokens += [MeldCard(JOKER, rank_of_value(v), suit) if p.token.is_joker else p.token
               for p, v in high]
    start = lo - a
    if mode == AceMode.AROUND:
        start = rank_of_value(start)  # the king below a low ace: values 13 (K), 14 (A), 15 (2)...
    return RunMeld(suit, start, tuple(tokens), run_points(start, tokens, rules),
                   locked=meld.locked), used


def _reachable(low: Sequence[tuple[Placed, int]], hi: int, b: int, mode: AceMode,
               top_joker: Sequence[bool] = (), jokers_apart: bool = False) -> bool:
    """Whether the cards below the run (from the table run outwards) can each be laid
    at the low end at a moment it does not fit the high end (else it goes high,
    docs/api.md#rulings-200-with-valid--legal), the ``b`` cards above being laid in between
    (they always fit high). ``j`` counts the high places filled when the next low card is
    laid: it never goes down,
    so the earliest moment that works for each card is the one to take.
    ``top_joker[j]``: whether the run's top card is a joker once ``j`` high places are
    filled; with ``jokers_apart`` (``run_jokers_adjacent`` false,
    docs/api.md#contract-rule-sets) a joker does not fit above a joker, so it goes low then."""
    j = 0
    for p, _v in low:
        if p.end is RunEnd.LOW:
            continue  # written low: it goes low whenever it fits there
        while j <= b and _fits_high(p.token, hi + j + 1, mode) and not (
                jokers_apart and p.token.is_joker and j < len(top_joker) and top_joker[j]):
            j += 1
        if j > b:
            return False
    return True


def _fits_high(t: MeldCard, v: int, mode: AceMode) -> bool:
    """Whether a card of the run's suit fits the place of value ``v`` above its high end."""
    if not _place_ok(v, mode):
        return False
    rank = rank_of_value(v)
    if t.is_joker:
        return t.as_rank is None or t.as_rank == rank
    return t.card.rank == rank


def _legal_run(run: RunMeld, rules: RuleSet) -> bool:
    """The grown run, read as a meld, is this run: every rule of runs holds for it."""
    readings = read_runs(run.cards, rules)
    return isinstance(readings, list) and any(
        r.start == run.start and r.cards == run.cards for r in readings)


# -- one card on a run: the search's answer, directly -------------------------------------
#
# One card can only make the windows (0, 1) (it goes high) and (1, 0) (it goes low); with
# no room, (0, 0), which never lays it. :func:`_build_run_one` fills those two windows the
# way :func:`_window` fills them for a one-card pool, keeps the ones :func:`_reachable`
# allows, sorts them by the same key and returns the first that :func:`_reads_as_run`
# (:func:`_legal_run` without reading the cards as a new meld) finds legal. A refusal is
# :func:`_why_not_fit` of the table run and the card, as :func:`_build_run`'s is: the
# (0, 0) window it may name instead has the table run's cards, and only their number and
# the run's kind count there. tests/engine/test_build_fast.py checks it against the search.

def _build_run_one(meld: RunMeld, p: Placed, rules: RuleSet) -> BuildRuling:
    """:func:`_build_run` of the one card ``p``, without the window search."""
    cards = meld.cards
    if len(cards) >= rules.effective_run_max:  # no room: only the (0, 0) window
        return BuildRuling(False, meld, (_why_not_fit(meld, p, rules),))
    t, suit, mode = p.token, meld.suit, rules.ace
    # the card as :func:`_pool` keys it: a card of another suit is not in the pool at all
    if t.is_joker:
        if t.as_rank is not None and (t.as_suit or suit) != suit:
            return BuildRuling(False, meld, (_why_not_fit(meld, p, rules),))
        want = t.as_rank  # None: a joker that fits any place
    else:
        if t.card.suit != suit:
            return BuildRuling(False, meld, (_why_not_fit(meld, p, rules),))
        want = t.card.rank
    lo, hi = meld.start, meld.end
    found: list[RunMeld] = []
    # window (0, 1): the place above the run, for a card not written low
    if p.end is not RunEnd.LOW and _place_ok(lo, mode) and _place_ok(hi + 1, mode):
        rank = rank_of_value(hi + 1)
        if want is None or want == rank:
            tokens = (*cards, MeldCard(JOKER, rank, suit) if t.is_joker else t)
            start = rank_of_value(lo) if mode == AceMode.AROUND else lo
            found.append(RunMeld(suit, start, tokens, run_points(start, tokens, rules),
                                 locked=meld.locked))
    # window (1, 0): the place below, for a card not written high, and reachable: written
    # low, or it does not fit high (:func:`_reachable` with no cards above)
    if p.end is not RunEnd.HIGH and _place_ok(lo - 1, mode) and _place_ok(hi, mode):
        rank = rank_of_value(lo - 1)
        if (want is None or want == rank) and (p.end is RunEnd.LOW or not (
                _fits_high(t, hi + 1, mode)
                and not (not rules.run_jokers_adjacent and t.is_joker and cards[-1].is_joker))):
            tokens = (MeldCard(JOKER, rank, suit) if t.is_joker else t, *cards)
            start = lo - 1
            if mode == AceMode.AROUND:
                start = rank_of_value(start)
            found.append(RunMeld(suit, start, tokens, run_points(start, tokens, rules),
                                 locked=meld.locked))
    if len(found) > 1:
        found.sort(key=lambda w: (-w.points, -w.end))
    for grown in found:
        if _reads_as_run(grown, rules):
            return BuildRuling(True, grown)
    return BuildRuling(False, meld, (_why_not_fit(meld, p, rules),))


def _reads_as_run(run: RunMeld, rules: RuleSet) -> bool:
    """:func:`_legal_run`, checked place by place instead of reading the cards as a meld.

    :func:`read_runs` reads ``run.cards`` as this run exactly when: their number is within
    ``run_min``..``effective_run_max`` (at most 13); they hold enough naturals; ``start``
    is a start :func:`_starts` allows with the ends :func:`_ends_ok` allows; every card is
    the one at its place, a natural of the suit :func:`_run_suit` reads (so of one suit,
    and with no rank twice: 13 places have 13 ranks), a joker exactly as
    :func:`_make_run` writes it (``JK=`` its place's card, which :func:`_fits` accepts);
    and with ``run_jokers_adjacent`` false no two jokers side by side. The start the first
    natural gives is then ``start``; the reading backwards cannot equal the cards (it
    would need the same card at mirrored places, two places 1..12 apart with one rank).
    """
    cards = run.cards
    n = len(cards)
    if n < rules.run_min or n > rules.effective_run_max or n > 13:
        return False
    s, mode = run.start, rules.ace
    if s not in _starts(n, mode) or not _ends_ok(s, n, mode):
        return False
    suit = _run_suit(cards)
    apart = not rules.run_jokers_adjacent
    naturals = 0
    joker_before = False
    for i, c in enumerate(cards):
        rank = _RANK_AT[s + i]
        if c.is_joker:
            if (c.as_rank != rank or c.as_suit != suit or c.card != JOKER
                    or (apart and joker_before)):
                return False
            joker_before = True
        else:
            if c.card.rank != rank or c.card.suit != suit:
                return False
            naturals += 1
            joker_before = False
    return naturals >= max(1, rules.run_min_naturals)


def _set_with(meld: SetMeld, card: MeldCard, rules: RuleSet) -> SetMeld:
    cards = (*meld.cards, card)
    return SetMeld(meld.rank, cards, set_points_of(meld.rank, cards, rules), locked=meld.locked)


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
    """Lay naturals on a table meld to free its jokers (docs/api.md#joker-release)."""
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
    # closed by its history, as a table meld may say (docs/api.md#checking-one-turn)
    if meld.locked:
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
        if len(laid) > k:  # one natural takes the joker's place; a second would be a build
            return no("more cards than jokers")
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
    return SetMeld(meld.rank, tuple(cards), set_points_of(meld.rank, cards, rules), locked=locked)


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
    check_deck(validate_deck(tokens), *rules.deck_for(None))
    ruling = validate(tokens, rules)
    if ruling.meld is None:
        raise InvalidMeld(ruling.violations[0])
    return ruling.meld


# -- which cards come from one deck, per request (docs/api.md#cards ``impossible-cards``) ----------

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
