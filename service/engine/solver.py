"""Hand analysis: the best way to lay out a hand, found exactly (docs/api.md#analyzing-a-hand,
``/hands/analyze``).

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
* **Can the player win specially** (Kaluki, Hunt, Kalookie)? Only a player who
  has not opened: a special win lays every card in the turn of one's first meld
  (docs/api.md#special-wins, docs/api.md#analyzing-a-hand), so it is the same as going
  out with melds that also reach the opening threshold. A player who has opened (``opened=True``)
  has made their first meld already: ``can_special`` is false, and going out needs no threshold.
  With ``opened=False`` going out *is* the first meld, so ``can_go_out`` equals
  ``can_special``.

Only melds formed from the hand count: building on melds already on the table is
outside this analysis (the table is not part of the request). A player who has
opened and holds a single card can go out by discarding it; one who has not
cannot (an opening needs a meld). An empty hand can do nothing.

>>> from service.engine.cards import parse_cards
>>> from service.engine.rules import CATALOG
>>> a = analyze(parse_cards(["7h", "8h", "9h", "Kc", "Kd", "JK", "2s"]), CATALOG["kaluki-hunt"])
>>> [str(m) for m in a.melds], [str(c) for c in a.deadwood], a.deadwood_value
(['7h 8h 9h', 'Kc Kd JK=K'], ['2s'], 2)
>>> a.can_open, a.can_go_out, a.can_special
(True, True, True)

How it works. The hand becomes a vector of card counts packed into one integer
(five bits per distinct card, ordered by rank then suit, the jokers in the top
field). Every meld the hand can form is listed once per physical card multiset
(which naturals, how many jokers), in its best reading; runs long enough to be
cut into two legal runs are left out, because the two halves meld the same
cards for at least the same points (the answer joins such halves back into one
run when that is worth exactly the same). A memoised search then takes the
lowest card still held and tries every way to use it: as deadwood, or in each
meld whose lowest card it is (the melds of a card are kept as a trie, so a
branch is dropped as soon as one of its cards is gone). Each remaining-cards
vector is solved once, for all four questions at the same time: the least
(deadwood, -cards melded, -points), the most points of any set of melds, and
the most points of a layout that melds every card, or all cards but one.

Counts up to 15 of one card fit a field, which covers every legal deck (at most
4 decks and 8 jokers). The work grows with the number of melds the hand can
form; hands of the sizes the catalog deals (13 or 14 cards) take about a
millisecond or less. That work is counted (:data:`WORK_BUDGET`): the catalog's
costliest hands need about an eighth of it, and a search that would spend more
(overrides with many jokers, 2-card melds and long hands) stops with
:class:`SearchTooLarge` after some 20-30 ms instead of running for seconds.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product

from .cards import JOKER, SUITS, Card, MeldCard, card_at, check_deck
from .errors import EngineError
from .melds import (
    RUN,
    SET,
    Meld,
    MeldKind,
    RunMeld,
    SetMeld,
    rank_of_value,
    run_card_value,
    run_points,
    set_points,
    set_points_of,
)
from .rules import REPRESENTED, AceMode, FinalDiscardMode, RuleSet
from .scoring import card_value

__all__ = ["WORK_BUDGET", "Analysis", "HandTooLarge", "SearchTooLarge", "analyze", "best_lay"]

WORK_BUDGET = 100_000
"""Units of search work one analysis may spend (see :class:`SearchTooLarge`)."""


class SearchTooLarge(EngineError):
    """The search these cards need under these rules is larger than the work budget.

    Work is counted, not timed, so the same request is always answered the same
    way: a unit is one candidate meld considered while listing melds, one
    remaining-cards vector solved, or one meld tried from it. Every hand the
    catalog deals stays far below :data:`WORK_BUDGET`; hands that only rule-set
    overrides make possible (many jokers, 2-card melds, long hands) can exceed
    it, and are refused instead of costing seconds (docs/api.md#limits).
    """

    code = "search-too-large"
    members = ("budget",)

    def __init__(self, budget: int) -> None:
        self.budget = budget
        super().__init__(f"analysing these cards under these rules needs more than {budget:,} "
                         "units of search work (the service's budget per request); use fewer "
                         "jokers or cards, or longer minimum melds", params={"budget": budget})


class HandTooLarge(EngineError):
    """More cards than a hand holds under the rules: ``hand_size + 1`` at most (a hand
    after its draw). ``params``: ``limit`` and ``count``."""

    code = "hand-too-large"

    def __init__(self, rules: RuleSet, count: int, field: str = "cards",
                 limit: int | None = None) -> None:
        self.limit = rules.hand_size + 1 if limit is None else limit
        super().__init__(f"a hand holds at most {self.limit} cards under {rules.name}, not {count}",
                         field=field, params={"limit": self.limit, "count": count})


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
    """What a hand can do (docs/api.md#analyzing-a-hand, ``POST /v1/hands/analyze``).

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


_Candidate = tuple[tuple[int, ...], int, int, MeldKind, int | str, int]
"""A meld the hand can form: (natural positions ascending, jokers, points, kind,
rank (sets) or suit (runs), start value (runs))."""


def analyze(cards: Sequence[Card], rules: RuleSet, opened: bool = False,
            budget: int = WORK_BUDGET, round: int | None = None) -> Analysis:
    """Analyse a hand exactly under ``rules``; ``opened`` says whether the player has
    already made their opening (it decides :attr:`Analysis.can_go_out` and
    :attr:`Analysis.can_special`, nothing else). A contract rule set needs ``round``
    (docs/api.md#contract-rule-sets: the opening is the round's contract; see
    :func:`_analyze_contract`).

    Raises :class:`HandTooLarge` for more than ``hand_size + 1`` cards (a contract rule
    set: :meth:`.rules.RuleSet.hand_cap`), :class:`.rules.RoundRequired` /
    :class:`.rules.InvalidRound` for a ``round`` out of place,
    :class:`.cards.ImpossibleCards` when the cards cannot come from one deck, and
    :class:`SearchTooLarge` when the search would spend more than ``budget`` units of
    work.
    """
    r = rules.check_round(round)
    limit = rules.hand_cap(r)
    if len(cards) > limit:
        raise HandTooLarge(rules, len(cards), limit=limit)
    check_deck(cards, *rules.deck_for(None))  # in the order given (names the same card)
    if r is not None:
        return _analyze_contract(cards, rules, r, opened, budget)
    return _analyze(cards, rules, opened, budget)


def _analyze(cards: Sequence[Card], rules: RuleSet, opened: bool, budget: int) -> Analysis:
    """:func:`analyze` without contracts (docs/api.md#analyzing-a-hand): any melds, the opening
    threshold."""
    hand = sorted(cards, key=lambda c: c.index)
    counts = Counter(c.index for c in hand if not c.is_joker)
    jokers = len(hand) - sum(counts.values())
    types = sorted(counts, key=lambda t: (t % 13, t))
    m = len(types)
    unit = [1 << (_W * i) for i in range(m + 1)]
    junit = unit[m]
    jshift = _W * m
    natmask = junit - 1
    guards = sum(_GUARD << (_W * i) for i in range(m + 1))
    state0 = sum(counts[t] * unit[i] for i, t in enumerate(types)) + jokers * junit

    found, spent = _candidates(types, counts, jokers, rules, budget)
    tries = _tries(found, unit, junit, m)
    left = budget - spent - len(found)
    dead_cost = [card_value(card_at(t), rules) * _K_DEAD for t in types]
    joker_cost = card_value(JOKER, rules) * _K_DEAD

    memo: dict[int, tuple[int, int, int, int, int]] = {}

    def solve(state: int) -> tuple[int, int, int, int, int]:
        """(cost, best points, exact-partition points, one-left-over points, choice)."""
        nonlocal left
        got = memo.get(state)
        if got is not None:
            return got
        left -= 1
        if left < 0:
            raise SearchTooLarge(budget)
        nat = state & natmask
        j = state >> jshift
        if not nat:
            res = (j * joker_cost, 0, 0 if j == 0 else _NEG,
                   0 if j == 1 and rules.joker_discard else _NEG, -1)
            memo[state] = res
            return res
        p = ((nat & -nat).bit_length() - 1) // _W
        sub = solve(state - unit[p])
        best, most, exact, one_left, choice = sub[0] + dead_cost[p], sub[1], _NEG, sub[2], -1
        g = state | guards
        stack = [tries[p]]
        while stack:
            _, leaves, children = stack.pop()
            left -= len(leaves) + len(children)
            if left < 0:
                raise SearchTooLarge(budget)
            for k, mask, cost, pts, index in leaves:
                if k > j:
                    break
                sub = memo.get(state - mask) or solve(state - mask)
                c = sub[0] + cost
                if c < best:
                    best, choice = c, index
                if sub[1] + pts > most:
                    most = sub[1] + pts
                if sub[2] + pts > exact:
                    exact = sub[2] + pts
                if sub[3] + pts > one_left:
                    one_left = sub[3] + pts
            for child in children:
                if (g - child[0]) & guards == guards:
                    stack.append(child)
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
            cand = found[choice]
            laid.append(_meld(cand, types, rules))
            state -= sum(unit[q] for q in cand[0]) + cand[1] * junit
    deadwood.extend([JOKER] * (state >> jshift))
    laid = _join_runs(laid, rules)

    threshold = rules.opening_min_points
    n = len(hand)
    melded = sum(len(x.cards) for x in laid)
    optional = rules.final_discard == FinalDiscardMode.OPTIONAL
    exact_ok = optional and n >= 1 and exact >= 0
    special = (optional and n >= 1 and exact >= threshold) or (
        n >= 2 and one_left >= threshold)
    if opened:  # the first meld is behind them: out needs no threshold, no special is left
        go_out, special = exact_ok or one_left >= 0, False
    else:  # going out lays every meld this turn: it is the first meld, so it is special
        go_out = special
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


_Node = tuple[int, list[tuple[int, int, int, int, int]], list["_Node"]]


def _tries(found: list[_Candidate], unit: list[int], junit: int, m: int) -> list[_Node]:
    """Per lowest card, the melds that start with it as a trie on their other naturals:
    a node holds the natural cards of its path (as a packed count vector), the melds
    that end there (fewest jokers first) and its children. The search drops a whole
    branch the moment one of its cards is no longer held."""
    roots: list[_Node] = [(unit[p], [], []) for p in range(m)]
    index: dict[tuple[int, ...], _Node] = {(p,): roots[p] for p in range(m)}

    def node_at(path: tuple[int, ...]) -> _Node:
        node = index.get(path)
        if node is None:
            parent = node_at(path[:-1])
            node = (parent[0] + unit[path[-1]], [], [])
            parent[2].append(node)
            index[path] = node
        return node

    for i, (naturals, k, pts, _, _, _) in enumerate(found):
        node = node_at(naturals)
        node[1].append((k, node[0] + k * junit, -((len(naturals) + k) * _K_MELDED + pts), pts, i))
    for node in index.values():
        if len(node[1]) > 1:
            node[1].sort()
    return roots


# -- the melds a hand can form -------------------------------------------------------------

def _candidates(types: list[int], counts: Counter[int], jokers: int,
                rules: RuleSet, budget: int, whole: bool = False, sets: bool = True,
                runs: bool = True) -> tuple[list[_Candidate], int]:
    """Every meld these cards can form, once per physical card multiset (the natural
    cards and how many jokers), in the reading worth the most points (a set before a
    run, then the lower run, on equal points, as :func:`.melds.validate` prefers);
    and the work spent listing them (:class:`SearchTooLarge` past ``budget``).
    ``whole`` (a contract's lay, whose melds are counted): every run, also those that
    split in two, and a set and a run of the same cards both."""
    found: _Found = {}
    try:
        spent = _sets(types, counts, jokers, rules, found, budget, whole) if sets else 0
        for suit in SUITS if runs else ():
            spent += _runs(suit, types, jokers, rules, found, budget - spent, whole)
    except SearchTooLarge:
        raise SearchTooLarge(budget) from None  # the budget of the whole search, not the part left
    return list(found.values()), spent


_Found = dict[tuple[object, ...], _Candidate]
"""Candidates by (naturals, jokers) (and kind, for a contract's lay)."""


def _sets(types: list[int], counts: Counter[int], jokers: int, rules: RuleSet,
          found: _Found, budget: int, whole: bool = False) -> int:
    """Sets: naturals of one rank (one of each suit when ``set_distinct_suits``),
    topped up with jokers, ``set_min``..``set_max`` cards, enough naturals."""
    by_rank: dict[int, list[int]] = {}
    for p, t in enumerate(types):
        by_rank.setdefault(t % 13 + 1, []).append(p)
    least = max(1, rules.set_min_naturals)
    most = rules.effective_set_max
    work = 0
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
        work += len(choices)
        if work > budget:
            raise SearchTooLarge(budget)
        for chosen in choices:
            n = len(chosen)
            if n < least or n > most:
                continue
            ks = range(max(0, rules.set_min - n), min(jokers, most - n) + 1)
            work += len(ks)
            red = sum(1 for p in chosen if SUITS[types[p] // 13] in "hd") if rank == 1 else 0
            for k in ks:
                found[(chosen, k, SET) if whole else (chosen, k)] = (
                    chosen, k, set_points(rank, n, k, rules, red), SET, rank, 0)
        if work > budget:
            raise SearchTooLarge(budget)
    return work


def _value_line(rules: RuleSet) -> tuple[int, int, int]:
    """(lowest value, highest value, highest start) a run may use under ``rules.ace``."""
    if rules.ace == AceMode.AROUND:
        return 1, 13 + rules.effective_run_max - 1, 13
    if rules.ace == AceMode.HIGH:
        return 2, 14, 14
    if rules.ace == AceMode.LOW:
        return 1, 13, 13
    return 1, 14, 14


def _runs(suit: str, types: list[int], jokers: int, rules: RuleSet,
          found: _Found, budget: int, whole: bool = False) -> int:
    """Runs in ``suit``: a lowest and a highest natural, the naturals between them
    that the run keeps, jokers for every value it does not (held or not), and
    any spare jokers beyond either end, as far as the ace rule allows (and, without
    ``run_jokers_adjacent``, no two jokers side by side). ``whole``: also the runs
    that split in two legal runs."""
    lo, hi, top_start = _value_line(rules)
    held = {t % 13 + 1: p for p, t in enumerate(types) if SUITS[t // 13] == suit}
    if not held:
        return 0
    work = 0
    shortest = rules.run_min
    least = max(1, rules.run_min_naturals)
    longest = rules.effective_run_max
    if rules.ace != AceMode.AROUND and shortest - jokers >= least and not whole:
        # every run of 2 * run_min cards or more splits in two legal runs (see _splits)
        longest = min(longest, 2 * shortest - 1)
    # docs/api.md#contract-rule-sets: no two jokers side by side
    apart = not rules.run_jokers_adjacent
    jv = rules.joker_opening_value
    at = [-1] * (hi + 2)
    pv = [0] * (hi + 2)  # prefix sums of run values: value v is pv[v + 1] - pv[v]
    pd = [0] * (hi + 2)  # prefix sums of (a joker's points - the natural's) at each value
    for v in range(lo, hi + 1):
        at[v] = held.get(rank_of_value(v), -1)
        rv = run_card_value(v, rules, suit)
        pv[v + 1] = pv[v] + rv
        pd[v + 1] = pd[v] + (0 if jv == REPRESENTED else int(jv) - rv)
    for a in range(lo, hi + 1):
        if at[a] < 0 or a - jokers > top_start:
            continue
        inner_held: list[int] = []
        inner_missing: list[int] = []
        miss_d = 0
        for b in range(a, min(hi, a + longest - 1) + 1):
            if b - 1 > a:
                if at[b - 1] >= 0:
                    inner_held.append(b - 1)
                else:
                    inner_missing.append(b - 1)
                    miss_d += pd[b] - pd[b - 1]
                    if apart and len(inner_missing) > 1 and inner_missing[-2] == b - 2:
                        break  # two missing values side by side: no longer run avoids them
            spare = jokers - len(inner_missing)
            if spare < 0:
                break
            if at[b] < 0:
                continue
            width = b - a + 1
            if width + spare < shortest:
                continue
            for e in range(min(spare, len(inner_held)) + 1):
                holes = len(inner_missing) + e
                if width - holes < least:
                    break
                for skipped in combinations(inner_held, e):
                    if apart and e and _side_by_side(inner_missing, skipped):
                        continue
                    work += len(inner_held) + 1
                    if work > budget:
                        raise SearchTooLarge(budget)
                    if e:
                        kept = [at[v] for v in inner_held if v not in skipped]
                        hole_d = miss_d + sum(pd[v + 1] - pd[v] for v in skipped)
                    else:
                        kept, hole_d = [at[v] for v in inner_held], miss_d
                    if b > a:
                        kept.insert(0, at[a])
                        kept.append(at[b])
                    else:
                        kept = [at[a]]
                    # positions follow ranks, so only a run past the king needs sorting
                    naturals = tuple(sorted(kept) if b > 13 else kept)
                    for extra in range(jokers - holes + 1):
                        work += extra + 1
                        length = width + extra
                        if length > longest:
                            break
                        if length < shortest:
                            continue
                        best = _NEG
                        start = 0
                        for under in range(extra + 1):
                            s, end = a - under, b + extra - under
                            if s < lo or s > top_start or end > hi:
                                continue
                            if apart and (under > 1 or extra - under > 1):
                                continue  # two jokers beyond one end
                            pts = (pv[end + 1] - pv[s] + hole_d
                                   + pd[a] - pd[s] + pd[end + 1] - pd[b + 1])
                            if pts > best:
                                best, start = pts, s
                        if best == _NEG:
                            continue
                        if not whole and length >= 2 * shortest and (
                                work := work + length) and _splits(
                                start, length, a, b, skipped, inner_missing, least, shortest,
                                top_start):
                            continue
                        key: tuple[object, ...] = (naturals, holes + extra, RUN) if whole \
                            else (naturals, holes + extra)
                        old = found.get(key)
                        if old is None or best > old[2]:
                            found[key] = (naturals, holes + extra, best, RUN, suit, start)
    return work


def _side_by_side(missing: Sequence[int], skipped: Sequence[int]) -> bool:
    """A skipped natural's joker next to another of the run's inner jokers (at the values
    it misses or skips; the missing ones are never side by side, :func:`_runs` stops)."""
    holes = {*missing, *skipped}
    return any(v + 1 in holes or v - 1 in holes for v in skipped)


def _splits(start: int, length: int, a: int, b: int, skipped: Sequence[int],
            missing: Sequence[int], least: int, shortest: int, top_start: int) -> bool:
    """Whether this run can be cut in two runs that are each legal on their own.

    Such a run is never needed: the two halves meld the same cards, and the
    halves' own best readings are worth at least as many points (every card keeps
    its value at its place). Leaving it out keeps the search small; the answer
    shows long runs again by joining halves back (:func:`_join_runs`).
    """
    holes = set(skipped) | set(missing)
    natural = [a <= v <= b and v not in holes for v in range(start, start + length)]
    total = sum(natural)
    before = sum(natural[:shortest - 1])
    for cut in range(shortest, length - shortest + 1):
        before += natural[cut - 1]
        if before >= least and total - before >= least and start + cut <= top_start:
            return True
    return False


def _join_runs(laid: list[Meld], rules: RuleSet) -> list[Meld]:
    """Join runs that continue one another into one run, when the joined run is legal
    and worth exactly what its parts were (so the arrangement's totals do not move)."""
    out = list(laid)
    joined = True
    while joined:
        joined = False
        for i, x in enumerate(out):
            for j, y in enumerate(out):
                if i == j or not isinstance(x, RunMeld) or not isinstance(y, RunMeld) \
                        or x.suit != y.suit:
                    continue
                if len(x.cards) + len(y.cards) > rules.effective_run_max:
                    continue
                if rank_of_value(x.end + 1) != rank_of_value(y.start):
                    continue
                if rules.ace != AceMode.AROUND and x.end + 1 != y.start:
                    continue
                if not rules.run_jokers_adjacent and x.cards[-1].is_joker and y.cards[0].is_joker:
                    continue
                tokens = x.cards + y.cards
                run = RunMeld(x.suit, x.start, tokens, run_points(x.start, tokens, rules))
                if run.points != x.points + y.points:
                    continue
                out[min(i, j)] = run
                del out[max(i, j)]
                joined = True
                break
            if joined:
                break
    return out


def _meld(c: _Candidate, types: list[int], rules: RuleSet) -> Meld:
    """The candidate laid out as :func:`.melds.validate` reads it, jokers declared."""
    naturals, k, _, _, what, start = c
    if isinstance(what, int):  # a set's rank
        cards = tuple(MeldCard(card_at(types[p])) for p in naturals) + (
            MeldCard(JOKER, what, None),) * k
        return SetMeld(what, cards, set_points_of(what, cards, rules))
    # a run's suit
    held = {card_at(types[p]).rank for p in naturals}
    tokens = tuple(
        MeldCard(Card(rank_of_value(v), what)) if rank_of_value(v) in held
        else MeldCard(JOKER, rank_of_value(v), what)
        for v in range(start, start + len(naturals) + k))
    return RunMeld(what, start, tokens, run_points(start, tokens, rules))


# -- contract rule sets (docs/api.md#contract-rule-sets) ---------------------------------------

_INF = 1 << 62
"""The cost of a layout that does not meet the contract."""
_NO_LAY = (_INF, False, False, -1)


@dataclass(frozen=True, slots=True)
class _Lay:
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    whole: bool  # the lay melds every card
    one_left: bool  # a lay melds every card but one discardable card


def _analyze_contract(cards: Sequence[Card], rules: RuleSet, round: int, opened: bool,
                      budget: int) -> Analysis:
    """:func:`analyze` in a contract rule set (docs/api.md#contract-rule-sets). Not yet down: the
    arrangement is the lay that meets the round's contract (exactly its threes and fours, distinct
    under ``contract_distinct``, longer melds allowed) with the lowest deadwood (then
    the most cards melded, the most points), no melds when none does; ``can_open``: one
    does; ``can_go_out`` = ``can_special``: a lay melds the whole hand (``final_discard``
    optional) or all of it but one card that may be discarded (no joker unless
    ``joker_discard``). Down: no second lay (``can_open`` false) and no special is left;
    without ``melds_after_contract`` the player melds nothing of their own (no melds, out
    only by discarding a last discardable card), with it any melds as in :func:`_analyze`
    for an opened player."""
    hand = sorted(cards, key=lambda c: c.index)
    optional = rules.final_discard == FinalDiscardMode.OPTIONAL
    if opened:  # down already: no second lay (can_open false), no special left
        if rules.melds_after_contract:
            free = _analyze(hand, rules, True, budget)
            return dataclasses.replace(free, can_open=False, can_special=False)
        last = len(hand) == 1 and (rules.joker_discard or not hand[0].is_joker)
        return Analysis(melds=(), deadwood=tuple(hand),
                        deadwood_value=sum(card_value(c, rules) for c in hand), melded_count=0,
                        can_open=False, can_go_out=last, can_special=False)
    lay = _best_lay(hand, rules, round, budget)
    if lay is None:
        return Analysis(melds=(), deadwood=tuple(hand),
                        deadwood_value=sum(card_value(c, rules) for c in hand), melded_count=0,
                        can_open=False, can_go_out=False, can_special=False)
    out = (optional and lay.whole) or lay.one_left
    points = sum(x.points for x in lay.melds)
    return Analysis(melds=lay.melds, deadwood=lay.deadwood,
                    deadwood_value=sum(card_value(c, rules) for c in lay.deadwood),
                    melded_count=sum(len(x.cards) for x in lay.melds), can_open=True,
                    can_go_out=out, can_special=out, points=points, opening_points=points)


def _may_hold(counts: Counter[int], threes: int, fours: int, rules: RuleSet) -> bool:
    """A quick necessary test for a lay: enough ranks (suits) with the naturals a three
    (a four) needs, one per three (four) under ``contract_distinct``; False means none."""
    by_rank = Counter[int]()
    by_suit = Counter[int]()
    for t, n in counts.items():
        by_rank[t % 13] += n
        by_suit[t // 13] += n
    need3, need4 = max(1, rules.set_min_naturals), max(1, rules.run_min_naturals)
    if rules.contract_distinct:
        sets = sum(1 for n in by_rank.values() if n >= need3)
        runs = sum(1 for n in by_suit.values() if n >= need4)
    else:
        sets = sum(n // need3 for n in by_rank.values())
        runs = sum(n // need4 for n in by_suit.values())
    return sets >= threes and runs >= fours


def best_lay(cards: Sequence[Card], rules: RuleSet, round: int, budget: int = WORK_BUDGET, *,
             most_cards: bool = False) -> tuple[tuple[Meld, ...] | None, int]:
    """The melds of the lay meeting ``round``'s contract (docs/api.md#contract-rule-sets) that
    leaves the lowest deadwood (as ``/hands/analyze``), or with ``most_cards`` the one that melds
    the most cards (then the most points: ``/turns/options``'s lay), None when no lay
    meets the contract; and the work the search spent. :class:`SearchTooLarge` past
    ``budget``."""
    used = [0]
    lay = _best_lay(sorted(cards, key=lambda c: c.index), rules, round, budget, most_cards, used)
    return (None if lay is None else lay.melds), used[0]


def _best_lay(hand: Sequence[Card], rules: RuleSet, round: int, budget: int,
              most_cards: bool = False, used: list[int] | None = None) -> _Lay | None:
    """The lay meeting ``round``'s contract with the least (deadwood, -cards melded,
    -points) (``most_cards``: the least (cards left, -points)), and whether some lay
    melds every card or every card but one discardable one; None when no lay meets it.
    The search is :func:`_analyze`'s (lowest card first, one memo per remaining-cards
    vector) with the threes and fours still to lay, the suits the fours have taken and
    the rank of the last three in the memo key."""
    threes, fours = rules.contract(round)
    counts = Counter(c.index for c in hand if not c.is_joker)
    jokers = len(hand) - sum(counts.values())
    if not _may_hold(counts, threes, fours, rules):
        return None
    # rank by rank (a three's cards are then together, so the last three's rank is all the
    # key needs); with fours only, suit by suit (a four's cards together: far fewer states)
    types = sorted(counts) if not threes else sorted(counts, key=lambda t: (t % 13, t))
    m = len(types)
    unit = [1 << (_W * i) for i in range(m + 1)]
    junit = unit[m]
    jshift = _W * m
    natmask = junit - 1
    guards = sum(_GUARD << (_W * i) for i in range(m + 1))
    state0 = sum(counts[t] * unit[i] for i, t in enumerate(types)) + jokers * junit
    kshift = _W * (m + 1)

    found, spent = _candidates(types, counts, jokers, rules, budget, whole=True,
                               sets=threes > 0, runs=fours > 0)
    tries = _tries(found, unit, junit, m)
    left = budget - spent - len(found)
    if most_cards:  # every card left over costs the same: the fewest left, the most melded
        dead_cost, joker_cost = [_K_DEAD] * m, _K_DEAD
    else:
        dead_cost = [card_value(card_at(t), rules) * _K_DEAD for t in types]
        joker_cost = card_value(JOKER, rules) * _K_DEAD
    distinct = rules.contract_distinct
    joker_out = rules.joker_discard
    suit_bit = {s: 1 << i for i, s in enumerate(SUITS)}

    # key -> (cost, whole, one left, choice)
    memo: dict[int, tuple[int, bool, bool, int]] = {}

    def key_of(state: int, t: int, f: int, last: int, suits: int) -> int:
        return state | ((((t << 3) | f) << 8 | last << 4 | suits) << kshift)

    least3, least4 = rules.set_min, rules.run_min

    def solve(state: int, t: int, f: int, last: int, suits: int, n: int
              ) -> tuple[int, bool, bool, int]:
        """The best lay of what ``state`` holds (``n`` cards) with ``t`` threes and ``f``
        fours still to lay."""
        nonlocal left
        if n < t * least3 + f * least4:
            return _NO_LAY  # too few cards left for the melds still owed
        nat = state & natmask
        if nat:
            p = ((nat & -nat).bit_length() - 1) // _W
            rank = types[p] % 13 + 1
            if last != rank:
                last = 0  # the last three's rank matters only while its rank's cards remain
        key = key_of(state, t, f, last, suits)
        got = memo.get(key)
        if got is not None:
            return got
        left -= 1
        if left < 0:
            raise SearchTooLarge(budget)
        j = state >> jshift
        if not nat:
            res = (j * joker_cost, j == 0, j == 1 and joker_out, -1) if t == f == 0 \
                else (_INF, False, False, -1)
            memo[key] = res
            return res
        sub = solve(state - unit[p], t, f, last, suits, n - 1)
        best = sub[0] + dead_cost[p] if sub[0] < _INF else _INF
        whole, one, choice = False, sub[1], -1
        g = state | guards
        stack = [tries[p]]
        while stack:
            _, leaves, children = stack.pop()
            left -= len(leaves) + len(children)
            if left < 0:
                raise SearchTooLarge(budget)
            for k, mask, cost, _, index in leaves:
                if k > j:
                    break
                cand = found[index]
                if cand[3] == SET:
                    if not t or (distinct and cand[4] == last):
                        continue
                    sub = solve(state - mask, t - 1, f, rank if distinct else 0, suits,
                                n - len(cand[0]) - k)
                else:
                    bit = suit_bit[str(cand[4])] if distinct else 0
                    if not f or suits & bit:
                        continue
                    sub = solve(state - mask, t, f - 1, last, suits | bit, n - len(cand[0]) - k)
                if sub[0] >= _INF:
                    continue
                if sub[0] + cost < best:
                    best, choice = sub[0] + cost, index
                whole = whole or sub[1]
                one = one or sub[2]
            for child in children:
                if (g - child[0]) & guards == guards:
                    stack.append(child)
        res = (best, whole, one, choice)
        memo[key] = res
        return res

    cost, whole, one, _ = solve(state0, threes, fours, 0, 0, len(hand))
    if used is not None:
        used[0] = budget - left
    if cost >= _INF:
        return None
    laid: list[Meld] = []
    deadwood: list[Card] = []
    state, t, f, last, suits = state0, threes, fours, 0, 0
    while state & natmask:
        nat = state & natmask
        p = ((nat & -nat).bit_length() - 1) // _W
        rank = types[p] % 13 + 1
        if last != rank:
            last = 0
        choice = memo[key_of(state, t, f, last, suits)][3]
        if choice < 0:
            deadwood.append(card_at(types[p]))
            state -= unit[p]
            continue
        cand = found[choice]
        laid.append(_meld(cand, types, rules))
        state -= sum(unit[q] for q in cand[0]) + cand[1] * junit
        if cand[3] == SET:
            t, last = t - 1, (rank if distinct else 0)
        else:
            f, suits = f - 1, suits | (suit_bit[str(cand[4])] if distinct else 0)
    deadwood.extend([JOKER] * (state >> jshift))
    return _Lay(tuple(laid), tuple(deadwood), whole, one)
