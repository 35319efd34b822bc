"""Strength of a search agent: one seat against copies of the game's best heuristic (or of
another agent, ``--opponent``, e.g. ``pretrained``).

The bot plays every deal once from each seat (mirrored deals, seats rotated: ``play_match`` with
``mirrored=True``), deal by deal, and appends each deal's games to a JSON-lines file as it goes,
so a long run can be stopped at any time and summarised (``--summary``). The heuristic's own
share in a seat comes from the same deals with the heuristic in every seat (``--agent`` equal
to the heuristic's name).

    nice -n 10 python benchmarks/search_strength.py --agent ismcts:simulations=250 \\
        --deals 125 --out benchmarks/results/nwi_ismcts.jsonl
    nice -n 10 python benchmarks/search_strength.py --game believe_it_or_not --variant quick \\
        --agent pimc:simulations=1000 --deals 125 \\
        --out benchmarks/results/search_bion_quick_pimc.jsonl
    nice -n 10 python benchmarks/search_strength.py --agent pimc:simulations=3000 \\
        --opponent pretrained --deals 50 \\
        --out benchmarks/results/search_nwi_pimc_vs_pretrained.jsonl
    python benchmarks/search_strength.py --summary benchmarks/results/nwi_ismcts.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from cardzoo.agents import BEST_HEURISTIC
from cardzoo.agents.search import AGENTS, parse_agent_params
from cardzoo.evaluation import play_match, wilson_interval


def factory(spec: str):
    """An agent factory ``f(game, seed)`` for a search agent spec, or the name itself for a
    registry agent."""
    name = spec.split(":")[0]
    if name not in AGENTS:
        return spec
    name, params = parse_agent_params(spec)

    def build(game, seed):
        return AGENTS[name](game, seed=seed, **params)

    build.name = spec
    return build


def run(
    game_name: str,
    spec: str,
    deals: int,
    first_deal: int,
    out: str,
    params: dict | None = None,
    opponent: str | None = None,
) -> None:
    opponent = opponent or BEST_HEURISTIC[game_name]
    agent = factory(spec)
    done = _done_deals(out)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    for deal in range(first_deal, first_deal + deals):
        if deal in done:
            continue
        start = time.perf_counter()
        lineup = [agent, opponent, opponent, opponent]
        result = play_match(game_name, lineup, 4, seed=deal, params=params, mirrored=True)
        # Game g seats lineup entry (seat + g) % 4 in each seat: the bot sits in seat -g % 4.
        wins = [bool(record.winners[(-g) % 4]) for g, record in enumerate(result.games)]
        steps = sum(record.length for record in result.games)
        line = {
            "game": game_name,
            "agent": spec,
            "opponent": opponent,
            **({"params": params} if params else {}),
            "deal": deal,
            "wins": wins,
            "seconds": time.perf_counter() - start,
            "steps": steps,
        }
        with open(out, "a") as file:
            file.write(json.dumps(line) + "\n")


def _done_deals(out: str) -> set[int]:
    if not os.path.exists(out):
        return set()
    with open(out) as file:
        return {json.loads(line)["deal"] for line in file if line.strip()}


def strength(path: str, deals: int | None = None) -> dict:
    """The win rate of a result file with its 95% Wilson interval (of its deals below ``deals``
    if given)."""
    with open(path) as file:
        lines = [json.loads(line) for line in file if line.strip()]
    if deals is not None:
        lines = [line for line in lines if line["deal"] < deals]
    wins = sum(sum(line["wins"]) for line in lines)
    games = sum(len(line["wins"]) for line in lines)
    low, high = wilson_interval(wins, games)
    return {
        "agent": lines[0]["agent"],
        "opponent": lines[0]["opponent"],
        "deals": len(lines),
        "games": games,
        "rate": wins / games,
        "low": low,
        "high": high,
        "seconds": sum(line["seconds"] for line in lines) / games,
    }


def curve_files(folder: str, prefix: str) -> dict[int, str]:
    """The budget-curve result files ``<prefix><budget>.jsonl`` in ``folder``, by budget."""
    return {
        int(name.rsplit("_", 1)[1].split(".")[0]): os.path.join(folder, name)
        for name in os.listdir(folder)
        if name.startswith(prefix)
    }


def same_deal_points(files: dict[int, str]) -> tuple[int, list[tuple[int, dict]]]:
    """Every budget's :func:`strength` on the same deals, those of the shortest file: the
    number of deals and the ``(budget, strength)`` points in order of budget."""
    deals = min(strength(file)["deals"] for file in files.values())
    return deals, sorted((budget, strength(file, deals)) for budget, file in files.items())


def result_line(label: str, stats: dict) -> str:
    """A markdown bullet of a result file's :func:`strength`: its win rate, interval, games."""
    return (
        f"- {label}: {stats['rate']:.3f} [{stats['low']:.3f}, {stats['high']:.3f}] "
        f"over {stats['games']} games"
    )


def verdict(stats: dict, bar: dict) -> str:
    """Where a bot's :func:`strength` stands against the bar (the heuristic's own share)."""
    if stats["low"] > bar["high"]:
        return "above the heuristic's interval"
    if stats["low"] > bar["rate"]:
        return "above the heuristic's share"
    return "NOT above the heuristic's share"


def strength_rows(paths: list[str], bar_label: str | None = None) -> list[str]:
    """Table rows of the result files that exist, the first the heuristic's own share (the
    bar, labelled ``bar_label`` if given), the others marked by where they stand against it."""
    lines, bar = [], None
    for path in paths:
        if not os.path.exists(path):
            continue
        stats = strength(path)
        label = stats["agent"] + (f" ({verdict(stats, bar)})" if bar else "")
        if bar is None and bar_label:
            label = bar_label
        bar = bar or stats
        lines.append(
            f"| {label} | {stats['games']} | {stats['rate']:.3f} "
            f"[{stats['low']:.3f}, {stats['high']:.3f}] | {stats['seconds']:.1f} |"
        )
    return lines


def described_results(folder: str, described: dict[str, str]) -> list[str]:
    """A :func:`result_line` for each result file of ``described`` (file name -> what it was)
    that exists in ``folder``."""
    return [
        result_line(description, strength(os.path.join(folder, name)))
        for name, description in described.items()
        if os.path.exists(os.path.join(folder, name))
    ]


#: the line before each report's block of commands
COMMANDS_INTRO = (
    "Commands (long runs under `nice -n 10`; a result file grows deal by deal and a rerun "
    "skips the deals it has):"
)


def engine_rollouts(game, seconds: float, seed: int) -> tuple[int, int, float]:
    """Random games of ``game`` from the deal, one at a time through the engine: (games, steps,
    seconds): the reference the speed tables divide by."""
    rng = np.random.default_rng(seed)
    games = steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_state(np.random.default_rng(seed + games))
        while not state.terminal:
            legal = np.flatnonzero(game.legal_mask(state, state.current_player))
            game.apply(state, int(legal[rng.integers(legal.size)]))
            steps += 1
        games += 1
    return games, steps, time.process_time() - start


def search_positions(game, count: int, seeds: int, moves) -> list:
    """Up to ``count`` positions with a real choice: game ``seed`` (of ``range(seeds)``) played
    at random by the engine for ``moves(seed)`` moves (or to its end, then skipped)."""
    found = []
    for seed in range(seeds):
        state = game.new_state(np.random.default_rng(seed))
        choices = np.random.default_rng(seed)
        for _ in range(moves(seed)):
            if state.terminal:
                break
            legal = np.flatnonzero(game.legal_mask(state, state.current_player))
            game.apply(state, int(legal[choices.integers(legal.size)]))
        legal = np.flatnonzero(game.legal_mask(state, state.current_player))
        if not state.terminal and legal.size > 1:
            found.append(state)
        if len(found) == count:
            break
    return found


def search_rollouts(game, agent, positions: list, seconds: float) -> tuple[int, int, float]:
    """Rollouts (pimc) or iterations (ismcts) per second inside moves of ``agent`` at
    ``positions`` in turn: (rollouts, 0, seconds)."""
    done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = positions[done // agent.simulations % len(positions)]
        mask = game.legal_mask(state, state.current_player)
        agent.act({"action_mask": mask, "state": state})
        done += agent.simulations
    return done, 0, time.process_time() - start


def speed_table(rows: list) -> list[str]:
    """Markdown lines of rollout speeds ``(name, rollouts/s, spread, steps)``, each against the
    first row (the engine) measured in the same run, and what the engine's rate means a step."""
    reference, steps = rows[0][1], rows[0][3]
    lines = ["| path | rollouts/s per core | x engine | spread |", "| --- | ---: | ---: | ---: |"]
    for name, rate, spread, _steps in rows:
        lines.append(f"| {name} | {rate:,.0f} | {rate / reference:.1f} | {spread:.0%} |")
    return lines + [
        "",
        f"A random game from the deal has {steps:.0f} decisions on average (engine row): the "
        f"engine's {1e3 / reference:.1f} ms per game is {1e6 / reference / steps:.1f} µs per "
        "decision.",
        "",
    ]


def plot_budget_curve(
    points: list, bar: dict, opponent: str, title: str, path: str, whole_range: bool = False
) -> None:
    """Win rate against budget (``(simulations, strength)`` points) with 95% error bars, over
    the opponent's own share (a band); ``whole_range``: the y axis from 0 to 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    budgets = [budget for budget, _ in points]
    rates = np.array([stats["rate"] for _, stats in points])
    low = rates - [stats["low"] for _, stats in points]
    high = [stats["high"] for _, stats in points] - rates
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.axhspan(bar["low"], bar["high"], color="grey", alpha=0.25)
    axes.axhline(bar["rate"], color="grey", label=f"{opponent}'s own share in a seat")
    axes.errorbar(budgets, rates, yerr=[low, high], marker="o", capsize=4, label="pimc")
    axes.set_xscale("log")
    axes.set_xticks(budgets, [str(budget) for budget in budgets])
    axes.minorticks_off()
    if whole_range:
        axes.set_ylim(0, 1)
    axes.set_xlabel("rollouts per move (simulations)")
    axes.set_ylabel(f"win rate against three {opponent}")
    axes.set_title(title, fontsize=10)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def summary(path: str) -> str:
    s = strength(path)
    return (
        f"{s['agent']} vs 3 x {s['opponent']}: {s['games']} games ({s['deals']} deals x 4 "
        f"seats), win rate {s['rate']:.3f} [{s['low']:.3f}, {s['high']:.3f}], "
        f"{s['seconds']:.1f} s per game"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="nobody_wants_it")
    parser.add_argument("--agent", help="e.g. ismcts:simulations=250, or nwi_dodger")
    parser.add_argument("--variant", help="the game's variant (Believe It or Not: quick, standard)")
    parser.add_argument(
        "--opponent", help="the agent in the other seats (default: the best heuristic)"
    )
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--out")
    parser.add_argument("--summary", nargs="*", help="summarise these result files")
    args = parser.parse_args()
    if args.summary:
        for path in args.summary:
            print(summary(path))
        return
    params = {"variant": args.variant} if args.variant else None
    run(args.game, args.agent, args.deals, args.first_deal, args.out, params, args.opponent)
    print(summary(args.out))


if __name__ == "__main__":
    main()
