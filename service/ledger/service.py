"""The ledger service (SPEC §7): create a match, append a hand, buy in, delete, export, import.

Typed values in, typed values out, domain errors (:mod:`service.ledger.errors`,
the engine's ``MatchError``/``EntryError``/``RuleSetError``/``ScoringError``)
raised; no HTTP. The rules are the engine's (:mod:`service.engine.match`), the
storage the store's (:mod:`service.ledger.store`). The API parses requests,
calls one method and renders what it returns.

Writes are optimistic: read the match, compute the entry and the new standings
in the engine, then compare-and-set in one script run (version and head must
still be the ones computed from); a lost race reads again.

Idempotency: a key answered once is stored as its request fingerprint and the
``seq`` of the entry it appended; a retry with the same fingerprint gets that
entry and the match as it stood right after it (rebuilt from the ledger, so the
answer is the first one byte for byte); another fingerprint is
:class:`KeyReused`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from ..engine.match import (
    CONFIG_KEYS,
    EntryError,
    MatchConfig,
    MatchError,
    MatchState,
    ScoredHand,
    apply_buy_in,
    apply_hand,
    fold,
    new_state,
    rescore,
    score_input,
)
from ..engine.rules import RuleSet, resolve
from ..engine.scoring import PlayerScore, check_seats
from .chain import GENESIS, ChainError, fingerprint, seal, verify
from .errors import (
    Busy,
    EntryNotFound,
    InvalidExport,
    KeyReused,
    MatchExists,
    MatchNotFound,
    Stale,
    TokenInvalid,
    TokenRequired,
)
from .store import LedgerStore

__all__ = ["BuyInEntry", "Appended", "Entry", "Export", "HandEntry", "LedgerService", "Match",
           "EXPORT_FORMAT", "EntryError", "MatchError"]

EXPORT_FORMAT = "kaluki-ledger/1"
CAS_ATTEMPTS = 200

IfMatch = Callable[[int, str], bool]  # (version, head) -> may the write go ahead


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# -- values ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Match:
    """A match as stored: its settings, its standings, and where its chain stands."""

    id: str
    ruleset: Any  # as the client wrote it: a catalog name or {"base", "overrides"}
    players: tuple[str, ...]
    config: MatchConfig
    state: MatchState
    version: int  # entries so far
    head: str  # the last entry's hash (64 zeros when empty)
    created: str | None
    token_hash: str

    @property
    def rules(self) -> RuleSet:
        return resolve(self.ruleset)

    def meta(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "players": list(self.players),
                "match_end": self.config.to_dict(), "created": self.created}

    @classmethod
    def from_stored(cls, match_id: str, meta: Mapping[str, Any], state: Mapping[str, Any],
                    version: int, head: str, token: str) -> Match:
        return cls(match_id, meta["ruleset"], tuple(meta["players"]),
                   MatchConfig(**meta["match_end"]), MatchState.from_dict(state), version, head,
                   meta.get("created"), token)


@dataclass(frozen=True, slots=True)
class HandEntry:
    seq: int
    source: str  # "score" | "record"
    input: Mapping[str, Any]  # the body as the client sent it
    winner: str
    finish: str
    special: bool
    scores: tuple[PlayerScore, ...]
    hash: str

    type = "hand"

    def to_data(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": "hand", "source": self.source, "input": self.input,
                "winner": self.winner, "finish": self.finish, "special": self.special,
                "scores": [{"id": s.id, "hand_value": s.hand_value, "points": s.points,
                            "penalty": s.penalty} for s in self.scores], "hash": self.hash}


@dataclass(frozen=True, slots=True)
class BuyInEntry:
    seq: int
    player: str
    hash: str

    type = "buy-in"

    def to_data(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": "buy-in", "player": self.player, "hash": self.hash}


Entry = HandEntry | BuyInEntry


def entry_from_data(d: Mapping[str, Any]) -> Entry:
    if d["type"] == "buy-in":
        return BuyInEntry(d["seq"], d["player"], d["hash"])
    return HandEntry(d["seq"], d["source"], d["input"], d["winner"], d["finish"], d["special"],
                     tuple(PlayerScore(**s) for s in d["scores"]), d["hash"])


@dataclass(frozen=True, slots=True)
class Appended:
    """An entry and the match right after it; ``replayed`` when a retry's key answered it."""

    entry: Entry
    match: Match
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Export:
    """A whole ledger: the match and its entries as stored (canonical JSON, with hashes)."""

    match: Match
    entries: tuple[str, ...]

    def header(self) -> dict[str, Any]:
        m = self.match
        return {"format": EXPORT_FORMAT, "id": m.id, "ruleset": m.ruleset,
                "match_end": m.config.to_dict(), "players": list(m.players),
                "created": m.created, "token_sha256": m.token_hash, "version": m.version,
                "head": m.head, "hands_played": m.state.hands_played, "status": m.state.status,
                "winner": m.state.winner, "standings": [s.to_dict() for s in m.state.standings]}


@dataclass(frozen=True, slots=True)
class _Hand:
    source: str
    input: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class _BuyIn:
    player: str


# -- the service -------------------------------------------------------------------------

class LedgerService:
    """Match ledgers on one :class:`LedgerStore`."""

    def __init__(self, store: LedgerStore) -> None:
        self.store = store

    # reading

    def get(self, match_id: str) -> Match:
        s = self.store.load(match_id)
        if s is None:
            raise _not_found(match_id)
        return Match.from_stored(match_id, s.meta, s.state, s.version, s.head, s.token_hash)

    def page(self, match_id: str, start: int, limit: int) -> tuple[list[str], int]:
        """Entries ``start`` … ``start + limit - 1`` (stored JSON) and the match's version."""
        m = self.get(match_id)
        items = self.store.entries(match_id, start, start + limit - 1) if start < m.version else []
        return items, m.version

    def entry(self, match_id: str, seq: int) -> str:
        items = self.store.entries(match_id, seq, seq) if seq < 2 ** 62 else []
        if not items:
            self.get(match_id)  # 404 for the match first
            raise EntryNotFound(f"Match {match_id!r} has no entry {seq}.", seq=seq)
        return items[0]

    # writing

    def create(self, ruleset: Any, players: Sequence[str],
               overrides: Mapping[str, Any] | None = None) -> tuple[Match, str]:
        """A new match and its write token (returned once; only its hash is stored)."""
        rules = resolve(ruleset)
        check_seats(len(players), rules)
        config = MatchConfig.from_rules(rules, {k: (overrides or {}).get(k) for k in CONFIG_KEYS})
        state = new_state(players)
        token = secrets.token_urlsafe(32)
        for _ in range(3):  # 96 random bits: a collision practically never happens
            match = Match(secrets.token_urlsafe(12), ruleset, tuple(players), config, state, 0,
                          GENESIS, _now(), token_hash(token))
            created, _ = self.store.create(match.id, match.meta(), state.to_dict(),
                                           match.token_hash)
            if created:
                return match, token
        raise Busy("Please retry.")

    def delete(self, match_id: str, token: str | None, if_match: IfMatch | None = None) -> None:
        m = self.get(match_id)
        _authorize(m, token)
        if if_match is not None and not if_match(m.version, m.head):
            raise _stale()
        self.store.delete(match_id)

    def append_hand(self, match_id: str, token: str | None, *, source: str,
                    body: Mapping[str, Any], key: str, request: Any,
                    if_match: IfMatch | None = None) -> Appended:
        """Append a hand given as ``score`` or ``record`` (``body``: its input as sent;
        ``request``: the whole request body, fingerprinted for the idempotency key)."""
        return self._append(match_id, token, _Hand(source, body), key,
                            fingerprint({"kind": "hand", "body": request}), if_match)

    def buy_in(self, match_id: str, token: str | None, *, player: str, key: str, request: Any,
               if_match: IfMatch | None = None) -> Appended:
        return self._append(match_id, token, _BuyIn(player), key,
                            fingerprint({"kind": "buy-in", "body": request}), if_match)

    def _append(self, match_id: str, token: str | None, event: _Hand | _BuyIn, key: str,
                fp: str, if_match: IfMatch | None) -> Appended:
        authorized = False
        scored: ScoredHand | None = None
        for attempt in range(CAS_ATTEMPTS):
            s = self.store.load(match_id, key or None)
            if s is None:
                raise _not_found(match_id)
            m = Match.from_stored(match_id, s.meta, s.state, s.version, s.head, s.token_hash)
            if not authorized:
                _authorize(m, token)
                authorized = True
            if s.prior is not None:
                return self._replay(m, s.prior, fp)
            if if_match is not None and not if_match(m.version, m.head):
                raise _stale()
            entry: Entry
            if isinstance(event, _Hand):
                if scored is None:  # scoring depends only on the body and the rule set
                    scored = score_input(m.ruleset, m.rules, event.source, event.input,
                                         event.source)
                new = apply_hand(m.state, m.config, scored.winner, scored.deltas)
                data = seal({"seq": m.version, "type": "hand", "source": event.source,
                             "input": event.input, "winner": scored.winner,
                             "finish": scored.finish, "special": scored.score.special,
                             "scores": scored.scores_data()}, m.head)
            else:
                new = apply_buy_in(m.state, m.config, event.player)
                data = seal({"seq": m.version, "type": "buy-in", "player": event.player},
                            m.head)
            entry = entry_from_data(data)
            res = self.store.append(match_id, idem_key=key, fingerprint=fp,
                                    expected_version=m.version, expected_head=m.head,
                                    entry=orjson.dumps(data).decode(), new_head=entry.hash,
                                    state=new.to_dict())
            if res.kind == "ok":
                after = Match(m.id, m.ruleset, m.players, m.config, new, m.version + 1,
                              entry.hash, m.created, m.token_hash)
                return Appended(entry, after)
            if res.kind == "replay":
                assert res.payload is not None
                return self._replay(m, res.payload, fp)
            if res.kind == "missing":
                raise _not_found(match_id)
            time.sleep(min(0.001 * (attempt + 1), 0.02) * secrets.randbelow(100) / 100)
        raise Busy("Too many concurrent writes to this match; retry.")

    def _replay(self, m: Match, prior: str, fp: str) -> Appended:
        """The answer a key gave: its entry and the match as it stood right after it."""
        stored_fp, seq = _parse_prior(prior)
        if not hmac.compare_digest(stored_fp, fp):
            raise KeyReused("This Idempotency-Key was used for another request body; use a "
                            "fresh key for a new request.")
        if seq == m.version - 1:  # the usual retry: nothing appended since
            entry = entry_from_data(orjson.loads(self.store.entries(m.id, seq, seq)[0]))
            return Appended(entry, m, replayed=True)
        raw = [orjson.loads(e) for e in self.store.entries(m.id, 0, seq)]
        state = fold(m.players, m.config, raw)
        entry = entry_from_data(raw[-1])
        at = Match(m.id, m.ruleset, m.players, m.config, state, seq + 1, entry.hash, m.created,
                   m.token_hash)
        return Appended(entry, at, replayed=True)

    # export and import

    def export(self, match_id: str) -> Export:
        m = self.get(match_id)
        entries = self.store.entries(match_id)
        if len(entries) != m.version:  # appended between the two reads: read again
            m = self.get(match_id)
            entries = self.store.entries(match_id, 0, m.version - 1) if m.version else []
        return Export(m, tuple(entries))

    def import_match(self, doc: Mapping[str, Any], token: str | None) -> tuple[Match, bool]:
        """Restore a match from its export; (the match, True) when stored anew, (…, False)
        when the same ledger is already stored. ``doc`` is the export as parsed JSON, its
        shape checked (score inputs included)."""
        if token is None:
            raise TokenRequired("This write needs the match's token: "
                                "Authorization: Bearer <token>.")
        if not hmac.compare_digest(token_hash(token), doc["token_sha256"]):
            raise TokenInvalid("The token does not open this match.")
        entries = doc["entries"]
        try:
            head = verify(entries)
        except ChainError as exc:
            raise InvalidExport("chain-broken", str(exc), field=f"entries.{exc.index}") from None
        if head != doc["head"]:
            raise InvalidExport("chain-broken", "head is not the last entry's hash", field="head")
        ruleset, players = doc["ruleset"], list(doc["players"])
        rules = resolve(ruleset)
        check_seats(len(players), rules)
        config = MatchConfig(**{**MatchConfig.from_rules(rules).to_dict(), **doc["match_end"]})
        try:
            state = rescore(ruleset, rules, players, config, entries)
        except MatchError as exc:
            if exc.code in ("rescore-mismatch", "invalid-entry"):
                raise InvalidExport(exc.code, str(exc), field=exc.field) from None
            raise
        mine = state.to_dict()
        for k in ("standings", "hands_played", "status", "winner"):
            if doc.get(k) is not None and mine[k] != doc[k]:
                raise InvalidExport("rescore-mismatch", f"the export's {k} differ from the "
                                    "re-score", field=k)
        match = Match(doc["id"], ruleset, tuple(players), config, state, len(entries), head,
                      doc.get("created") or _now(), doc["token_sha256"])
        created, stored_head = self.store.create(
            match.id, match.meta(), mine, match.token_hash,
            [orjson.dumps(e).decode() for e in entries], head)
        if created:
            return match, True
        if stored_head == head:
            return match, False
        raise MatchExists(f"Match {match.id!r} is stored with another ledger.", id=match.id)


def _parse_prior(prior: str) -> tuple[str, int]:
    """``<fingerprint>:<seq>``; a key stored before compact storage held the whole answer
    (``<fingerprint>\\n<201 body>``), whose ``seq`` is read from it."""
    if "\n" in prior:
        fp, _, body = prior.partition("\n")
        return fp, int(orjson.loads(body)["seq"])
    fp, _, seq = prior.partition(":")
    return fp, int(seq)


def _not_found(match_id: str) -> MatchNotFound:
    return MatchNotFound(f"No match {match_id!r} (it may have expired; import its export "
                         "to restore it).", id=match_id)


def _stale() -> Stale:
    return Stale("If-Match does not match the match's current ETag; read it again.")


def _authorize(m: Match, token: str | None) -> None:
    if token is None:
        raise TokenRequired("This write needs the match's token: Authorization: Bearer <token>.")
    if not hmac.compare_digest(token_hash(token), m.token_hash):
        raise TokenInvalid("The token does not open this match.")


def rescore_export(doc: Mapping[str, Any]) -> MatchState:
    """The standings an export's entries re-score to (its chain is not checked here)."""
    rules = resolve(doc["ruleset"])
    config = MatchConfig(**{**MatchConfig.from_rules(rules).to_dict(), **doc["match_end"]})
    return rescore(doc["ruleset"], rules, doc["players"], config, doc["entries"])
