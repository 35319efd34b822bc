"""Training speed: samples per second of `cardzoo train` against a new user's MaskablePPO default.

The default is what a user writes first: sb3-contrib ``MaskablePPO("MlpPolicy", env)`` with its
default hyperparameters (2,048 steps per rollout, minibatches of 64, 10 epochs) on one
``gymnasium.make("cardzoo/<Game>-v0")`` environment against random opponents. Ours is
``cardzoo.training.ppo.build_learner`` with the run defaults (8 environments, 256 steps each per
rollout, minibatches of 256, 4 epochs), in this process and in 2 worker processes, against random
opponents (like for like) and against the game's default opponent mix. Torch at one thread.
Each figure is timesteps / wall-clock seconds of ``model.learn`` (collection and updates).

    python benchmarks/training_speed.py [--steps 16384] [--games foxy,minus_two] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import gymnasium
import torch

import cardzoo  # noqa: F401  (registers the Gymnasium ids)
from cardzoo.single_agent import gym_id
from cardzoo.training.ppo import GAME_DEFAULTS, TrainConfig, build_learner


def time_learn(model, steps: int) -> float:
    started = time.perf_counter()
    model.learn(steps)
    return steps / (time.perf_counter() - started)


def user_default(game: str, steps: int) -> float:
    from sb3_contrib import MaskablePPO

    params = GAME_DEFAULTS[game].params
    env = gymnasium.make(gym_id(game), opponents="random", **params)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu")
    return time_learn(model, steps)


def ours(game: str, steps: int, opponents: str | None, processes: int) -> float:
    config = TrainConfig(game, opponents=opponents, processes=processes).resolved()
    model, vec_env = build_learner(config)
    try:
        return time_learn(model, steps)
    finally:
        vec_env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=16384)
    parser.add_argument("--games", default=",".join(GAME_DEFAULTS))
    parser.add_argument("--profile", action="store_true", help="profile ours (in-process)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    games = [g.strip() for g in args.games.split(",")]
    if args.profile:
        for game in games:
            config = TrainConfig(game).resolved()
            model, vec_env = build_learner(config)
            profiler = cProfile.Profile()
            profiler.runcall(model.learn, args.steps)
            print(f"## {game}")
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
            vec_env.close()
        return
    print(f"samples/s over {args.steps} timesteps of model.learn, torch 1 thread\n")
    print(
        "| game | user default (1 env) | ours, random, 1 process | × | ours, random, 2 processes "
        "| × | ours, default mix, 1 process | × |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for game in games:
        base = user_default(game, args.steps)
        inproc = ours(game, args.steps, "random", 1)
        subproc = ours(game, args.steps, "random", 2)
        mixed = ours(game, args.steps, None, 1)
        print(
            f"| {game} | {base:,.0f} | {inproc:,.0f} | {inproc / base:.1f} | {subproc:,.0f} | "
            f"{subproc / base:.1f} | {mixed:,.0f} | {mixed / base:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
