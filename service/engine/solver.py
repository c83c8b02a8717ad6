"""Hand analysis: the best way to lay out a hand, found exactly (SPEC §5, ``/hands/analyze``).

The solver looks at the cards a player holds and answers four questions, never by guessing:

* **The arrangement.** Melds laid from the hand and the cards left over (the
  *deadwood*), chosen so the deadwood is worth as little as possible (penalty
  values, :func:`.scoring.card_value`). Among equally cheap arrangements the one
  that melds more cards wins, then the one whose melds are worth more points;
  anything still tied is settled by a fixed order, so the same cards always get
  the same answer whatever order they were given in.
* **Can the player open?** Some legal meld can be laid, and some set of disjoint
  melds from the hand reaches ``opening_min_points`` (meld points as the engine
  counts them: jokers at ``joker_opening_value``, a low ace at ``ace_low_value``).
  With no threshold (0) one legal meld is enough.
* **Can the player go out?** The player can end the hand with these cards: meld
  every card but one and discard it, or — when ``final_discard`` is
  ``optional`` — meld every card. A player who has not opened lays these melds
  as their opening, so they must also reach the threshold (and there must be at
  least one meld); a player who has opened needs no threshold.
* **Can the player win specially** (Kaluki, Hunt, Kalookie)? The same as going
  out, with melds that reach the opening threshold whatever ``opened`` says:
  laying every card in the turn of one's first meld.

Only melds formed from the hand count: building on melds already on the table is
outside this analysis (the table is not part of the request).

>>> from service.engine.cards import parse_cards
>>> from service.engine.rules import CATALOG
>>> a = analyze(parse_cards(["7h", "8h", "9h", "Kc", "Kd", "JK", "2s"]), CATALOG["kaluki-hunt"])
>>> [str(m) for m in a.melds], [str(c) for c in a.deadwood], a.deadwood_value
(['Kc Kd JK=K', '7h 8h 9h'], ['2s'], 2)
>>> a.can_open, a.can_go_out, a.can_special
(True, True, True)

How it works. The hand becomes a vector of card counts packed into one integer
(five bits per distinct card, the jokers in the top field). Every meld the hand
can form is listed once per distinct physical card multiset, with its best
reading. A memoised search then takes the lowest card still held and tries
every way to use it: as deadwood, or in each meld whose lowest card it is. Each
remaining-cards vector is solved once, for all four questions at the same time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from .cards import JOKER, SUITS, Card, MeldCard, card_at, check_deck
from .melds import RUN, SET, Meld, rank_of_value, run_card_value, run_points, set_points
from .rules import RuleSet
from .scoring import card_value

__all__ = ["Analysis", "analyze"]

_W = 5
"""Bits per card-count field: four for the count, one guard bit above them."""
_GUARD = 1 << (_W - 1)
_NEG = -(1 << 40)
"""Points of an impossible layout: far below anything a hand can score."""
_K_DEAD = 1 << 40
_K_MELDED = 1 << 20
"""Weights that fold (deadwood, cards melded, points) into one integer to minimise."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a hand can do (SPEC §5, ``POST /v1/hands/analyze``).

    ``melds`` and ``deadwood`` are the best arrangement (see the module docs);
    ``deadwood_value`` is the deadwood's penalty value and ``melded_count`` the
    number of cards in ``melds``. ``points`` is what ``melds`` are worth toward an
    opening and ``opening_points`` the most any set of disjoint melds from the
    hand is worth (0 when no meld can be formed); ``can_open`` compares it to
    the threshold.
    """

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    deadwood_value: int
    melded_count: int
    can_open: bool
    can_go_out: bool
    can_special: bool
    points: int = 0
    opening_points: int = 0


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A meld the hand can form: which cards it takes and how it lies."""

    naturals: tuple[int, ...]  # positions into the hand's distinct natural cards, ascending
    jokers: int
    points: int
    kind: str
    rank: int = 0  # sets
    suit: str = ""  # runs
    start: int = 0  # runs: value of the lowest card
    joker_values: tuple[int, ...] = ()  # runs: the values the jokers stand at


def analyze(cards: Sequence[Card], rules: RuleSet, opened: bool = False) -> Analysis:
    """Analyse a hand exactly under ``rules``; ``opened`` says whether the player has
    already made their opening (it matters only to :attr:`Analysis.can_go_out`).

    Raises :class:`.cards.ImpossibleCards` when the cards cannot come from one deck.
    """
    hand = sorted(cards, key=lambda c: c.index)
    check_deck(hand, rules.decks, rules.jokers)
    counts = Counter(c.index for c in hand if not c.is_joker)
    jokers = len(hand) - sum(counts.values())
    types = sorted(counts)
    m = len(types)
    unit = [1 << (_W * i) for i in range(m + 1)]
    junit = unit[m]
    jshift = _W * m
    natmask = junit - 1
    guards = sum(_GUARD << (_W * i) for i in range(m + 1))
    state0 = sum(counts[t] * unit[i] for i, t in enumerate(types)) + jokers * junit

    found = _candidates(types, counts, jokers, rules)
    buckets: list[list[tuple[int, int, int, _Candidate]]] = [[] for _ in range(m)]
    for cand in found:
        mask = sum(unit[p] for p in cand.naturals) + cand.jokers * junit
        size = len(cand.naturals) + cand.jokers
        buckets[cand.naturals[0]].append((mask, -(size * _K_MELDED + cand.points),
                                          cand.points, cand))
    dead_cost = [card_value(card_at(t), rules) * _K_DEAD for t in types]
    joker_cost = card_value(JOKER, rules) * _K_DEAD

    memo: dict[int, tuple[int, int, int, int, int]] = {}

    def solve(state: int) -> tuple[int, int, int, int, int]:
        """(cost, best points, exact-partition points, one-left-over points, choice)."""
        got = memo.get(state)
        if got is not None:
            return got
        nat = state & natmask
        if not nat:
            j = state >> jshift
            res = (j * joker_cost, 0, 0 if j == 0 else _NEG, 0 if j == 1 else _NEG, -1)
            memo[state] = res
            return res
        p = ((nat & -nat).bit_length() - 1) // _W
        sub = solve(state - unit[p])
        best, most, exact, one_left, choice = sub[0] + dead_cost[p], sub[1], _NEG, sub[2], -1
        g = state | guards
        for i, (mask, cost, pts, _) in enumerate(buckets[p]):
            if (g - mask) & guards != guards:
                continue
            sub = solve(state - mask)
            c = sub[0] + cost
            if c < best:
                best, choice = c, i
            if sub[1] + pts > most:
                most = sub[1] + pts
            if sub[2] + pts > exact:
                exact = sub[2] + pts
            if sub[3] + pts > one_left:
                one_left = sub[3] + pts
        res = (best, most, exact, one_left, choice)
        memo[state] = res
        return res

    _, most, exact, one_left, _ = solve(state0)

    # walk the choices back into melds and deadwood
    laid: list[Meld] = []
    deadwood: list[Card] = []
    state = state0
    while state & natmask:
        nat = state & natmask
        p = ((nat & -nat).bit_length() - 1) // _W
        choice = memo[state][4]
        if choice < 0:
            deadwood.append(card_at(types[p]))
            state -= unit[p]
        else:
            mask, _, _, cand = buckets[p][choice]
            laid.append(_meld(cand, types, rules))
            state -= mask
    deadwood.extend([JOKER] * (state >> jshift))

    threshold = rules.opening_min_points
    n = len(hand)
    melded = sum(len(x.cards) for x in laid)
    exact_ok = rules.final_discard == "optional" and n >= 1 and exact >= 0
    special = (rules.final_discard == "optional" and n >= 1 and exact >= threshold) or (
        n >= 2 and one_left >= threshold)
    go_out = (exact_ok or one_left >= 0) if opened else special
    return Analysis(
        melds=tuple(laid),
        deadwood=tuple(deadwood),
        deadwood_value=sum(card_value(c, rules) for c in deadwood),
        melded_count=melded,
        can_open=melded > 0 and most >= threshold,
        can_go_out=go_out,
        can_special=special,
        points=sum(x.points for x in laid),
        opening_points=most if melded > 0 else 0,
    )


# -- the melds a hand can form -------------------------------------------------------------

def _candidates(types: list[int], counts: Counter[int], jokers: int,
                rules: RuleSet) -> list[_Candidate]:
    """Every meld these cards can form, once per physical card multiset (the natural
    cards and how many jokers), in the reading worth the most points (a set before a
    run, then the lower run, on equal points, as :func:`.melds.validate` prefers)."""
    found: dict[tuple[tuple[int, ...], int], _Candidate] = {}

    def record(c: _Candidate) -> None:
        key = (c.naturals, c.jokers)
        old = found.get(key)
        if old is None or c.points > old.points:
            found[key] = c

    _sets(types, counts, jokers, rules, record)
    for suit in SUITS:
        _runs(suit, types, jokers, rules, record)
    return list(found.values())


def _sets(types: list[int], counts: Counter[int], jokers: int, rules: RuleSet,
          record: Callable[[_Candidate], None]) -> None:
    """Sets: naturals of one rank (one of each suit when ``set_distinct_suits``),
    topped up with jokers, ``set_min``..``set_max`` cards, enough naturals."""
    by_rank: dict[int, list[int]] = {}
    for p, t in enumerate(types):
        by_rank.setdefault(t % 13 + 1, []).append(p)
    least = max(1, rules.set_min_naturals)
    most = rules.effective_set_max
    for rank, positions in by_rank.items():
        choices: list[tuple[int, ...]] = []
        if rules.set_distinct_suits:
            for n in range(1, len(positions) + 1):
                choices.extend(combinations(positions, n))
        else:
            for mult in product(*(range(counts[types[p]] + 1) for p in positions)):
                chosen = tuple(p for p, k in zip(positions, mult, strict=True) for _ in range(k))
                if chosen:
                    choices.append(chosen)
        for chosen in choices:
            n = len(chosen)
            if n < least or n > most:
                continue
            for k in range(max(0, rules.set_min - n), min(jokers, most - n) + 1):
                record(_Candidate(chosen, k, set_points(rank, n, k, rules), SET, rank=rank))


def _value_line(rules: RuleSet) -> tuple[int, int, int]:
    """(lowest value, highest value, highest start) a run may use under ``rules.ace``."""
    if rules.ace == "around":
        return 1, 13 + rules.effective_run_max - 1, 13
    if rules.ace == "high":
        return 2, 14, 14
    if rules.ace == "low":
        return 1, 13, 13
    return 1, 14, 14


def _runs(suit: str, types: list[int], jokers: int, rules: RuleSet,
          record: Callable[[_Candidate], None]) -> None:
    """Runs in ``suit``: a lowest and a highest natural, the naturals between them
    that the run keeps, jokers for every value it does not (held or not), and
    any spare jokers beyond either end, as far as the ace rule allows."""
    lo, hi, top_start = _value_line(rules)
    held = {t % 13 + 1: p for p, t in enumerate(types) if SUITS[t // 13] == suit}
    if not held:
        return
    longest = rules.effective_run_max
    shortest = rules.run_min
    least = max(1, rules.run_min_naturals)
    jv = rules.joker_opening_value
    at = [-1] * (hi + 2)
    prefix_v = [0] * (hi + 2)  # prefix sums of run values (value v at index v)
    prefix_d = [0] * (hi + 2)  # prefix sums of (joker points - run value)
    for v in range(lo, hi + 1):
        at[v] = held.get(rank_of_value(v), -1)
        rv = run_card_value(v, rules)
        d = 0 if jv == "represented" else int(jv) - rv
        prefix_v[v + 1] = prefix_v[v] + rv
        prefix_d[v + 1] = prefix_d[v] + d

    def diff(v: int) -> int:
        return prefix_d[v + 1] - prefix_d[v]

    for a in range(lo, hi + 1):
        if at[a] < 0 or a - jokers > top_start:
            continue
        inner_held: list[int] = []
        inner_missing: list[int] = []
        for b in range(a, min(hi, a + longest - 1) + 1):
            if b - 1 > a:
                (inner_held if at[b - 1] >= 0 else inner_missing).append(b - 1)
            if len(inner_missing) > jokers:
                break
            if at[b] < 0:
                continue
            width = b - a + 1
            miss_d = sum(diff(v) for v in inner_missing)
            for e in range(jokers - len(inner_missing) + 1):
                for skipped in combinations(inner_held, e):
                    holes = len(inner_missing) + e
                    if width - holes < least:
                        continue
                    kept = [a] + [v for v in inner_held if v not in skipped] + ([b] if b > a else [])
                    naturals = tuple(sorted(at[v] for v in kept))
                    hole_d = miss_d + sum(diff(v) for v in skipped)
                    for extra in range(jokers - holes + 1):
                        length = width + extra
                        if length > longest:
                            break
                        if length < shortest:
                            continue
                        best: tuple[int, int] | None = None
                        for below in range(extra + 1):
                            s, end = a - below, b + extra - below
                            if s < lo or s > top_start or end > hi:
                                continue
                            pts = (prefix_v[end + 1] - prefix_v[s] + hole_d
                                   + prefix_d[a] - prefix_d[s] + prefix_d[end + 1] - prefix_d[b + 1])
                            if best is None or pts > best[0]:
                                best = (pts, s)
                        if best is None:
                            continue
                        s = best[1]
                        end = s + length - 1
                        joker_values = tuple(sorted(
                            [*inner_missing, *skipped, *range(s, a), *range(b + 1, end + 1)]))
                        record(_Candidate(naturals, holes + extra, best[0], RUN, suit=suit,
                                          start=s, joker_values=joker_values))


def _meld(c: _Candidate, types: list[int], rules: RuleSet) -> Meld:
    """The candidate laid out as :func:`.melds.validate` reads it, jokers declared."""
    if c.kind == SET:
        cards = tuple(MeldCard(card_at(types[p])) for p in c.naturals) + (
            MeldCard(JOKER, c.rank, None),) * c.jokers
        n = len(c.naturals)
        return Meld(SET, cards, rank=c.rank, points=set_points(c.rank, n, c.jokers, rules))
    length = len(c.naturals) + c.jokers
    tokens = tuple(
        MeldCard(JOKER, rank_of_value(v), c.suit) if v in c.joker_values
        else MeldCard(Card(rank_of_value(v), c.suit))
        for v in range(c.start, c.start + length))
    return Meld(RUN, tokens, suit=c.suit, start=c.start, points=run_points(c.start, tokens, rules))
