"""End-of-hand scoring (docs/api.md#end-of-hand-scoring).

* ``winner_collects`` (S0): the winner gains the sum of the losers' hand values
  (after a special win each value × ``special_multiplier``, 1 in ``kaluki-51``);
  after a special win each loser also loses ``special_flat`` points, which go to
  nobody.
* ``bonus_penalty`` (S1, S3): the winner gains ``out_bonus`` (special:
  ``special_bonus``); each loser's penalty grows by hand value × 1 (special:
  × ``special_multiplier``).
* ``penalty``: each loser's penalty grows by hand value (special: ×
  ``special_multiplier``); the winner scores 0.

>>> from service.engine.rules import CATALOG
>>> from service.engine.cards import parse_cards
>>> s = score_hand(CATALOG["kaluki-hunt"], "kim", "out",
...                [("kim", []), ("lou", parse_cards(["Qs", "4d"]))])
>>> [(p.id, p.hand_value, p.points, p.penalty) for p in s.scores]
[('kim', 0, 20, 0), ('lou', 14, 0, 14)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import Card, check_deck
from .errors import EngineError
from .players import player_id
from .rules import RuleSet, ScoringMode


class Finish(StrEnum):
    """How a hand ends for its winner (docs/api.md#end-of-hand-scoring): going out, or a special
    win."""

    OUT = "out"
    SPECIAL = "special"


FINISHES = tuple(Finish)


class ScoringError(EngineError):
    """A hand that cannot be scored as given (not a ruling): ``player-count``,
    ``duplicate-player``, ``unknown-winner``, ``invalid-finish``, ``winner-holds-cards``."""

    code = "invalid-hand"

    field: str

    def __init__(self, code: str, message: str, field: str = "players") -> None:
        super().__init__(message, code=code, field=field)


def card_value(card: Card, rules: RuleSet) -> int:
    """Penalty value of a card left in hand: jokers at ``card_values.joker``."""
    return rules.card_values.joker if card.is_joker else rules.natural_value(card.rank, card.suit)


def hand_value(cards: Iterable[Card], rules: RuleSet) -> int:
    return sum(card_value(c, rules) for c in cards)


@dataclass(frozen=True, slots=True)
class PlayerScore:
    id: str
    hand_value: int
    points: int
    penalty: int

    def to_dict(self) -> dict[str, Any]:
        """The score as data: the one rendering of it, for answers and ledgers alike."""
        return {"id": self.id, "hand_value": self.hand_value, "points": self.points,
                "penalty": self.penalty}


@dataclass(frozen=True, slots=True)
class HandScore:
    special: bool
    scores: tuple[PlayerScore, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"special": self.special, "scores": [s.to_dict() for s in self.scores]}


def check_seats(count: int, rules: RuleSet) -> None:
    if not rules.players_min <= count <= rules.players_max:
        raise ScoringError("player-count", f"{rules.name} seats {rules.players_min} to "
                           f"{rules.players_max} players, not {count}")


def score_hand(rules: RuleSet, winner: str, finish: str,
               players: Sequence[tuple[str, Sequence[Card]]]) -> HandScore:
    """Score a finished hand from the cards every player still holds (ids normalised,
    :mod:`.players`)."""
    ids = [player_id(pid, f"players.{i}.id") for i, (pid, _) in enumerate(players)]
    players = [(pid, cards) for pid, (_, cards) in zip(ids, players, strict=True)]
    winner = player_id(winner, "winner")
    check_seats(len(ids), rules)
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        raise ScoringError("duplicate-player", f"player {dup!r} appears twice")
    if winner not in ids:
        raise ScoringError("unknown-winner", f"the winner {winner!r} is not a player", field="winner")
    if finish not in FINISHES:
        raise ScoringError("invalid-finish", "finish is \"out\" or \"special\"", field="finish")
    check_deck((c for _, cards in players for c in cards), *rules.deck_for(len(ids)))
    held = dict(players)
    if held[winner]:
        raise ScoringError("winner-holds-cards", f"the winner {winner!r} still holds "
                           f"{len(held[winner])} card(s)", field="players")
    special = finish == Finish.SPECIAL
    values = {pid: hand_value(cards, rules) for pid, cards in players}
    # docs/api.md#end-of-hand-scoring: after a special win the losers' hand values count x
    # special_multiplier under every mode (winner_collects included; kaluki-51 has 1)
    multiplier = rules.special_multiplier if special else 1
    losers_total = sum(v for pid, v in values.items() if pid != winner) * multiplier
    out = []
    for pid in ids:
        v = values[pid]
        if pid == winner:
            points = {ScoringMode.WINNER_COLLECTS: losers_total,
                      ScoringMode.BONUS_PENALTY: rules.special_bonus if special else rules.out_bonus,
                      ScoringMode.PENALTY: 0}[rules.scoring]
            out.append(PlayerScore(pid, v, points, 0))
        elif rules.scoring == ScoringMode.WINNER_COLLECTS:
            out.append(PlayerScore(pid, v, -rules.special_flat if special else 0, 0))
        else:
            out.append(PlayerScore(pid, v, 0, v * multiplier))
    return HandScore(special, tuple(out))
