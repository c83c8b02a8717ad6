"""The problem codes: every error the service answers, one row per code
(docs/api.md#errors-and-codes).

Flask-free: a row says the code's English title (translated by the catalogs in
``service/i18n``, msgctxt ``title``), its HTTP status (422 unless it says; ``also``: the
other statuses it answers, and where), the headers it always carries, whether only the
API itself answers it (``api``: the rest are engine or ledger errors whose detail is their
own message), the detail it answers when the raise gives none (``detail``), and what its
``/problems/{code}`` page says (``doc``: what it means and how to fix it, and a request
that causes it). The status table (:mod:`service.api.problems`), the pages
(:mod:`service.docs.pages`) and docs/api.md's errors table all come from here, shaped
like :class:`service.engine.violations.Code` for violations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .i18n import N_

RETRY_AFTER = "2"
"""Seconds a client waits before it retries a 503."""


@dataclass(frozen=True, slots=True)
class Doc:
    """A code's page: what it means and how to fix it (English; translated in
    service/i18n), and a request that causes it (HTTP, abridged)."""

    text: str
    example: str = ""


@dataclass(frozen=True, slots=True)
class ProblemCode:
    code: str
    title: str
    doc: Doc
    status: int = 422
    headers: Mapping[str, str] = field(default_factory=dict)
    also: Mapping[int, str] = field(default_factory=dict)
    api: bool = False
    detail: str = ""
    """The answer's detail when the raise gives none (the API's own codes: an HTTP error's),
    or in place of a ledger error's own message."""


_V = "POST /v1/melds/validate\n"
_T = "POST /v1/turns/check\n"
_M = "POST /v1/matches/{id}/hands\n"

_ROWS = (
    ProblemCode('bad-request',
        N_('Bad request', "title"),
        Doc('The request cannot be read. Check the method, path and body against the '
            'API description (/docs).'),
        status=400,
        api=True),
    ProblemCode('malformed-json',
        N_('Malformed JSON', "title"),
        Doc('The body is not valid JSON (an empty body, and one that is not UTF-8, '
            'are not JSON either). Send a JSON object in UTF-8; check quotes and '
            'commas.',
            _V + 'Content-Type: application/json\n\n{"ruleset": "kaluki-51",'),
        status=400,
        detail=N_("The request body is not valid JSON."),
        api=True),
    ProblemCode('not-found',
        N_('Not found', "title"),
        Doc('No resource at this path. Check the path (every endpoint is under /v1).',
            'GET /v1/meld'),
        status=404,
        detail=N_("No such resource."),
        api=True),
    ProblemCode('method-not-allowed',
        N_('Method not allowed', "title"),
        Doc('The path exists but not with this method; the Allow header lists the '
            'methods it takes.',
            'GET /v1/melds/validate'),
        status=405,
        detail=N_("{method} is not allowed here."),
        api=True),
    ProblemCode('payload-too-large',
        N_('Payload too large', "title"),
        Doc('The body is larger than the service accepts (MAX_BODY_BYTES, 256 KiB by '
            'default). Send less.'),
        status=413,
        api=True),
    ProblemCode('unsupported-media-type',
        N_('Unsupported media type', "title"),
        Doc('The body is not sent as application/json (adjudicate also takes '
            'text/vnd.kaluki.hand). Set the Content-Type header.',
            _V + 'Content-Type: text/plain\n\nruleset=kaluki-51'),
        status=415,
        detail=N_("Send the body as application/json."),
        api=True),
    ProblemCode('not-acceptable',
        N_('Not acceptable', "title"),
        Doc('The service cannot answer in a type the Accept header allows. Accept '
            'application/json.'),
        status=406,
        api=True),
    ProblemCode('validation-error',
        N_('Invalid request body', "title"),
        Doc('The JSON breaks the schema: a missing field, a field of the wrong type '
            "or an unknown field. 'errors' names each field.",
            _V + '{"ruleset": "kaluki-51"}'),
        detail=N_("The request body does not match the schema; see 'errors'."),
        api=True),
    ProblemCode('invalid-card',
        N_('Invalid card', "title"),
        Doc('A card is not written in the card notation: rank (A 2-9 T J Q K, 10) '
            'then suit (c d h s), or JK for a joker.',
            _V + '{"ruleset": "kaluki-51", "cards": ["Qz", "Qs", "Qh"]}')),
    ProblemCode('impossible-cards',
        N_('Impossible cards', "title"),
        Doc('The cards cannot all come from one deck of the rule set (too many copies '
            'of a card). Remove the extra copies.',
            _V + '{"ruleset": "kaluki-51", "cards": ["7h", "7h", "7h"]}')),
    ProblemCode('unknown-ruleset',
        N_('Unknown rule set', "title"),
        Doc('No rule set by that name. GET /v1/rulesets lists the catalog.',
            _V + '{"ruleset": "gin", "cards": ["7h", "7s", "7d"]}'),
        also={404: 'on `GET /v1/rulesets/{name}`, where the rule set is the resource'}),
    ProblemCode('unknown-parameter',
        N_('Unknown rule-set parameter', "title"),
        Doc('An override names a parameter the rule sets do not have. GET '
            '/v1/rulesets/{name} lists every parameter.',
            _V + '{"ruleset": {"base": "kaluki-51", "overrides": {"run_mn": 3}}, "cards": '
            '["9c", "Tc", "Jc"]}')),
    ProblemCode('invalid-parameter',
        N_('Invalid rule-set parameter', "title"),
        Doc("An override's value is of the wrong type or out of range.",
            _V + '{"ruleset": {"base": "kaluki-51", "overrides": {"run_min": 99}}, '
            '"cards": ["9c", "Tc", "Jc"]}')),
    ProblemCode('invalid-ruleset',
        N_('Invalid rule set', "title"),
        Doc('The rule set is neither a catalog name nor {base, overrides}: an unknown '
            'key, or a base or overrides of the wrong type.',
            _V + '{"ruleset": {"base": "kaluki-51", "rules": {}}, "cards": ["7h", "7s", '
            '"7d"]}')),
    ProblemCode('player-count',
        N_("Player count outside the rule set's seats", "title"),
        Doc("The number of players is outside the rule set's seats "
            '(players_min..players_max).',
            'POST /v1/matches\n{"ruleset": "kaluki-51", "players": ["ann"]}')),
    ProblemCode('duplicate-player',
        N_('Duplicate player', "title"),
        Doc('A player appears twice. Give each player a distinct id.',
            'POST /v1/matches\n{"ruleset": "kaluki-51", "players": ["ann", "ann"]}')),
    ProblemCode('unknown-winner',
        N_('Unknown winner', "title"),
        Doc("The winner is not one of the hand's players.",
            'POST /v1/hands/score\n{"ruleset": "kaluki-hunt", "winner": "zed", '
            '"finish": "out", "players": [{"id": "kim", "cards": []}, {"id": "lou", '
            '"cards": ["Qs"]}]}')),
    ProblemCode('winner-holds-cards',
        N_('Winner still holds cards', "title"),
        Doc('The winner still holds cards; a winner has none left.',
            'POST /v1/hands/score\n{"ruleset": "kaluki-hunt", "winner": "kim", '
            '"finish": "out", "players": [{"id": "kim", "cards": ["2c"]}, {"id": '
            '"lou", "cards": ["Qs"]}]}')),
    ProblemCode('invalid-finish',
        N_('Invalid finish', "title"),
        Doc('finish is "out" or "special".')),
    ProblemCode('invalid-meld',
        N_('Invalid table meld', "title"),
        Doc('A meld said to be on the table (build, release, turn check) is not a '
            "legal meld; the problem's 'violations' say why. As a violation in an "
            'opening: one of the melds is not legal.',
            'POST /v1/melds/build\n{"ruleset": "kaluki-hunt", "meld": ["5h", "9c", '
            '"Kd"], "cards": ["8h"]}')),
    ProblemCode('invalid-record',
        N_('Invalid hand record', "title"),
        Doc("The hand record cannot be read: a missing or malformed field. 'errors' "
            'names it.',
            'POST /v1/hands/adjudicate\n{"ruleset": "kaluki-hunt", "players": ["ann", '
            '"bob"]}')),
    ProblemCode('invalid-notation',
        N_('Invalid hand notation', "title"),
        Doc('A line of the text notation cannot be read (docs/notation.md).',
            'POST /v1/hands/adjudicate\nContent-Type: text/vnd.kaluki.hand\n\nruleset '
            'kaluki-hunt\nshuffle')),
    ProblemCode('deal-size',
        N_('Wrong deal size', "title"),
        Doc("A player was dealt more or fewer cards than the rule set's hand_size.")),
    ProblemCode('round-required',
        N_('Round required', "title"),
        Doc("A contract rule set (one with 'contracts') needs 'round', the 1-based "
            'deal: it picks the contract and the deal size.',
            'POST /v1/melds/opening\n{"ruleset": "kalooki-jamaica", "melds": [["7c", '
            '"7d", "7h"]]}')),
    ProblemCode('invalid-round',
        N_('Invalid round', "title"),
        Doc("'round' is outside 1 to len(contracts), or was given to a rule set "
            'without contracts.')),
    ProblemCode('wrong-round',
        N_('Wrong round', "title"),
        Doc("In a contract match each appended hand is the next round: its 'round' is "
            'one more than the number of hands entered so far.')),
    ProblemCode('unknown-player',
        N_('Unknown player', "title"),
        Doc('The record (or the view asked for, ?view=) names a player who is not in '
            "'players'.")),
    ProblemCode('missing-card',
        N_('Missing card', "title"),
        Doc('A record needs a card it does not give (a stock draw without its card '
            'when there is no stock).')),
    ProblemCode('hand-too-large',
        N_('Hand too large', "title"),
        Doc('The hand holds more than hand_size + 1 cards (in a contract rule set: '
            "the round's deal size + 1 + call_max × (1 + call_penalty_cards)).")),
    ProblemCode('hand-not-finished',
        N_('Hand not finished', "title"),
        Doc('A hand record appended to a match must be legal and finished: some '
            'player must have gone out. Append the record once the hand is over, or '
            'send its score.')),
    ProblemCode('invalid-player-id',
        N_('Invalid player id', "title"),
        Doc('A player id is not an identifier: ids are 1 to 64 characters, normalised '
            "to NFC, with no whitespace, control, zero-width, bidi-override or '#' "
            'characters. Use a plain name such as "ann".',
            'POST /v1/matches\n{"ruleset": "kaluki-51", "players": ["ann smith", '
            '"bob"]}')),
    ProblemCode('search-too-large',
        N_('Search too large', "title"),
        Doc('The overrides make the search for the best arrangement larger than the '
            'service will do; ask with smaller decks or hands.')),
    ProblemCode('ledger-unavailable',
        N_('Match store unavailable', "title"),
        Doc('The match store (Redis) cannot be reached or is out of memory (nothing '
            'was written), or it took a write but could not copy it to its replicas '
            'in time. Retry after Retry-After seconds with the same Idempotency-Key: '
            'nothing is written twice.'),
        status=503,
        headers={'Retry-After': RETRY_AFTER},
        # no Redis internals in an answer: this, not the error's own message (its catalog
        # entry is the code's {detail}, as for every ledger error)
        detail="The match store (Redis) cannot be reached; nothing was written. Retry later "
               "with the same Idempotency-Key."),
    ProblemCode('ledger-busy',
        N_('Match store busy', "title"),
        Doc('Too many concurrent writes to one match. Retry after Retry-After.'),
        status=503,
        headers={'Retry-After': '1'}),
    ProblemCode('match-not-found',
        N_('Match not found', "title"),
        Doc('No match with this id: it may have expired. Import its export to restore '
            'it.',
            'GET /v1/matches/no-such-match'),
        status=404),
    ProblemCode('match-exists',
        N_('Match already exists', "title"),
        Doc("The import's id holds a live match: an import never overwrites one. "
            'Delete it first (with its token), or keep the live one.'),
        status=409),
    ProblemCode('match-finished',
        N_('Match finished', "title"),
        Doc('The match is over; it takes no more hands.'),
        status=409),
    ProblemCode('token-required',
        N_('Token required', "title"),
        Doc("This write needs the match's token: Authorization: Bearer <token>.",
            _M + 'Idempotency-Key: hand-1\n\n{"score": …}'),
        status=401,
        headers={'WWW-Authenticate': 'Bearer realm="kaluki-matches"'}),
    ProblemCode('token-invalid',
        N_('Token invalid', "title"),
        Doc("The token is not this match's. Use the token createMatch returned."),
        status=403),
    ProblemCode('precondition-failed',
        N_('Precondition failed', "title"),
        Doc("If-Match does not match the match's ETag: someone wrote first. Read the "
            'match again and retry.'),
        status=412),
    ProblemCode('idempotency-key-required',
        N_('Idempotency-Key required', "title"),
        Doc('Appending a hand needs an Idempotency-Key header: a fresh random string '
            'per hand, kept across retries.',
            _M + 'Authorization: Bearer <token>\n\n{"score": …}'),
        status=400,
        api=True),
    ProblemCode('idempotency-key-invalid',
        N_('Idempotency-Key invalid', "title"),
        Doc('An Idempotency-Key has at most 255 characters.'),
        status=400,
        api=True),
    ProblemCode('idempotency-key-reused',
        N_('Idempotency-Key reused for another body', "title"),
        Doc('This Idempotency-Key was used for another body. Use a fresh key for a '
            'new hand.')),
    ProblemCode('invalid-cursor',
        N_('Invalid cursor', "title"),
        Doc('Use the next_cursor of a previous page.',
            'GET /v1/matches/{id}/hands?cursor=abc'),
        api=True),
    ProblemCode('entry-not-found',
        N_('Ledger entry not found', "title"),
        Doc('The match has no entry with that number.'),
        status=404),
    ProblemCode('invalid-entry',
        N_('Invalid ledger entry', "title"),
        Doc('An export entry is neither a hand nor a buy-in, or lacks its input.')),
    ProblemCode('chain-broken',
        N_('Hash chain broken', "title"),
        Doc("The export's hash chain does not verify: an entry was changed.")),
    ProblemCode('rescore-mismatch',
        N_('Re-scored hand differs', "title"),
        Doc("Re-scoring the export's hands gives other scores than recorded.")),
    ProblemCode('hand-players',
        N_('Players do not fit the match', "title"),
        Doc("The hand's players are not the match's players still in the game.")),
    ProblemCode('invalid-hand',
        N_('Invalid hand', "title"),
        Doc('The hand does not fit the match.')),
    ProblemCode('illegal-record',
        N_('Illegal hand record', "title"),
        Doc("The hand record breaks a rule; 'violations' names the first.")),
    ProblemCode('signature-invalid',
        N_('Export signature invalid', "title"),
        Doc('The export is not one this service signed, or was changed.')),
    ProblemCode('match-full',
        N_('Match full', "title"),
        Doc('The match holds LEDGER_MAX_HANDS entries (hands and buy-ins); start a '
            'new match.'),
        status=409),
    ProblemCode('entry-too-large',
        N_('Ledger entry too large', "title"),
        Doc('The hand would make a ledger entry larger than LEDGER_MAX_ENTRY_BYTES; '
            'send a shorter record, or its score.'),
        status=413),
    ProblemCode('buy-ins-not-allowed',
        N_('Buy-ins not allowed', "title"),
        Doc('The rule set has no buy-ins.'),
        status=409),
    ProblemCode('buy-ins-closed',
        N_('Buy-ins closed', "title"),
        Doc('A buy-in needs buy_in_min_players at the table, counting the player '
            'buying in (kaluki-uk: 3, so never head to head).'),
        status=409),
    ProblemCode('buy-ins-exhausted',
        N_('No buy-ins left', "title"),
        Doc('The player has made the buy_ins_max buy-ins a player may make in this '
            'match (kaluki-uk: 1).'),
        status=409),
    ProblemCode('player-not-eliminated',
        N_('Player not eliminated', "title"),
        Doc('Only an eliminated player may buy back in.'),
        status=409),
    ProblemCode('invalid-currency',
        N_('Unknown currency', "title"),
        Doc("The stakes' currency is not an ISO 4217 code (write it in capitals, e.g. "
            'EUR, GBP, JPY).'),
        api=True),
    ProblemCode('correction-conflict',
        N_('Correction conflicts with a later entry', "title"),
        Doc('With this correction a later entry of the match could not have happened '
            '(a buy-in of a player no longer eliminated, a hand after the match would '
            'have ended). Correct or void the later entry first.'),
        status=409),
    ProblemCode('invalid-correction',
        N_('Invalid correction', "title"),
        Doc('Only a hand can be corrected, with exactly one of score, record and '
            'void, and a reason.')),
    ProblemCode('no-stakes',
        N_('Match has no stakes', "title"),
        Doc('The match was created without stakes, so there is nothing to settle.'),
        status=409),
    ProblemCode('too-many-subscribers',
        N_('Too many event streams', "title"),
        Doc('This instance holds as many event streams as it may '
            '(EVENTS_MAX_SUBSCRIBERS). Reconnect after Retry-After.'),
        status=503,
        headers={'Retry-After': RETRY_AFTER},
        api=True),
    ProblemCode('body-incomplete',
        N_('Request body incomplete', "title"),
        Doc('The body ended before its Content-Length: the connection closed or '
            'stalled mid-body. Nothing was ruled on or written; send the whole body '
            'again.'),
        status=400,
        api=True),
    ProblemCode('request-timeout',
        N_('Request timeout', "title"),
        Doc('The body arrived too slowly (REQUEST_BODY_TIMEOUT, 10 s by default). '
            'Nothing was ruled on or written; send it again in one go.'),
        status=408,
        api=True),
    ProblemCode('rate-limited',
        N_('Too many requests', "title"),
        Doc('Too many requests from this client. Wait Retry-After seconds; the '
            'RateLimit headers say what is left.'),
        status=429,
        api=True),
    ProblemCode('internal-error',
        N_('Internal error', "title"),
        Doc("Something went wrong on the service's side; it is logged. Retry, and "
            'report it if it persists.'),
        status=500,
        api=True),
    ProblemCode('service-unavailable',
        N_('Service unavailable', "title"),
        Doc('The service cannot answer now. Retry later.'),
        status=503,
        api=True),
)

CODES: Mapping[str, ProblemCode] = MappingProxyType({p.code: p for p in _ROWS})
"""Every problem code, in the order the documents list them."""

