"""Rendering: each engine type becomes JSON in exactly one function here.

Views parse, call the engine and hand its answer to one of these; so a meld, a
violation, a score or a ruling reads the same in every answer that carries it.
The shapes are documented by the schemas beside each resource (and checked
against answers by tests/api/test_schemathesis.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import current_app

from ..engine.cards import RANKS, Card
from ..engine.melds import SetMeld
from ..engine.referee import HandState
from ..engine.rulings import (
    AdjudicationAnswer,
    AnalysisAnswer,
    BuildAnswer,
    MeldAnswer,
    OpeningAnswer,
    OptionsAnswer,
    ReleaseAnswer,
    Shown,
    TurnAnswer,
)
from ..engine.scoring import HandScore
from ..engine.violations import Violation
from ..i18n import Text
from ..web.language import language


def render_meld(s: Shown) -> dict[str, Any]:
    meld = s.meld
    out: dict[str, Any] = {"kind": meld.kind, "cards": [c.text for c in meld.cards]}
    if isinstance(meld, SetMeld):
        out["rank"] = RANKS[meld.rank - 1]
    else:
        out["suit"] = meld.suit
    out["points"] = meld.points
    out["jokers"] = [{"index": i, "as": a} for i, a in meld.jokers()]
    out["closed"] = s.closed
    return out


# app.extensions[ON_VIOLATIONS](violations) is told of every ruling that has some (metrics)
ON_VIOLATIONS = "kaluki_on_violations"


def violation_text(v: Violation) -> Text:
    """A violation's message, not yet in a language (its code is its catalog context)."""
    return Text(v.template, v.params, v.code)


def violation_message(v: Violation, lang: str) -> str:
    """A violation's message in ``lang`` (its code's catalog entry, else English)."""
    return violation_text(v).render(lang)


def violation_dict(v: Violation, lang: str) -> dict[str, Any]:
    """A violation as answered: its facts and message, and ``type``, the URI of its page."""
    return {"code": v.code, "message": violation_message(v, lang), **v.where, **v.params,
            "type": f"/problems/{v.code}"}


def render_violations(violations: Sequence[Violation]) -> list[dict[str, Any]]:
    if not violations:
        return []  # the common answer: no need to read Accept-Language
    hook = current_app.extensions.get(ON_VIOLATIONS)
    if hook is not None:
        hook(violations)
    lang = language()
    return [violation_dict(v, lang) for v in violations]


# -- rulings on melds and hands (service/engine/rulings.py) ----------------------------

def render_meld_ruling(r: MeldAnswer) -> dict[str, Any]:
    """``POST /v1/melds/validate``."""
    return {
        "valid": r.valid,
        "meld": render_meld(r.meld) if r.meld else None,
        "alternatives": [render_meld(a) for a in r.alternatives],
        "violations": render_violations(r.violations),
    }


def render_opening(r: OpeningAnswer) -> dict[str, Any]:
    """``POST /v1/melds/opening`` (with ``round``: a lay, its threshold null and the round's
    ``contract``)."""
    out: dict[str, Any] = {"valid": r.valid, "points": r.points, "threshold": r.threshold}
    if r.contract is not None:
        out["contract"] = r.contract
    out["melds"] = [render_meld(x) if x else None for x in r.melds]
    out["violations"] = render_violations(r.violations)
    return out


def render_build(r: BuildAnswer) -> dict[str, Any]:
    """``POST /v1/melds/build``."""
    return {"valid": r.valid, "meld": render_meld(r.meld),
            "violations": render_violations(r.violations)}


def render_release(r: ReleaseAnswer) -> dict[str, Any]:
    """``POST /v1/jokers/release``."""
    return {"legal": r.legal, "released": r.released, "meld": render_meld(r.meld),
            "closed": r.meld.closed, "must_use": r.must_use,
            "violations": render_violations(r.violations)}


def render_score(score: HandScore) -> dict[str, Any]:
    """``POST /v1/hands/score`` (and a match's scored hand)."""
    return score.to_dict()


def render_analysis(r: AnalysisAnswer) -> dict[str, Any]:
    """``POST /v1/hands/analyze``."""
    a = r.analysis
    return {"melds": [render_meld(x) for x in r.melds],
            "deadwood": [str(c) for c in a.deadwood], "deadwood_value": a.deadwood_value,
            "melded_count": a.melded_count, "can_open": a.can_open, "can_go_out": a.can_go_out,
            "can_special": a.can_special}


# -- hands played out ----------------------------------------------------------------------

def _card(c: Card | None) -> str | None:
    return None if c is None else str(c)


def render_hand(player: str, cards: Sequence[Card], shown: frozenset[str] | None) -> dict[str, Any]:
    """One player's hand: its ``count`` always, its ``cards`` when the view shows them
    (``shown`` None: the referee's view, every hand)."""
    if shown is not None and player not in shown:
        return {"id": player, "count": len(cards)}
    return {"id": player, "cards": [str(c) for c in cards], "count": len(cards)}


def render_state(state: HandState, table: Sequence[Shown],
                 shown: frozenset[str] | None = None) -> dict[str, Any]:
    """A hand's state (its ``table`` shown); ``shown``: the players whose cards the view
    shows (docs/api.md#views)."""
    return {"table": [render_meld(x) for x in table],
            "hands": [render_hand(p, cards, shown) for p, cards in state.hands],
            "stock_count": state.stock_count, "discard_top": _card(state.discard_top),
            "discard_count": state.discard_count, "opened": list(state.opened),
            "turn": state.turn, "next_player": state.next_player,
            **({} if state.round is None else {
                "round": state.round, "contract": state.contract, "down": list(state.down),
                "calls_made": dict(state.calls_made)})}


def render_adjudication(r: AdjudicationAnswer) -> dict[str, Any]:
    """``POST /v1/hands/adjudicate``, with ``steps`` when asked (each a :func:`render_state`,
    its turn as the view may see it)."""
    a, shown = r.adjudication, r.shown
    result = None
    if a.result is not None:
        result = {"winner": a.result.winner, "finish": a.result.finish,
                  **render_score(a.result.score)}
    violations = [a.violation] if a.violation else []
    if shown is not None:
        violations = [_hide_stock(v) for v in violations]
    out = {"legal": a.legal, "violations": render_violations(violations),
           "result": result, "state": render_state(a.state, r.table, shown)}
    if r.steps is not None:
        out["steps"] = [{"turn": s.turn,
                         "played": None if s.played is None else render_played(dict(s.played), shown),
                         "state": render_state(s.state, s.table, shown)} for s in r.steps]
    return out


def _hide_stock(v: Violation) -> Violation:
    """A violation as a player's view shows it: the stock's top card stays hidden."""
    if "top" in v.params and v.code == "stock-mismatch":
        return Violation(v.code, {**v.params, "top": "?"}, v.where)
    return v


def render_played(turn: dict[str, Any], shown: frozenset[str] | None) -> dict[str, Any]:
    """A step's ``played`` turn as a view shows it: another player's stock draw without its
    card, another caller's penalty cards left out as that draw's card is
    (docs/api.md#contract-rule-sets: they are private cards), and no restock order (the stock's
    order is nobody's to see)."""
    if shown is None:
        return turn
    out = dict(turn)
    out.pop("restock", None)
    draw = out.get("draw")
    if draw is not None and draw.get("from") == "stock" and out.get("player") not in shown:
        out["draw"] = {"from": "stock"}
    call = out.get("call")
    if call is not None and "penalty" in call and call.get("player") not in shown:
        out["call"] = {k: v for k, v in call.items() if k != "penalty"}
    return out


def render_turn_check(r: TurnAnswer) -> dict[str, Any]:
    """``POST /v1/turns/check``."""
    checked = r.check
    return {"legal": checked.legal,
            "violations": render_violations([checked.violation] if checked.violation else []),
            "table": [render_meld(x) for x in r.table],
            "hand": [str(c) for c in checked.hand], "opened": checked.opened,
            "finished": checked.finished, "finish": checked.finish}


def render_turn_options(r: OptionsAnswer) -> dict[str, Any]:
    """``POST /v1/turns/options``: every option in the hand record's own shape; ``callers``
    (contract rule sets only, else left out) who may call the discard now."""
    rendered_hint = None
    if r.hint is not None:
        a = r.hint.analysis
        rendered_hint = {"melds": [render_meld(x) for x in r.hint_melds],
                         "deadwood": [str(c) for c in a.deadwood],
                         "deadwood_value": a.deadwood_value, "can_go_out": r.hint.can_go_out}
    out = {"legal": r.legal,
           "violations": render_violations([r.violation] if r.violation else []),
           "phase": r.phase, "options": r.options_data,
           "can_end": r.can_end, "hint": rendered_hint}
    if r.callers is not None:
        out["callers"] = list(r.callers)
    return out
