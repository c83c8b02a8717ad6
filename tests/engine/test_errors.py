"""The engine's one error base (service/engine/errors.py): every error it raises is an
EngineError with a stable code, a field when it knows one, and its facts as params."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

import service.engine
from service.engine.cards import ImpossibleCards, InvalidCard, check_deck, parse_card
from service.engine.errors import EngineError
from service.engine.rules import InvalidParameter, UnknownRuleSet, resolve

CODE = r"^[a-z]+(-[a-z]+)*$"


def _engine_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.iter_modules(service.engine.__path__):
        module = importlib.import_module(f"service.engine.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found.append(obj)
    return found


def test_every_engine_exception_is_an_engine_error_with_a_code() -> None:
    classes = _engine_exceptions()
    assert len(classes) >= 10
    for cls in classes:
        assert issubclass(cls, EngineError) and issubclass(cls, ValueError), cls
        assert isinstance(cls.code, str) and cls.code, cls


@given(st.text(max_size=6))
def test_a_card_either_reads_or_is_an_invalid_card(text: str) -> None:
    try:
        card = parse_card(text)
    except InvalidCard as exc:
        assert exc.code == "invalid-card" and exc.field is None
        assert set(exc.params) == {"text", "reason"} and " is not a card: " in str(exc)
    else:
        assert parse_card(str(card)) == card


def test_at_names_a_place_only_when_the_error_does_not_know_one() -> None:
    with pytest.raises(ImpossibleCards) as info:
        check_deck([parse_card("7h")] * 3, 1, 2)
    exc = info.value
    assert (exc.code, exc.field, exc.params) == ("impossible-cards", None,
                                                 {"card": "7h", "count": 3, "limit": 1})
    assert exc.at("cards").field == "cards" and exc.at("hand").field == "cards"


def test_rule_set_errors_say_where() -> None:
    with pytest.raises(UnknownRuleSet) as unknown:
        resolve("gin")
    assert (unknown.value.code, unknown.value.field) == ("unknown-ruleset", "ruleset")
    with pytest.raises(InvalidParameter) as bad:
        resolve({"base": "kaluki-51", "overrides": {"run_min": 0}})
    assert (bad.value.code, bad.value.field) == ("invalid-parameter", "ruleset.overrides.run_min")
    assert bad.value.params["name"] == "run_min"
