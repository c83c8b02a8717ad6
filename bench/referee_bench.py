"""Benchmark of the hand referee: ``python -m bench.referee_bench`` from the repo root.

Replays a full 4-player hand of at least 40 turns (written by the self-play bot)
in process, and through ``POST /v1/hands/adjudicate`` with the Flask test client.
Prints a markdown section and writes it to ``bench/results/referee.md``.
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from service.app import create_app
from service.engine.notation import MEDIA_TYPE, data_to_text
from service.engine.referee import adjudicate, parse_record
from service.engine.rules import CATALOG
from service.engine.selfplay import play_hand

OUT = Path(__file__).parent / "results" / "referee.md"
TARGET_P50_MS = 2.0


def _hand(ruleset: str, least: int, most: int) -> dict:
    """The first seeded 4-player hand that finishes after ``least`` to ``most`` turns."""
    for seed in range(1000):
        data = play_hand(CATALOG[ruleset], ["ann", "bob", "cy", "dee"], seed)
        ruling = adjudicate(parse_record(data))
        if ruling.legal and ruling.result and least <= len(data["turns"]) <= most:
            return data
    raise RuntimeError("no long finished hand found")


def _time(fn: Callable[[], object], n: int) -> tuple[float, float, float]:
    for _ in range(min(50, n)):
        fn()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95)], samples[int(len(samples) * 0.99)]


def main() -> str:
    rows = []
    client = create_app({"TESTING_NO_METRICS": True}).test_client()
    for name, least, most in (("kaluki-51", 40, 80), ("kaluki-hunt", 40, 80),
                              ("kaluki-hunt", 120, 150)):
        data = _hand(name, least, most)
        record = parse_record(data)
        turns = len(data["turns"])
        plays = sum(len(t["plays"]) for t in data["turns"])
        text = data_to_text(data)

        def post_json(data=data):
            r = client.post("/v1/hands/adjudicate", json=data)
            assert r.status_code == 200 and r.get_json()["legal"]

        def post_text(text=text):
            r = client.post("/v1/hands/adjudicate", data=text, content_type=MEDIA_TYPE)
            assert r.status_code == 200

        label = f"{name}, 4 players, {turns} turns, {plays} plays"
        rows.append((label, "adjudicate (replay only)", _time(lambda r=record: adjudicate(r), 2000)))
        rows.append((label, "parse_record + adjudicate", _time(lambda d=data: adjudicate(parse_record(d)), 2000)))
        rows.append((label, "HTTP JSON (Flask test client)", _time(post_json, 500)))
        rows.append((label, "HTTP notation (Flask test client)", _time(post_text, 500)))
    lines = ["## Hand referee", "",
             f"Python {platform.python_version()} on {platform.machine()}; "
             f"target: in-process replay p50 <= {TARGET_P50_MS} ms.", "",
             "| hand | what | p50 ms | p95 ms | p99 ms |", "|---|---|---:|---:|---:|"]
    for label, what, (p50, p95, p99) in rows:
        lines.append(f"| {label} | {what} | {p50:.3f} | {p95:.3f} | {p99:.3f} |")
    replay = [p50 for label, what, (p50, _, _) in rows
              if what == "adjudicate (replay only)" and int(label.split(", ")[2].split()[0]) <= 80]
    verdict = "met" if max(replay) <= TARGET_P50_MS else "NOT met"
    lines += ["", f"In-process replay target for 40-80-turn hands {verdict} "
              f"(worst p50 {max(replay):.3f} ms). Timings are wall-clock on a shared machine; "
              "tests never assert them."]
    md = "\n".join(lines) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(md)
    sys.stdout.write(md)
    return md


if __name__ == "__main__":
    main()
