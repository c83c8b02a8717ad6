"""The TypeScript SDK in ``clients/typescript``, driven through node.

Needs node >= 20 and npm (Debian packages ``nodejs`` and ``npm``): without them these
tests skip with a message naming them, and under CI they fail instead. The first run
installs the locked dev dependencies (``npm ci``, from ``package-lock.json``) into
``clients/typescript/node_modules``; later runs reuse them and need no network.

* the committed ``src/schema.ts`` and ``src/routes.ts`` are what ``npm run generate``
  makes of ``openapi/openapi.json`` today (drift);
* the package and its examples compile under ``tsc --strict``;
* the transport's unit tests (a scripted fetch: retries, Retry-After, keys, If-Match);
* a scenario against gunicorn: a ruling, the README's Hunt record, a match, an append
  whose first answer is lost and whose retry is replayed, standings, problems;
* the README's "Getting started": a fresh ``npm init -y`` app with the packed package
  compiles ``examples/tour.ts`` with ``examples/tsconfig.json``, and ``require()`` of the
  package works on this node.
"""

from __future__ import annotations

import difflib
import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.clients.sdk import SDK, build_dir, locked, run, tsc
from tests.ledger.servers import ROOT, Gunicorn
from tests.support import require_binary

# what `npm run generate` runs: each command's program, as run from node_modules
_GENERATORS = {"openapi-typescript": "node_modules/openapi-typescript/bin/cli.js",
               "node": None}


def test_committed_types_are_generated_from_the_openapi_document(node, tmp_path):
    """`npm run generate` (= `make sdk`) of openapi/openapi.json equals src/schema.ts and
    src/routes.ts: each of its commands is run with its output in a temporary file."""
    commands = json.loads((SDK / "package.json").read_text())["scripts"]["generate"].split("&&")
    outputs = []
    for command in commands:
        script = shlex.split(command)
        assert script[0] in _GENERATORS, command
        out = script.index("--output") + 1 if "--output" in script else len(script) - 1
        committed = SDK / script[out]
        script[out] = str(tmp_path / committed.name)
        program = [node, _GENERATORS[script[0]]] if _GENERATORS[script[0]] else [node]
        run([*program, *script[1:]], timeout=60)
        outputs.append((committed, tmp_path / committed.name))
    assert sorted(c.name for c, _ in outputs) == ["routes.ts", "schema.ts"]
    for committed, regenerated in outputs:
        fresh = regenerated.read_text()
        if fresh != committed.read_text():
            diff = "".join(list(difflib.unified_diff(
                committed.read_text().splitlines(True), fresh.splitlines(True),
                str(committed.relative_to(ROOT)), "regenerated"))[:60])
            pytest.fail(f"the SDK's generated files are stale: run `make sdk` and commit\n{diff}")


def test_route_facts_follow_the_document_not_a_path_list():
    """transport.ts and retry.ts hold no route table of their own: no regular expression,
    no /v1 path; what they act on is generated (src/routes.ts)."""
    for name in ("transport.ts", "retry.ts"):
        source = (SDK / "src" / name).read_text(encoding="utf-8")
        code = "\n".join(line.split("//", 1)[0] for line in source.splitlines()
                         if not line.lstrip().startswith(("*", "/*")))
        assert "/v1" not in code, name
        for use in (".test(", ".exec(", ".match(", ".matchAll(", "RegExp", ".replace(/", ".split(/",
                    ".search("):
            assert use not in code, (name, use)


def test_package_compiles_strict(node):
    """The package alone (no node types: it runs in browsers too) under --strict."""
    out = build_dir()
    tsc(node, "-p", "tsconfig.json", "--strict", "--noEmit", "--incremental",
         "--tsBuildInfoFile", str(out / "package.tsbuildinfo"))


def test_examples_and_readme_quick_start_compile_strict(compiled):
    examples = sorted(p.stem for p in (SDK / "examples").glob("*.ts"))
    assert examples == ["retries", "tour"]
    for name in examples:
        assert (compiled / "examples" / f"{name}.js").is_file()
    for name in ("sdk", "service"):
        assert (compiled / "build" / "readme" / f"{name}.js").is_file()


def test_transport_unit_tests(node, compiled):
    proc = run([node, "--test", str(compiled / "test" / "unit.test.js")], timeout=60)
    assert "# fail 0" in proc.stdout and "# pass 23" in proc.stdout, proc.stdout[-2000:]


def test_scenario_against_gunicorn(node, compiled, tmp_path):
    server = Gunicorn(None, workers=1, threads=2,
                      extra_env={"KALUKI_DATA_DIR": str(tmp_path), "RATELIMIT_ENABLED": "false"})
    try:
        server.wait()
        proc = run([node, str(compiled / "test" / "scenario.js"), server.base], timeout=30)
    finally:
        server.stop()
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["ok"] is True and result["retries"] == 1


@pytest.fixture(scope="module")
def starter(node, tmp_path_factory) -> Path:
    """The README's "Getting started", from a fresh `npm init -y` app: the packed package
    (npm pack builds dist/), typescript and @types/node at the SDK's locked versions (from
    npm's cache after the SDK's npm ci), examples/tsconfig.json and tour.ts."""
    npm = require_binary("npm", "npm")
    app = tmp_path_factory.mktemp("starter")
    packed = tmp_path_factory.mktemp("pack")
    with locked("npm-pack"):  # prepack builds dist/ in the SDK
        proc = run([npm, "pack", "--pack-destination", str(packed), "--json"], timeout=180)
    tarball = packed / json.loads(proc.stdout[proc.stdout.index("["):])[0]["filename"]
    lock = json.loads((SDK / "package-lock.json").read_text())["packages"]
    versions = {name: lock[f"node_modules/{name}"]["version"] for name in ("typescript", "@types/node")}
    run([npm, "init", "-y"], timeout=60, cwd=app)
    run([npm, "pkg", "set", "type=module"], timeout=60, cwd=app)
    run([npm, "install", "--no-audit", "--no-fund", "--prefer-offline", str(tarball),
          *(f"{n}@{v}" for n, v in versions.items())], timeout=300, cwd=app)
    for name in ("tsconfig.json", "tour.ts"):
        (app / name).write_text((SDK / "examples" / name).read_text(encoding="utf-8"), encoding="utf-8")
    return app


def test_the_starter_compiles_in_a_fresh_npm_app(node, starter):
    """Issue 21 item 8: the example compiles in a new app set up as the README says."""
    assert json.loads((starter / "package.json").read_text())["type"] == "module"
    run([node, "node_modules/typescript/bin/tsc", "-p", "."], timeout=120, cwd=starter)
    assert (starter / "tour.js").is_file()
    proc = run([node, "--input-type=module", "-e",
                 "import { createKalukiClient, ROUTES } from '@kaluki/client';"
                 "console.log(typeof createKalukiClient, Object.keys(ROUTES).length > 0)"],
                timeout=30, cwd=starter)
    assert proc.stdout.split() == ["function", "true"]


def test_require_loads_the_package(node, starter):
    """Issue 21 item 9: `require('@kaluki/client')` from CommonJS works (the `default`
    export condition; node >= 20.19 / 22.12 load an ES module from require)."""
    probe = starter / "probe.cjs"
    probe.write_text("const k = require('@kaluki/client');\n"
                     "console.log(typeof k.createKalukiClient, typeof k.ProblemError);\n")
    can = subprocess.run([node, "-p", "Boolean(process.features.require_module)"],
                         capture_output=True, text=True).stdout.strip() == "true"
    if can:
        proc = run([node, str(probe)], timeout=30, cwd=starter)
        assert proc.stdout.split() == ["function", "function"], proc.stderr
    else:  # an older node: the README's import() is the way, and require says why
        proc = subprocess.run([node, str(probe)], cwd=starter, capture_output=True, text=True,
                              timeout=30)
        assert proc.returncode != 0 and "ERR_REQUIRE_ESM" in proc.stderr, proc.stderr
