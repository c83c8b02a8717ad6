"""The engine micro-benchmarks of ``make bench``: every bench/*_bench.py in a subprocess.

Each module's ``main()`` writes bench/results/<name>.md; its text (or, failing that,
the module's output) becomes a subsection of the report.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import time

from .measure import BENCH, RESULTS_DIR, log
from .server import ROOT


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group of a timed-out module (servers it started), then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.communicate(timeout=wait)
            time.sleep(1)  # let children of the group finish their own shutdown
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers (e.g. a server's workers)


def micro_section(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Run every bench/*_bench.py (its ``main()`` writes bench/results/<name>.md)."""
    out = []
    for path in sorted(BENCH.glob("*_bench.py")):
        mod = path.stem
        name = mod.removesuffix("_bench")
        log(f"micro-benchmark {mod}")
        t0 = time.monotonic()
        # its own session: on timeout the whole group goes (a module may start servers)
        proc = subprocess.Popen([sys.executable, "-c", f"import bench.{mod} as m; m.main()"],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=args.micro_timeout)
            status = f"exit {proc.returncode}" if proc.returncode else "ok"
            if proc.returncode:
                stdout += "\n" + stderr[-2000:]
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            status, stdout = f"timed out after {args.micro_timeout:g} s", ""
        md = None
        fresh_since = time.time() - (time.monotonic() - t0) - 5
        for cand in (RESULTS_DIR / f"{name}.md", RESULTS_DIR / f"{mod}.md"):
            if not cand.exists():
                continue
            md = cand.read_text()
            if cand.stat().st_mtime < fresh_since:  # not rewritten this run: say so
                md = (f"_(not refreshed by this run ({status}); the module's last results, "
                      f"bench/results/{cand.name}:)_\n\n" + md)
            break
        if md is not None:  # its headings go below this section's "### module" title
            md = re.sub(r"^(#{1,4}) ", lambda m: "##" + m.group(1) + " ", md, flags=re.M)
        text = md if md is not None else f"```\n{stdout.strip()[-6000:]}\n```\n"
        out.append((f"{mod} ({status}, {time.monotonic() - t0:.0f} s)", text))
    return out

