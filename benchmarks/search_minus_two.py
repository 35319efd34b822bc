"""Minus Two's sections of benchmarks/search.md: rollout speed, thinking time, strength.

Speed: games of Minus Two (4 players, to 300 points) on one core (CPU time of this process),
through

- ``engine``: one game at a time through the rules engine (``legal_mask`` + ``apply``), a
  random legal action each decision: the reference (what the search agents ran before);
- ``kernel, plain``: the playout kernel (:mod:`cardzoo.envs.minus_two.playout`) as plain Python;
- ``kernel, numba``: the same kernel compiled by numba (compile time excluded);
- ``kernel, numba, attacker policy``: the search agents' default rollout policy (mostly the
  attacker heuristic), to the end of the game and, the ``round`` horizon, to the end of the
  round;
- ``in search``: rollouts per second inside a move of ``pimc`` and iterations per second of
  ``ismcts`` at their benchmark budgets, resampling and bookkeeping included.

Thinking time: CPU time per searched move of the bot in one seat against three attackers.
Strength: the result files of benchmarks/search_strength.py in benchmarks/results/.

Called by benchmarks/search.py (``--game minus_two`` rewrites only these sections).
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
import search_strength
from search_strength import (
    COMMANDS_INTRO,
    described_results,
    engine_rollouts,
    plot_budget_curve,
    result_line,
    speed_table,
    strength,
    strength_rows,
)

from cardzoo.agents import make_agent, take_turn
from cardzoo.agents.search import AGENTS, parse_agent_params
from cardzoo.envs.minus_two import playout
from cardzoo.envs.minus_two.rules import MinusTwo

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
GAME = MinusTwo()
#: the bot of the long strength run, and a second agent at the same thinking time
MAIN_AGENT = "pimc:simulations=600"
OTHER_AGENT = "ismcts:simulations=200"
HEADING = "# Minus Two"
STRENGTH_HEADING = "## Minus Two: strength, one seat against three attacker"
BASELINE = "search_m2_attacker_in_every_seat.jsonl"


def result_name(spec: str) -> str:
    """The result file of a search agent spec: search_m2_pimc1000_round.jsonl and the like."""
    name, params = parse_agent_params(spec)
    parts = [f"{name}{params.get('simulations', '')}"]
    parts += [str(value) for key, value in params.items() if key not in ("simulations", "seed")]
    return "search_m2_" + "_".join(parts) + ".jsonl"


def agent_of(spec: str, seed: int = 0):
    name, params = parse_agent_params(spec)
    return AGENTS[name](GAME, seed=seed, **params)


# --- speed -----------------------------------------------------------------------------------


def kernel_rollouts(
    seconds: float, seed: int, compiled: bool, policy: str, batch: int, one_round: bool = False
) -> tuple[int, int, float]:
    """Batches of games (rounds if ``one_round``) from the deal through the kernel."""
    rng = np.random.default_rng(seed)
    deals = playout.pack([GAME.new_state(np.random.default_rng(seed + k)) for k in range(batch)])
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        playout.playouts(
            GAME, deals.copy(), rng, compiled=compiled, policy=policy, one_round=one_round
        )
        games += batch
    return games, 0, time.process_time() - start


def search_positions(count: int) -> list:
    """Positions with a real choice from seeded games played by the engine at random."""
    return search_strength.search_positions(
        GAME, count, seeds=100, moves=lambda seed: 20 + 7 * seed % 150
    )


def search_rollouts(seconds: float, seed: int, spec: str) -> tuple[int, int, float]:
    """Rollouts (pimc) or iterations (ismcts) per second inside moves."""
    return search_strength.search_rollouts(
        GAME, agent_of(spec, seed), search_positions(10), seconds
    )


def measurements(quick: bool) -> dict:
    batch = 50 if quick else 400
    return {
        "engine, one game at a time": lambda s, seed: engine_rollouts(GAME, s, seed),
        "kernel, plain Python": lambda s, seed: kernel_rollouts(s, seed, False, "random", 10),
        "kernel, numba": lambda s, seed: kernel_rollouts(s, seed, True, "random", batch),
        "kernel, numba, attacker policy": lambda s, seed: kernel_rollouts(
            s, seed, True, "attacker", batch
        ),
        "kernel, numba, attacker policy, one round (`round` horizon)": lambda s, seed: (
            kernel_rollouts(s, seed, True, "attacker", batch, one_round=True)
        ),
        f"in search: {MAIN_AGENT}": lambda s, seed: search_rollouts(s, seed, MAIN_AGENT),
        f"in search: {OTHER_AGENT}": lambda s, seed: search_rollouts(s, seed, OTHER_AGENT),
    }


def speed_rows(seconds: float, repeats: int, quick: bool) -> list[tuple[str, float, float, float]]:
    runs = measurements(quick)
    # Compile the kernel (or load it from numba's cache) before any clock runs.
    playout.playouts(GAME, playout.pack(search_positions(1)), np.random.default_rng(0))
    results: dict[str, list[tuple[int, int, float]]] = {name: [] for name in runs}
    for repeat in range(repeats):  # interleaved: machine load falls on all alike
        for name, measure in runs.items():
            results[name].append(measure(seconds, 1000 * repeat))
    rows = []
    for name, samples in results.items():
        rates = [games / spent for games, _, spent in samples]
        steps = sum(s for _, s, _ in samples) / max(1, sum(g for g, _, _ in samples))
        median = statistics.median(rates)
        rows.append((name, median, (max(rates) - min(rates)) / median, steps))
    return rows


def speed_section(rows, seconds: float, repeats: int) -> str:
    lines = [
        f"{HEADING}",
        "",
        "## Minus Two: rollout speed (4 players, target 300, one core)",
        "",
        f"Games from the deal to the end of the game (one round for the `round` row); median of "
        f"{repeats} interleaved runs of about {seconds:g} s of CPU time each; the ratio is to "
        "the engine, one game at a time (random legal actions, as the search agents rolled out "
        "before the kernel), in the same run. The `in search` rows count the rollouts (pimc) or "
        "iterations (ismcts) of moves from mid-game positions of random games, resampling, "
        "packing and the tree included.",
        "",
    ]
    return "\n".join(lines + speed_table(rows))


# --- thinking time ---------------------------------------------------------------------------


def move_times(spec: str, deals: int) -> np.ndarray:
    """CPU seconds of each searched move (more than one legal action) of the agent in seat 0
    against three attackers, over ``deals`` games."""
    bot = agent_of(spec)
    times = []
    for deal in range(deals):
        state = GAME.new_state(np.random.default_rng(deal))
        agents = [bot] + [make_agent(GAME.name, "attacker", GAME, seed=i) for i in range(3)]
        while not state.terminal:
            agent = agents[state.current_player]
            searched = agent is bot and GAME.legal_mask(state, state.current_player).sum() > 1
            start = time.process_time()
            take_turn(GAME, state, agent)
            if searched:
                times.append(time.process_time() - start)
    return np.array(times)


def move_time_section(deals: int, specs: tuple[str, ...] = (MAIN_AGENT, OTHER_AGENT)) -> str:
    lines = [
        "## Minus Two: thinking time per move (CPU time of one core)",
        "",
        f"The bot in one seat against three attacker, {deals} deals, every move with more than "
        "one legal action (forced moves are taken without search).",
        "",
        "| agent | moves | mean | 95th percentile | max |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for spec in specs:
        times = move_times(spec, deals) * 1e3
        lines.append(
            f"| {spec} | {times.size} | {times.mean():.0f} ms "
            f"| {np.percentile(times, 95):.0f} ms | {times.max():.0f} ms |"
        )
    return "\n".join(lines) + "\n"


# --- strength --------------------------------------------------------------------------------

#: the pilot runs (file -> what was played), kept as they were measured
PILOTS = {
    "quick_m2_pimc1000_round.jsonl": "pimc, 1000 rollouts, `attacker` rollouts to the round's end",
    "quick_m2_pimc600_game.jsonl": "pimc, 600 rollouts, `attacker` rollouts to the game's end",
    "quick_m2_ismcts200_game.jsonl": "ismcts, 200 iterations, `attacker` rollouts to the game's "
    "end",
    "quick_m2_pimc600_game_random.jsonl": "pimc, 600 rollouts, uniformly random rollouts (through "
    "the kernel) to the game's end",
}
CURVE_BUDGETS = (30, 100, 300, 1500)
CURVE_DEALS = 5


def strength_section() -> str:
    bar = strength(os.path.join(RESULTS, BASELINE))
    lines = [
        STRENGTH_HEADING,
        "",
        "Mirrored deals (every deal played four times, the bot in each seat once), seats "
        "rotated, deals 0, 1, 2, ... (`benchmarks/search_strength.py --game minus_two`; 95% "
        "Wilson intervals). The bar is attacker's own share in a seat: the same deals with "
        "attacker in all four seats.",
        "",
        "Reading: pimc at 600 rollouts a move (under 30 ms of CPU time, see above) wins far more "
        "often than attacker does in the same seat. Its rollout policy makes it: the same search "
        "with uniformly random rollouts loses nearly every game (pilots below). ismcts at the "
        "same thinking time (200 iterations) did not clearly beat the heuristic in its short "
        "pilot (20 games): far below pimc. Below about 100 "
        "rollouts pimc is worse than the heuristic: with a world or two per action most actions "
        "tie, and ties go to the lowest action id (the fewest, lowest cards), likely why 30 "
        "rollouts lose every game.",
        "",
        "| agent | games | win rate [95% CI] | wall s per game |",
        "| --- | ---: | --- | ---: |",
    ]
    paths = [BASELINE] + [result_name(spec) for spec in (MAIN_AGENT, OTHER_AGENT)]
    lines += strength_rows([os.path.join(RESULTS, path) for path in paths], "attacker (the bar)")
    lines.append(budget_curve(os.path.join(HERE, "search_m2_budget.png"), bar))
    lines += ["", "Pilot runs that chose the agent, its horizon and rollout policy:", ""]
    lines += described_results(RESULTS, PILOTS)
    lines += [
        "",
        COMMANDS_INTRO,
        "",
        "```",
        "python benchmarks/search_strength.py --game minus_two --agent attacker --deals 125 \\",
        f"    --out benchmarks/results/{BASELINE}",
        f"python benchmarks/search_strength.py --game minus_two --agent {MAIN_AGENT} \\",
        f"    --deals 125 --out benchmarks/results/{result_name(MAIN_AGENT)}",
        f"for budget in {' '.join(map(str, CURVE_BUDGETS[:-1]))}; do",
        "    python benchmarks/search_strength.py --game minus_two \\",
        f"        --agent pimc:simulations=$budget --deals {CURVE_DEALS} \\",
        "        --out benchmarks/results/curve_m2_pimc_$budget.jsonl",
        "done",
        f"python benchmarks/search_strength.py --game minus_two "
        f"--agent pimc:simulations={CURVE_BUDGETS[-1]} \\",
        f"    --deals 2 --out benchmarks/results/curve_m2_pimc_{CURVE_BUDGETS[-1]}.jsonl",
        "python benchmarks/search.py --game minus_two   # these sections",
        "```",
    ]
    return "\n".join(lines) + "\n"


def budget_curve(path: str, bar: dict) -> str:
    """The PNG of pimc's win rate against its budget (95% bands, attacker's share), from the
    curve files and the main run (its first deals); the markdown that shows it, or ""."""
    files = {
        budget: os.path.join(RESULTS, f"curve_m2_pimc_{budget}.jsonl") for budget in CURVE_BUDGETS
    }
    files = {budget: file for budget, file in files.items() if os.path.exists(file)}
    if not files:
        return ""
    # Each point over all deals of its file; the main run's over its first CURVE_DEALS deals,
    # those of the other points.
    points = [(budget, strength(file)) for budget, file in files.items()]
    main_run = os.path.join(RESULTS, result_name(MAIN_AGENT))
    if os.path.exists(main_run):
        budget = parse_agent_params(MAIN_AGENT)[1]["simulations"]
        points.append((budget, strength(main_run, CURVE_DEALS)))
    points.sort(key=lambda point: point[0])
    plot_budget_curve(
        points,
        bar,
        "attacker",
        "Minus Two: pimc against its budget (95% intervals)",
        path,
        whole_range=True,
    )
    rows = [result_line(f"simulations={budget}", stats) for budget, stats in points]
    return (
        "\n### Minus Two: pimc's strength against its budget\n\n"
        f"![pimc win rate against budget in Minus Two]({os.path.basename(path)})\n\n"
        "`pimc:simulations=N` (`attacker` rollouts to the game's end), deals 0, 1, 2, ... "
        f"(the {MAIN_AGENT} point: the long run's first {CURVE_DEALS} deals); few games a "
        "point, so wide intervals:\n\n" + "\n".join(rows) + "\n"
    )


def sections(seconds: float, repeats: int, quick: bool) -> str:
    """Every Minus Two section, measured now (speed, thinking time) and from the result files."""
    rows = speed_rows(seconds, repeats, quick)
    text = speed_section(rows, seconds, repeats)
    text += "\n" + move_time_section(1 if quick else 4)
    return text + "\n" + strength_section()


def split_off(text: str) -> tuple[str, str]:
    """search.md's text without Minus Two's part, and that part ("" if it has none): from its
    heading to the next top-level heading."""
    start = text.find("\n" + HEADING + "\n")
    if start < 0:
        return text, ""
    end = text.find("\n# ", start + 1)
    end = len(text) if end < 0 else end + 1
    return text[: start + 1] + text[end:], text[start + 1 : end]


def saved_part(path: str) -> str:
    """Minus Two's part of the file at ``path`` as it is ("" without one)."""
    if not os.path.exists(path):
        return ""
    with open(path) as file:
        return split_off(file.read())[1]


def rewrite(path: str, seconds: float, repeats: int, quick: bool, strength_only: bool) -> str:
    """Write Minus Two's part of search.md at its end, measured now (or, ``strength_only``, its
    speed and time sections kept and its strength section rewritten); the rest is kept."""
    text = ""
    if os.path.exists(path):
        with open(path) as file:
            text = file.read()
    rest, part = split_off(text)
    if strength_only and part:
        part = part.split(STRENGTH_HEADING)[0] + strength_section()
    else:
        part = sections(seconds, repeats, quick)
    with open(path, "w") as file:
        file.write(rest.rstrip("\n") + "\n\n" + part)
    return part


def put_back(path: str, part: str, strength_only: bool) -> None:
    """Append a saved Minus Two part to the file at ``path`` (its strength section rewritten
    if ``strength_only``), after a rewrite of the rest dropped it."""
    if not part:
        return
    if strength_only:
        part = part.split(STRENGTH_HEADING)[0] + strength_section()
    with open(path) as file:
        rest = split_off(file.read())[0]
    with open(path, "w") as file:
        file.write(rest.rstrip("\n") + "\n\n" + part)
