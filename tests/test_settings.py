"""The one settings table (service/settings.py; issue 20 item 3, issue 21 item 21)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service import settings
from service.app import create_app
from service.ledger.service import Limits

ROOT = Path(__file__).resolve().parent.parent


def test_the_configuration_doc_is_the_generated_table():
    doc = (ROOT / "docs" / "configuration.md").read_text()
    assert settings.document(doc) == doc, \
        "docs/configuration.md is stale: run python -m service.settings --write"


def test_no_module_but_settings_reads_the_environment():
    """Every variable the code reads is in the table: nothing else reads os.environ."""
    offenders = []
    for path in [*(ROOT / "service").rglob("*.py"), ROOT / "deploy" / "gunicorn.conf.py"]:
        if path.name == "settings.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"getenv|os\.environ\.(get|setdefault)", code) or (
                    "os.environ" in code and not re.search(r"os\.environ\[[^]]+\] = ", code)):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, offenders


@pytest.mark.parametrize("text,value", [
    *((t, True) for t in ("1", "true", "yes", "on", "TRUE", " On ")),
    *((t, False) for t in ("0", "false", "no", "off", "False", "OFF ")),
])
def test_the_one_boolean_parser(text, value):
    assert settings.boolean(text) is value


@given(st.text(max_size=8).filter(
    lambda t: t.strip().lower() not in (*settings.TRUE, *settings.FALSE)))
def test_anything_else_is_not_a_boolean(text):
    with pytest.raises(ValueError, match="expected one of"):
        settings.boolean(text)


@pytest.mark.parametrize("name,value", [
    ("RATELIMIT_ENABLED", "maybe"), ("PORT", "x"), ("PORT", "70000"),
    ("ALLOW_VOLATILE_REDIS", "y"), ("LEDGER_MAX_HANDS", "0"), ("REDIS_SOCKET_TIMEOUT", "nan"),
    ("LOG_FORMAT", "xml"), ("REDIS_WAIT_REPLICAS", "-1"),
])
def test_a_bad_value_is_an_error_naming_the_variable(name, value):
    with pytest.raises(settings.SettingsError, match=rf"{name}='{re.escape(value)}'"):
        settings.load({name: value})


def test_every_bad_value_is_named_at_once():
    with pytest.raises(settings.SettingsError) as err:
        settings.load({"PORT": "x", "RATELIMIT_ENABLED": "maybe"})
    assert "PORT='x'" in str(err.value) and "RATELIMIT_ENABLED='maybe'" in str(err.value)


def test_create_app_refuses_a_bad_value(monkeypatch):
    monkeypatch.setenv("RATELIMIT_ENABLED", "maybe")
    with pytest.raises(settings.SettingsError, match="RATELIMIT_ENABLED"):
        create_app({"TESTING_NO_METRICS": True})


@pytest.mark.parametrize("name,value", [("PORT", "x"), ("RATELIMIT_ENABLED", "maybe")])
def test_gunicorn_stops_at_start_naming_the_variable(tmp_path, name, value):
    env = {"PATH": "/usr/bin:/bin", "KALUKI_DATA_DIR": str(tmp_path), name: value,
           "KALUKI_DRAIN_FILE": str(tmp_path / "drain")}
    out = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py",
                          "service.app:create_app()"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1
    assert f"kaluki: bad configuration: {name}='{value}'" in out.stderr
    assert "Traceback" not in out.stderr


def test_defaults_and_what_the_docs_say_of_them():
    found = settings.load({})
    assert found.RATELIMIT_DEFAULT == "1000/second" and found.ACCESS_LOG == "-"
    assert found.access_log() == "-" and found.worker_class() == "gevent"
    assert settings.load({"GUNICORN_THREADS": "1"}).worker_class() == "sync"
    assert settings.load({"GUNICORN_THREADS": "2"}).worker_class() == "gthread"
    assert settings.load({"ACCESS_LOG": "off"}).access_log() is None
    # the derived import limit the table states is the one the ledger derives
    shown = next(f for f in settings.FIELDS if f.name == "LEDGER_IMPORT_MAX_BYTES")
    derived = Limits.import_bytes_for(found.LEDGER_MAX_HANDS, found.LEDGER_MAX_ENTRY_BYTES)
    assert shown.metadata["shown"].startswith(f"{derived} ")
    for f in settings.FIELDS:
        assert f.metadata["doc"] and f.metadata["group"] in settings.GROUPS, f.name


def test_app_config_overrides_the_environment_and_the_alias_is_read():
    env = {"REDIS_URL": "redis://env", "RATELIMIT_ENABLED": "true", "RATELIMIT_RULINGS": "5/s"}
    found = settings.load(env, {"LEDGER_REDIS_URL": "redis://config", "RATELIMIT_ENABLED": False})
    assert found.REDIS_URL == "redis://config" and found.RATELIMIT_ENABLED is False
    assert settings.load({"LEDGER_REDIS_URL": "redis://alias"}).REDIS_URL == "redis://alias"
    # an empty value is the default, except where empty means off (a rate-limit tier)
    assert settings.load({"PORT": "", "RATELIMIT_CREATE": ""}).PORT == 8000
    assert settings.load({"RATELIMIT_CREATE": ""}).RATELIMIT_CREATE == ""
    assert settings.load(env).RATELIMIT_RULINGS == "5/s"


def test_defaults_other_documents_state_are_the_settings():
    """A table elsewhere (README.md, docs/*.md) with a ``default`` column and a setting in
    its first column states that setting's default (issue 21 item 21: stated defaults had
    drifted from the code)."""
    by_name = {f.name: f for f in settings.FIELDS}
    checked = 0
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if path.name == "configuration.md":
            continue
        column = None
        for line in path.read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.strip().startswith("|"):
                column = None
            elif "default" in cells:
                column = cells.index("default")
            elif column is not None and re.fullmatch(r"`[A-Z_]+`", cells[0]):
                f = by_name.get(cells[0].strip("`"))
                assert f is not None, f"{path.name}: {cells[0]} is no setting"
                stated = cells[column].strip("`")
                default = f.default
                expected = {"", "none", "empty", "unset"} if default in ("", None) else {
                    str(default).lower() if isinstance(default, bool) else str(default)}
                assert stated in expected, f"{path.name}: {f.name} default {stated!r}"
                checked += 1
    assert checked >= 6
