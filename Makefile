# Rootline: `make run` serves the app, `make test` runs every suite. Both install what is missing.

PORT ?= 8000
HOST ?= 127.0.0.1
PYTHON ?= python3
VENV := backend/.venv
BIN := $(VENV)/bin
# (setup.py and the .pyx files: the compiled loops are built again when their source changes)
STAMP := $(VENV)/.installed-$(shell cat backend/requirements.lock backend/pyproject.toml backend/setup.py \
	$(wildcard backend/rootline/*/*.pyx backend/rootline/*/*.pxd) | cksum | cut -d' ' -f1)
export ROOTLINE_DATA_DIR ?= $(CURDIR)/data
PG_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/postgres

# Frontend and end-to-end packages: `npm ci` again only when a package-lock.json changes.
# Playwright never downloads browsers: the tests drive Debian's Chromium.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
CHROMIUM ?= /usr/bin/chromium
export ROOTLINE_CHROMIUM ?= $(CHROMIUM)
lockstamp = $(1)/node_modules/.installed-$(shell cksum < $(1)/package-lock.json | cut -d' ' -f1)
FRONTEND_STAMP := $(call lockstamp,frontend)
E2E_STAMP := $(call lockstamp,e2e)
# Every file under a directory, listed by make itself (no `find` process on every call).
tree = $(foreach f,$(wildcard $(1)/*),$(if $(wildcard $(f)/.),$(call tree,$(f)),$(f)))
FRONTEND_SOURCES := $(call tree,frontend/src) frontend/index.html \
	frontend/package.json frontend/package-lock.json frontend/vite.config.ts \
	$(wildcard frontend/tsconfig*.json)
FRONTEND_BUILD := frontend/dist/index.html
SUDO = $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: setup setup-python setup-node chromium poppler compose-tool build run docs test test-backend test-sqlite \
	test-postgres test-frontend test-e2e lint bench bench-backend bench-pipeline bench-browser bench-load bench-kill bench-fuzz lab demo clean

setup: setup-python setup-node chromium poppler compose-tool

setup-python: $(STAMP)

setup-node: $(FRONTEND_STAMP) $(E2E_STAMP)

# `npm ci` wipes node_modules first, so it runs only when the tree does not match the lock
# (`npm ls` fails): never under a dev server or a test run that is using a good tree.
npm_ci = cd $(1) && { test -d node_modules && npm ls --depth=0 >/dev/null 2>&1 \
	|| npm ci --no-audit --no-fund --loglevel=error; } && rm -f node_modules/.installed-* && touch $(2)

$(FRONTEND_STAMP): frontend/package-lock.json
	$(call npm_ci,frontend,node_modules/$(notdir $@))

$(E2E_STAMP): e2e/package-lock.json
	$(call npm_ci,e2e,node_modules/$(notdir $@))

chromium:
	@test -x $(CHROMIUM) || { echo "Installing Debian's Chromium"; \
		$(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium; }

# pdftotext / pdftoppm read back the postmortem PDFs the tests export (Debian's poppler-utils).
poppler:
	@command -v pdftoppm >/dev/null || { echo "Installing Debian's poppler-utils"; \
		$(SUDO) apt-get install -y -q poppler-utils \
		|| { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q poppler-utils; }; }

# `docker-compose config` validates docker-compose.yml in the tests (no Docker engine needed);
# Debian packages the v1 tool only. Where apt cannot install it, that test says it is skipped.
compose-tool:
	@command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || { \
		echo "Installing Debian's docker-compose"; \
		$(SUDO) apt-get install -y -q docker-compose \
		|| { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q docker-compose; } \
		|| echo "docker-compose could not be installed: the compose test will be skipped"; }

# The web app the server serves from frontend/dist; rebuilt only when its sources change.
build: $(FRONTEND_BUILD)

$(FRONTEND_BUILD): $(FRONTEND_STAMP) $(FRONTEND_SOURCES)
	cd frontend && npm run build
	@touch $@

$(STAMP):
	@test -x $(BIN)/pip || $(PYTHON) -m venv $(VENV)  # (pip too: a venv cut off mid-creation has no pip)
	$(BIN)/pip install --disable-pip-version-check -q -r backend/requirements.lock 2>&1 | grep -v "is ignored: it is neither" || true
	$(BIN)/pip install --disable-pip-version-check -q --no-deps -e backend 2>&1 | grep -v "is ignored: it is neither" || true
	@$(BIN)/python -c "import rootline, fastapi, sqlalchemy, tsdownsample" || (echo "setup failed" && exit 1)
	@$(BIN)/python -c "import rootline.parsers._nmon_fast, rootline.parsers._ss_fast, rootline.series._planes" 2>/dev/null \
		|| echo "WARNING: the compiled loops were not built (no C compiler?): nmon files and series take the slower pyarrow/numpy path"
	@rm -f $(VENV)/.installed-* && touch $@

run: setup-python build
	$(BIN)/rootline serve --host $(HOST) --port $(PORT)

demo: setup-python
	$(BIN)/rootline demo

# docs/checklist.md from the rule files (make test fails when it drifts).
docs: setup-python
	$(BIN)/python -m rootline.detectors.docs > docs/checklist.md

lint: setup-python $(FRONTEND_STAMP)
	$(BIN)/ruff check --config backend/pyproject.toml backend/rootline backend/tests backend/bench migrations
	$(BIN)/ruff format --check --config backend/pyproject.toml backend/rootline backend/tests backend/bench migrations
	cd backend && .venv/bin/mypy rootline
	cd frontend && npm run lint

test: lint test-frontend test-backend test-e2e

test-backend: test-sqlite test-postgres

test-sqlite: setup-python compose-tool chromium poppler
	cd backend && .venv/bin/pytest -q -p no:cacheprovider

# Re-runs every test that touches a database on a real PostgreSQL, in a database of its own.
test-postgres: setup-python chromium poppler
	@if $(BIN)/python -c "import sqlalchemy as sa; sa.create_engine('$(PG_URL)').connect().close()" 2>/dev/null; then \
		cd backend && ROOTLINE_TEST_DATABASE=postgresql ROOTLINE_TEST_POSTGRES_URL=$(PG_URL) .venv/bin/pytest -q -p no:cacheprovider -m db; \
	else \
		echo "PostgreSQL is not reachable at $(PG_URL): the PostgreSQL suite is SKIPPED."; \
	fi

# Type check and unit tests of the web app (Vitest, jsdom).
test-frontend: $(FRONTEND_STAMP)
	cd frontend && npx tsc -b && npx vitest run

# Playwright in Chromium against a real server (its own temporary data dir) serving frontend/dist.
test-e2e: setup build
	cd e2e && npx tsc --noEmit && npx playwright test

# Records every lab capture again from its manifest (root; about 90 minutes, one at a time,
# each waiting for an idle machine) and prints and checks the scenario x checklist-id matrix.
lab: setup-python
	for manifest in lab/fixtures/*/captures.toml; do \
		python3 lab/record.py --quiet 300 $$(basename $$(dirname $$manifest)) || exit 1; done
	cd backend && .venv/bin/python -m tests.detectors.test_lab_scenarios
	cd backend && .venv/bin/pytest -q -p no:cacheprovider tests/detectors/test_lab_scenarios.py

bench: bench-backend bench-pipeline bench-browser bench-load bench-kill bench-fuzz

bench-backend: setup-python
	cd backend && ROOTLINE_BENCH_POSTGRES_URL=$(PG_URL) .venv/bin/python -m bench.run

# 50 uploaders of 10 MB and 200 timeline readers for 60 s against 4 workers on PostgreSQL
# (it says SKIPPED when PostgreSQL is not reachable).
bench-pipeline: setup-python
	cd backend && ROOTLINE_BENCH_POSTGRES_URL=$(PG_URL) .venv/bin/python -m bench.pipeline

bench-load: setup-python
	cd backend && ROOTLINE_BENCH_POSTGRES_URL=$(PG_URL) .venv/bin/python -m bench.load

# 20 uploaders (1-5 MB), 20 timeline readers and a flood of 60 made-up share tokens for 75 s
# against serve --workers 2 + rootline worker on PostgreSQL, while it kill -9s the worker, a
# server worker and the whole server: 0 lost, 0 duplicated, legitimate share reads < 1 s.
bench-kill: setup-python
	cd backend && ROOTLINE_BENCH_POSTGRES_URL=$(PG_URL) .venv/bin/python -m bench.kill

# Schemathesis over every route of a real server, with a token and as nobody, for 5 minutes
# (PostgreSQL when reachable, else SQLite): 0 server errors and 0 dropped connections, counted.
bench-fuzz: setup-python
	cd backend && ROOTLINE_BENCH_POSTGRES_URL=$(PG_URL) .venv/bin/python -m bench.fuzz

# 60 series x 24 h at 1 s in a real server, drawn in Chromium: first full draw and brush zoom.
bench-browser: setup build
	cd e2e && npx playwright test --config playwright.bench.config.ts

clean:
	rm -rf $(VENV) bench-data e2e/test-results e2e/playwright-report e2e/screenshots
