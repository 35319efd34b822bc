"""The RLlib side of a training run: the Ray session, the PPO configuration and the loop.

:func:`run_training` starts Ray (:func:`ray_session`), builds the algorithm
(:func:`ppo_config`), restores the last checkpoint when resuming, calls ``train()`` until the
asked number of iterations is reached, and writes ``progress.jsonl`` and the checkpoints into the
run folder (:class:`~cardzoo.training.rllib.run.RunFolder`).

Decisions:

- A local Ray instance gets ``num_cpus`` = this machine's cores, no dashboard, and Ray's own
  temporary folder. More env runners than cores share them (each asks for cores / runners CPUs),
  rather than waiting forever for CPUs that never come. On a cluster (``address``), each env
  runner asks for one CPU and this package's source is shipped to the workers with the job
  (Ray's ``py_modules``), so they run the same code as the driver; a cluster with Ray's token
  authentication needs its token in this process's environment, as for any Ray job
  (``RAY_AUTH_MODE=token RAY_AUTH_TOKEN=...``).
- Ray would otherwise write into the home folder: an authentication token (``~/.ray``) for a new
  local instance — we pass it a fresh token in the environment instead, unless the user set up
  one — and an (unused) log folder in ``~/ray_results`` for every algorithm — we point it into
  the run folder and remove it when the algorithm stops.
- This process (the learner) runs torch at one thread while training (:func:`one_torch_thread`);
  Ray gives each env runner one thread already.
- ``rollout_length`` counts decisions (agent steps) per env runner and iteration: one training
  batch is ``max(1, env_runners) * rollout_length`` decisions, whatever the number of players.
  Each runner plays ``envs_per_runner`` games side by side (RLlib's vectorised environments),
  so that one forward pass chooses the actions of all of them: with 8 games instead of 1, a
  runner sampled about 3x as many decisions per second here.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import cardzoo
from cardzoo.training.rllib.agent import export_policies
from cardzoo.training.rllib.envs import SHARED_POLICY
from cardzoo.training.rllib.run import RUN_KIND, RunFolder, read_checkpoint_info
from cardzoo.training.threads import torch_threads


@contextlib.contextmanager
def ray_session(address: str | None, env_runners: int) -> Iterator[float]:
    """Ray, started for this run (local, or connected to the cluster at ``address``) and shut
    down after it. Yields the CPUs each env runner asks for. An already running Ray session
    (a notebook's) is used as it is and left running."""
    import ray

    if ray.is_initialized():
        yield 1.0
        return
    added_token = address is None and _provide_auth_token()
    try:
        if address is None:
            cores = machine_cores()
            ray.init(num_cpus=cores, include_dashboard=False, logging_level="WARNING")
            cpus_per_runner = cpus_per_env_runner(cores, env_runners)
        else:
            package = str(Path(cardzoo.__file__).parent)
            runtime_env = {"py_modules": [package]}
            ray.init(address=address, runtime_env=runtime_env, logging_level="WARNING")
            cpus_per_runner = 1.0
        yield cpus_per_runner
    finally:
        ray.shutdown()
        if added_token:
            # Ray also sets RAY_AUTH_MODE in this process: unset both, so that a later local
            # instance starts the same way again.
            for name in _AUTH_VARIABLES:
                os.environ.pop(name, None)


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cpus_per_env_runner(cores: int, env_runners: int) -> float:
    """One CPU per env runner while there are enough; otherwise an equal share of the cores,
    so that all of them start (Ray would wait forever for CPUs a local instance lacks)."""
    return min(1.0, cores / max(1, env_runners))


_AUTH_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


def _provide_auth_token() -> bool:
    """Give a new local Ray instance a token in the environment, so it does not save one in
    ``~/.ray``. Returns whether it did (not if the user configured Ray's authentication)."""
    if any(name in os.environ for name in _AUTH_VARIABLES):
        return False
    if (Path.home() / ".ray" / "auth_token").is_file():
        return False
    # Only the token: naming the mode too (RAY_AUTH_MODE) would not reach this driver's Ray
    # configuration, which was read when ray was imported, and the driver would be refused.
    os.environ["RAY_AUTH_TOKEN"] = _process_token()
    return True


@functools.cache
def _process_token() -> str:
    """One token for every local instance this process starts: Ray caches the token it read
    first, so a second instance with a new token would refuse its own driver."""
    return secrets.token_hex(32)


def ppo_config(settings: dict[str, Any], cpus_per_runner: float = 1.0) -> Any:
    """RLlib's ``PPOConfig`` for a run's settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from cardzoo.training.rllib.envs import env_class, env_config, policy_mapping
    from cardzoo.training.rllib.module import MaskedActorCritic

    ppo = settings["ppo"]
    module_spec = RLModuleSpec(
        module_class=MaskedActorCritic, model_config={"hidden": ppo["hidden"]}
    )
    modules = {module_id: module_spec for module_id in settings["module_ids"]}
    runners = settings["env_runners"]
    batch_size = max(1, runners) * settings["rollout_length"]
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(
            env=env_class(settings["game"]),
            env_config=env_config(settings["game"], settings["params"]),
            disable_env_checking=True,  # the games pass PettingZoo's and Gymnasium's checks
        )
        .multi_agent(
            policies=set(settings["module_ids"]),
            policy_mapping_fn=policy_mapping(settings["policy"]),
            count_steps_by="agent_steps",
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .env_runners(
            num_env_runners=runners,
            num_cpus_per_env_runner=cpus_per_runner,
            num_envs_per_env_runner=settings["envs_per_runner"],
            # Each runner's share of the batch, split over its games by RLlib ("auto").
            rollout_fragment_length="auto",
        )
        .training(
            train_batch_size_per_learner=batch_size,
            minibatch_size=min(ppo["minibatch_size"], batch_size),  # short rollouts: one batch
            num_epochs=ppo["num_epochs"],
            lr=ppo["lr"],
            gamma=ppo["gamma"],
            lambda_=ppo["lambda_"],
            clip_param=ppo["clip_param"],
            entropy_coeff=ppo["entropy_coeff"],
            vf_loss_coeff=ppo["vf_loss_coeff"],
            grad_clip=ppo["grad_clip"],
            use_kl_loss=False,
        )
        .debugging(seed=settings["seed"])
    )


def one_torch_thread():
    """Torch at one thread in this process while it trains (the learner, and the games when
    there are no env runners). Several threads for these small networks only wait on each
    other: on 2 busy cores, one PPO iteration took twice as long with torch's default."""
    return torch_threads(1)


@contextlib.contextmanager
def built_algorithm(
    settings: dict[str, Any], cpus_per_runner: float, logdir: Path
) -> Iterator[Any]:
    """The PPO algorithm of ``settings``, stopped (its env runners too) when the block ends.

    Ray's ``Trainable`` creates a log folder for it, by default in ``~/ray_results``; it is
    pointed to ``logdir`` (a module constant read at that moment) and removed afterwards."""
    from ray.tune.trainable import trainable

    original = trainable.DEFAULT_STORAGE_PATH
    trainable.DEFAULT_STORAGE_PATH = str(logdir)
    try:
        algorithm = ppo_config(settings, cpus_per_runner).build_algo()
    finally:
        trainable.DEFAULT_STORAGE_PATH = original
    try:
        yield algorithm
    finally:
        algorithm.stop()
        shutil.rmtree(logdir, ignore_errors=True)


def run_training(
    folder: RunFolder, settings: dict[str, Any], log: Callable[[str], None]
) -> dict[str, Any]:
    """Train up to ``settings["iterations"]`` iterations (from the last checkpoint, if any).
    Returns the run's training summary: steps, times, sample rates."""
    rows = folder.read_progress()
    checkpoint = folder.latest_checkpoint()
    done = read_checkpoint_info(checkpoint)["iteration"] if checkpoint else 0
    if len(rows) > done:  # iterations after the last checkpoint: trained again from it
        rows = [row for row in rows if row["iteration"] <= done]
        folder.write_progress(rows)
    if done >= settings["iterations"]:
        log(f"{folder.path}: already trained {done} iterations; nothing to train")
        return summarize_training(rows, setup_seconds=0.0)
    setup_started = time.perf_counter()
    with (
        one_torch_thread(),
        ray_session(settings["address"], settings["env_runners"]) as cpus_per_runner,
        built_algorithm(settings, cpus_per_runner, folder.path / ".ray_logdir") as algorithm,
    ):
        if checkpoint is not None:
            algorithm.restore_from_path(str(checkpoint.absolute()))  # RLlib reads URIs
            log(f"resumed from {checkpoint} (iteration {done})")
        setup_seconds = time.perf_counter() - setup_started
        _train_loop(algorithm, folder, settings, rows, done, log)
    return summarize_training(rows, setup_seconds)


def _train_loop(
    algorithm: Any,
    folder: RunFolder,
    settings: dict[str, Any],
    rows: list[dict[str, Any]],
    done: int,
    log: Callable[[str], None],
) -> None:
    previous = rows[-1] if rows else {"agent_steps": 0, "seconds": 0.0}
    for iteration in range(done + 1, settings["iterations"] + 1):
        started = time.perf_counter()
        result = algorithm.train()
        row = progress_row(result, iteration, time.perf_counter() - started, previous)
        rows.append(row)
        previous = row
        folder.write_progress(rows)
        log(progress_line(row, settings))
        if iteration % settings["checkpoint_every"] == 0 or iteration == settings["iterations"]:
            info = {
                "kind": RUN_KIND,
                "game": settings["game"],
                "params": settings["params"],
                "policy": settings["policy"],
                "module_ids": settings["module_ids"],
                "iteration": iteration,
                "agent_steps": row["agent_steps"],
            }
            folder.save_checkpoint(
                algorithm, info, functools.partial(export_policies, algorithm, info)
            )


def progress_row(
    result: dict[str, Any], iteration: int, seconds: float, previous: dict[str, Any]
) -> dict[str, Any]:
    """One line of ``progress.jsonl`` from RLlib's result of one ``train()`` call."""
    runners = result.get("env_runners", {})
    steps_by_agent = runners.get("num_agent_steps_sampled_lifetime", {}) or {}
    agent_steps = int(sum(steps_by_agent.values())) if steps_by_agent else 0
    # RLlib's lifetime counters restart from the checkpoint's on resume; ours are cumulative.
    new_steps = max(0, agent_steps - previous.get("rllib_agent_steps", 0))
    if previous.get("rllib_agent_steps", 0) > agent_steps:
        new_steps = agent_steps
    learners = result.get("learners", {})
    return {
        "iteration": iteration,
        "agent_steps": previous["agent_steps"] + new_steps,
        "rllib_agent_steps": agent_steps,
        "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0) or 0),
        "seconds": previous["seconds"] + seconds,
        "iteration_seconds": seconds,
        "agent_steps_per_second": new_steps / seconds if seconds > 0 else None,
        "episodes": int(runners.get("num_episodes_lifetime", 0) or 0),
        "episode_length_mean": _number(runners.get("episode_len_mean")),
        "return_mean": {
            module: _number(value)
            for module, value in (runners.get("module_episode_returns_mean") or {}).items()
        },
        "learner": {
            module: {
                key: _number(stats.get(key))
                for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss")
            }
            for module, stats in learners.items()
            if module != "__all_modules__"
        },
    }


def _number(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def progress_line(row: dict[str, Any], settings: dict[str, Any]) -> str:
    parts = [
        f"iteration {row['iteration']}/{settings['iterations']}",
        f"{row['agent_steps']:,} decisions ({row['agent_steps_per_second'] or 0:,.0f}/s)",
    ]
    if row["episode_length_mean"] is not None:
        parts.append(f"episode length {row['episode_length_mean']:.1f}")
    returns = [
        # The shared policy's return is summed over all seats (constant in zero-sum games).
        f"{'all seats' if module == SHARED_POLICY else module} {value:+.2f}"
        for module, value in row["return_mean"].items()
        if value is not None
    ]
    if returns:
        parts.append("return " + " ".join(returns))
    entropy = [stats["entropy"] for stats in row["learner"].values() if stats["entropy"]]
    if entropy:
        parts.append(f"entropy {np.mean(entropy):.2f}")
    return ", ".join(parts)


def summarize_training(rows: list[dict[str, Any]], setup_seconds: float) -> dict[str, Any]:
    """Steps and times over the whole run (resumed parts included)."""
    if not rows:
        return {"iterations": 0, "agent_steps": 0}
    last = rows[-1]
    return {
        "iterations": last["iteration"],
        "agent_steps": last["agent_steps"],
        "training_seconds": last["seconds"],
        "setup_seconds": setup_seconds,
        "agent_steps_per_second": last["agent_steps"] / last["seconds"]
        if last["seconds"]
        else None,
    }
