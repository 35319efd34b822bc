# make demo | make test | make docs | make bench | make bench-learning — each sets up .venv on a fresh
# machine first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt
INSTALLED := $(VENV)/.installed
BENCH_INSTALLED := $(VENV)/.bench-installed

.PHONY: demo test lint typecheck docs bench bench-training-speed bench-learning \
	bench-exploitability pretrained clean

# torch first and pinned: the CPU build lies on this machine's disk; an unpinned torch would pull CUDA.
$(INSTALLED): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -e ".[train,dev,web,search,docs]"
	touch $@

$(BENCH_INSTALLED): $(INSTALLED)
	$(PIP) -e ".[train,dev,web,bench]"
	touch $@

# The main job: train Nobody Wants It for about a minute on 2 cores (at most 3 on a machine
# three times slower), then evaluate the policy against random and the best heuristic (mirrored
# deals, seats rotated) and print the table and the learning curve's path. The run folder
# runs/demo is replaced each time.
demo: $(INSTALLED)
	$(VENV)/bin/cardzoo train nobody_wants_it --timesteps 327680 --eval-every 65536 --eval-games 200 \
		--out runs/demo --force

lint: $(INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# mypy over the public modules (pyproject.toml's [tool.mypy]; about 40 s the first time, a few
# seconds from its cache after that)
typecheck: $(INSTALLED)
	$(PY) -m mypy

# The documentation site into site/ (open site/index.html): the README, docs/*.md, the changelog
# and the API reference from the docstrings, built strictly (a broken link, anchor or API
# reference fails). NO_MKDOCS_2_WARNING: MkDocs' banner about its successors, shown every build.
docs: $(INSTALLED)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# tests/test_notebooks.py runs the notebooks top to bottom too (nbmake), with small budgets.
test: lint typecheck docs
	$(PY) -m pytest -q -n 2

bench: $(BENCH_INSTALLED)
	$(PY) benchmarks/throughput.py

# Samples/s of training against a new user's MaskablePPO default (a few minutes).
bench-training-speed: $(BENCH_INSTALLED)
	$(PY) benchmarks/training_speed.py

# The learning runs of benchmarks/learning.md (up to an hour each; resumable: run it again after
# an interruption). Rebuilds the table from benchmarks/learning_results.json.
bench-learning: $(INSTALLED)
	$(PY) benchmarks/learning.py --out runs/bench

# benchmarks/exploitability.md: a best response trained against every shipped agent, heuristic
# and random, at 1M and 4M decisions (hours on 2 cores; resumable: run it again to go on).
bench-exploitability: $(INSTALLED)
	$(PY) benchmarks/exploitability.py --runs runs/exploit

# The pretrained agents in cardzoo/agents/pretrained/ with their model cards, rebuilt from fixed
# seeds (resumable; 5-60 minutes a policy on 2 cores), then benchmarks/learning.md's goal table
# and tournaments from them.
pretrained: $(INSTALLED)
	$(PY) benchmarks/pretrained.py --runs runs/pretrained
	$(PY) benchmarks/learning.py --pretrained

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache site

# ----------------------------------------------------------------------------------------------
# Ray RLlib: an optional extra in its own virtual environment, because ray[rllib] 2.60 pins
# gymnasium 1.2.2 while the main tested set has 1.4.0. Tested versions: constraints-rllib.txt.
# ----------------------------------------------------------------------------------------------
VENV_RLLIB := .venv-rllib
PY_RLLIB := $(VENV_RLLIB)/bin/python
PIP_RLLIB := $(PY_RLLIB) -m pip install --quiet --disable-pip-version-check -c constraints-rllib.txt
RLLIB_INSTALLED := $(VENV_RLLIB)/.installed

.PHONY: rllib-demo test-rllib clean-rllib

# torch first and pinned, as for .venv: an unpinned torch would pull CUDA.
$(RLLIB_INSTALLED): pyproject.toml constraints-rllib.txt
	test -x $(PY_RLLIB) || $(PYTHON) -m venv $(VENV_RLLIB)
	$(PIP_RLLIB) torch==2.13.0
	$(PIP_RLLIB) -e ".[rllib,dev]"
	touch $@

# About two minutes of self-play on 2 cores (100 iterations of 2 x 1024 decisions), then the
# table of the shared policy against random and the best heuristic, mirrored deals.
rllib-demo: $(RLLIB_INSTALLED)
	$(VENV_RLLIB)/bin/cardzoo train-rllib nobody_wants_it --iterations 100 --env-runners 2 \
		--eval-games 500 --out runs/rllib-demo --force

test-rllib: $(RLLIB_INSTALLED)
	$(PY_RLLIB) -m pytest -q tests/test_rllib.py

clean-rllib:
	rm -rf $(VENV_RLLIB)
