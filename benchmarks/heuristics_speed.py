"""Cost of the heuristic agents per decision: the current agents against the original ones, in
the same run.

The original implementation is not kept in the package: this script reads the agent modules (and
each game's ``rules.py``, for ``observe``) as they were at the reference commit
``REFERENCE`` with ``git show`` and loads them as private modules, so both run side by side on
the same machine under the same load. It therefore needs the project's git history.

Per game (default parameters, every seat played by the agent being measured) and agent:

- ``act``: microseconds per ``agent.act(observation)`` call, original and now, and the ratio;
- ``observe``: microseconds per ``game.observe(state, player)`` (the engine's share of a
  heuristic's decision; the original engine against the current one);
- ``new`` and ``reset``: microseconds to construct an agent and to reset one.

Caches an agent module keeps between decisions are emptied before each run, so what one run
learnt does not speed up the next.

Both implementations play the same seeded games and must take the same actions (the script stops
if they do not). Each measurement is repeated ``--repeats`` times, old and new interleaved, and
the median is reported.

    python benchmarks/heuristics_speed.py             # writes benchmarks/heuristics_speed.md
    python benchmarks/heuristics_speed.py --games 5 --repeats 1 --only foxy --output /tmp/speed.md
"""

from __future__ import annotations

import os

# Before numpy is imported anywhere: one thread for every BLAS / OpenMP pool.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from cardzoo.agents import agent_classes  # noqa: E402
from cardzoo.envs.core import game_rng_from_seed  # noqa: E402
from cardzoo.envs.registry import game_spec  # noqa: E402

#: the commit before the agents were optimised
REFERENCE = "4e356dd5feeaeeee2490bdf652e19190198e130f"
GAMES = ("nobody_wants_it", "believe_it_or_not", "minus_two", "foxy")
ROOT = Path(__file__).resolve().parent.parent


def reference_module(path: str, name: str, replace: dict[str, str] | None = None):
    """The module at ``path`` as it was at ``REFERENCE``, loaded as ``name``."""
    source = subprocess.run(
        ["git", "show", f"{REFERENCE}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    for old, new in (replace or {}).items():
        source = source.replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = f"{REFERENCE[:7]}:{path}"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def reference_classes(game_name: str) -> dict[str, type]:
    """The original agent classes of a game (random first)."""
    base = reference_module("cardzoo/agents/base.py", "_reference_agents_base")
    agents = reference_module(
        f"cardzoo/agents/{game_name}.py",
        f"_reference_agents_{game_name}",
        {"cardzoo.agents.base": "_reference_agents_base"},
    )
    return {"random": base.RandomAgent, **agents.AGENTS}


def reference_game(game_name: str):
    """The original engine of a game (its ``observe`` is what is compared), default params."""
    rules = reference_module(f"cardzoo/envs/{game_name}/rules.py", f"_reference_rules_{game_name}")
    current = game_spec(game_name).module().raw_env().game
    return getattr(rules, type(current).__name__)(**current.params())


def clear_caches(agent_class) -> None:
    """Empties the decision caches of an agent's module, so every run starts cold (the circle
    thresholds, computed once per ``max_guess`` at construction, are kept)."""
    for value in vars(sys.modules[agent_class.__module__]).values():
        if hasattr(value, "cache_clear") and getattr(value, "__name__", "") != "circle_thresholds":
            value.cache_clear()


def timed_games(game, agent_class, num_games: int) -> tuple[float, float, int, list[int]]:
    """Plays ``num_games`` seeded games with ``agent_class`` in every seat: seconds in ``act``,
    seconds in ``observe``, decisions, and every action."""
    clear_caches(agent_class)
    clock = time.perf_counter
    act_time = observe_time = 0.0
    actions: list[int] = []
    for seed in range(num_games):
        state = game.new_state(game_rng_from_seed(seed))
        agents = [agent_class(game, seed=1_000 * seed + s) for s in range(game.num_players)]
        steps = 0
        while not state.terminal and steps < game.default_max_cycles:
            player = state.current_player
            agent = agents[player]
            observation = {"action_mask": game.legal_mask(state, player)}
            if agent.uses_observation:
                start = clock()
                observation["observation"] = game.observe(state, player)
                observe_time += clock() - start
            start = clock()
            action = agent.act(observation)
            act_time += clock() - start
            actions.append(int(action))
            game.step(state, action)
            steps += 1
    return act_time, observe_time, len(actions), actions


def construction_times(game, agent_class, count: int = 300) -> tuple[float, float]:
    """Microseconds to build an agent, and to reset one."""
    start = time.perf_counter()
    agents = [agent_class(game, seed=seed) for seed in range(count)]
    built = time.perf_counter() - start
    start = time.perf_counter()
    for agent in agents:
        agent.reset()
    reset = time.perf_counter() - start
    return 1e6 * built / count, 1e6 * reset / count


def measure(game_name: str, num_games: int, repeats: int) -> list[dict]:
    current_game = game_spec(game_name).module().raw_env().game
    old_game = reference_game(game_name)
    old_classes, new_classes = reference_classes(game_name), agent_classes(game_name)
    rows = []
    for agent_name, new_class in new_classes.items():
        runs: dict[str, list] = {key: [] for key in ("act", "observe", "new", "reset")}
        runs = {"old": {k: [] for k in runs}, "new": {k: [] for k in runs}}
        for repeat in range(repeats):
            order = [("old", old_game, old_classes[agent_name]), ("new", current_game, new_class)]
            if repeat % 2:
                order.reverse()  # neither side always runs first
            actions = {}
            for side, game, agent_class in order:
                act, observe, decisions, actions[side] = timed_games(game, agent_class, num_games)
                runs[side]["act"].append(1e6 * act / decisions)
                runs[side]["observe"].append(1e6 * observe / decisions)
                built, reset = construction_times(game, agent_class)
                runs[side]["new"].append(built)
                runs[side]["reset"].append(reset)
            if actions["old"] != actions["new"]:
                raise SystemExit(f"{game_name} {agent_name}: the agents took different actions")
        median = {side: {k: statistics.median(v) for k, v in d.items()} for side, d in runs.items()}
        rows.append({"game": game_name, "agent": agent_name, "decisions": decisions, **median})
        print(_row(rows[-1]), flush=True)
    return rows


def _row(row: dict) -> str:
    old, new = row["old"], row["new"]
    cells = [row["game"], row["agent"], f"{row['decisions']:,}"]
    for key in ("act", "observe", "new", "reset"):
        ratio = old[key] / new[key] if new[key] else float("nan")
        cells += [f"{old[key]:.1f}", f"{new[key]:.1f}", f"{ratio:.1f}×"]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| game | agent | decisions | act µs (orig) | act µs (now) | act × | observe µs (orig) | "
    "observe µs (now) | observe × | new µs (orig) | new µs (now) | new × | reset µs (orig) | "
    "reset µs (now) | reset × |\n" + "| --- " * 15 + "|"
)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="seeded games per agent and side")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "heuristics_speed.md"))
    args = parser.parse_args(argv)
    print(HEADER)
    rows = [row for game in args.only.split(",") for row in measure(game, args.games, args.repeats)]
    text = "\n".join(
        [
            "# Heuristic agents: cost per decision, original against now",
            "",
            f"Original: the agents and engines at commit `{REFERENCE[:10]}`, loaded from git in "
            "the same run. Both sides play the same seeded games at the default parameters, every "
            "seat the agent measured, and take the same actions. Median of "
            f"{args.repeats} interleaved runs of {args.games} games each; µs per call "
            "(`act`, `observe`: per decision; `new`, `reset`: per agent); × is original / now.",
            "",
            f"Machine: {platform.processor() or platform.machine()}, Python "
            f"{platform.python_version()}, numpy {np.__version__}. Regenerate with "
            f"`python benchmarks/heuristics_speed.py --games {args.games} "
            f"--repeats {args.repeats}`.",
            "",
            HEADER,
            *(_row(row) for row in rows),
            "",
        ]
    )
    Path(args.output).write_text(text)
    return rows


if __name__ == "__main__":
    main()
