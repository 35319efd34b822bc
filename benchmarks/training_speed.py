"""Training speed: `cardzoo train` against a new user's MaskablePPO default, in the same run.

The reference is what a user writes first: sb3-contrib ``MaskablePPO("MlpPolicy", env)`` with its
default hyperparameters (2,048 steps per rollout, minibatches of 64, 10 epochs) on one
``gymnasium.make("cardzoo/<Game>-v0", opponents="random")``. Ours is the ``cardzoo train`` loop
(``cardzoo.training.ppo``) with its defaults: the game's default opponent mix, 64 games played by
a sampling process beside the learner. Each figure is learner decisions per second of wall clock
over the training loop (the periodic evaluations left out: ``eval_every`` past the end), and the
CPU time over that wall clock (2.0 = both cores busy): for the reference, of its process; for
ours, the learner's and the sampling processes' (``cpu_per_wall`` in ``metrics.json``).
The memory table trains the same default run with a recurrent core (``--memory gru``, ``--memory
lstm`` at the default hidden size, and a GRU of 128) right after the feed-forward one: their
ratios to it are what memory costs.

    python benchmarks/training_speed.py [--steps 65536] [--games nobody_wants_it,minus_two]

It writes benchmarks/training_speed.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import gymnasium
import torch
from threadpoolctl import threadpool_limits

import cardzoo  # noqa: F401  (registers the Gymnasium ids)
from cardzoo.envs.registry import gym_id
from cardzoo.training import sampler as sampler_module
from cardzoo.training.learner import DEFAULT_MEMORY_SIZE
from cardzoo.training.ppo import GAME_DEFAULTS, TrainConfig, train

HERE = Path(__file__).parent
#: the heading of the section ``--paths`` writes; each run of the script keeps the other's part
PATHS_HEADING = "## The sampler on the kernels (issue #30)"


def cpu_seconds() -> float:
    """CPU time of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def user_default(game: str, steps: int) -> tuple[float, float]:
    from sb3_contrib import MaskablePPO

    env = gymnasium.make(gym_id(game), opponents="random", **GAME_DEFAULTS[game]["params"])
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu")
    started, cpu = time.perf_counter(), cpu_seconds()
    model.learn(steps)
    wall = time.perf_counter() - started
    return steps / wall, (cpu_seconds() - cpu) / wall


def ours(
    game: str, steps: int, processes: int | None, league: bool = False, **memory
) -> tuple[float, float]:
    """Samples/s and CPU/wall of the game's default run with these changes (``memory``: the
    recurrent core's settings)."""
    config = TrainConfig(
        game,
        timesteps=steps,
        processes=processes,
        league=league,
        **memory,
        eval_every=10 * steps,  # no periodic evaluation inside the timed loop
        eval_games=4,
        final_eval_games=4,
    )
    with tempfile.TemporaryDirectory() as folder:
        result = train(config, Path(folder) / "run", progress=False)
        return result.metrics["samples_per_second"], result.metrics["cpu_per_wall"]


def part_of(path: str, function: str) -> str:
    """The part of the code a profiled function belongs to (for a function of cardzoo's own
    code that is not :func:`charged_to_caller`)."""
    if "cardzoo/agents/policy" in path or function == "logits":
        return POLICY
    if "cardzoo/agents/" in path:
        return "heuristic opponents (from Python)"
    if any(f"cardzoo/{part}" in path for part in ("envs/", "vector/", "table")):
        return "environment: engine, kernels, table loop or batch driver"
    if "cardzoo/training/sampler" in path:
        return "sampler: learner's inputs, sampled actions, rewards, GAE"
    return "other"


def charged_to_caller(path: str) -> bool:
    """Whether a function's time belongs to the code that called it: a function outside
    cardzoo (a built-in, numpy's own Python), or one of the agents' base class (an agent's
    generator, made at its first draw, is the policy's sampling when a policy draws and the
    driver's when the batch copies it into the kernel)."""
    return "cardzoo/" not in path or "cardzoo/agents/base.py" in path


POLICY = "policy forward passes (learner and self-play snapshots)"
#: the parts that are the environment's side (the rest serves the learner)
ENVIRONMENT = ("heuristic opponents (from Python)",
               "environment: engine, kernels, table loop or batch driver")  # fmt: skip


def profiled_parts(stats: dict) -> dict[str, float]:
    """cProfile's own time per part of the code. A function :func:`charged_to_caller` is
    charged to the functions that called it, in proportion to the time spent in it for each, up
    to cardzoo's."""
    shares: dict[tuple, dict[str, float]] = {}

    def share_of(function: tuple, seen: frozenset) -> dict[str, float]:
        path, _, name = function
        if not charged_to_caller(path):
            return {part_of(path, name): 1.0}
        if function in shares:
            return shares[function]
        callers = stats.get(function, (0, 0, 0, 0, {}))[4]
        weights = {caller: calls[3] for caller, calls in callers.items() if caller not in seen}
        total = sum(weights.values())
        mixed: dict[str, float] = {}
        for caller, weight in weights.items():
            for part, fraction in share_of(caller, seen | {function}).items():
                mixed[part] = mixed.get(part, 0.0) + fraction * weight / total
        shares[function] = mixed or {"other": 1.0}
        return shares[function]

    parts: dict[str, float] = {}
    for function, (_, _, own, _, _) in stats.items():
        for part, fraction in share_of(function, frozenset()).items():
            parts[part] = parts.get(part, 0.0) + own * fraction
    return parts


def one_process(game: str, tables: bool = False) -> tuple:
    """A sampling process of ``game``'s default run (on Tables with ``tables``): its config, a
    fresh learner (its policy the one snapshot in the pool), the sampler and its rollout's
    arrays."""
    import numpy as np

    from cardzoo.training.config import run_game
    from cardzoo.training.learner import Learner
    from cardzoo.training.sampler import OpponentMix, Sampler, parse_mix, rollout_shapes

    config = TrainConfig(game).resolved()
    played = run_game(config)
    learner = Learner(played.observation_size * config.frame_stack, played.num_actions,
                      config.net_arch, config.learning_rate, seed=0)  # fmt: skip
    mix = OpponentMix(game, parse_mix(game, config.opponents), config.frame_stack)
    mix.pool = [learner.numpy_policy()]
    games = config.n_envs // config.processes
    sampler = Sampler(dataclasses.replace(config.sampler(games, seed=0), tables=tables), mix)
    shapes = rollout_shapes(games * config.n_steps, sampler.input_size, played.num_actions)
    out = {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
    return config, learner, sampler, out


#: the function whose samples :func:`sampled_share` counts (its name marks them in the stacks)
SAMPLED = "sampled_collects"
#: py-spy's samples a second, the rollouts it samples in a run, and its runs per game (their
#: shares move by a few points from run to run: the table gives their median and range)
SAMPLING_RATE, SAMPLED_ROLLOUTS, SAMPLED_RUNS = 1000, 40, 3


def sampling_child(game: str, collects: int) -> None:
    """The process that :func:`sampled_share` samples: one sampling process of ``game``'s
    default run, one rollout to warm up, then ``collects`` rollouts (:func:`sampled_collects`)."""
    config, learner, sampler, out = one_process(game)
    policy, value = learner.numpy_policy(), learner.numpy_value()
    sampler.collect(policy, value, config.n_steps, out)
    sampled_collects(sampler, policy, value, config.n_steps, out, collects)


def sampled_collects(sampler, policy, value, steps: int, out: dict, collects: int) -> None:
    """``collects`` rollouts: the samples counted."""
    for _ in range(collects):
        sampler.collect(policy, value, steps, out)


def sampled_parts(raw: str, marker: str = SAMPLED) -> dict[str, int]:
    """py-spy's raw stacks (``frame;frame;... count``, a frame ``function (file:line)``)
    grouped by part of the code (:func:`part_of`): each sample under ``marker`` is charged to
    its innermost cardzoo frame, as :func:`profiled_parts` charges numpy's time to its caller."""
    parts: dict[str, int] = {}
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not any(frame.startswith(marker + " ") for frame in frames):
            continue
        part = "other"
        for frame in reversed(frames):
            function, _, where = frame.rpartition(" (")
            path = where.rsplit(":", 1)[0]
            if not charged_to_caller(path):
                part = part_of(path, function.rsplit(".", 1)[-1])
                break
        parts[part] = parts.get(part, 0) + int(count)
    return parts


def sampled_share(game: str, collects: int = SAMPLED_ROLLOUTS) -> float | None:
    """The environment side's share of a sampling process's time sampled by py-spy
    (:data:`SAMPLING_RATE` samples a second, the process unslowed: cProfile's per-call cost
    inflates Python code's share), or None without py-spy (``pip install py-spy``, the
    ``bench`` extra)."""
    import shutil
    import subprocess
    import sys

    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy is None:
        return None
    child = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import training_speed; "
             f"training_speed.sampling_child({game!r}, {collects})")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        raw = Path(folder) / "stacks.txt"
        record = [spy, "record", "--rate", str(SAMPLING_RATE), "--format", "raw", "--output",
                  str(raw)]  # fmt: skip
        subprocess.run([*record, "--", sys.executable, "-c", child], check=True,
                       capture_output=True)  # fmt: skip
        parts = sampled_parts(raw.read_text())
    return sum(parts.get(part, 0) for part in ENVIRONMENT) / sum(parts.values())


def breakdown(game: str, tables: bool = False) -> tuple[str, float]:
    """Where one rollout's time goes: the sampler's CPU time by part of the code (one sampling
    process's share of the games, profiled; on Tables with ``tables``), and the learner's
    update of the same samples; and the environment's share of the sampling."""
    import cProfile
    import pstats

    from cardzoo.training.sampler import Rollout

    config, learner, sampler, out = one_process(game, tables)
    games = config.n_envs // config.processes
    policy, value = learner.numpy_policy(), learner.numpy_value()
    sampler.collect(policy, value, config.n_steps, out)  # warm up
    profile = cProfile.Profile()
    profile.runcall(sampler.collect, policy, value, config.n_steps, out)
    parts = profiled_parts(pstats.Stats(profile).stats)  # type: ignore[attr-defined]
    started = time.process_time()
    learner.update(Rollout(**out), **config.update())
    update = time.process_time() - started
    total = sum(parts.values())
    samples = games * config.n_steps
    path = "Tables" if tables else "one batch" if sampler.seated is not None else "Tables"
    environment = sum(parts.get(part, 0.0) for part in ENVIRONMENT) / total
    lines = [f"**{game}**, {path} ({samples:,} decisions: one sampling process's share of a "
             f"rollout, {config.processes} process(es) by default; environment side "
             f"{environment:.0%})", "",
             "| part | CPU ms | share of sampling |", "| --- | ---: | ---: |"]  # fmt: skip
    for part, seconds in sorted(parts.items(), key=lambda item: -item[1]):
        lines.append(f"| {part} | {1000 * seconds:,.0f} | {seconds / total:.0%} |")
    update_ms = 1000 * update * games * config.processes / config.n_envs
    lines.append(f"| PPO update of the same decisions ({config.n_epochs} epochs) | "
                 f"{update_ms:,.0f} | |")  # fmt: skip
    return "\n".join(lines), environment


def paths(games: list[str], steps: int, repeats: int) -> list[str]:
    """The section comparing the sampler's two paths: each game's default run on Tables and
    as one batch, ``repeats`` times in turn, and both profiled."""
    lines = [
        PATHS_HEADING,
        "",
        "Each game's default run (its mix, its default sampling processes, feed-forward), its "
        "sampling processes playing their games on Tables (`sampler.TABLES`, the path before "
        "the batch sampler) and as one batch on the game's kernel, one after the other, "
        f"{repeats} time(s) each in turn; samples/s as above, the best of each path. The "
        "environment side is the profiled share of a sampling process's CPU time spent in the "
        "engine, the kernels, the table loop or batch driver and the agents' own Python code "
        "(the rest: the policies' forward passes and the sampler's own work for the learner). "
        "In one batch no heuristic decides from Python (they play in the kernel): the line "
        "'heuristic opponents (from Python)' is then each game's agents reseeded and their "
        "generators made to be copied into the kernel. The tables above measure the default "
        "path: one batch, Foxy on Tables. cProfile's cost per Python call slows the "
        "driver's many small calls more than the forward passes' few large ones; the last "
        "column samples an unslowed sampling process instead (py-spy, "
        f"{SAMPLING_RATE:,} samples a second, {SAMPLED_ROLLOUTS} rollouts, the median of "
        f"{SAMPLED_RUNS} processes with their range, each sample charged "
        "to its innermost frame of cardzoo's code as the "
        "profile charges numpy's time to its caller; `pip install py-spy`, in the `bench` "
        "extra). Both charge the agents' base class (an agent's generator, made at its first "
        "draw) to its caller: the policy's sampling or the driver.",
        "",
        "| game | Tables | one batch | × | environment side, Tables | one batch | one batch, "
        "sampled |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    profiles, ratios, shares, samples = [], [], [], []
    for game in games:
        runs: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(repeats):
            for tables in (True, False):
                sampler_module.TABLES = tables
                try:
                    runs[tables].append(ours(game, steps, None)[0])
                finally:
                    sampler_module.TABLES = False
        old, old_share = breakdown(game, tables=True)
        new, new_share = breakdown(game)
        profiles += [old, new]
        before, after = max(runs[True]), max(runs[False])
        ratios.append(after / before)
        shares.append(new_share)
        # a run's share is None without py-spy
        sampled_runs = [sampled_share(game) for _ in range(SAMPLED_RUNS)]
        shares_sampled = [share for share in sampled_runs if share is not None]
        sampled = statistics.median(shares_sampled) if shares_sampled else None
        samples.append(sampled)
        cell = "py-spy not installed"
        if shares_sampled:
            low, high = min(shares_sampled), max(shares_sampled)
            cell = f"{sampled:.0%} ({low:.0%}–{high:.0%})"
        lines.append(f"| {game} | {before:,.0f} | {after:,.0f} | {after / before:.2f} | "
                     f"{old_share:.0%} | {new_share:.0%} | {cell} |")  # fmt: skip
        print(lines[-1], f"(runs: {runs})", flush=True)
    fast = sum(ratio >= 1.3 for ratio in ratios)
    lean = sum(share <= 0.25 for share in shares)
    lean_sampled = sum(share is not None and share <= 0.25 for share in samples)
    lines += ["", f"Issue #30's goals: learner samples/s at least 1.3× the Tables path's: met in "
              f"{fast} of {len(games)} games; the environment side at most 25% of a sampling "
              f"process's time: met in {lean} of {len(games)} profiled, {lean_sampled} of "
              f"{len(games)} sampled."]  # fmt: skip
    return [*lines, "", "\n\n".join(profiles)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=65536)
    parser.add_argument("--reference-steps", type=int, default=16384)
    parser.add_argument("--games", default=",".join(GAME_DEFAULTS))
    parser.add_argument("--out", type=Path, default=HERE / "training_speed.md")
    parser.add_argument(
        "--breakdown-only", action="store_true", help="only where a rollout's time goes"
    )
    parser.add_argument(
        "--paths", action="store_true",
        help="only the sampler on Tables against one batch: its section of --out replaced",
    )  # fmt: skip
    parser.add_argument("--repeats", type=int, default=2, help="runs of each path (--paths)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    threadpool_limits(1)  # as in training: one BLAS thread per process
    games = [g.strip() for g in args.games.split(",")]
    load_at_start = os.getloadavg()[0]
    lines = [
        "# Training speed",
        "",
        f"Measured by `python benchmarks/training_speed.py --steps {args.steps} "
        f"--reference-steps {args.reference_steps} --games {args.games}` on "
        f"{os.cpu_count()} cores; torch at one thread per process. Samples/s are learner "
        "decisions per second of wall clock of the training loop; CPU/wall counts the learner's "
        "and the sampling processes' CPU time over it (2.0: both cores busy).",
        "",
        "The league columns run the game's default number of sampling processes with and "
        "without `--league` (one opponent a game drawn by PFSP from the mix's agents and the "
        "learner's snapshots; exploiters train outside the timed loop), one after the other: "
        "their ratio is the league's cost.",
        "",
        "| game | user default (MaskablePPO, 1 env, random) | CPU/wall | `cardzoo train`, "
        "default mix, 1 sampling process | CPU/wall | × | 2 sampling processes | CPU/wall | × "
        "| default processes, mix | `--league` | league / mix |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    memory_lines = [
        "",
        "## Memory",
        "",
        "The game's default run, feed-forward (the table's default processes, mix column), then "
        "with a recurrent core: `--memory gru` and `--memory lstm` at the default hidden size "
        f"({DEFAULT_MEMORY_SIZE}), and `--memory gru --memory-size 128`, one after the other; "
        "each ratio is to the feed-forward run of the same row.",
        "",
        f"| game | feed-forward | GRU {DEFAULT_MEMORY_SIZE} | × | LSTM {DEFAULT_MEMORY_SIZE} "
        "| × | GRU 128 | × |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    if args.paths:
        write_paths(args, games, load_at_start)
        return
    breakdowns = [breakdown(game)[0] for game in games]
    if args.breakdown_only:
        print("\n\n".join(breakdowns))
        return
    for game in games:
        base, base_cpu = user_default(game, args.reference_steps)
        one, one_cpu = ours(game, args.steps, 1)
        two, two_cpu = ours(game, args.steps, 2)
        mix, _ = ours(game, args.steps, None)
        gru, _ = ours(game, args.steps, None, memory="gru")
        lstm, _ = ours(game, args.steps, None, memory="lstm")
        wide, _ = ours(game, args.steps, None, memory="gru", memory_size=128)
        memory_lines.append(
            f"| {game} | {mix:,.0f} | {gru:,.0f} | {gru / mix:.2f} | {lstm:,.0f} | "
            f"{lstm / mix:.2f} | {wide:,.0f} | {wide / mix:.2f} |"
        )
        print(memory_lines[-1], flush=True)
        league, _ = ours(game, args.steps, None, league=True)
        lines.append(
            f"| {game} | {base:,.0f} | {base_cpu:.2f} | {one:,.0f} | {one_cpu:.2f} | "
            f"{one / base:.1f} | {two:,.0f} | {two_cpu:.2f} | {two / base:.1f} "
            f"| {mix:,.0f} | {league:,.0f} | {league / mix:.2f} |"
        )
        print(lines[-1], flush=True)
    lines += memory_lines
    lines[2] += " " + load_note(load_at_start)
    lines += ["", "## Where the time goes", "", "Profiled in this process (cProfile's own time "
              "per function, grouped by the part of the code it belongs to; profiling slows "
              "Python code more than numpy, so read the shares, not the totals):", ""]  # fmt: skip
    lines += ["\n\n".join(breakdowns)]
    write_part(args.out, lines, before_paths=True)


def load_note(load_at_start: float) -> str:
    """The load averages around a measurement begun at ``load_at_start``, and how to read them."""
    return (
        f"The load average was {load_at_start:.1f} at the start and {os.getloadavg()[0]:.1f} at "
        "the end; it includes the benchmark's own processes (a learner and up to two sampling "
        "processes) as well as any other work, and lags a minute behind; a figure measured "
        "beside other work depends on what that work did (compare ratios within a row)."
    )


def write_part(out: Path, lines: list[str], before_paths: bool) -> None:
    """Write one of the file's two parts, keeping the other from ``out``: the main tables come
    before :data:`PATHS_HEADING`, the ``--paths`` section from it on."""
    text = "\n" + (out.read_text() if out.exists() else "")
    head, found, tail = text.partition("\n" + PATHS_HEADING + "\n")
    parts = [head.strip("\n"), (PATHS_HEADING + "\n" + tail).strip("\n") if found else ""]
    parts[0 if before_paths else 1] = "\n".join(lines).strip("\n")
    out.write_text("\n\n".join(part for part in parts if part) + "\n")
    print(f"written to {out}")


def write_paths(args: argparse.Namespace, games: list[str], load_at_start: float) -> None:
    """The --paths section, in place of its earlier version in ``args.out`` (or after it)."""
    section = paths(games, args.steps, args.repeats)
    section.insert(2, f"Measured by `python benchmarks/training_speed.py --paths --steps "
                      f"{args.steps} --repeats {args.repeats} --games {args.games}` on "
                      f"{os.cpu_count()} cores. {load_note(load_at_start)}\n")  # fmt: skip
    write_part(args.out, section, before_paths=False)


if __name__ == "__main__":
    main()
