"""The rulings table: one line per ruling, each citing where the rule comes from.

Sources: S0, S1, S3 are the rule texts in ``shared/rules/``; ``docs/api.md#…`` a
section of the public contract (docs/api.md); pagat is the British club rules (pagat.com,
kalooki.co.uk) behind ``kaluki-uk``; k40 the online "Kalooki 40" rooms behind ``kalooki-40``. Every
case fails if its rule is broken: it checks the ruling (valid or the exact
violation code) and, where a number is part of the rule, the number.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.engine import melds as m
from service.engine.cards import ImpossibleCards, parse_cards
from service.engine.rules import resolve
from service.engine.scoring import ScoringError, score_hand

K51, HUNT, UK, K40 = "kaluki-51", "kaluki-hunt", "kaluki-uk", "kalooki-40"


def over(base: str, **kw: Any) -> dict[str, Any]:
    return {"base": base, "overrides": kw}


# (source, ruleset, cards, kind, expected: True | violation code, checks)
VALIDATE = [
    ("S0 joker 25 toward the first meld", K51, "Kh Ks JK", None, True, {"kind": "set", "points": 45}),
    ("S0 runs of four", K51, "9c Tc Jc Qc", None, True, {"kind": "run", "points": 39}),
    ("S0 runs need four cards", K51, "9c Tc Jc", None, "run-too-short", {}),
    ("S1 runs of three", HUNT, "9c Tc Jc", None, True, {"points": 29}),
    ("pagat runs of three", UK, "9c Tc Jc", None, True, {"points": 29}),
    ("k40 runs of three", K40, "9c Tc Jc", None, True, {"points": 29}),
    ("docs/api.md#melds duplicate suit in a set", K51, "4c 4c 4d", None, "duplicate-suit", {}),
    ("S1 sets of three or four", HUNT, "4c 4h 4d", None, True, {"kind": "set", "points": 12}),
    ("S0 sets need three", K51, "7h 7d", None, "set-too-short", {}),
    ("S1 sets hold at most four", HUNT, "7h 7d 7c 7s 7h", None, "set-too-long", {}),
    ("docs/api.md#melds joker inside a run", HUNT, "Jd JK Kd", None, True,
     {"cards": ["Jd", "JK=Qd", "Kd"], "points": 30, "jokers": [(1, "Qd")]}),
    ("docs/api.md#melds a joker-only meld is never legal", HUNT, "JK JK JK", None, "too-few-naturals", {}),
    ("docs/api.md#melds high_or_low never K-A-2", HUNT, "Kh Ah 2h", None, "ace-wraparound", {}),
    ("docs/api.md#melds high_or_low never K-A-2 (kaluki-51)", K51, "Kh Ah 2h 3h", None, "ace-wraparound", {}),
    ("S1 ace low, ace_low_value 11", HUNT, "Ah 2h 3h", None, True, {"points": 16}),
    ("k40 ace low counts 1", K40, "Ah 2h 3h", None, True, {"points": 6}),
    ("k40 ace high counts 11", K40, "Qh Kh Ah", None, True, {"points": 31}),
    ("S0 ace low counts 11", K51, "Ah 2h 3h 4h", None, True, {"points": 20}),
    ("pagat ace high only: no A-2-3", UK, "Ah 2h 3h", None, "ace-not-low", {}),
    ("pagat ace high: Q-K-A", UK, "Qh Kh Ah", None, True, {"points": 31}),
    ("pagat 2-3-4 is the lowest run", UK, "2h 3h 4h", None, True, {"points": 9}),
    ("pagat a joker cannot be the low ace", UK, "JK 2h 3h 4h", None, "ace-not-low", {}),
    ("pagat a joker may be the high ace", UK, "Qh Kh JK", None, True,
     {"cards": ["Qh", "Kh", "JK=Ah"], "points": 31}),
    ("pagat no wrap through a joker ace", UK, "Kh JK 2h", None, "ace-wraparound", {}),
    ("docs/api.md#melds ace low only", over(HUNT, ace="low"), "Qh Kh Ah", None, "ace-not-high", {}),
    ("docs/api.md#melds ace low only allows A-2-3", over(HUNT, ace="low"), "Ah 2h 3h", None, True, {}),
    ("docs/api.md#melds ace around allows K-A-2", over(HUNT, ace="around"), "Kh Ah 2h", None, True,
     {"points": 23, "cards": ["Kh", "Ah", "2h"]}),
    ("docs/api.md#melds ace around, longer", over(HUNT, ace="around"), "Qh Kh Ah 2h 3h", None, True, {}),
    ("docs/api.md#melds around: a joker turns the corner", over(HUNT, ace="around"), "Kh JK 2h", None, True,
     {"cards": ["Kh", "JK=Ah", "2h"]}),
    ("docs/api.md#melds runs are consecutive", HUNT, "5h 6h 8h", None, "not-in-sequence", {}),
    ("docs/api.md#melds no rank twice in a run", HUNT, "5h 5h 6h", None, "duplicate-rank", {}),
    ("docs/api.md#melds runs are one suit", HUNT, "5h 6d 7h", "run", "mixed-suits", {}),
    ("docs/api.md#melds neither set nor run", HUNT, "5h 6d 7h", None, "not-a-meld", {}),
    ("docs/api.md#melds sets are one rank", HUNT, "5h 6h 7h", "set", "mixed-ranks", {}),
    ("docs/api.md#melds kind run on a set", HUNT, "7h 7d 7c", "run", "mixed-suits", {}),
    ("docs/api.md#melds descending order reads as a run", HUNT, "7h 6h 5h", None, True,
     {"cards": ["5h", "6h", "7h"]}),
    ("docs/api.md#melds ambiguous reading: most points", HUNT, "JK JK 7h", None, True,
     {"kind": "run", "cards": ["7h", "JK=8h", "JK=9h"], "points": 24, "alternatives": 2}),
    ("docs/api.md#melds kind chooses the reading", HUNT, "JK JK 7h", "set", True,
     {"kind": "set", "points": 21, "cards": ["JK=7", "JK=7", "7h"]}),
    ("docs/api.md#melds a declared joker fixes the reading", HUNT, "JK=5h JK 7h", None, True,
     {"cards": ["JK=5h", "JK=6h", "7h"], "points": 18, "alternatives": 0}),
    ("docs/api.md#melds tie: set before run", HUNT, "JK 7h JK", None, True,
     {"kind": "set", "points": 21, "alternatives": 1}),
    ("docs/api.md#cards a declared joker must fit its place", HUNT, "6h JK=9h 8h", None, "joker-mismatch", {}),
    ("docs/api.md#cards a joker's suit must be the run's", HUNT, "5h JK=6d 7h", None, "joker-mismatch", {}),
    ("docs/api.md#cards a set joker stands for the set's rank", K51, "JK=8h 5s 5h", None, "joker-mismatch", {}),
    ("docs/api.md#melds a declared joker in a set", K51, "JK=5d 5s 5h", None, True, {"points": 35}),
    ("docs/api.md#cards for a set only the rank matters", HUNT, "JK=5 5s 5h", None, True, {"cards": ["JK=5", "5s", "5h"]}),
    ("docs/api.md#cards JK=7c is fine in a set", HUNT, "JK=5c 5c 5h", None, True, {}),
    ("docs/api.md#melds a whole suit A..K", HUNT, "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", None, True,
     {"points": 95}),
    ("docs/api.md#melds no run past 13 cards", HUNT, "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah", None,
     "run-too-long", {}),
    ("docs/api.md#rule-sets-and-overrides run_max", over(HUNT, run_max=4), "2h 3h 4h 5h 6h", None, "run-too-long", {}),
    ("docs/api.md#rule-sets-and-overrides set_max 3", over(HUNT, set_max=3), "7h 7d 7c 7s", None, "set-too-long", {}),
    ("docs/api.md#rule-sets-and-overrides set_min_naturals", over(HUNT, set_min_naturals=2), "7h JK JK", "set", "too-few-naturals", {}),
    ("docs/api.md#rule-sets-and-overrides run_min_naturals", over(HUNT, run_min_naturals=2), "7h JK JK", "run", "too-few-naturals", {}),
    ("docs/api.md#rule-sets-and-overrides set_distinct_suits off", over(K51, set_distinct_suits=False), "4c 4c 4d", None, True, {}),
    ("S1 three aces", HUNT, "Ah Ad As", None, True, {"points": 33}),
    ("S0 joker as low ace counts 25", K51, "JK 2h 3h 4h", None, True, {"points": 34}),
    ("docs/api.md#melds joker as high end", UK, "2h 3h 4h JK", None, True, {"cards": ["2h", "3h", "4h", "JK=5h"]}),
    ("docs/api.md#melds empty meld", HUNT, "", None, "meld-empty", {}),
    ("S0 joker counts 25 inside a run", K51, "9c Tc JK Qc", None, True, {"points": 54}),
    ("S1 a joker counts what it represents", HUNT, "9c Tc JK Qc", None, True, {"points": 39}),
    ("k40 a joker as the low ace counts 1", K40, "JK 2h 3h", None, True, {"points": 6}),
    ("docs/api.md#rule-sets-and-overrides joker_opening_value fixed", over(HUNT, joker_opening_value=50), "Kh Ks JK", None, True,
     {"points": 70}),
    ("docs/api.md#melds two-card meld", HUNT, "JK 7h", None, "set-too-short", {}),
    ("docs/api.md#rule-sets-and-overrides run_min 2 override", over(HUNT, run_min=2, set_min=2), "7h 8h", None, True, {}),
    ("docs/api.md#cards unicode and 10 notation", HUNT, "10♥ J♥ Q♥", None, True, {"cards": ["Th", "Jh", "Qh"]}),
]


def _ids(rows: list[tuple[Any, ...]]) -> list[str]:
    return [f"{i:02d}-{row[0]}" for i, row in enumerate(rows)]


@pytest.mark.parametrize("src,rs,cards,kind,expected,checks", VALIDATE, ids=_ids(VALIDATE))
def test_validate(src: str, rs: Any, cards: str, kind: str | None, expected: Any,
                  checks: dict[str, Any]) -> None:
    rules = resolve(rs)
    ruling = m.validate(cards.split(), rules, kind)
    if expected is True:
        assert ruling.valid, ruling.violations
        meld = ruling.meld
        assert meld is not None
        if "kind" in checks:
            assert meld.kind == checks["kind"]
        if "points" in checks:
            assert meld.points == checks["points"]
        if "cards" in checks:
            assert [str(c) for c in meld.cards] == checks["cards"]
        if "jokers" in checks:
            assert meld.jokers() == checks["jokers"]
        if "alternatives" in checks:
            assert len(ruling.alternatives) == checks["alternatives"]
    else:
        assert not ruling.valid
        assert ruling.meld is None
        assert [v.code for v in ruling.violations] == [expected]


# (source, ruleset, melds, expected: True | code, points)
OPENING = [
    ("docs/api.md#rulings-200-with-valid--legal example opening", K51, ["Kh Ks JK", "9c Tc Jc Qc"], True, 84),
    ("S0 51 to open", K51, ["9c Tc Jc Qc"], "opening-below-threshold", 39),
    ("S0 51 summed over melds", K51, ["Ah Ad As", "2c 3c 4c 5c"], "opening-below-threshold", 47),
    ("S0 51 reached", K51, ["Ah Ad As", "2c 3c 4c 5c 6c"], True, 53),
    ("S0 joker counts 25", K51, ["JK 2d 2s", "3c 4c 5c 6c 7c"], True, 54),
    ("docs/api.md#rule-sets-and-overrides joker_opening_value represented", over(K51, joker_opening_value="represented"),
     ["JK 2d 2s", "3c 4c 5c 6c 7c"], "opening-below-threshold", 31),
    ("pagat 40 to open", UK, ["Th Jh Qh", "5c 5d 5s"], True, 45),
    ("pagat 40 not reached", UK, ["2h 3h 4h", "5c 5d 5s"], "opening-below-threshold", 24),
    ("k40 low ace counts 1 toward 40", K40, ["Ah 2h 3h", "Kc Kd Ks"], "opening-below-threshold", 36),
    ("k40 exactly 40 opens", K40, ["Qh Kh Ah", "2c 3c 4c"], True, 40),
    ("k40 joker counts what it represents", K40, ["JK Kd Ks", "2c 3c 4c"], "opening-below-threshold", 39),
    ("S1 no opening threshold", HUNT, ["2c 3c 4c"], True, 9),
    ("docs/api.md#rule-sets-and-overrides opening 0 override", over(K51, opening_min_points=0), ["2c 3c 4c 5c"], True, 14),
    ("docs/api.md#rulings-200-with-valid--legal every opening meld must be legal", K51, ["Kh Ks JK", "9c Tc Jc"], "run-too-short", 45),
]


@pytest.mark.parametrize("src,rs,melds,expected,points", OPENING, ids=_ids(OPENING))
def test_opening(src: str, rs: Any, melds: list[str], expected: Any, points: int) -> None:
    rules = resolve(rs)
    ruling = m.opening([x.split() for x in melds], rules)
    assert ruling.points == points
    assert ruling.threshold == rules.opening_min_points
    if expected is True:
        assert ruling.valid and not ruling.violations
    else:
        assert not ruling.valid
        assert expected in [v.code for v in ruling.violations]


def _placed(text: str) -> list[m.Placed]:
    out = []
    for word in text.split():
        card, _, end = word.partition("@")
        out.append(m.Placed(m.as_tokens([card])[0], end or None))
    return out


# (source, ruleset, table meld, added (card@end), opened, expected: True | code, resulting cards)
BUILD = [
    ("S0 a 4h-4c-4s set holds a 4d", K51, "4h 4c 4s", "4d", True, True, "4h 4c 4s 4d"),
    ("S0 a 7c-Tc run holds a 6c", K51, "7c 8c 9c Tc", "6c", True, True, "6c 7c 8c 9c Tc"),
    ("S0 a 7c-Tc run holds a Jc", K51, "7c 8c 9c Tc", "Jc", True, True, "7c 8c 9c Tc Jc"),
    ("S0 build only after melding", K51, "7c 8c 9c Tc", "6c", False, "build-before-opening", None),
    ("S1 build on any meld, no opening needed", HUNT, "7c 8c 9c", "6c", False, True, "6c 7c 8c 9c"),
    ("S1 a set holds four cards", K51, "4h 4c 4s 4d", "4h", True, "set-too-long", None),
    ("S3 no two cards of one suit in a set", K51, "4h 4c 4s", "4h", True, "duplicate-suit", None),
    ("S1 build at the ends of a run", HUNT, "5h 6h 7h", "9h", True, "build-does-not-fit", None),
    ("S1 cards go where they fit", HUNT, "5h 6h 7h", "9h 8h", True, True, "5h 6h 7h 8h 9h"),
    ("docs/api.md#melds ace high on Q-K", HUNT, "Jh Qh Kh", "Ah", True, True, "Jh Qh Kh Ah"),
    ("docs/api.md#melds ace low below 2", HUNT, "2h 3h 4h", "Ah", True, True, "Ah 2h 3h 4h"),
    ("pagat no ace below 2", UK, "2h 3h 4h", "Ah", True, "build-does-not-fit", None),
    ("docs/api.md#rulings-200-with-valid--legal a joker goes high by default", HUNT, "5h 6h 7h", "JK", True, True, "5h 6h 7h JK=8h"),
    ("docs/api.md#rulings-200-with-valid--legal end low", HUNT, "5h 6h 7h", "JK@low", True, True, "JK=4h 5h 6h 7h"),
    ("docs/api.md#melds no K below a low ace", HUNT, "Ah 2h 3h", "Kh", True, "build-does-not-fit", None),
    ("docs/api.md#melds no 2 above a high ace", HUNT, "Jh Qh Kh Ah", "2h", True, "build-does-not-fit", None),
    ("docs/api.md#melds around: 2 above a high ace", over(HUNT, ace="around"), "Jh Qh Kh Ah", "2h", True, True,
     "Jh Qh Kh Ah 2h"),
    ("docs/api.md#melds around: K below a low ace", over(HUNT, ace="around"), "Ah 2h 3h", "Kh", True, True,
     "Kh Ah 2h 3h"),
    ("docs/api.md#melds a run is one suit", HUNT, "5h 6h 7h", "8d", True, "build-does-not-fit", None),
    ("docs/api.md#melds a set is one rank", HUNT, "7h 7d 7c", "8s", True, "build-does-not-fit", None),
    ("S1 a joker on a 3-card set", HUNT, "7h 7d 7c", "JK", True, True, "7h 7d 7c JK=7"),
    ("docs/api.md#rule-sets-and-overrides run_max caps a build", over(HUNT, run_max=3), "5h 6h 7h", "8h", True, "run-too-long", None),
    # issue 19: the order never matters; the most points, then the highest; fits both ends: high
    ("docs/api.md#rulings-200-with-valid--legal issue 19 JK then 8h", K40, "5h 6h 7h", "JK 8h", True, True, "5h 6h 7h 8h JK=9h"),
    ("docs/api.md#rulings-200-with-valid--legal issue 19 8h then JK", K40, "5h 6h 7h", "8h JK", True, True, "5h 6h 7h 8h JK=9h"),
    ("docs/api.md#rulings-200-with-valid--legal issue 19 a joker below Q-K-A", UK, "Qh Kh Ah", "JK Jh", True, True, "JK=Th Jh Qh Kh Ah"),
    ("docs/api.md#rulings-200-with-valid--legal issue 19 end low, then 4h", HUNT, "5h 6h 7h", "JK@low 4h", True, True,
     "JK=3h 4h 5h 6h 7h"),
    ("docs/api.md#rulings-200-with-valid--legal issue 19 most points: 2-A", K40, "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs", "As Ks", True, True,
     "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"),
    ("docs/api.md#rulings-200-with-valid--legal a joker fitting both ends goes high", HUNT, "2h 3h 4h", "JK", True, True, "2h 3h 4h JK=5h"),
    ("docs/api.md#melds a run's JK=Q is of its suit", HUNT, "9h Th Jh", "JK=Q", True, True, "9h Th Jh JK=Qh"),
    ("issue 19 a closed set takes a build", over(K51, set_distinct_suits=False, set_max=5),
     "JK 3c 3h 3d", "3s", True, True, "JK=3 3c 3h 3d 3s"),
]


@pytest.mark.parametrize("src,rs,table,added,opened,expected,result", BUILD, ids=_ids(BUILD))
def test_build(src: str, rs: Any, table: str, added: str, opened: bool, expected: Any,
               result: str | None) -> None:
    rules = resolve(rs)
    meld = m.validate(table.split(), rules).meld
    assert meld is not None
    ruling = m.build(meld, _placed(added), rules, opened)
    if expected is True:
        assert ruling.valid, ruling.violations
        assert str(ruling.meld) == result
    else:
        assert not ruling.valid
        assert [v.code for v in ruling.violations] == [expected]
        assert ruling.meld == meld


# (source, ruleset, table meld, laid, opened, expected: True | code, released, result, closed)
RELEASE = [
    ("S0 a natural of a missing suit frees the joker", K51, "7c 7d JK", "7h", True, True, 1,
     "7c 7d 7h", False),
    ("S0 three suits plus a joker: never", K51, "7c 7d 7h JK", "7s", True, "joker-not-releasable", 0,
     None, True),
    ("pagat release_closed_four", UK, "7c 7d 7h JK", "7s", True, True, 1, "7c 7d 7h 7s", False),
    ("S0 the new card may not match a suit in the set", K51, "7c 7d JK", "7c", True, "duplicate-suit",
     0, None, False),
    ("S1 one missing suit is not enough", HUNT, "7c 7d JK", "7h", True, "joker-not-releasable", 0,
     None, False),
    ("S1 both missing suits free the joker", HUNT, "7c 7d JK", "7h 7s", True, True, 1,
     "7c 7d 7h 7s", False),
    ("S1 two jokers: one natural frees one, set closes", HUNT, "7c JK=7 JK=7", "7h", True, True, 1,
     "7c 7h JK=7", True),
    ("S3 two jokers: one natural frees one, set closes", K40, "7c JK=7 JK=7", "7h", True, True, 1,
     "7c 7h JK=7", True),
    ("S1 a 4-card set with a joker is closed", HUNT, "7c 7d 7h JK", "7s", True, "joker-not-releasable",
     0, None, True),
    ("S0 only the exact card frees a run joker", HUNT, "5h 6h JK 8h", "7h", True, True, 1,
     "5h 6h 7h 8h", False),
    ("S0 5h-6h-J-8h needs a 7h", K51, "5h 6h JK 8h", "7d", True, "release-wrong-card", 0, None, False),
    ("pagat release only after opening", UK, "5h 6h JK 8h", "7h", False, "release-before-opening", 0,
     None, False),
    ("S1 release before opening allowed", HUNT, "5h 6h JK 8h", "7h", False, True, 1, "5h 6h 7h 8h", False),
    ("docs/api.md#joker-release release_run never", over(HUNT, release_run="never"), "5h 6h JK 8h", "7h", True,
     "joker-not-releasable", 0, None, True),
    ("docs/api.md#joker-release release_set never", over(K51, release_set="never"), "7c 7d JK", "7h", True,
     "joker-not-releasable", 0, None, True),
    ("docs/api.md#joker-release no joker to release", HUNT, "7c 7d 7h", "7s", True, "no-joker", 0, None, False),
    ("S0 two jokers: one natural frees one", K51, "7c JK=7 JK=7", "7h", True, True, 1, "7c 7h JK=7", False),
    ("S0 second natural meets a closed four", K51, "7c 7d JK JK", "7h 7s", True, "joker-not-releasable",
     0, None, False),
    ("pagat closed four opens to the last natural", UK, "7c 7d JK JK", "7h 7s", True, True, 2,
     "7c 7d 7h 7s", False),
    ("S0 a natural of the wrong rank", K51, "7c 7d JK", "8h", True, "release-wrong-card", 0, None, False),
    ("S1 two-joker run frees both exactly", HUNT, "5h JK JK 8h", "6h 7h", True, True, 2,
     "5h 6h 7h 8h", False),
]


@pytest.mark.parametrize("src,rs,table,laid,opened,expected,released,result,closed", RELEASE,
                         ids=_ids(RELEASE))
def test_release(src: str, rs: Any, table: str, laid: str, opened: bool, expected: Any,
                 released: int, result: str | None, closed: bool) -> None:
    rules = resolve(rs)
    meld = m.validate(table.split(), rules).meld
    assert meld is not None
    ruling = m.release(meld, parse_cards(laid.split()), rules, opened)
    assert ruling.released == released
    if expected is True:
        assert ruling.legal, ruling.violations
        assert str(ruling.meld) == result
        assert m.is_closed(ruling.meld, rules) is closed
    else:
        assert not ruling.legal
        assert [v.code for v in ruling.violations] == [expected]
        assert ruling.meld == meld
        assert m.is_closed(meld, rules) is closed


# (source, ruleset, winner, finish, {player: cards}, expected {player: (hand_value, points, penalty)})
SCORE = [
    ("S0 the winner receives the losers' points", K51, "ann", "out",
     {"ann": "", "bob": "Qs 4d", "cy": "JK 2c"},
     {"ann": (0, 41, 0), "bob": (14, 0, 0), "cy": (27, 0, 0)}),
    ("S0 Kaluki: losers lose 25 each", K51, "ann", "special",
     {"ann": "", "bob": "Qs 4d", "cy": "JK 2c"},
     {"ann": (0, 41, 0), "bob": (14, -25, 0), "cy": (27, -25, 0)}),
    ("S1 going out: 20, losers their hand value", HUNT, "kim", "out",
     {"kim": "", "lou": "Qs 4d"}, {"kim": (0, 20, 0), "lou": (14, 0, 14)}),
    ("S1 Hunt: 40, losers double", HUNT, "kim", "special",
     {"kim": "", "lou": "Qs 4d"}, {"kim": (0, 40, 0), "lou": (14, 0, 28)}),
    ("S3 Hunt penalty doubled, ace 11, joker 25", HUNT, "kim", "special",
     {"kim": "", "lou": "Ah JK", "max": ""}, {"kim": (0, 40, 0), "lou": (36, 0, 72), "max": (0, 0, 0)}),
    ("pagat penalty: joker 15", UK, "a", "out",
     {"a": "", "b": "JK Ah", "c": "9s 9s"}, {"a": (0, 0, 0), "b": (26, 0, 26), "c": (18, 0, 18)}),
    ("pagat Kalookie doubles the penalty", UK, "a", "special",
     {"a": "", "b": "JK Ah"}, {"a": (0, 0, 0), "b": (26, 0, 52)}),
    ("k40 penalty points", K40, "a", "out",
     {"a": "", "b": "Kd Qd JK"}, {"a": (0, 0, 0), "b": (35, 0, 35)}),
    ("pagat five players", UK, "e", "out",
     {"a": "2c", "b": "3c", "c": "4c", "d": "5c", "e": ""},
     {"a": (2, 0, 2), "b": (3, 0, 3), "c": (4, 0, 4), "d": (5, 0, 5), "e": (0, 0, 0)}),
    ("docs/api.md#rule-sets-and-overrides card_values override", over(HUNT, card_values={"joker": 50}), "kim", "out",
     {"kim": "", "lou": "JK"}, {"kim": (0, 20, 0), "lou": (50, 0, 50)}),
]


@pytest.mark.parametrize("src,rs,winner,finish,hands,expected", SCORE, ids=_ids(SCORE))
def test_score(src: str, rs: Any, winner: str, finish: str, hands: dict[str, str],
               expected: dict[str, tuple[int, int, int]]) -> None:
    result = score_hand(resolve(rs), winner, finish,
                        [(p, parse_cards(c.split())) for p, c in hands.items()])
    assert result.special is (finish == "special")
    assert {s.id: (s.hand_value, s.points, s.penalty) for s in result.scores} == expected


SCORE_ERRORS = [
    ("docs/api.md#end-of-hand-scoring a winner who still holds cards", K51, "ann", {"ann": "2c", "bob": ""}, "winner-holds-cards"),
    ("S1 2-4 players", HUNT, "a", {"a": "", "b": "", "c": "", "d": "", "e": ""}, "player-count"),
    ("docs/api.md#errors-and-codes one player is not a game", HUNT, "a", {"a": ""}, "player-count"),
    ("docs/api.md#end-of-hand-scoring the winner is a player", HUNT, "zed", {"a": "", "b": ""}, "unknown-winner"),
]


@pytest.mark.parametrize("src,rs,winner,hands,code", SCORE_ERRORS, ids=_ids(SCORE_ERRORS))
def test_score_errors(src: str, rs: str, winner: str, hands: dict[str, str], code: str) -> None:
    with pytest.raises(ScoringError) as err:
        score_hand(resolve(rs), winner, "out", [(p, parse_cards(c.split())) for p, c in hands.items()])
    assert err.value.code == code


def test_score_impossible_cards() -> None:
    """docs/api.md#cards: two decks hold two Qs, not three."""
    with pytest.raises(ImpossibleCards):
        score_hand(resolve(HUNT), "a", "out",
                   [("a", []), ("b", parse_cards(["Qs", "Qs"])), ("c", parse_cards(["Qs"]))])


def test_table_has_a_hundred_rulings() -> None:
    total = len(VALIDATE) + len(OPENING) + len(BUILD) + len(RELEASE) + len(SCORE) + len(SCORE_ERRORS)
    assert total >= 100


# -- this turn's corrections (docs/api.md: rule sets, errors, rulings, scoring) ----------------

def test_analyze_opened_has_no_special_left() -> None:
    """docs/api.md#analyzing-a-hand: with ``opened`` true the first meld is behind the player, so
    ``can_special`` is false and going out needs no threshold; with ``opened`` false
    going out lays the opening, so ``can_go_out`` needs the threshold and equals
    ``can_special``."""
    from service.engine.solver import analyze

    hand = parse_cards(["Kh", "Ks", "Kd", "9c", "Tc", "Jc", "Qc", "2d"])  # melds all but 2d: 30 + 39 = 69
    for name in (K51, HUNT, UK, K40):
        fresh = analyze(hand, resolve(name), opened=False)
        done = analyze(hand, resolve(name), opened=True)
        assert (fresh.can_go_out, fresh.can_special) == (True, True), name
        assert (done.can_go_out, done.can_special) == (True, False), name
    low = parse_cards(["2c", "3c", "4c", "2d", "2h", "2s", "5h"])  # 9 + 6 = 15 points: under 40
    fresh, done = (analyze(low, resolve(K40), opened=o) for o in (False, True))
    assert (fresh.can_go_out, fresh.can_special) == (False, False)
    assert (done.can_go_out, done.can_special) == (True, False)


def _hunt_turn(laid_before: bool, opened: bool = False):
    from service.engine.record import parse_turn
    from service.engine.referee import check_turn

    turn = parse_turn({"player": "ann", "draw": {"from": "stock", "card": "8d"},
                       "plays": [{"meld": ["Kh", "Ks", "Kd"]}, {"meld": ["9c", "Tc", "Jc"]},
                                 {"meld": ["2d", "3d", "4d"]}, {"meld": ["5s", "6s", "7s"]}],
                       "discard": "8d"}, "turn")
    hand = parse_cards(["Kh", "Ks", "Kd", "9c", "Tc", "Jc", "2d", "3d", "4d", "5s", "6s", "7s"])
    table = [m.validate(["2c", "3c", "4c", "5c"], resolve(HUNT)).meld]
    return check_turn(resolve(HUNT), table, hand, opened, None, turn, laid_before=laid_before)


def test_special_needs_nothing_laid_before() -> None:
    """docs/api.md#special-wins, S1/S3 "alle kaarten … in een keer": a player who built or released
    in an earlier turn (kaluki-hunt builds before opening) and then lays every other card
    in one turn goes out, not special; with nothing laid before it is a Hunt. The
    records 066 (earlier build, then out) and 067 (build in the winning turn, still
    special) cover the same in whole hands."""
    assert _hunt_turn(laid_before=False).finish == "special"
    assert _hunt_turn(laid_before=True).finish == "out"
    assert _hunt_turn(laid_before=False, opened=True).finish == "out"


def test_winner_collects_multiplies_after_a_special_win() -> None:
    """docs/api.md#end-of-hand-scoring winner_collects: after a special win the winner collects the
    losers' hand values x special_multiplier (1 in kaluki-51; an override of 2 doubles it),
    and each loser also loses special_flat."""
    hands = [("ann", []), ("bob", parse_cards(["Qs", "4d"])), ("cy", parse_cards(["JK", "2c"]))]
    base = score_hand(resolve(K51), "ann", "special", hands)
    assert [(s.points, s.penalty) for s in base.scores] == [(41, 0), (-25, 0), (-25, 0)]
    doubled = score_hand(resolve(over(K51, special_multiplier=2)), "ann", "special", hands)
    assert [(s.points, s.penalty) for s in doubled.scores] == [(82, 0), (-25, 0), (-25, 0)]
    out = score_hand(resolve(over(K51, special_multiplier=2)), "ann", "out", hands)
    assert [s.points for s in out.scores] == [41, 0, 0]  # only after a special win


@pytest.mark.parametrize("value", ["yes", 1, 0, "on", "false", "true", None, 1.0])
def test_rule_parameters_take_only_their_json_type(value: Any) -> None:
    """docs/api.md#errors-and-codes: a boolean is true or false, an integer never a string or a
    boolean."""
    from service.engine.rules import InvalidParameter

    with pytest.raises(InvalidParameter):
        resolve(over(HUNT, set_distinct_suits=value))
    if not isinstance(value, int) or isinstance(value, bool):  # 1 and 0 are integers
        with pytest.raises(InvalidParameter):
            resolve(over(HUNT, run_min=value if value is not None else "3"))
    with pytest.raises(InvalidParameter):
        resolve(over(HUNT, run_min=True))


def test_buy_ins_as_independent_implementations_read_them() -> None:
    """docs/api.md#match-ledgers buy_ins_max and buy_in_min_players (kaluki-uk: 1 and 3, counting
    the player buying in): the first player out of a three-player game may buy back in at
    the highest remaining penalty, once; head to head never allows one."""
    from service.engine.match import MatchError, apply_buy_in, apply_hand, match_end_of, new_state

    uk = resolve(UK)
    assert (uk.match_end.buy_ins, uk.match_end.buy_ins_max, uk.match_end.buy_in_min_players) == (
        True, 1, 3)
    cfg = match_end_of(uk)
    s = apply_hand(new_state(["a", "b", "c"]), cfg, "a", [("a", 0, 0), ("b", 0, 155), ("c", 0, 24)])
    s = apply_buy_in(s, cfg, "b")
    assert (s.standings[1].eliminated, s.standings[1].penalty) == (False, 24)
    s = apply_hand(s, cfg, "c", [("a", 0, 2), ("b", 0, 155), ("c", 0, 0)])
    with pytest.raises(MatchError) as err:
        apply_buy_in(s, cfg, "b")
    assert err.value.code == "buy-ins-exhausted"
    two = match_end_of(uk, {"buy_ins_max": 5})
    s = apply_hand(new_state(["a", "b", "c", "d"]), two, "a",
                   [("a", 0, 0), ("b", 0, 151), ("c", 0, 151), ("d", 0, 9)])
    s = apply_buy_in(s, two, "b")  # a, d and b: three at the table
    assert s.active == ["a", "b", "d"]
    s = apply_hand(s, two, "a", [("a", 0, 0), ("b", 0, 200), ("d", 0, 200)])
    assert s.status == "finished"  # one left: the match is over before any head-to-head buy-in
    closed = match_end_of(uk, {"buy_in_min_players": 4})
    s = apply_hand(new_state(["a", "b", "c"]), closed, "a", [("a", 0, 0), ("b", 0, 155), ("c", 0, 2)])
    with pytest.raises(MatchError) as err:
        apply_buy_in(s, closed, "b")
    assert err.value.code == "buy-ins-closed"


def test_release_with_more_naturals_than_jokers() -> None:
    """docs/rulings.md: a release lays one natural per joker it
    frees. Under one_missing (S0, kaluki-51) ``["7h", "7s"]`` on ``7c 7d JK`` is
    refused (joker-not-releasable): 7h frees the joker, 7s is a build, a separate play.
    Under all_missing (S1) the same two naturals are exactly the missing suits and
    free the joker together."""
    table = m.validate(["7c", "7d", "JK"], resolve(K51)).meld
    r = m.release(table, parse_cards(["7h", "7s"]), resolve(K51))
    assert (r.legal, [v.code for v in r.violations]) == (False, ["joker-not-releasable"])
    assert m.release(table, parse_cards(["7h"]), resolve(K51)).released == 1
    hunt = m.validate(["7c", "7d", "JK"], resolve(HUNT)).meld
    r = m.release(hunt, parse_cards(["7h", "7s"]), resolve(HUNT))
    assert (r.legal, r.released, [str(c) for c in r.meld.cards]) == (True, 1, ["7c", "7d", "7h", "7s"])


def test_out_by_builds_alone_is_out() -> None:
    """docs/rulings.md: going out by builds alone, with no meld of
    one's own, is ``out``, never special: a special win is the turn of one's first
    meld (docs/api.md#special-wins), and there is none."""
    from service.engine.record import parse_turn
    from service.engine.referee import check_turn

    rules = resolve(HUNT)
    table = [m.validate(["2c", "3c", "4c"], rules).meld]
    turn = parse_turn({"player": "ann", "draw": {"from": "stock", "card": "6c"},
                       "plays": [{"build": {"meld": 0, "cards": ["5c", "6c"]}}],
                       "discard": "9h"}, "turn")
    checked = check_turn(rules, table, parse_cards(["5c", "9h"]), False, None, turn)
    assert (checked.legal, checked.finish) == (True, "out")
