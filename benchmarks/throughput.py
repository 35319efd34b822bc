"""Throughput of the cardzoo games, side by side with PettingZoo's classic games and OpenSpiel.

Every measurement is random legal play on one core (BLAS/OpenMP threads pinned to 1 before numpy
loads), repeated ``--repeats`` times (default 3) for ``--seconds`` each; the table shows the median
of the runs. The runs of all measurements are interleaved (run 1 of everything, then run 2, ...) so
that load from other processes on the machine falls on all of them alike: compare ratios within
one run, not absolute numbers across machines.

Measurements
    ``aec``     a cardzoo game's ``env()`` (with PettingZoo's classic wrappers) driven exactly as
                users drive it: ``agent_iter`` / ``last`` / ``step``, reading the observation dict
                and its action mask every step. Also PettingZoo's own ``leduc_holdem_v4``,
                ``texas_holdem_v4``, ``connect_four_v3`` and ``rps_v2`` (rps is the cost of the AEC
                protocol itself: its game logic is nearly nothing).
    ``engine``  a cardzoo engine without PettingZoo: ``game.new_state(rng)``, then per decision
                ``legal_mask``, ``observe(state, player, out=buffer)`` into one preallocated array,
                ``apply`` (a game is cut at the game's ``default_max_cycles`` decisions).
    ``numpy engine``  the same, on the numpy engine a game with a kernel ran on before it (kept
                as the tests' reference, ``tests/reference/<game>.py``): what "no slower than
                today's numpy engine" measures the plain vector forms against.
    ``spiel``   OpenSpiel's ``leduc_poker``, ``liars_dice`` and ``crazy_eights`` through
                ``pyspiel``: per decision the observation is written into a numpy buffer
                (``make_observation(game).set_from(state, player)``), ``legal_actions``,
                ``apply_action``; chance nodes are sampled and not counted as steps.
    ``vector``  a game with a vector form (``cardzoo.vector``) as ``MultiAgentVectorEnv``:
                ``--vector-games`` games (a tenth of them plain) stepped per call, every decision
                returning the observation and action mask of the seat to decide; the random
                player picks for all games in one numpy call. ``vector gym``: the Gymnasium
                ``VectorEnv``, the learner's action per game, random opponents inside the kernel.
                Each is measured compiled (numba) and plain (``compiled=False``).
    ``vs NAME`` with ``--opponents NAME`` (an agent name, e.g. ``nwi_dodger``), for the games
                with a vector form: the learner (random legal play, seat 0) against NAME in
                every other seat, three ways: ``vector gym vs NAME (kernel)``, the compiled
                ``VectorEnv`` playing the opponents inside its kernel (an error row where the
                kernel does not play NAME); ``vector gym vs NAME (Python)``, the same env with
                the same agents called from Python per decision (given as a factory); ``aec vs
                NAME``, the AEC environment with the agents called per decision. Agent steps
                are the learner's; a second table gives their ratios to the kernel row.

Columns
    agent steps/s   AEC: every ``step`` call, the steps of finished agents included; engine and
                    OpenSpiel: decisions.
    decisions/s     steps of an agent that has to choose (not terminated or truncated).
    choices/s       decisions with at least two legal actions (a fairer count for games with
                    forced moves; Henhouse has none: its only action is "turn your top card").
    games/s, us/step (microseconds per agent step), steps/game, spread ((max - min) / median of
    the runs' steps/s), and the ratios of agent steps/s to PettingZoo ``leduc_holdem_v4`` and to
    ``rps_v2`` measured in the same run; the ratios of decisions/s to the same game's AEC
    environment and to OpenSpiel's ``crazy_eights``. ``vector gym`` rows count the learner's
    steps as agent steps, every seat's decisions as decisions and the learner's choices.

Targets (marked met / NOT met): every cardzoo game through the AEC API at least 5x
``leduc_holdem_v4`` and at least ``rps_v2`` / 1.5 in agent steps/s; every cardzoo engine at least
100,000 decisions/s with observations; the compiled vector form at least 1,000,000 decisions/s
with observations and masks, 20x the game's AEC environment and 4x ``crazy_eights``; the plain
vector form at least the game's numpy engine (its engine where it has none; decisions/s).

Every game in ``cardzoo.envs.GAMES`` is measured at its default parameters; a game whose module
fails to import is reported as missing. References whose packages are not installed (the
``bench`` extra: ``pettingzoo[classic]``, ``open_spiel``) are reported as not installed. A game
whose engine is its kernel (Nobody Wants It) runs it compiled where numba is installed;
``--no-numba`` measures as an installation without numba does (numba made unimportable: every
kernel plain Python, the compiled vector rows errors).

    python benchmarks/throughput.py                     # full run (~3 minutes), writes RESULTS.md
    python benchmarks/throughput.py --games henhouse --references rps,leduc_holdem_v4
    python benchmarks/throughput.py --quick             # smoke run, a second or two per game
    python benchmarks/throughput.py --games nobody_wants_it --references crazy_eights
    python benchmarks/throughput.py --profile henhouse  # cProfile of both paths of one game
    python benchmarks/throughput.py --games nobody_wants_it --no-numba  # as without numba
    python benchmarks/throughput.py --games nobody_wants_it --references none --opponents nwi_dodger
"""

from __future__ import annotations

import os

# Before numpy is imported anywhere: one thread for every BLAS / OpenMP pool.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import functools  # noqa: E402
import importlib  # noqa: E402
import importlib.metadata  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TypeAlias  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "benchmarks" / "RESULTS.md"
#: where a run that measures less, or otherwise, than the full one writes by default
PARTIAL_OUTPUT = REPO / "runs" / "throughput.md"

ENGINE_TARGET = 100_000  # decisions/s with observations
VECTOR_TARGET = 1_000_000  # decisions/s with observations and masks, compiled
VECTOR_AEC_FACTOR = 20.0  # compiled vector decisions/s >= 20 x the game's AEC env
VECTOR_SPIEL_FACTOR = 4.0  # compiled vector decisions/s >= 4 x OpenSpiel crazy_eights
CRAZY_EIGHTS = "crazy_eights"
LEDUC_FACTOR = 5.0  # cardzoo AEC steps/s >= 5 x PettingZoo leduc_holdem_v4
RPS_FACTOR = 1.5  # cardzoo AEC steps/s >= rps_v2 / 1.5
LEDUC, RPS = "leduc_holdem_v4", "rps_v2"

Clock: TypeAlias = Callable[[], float]
#: ``cpu`` (default) counts only this process's CPU time, so other processes on a busy machine
#: do not slow the numbers down (they still share caches); ``wall`` is elapsed time.
CLOCKS: dict[str, Clock] = {"cpu": time.process_time, "wall": time.perf_counter}

PETTINGZOO_REFERENCES = (LEDUC, "texas_holdem_v4", "connect_four_v3", RPS)
OPENSPIEL_REFERENCES = ("leduc_poker", "liars_dice", "crazy_eights")


# ----------------------------------------------------------------------------------------------
# Random legal play
# ----------------------------------------------------------------------------------------------


def uniforms(seed: int) -> Iterator[float]:
    """Endless uniform floats in [0, 1), drawn in blocks: every library's random player picks
    ``legal[int(u * len(legal))]`` with the same cheap draw, so the chooser costs all alike."""
    rng = np.random.default_rng(seed)
    while True:
        yield from rng.random(8192).tolist()


@dataclasses.dataclass
class Counts:
    """What one timed run did."""

    steps: int = 0  # agent steps (see the module docstring)
    decisions: int = 0  # steps of an agent that has to choose
    choices: int = 0  # decisions with at least two legal actions
    games: int = 0
    seconds: float = 0.0

    def rate(self, what: str) -> float:
        return getattr(self, what) / self.seconds if self.seconds > 0 else 0.0


def play_aec(
    env, seconds: float, seed: int, clock: Clock = time.process_time, opponents: list | None = None
) -> Counts:
    """Random legal play through the AEC API, whole games until ``seconds`` have passed. With
    ``opponents`` (an agent per seat, seat 0's entry unused), a random learner in seat 0 against
    those agents deciding for the other seats: agent steps and choices are then the learner's
    decisions and choices, decisions every seat's."""
    uniform = uniforms(seed)
    steps = decisions = choices = games = 0
    start = clock()
    deadline = start + seconds
    env.reset(seed=seed)  # later games continue the environment's own sequence of deals
    while True:
        for opponent in (opponents or [None])[1:]:
            opponent.reset()
        for agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            steps += opponents is None
            if terminated or truncated:
                action = None
            elif opponents is not None and env.agent_name_mapping[agent] > 0:
                decisions += 1
                action = opponents[env.agent_name_mapping[agent]].act(observation)
            else:
                decisions += 1
                steps += opponents is not None
                if type(observation) is dict:
                    legal = observation["action_mask"].nonzero()[0]
                    num_legal = len(legal)
                    action = int(legal[int(next(uniform) * num_legal)])
                else:  # no action mask (rps): every action is legal
                    num_legal = env.action_space(agent).n
                    action = int(next(uniform) * num_legal)
                if num_legal >= 2:
                    choices += 1
            env.step(action)
        games += 1
        if clock() >= deadline:
            break
        env.reset()
    return Counts(steps, decisions, choices, games, clock() - start)


def play_engine(game, seconds: float, seed: int, clock: Clock = time.process_time) -> Counts:
    """Random legal play on a cardzoo engine alone, observing into one preallocated buffer."""
    uniform = uniforms(seed)
    rng = np.random.default_rng(seed)
    buffer = np.empty(game.observation_size, np.float32)
    cap = game.default_max_cycles
    decisions = choices = games = 0
    start = clock()
    deadline = start + seconds
    while True:
        state = game.new_state(rng)
        for _ in range(cap):
            if state.terminal:
                break
            player = state.current_player
            mask = game.legal_mask(state, player)
            game.observe(state, player, out=buffer)
            legal = mask.nonzero()[0]
            num_legal = len(legal)
            if num_legal >= 2:
                choices += 1
            game.apply(state, int(legal[int(next(uniform) * num_legal)]))
            decisions += 1
        games += 1
        if clock() >= deadline:
            break
    return Counts(decisions, decisions, choices, games, clock() - start)


def play_openspiel(
    game, observation, seconds: float, seed: int, clock: Clock = time.process_time
) -> Counts:
    """Random legal play on an OpenSpiel game, the observation written into its numpy buffer at
    every decision. Chance outcomes are sampled with their probabilities."""
    uniform = uniforms(seed)
    decisions = choices = games = 0
    start = clock()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state.chance_outcomes(), next(uniform)))
                continue
            player = state.current_player()
            observation.set_from(state, player)
            legal = state.legal_actions(player)
            num_legal = len(legal)
            if num_legal >= 2:
                choices += 1
            state.apply_action(legal[int(next(uniform) * num_legal)])
            decisions += 1
        games += 1
        if clock() >= deadline:
            break
    return Counts(decisions, decisions, choices, games, clock() - start)


def sample_chance(outcomes: list[tuple[int, float]], u: float) -> int:
    for action, probability in outcomes:
        u -= probability
        if u < 0:
            return action
    return outcomes[-1][0]  # rounding: the probabilities summed to a hair under u


def pick_legal(masks: np.ndarray, uniform: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One random legal action per row of ``masks``: ``legal[int(u * len(legal))]``, as every
    random player here picks, for all games in a few numpy calls; and each row's number of legal
    actions. (The legal actions are listed once, so that a wide mask, Minus Two's 293 actions,
    costs little more than a narrow one.)"""
    width = masks.shape[1]
    legal = np.flatnonzero(masks.view(np.bool_))  # row-major: row b's actions come together
    counts = np.bincount(legal // width, minlength=len(masks))
    first = np.cumsum(counts) - counts
    return legal[first + (uniform * counts).astype(np.int64)] % width, counts


def play_vector(games, seconds: float, seed: int, clock: Clock = time.process_time) -> Counts:
    """Random legal play on a ``MultiAgentVectorEnv``: every call, one decision per game, each
    returning the observation and mask of the seat to decide next."""
    rng = np.random.default_rng(seed)
    step = games.reset(seed=seed)
    decisions = choices = ended = 0
    start = clock()
    deadline = start + seconds
    while True:
        masks = step.action_mask
        actions, counts = pick_legal(masks, rng.random(len(masks)))
        choices += int((counts >= 2).sum())
        step = games.step(actions)
        decisions += len(masks)
        ended += int((step.terminated | step.truncated).sum())
        if clock() >= deadline:
            break
    return Counts(decisions, decisions, choices, ended, clock() - start)


def play_vector_gym(env, seconds: float, seed: int, clock: Clock = time.process_time) -> Counts:
    """Random legal play of the learner on a Gymnasium ``VectorEnv`` (whatever its opponents:
    random ones inside the kernel by default). Agent steps are the learner's; decisions every
    seat's (from the games' step counters); choices the learner's."""
    rng = np.random.default_rng(seed)
    _observations, infos = env.reset(seed=seed)
    learner = decisions = choices = ended = 0
    resetting = np.zeros(env.num_envs, bool)  # NEXT_STEP: these games start anew in this call
    before, after = np.zeros(env.num_envs, np.int64), np.zeros(env.num_envs, np.int64)
    start = clock()
    deadline = start + seconds
    while True:
        masks = infos["action_mask"]
        actions, counts = pick_legal(masks, rng.random(len(masks)))
        choices += int((counts[~resetting] >= 2).sum())
        env.batch.step_counts(before)  # copies: a plain batch runs on as it was
        _observations, _rewards, terminated, truncated, infos = env.step(actions)
        env.batch.step_counts(after)
        decisions += int(np.where(resetting, after, after - before).sum())
        learner += int((~resetting).sum())
        resetting = terminated | truncated
        ended += int(resetting.sum())
        if clock() >= deadline:
            break
    return Counts(learner, decisions, choices, ended, clock() - start)


# ----------------------------------------------------------------------------------------------
# What to measure
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Benchmark:
    """One row of the table. ``run(seconds, seed, clock)`` plays one timed run; it is None if the
    row could not be set up (``status`` says why: missing, not installed, error)."""

    name: str
    library: str  # cardzoo, PettingZoo, OpenSpiel
    path: str  # aec, engine, spiel
    params: str = ""
    run: Callable[[float, int, Clock], Counts] | None = None
    status: str = "ok"
    runs: list[Counts] = dataclasses.field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.library} {self.name} ({self.path})"

    def median(self, what: str) -> float:
        return statistics.median(run.rate(what) for run in self.runs) if self.runs else 0.0

    def steps_per_game(self) -> float:
        games = sum(run.games for run in self.runs)
        return sum(run.steps for run in self.runs) / games if games else 0.0

    def spread(self) -> float:
        rates = [run.rate("steps") for run in self.runs]
        middle = statistics.median(rates) if rates else 0.0
        return (max(rates) - min(rates)) / middle if middle else 0.0


def cardzoo_benchmarks(
    names: list[str] | None, vector_games: int = 1024, opponents: str | None = None
) -> list[Benchmark]:
    """The AEC and engine rows of every registered game (or of ``names``), and the vector rows
    of the games with a vector form (and their rows against ``opponents``, if given)."""
    from cardzoo.envs import GAMES

    benchmarks = []
    for name, spec in GAMES.items():
        if names is not None and name not in names:
            continue
        try:
            module = spec.module()
            env = module.env()
            game = module.raw_env.game_class()
        except Exception as error:  # a game still being written must not stop the benchmark
            reason = f"missing ({type(error).__name__}: {error})"
            benchmarks += [
                Benchmark(versioned(name), "cardzoo", path, status=reason)
                for path in ("aec", "engine")
            ]
            continue
        params = ", ".join(f"{key}={value}" for key, value in game.params().items())
        runs = {
            "aec": lambda seconds, seed, clock, env=env: play_aec(env, seconds, seed, clock),
            "engine": lambda seconds, seed, clock, game=game: play_engine(
                game, seconds, seed, clock
            ),
        }
        benchmarks += [
            Benchmark(versioned(name), "cardzoo", path, params, run=run)
            for path, run in runs.items()
        ]
        reference = numpy_reference(name)
        if reference is not None:
            run = functools.partial(play_engine, reference)
            benchmarks.append(Benchmark(versioned(name), "cardzoo", NUMPY_ENGINE, params, run=run))
        if spec.game_class().kernel_module is not None:
            benchmarks += vector_benchmarks(name, params, vector_games)
            if opponents is not None:
                benchmarks += opponent_benchmarks(name, params, opponents, vector_games)
    return benchmarks


#: the path of the rows of the numpy engines the games ran on before their kernels (kept as the
#: tests' references: tests/reference/), which the plain vector rows are held to
NUMPY_ENGINE = "numpy engine"


def numpy_reference(name: str):
    """The game's numpy engine of before its kernel, at its default parameters (``tests/
    reference/<name>.py``'s ``Numpy<Game>``), or None for a game without one."""
    from cardzoo.envs.registry import camel_case

    if not (REPO / "tests" / "reference" / f"{name}.py").is_file():
        return None
    sys.path.insert(0, str(REPO / "tests"))
    try:
        module = importlib.import_module(f"reference.{name}")
    finally:
        sys.path.remove(str(REPO / "tests"))
    return getattr(module, f"Numpy{camel_case(name)}")()


def versioned(name: str) -> str:
    """A game's row name, ``<name>_v<version>`` (its public module's name); a game whose engine
    does not import is named without a version."""
    from cardzoo.envs import game_spec

    try:
        return game_spec(name).versioned_name
    except Exception:  # a game still being written must not stop the benchmark
        return name


def vector_benchmarks(name: str, params: str, count: int) -> list[Benchmark]:
    """The vector rows of a game with a vector form: the multi-agent form and the Gymnasium
    ``VectorEnv``, compiled (``count`` games) and plain (a tenth of them)."""
    from cardzoo.vector import MultiAgentVectorEnv, VectorEnv

    benchmarks = []
    for compiled in (True, False):
        games = count if compiled else max(1, count // 10)
        kind = "" if compiled else " plain"
        described = f"{params}, num_envs={games}"
        try:
            vector = MultiAgentVectorEnv(name, games, compiled=compiled)
            gym = VectorEnv(name, games, compiled=compiled)
        except Exception as error:  # numba missing for compiled=True, a kernel in progress
            reason = f"error ({type(error).__name__}: {error})"
            benchmarks += [
                Benchmark(versioned(name), "cardzoo", f"{path}{kind}", status=reason)
                for path in ("vector", "vector gym")
            ]
            continue
        runs = {
            "vector": lambda seconds, seed, clock, env=vector: play_vector(
                env, seconds, seed, clock
            ),
            "vector gym": lambda seconds, seed, clock, env=gym: play_vector_gym(
                env, seconds, seed, clock
            ),
        }
        benchmarks += [
            Benchmark(versioned(name), "cardzoo", f"{path}{kind}", described, run=run)
            for path, run in runs.items()
        ]
    return benchmarks


def opponent_benchmarks(name: str, params: str, opponents: str, count: int) -> list[Benchmark]:
    """The rows of a learner in seat 0 against the agent ``opponents`` in every other seat (see
    the module docstring): the compiled ``VectorEnv`` (``count`` games) with the opponents in its
    kernel and called from Python, and the AEC environment."""
    from cardzoo.agents import make_agent
    from cardzoo.envs import game_spec
    from cardzoo.vector import VectorEnv

    def factory(game, seed):
        return make_agent(name, opponents, game, seed)

    described = f"{params}, num_envs={count}"
    kernel_path, python_path = (
        f"vector gym vs {opponents} ({how})" for how in ("kernel", "Python")
    )
    benchmarks = []
    for path, spec in ((kernel_path, opponents), (python_path, factory)):
        try:
            env = VectorEnv(name, count, spec, learner_seat=0, compiled=True)
            if path == kernel_path and not env._compiled_opponents:
                raise ValueError(f"the kernel does not play {opponents}")
        except Exception as error:  # numba missing, an unknown agent
            reason = f"error ({type(error).__name__}: {error})"
            benchmarks.append(Benchmark(versioned(name), "cardzoo", path, status=reason))
            continue
        run = functools.partial(play_vector_gym, env)
        benchmarks.append(Benchmark(versioned(name), "cardzoo", path, described, run=run))
    env = game_spec(name).module().env()
    game = env.unwrapped.game
    agents = [None, *(factory(game, seat) for seat in range(1, game.num_players))]
    run = functools.partial(play_aec, env, opponents=agents)
    benchmarks.append(Benchmark(versioned(name), "cardzoo", f"aec vs {opponents}", params, run=run))
    return benchmarks


def pettingzoo_benchmark(name: str) -> Benchmark:
    try:
        with warnings.catch_warnings():  # PettingZoo's own notice about its old import style
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(f"pettingzoo.classic.{name}")
        env = module.env()
    except ImportError as error:
        return Benchmark(name, "PettingZoo", "aec", status=f"not installed ({error})")
    return Benchmark(
        name,
        "PettingZoo",
        "aec",
        f"num_players={len(env.possible_agents)}",
        run=lambda seconds, seed, clock: play_aec(env, seconds, seed, clock),
    )


def openspiel_benchmark(name: str) -> Benchmark:
    try:
        import pyspiel
        from open_spiel.python.observation import make_observation
    except ImportError as error:
        return Benchmark(name, "OpenSpiel", "spiel", status=f"not installed ({error})")
    game = pyspiel.load_game(name)
    observation = make_observation(game)
    return Benchmark(
        name,
        "OpenSpiel",
        "spiel",
        f"num_players={game.num_players()}",
        run=lambda seconds, seed, clock: play_openspiel(game, observation, seconds, seed, clock),
    )


def reference_benchmarks(names: list[str]) -> list[Benchmark]:
    benchmarks = []
    for name in names:
        if name in PETTINGZOO_REFERENCES:
            benchmarks.append(pettingzoo_benchmark(name))
        else:
            benchmarks.append(openspiel_benchmark(name))
    return benchmarks


def measure(
    benchmarks: list[Benchmark], seconds: float, repeats: int, warmup: float, clock: Clock
) -> None:
    """Warm every benchmark up once, then ``repeats`` rounds of one timed run each."""
    runnable = [b for b in benchmarks if b.run is not None]
    for benchmark in runnable:
        guard(benchmark, lambda b=benchmark: b.run(warmup, 12345, clock))
    for repeat in range(repeats):
        for benchmark in runnable:
            if benchmark.status != "ok":
                continue
            counts = guard(benchmark, lambda b=benchmark, r=repeat: b.run(seconds, r, clock))
            if counts is None:
                continue
            benchmark.runs.append(counts)
            print(
                f"  run {repeat + 1}/{repeats}  {benchmark.label:<44}"
                f"{counts.rate('steps'):>12,.0f} steps/s",
                file=sys.stderr,
                flush=True,
            )


def guard(benchmark: Benchmark, play: Callable[[], Counts]) -> Counts | None:
    """Run ``play``; an exception marks the row as an error instead of ending the benchmark."""
    try:
        return play()
    except Exception as error:
        benchmark.status = f"error ({type(error).__name__}: {error})"
        benchmark.runs.clear()
        print(f"  {benchmark.label}: {benchmark.status}", file=sys.stderr, flush=True)
        return None


# ----------------------------------------------------------------------------------------------
# The report
# ----------------------------------------------------------------------------------------------


def reference_rate(benchmarks: list[Benchmark], name: str) -> float | None:
    for benchmark in benchmarks:
        if benchmark.name == name and benchmark.library == "PettingZoo" and benchmark.runs:
            return benchmark.median("steps")
    return None


def decision_rates(benchmarks: list[Benchmark]) -> dict[str, float]:
    """Decisions/s of the rows other rows are compared with: ``crazy_eights`` and, per cardzoo
    game, ``"<game> aec"`` and ``"<game> engine"``."""
    rates = {}
    for b in benchmarks:
        if not b.runs:
            continue
        if b.library == "OpenSpiel" and b.name == CRAZY_EIGHTS:
            rates[CRAZY_EIGHTS] = b.median("decisions")
        elif b.library == "cardzoo" and b.path in ("aec", "engine", NUMPY_ENGINE):
            rates[f"{b.name} {b.path}"] = b.median("decisions")
    return rates


def targets(
    benchmark: Benchmark,
    leduc: float | None,
    rps: float | None,
    rates: dict[str, float] | None = None,
) -> str:
    """The targets of a cardzoo row, each marked met / NOT met (n/a without its reference);
    ``rates``: :func:`decision_rates` of the same run (for the vector rows)."""

    def mark(ok: bool | None) -> str:
        return "n/a" if ok is None else ("met" if ok else "NOT met")

    def at_least(key: str, factor: float) -> bool | None:
        reference = (rates or {}).get(key)
        return None if reference is None else decisions >= factor * reference

    if benchmark.library != "cardzoo" or " vs " in benchmark.path:
        return ""  # the rows against opponents: see opponents_table
    decisions = benchmark.median("decisions")
    if benchmark.path == "engine":
        return f">=100k dec/s: {mark(decisions >= ENGINE_TARGET)}"
    if benchmark.path == NUMPY_ENGINE:
        return ""  # the reference of the plain vector rows
    if benchmark.path.startswith("vector") and benchmark.path.endswith("plain"):
        # The ratio is given here: the table's ratio columns are to the AEC env.
        reference, label = f"{benchmark.name} {NUMPY_ENGINE}", "numpy engine"
        if reference not in (rates or {}):
            reference, label = f"{benchmark.name} engine", "engine"
        found = (rates or {}).get(reference)
        shown = "" if found is None else f" ({ratio(decisions, found)}x)"
        return f">={label} dec/s: {mark(at_least(reference, 1.0))}{shown}"
    if benchmark.path.startswith("vector"):
        return (
            f">=1M dec/s: {mark(decisions >= VECTOR_TARGET)}; "
            f">=20x AEC: {mark(at_least(f'{benchmark.name} aec', VECTOR_AEC_FACTOR))}; "
            f">=4x crazy_eights: {mark(at_least(CRAZY_EIGHTS, VECTOR_SPIEL_FACTOR))}"
        )
    steps = benchmark.median("steps")
    versus_leduc = None if leduc is None else steps >= LEDUC_FACTOR * leduc
    versus_rps = None if rps is None else steps >= rps / RPS_FACTOR
    return f">=5x leduc: {mark(versus_leduc)}; >=rps/1.5: {mark(versus_rps)}"


def ratio(value: float, reference: float | None) -> str:
    return f"{value / reference:.2f}" if reference else "n/a"


def results_table(benchmarks: list[Benchmark]) -> str:
    leduc, rps = reference_rate(benchmarks, LEDUC), reference_rate(benchmarks, RPS)
    rates = decision_rates(benchmarks)
    header = (
        "| library | benchmark | path | params | agent steps/s | decisions/s | choices/s "
        "| games/s | us/step | steps/game | spread | x PZ leduc | x rps | dec x own AEC "
        "| dec x crazy_eights | targets |"
    )
    lines = [header, "|" + " --- |" * 16]
    for b in benchmarks:
        if not b.runs:
            lines.append(f"| {b.library} | {b.name} | {b.path} | {b.status} |" + " |" * 12)
            continue
        steps, decisions = b.median("steps"), b.median("decisions")
        own_aec = rates.get(f"{b.name} aec") if b.library == "cardzoo" else None
        cells = [
            b.library,
            b.name,
            b.path,
            b.params,
            f"{steps:,.0f}",
            f"{decisions:,.0f}",
            f"{b.median('choices'):,.0f}",
            f"{b.median('games'):,.1f}",
            f"{1e6 / steps:.2f}" if steps else "-",
            f"{b.steps_per_game():,.1f}",
            f"{b.spread():.0%}",
            ratio(steps, leduc),
            ratio(steps, rps),
            ratio(decisions, own_aec),
            ratio(decisions, rates.get(CRAZY_EIGHTS)),
            targets(b, leduc, rps, rates),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def opponents_table(benchmarks: list[Benchmark]) -> str:
    """The rows against opponents (``--opponents``): the learner's steps/s, and the kernel row's
    rate over each row's (how many times faster the opponents in the kernel are), per game."""
    rows = [b for b in benchmarks if b.library == "cardzoo" and " vs " in b.path]
    if not rows:
        return ""
    kernel = {b.name: b.median("steps") for b in rows if b.path.endswith("(kernel)") and b.runs}
    lines = [
        "| benchmark | path | learner steps/s | decisions/s | us/learner step | kernel x this |",
        "|" + " --- |" * 6,
    ]
    for b in rows:
        if not b.runs:
            lines.append(f"| {b.name} | {b.path} | {b.status} | | | |")
            continue
        steps = b.median("steps")
        cells = [
            b.name,
            b.path,
            f"{steps:,.0f}",
            f"{b.median('decisions'):,.0f}",
            f"{1e6 / steps:.2f}" if steps else "-",
            ratio(kernel.get(b.name, 0.0), steps),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def version_of(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_revision() -> str:
    try:
        result = subprocess.run(
            ["git", "-C", str(REPO), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return result.stdout.strip() or "unknown"


def machine_lines(load_before: tuple[float, ...]) -> list[str]:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load_after = os.getloadavg() if hasattr(os, "getloadavg") else ()
    load = " -> ".join(", ".join(f"{x:.2f}" for x in avg) for avg in (load_before, load_after))
    return [
        f"- CPU: {cpu_model()}; {os.cpu_count()} logical cores ({usable} usable); one used",
        f"- OS: {platform.platform()}",
        f"- load average (1, 5, 15 min) before -> after: {load}",
        f"- python {platform.python_version()}, numpy {np.__version__}, "
        f"pettingzoo {version_of('pettingzoo')}, open_spiel {version_of('open_spiel')}, "
        f"rlcard {version_of('rlcard')}, gymnasium {version_of('gymnasium')}, "
        f"cardzoo {version_of('cardzoo')} (git {git_revision()})",
    ]


def report(
    benchmarks: list[Benchmark], args: argparse.Namespace, load_before: tuple[float, ...]
) -> str:
    lines = [
        "# cardzoo throughput",
        "",
        "Written by `benchmarks/throughput.py` (see `benchmarks/README.md`). Random legal play, "
        "one core, median of the runs; ratios are of agent steps/s within this run.",
        "",
        *machine_lines(load_before),
        f"- settings: {args.seconds:g} s ({args.clock} time) per run, {args.repeats} runs per "
        f"benchmark, runs interleaved; OMP/OPENBLAS/MKL_NUM_THREADS=1"
        + ("; without numba (--no-numba): every kernel plain" if args.no_numba else "")
        + ("; QUICK smoke run: numbers are not meaningful" if args.quick else ""),
        f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"- command: `{' '.join(['python benchmarks/throughput.py', *args.argv])}`",
        "",
        results_table(benchmarks),
        "",
        "Targets: every cardzoo game through the AEC API >= 5x PettingZoo `leduc_holdem_v4` and "
        ">= `rps_v2` / 1.5 in agent steps/s; every cardzoo engine >= 100,000 decisions/s with "
        "observations; the compiled vector forms >= 1,000,000 decisions/s with observations and "
        "masks, >= 20x the game's AEC env and >= 4x OpenSpiel `crazy_eights` in decisions/s; "
        "the plain vector forms >= the game's numpy engine (before its kernel; its engine where "
        "it has none) in decisions/s.",
        "",
        "Columns: agent steps/s counts every `step` call (finished agents' steps included) for "
        "AEC rows and decisions for engine/OpenSpiel rows; decisions/s the steps of an agent that "
        "has to choose; choices/s the decisions with >= 2 legal actions; us/step = 1e6 / agent "
        "steps/s; spread = (max - min) / median of the runs' agent steps/s. `vector` rows: "
        "`MultiAgentVectorEnv`, every decision returning the next observation and mask; "
        "`vector gym` rows: the Gymnasium `VectorEnv` with random opponents in the kernel, agent "
        "steps = the learner's, decisions = every seat's, choices = the learner's.",
        "",
    ]
    against = opponents_table(benchmarks)
    if against:
        lines += [
            f"Against `{args.opponents}`: a learner in seat 0 (random legal play) and "
            f"`{args.opponents}` in every other seat; `(kernel)`: the compiled `VectorEnv` with "
            "the opponents played inside its kernel; `(Python)`: the same env with the same "
            "agents called from Python per decision; `aec`: the AEC environment with the agents "
            "called per decision. Kernel x this = the kernel row's learner steps/s over the "
            "row's.",
            "",
            against,
            "",
        ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Profiling
# ----------------------------------------------------------------------------------------------


def profile(name: str, seconds: float, top: int) -> None:
    """cProfile of one cardzoo game through the engine and through the AEC API."""
    import cProfile
    import pstats

    from cardzoo.envs import game_spec

    module = game_spec(name).module()
    for path, play in (
        ("engine", lambda: play_engine(module.raw_env.game_class(), seconds, 0)),
        ("aec", lambda: play_aec(module.env(), seconds, 0)),
    ):
        profiler = cProfile.Profile()
        counts = profiler.runcall(play)
        print(f"\n=== {name} {path}: {counts.steps:,} steps in {counts.seconds:.2f} s (profiled)")
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(top)


# ----------------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, help="seconds per run (default 3; quick 0.2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per benchmark (median)")
    parser.add_argument("--games", help="comma-separated cardzoo games (default: all)")
    parser.add_argument(
        "--references",
        default="all",
        help="comma-separated PettingZoo/OpenSpiel games, 'all' or 'none' (default: all: "
        + ", ".join(PETTINGZOO_REFERENCES + OPENSPIEL_REFERENCES)
        + ")",
    )
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="time measured (default cpu)"
    )
    parser.add_argument("--quick", action="store_true", help="smoke run with a tiny budget")
    parser.add_argument(
        "--output",
        type=Path,
        help=f"the markdown report (default: {DEFAULT_OUTPUT.relative_to(REPO)} for a full run "
        f"at the default settings, {PARTIAL_OUTPUT.relative_to(REPO)} for any other, so that it "
        "never replaces the recorded table)",
    )
    parser.add_argument("--profile", metavar="GAME", help="cProfile one cardzoo game instead")
    parser.add_argument("--top", type=int, default=25, help="functions listed by --profile")
    parser.add_argument(
        "--vector-games",
        type=int,
        default=1024,
        help="games per call of the compiled vector rows (the plain ones: a tenth; default 1024)",
    )
    parser.add_argument(
        "--opponents",
        metavar="NAME",
        help="also measure a learner against the agent NAME in every other seat (games with a "
        "vector form): the VectorEnv with NAME in its kernel, called from Python, and the AEC env",
    )
    parser.add_argument(
        "--no-numba",
        action="store_true",
        help="measure as an installation without numba does: every kernel plain Python",
    )
    args = parser.parse_args(argv)
    if args.no_numba:
        if "numba" in sys.modules:
            parser.error("--no-numba: numba is loaded in this process already")
        sys.modules["numba"] = None  # importing numba now raises ImportError, as if missing
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.output is None:
        measured = ("games", "references", "clock", "quick", "seconds", "repeats", "vector_games",
                    "opponents", "no_numba")  # fmt: skip
        full = all(getattr(args, name) == parser.get_default(name) for name in measured)
        args.output = DEFAULT_OUTPUT if full else PARTIAL_OUTPUT
    if args.seconds is None:
        args.seconds = 0.2 if args.quick else 3.0
    if args.seconds <= 0 or args.repeats < 1 or args.vector_games < 1:
        parser.error("--seconds must be positive, --repeats and --vector-games at least 1")
    args.game_names = None if args.games is None else args.games.split(",")
    from cardzoo.envs import GAMES

    unknown = [name for name in args.game_names or [] if name not in GAMES]
    if unknown:
        parser.error(f"unknown games {unknown}; choose from {list(GAMES)}")
    if args.references == "all":
        args.reference_names = list(PETTINGZOO_REFERENCES + OPENSPIEL_REFERENCES)
    elif args.references == "none":
        args.reference_names = []
    else:
        args.reference_names = args.references.split(",")
    known = PETTINGZOO_REFERENCES + OPENSPIEL_REFERENCES
    unknown = [name for name in args.reference_names if name not in known]
    if unknown:
        parser.error(f"unknown references {unknown}; choose from {list(known)}, all or none")
    return args


def main(argv: list[str] | None = None) -> list[Benchmark]:
    """Run the benchmark, print the report and write it to ``--output``; returns the rows."""
    args = parse_args(argv)
    if args.profile:
        profile(args.profile, args.seconds, args.top)
        return []
    from cardzoo.io import write_bytes_atomic

    load_before = os.getloadavg() if hasattr(os, "getloadavg") else ()
    benchmarks = cardzoo_benchmarks(args.game_names, args.vector_games, args.opponents)
    benchmarks += reference_benchmarks(args.reference_names)
    warmup = min(0.5, args.seconds / 4)
    measure(benchmarks, args.seconds, args.repeats, warmup, CLOCKS[args.clock])
    text = report(benchmarks, args, load_before)
    print(text)
    write_bytes_atomic(args.output, text.encode())
    print(f"written to {args.output}", file=sys.stderr)
    return benchmarks


if __name__ == "__main__":
    main()
