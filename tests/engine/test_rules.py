"""Rule sets as data (service.engine.rules): modes are enums that read and render as strings."""

from __future__ import annotations

import dataclasses
from enum import StrEnum

import jsonschema
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine.rules import (
    CATALOG,
    PARAMS,
    PARAMS_BY_NAME,
    AceMode,
    Choice,
    Integer,
    InvalidParameter,
    InvalidRound,
    MatchEndMode,
    Param,
    ReleasedJokerMode,
    RoundRequired,
    RuleSet,
    resolve,
)


def test_every_choice_is_an_enum_whose_values_are_the_published_choices() -> None:
    for p in PARAMS:
        if isinstance(p.kind, Choice):
            assert issubclass(p.kind.modes, StrEnum)
            assert p.kind.choices == tuple(m.value for m in p.kind.modes)
            for rules in CATALOG.values():
                assert type(rules.param(p.name)) is p.kind.modes


def test_an_override_is_read_as_its_mode() -> None:
    rules = resolve({"base": "kaluki-hunt", "overrides": {"ace": "around", "match_end": "goal"}})
    assert rules.ace is AceMode.AROUND and rules.match_end.mode is MatchEndMode.GOAL
    with pytest.raises(InvalidParameter) as e:
        resolve({"base": "kaluki-hunt", "overrides": {"ace": "sideways"}})
    assert e.value.field == "ruleset.overrides.ace"


def test_modes_render_as_their_strings() -> None:
    """GET /v1/rulesets publishes plain strings; a mode in any answer serialises as one."""
    for rules in CATALOG.values():
        published = rules.to_dict()
        assert not any(isinstance(v, StrEnum) for v in published.values())
        assert orjson.dumps(rules.released_joker) == orjson.dumps(rules.released_joker.value)
    assert orjson.dumps({"must_use": ReleasedJokerMode.NEW_MELD}) == b'{"must_use":"new_meld"}'


# -- contract rule sets (docs/api.md#contract-rule-sets) ---------------------------------------

JAMAICA = CATALOG["kalooki-jamaica"]
CONTRACT_PARAMS = {"contracts": None, "deal_sizes": "contract", "deck_by_players": None,
                   "contract_distinct": False, "melds_after_contract": True,
                   "run_jokers_adjacent": True, "joker_shift": "none", "joker_discard": True,
                   "call_max": 0, "call_penalty_cards": 1, "discard_after_down": True}


def test_the_contract_parameters_default_to_the_classic_game() -> None:
    """docs/api.md#contract-rule-sets: the new parameters' defaults leave the other rule sets as
    they are."""
    for rules in CATALOG.values():
        if rules is JAMAICA:
            continue
        published = rules.to_dict()
        assert {k: published[k] for k in CONTRACT_PARAMS} == CONTRACT_PARAMS
        assert set(published["card_values"]) == {"ace", "face", "joker"}  # no ace_red
        assert not rules.is_contract and rules.rounds == 0
        assert rules.hand_cap() == rules.hand_size + 1 and rules.deal_size() == rules.hand_size
        assert rules.deck_for(3) == rules.deck_for(None) == (rules.decks, rules.jokers)
        assert rules.check_round(None) is None


def test_kalooki_jamaica_is_the_spec_entry() -> None:
    """docs/api.md#contract-rule-sets catalog entry kalooki-jamaica, value by value."""
    p = JAMAICA.to_dict()
    assert (p["players_min"], p["players_max"]) == (3, 8)
    assert p["contracts"] == ["333", "334", "344", "444", "3333", "3334", "3344", "3444", "4444"]
    assert p["deal_sizes"] == "contract"
    assert [JAMAICA.deal_size(r) for r in range(1, 10)] == [9, 10, 11, 12, 12, 13, 14, 15, 16]
    assert p["deck_by_players"] == [{"players_max": 4, "decks": 2, "jokers": 4},
                                    {"players_max": 6, "decks": 3, "jokers": 8},
                                    {"players_max": 8, "decks": 4, "jokers": 10}]
    assert (p["decks"], p["jokers"], p["hand_size"]) == (2, 4, 16)
    assert (p["set_distinct_suits"], p["set_max"], p["set_min"], p["set_min_naturals"]) == (False, None, 3, 2)
    assert (p["run_min"], p["run_max"], p["run_min_naturals"], p["ace"]) == (4, 13, 2, "high_or_low")
    assert p["run_jokers_adjacent"] is False and p["contract_distinct"] is True
    assert p["melds_after_contract"] is False and p["build_requires_opening"] is True
    assert (p["release_set"], p["release_run"], p["joker_shift"]) == ("never", "never", "run_end")
    assert p["joker_discard"] is False and p["discard_after_down"] is False
    assert (p["call_max"], p["call_penalty_cards"], p["discard_pickup"]) == (3, 1, "free")
    assert (p["final_discard"], p["special_win"], p["special_multiplier"]) == ("optional", "down-and-out", 1)
    assert p["card_values"] == {"ace": 15, "face": 10, "joker": 50, "ace_red": 1}
    assert (p["scoring"], p["match_end"]) == ("penalty", "contracts")
    for site in ("Wikipedia", "pagat", "Caribbean Kalooki", "denexa", "kalooki.net", "gamerules",
                 "superkalooki"):
        assert site in JAMAICA.source


def test_contract_accessors() -> None:
    """docs/api.md#contract-rule-sets: "3344" is two threes and two fours; the deck grows with the
    seats (the first row whose players_max >= the seats; no seat count: the last row); the hand
    cap."""
    assert JAMAICA.contract(7) == (2, 2) and JAMAICA.contract_text(7) == "3344"
    assert JAMAICA.contract(1) == (3, 0) and JAMAICA.contract(9) == (0, 4)
    assert [JAMAICA.deck_for(n) for n in (3, 4, 5, 6, 7, 8)] == [(2, 4)] * 2 + [(3, 8)] * 2 + [(4, 10)] * 2
    assert JAMAICA.deck_for(None) == (4, 10) and JAMAICA.deck_size_for(5) == 164
    assert JAMAICA.hand_cap(9) == 16 + 1 + 3 * 2 and JAMAICA.hand_cap(1) == 9 + 1 + 6
    assert JAMAICA.hand_cap() == JAMAICA.hand_cap(9)
    sized = resolve({"base": "kalooki-jamaica", "overrides": {"deal_sizes": [10] * 9}})
    assert sized.deal_size(1) == 10


def test_round_is_checked() -> None:
    """docs/api.md#contract-rule-sets: a contract rule set needs round (round-required),
    1..len(contracts); a rule set without contracts takes none (invalid-round)."""
    with pytest.raises(RoundRequired) as e:
        JAMAICA.check_round(None)
    assert e.value.code == "round-required" and e.value.field == "round"
    for bad in (0, 10, True, "1", 1.0):
        with pytest.raises(InvalidRound) as e2:
            JAMAICA.check_round(bad)
        assert e2.value.code == "invalid-round"
    with pytest.raises(InvalidRound):
        CATALOG["kaluki-51"].check_round(1)
    assert JAMAICA.check_round(9) == 9


@pytest.mark.parametrize("overrides,named", [
    # docs/api.md#contract-rule-sets: one deal size per round
    ({"deal_sizes": [9, 10]}, "deal_sizes"),
    ({"contracts": ["333", "44"]}, "contracts"),          # valid: deal sizes "contract" follow
    ({"contracts": ["335"]}, "contracts"),                # a digit other than 3 or 4
    ({"contracts": ["3", ""]}, "contracts"),
    ({"contracts": []}, "contracts"),
    ({"contracts": "333"}, "contracts"),
    ({"decks": 3}, "decks"),                              # decks/jokers = deck_by_players' first row
    ({"jokers": 6}, "jokers"),
    ({"deck_by_players": [{"players_max": 8, "decks": 2, "jokers": 4}]}, "deck_by_players"),
    ({"deck_by_players": [{"players_max": 4, "decks": 2, "jokers": 4},
                          {"players_max": 4, "decks": 3, "jokers": 8}]}, "deck_by_players"),
    ({"deck_by_players": [{"players_max": 4, "decks": 2, "jokers": 40}]}, "deck_by_players"),
    ({"deck_by_players": [{"players_max": 4, "decks": 2}]}, "deck_by_players"),
    ({"deck_by_players": []}, "deck_by_players"),
    ({"deck_by_players": None}, "deck_by_players"),       # 2 decks + 4 jokers cannot seat 8 x 16
    ({"contracts": None}, "contracts"),                   # match_end contracts needs contracts
    ({"match_end": "hands"}, "match_end"),                # a contract match ends after its last deal
    ({"joker_shift": "anywhere"}, "joker_shift"),
    ({"call_max": 11}, "call_max"),
    ({"call_penalty_cards": -1}, "call_penalty_cards"),
    ({"set_max": 1}, "set_max"),
    ({"card_values": {"ace_red": 101}}, "card_values"),
    ({"discard_after_down": 1}, "discard_after_down"),
])
def test_contradicting_contract_values_are_refused(overrides: dict, named: str) -> None:
    """docs/api.md#rule-sets-and-overrides, docs/api.md#contract-rule-sets: a value out of range or
    contradicting another is invalid-parameter, naming the parameter the request sent."""
    if overrides == {"contracts": ["333", "44"]}:  # a valid override: deal sizes follow
        rules = resolve({"base": "kalooki-jamaica", "overrides": overrides})
        assert rules.rounds == 2 and rules.deal_size(2) == 8
        return
    with pytest.raises(InvalidParameter) as e:
        resolve({"base": "kalooki-jamaica", "overrides": overrides})
    assert e.value.field == f"ruleset.overrides.{named}"


def test_contract_overrides_express_house_variants() -> None:
    """docs/api.md#contract-rule-sets: overrides express extra melds when going down, aces reversed,
    bigger decks, doubling (superkalooki), and contracts on another base."""
    r = resolve({"base": "kalooki-jamaica", "overrides": {
        "melds_after_contract": True, "card_values": {"ace": 1, "ace_red": 15},
        "special_multiplier": 2, "deck_by_players": [
            {"players_max": 4, "decks": 2, "jokers": 4}, {"players_max": 8, "decks": 4, "jokers": 8}]}})
    assert r.melds_after_contract and r.card_values.ace_red == 15 and r.deck_for(5) == (4, 8)
    assert resolve({"base": "kalooki-jamaica", "overrides": {"card_values": {"ace_red": None}}}) \
        .to_dict()["card_values"] == {"ace": 15, "face": 10, "joker": 50}
    classic = resolve({"base": "kaluki-hunt", "overrides": {"contracts": ["333", "334"],
                                                            "match_end": "contracts"}})
    assert classic.is_contract and classic.deal_size(2) == 10
    with pytest.raises(InvalidParameter) as e:
        resolve({"base": "kaluki-hunt", "overrides": {"deal_sizes": [9]}})
    assert e.value.field == "ruleset.overrides.deal_sizes"
    with pytest.raises(InvalidParameter):
        resolve({"base": "kaluki-hunt", "overrides": {"match_end": "contracts"}})


def test_override_lists_are_cached_apart() -> None:
    """Lists are frozen for the cache; true and 1 stay apart."""
    a = resolve({"base": "kalooki-jamaica", "overrides": {"deal_sizes": [10] * 9}})
    b = resolve({"base": "kalooki-jamaica", "overrides": {"deal_sizes": [10] * 9}})
    assert a is b
    with pytest.raises(InvalidParameter):
        resolve({"base": "kalooki-jamaica", "overrides": {"deal_sizes": [True] * 9}})


def test_a_too_small_deck_names_the_parameter_sent() -> None:
    """docs/api.md#rule-sets-and-overrides (issue 19 item 7): a value that contradicts another names
    the parameter the request sent and says why: kaluki-uk (5 seats × 13 cards) with one deck (54
    cards)."""
    with pytest.raises(InvalidParameter) as e:
        resolve({"base": "kaluki-uk", "overrides": {"decks": 1}})
    assert e.value.field == "ruleset.overrides.decks"
    assert e.value.params["name"] == "decks"
    assert "54 cards" in e.value.reason and "players_max 5 × hand_size 13 = 65" in e.value.reason


@pytest.mark.parametrize("overrides,named", [
    ({"jokers": 0, "decks": 1}, "decks"),  # both sent: the first of the contradiction's own order
    ({"jokers": 0, "hand_size": 20, "decks": 1}, "hand_size"),
    ({"players_max": 5, "decks": 1}, "decks"),
    ({"players_min": 3, "players_max": 2}, "players_min"),
    ({"players_max": 1}, "players_max"),
    ({"set_max": 2}, "set_max"),
    ({"set_min": 5}, "set_min"),
    ({"run_max": 3}, "run_max"),
    ({"run_min": 3, "run_min_naturals": 4}, "run_min_naturals"),
    ({"run_min": 3, "run_max": 3, "run_min_naturals": 3}, None),
    ({"set_min": 2, "set_min_naturals": 3}, "set_min_naturals"),
    ({"set_distinct_suits": True, "set_min": 5, "set_max": 6}, "set_min"),
])
def test_a_contradiction_names_a_parameter_sent(overrides: dict[str, object], named: str | None) -> None:
    """docs/api.md#rule-sets-and-overrides (issue 19 item 7), generalised: whichever parameters
    contradict, the one named is one the request sent."""
    base = "kaluki-51" if "players_max" not in overrides else "kaluki-uk"
    if named is None:
        resolve({"base": base, "overrides": overrides})
        return
    with pytest.raises(InvalidParameter) as e:
        resolve({"base": base, "overrides": overrides})
    assert e.value.params["name"] == named and named in overrides
    assert e.value.field == f"ruleset.overrides.{named}"


def test_a_contradiction_under_any_overrides_names_a_parameter_sent() -> None:
    """Every pair of contradicting values, sent in either role: the named one was sent."""
    from hypothesis import given
    from hypothesis import strategies as st

    @given(st.fixed_dictionaries({}, optional={
        "players_min": st.integers(2, 8), "players_max": st.integers(2, 8),
        "decks": st.integers(1, 3), "jokers": st.integers(0, 4), "hand_size": st.integers(7, 20),
        "set_min": st.integers(2, 6), "set_max": st.integers(2, 8),
        "set_distinct_suits": st.booleans(), "run_min": st.integers(3, 6),
        "run_max": st.integers(3, 14), "set_min_naturals": st.integers(1, 4),
        "run_min_naturals": st.integers(1, 4)}), st.sampled_from(sorted(CATALOG)))
    def check(overrides: dict[str, object], base: str) -> None:
        try:
            resolve({"base": base, "overrides": overrides})
        except InvalidParameter as exc:
            assert exc.params["name"] in overrides, (base, overrides, str(exc))

    check()


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 1_000_002) | st.sampled_from(
        ["represented", "contract", "333", "3344", "34", "high", "never", "run_end", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["ace", "face", "joker", "ace_red", "players_max", "decks", "jokers",
                         "queen"]), inner, max_size=4),
    max_leaves=8)


def _edges(p: Param) -> list[object]:
    """The values around a kind's bounds (integers) or its choices."""
    kind = p.kind
    if isinstance(kind, Integer):
        return [kind.minimum - 1, kind.minimum, kind.maximum, kind.maximum + 1]
    if isinstance(kind, Choice):
        return [*kind.choices, kind.choices[0].upper()]
    return [None]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_a_kinds_json_schema_accepts_what_its_check_accepts(data: st.DataObject) -> None:
    """Each parameter kind's check and its JSON schema (the OpenAPI ``RuleSetParameters``)
    are one definition: a value the rule set takes as an override the schema accepts, and
    (but for ``deck_by_players``' rising rows, which no JSON schema expresses) the other way
    round. No floats: a JSON schema's "integer" takes 3.0, the strict parser does not."""
    p = data.draw(st.sampled_from(PARAMS))
    value = data.draw(st.sampled_from(_edges(p)) | _JSON_VALUES)
    try:
        resolve({"base": "kalooki-jamaica" if p.kind.listed else "kaluki-uk",
                 "overrides": {p.name: value}})
        taken = True
    except InvalidParameter as exc:
        taken = exc.name != p.name  # refused as a contradiction with another parameter
    schema_ok = jsonschema.Draft202012Validator(p.kind.json_schema()).is_valid(value)
    if taken:
        assert schema_ok, (p.name, value)
    elif p.name != "deck_by_players":
        assert not schema_ok or _refused_by_contradiction(p, value), (p.name, value)


def _refused_by_contradiction(p: Param, value: object) -> bool:
    """A value the kind takes that the rule set refuses only against its other parameters."""
    held = p.kind.read(p.name, value, CATALOG["kaluki-uk"].param(p.name))
    try:
        p.check(held)
    except InvalidParameter:
        return False
    return True


def test_kinds_describe_their_values() -> None:
    described = {p.name: p.described for p in PARAMS}
    assert described["players_max"] == "most players at the table; an integer from 2 to 8"
    assert described["set_max"].endswith("; an integer from 2 to 8 or null")
    assert described["ace"].endswith("; one of high, low, high_or_low, around")
    assert described["card_values"].endswith("; each an integer from 0 to 100")
    assert PARAMS_BY_NAME["deck_by_players"].kind.json_schema()["anyOf"][0]["items"][
        "properties"]["decks"] == {"type": "integer", "minimum": 1, "maximum": 4}


def test_a_rule_set_built_in_python_refuses_a_wrong_type_with_the_parameters_error() -> None:
    """A list where an object belongs is InvalidParameter naming it, not a crash; a list
    where a list belongs is held as a tuple."""
    with pytest.raises(InvalidParameter, match="card_values: must be"):
        RuleSet(name="x", source="test", card_values=[1])  # type: ignore[arg-type]
    rules = CATALOG["kalooki-jamaica"]
    assert dataclasses.replace(rules, contracts=list(rules.contracts)).contracts == rules.contracts
