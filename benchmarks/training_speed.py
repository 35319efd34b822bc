"""Training speed: `cardzoo train` against a new user's MaskablePPO default, in the same run.

The reference is what a user writes first: sb3-contrib ``MaskablePPO("MlpPolicy", env)`` with its
default hyperparameters (2,048 steps per rollout, minibatches of 64, 10 epochs) on one
``gymnasium.make("cardzoo/<Game>-v0", opponents="random")``. Ours is the ``cardzoo train`` loop
(``cardzoo.training.ppo``) with its defaults: the game's default opponent mix, 64 games played by
a sampling process beside the learner. Each figure is learner decisions per second of wall clock
over the training loop (the periodic evaluations left out: ``eval_every`` past the end), and the
CPU time of the whole process tree over the wall clock of the whole ``train()`` call, start-up
and final snapshot included (2.0 = both cores busy).

    python benchmarks/training_speed.py [--steps 65536] [--games nobody_wants_it,minus_two]

It writes benchmarks/training_speed.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import gymnasium
import torch

import cardzoo  # noqa: F401  (registers the Gymnasium ids)
from cardzoo.envs.registry import gym_id
from cardzoo.training.ppo import GAME_DEFAULTS, TrainConfig, train

HERE = Path(__file__).parent


def cpu_seconds() -> float:
    """CPU time of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def user_default(game: str, steps: int) -> tuple[float, float]:
    from sb3_contrib import MaskablePPO

    env = gymnasium.make(gym_id(game), opponents="random", **GAME_DEFAULTS[game].params)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu")
    started, cpu = time.perf_counter(), cpu_seconds()
    model.learn(steps)
    wall = time.perf_counter() - started
    return steps / wall, (cpu_seconds() - cpu) / wall


def ours(game: str, steps: int, processes: int) -> tuple[float, float]:
    config = TrainConfig(
        game,
        timesteps=steps,
        processes=processes,
        eval_every=10 * steps,  # no periodic evaluation inside the timed loop
        eval_games=4,
        final_eval_games=4,
    )
    with tempfile.TemporaryDirectory() as folder:
        started, cpu = time.perf_counter(), cpu_seconds()
        result = train(config, Path(folder) / "run", progress=False)
        wall = time.perf_counter() - started
        return steps / result.metrics["train_seconds"], (cpu_seconds() - cpu) / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=65536)
    parser.add_argument("--reference-steps", type=int, default=16384)
    parser.add_argument("--games", default=",".join(GAME_DEFAULTS))
    parser.add_argument("--out", type=Path, default=HERE / "training_speed.md")
    args = parser.parse_args()
    torch.set_num_threads(1)
    games = [g.strip() for g in args.games.split(",")]
    lines = [
        "# Training speed",
        "",
        f"Measured by `python benchmarks/training_speed.py --steps {args.steps} "
        f"--reference-steps {args.reference_steps} --games {args.games}` on "
        f"{os.cpu_count()} cores; torch at one thread per process. Samples/s are learner "
        "decisions per second of wall clock of the training loop; CPU/wall counts every process "
        "over the whole run, start-up included (2.0: both cores busy).",
        "",
        "| game | user default (MaskablePPO, 1 env, random) | CPU/wall | `cardzoo train`, "
        "default mix, 1 sampling process | CPU/wall | × | 2 sampling processes | CPU/wall | × |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for game in games:
        base, base_cpu = user_default(game, args.reference_steps)
        one, one_cpu = ours(game, args.steps, 1)
        two, two_cpu = ours(game, args.steps, 2)
        lines.append(
            f"| {game} | {base:,.0f} | {base_cpu:.2f} | {one:,.0f} | {one_cpu:.2f} | "
            f"{one / base:.1f} | {two:,.0f} | {two_cpu:.2f} | {two / base:.1f} |"
        )
        print(lines[-1], flush=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
