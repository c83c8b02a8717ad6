"""Writes the recorded-hand corpus (``python -m tests.records.build_corpus``).

Every case is written by hand, in the text notation, with its expected ruling
worked out by hand (never taken from the referee). Half the cases are stored
as JSON records, half as notation. Each cites its rule source.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

L = "2c 3c 4c 5c 6c 7c 8c 9d Td Jd Qd Ad Ac"  # bob's idle hand: value 96

HUNT_OUT = f"""ruleset kaluki-hunt
players ann bob
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
turn 0 ann
  draw stock Qc
  meld Kh Ks Kd
  meld 9c Tc Jc Qc
  discard 8h
turn 1 bob
  draw stock 9h
  discard 9h
turn 2 ann
  draw stock 5h
  meld 2d 3d 4d
  meld 5s 6s 7s
  discard 5h
"""

SPECIAL = f"""ruleset {{rs}}
players ann bob
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
turn 0 ann        # everything in the turn of the first meld
  draw stock Qc
  meld Kh Ks Kd
  meld 9c Tc Jc Qc
  meld 2d 3d 4d
  meld 5s 6s 7s
  discard 8h
"""

STOCK_RUN_OUT = f"""ruleset kaluki-hunt
players ann bob
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
stock Qc 9h       # a short known stock: it runs out on turn 2
turn 0 ann
  draw stock
  meld Kh Ks Kd
  meld 9c Tc Jc Qc
  discard 8h
turn 1 bob
  draw stock
  discard 9h
turn 2 ann
  restock 8h      # the pile under its top card (9h) becomes the stock
  draw stock
  meld 2d 3d 4d
  meld 5s 6s 7s
  discard 8h
"""

K51_SPECIAL = f"""ruleset kaluki-51
players ann bob
deal ann Jh Qh Kh Ah 9s 9d 9c 5c 6c 7c 8c 2d 2h
deal bob {L}
turn 0 ann        # 41 + 27 + 26 + 6 = 100 points, every card laid, no discard (optional)
  draw stock 2s
  meld Jh Qh Kh Ah
  meld 9s 9d 9c
  meld 5c 6c 7c 8c
  meld 2d 2h 2s
"""

K51_SPECIAL_DISCARD = f"""ruleset kaluki-51
players ann bob
deal ann Jh Qh Kh Ah 9s 9d 9c 4c 5c 6c 7c 8c 2d
deal bob {L}
turn 0 ann        # 41 + 36 + 30 = 107 points, the last card discarded
  draw stock 9h
  meld Jh Qh Kh Ah
  meld 9s 9d 9c 9h
  meld 4c 5c 6c 7c 8c
  discard 2d
"""

K51_OUT = f"""ruleset kaluki-51
players ann bob
deal ann Jh Qh Kh Ah 9s 9d 9c 5c 6c 7c 8c 3d 4c
deal bob {L}
turn 0 ann        # opens with 41 + 27 = 68
  draw stock Td
  meld Jh Qh Kh Ah
  meld 9s 9d 9c
  discard Td
turn 1 bob
  draw stock 9h
  discard 9h
turn 2 ann
  draw discard 9h # free pickup
  build 1 9h
  meld 5c 6c 7c 8c
  discard 3d
turn 3 bob
  draw stock Ts
  discard Ts
turn 4 ann
  draw stock 2s
  build 2 4c
  discard 2s
"""

K51_RELEASE = """ruleset kaluki-51
players ann bob
deal ann Jh Qh Kh Ah 5c 6c JK 8c 9s 9d 9c Th 8s
deal bob 7c Ks Kd Kc Qs Js Ts 9s 4d 5d 2c 3c 8h
turn 0 ann
  draw stock Td
  meld Jh Qh Kh Ah
  meld 5c 6c JK 8c
  discard Td
turn 1 bob        # opens with 30 + 39, then frees the joker and builds it at once
  draw stock 9h
  meld Ks Kd Kc
  meld 9s Ts Js Qs
  release 1 7c
  build 3 JK
  discard 8h
turn 2 ann
  draw stock 4s
  meld 9s 9d 9c
  build 0 Th
  build 3 8s
  discard 4s
"""

PICKUP = f"""ruleset {{rs}}
players ann bob
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
turn 0 ann        # 30 + 39 = 69 opens
  draw stock Qc
  meld Kh Ks Kd
  meld 9c Tc Jc Qc
  discard 8h
turn 1 bob
  draw stock 8s
  discard 8s
turn 2 ann
  draw discard 8s # the card taken goes into a new meld this turn
  meld 6s 7s 8s
  meld 2d 3d 4d
  discard 5s
"""

RELEASE_ONE = """ruleset {rs}
players ann bob
deal ann Kh Ks Kd 7c 7d JK 9c Tc Jc 2d 3d 4d 8h
deal bob {bob}
turn 0 ann        # 30 + 21 opens (the joker counts as a 7)
  draw stock Qc
  meld Kh Ks Kd
  meld 7c 7d JK
  discard 8h
turn 1 bob
  draw stock 4s
  meld Qh Qs Qd
  meld {bobrun}
  release 1 {laid}
  meld 9s Ts JK   # the freed joker goes straight into a new meld
  discard 8d
turn 2 ann
  draw stock 5h
  meld 9c Tc Jc Qc
  meld 2d 3d 4d
  discard 5h
"""
UK_RELEASE = RELEASE_ONE.format(rs="kaluki-uk", bob="Qh Qs Qd 5c 6c 7c 7h 9s Ts 2c 3c 8d 4h",
                                bobrun="5c 6c 7c", laid="7h")
K40_RELEASE = RELEASE_ONE.format(rs="kalooki-40", bob="Qh Qs Qd 4c 5c 6c 7h 7s 9s Ts 2c 3c 8d",
                                 bobrun="4c 5c 6c", laid="7h 7s")
HUNT_RELEASE = RELEASE_ONE.format(rs="kaluki-hunt", bob="Qh Qs Qd 4c 5c 6c 7h 7s 9s Ts 2c 3c 8d",
                                  bobrun="4c 5c 6c", laid="7h 7s")


def scores(*rows: tuple[str, int, int, int]) -> list[dict[str, Any]]:
    return [{"id": i, "hand_value": v, "points": p, "penalty": q} for i, v, p, q in rows]


def win(winner: str, finish: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"legal": True, "result": {"winner": winner, "finish": finish, "scores": rows}}


def bad(code: str, turn: int, play: int | None) -> dict[str, Any]:
    return {"legal": False, "violation": {"code": code, "turn": turn, "play": play}}


def sub(text: str, old: str, new: str, count: int = 1) -> str:
    assert text.count(old) >= count, (old, text)
    return text.replace(old, new, count)


CASES: list[tuple[str, str, str, str, dict[str, Any]]] = []  # name, source, rule, text, expect


def case(name: str, source: str, rule: str, text: str, expect: dict[str, Any]) -> None:
    CASES.append((name, source, rule, text, expect))


# -- legal, finished -------------------------------------------------------------------
case("hunt-out", "S1", "going out over two turns: 20 points, losers pay their hand value",
     HUNT_OUT, win("ann", "out", scores(("ann", 0, 20, 0), ("bob", 96, 0, 96))))
case("hunt-special", "S1", "Hunt: every card laid in the first meld turn, last card discarded: "
     "40 points, losers pay double", SPECIAL.format(rs="kaluki-hunt"),
     win("ann", "special", scores(("ann", 0, 40, 0), ("bob", 96, 0, 192))))
case("uk-special", "pagat", "Kalookie: all cards in the opening turn; penalty doubled",
     SPECIAL.format(rs="kaluki-uk"),
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 96, 0, 192))))
case("k40-special", "pagat", "Kalookie under Kalooki 40: penalty doubled",
     SPECIAL.format(rs="kalooki-40"),
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 96, 0, 192))))
case("k51-special-no-discard", "S0", "Going Kaluki with every card melded (final discard "
     "optional): winner collects, losers lose 25", K51_SPECIAL,
     win("ann", "special", scores(("ann", 0, 96, 0), ("bob", 96, -25, 0))))
case("k51-special-discard", "S0", "Going Kaluki ending on the discard pile",
     K51_SPECIAL_DISCARD, win("ann", "special", scores(("ann", 0, 96, 0), ("bob", 96, -25, 0))))
case("k51-out-builds", "S0", "opening 51, free discard pickup, builds after opening, going out "
     "on the discard pile", K51_OUT,
     win("ann", "out", scores(("ann", 0, 96, 0), ("bob", 96, 0, 0))))
case("k51-out-by-building", "S0", "going out by building the last card (final discard optional)",
     sub(K51_OUT, "  draw stock 2s\n  build 2 4c\n  discard 2s\n", "  draw stock 3c\n  build 2 4c 3c\n"),
     win("ann", "out", scores(("ann", 0, 96, 0), ("bob", 96, 0, 0))))
case("k51-joker-release", "S0", "a joker taken from a run by the exact card, built at once",
     K51_RELEASE, win("ann", "out", scores(("ann", 0, 23, 0), ("bob", 23, 0, 0))))
case("hunt-stock-exhausted", "S1", "the discard pile but its top card becomes the stock",
     STOCK_RUN_OUT, win("ann", "out", scores(("ann", 0, 20, 0), ("bob", 96, 0, 96))))
case("k40-pickup-meld", "pagat", "a discard pickup laid on the table the same turn",
     PICKUP.format(rs="kalooki-40"), win("ann", "out", scores(("ann", 0, 0, 0), ("bob", 96, 0, 96))))
case("uk-pickup-new-meld", "pagat", "a discard pickup in a new meld the same turn",
     PICKUP.format(rs="kaluki-uk"), win("ann", "out", scores(("ann", 0, 0, 0), ("bob", 96, 0, 96))))
case("uk-release-new-meld", "pagat", "one missing natural frees a set's joker; it goes into a "
     "new meld", UK_RELEASE, win("ann", "out", scores(("ann", 0, 0, 0), ("bob", 13, 0, 13))))
case("k40-release-all-missing", "S3", "both missing naturals laid together free the joker",
     K40_RELEASE, win("ann", "out", scores(("ann", 0, 0, 0), ("bob", 9, 0, 9))))
case("hunt-release-all-missing", "S1", "both missing naturals laid together free the joker",
     HUNT_RELEASE, win("ann", "out", scores(("ann", 0, 20, 0), ("bob", 9, 0, 9))))
case("hunt-unfinished", "S1", "a legal record of a hand still in play has no result",
     HUNT_OUT.split("turn 2 ann")[0], {"legal": True, "result": None})
case("hunt-turn-in-progress", "S1", "the last turn may stop before its discard",
     HUNT_OUT.replace("  discard 5h\n", "").replace("  meld 5s 6s 7s\n", ""),
     {"legal": True, "result": None})



def value(cards: str, joker: int) -> int:
    """Penalty value of cards, by the book: ace 11, T J Q K 10, pips face value."""
    v = {"A": 11, "T": 10, "J": 10, "Q": 10, "K": 10}
    return sum(joker if c == "JK" else v.get(c[0]) or int(c[0]) for c in cards.split())


CY = "Ah As 3h 3s 5d 6d Th Js Qs Kc 8d 9d 4h"
DEE = "2h 2s 4s 5h 7d 7h 9s 9h Tc Jd Qc Kd Ad"
EVE = "3d 4d 6h 6s 8s Ts Jc Qh Kh Ac 2d 5h 7h"
UK_FIVE = f"""ruleset kaluki-uk
players ann bob cy dee eve        # the UK rules seat five
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
deal cy {CY}
deal dee {DEE}
deal eve {EVE}
turn 0 ann
  draw stock Qc
  meld Kh Ks Kd
  meld 9c Tc Jc Qc
  meld 2d 3d 4d
  meld 5s 6s 7s
  discard 8h
"""
case("uk-five-players-special", "pagat", "five seats; a Kalookie doubles every loser's penalty",
     UK_FIVE, win("ann", "special", scores(
         ("ann", 0, 0, 0), ("bob", 96, 0, 192), ("cy", value(CY, 15), 0, 2 * value(CY, 15)),
         ("dee", value(DEE, 15), 0, 2 * value(DEE, 15)),
         ("eve", value(EVE, 15), 0, 2 * value(EVE, 15)))))
THREE = f"""ruleset kaluki-hunt
players ann bob cy
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
deal cy {CY}
turn 0 ann
  draw stock Qc
  meld Kh Ks Kd
  meld 9c Tc Jc Qc
  discard 8h
turn 1 bob
  draw discard 8h
  discard 2c
turn 2 cy
  draw stock 7c
  meld Ah As JK=Ac  # no joker in cy's hand
  discard 7c
"""
case("hunt-three-players-wrap", "S1", "three seats; turn order wraps to the first player",
     sub(THREE, "  meld Ah As JK=Ac  # no joker in cy's hand\n", "") +
     "turn 3 ann\n  draw stock 5h\n  meld 2d 3d 4d\n  meld 5s 6s 7s\n  discard 5h\n",
     win("ann", "out", scores(("ann", 0, 20, 0), ("bob", 96 - 2 + 8, 0, 102),
                             ("cy", value(CY, 25), 0, value(CY, 25)))))
case("joker-not-in-hand", "S1", "a joker played must be in hand", THREE,
     bad("card-not-in-hand", 2, 0))

# -- illegal: turn structure -------------------------------------------------------------
case("out-of-turn", "S1", "players act in the order listed",
     sub(HUNT_OUT, "turn 1 bob", "turn 1 ann"), bad("out-of-turn", 1, None))
case("hand-already-over", "S1", "the hand ends the moment a player has no cards",
     HUNT_OUT + "turn 3 bob\n  draw stock 4h\n  discard 4h\n", bad("hand-already-over", 3, None))
case("play-after-going-out", "S0", "nothing more after the last card",
     sub(K51_SPECIAL, "  meld 2d 2h 2s\n", "  meld 2d 2h 2s\n  discard 2s\n"),
     bad("hand-already-over", 0, None))
case("draw-missing", "S1", "a turn starts with a draw", sub(HUNT_OUT, "  draw stock 9h\n", ""),
     bad("draw-missing", 1, None))
case("card-not-in-stock", "S0", "no card more often than the deck holds it",
     sub(sub(sub(HUNT_OUT, "draw stock 9h", "draw stock Qc"), "discard 9h", "discard Qc"),
         "draw stock 5h", "draw stock Qc"), bad("card-not-in-stock", 2, None))
case("card-not-in-hand", "S1", "a player plays only cards in hand",
     sub(HUNT_OUT, "meld Kh Ks Kd", "meld Kh Ks Kc"), bad("card-not-in-hand", 0, 0))
case("discard-not-in-hand", "S1", "a player discards only a card in hand",
     sub(HUNT_OUT, "discard 9h", "discard 9s"), bad("card-not-in-hand", 1, None))
case("discard-missing", "S1", "a turn ends with a discard", sub(HUNT_OUT, "  discard 9h\n", ""),
     bad("discard-missing", 1, None))
case("final-discard-required", "S1", "the last card goes onto the discard pile",
     sub(sub(sub(HUNT_OUT, "draw stock 5h", "draw stock 8s"), "meld 5s 6s 7s", "meld 5s 6s 7s 8s"),
         "  discard 5h\n", ""), bad("final-discard-required", 2, 1))
case("discard-just-taken", "S1", "the card taken from the discard pile is not thrown back",
     sub(sub(HUNT_OUT, "draw stock 5h", "draw discard 9h"), "discard 5h", "discard 9h"),
     bad("discard-just-taken", 2, None))
case("discard-pile-empty", "S1", "no discard draw from an empty pile",
     sub(HUNT_OUT, "draw stock Qc", "draw discard"), bad("discard-pile-empty", 0, None))
case("discard-draw-mismatch", "S1", "a discard draw takes the top card",
     sub(HUNT_OUT, "draw stock 5h", "draw discard 5h"), bad("discard-draw-mismatch", 2, None))
case("stock-mismatch", "S1", "a stock draw takes the top card of the stock",
     sub(STOCK_RUN_OUT, "  draw stock\n  discard 9h", "  draw stock 5h\n  discard 9h"),
     bad("stock-mismatch", 1, None))
case("stock-empty", "S1", "an empty stock with a one-card discard pile cannot be refilled",
     sub(sub(STOCK_RUN_OUT, "stock Qc 9h", "stock Qc"), "  discard 9h\n", "  discard 2c\n"),
     bad("stock-empty", 1, None))
case("restock-missing", "S1", "a known stock's new order must be given",
     sub(STOCK_RUN_OUT, "  restock 8h      # the pile under its top card (9h) becomes the stock\n",
         ""), bad("restock-mismatch", 2, None))
case("restock-wrong-cards", "S1", "the new stock is the pile under its top card",
     sub(STOCK_RUN_OUT, "restock 8h ", "restock 9h "), bad("restock-mismatch", 2, None))
case("restock-not-due", "S1", "no restock while the stock has cards",
     sub(STOCK_RUN_OUT, "turn 1 bob\n", "turn 1 bob\n  restock 8h\n"), bad("restock-mismatch", 1, None))

# -- illegal: opening, building, pickups, jokers --------------------------------------------
case("opening-below-threshold", "S0", "the first melds reach 51 (checked at the discard)",
     sub(K51_OUT, "  meld Jh Qh Kh Ah\n", "", 1), bad("opening-below-threshold", 0, None))
case("opening-below-before-build", "S0", "the opening is checked before a build",
     sub(sub(K51_RELEASE, "  meld 9s Ts Js Qs\n", ""), "build 3 JK", "build 2 JK"),
     bad("opening-below-threshold", 1, 1))
case("build-before-opening", "S0", "building only after one's own opening",
     sub(K51_OUT, "  draw stock 9h\n  discard 9h", "  draw stock 9h\n  build 1 9h\n  discard 2c"),
     bad("build-before-opening", 1, 0))
case("build-does-not-fit", "S1", "a built card extends the meld",
     sub(HUNT_OUT, "  draw stock 5h\n", "  draw stock 5h\n  build 0 5h\n"),
     bad("build-does-not-fit", 2, 0))
case("no-such-meld", "S1", "builds go on melds on the table",
     sub(HUNT_OUT, "  draw stock 5h\n", "  draw stock 5h\n  build 7 5h\n"), bad("no-such-meld", 2, 0))
case("pickup-not-melded", "pagat", "Kalooki 40: the card taken must be laid this turn",
     sub(sub(PICKUP.format(rs="kalooki-40"), "meld 6s 7s 8s", "meld 5s 6s 7s"), "discard 5s",
         "discard 8s"), bad("pickup-not-melded", 2, None))
case("pickup-not-in-new-meld", "pagat", "UK: the card taken must go into a new meld",
     sub(sub(PICKUP.format(rs="kaluki-uk"), "meld 6s 7s 8s\n  meld 2d 3d 4d",
             "meld 5s 6s 7s\n  build 2 8s"), "discard 5s", "discard 2d"),
     bad("pickup-not-in-new-meld", 2, None))
case("released-joker-unused", "S0", "a freed joker is laid again the same turn",
     sub(K51_RELEASE, "  build 3 JK\n", ""), bad("released-joker-unused", 1, None))
case("released-joker-built-not-new", "pagat", "UK: a freed joker goes into a new meld",
     sub(UK_RELEASE, "meld 9s Ts JK", "build 2 JK"), bad("released-joker-unused", 1, None))
case("released-joker-kept", "S1", "released_joker hand: the joker may stay in hand",
     sub(HUNT_RELEASE, "  meld 9s Ts JK   # the freed joker goes straight into a new meld\n",
         "").replace("kaluki-hunt", '{"base":"kaluki-hunt","overrides":{"released_joker":"hand"}}'),
     win("ann", "out", scores(("ann", 0, 20, 0), ("bob", 53, 0, 53))))
case("release-before-opening", "S0", "releasing only after one's own opening",
     sub(K51_RELEASE, "  meld Ks Kd Kc\n  meld 9s Ts Js Qs\n  release 1 7c\n",
         "  release 1 7c\n  meld Ks Kd Kc\n  meld 9s Ts Js Qs\n"), bad("release-before-opening", 1, 0))
case("release-wrong-card", "S0", "only the exact card frees a run's joker",
     sub(K51_RELEASE, "release 1 7c", "release 1 3c"), bad("release-wrong-card", 1, 2))
case("no-joker", "S0", "a release needs a joker", sub(K51_RELEASE, "release 1 7c", "release 0 2c"),
     bad("no-joker", 1, 2))
case("joker-not-releasable", "S3", "all_missing: one natural alone does not free the joker",
     sub(HUNT_RELEASE, "release 1 7h 7s", "release 1 7h"), bad("joker-not-releasable", 1, 2))

# -- illegal melds inside a turn -----------------------------------------------------------
MELD_FAULTS = [
    ("set-too-short", "kaluki-hunt", "9s 9d", None, "S1"),
    ("run-too-short", "kaluki-51", "5c 6c 7c", None, "S0"),
    ("set-too-long", "kaluki-hunt", "9s 9d 9c 9h 9s", None, "S1"),
    ("mixed-ranks", "kaluki-hunt", "9s 9d 8c", "set", "S1"),
    ("not-a-meld", "kaluki-hunt", "9s 8d 7c", None, "S1"),
    ("duplicate-suit", "kaluki-51", "4h 4h 4d", None, "S0"),
    ("mixed-suits", "kaluki-hunt", "5c 6c 7d", "run", "S1"),
    ("duplicate-rank", "kaluki-hunt", "5h 5h 6h", "run", "S1"),
    ("not-in-sequence", "kaluki-hunt", "5c 7c 9c", None, "S1"),
    ("ace-wraparound", "kaluki-hunt", "Kh Ah 2h", None, "S1"),
    ("ace-not-low", "kaluki-uk", "Ah 2h 3h", None, "pagat"),
    ("ace-not-high", '{"base":"kaluki-hunt","overrides":{"ace":"low"}}', "Qh Kh Ah", None, "S1"),
    ("run-too-long", '{"base":"kaluki-hunt","overrides":{"run_max":4}}', "5h 6h 7h 8h 9h", None,
     "S1"),
    ("joker-mismatch", "kaluki-hunt", "5c 6c JK=8c", "run", "S1"),
    ("too-few-naturals", '{"base":"kaluki-hunt","overrides":{"set_min_naturals":2,'
     '"run_min_naturals":2}}', "JK JK 7h", None, "S1"),
]
FILLER = ["2h", "3s", "8d", "Jh", "Qs", "6d", "Td", "4s", "3h", "Kc", "Js", "6h", "Th", "Qh"]


def meld_fault(code: str, rs: str, cards: str, kind: str | None, source: str) -> None:
    meld = cards.split()
    natural = [c.split("=")[0] for c in meld]
    hand = list(natural)
    used = Counter(hand) + Counter(L.split())
    for f in FILLER:
        if len(hand) == 13:
            break
        if used[f] < 2:
            hand.append(f)
            used[f] += 1
    text = (f"ruleset {rs}\nplayers ann bob\ndeal ann {' '.join(hand)}\ndeal bob {L}\n"
            f"turn 0 ann\n  draw stock 8h\n  meld {kind + ' ' if kind else ''}{cards}\n"
            "  discard 8h\n")
    case(f"meld-{code}", source, f"a meld laid in a turn must be legal ({code})", text,
         bad(code, 0, 0))


for args in MELD_FAULTS:
    meld_fault(*args)


# -- docs/api.md#special-wins: a special win needs nothing laid before -------------------------
HUNT_BOB_MELDS = f"""ruleset kaluki-hunt
players ann bob
deal ann Kh Ks Kd 9c Tc Jc 2d 3d 4d 5s 6s 7s 8h
deal bob {L}
turn 0 ann
  draw stock 9h
  discard 9h
turn 1 bob
  draw stock 5h
  meld 2c 3c 4c
  discard 5h
"""  # bob keeps 5c 6c 7c 8c 9d Td Jd Qd Ad Ac: value 87

case("hunt-built-before-then-out", "S1", "a special win needs nothing laid before (SPEC §3, S1/S3 "
     "'alle kaarten ... in een keer'): a build in an earlier turn, then every other card in one "
     "turn, is going out: 20 points, losers' hand value x1",
     HUNT_BOB_MELDS + """turn 2 ann        # a build before her first meld (S1: building needs no opening)
  draw stock 5c
  build 0 5c
  discard 8h
turn 3 bob
  draw stock 9h
  discard 9h
turn 4 ann        # every other card in one turn, but she laid a card before: out, not a Hunt
  draw stock 8d
  meld Kh Ks Kd
  meld 9c Tc Jc
  meld 2d 3d 4d
  meld 5s 6s 7s
  discard 8d
""", win("ann", "out", scores(("ann", 0, 20, 0), ("bob", 87, 0, 87))))
case("hunt-build-in-winning-turn", "S1", "builds in the winning turn itself still count with "
     "the special win (SPEC §3): Hunt 40, losers pay double",
     HUNT_BOB_MELDS + """turn 2 ann        # the build is in the winning turn itself: still a Hunt
  draw stock 5c
  meld Kh Ks Kd
  meld 9c Tc Jc
  meld 2d 3d 4d
  meld 5s 6s 7s
  build 0 5c
  discard 8h
""", win("ann", "special", scores(("ann", 0, 40, 0), ("bob", 87, 0, 174))))


from tests.records.contract_corpus import CONTRACT_CASES  # noqa: E402 (after the classic cases)

CASES.extend(CONTRACT_CASES)


def main() -> None:
    import sys
    sys.path.insert(0, str(HERE.parent.parent))
    from service.engine.notation import text_to_data
    for old in HERE.glob("*.json"):
        old.unlink()
    for old in HERE.glob("*.hand"):
        old.unlink()
    for i, (name, source, rule, text, expect) in enumerate(CASES):
        entry: dict[str, Any] = {"name": name, "source": source, "rule": rule, "expect": expect}
        if i % 2:
            entry["notation"] = text
        else:
            entry["record"] = text_to_data(text)
        (HERE / f"{i:03d}-{name}.json").write_text(json.dumps(entry, indent=1) + "\n")
    print(f"wrote {len(CASES)} records")


if __name__ == "__main__":
    main()
