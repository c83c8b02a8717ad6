"""Rulings that say no: violation codes and their messages (SPEC §4).

A violation is a ruling, not an error: the request was well formed, but the
play breaks a rule. Each code is stable kebab-case and has an English and a
Dutch message; ``GET /v1/violations`` publishes this catalog.

>>> v = Violation("run-too-short", {"min": 4, "count": 3})
>>> v.message("en")
'A run needs at least 4 cards; this one has 3.'
>>> v.message("nl")
'Een reeks heeft minstens 4 kaarten nodig; deze heeft er 3.'
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
    en: str
    nl: str


_CODES: tuple[Code, ...] = (
    # -- melds --------------------------------------------------------------------------
    Code("meld-empty", "a meld has cards", "A meld needs cards.", "Een combinatie heeft kaarten nodig."),
    Code("not-a-meld", "a meld is a set (one rank) or a run (one suit, in sequence)",
         "These cards are neither a set (one rank) nor a run (one suit in sequence).",
         "Deze kaarten vormen geen set (één rang) en geen reeks (één kleur op volgorde)."),
    Code("set-too-short", "a set has at least set_min cards",
         "A set needs at least {min} cards; this one has {count}.",
         "Een set heeft minstens {min} kaarten nodig; deze heeft er {count}."),
    Code("set-too-long", "a set has at most set_max cards",
         "A set has at most {max} cards; this one would have {count}.",
         "Een set heeft hoogstens {max} kaarten; deze zou er {count} hebben."),
    Code("mixed-ranks", "every natural card of a set has the same rank",
         "A set's cards must all have the same rank.",
         "De kaarten van een set moeten allemaal dezelfde rang hebben."),
    Code("duplicate-suit", "no two cards of a set share a suit (set_distinct_suits)",
         "A set may not hold two cards of the same suit ({suit}).",
         "Een set mag geen twee kaarten van dezelfde kleur ({suit}) bevatten."),
    Code("run-too-short", "a run has at least run_min cards",
         "A run needs at least {min} cards; this one has {count}.",
         "Een reeks heeft minstens {min} kaarten nodig; deze heeft er {count}."),
    Code("run-too-long", "a run has at most run_max cards",
         "A run has at most {max} cards; this one would have {count}.",
         "Een reeks heeft hoogstens {max} kaarten; deze zou er {count} hebben."),
    Code("mixed-suits", "every natural card of a run has the same suit",
         "A run's cards must all be of one suit.",
         "De kaarten van een reeks moeten allemaal van één kleur zijn."),
    Code("duplicate-rank", "no rank appears twice in a run",
         "A run may not hold the same rank twice ({rank}).",
         "Een reeks mag dezelfde rang niet twee keer bevatten ({rank})."),
    Code("not-in-sequence", "a run's cards are consecutive, given in order",
         "A run's cards must be consecutive and given in sequence order.",
         "De kaarten van een reeks moeten opeenvolgend zijn en op volgorde liggen."),
    Code("ace-wraparound", "a run may not turn the corner K-A-2 (unless ace is around)",
         "A run may not go round the corner from king through ace to two.",
         "Een reeks mag niet van heer via aas naar twee doorlopen."),
    Code("ace-not-low", "the ace may not stand below the two in this rule set",
         "The ace may not be used low (A-2-3) under these rules.",
         "De aas mag onder deze regels niet laag (A-2-3) gebruikt worden."),
    Code("ace-not-high", "the ace may not stand above the king in this rule set",
         "The ace may not be used high (Q-K-A) under these rules.",
         "De aas mag onder deze regels niet hoog (V-H-A) gebruikt worden."),
    Code("too-few-naturals", "a meld needs set_min_naturals / run_min_naturals natural cards",
         "This meld needs at least {min} natural (non-joker) card(s).",
         "Deze combinatie heeft minstens {min} echte kaart(en) (geen joker) nodig."),
    Code("joker-mismatch", "a joker stands for the card at its place",
         "The joker written {declared} cannot stand there; it would be {actual}.",
         "De joker als {declared} kan daar niet liggen; daar hoort {actual}."),
    Code("kind-mismatch", "a meld asked to be read as one kind must be that kind",
         "These cards cannot be read as a {kind}.",
         "Deze kaarten vormen geen {kind}."),
    # -- opening ------------------------------------------------------------------------
    Code("opening-below-threshold", "a player's first melds reach opening_min_points",
         "The opening melds count {points} points; at least {threshold} are needed.",
         "De openingscombinaties tellen {points} punten; er zijn er minstens {threshold} nodig."),
    Code("invalid-meld", "every meld of an opening is a legal meld",
         "Meld {meld} is not legal.", "Combinatie {meld} is niet geldig."),
    # -- building -----------------------------------------------------------------------
    Code("build-before-opening", "building only after one's own opening (build_requires_opening)",
         "You may build on melds only after your own opening.",
         "Je mag pas aanleggen na je eigen opening."),
    Code("build-does-not-fit", "a card built on a meld extends it legally",
         "{card} does not fit this meld.", "{card} past niet bij deze combinatie."),
    Code("meld-closed", "a closed meld takes no more cards",
         "This meld is closed; {card} cannot be added.",
         "Deze combinatie is gesloten; {card} kan er niet bij."),
    # -- jokers -------------------------------------------------------------------------
    Code("release-before-opening", "releasing only after one's own opening (release_requires_opening)",
         "You may release a joker only after your own opening.",
         "Je mag pas een joker vrijspelen na je eigen opening."),
    Code("no-joker", "a release needs a joker in the meld",
         "This meld holds no joker to release.", "Deze combinatie bevat geen joker om vrij te spelen."),
    Code("joker-not-releasable", "a joker leaves a meld only as release_set / release_run allow",
         "No joker can be released from this meld with these cards ({reason}).",
         "Met deze kaarten kan geen joker uit deze combinatie worden vrijgespeeld ({reason})."),
    Code("release-wrong-card", "only the card a joker stands for frees it from a run (exact)",
         "{card} is not the card a joker in this meld stands for.",
         "{card} is niet de kaart waarvoor een joker in deze combinatie staat."),
    # -- turns (the hand referee) -------------------------------------------------------
    Code("out-of-turn", "players act in the order listed, the first player first",
         "It is {expected}'s turn, not {player}'s.",
         "{expected} is aan de beurt, niet {player}."),
    Code("hand-already-over", "the hand ends the moment a player has no cards left",
         "The hand is already over: {winner} has no cards left.",
         "De ronde is al voorbij: {winner} heeft geen kaarten meer."),
    Code("draw-missing", "every turn starts with a draw from the stock or the discard pile",
         "A turn starts with a draw from the stock or the discard pile.",
         "Een beurt begint met een kaart van de stapel of van de aflegstapel."),
    Code("stock-mismatch", "a stock draw takes the stock's top card",
         "The top card of the stock is {top}, not {card}.",
         "De bovenste kaart van de stapel is {top}, niet {card}."),
    Code("card-not-in-stock", "a card drawn from the stock must be one not yet seen",
         "{card} cannot come from the stock: every copy is already accounted for.",
         "{card} kan niet van de stapel komen: elk exemplaar is al in het spel."),
    Code("stock-empty", "the stock is refilled from the discard pile but its top card",
         "The stock is empty and the discard pile cannot refill it.",
         "De stapel is leeg en de aflegstapel kan hem niet aanvullen."),
    Code("restock-mismatch", "a new stock is exactly the discard pile under its top card, "
         "given only when the stock runs out",
         "Wrong restock: {reason}.", "Onjuiste nieuwe stapel: {reason}."),
    Code("discard-pile-empty", "a discard draw needs a discard pile",
         "The discard pile is empty.", "De aflegstapel is leeg."),
    Code("discard-draw-mismatch", "a discard draw takes the pile's top card",
         "The top of the discard pile is {top}, not {card}.",
         "De bovenste kaart van de aflegstapel is {top}, niet {card}."),
    Code("card-not-in-hand", "a player plays only cards in their hand at that moment",
         "{card} is not in {player}'s hand.", "{card} zit niet in de hand van {player}."),
    Code("no-such-meld", "builds and releases go on a meld on the table (numbered from 0)",
         "There is no meld {meld} on the table.", "Er ligt geen combinatie {meld} op tafel."),
    Code("pickup-not-melded", "discard_pickup meld_same_turn: the card taken from the discard "
         "pile is laid on the table that turn",
         "{card}, taken from the discard pile, must be laid on the table this turn.",
         "{card}, van de aflegstapel gepakt, moet deze beurt op tafel komen."),
    Code("pickup-not-in-new-meld", "discard_pickup new_meld_same_turn: the card taken from the "
         "discard pile goes into a new meld that turn",
         "{card}, taken from the discard pile, must be part of a new meld this turn.",
         "{card}, van de aflegstapel gepakt, moet deze beurt in een nieuwe combinatie komen."),
    Code("discard-just-taken", "the card just taken from the discard pile is not discarded "
         "the same turn",
         "{card} was just taken from the discard pile and cannot be discarded this turn.",
         "{card} is net van de aflegstapel gepakt en mag deze beurt niet worden afgelegd."),
    Code("released-joker-unused", "a released joker is laid again the same turn "
         "(released_joker any_meld / new_meld)",
         "{count} released joker(s) must be laid again this turn (released_joker: {must_use}).",
         "{count} vrijgespeelde joker(s) moeten deze beurt weer worden gelegd "
         "(released_joker: {must_use})."),
    Code("discard-missing", "a turn ends with a discard unless the player has no cards left",
         "The turn must end with a discard.", "De beurt moet eindigen met afleggen."),
    Code("final-discard-required", "final_discard required: the last card goes to the "
         "discard pile",
         "The last card must be discarded, not laid on the table.",
         "De laatste kaart moet worden afgelegd, niet op tafel gelegd."),
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

    def message(self, lang: str = "en") -> str:
        entry = CODES[self.code]
        template = entry.nl if lang == "nl" else entry.en
        return template.format_map(_Missing({k: str(v) for k, v in self.params.items()}))

    def at(self, **where: Any) -> Violation:
        return Violation(self.code, self.params, {**self.where, **where})

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        return {"code": self.code, "message": self.message(lang), **self.where, **self.params}
