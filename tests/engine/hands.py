"""The two-player Hunt deal the record, game and referee tests play from."""

from __future__ import annotations

from typing import Any

ANN = ["Kh", "Ks", "Kd", "9c", "Tc", "Jc", "2d", "3d", "4d", "5s", "6s", "7s", "8h"]
BOB = ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9d", "Td", "Jd", "Qd", "Ad", "Ac"]


def record(**over: Any) -> dict[str, Any]:
    """A hand record of that deal with no turns yet; ``over`` replaces its fields."""
    base = {"ruleset": "kaluki-hunt", "players": ["ann", "bob"], "deal": {"ann": ANN, "bob": BOB},
            "turns": []}
    return {**base, **over}
