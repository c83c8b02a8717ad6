"""Rule sets as data (service.engine.rules): modes are enums that read and render as strings."""

from __future__ import annotations

from enum import StrEnum

import orjson
import pytest

from service.engine.rules import (
    CATALOG,
    PARAMS,
    AceMode,
    InvalidParameter,
    MatchEndMode,
    ReleasedJokerMode,
    resolve,
)


def test_every_choice_is_an_enum_whose_values_are_the_published_choices() -> None:
    for p in PARAMS:
        if p.kind == "choice":
            assert p.modes is not None and issubclass(p.modes, StrEnum)
            assert p.choices == tuple(m.value for m in p.modes)
            for rules in CATALOG.values():
                assert type(rules.param(p.name)) is p.modes


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


def test_a_too_small_deck_names_the_parameter_sent() -> None:
    """SPEC §3 (issue 19 item 7): a value that contradicts another names the parameter the
    request sent and says why: kaluki-uk (5 seats × 13 cards) with one deck (54 cards)."""
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
    """SPEC §3 (issue 19 item 7), generalised: whichever parameters contradict, the one named
    is one the request sent."""
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
