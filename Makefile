# Two commands for a newcomer: `make run` and `make test`. Each creates .venv and installs
# on demand what it needs; an install is redone only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make run` and `make migrate`: the runtime dependencies only.
RUN_STAMP := $(VENV)/.installed-run
# `make test`, `make lint` and `make bench`: those and the [dev] extra (test and lint tools).
STAMP := $(VENV)/.installed
# One test process per core (pytest-xdist); each creates its own SQLite and PostgreSQL databases.
PYTEST_WORKERS ?= auto
# npm packages, installed with the machine's Node and npm under .venv (so git ignores them), only
# when missing: the official Teams app manifest schemas, which tests/manifest validates against,
# and Microsoft's Adaptive Cards library, which tests/cards parses every card with and `make cards`
# renders them with. Its carousel's peer dependency (swiper) is in its bundle already: omitted.
# The stamp is named after the pins, so changing one installs again.
NPM_PACKAGES := @microsoft/app-manifest@1.1.2 adaptivecards@3.0.6
NPM_STAMP := $(VENV)/npm/.installed-$(shell echo '$(NPM_PACKAGES)' | cksum | cut -d' ' -f1)
# The Teams tabs' front end (bot/tabs): its npm packages as its lock file pins them, installed in
# bot/tabs/node_modules when the lock changes, and its bundle (bot/tabs/dist) built by esbuild
# when a source changes. Both are ignored by git. Node 18 or later.
TABS := bot/tabs
TABS_MODULES := $(TABS)/node_modules/.installed
TABS_BUILT := $(TABS)/dist/.built
TABS_SOURCES := $(wildcard $(TABS)/src/*) $(TABS)/build.mjs

.PHONY: run test bench lint migrate clean chromium cards tabs node

$(RUN_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

# Everything the run stamp stands for is installed here too, so both stamps are touched.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(RUN_STAMP) $(STAMP)

$(NPM_STAMP):
	npm install --prefix $(VENV)/npm --no-audit --no-fund --loglevel=error --omit=peer --save-exact $(NPM_PACKAGES)
	touch $(NPM_STAMP)

node:
	@node -e 'process.exit(+(parseInt(process.versions.node) < 18))' 2>/dev/null || \
		(echo "Node.js 18 or later is required (it builds the Teams tabs): https://nodejs.org" >&2; exit 1)

$(TABS_MODULES): $(TABS)/package.json $(TABS)/package-lock.json | node
	npm ci --prefix $(TABS) --no-audit --no-fund --loglevel=error
	touch $(TABS_MODULES)

$(TABS_BUILT): $(TABS_MODULES) $(TABS_SOURCES)
	node $(TABS)/build.mjs
	touch $(TABS_BUILT)

tabs: $(TABS_BUILT)

run: $(RUN_STAMP) tabs
	$(BIN)/python app.py

# Headless Chromium, in which tests/pages opens the item page: Debian's package, installed when
# missing where apt-get may (root, as in CI); elsewhere those tests are skipped with a notice.
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) || \
		echo "chromium is not installed: the browser tests will be skipped" >&2

test: $(STAMP) $(NPM_STAMP) tabs chromium
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# Each card of tools/card_gallery.py as Teams shows it, to docs/cards/*.png: Microsoft's Adaptive
# Cards library renders it with a Teams-like host config in headless Chromium.
cards: $(STAMP) $(NPM_STAMP) chromium
	$(BIN)/python -m tools.render_cards docs/cards

bench: $(STAMP)
	command -v wrk >/dev/null && command -v valgrind >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq wrk valgrind)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

migrate: $(RUN_STAMP)
	$(BIN)/python -m bot migrate

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(TABS)/node_modules $(TABS)/dist
