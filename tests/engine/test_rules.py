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
