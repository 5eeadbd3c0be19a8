# Rootline: `make run` serves the app, `make test` runs every suite. Both install what is missing.

PORT ?= 8000
HOST ?= 127.0.0.1
PYTHON ?= python3
VENV := backend/.venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat backend/requirements.lock backend/pyproject.toml | cksum | cut -d' ' -f1)
export ROOTLINE_DATA_DIR ?= $(CURDIR)/data
PG_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/postgres

.PHONY: setup run test test-backend test-sqlite test-postgres lint bench lab demo clean

setup: $(STAMP)

$(STAMP):
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q -r backend/requirements.lock 2>&1 | grep -v "is ignored: it is neither" || true
	$(BIN)/pip install --disable-pip-version-check -q --no-deps -e backend 2>&1 | grep -v "is ignored: it is neither" || true
	@$(BIN)/python -c "import rootline, fastapi, sqlalchemy, tsdownsample" || (echo "setup failed" && exit 1)
	@rm -f $(VENV)/.installed-* && touch $@

run: setup
	$(BIN)/rootline serve --host $(HOST) --port $(PORT)

demo: setup
	$(BIN)/rootline demo

lint: setup
	$(BIN)/ruff check --config backend/pyproject.toml backend/rootline backend/tests backend/bench migrations
	cd backend && .venv/bin/mypy rootline

test: lint test-backend

test-backend: test-sqlite test-postgres

test-sqlite: setup
	cd backend && .venv/bin/pytest -q -p no:cacheprovider

# Re-runs every test that touches a database on a real PostgreSQL, in a database of its own.
test-postgres: setup
	@if $(BIN)/python -c "import sqlalchemy as sa; sa.create_engine('$(PG_URL)').connect().close()" 2>/dev/null; then \
		cd backend && ROOTLINE_TEST_DATABASE=postgresql ROOTLINE_TEST_POSTGRES_URL=$(PG_URL) .venv/bin/pytest -q -p no:cacheprovider -m db; \
	else \
		echo "PostgreSQL is not reachable at $(PG_URL): the PostgreSQL suite is SKIPPED."; \
	fi

# Re-runs every lab scenario live (root; about 8 minutes) and checks the detectors on the fresh captures.
lab: setup
	rm -rf lab/out
	lab/run.sh
	cd backend && ROOTLINE_LAB_DIR=$(CURDIR)/lab/out .venv/bin/pytest -q -p no:cacheprovider tests/detectors/test_lab_scenarios.py

bench: setup
	cd backend && .venv/bin/python -m bench.run

clean:
	rm -rf $(VENV) bench-data
