"""Cost of the heuristic agents per decision: the current agents against the original ones, in
the same run.

The original implementation is not kept in the package: this script reads the agent modules (and
each game's ``rules.py``, for ``observe``) as they were at the reference commit
``REFERENCE`` with ``git show`` and loads them as private modules, so both run side by side on
the same machine under the same load. It therefore needs the project's git history.

Per game (default parameters, every seat played by the agent being measured) and agent, the
current agents first play ``--games`` seeded games, recording every decision (observation dict)
and a copy of each state. Then, in turn, each side replays them:

- ``act``: microseconds of CPU time per ``agent.act(observation)`` over the recorded decisions
  (agents built and reset per game outside the clock); both sides must take the recorded actions,
  else the script stops;
- ``observe``: microseconds per ``game.observe(state, player)`` over the recorded states (the
  engine's share of a heuristic's decision; the original engine against the current one);
- ``new`` and ``reset``: microseconds to construct an agent and to reset one.

CPU time (``time.process_time``) over whole games, not wall time per call, so that other
processes on a busy machine do not land in the numbers. Caches an agent module keeps between
decisions are emptied before each replay. Each measurement is repeated ``--repeats`` times, the
two sides alternating which goes first, and the median is reported.

    python benchmarks/heuristics_speed.py             # writes benchmarks/heuristics_speed.md
    python benchmarks/heuristics_speed.py --games 5 --repeats 1 --only foxy --output /tmp/speed.md
"""

from __future__ import annotations

import os

# Before numpy is imported anywhere: one thread for every BLAS / OpenMP pool.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import copy  # noqa: E402
import dataclasses  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from cardzoo.agents import agent_classes  # noqa: E402
from cardzoo.envs.helpers import game_rng_from_seed  # noqa: E402
from cardzoo.envs.registry import game_spec  # noqa: E402

#: the commit before the agents were optimised
REFERENCE = "4e356dd5feeaeeee2490bdf652e19190198e130f"
GAMES = ("nobody_wants_it", "believe_it_or_not", "minus_two", "foxy")
ROOT = Path(__file__).resolve().parent.parent
SIDES = ("old", "new")


def reference_envs_core() -> str:
    """A module holding what ``cardzoo.envs.core`` held at ``REFERENCE``, before it was split:
    the engine contract and the engines' helpers (now :mod:`cardzoo.envs.helpers`). Returns its
    name, for the reference modules to import from."""
    import cardzoo.envs.core
    import cardzoo.envs.helpers

    name = "_reference_envs_core"
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__dict__.update(vars(cardzoo.envs.helpers))
        module.__dict__.update(vars(cardzoo.envs.core))
        sys.modules[name] = module
    return name


def reference_module(path: str, name: str, replace: dict[str, str] | None = None):
    """The module at ``path`` as it was at ``REFERENCE``, loaded as ``name``."""
    source = subprocess.run(
        ["git", "show", f"{REFERENCE}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    replace = {"cardzoo.envs.core": reference_envs_core(), **(replace or {})}
    for old, new in replace.items():
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


@dataclasses.dataclass
class Recording:
    """Every decision of ``num_games`` seeded games played by the current agents."""

    #: per game, each decision's seat and observation dict
    decisions: list[list[tuple[int, dict]]]
    #: a copy of the state and the seat of each decision that builds an observation
    states: list[tuple[object, int]]
    #: every action taken
    actions: list[int]


def record(game, agent_class, num_games: int) -> Recording:
    """Plays ``num_games`` seeded games with ``agent_class`` in every seat."""
    recording = Recording([], [], [])
    for seed in range(num_games):
        state = game.new_state(game_rng_from_seed(seed))
        agents = new_agents(game, agent_class, seed)
        decisions = []
        while not state.terminal and len(decisions) < game.default_max_cycles:
            player = state.current_player
            observation = {"action_mask": game.legal_mask(state, player)}
            if agents[player].uses_observation:
                recording.states.append((copy.deepcopy(state), player))
                observation["observation"] = game.observe(state, player)
            action = agents[player].act(observation)
            decisions.append((player, observation))
            recording.actions.append(int(action))
            game.step(state, action)
        recording.decisions.append(decisions)
    return recording


def new_agents(game, agent_class, seed: int) -> list:
    return [agent_class(game, seed=1_000 * seed + seat) for seat in range(game.num_players)]


def time_acts(game, agent_class, recording: Recording) -> tuple[float, list[int]]:
    """CPU seconds ``agent_class`` spends in ``act`` over the recorded decisions (agents built
    and reset per game outside the clock), and the actions it takes."""
    clear_caches(agent_class)
    seconds, actions = 0.0, []
    for seed, decisions in enumerate(recording.decisions):
        agents = new_agents(game, agent_class, seed)
        for agent in agents:
            agent.reset()
        start = time.process_time()
        taken = [agents[seat].act(observation) for seat, observation in decisions]
        seconds += time.process_time() - start
        actions += [int(action) for action in taken]
    return seconds, actions


def time_observe(game, recording: Recording) -> float:
    """CPU seconds ``game.observe`` takes over the recorded states."""
    start = time.process_time()
    for state, player in recording.states:
        game.observe(state, player)
    return time.process_time() - start


def construction_times(game, agent_class, count: int = 300) -> tuple[float, float]:
    """Microseconds (CPU) to build an agent, and to reset one."""
    start = time.process_time()
    agents = [agent_class(game, seed=seed) for seed in range(count)]
    built = time.process_time() - start
    start = time.process_time()
    for agent in agents:
        agent.reset()
    reset = time.process_time() - start
    return 1e6 * built / count, 1e6 * reset / count


def measure(game_name: str, num_games: int, repeats: int) -> list[dict]:
    current_game = game_spec(game_name).module().raw_env().game
    old_game = reference_game(game_name)
    old_classes, new_classes = reference_classes(game_name), agent_classes(game_name)
    rows = []
    for agent_name, new_class in new_classes.items():
        recording = record(current_game, new_class, num_games)
        decisions = len(recording.actions)
        runs = {side: {k: [] for k in ("act", "observe", "new", "reset")} for side in SIDES}
        sides = {"old": (old_game, old_classes[agent_name]), "new": (current_game, new_class)}
        for repeat in range(repeats):
            order = list(SIDES) if repeat % 2 == 0 else list(reversed(SIDES))  # alternate
            for side in order:
                game, agent_class = sides[side]
                seconds, actions = time_acts(game, agent_class, recording)
                if actions != recording.actions:
                    raise SystemExit(f"{game_name} {agent_name}: the agents took different actions")
                runs[side]["act"].append(1e6 * seconds / decisions)
                observed = len(recording.states)
                observe = time_observe(game, recording) if observed else 0.0
                runs[side]["observe"].append(1e6 * observe / observed if observed else 0.0)
                built, reset = construction_times(game, agent_class)
                runs[side]["new"].append(built)
                runs[side]["reset"].append(reset)
        median = {side: {k: statistics.median(v) for k, v in d.items()} for side, d in runs.items()}
        rows.append({"game": game_name, "agent": agent_name, "decisions": decisions, **median})
        print(_row(rows[-1]), flush=True)
    return rows


def _row(row: dict) -> str:
    old, new = row["old"], row["new"]
    cells = [row["game"], row["agent"], f"{row['decisions']:,}"]
    for key in ("act", "observe", "new", "reset"):
        if not old[key] and not new[key]:  # random agents build no observation
            cells += ["–", "–", "–"]
            continue
        ratio = old[key] / new[key] if new[key] else float("nan")
        cells += [f"{old[key]:.1f}", f"{new[key]:.1f}", f"{ratio:.1f}×"]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| game | agent | decisions | act µs (orig) | act µs (now) | act × | observe µs (orig) | "
    "observe µs (now) | observe × | new µs (orig) | new µs (now) | new × | reset µs (orig) | "
    "reset µs (now) | reset × |\n" + "| --- " * 15 + "|"
)


NOTES = """\
Notes. The engines' `observe` was not changed: its column shows the engine's share of a
heuristic's decision, and how close to 1.0× an unchanged measurement comes. The table is CPU
time in one process; a training step also pays `legal_mask`, `step` and the environment around
them. The exact-play guarantee is in the tests (`tests/test_heuristics_unchanged.py`: every
action of 300 seeded games per agent and line-up, recorded before the optimisation).
"""


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
            "the same run. Both sides replay the decisions of the same seeded games at the "
            "default parameters (every seat the agent measured) and take the same actions. "
            f"Median of {args.repeats} alternating runs over {args.games} games; µs of CPU time "
            "per call (`act`, `observe`: per decision; `new`, `reset`: per agent); × is "
            "original / now. A random agent now makes its generator at its first draw, so that "
            "cost moved from `new` to its first `act` of each game.",
            "",
            f"Machine: {platform.processor() or platform.machine()}, Python "
            f"{platform.python_version()}, numpy {np.__version__}. Regenerate with "
            f"`python benchmarks/heuristics_speed.py --games {args.games} "
            f"--repeats {args.repeats}`.",
            "",
            HEADER,
            *(_row(row) for row in rows),
            "",
            NOTES,
        ]
    )
    Path(args.output).write_text(text)
    return rows


if __name__ == "__main__":
    main()
