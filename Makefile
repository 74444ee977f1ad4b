# Two entry points: `make demo` and `make test`. Each creates .venv when missing and installs what it
# needs once (stamp files), so the second run starts at once.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORE   := $(VENV)/.stamp-core
FULL   := $(VENV)/.stamp-full
PROM   := .tools/prometheus/usr/bin/promtool

.PHONY: demo test lint bench prometheus clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# core dependencies only: enough to run episodes
$(CORE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

# everything the tests need: all extras (ray, live, viz, llm, mcp, openenv, skyrl) and the dev tools.
# openenv-core (the openenv extra before 0.4) installs the same package as openenv: remove it first
$(FULL): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip uninstall -q -y openenv-core 2>/dev/null || true
	$(BIN)/python -m pip install -q -e '.[dev,ray,live,viz,llm,mcp,openenv,skyrl]'
	touch $(CORE) $@

$(PROM):
	bash scripts/get-prometheus.sh >/dev/null

prometheus: $(PROM)

demo: $(CORE)
	$(BIN)/sre-gym run --app online-boutique --seed 0 --agent runbook

lint: $(FULL)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The core suite runs without Ray. The Ray tests (marked `ray`) run in a private network namespace that
# has only loopback, because Ray binds every interface it can see. Without `unshare -n` they fail CI
# (CI=true; CI runs as root) and are skipped locally with the reason printed.
RAY_ENV := RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0
# the core suite runs in one worker per CPU (pytest-xdist "auto"; at most four, as each can hold a few
# GB), each test module on one worker so that the episodes a module caches are simulated once
TEST_WORKERS ?= auto
test: lint
	-$(MAKE) --no-print-directory prometheus
	$(BIN)/python -m pytest -m "not ray" -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --durations=15
	@if unshare -n true 2>/dev/null; then \
		$(RAY_ENV) unshare -n sh -c 'ip link set lo up && exec $(BIN)/python -m pytest -m ray -p no:cacheprovider'; \
	elif [ -n "$$CI" ]; then \
		echo "error: the Ray tests need a private network namespace, and unshare -n is not permitted here" >&2; \
		exit 1; \
	else \
		echo "SKIPPED the Ray tests (pytest -m ray): unshare -n is not permitted here, and Ray must not bind the host's interfaces"; \
	fi

bench: $(CORE)
	$(BIN)/python benchmarks/episode_speed.py

clean:
	rm -rf $(VENV) .tools .pytest_cache .ruff_cache .hypothesis
