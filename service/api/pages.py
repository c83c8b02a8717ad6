"""``GET /problems/{code}``: what each problem and violation code means, for people and programs.

Every problem's ``type`` and every violation's ``type`` is ``/problems/{code}``. A
browser (``Accept: text/html``) gets a short page: what the code means, an example
request that causes it and how to fix it, in English or Dutch (``Accept-Language: nl``
or ``?lang=nl``). Anything else gets JSON with the same description. The pages carry a
strict Content-Security-Policy: no script at all, styles only from ``/problems.css``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, request

from ..engine import violations as v
from .jsonio import dumps
from .problems import TITLES, Problem, language

PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'")
CSS = (Path(__file__).resolve().parent / "static" / "problems.css").read_bytes()


@dataclass(frozen=True)
class Doc:
    en: str  # what it means, and how to fix it
    nl: str
    example: str = ""  # a request that causes it (HTTP, abridged)


# Problems the service answers (status, code). Codes other branches add show their title.
STATUS = {
    "bad-request": 400, "malformed-json": 400, "not-found": 404, "method-not-allowed": 405,
    "payload-too-large": 413, "unsupported-media-type": 415, "not-acceptable": 406,
    "rate-limited": 429, "ledger-unavailable": 503, "ledger-busy": 503,
    "service-unavailable": 503, "internal-error": 500, "match-not-found": 404,
    "entry-not-found": 404, "match-exists": 409, "match-finished": 409, "match-full": 409,
    "buy-ins-not-allowed": 409, "buy-ins-closed": 409, "buy-ins-exhausted": 409,
    "player-not-eliminated": 409, "entry-too-large": 413,
    "token-required": 401, "token-invalid": 403, "precondition-failed": 412,
    "idempotency-key-required": 400, "idempotency-key-invalid": 400,
}

_V = "POST /v1/melds/validate\n"
_T = "POST /v1/turns/check\n"
_M = "POST /v1/matches/{id}/hands\n"

PROBLEM_DOCS: Mapping[str, Doc] = {
    "bad-request": Doc("The request cannot be read. Check the method, path and body against "
                       "the API description (/docs).",
                       "Het verzoek is niet te lezen. Vergelijk methode, pad en inhoud met de "
                       "API-beschrijving (/docs)."),
    "malformed-json": Doc("The body is not valid JSON. Send a JSON object; check quotes and "
                          "commas.", "De inhoud is geen geldige JSON. Stuur een JSON-object; "
                          "controleer aanhalingstekens en komma's.",
                          _V + "Content-Type: application/json\n\n{\"ruleset\": \"kaluki-51\","),
    "not-found": Doc("No resource at this path. Check the path (every endpoint is under /v1).",
                     "Op dit pad is niets. Controleer het pad (alle eindpunten staan onder /v1).",
                     "GET /v1/meld"),
    "method-not-allowed": Doc("The path exists but not with this method; the Allow header "
                              "lists the methods it takes.",
                              "Het pad bestaat, maar niet met deze methode; de Allow-header "
                              "noemt de toegestane methoden.", "GET /v1/melds/validate"),
    "payload-too-large": Doc("The body is larger than the service accepts (MAX_BODY_BYTES, "
                             "256 KiB by default). Send less.",
                             "De inhoud is groter dan de dienst aanneemt (MAX_BODY_BYTES, "
                             "standaard 256 KiB). Stuur minder."),
    "unsupported-media-type": Doc(
        "The body is not sent as application/json (adjudicate also takes "
        "text/vnd.kaluki.hand). Set the Content-Type header.",
        "De inhoud is niet als application/json gestuurd (adjudicate neemt ook "
        "text/vnd.kaluki.hand). Zet de Content-Type-header.",
        _V + "Content-Type: text/plain\n\nruleset=kaluki-51"),
    "not-acceptable": Doc("The service cannot answer in a type the Accept header allows. "
                          "Accept application/json.",
                          "De dienst kan niet antwoorden in een type dat Accept toestaat. "
                          "Accepteer application/json."),
    "validation-error": Doc("The JSON breaks the schema: a missing field, a field of the wrong "
                            "type or an unknown field. 'errors' names each field.",
                            "De JSON voldoet niet aan het schema: een ontbrekend veld, een veld "
                            "van het verkeerde type of een onbekend veld. 'errors' noemt elk veld.",
                            _V + '{"ruleset": "kaluki-51"}'),
    "invalid-card": Doc("A card is not written in the card notation: rank (A 2-9 T J Q K, 10) "
                        "then suit (c d h s), or JK for a joker.",
                        "Een kaart staat niet in de kaartnotatie: rang (A 2-9 T J Q K, 10) en "
                        "dan kleur (c d h s), of JK voor een joker.",
                        _V + '{"ruleset": "kaluki-51", "cards": ["Qz", "Qs", "Qh"]}'),
    "impossible-cards": Doc("The cards cannot all come from one deck of the rule set (too "
                            "many copies of a card). Remove the extra copies.",
                            "De kaarten kunnen niet uit één spel van deze regels komen (te veel "
                            "exemplaren van een kaart). Haal de extra exemplaren weg.",
                            _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7h", "7h"]}'),
    "unknown-ruleset": Doc("No rule set by that name. GET /v1/rulesets lists the catalog.",
                           "Geen spelregels met die naam. GET /v1/rulesets geeft de catalogus.",
                           _V + '{"ruleset": "gin", "cards": ["7h", "7s", "7d"]}'),
    "unknown-parameter": Doc("An override names a parameter the rule sets do not have. "
                             "GET /v1/rulesets/{name} lists every parameter.",
                             "Een override noemt een parameter die de spelregels niet kennen. "
                             "GET /v1/rulesets/{name} noemt elke parameter.",
                             _V + '{"ruleset": {"base": "kaluki-51", "overrides": {"run_mn": 3}},'
                                  ' "cards": ["9c", "Tc", "Jc"]}'),
    "invalid-parameter": Doc("An override's value is of the wrong type or out of range.",
                             "De waarde van een override heeft het verkeerde type of valt buiten "
                             "het bereik.",
                             _V + '{"ruleset": {"base": "kaluki-51", "overrides": {"run_min": 99}},'
                                  ' "cards": ["9c", "Tc", "Jc"]}'),
    "invalid-ruleset": Doc("The rule set is neither a catalog name nor {base, overrides}: an "
                           "unknown key, or a base or overrides of the wrong type.",
                           "De spelregels zijn geen catalogusnaam en geen {base, overrides}: "
                           "een onbekende sleutel, of base of overrides van het verkeerde type.",
                           _V + '{"ruleset": {"base": "kaluki-51", "rules": {}}, '
                                '"cards": ["7h", "7s", "7d"]}'),
    "player-count": Doc("The number of players is outside the rule set's seats "
                        "(players_min..players_max).",
                        "Het aantal spelers valt buiten wat de spelregels toestaan "
                        "(players_min..players_max).",
                        "POST /v1/matches\n" + '{"ruleset": "kaluki-51", "players": ["ann"]}'),
    "invalid-player-id": Doc("A player id is not an identifier: ids are 1 to 64 characters, "
                             "normalised to NFC, with no whitespace, control, zero-width, "
                             "bidi-override or '#' characters. Use a plain name such as \"ann\".",
                             "Een spelers-id is geen geldige naam: 1 tot 64 tekens, naar NFC "
                             "genormaliseerd, zonder spaties, stuurtekens, tekens zonder breedte, "
                             "richtingstekens of '#'. Gebruik een gewone naam zoals \"ann\".",
                             "POST /v1/matches\n" + '{"ruleset": "kaluki-51", '
                                                    '"players": ["ann smith", "bob"]}'),
    "hand-not-finished": Doc("A hand record appended to a match must be legal and finished: "
                             "some player must have gone out. Append the record once the hand "
                             "is over, or send its score.",
                             "Een ronde die aan een partij wordt toegevoegd moet geldig en "
                             "uitgespeeld zijn: een speler moet uit zijn. Voeg de ronde toe als "
                             "ze voorbij is, of stuur de score."),
    "body-incomplete": Doc("The body ended before its Content-Length: the connection closed or "
                           "stalled mid-body. Nothing was ruled on or written; send the whole "
                           "body again.",
                           "De inhoud hield op voor de opgegeven Content-Length: de verbinding "
                           "viel weg of stokte. Er is niets beoordeeld of opgeslagen; stuur de "
                           "hele inhoud opnieuw."),
    "request-timeout": Doc("The body arrived too slowly (REQUEST_BODY_TIMEOUT, 10 s by default). "
                           "Nothing was ruled on or written; send it again in one go.",
                           "De inhoud kwam te traag binnen (REQUEST_BODY_TIMEOUT, standaard "
                           "10 s). Er is niets beoordeeld of opgeslagen; stuur hem opnieuw in "
                           "één keer."),
    "duplicate-player": Doc("A player appears twice. Give each player a distinct id.",
                            "Een speler komt twee keer voor. Geef elke speler een eigen id.",
                            "POST /v1/matches\n" + '{"ruleset": "kaluki-51", '
                                                   '"players": ["ann", "ann"]}'),
    "unknown-winner": Doc("The winner is not one of the hand's players.",
                          "De winnaar is geen speler van deze hand.",
                          "POST /v1/hands/score\n" + '{"ruleset": "kaluki-hunt", "winner": "zed",'
                          ' "finish": "out", "players": [{"id": "kim", "cards": []}, '
                          '{"id": "lou", "cards": ["Qs"]}]}'),
    "winner-holds-cards": Doc("The winner still holds cards; a winner has none left.",
                              "De winnaar heeft nog kaarten; een winnaar heeft er geen meer.",
                              "POST /v1/hands/score\n" + '{"ruleset": "kaluki-hunt", "winner": '
                              '"kim", "finish": "out", "players": [{"id": "kim", "cards": ["2c"]},'
                              ' {"id": "lou", "cards": ["Qs"]}]}'),
    "invalid-finish": Doc("finish is \"out\" or \"special\".",
                          "finish is \"out\" of \"special\"."),
    "invalid-meld": Doc("A meld said to be on the table (build, release, turn check) is not a "
                        "legal meld; the problem's 'violations' say why. As a violation in an "
                        "opening: one of the melds is not legal.",
                        "Een combinatie die op tafel zou liggen is niet geldig; 'violations' "
                        "zegt waarom. Als overtreding in een opening: een van de combinaties is "
                        "niet geldig.",
                        "POST /v1/melds/build\n" + '{"ruleset": "kaluki-hunt", "meld": ["5h", '
                        '"9c", "Kd"], "cards": ["8h"]}'),
    "invalid-record": Doc("The hand record cannot be read: a missing or malformed field. "
                          "'errors' names it.",
                          "Het handverslag is niet te lezen: een ontbrekend of misvormd veld. "
                          "'errors' noemt het.",
                          "POST /v1/hands/adjudicate\n" + '{"ruleset": "kaluki-hunt", '
                          '"players": ["ann", "bob"]}'),
    "invalid-notation": Doc("A line of the text notation cannot be read (docs/notation.md).",
                            "Een regel van de tekstnotatie is niet te lezen (docs/notation.md).",
                            "POST /v1/hands/adjudicate\nContent-Type: text/vnd.kaluki.hand\n\n"
                            "ruleset kaluki-hunt\nshuffle"),
    "deal-size": Doc("A player was dealt more or fewer cards than the rule set's hand_size.",
                     "Een speler kreeg meer of minder kaarten dan hand_size van de spelregels."),
    "unknown-player": Doc("The record names a player who is not in 'players'.",
                          "Het verslag noemt een speler die niet in 'players' staat."),
    "missing-card": Doc("A record needs a card it does not give (a stock draw without its card "
                        "when there is no stock).",
                        "Een verslag mist een kaart (een trekking van de stapel zonder kaart als "
                        "er geen stapel is)."),
    "hand-too-large": Doc("The hand holds more than hand_size + 1 cards.",
                          "De hand heeft meer dan hand_size + 1 kaarten."),
    "search-too-large": Doc("The overrides make the search for the best arrangement larger "
                            "than the service will do; ask with smaller decks or hands.",
                            "Met deze overrides is het zoeken naar de beste indeling groter dan "
                            "de dienst doet; vraag het met minder kaarten."),
    "rate-limited": Doc("Too many requests from this client. Wait Retry-After seconds; the "
                        "RateLimit headers say what is left.",
                        "Te veel verzoeken van deze client. Wacht Retry-After seconden; de "
                        "RateLimit-headers zeggen wat er over is."),
    "ledger-unavailable": Doc("The match store (Redis) cannot be reached; nothing was written. "
                              "Retry after Retry-After seconds with the same Idempotency-Key.",
                              "De opslag van partijen (Redis) is onbereikbaar; er is niets "
                              "geschreven. Probeer na Retry-After seconden opnieuw met dezelfde "
                              "Idempotency-Key."),
    "ledger-busy": Doc("Too many concurrent writes to one match. Retry after Retry-After.",
                       "Te veel gelijktijdige wijzigingen van één partij. Probeer opnieuw na "
                       "Retry-After."),
    "match-not-found": Doc("No match with this id: it may have expired. Import its export to "
                           "restore it.",
                           "Geen partij met dit id: misschien verlopen. Importeer de export.",
                           "GET /v1/matches/no-such-match"),
    "match-exists": Doc("The import's id holds a live match: an import never overwrites one. "
                        "Delete it first (with its token), or keep the live one.",
                        "Het id van de import hoort bij een partij die nog bestaat: een import "
                        "overschrijft nooit. Verwijder die eerst (met het token), of houd haar."),
    "match-finished": Doc("The match is over; it takes no more hands.",
                          "De partij is afgelopen; er kunnen geen handen meer bij."),
    "match-full": Doc("The match holds LEDGER_MAX_HANDS entries (hands and buy-ins); start a "
                      "new match.",
                      "De partij heeft LEDGER_MAX_HANDS regels (handen en terugkopen); begin "
                      "een nieuwe partij."),
    "entry-too-large": Doc("The hand would make a ledger entry larger than "
                           "LEDGER_MAX_ENTRY_BYTES; send a shorter record, or its score.",
                           "De hand zou een regel groter dan LEDGER_MAX_ENTRY_BYTES maken; "
                           "stuur een korter verslag, of de score."),
    "token-required": Doc("This write needs the match's token: Authorization: Bearer <token>.",
                          "Deze wijziging vraagt het token van de partij: Authorization: Bearer "
                          "<token>.", _M + "Idempotency-Key: hand-1\n\n{\"score\": …}"),
    "token-invalid": Doc("The token is not this match's. Use the token createMatch returned.",
                         "Het token hoort niet bij deze partij. Gebruik het token van "
                         "createMatch."),
    "precondition-failed": Doc("If-Match does not match the match's ETag: someone wrote first. "
                               "Read the match again and retry.",
                               "If-Match komt niet overeen met de ETag: iemand schreef eerder. "
                               "Lees de partij opnieuw en probeer het nog eens."),
    "idempotency-key-required": Doc("Appending a hand needs an Idempotency-Key header: a fresh "
                                    "random string per hand, kept across retries.",
                                    "Een hand toevoegen vraagt een Idempotency-Key-header: een "
                                    "nieuwe willekeurige tekst per hand, dezelfde bij herhaling.",
                                    _M + "Authorization: Bearer <token>\n\n{\"score\": …}"),
    "idempotency-key-invalid": Doc("An Idempotency-Key has at most 255 characters.",
                                   "Een Idempotency-Key heeft hoogstens 255 tekens."),
    "idempotency-key-reused": Doc("This Idempotency-Key was used for another body. Use a fresh "
                                  "key for a new hand.",
                                  "Deze Idempotency-Key hoort bij een andere inhoud. Gebruik een "
                                  "nieuwe sleutel voor een nieuwe hand."),
    "invalid-cursor": Doc("Use the next_cursor of a previous page.",
                          "Gebruik de next_cursor van een vorige pagina.",
                          "GET /v1/matches/{id}/hands?cursor=abc"),
    "entry-not-found": Doc("The match has no entry with that number.",
                           "De partij heeft geen regel met dat nummer."),
    "invalid-entry": Doc("An export entry is neither a hand nor a buy-in, or lacks its input.",
                         "Een regel van de export is geen hand en geen terugkoop, of mist zijn "
                         "invoer."),
    "chain-broken": Doc("The export's hash chain does not verify: an entry was changed.",
                        "De hashketen van de export klopt niet: een regel is veranderd."),
    "signature-invalid": Doc("The export is not one this service signed, or was changed.",
                             "De export is niet door deze dienst ondertekend, of is veranderd."),
    "rescore-mismatch": Doc("Re-scoring the export's hands gives other scores than recorded.",
                            "Het herberekenen van de handen geeft andere scores dan vastgelegd."),
    "hand-players": Doc("The hand's players are not the match's players still in the game.",
                        "De spelers van de hand zijn niet de spelers die nog in de partij zitten."),
    "invalid-hand": Doc("The hand does not fit the match.", "De hand past niet bij de partij."),
    "illegal-record": Doc("The hand record breaks a rule; 'violations' names the first.",
                          "Het handverslag overtreedt een regel; 'violations' noemt de eerste."),
    "buy-ins-not-allowed": Doc("The rule set has no buy-ins.", "Deze spelregels kennen geen "
                               "terugkoop."),
    "buy-ins-closed": Doc("A buy-in needs buy_in_min_players at the table, counting the player "
                          "buying in (kaluki-uk: 3, so never head to head).",
                          "Terugkopen kan alleen met buy_in_min_players spelers aan tafel, de "
                          "terugkoper meegeteld (kaluki-uk: 3, dus nooit met z'n tweeën)."),
    "buy-ins-exhausted": Doc("The player has made the buy_ins_max buy-ins a player may make in "
                             "this match (kaluki-uk: 1).",
                             "De speler heeft de buy_ins_max keer teruggekocht die een speler in "
                             "deze partij mag (kaluki-uk: 1)."),
    "player-not-eliminated": Doc("Only an eliminated player may buy back in.",
                                 "Alleen een uitgeschakelde speler mag terugkopen."),
    "internal-error": Doc("Something went wrong on the service's side; it is logged. Retry, "
                          "and report it if it persists.",
                          "Er ging iets mis aan de kant van de dienst; het is gelogd. Probeer "
                          "opnieuw en meld het als het blijft."),
    "service-unavailable": Doc("The service cannot answer now. Retry later.",
                               "De dienst kan nu niet antwoorden. Probeer het later opnieuw."),
}

# A violation is a ruling (200 with valid/legal false): the fix is a different play.
VIOLATION_EXAMPLES: Mapping[str, str] = {
    "meld-empty": _V + '{"ruleset": "kaluki-51", "cards": []}',
    "not-a-meld": _V + '{"ruleset": "kaluki-51", "cards": ["7h", "9c", "Kd"]}',
    "set-too-short": _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7s"], "kind": "set"}',
    "set-too-long": _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7s", "7d", "7c", "JK"]}',
    "duplicate-suit": _V + '{"ruleset": "kaluki-51", "cards": ["4c", "4c", "4d"]}',
    "run-too-short": _V + '{"ruleset": "kaluki-51", "cards": ["9c", "Tc", "Jc"]}',
    "mixed-suits": _V + '{"ruleset": "kaluki-hunt", "cards": ["9c", "Th", "Jc"], "kind": "run"}',
    "ace-wraparound": _V + '{"ruleset": "kaluki-hunt", "cards": ["Kh", "Ah", "2h"]}',
    "ace-not-low": _V + '{"ruleset": "kaluki-uk", "cards": ["Ah", "2h", "3h"]}',
    "opening-below-threshold": "POST /v1/melds/opening\n"
                               '{"ruleset": "kaluki-51", "melds": [["2h", "3h", "4h", "5h"]]}',
    "joker-not-releasable": "POST /v1/jokers/release\n"
                            '{"ruleset": "kaluki-hunt", "meld": ["7c", "7d", "JK"], '
                            '"cards": ["7h"]}',
    "no-joker": "POST /v1/jokers/release\n"
                '{"ruleset": "kaluki-hunt", "meld": ["7c", "7d", "7s"], "cards": ["7h"]}',
    "build-does-not-fit": "POST /v1/melds/build\n"
                          '{"ruleset": "kaluki-hunt", "meld": ["5h", "6h", "7h"], "cards": ["Kc"]}',
    "build-before-opening": "POST /v1/melds/build\n"
                            '{"ruleset": "kaluki-51", "meld": ["5h", "6h", "7h", "8h"], '
                            '"cards": ["9h"], "opened": false}',
    "draw-missing": _T + '{"ruleset": "kaluki-hunt", "hand": ["2c", "3c"], '
                         '"turn": {"plays": [], "discard": "2c"}}',
    "card-not-in-hand": _T + '{"ruleset": "kaluki-hunt", "hand": ["2c", "3c"], "turn": '
                             '{"draw": {"from": "stock", "card": "4c"}, "discard": "Kh"}}',
    "discard-missing": _T + '{"ruleset": "kaluki-hunt", "hand": ["2c", "3c"], "turn": '
                            '{"draw": {"from": "stock", "card": "4c"}}}',
}

# The rule each violation code stands for, in Dutch (the English is the catalog's ``rule``).
NL_RULES: Mapping[str, str] = {
    "meld-empty": "een combinatie heeft kaarten",
    "not-a-meld": "een combinatie is een set (één rang) of een reeks (één kleur, op volgorde)",
    "set-too-short": "een set heeft minstens set_min kaarten",
    "set-too-long": "een set heeft hoogstens set_max kaarten",
    "mixed-ranks": "alle echte kaarten van een set hebben dezelfde rang",
    "duplicate-suit": "geen twee kaarten van een set hebben dezelfde kleur (set_distinct_suits)",
    "run-too-short": "een reeks heeft minstens run_min kaarten",
    "run-too-long": "een reeks heeft hoogstens run_max kaarten",
    "mixed-suits": "alle echte kaarten van een reeks hebben dezelfde kleur",
    "duplicate-rank": "geen rang komt twee keer voor in een reeks",
    "not-in-sequence": "de kaarten van een reeks zijn opeenvolgend en liggen op volgorde",
    "ace-wraparound": "een reeks loopt niet door van heer via aas naar twee (tenzij ace around is)",
    "ace-not-low": "de aas mag onder deze regels niet onder de twee liggen",
    "ace-not-high": "de aas mag onder deze regels niet boven de heer liggen",
    "too-few-naturals": "een combinatie heeft set_min_naturals / run_min_naturals echte kaarten",
    "joker-mismatch": "een joker staat voor de kaart op zijn plaats",
    "kind-mismatch": "een combinatie die als één soort gelezen moet worden, is die soort",
    "opening-below-threshold": "de eerste combinaties van een speler halen opening_min_points",
    "invalid-meld": "elke combinatie van een opening is geldig",
    "build-before-opening": "aanleggen pas na de eigen opening (build_requires_opening)",
    "build-does-not-fit": "een aangelegde kaart verlengt de combinatie volgens de regels",
    "meld-closed": "een gesloten combinatie neemt geen kaarten meer aan",
    "release-before-opening": "vrijspelen pas na de eigen opening (release_requires_opening)",
    "no-joker": "vrijspelen kan alleen bij een combinatie met een joker",
    "joker-not-releasable": "een joker verlaat een combinatie alleen zoals release_set / "
                            "release_run toestaan",
    "release-wrong-card": "alleen de kaart waarvoor een joker staat speelt hem vrij uit een "
                          "reeks (exact)",
    "out-of-turn": "de spelers zijn om de beurt aan, in de volgorde van players",
    "hand-already-over": "de hand is voorbij zodra een speler geen kaarten meer heeft",
    "draw-missing": "elke beurt begint met een kaart van de stapel of de aflegstapel",
    "stock-mismatch": "wie van de stapel trekt, neemt de bovenste kaart",
    "card-not-in-stock": "een kaart van de stapel is een kaart die nog niet gezien is",
    "stock-empty": "de stapel wordt aangevuld uit de aflegstapel, op de bovenste kaart na",
    "restock-mismatch": "een nieuwe stapel is precies de aflegstapel onder de bovenste kaart, "
                        "alleen als de stapel op is",
    "discard-pile-empty": "van de aflegstapel trekken kan alleen als er een aflegstapel is",
    "discard-draw-mismatch": "wie van de aflegstapel trekt, neemt de bovenste kaart",
    "card-not-in-hand": "een speler speelt alleen kaarten die hij op dat moment in de hand heeft",
    "no-such-meld": "aanleggen en vrijspelen gebeurt op een combinatie op tafel (genummerd "
                    "vanaf 0)",
    "pickup-not-melded": "discard_pickup meld_same_turn: de kaart van de aflegstapel gaat die "
                         "beurt op tafel",
    "pickup-not-in-new-meld": "discard_pickup new_meld_same_turn: de kaart van de aflegstapel "
                              "gaat die beurt in een nieuwe combinatie",
    "discard-just-taken": "de kaart die net van de aflegstapel kwam, wordt niet dezelfde beurt "
                          "afgelegd",
    "released-joker-unused": "een vrijgespeelde joker wordt dezelfde beurt weer uitgelegd "
                             "(released_joker any_meld / new_meld)",
    "discard-missing": "een beurt eindigt met afleggen, tenzij de speler geen kaarten meer heeft",
    "final-discard-required": "final_discard required: de laatste kaart gaat naar de aflegstapel",
}

_FIX = {"en": "This is a ruling, not an error: the answer is 200 with valid/legal false. "
              "Change the play (the message names what broke) and ask again.",
        "nl": "Dit is een uitspraak, geen fout: het antwoord is 200 met valid/legal false. "
              "Verander de zet (de melding noemt wat er misging) en vraag het opnieuw."}

_WORDS = {
    "en": {"problem": "Problem", "violation": "Rule violation", "status": "HTTP status",
           "example": "An example request that causes it", "fix": "How to fix it",
           "message": "The message reads", "rule": "The rule", "back": "Every code: GET "
           "/v1/violations, and the API description at /docs.", "means": "What it means"},
    "nl": {"problem": "Probleem", "violation": "Overtreding", "status": "HTTP-status",
           "example": "Een voorbeeldverzoek dat het veroorzaakt", "fix": "Zo los je het op",
           "message": "De melding luidt", "rule": "De regel", "back": "Alle codes: GET "
           "/v1/violations, en de API-beschrijving op /docs.", "means": "Wat het betekent"},
}


def known(code: str) -> bool:
    return code in TITLES or code in PROBLEM_DOCS or code in v.CODES


def describe(code: str) -> dict[str, object]:
    """The JSON answer: code, type, kind, titles and descriptions in both languages."""
    is_problem = code in TITLES or code in PROBLEM_DOCS
    violation = v.CODES.get(code)
    title = {"en": code.replace("-", " ").capitalize(), "nl": code.replace("-", " ").capitalize()}
    if code in TITLES:
        title = dict(zip(("en", "nl"), TITLES[code], strict=True))
    elif violation is not None:
        nl_rule = NL_RULES.get(code, violation.rule)
        title = {"en": violation.rule[:1].upper() + violation.rule[1:],
                 "nl": nl_rule[:1].upper() + nl_rule[1:]}
    description: dict[str, str] = {}
    doc = PROBLEM_DOCS.get(code)
    for lang in ("en", "nl"):
        parts = []
        if doc is not None:
            parts.append(getattr(doc, lang))
        if violation is not None:
            template = violation.en if lang == "en" else violation.nl
            rule_text = violation.rule if lang == "en" else NL_RULES.get(code, violation.rule)
            rule = f"{_WORDS[lang]['rule']}: {rule_text}. "
            parts.append(f"{rule}{_WORDS[lang]['message']}: “{template.format_map(_Dots())}”")
        description[lang] = " ".join(parts) or title[lang]
    kind = "problem+violation" if is_problem and violation else "problem" if is_problem \
        else "violation"
    body: dict[str, object] = {"type": f"/problems/{code}", "code": code, "kind": kind,
                               "title": title, "description": description}
    if is_problem:
        body["status"] = STATUS.get(code, 422)
    example = (doc.example if doc else "") or VIOLATION_EXAMPLES.get(code, "")
    if example:
        body["example"] = example
    return body


class _Dots(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "…"


def _lang() -> str:
    asked = request.args.get("lang")
    return asked if asked in ("en", "nl") else language()


def _wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "application/problem+json",
                                                "text/html"])
    return best == "text/html"


def render_page(code: str, lang: str) -> str:
    d = describe(code)
    w = _WORDS[lang]
    e = html.escape
    title = d["title"][lang]  # type: ignore[index]
    kind = {"problem": w["problem"], "violation": w["violation"],
            "problem+violation": f"{w['problem']} / {w['violation']}"}[d["kind"]]  # type: ignore[index]
    rows = [f"<p class=\"kind\">{e(kind)} <code>{e(code)}</code>"
            + (f" · {w['status']} {d['status']}" if "status" in d else "") + "</p>",
            f"<h2>{e(w['means'])}</h2>", f"<p>{e(d['description'][lang])}</p>"]  # type: ignore[index]
    if "example" in d:
        rows += [f"<h2>{e(w['example'])}</h2>", f"<pre>{e(str(d['example']))}</pre>"]
    doc = PROBLEM_DOCS.get(code)
    fix = (getattr(doc, lang) if doc else "") if d["kind"] == "problem" else _FIX[lang]
    rows += [f"<h2>{e(w['fix'])}</h2>", f"<p>{e(fix)}</p>", f"<p class=\"more\">{e(w['back'])}</p>"]
    other = "nl" if lang == "en" else "en"
    return (f"<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)} ({e(code)})</title>"
            f"<link rel=\"stylesheet\" href=\"/problems.css\">"
            f"<link rel=\"icon\" type=\"image/png\" href=\"/docs/assets/favicon-32x32.png\">"
            f"</head><body><main>"
            f"<h1>{e(title)}</h1>{''.join(rows)}"
            f"<p class=\"lang\"><a href=\"/problems/{e(code)}?lang={other}\" hreflang=\"{other}\">"
            f"{'Nederlands' if other == 'nl' else 'English'}</a></p></main></body></html>\n")


def install(app: Flask) -> None:
    @app.route("/problems/<code>")
    def problem_type(code: str) -> Response:
        """What a problem or violation code means: a page for browsers, JSON otherwise."""
        if not known(code):
            raise Problem(404, "not-found", f"no problem or violation code {code!r}",
                          nl=f"geen probleem- of overtredingscode {code!r}")
        lang = _lang()
        if _wants_html():
            resp = Response(render_page(code, lang), mimetype="text/html")
            resp.headers["Content-Security-Policy"] = PAGE_CSP
        else:
            resp = Response(dumps(describe(code)), mimetype="application/json")
        resp.headers["Content-Language"] = lang
        resp.headers["Vary"] = "Accept, Accept-Language"
        return resp

    @app.route("/problems.css")
    def problems_css() -> Response:
        resp = Response(CSS, mimetype="text/css")
        resp.headers["Cache-Control"] = "public, max-age=86400"
        return resp
