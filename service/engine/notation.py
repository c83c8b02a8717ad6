"""A readable text notation for hand records (like PGN for chess), media type
``text/vnd.kaluki.hand``. See ``docs/notation.md``.

A header names the rule set, the players, each player's deal and, optionally,
the stock (top first) and the starting discard pile (``pile``, top last). Then
each turn opens with ``turn N PLAYER`` and has one line per action. ``#``
starts a comment; blank lines and indentation are ignored.

>>> text = '''
... ruleset kaluki-hunt
... players ann bob          # in turn order
... deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
... deal bob 2c 3c 4c 5c 6c 7c 8c 9d Td Jd Qd Ad Ac
... turn 0 ann
...   draw stock Qc
...   meld Kh Ks Kd
...   meld run 9c Tc Jc Qc
...   discard 8h
... '''
>>> data = text_to_data(text)
>>> data["turns"][0]["plays"][1]
{'meld': {'cards': ['9c', 'Tc', 'Jc', 'Qc'], 'kind': 'run'}}
>>> record_to_text(parse_text(text)).splitlines()[0]
'ruleset kaluki-hunt'
"""

from __future__ import annotations

import json
import re
from typing import Any

from .melds import RUN_ENDS
from .record import DrawSource, HandRecord, RecordError, parse_record, record_to_data

DRAW_SOURCES = tuple(DrawSource)

MEDIA_TYPE = "text/vnd.kaluki.hand"
MAX_RULESET_CHARS = 4096
"""A rule set with every parameter overridden fits in a tenth of this."""
_NUMBER = re.compile(r"[0-9]{1,6}")
_PLAYS = ("meld", "build", "release", "lay", "shift")


def _err(line_no: int, message: str) -> RecordError:
    return RecordError("invalid-notation", f"line {line_no}: {message}", f"line {line_no}")


def text_to_data(text: str, lines: dict[str, int] | None = None) -> dict[str, Any]:
    """Read the notation into the JSON form of a hand record (not yet validated).

    ``lines``, when given, receives the line number of each part of the record, by
    field path (``ruleset``, ``deal.ann``, ``turns.0``, ``turns.0.plays.2`` ...):
    see :func:`line_of`.
    """
    at: dict[str, int] = {} if lines is None else lines
    data: dict[str, Any] = {}
    deal: dict[str, list[str]] = {}
    turns: list[dict[str, Any]] = []
    turn: dict[str, Any] | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        args = rest.split()
        word = word.lower()
        if turn is None and word != "turn":
            _header(n, word, rest, args, data, deal)
            key = {"deal": f"deal.{args[0]}" if args else "deal", "pile": "discard"}.get(word, word)
            at[key] = n
            continue
        where = f"turns.{len(turns) - (word != 'turn')}"
        if word in _PLAYS:
            at[f"{where}.plays.{len(turn['plays'])}"] = n  # type: ignore[index]
        else:
            at[where if word == "turn" else f"{where}.{word}"] = n
        if word == "turn":
            if len(args) == 2:
                number, player = args
                if not _NUMBER.fullmatch(number) or int(number) != len(turns):
                    raise _err(n, f"turn number {number!r} should be {len(turns)}")
            elif len(args) == 1:
                player = args[0]
            else:
                raise _err(n, "write 'turn N PLAYER'")
            turn = {"player": player, "plays": []}
            turns.append(turn)
            continue
        assert turn is not None  # lines before the first turn are headers (above)
        if word == "draw":
            if not args or args[0] not in DRAW_SOURCES or len(args) > 2:
                raise _err(n, "write 'draw stock [CARD]' or 'draw discard [CARD]'")
            if "draw" in turn:
                raise _err(n, "a turn has one draw")
            turn["draw"] = {"from": args[0]} | ({"card": args[1]} if len(args) == 2 else {})
        elif word == "meld":
            turn["plays"].append({"meld": _meld(n, args)})
        elif word == "lay":
            parts = " ".join(args).split("|")
            turn["plays"].append({"lay": [_meld(n, part.split()) for part in parts]})
        elif word == "shift":
            if not 2 <= len(args) <= 3 or not _NUMBER.fullmatch(args[0]) or (
                    len(args) == 3 and args[2] not in RUN_ENDS):
                raise _err(n, "write 'shift MELD-NUMBER CARD [low|high]'")
            shift: dict[str, Any] = {"meld": int(args[0]), "card": args[1]}
            if len(args) == 3:
                shift["end"] = args[2]
            turn["plays"].append({"shift": shift})
        elif word == "call":
            if len(args) < 2 or args[1] not in ("granted", "refused") or (
                    args[1] == "refused" and len(args) > 2):
                raise _err(n, "write 'call PLAYER granted [PENALTY-CARD...]' or "
                              "'call PLAYER refused'")
            if "call" in turn:
                raise _err(n, "a turn has one call")
            call: dict[str, Any] = {"player": args[0], "granted": args[1] == "granted"}
            if len(args) > 2:
                call["penalty"] = args[2:]
            turn["call"] = call
        elif word in ("build", "release"):
            if len(args) < 2 or not _NUMBER.fullmatch(args[0]):
                raise _err(n, f"write '{word} MELD-NUMBER CARD...'")
            cards: list[Any] = []
            for a in args[1:]:
                end, sep, card = a.partition(":")
                if sep and word == "build" and end in RUN_ENDS:
                    cards.append({"card": card, "end": end})
                else:
                    cards.append(a)
            turn["plays"].append({word: {"meld": int(args[0]), "cards": cards}})
        elif word == "discard":
            if len(args) != 1 or "discard" in turn:
                raise _err(n, "write 'discard CARD', once per turn")
            turn["discard"] = args[0]
        elif word == "restock":
            if "restock" in turn:
                raise _err(n, "a turn has one restock")
            turn["restock"] = args
        else:
            raise _err(n, f"unknown action {word!r} (call, draw, meld, lay, build, release, shift, "
                          "discard, restock)")
    if deal:
        data["deal"] = deal
    data["turns"] = turns
    return data


def _meld(n: int, args: list[str]) -> Any:
    """``[set|run] CARD ...``: a meld's JSON form (a card list, or ``{cards, kind}``)."""
    if args and args[0] in ("set", "run"):
        if len(args) < 2:
            raise _err(n, "a meld needs cards")
        return {"cards": args[1:], "kind": args[0]}
    if not args:
        raise _err(n, "a meld needs cards")
    return args


def _header(n: int, word: str, rest: str, args: list[str], data: dict[str, Any],
            deal: dict[str, list[str]]) -> None:
    if word in data or (word == "pile" and "discard" in data):
        raise _err(n, f"{word!r} given twice")
    if word == "ruleset":
        if rest.startswith("{"):
            if len(rest) > MAX_RULESET_CHARS:
                raise _err(n, f"the rule set is at most {MAX_RULESET_CHARS:,} characters")
            try:
                data["ruleset"] = json.loads(rest)
            except (ValueError, RecursionError):  # RecursionError: nested too deep
                raise _err(n, "the rule set is a name or a JSON object") from None
        elif len(args) == 1:
            data["ruleset"] = args[0]
        else:
            raise _err(n, "write 'ruleset NAME' or 'ruleset {\"base\": ..., \"overrides\": ...}'")
    elif word == "players":
        data["players"] = args
    elif word == "deal":
        if not args:
            raise _err(n, "write 'deal PLAYER CARD...'")
        if args[0] in deal:
            raise _err(n, f"{args[0]!r} is dealt twice")
        deal[args[0]] = args[1:]
    elif word == "stock":
        data["stock"] = args
    elif word == "pile":
        data["discard"] = args
    elif word == "round":
        if len(args) != 1 or not _NUMBER.fullmatch(args[0]):
            raise _err(n, "write 'round N' (the deal, from 1)")
        data["round"] = int(args[0])
    else:
        raise _err(n, f"unknown header {word!r} (ruleset, round, players, deal, stock, pile, "
                      "turn)")


def line_of(lines: dict[str, int], field: str) -> int | None:
    """The line that wrote ``field`` (or the part of the record holding it).

    >>> line_of({"deal.ann": 3, "turns.0": 5, "turns.0.plays.1": 8}, "turns.0.plays.1.meld.2")
    8
    >>> line_of({"deal.ann": 3}, "deal.ann.10"), line_of({"deal.ann": 3}, "stock")
    (3, None)
    """
    parts = field.split(".")
    for k in range(len(parts), 0, -1):
        line = lines.get(".".join(parts[:k]))
        if line is not None:
            return line
    return None


def parse_text(text: str) -> HandRecord:
    """Read the notation into a validated :class:`HandRecord`."""
    return parse_record(text_to_data(text))


def data_to_text(data: dict[str, Any]) -> str:
    """Write the canonical JSON form of a record (:func:`record_to_data`) as notation."""
    rs = data["ruleset"]
    lines = ["ruleset " + (rs if isinstance(rs, str) else json.dumps(rs, sort_keys=True,
                                                                      separators=(",", ":")))]
    if "round" in data:
        lines.append(f"round {data['round']}")
    lines.append("players " + " ".join(data["players"]))
    for p, cards in data["deal"].items():
        lines.append(f"deal {p} " + " ".join(cards))
    if "stock" in data:
        lines.append(("stock " + " ".join(data["stock"])).rstrip())
    if data.get("discard"):
        lines.append("pile " + " ".join(data["discard"]))
    for i, t in enumerate(data["turns"]):
        lines.append(f"turn {i} {t['player']}")
        if "call" in t:
            c = t["call"]
            lines.append(f"  call {c['player']} " + ("granted" if c["granted"] else "refused")
                         + "".join(f" {x}" for x in c.get("penalty", ())))
        if "restock" in t:
            lines.append(("  restock " + " ".join(t["restock"])).rstrip())
        if "draw" in t:
            d = t["draw"]
            lines.append(f"  draw {d['from']}" + (f" {d['card']}" if "card" in d else ""))
        for p in t.get("plays", []):
            (verb, body), = p.items()
            if verb == "meld":
                lines.append("  meld " + _meld_text(body))
            elif verb == "lay":
                lines.append("  lay " + " | ".join(_meld_text(x) for x in body))
            elif verb == "shift":
                lines.append(f"  shift {body['meld']} {body['card']}"
                             + (f" {body['end']}" if "end" in body else ""))
            else:
                cards = [f"{c['end']}:{c['card']}" if isinstance(c, dict) else c
                         for c in body["cards"]]
                lines.append(f"  {verb} {body['meld']} " + " ".join(cards))
        if "discard" in t:
            lines.append(f"  discard {t['discard']}")
    return "\n".join(lines) + "\n"


def _meld_text(body: Any) -> str:
    if isinstance(body, dict):
        return f"{body['kind']} " + " ".join(body["cards"])
    return " ".join(body)


def record_to_text(record: HandRecord) -> str:
    """A record in notation; :func:`parse_text` reads it back unchanged."""
    return data_to_text(record_to_data(record))
