"""Rollout speed of the search agents, and their strength, written to benchmarks/search.md.

Speed: random rollouts of Nobody Wants It from the deal to the end of the game, on one core
(CPU time of this process), through

- ``engine``: one game at a time through the rules engine (``legal_mask`` + ``apply``), a
  random legal action each decision: the reference;
- ``kernel, plain``: the playout kernel (:mod:`cardzoo.envs.nobody_wants_it.playout`) as plain
  Python, a batch of games per call;
- ``kernel, numba``: the same kernel compiled by numba (compile time excluded; measured once);
- ``kernel, numba, shedder``: the search agents' default rollout policy (mostly the
  hand_shedder heuristic: shorter games);
- ``in search``: rollouts per second inside a move of ``pimc`` and iterations per second of
  ``ismcts`` from positions of seeded games, resampling and bookkeeping included: what a move
  really gets.

Each measurement runs ``--repeats`` times (interleaved, so machine load falls on all alike) for
about ``--seconds`` of CPU time; the table shows the median. Compare the ratios within one run.

Strength: the summaries of the result files of benchmarks/search_strength.py in
benchmarks/results/ (the commands are in the report).

    python benchmarks/search.py                      # ~1 minute, writes benchmarks/search.md
    python benchmarks/search.py --quick --output /tmp/search.md
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from cardzoo.agents.search import ISMCTSAgent, PIMCAgent  # noqa: E402
from cardzoo.envs.nobody_wants_it import playout  # noqa: E402
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from search_strength import summary  # noqa: E402

GAME = NobodyWantsIt()


def engine_rollouts(seconds: float, seed: int) -> tuple[int, int, float]:
    """Random games from the deal, one at a time through the engine: (games, steps, seconds)."""
    rng = np.random.default_rng(seed)
    games = steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = GAME.new_state(np.random.default_rng(seed + games))
        while not state.terminal:
            legal = np.flatnonzero(GAME.legal_mask(state, state.current_player))
            GAME.apply(state, int(legal[rng.integers(legal.size)]))
            steps += 1
        games += 1
    return games, steps, time.process_time() - start


def kernel_rollouts(
    seconds: float, seed: int, compiled: bool, policy: str, batch: int
) -> tuple[int, int, float]:
    """Batches of games from the deal through the playout kernel: (games, steps, seconds).
    Steps are counted by replaying nothing: a finished row does not record its length, so the
    steps are those of the engine's random games (reported once, from the engine row)."""
    rng = np.random.default_rng(seed)
    deals = [GAME.new_state(np.random.default_rng(seed + k)) for k in range(batch)]
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        playout.playouts(GAME, playout.pack(deals), rng, compiled=compiled, policy=policy)
        games += batch
    return games, 0, time.process_time() - start


def search_positions(count: int) -> list:
    """Positions with a real choice from seeded games played by the engine at random."""
    found = []
    for seed in range(50):
        state = GAME.new_state(np.random.default_rng(seed))
        choices = np.random.default_rng(seed)
        for _ in range(40 + 7 * seed % 60):
            legal = np.flatnonzero(GAME.legal_mask(state, state.current_player))
            if state.terminal:
                break
            GAME.apply(state, int(legal[choices.integers(legal.size)]))
        legal = np.flatnonzero(GAME.legal_mask(state, state.current_player))
        if not state.terminal and legal.size > 1:
            found.append(state)
        if len(found) == count:
            break
    return found


def search_rollouts(seconds: float, seed: int, agent_class, simulations: int):
    """Rollouts (PIMC) or iterations (ISMCTS) per second inside moves: (rollouts, 0, seconds)."""
    positions = search_positions(10)
    agent = agent_class(GAME, seed=seed, simulations=simulations)
    done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = positions[done // simulations % len(positions)]
        mask = GAME.legal_mask(state, state.current_player)
        agent.act({"action_mask": mask, "state": state})
        done += simulations
    return done, 0, time.process_time() - start


def measurements(quick: bool) -> dict:
    batch = 50 if quick else 500
    return {
        "engine, one game at a time": lambda s, seed: engine_rollouts(s, seed),
        "kernel, plain Python": lambda s, seed: kernel_rollouts(s, seed, False, "random", 20),
        "kernel, numba": lambda s, seed: kernel_rollouts(s, seed, True, "random", batch),
        "kernel, numba, shedder policy": lambda s, seed: kernel_rollouts(
            s, seed, True, "shedder", batch
        ),
        "in search: pimc (shedder)": lambda s, seed: search_rollouts(s, seed, PIMCAgent, 800),
        "in search: ismcts (shedder)": lambda s, seed: search_rollouts(s, seed, ISMCTSAgent, 250),
    }


def run(seconds: float, repeats: int, quick: bool) -> list[tuple[str, float, float, float]]:
    runs = measurements(quick)
    # Compile the kernel (and warm the caches) before any clock runs.
    playout.playouts(
        GAME, playout.pack([GAME.new_state(np.random.default_rng(0))]), np.random.default_rng(0)
    )
    results: dict[str, list[tuple[int, int, float]]] = {name: [] for name in runs}
    for repeat in range(repeats):
        for name, measure in runs.items():
            results[name].append(measure(seconds, 1000 * repeat))
    rows = []
    for name, samples in results.items():
        rates = [games / spent for games, _, spent in samples]
        steps = sum(s for _, s, _ in samples) / max(1, sum(g for g, _, _ in samples))
        rows.append(
            (
                name,
                statistics.median(rates),
                (max(rates) - min(rates)) / statistics.median(rates),
                steps,
            )
        )
    return rows


def markdown(rows, seconds: float, repeats: int) -> str:
    reference = rows[0][1]
    lines = [
        "# Search agents: rollout speed and strength",
        "",
        "Generated by `python benchmarks/search.py` (speed, measured in that run) from the result",
        "files of `benchmarks/search_strength.py` in `benchmarks/results/` (strength).",
        "",
        "## Rollout speed (Nobody Wants It, 4 players, 3 rounds, one core)",
        "",
        f"Random games from the deal to the end; median of {repeats} interleaved runs of about "
        f"{seconds:g} s of CPU time each. The ratio is to the engine, one game at a time, in the "
        "same run. `in search` rows count a move's rollouts (pimc, 800 per move) or iterations "
        "(ismcts, 250 per move) with resampling, packing and the tree included.",
        "",
        "| path | rollouts/s per core | x engine | spread |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, rate, spread, _steps in rows:
        lines.append(f"| {name} | {rate:,.0f} | {rate / reference:.1f} | {spread:.0%} |")
    steps = rows[0][3]
    lines += [
        "",
        f"A random game from the deal has {steps:.0f} decisions on average (engine row): the "
        f"engine's {1e3 / reference:.1f} ms per game is {1e6 / reference / steps:.1f} µs per "
        "decision.",
        "",
    ]
    return "\n".join(lines)


def strength_section() -> str:
    paths = sorted(glob.glob(os.path.join(HERE, "results", "search_*.jsonl")))
    lines = ["## Strength (one seat against three nwi_dodger, mirrored deals, seats rotated)", ""]
    lines += [f"- {summary(path)}" for path in paths] or ["(no result files yet)"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small batches (a smoke run)")
    parser.add_argument("--output", default=os.path.join(HERE, "search.md"))
    args = parser.parse_args(argv)
    rows = run(args.seconds, args.repeats, args.quick)
    text = markdown(rows, args.seconds, args.repeats)
    with open(args.output, "w") as file:
        file.write(text + "\n" + strength_section())
    print(text)
    return rows


if __name__ == "__main__":
    main()
