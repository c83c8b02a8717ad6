"""Table melds are remembered once read (service/engine/rulings.py ``table_meld_at``): a
remembered reading is the reading itself, per rule set, and a refusal is never remembered
(docs/api.md#checking-one-turn: every table meld must itself be legal)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.engine import rulings
from service.engine.cards import RANKS, SUITS
from service.engine.errors import EngineError
from service.engine.rules import CATALOG, RuleSet, resolve

CARD_TEXTS = [r + s for r in RANKS for s in SUITS] + ["JK", "JK=Qh", "JK=7"]
RULE_SETS = st.sampled_from([*CATALOG.values(),
                             resolve({"base": "kaluki-hunt", "overrides": {"ace": "around"}}),
                             resolve({"base": "kaluki-51", "overrides": {"ace": "low"}})])


def _reading(texts: list[str], rules: RuleSet) -> object:
    """What reading the meld gives: the meld, or the refusal's code and field."""
    try:
        return rulings.table_meld_at(texts, rules, "table.3")
    except EngineError as exc:
        return (exc.code, exc.field, str(exc))


RUNS = [[RANKS[start + k] + suit for k in range(n)]  # A-2-3 ... J-Q-K, and of four
        for n in (3, 4) for suit in SUITS for start in range(14 - n)]
SETS = [[rank + suit for suit in SUITS[:n]] for rank in RANKS for n in (3, 4)]


@st.composite
def likely_melds(draw: st.DrawFn) -> list[str]:
    """Runs and sets, some with a joker in place of a card; or any cards at all."""
    texts = list(draw(st.sampled_from(RUNS + SETS)))
    if draw(st.booleans()):
        texts[draw(st.integers(0, len(texts) - 1))] = "JK"
    return texts


@given(st.one_of(likely_melds(), st.lists(st.sampled_from(CARD_TEXTS), min_size=1,
                                          max_size=6)), RULE_SETS)
def test_a_remembered_reading_is_the_reading(texts: list[str], rules: RuleSet) -> None:
    rulings.TABLE_MELDS.clear()
    cold = _reading(texts, rules)
    warm = _reading(texts, rules)  # remembered, if it was read
    assert warm == cold
    rulings.TABLE_MELDS.clear()
    assert _reading(texts, rules) == cold


def test_each_rule_set_reads_its_own() -> None:
    """Q-K-A-2 of hearts is a run only where the ace goes round the corner."""
    texts = ["Qh", "Kh", "Ah", "2h"]
    around = resolve({"base": "kaluki-hunt", "overrides": {"ace": "around"}})
    assert rulings.table_meld_at(texts, around, "table.0").cards  # read, and remembered
    with pytest.raises(EngineError) as err:
        rulings.table_meld_at(texts, CATALOG["kaluki-hunt"], "table.0")
    assert (err.value.code, err.value.field) == ("invalid-meld", "table.0")


def test_a_refusal_is_located_every_time() -> None:
    texts = ["7c", "8d", "JK"]
    for field in ("table.0", "table.5", "meld"):
        with pytest.raises(EngineError) as err:
            rulings.table_meld_at(texts, CATALOG["kaluki-hunt"], field)
        assert err.value.field == field


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rulings, "TABLE_MELDS_MAX", 16)
    rules = CATALOG["kaluki-hunt"]
    rulings.TABLE_MELDS.clear()
    sizes = []
    for run in RUNS[:64]:
        rulings.table_meld_at(run, rules, "table.0")
        sizes.append(len(rulings.TABLE_MELDS))
    assert max(sizes) == 16 and sizes.count(1) == 4  # full, then afresh, 64 / 16 times
