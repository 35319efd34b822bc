"""Rollout speed of the search agents, and their strength, written to benchmarks/search.md.

Speed: random rollouts of Nobody Wants It, and of Believe It or Not in both variants, from the
deal to the end of the game, on one core (CPU time of this process), through

- ``engine``: one game at a time through the rules engine (``legal_mask`` + ``apply``), a
  random legal action each decision: the reference;
- ``kernel, plain``: the game's playout kernel (:mod:`cardzoo.envs.nobody_wants_it.playout`,
  :mod:`cardzoo.envs.believe_it_or_not.playout`) as plain Python, a batch of games per call;
- ``kernel, numba``: the same kernel compiled by numba (compile time excluded; measured once);
- ``kernel, numba, shedder`` (and ``dodger``; Believe It or Not: ``bluffer``): the rollout
  policies that play mostly like a heuristic (the search agents' defaults: ``dodger``,
  ``bluffer``);
- ``in search``: rollouts per second inside a move of ``pimc`` and iterations per second of
  ``ismcts`` from positions of seeded games, resampling and bookkeeping included: what a move
  really gets.

Each measurement runs ``--repeats`` times (interleaved, so machine load falls on all alike) for
about ``--seconds`` of CPU time; the table shows the median. Compare the ratios within one run.

Time per move: CPU time of the bot's searched moves against three copies of the game's best
heuristic, at the budgets the strength runs use.

Minus Two's sections come from benchmarks/search_minus_two.py (the same measurements for that
game, against its attacker heuristic).

Strength: the summaries of the result files of benchmarks/search_strength.py in
benchmarks/results/ (the commands are in the report), and the budget curves' PNGs.

    python benchmarks/search.py                      # ~6 minutes, writes benchmarks/search.md
    python benchmarks/search.py --game minus_two     # only Minus Two's sections (the others kept)
    python benchmarks/search.py --quick --output /tmp/search.md
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import time

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from cardzoo.agents import make_agent, take_turn  # noqa: E402
from cardzoo.agents.search import ISMCTSAgent, PIMCAgent  # noqa: E402
from cardzoo.envs.believe_it_or_not import playout as bion_playout  # noqa: E402
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot  # noqa: E402
from cardzoo.envs.nobody_wants_it import playout  # noqa: E402
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import search_minus_two  # noqa: E402
import search_strength  # noqa: E402
from search_strength import (  # noqa: E402
    COMMANDS_INTRO,
    curve_files,
    described_results,
    engine_rollouts,
    plot_budget_curve,
    result_line,
    same_deal_points,
    speed_table,
    strength,
    strength_rows,
)

GAME = NobodyWantsIt()
#: the budgets of the strength runs: a move takes well under 0.1 s of CPU time (measured below)
PIMC_BUDGET, ISMCTS_BUDGET = 3000, 450
#: Believe It or Not's budgets under 0.1 s of CPU time a move (measured below)
BION_PIMC_BUDGET, BION_ISMCTS_BUDGET = 1000, 200
BION_VARIANTS = ("quick", "standard")


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


def search_positions(count: int, game=GAME) -> list:
    """Positions with a real choice from seeded games played by the engine at random."""
    return search_strength.search_positions(
        game, count, seeds=50, moves=lambda seed: 40 + 7 * seed % 60
    )


def search_rollouts(seconds: float, seed: int, agent_class, simulations: int, game=GAME):
    """Rollouts (PIMC) or iterations (ISMCTS) per second inside moves: (rollouts, 0, seconds)."""
    agent = agent_class(game, seed=seed, simulations=simulations)
    return search_strength.search_rollouts(game, agent, search_positions(10, game), seconds)


def measurements(quick: bool) -> dict:
    batch = 50 if quick else 500
    return {
        "engine, one game at a time": lambda s, seed: engine_rollouts(GAME, s, seed),
        "kernel, plain Python": lambda s, seed: kernel_rollouts(s, seed, False, "random", 20),
        "kernel, numba": lambda s, seed: kernel_rollouts(s, seed, True, "random", batch),
        "kernel, numba, shedder policy": lambda s, seed: kernel_rollouts(
            s, seed, True, "shedder", batch
        ),
        "kernel, numba, dodger policy": lambda s, seed: kernel_rollouts(
            s, seed, True, "dodger", batch
        ),
        f"in search: pimc ({PIMC_BUDGET} a move)": lambda s, seed: search_rollouts(
            s, seed, PIMCAgent, PIMC_BUDGET
        ),
        f"in search: ismcts ({ISMCTS_BUDGET} a move)": lambda s, seed: search_rollouts(
            s, seed, ISMCTSAgent, ISMCTS_BUDGET
        ),
    }


def bion_kernel_rollouts(
    seconds: float, seed: int, game, compiled: bool, policy: str, batch: int
) -> tuple[int, int, float]:
    """Batches of Believe It or Not games from the deal through its playout kernel, packing
    included: (games, 0, seconds)."""
    rng = np.random.default_rng(seed)
    deals = [game.new_state(np.random.default_rng(seed + k)) for k in range(batch)]
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        rows = bion_playout.pack(game, deals)
        bion_playout.playouts(game, rows, rng, compiled=compiled, policy=policy)
        games += batch
    return games, 0, time.process_time() - start


def bion_measurements(quick: bool, variant: str) -> dict:
    game = BelieveItOrNot(variant=variant)
    batch = 50 if quick else 500
    pimc, ismcts = BION_PIMC_BUDGET, BION_ISMCTS_BUDGET
    return {
        "engine, one game at a time": lambda s, seed: engine_rollouts(game, s, seed),
        "kernel, plain Python": lambda s, seed: bion_kernel_rollouts(
            s, seed, game, False, "random", 20
        ),
        "kernel, numba": lambda s, seed: bion_kernel_rollouts(s, seed, game, True, "random", batch),
        "kernel, numba, bluffer policy": lambda s, seed: bion_kernel_rollouts(
            s, seed, game, True, "bluffer", batch
        ),
        f"in search: pimc ({pimc} a move)": lambda s, seed: search_rollouts(
            s, seed, PIMCAgent, pimc, game
        ),
        f"in search: ismcts ({ismcts} a move)": lambda s, seed: search_rollouts(
            s, seed, ISMCTSAgent, ismcts, game
        ),
    }


def warm_up() -> None:
    """Compile both kernels (or load them from numba's cache) before any clock runs."""
    playout.playouts(
        GAME, playout.pack([GAME.new_state(np.random.default_rng(0))]), np.random.default_rng(0)
    )
    bion = BelieveItOrNot()
    bion.random_playouts([bion.new_state(np.random.default_rng(0))], np.random.default_rng(0))


def run(seconds: float, repeats: int, runs: dict) -> list[tuple[str, float, float, float]]:
    warm_up()
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


def bion_markdown(rows_by_variant: dict, seconds: float, repeats: int) -> str:
    lines = [
        "## Rollout speed (Believe It or Not, 4 players, one core)",
        "",
        f"Random games from the deal to the end; median of {repeats} interleaved runs of about "
        f"{seconds:g} s of CPU time each; the ratio is to the engine, one game at a time, in the "
        "same run and variant. The kernel rows include packing the states into rows. The `in "
        "search` rows count the rollouts of a move (pimc; rollouts by the default `bluffer` "
        "policy) or its iterations (ismcts), resampling, packing and the tree included, from "
        "mid-game positions of random games.",
        "",
        "| variant | path | rollouts/s per core | x engine | spread |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for variant, rows in rows_by_variant.items():
        reference = rows[0][1]
        for name, rate, spread, _steps in rows:
            lines.append(
                f"| {variant} | {name} | {rate:,.0f} | {rate / reference:.1f} | {spread:.0%} |"
            )
    lines.append("")
    for variant, rows in rows_by_variant.items():
        reference, steps = rows[0][1], rows[0][3]
        lines.append(
            f"A random {variant} game from the deal has {steps:.0f} decisions on average (engine "
            f"row): {1e3 / reference:.1f} ms per game through the engine."
        )
    return "\n".join(lines) + "\n"


def markdown(rows, seconds: float, repeats: int) -> str:
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
        "same run. The `in search` rows count the rollouts of a move (pimc; rollouts by the "
        "default `dodger` policy) or its iterations (ismcts), resampling, packing and the tree "
        "included, from mid-game positions of random games (so their rollouts are shorter than "
        "from the deal). The numba rows need the `search` extra; without numba the search runs "
        "the plain Python kernel, with identical results.",
        "",
    ]
    return "\n".join(lines + speed_table(rows))


def move_times(
    agent_class, budget: int, deals: int, game=GAME, opponent: str = "nwi_dodger"
) -> np.ndarray:
    """CPU seconds of each searched move (more than one legal action) of the agent in seat 0
    against three ``opponent``, over ``deals`` games."""
    bot = agent_class(game, seed=0, simulations=budget)
    times = []
    for deal in range(deals):
        state = game.new_state(np.random.default_rng(deal))
        agents = [bot] + [make_agent(game.name, opponent, game, seed=i) for i in range(3)]
        while not state.terminal:
            agent = agents[state.current_player]
            searched = agent is bot and game.legal_mask(state, state.current_player).sum() > 1
            start = time.process_time()
            take_turn(game, state, agent)
            if searched:
                times.append(time.process_time() - start)
    return np.array(times)


def move_time_section(deals: int) -> str:
    lines = [
        "## Thinking time per move (CPU time of one core)",
        "",
        f"The bot in one seat against three nwi_dodger, {deals} deals, every move with more than "
        "one legal action (forced moves are taken without search).",
        "",
        "| agent | moves | mean | 95th percentile | max |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for agent_class, budget in ((PIMCAgent, PIMC_BUDGET), (ISMCTSAgent, ISMCTS_BUDGET)):
        times = move_times(agent_class, budget, deals) * 1e3
        lines.append(
            f"| {agent_class.name}:simulations={budget} | {times.size} | {times.mean():.0f} ms "
            f"| {np.percentile(times, 95):.0f} ms | {times.max():.0f} ms |"
        )
    return "\n".join(lines) + "\n"


def bion_move_time_section(deals: int) -> str:
    lines = [
        "## Thinking time per move in Believe It or Not (CPU time of one core)",
        "",
        f"The bot in one seat against three bluffer, {deals} deals per variant, every move with "
        "more than one legal action (forced moves are taken without search; adding a card to a "
        "placement is a move of its own).",
        "",
        "| variant | agent | moves | mean | 95th percentile | max |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for variant in BION_VARIANTS:
        game = BelieveItOrNot(variant=variant)
        for agent_class, budget in (
            (PIMCAgent, BION_PIMC_BUDGET),
            (ISMCTSAgent, BION_ISMCTS_BUDGET),
        ):
            times = move_times(agent_class, budget, deals, game, "bluffer") * 1e3
            lines.append(
                f"| {variant} | {agent_class.name}:simulations={budget} | {times.size} | "
                f"{times.mean():.0f} ms | {np.percentile(times, 95):.0f} ms | "
                f"{times.max():.0f} ms |"
            )
    return "\n".join(lines) + "\n"


STRENGTH_HEADING = "## Strength: one seat against three nwi_dodger"

#: exploratory 40-game checks on the way (file -> what was played), kept as they were measured
QUICK_CHECKS = {
    "quick_ismcts250_random.jsonl": "ismcts, 250 iterations, uniformly random rollouts",
    "quick_ismcts250_shedder.jsonl": "ismcts, 250 iterations, `shedder` rollouts",
    "quick_pimc800_shedder.jsonl": "pimc, 800 rollouts, `shedder` rollouts",
    "quick_pimc800_shedder_round.jsonl": "pimc, 800 rollouts, `shedder`, to the round's end",
    "quick_pimc1500_shedder.jsonl": "pimc, 1500 rollouts, `shedder` rollouts",
    "quick_pimc1500_dodger.jsonl": "pimc, 1500 rollouts, `dodger` rollouts (before the fix of "
    "its pair choice: it shed a single card rather than play a pair that brings it an NWI card)",
    "quick_ismcts400_leaf8.jsonl": "ismcts, 400 iterations of 8 rollouts each (`leaf_rollouts=8`), "
    "`dodger` rollouts",
}


def strength_section() -> str:
    results = os.path.join(HERE, "results")
    baseline = os.path.join(results, "search_nwi_dodger_in_every_seat.jsonl")
    lines = [
        STRENGTH_HEADING,
        "",
        "Mirrored deals (every deal played four times, the bot in each seat once), seats "
        "rotated, deals 0, 1, 2, ... (`benchmarks/search_strength.py`; 95% Wilson intervals). "
        "The bar is the heuristic's own share in a seat: the same deals with nwi_dodger in all "
        "four seats (ties make every tied player a winner, so shares add up to more than 1).",
        "",
        "Reading: pimc at 3000 rollouts a move (well under 0.1 s of CPU time, see above) wins "
        "clearly more often than the heuristic does in the same seat, and earns its place; "
        "ismcts, which gets 450 iterations in the same time (its tree walk and a resample per "
        "iteration cost about ten rollouts each), does not beat the heuristic (in both samples "
        "its interval holds the heuristic's share). "
        "More rollouts do not help pimc without end: 10000 a move did no better than 3000 "
        "(determinized search converges to what its rollout model of the other players "
        "predicts).",
        "",
        "| agent (defaults: `dodger` rollouts to the end of the game) | games | win rate [95% CI] "
        "| wall s per game |",
        "| --- | ---: | --- | ---: |",
    ]
    rows = [baseline] + sorted(glob.glob(os.path.join(results, "search_nwi_[ip]*.jsonl")))
    lines += strength_rows(rows)
    lines += earlier_runs(os.path.join(results, "before_reseed"))
    lines.append(budget_curve(os.path.join(HERE, "search_nwi_budget.png")))
    lines += ["", "Checks on the way (40-100 games each, the code of their day):", ""]
    lines += described_results(results, QUICK_CHECKS)
    lines += [
        "",
        COMMANDS_INTRO,
        "",
        "```",
        "python benchmarks/search_strength.py --agent nwi_dodger --deals 125 \\",
        "    --out benchmarks/results/search_nwi_dodger_in_every_seat.jsonl",
        f"python benchmarks/search_strength.py --agent pimc:simulations={PIMC_BUDGET} "
        "--deals 125 \\",
        "    --out benchmarks/results/search_nwi_pimc.jsonl",
        f"python benchmarks/search_strength.py --agent ismcts:simulations={ISMCTS_BUDGET} "
        "--deals 125 \\",
        "    --out benchmarks/results/search_nwi_ismcts.jsonl",
        "for budget in 300 1000 10000; do",
        "    python benchmarks/search_strength.py --agent pimc:simulations=$budget --deals 25 \\",
        "        --out benchmarks/results/curve_nwi_pimc_$budget.jsonl",
        "done",
        "python benchmarks/search.py   # this file (--strength-only: keep the speed sections)",
        "```",
    ]
    return "\n".join(lines) + "\n"


def earlier_runs(folder: str) -> list[str]:
    """The same runs made before the match runner reseeded its agents for every game (agents
    were seeded once per match): other samples of the same agents, no longer reproducible."""
    if not os.path.isdir(folder):
        return []
    lines = [
        "",
        "The same runs made before `play_match` reseeded every agent for every game (agents "
        "were then seeded once per match), so other games of the same agents "
        "(`results/before_reseed/`):",
        "",
    ]
    for name in sorted(os.listdir(folder)):
        stats = strength(os.path.join(folder, name))
        lines.append(result_line(stats["agent"], stats))
    return lines


def budget_curve(path: str) -> str:
    """The PNG of pimc's win rate against its budget (with 95% bands and the heuristic's share),
    from the result files; returns the markdown that shows it, or "" without curve files."""
    results = os.path.join(HERE, "results")
    # The curve's runs were made before the runner reseeded agents per game (see above): the
    # long pimc run of that time gives its 3000 point, on the same deals.
    curve = os.path.join(results, "before_reseed")
    files = curve_files(curve, "curve_nwi_pimc_")
    if not files:
        return ""
    main_run = os.path.join(curve, "search_nwi_pimc.jsonl")
    if os.path.exists(main_run):
        files[PIMC_BUDGET] = main_run
    deals, points = same_deal_points(files)
    bar = strength(os.path.join(results, "search_nwi_dodger_in_every_seat.jsonl"))
    title = "Nobody Wants It: pimc against its budget (95% intervals)"
    plot_budget_curve(points, bar, "nwi_dodger", title, path)
    rows = [result_line(f"simulations={budget}", stats) for budget, stats in points]
    return (
        "\n### pimc's strength against its budget\n\n"
        f"![pimc win rate against budget]({os.path.basename(path)})\n\n"
        f"Deals 0 to {deals - 1} for every budget (the 3000 point: those deals of the long "
        "run), all from `results/before_reseed/`: made before the runner reseeded agents per "
        "game, so not replayed by the commands below (the curve's `--out` files would hold new "
        "samples):\n\n" + "\n".join(rows) + "\n"
    )


#: what the Believe It or Not runs say (written from the result files below)
BION_READING = (
    "Reading: pimc at 1000 rollouts a move (under 0.1 s of CPU time) wins clearly more often "
    "than bluffer in the same seat of the quick game, and in the standard game (where three "
    "of four players win) its interval lies just above the heuristic's. Its rollouts matter "
    "most: with uniformly random rollouts it won 0.175 of the 40 pilot games where the "
    "default bluffer-like rollouts won 0.375; ismcts at 200 iterations (the same time: a "
    "tree walk through the engine and a resample each) won 0.250 there, no better than the "
    "heuristic, so pimc played the long runs."
)

BION_STRENGTH_HEADING = "## Strength in Believe It or Not: one seat against three bluffer"


PRETRAINED_HEADING = "## The bot against the pretrained agents"
#: per game: the pretrained agent in every seat (the bar), then the bot against three of it
PRETRAINED_RUNS = {
    "Nobody Wants It": ("nwi_pretrained_in_every_seat", "nwi_pimc_vs_pretrained"),
    "Believe It or Not, quick": (
        "bion_quick_pretrained_in_every_seat",
        "bion_quick_pimc_vs_pretrained",
    ),
    "Minus Two": ("m2_pretrained_in_every_seat", "m2_pimc600_vs_pretrained"),
}


def pretrained_section() -> str:
    """The bot in one seat against three copies of the game's shipped policy, next to that
    policy's own share in the seat (the same deals with it in every seat)."""
    results = os.path.join(HERE, "results")
    lines = [
        PRETRAINED_HEADING,
        "",
        "The same bots and budgets as above, in one seat against three copies of the game's "
        "pretrained agent (`cardzoo/agents/pretrained/`), mirrored deals 0, 1, 2, ..., seats "
        "rotated; the bar is the pretrained agent's own share in a seat. Fewer games than "
        "against the heuristics (the time of the session), so wider intervals.",
        "",
        "| game | agent | games | win rate [95% CI] | wall s per game |",
        "| --- | --- | ---: | --- | ---: |",
    ]
    for game, names in PRETRAINED_RUNS.items():
        paths = [os.path.join(results, f"search_{name}.jsonl") for name in names]
        lines += [f"| {game} {row}" for row in strength_rows(paths)]
    lines += [
        "",
        "Reading: the bot's rollouts model the other players as the heuristic plays (its "
        "rollout policy), which is why it beats the heuristics by so much in Minus Two; against "
        "the learned policies that model is wrong, and in all three games the bot does no "
        "better in a seat than the pretrained agent does against itself. Quick Believe It or "
        "Not's agent before version 1 of the game (which hid the declaration from the leader "
        "while it built its lead) left about one game in five without a winner, and pimc won "
        "0.320 [0.259, 0.388] of 200 games against it; the agent trained on version 1 ends "
        "all 200 (`play_match` with four `pretrained`, seed 0, none truncated).",
        "",
        "```",
        "python benchmarks/search_strength.py --agent pretrained --opponent pretrained "
        "--deals 50 --out benchmarks/results/search_nwi_pretrained_in_every_seat.jsonl",
        "python benchmarks/search_strength.py --agent pimc:simulations=3000 --opponent "
        "pretrained --deals 50 --out benchmarks/results/search_nwi_pimc_vs_pretrained.jsonl",
        "# Believe It or Not: --game believe_it_or_not --variant quick, pimc:simulations=1000;",
        "# Minus Two: --game minus_two, pimc:simulations=600 (the files named above)",
        "```",
        "",
    ]
    return "\n".join(lines).replace("heuristic's", "pretrained agent's")


def bion_strength_section() -> str:
    results = os.path.join(HERE, "results")
    lines = [
        BION_STRENGTH_HEADING,
        "",
        "As for Nobody Wants It: mirrored deals, seats rotated, deals 0, 1, 2, ..., 95% Wilson "
        "intervals; the bar is bluffer's own share in a seat (the same deals with bluffer in all "
        "four seats; in the quick game several players can win at once). The bot's budget keeps "
        "a move under 0.1 s of CPU time (above).",
    ]
    lines += ["", BION_READING]
    for variant in BION_VARIANTS:
        prefix = os.path.join(results, f"search_bion_{variant}_")
        paths = [prefix + "bluffer_in_every_seat.jsonl"]
        # the runs against bluffers (those against the pretrained agent have their section)
        paths += [
            path
            for path in sorted(glob.glob(prefix + "[ip]*.jsonl"))
            if _first_record(path).get("opponent") == "bluffer"
        ]
        rows = strength_rows(paths)
        if not rows:
            continue
        lines += [
            "",
            f"`variant={variant}`:",
            "",
            "| agent (default `bluffer` rollouts) | games | win rate [95% CI] | wall s per game |",
            "| --- | ---: | --- | ---: |",
            *rows,
        ]
    lines.append(bion_budget_curve(os.path.join(HERE, "search_bion_budget.png")))
    pilots = sorted(glob.glob(os.path.join(results, "pilot_bion_*.jsonl")))
    if pilots:
        lines += ["", "Pilot runs that chose the agent and its rollout policy:", ""]
    for path in pilots:
        stats = strength(path)
        lines.append(result_line(f"{_variant(path)}, {stats['agent']}", stats))
    variant, budget = "quick", BION_PIMC_BUDGET
    lines += [
        "",
        "Commands (each variant; long runs under `nice -n 10`):",
        "",
        "```",
        f"for variant in {' '.join(BION_VARIANTS)}; do",
        "    python benchmarks/search_strength.py --game believe_it_or_not --variant $variant \\",
        "        --agent bluffer --deals 125 \\",
        "        --out benchmarks/results/search_bion_${variant}_bluffer_in_every_seat.jsonl",
        "    python benchmarks/search_strength.py --game believe_it_or_not --variant $variant \\",
        f"        --agent pimc:simulations={budget} --deals 125 \\",
        "        --out benchmarks/results/search_bion_${variant}_pimc.jsonl",
        "done",
        f"for budget in {' '.join(map(str, BION_CURVE_BUDGETS))}; do",
        f"    python benchmarks/search_strength.py --game believe_it_or_not --variant {variant} \\",
        f"        --agent pimc:simulations=$budget --deals {BION_CURVE_DEALS} \\",
        f"        --out benchmarks/results/curve_bion_{variant}_pimc_$budget.jsonl",
        "done",
        "```",
    ]
    return "\n".join(lines) + "\n"


def _first_record(path: str) -> dict:
    with open(path) as file:
        return json.loads(file.readline())


def _variant(path: str) -> str:
    return _first_record(path).get("params", {}).get("variant", "standard")


#: the budgets of the quick game's curve besides the long run's, and their deals
BION_CURVE_BUDGETS, BION_CURVE_DEALS = (100, 300, 3000), 15


def bion_budget_curve(path: str) -> str:
    """The PNG of pimc's win rate in the quick game against its budget, every point on the
    deals of the curve runs (the long run's point: those deals of it); "" without the files."""
    results = os.path.join(HERE, "results")
    files = curve_files(results, "curve_bion_quick_pimc_")
    main_run = os.path.join(results, "search_bion_quick_pimc.jsonl")
    if not files or not os.path.exists(main_run):
        return ""
    files[BION_PIMC_BUDGET] = main_run
    deals, points = same_deal_points(files)
    bar_file = os.path.join(results, "search_bion_quick_bluffer_in_every_seat.jsonl")
    bar, same_deals = strength(bar_file), strength(bar_file, deals)
    title = "Believe It or Not (quick): pimc against its budget (95% intervals)"
    plot_budget_curve(points, bar, "bluffer", title, path)
    rows = [result_line(f"simulations={budget}", stats) for budget, stats in points]
    return (
        "\n### pimc's strength against its budget (quick)\n\n"
        f"![pimc win rate against budget, Believe It or Not]({os.path.basename(path)})\n\n"
        f"Deals 0 to {deals - 1} for every budget (the {BION_PIMC_BUDGET} point: those deals of "
        f"the long run). The band is bluffer's own share on all {bar['deals']} deals, "
        f"{bar['rate']:.3f} [{bar['low']:.3f}, {bar['high']:.3f}]; on these deals it is "
        f"{same_deals['rate']:.3f}. Reading: 60 games a point are too few to rank the "
        "budgets (every interval holds the heuristic's share on these deals); 100 and 300 "
        "rollouts a move play at about the heuristic's share, and 3000 did no better than "
        "1000, the budget of the long run, whose 500 games do beat the heuristic.\n\n"
        + "\n".join(rows)
        + "\n"
    )


def main(argv: list[str] | None = None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small batches (a smoke run)")
    parser.add_argument("--output", default=os.path.join(HERE, "search.md"))
    parser.add_argument(
        "--strength-only",
        action="store_true",
        help="keep the measured speed sections of --output, rewrite only the strength section",
    )
    parser.add_argument(
        "--game",
        choices=("all", "nobody_wants_it", "minus_two"),
        default="all",
        help="rewrite only this game's sections of --output (the others kept)",
    )
    args = parser.parse_args(argv)
    if args.game == "minus_two":
        search_minus_two.rewrite(
            args.output, args.seconds, args.repeats, args.quick, args.strength_only
        )
        return []
    minus_two_part = search_minus_two.saved_part(args.output)
    if args.strength_only:
        with open(args.output) as file:
            speed = file.read().split(STRENGTH_HEADING)[0]
        with open(args.output, "w") as file:
            file.write(
                speed
                + strength_section()
                + "\n"
                + bion_strength_section()
                + "\n"
                + pretrained_section()
            )
        search_minus_two.put_back(args.output, minus_two_part, strength_only=True)
        return []
    rows = run(args.seconds, args.repeats, measurements(args.quick))
    text = markdown(rows, args.seconds, args.repeats)
    text += "\n" + move_time_section(1 if args.quick else 4)
    bion_rows = {
        variant: run(args.seconds, args.repeats, bion_measurements(args.quick, variant))
        for variant in BION_VARIANTS
    }
    text += "\n" + bion_markdown(bion_rows, args.seconds, args.repeats)
    text += "\n" + bion_move_time_section(1 if args.quick else 8)
    with open(args.output, "w") as file:
        file.write(
            text
            + "\n"
            + strength_section()
            + "\n"
            + bion_strength_section()
            + "\n"
            + pretrained_section()
        )
    if args.game == "all":
        search_minus_two.rewrite(args.output, args.seconds, args.repeats, args.quick, False)
    else:
        search_minus_two.put_back(args.output, minus_two_part, strength_only=False)
    print(text)
    return rows


if __name__ == "__main__":
    main()
