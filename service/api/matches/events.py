"""Live events of a match (docs/api.md#scorekeeping): Server-Sent Events or NDJSON, on every
instance.

Why Redis pub/sub, with the ledger as the source of truth (and not Streams):
every write script (append, correction, buy-in, delete) ends with a ``PUBLISH``
of the match's key on one channel, inside the same script run, so a write that
is applied is announced at no extra round trip, and one that is not is never
announced. Each worker holds one subscriber connection (a listener greenlet
under gevent, a thread otherwise) whatever the number of streams it serves; a
message only says "this match moved": the worker then reads the new entries from
the ledger itself (one ``LRANGE`` per worker per write, not per stream) and wakes
its streams on that match, which send from the worker's cache. A lost message
(the listener reconnecting, a failover) costs nothing but a little time: on
every (re)subscribe the listener re-reads every match it follows, and once a
second (``EVENTS_POLL_SECONDS``) it checks their versions anyway. Resuming
(``Last-Event-ID`` / ``?after=``) reads the ledger too, so a client that
reconnects misses nothing. Streams would have stored every event a second time
(a list per match next to its ledger, trimmed and expired with it) and needed one
blocking ``XREAD`` connection per stream, or a per-worker multiplexer that a
Redis Cluster refuses across slots; pub/sub needs neither and works the same on a
single Redis, the embedded one and a Cluster (``PUBLISH`` reaches every node).

Settings (``service/settings.py``): ``EVENTS_MAX_SUBSCRIBERS`` streams per
worker (default 1000; past it 503 ``too-many-subscribers``),
``EVENTS_HEARTBEAT_SECONDS`` (15) and ``EVENTS_POLL_SECONDS`` (1).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from ...engine.match import (
    EntryType,
    MatchError,
    apply_buy_in,
    apply_hand,
    event_of,
    fold_events,
    new_state,
)
from ...engine.match import Event as LedgerEvent
from ...ledger.service import LedgerService, Match
from ...ledger.store import CHANNEL, UNAVAILABLE_ERRORS, LedgerUnavailable, keys
from ...settings import Settings

log = logging.getLogger(__name__)

IDLE_SECONDS = 30.0  # a listener with no stream to serve for this long stops


@dataclass
class Feed:
    """What one worker knows of one match: its events so far and who waits for more."""

    match_id: str
    match: Match | None = None  # the match after the last entry read
    entries: list[dict[str, Any]] = field(default_factory=list)
    events: list[LedgerEvent] = field(default_factory=list)
    payloads: list[bytes] = field(default_factory=list)  # {"entry", "match"} per entry
    deleted: bool = False
    subscribers: int = 0
    cond: threading.Condition = field(default_factory=threading.Condition)


class EventHub:
    """One per worker process: the subscriber connection, the feeds, the streams' count."""

    def __init__(self, service: Callable[[], LedgerService], render: Callable[[Match], Any],
                 config: Settings, observer: Any = None) -> None:
        self.service = service
        self.render = render
        self.max_subscribers = config.EVENTS_MAX_SUBSCRIBERS
        self.heartbeat = config.EVENTS_HEARTBEAT_SECONDS
        self.poll = config.EVENTS_POLL_SECONDS
        self.observer = observer
        self.feeds: dict[str, Feed] = {}
        self.open = 0
        self.lock = threading.Lock()
        self.listener: threading.Thread | None = None
        self.pid = os.getpid()

    # -- the feeds ---------------------------------------------------------------------

    def _refresh(self, feed: Feed) -> None:
        """Read what the ledger holds beyond the feed's entries and wake its streams."""
        svc = self.service()
        store = svc.store
        if feed.match is None:
            m, entries = svc.ledger(feed.match_id)
            with feed.cond:
                if feed.match is None:
                    self._extend(feed, replace(m, version=0, head="0" * 64,
                                               state=new_state(m.players)), entries)
                    feed.cond.notify_all()
            return
        main, hands, _ = keys(feed.match_id)
        start = len(feed.entries)

        def run() -> list[Any]:
            pipe = store.client.pipeline(transaction=False)
            pipe.hget(main, "version")
            pipe.lrange(hands, start, -1)
            return pipe.execute()

        version, raw = store._call("events", run)
        with feed.cond:
            if version is None:
                feed.deleted = True
            elif len(feed.entries) == start and raw:
                self._extend(feed, feed.match, [orjson.loads(e) for e in raw])
            feed.cond.notify_all()

    def _extend(self, feed: Feed, m: Match, entries: list[dict[str, Any]]) -> None:
        """Add entries (in order) with the match after each (the engine's fold: a hand or
        a buy-in applied to the state before it, a correction re-folding the ledger)."""
        for e in entries:
            ev = event_of(e)
            try:
                if e["type"] == EntryType.HAND:
                    state = apply_hand(m.state, m.config, e["winner"], [
                        (s["id"], s["points"], s["penalty"]) for s in e["scores"]])
                elif e["type"] == EntryType.BUY_IN:
                    state = apply_buy_in(m.state, m.config, e["player"])
                else:
                    state = fold_events(list(m.players), m.config, [*feed.events, ev])
            except MatchError:  # as stored, so it folded when written: fold it all again
                state = fold_events(list(m.players), m.config, [*feed.events, ev])
            m = replace(m, state=state, version=e["seq"] + 1, head=e["hash"])
            feed.entries.append(e)
            feed.events.append(ev)
            feed.payloads.append(orjson.dumps({"entry": e, "match": self.render(m)}))
        feed.match = m

    def _feed(self, match_id: str) -> Feed:
        with self.lock:
            feed = self.feeds.get(match_id)
            if feed is None:
                feed = self.feeds[match_id] = Feed(match_id)
            feed.subscribers += 1
        try:
            if feed.match is None:
                self._refresh(feed)
        except BaseException:
            self._release(feed)
            raise
        return feed

    def _release(self, feed: Feed) -> None:
        with self.lock:
            feed.subscribers -= 1
            if feed.subscribers <= 0 and self.feeds.get(feed.match_id) is feed:
                del self.feeds[feed.match_id]

    # -- the listener ------------------------------------------------------------------

    def _ensure_listener(self) -> None:
        if self.pid != os.getpid():  # forked: the parent's thread is not ours
            self.pid, self.listener, self.feeds, self.open = os.getpid(), None, {}, 0
        if self.listener is not None and self.listener.is_alive():
            return
        with self.lock:
            if self.listener is None or not self.listener.is_alive():
                self.listener = threading.Thread(target=self._listen, name="kaluki-events",
                                                 daemon=True)
                self.listener.start()

    def _listen(self) -> None:
        me = threading.current_thread()
        while self.listener is me:
            pubsub = None
            try:
                client = self.service().store.client
                pubsub = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
                pubsub.subscribe(CHANNEL)
                self._refresh_all()  # whatever was missed while not subscribed
                last_poll = busy = time.monotonic()
                while self.listener is me:
                    if self.feeds:
                        busy = time.monotonic()
                    elif time.monotonic() - busy > IDLE_SECONDS:  # nobody to tell: stop
                        with self.lock:
                            if not self.feeds and self.listener is me:
                                self.listener = None
                        break
                    msg = pubsub.get_message(timeout=min(self.poll, 1.0))
                    if msg and msg.get("type") == "message":
                        self._poke(str(msg["data"]))
                    if time.monotonic() - last_poll >= self.poll:
                        self._refresh_all()
                        last_poll = time.monotonic()
            except (*UNAVAILABLE_ERRORS, LedgerUnavailable) as exc:
                log.warning("event listener: %s: %s; reconnecting", type(exc).__name__, exc)
                time.sleep(0.2)
            except Exception:  # noqa: BLE001 - keep listening whatever happens
                log.exception("event listener failed; restarting")
                time.sleep(0.5)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        pubsub.close()

    def _poke(self, key: str) -> None:
        match_id = key.partition("{match:")[2].rstrip("}")
        feed = self.feeds.get(match_id)
        if feed is not None:
            try:
                self._refresh(feed)
            except LedgerUnavailable as exc:
                log.warning("event refresh of %s failed: %s", match_id, exc)

    def _refresh_all(self) -> None:
        for feed in list(self.feeds.values()):
            try:
                self._refresh(feed)
            except LedgerUnavailable:
                raise
            except Exception:  # noqa: BLE001
                log.exception("event refresh of %s failed", feed.match_id)

    # -- a stream ----------------------------------------------------------------------

    def admit(self) -> bool:
        with self.lock:
            if self.open >= self.max_subscribers:
                return False
            self.open += 1
        if self.observer is not None:
            self.observer.stream_opened()
        return True

    def stream(self, match_id: str, after: int, ndjson: bool) -> Iterator[bytes]:
        """The stream's frames, from entry ``after + 1`` (the slot was taken by admit)."""
        try:
            feed = self._feed(match_id)  # first: a listener idle-stopping sees the feed
            self._ensure_listener()
        except BaseException:
            self._leave()
            raise
        return self._frames(feed, after, ndjson)

    def _leave(self) -> None:
        with self.lock:
            self.open -= 1
        if self.observer is not None:
            self.observer.stream_closed()

    def _frames(self, feed: Feed, after: int, ndjson: bool) -> Iterator[bytes]:
        try:
            if not ndjson:
                yield b"retry: 1000\n\n"
            nxt = max(after + 1, 0)
            beat = time.monotonic() + self.heartbeat
            while True:
                with feed.cond:
                    if nxt >= len(feed.payloads) and not feed.deleted and not self._ended(feed):
                        feed.cond.wait(max(beat - time.monotonic(), 0.0))
                    batch = list(range(nxt, len(feed.payloads)))
                    payloads = [feed.payloads[i] for i in batch]
                    kinds = [feed.entries[i]["type"] for i in batch]
                    deleted, ended = feed.deleted, self._ended(feed)
                    last = len(feed.payloads) - 1
                if not batch and not deleted and not ended:
                    if time.monotonic() >= beat:  # a wake-up without news is no heartbeat
                        beat = time.monotonic() + self.heartbeat
                        yield b'{"event":"heartbeat"}\n' if ndjson else b": heartbeat\n\n"
                    continue
                beat = time.monotonic() + self.heartbeat
                # each entry's type is its event's name
                out = [self._frame(ndjson, seq, EntryType(kind).value, payload)
                       for seq, kind, payload in zip(batch, kinds, payloads, strict=True)]
                nxt = last + 1
                if ended and not deleted:
                    out.append(self._frame(ndjson, last, "finished", feed.payloads[last]))
                elif deleted:
                    out.append(self._frame(ndjson, None, "deleted",
                                           orjson.dumps({"id": feed.match_id})))
                if self.observer is not None:
                    self.observer.events_sent(len(out))
                yield b"".join(out)
                if ended or deleted:
                    return
        finally:
            self._release(feed)
            self._leave()

    @staticmethod
    def _ended(feed: Feed) -> bool:
        return feed.match is not None and feed.match.state.status == "finished" and \
            feed.match.version == len(feed.payloads) and len(feed.payloads) > 0

    @staticmethod
    def _frame(ndjson: bool, seq: int | None, event: str, data: bytes) -> bytes:
        if ndjson:
            head = b'{"id":' + (b"null" if seq is None else str(seq).encode()) + \
                b',"event":"' + event.encode() + b'","data":'
            return head + data + b"}\n"
        lines = b"" if seq is None else b"id: " + str(seq).encode() + b"\n"
        return lines + b"event: " + event.encode() + b"\ndata: " + data + b"\n\n"
