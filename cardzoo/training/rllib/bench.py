"""How fast RLlib collects and trains on the cardzoo games: decisions per second with 1, 2, ...
env runners (``python -m cardzoo.training.rllib.bench``; needs the rllib extra).

For every game and number of env runners, one PPO algorithm (the settings of
:func:`cardzoo.training.rllib.run_settings`: ``--envs-per-runner`` games per runner, 8 by
default) is built on one local Ray instance and measured twice: *sampling* — every env runner
playing ``--rollout-length`` decisions at once, as PPO's sampling phase does (warmed up once
first) — and *training* — whole ``train()`` iterations, sampling plus PPO's update in this
process. A decision is one agent step: one player choosing one action (in Foxy all players
choose on every card, so one card is several decisions). The machine's other load changes the
figures: run it on an otherwise idle machine, and note the load average.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

GAMES = {
    "nobody_wants_it": {},
    "believe_it_or_not": {"variant": "quick"},
    "minus_two": {},
    "foxy": {"num_players": 2},
}


def _episode_decisions(episodes: list[Any]) -> int:
    return sum(episode.agent_steps() for episode in episodes)


def measure(
    game_name: str,
    params: dict[str, Any],
    env_runners: int,
    rollout_length: int,
    sample_rounds: int,
    train_iterations: int,
    envs_per_runner: int = 1,
) -> dict[str, Any]:
    """Sampling and training rates of one configuration (inside a running Ray session)."""
    from cardzoo.training.rllib import run_settings
    from cardzoo.training.rllib.algorithm import built_algorithm

    settings = run_settings(
        game_name,
        params,
        env_runners=env_runners,
        rollout_length=rollout_length,
        envs_per_runner=envs_per_runner,
    )
    logdir = Path(tempfile.mkdtemp(prefix="cardzoo-rllib-bench-"))
    with built_algorithm(settings, 1.0, logdir) as algorithm:
        runners = algorithm.env_runner_group

        def sample_round() -> int:
            results = runners.foreach_env_runner(
                lambda runner: _episode_decisions(runner.sample(num_timesteps=rollout_length)),
                local_env_runner=env_runners == 0,
            )
            return sum(results)

        sample_round()  # warm-up: first forward passes, first resets
        started = time.perf_counter()
        decisions = sum(sample_round() for _ in range(sample_rounds))
        sampling_seconds = time.perf_counter() - started
        result = algorithm.train()  # warm-up of the learner
        before = _lifetime_decisions(result)
        started = time.perf_counter()
        for _ in range(train_iterations):
            result = algorithm.train()
        trained = _lifetime_decisions(result) - before
        training_seconds = time.perf_counter() - started
    return {
        "game": game_name,
        "params": params,
        "env_runners": env_runners,
        "envs_per_runner": envs_per_runner,
        "sampling_decisions_per_second": decisions / sampling_seconds,
        "training_decisions_per_second": trained / training_seconds,
        "sampled_decisions": decisions,
        "trained_decisions": trained,
    }


def _lifetime_decisions(result: dict[str, Any]) -> int:
    """Decisions sampled so far, from RLlib's result of a ``train()`` call."""
    counts = result["env_runners"].get("num_agent_steps_sampled_lifetime", {}) or {}
    return int(sum(counts.values()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--env-runners", default="1,2", help="comma-separated counts")
    parser.add_argument("--envs-per-runner", type=int, default=8)
    parser.add_argument("--rollout-length", type=int, default=1024)
    parser.add_argument("--sample-rounds", type=int, default=5)
    parser.add_argument("--train-iterations", type=int, default=5)
    args = parser.parse_args(argv)

    from cardzoo.training.rllib.algorithm import machine_cores, one_torch_thread, ray_session

    counts = [int(count) for count in args.env_runners.split(",")]
    print(f"{machine_cores()} cores; rollout {args.rollout_length} decisions per runner")
    print("| game | env runners | sampling decisions/s | training decisions/s |")
    print("| --- | --- | --- | --- |")
    with one_torch_thread(), ray_session(None, max(counts)):
        for game_name in args.games.split(","):
            for env_runners in counts:
                row = measure(
                    game_name,
                    GAMES.get(game_name, {}),
                    env_runners,
                    args.rollout_length,
                    args.sample_rounds,
                    args.train_iterations,
                    args.envs_per_runner,
                )
                print(
                    f"| {game_name} {row['params'] or ''} | {env_runners} | "
                    f"{row['sampling_decisions_per_second']:,.0f} | "
                    f"{row['training_decisions_per_second']:,.0f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
