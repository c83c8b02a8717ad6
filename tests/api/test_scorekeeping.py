"""SPEC §7.1 scorekeeping: names and metadata, stakes, corrections, the sheet, settlement."""

from __future__ import annotations

import uuid

import pytest

from tests.ledger.backends import (  # noqa: F401
    app,
    cluster_url,
    embedded_url,
    redis_url,
    tracker,
)


@pytest.fixture
def client(app, tracker):  # noqa: F811
    c = app.test_client()
    c.tracker = tracker
    return c


def create(client, ruleset="kaluki-hunt", players=("kim", "lou"), **extra):
    r = client.post("/v1/matches", json={"ruleset": ruleset, "players": list(players), **extra})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    client.tracker.ids.add(body["id"])
    return body["id"], body["token"], body["match"]


def auth(token, key=None, **more):
    return {"Authorization": f"Bearer {token}", "Idempotency-Key": key or uuid.uuid4().hex,
            **more}


def score(winner, finish="out", **held):
    return {"winner": winner, "finish": finish,
            "players": [{"id": p, "cards": c} for p, c in held.items()]}


def append(client, mid, token, body, key=None):
    r = client.post(f"/v1/matches/{mid}/hands", json={"score": body}, headers=auth(token, key))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def correct(client, mid, token, seq, body, key=None, **headers):
    return client.post(f"/v1/matches/{mid}/hands/{seq}/corrections", json=body,
                       headers=auth(token, key, **headers))


def problem(r, status, code):
    assert r.status_code == status, r.get_json()
    assert r.get_json()["code"] == code, r.get_json()
    return r.get_json()


# -- names and metadata (SPEC §7.1 "Names and metadata", "Stakes") --------------------------

def test_title_names_and_stakes_come_back_normalised(client):
    mid, token, m = create(client, title="Cafe\u0301 night", names={"kim": "Kim \u00c5", "lou": "=Lou"},
                           stakes={"currency": "EUR", "stake": "5", "per_point": "0.05"})
    assert m["title"] == "Caf\u00e9 night"  # NFC
    assert m["names"] == {"kim": "Kim \u00c5", "lou": "=Lou"}
    assert m["stakes"] == {"currency": "EUR", "stake": "5.00", "per_point": "0.05"}
    assert client.get(f"/v1/matches/{mid}").get_json()["title"] == "Caf\u00e9 night"
    ex = client.get(f"/v1/matches/{mid}/export", headers={"Authorization": f"Bearer {token}"})
    doc = ex.get_json()
    assert (doc["title"], doc["names"], doc["stakes"]) == (m["title"], m["names"], m["stakes"])


def test_a_match_without_metadata_shows_nulls(client):
    _, _, m = create(client)
    assert (m["title"], m["names"], m["stakes"]) == (None, {}, None)


@pytest.mark.parametrize("extra,where", [
    ({"title": ""}, "title"), ({"title": "x" * 201}, "title"), ({"title": " \u3000 "}, "title"),
    ({"title": "a\u0007b"}, "title"), ({"title": "a\nb"}, "title"), ({"title": 5}, "title"),
    ({"names": {"zed": "Zed"}}, "names.zed"), ({"names": {"kim": "k" * 65}}, "names.kim.value"),
    ({"names": {"kim": "\t"}}, "names.kim.value"),
])
def test_bad_text_is_a_validation_error(client, extra, where):
    r = client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                         **extra})
    body = problem(r, 422, "validation-error")
    assert any(k.startswith(where.split(".")[0]) for k in body["errors"]), body


def test_length_counts_code_points_after_nfc(client):
    # 200 'e' + combining acute: 400 code points as sent, 200 after NFC
    _, _, m = create(client, title="e\u0301" * 200, names={"kim": "\U0001F0CF" * 64})
    assert len(m["title"]) == 200 and len(m["names"]["kim"]) == 64


@pytest.mark.parametrize("stakes,status,code", [
    ({"currency": "XYZ"}, 422, "invalid-currency"),
    ({"currency": "eur"}, 422, "invalid-currency"),
    ({"currency": "EUR", "stake": 5}, 422, "validation-error"),  # a JSON number
    ({"currency": "EUR", "stake": "5.001"}, 422, "validation-error"),
    ({"currency": "EUR", "stake": "-1"}, 422, "validation-error"),
    ({"currency": "EUR", "stake": "1e3"}, 422, "validation-error"),
    ({"currency": "JPY", "stake": "5.0"}, 422, "validation-error"),  # JPY has no minor digits
    ({"currency": "EUR", "bonus": "1"}, 422, "validation-error"),
    ({"stake": "1"}, 422, "validation-error"),
])
def test_bad_stakes(client, stakes, status, code):
    r = client.post("/v1/matches", json={"ruleset": "kaluki-hunt", "players": ["kim", "lou"],
                                         "stakes": stakes})
    problem(r, status, code)


def test_amounts_written_to_the_minor_unit(client):
    _, _, m = create(client, stakes={"currency": "KWD", "stake": "1.5", "buy_in": "0"})
    assert m["stakes"] == {"currency": "KWD", "stake": "1.500", "buy_in": "0.000"}
    _, _, m = create(client, stakes={"currency": "JPY", "per_hand": "100"})
    assert m["stakes"] == {"currency": "JPY", "per_hand": "100"}
