"""A simple bot that plays random legal hands, written as hand records.

Used to exercise the referee: every hand it writes must replay as legal. The
bot keeps its own bookkeeping of hands, stock and table (it uses the meld
functions of :mod:`.melds` for single melds but none of the referee's turn
logic), so a disagreement between the two points at a bug in one of them.

>>> from service.engine.rules import CATALOG
>>> data = play_hand(CATALOG["kaluki-hunt"], ["ann", "bob"], seed=1)
>>> sorted(data) == ["deal", "discard", "players", "ruleset", "stock", "turns"]
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from . import melds as m
from .cards import JOKER, Card, MeldCard, full_deck
from .rules import FinalDiscardMode, PickupMode, ReleasedJokerMode, RuleSet


def _find_melds(hand: list[Card], rules: RuleSet, rng: random.Random) -> list[list[Card]]:
    """Disjoint natural melds in a hand (sets of distinct suits, runs), plus a joker
    now and then to stretch a run or a pair into a meld."""
    pool = Counter(hand)
    found: list[list[Card]] = []
    # runs first
    for suit in rng.sample("cdhs", 4):
        ranks = sorted({c.rank for c in pool if not c.is_joker and c.suit == suit and pool[c] > 0})
        seq: list[int] = []
        for r in ranks + [99]:
            if seq and r == seq[-1] + 1:
                seq.append(r)
                continue
            if len(seq) >= rules.run_min:
                cards = [Card(x, suit) for x in seq[: rules.effective_run_max]]
                if m.validate(cards, rules, m.RUN).valid:
                    found.append(cards)
                    pool.subtract(cards)
            seq = [r]
    # sets
    by_rank: dict[int, list[Card]] = {}
    for c in pool.elements():
        if not c.is_joker and all(x.suit != c.suit for x in by_rank.get(c.rank, [])):
            by_rank.setdefault(c.rank, []).append(c)
    for cards in by_rank.values():
        cards = cards[: rules.effective_set_max]
        if len(cards) >= rules.set_min and m.validate(cards, rules, m.SET).valid:
            found.append(cards)
            pool.subtract(cards)
    # a pair plus a joker
    if pool[JOKER] > 0 and rng.random() < 0.7:
        for cards in by_rank.values():
            if len(cards) == rules.set_min - 1 and all(pool[c] > 0 for c in cards):
                trial = [*cards, JOKER]
                if m.validate(trial, rules, m.SET).valid:
                    found.append(trial)
                    pool.subtract(trial)
                    break
    return found


class Bot:
    """Plays one hand; :meth:`record` is the resulting hand record (JSON form)."""

    def __init__(self, rules: RuleSet, players: Sequence[str], seed: int,
                 ruleset: Any = None, max_turns: int = 150) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.players = list(players)
        deck = full_deck(rules.decks, rules.jokers)
        self.rng.shuffle(deck)
        n = rules.hand_size
        self.deal = {p: deck[i * n:(i + 1) * n] for i, p in enumerate(players)}
        rest = deck[len(players) * n:]
        self.pile: list[Card] = [rest[0]]
        self.stock: list[Card] = rest[1:]  # top first
        self.start_stock = list(self.stock)
        self.start_pile = list(self.pile)
        self.hands = {p: list(h) for p, h in self.deal.items()}
        self.table: list[m.Meld] = []
        self.opened: set[str] = set()
        self.turns: list[dict[str, Any]] = []
        self.ruleset = ruleset if ruleset is not None else rules.name
        self.max_turns = max_turns
        self.winner: str | None = None
        self.before_discard: list[Counter[Card]] = []  # per turn: the hand just before the discard
        self.taken: list[Card | None] = []  # per turn: the card taken from the discard pile

    def record(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "players": self.players,
                "deal": {p: [str(c) for c in h] for p, h in self.deal.items()},
                "stock": [str(c) for c in self.start_stock],
                "discard": [str(c) for c in self.start_pile],
                "turns": self.turns}

    def play(self) -> dict[str, Any]:
        for i in range(self.max_turns):
            p = self.players[i % len(self.players)]
            if not self.turn(p):
                break
            if self.winner:
                break
        return self.record()

    # -- one turn ------------------------------------------------------------------------
    def turn(self, p: str) -> bool:
        rules, rng, hand = self.rules, self.rng, self.hands[p]
        t: dict[str, Any] = {"player": p}
        taken = None
        keep = 1 if rules.final_discard == FinalDiscardMode.REQUIRED else 0
        forced: list[Card] | None = None
        if rules.discard_pickup == PickupMode.FREE and self.pile and rng.random() < 0.25:
            taken = self.pile.pop()
            t["draw"] = {"from": "discard", "card": str(taken)}
            hand.append(taken)
        elif (rules.discard_pickup != PickupMode.FREE and self.pile and p in self.opened
              and rng.random() < 0.5 and (forced := self.pickup_meld(hand, keep)) is not None):
            # the card taken must go on the table this turn: the bot lays it in a new meld
            taken = self.pile.pop()
            t["draw"] = {"from": "discard", "card": str(taken)}
            hand.append(taken)
        else:
            if not self.stock:
                if len(self.pile) < 2:
                    return False
                new = self.pile[:-1]
                rng.shuffle(new)
                self.stock = new
                self.pile = self.pile[-1:]
                t["restock"] = [str(c) for c in new]
            card = self.stock.pop(0)
            t["draw"] = {"from": "stock"} if rng.random() < 0.5 else {"from": "stock",
                                                                        "card": str(card)}
            hand.append(card)
        plays: list[dict[str, Any]] = []
        t["plays"] = plays
        if forced is not None:
            for c in forced:
                hand.remove(c)
            forced_meld = m.validate(forced, rules).meld
            assert forced_meld is not None
            self.table.append(forced_meld)
            plays.append({"meld": [str(c) for c in forced]})
        was_opened = p in self.opened
        # melds
        found = _find_melds(hand, rules, rng)
        if not was_opened:
            total = sum(_points(f, rules) for f in found)
            if not found or total < max(rules.opening_min_points, 1) or rng.random() < 0.1:
                found = []
        laid_melds: list[list[Card]] = []
        for f in found:
            if len(hand) - len(f) < keep:
                continue
            laid_melds.append(f)
            for c in f:
                hand.remove(c)
            meld = m.validate(f, rules).meld
            assert meld is not None
            self.table.append(meld)
            plays.append({"meld": [str(c) for c in f]})
        if not was_opened and laid_melds:
            pts = sum(_points(f, rules) for f in laid_melds)
            if pts < rules.opening_min_points:
                # could not lay enough while keeping a card: take the turn back
                for f in laid_melds:
                    hand.extend(f)
                    self.table.pop()
                del plays[:]
                laid_melds = []
            else:
                self.opened.add(p)
        opened = p in self.opened
        # releases (runs only, where the bot can place the joker again at once)
        if opened or not rules.release_requires_opening:
            self.releases(p, plays, keep)
        # builds
        if opened or not rules.build_requires_opening:
            for c in rng.sample(hand, len(hand)):
                if len(hand) <= keep:
                    break
                for idx in rng.sample(range(len(self.table)), len(self.table)):
                    ruling = m.build(self.table[idx], [m.Placed(MeldCard(c))], rules, opened)
                    if ruling.valid:
                        self.table[idx] = ruling.meld
                        hand.remove(c)
                        plays.append({"build": {"meld": idx, "cards": [str(c)]}})
                        break
        if not hand:
            self.winner = p
            self._log(t, hand, taken)
            return True
        # discard
        choices = [c for c in hand if c != taken] or []
        if not choices:
            return False  # the bot never discards the card just taken
        card = rng.choice(choices)
        self._log(t, hand, taken)
        hand.remove(card)
        self.pile.append(card)
        t["discard"] = str(card)
        if not hand:
            self.winner = p
        return True

    def _log(self, t: dict[str, Any], hand: list[Card], taken: Card | None) -> None:
        self.turns.append(t)
        self.before_discard.append(Counter(hand))
        self.taken.append(taken)

    def releases(self, p: str, plays: list[dict[str, Any]], keep: int) -> None:
        rules, hand = self.rules, self.hands[p]
        for idx, meld in enumerate(list(self.table)):
            if not isinstance(meld, m.RunMeld) or meld.joker_count == 0:
                continue
            for _, stands in meld.jokers():
                c = Card.parse(stands)
                if c not in hand or len(hand) - 1 < keep:
                    continue
                ruling = m.release(meld, [c], rules, p in self.opened)
                if not ruling.legal:
                    continue
                new_meld = None
                if rules.released_joker == ReleasedJokerMode.HAND:
                    target = None
                elif rules.released_joker == ReleasedJokerMode.NEW_MELD:
                    target = None
                    rest = list(hand)
                    rest.remove(c)
                    new_meld = self.joker_meld(rest, keep)
                    if new_meld is None:
                        continue
                else:
                    target = self.joker_target(ruling.meld, idx)
                    if target is None:
                        continue
                hand.remove(c)
                self.table[idx] = ruling.meld
                plays.append({"release": {"meld": idx, "cards": [str(c)]}})
                if target is not None:
                    tidx, grown = target
                    self.table[tidx] = grown
                    plays.append({"build": {"meld": tidx, "cards": ["JK"]}})
                elif new_meld is not None:
                    for x in new_meld:
                        if not x.is_joker:
                            hand.remove(x)
                    self.table.append(m.validate(new_meld, rules).meld)  # type: ignore[arg-type]
                    plays.append({"meld": [str(x) for x in new_meld]})
                else:
                    hand.append(JOKER)
                return

    def pickup_meld(self, hand: list[Card], keep: int) -> list[Card] | None:
        """A meld with the discard pile's top card, leaving at least ``keep`` other cards."""
        top = self.pile[-1]
        for f in _find_melds([*hand, top], self.rules, self.rng):
            if top in f and len(hand) + 1 - len(f) >= keep and (
                    keep == 0 or any(c != top for c in hand if c not in f)):
                return f
        return None

    def joker_meld(self, hand: list[Card], keep: int) -> list[Card] | None:
        """A new meld of two natural cards and the freed joker (leaving ``keep`` cards)."""
        if len(hand) - 2 < keep:
            return None
        naturals = sorted({c for c in hand if not c.is_joker})
        for i, a in enumerate(naturals):
            for b in naturals[i + 1:]:
                for trial in ([a, b, JOKER], [JOKER, a, b], [a, JOKER, b]):
                    if m.validate(trial, self.rules).valid:
                        return trial
        return None

    def joker_target(self, released_from: m.Meld, idx: int) -> tuple[int, m.Meld] | None:
        for t, meld in enumerate(self.table):
            base = released_from if t == idx else meld
            ruling = m.build(base, [m.Placed(MeldCard(JOKER))], self.rules, True)
            if ruling.valid:
                return t, ruling.meld
        return None


def play_hand(rules: RuleSet, players: Sequence[str], seed: int, ruleset: Any = None,
              max_turns: int = 150) -> dict[str, Any]:
    """One random legal hand as a JSON hand record (stock and starting discard given)."""
    return Bot(rules, players, seed, ruleset, max_turns).play()


def _points(cards: list[Card], rules: RuleSet) -> int:
    """The points of cards the bot found to be a legal meld."""
    meld = m.validate(cards, rules).meld
    assert meld is not None
    return meld.points
