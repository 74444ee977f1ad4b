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

# everything the tests need: all extras (ray, live, viz) and the dev tools
$(FULL): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev,ray,live,viz]'
	touch $(CORE) $@

$(PROM):
	bash scripts/get-prometheus.sh >/dev/null

prometheus: $(PROM)

demo: $(CORE)
	$(BIN)/sre-gym run --app online-boutique --seed 0 --agent runbook

lint: $(FULL)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: lint
	-$(MAKE) --no-print-directory prometheus
	$(BIN)/python -m pytest

bench: $(CORE)
	$(BIN)/python benchmarks/episode_speed.py

clean:
	rm -rf $(VENV) .tools .pytest_cache .ruff_cache .hypothesis
