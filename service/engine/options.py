"""Legal next plays: what the player to move may do now (docs/api.md#legal-next-plays).

:func:`legal_actions` answers, for a :class:`.game.Game` at any point of a turn, every
play that may come next, in the spirit of OpenSpiel's ``LegalActions()``: one call,
typed values, and every value ruled by the same code that rules on a played action
(:meth:`.game.Game.verify_draw`, ``verify_meld``, ``verify_build``, ``verify_release``,
``verify_discard``, ``verify_go_out``). Nothing here decides a rule: candidates are
generated cheaply and each one is put to the game's own verify method (a play that
would lay the player's last card is tried on a :meth:`.game.Game.copy`, where going
out checks the turn's duties as the referee does).

The kinds, one function each (a new kind of play is one more function):

* :func:`draw_options`: ``{"draw": {"from": "stock"}}`` (without its card) and
  ``{"draw": {"from": "discard"}}`` where the rules allow it;
* :func:`meld_options`: every legal meld of any of the hand's cards, once per multiset
  of cards and joker declarations (a run's jokers declared by card, ``JK=8h``; a set's
  by rank, ``JK=7``). Sets and runs are generated per rank and per suit and run window,
  the way the solver's enumeration walks them (its value line, :mod:`.solver`), never by
  trying every subset; unlike the solver, which keeps one reading per physical card
  multiset and leaves out runs that split in two, every reading and declaration is
  listed. The work is counted against the solver's budget
  (:class:`.solver.SearchTooLarge` past it);
* :func:`build_options`: every one-card build, per table meld; a card that fits both ends
  of a run is listed once per end, written ``{"card", "end"}`` (a card that fits one end
  only, or a set, is written as the card alone: it can go one way);
* :func:`release_options`: per table meld and per number of jokers freed, the releases
  with the fewest naturals (a one-natural release per joker; under ``all_missing`` the
  naturals its rule asks for), each set of cards once;
* :func:`discard_options`: every discard that ends the turn legally (the turn's duties:
  the card taken from the pile, released jokers, the opening threshold).

In a contract rule set (docs/api.md#contract-rule-sets) also:

* :func:`callers`: before the draw, the players who may call the discard pile's top card
  now (``/turns/options``'s top-level ``callers``; a call is not an option: the caller is
  another player), each call put to :meth:`.game.Game.verify_call`;
* :func:`lay_options`: one ``{"lay": ...}`` for a player not yet down, the lay that meets
  the round's contract with the most cards (the solver's contract search,
  :func:`.solver.best_lay`), put to :meth:`.game.Game.verify_lay`;
* :func:`shift_options`: every legal ``{"shift": {"meld", "card", "end"}}``, once per end
  (:meth:`.game.Game.verify_shift`).

Melds before going down (``contract-not-met``) and after it unless
``melds_after_contract`` (``contract-extra-meld``) are never listed; no joker is discarded
where ``joker_discard`` is false, and a down player draws no discard where
``discard_after_down`` is false (the game's verify methods say so).

The listing looks one play ahead: a play is listed when the turn is legal after it,
even if no legal end remains (docs/api.md#legal-next-plays).

>>> from service.engine.cards import parse_cards
>>> from service.engine.rules import CATALOG
>>> g = Game(CATALOG["kaluki-hunt"], ["ann", "bob"],
...          [parse_cards("Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h".split()),
...           parse_cards("2c 3c 4c 5c 6c 7c 8c 9d Td Jd Qd Ad Ac".split())], discard=[Card.parse("5d")])
>>> [option_to_data(o) for o in legal_actions(g)]
[{'draw': {'from': 'stock'}}, {'draw': {'from': 'discard'}}]
>>> _ = g.draw("stock", Card.parse("8c"))
>>> [option_to_data(o)["meld"] for o in meld_options(g)][:3]
[['8c', '9c', 'Tc'], ['8c', '9c', 'Tc', 'Jc'], ['9c', 'Tc', 'Jc']]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import combinations, product
from typing import Any

from . import melds as m
from .cards import JOKER, SUITS, Card, MeldCard
from .errors import EngineError
from .game import Game, IllegalPlay, Phase
from .melds import rank_of_value
from .record import (
    DISCARD,
    STOCK,
    BuildPlay,
    DrawSource,
    LayPlay,
    MeldPlay,
    ReleasePlay,
    ShiftPlay,
    play_to_data,
)
from .rules import JokerShiftMode, ReleaseSetMode, RuleSet
from .solver import WORK_BUDGET, Analysis, SearchTooLarge, analyze, best_lay
from .solver import _value_line as value_line  # the run values the solver walks too

__all__ = ["BUILD_COST", "CANDIDATE_COST", "KINDS", "RULING_COST", "DiscardOption", "DrawOption",
           "Hint", "Option", "TurnPhase", "Work", "apply_option",
           "build_options", "callers", "can_end", "discard_options", "draw_options", "hint",
           "lay_options", "legal_actions", "meld_options", "option_to_data", "release_options",
           "shift_options", "turn_phase"]


@dataclass(frozen=True, slots=True)
class DrawOption:
    """``{"draw": {"from": source}}``: the card is the client's to add (a stock draw)."""

    source: DrawSource


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """``{"discard": card}``: ends the turn."""

    card: Card


Option = DrawOption | MeldPlay | BuildPlay | ReleasePlay | LayPlay | ShiftPlay | DiscardOption
"""One legal next play, in the hand record's own types (:mod:`.record`)."""

class TurnPhase(StrEnum):
    """Where a turn stands (docs/api.md#legal-next-plays)."""

    DRAW = "draw"
    PLAY = "play"
    ENDED = "ended"


_DRAW, _OPENING, _OUT, _OVER = Phase.DRAW, Phase.OPENING, Phase.OUT, Phase.OVER


def turn_phase(game: Game, turn_start: int | None = None) -> TurnPhase:
    """Where the turn stands, in the words of docs/api.md#legal-next-plays: ``draw`` before the
    draw, ``play`` after it, ``ended`` once the hand is over or (``turn_start`` given) the turn that
    started at game turn ``turn_start`` has ended with its discard."""
    if game.phase is _OVER or (turn_start is not None and game.turn != turn_start):
        return TurnPhase.ENDED
    return TurnPhase.DRAW if game.phase is _DRAW else TurnPhase.PLAY


# -- applying an option, as the referee applies a recorded play -------------------------------

def apply_option(game: Game, option: Option) -> None:
    """Do ``option`` on ``game`` the way :func:`.referee.adjudicate` plays a recorded turn:
    the opening melds are counted at the first other play, and a play that lays the
    player's last card goes out (checking the turn's duties). Raises
    :class:`.game.IllegalPlay` when the game refuses it."""
    if isinstance(option, DrawOption):
        card = None
        if option.source == STOCK and game.stock is None:
            card = _some_stock_card(game)
        game.draw(option.source, card)
        return
    if isinstance(option, DiscardOption):
        if game.phase is _OPENING:
            game.open()
        game.discard(option.card)
        return
    game.play(option)
    if not game.cards_left and game.phase is not _OVER:
        if game.phase is _OPENING:
            game.open()
        game.go_out()


def _some_stock_card(game: Game) -> Card | None:
    unseen = game.state.unseen
    if unseen:
        return unseen[0]
    pile = game.discard_pile
    return pile[0] if len(pile) >= 2 else None


def _some_penalty(game: Game) -> tuple[Card, ...] | None:
    """Penalty cards a granted call could take from a stock whose order is not known (the
    client names the true ones); None where the stock's order is known (the game takes its
    next cards)."""
    if game.stock is not None:
        return None
    unseen = game.state.unseen or ()
    return tuple(unseen[:game.rules.call_penalty_cards]) or None


def _goes_out_legally(game: Game, option: Option) -> bool:
    """A play that lays the player's last card: tried on a copy (going out checks duties)."""
    trial = game.copy()
    try:
        apply_option(trial, option)
    except (IllegalPlay, EngineError):
        return False
    return True


# -- the kinds -----------------------------------------------------------------------------------

def draw_options(game: Game, work: Work | None = None) -> list[Option]:
    """The draws the player may make (phase ``draw``)."""
    if game.phase is not _DRAW:
        return []
    out: list[Option] = []
    stock_ok = False
    try:
        if game.stock is not None:
            stock_ok = game.stock_count > 0 and game.verify_draw(STOCK) is None
            if not game.stock_count:  # a restock comes first: the client gives its order
                stock_ok = len(game.discard_pile) >= 2
        else:
            card = _some_stock_card(game)
            stock_ok = card is not None and game.verify_draw(STOCK, card) is None
    except EngineError:
        stock_ok = False
    if stock_ok:
        out.append(DrawOption(STOCK))
    if game.can_draw(DISCARD):
        out.append(DrawOption(DISCARD))
    return out


def callers(game: Game) -> list[str]:
    """The players who may call the discard pile's top card now (docs/api.md#contract-rule-sets;
    phase ``draw``, before this turn's call): each one's call, granted or refused, put to
    :meth:`.game.Game.verify_call`; [] outside contract rule sets' draw phase."""
    if game.round is None or game.phase is not _DRAW or game.called is not None:
        return []
    penalty = _some_penalty(game)
    out: list[str] = []
    for p in game.players:
        if p == game.actor:
            continue
        for granted in (True, False):
            try:
                ok = game.verify_call(p, granted, penalty if granted else None) is None
            except EngineError:
                ok = False
            if ok:
                out.append(p)
                break
    return out


CANDIDATE_COST = 8
"""Work units of one candidate generated (the solver's units: about the same time)."""
RULING_COST = 100
"""Work units of one candidate put to the game's verify method (measured against the
solver's units: a meld ruling costs about a hundred of them)."""


class Work:
    """Search work counted against a budget, in the solver's units
    (:data:`.solver.WORK_BUDGET`): the listing and the hint of one request share one."""

    __slots__ = ("_hand", "budget", "left")

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.left = budget
        self._hand: tuple[int, int, Counter[Card], int] | None = None

    def hand(self, game: Game) -> tuple[Counter[Card], int]:
        """The player to move's naturals (a multiset) and jokers, read once per game state."""
        at = (id(game), len(game.operations))
        got = self._hand
        if got is None or got[:2] != at:
            hand = Counter(game.hand(game.actor)) if game.actor is not None else Counter[Card]()
            jokers = hand.pop(JOKER, 0)
            got = self._hand = (*at, hand, jokers)
        return got[2], got[3]

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise SearchTooLarge(self.budget)


_NATURAL = {c: MeldCard(c) for c in (Card(r, s) for r in range(1, 14) for s in SUITS)}
_AT = {(c.rank, c.suit): t for c, t in _NATURAL.items()}
_RUN_JOKER = {(r, s): MeldCard(JOKER, r, s) for r in range(1, 14) for s in SUITS}
_SET_JOKER = {r: MeldCard(JOKER, r, None) for r in range(1, 14)}
"""Every token a candidate meld is made of, made once (a candidate's key is their ids)."""


def _set_candidates(hand: Counter[Card], jokers: int, rules: RuleSet,
                    work: Work) -> Iterator[tuple[MeldCard, ...]]:
    by_rank: dict[int, list[Card]] = {}
    for c in sorted(hand):
        by_rank.setdefault(c.rank, []).append(c)
    least = max(1, rules.set_min_naturals)
    most = rules.effective_set_max
    for rank, cards in sorted(by_rank.items()):
        choices: list[tuple[Card, ...]] = []
        if rules.set_distinct_suits:
            for n in range(least, min(len(cards), most) + 1):
                choices.extend(combinations(cards, n))
        else:
            for mult in product(*(range(hand[c] + 1) for c in cards)):
                work.spend(CANDIDATE_COST)
                chosen = tuple(c for c, k in zip(cards, mult, strict=True) for _ in range(k))
                if least <= len(chosen) <= most:
                    choices.append(chosen)
        for chosen in choices:
            n = len(chosen)
            for k in range(max(0, rules.set_min - n), min(jokers, most - n) + 1):
                work.spend(CANDIDATE_COST)
                yield tuple(_NATURAL[c] for c in chosen) + (_SET_JOKER[rank],) * k


def _run_candidates(hand: Counter[Card], jokers: int, rules: RuleSet,
                    work: Work) -> Iterator[tuple[MeldCard, ...]]:
    lo, hi, top_start = value_line(rules)
    least = max(1, rules.run_min_naturals)
    longest = min(rules.effective_run_max, 13)
    for suit in SUITS:
        held = {c.rank for c in hand if c.suit == suit}
        if not held:
            continue
        for a in range(lo, top_start + 1):
            at: list[bool] = []
            holes = 0
            for v in range(a, min(hi, a + longest - 1) + 1):
                h = rank_of_value(v) in held
                at.append(h)
                holes += not h
                if holes > jokers:
                    break  # a longer window only has more holes
                length = len(at)
                if length < rules.run_min or length - holes < least:
                    continue
                values = range(a, v + 1)
                places = [i for i, x in enumerate(at) if x]
                base = [_AT[rank_of_value(w), suit] if at[i]
                        else _RUN_JOKER[rank_of_value(w), suit] for i, w in enumerate(values)]
                for e in range(0, min(jokers - holes, len(places) - least) + 1):
                    for swapped in combinations(places, e):
                        work.spend(CANDIDATE_COST)
                        tokens = list(base)
                        for i in swapped:
                            tokens[i] = _RUN_JOKER[rank_of_value(values[i]), suit]
                        yield tuple(tokens)


def meld_options(game: Game, work: Work | None = None) -> list[Option]:
    """Every legal new meld of the hand's cards (phase ``play``), once per multiset of
    cards and joker declarations; :class:`.solver.SearchTooLarge` past the budget."""
    if game.phase in (_DRAW, _OVER) or game.actor is None:
        return []
    rules = game.rules
    if game.round is not None and (game.actor not in game.opened
                                   or not rules.melds_after_contract):
        # contract-not-met before going down, contract-extra-meld after
        # (docs/api.md#contract-rule-sets)
        return []
    work = work if work is not None else Work(WORK_BUDGET)
    hand, jokers = work.hand(game)
    size = game.cards_left
    seen: set[tuple[int, ...]] = set()
    out: list[Option] = []
    for gen in (_run_candidates(hand, jokers, rules, work),
                _set_candidates(hand, jokers, rules, work)):
        for tokens in gen:
            key = tuple(sorted(map(id, tokens)))  # tokens are the cached ones above
            if key in seen:
                continue
            seen.add(key)
            work.spend(RULING_COST)
            if game.verify_meld(tokens) is not None:
                continue
            option = MeldPlay(tokens)
            if len(tokens) == size and not _goes_out_legally(game, option):
                continue
            out.append(option)
    out.sort(key=lambda o: _meld_order(o))
    return out


def _meld_order(o: Option) -> tuple[Any, ...]:
    """Runs by suit and lowest card, then sets by rank; shorter first."""
    assert isinstance(o, MeldPlay)
    first = o.cards[0]
    is_run = any(t.as_suit is not None for t in o.cards) or len(
        {t.card.rank for t in o.cards if not t.is_joker}) > 1
    if is_run:
        suit = next(t.as_suit or t.card.suit for t in o.cards if t.as_suit or not t.is_joker)
        rank = first.as_rank if first.is_joker else first.card.rank
        return (0, SUITS.index(suit), rank or 0, len(o.cards), [str(t) for t in o.cards])
    rank = next(t.card.rank for t in o.cards if not t.is_joker)
    return (1, rank, 0, len(o.cards), [str(t) for t in o.cards])


BUILD_COST = 30
"""Work units of one build or release put to the game's verify method."""


def build_options(game: Game, work: Work | None = None) -> list[Option]:
    """Every one-card build on a table meld (phase ``play``). Only the cards that could fit
    are put to the game: a set's rank, the card beyond either end of a run, a joker."""
    if game.phase in (_DRAW, _OVER) or game.actor is None:
        return []
    work = work if work is not None else Work(WORK_BUDGET)
    hand, jokers = work.hand(game)
    size = game.cards_left
    out: list[Option] = []
    joker = [JOKER] if jokers else []
    for idx, meld in enumerate(game.table):
        beyond: set[Card] = set()
        if isinstance(meld, m.SetMeld):
            fits = [c for c in sorted(hand) if c.rank == meld.rank] + joker
        else:
            beyond = {Card(rank_of_value(meld.start - 1), meld.suit),
                      Card(rank_of_value(meld.end + 1), meld.suit)}
            fits = [c for c in sorted(beyond) if hand[c] > 0] + joker
        for c in fits:
            token = MeldCard(c)
            if isinstance(meld, m.SetMeld) or (not c.is_joker and len(beyond) == 2):
                # a set, or a natural that can only go beyond one end: the card alone
                tries: list[tuple[m.Placed, ...]] = [(m.Placed(token),)]
            else:  # a joker, or the card beyond both ends: its end, when it fits both
                work.spend(2 * BUILD_COST)
                ends = [e for e in m.RUN_ENDS
                        if game.verify_build(idx, (m.Placed(token, e),)) is None]
                tries = ([(m.Placed(token, e),) for e in ends] if len(ends) == 2
                         else [(m.Placed(token),)] if ends else [])
            for placed in tries:
                if placed[0].end is None or isinstance(meld, m.SetMeld):
                    work.spend(BUILD_COST)
                    if game.verify_build(idx, placed) is not None:
                        continue
                option = BuildPlay(idx, placed)
                if size == 1 and not _goes_out_legally(game, option):
                    continue
                out.append(option)
    return out


def release_options(game: Game, work: Work | None = None) -> list[Option]:
    """Per table meld and number of jokers freed, every release with the fewest naturals
    (phase ``play``)."""
    if game.phase in (_DRAW, _OVER) or game.actor is None:
        return []
    work = work if work is not None else Work(WORK_BUDGET)
    hand, _ = work.hand(game)
    rules = game.rules
    out: list[Option] = []
    for idx, meld in enumerate(game.table):
        k = meld.joker_count
        if k == 0 or m.is_closed(meld, rules):
            continue
        if isinstance(meld, m.RunMeld):
            wanted = [Card.parse(a) for _, a in meld.jokers()]
            pool = [c for c in wanted if hand[c] > 0]
            most = len(pool)
        else:
            pool = [c for c in sorted(hand) if c.rank == meld.rank]
            if rules.set_distinct_suits:
                held = {c.suit for c in meld.naturals}
                pool = [c for c in pool if c.suit not in held]
            else:
                pool = [c for c in pool for _ in range(min(hand[c], k))]
            most = len(pool) if rules.release_set == ReleaseSetMode.ALL_MISSING else min(k, len(pool))
        best: dict[int, int] = {}  # jokers freed -> fewest naturals that free them
        seen: set[tuple[Card, ...]] = set()
        for n in range(1, most + 1):
            for laid in combinations(pool, n):
                if laid in seen:
                    continue
                seen.add(laid)
                work.spend(BUILD_COST)
                ruling = m.release(meld, laid, rules, True)
                if not ruling.legal or best.get(ruling.released, n) < n:
                    continue
                if game.verify_release(idx, laid) is not None:
                    continue
                best[ruling.released] = n
                out.append(ReleasePlay(idx, tuple(laid)))
    return out


def lay_options(game: Game, work: Work | None = None) -> list[Option]:
    """Contract rule sets (docs/api.md#contract-rule-sets), phase ``play``, a player not yet down:
    the lay that meets the round's contract with the most cards (then the most points), if any. A
    lay of every card held that may not end the hand (``final_discard`` required) gives way
    to the best lay that keeps one card back."""
    if game.round is None or game.phase in (_DRAW, _OVER) or game.actor is None:
        return []
    if game.actor in game.opened:
        return []  # a second lay is contract-extra-meld
    work = work if work is not None else Work(WORK_BUDGET)
    hand = list(game.hand(game.actor))
    lay, whole = _lay_of(game, hand, work)
    if lay is not None and (not whole or _goes_out_legally(game, lay)):
        return [lay]
    if not whole:
        return []
    best: LayPlay | None = None  # every card laid may not end the hand: keep one back
    most = 0
    for c in sorted(set(hand)):
        rest = list(hand)
        rest.remove(c)
        other, _ = _lay_of(game, rest, work)
        n = 0 if other is None else sum(len(x.cards) for x in other.melds)
        if other is not None and n > most:
            best, most = other, n
    return [] if best is None else [best]


def _lay_of(game: Game, cards: list[Card], work: Work) -> tuple[LayPlay | None, bool]:
    """The most-cards lay of ``cards`` as a play the game accepts (the melds as the solver
    reads them, each with its kind when the cards alone read otherwise), or None; and
    whether that lay melds every card held."""
    assert game.round is not None
    try:
        melds, used = best_lay(cards, game.rules, game.round, max(0, work.left), most_cards=True)
    except SearchTooLarge:
        raise SearchTooLarge(work.budget) from None
    work.spend(used)
    if melds is None:
        return None, False
    whole = sum(len(x.cards) for x in melds) == game.cards_left
    for kinds in (False, True):
        play = LayPlay(tuple(MeldPlay(x.cards, str(x.kind) if kinds else None) for x in melds))
        work.spend(RULING_COST)
        if game.verify_lay([(x.cards, x.kind) for x in play.melds]) is None:
            return play, whole
    return None, whole


def shift_options(game: Game, work: Work | None = None) -> list[Option]:
    """Every legal joker shift (``joker_shift`` ``run_end``, phase ``play``): per run and
    per joker whose natural the player holds, once per end the joker may move to."""
    if (game.phase in (_DRAW, _OVER) or game.actor is None
            or game.rules.joker_shift != JokerShiftMode.RUN_END):
        return []
    work = work if work is not None else Work(WORK_BUDGET)
    hand, _ = work.hand(game)
    size = game.cards_left
    out: list[Option] = []
    for idx, meld in enumerate(game.table):
        if not isinstance(meld, m.RunMeld) or not meld.joker_count:
            continue
        for _, stands in meld.jokers():
            card = Card.parse(stands)
            if hand[card] <= 0:
                continue
            for end in m.RUN_ENDS:
                work.spend(BUILD_COST)
                if game.verify_shift(idx, card, end) is not None:
                    continue
                option = ShiftPlay(idx, card, end)
                if size == 1 and not _goes_out_legally(game, option):
                    continue
                out.append(option)
    return out


def discard_options(game: Game, work: Work | None = None) -> list[Option]:
    """Every discard that ends the turn legally (phase ``play``)."""
    if game.phase in (_DRAW, _OVER) or game.actor is None:
        return []
    hand, jokers = (work if work is not None else Work(0)).hand(game)
    cards = sorted(hand) + ([JOKER] if jokers else [])
    out: list[Option] = []
    for c in cards:
        try:
            v = game.verify_discard(c)
        except EngineError:
            continue
        if v is None:
            out.append(DiscardOption(c))
    return out


KINDS = (draw_options, lay_options, meld_options, build_options, shift_options, release_options,
         discard_options)
"""The option kinds in the order they are listed (a new kind is one more function)."""


def legal_actions(game: Game, work: Work | None = None) -> list[Option]:
    """Every legal next play of the player to move (docs/api.md#legal-next-plays); [] once the hand
    is over. Raises :class:`.solver.SearchTooLarge` past ``work``'s budget (default: the
    solver's)."""
    if game.phase is _OVER:
        return []
    if game.phase is _DRAW:
        return draw_options(game)
    work = work if work is not None else Work(WORK_BUDGET)
    out: list[Option] = []
    for kind in KINDS[1:]:
        out.extend(kind(game, work))
    return out


def can_end(game: Game, options: Sequence[Option], ended: bool) -> bool:
    """Whether the turn could end now without another play: some discard is listed, or the
    turn has ended (the player discarded or went out)."""
    if ended:
        return True
    if game.phase is _DRAW:
        return False
    return any(isinstance(o, DiscardOption) for o in options)


# -- the hint ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hint:
    """The best arrangement of the cards held now (as ``/hands/analyze``, with ``opened``
    as of this point of the turn) and whether the player can still go out this turn."""

    analysis: Analysis
    can_go_out: bool


def hint(game: Game, ended: bool, work: Work | None = None) -> Hint:
    """The hint of ``/turns/options``. Builds on table melds are not counted (as
    ``/hands/analyze``, the analysis sees the hand alone). Before the draw, going out
    this turn means melding every card held now and discarding the card drawn; melds
    laid this turn toward an opening count toward its threshold."""
    assert game.actor is not None or ended
    player = game.actor if game.actor is not None else game.winner
    assert player is not None
    cards = game.hand(player)
    rules = game.rules
    opened = player in game.opened
    if game.phase is _OPENING:
        laid = game.state.opening_points
        if laid >= rules.opening_min_points:
            opened = True
        else:
            rules = replace(rules, opening_min_points=rules.opening_min_points - laid)
    work = work if work is not None else Work(WORK_BUDGET)
    try:
        a = analyze(cards, rules, opened, max(0, work.left), round=game.round)
    except SearchTooLarge:
        raise SearchTooLarge(work.budget) from None
    if ended:
        return Hint(a, game.winner == player)
    if game.phase is _DRAW:
        reaches = a.can_open if game.round is not None else a.points >= rules.opening_min_points
        go = bool(cards) and not a.deadwood and (opened or reaches)
        return Hint(a, go)
    return Hint(a, a.can_go_out)


# -- back to JSON --------------------------------------------------------------------------------

def option_to_data(o: Option) -> dict[str, Any]:
    """An option in the hand record's own shape (a run build names its ``end``)."""
    if isinstance(o, DrawOption):
        return {"draw": {"from": str(o.source)}}
    if isinstance(o, DiscardOption):
        return {"discard": str(o.card)}
    return play_to_data(o)
