"""Rule sets as data (docs/api.md#rule-sets-and-overrides).

A :class:`RuleSet` carries every parameter the contract names; the catalog holds
the four published rule sets. A request names one (``"kaluki-51"``) or derives
one (``{"base": "kaluki-51", "overrides": {"run_min": 3}}``).

>>> resolve("kaluki-51").opening_min_points
51
>>> resolve({"base": "kaluki-uk", "overrides": {"jokers": 4}}).jokers
4
>>> resolve("kaluki-52")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
UnknownRuleSet: unknown rule set 'kaluki-52'
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar, Final, Literal

from .errors import EngineError


class RuleSetError(EngineError):
    """A rule set that cannot be used; ``code`` and ``field`` say why and where."""

    code = "invalid-ruleset"

    field: str

    def __init__(self, message: str, field: str = "ruleset", **params: Any) -> None:
        super().__init__(message, field=field, params=params)


class UnknownRuleSet(RuleSetError):
    code = "unknown-ruleset"

    def __init__(self, name: object) -> None:
        self.name = name
        super().__init__(f"unknown rule set {name!r}", name=name)


class UnknownParameter(RuleSetError):
    code = "unknown-parameter"

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown rule-set parameter {name!r}", field=f"ruleset.overrides.{name}",
                         name=name)


class InvalidParameter(RuleSetError):
    """A parameter's value out of range, or contradicting others (``involved``: the other
    parameters of the contradiction, any of which the request may have sent)."""

    code = "invalid-parameter"

    involved: tuple[str, ...] = ()
    """A contradiction's parameters: the error names the first of them the request sent."""

    def __init__(self, name: str, reason: str, involved: tuple[str, ...] = ()) -> None:
        super().__init__(f"{name}: {reason}", field=f"ruleset.overrides.{name}", name=name,
                         reason=reason)
        self.name = name
        self.reason = reason
        self.involved = involved

    def naming_one_of(self, sent: Mapping[str, Any]) -> InvalidParameter:
        """The same contradiction named after a parameter the request sent
        (docs/api.md#rule-sets-and-overrides: a value that contradicts another names the parameter
        the request sent; issue 19):
        this one if it was sent, else the first of ``involved`` that was."""
        if self.name in sent:
            return self
        for other in self.involved:
            if other in sent:
                return InvalidParameter(other, self.reason,
                                        (self.name, *(p for p in self.involved if p != other)))
        return self


def _contradiction(reason: str, *names: str) -> InvalidParameter:
    """Values that contradict each other: named after the first of ``names`` the request
    sent (:meth:`RuleSet.with_overrides` renames it), else the first."""
    return InvalidParameter(names[0], reason, involved=names)


class RoundError(EngineError):
    """A ``round`` a contract rule set cannot take (docs/api.md#contract-rule-sets)."""

    code = "invalid-round"


class RoundRequired(RoundError):
    """A contract rule set's request without ``round``."""

    code = "round-required"

    def __init__(self) -> None:
        super().__init__("a contract rule set needs \"round\" (1-based: the deal, whose "
                         "contract and deal size apply)", field="round")


class InvalidRound(RoundError):
    """A ``round`` outside 1..len(contracts), or one given to a rule set without contracts."""

    code = "invalid-round"

    def __init__(self, value: object, rounds: int) -> None:
        if rounds:
            message = f"round {value!r} is not a round of this rule set (1 to {rounds})"
        else:
            message = f"round {value!r}: this rule set has no contracts, so no rounds"
        super().__init__(message, field="round", params={"round": value, "rounds": rounds})

@dataclass(frozen=True, slots=True)
class CardValues:
    """Penalty values of cards left in a hand (and meld points): 2-9 count face value."""

    ace: int = 11
    face: int = 10
    joker: int = 25
    ace_red: int | None = None
    """Optional (contract rule sets): red aces (hearts, diamonds) count this and ``ace``
    counts the black ones; None (absent from the published object): every ace is ``ace``."""

    def published(self) -> dict[str, int]:
        """The ``card_values`` object as published (``ace_red`` only when set)."""
        out = {"ace": self.ace, "face": self.face, "joker": self.joker}
        if self.ace_red is not None:
            out["ace_red"] = self.ace_red
        return out


@dataclass(frozen=True, slots=True)
class DeckRow:
    """One row of ``deck_by_players``: up to ``players_max`` seats play with ``decks``
    52-card decks and ``jokers`` jokers."""

    players_max: int
    decks: int
    jokers: int


class AceMode(StrEnum):
    """Where an ace may stand in a run (``ace``)."""

    HIGH = "high"
    LOW = "low"
    HIGH_OR_LOW = "high_or_low"
    AROUND = "around"


class PickupMode(StrEnum):
    """What a card taken from the discard pile must do (``discard_pickup``)."""

    FREE = "free"
    MELD_SAME_TURN = "meld_same_turn"
    NEW_MELD_SAME_TURN = "new_meld_same_turn"


class ReleaseSetMode(StrEnum):
    """How a joker leaves a set (``release_set``)."""

    NEVER = "never"
    ONE_MISSING = "one_missing"
    ALL_MISSING = "all_missing"


class ReleaseRunMode(StrEnum):
    """How a joker leaves a run (``release_run``)."""

    NEVER = "never"
    EXACT = "exact"


class ReleasedJokerMode(StrEnum):
    """Where a released joker must go (``released_joker``)."""

    HAND = "hand"
    ANY_MELD = "any_meld"
    NEW_MELD = "new_meld"


class FinalDiscardMode(StrEnum):
    """Whether a hand must end with a discard (``final_discard``)."""

    REQUIRED = "required"
    OPTIONAL = "optional"


class SpecialWin(StrEnum):
    """The one-turn win's name (``special_win``)."""

    KALUKI = "kaluki"
    HUNT = "hunt"
    KALOOKIE = "kalookie"
    DOWN_AND_OUT = "down-and-out"


class ScoringMode(StrEnum):
    """End-of-hand scoring (``scoring``, docs/api.md#end-of-hand-scoring)."""

    WINNER_COLLECTS = "winner_collects"
    BONUS_PENALTY = "bonus_penalty"
    PENALTY = "penalty"


class MatchEndMode(StrEnum):
    """How a match ends (``match_end``, docs/api.md#match-ledgers)."""

    GOAL = "goal"
    ELIMINATION = "elimination"
    HANDS = "hands"
    CONTRACTS = "contracts"


class JokerShiftMode(StrEnum):
    """Whether a run's joker may be shifted to its end (``joker_shift``,
    docs/api.md#contract-rule-sets)."""

    NONE = "none"
    RUN_END = "run_end"


REPRESENTED: Final = "represented"
JokerValue = Literal["represented"] | int
"""``joker_opening_value``: the card a joker stands for, or a fixed number."""

# every mode's values, in the contract's order (members equal their strings)
ACE_MODES = tuple(AceMode)
PICKUP_MODES = tuple(PickupMode)
RELEASE_SET_MODES = tuple(ReleaseSetMode)
RELEASE_RUN_MODES = tuple(ReleaseRunMode)
RELEASED_JOKER_MODES = tuple(ReleasedJokerMode)
FINAL_DISCARD_MODES = tuple(FinalDiscardMode)
SPECIAL_WINS = tuple(SpecialWin)
SCORING_MODES = tuple(ScoringMode)
MATCH_END_MODES = tuple(MatchEndMode)
JOKER_SHIFT_MODES = tuple(JokerShiftMode)

CONTRACT_DEAL = "contract"
"""``deal_sizes`` ``"contract"``: 3 cards per three and 4 per four of the round's contract."""
MAX_CONTRACTS = 20
MAX_CONTRACT_MELDS = 5
MAX_DECK_ROWS = 8


class Kind:
    """The values one kind of parameter takes: how a request's JSON value is read, checked,
    held, published, described and written as a JSON schema (one small class per kind; a
    :class:`Param` holds one).

    >>> Integer(2, 8).check("players_max", 9)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    InvalidParameter: players_max: must be between 2 and 8
    >>> Choice(AceMode).held("around"), Integer(2, 8, nullable=True).values
    (<AceMode.AROUND: 'around'>, 'an integer from 2 to 8 or null')
    """

    __slots__ = ()

    listed: ClassVar[bool] = False
    """A JSON list: an override's cache key holds it as JSON text."""

    def read(self, name: str, value: object, current: object) -> object:
        """An override's JSON value in the form a :class:`RuleSet` holds (``current``: the
        value it replaces); what cannot be read is left for :meth:`check` to refuse."""
        return value

    def check(self, name: str, value: object) -> None:
        """Raise :class:`InvalidParameter` unless ``value`` (as held) is one of the values."""
        raise NotImplementedError

    def held(self, value: object) -> object:
        """A checked value as the rule set holds it (a choice's string as its enum member)."""
        return value

    def published(self, value: object) -> object:
        """A held value as ``GET /v1/rulesets/{name}`` writes it (plain JSON)."""
        return value

    @property
    def values(self) -> str:
        """The values in words, after a parameter's description."""
        raise NotImplementedError

    def json_schema(self) -> dict[str, Any]:
        """The values as a JSON schema (the OpenAPI document's ``RuleSetParameters``)."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Integer(Kind):
    """An integer within bounds (``nullable``: null is a value too, as in ``set_max``)."""

    minimum: int = 0
    maximum: int = 10_000
    nullable: bool = False

    def check(self, name: str, value: object) -> None:
        if self.nullable and value is None:
            return
        if not _is_int(value):
            raise InvalidParameter(name, "must be an integer")
        assert isinstance(value, int)
        if not self.minimum <= value <= self.maximum:
            raise InvalidParameter(name, f"must be between {self.minimum} and {self.maximum}")

    @property
    def values(self) -> str:
        text = f"an integer from {self.minimum:,} to {self.maximum:,}"
        return text + " or null" if self.nullable else text

    def json_schema(self) -> dict[str, Any]:
        number = {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}
        return {"anyOf": [number, {"type": "null"}]} if self.nullable else number


@dataclass(frozen=True, slots=True)
class Boolean(Kind):
    """True or false."""

    def check(self, name: str, value: object) -> None:
        if not isinstance(value, bool):
            raise InvalidParameter(name, "must be true or false")

    @property
    def values(self) -> str:
        return "true or false"

    def json_schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


@dataclass(frozen=True, slots=True)
class Choice(Kind):
    """One of an enum's values, held as its member."""

    modes: type[StrEnum]

    @property
    def choices(self) -> tuple[str, ...]:
        """The values, in the contract's order."""
        return tuple(self.modes)

    def check(self, name: str, value: object) -> None:
        if value not in self.choices:
            raise InvalidParameter(name, "must be one of " + ", ".join(self.choices))

    def held(self, value: object) -> object:
        return value if type(value) is self.modes else self.modes(str(value))

    def published(self, value: object) -> object:
        assert isinstance(value, StrEnum)
        return value.value  # a plain string, as the contract writes it

    @property
    def values(self) -> str:
        return "one of " + ", ".join(self.choices)

    def json_schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.choices)}


@dataclass(frozen=True, slots=True)
class JokerOpening(Kind):
    """``joker_opening_value``: ``"represented"`` or an integer from 0 to 100."""

    def check(self, name: str, value: object) -> None:
        if value != REPRESENTED and not (_is_int(value) and 0 <= value <= 100):  # type: ignore[operator]
            raise InvalidParameter(name, "must be \"represented\" or an integer 0-100")

    @property
    def values(self) -> str:
        return "\"represented\" or an integer from 0 to 100"

    def json_schema(self) -> dict[str, Any]:
        return {"oneOf": [{"type": "string", "enum": [REPRESENTED]},
                          {"type": "integer", "minimum": 0, "maximum": 100}]}


@dataclass(frozen=True, slots=True)
class CardValueTable(Kind):
    """``card_values``: an object of integers 0-100; an override changes only the keys it
    names (``ace_red`` null takes ``ace_red`` away)."""

    def read(self, name: str, value: object, current: object) -> object:
        if not isinstance(value, Mapping):
            raise InvalidParameter(name, "must be an object {ace, face, joker}")
        assert isinstance(current, CardValues)
        unknown = set(value) - {"ace", "face", "joker", "ace_red"}
        if unknown:
            raise InvalidParameter(name, f"unknown key {sorted(unknown)[0]!r}")
        for k, v in value.items():
            if k == "ace_red" and v is None:
                continue  # null takes ace_red away: every ace counts ace
            if not _is_int(v) or not 0 <= v <= 100:
                raise InvalidParameter(name, f"{k} must be an integer 0-100")
        return dataclasses.replace(current, **dict(value))

    def check(self, name: str, value: object) -> None:
        if not isinstance(value, CardValues):
            raise InvalidParameter(name, "must be {ace, face, joker}")

    def published(self, value: object) -> object:
        assert isinstance(value, CardValues)
        return value.published()

    @property
    def values(self) -> str:
        return "each an integer from 0 to 100"

    def json_schema(self) -> dict[str, Any]:
        value = {"type": "integer", "minimum": 0, "maximum": 100}
        return {"type": "object", "additionalProperties": False,
                "properties": {"ace": value, "face": value, "joker": value,
                               "ace_red": {"anyOf": [value, {"type": "null"}]}}}


class _Listed(Kind):
    """A kind whose JSON value is a list, held as a tuple (hashable)."""

    __slots__ = ()

    listed = True

    def read(self, name: str, value: object, current: object) -> object:
        return tuple(value) if isinstance(value, list) else value

    def published(self, value: object) -> object:
        return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True, slots=True)
class Contracts(_Listed):
    """``contracts``: null, or the deals' contracts, each a string of 3s and 4s."""

    def check(self, name: str, value: object) -> None:
        if value is None:
            return
        if not isinstance(value, tuple) or not 1 <= len(value) <= MAX_CONTRACTS:
            raise InvalidParameter(name, f"must be null or a list of 1 to {MAX_CONTRACTS} "
                                   "contracts")
        for c in value:
            if not isinstance(c, str) or not 1 <= len(c) <= MAX_CONTRACT_MELDS \
                    or set(c) - {"3", "4"}:
                raise InvalidParameter(name, f"{c!r} is no contract: 1 to {MAX_CONTRACT_MELDS} "
                                       "digits, each 3 (a three) or 4 (a four)")

    @property
    def values(self) -> str:
        return (f"null or a list of 1 to {MAX_CONTRACTS} strings of 1 to {MAX_CONTRACT_MELDS} "
                "digits, each 3 (a three: a set) or 4 (a four: a run)")

    def json_schema(self) -> dict[str, Any]:
        return {"anyOf": [{"type": "array", "minItems": 1, "maxItems": MAX_CONTRACTS,
                           "items": {"type": "string",
                                     "pattern": f"^[34]{{1,{MAX_CONTRACT_MELDS}}}$"}},
                          {"type": "null"}]}


@dataclass(frozen=True, slots=True)
class DealSizes(_Listed):
    """``deal_sizes``: ``"contract"`` or one number of cards per round."""

    def check(self, name: str, value: object) -> None:
        if value == CONTRACT_DEAL:
            return
        if not isinstance(value, tuple) or not 1 <= len(value) <= MAX_CONTRACTS \
                or not all(_is_int(n) and 1 <= n <= 20 for n in value):
            raise InvalidParameter(name, "must be \"contract\" or a list of integers from 1 "
                                   "to 20, one per contract")

    @property
    def values(self) -> str:
        return "\"contract\" or a list of integers from 1 to 20, one per contract"

    def json_schema(self) -> dict[str, Any]:
        return {"oneOf": [{"type": "string", "enum": [CONTRACT_DEAL]},
                          {"type": "array", "minItems": 1, "maxItems": MAX_CONTRACTS,
                           "items": {"type": "integer", "minimum": 1, "maximum": 20}}]}


@dataclass(frozen=True, slots=True)
class DeckRows(_Listed):
    """``deck_by_players``: null, or rows ``{players_max, decks, jokers}`` (each column
    checked as its own parameter is), ``players_max`` rising."""

    players_max: Integer
    decks: Integer
    jokers: Integer

    def read(self, name: str, value: object, current: object) -> object:
        if not isinstance(value, list):
            return value
        if len(value) > MAX_DECK_ROWS:
            raise InvalidParameter(name, f"has at most {MAX_DECK_ROWS} rows")
        rows = []
        for i, row in enumerate(value):
            if isinstance(row, DeckRow):
                rows.append(row)
                continue
            if not isinstance(row, Mapping) or set(row) != {"players_max", "decks", "jokers"}:
                raise InvalidParameter(name, f"row {i} must be an object {{players_max, decks, "
                                       "jokers}")
            for key, column in self._columns():
                try:
                    column.check(key, row[key])
                except InvalidParameter as exc:
                    raise InvalidParameter(name, f"row {i}: {key} {exc.reason}") from None
            rows.append(DeckRow(row["players_max"], row["decks"], row["jokers"]))
        return tuple(rows)

    def _columns(self) -> tuple[tuple[str, Integer], ...]:
        return (("players_max", self.players_max), ("decks", self.decks),
                ("jokers", self.jokers))

    def check(self, name: str, value: object) -> None:
        if value is None:
            return
        if not isinstance(value, tuple) or not value \
                or not all(isinstance(r, DeckRow) for r in value):
            raise InvalidParameter(name, "must be null or a list of rows {players_max, decks, "
                                   "jokers}")
        for a, b in zip(value, value[1:], strict=False):
            if b.players_max <= a.players_max:
                raise InvalidParameter(name, "rows' players_max must rise")

    def published(self, value: object) -> object:
        if value is None:
            return None
        assert isinstance(value, tuple)
        return [dataclasses.asdict(row) for row in value]

    @property
    def values(self) -> str:
        return (f"null or a list of 1 to {MAX_DECK_ROWS} objects {{players_max, decks, jokers}}, "
                "players_max rising (2 to 8; the last row at least players_max), decks and "
                "jokers within their own parameters' ranges")

    def json_schema(self) -> dict[str, Any]:
        row = {"type": "object", "additionalProperties": False,
               "required": ["players_max", "decks", "jokers"],
               "properties": {key: column.json_schema() for key, column in self._columns()}}
        return {"anyOf": [{"type": "array", "minItems": 1, "maxItems": MAX_DECK_ROWS,
                           "items": row}, {"type": "null"}]}


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: its published name, the values it takes, and what it means."""

    name: str
    kind: Kind
    description: str

    @property
    def described(self) -> str:
        """The description with the values the parameter takes (``GET /v1/rulesets/{name}``)."""
        return f"{self.description}; {self.kind.values}"

    def check(self, value: object) -> None:
        """Raise :class:`InvalidParameter` unless ``value`` (as held) is valid here."""
        self.kind.check(self.name, value)


SEATS = Integer(2, 8)
DECKS = Integer(1, 4)
JOKERS = Integer(0, 16)


PARAMS: tuple[Param, ...] = (
    Param("players_min", SEATS, "fewest players at the table"),
    Param("players_max", SEATS, "most players at the table"),
    Param("decks", DECKS, "standard 52-card decks shuffled together"),
    Param("jokers", JOKERS, "jokers added to the decks"),
    Param("hand_size", Integer(1, 20), "cards dealt to each player"),
    Param("set_min", Integer(2, 8), "fewest cards in a set"),
    Param("set_max", Integer(2, 8, nullable=True), "most cards in a set (at most 4 with distinct suits; null: no limit)"),
    Param("set_distinct_suits", Boolean(), "no two cards of one suit in a set (jokers fill missing suits)"),
    Param("set_min_naturals", Integer(1, 8), "natural (non-joker) cards a set needs"),
    Param("run_min_naturals", Integer(1, 13), "natural (non-joker) cards a run needs"),
    Param("run_min", Integer(2, 13), "fewest cards in a run"),
    Param("run_max", Integer(2, 14), "most cards in a run (a run never exceeds 13 cards)"),
    Param("ace", Choice(AceMode), "where an ace may stand in a run: high (Q-K-A), low (A-2-3), "
          "high_or_low (either end, never K-A-2) or around (K-A-2 allowed)"),
    Param("ace_low_value", Integer(0, 100), "an ace's value at the low end of a run (meld points, opening)"),
    Param("opening_min_points", Integer(0, 1000), "points a player's first melds must reach (0: none)"),
    Param("joker_opening_value", JokerOpening(), "a joker's value in meld points and the opening: "
          "\"represented\" (the card it stands for) or a fixed number"),
    Param("build_requires_opening", Boolean(), "a player may build on melds only after their own opening"),
    Param("discard_pickup", Choice(PickupMode), "what a card taken from the discard pile must do: free (nothing), "
          "meld_same_turn (be laid on the table that turn) or new_meld_same_turn (be part of a new "
          "meld that turn)"),
    Param("release_set", Choice(ReleaseSetMode), "how a joker leaves a set: never, one_missing (one natural of a "
          "missing suit frees it) or all_missing (the naturals of every missing suit, laid together)"),
    Param("release_closed_four", Boolean(), "the last missing natural may free the joker of a 4-card set "
          "(three naturals and a joker)"),
    Param("release_run", Choice(ReleaseRunMode), "how a joker leaves a run: never, or exact (only the card it stands "
          "for frees it)"),
    Param("release_requires_opening", Boolean(), "a player may release jokers only after their own opening"),
    Param("released_joker", Choice(ReleasedJokerMode), "where a released joker must go, the same turn: hand (kept), "
          "any_meld (into any meld laid or built that turn) or new_meld (into a new meld)"),
    Param("final_discard", Choice(FinalDiscardMode), "whether a player's last card must go to the discard pile "
          "(required) or the hand may also end by melding every card (optional)"),
    Param("special_win", Choice(SpecialWin), "name of the one-turn win: every card laid in the turn of one's "
          "first meld"),
    Param("card_values", CardValueTable(), "penalty values of cards left in hand: ace, face (T J Q K) "
          "and joker, and optionally ace_red (red aces count ace_red, black ones ace); 2-9 count "
          "face value"),
    Param("scoring", Choice(ScoringMode), "end-of-hand scoring: winner_collects, bonus_penalty or penalty "
          "(SPEC §6)"),
    Param("out_bonus", Integer(0, 10_000), "bonus_penalty: the winner's points for going out"),
    Param("special_bonus", Integer(0, 10_000), "bonus_penalty: the winner's points for a special win"),
    Param("special_multiplier", Integer(1, 100), "multiplier on the losers' hand values after a special win"),
    Param("special_flat", Integer(0, 10_000), "winner_collects: points each loser loses after a special win"),
    Param("match_end", Choice(MatchEndMode), "how a match ends: goal (first to goal_points), elimination (over "
          "elimination_over penalty is out), hands (after match_hands hands) or contracts (after "
          "the last contract's deal, lowest total wins)"),
    Param("goal_points", Integer(1, 1_000_000), "goal: points that win the match"),
    Param("elimination_over", Integer(1, 1_000_000), "elimination: a player whose penalty exceeds this is out"),
    Param("match_hands", Integer(1, 10_000), "hands: number of hands in the match"),
    Param("buy_ins", Boolean(), "elimination: an eliminated player may buy back in, re-entering at the "
          "highest penalty still in the match"),
    Param("buy_ins_max", Integer(1, 100), "buy-ins allowed per player in a match"),
    Param("buy_in_min_players", Integer(2, 100), "a buy-in needs at least this many players at the table, "
          "counting the one buying in (3: never head to head)"),
    # contract rule sets (docs/api.md#contract-rule-sets); the defaults leave every other rule set
    # as it was
    Param("contracts", Contracts(), "the deals' contracts in order, each a string of digits: 3 "
          "a three (set), 4 a four (run); null: no contracts (an opening instead)"),
    Param("deal_sizes", DealSizes(), "cards dealt per round: \"contract\" (3 per three and 4 "
          "per four of the round's contract) or one number per round"),
    Param("deck_by_players", DeckRows(SEATS, DECKS, JOKERS), "the deck by seats: the first row whose "
          "players_max is at least the seat count gives decks and jokers (no seat count: the "
          "last row); null: decks and jokers"),
    Param("contract_distinct", Boolean(), "a contract's threes are of different ranks and its fours "
          "of different suits"),
    Param("melds_after_contract", Boolean(), "after going down a player may lay further melds of "
          "their own (false: only build)"),
    Param("run_jokers_adjacent", Boolean(), "two jokers may stand side by side in a run"),
    Param("joker_shift", Choice(JokerShiftMode), "none, or run_end: the holder of the natural a run's joker "
          "stands for may lay it in the joker's place and move the joker to an end of that run"),
    Param("joker_discard", Boolean(), "a joker may be discarded"),
    Param("call_max", Integer(0, 10), "calls (asking for the discard out of turn) a player may make in "
          "one deal (0: no calls)"),
    Param("call_penalty_cards", Integer(0, 5), "cards a granted caller also takes from the stock"),
    Param("discard_after_down", Boolean(), "a player who has gone down (opened) may take the "
          "discard pile's top card"),
)
PARAMS_BY_NAME: Mapping[str, Param] = MappingProxyType({p.name: p for p in PARAMS})

MATCH_END_PARAMS = ("match_end", "goal_points", "elimination_over", "match_hands", "buy_ins",
                    "buy_ins_max", "buy_in_min_players")
"""The parameters a :class:`MatchEnd` holds, by their published (flat) names."""


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """How a match ends (docs/api.md#rule-sets-and-overrides, docs/api.md#match-ledgers; the rules
    are :mod:`.match`): the one definition, nested in every :class:`RuleSet` and held by every match
    (which may override it).

    Published flat, as the parameters :data:`MATCH_END_PARAMS` (``mode`` is
    ``match_end``), and checked as those parameters are.

    >>> end = MatchEnd("hands", match_hands=3)
    >>> end.mode, end.to_dict()["match_end"], end.with_overrides({"goal_points": 40}).goal_points
    (<MatchEndMode.HANDS: 'hands'>, 'hands', 40)
    """

    mode: MatchEndMode = MatchEndMode.GOAL
    goal_points: int = 500
    elimination_over: int = 150
    match_hands: int = 10
    buy_ins: bool = False
    buy_ins_max: int = 1
    buy_in_min_players: int = 3
    rounds: int = 0
    """``contracts``: the deals a match plays, the rule set's ``len(contracts)`` (no
    parameter of its own: :class:`RuleSet` and :func:`.match.match_end_of` set it)."""

    def __post_init__(self) -> None:
        for name in MATCH_END_PARAMS:
            PARAMS_BY_NAME[name].check(self.param(name))
        if type(self.mode) is not MatchEndMode:
            object.__setattr__(self, "mode", MatchEndMode(self.mode))

    def param(self, name: str) -> Any:
        """A value by its published name (``match_end`` is :attr:`mode`)."""
        return self.mode if name == "match_end" else getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        """The published form: ``{"match_end": "goal", "goal_points": 500, ...}`` (and
        ``rounds`` for ``contracts``)."""
        out = {name: self.mode.value if name == "match_end" else getattr(self, name)
               for name in MATCH_END_PARAMS}
        if self.mode is MatchEndMode.CONTRACTS:
            out["rounds"] = self.rounds
        return out

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> MatchEnd:
        """Read :meth:`to_dict`'s form (a key left out takes its default)."""
        end = cls().with_overrides(values)
        rounds = values.get("rounds", 0)
        return dataclasses.replace(end, rounds=rounds) if _is_int(rounds) and rounds else end

    def with_overrides(self, overrides: Mapping[str, Any]) -> MatchEnd:
        """These values (by published name) in place of this one's; :class:`InvalidParameter`
        for a value out of range. Keys that are no match-end parameter are not read."""
        changes = {("mode" if name == "match_end" else name): overrides[name]
                   for name in MATCH_END_PARAMS if name in overrides}
        return dataclasses.replace(self, **changes) if changes else self


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every parameter of docs/api.md#rule-sets-and-overrides, validated; immutable and hashable."""

    name: str
    source: str
    players_min: int = 2
    players_max: int = 4
    decks: int = 2
    jokers: int = 2
    hand_size: int = 13
    set_min: int = 3
    set_max: int | None = 4
    set_distinct_suits: bool = True
    set_min_naturals: int = 1
    run_min_naturals: int = 1
    run_min: int = 3
    run_max: int = 13
    ace: AceMode = AceMode.HIGH_OR_LOW
    ace_low_value: int = 11
    opening_min_points: int = 0
    joker_opening_value: JokerValue = REPRESENTED
    build_requires_opening: bool = True
    discard_pickup: PickupMode = PickupMode.FREE
    release_set: ReleaseSetMode = ReleaseSetMode.ONE_MISSING
    release_closed_four: bool = False
    release_run: ReleaseRunMode = ReleaseRunMode.EXACT
    release_requires_opening: bool = False
    released_joker: ReleasedJokerMode = ReleasedJokerMode.ANY_MELD
    final_discard: FinalDiscardMode = FinalDiscardMode.REQUIRED
    special_win: SpecialWin = SpecialWin.KALUKI
    card_values: CardValues = field(default_factory=CardValues)
    scoring: ScoringMode = ScoringMode.PENALTY
    out_bonus: int = 0
    special_bonus: int = 0
    special_multiplier: int = 1
    special_flat: int = 0
    match_end: MatchEnd = field(default_factory=MatchEnd)
    # contract rule sets (docs/api.md#contract-rule-sets)
    contracts: tuple[str, ...] | None = None
    deal_sizes: str | tuple[int, ...] = CONTRACT_DEAL
    deck_by_players: tuple[DeckRow, ...] | None = None
    contract_distinct: bool = False
    melds_after_contract: bool = True
    run_jokers_adjacent: bool = True
    joker_shift: JokerShiftMode = JokerShiftMode.NONE
    joker_discard: bool = True
    call_max: int = 0
    call_penalty_cards: int = 1
    discard_after_down: bool = True

    def __post_init__(self) -> None:
        for p in PARAMS:
            if p.name in MATCH_END_PARAMS:
                continue  # checked by MatchEnd itself
            v = getattr(self, p.name)
            if isinstance(v, list) and p.kind.listed:  # given in Python: held as a tuple
                v = p.kind.read(p.name, v, None)
            p.check(v)
            held = p.kind.held(v)  # "around" -> AceMode.AROUND
            if held is not getattr(self, p.name):
                object.__setattr__(self, p.name, held)
        # contradictions: each names its parameters, so that with_overrides can name the one sent
        if self.players_min > self.players_max:
            raise InvalidParameter("players_min", f"players_min ({self.players_min}) must not "
                                   f"exceed players_max ({self.players_max})", ("players_max",))
        if self.set_max is not None and self.set_min > self.set_max:
            raise InvalidParameter("set_min", f"set_min ({self.set_min}) must not exceed set_max "
                                   f"({self.set_max})", ("set_max",))
        if self.run_min > self.run_max:
            raise InvalidParameter("run_min", f"run_min ({self.run_min}) must not exceed run_max "
                                   f"({self.run_max})", ("run_max",))
        if self.set_distinct_suits and self.set_min > 4:
            raise InvalidParameter("set_min", f"a set of distinct suits (set_distinct_suits) has "
                                   f"at most 4 cards, not set_min {self.set_min}",
                                   ("set_distinct_suits",))
        if self.set_min_naturals > self.set_min:
            raise InvalidParameter("set_min_naturals", f"set_min_naturals ({self.set_min_naturals}) "
                                   f"must not exceed set_min ({self.set_min})", ("set_min",))
        if self.run_min_naturals > self.run_min:
            raise InvalidParameter("run_min_naturals", f"run_min_naturals ({self.run_min_naturals}) "
                                   f"must not exceed run_min ({self.run_min})", ("run_min",))
        self._check_contracts()
        if self.match_end.rounds != self.rounds:
            object.__setattr__(self, "match_end", dataclasses.replace(self.match_end,
                                                                      rounds=self.rounds))
        if self.deck_by_players is None:
            if self.players_max * self.largest_deal >= self.decks * 52 + self.jokers:
                deal = (f"hand_size {self.hand_size}" if self.contracts is None
                        else f"{self.largest_deal} (the largest deal)")
                raise _contradiction(
                    f"a deck of {self.decks * 52 + self.jokers} cards (decks {self.decks} × 52 + "
                    f"jokers {self.jokers}) is too small to deal players_max {self.players_max} × "
                    f"{deal} = {self.players_max * self.largest_deal} cards and leave a stock",
                    "hand_size", "decks", "jokers", "players_max",
                    "deck_by_players", "contracts", "deal_sizes")

    def _check_contracts(self) -> None:
        """The contract parameters against each other and the deck
        (docs/api.md#contract-rule-sets)."""
        if self.contracts is None:
            if self.deal_sizes != CONTRACT_DEAL:
                raise _contradiction("needs contracts (one deal size per contract)",
                                     "deal_sizes", "contracts")
            if self.match_end.mode is MatchEndMode.CONTRACTS:
                raise _contradiction("match_end contracts needs contracts", "match_end",
                                     "contracts")
        else:
            if self.deal_sizes != CONTRACT_DEAL and len(self.deal_sizes) != len(self.contracts):
                raise _contradiction(f"must give one deal size per contract "
                                     f"({len(self.contracts)})", "deal_sizes", "contracts")
            if self.match_end.mode is not MatchEndMode.CONTRACTS:
                raise _contradiction("a contract rule set's match ends after its last contract "
                                     "(match_end contracts)", "match_end", "contracts")
        rows = self.deck_by_players
        if rows is None:
            return
        if (self.decks, self.jokers) != (rows[0].decks, rows[0].jokers):
            raise _contradiction("decks and jokers must equal deck_by_players' first row",
                                 "decks", "jokers", "deck_by_players")
        if rows[-1].players_max < self.players_max:
            raise _contradiction("the last row must seat players_max", "deck_by_players",
                                 "players_max")
        deal = self.largest_deal
        for row in rows:
            if row.players_max * deal >= row.decks * 52 + row.jokers:
                raise _contradiction(f"{row.decks} decks and {row.jokers} jokers cannot deal "
                                     f"{deal} cards to {row.players_max} seats",
                                     "deck_by_players", "contracts", "deal_sizes", "hand_size")

    # -- derived, rules-book helpers -------------------------------------------------
    @property
    def deck_size(self) -> int:
        return self.decks * 52 + self.jokers

    @property
    def effective_run_max(self) -> int:
        """No rank may appear twice in a run, so a run never exceeds 13 cards."""
        return min(self.run_max, 13)

    @property
    def effective_set_max(self) -> int:
        """The most cards a set may hold: ``set_max`` (null: every copy of a rank in the
        largest deck, plus its jokers), at most 4 with distinct suits."""
        if self.set_max is None:
            decks, jokers = self.deck_for(None)
            most = 4 * decks + jokers
        else:
            most = self.set_max
        return min(most, 4) if self.set_distinct_suits else most

    def natural_value(self, rank: int, suit: str | None = None) -> int:
        """A natural card's value (ace high): ace, face or pip value. With
        ``card_values.ace_red`` a red ace (suit ``h`` or ``d``) counts that; a rank
        without its suit counts as a black ace."""
        if rank == 1:
            if self.card_values.ace_red is not None and suit in ("h", "d"):
                return self.card_values.ace_red
            return self.card_values.ace
        if rank >= 10:
            return self.card_values.face
        return rank

    # -- contract rule sets (docs/api.md#contract-rule-sets) -----------------------------------
    @property
    def is_contract(self) -> bool:
        """A contract rule set: ``contracts`` is a list (going down replaces the opening)."""
        return self.contracts is not None

    @property
    def rounds(self) -> int:
        """Deals in a contract match: ``len(contracts)`` (0 without contracts)."""
        return len(self.contracts) if self.contracts is not None else 0

    def check_round(self, value: object) -> int | None:
        """A request's ``round``, checked: None for a rule set without contracts (which
        takes none), else 1..:attr:`rounds`. :class:`RoundRequired` when a contract rule
        set gets none, :class:`InvalidRound` for anything else out of place."""
        if self.contracts is None:
            if value is None:
                return None
            raise InvalidRound(value, 0)
        if value is None:
            raise RoundRequired()
        if not _is_int(value) or not 1 <= value <= len(self.contracts):  # type: ignore[operator]
            raise InvalidRound(value, len(self.contracts))
        assert isinstance(value, int)
        return value

    def contract_text(self, round: int) -> str:
        """The round's contract as published, e.g. ``"3344"`` (:class:`InvalidRound`
        outside 1..:attr:`rounds`)."""
        r = self.check_round(round)
        assert self.contracts is not None and r is not None
        return self.contracts[r - 1]

    def contract(self, round: int) -> tuple[int, int]:
        """The round's contract as ``(threes, fours)``: ``"3344"`` is ``(2, 2)``."""
        text = self.contract_text(round)
        return text.count("3"), text.count("4")

    def deal_size(self, round: int | None = None) -> int:
        """Cards dealt to each player: in a contract rule set the round's (``deal_sizes``),
        else ``hand_size``."""
        if self.contracts is None:
            if round is not None:
                raise InvalidRound(round, 0)
            return self.hand_size
        r = self.check_round(round)
        assert r is not None
        if self.deal_sizes == CONTRACT_DEAL:
            threes, fours = self.contract(r)
            return 3 * threes + 4 * fours
        assert isinstance(self.deal_sizes, tuple)
        return self.deal_sizes[r - 1]

    @property
    def largest_deal(self) -> int:
        """The most cards any round deals (``hand_size`` without contracts)."""
        if self.contracts is None:
            return self.hand_size
        return max(self.deal_size(r) for r in range(1, len(self.contracts) + 1))

    def hand_cap(self, round: int | None = None) -> int:
        """The most cards a hand may hold (``hand-too-large`` beyond): ``hand_size + 1``;
        in a contract rule set the round's deal size + 1 + ``call_max`` × (1 +
        ``call_penalty_cards``); with no round the largest deal's."""
        if self.contracts is None:
            return self.hand_size + 1
        deal = self.largest_deal if round is None else self.deal_size(round)
        return deal + 1 + self.call_max * (1 + self.call_penalty_cards)

    def deck_for(self, players: int | None = None) -> tuple[int, int]:
        """``(decks, jokers)`` for this many seats: the first ``deck_by_players`` row whose
        ``players_max`` is at least ``players``; None (a request without a players list):
        the last row. Without ``deck_by_players``: ``(decks, jokers)``."""
        rows = self.deck_by_players
        if rows is None:
            return self.decks, self.jokers
        if players is not None:
            for row in rows:
                if row.players_max >= players:
                    return row.decks, row.jokers
        return rows[-1].decks, rows[-1].jokers

    def deck_size_for(self, players: int | None = None) -> int:
        """Cards in :meth:`deck_for`'s deck."""
        decks, jokers = self.deck_for(players)
        return decks * 52 + jokers

    def param(self, name: str) -> Any:
        """A parameter's value by its published name (the match-end ones from
        :attr:`match_end`)."""
        if name in MATCH_END_PARAMS:
            return self.match_end.param(name)
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        """Every parameter by its published name, flat (``GET /v1/rulesets/{name}``)."""
        return {p.name: p.kind.published(self.param(p.name)) for p in PARAMS}

    def with_overrides(self, overrides: Mapping[str, Any], name: str | None = None) -> RuleSet:
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in PARAMS_BY_NAME:
                raise UnknownParameter(str(key))
            changes[key] = PARAMS_BY_NAME[key].kind.read(key, value, self.param(key))
        for p in PARAMS:  # every value checked in the parameters' order: the first bad one is named
            if p.name in changes:
                p.check(changes[p.name])
        end = {k: changes.pop(k) for k in MATCH_END_PARAMS if k in changes}
        if end:
            changes["match_end"] = self.match_end.with_overrides(end)
        try:
            return dataclasses.replace(self, name=name or self.name, **changes)
        except InvalidParameter as exc:
            raise exc.naming_one_of(overrides) from None


def check_param(name: str, value: object) -> None:
    """Raise :class:`InvalidParameter` unless ``value`` is valid for parameter ``name``."""
    PARAMS_BY_NAME[name].check(value)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


KALUKI_51 = RuleSet(
    name="kaluki-51",
    source="S0 (Kaluki Rummy rules: 51 to open, joker 25, Kaluki costs losers 25)",
    players_min=2, players_max=4, hand_size=13,
    run_min=4, ace=AceMode.HIGH_OR_LOW, ace_low_value=11,
    opening_min_points=51, joker_opening_value=25,
    build_requires_opening=True,  # S0: "Once a player has Melded, they are allowed to Build"
    discard_pickup=PickupMode.FREE,
    release_set=ReleaseSetMode.ONE_MISSING, release_closed_four=False, release_run=ReleaseRunMode.EXACT,
    release_requires_opening=True,  # S0: the joker is stolen "for his own Melds"
    released_joker=ReleasedJokerMode.ANY_MELD,
    final_discard=FinalDiscardMode.OPTIONAL,  # S0: the last card goes "on a ... Set or Run, or on the Discard Pile"
    special_win=SpecialWin.KALUKI,
    card_values=CardValues(ace=11, face=10, joker=25),
    scoring=ScoringMode.WINNER_COLLECTS, special_flat=25,
    match_end=MatchEnd(MatchEndMode.GOAL, goal_points=500),
)

KALUKI_HUNT = RuleSet(
    name="kaluki-hunt",
    source="S1, S3 (online Kaluki: Hunt 40 / Going Out 20, losers' hand values, doubled after a Hunt)",
    players_min=2, players_max=4, hand_size=13,
    run_min=3, ace=AceMode.HIGH_OR_LOW, ace_low_value=11,
    opening_min_points=0, joker_opening_value=REPRESENTED,
    build_requires_opening=False,  # S1 allows building on any meld, no opening condition
    discard_pickup=PickupMode.FREE,
    release_set=ReleaseSetMode.ALL_MISSING, release_closed_four=False, release_run=ReleaseRunMode.EXACT,
    release_requires_opening=False,
    released_joker=ReleasedJokerMode.ANY_MELD,  # S1: used "to meld cards by laying them on table at the same turn"
    final_discard=FinalDiscardMode.REQUIRED,  # S1: "the last card going onto the discard pile"
    special_win=SpecialWin.HUNT,
    card_values=CardValues(ace=11, face=10, joker=25),
    scoring=ScoringMode.BONUS_PENALTY, out_bonus=20, special_bonus=40, special_multiplier=2,
    match_end=MatchEnd(MatchEndMode.HANDS, match_hands=10),
)

KALUKI_UK = RuleSet(
    name="kaluki-uk",
    source="British club rules (pagat.com, kalooki.co.uk): 40 to open, penalty points, "
           "elimination over 150 with buy-ins",
    players_min=2, players_max=5, hand_size=13,
    run_min=3, ace=AceMode.HIGH, ace_low_value=1,
    opening_min_points=40, joker_opening_value=REPRESENTED,
    build_requires_opening=True,
    discard_pickup=PickupMode.NEW_MELD_SAME_TURN,
    release_set=ReleaseSetMode.ONE_MISSING, release_closed_four=True, release_run=ReleaseRunMode.EXACT,
    release_requires_opening=True,
    released_joker=ReleasedJokerMode.NEW_MELD,
    final_discard=FinalDiscardMode.REQUIRED,
    special_win=SpecialWin.KALOOKIE,
    card_values=CardValues(ace=11, face=10, joker=15),
    scoring=ScoringMode.PENALTY, special_multiplier=2,
    match_end=MatchEnd(MatchEndMode.ELIMINATION, elimination_over=150, buy_ins=True, buy_ins_max=1,
                       buy_in_min_players=3),
)

KALOOKI_40 = RuleSet(
    name="kalooki-40",
    source="online \"Kalooki 40\" rooms: 40 to open, ace low counts 1, penalty points, "
           "elimination over 150",
    players_min=2, players_max=4, hand_size=13,
    run_min=3, ace=AceMode.HIGH_OR_LOW, ace_low_value=1,
    opening_min_points=40, joker_opening_value=REPRESENTED,
    build_requires_opening=True,
    discard_pickup=PickupMode.MELD_SAME_TURN,
    release_set=ReleaseSetMode.ALL_MISSING, release_closed_four=False, release_run=ReleaseRunMode.EXACT,
    release_requires_opening=True,
    released_joker=ReleasedJokerMode.ANY_MELD,
    final_discard=FinalDiscardMode.REQUIRED,
    special_win=SpecialWin.KALOOKIE,
    card_values=CardValues(ace=11, face=10, joker=15),
    scoring=ScoringMode.PENALTY, special_multiplier=2,
    match_end=MatchEnd(MatchEndMode.ELIMINATION, elimination_over=150, buy_ins=False),
)

KALOOKI_JAMAICA = RuleSet(
    name="kalooki-jamaica",
    source="Jamaican contract Kalooki (Wikipedia \"Kalooki\"; pagat.com \"Caribbean Kalooki\"; "
           "denexa.com; kalooki.net; gamerules.com; superkalooki.com rules): nine contracts, "
           "threes with repeated suits, fours without adjacent jokers, calls, joker shift, "
           "lowest total after nine deals",
    players_min=3, players_max=8,
    decks=2, jokers=4,  # deck_by_players' first row (3-4 seats)
    hand_size=16,  # the largest deal (4444)
    set_min=3, set_max=None, set_distinct_suits=False, set_min_naturals=2,
    run_min=4, run_max=13, run_min_naturals=2,
    ace=AceMode.HIGH_OR_LOW,
    ace_low_value=15,  # not used: a contract meld counts each ace by its colour wherever it stands
    opening_min_points=0, joker_opening_value=REPRESENTED,
    build_requires_opening=True,  # tacking on only after going down (that turn or later)
    discard_pickup=PickupMode.FREE,
    release_set=ReleaseSetMode.NEVER, release_closed_four=False, release_run=ReleaseRunMode.NEVER,
    release_requires_opening=True,
    released_joker=ReleasedJokerMode.ANY_MELD,
    final_discard=FinalDiscardMode.OPTIONAL,
    special_win=SpecialWin.DOWN_AND_OUT,
    card_values=CardValues(ace=15, face=10, joker=50, ace_red=1),
    scoring=ScoringMode.PENALTY, special_multiplier=1,
    match_end=MatchEnd(MatchEndMode.CONTRACTS),
    contracts=("333", "334", "344", "444", "3333", "3334", "3344", "3444", "4444"),
    deal_sizes=CONTRACT_DEAL,
    deck_by_players=(DeckRow(4, 2, 4), DeckRow(6, 3, 8), DeckRow(8, 4, 10)),
    contract_distinct=True, melds_after_contract=False, run_jokers_adjacent=False,
    joker_shift=JokerShiftMode.RUN_END, joker_discard=False,
    call_max=3, call_penalty_cards=1, discard_after_down=False,
)

CATALOG: Mapping[str, RuleSet] = MappingProxyType(
    {r.name: r for r in (KALUKI_51, KALUKI_HUNT, KALUKI_UK, KALOOKI_40, KALOOKI_JAMAICA)})


def resolve(spec: object) -> RuleSet:
    """A catalog name or ``{"base": NAME, "overrides": {...}}`` to a rule set."""
    if isinstance(spec, str):
        try:
            return CATALOG[spec]
        except KeyError:
            raise UnknownRuleSet(spec) from None
    if isinstance(spec, RuleSet):
        return spec
    if isinstance(spec, Mapping):
        extra = set(spec) - {"base", "overrides"}
        if extra:
            raise RuleSetError(f"unknown key {sorted(extra)[0]!r}; a rule set is a name or "
                               "{\"base\": NAME, \"overrides\": {...}}")
        base = spec.get("base")
        if not isinstance(base, str):
            raise RuleSetError("\"base\" must name a catalog rule set", field="ruleset.base")
        overrides = spec.get("overrides")
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, Mapping):
            raise RuleSetError("\"overrides\" must be an object", field="ruleset.overrides")
        for key in overrides:  # before any sorting: a body of 10,000 made-up keys stops here
            if key not in PARAMS_BY_NAME:
                raise UnknownParameter(str(key))
        return _derive(base, _freeze(overrides))
    raise RuleSetError("a rule set is a catalog name or {\"base\": NAME, \"overrides\": {...}}")


def _freeze(overrides: Mapping[str, Any]) -> tuple[tuple[str, str, Any], ...]:
    # the type name keeps True and 1 apart in the cache key (True == 1 in Python)
    items = []
    for k, v in sorted(overrides.items()):
        if PARAMS_BY_NAME[k].kind.listed and isinstance(v, list):
            try:  # JSON text: hashable, and keeps true and 1 apart
                items.append((k, "json", json.dumps(v, sort_keys=True, allow_nan=False)))
            except (TypeError, ValueError):
                raise InvalidParameter(str(k), "must be JSON data") from None
            continue
        if isinstance(v, Mapping):
            if not all(_is_scalar(x) for x in v.values()):
                raise InvalidParameter(str(k), "takes no nested objects or lists")
            v = tuple(sorted((str(a), type(b).__name__, b) for a, b in v.items()))
        elif not _is_scalar(v):
            raise InvalidParameter(str(k), "must not be a list")
        items.append((k, type(v).__name__, v))
    return tuple(items)


def _is_scalar(v: object) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


@lru_cache(maxsize=1024)
def _derive(base: str, frozen: tuple[tuple[str, str, Any], ...]) -> RuleSet:
    if base not in CATALOG:
        raise UnknownRuleSet(base)
    overrides = {k: json.loads(v) if t == "json" else {a: b for a, _, b in v}
                 if isinstance(v, tuple) else v for k, t, v in frozen}
    return CATALOG[base].with_overrides(overrides, name=base + ("+custom" if overrides else ""))
