"""Views (docs/api.md#views): /hands/adjudicate?view=P shows P's cards
and only counts for everyone else, in `state` and every step; ?spectator=true shows no hand.

The check is by content, not only by shape: every card that only ever sat in another
player's hand (never on the table, the discard pile or in a public play) must appear
nowhere in the answer's text."""

from __future__ import annotations

import json
import random

import pytest

from service.engine.notation import MEDIA_TYPE, data_to_text
from service.engine.rules import CATALOG
from service.engine.selfplay import Bot


def _record(name: str, seed: int, cut: float) -> dict:
    rules = CATALOG[name]
    seats = rules.players_min + seed % (rules.players_max - rules.players_min + 1)
    data = Bot(rules, [f"p{i}" for i in range(seats)], seed=seed).play()
    data["turns"] = data["turns"][:max(1, int(cut * len(data["turns"])))]
    return data


def _adjudicate(client, data, query: str, notation: bool = False):
    if notation:
        return client.post(f"/v1/hands/adjudicate?{query}", data=data_to_text(data),
                           content_type=MEDIA_TYPE)
    return client.post(f"/v1/hands/adjudicate?{query}", json=data)


def _public(full: dict) -> set[str]:
    """Every card the referee's answer shows outside the hands: the table, discard tops,
    the plays and discards of every turn, cards drawn from the discard pile."""
    out: set[str] = set()
    for step in full["steps"]:
        state = step["state"]
        for meld in state["table"]:
            out.update(c.split("=")[0] for c in meld["cards"])
        if state["discard_top"]:
            out.add(state["discard_top"])
        played = step["played"] or {}
        if played.get("discard"):
            out.add(played["discard"])
        if (played.get("draw") or {}).get("from") == "discard":
            out.add(played["draw"]["card"])
        text = json.dumps(played.get("plays", []))
        out.update(w for w in text.replace('"', " ").replace(",", " ").replace("]", " ")
                   .replace("[", " ").replace("}", " ").replace("{", " ").split()
                   if len(w) == 2 and w != "JK")
    out.add("JK")
    return out


def _hidden(full: dict, viewer: str | None) -> set[str]:
    """Cards that only ever sat in another player's hand (not the viewer's, never public)."""
    others: set[str] = set()
    own: set[str] = set()
    for step in [*full["steps"], {"state": full["state"]}]:
        for hand in step["state"]["hands"]:
            (own if hand["id"] == viewer else others).update(hand["cards"])
    return others - own - _public(full)


def _check_view(client, data, viewer: str | None, notation: bool = False) -> None:
    full = _adjudicate(client, data, "steps=true").get_json()
    query = "steps=true&" + (f"view={viewer}" if viewer else "spectator=true")
    r = _adjudicate(client, data, query, notation)
    assert r.status_code == 200, r.get_json()
    seen = r.get_json()
    assert seen["legal"] == full["legal"] and seen["result"] == full["result"]
    for step in [*seen["steps"], {"state": seen["state"], "played": None}]:
        for hand in step["state"]["hands"]:
            assert "count" in hand
            assert ("cards" in hand) == (hand["id"] == viewer), hand
            if "cards" in hand:
                assert len(hand["cards"]) == hand["count"]
        played = step["played"] or {}
        assert "restock" not in played
        if (played.get("draw") or {}).get("from") == "stock" and played["player"] != viewer:
            assert "card" not in played["draw"]
    text = json.dumps(seen)
    leaked = {c for c in _hidden(full, viewer) if f'"{c}"' in text}
    assert not leaked, leaked
    # the counts agree with the referee's view
    for a, b in zip(seen["steps"], full["steps"], strict=True):
        assert [h["count"] for h in a["state"]["hands"]] == [len(h["cards"])
                                                           for h in b["state"]["hands"]]


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_a_players_view_and_a_spectators_show_no_other_hand(client, name) -> None:
    rng = random.Random(name)
    for _ in range(3):
        data = _record(name, rng.randint(0, 10_000), rng.random())
        _check_view(client, data, rng.choice(data["players"]))
        _check_view(client, data, None)


def test_views_of_a_notation_body(client) -> None:
    data = _record("kaluki-hunt", 7, 0.6)
    _check_view(client, data, data["players"][1], notation=True)
    _check_view(client, data, None, notation=True)


def test_the_referees_view_shows_every_hand(client) -> None:
    data = _record("kaluki-51", 3, 0.5)
    answer = _adjudicate(client, data, "steps=true").get_json()
    assert all("cards" in h for h in answer["state"]["hands"])
    assert any("card" in (s["played"] or {}).get("draw", {}) for s in answer["steps"])


@pytest.mark.parametrize("query, code", [
    ("view=nobody", "unknown-player"),
    ("view=p0&spectator=true", "validation-error"),
    ("spectator=yes", "validation-error"),
])
def test_bad_views_are_problems(client, query, code) -> None:
    data = _record("kaluki-hunt", 1, 0.3)
    for notation in (False, True):
        r = _adjudicate(client, data, query, notation)
        assert r.status_code == 422 and r.get_json()["code"] == code, r.get_json()


def test_a_view_without_steps(client) -> None:
    data = _record("kalooki-40", 5, 0.5)
    full = _adjudicate(client, data, "steps=false").get_json()
    seen = _adjudicate(client, data, f"view={data['players'][0]}").get_json()
    hands = seen["state"]["hands"]
    assert "cards" in hands[0] and all("cards" not in x for x in hands[1:])
    assert [x["count"] for x in hands] == [len(x["cards"]) for x in full["state"]["hands"]]
    assert "steps" not in seen


def test_a_callers_penalty_cards_are_private(client) -> None:
    """docs/api.md#contract-rule-sets: a caller's penalty cards are private cards, hidden in other
    players' views (the step's played call shows no penalty, as another player's stock draw shows no
    card)."""
    from tests.api.test_contract_referee import RECORD

    def call_of(query: str) -> dict:
        r = _adjudicate(client, RECORD, f"steps=true&{query}")
        assert r.status_code == 200, r.get_json()
        return r.get_json()["steps"][1]["played"]["call"]

    assert call_of("view=cy") == {"player": "cy", "granted": True, "penalty": ["As"]}
    for query in ("view=ann", "view=bob", "spectator=true"):
        assert call_of(query) == {"player": "cy", "granted": True}
        r = _adjudicate(client, RECORD, f"steps=true&{query}", notation=True)
        assert '"As"' not in json.dumps(r.get_json())
    _check_view(client, RECORD, "ann")
    _check_view(client, RECORD, None)
