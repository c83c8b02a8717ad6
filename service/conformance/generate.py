"""Write the conformance corpus from the service's own rulings (``make corpus``).

``python -m service.conformance.generate [--seed N] [--out corpus]``

Nothing in the corpus is typed by hand. The generator asks the app in-process (a Flask
test client), so every expected answer is exactly what the service answers. It finds
what to cover from the service itself:

* the rule sets: ``GET /v1/rulesets``; the violation codes: ``GET /v1/violations``;
* the 422 problem codes each stateless endpoint and the referee can answer: the
  operations table of the API document (``service/docs/contract.py``), with the status
  table of ``service/api/problems.py``;
* the endpoints: the app's URL map (``/v1/turns/options`` gets cases once it exists).

Then it draws requests, seeded:

1. self-play hands of every rule set (:mod:`service.engine.selfplay`): the whole hand,
   prefixes, the text notation, and corrupted copies (one card, one play, one draw
   changed) with the first violation the referee finds;
2. from those hands, the stateless requests: each meld laid (``/melds/validate``), each
   first meld (``/melds/opening``), each build and release, each turn (``/turns/check``,
   and unfinished for ``/turns/options``), each end (``/hands/score``), each hand
   (``/hands/analyze``), each with small changes, legal and illegal;
3. constructed hands for rulings self-play seldom reaches (special wins, releases);
4. mutations of those requests (a card, a count, a field, a rule-set override) until
   every code above has a case, or the search budget runs out (then it says which).

Each new ruling is kept (a few per rule set and kind of answer) and shrunk: cards,
plays, turns and stock cards are dropped while the ruling stays the same, so a human
can read the case.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import inspect
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..api.problems import STATUS, TITLES
from ..app import create_app
from ..docs.contract import OPERATIONS
from ..engine import melds as m
from ..engine import selfplay
from ..engine.cards import full_deck
from ..engine.notation import data_to_text
from ..engine.rules import (
    PARAMS,
    Boolean,
    CardValueTable,
    Choice,
    Integer,
    JokerOpening,
    Kind,
    Param,
    resolve,
)
from . import corpus as cp
from .runner import Answer, FlaskTransport, ask

JSON = dict[str, Any]
RANKS = "A23456789TJQK"
SUITS = "cdhs"
NATURALS = [r + s for s in SUITS for r in RANKS]
NOTATION = "text/vnd.kaluki.hand"
MAX_TURNS = 80  # a self-play hand nobody wins by then stops (still a legal, unfinished record)
MAX_BYTES = 4_500_000  # above this the files are written gzipped (the limit is 5 MB)

# endpoints that take a rule set in a JSON body (stateless, or the referee)
STATELESS = ("/v1/melds/validate", "/v1/melds/opening", "/v1/melds/build", "/v1/jokers/release",
             "/v1/hands/score", "/v1/hands/analyze", "/v1/hands/adjudicate", "/v1/turns/check",
             "/v1/turns/options")
SLUGS = {"/v1/melds/validate": "validate", "/v1/melds/opening": "opening",
         "/v1/melds/build": "build", "/v1/jokers/release": "release",
         "/v1/hands/score": "score", "/v1/hands/analyze": "analyze",
         "/v1/hands/adjudicate": "adjudicate", "/v1/turns/check": "turns-check",
         "/v1/turns/options": "turns-options", "/v1/rulesets": "rulesets",
         "/v1/violations": "violations"}

# codes an operation's documentation lists that no request to it can produce, with why
# (reported, and not required of the corpus)
UNREACHABLE: Mapping[str, str] = {}


def slug(path: str) -> str:
    base = path.split("?")[0]
    if base.startswith("/v1/rulesets/"):
        return "rulesets"
    return SLUGS.get(base, base.strip("/").replace("/", "-"))


# -- what the service says it can answer ---------------------------------------------------

class Service:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.transport = FlaskTransport(app)
        self.calls = 0

    def ask(self, request: Mapping[str, Any]) -> Answer:
        self.calls += 1
        return ask(self.transport, request)

    def get(self, path: str) -> Any:
        return self.ask({"method": "GET", "path": path}).body

    def routes(self) -> set[tuple[str, str]]:
        out = set()
        for rule in self.app.url_map.iter_rules():
            for method in rule.methods or ():
                if method in ("GET", "POST", "PUT", "DELETE", "PATCH"):
                    out.add((method, rule.rule))
        return out


def problem_targets(routes: set[tuple[str, str]]) -> dict[str, set[str]]:
    """path -> the 422 codes its documentation says it can answer (stateless and referee
    operations present in the app), from the operations table of the API document."""
    out: dict[str, set[str]] = {}
    for (method, path), op in OPERATIONS.items():
        if path not in STATELESS or (method.upper(), path) not in routes or op.ledger:
            continue
        text = op.problems.get(422, "")
        codes = {c for c in re.findall(r"`([a-z][a-z0-9-]*)`", text)
                 if c in TITLES and STATUS.get(c, 422) == 422}
        out[path] = codes
    return out


def targets(svc: Service) -> dict[str, Any]:
    routes = svc.routes()
    rulesets = [r["name"] for r in svc.get("/v1/rulesets")["rulesets"]]
    violations = [v["code"] for v in svc.get("/v1/violations")["violations"]]
    problems = problem_targets(routes)
    endpoints = sorted(p for p in STATELESS if ("POST", p) in routes)
    return {"rulesets": rulesets, "violations": violations, "problems": problems,
            "endpoints": endpoints}


def required_problem_codes(problems: Mapping[str, set[str]]) -> set[str]:
    return {c for codes in problems.values() for c in codes} - set(UNREACHABLE)


# -- signatures: what a ruling is, for keeping and shrinking ---------------------------------

def ruling_sig(ans: Answer) -> tuple[Any, ...]:
    b = ans.body
    if ans.status != 200 or not isinstance(b, dict):
        code = b.get("code") if isinstance(b, dict) else None
        inner = tuple(v.get("code") for v in b.get("violations", ())) if isinstance(b, dict) else ()
        return ("problem", ans.status, code, inner)
    flag = b.get("valid", b.get("legal"))
    codes = tuple(v.get("code") for v in b.get("violations", ()) if isinstance(v, dict))
    return ("ruling", flag, codes)


def _where(ans: Answer) -> tuple[Any, ...]:
    """Where the violations lie (turn, play, meld): a shrunk case keeps its ruling's place."""
    b = ans.body
    if not isinstance(b, dict):
        return ()
    return tuple((v.get("turn"), v.get("play"), v.get("meld")) for v in b.get("violations") or ()
                 if isinstance(v, dict))


def _ace_at(cards: Sequence[str]) -> str | None:
    if not cards:
        return None
    if cards[0][:1] == "A" or cards[0] .startswith("JK=A"):
        return "first"
    if cards[-1][:1] == "A" or cards[-1].startswith("JK=A"):
        return "last"
    return None


def features(path: str, request: Mapping[str, Any], ans: Answer) -> tuple[Any, ...]:
    """What else makes an answer worth a case of its own (kind of meld, jokers, finish...)."""
    b = ans.body
    if ans.status != 200 or not isinstance(b, dict):
        return ()
    body = request.get("body") if isinstance(request.get("body"), dict) else {}
    assert isinstance(body, dict)
    ep = path.split("?")[0]
    over = isinstance(body.get("ruleset"), dict)
    lang = "nl" if (request.get("headers") or {}).get("Accept-Language") else ""
    meld = b.get("meld") if isinstance(b.get("meld"), dict) else None
    if ep == "/v1/melds/validate":
        return (over, lang, meld and meld.get("kind"), bool(meld and meld.get("jokers")),
                bool(b.get("alternatives")), meld and _ace_at(meld.get("cards", [])),
                body.get("kind") is not None)
    if ep == "/v1/melds/opening":
        return (over, lang, len(b.get("melds", [])) > 1, b.get("threshold"),
                b.get("points") == b.get("threshold"))
    if ep == "/v1/melds/build":
        return (over, meld and meld.get("kind"), meld and meld.get("closed"),
                body.get("opened", True))
    if ep == "/v1/jokers/release":
        return (over, b.get("released"), b.get("closed"), meld and meld.get("kind"),
                body.get("opened", True))
    if ep == "/v1/hands/score":
        return (over, b.get("special"), len(b.get("scores", [])))
    if ep == "/v1/hands/analyze":
        return (over, b.get("can_open"), b.get("can_go_out"), b.get("can_special"),
                body.get("opened", False))
    if ep == "/v1/hands/adjudicate":
        res = b.get("result") or {}
        rec = body if body else {}
        turns = rec.get("turns") or []
        if b.get("violations") and isinstance(b["violations"][0].get("turn"), int):
            turns = turns[: b["violations"][0]["turn"] + 1]  # what follows is not ruled on
        if not isinstance(turns, list):
            turns = []
        plays = {k for t in turns if isinstance(t, dict) for p in (t.get("plays") or [])
                 if isinstance(p, dict) for k in p}
        restock = any(isinstance(t, dict) and "restock" in t for t in turns)
        text = "text" in request
        v = (b.get("violations") or [{}])[0]
        return (over, text, res.get("finish"), restock, "release" in plays,
                v.get("play") is None if b.get("violations") else None, "steps" in path)
    if ep == "/v1/turns/check":
        return (over, b.get("finish"), b.get("opened"))
    if ep == "/v1/turns/options":
        return (over, b.get("phase"), b.get("can_end"), bool(b.get("callers")))
    return ()


def summary_of(ans: Answer) -> str:
    sig = ruling_sig(ans)
    if sig[0] == "problem":
        return f"{sig[1]} {sig[2]}" + (f" ({', '.join(sig[3])})" if sig[3] else "")
    if sig[1] is True:
        return "legal"
    if sig[1] is False:
        return "illegal: " + ", ".join(sig[2])
    return "answer"


# -- cards and rule sets -----------------------------------------------------------------------

def catalog_rules(name: str) -> Any:
    return resolve(name)


def deck_strings(rules: Any) -> list[str]:
    return [str(c) for c in full_deck(rules.decks, rules.jokers)]


def round_of(rules: Any, rec: Mapping[str, Any] | None, rng: random.Random) -> JSON:
    """``{"round": k}`` for a contract rule set (docs/api.md#contract-rule-sets): the record's, else
    one drawn; ``{}`` for every other rule set."""
    if rec is not None and isinstance(rec.get("round"), int):
        return {"round": rec["round"]}
    contracts = getattr(rules, "contracts", None)
    return {"round": rng.randint(1, len(contracts))} if contracts else {}


def players_for(rules: Any, rng: random.Random) -> list[str]:
    names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
    n = rng.randint(rules.players_min, min(rules.players_max, 4))
    return names[:n]


# -- the generator ----------------------------------------------------------------------------

class Generator:
    def __init__(self, app: Any, seed: int = 2026, *, quick: bool = False,
                 log: Callable[[str], None] | None = None) -> None:
        self.svc = Service(app)
        self.seed = seed
        self.rng = random.Random(seed)
        self.quick = quick
        self.log = log or (lambda s: None)
        self.t = targets(self.svc)
        self.cases: dict[str, list[JSON]] = defaultdict(list)
        self.kept: Counter[tuple[Any, ...]] = Counter()
        self.numbers: Counter[tuple[str, str]] = Counter()
        self.bases: dict[str, list[tuple[str, JSON]]] = defaultdict(list)  # path -> bodies
        self.records: dict[str, list[JSON]] = defaultdict(list)
        self.has_options = "/v1/turns/options" in self.t["endpoints"]
        self._problems: set[str] = set()
        self._violations: set[str] = set()

    # ---- keeping cases ----
    def covered(self) -> tuple[set[str], set[str]]:
        return self._problems, self._violations

    def missing(self) -> tuple[set[str], set[str]]:
        problems, violations = self.covered()
        return (required_problem_codes(self.t["problems"]) - problems,
                set(self.t["violations"]) - violations)

    def offer(self, label: str, request: JSON, *, cap: int = 2, shrink: bool = True,
              tags: Sequence[str] = (), base: bool = False) -> Answer:
        """Ask the service; keep the case when its kind of answer is new enough."""
        ans = self.svc.ask(request)
        path = request["path"]
        ep = path.split("?")[0]
        if base and ans.status == 200 and "body" in request:
            self.bases[ep].append((label, request["body"]))
        key = (ep, label, ruling_sig(ans), features(path, request, ans),
               tuple(sorted((request.get("headers") or {}).items())))
        new_code = self._new_code(ans)
        if self.kept[key] >= cap and not new_code:
            return ans
        self.kept[key] += 1
        if shrink:
            request, ans = self.shrink(request, ans)
        self._keep(label, request, ans, tags)
        if "headers" not in request and self.rng.random() < 0.06:
            # the same request in Dutch: the same ruling, other words (free: docs/corpus.md)
            self.offer(label, {**request, "headers": {"Accept-Language": "nl"}}, cap=1,
                       shrink=False, tags=[*tags, "nl"])
        return ans

    def _new_code(self, ans: Answer) -> bool:
        problems, violations = self.covered()
        sig = ruling_sig(ans)
        if sig[0] == "problem":
            return sig[2] not in problems or any(c not in violations for c in sig[3])
        return any(c not in violations for c in sig[2])

    def _keep(self, label: str, request: JSON, ans: Answer, tags: Sequence[str]) -> None:
        s = slug(request["path"])
        self.numbers[(s, label)] += 1
        n = self.numbers[(s, label)]
        free = (cp.FREE_PROBLEM if ans.status != 200
                else cp.FREE_CATALOG if request["method"] == "GET" else cp.FREE_RULING)
        case: JSON = {"id": f"{s}/{label}/{n:03d}", "ruleset": label, "title": summary_of(ans),
                      "tags": sorted(set(tags)),
                      "request": request,
                      "expected": {"status": ans.status, "media_type": ans.media_type,
                                   "body": ans.body},
                      "compare": {"free": list(free)}}
        if isinstance(ans.body, dict) and "request_id" in ans.body:
            ans.body.pop("request_id")
        self.cases[s].append(case)
        code = cp.problem_code(case)
        if code:
            self._problems.add(code)
        self._violations.update(cp.violation_codes(case))

    # ---- shrinking ----
    def shrink(self, request: JSON, ans: Answer, budget: int = 60) -> tuple[JSON, Answer]:
        """Drop list items (cards, plays, turns, stock cards) and optional fields while the
        ruling and its features stay the same."""
        if "body" not in request or not isinstance(request["body"], dict):
            return request, ans
        path = request["path"]
        want = (ruling_sig(ans), _where(ans), features(path, request, ans))
        body = request["body"]
        tries = 0

        def same(candidate: JSON) -> Answer | None:
            nonlocal tries
            tries += 1
            r = {**request, "body": candidate}
            a = self.svc.ask(r)
            return a if (ruling_sig(a), _where(a), features(path, r, a)) == want else None

        # an illegal record: nothing after the violating turn matters
        if isinstance(ans.body, dict) and ans.body.get("violations") and isinstance(
                body.get("turns"), list):
            turn = ans.body["violations"][0].get("turn")
            if isinstance(turn, int) and turn + 1 < len(body["turns"]):
                cand = {**body, "turns": body["turns"][: turn + 1]}
                a = same(cand)
                if a is not None:
                    body, ans = cand, a
        # the shortest prefix of the turns that still shows the ruling
        if isinstance(body.get("turns"), list) and len(body["turns"]) > 1:
            lo, hi = 0, len(body["turns"])
            while lo < hi and tries < budget:
                mid = (lo + hi) // 2
                cand = {**body, "turns": body["turns"][:mid]}
                a = same(cand)
                if a is not None:
                    body, ans, hi = cand, a, mid
                else:
                    lo = mid + 1
        for ptr in self._lists(body):
            if tries >= budget:
                break
            lst = _get(body, ptr)
            if not isinstance(lst, list) or not lst:
                continue
            if ptr == ("stock",):  # the stock is dealt from the top: only its tail may go
                lo, hi = 0, len(lst)
                while lo < hi and tries < budget:
                    mid = (lo + hi) // 2
                    cand = _set(body, ptr, lst[:mid])
                    a = same(cand)
                    if a is not None:
                        body, ans, hi = cand, a, mid
                    else:
                        lo = mid + 1
                continue
            # the tail of the stock: halve it while the ruling holds
            chunk = max(1, len(lst) // 2)
            while chunk >= 1 and tries < budget:
                progressed = False
                i = len(lst) - chunk
                while i >= 0 and tries < budget:
                    cand_list = lst[:i] + lst[i + chunk:]
                    cand = _set(body, ptr, cand_list)
                    a = same(cand)
                    if a is not None:
                        body, ans, lst = cand, a, cand_list
                        progressed = True
                    i -= chunk
                if not progressed:
                    chunk //= 2
        return {**request, "body": body}, ans

    def _lists(self, body: JSON) -> list[tuple[Any, ...]]:
        """Pointers to the lists worth shrinking, the cheap ones first."""
        out: list[tuple[Any, ...]] = []
        if isinstance(body.get("stock"), list):
            out.append(("stock",))
        for key in ("cards", "melds", "table", "hand", "meld"):
            if isinstance(body.get(key), list):
                out.append((key,))
        if isinstance(body.get("players"), list):
            out.append(("players",))
        turn = body.get("turn")
        if isinstance(turn, dict) and isinstance(turn.get("plays"), list):
            out.append(("turn", "plays"))
        return out

    # ---- sources ----
    def run(self) -> dict[str, list[JSON]]:
        start = time.monotonic()
        self.catalog()
        for name in self.t["rulesets"]:
            self.selfplay(name)
        self.log(f"self-play done: {self.svc.calls} requests, {time.monotonic() - start:.0f} s")
        for name in self.t["rulesets"]:
            self.constructed(name)
        self.overrides()
        self.fuzz()
        self.log(f"done: {self.svc.calls} requests, {time.monotonic() - start:.0f} s")
        return self.cases

    def catalog(self) -> None:
        self.offer("catalog", {"method": "GET", "path": "/v1/rulesets"}, shrink=False)
        for name in self.t["rulesets"]:
            self.offer("catalog", {"method": "GET", "path": f"/v1/rulesets/{name}"}, cap=99,
                       shrink=False)
        self.offer("catalog", {"method": "GET", "path": "/v1/rulesets/no-such-rules"},
                   shrink=False)
        self.offer("catalog", {"method": "GET", "path": "/v1/violations"}, shrink=False)

    def _play(self, rules: Any, name: str, players: list[str], seed: int) -> JSON | None:
        kwargs: dict[str, Any] = {}
        params = inspect.signature(selfplay.play_hand).parameters
        if getattr(rules, "contracts", None) and "round" in params:
            kwargs["round"] = 1 + seed % len(rules.contracts)
        try:
            return selfplay.play_hand(rules, players, seed, name, max_turns=MAX_TURNS, **kwargs)
        except Exception as exc:  # a bot that cannot play this rule set yet: say so, go on
            self.log(f"self-play of {name} failed ({type(exc).__name__}: {exc}); skipped")
            return None

    def selfplay(self, name: str) -> None:
        rules = catalog_rules(name)
        rng = random.Random(f"{self.seed}/{name}")
        hands = 6 if self.quick else 16
        records: list[JSON] = []
        for _ in range(hands * 3):
            if len(records) >= hands:
                break
            rec = self._play(rules, name, players_for(rules, rng), rng.randrange(1 << 30))
            if rec is None:
                return
            ans = self.svc.ask({"method": "POST", "path": "/v1/hands/adjudicate", "body": rec})
            if ans.status != 200 or not ans.body.get("legal"):
                self.log(f"self-play of {name} wrote a hand the referee refuses: "
                         f"{summary_of(ans)}; skipped")
                continue
            records.append(rec)
        # the shortest finished hands read best; a restock or a release is worth its length
        records.sort(key=lambda r: (len(r["turns"]) >= MAX_TURNS, len(r["turns"])))
        self.records[name] = records
        for i, rec in enumerate(records):
            self.from_record(name, rec, rng, whole=i < 2 or self._notable(rec))
        if records:
            self.record_problems(name, records[0], rules)

    def record_problems(self, name: str, rec: JSON, rules: Any) -> None:
        """A record that cannot be replayed as given: a short deal, a stock draw that names
        no card when there is no stock, a stranger's turn, one seat too many."""
        adj = "/v1/hands/adjudicate"
        rec = {**rec, "turns": rec["turns"][:2]}
        first = rec["players"][0]
        short = {**rec, "deal": {**rec["deal"], first: rec["deal"][first][:-1]}}
        unnamed = {k: v for k, v in rec.items() if k != "stock"}
        unnamed["turns"] = [{**t, "draw": {"from": "stock"}} if t.get("draw", {}).get(
            "from") == "stock" else t for t in rec["turns"]]
        stranger = {**rec, "turns": [{**rec["turns"][0], "player": "zed"}]}
        extra = [f"p{k}" for k in range(rules.players_max + 1 - len(rec["players"]))]
        crowded = {**rec, "players": rec["players"] + extra,
                   "deal": {**rec["deal"], **{p: [] for p in extra}}}
        for body in (short, unnamed, stranger, crowded):
            self.offer(name, {"method": "POST", "path": adj, "body": body}, tags=["record"])

    @staticmethod
    def _notable(rec: JSON) -> bool:
        return any("restock" in t or any("release" in p for p in t.get("plays", []))
                   for t in rec["turns"])

    def from_record(self, name: str, rec: JSON, rng: random.Random, whole: bool) -> None:
        adj = "/v1/hands/adjudicate"
        if whole:
            self.offer(name, {"method": "POST", "path": adj, "body": rec}, tags=["selfplay"])
        steps_ans = self.svc.ask({"method": "POST", "path": adj + "?steps=true", "body": rec})
        steps = steps_ans.body.get("steps", [])
        turns = rec["turns"]
        # a prefix (unfinished: no result), with steps, and in notation
        k = rng.randrange(1, max(2, min(len(turns), 5)))
        self.offer(name, {"method": "POST", "path": adj + "?steps=true",
                          "body": {**rec, "turns": turns[:min(k, 2)]}}, tags=["selfplay", "steps"],
                   cap=1)
        self.offer(name, {"method": "POST", "path": adj, "body": {**rec, "turns": turns[:k]}},
                   tags=["selfplay", "prefix"], cap=1, base=True)
        if whole:
            try:
                text = data_to_text(rec)
            except Exception:  # noqa: BLE001 - a record the notation cannot write: no case
                text = None
            if text is not None:
                self.offer(name, {"method": "POST", "path": adj,
                                  "headers": {"Content-Type": NOTATION}, "text": text},
                           tags=["selfplay", "notation"], shrink=False)
        # corrupted copies
        for kind in ("card", "play", "draw"):
            for _ in range(4):
                bad = corrupt(rec, kind, rng)
                if bad is not None:
                    self.offer(name, {"method": "POST", "path": adj, "body": bad},
                               tags=["corrupt", f"corrupt-{kind}"], cap=1)
        # each turn's pieces, statelessly
        for i, turn in enumerate(turns):
            if i + 1 >= len(steps) or rng.random() > 0.5:
                continue
            self.from_turn(name, rec, steps[i]["state"], turn, rng)
        # the end
        res = steps_ans.body.get("result")
        if res and steps:
            self.score_cases(name, rec, steps[-1]["state"], res, rng)

    def from_turn(self, name: str, rec: JSON, state: JSON, turn: JSON,
                  rng: random.Random) -> None:
        rules = catalog_rules(name)
        hand = _hand_of(state, turn["player"])
        table = [m["cards"] for m in state["table"]]
        opened = turn["player"] in state["opened"]
        rnd = round_of(rules, rec, rng)
        body: JSON = {"ruleset": name, "table": table, "hand": hand, "opened": opened,
                      "discard_top": state["discard_top"], "turn": _check_turn(turn, rec), **rnd}
        self.offer(name, {"method": "POST", "path": "/v1/turns/check", "body": body}, base=True)
        bad = corrupt_turn(body["turn"], rng, hand)
        if bad is not None:
            self.offer(name, {"method": "POST", "path": "/v1/turns/check",
                              "body": {**body, "turn": bad}}, tags=["corrupt"])
        if self.has_options:
            self.options_cases(name, body, rng)
        drawn = turn.get("draw", {}).get("card")
        held = hand + ([drawn] if drawn else [])
        # the hand after the draw, analysed
        self.offer(name, {"method": "POST", "path": "/v1/hands/analyze",
                          "body": {"ruleset": name, "cards": held, "opened": opened, **rnd}},
                   base=True)
        first = not opened
        melds = [p["meld"] for p in turn.get("plays", []) if "meld" in p]
        # a contract rule set goes down with one lay (docs/api.md#contract-rule-sets): its melds
        if not melds:
            melds = [m for p in turn.get("plays", []) if "lay" in p for m in p["lay"]]
        for cards in melds:
            cards = cards["cards"] if isinstance(cards, dict) else cards
            self.meld_cases(name, cards, rng)
        if first and melds:
            mlist = [m["cards"] if isinstance(m, dict) else m for m in melds]
            self.offer(name, {"method": "POST", "path": "/v1/melds/opening",
                              "body": {"ruleset": name, "melds": mlist, **rnd}}, base=True)
            if len(mlist) > 1:
                self.offer(name, {"method": "POST", "path": "/v1/melds/opening",
                                  "body": {"ruleset": name, "melds": mlist[:1], **rnd}})
            bad_melds = copy.deepcopy(mlist)
            j = rng.randrange(len(bad_melds))
            bad_melds[j][rng.randrange(len(bad_melds[j]))] = rng.choice(NATURALS)
            self.offer(name, {"method": "POST", "path": "/v1/melds/opening",
                              "body": {"ruleset": name, "melds": bad_melds, **rnd}})
        for p in turn.get("plays", []):
            for verb in ("build", "release"):
                if verb in p and p[verb]["meld"] < len(table):
                    path = "/v1/melds/build" if verb == "build" else "/v1/jokers/release"
                    b = {"ruleset": name, "meld": table[p[verb]["meld"]], "cards": p[verb]["cards"],
                         "opened": opened}
                    self.offer(name, {"method": "POST", "path": path, "body": b}, base=True)
                    self.offer(name, {"method": "POST", "path": path,
                                      "body": {**b, "cards": [rng.choice(NATURALS)]}})
                    if not opened or rng.random() < 0.3:
                        self.offer(name, {"method": "POST", "path": path,
                                          "body": {**b, "opened": False}})
        # building and releasing on what lies on the table, with cards of the hand
        for meld in state["table"]:
            if rng.random() < 0.3 and hand:
                self.offer(name, {"method": "POST", "path": "/v1/melds/build",
                                  "body": {"ruleset": name, "meld": meld["cards"],
                                           "cards": [rng.choice(held)]}}, base=True)
            if meld.get("jokers"):
                stands = [j["as"] for j in meld["jokers"]]
                laid = [s if len(s) > 1 else s + rng.choice(SUITS) for s in stands]
                self.offer(name, {"method": "POST", "path": "/v1/jokers/release",
                                  "body": {"ruleset": name, "meld": meld["cards"],
                                           "cards": laid[:1]}}, base=True)

    def options_cases(self, name: str, check_body: JSON, rng: random.Random) -> None:
        turn = check_body["turn"]
        cuts: list[JSON] = [{}]
        if "draw" in turn:
            plays = turn.get("plays", [])
            cuts.append({"draw": turn["draw"], "plays": []})
            if plays:
                cuts.append({"draw": turn["draw"], "plays": plays[: rng.randrange(1, len(plays) + 1)]})
        for cut in cuts:
            self.offer(name, {"method": "POST", "path": "/v1/turns/options",
                              "body": {**check_body, "turn": cut}}, base=True, shrink=False)

    def meld_cases(self, name: str, cards: list[str], rng: random.Random) -> None:
        v = "/v1/melds/validate"
        self.offer(name, {"method": "POST", "path": v, "body": {"ruleset": name, "cards": cards}},
                   base=True)
        variants: list[list[str]] = [list(reversed(cards)), cards[:-1], cards[1:],
                                     [*cards, "JK"], ["JK", *cards]]
        bad = list(cards)
        bad[rng.randrange(len(bad))] = rng.choice(NATURALS)
        variants.append(bad)
        swapped = list(cards)
        if len(swapped) > 2:
            i = rng.randrange(len(swapped) - 1)
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            variants.append(swapped)
        for var in variants:
            if var:
                self.offer(name, {"method": "POST", "path": v,
                                  "body": {"ruleset": name, "cards": var}})
        kind = rng.choice(["set", "run"])
        self.offer(name, {"method": "POST", "path": v,
                          "body": {"ruleset": name, "cards": cards, "kind": kind}})

    def score_cases(self, name: str, rec: JSON, state: JSON, res: JSON,
                    rng: random.Random) -> None:
        players = [{"id": h["id"], "cards": h["cards"]} for h in state["hands"]]
        body = {"ruleset": name, "winner": res["winner"], "finish": res["finish"],
                "players": players, **round_of(catalog_rules(name), rec, rng)}
        s = "/v1/hands/score"
        self.offer(name, {"method": "POST", "path": s, "body": body}, base=True)
        other = "special" if res["finish"] == "out" else "out"
        self.offer(name, {"method": "POST", "path": s, "body": {**body, "finish": other}},
                   shrink=False)
        losers = [p for p in players if p["id"] != res["winner"] and p["cards"]]
        if losers:
            holds = [{**p, "cards": losers[0]["cards"][:1]} if p["id"] == res["winner"] else p
                     for p in players]
            self.offer(name, {"method": "POST", "path": s, "body": {**body, "players": holds}})
        self.offer(name, {"method": "POST", "path": s, "body": {**body, "winner": "zed"}})
        self.offer(name, {"method": "POST", "path": s,
                          "body": {**body, "players": [*players, players[0]]}})

    # ---- constructed hands ----
    def constructed(self, name: str) -> None:
        rules = catalog_rules(name)
        rng = random.Random(f"{self.seed}/{name}/built")
        for _ in range(3 if self.quick else 6):
            rec = special_hand(rules, name, rng)
            if rec is not None:
                ans = self.offer(name, {"method": "POST", "path": "/v1/hands/adjudicate",
                                        "body": rec}, tags=["constructed", "special"], cap=3)
                if not self.records.get(name) and ans.status == 200 and ans.body.get("legal"):
                    # no self-play for this rule set (a bot that cannot play it yet): its
                    # stateless cases come from the constructed hands instead
                    self.from_record(name, rec, rng, whole=False)
        legal_melds: list[tuple[int, list[str]]] = []
        for _ in range(40 if self.quick else 120):
            cards = random_meld(rules, rng)
            self.offer(name, {"method": "POST", "path": "/v1/melds/validate",
                              "body": {"ruleset": name, "cards": cards}},
                       tags=["random"], base=True)
            ruling = self.svc.ask({"method": "POST", "path": "/v1/melds/validate",
                                   "body": {"ruleset": name, "cards": cards}})
            meld = ruling.body.get("meld") if ruling.status == 200 else None
            if meld and meld.get("jokers"):
                self.release_cases(name, meld, rng)
            if meld:
                legal_melds.append((meld["points"], meld["cards"]))
            if meld:
                extra = [rng.choice(NATURALS + ["JK"])]
                self.offer(name, {"method": "POST", "path": "/v1/melds/build",
                                  "body": {"ruleset": name, "meld": meld["cards"], "cards": extra}},
                           tags=["random"], base=True)
        self.threshold_cases(name, rules, legal_melds, rng)
        for _ in range(10 if self.quick else 30):
            hand = rng.sample(deck_strings(rules), rules.hand_size + rng.choice([0, 1]))
            self.offer(name, {"method": "POST", "path": "/v1/hands/analyze",
                              "body": {"ruleset": name, "cards": hand,
                                       "opened": rng.random() < 0.3, **round_of(rules, None, rng)}},
                       tags=["random"], base=True)

    def threshold_cases(self, name: str, rules: Any, legal: list[tuple[int, list[str]]],
                        rng: random.Random) -> None:
        """First melds that count exactly the opening threshold, one point less and one more
        (where two or three of the random legal melds add up so, from one deck)."""
        threshold = rules.opening_min_points
        if not threshold or not legal:
            return
        wanted = {threshold - 1: "below", threshold: "at", threshold + 1: "above"}
        found: dict[int, list[list[str]]] = {}
        for _ in range(4000):
            if len(found) == len(wanted):
                break
            pick = rng.sample(legal, min(len(legal), rng.choice([1, 2, 3])))
            total = sum(p for p, _ in pick)
            if total in wanted and total not in found:
                found[total] = [cards for _, cards in pick]
        for total, melds in sorted(found.items()):
            self.offer(name, {"method": "POST", "path": "/v1/melds/opening",
                              "body": {"ruleset": name, "melds": melds}},
                       tags=["threshold", wanted[total]], cap=9, shrink=False)

    def release_cases(self, name: str, meld: JSON, rng: random.Random) -> None:
        r = "/v1/jokers/release"
        stands = [j["as"] for j in meld["jokers"]]
        if meld["kind"] == "set":
            rank = meld["rank"]
            present = {c[1] for c in meld["cards"] if not c.startswith("JK")}
            missing = [rank + s for s in SUITS if s not in present]
            choices = [missing[:1], missing, missing[:2]]
        else:
            choices = [[stands[0]], [rng.choice(NATURALS)]]
        for laid in choices:
            if laid:
                self.offer(name, {"method": "POST", "path": r,
                                  "body": {"ruleset": name, "meld": meld["cards"], "cards": laid,
                                           "opened": rng.random() < 0.8}}, tags=["random"],
                           base=True)

    def overrides(self) -> None:
        """Some rule sets with overrides: each parameter changed once on a few requests."""
        rng = random.Random(f"{self.seed}/overrides")
        for p in PARAMS:
            for ep in ("/v1/melds/validate", "/v1/hands/analyze", "/v1/hands/score",
                       "/v1/jokers/release", "/v1/melds/opening", "/v1/hands/adjudicate"):
                bases = self.bases.get(ep)
                if not bases or rng.random() < 0.6:
                    continue
                label, body = rng.choice(bases)
                value = param_value(p, rng)
                body = {**body, "ruleset": {"base": body["ruleset"] if isinstance(
                    body["ruleset"], str) else body["ruleset"]["base"],
                    "overrides": {p.name: value}}}
                self.offer(label, {"method": "POST", "path": ep, "body": body},
                           tags=["overrides"], cap=1)
        # a search that would exceed the solver's budget
        for name in self.t["rulesets"]:
            wide = {"base": name, "overrides": {"hand_size": 20, "jokers": 8, "decks": 4,
                                                 "run_min": 2, "set_min": 2, "ace": "around"}}
            cards = ["JK"] * 8 + [r + "h" for r in RANKS]
            self.offer(name, {"method": "POST", "path": "/v1/hands/analyze",
                              "body": {"ruleset": wide, "cards": cards}}, tags=["overrides"],
                       shrink=False)

    def fuzz(self) -> None:
        """Mutations of kept requests until every code has a case (or the budget is spent)."""
        rng = random.Random(f"{self.seed}/fuzz")
        budget = 1500 if self.quick else 6000
        eps = [e for e in self.t["endpoints"] if self.bases.get(e)]
        for i in range(budget):
            missing_p, missing_v = self.missing()
            if not missing_p and not missing_v and i > budget // 4:
                break
            ep = rng.choice(eps)
            label, body = rng.choice(self.bases[ep])
            req = mutate_request(ep, body, rng, self)
            if req is not None:
                self.offer(label, req, tags=["mutated"], cap=1)
        # the transport-level problems, once per endpoint
        for ep in self.t["endpoints"]:
            label = "any"
            self.offer(label, {"method": "POST", "path": ep,
                               "headers": {"Content-Type": "application/json"}, "raw": "{\"ruleset\": "},
                       shrink=False)
            self.offer(label, {"method": "POST", "path": ep,
                               "headers": {"Content-Type": "text/plain"}, "raw": "hello"},
                       shrink=False)
        adj = "/v1/hands/adjudicate"
        self.offer("any", {"method": "POST", "path": adj, "headers": {"Content-Type": NOTATION},
                           "text": "ruleset kaluki-51\nplayers ann bob\nfrobnicate 3\n"},
                   shrink=False)
        self.offer("any", {"method": "POST", "path": adj, "headers": {"Content-Type": NOTATION},
                           "raw_base64": "cnVsZXNldCBrYWx1a2ktNTEK/w=="}, shrink=False)


# -- helpers for records ---------------------------------------------------------------------

def _get(body: Any, ptr: Sequence[Any]) -> Any:
    for k in ptr:
        body = body[k]
    return body


def _set(body: Any, ptr: Sequence[Any], value: Any) -> Any:
    if not ptr:
        return value
    out = copy.copy(body)
    out[ptr[0]] = _set(body[ptr[0]], ptr[1:], value)
    return out


def _hand_of(state: JSON, player: str) -> list[str]:
    for h in state["hands"]:
        if h["id"] == player:
            return list(h["cards"])
    return []


def _check_turn(turn: JSON, rec: JSON) -> JSON:
    """A recorded turn as /turns/check takes it (a stock draw names its card)."""
    t = {k: v for k, v in turn.items() if k in ("draw", "plays", "discard")}
    return t


def corrupt(rec: JSON, kind: str, rng: random.Random) -> JSON | None:
    """A copy of a record with one card, one play or one draw changed."""
    bad = copy.deepcopy(rec)
    turns = bad["turns"]
    if not turns:
        return None
    i = min(int(rng.expovariate(1 / 3)), len(turns) - 1)  # early turns: short cases
    t = turns[i]
    if kind == "card":
        slots: list[tuple[list[Any], int]] = []
        for p in t.get("plays", []):
            (verb, body), = p.items()
            cards = body if isinstance(body, list) else body.get("cards", [])
            slots.extend((cards, j) for j in range(len(cards)) if isinstance(cards[j], str))
        if "discard" in t:
            t["discard"] = rng.choice(NATURALS) if rng.random() < 0.5 else t["discard"]
        if not slots:
            return bad if "discard" in t else None
        cards, j = rng.choice(slots)
        cards[j] = rng.choice([*NATURALS, "JK"])
        return bad
    if kind == "play":
        plays = t.setdefault("plays", [])
        op = rng.choice(["drop", "dup", "index", "swap", "move", "shift", "lay"])
        if not plays:
            return None
        j = rng.randrange(len(plays))
        if op == "drop":
            plays.pop(j)
        elif op == "dup":
            plays.insert(j, copy.deepcopy(plays[j]))
        elif op == "index":
            (verb, body), = plays[j].items()
            if isinstance(body, dict) and "meld" in body:
                body["meld"] = body["meld"] + rng.choice([1, 2, 7])
            else:
                plays.pop(j)
        elif op == "swap" and len(plays) > 1:
            plays[0], plays[-1] = plays[-1], plays[0]
        elif op == "move" and i + 1 < len(turns):
            turns[i + 1].setdefault("plays", []).insert(0, plays.pop(j))
        elif op == "shift":  # docs/api.md#contract-rule-sets: a joker shifted to a run's end
            cards = [c for p in plays for v in p.values() if isinstance(v, list) for c in v]
            plays.insert(j, {"shift": {"meld": rng.randrange(3), "card": rng.choice(
                cards or NATURALS), "end": rng.choice(["high", "low"])}})
        elif op == "lay":  # docs/api.md#contract-rule-sets: the turn's melds laid as one contract
            melds = [p["meld"] for p in plays if "meld" in p]
            if melds:
                rest = [p for p in plays if "meld" not in p]
                plays[:] = [{"lay": melds}, *rest]
        return bad
    # draw
    op = rng.choice(["source", "card", "none", "player", "discard", "restock", "after",
                     "call", "joker"])
    d = t.get("draw", {})
    if op == "source":
        t["draw"] = {"from": "discard" if d.get("from") == "stock" else "stock",
                     **({"card": d["card"]} if "card" in d else {})}
    elif op == "card":
        t["draw"] = {**d, "card": rng.choice(NATURALS)}
    elif op == "none":
        t.pop("draw", None)
    elif op == "player":
        t["player"] = rng.choice(bad["players"])
    elif op == "discard":
        if "discard" in t:
            t.pop("discard")
        else:
            t["discard"] = rng.choice(NATURALS)
    elif op == "restock":
        restocked = [k for k, x in enumerate(turns) if "restock" in x]
        if restocked:
            x = turns[rng.choice(restocked)]
            x["restock"] = x["restock"][1:] + [rng.choice(NATURALS)]
        else:
            t["restock"] = [rng.choice(NATURALS)]
    elif op == "after":
        turns.append(copy.deepcopy(turns[-1]))
    # docs/api.md#contract-rule-sets: a turn may begin with a call (call-not-allowed elsewhere)
    elif op == "call":
        t["call"] = {"player": rng.choice(bad["players"]), "granted": rng.random() < 0.6}
    elif op == "joker":
        t["discard"] = "JK"
    return bad


def corrupt_turn(turn: JSON, rng: random.Random, hand: list[str]) -> JSON | None:
    bad = copy.deepcopy(turn)
    op = rng.choice(["card", "discard", "nodiscard", "draw", "play"])
    if op == "card" and bad.get("plays"):
        p = rng.choice(bad["plays"])
        (verb, body), = p.items()
        cards = body if isinstance(body, list) else body.get("cards", [])
        if cards and isinstance(cards[0], str):
            cards[rng.randrange(len(cards))] = rng.choice(NATURALS)
            return bad
    if op == "discard" and "discard" in bad:
        bad["discard"] = rng.choice(NATURALS)
        return bad
    if op == "nodiscard" and "discard" in bad:
        bad.pop("discard")
        return bad
    if op == "draw":
        bad.pop("draw", None)
        return bad
    if op == "play" and hand:
        bad.setdefault("plays", []).insert(0, {"meld": rng.sample(hand, min(3, len(hand)))})
        return bad
    return None


def random_meld(rules: Any, rng: random.Random) -> list[str]:
    """Cards that are often a meld, often nearly one: sets, runs (aces at the ends, jokers)."""
    n = rng.choice([2, 3, 3, 4, 4, 5])
    if rng.random() < 0.45:  # a set
        rank = rng.choice(RANKS)
        suits = rng.sample(SUITS, min(n, 4)) if rng.random() < 0.8 else [rng.choice(SUITS)
                                                                         for _ in range(n)]
        cards = [rank + s for s in suits]
    else:  # a run
        suit = rng.choice(SUITS)
        start = rng.choice([0, 0, 9, 10, 11, 11, 12, rng.randrange(13)])
        cards = [RANKS[(start + k) % 13] + suit for k in range(n)]
        if rng.random() < 0.15:
            cards.reverse()
        if rng.random() < 0.1:
            cards[rng.randrange(n)] = rng.choice(NATURALS)
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        j = rng.randrange(len(cards))
        if rng.random() < 0.3 and not cards[j].startswith("JK"):
            cards[j] = "JK=" + cards[j] if rng.random() < 0.7 else "JK=" + rng.choice(NATURALS)
        else:
            cards[j] = "JK"
    return cards


def special_hand(rules: Any, name: str, rng: random.Random) -> JSON | None:
    """A hand its first player wins in one turn, having laid nothing before: melds that
    reach the opening, dealt with the card drawn; the rest of the deck dealt at random."""
    if getattr(rules, "contracts", None):
        return contract_hand(rules, name, rng)
    deck = deck_strings(rules)
    rng.shuffle(deck)
    need = rules.hand_size + 1
    keep = 1 if str(rules.final_discard) == "required" else rng.choice([0, 1])
    melds: list[list[str]] = []
    pool = Counter(deck)
    total = 0
    for _ in range(200):
        if total >= need - keep:
            break
        room = need - keep - total
        if room < min(rules.set_min, rules.run_min):
            melds, pool, total = [], Counter(deck), 0
            continue
        cards = random_meld(rules, rng)
        cards = [c.split("=")[0] for c in cards]
        if len(cards) > room or any(pool[c] < cards.count(c) for c in set(cards)):
            continue
        if not m.validate(cards, rules).valid:
            continue
        melds.append(cards)
        pool.subtract(cards)
        total += len(cards)
    if total != need - keep:
        return None
    hand = [c for meld in melds for c in meld]
    rest = list(pool.elements())
    rng.shuffle(rest)
    extra = rest[:keep]
    rest = rest[keep:]
    hand += extra
    drawn = hand.pop(rng.randrange(len(hand)))
    if drawn in extra:
        return None
    players = ["ann", "bob"] if rules.players_min <= 2 else ["ann", "bob", "cy"]
    deal = {"ann": hand}
    n = rules.hand_size
    for k, p in enumerate(players[1:]):
        deal[p] = rest[k * n:(k + 1) * n]
    rest = rest[n * (len(players) - 1):]
    turn: JSON = {"player": "ann", "draw": {"from": "stock", "card": drawn},
                  "plays": [{"meld": meld} for meld in melds]}
    if extra:
        turn["discard"] = extra[0]
    return {"ruleset": name, "players": players, "deal": deal,
            "discard": rest[:1], "turns": [turn]}


def deal_size(rules: Any, rnd: int) -> int:
    """Cards dealt in round ``rnd`` of a contract rule set (docs/api.md#contract-rule-sets
    ``deal_sizes``)."""
    sizes = getattr(rules, "deal_sizes", "contract")
    if isinstance(sizes, (list, tuple)):
        return int(sizes[rnd - 1])
    return sum(3 if d == "3" else 4 for d in rules.contracts[rnd - 1])


def contract_hand(rules: Any, name: str, rng: random.Random) -> JSON | None:
    """A contract rule set's down-and-out (docs/api.md#contract-rule-sets): the first player draws,
    lays the round's contract (threes of different ranks, fours of different suits) and discards."""
    rnd = rng.randint(1, len(rules.contracts))
    contract = rules.contracts[rnd - 1]
    n = deal_size(rules, rnd)
    pool = Counter(deck_strings(rules))
    ranks = rng.sample(RANKS[1:], contract.count("3"))
    suits = rng.sample(SUITS, min(4, contract.count("4")))
    melds: list[list[str]] = []
    for digit in contract:
        if digit == "3":
            rank = ranks.pop()
            melds.append([rank + rng.choice(SUITS) for _ in range(3)])
        else:
            suit = suits.pop() if suits else rng.choice(SUITS)
            start = rng.randrange(1, 9)
            melds.append([RANKS[start + k] + suit for k in range(4)])
    laid = [c for meld in melds for c in meld]
    if any(pool[c] < laid.count(c) for c in set(laid)):
        return None
    pool.subtract(laid)
    rest = [c for c in pool.elements() if c != "JK"] + ["JK"] * pool["JK"]
    rng.shuffle(rest)
    extra = next(c for c in rest if c != "JK")
    rest.remove(extra)
    hand = [*laid, extra]
    drawn = hand.pop(rng.randrange(len(laid)))
    if len(hand) != n:
        return None  # a deal size other than the contract's: no such hand
    players = ["ann", "bob", "cy"][: max(rules.players_min, 2)]
    deal = {"ann": hand}
    for k, p in enumerate(players[1:]):
        deal[p] = rest[k * n:(k + 1) * n]
    rest = rest[n * (len(players) - 1):]
    return {"ruleset": name, "round": rnd, "players": players, "deal": deal,
            "discard": rest[:1],
            "turns": [{"player": "ann", "draw": {"from": "stock", "card": drawn},
                       "plays": [{"lay": melds}], "discard": extra}]}


# values a fuzzer tries for each kind of parameter: the bounds, one inside, ones just outside
_TRIALS: dict[type[Kind], Callable[[Any, random.Random], Any]] = {
    Integer: lambda k, rng: rng.choice([k.minimum, k.maximum,
                                        rng.randint(k.minimum, min(k.maximum, 60)),
                                        k.maximum + 1, k.minimum - 1]),
    Boolean: lambda k, rng: rng.choice([True, False, "yes"]),
    Choice: lambda k, rng: rng.choice([*k.choices, "sometimes"]),
    JokerOpening: lambda k, rng: rng.choice(["represented", 0, 50, 101]),
    CardValueTable: lambda k, rng: rng.choice([{"ace": 1}, {"joker": 50}, {"face": 101},
                                               {"queen": 3}]),
}


def param_value(p: Param, rng: random.Random) -> Any:
    """A value to try for parameter ``p`` (None: the list kinds, not fuzzed this way)."""
    trial = _TRIALS.get(type(p.kind))
    return trial(p.kind, rng) if trial is not None else None


def mutate_request(ep: str, body: JSON, rng: random.Random, gen: Generator) -> JSON | None:
    """One or two random changes to a request that the service answered (a card, a number,
    a field, the rule set...), aimed at the codes not yet covered now and then."""
    b = copy.deepcopy(body)
    for _ in range(rng.choice([1, 1, 2])):
        b = _mutate(b, rng, gen)
    if b == body:
        return None
    return {"method": "POST", "path": ep, "body": b}


_STRINGS = ["Qz", "1h", "JK", "JK=7", "JK=Zz", "As", "Ah", "zed", "ann", "", "set", "run",
            "out", "special", "stock", "discard", "low", "high"]


def _leaves(x: Any, ptr: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield ptr, x
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, (*ptr, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, (*ptr, i))


def _mutate(b: JSON, rng: random.Random, gen: Generator) -> JSON:
    nodes = list(_leaves(b))
    op = rng.random()
    if op < 0.12:  # the rule set
        choice = rng.random()
        base = b.get("ruleset")
        base = base["base"] if isinstance(base, dict) else base
        if choice < 0.25:
            b["ruleset"] = "no-such-rules"
        elif choice < 0.5:
            b["ruleset"] = {"base": base, "overrides": {"no_such_parameter": 1}}
        elif choice < 0.65:
            b["ruleset"] = {"base": base, "overrides": {"hand_size": 20, "players_max": 8,
                                                         "decks": 1}}
        elif choice < 0.75:
            b["ruleset"] = {"base": base, "extra": 1}
        else:
            p = rng.choice(PARAMS)
            b["ruleset"] = {"base": base, "overrides": {p.name: param_value(p, rng)}}
        return b
    ptr, node = rng.choice(nodes)
    if not ptr:
        keys = list(b)
        if keys and rng.random() < 0.5:
            b.pop(rng.choice(keys))
        else:
            b[rng.choice(["extra", "round", "kind", "opened"])] = rng.choice([1, "x", True, 99])
        return b
    if isinstance(node, str):
        new: Any = rng.choice(_STRINGS + NATURALS[:: 7])
    elif isinstance(node, bool):
        new = rng.choice([not node, "true", 1])
    elif isinstance(node, int):
        new = rng.choice([node + 1, node - 1, -1, 0, 99, str(node)])
    elif isinstance(node, list):
        r = rng.random()
        if node and r < 0.3:
            new = [*node, *([node[-1]] * rng.randint(1, 12))]  # many copies of one card
        elif node and r < 0.55:
            new = node[:-1]
        elif r < 0.7:
            new = [*node, *rng.sample(NATURALS, rng.randint(5, 20))]
        elif r < 0.8:
            new = {}
        else:
            new = []
    elif isinstance(node, dict):
        keys = list(node)
        new = dict(node)
        if keys and rng.random() < 0.6:
            new.pop(rng.choice(keys))
        else:
            new[rng.choice(["extra", "card", "player", "from", "meld"])] = rng.choice(
                ["x", 3, "JK", "zed"])
    else:
        new = rng.choice(["x", 0, None])
    out: JSON = _set(b, ptr, new)
    return out


# -- writing -----------------------------------------------------------------------------------

def dump(doc: JSON) -> str:
    """A case file: plain JSON, one case per line (``jq`` pretty-prints one)."""
    head = {k: v for k, v in doc.items() if k != "cases"}
    lines = [json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in doc["cases"]]
    return (json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [\n'
            + ",\n".join(lines) + "\n]}\n")


def write(cases: Mapping[str, list[JSON]], out: Path, version: str) -> list[Path]:
    d = out / cp.CASES_DIR
    d.mkdir(parents=True, exist_ok=True)
    blobs = {}
    for s, lst in sorted(cases.items()):
        lst = sorted(lst, key=lambda c: c["id"])
        doc = {"format": cp.FORMAT, "corpus_version": version, "cases": lst}
        blobs[s] = dump(doc).encode()
    size = sum(len(b) for b in blobs.values())
    gz = size > MAX_BYTES
    for old in [*d.glob("*.json"), *d.glob("*.json.gz")]:
        old.unlink()
    written = []
    for s, blob in blobs.items():
        path = d / (f"{s}.json.gz" if gz else f"{s}.json")
        path.write_bytes(gzip.compress(blob, mtime=0) if gz else blob)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m service.conformance.generate",
                                 description="Write corpus/cases from the service's rulings.")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=cp.CORPUS_DIR)
    ap.add_argument("--quick", action="store_true", help="fewer hands (a smoke run)")
    args = ap.parse_args(argv)
    app = create_app({"TESTING": True, "TESTING_NO_METRICS": True, "RATELIMIT_ENABLED": False})
    gen = Generator(app, args.seed, quick=args.quick,
                    log=lambda s: print(s, file=sys.stderr, flush=True))
    cases = gen.run()
    version = cp.version(args.out) if (args.out / "VERSION").exists() else "0.0.0"
    write(cases, args.out, version)
    missing_p, missing_v = gen.missing()
    s = cp.summary(c for lst in cases.values() for c in lst)
    print(json.dumps({"cases": s["cases"], "endpoints": s["endpoints"], "rulesets": s["rulesets"]},
                     indent=1))
    for code, why in UNREACHABLE.items():
        print(f"not required: {code} ({why})", file=sys.stderr)
    if missing_p or missing_v:
        print(f"NOT COVERED: problems {sorted(missing_p)}, violations {sorted(missing_v)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
