"""The ledger service (docs/api.md#match-ledgers): create a match, append a hand, buy in, delete,
export, import.

Typed values in, typed values out, domain errors (:mod:`service.ledger.errors`,
the engine's ``MatchError``/``EntryError``/``RuleSetError``/``ScoringError``)
raised; no HTTP. The rules are the engine's (:mod:`service.engine.match`), the
storage the store's (:mod:`service.ledger.store`). The API parses requests,
calls one method and renders what it returns.

Writes are optimistic: read the match, compute the entry and the new standings
in the engine, then compare-and-set in one script run (version and head must
still be the ones computed from); a lost race reads again.

Integrity (docs/api.md#export-and-import): an export needs the token and is signed (HMAC-SHA256, key
from :mod:`.signing`); an import accepts only a signed export, verifies its
chain, re-scores every hand and restores the match with its answered
Idempotency-Keys. A live id is never overwritten (:class:`MatchExists`); a
deleted or expired id keeps a tombstone of its token hash, so only its own
token restores it.

Caps (:class:`Limits`): a match holds at most ``max_hands`` entries
(:class:`MatchFull`) and an entry at most ``max_entry_bytes`` of JSON
(:class:`EntryTooLarge`), so every export fits the import's body limit.

Idempotency: a key answered once is stored as its request fingerprint and the
``seq`` of the entry it appended; a retry with the same fingerprint gets that
entry and the match as it stood right after it (rebuilt from the ledger, so the
answer is the first one byte for byte); another fingerprint is
:class:`KeyReused`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import orjson

from ..engine.match import (
    EntryError,
    EntrySource,
    EntryType,
    MatchError,
    MatchState,
    ReplayError,
    ScoredHand,
    apply_buy_in,
    apply_hand,
    check_correction_target,
    fold,
    match_end_of,
    new_match,
    provisional_winners,
    rescore,
    score_input,
)
from ..engine.players import PlayerIdError, player_id
from ..engine.rules import MatchEnd, RuleSet, ScoringMode, resolve
from ..engine.scoring import Finish, PlayerScore
from ..engine.settlement import HandResult, Transfer, balances, fewest_transfers
from ..engine.sheet import rows as sheet_rows
from . import signing
from .chain import GENESIS, ChainError, fingerprint, seal, verify
from .errors import (
    Busy,
    CorrectionConflict,
    EntryNotFound,
    EntryTooLarge,
    InvalidExport,
    KeyReused,
    LedgerError,
    MatchExists,
    MatchFull,
    MatchNotFound,
    NoStakes,
    SignatureInvalid,
    Stale,
    TokenInvalid,
    TokenRequired,
)
from .store import LedgerStore

__all__ = ["BuyInEntry", "Appended", "Entry", "Export", "HandEntry", "LedgerService", "Match",
           "EXPORT_FORMAT", "EntryError", "MatchError"]

EXPORT_FORMAT = "kaluki-ledger/1"
CAS_ATTEMPTS = 200
SEEN_MAX = 4096  # matches a worker remembers (oldest dropped first)

IfMatch = Callable[[int, str], bool]  # (version, head) -> may the write go ahead
KeySource = Callable[[], tuple[bytes, str]]  # the signing key and where it comes from
FINGERPRINT_RE = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class Limits:
    """How much one match may hold, and so how large its export (and import) can be."""

    max_hands: int = 1000  # entries (hands and buy-ins)
    max_entry_bytes: int = 16 * 1024  # one entry's JSON, its input included
    import_max_bytes: int = 0  # 0: derived by import_bytes_for

    @staticmethod
    def import_bytes_for(max_hands: int, max_entry_bytes: int) -> int:
        """A full match's export with room to spare: every entry at its cap plus its
        comma and one answered Idempotency-Key (a 255-character key, fingerprint and
        seq: under 400 bytes), a quarter more for a client that re-serialized it with
        whitespace, and 64 KiB for the header."""
        return max_hands * (max_entry_bytes + 512) * 5 // 4 + 64 * 1024

    @property
    def import_bytes(self) -> int:
        return self.import_max_bytes or self.import_bytes_for(self.max_hands,
                                                              self.max_entry_bytes)


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
    config: MatchEnd
    state: MatchState
    version: int  # entries so far
    head: str  # the last entry's hash (64 zeros when empty)
    created: str | None
    token_hash: str
    title: str | None = None  # docs/api.md#scorekeeping: display text, NFC
    names: Mapping[str, str] = field(default_factory=dict)  # player id -> display name
    stakes: Mapping[str, str] | None = None  # currency and amounts, to the minor unit

    @property
    def rules(self) -> RuleSet:
        return resolve(self.ruleset)

    def meta(self) -> dict[str, Any]:
        out = {"ruleset": self.ruleset, "players": list(self.players),
               "match_end": self.config.to_dict(), "created": self.created}
        if self.title is not None:
            out["title"] = self.title
        if self.names:
            out["names"] = dict(self.names)
        if self.stakes is not None:
            out["stakes"] = dict(self.stakes)
        return out

    def name(self, player: str) -> str:
        """The player's display name (the id where none was given)."""
        return self.names.get(player, player)

    @classmethod
    def from_stored(cls, match_id: str, meta: Mapping[str, Any], state: Mapping[str, Any],
                    version: int, head: str, token: str) -> Match:
        return cls(match_id, meta["ruleset"], tuple(meta["players"]),
                   MatchEnd.from_dict(meta["match_end"]), MatchState.from_dict(state), version, head,
                   meta.get("created"), token, meta.get("title"), meta.get("names") or {},
                   meta.get("stakes"))


@dataclass(frozen=True, slots=True)
class HandEntry:
    seq: int
    source: EntrySource
    input: Mapping[str, Any]  # the body as the client sent it
    winner: str
    finish: Finish
    special: bool
    scores: tuple[PlayerScore, ...]
    hash: str

    type = EntryType.HAND

    def to_data(self) -> dict[str, Any]:
        return _sealed({"seq": self.seq, "type": EntryType.HAND, "source": self.source,
                        "input": self.input, "winner": self.winner, "finish": self.finish,
                        "special": self.special, "scores": [s.to_dict() for s in self.scores]},
                       self.hash)

    @classmethod
    def of(cls, seq: int, source: EntrySource, given: Mapping[str, Any], scored: ScoredHand
           ) -> HandEntry:
        """The entry of a hand as scored (unsealed: no hash yet)."""
        return cls(seq, source, given, scored.winner, scored.finish, scored.score.special,
                   scored.score.scores, "")


@dataclass(frozen=True, slots=True)
class BuyInEntry:
    seq: int
    player: str
    hash: str

    type = EntryType.BUY_IN

    def to_data(self) -> dict[str, Any]:
        return _sealed({"seq": self.seq, "type": EntryType.BUY_IN, "player": self.player},
                       self.hash)


@dataclass(frozen=True, slots=True)
class CorrectionEntry:
    """docs/api.md#scorekeeping: the hand ``corrects`` as it should have been (``scores`` …), or
    voided."""

    seq: int
    corrects: int
    reason: str
    void: bool
    source: EntrySource | None
    input: Mapping[str, Any] | None
    winner: str | None
    finish: Finish | None
    special: bool | None
    scores: tuple[PlayerScore, ...]
    hash: str

    type = EntryType.CORRECTION

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "type": EntryType.CORRECTION,
                               "corrects": self.corrects, "reason": self.reason}
        if self.void:
            out["void"] = True
        else:
            out.update({"source": self.source, "input": self.input, "winner": self.winner,
                        "finish": self.finish, "special": self.special,
                        "scores": [s.to_dict() for s in self.scores]})
        return _sealed(out, self.hash)

    @classmethod
    def of(cls, seq: int, corrects: int, reason: str, hand: HandEntry | None
           ) -> CorrectionEntry:
        """The correction (unsealed) that puts ``hand`` in the place of hand ``corrects``, or
        voids it (``hand`` None)."""
        if hand is None:
            return cls(seq, corrects, reason, True, None, None, None, None, None, (), "")
        return cls(seq, corrects, reason, False, hand.source, hand.input, hand.winner,
                   hand.finish, hand.special, hand.scores, "")


Entry = HandEntry | BuyInEntry | CorrectionEntry


def _sealed(data: dict[str, Any], hash_: str) -> dict[str, Any]:
    """An entry's data, with its ``hash`` last once it is sealed (an unsealed one has none:
    :func:`.chain.seal` adds it)."""
    if hash_:
        data["hash"] = hash_
    return data


def entry_from_data(d: Mapping[str, Any]) -> Entry:
    if d["type"] == EntryType.BUY_IN:
        return BuyInEntry(d["seq"], d["player"], d["hash"])
    if d["type"] == EntryType.CORRECTION:
        void = bool(d.get("void"))
        source, finish = d.get("source"), d.get("finish")
        return CorrectionEntry(d["seq"], d["corrects"], d["reason"], void,
                               None if source is None else EntrySource(source),
                               d.get("input"), d.get("winner"),
                               None if finish is None else Finish(finish), d.get("special"),
                               tuple(PlayerScore(**s) for s in d.get("scores") or ()), d["hash"])
    return HandEntry(d["seq"], EntrySource(d["source"]), d["input"], d["winner"],
                     Finish(d["finish"]), d["special"],
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
    answered: tuple[tuple[str, str, int], ...] = ()  # (key, fingerprint, seq)

    def header(self) -> dict[str, Any]:
        """The export without its entries (what is signed, with ``idempotency``)."""
        m = self.match
        return {"format": EXPORT_FORMAT, "id": m.id, "ruleset": m.ruleset,
                "match_end": m.config.to_dict(), "players": list(m.players),
                "created": m.created, "title": m.title, "names": dict(m.names),
                "stakes": None if m.stakes is None else dict(m.stakes),
                "token_sha256": m.token_hash, "version": m.version,
                "head": m.head, "hands_played": m.state.hands_played, "status": m.state.status,
                "winner": m.state.winner, "standings": [s.to_dict() for s in m.state.standings],
                "idempotency": [{"key": k, "fingerprint": fp, "seq": seq}
                                for k, fp, seq in self.answered]}


@dataclass(frozen=True, slots=True)
class Settlement:
    currency: str
    final: bool
    balances: Mapping[str, Decimal]  # seat order
    transfers: tuple[Transfer, ...]


@dataclass(frozen=True, slots=True)
class _Hand:
    source: EntrySource
    input: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class _BuyIn:
    player: str


@dataclass(frozen=True, slots=True)
class _Correction:
    seq: int  # as the client named it (a hand, or a correction of one)
    reason: str
    source: EntrySource | None  # None: void
    input: Mapping[str, Any] | None


# -- the service -------------------------------------------------------------------------

class LedgerService:
    """Match ledgers on one :class:`LedgerStore`."""

    def __init__(self, store: LedgerStore, limits: Limits | None = None,
                 signing_key: KeySource | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self._key = signing_key or _no_key
        self._seen: dict[str, Match] = {}  # match id -> the match as this worker last saw it

    # reading

    def get(self, match_id: str) -> Match:
        s = self.store.load(match_id)
        if s is None:
            raise match_not_found(match_id)
        return Match.from_stored(match_id, s.meta, s.state, s.version, s.head, s.token_hash)

    def ledger(self, match_id: str) -> tuple[Match, list[dict[str, Any]]]:
        """The match and its entries (parsed), read at one instant."""
        s, entries = self.store.ledger(match_id)
        if s is None:
            raise match_not_found(match_id)
        m = Match.from_stored(match_id, s.meta, s.state, s.version, s.head, s.token_hash)
        return m, [orjson.loads(e) for e in entries]

    def settlement(self, match_id: str, digits_of: Callable[[str], int | None]) -> Settlement:
        """Who owes whom under the match's stakes (docs/api.md#scorekeeping); ``digits_of`` gives a
        currency's minor digits. :class:`NoStakes` for a match without stakes."""
        m, entries = self.ledger(match_id)
        if m.stakes is None:
            raise NoStakes(f"Match {m.id!r} has no stakes to settle.", id=m.id)
        st = m.stakes
        digits = digits_of(st["currency"])
        if digits is None:  # checked at creation; Babel's data cannot lose a currency
            digits = max((len(v.partition(".")[2]) for k, v in st.items() if k != "currency"),
                         default=2)

        def amount(name: str) -> Decimal:
            return Decimal(st.get(name, "0"))

        state = m.state
        scoring = m.rules.scoring
        totals = {s.player: (s.penalty if scoring == ScoringMode.PENALTY else s.points
                             if scoring == ScoringMode.WINNER_COLLECTS else s.points - s.penalty)
                  for s in state.standings}
        hands = [HandResult(r.winner, r.special, tuple(p for p, _, _ in r.cells))
                 for r in sheet_rows(entries)]
        bal = balances(list(m.players), digits, stake=amount("stake"), buy_in=amount("buy_in"),
                       per_hand=amount("per_hand"),
                       per_special=Decimal(st["per_special"]) if "per_special" in st else None,
                       per_point=amount("per_point"),
                       winners=provisional_winners(state, m.config),
                       buy_ins={s.player: s.buy_ins for s in state.standings}, hands=hands,
                       totals=totals, lower_is_better=scoring == ScoringMode.PENALTY)
        return Settlement(st["currency"], state.status == "finished", bal,
                          tuple(fewest_transfers(bal)))

    def page(self, match_id: str, start: int, limit: int) -> tuple[list[str], int, MatchState]:
        """Entries ``start`` … ``start + limit - 1`` (stored JSON), the match's version and
        its state (which says which hands are corrected)."""
        m = self.get(match_id)
        items = self.store.entries(match_id, start, start + limit - 1) if start < m.version else []
        return items, m.version, m.state

    def entry(self, match_id: str, seq: int) -> tuple[str, int | None]:
        """Entry ``seq`` (stored JSON) and the seq of its latest correction, if any."""
        text, state = self.store.entry_and_state(match_id, seq) if seq < 2 ** 62 else (None, None)
        if text is None:
            self.get(match_id)  # 404 for the match first
            raise EntryNotFound(f"Match {match_id!r} has no entry {seq}.", seq=seq)
        corrected = MatchState.from_dict(state).corrected_by(seq) if state else None
        return text, corrected

    # writing

    def create(self, ruleset: Any, players: Sequence[str],
               overrides: Mapping[str, Any] | None = None, *, title: str | None = None,
               names: Mapping[str, str] | None = None,
               stakes: Mapping[str, str] | None = None) -> tuple[Match, str]:
        """A new match and its write token (returned once; only its hash is stored).
        ``title``, ``names`` (by player id) and ``stakes`` are checked by the API."""
        rules = resolve(ruleset)
        state = new_match(players, rules)
        config = match_end_of(rules, overrides)
        token = secrets.token_urlsafe(32)
        for _ in range(3):  # 96 random bits: a collision practically never happens
            match = Match(secrets.token_urlsafe(12), ruleset, tuple(state.players), config, state, 0,
                          GENESIS, _now(), token_hash(token), title, _names(names, state.players),
                          stakes)
            outcome, _ = self.store.create(match.id, match.meta(), state.to_dict(),
                                           match.token_hash)
            if outcome == "ok":
                return self._remember(match), token
        raise Busy("Please retry.")

    def delete(self, match_id: str, token: str | None, if_match: IfMatch | None = None) -> None:
        m = self.get(match_id)
        _authorize(m, token)
        if if_match is not None and not if_match(m.version, m.head):
            raise _stale()
        self._seen.pop(match_id, None)
        self.store.delete(match_id)

    def append_hand(self, match_id: str, token: str | None, *, source: EntrySource,
                    body: Mapping[str, Any], key: str, request: Any,
                    if_match: IfMatch | None = None) -> Appended:
        """Append a hand given as ``score`` or ``record`` (``body``: its input as sent;
        ``request``: the whole request body, fingerprinted for the idempotency key)."""
        return self._append(match_id, token, _Hand(source, body), key,
                            fingerprint({"kind": "hand", "body": request}), if_match)

    def buy_in(self, match_id: str, token: str | None, *, player: str, key: str, request: Any,
               if_match: IfMatch | None = None) -> Appended:
        try:  # the one player-id rule: the entry names the normalised id
            player = player_id(player, "player")
        except PlayerIdError as exc:
            raise MatchError(exc.code, str(exc), exc.field) from None
        return self._append(match_id, token, _BuyIn(player), key,
                            fingerprint({"kind": "buy-in", "body": request}), if_match)

    def correct(self, match_id: str, token: str | None, *, seq: int, reason: str,
                source: EntrySource | None, body: Mapping[str, Any] | None, key: str,
                request: Any,
                if_match: IfMatch | None = None) -> Appended:
        """Correct hand ``seq`` (docs/api.md#scorekeeping): ``source``/``body`` the hand as it
        should have been (``score`` or ``record``), or ``source`` None to void it. One more entry in
        the chain; the match re-folded from the corrected ledger. A later entry the
        correction makes impossible is :class:`CorrectionConflict` and nothing changes."""
        return self._append(match_id, token, _Correction(seq, reason, source, body), key,
                            fingerprint({"kind": "correction", "seq": seq, "body": request}),
                            if_match)

    def _corrected(self, m: Match, c: _Correction, cache: dict[int, ScoredHand]
                   ) -> tuple[CorrectionEntry, MatchState]:
        """The correction's entry (unsealed) and the match re-folded with it."""
        raw = [orjson.loads(e) for e in self.store.entries(m.id, 0, m.version - 1)]
        if len(raw) != m.version or (raw and raw[-1].get("hash") != m.head):
            raise _Moved()
        if not 0 <= c.seq < len(raw):
            raise EntryNotFound(f"Match {m.id!r} has no entry {c.seq}.", seq=c.seq)
        target = check_correction_target(raw, c.seq)
        hand: HandEntry | None = None
        if c.source is not None:
            assert c.input is not None
            body = c.input
            # a correction keeps the corrected hand's round (docs/api.md#contract-rule-sets)
            if m.rules.is_contract:
                kept = (raw[target].get("input") or {}).get("round")
                if body.get("round") is None:
                    body = {**body, "round": kept}
                elif body["round"] != kept:
                    raise MatchError("wrong-round", f"a correction keeps the corrected hand's "
                                     f"round ({kept}), not {body['round']}", f"{c.source}.round")
            if 0 not in cache:
                self._check_size(len(orjson.dumps(body)))
                cache[0] = score_input(m.ruleset, m.rules, c.source, body, c.source.value)
            hand = HandEntry.of(m.version, c.source, body, cache[0])
        correction = CorrectionEntry.of(m.version, target, c.reason, hand)
        try:
            state = fold(m.players, m.config, [*raw, correction.to_data()])
        except ReplayError as exc:
            if exc.seq == target:  # the corrected hand itself does not fit the match there
                raise MatchError(exc.code, str(exc),
                                 c.source.value if c.source else exc.field) from None
            raise CorrectionConflict(
                f"With this correction of hand {target}, entry {exc.seq} could not have "
                f"happened ({exc}); correct or void it first.", seq=exc.seq,
                field="seq") from None
        return correction, state

    def _append(self, match_id: str, token: str | None, event: _Hand | _BuyIn | _Correction,
                key: str, fp: str, if_match: IfMatch | None) -> Appended:
        """One write: computed from the match as this worker last saw it (its cache: one
        round trip to Redis when nobody else wrote since), else as read; a lost
        compare-and-set answers the match as it is, so a retry needs no read either.
        A refusal computed from the cache is checked against a fresh read first."""
        authorized = False
        scored: ScoredHand | None = None
        cache: dict[int, ScoredHand] = {}
        m = self._seen.get(match_id)
        fresh = False
        for attempt in range(CAS_ATTEMPTS):
            if m is None:
                s = self.store.load(match_id, key or None)
                if s is None:
                    self._seen.pop(match_id, None)
                    raise match_not_found(match_id)
                m = self._remember(Match.from_stored(match_id, s.meta, s.state, s.version,
                                                     s.head, s.token_hash))
                fresh = True
                if s.prior is not None:
                    _authorize(m, token)
                    return self._replay(m, s.prior, fp)
            if not authorized:  # a match's token never changes: the cache may say
                _authorize(m, token)
                authorized = True
            unsealed: Entry
            try:
                if if_match is not None and not if_match(m.version, m.head):
                    raise _stale()
                if m.version >= self.limits.max_hands:
                    raise MatchFull(f"Match {m.id!r} holds its {self.limits.max_hands} entries "
                                    "(LEDGER_MAX_HANDS): start a new match.",
                                    max_hands=self.limits.max_hands)
                if isinstance(event, _Hand):
                    if scored is None:  # scoring depends only on the body and the rule set
                        self._check_size(len(orjson.dumps(event.input)))
                        scored = score_input(m.ruleset, m.rules, event.source, event.input,
                                             event.source.value)
                    new = apply_hand(m.state, m.config, scored.winner, scored.deltas,
                                     scored.round)
                    unsealed = HandEntry.of(m.version, event.source, event.input, scored)
                elif isinstance(event, _BuyIn):
                    new = apply_buy_in(m.state, m.config, event.player)
                    unsealed = BuyInEntry(m.version, event.player, "")
                else:
                    unsealed, new = self._corrected(m, event, cache)
            except _Moved:
                m = None
                continue
            except (LedgerError, MatchError, EntryError):
                if fresh:
                    raise
                m = None  # refused on what this worker saw: ask Redis before answering
                continue
            data = seal(unsealed.to_data(), m.head)
            entry = replace(unsealed, hash=data["hash"])
            text = orjson.dumps(data)
            self._check_size(len(text))
            res = self.store.append(match_id, idem_key=key, fingerprint=fp,
                                    expected_version=m.version, expected_head=m.head,
                                    entry=text.decode(), new_head=entry.hash,
                                    state=new.to_dict())
            if res.kind == "ok":
                after = self._remember(replace(m, state=new, version=m.version + 1,
                                               head=entry.hash))
                return Appended(entry, after)
            if res.kind == "replay":
                assert res.payload is not None
                return self._replay(m, res.payload, fp)
            if res.kind == "missing":
                self._seen.pop(match_id, None)
                raise match_not_found(match_id)
            raced = fresh  # computed from a fresh read: another writer won (else: the cache)
            cur = res.current  # lost the compare-and-set: the match as it is now
            if cur is None:
                m = None
            else:
                m = self._remember(Match.from_stored(match_id, cur.meta, cur.state, cur.version,
                                                     cur.head, cur.token_hash))
                fresh = True
            if raced:  # back off a little, as concurrent writers of one match must
                time.sleep(min(0.001 * (attempt + 1), 0.02) * secrets.randbelow(100) / 100)
        raise Busy("Too many concurrent writes to this match; retry.")

    def _remember(self, m: Match) -> Match:
        """Keep the match as this worker last saw it (a bounded cache; any entry may be
        stale: every write is a compare-and-set on its version and head)."""
        seen = self._seen
        if len(seen) >= SEEN_MAX and m.id not in seen:
            seen.pop(next(iter(seen)), None)
        seen[m.id] = m
        return m

    def _check_size(self, size: int) -> None:
        if size > self.limits.max_entry_bytes:
            raise EntryTooLarge(f"A ledger entry holds at most {self.limits.max_entry_bytes} "
                                f"bytes of JSON (LEDGER_MAX_ENTRY_BYTES); this one needs {size}.",
                                limit=self.limits.max_entry_bytes)

    def _replay(self, m: Match, prior: str, fp: str) -> Appended:
        """The answer a key gave: its entry and the match as it stood right after it."""
        stored_fp, seq = _parse_prior(prior)
        if not hmac.compare_digest(stored_fp, fp):
            raise KeyReused("This Idempotency-Key was used for another request body; use a "
                            "fresh key for a new request.")
        self.store.confirm_replicated(m.id)  # REDIS_WAIT_REPLICAS: acknowledged once copied
        if seq == m.version - 1:  # the usual retry: nothing appended since
            entry = entry_from_data(orjson.loads(self.store.entries(m.id, seq, seq)[0]))
            return Appended(entry, m, replayed=True)
        raw = [orjson.loads(e) for e in self.store.entries(m.id, 0, seq)]
        state = fold(m.players, m.config, raw)
        entry = entry_from_data(raw[-1])
        at = replace(m, state=state, version=seq + 1, head=entry.hash)
        return Appended(entry, at, replayed=True)

    # export and import

    def export(self, match_id: str, token: str | None) -> tuple[Export, str]:
        """The whole ledger with its answered keys (needs the token), and its signature."""
        stored, entries, answered = self.store.snapshot(match_id)
        if stored is None:
            raise match_not_found(match_id)
        m = Match.from_stored(match_id, stored.meta, stored.state, stored.version, stored.head,
                              stored.token_hash)
        _authorize(m, token)
        keys = sorted(((k, *_parse_prior(v)) for k, v in answered.items()),
                      key=lambda x: (x[2], x[0]))
        ex = Export(m, tuple(entries), tuple(keys))
        key, _ = self._key()
        return ex, signing.sign(key, ex.header())

    def import_match(self, doc: Mapping[str, Any], token: str | None) -> Match:
        """Restore a match from its export. ``doc`` is the export as parsed JSON, its shape
        checked (score inputs included)."""
        key, _ = self._key()
        if not signing.verify(key, doc):
            raise SignatureInvalid("Only an export this service signed can be imported "
                                   "(its signature is missing or does not match).",
                                   field="signature")
        if token is None:
            raise TokenRequired("This write needs the match's token: "
                                "Authorization: Bearer <token>.")
        if not hmac.compare_digest(token_hash(token), doc["token_sha256"]):
            raise TokenInvalid("The token does not open this match.")
        entries = doc["entries"]
        if len(entries) > self.limits.max_hands:
            raise MatchFull(f"A match holds at most {self.limits.max_hands} entries "
                            "(LEDGER_MAX_HANDS).", max_hands=self.limits.max_hands)
        if doc.get("version") is not None and doc["version"] != len(entries):
            raise InvalidExport("chain-broken", "version is not the number of entries",
                                field="version")
        try:
            head = verify(entries)
        except ChainError as exc:
            raise InvalidExport("chain-broken", str(exc), field=f"entries.{exc.index}") from None
        if head != doc["head"]:
            raise InvalidExport("chain-broken", "head is not the last entry's hash", field="head")
        answered = _answered(doc.get("idempotency") or [], len(entries))
        ruleset, players = doc["ruleset"], list(doc["players"])
        rules = resolve(ruleset)
        config = match_end_of(rules, doc["match_end"])
        try:  # the players fit the rule set's seats, and every entry re-scores as recorded
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
                      doc.get("created") or _now(), doc["token_sha256"], doc.get("title"),
                      _names(doc.get("names"), state.players), doc.get("stakes"))
        outcome, _ = self.store.create(
            match.id, match.meta(), mine, match.token_hash,
            [orjson.dumps(e).decode() for e in entries], head,
            [(k, f"{fp}:{seq}") for k, fp, seq in answered])
        if outcome == "exists":
            raise MatchExists(f"Match {match.id!r} is live: an import never overwrites a "
                              "match (delete it first, with its token).", id=match.id)
        if outcome == "tombstone":
            raise TokenInvalid(f"Match {match.id!r} was deleted or expired under another "
                               "token; only that token restores it.")
        return match


def _answered(items: Sequence[Any], count: int) -> list[tuple[str, str, int]]:
    """An export's answered Idempotency-Keys, checked: (key, fingerprint, seq of its entry)."""
    out, seen = [], set()
    for i, item in enumerate(items):
        ok = (isinstance(item, Mapping) and isinstance(item.get("key"), str)
              and 0 < len(item["key"]) <= 255 and item["key"] not in seen
              and isinstance(item.get("fingerprint"), str)
              and FINGERPRINT_RE.match(item["fingerprint"]) is not None
              and type(item.get("seq")) is int and 0 <= item["seq"] < count)
        if not ok:
            raise InvalidExport("invalid-entry", f"idempotency {i} is not a key answered by "
                                "one of the entries", field=f"idempotency.{i}")
        seen.add(item["key"])
        out.append((item["key"], item["fingerprint"], item["seq"]))
    return out


def _names(names: Mapping[str, str] | None, players: Sequence[str]) -> dict[str, str]:
    """Display names by normalised player id, in seat order (every key must be a player)."""
    given: dict[str, str] = {}
    for k, v in (names or {}).items():
        try:
            given[player_id(k, "names")] = v
        except PlayerIdError:
            raise MatchError("validation-error", f"names: {k!r} is not a player of this match",
                             "names") from None
    unknown = set(given) - set(players)
    if unknown:
        raise MatchError("validation-error", f"names: {sorted(unknown)[0]!r} is not a player of "
                         "this match", "names")
    return {p: given[p] for p in players if p in given}


class _Moved(Exception):
    """The ledger moved on between reading the match and its entries: read again."""


def _no_key() -> tuple[bytes, str]:
    raise RuntimeError("no signing key configured")


def _parse_prior(prior: str) -> tuple[str, int]:
    """``<fingerprint>:<seq>``; a key stored before compact storage held the whole answer
    (``<fingerprint>\\n<201 body>``), whose ``seq`` is read from it."""
    if "\n" in prior:
        fp, _, body = prior.partition("\n")
        return fp, int(orjson.loads(body)["seq"])
    fp, _, seq = prior.partition(":")
    return fp, int(seq)


def match_not_found(match_id: str) -> MatchNotFound:
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
    config = match_end_of(rules, doc["match_end"])
    return rescore(doc["ruleset"], rules, doc["players"], config, doc["entries"])
