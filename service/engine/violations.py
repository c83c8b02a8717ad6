"""Rulings that say no: violation codes and their messages
(docs/api.md#rulings-200-with-valid--legal).

A violation is a ruling, not an error: the request was well formed, but the
play breaks a rule. Each code is stable kebab-case, states its rule in one
line and has an English message template; ``GET /v1/violations`` publishes
this catalog. Translations of rules and messages are not the engine's business:
they live in the gettext catalogs of ``service/i18n`` (msgctxt = the code for a
message, ``rule`` for a rule).

>>> v = Violation("run-too-short", {"min": 4, "count": 3})
>>> v.message()
'A run needs at least 4 cards; this one has 3.'
>>> v.at(turn=0, play=1).where
{'turn': 0, 'play': 1}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    rule: str  # what the rule is, one line, English
    message: str  # the English template of a ruling that cites it ({field}s from its params)


_CODES: tuple[Code, ...] = (
    # -- melds --------------------------------------------------------------------------
    Code("meld-empty", "a meld has cards", "A meld needs cards."),
    Code("not-a-meld", "a meld is a set (one rank) or a run (one suit, in sequence)",
         "These cards are neither a set (one rank) nor a run (one suit in sequence)."),
    Code("set-too-short", "a set has at least set_min cards",
         "A set needs at least {min} cards; this one has {count}."),
    Code("set-too-long", "a set has at most set_max cards",
         "A set has at most {max} cards; this one would have {count}."),
    Code("mixed-ranks", "every natural card of a set has the same rank",
         "A set's cards must all have the same rank."),
    Code("duplicate-suit", "no two cards of a set share a suit (set_distinct_suits)",
         "A set may not hold two cards of the same suit ({suit})."),
    Code("run-too-short", "a run has at least run_min cards",
         "A run needs at least {min} cards; this one has {count}."),
    Code("run-too-long", "a run has at most run_max cards",
         "A run has at most {max} cards; this one would have {count}."),
    Code("mixed-suits", "every natural card of a run has the same suit",
         "A run's cards must all be of one suit."),
    Code("duplicate-rank", "no rank appears twice in a run",
         "A run may not hold the same rank twice ({rank})."),
    Code("not-in-sequence", "a run's cards are consecutive, given in order",
         "A run's cards must be consecutive and given in sequence order."),
    Code("ace-wraparound", "a run may not turn the corner K-A-2 (unless ace is around)",
         "A run may not go round the corner from king through ace to two."),
    Code("ace-not-low", "the ace may not stand below the two in this rule set",
         "The ace may not be used low (A-2-3) under these rules."),
    Code("ace-not-high", "the ace may not stand above the king in this rule set",
         "The ace may not be used high (Q-K-A) under these rules."),
    Code("too-few-naturals", "a meld needs set_min_naturals / run_min_naturals natural cards",
         "This meld needs at least {min} natural (non-joker) card(s)."),
    Code("joker-mismatch", "a joker stands for the card at its place",
         "The joker written {declared} cannot stand there; it would be {actual}."),
    Code("kind-mismatch", "a meld asked to be read as one kind must be that kind",
         "These cards cannot be read as a {kind}."),
    # -- opening ------------------------------------------------------------------------
    Code("opening-below-threshold", "a player's first melds reach opening_min_points",
         "The opening melds count {points} points; at least {threshold} are needed."),
    Code("invalid-meld", "every meld of an opening is a legal meld",
         "Meld {meld} is not legal."),
    # -- contracts (docs/api.md#contract-rule-sets: going down in a contract rule set) ---------
    Code("adjacent-jokers", "no two jokers stand side by side in a run (run_jokers_adjacent false)",
         "Two jokers may not stand side by side in a run."),
    Code("contract-not-met", "going down lays exactly the round's contract: its threes (sets) "
         "and fours (runs), nothing before it",
         "This round's contract {contract} needs {need_threes} three(s) and {need_fours} "
         "four(s); these melds make {threes} three(s) and {fours} four(s)."),
    Code("contract-duplicate-rank", "a contract's threes are of different ranks "
         "(contract_distinct)",
         "Two threes of the contract are of the same rank ({rank})."),
    Code("contract-duplicate-suit", "a contract's fours are of different suits "
         "(contract_distinct)",
         "Two fours of the contract are of the same suit ({suit})."),
    Code("contract-extra-meld", "a player goes down once per deal, and after it lays no meld "
         "of their own unless melds_after_contract",
         "You have gone down this deal: no further meld of your own, only builds."),
    # -- building -----------------------------------------------------------------------
    Code("build-before-opening", "building only after one's own opening (build_requires_opening)",
         "You may build on melds only after your own opening."),
    Code("build-does-not-fit", "a card built on a meld extends it legally",
         "{card} does not fit this meld."),
    # no "meld-closed": `closed` is about releasing jokers only (docs/api.md#melds); a closed set
    # still takes builds up to set_max, so no build is refused for it (issue 19 item 6)
    # -- jokers -------------------------------------------------------------------------
    Code("release-before-opening", "releasing only after one's own opening (release_requires_opening)",
         "You may release a joker only after your own opening."),
    Code("no-joker", "a release needs a joker in the meld",
         "This meld holds no joker to release."),
    Code("joker-not-releasable", "a joker leaves a meld only as release_set / release_run allow",
         "No joker can be released from this meld with these cards ({reason})."),
    Code("release-wrong-card", "only the card a joker stands for frees it from a run (exact)",
         "{card} is not the card a joker in this meld stands for."),
    # -- turns (the hand referee) -------------------------------------------------------
    Code("out-of-turn", "players act in the order listed, the first player first",
         "It is {expected}'s turn, not {player}'s."),
    Code("hand-already-over", "the hand ends the moment a player has no cards left",
         "The hand is already over: {winner} has no cards left."),
    Code("draw-missing", "every turn starts with a draw from the stock or the discard pile",
         "A turn starts with a draw from the stock or the discard pile."),
    Code("stock-mismatch", "a stock draw takes the stock's top card",
         "The top card of the stock is {top}, not {card}."),
    Code("card-not-in-stock", "a card drawn from the stock must be one not yet seen",
         "{card} cannot come from the stock: every copy is already accounted for."),
    Code("stock-empty", "the stock is refilled from the discard pile but its top card",
         "The stock is empty and the discard pile cannot refill it."),
    Code("restock-mismatch", "a new stock is exactly the discard pile under its top card, "
         "given only when the stock runs out",
         "Wrong restock: {reason}."),
    Code("discard-pile-empty", "a discard draw needs a discard pile",
         "The discard pile is empty."),
    Code("discard-draw-mismatch", "a discard draw takes the pile's top card",
         "The top of the discard pile is {top}, not {card}."),
    Code("card-not-in-hand", "a player plays only cards in their hand at that moment",
         "{card} is not in {player}'s hand."),
    Code("no-such-meld", "builds and releases go on a meld on the table (numbered from 0)",
         "There is no meld {meld} on the table."),
    Code("pickup-not-melded", "discard_pickup meld_same_turn: the card taken from the discard "
         "pile is laid on the table that turn",
         "{card}, taken from the discard pile, must be laid on the table this turn."),
    Code("pickup-not-in-new-meld", "discard_pickup new_meld_same_turn: the card taken from the "
         "discard pile goes into a new meld that turn",
         "{card}, taken from the discard pile, must be part of a new meld this turn."),
    Code("discard-just-taken", "the card just taken from the discard pile is not discarded "
         "the same turn",
         "{card} was just taken from the discard pile and cannot be discarded this turn."),
    Code("released-joker-unused", "a released joker is laid again the same turn "
         "(released_joker any_meld / new_meld)",
         "{count} released joker(s) must be laid again this turn (released_joker: {must_use})."),
    Code("discard-missing", "a turn ends with a discard unless the player has no cards left",
         "The turn must end with a discard."),
    Code("final-discard-required", "final_discard required: the last card goes to the "
         "discard pile",
         "The last card must be discarded, not laid on the table."),
    # -- turns in contract rule sets (docs/api.md#contract-rule-sets) --------------------------
    Code("joker-not-shiftable", "a down player may lay the natural a run's joker stands for in "
         "its place and move the joker to an end of that run, which stays legal (joker_shift "
         "run_end)",
         "This joker cannot be shifted ({reason})."),
    Code("call-not-allowed", "calls only where the rule set allows them (call_max above 0)",
         "This rule set has no calls."),
    Code("call-after-down", "a player who has gone down may not call",
         "{player} has gone down and may not call."),
    Code("call-limit", "a player makes at most call_max granted calls in one deal",
         "{player} has made all {max} call(s) allowed this deal."),
    Code("call-own-turn", "the player whose turn it is does not call; they draw",
         "It is {player}'s own turn: they draw instead of calling."),
    Code("call-own-discard", "a player may not call the card they discarded themselves",
         "{player} discarded {card} and may not call it back."),
    Code("call-no-discard", "a call asks for the discard pile's top card, so the pile has one",
         "There is no discard to call: the discard pile is empty."),
    Code("call-refused-draw", "after a granted call the player whose turn it is draws from the "
         "stock; after a refused one they take the discard themselves",
         "{player} must draw as the call decides: from the stock after a granted call, the "
         "discard after a refused one."),
    Code("joker-discard", "a joker may not be discarded (joker_discard false)",
         "A joker may not be discarded."),
    Code("discard-after-down", "a player who has gone down may not take the discard pile's "
         "top card (discard_after_down false), nor refuse a call",
         "{player} has gone down and may not take the discard (nor refuse a call, which would "
         "make them take it)."),
)

CODES: Mapping[str, Code] = MappingProxyType({c.code: c for c in _CODES})


class _Missing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: a stable ``code``, the facts for its message, and where it happened."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    where: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"meld": 1}, {"turn": 3, "play": 0}

    @property
    def template(self) -> str:
        """The English message template of this violation's code."""
        return CODES[self.code].message

    def message(self) -> str:
        """The English message, its fields filled in from ``params``."""
        return self.template.format_map(_Missing({k: str(v) for k, v in self.params.items()}))

    def at(self, **where: Any) -> Violation:
        return Violation(self.code, self.params, {**self.where, **where})
