# make demo | make test | make bench — each sets up .venv on a fresh machine first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt
INSTALLED := $(VENV)/.installed
BENCH_INSTALLED := $(VENV)/.bench-installed

.PHONY: demo test lint bench clean

# torch first and pinned: the CPU build lies on this machine's disk; an unpinned torch would pull CUDA.
$(INSTALLED): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -e ".[train,dev]"
	touch $@

$(BENCH_INSTALLED): $(INSTALLED)
	$(PIP) -e ".[train,dev,bench]"
	touch $@

demo: $(INSTALLED)
	$(VENV)/bin/cardzoo simulate henhouse --players 4 --games 10000 --seed 0

lint: $(INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: lint
	$(PY) -m pytest -q -n 2

bench: $(BENCH_INSTALLED)
	$(PY) benchmarks/throughput.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
