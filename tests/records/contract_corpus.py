"""The Jamaican (contract) cases of the recorded-hand corpus (docs/api.md#contract-rule-sets),
written by hand in the text notation with their rulings worked out by hand; build_corpus.py
writes them with the others. Sources: pagat "Caribbean Kalooki" (threes and fours,
going down, tacking, the joker moved to a run's end, no joker discards), denexa
"Kalooki" (calls: the penalty card, the active player draws from the stock, a refused
call's discard taken by the active player, no calls once down)."""

from __future__ import annotations

from typing import Any

CaseRow = tuple[str, str, str, str, dict[str, Any]]

# round 1: contract 333, nine cards each, two decks and four jokers (three seats)
R1 = """ruleset {rs}
round 1
players ann bob cy
deal ann 7h 7s 7c 9d 9d JK Kc Kh Ks
deal bob 2c 3c 4c 5c 6c 8h 8s Td Jd
deal cy {cy}
stock {stock}
{pile}"""
CY = "2h 3h 4h 5h 6d 6s Qc Qd 4s"  # value 50
CY_DOWN = "2h 2d 4h 4d 4s 6d 6s 6c Qd"  # goes down with a called 2s: 222 444 666
STOCK = "Ad 3s 5d 8c Tc Jh 2d 9s Th 7d"
LAY = "  lay 7h 7s 7c | 9d 9d JK | Kc Kh Ks\n"


def r1(turns: str, rs: str = "kalooki-jamaica", cy: str = CY, stock: str = STOCK,
       pile: str = "pile 2s") -> str:
    return R1.format(rs=rs, cy=cy, stock=stock, pile=pile) + "\n" + turns


# round 2: contract 334, ten cards each
R2 = """ruleset kalooki-jamaica
round 2
players ann bob cy
deal ann 5h JK 7h 8h 9c 9s 9d Qc Qs Qd
deal bob 2c 3c 4c 5c 6c 8s 8s Td Jd 6d
deal cy 2h 3h 4h 5d 6s 6s Kc Kd 4s Ks
stock 6h Ad 3s 5s
pile 2s
"""
LAY2 = "  lay 5h JK 7h 8h | 9c 9s 9d | Qc Qs Qd\n"

# cy calls ann's first discard-pile card, goes down on her own turn, and is then down
CY_GOES_DOWN = """turn 0 ann
  call cy granted            # cy takes 2s and the penalty card As (black ace)
  draw stock 3s
  discard 3s
turn 1 bob
  draw stock 5d
  discard 5d
turn 2 cy
  draw stock 8c
  lay 2h 2d 2s | 4h 4d 4s | 6d 6s 6c
  discard 8c                 # cy keeps Qd As
turn 3 ann
  draw stock Tc
  discard Tc
turn 4 bob
  draw stock Jh
  discard Jh
"""
DOWN_STOCK = "As 3s 5d 8c Tc Jh 2d 9s Th 7d"


def scores(*rows: tuple[str, int, int, int]) -> list[dict[str, Any]]:
    return [{"id": i, "hand_value": v, "points": p, "penalty": q} for i, v, p, q in rows]


def win(winner: str, finish: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"legal": True, "result": {"winner": winner, "finish": finish, "scores": rows}}


def bad(code: str, turn: int, play: int | None) -> dict[str, Any]:
    return {"legal": False, "violation": {"code": code, "turn": turn, "play": play}}


CONTRACT_CASES: list[CaseRow] = [
    ("jam-down-and-out", "pagat", "going down with the whole contract and discarding the last "
     "card in one turn, nothing laid before: down-and-out; losers pay their hand value",
     r1("turn 0 ann\n  draw stock Ad\n" + LAY + "  discard Ad\n"),
     # bob 2+3+4+5+6+8+8+10+10 = 56; cy 2+3+4+5+6+6+10+10+4 = 50
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 56, 0, 56), ("cy", 50, 0, 50)))),
    ("jam-call-granted-black-ace", "denexa", "a granted call: the caller takes the discard and "
     "a penalty card from the stock, then the active player draws from the stock; a black ace "
     "left in hand counts 15",
     r1("turn 0 ann\n  call cy granted\n  draw stock 3s\n" + LAY + "  discard 3s\n",
        stock=DOWN_STOCK),
     # cy 50 + 2s 2 + As 15 = 67
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 56, 0, 56), ("cy", 67, 0, 67)))),
    ("jam-call-granted-red-ace", "denexa", "the penalty card named (no stock order needed); a "
     "red ace left in hand counts 1",
     r1("turn 0 ann\n  call cy granted Ad\n  draw stock 3s\n" + LAY + "  discard 3s\n"),
     # cy 50 + 2s 2 + Ad 1 = 53
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 56, 0, 56), ("cy", 53, 0, 53)))),
    ("jam-call-refused", "denexa", "a refused call: the active player takes the discard (and "
     "may build it at once)",
     r1("turn 0 ann\n  call bob refused\n  draw discard 9c\n" + LAY + "  build 1 9c\n",
        pile="pile 9c"),
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 56, 0, 56), ("cy", 50, 0, 50)))),
    ("jam-shift-out", "pagat", "the holder of the card a run's joker stands for lays it in the "
     "joker's place and the joker moves to the run's end; here it is the last card",
     R2 + "turn 0 ann\n  draw stock 6h\n" + LAY2 + "  shift 0 6h\n",
     # bob 2+3+4+5+6+8+8+10+10+6 = 62; cy 2+3+4+5+6+6+10+10+4+10 = 60
     win("ann", "special", scores(("ann", 0, 0, 0), ("bob", 62, 0, 62), ("cy", 60, 0, 60)))),
    ("jam-down-after-a-call", "denexa", "cards won by a call let a player go down and keep "
     "cards; the hand goes on",
     r1(CY_GOES_DOWN, cy=CY_DOWN, stock=DOWN_STOCK), {"legal": True, "result": None}),
    # -- illegal --------------------------------------------------------------------------
    ("jam-meld-before-down", "pagat", "a player's first cards on the table are the contract, "
     "laid as one play", r1("turn 0 ann\n  draw stock Ad\n  meld 7h 7s 7c\n  discard Ad\n"),
     bad("contract-not-met", 0, 0)),
    ("jam-lay-short", "pagat", "the lay is exactly the round's contract",
     r1("turn 0 ann\n  draw stock Ad\n  lay 7h 7s 7c | Kc Kh Ks\n  discard Ad\n"),
     bad("contract-not-met", 0, 0)),
    ("jam-second-lay", "pagat", "a player goes down once per deal",
     r1(CY_GOES_DOWN.replace("  discard 8c ", "  lay 2h 2d 2s | 4h 4d 4s | 6d 6s 6c\n  discard 8c "),
        cy=CY_DOWN, stock=DOWN_STOCK), bad("contract-extra-meld", 2, 1)),
    ("jam-joker-discard", "pagat", "a joker may not be discarded",
     r1("turn 0 ann\n  draw stock Ad\n  discard JK\n"), bad("joker-discard", 0, None)),
    ("jam-call-own-turn", "denexa", "the player whose turn it is draws; they do not call",
     r1("turn 0 ann\n  call ann granted\n  draw stock 3s\n  discard 3s\n"),
     bad("call-own-turn", 0, None)),
    ("jam-call-own-discard", "denexa", "a player may not call the card they discarded",
     r1("turn 0 ann\n  draw stock Ad\n  discard Ad\nturn 1 bob\n  call ann granted\n"
        "  draw stock 5d\n  discard 5d\n"), bad("call-own-discard", 1, None)),
    ("jam-call-after-down", "denexa", "a player who has gone down may not call",
     r1(CY_GOES_DOWN + "turn 5 cy\n  draw stock 2d\n  discard 2d\nturn 6 ann\n"
        "  draw stock 9s\n  discard 9s\nturn 7 bob\n  call cy granted\n  draw stock Th\n"
        "  discard Th\n", cy=CY_DOWN, stock=DOWN_STOCK),
     bad("call-after-down", 7, None)),
    ("jam-call-limit", "denexa", "calls per player per deal are limited (call_max)",
     r1("turn 0 ann\n  call cy granted\n  draw stock 3s\n  discard 3s\nturn 1 bob\n"
        "  call cy granted\n  draw stock 8c\n  discard 8c\n",
        rs='{"base": "kalooki-jamaica", "overrides": {"call_max": 1}}'),
     bad("call-limit", 1, None)),
    ("jam-call-no-discard", "denexa", "a call asks for the discard pile's top card",
     r1("turn 0 ann\n  call cy granted\n  draw stock 3s\n  discard 3s\n", pile=""),
     bad("call-no-discard", 0, None)),
    ("jam-call-not-allowed", "denexa", "no calls where call_max is 0",
     r1("turn 0 ann\n  call cy granted\n  draw stock 3s\n  discard 3s\n",
        rs='{"base": "kalooki-jamaica", "overrides": {"call_max": 0}}'),
     bad("call-not-allowed", 0, None)),
    ("jam-call-refused-draw", "denexa", "after a refused call the active player takes the "
     "discard", r1("turn 0 ann\n  call cy refused\n  draw stock Ad\n  discard Ad\n"),
     bad("call-refused-draw", 0, None)),
    ("jam-call-granted-draw", "denexa", "after a granted call the active player draws from the "
     "stock", r1("turn 0 ann\n  call cy granted\n  draw discard\n  discard 3s\n", pile="pile 3h 2s"),
     bad("call-refused-draw", 0, None)),
    ("jam-discard-after-down", "denexa", "a player who has gone down may not take the discard",
     r1(CY_GOES_DOWN + "turn 5 cy\n  draw discard Jh\n  discard Jh\n", cy=CY_DOWN,
        stock=DOWN_STOCK), bad("discard-after-down", 5, None)),
    ("jam-refused-by-down-player", "denexa", "a down player cannot refuse a call: it would "
     "make them take the discard",
     r1(CY_GOES_DOWN + "turn 5 cy\n  call ann refused\n  draw discard Jh\n  discard Jh\n",
        cy=CY_DOWN, stock=DOWN_STOCK), bad("discard-after-down", 5, None)),
    ("jam-shift-no-joker", "pagat", "only the card a run's joker stands for moves it",
     R2 + "turn 0 ann\n  draw stock 6h\n" + LAY2 + "  shift 1 6h   # meld 1 is a three\n",
     bad("joker-not-shiftable", 0, 1)),
    ("jam-shift-not-down", "pagat", "only a player who is down shifts a joker",
     r1(CY_GOES_DOWN + "turn 5 cy\n  draw stock 2d\n  discard 2d\nturn 6 ann\n"
        "  draw stock 9s\n  shift 0 2h\n  discard 9s\n", cy=CY_DOWN, stock=DOWN_STOCK),
     bad("joker-not-shiftable", 6, 0)),
    ("jam-lay-duplicate-rank", "pagat", "a contract's threes are of different ranks",
     r1("turn 0 ann\n  draw stock Ad\n  lay 7h 7s 7c | 7d 7d JK | Kc Kh Ks\n  discard Ad\n",
        stock="Ad 3s 5d")
     .replace("deal ann 7h 7s 7c 9d 9d JK", "deal ann 7h 7s 7c 7d 7d JK"),
     bad("contract-duplicate-rank", 0, 0)),
    ("jam-lay-duplicate-suit", "pagat", "a contract's fours are of different suits",
     """ruleset kalooki-jamaica
round 3                      # 344: one three, two fours; eleven cards
players ann bob cy
deal ann 2h 3h 4h 5h 7h 8h 9h Th Kc Ks Kd
deal bob 2c 3c 4c 5c 6c 8s 8s Td Jd 6d 9c
deal cy 2d 3d 4d 5d 6s 6s Qc Qd 4s Qs 9s
turn 0 ann
  draw stock Ad
  lay 2h 3h 4h 5h | 7h 8h 9h Th | Kc Ks Kd
  discard Ad
""", bad("contract-duplicate-suit", 0, 0)),
    ("jam-lay-adjacent-jokers", "pagat", "no two jokers side by side in a four",
     R2.replace("deal ann 5h JK 7h 8h", "deal ann 5h JK JK 8h")
     + "turn 0 ann\n  draw stock 6h\n  lay 5h JK JK 8h | 9c 9s 9d | Qc Qs Qd\n  discard 6h\n",
     bad("adjacent-jokers", 0, 0)),
    ("jam-build-before-down", "pagat", "tacking on only after going down",
     r1(CY_GOES_DOWN + "turn 5 cy\n  draw stock 2d\n  discard 2d\nturn 6 ann\n"
        "  draw stock 9s\n  build 2 9s\n  discard 7h\n", cy=CY_DOWN, stock=DOWN_STOCK),
     bad("build-before-opening", 6, 0)),
]
