# One venv, installed from pyproject.toml; every target installs what it needs:
# `make run` only what serving needs (the runtime dependencies), every other target the
# dev extra too (tests, linters, browsers, the fuzzer).
SHELL := /bin/bash
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SERVE  := $(VENV)/.serving
STAMP  := $(VENV)/.installed
PORT   ?= 8000

.PHONY: install serve-install run test lint openapi messages bench hostile clean corpus

$(SERVE): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $(SERVE)

$(STAMP): $(SERVE)
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

serve-install: $(SERVE)

install: $(STAMP)

run: serve-install
	PORT=$(PORT) $(BIN)/gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'

# Ledger tests run against the embedded Redis, and also against a real one when
# TEST_REDIS_URL is set or a Redis answers on 127.0.0.1:6379 (db 15; the tests
# delete only the keys they create).
LOCAL_REDIS := $(shell (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && echo redis://127.0.0.1:6379/15)
export TEST_REDIS_URL ?= $(LOCAL_REDIS)

# mypy --strict covers all of service/ (config in pyproject.toml [tool.mypy])
MYPY_PATHS ?= service

test: install
	$(BIN)/ruff check .
	$(BIN)/mypy --strict $(MYPY_PATHS)
	$(BIN)/python -m pytest -n 2 service tests

lint: install
	$(BIN)/ruff check .

openapi: install
	$(BIN)/python -m service.docs.openapi_dump > openapi/openapi.json

# The message template (service/i18n/messages.pot) from the code, then every catalog brought up
# to date with it (new messages untranslated, so English until translated). A new language:
#   $(BIN)/pybabel init -i service/i18n/messages.pot -d service/i18n/locale -l de
messages: install
	$(BIN)/python -m service.i18n.extract
	$(BIN)/pybabel update -i service/i18n/messages.pot -d service/i18n/locale --width 100 --no-fuzzy-matching --ignore-obsolete

# The TypeScript SDK's types, regenerated from openapi/openapi.json (node >= 20 and npm;
# npm ci from the committed lockfile the first time).
.PHONY: sdk
sdk:
	cd clients/typescript && { test -d node_modules || npm ci --no-audit --no-fund; } && npm run generate

# The conformance corpus (corpus/, docs/corpus.md) from the service's own rulings, seeded.
# A changed ruling: bump corpus/VERSION and add a line to corpus/CHANGELOG.md first.
corpus: install
	$(BIN)/python -m service.conformance.generate

bench: install
	$(BIN)/python -m bench.run

# the worst server CPU of one hostile request per endpoint (bench/RESULTS.md, "Hostile requests")
hostile: install
	RATELIMIT_ENABLED=false $(BIN)/python -m bench.hostile

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
