"""Self-play: a bot plays hundreds of random legal hands under every catalog rule set;
the referee must rule each legal, and must rule a one-move mutation exactly as an
independent check of that move says."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from service.engine.cards import Card, full_deck
from service.engine.record import parse_record
from service.engine.referee import adjudicate
from service.engine.rules import CATALOG
from service.engine.selfplay import Bot
from tests.engine.oracle import where

HANDS_PER_RULESET = 75  # 300 hands in all
ALL_CARDS = sorted(set(full_deck(1, 1)))

CLASSIC = [n for n, r in CATALOG.items() if not r.is_contract]  # contract self-play: the game half


def _bots(name: str) -> list[Bot]:
    rules = CATALOG[name]
    out = []
    for seed in range(HANDS_PER_RULESET):
        seats = rules.players_min + seed % (rules.players_max - rules.players_min + 1)
        bot = Bot(rules, [f"p{i}" for i in range(seats)], seed=1000 * sorted(CLASSIC).index(name) + seed)
        bot.play()
        out.append(bot)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_self_play_hands_are_legal_and_mutations_are_caught(name: str) -> None:
    rng = random.Random(name)
    finished = special = mutations = 0
    for bot in _bots(name):
        data = bot.record()
        ruling = adjudicate(parse_record(data))
        assert ruling.legal, (bot.rng, where(ruling))
        if ruling.result:
            finished += 1
            special += ruling.result.finish == "special"
            assert ruling.result.winner == bot.winner
        turns = data["turns"]
        if len(turns) < 2:
            continue
        kind = rng.choice(["draw", "discard-card", "discard-dropped"])
        mutations += 1
        m = copy.deepcopy(data)
        if kind == "draw":
            # a wrong stock draw, before any restock: legal only if it names the true top card
            first_restock = next((i for i, t in enumerate(turns) if "restock" in t), len(turns))
            stock_turns = [i for i in range(first_restock) if turns[i]["draw"]["from"] == "stock"]
            if not stock_turns:
                continue
            i = rng.choice(stock_turns)
            top = data["stock"][stock_turns.index(i)]
            card = rng.choice(ALL_CARDS)
            m["turns"][i]["draw"] = {"from": "stock", "card": str(card)}
            expected = None if str(card) == top else ("stock-mismatch", i, None)
            got = adjudicate(parse_record(m))
            assert where(got) == expected
        elif kind == "discard-card":
            # another card discarded: illegal at once exactly when the player does not hold it
            candidates = [i for i, t in enumerate(turns) if "discard" in t]
            if not candidates:
                continue
            i = rng.choice(candidates)
            held: Counter[Card] = bot.before_discard[i]
            card = rng.choice(sorted(held) + ALL_CARDS)
            m["turns"][i]["discard"] = str(card)
            got = adjudicate(parse_record(m))
            if held[card] == 0:
                assert where(got) == ("card-not-in-hand", i, None)
            elif card == bot.taken[i]:
                assert where(got) == ("discard-just-taken", i, None)
            else:  # the move itself is legal: any fault comes later
                assert got.legal or got.violation.where["turn"] > i
        else:
            # the discard of a turn dropped: the turn did not end
            candidates = [i for i, t in enumerate(turns[:-1]) if "discard" in t]
            if not candidates:
                continue
            i = rng.choice(candidates)
            del m["turns"][i]["discard"]
            assert where(adjudicate(parse_record(m))) == ("discard-missing", i, None)
    assert finished >= HANDS_PER_RULESET // 4
    assert mutations >= HANDS_PER_RULESET // 2
