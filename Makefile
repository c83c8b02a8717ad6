# One venv, installed from pyproject.toml; every target installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8000

.PHONY: install run test lint openapi bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	PORT=$(PORT) $(BIN)/gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'

test: install
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 service tests

lint: install
	$(BIN)/ruff check .

openapi: install
	$(BIN)/python -m service.api.openapi_dump > openapi/openapi.json

bench: install
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
