"""A simple bot that plays random legal hands, written as hand records.

Used to exercise the referee: every hand it writes must replay as legal. The
bot plays on a :class:`.game.Game` through its public actions (``can_build``,
``can_release``, ``draw``, ``meld`` ...), the API a client's "may I?" uses;
it plans its melds with the meld functions of :mod:`.melds` (an opening is a set of
melds reaching the threshold: more than one play ahead), and picks its builds and its
discard from the game's own list of legal next plays (:mod:`.options`); it keeps only
the order in which it holds its cards (its random choices draw from it). It writes its
record itself, so a record that does not replay as the game went points at a
bug in the referee's reading of it.

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
from . import options
from .cards import JOKER, Card, MeldCard, full_deck
from .game import Game, Phase
from .record import DISCARD, STOCK, BuildPlay, play_to_data
from .rules import AceMode, FinalDiscardMode, PickupMode, ReleasedJokerMode, RuleSet


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
                 ruleset: Any = None, max_turns: int = 150, round: int | None = None) -> None:
        self.rules = rules
        self.rng = random.Random(seed)
        self.players = list(players)
        if rules.is_contract and round is None:
            round = 1 + seed % rules.rounds
        self.round = round
        deck = full_deck(*rules.deck_for(len(self.players)))
        self.rng.shuffle(deck)
        n = rules.deal_size(round)
        self.deal = {p: deck[i * n:(i + 1) * n] for i, p in enumerate(players)}
        rest = deck[len(players) * n:]
        self.start_pile = [rest[0]]
        self.start_stock = rest[1:]  # top first
        self.game = Game(rules, self.players, [self.deal[p] for p in self.players],
                         self.start_stock, self.start_pile, round=round)
        # each player's cards in the order the bot holds them (the game holds them sorted)
        self.hands = {p: list(h) for p, h in self.deal.items()}
        self.turns: list[dict[str, Any]] = []
        self.ruleset = ruleset if ruleset is not None else rules.name
        self.max_turns = max_turns
        self.before_discard: list[Counter[Card]] = []  # per turn: the hand just before the discard
        self.taken: list[Card | None] = []  # per turn: the card taken from the discard pile
        self.down_at: list[bool] = []  # contract rule sets, per turn: the player was down before it

    @property
    def winner(self) -> str | None:
        return self.game.winner

    def record(self) -> dict[str, Any]:
        out = {"ruleset": self.ruleset, "players": self.players,
               "deal": {p: [str(c) for c in h] for p, h in self.deal.items()},
               "stock": [str(c) for c in self.start_stock],
               "discard": [str(c) for c in self.start_pile],
               "turns": self.turns}
        if self.round is not None:
            out["round"] = self.round
        return out

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
        if self.rules.is_contract:
            return self.contract_turn(p)
        rules, rng, hand, game = self.rules, self.rng, self.hands[p], self.game
        t: dict[str, Any] = {"player": p}
        taken = None
        keep = 1 if rules.final_discard == FinalDiscardMode.REQUIRED else 0
        forced: list[Card] | None = None
        pile = game.discard_pile
        if rules.discard_pickup == PickupMode.FREE and pile and rng.random() < 0.25:
            taken = game.draw(DISCARD).card
            t["draw"] = {"from": "discard", "card": str(taken)}
            hand.append(taken)
        elif (rules.discard_pickup != PickupMode.FREE and pile and p in game.opened
              and rng.random() < 0.5 and (forced := self.pickup_meld(hand, keep)) is not None):
            # the card taken must go on the table this turn: the bot lays it in a new meld
            taken = game.draw(DISCARD).card
            t["draw"] = {"from": "discard", "card": str(taken)}
            hand.append(taken)
        elif not self._draw_stock(game, t, hand, rng):
            return False
        plays: list[dict[str, Any]] = []
        t["plays"] = plays
        if forced is not None:
            for c in forced:
                hand.remove(c)
            game.meld(m.as_tokens(forced))
            plays.append({"meld": [str(c) for c in forced]})
        was_opened = p in game.opened
        # melds
        found = _find_melds(hand, rules, rng)
        if not was_opened:
            total = sum(_points(f, rules) for f in found)
            if not found or total < max(rules.opening_min_points, 1) or rng.random() < 0.1:
                found = []
        laid_melds: list[list[Card]] = []
        left = len(hand)
        for f in found:
            if left - len(f) < keep:
                continue
            laid_melds.append(f)
            left -= len(f)
        if not was_opened and laid_melds and (
                sum(_points(f, rules) for f in laid_melds) < rules.opening_min_points):
            # cannot lay enough while keeping a card: the bot holds its melds back
            for f in laid_melds:
                for c in f:
                    hand.remove(c)
            for f in laid_melds:
                hand.extend(f)
            laid_melds = []
        for f in laid_melds:
            for c in f:
                hand.remove(c)
            game.meld(m.as_tokens(f))
            plays.append({"meld": [str(c) for c in f]})
        if game.phase is Phase.OPENING:
            game.open()
        opened = p in game.opened
        # releases (runs only, where the bot can place the joker again at once)
        if opened or not rules.release_requires_opening:
            self.releases(p, plays, keep)
        # builds: one at a time, from the game's own list of legal one-card builds
        if opened or not rules.build_requires_opening:
            while len(hand) > keep:
                builds = options.build_options(game)
                if not builds:
                    break
                build = rng.choice(builds)
                assert isinstance(build, BuildPlay)
                options.apply_option(game, build)
                hand.remove(build.cards[0].token.card)
                plays.append(play_to_data(build))
        if not hand:
            if game.phase is not Phase.OVER:
                game.go_out()
            self._log(t, hand, taken)
            return True
        # discard: one of the game's legal discards (never the card just taken)
        legal = {o.card for o in options.discard_options(game)
                 if isinstance(o, options.DiscardOption)}
        choices = [c for c in hand if c in legal]  # as the bot holds them (copies weigh more)
        if not choices:
            return False
        card = rng.choice(choices)
        self._log(t, hand, taken)
        hand.remove(card)
        game.discard(card)
        t["discard"] = str(card)
        return True

    def _log(self, t: dict[str, Any], hand: list[Card], taken: Card | None) -> None:
        self.turns.append(t)
        self.before_discard.append(Counter(hand))
        self.taken.append(taken)

    def releases(self, p: str, plays: list[dict[str, Any]], keep: int) -> None:
        rules, hand, game = self.rules, self.hands[p], self.game
        for idx, meld in enumerate(game.table):
            if not isinstance(meld, m.RunMeld) or meld.joker_count == 0:
                continue
            for _, stands in meld.jokers():
                c = Card.parse(stands)
                if c not in hand or len(hand) - 1 < keep:
                    continue
                if not game.can_release(idx, [c]):
                    continue
                ruling = m.release(meld, [c], rules, True)  # the meld it leaves, to plan with
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
                game.release(idx, [c])
                plays.append({"release": {"meld": idx, "cards": [str(c)]}})
                if target is not None:
                    game.build(target, [m.Placed(MeldCard(JOKER))])
                    plays.append({"build": {"meld": target, "cards": ["JK"]}})
                elif new_meld is not None:
                    for x in new_meld:
                        if not x.is_joker:
                            hand.remove(x)
                    game.meld(m.as_tokens(new_meld))
                    plays.append({"meld": [str(x) for x in new_meld]})
                else:
                    hand.append(JOKER)
                return

    @staticmethod
    def _draw_stock(game: Game, t: dict[str, Any], hand: list[Card], rng: random.Random) -> bool:
        """Draw from the stock, turning the discard pile over first when the stock is empty
        (False: too few cards to go on); the record names the card half the time."""
        new = None
        if not game.stock_count:
            pile = game.discard_pile
            if len(pile) < 2:
                return False
            new = list(pile[:-1])
            rng.shuffle(new)
            t["restock"] = [str(c) for c in new]
        card = game.draw(STOCK, None, new).card
        t["draw"] = {"from": "stock"} if rng.random() < 0.5 else {"from": "stock",
                                                                    "card": str(card)}
        hand.append(card)
        return True

    def pickup_meld(self, hand: list[Card], keep: int) -> list[Card] | None:
        """A meld with the discard pile's top card, leaving at least ``keep`` other cards."""
        top = self.game.discard_top
        assert top is not None
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

    def joker_target(self, released_from: m.Meld, idx: int) -> int | None:
        """A table meld the freed joker fits (the table as it will be once released)."""
        for t, meld in enumerate(self.game.table):
            base = released_from if t == idx else meld
            ruling = m.build(base, [m.Placed(MeldCard(JOKER))], self.rules, True)
            if ruling.valid:
                return t
        return None


    # -- contract rule sets (docs/api.md#contract-rule-sets) -----------------------------------
    def contract_turn(self, p: str) -> bool:
        """A turn of a contract rule set: maybe a call, the draw, going down when the hand
        holds the contract, then shifts and builds, then a discard (never a joker where
        jokers may not be discarded)."""
        rules, rng, game, hand = self.rules, self.rng, self.game, self.hands[p]
        t: dict[str, Any] = {"player": p}
        down = was_down = p in game.opened
        taken = None
        call = self.pick_call(p)
        if call is not None:
            caller, granted = call
            top = game.discard_top
            assert top is not None
            op = game.call(caller, granted)
            entry: dict[str, Any] = {"player": caller, "granted": granted}
            if granted:
                assert op.penalty is not None
                self.hands[caller].extend([top, *op.penalty])
                if rng.random() < 0.5:
                    entry["penalty"] = [str(c) for c in op.penalty]
            t["call"] = entry
        top = game.discard_top
        if call is not None:
            from_pile = not call[1]
        else:
            from_pile = (top is not None and (not down or rules.discard_after_down)
                         and self.wants(hand, top) and rng.random() < 0.6)
        if from_pile:
            taken = game.draw(DISCARD).card
            t["draw"] = {"from": "discard", "card": str(taken)}
            hand.append(taken)
        elif not self._draw_stock(game, t, hand, rng):
            return False
        plays: list[dict[str, Any]] = []
        t["plays"] = plays
        if not down:
            lay = self.find_lay(hand)
            if lay is not None:
                melds = [(m.as_tokens(cards), kind) for cards, kind in lay]
                if game.can_lay(melds):
                    game.lay(melds)
                    for cards, _ in lay:
                        for c in cards:
                            hand.remove(c)
                    plays.append({"lay": [
                        {"cards": [str(c) for c in cards], "kind": kind} if kind
                        else [str(c) for c in cards] for cards, kind in lay]})
                    down = True
        if down:
            self.shifts(plays, hand)
            for c in rng.sample(hand, len(hand)):
                table = game.table
                for idx in rng.sample(range(len(table)), len(table)):
                    placed = [m.Placed(MeldCard(c))]
                    if game.can_build(idx, placed):
                        game.build(idx, placed)
                        hand.remove(c)
                        plays.append({"build": {"meld": idx, "cards": [str(c)]}})
                        break
        if not hand:
            game.go_out()
            self._log(t, hand, taken)
            self.down_at.append(was_down)
            return True
        choices = [c for c in hand if c != taken and (rules.joker_discard or not c.is_joker)]
        if not choices:
            return False
        card = rng.choice(choices) if rng.random() < 0.15 else self.worst(hand, choices)
        self._log(t, hand, taken)
        self.down_at.append(was_down)
        hand.remove(card)
        game.discard(card)
        t["discard"] = str(card)
        return True

    def pick_call(self, p: str) -> tuple[str, bool] | None:
        """Now and then a player who wants the discard calls it; the player to move grants
        most calls (a refusal only where they may take the discard themselves)."""
        game, rng = self.game, self.rng
        top = game.discard_top
        if top is None or top.is_joker or rng.random() < 0.5:
            return None
        for q in rng.sample(self.players, len(self.players)):
            if q == p or not self.wants(self.hands[q], top):
                continue
            granted = rng.random() < 0.7
            if game.can_call(q, granted):
                return q, granted
            if game.can_call(q, not granted):
                return q, not granted
        return None

    @staticmethod
    def wants(hand: list[Card], card: Card) -> bool:
        """The card would pair with one of the hand's, or sit near one in its suit."""
        return not card.is_joker and any(
            not c.is_joker and (c.rank == card.rank or (c.suit == card.suit and abs(c.rank - card.rank) <= 2))
            for c in hand)

    @staticmethod
    def worst(hand: list[Card], choices: list[Card]) -> Card:
        """The choice that helps the hand least (fewest cards of its rank or near it in suit)."""
        def use(card: Card) -> tuple[int, int]:
            if card.is_joker:
                return (99, 0)
            near = sum(1 for c in hand if c is not card and not c.is_joker and (
                c.rank == card.rank or (c.suit == card.suit and 0 < abs(c.rank - card.rank) <= 2)))
            return (near, -card.rank)
        return min(choices, key=use)

    def find_lay(self, hand: list[Card]) -> list[tuple[list[Card], str | None]] | None:
        """The round's contract from the hand, if the bot sees one: fours (runs of one suit,
        one joker at most filling a gap or an end), then threes (sets, two naturals and a
        joker at the least), each of its own suit / rank when ``contract_distinct``."""
        rules, rng = self.rules, self.rng
        assert self.round is not None
        threes, fours = rules.contract(self.round)
        pool = Counter(c for c in hand if not c.is_joker)
        jokers = sum(1 for c in hand if c.is_joker)
        out: list[tuple[list[Card], str | None]] = []
        suits: set[str] = set()
        for _ in range(fours):
            best: list[Card] | None = None
            for suit in rng.sample("cdhs", 4):
                if rules.contract_distinct and suit in suits:
                    continue
                run = _run_in(pool, suit, min(jokers, 1), rules)
                if run is not None and (best is None or len(run) > len(best)):
                    best = run
            if best is None:
                return None
            for c in best:
                if c.is_joker:
                    jokers -= 1
                else:
                    pool[c] -= 1
                    suits.add(c.suit)
            out.append((best, "run" if rng.random() < 0.3 else None))
        ranks: set[int] = set()
        for _ in range(threes):
            by_rank: dict[int, list[Card]] = {}
            for c in pool.elements():
                by_rank.setdefault(c.rank, []).append(c)
            options = [(rank, cards) for rank, cards in by_rank.items()
                       if not (rules.contract_distinct and rank in ranks)
                       and (len(cards) >= rules.set_min or (len(cards) >= 2 and jokers))]
            if not options:
                return None
            rank, cards = max(options, key=lambda o: len(o[1]))
            chosen = cards[:rules.set_min] if len(cards) >= rules.set_min else [*cards[:2], JOKER]
            if not m.validate(chosen, rules, m.SET).valid:
                return None
            for c in chosen:
                if c.is_joker:
                    jokers -= 1
                else:
                    pool[c] -= 1
            ranks.add(rank)
            out.append((chosen, "set" if rng.random() < 0.3 else None))
        return out

    def shifts(self, plays: list[dict[str, Any]], hand: list[Card]) -> None:
        """Lay a card a run's joker stands for in its place (the joker moves to an end)."""
        game, rng = self.game, self.rng
        for idx, meld in enumerate(game.table):
            if not isinstance(meld, m.RunMeld) or not meld.joker_count:
                continue
            for _, stands in meld.jokers():
                c = Card.parse(stands)
                if c not in hand:
                    continue
                end = rng.choice([None, *m.RUN_ENDS])
                if not game.can_shift(idx, c, end):
                    end = None
                    if not game.can_shift(idx, c, end):
                        continue
                game.shift(idx, c, end)
                hand.remove(c)
                shift: dict[str, Any] = {"meld": idx, "card": str(c)}
                if end is not None:
                    shift["end"] = end
                plays.append({"shift": shift})
                break


def _run_in(pool: Counter[Card], suit: str, jokers: int, rules: RuleSet) -> list[Card] | None:
    """The longest run of ``suit`` the pool's naturals make with at most ``jokers`` jokers
    (none side by side: one at most), ascending; None when there is none."""
    have = {c.rank for c, k in pool.items() if k > 0 and c.suit == suit}
    best: list[Card] | None = None
    top = min(13, rules.effective_run_max)
    for length in range(rules.run_min, top + 1):
        for start in range(1, 14 - length + 2):
            values = range(start, start + length)
            missing = [v for v in values if m.rank_of_value(v) not in have]
            if len(missing) > jokers or length - len(missing) < max(2, rules.run_min_naturals):
                continue
            if (start == 1 and rules.ace == AceMode.HIGH) or (
                    start + length - 1 == 14 and rules.ace == AceMode.LOW):
                continue
            cards = [JOKER if v in missing else Card(m.rank_of_value(v), suit) for v in values]
            if best is None or length > len(best) or (length == len(best) and not missing):
                best = cards
    return best


def play_hand(rules: RuleSet, players: Sequence[str], seed: int, ruleset: Any = None,
              max_turns: int = 150) -> dict[str, Any]:
    """One random legal hand as a JSON hand record (stock and starting discard given)."""
    return Bot(rules, players, seed, ruleset, max_turns).play()


def _points(cards: list[Card], rules: RuleSet) -> int:
    """The points of cards the bot found to be a legal meld."""
    meld = m.validate(cards, rules).meld
    assert meld is not None
    return meld.points
