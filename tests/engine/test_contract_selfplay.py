"""Self-play under kalooki-jamaica (docs/api.md#contract-rule-sets): the bot plays hands with calls,
lays and joker shifts, three to eight seats, every round; the referee must rule each legal, and a
copy with one card or play changed must be ruled at exactly the fault the change made."""

from __future__ import annotations

import copy
import random

import pytest

from service.engine.cards import JOKER
from service.engine.record import parse_record
from service.engine.referee import adjudicate
from service.engine.rules import CATALOG
from service.engine.selfplay import Bot
from tests.engine.oracle import where

JAM = CATALOG["kalooki-jamaica"]
HANDS = 45


def _bots() -> list[Bot]:
    out = []
    for seed in range(HANDS):
        seats = JAM.players_min + seed % (JAM.players_max - JAM.players_min + 1)
        bot = Bot(JAM, [f"p{i}" for i in range(seats)], seed=7000 + seed,
                  round=1 + seed % JAM.rounds)
        bot.play()
        out.append(bot)
    return out


def _mutations(bot: Bot, data: dict, rng: random.Random):
    """(kind, mutated record, expected first violation) for each change that applies."""
    turns = data["turns"]
    steps: list = []
    adjudicate(parse_record(data), steps)
    out = []
    # a joker discarded (docs/api.md#contract-rule-sets joker-discard) by a player who held one
    held = [i for i, t in enumerate(turns) if "discard" in t and bot.before_discard[i][JOKER]]
    if held:
        i = rng.choice(held)
        m = copy.deepcopy(data)
        m["turns"][i]["discard"] = "JK"
        out.append(("joker-discard", m, ("joker-discard", i, None)))
    # a lay with one meld left out (docs/api.md#contract-rule-sets contract-not-met)
    lays = [(i, j) for i, t in enumerate(turns) for j, p in enumerate(t["plays"]) if "lay" in p]
    if lays:
        i, j = rng.choice(lays)
        m = copy.deepcopy(data)
        m["turns"][i]["plays"][j]["lay"].pop()
        out.append(("lay-short", m, ("contract-not-met", i, j)))
    # a down player's stock draw turned into a discard pickup (docs/api.md#contract-rule-sets
    # discard-after-down)
    down = [i for i, t in enumerate(turns) if bot.down_at[i] and "call" not in t
            and t["draw"]["from"] == "stock" and "restock" not in t]
    if down:
        i = rng.choice(down)
        m = copy.deepcopy(data)
        m["turns"][i]["draw"] = {"from": "discard"}
        out.append(("pickup-after-down", m, ("discard-after-down", i, None)))
    # the player to move calls (docs/api.md#contract-rule-sets call-own-turn; call-no-discard when
    # the pile is empty)
    quiet = [i for i, t in enumerate(turns) if "call" not in t]
    if quiet:
        i = rng.choice(quiet)
        m = copy.deepcopy(data)
        m["turns"][i]["call"] = {"player": turns[i]["player"], "granted": True}
        expect = "call-own-turn" if steps[i].discard_count else "call-no-discard"
        out.append(("own-call", m, (expect, i, None)))
    # a granted call refused: the player to move must take the discard (call-refused-draw),
    # which a down player may not (discard-after-down)
    granted = [i for i, t in enumerate(turns) if t.get("call", {}).get("granted")]
    if granted:
        i = rng.choice(granted)
        m = copy.deepcopy(data)
        m["turns"][i]["call"] = {"player": turns[i]["call"]["player"], "granted": False}
        expect = "discard-after-down" if bot.down_at[i] else "call-refused-draw"
        out.append(("refused", m, (expect, i, None)))
    # a granted call's penalty card named wrong (stock-mismatch: the stock is known)
    named = [i for i, t in enumerate(turns) if t.get("call", {}).get("penalty")]
    if named:
        i = rng.choice(named)
        m = copy.deepcopy(data)
        true = m["turns"][i]["call"]["penalty"][0]
        wrong = "2c" if true != "2c" else "3c"
        m["turns"][i]["call"]["penalty"] = [wrong]
        out.append(("penalty", m, ("stock-mismatch", i, None)))
    return out


@pytest.mark.slow
def test_jamaican_self_play_is_legal_and_mutations_are_caught() -> None:
    rng = random.Random("kalooki-jamaica")
    finished = special = calls = shifts = 0
    kinds: set[str] = set()
    for bot in _bots():
        data = bot.record()
        ruling = adjudicate(parse_record(data))
        assert ruling.legal, (data["round"], where(ruling))
        calls += sum(1 for t in data["turns"] if "call" in t)
        shifts += sum(1 for t in data["turns"] for p in t["plays"] if "shift" in p)
        if ruling.result:
            finished += 1
            special += ruling.result.finish == "special"
            assert ruling.result.winner == bot.winner
        for kind, m, expect in _mutations(bot, data, rng):
            kinds.add(kind)
            assert where(adjudicate(parse_record(m))) == expect, (kind, data["round"])
    assert finished >= HANDS // 2 and special >= 1
    assert calls >= HANDS and shifts >= 3
    assert kinds == {"joker-discard", "lay-short", "pickup-after-down", "own-call", "refused",
                     "penalty"}
