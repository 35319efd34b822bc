"""Multi-agent self-play training on Ray RLlib (``pip install cardzoo[rllib]``).

Every seat learns at once: all seats play one shared policy (self-play with parameter sharing), or
each seat its own policy (``policy="per-seat"``). RLlib's PPO on the new API stack trains a masked
actor-critic (:mod:`cardzoo.training.rllib.module`: illegal actions are never sampled) on the
games' PettingZoo forms (:mod:`cardzoo.training.rllib.envs`: the AEC form for turn-based games,
the parallel form for Foxy). It runs on a local Ray instance with this machine's cores, or on an
existing cluster given its address.

>>> from cardzoo.training.rllib import train
>>> metrics = train("nobody_wants_it", "runs/nwi-rllib", iterations=40, env_runners=2)
>>> from cardzoo.agents import make_agent
>>> agent = make_agent("nobody_wants_it", "rllib:runs/nwi-rllib", game)  # numpy only, no Ray

One run, top to bottom (:func:`train`): prepare the run folder (new, resumed or started over);
start Ray; build the PPO algorithm (restored from the last checkpoint when resuming); train for
the asked iterations, writing ``progress.jsonl`` after each and a checkpoint every
``checkpoint_every``; stop Ray; evaluate the final policies with the match runner against random
and the game's best heuristic; write ``metrics.json``. The run folder is described in
:mod:`cardzoo.training.rllib.run`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardzoo.envs import load_game
from cardzoo.errors import InputError
from cardzoo.extras import missing_extra
from cardzoo.training.config import SETTING
from cardzoo.training.rllib.run import RUN_KIND, RunFolder


@dataclasses.dataclass(frozen=True)
class PPOSettings:
    """PPO's hyperparameters for every game: the defaults of ``cardzoo train``'s settings
    (:data:`cardzoo.training.config.SETTING`) under RLlib's names.

    Decision: ``cardzoo train``'s defaults where RLlib's differ (RLlib's 30 epochs and KL
    penalty are tuned for its benchmark suites and cost much more time per sample on a laptop):
    an entropy bonus of 0.01 so that self-play keeps exploring, gradients clipped at 0.5, and
    the discount 0.995 (a player makes up to a few hundred decisions a game). What this back
    end cannot share: the games' own defaults (it trains every seat at once by self-play on the
    game's own reward, with no opponent mix or reward mode to choose, so one set serves every
    game), the minibatch size (its own: below), and the command line's options (its runs are
    counted in iterations of env runners' rollouts, not in one learner's decisions)."""

    lr: float = SETTING["learning_rate"].default
    gamma: float = SETTING["gamma"].default
    lambda_: float = SETTING["gae_lambda"].default
    num_epochs: int = SETTING["n_epochs"].default
    #: its own, chosen with this back end (cardzoo train: 512)
    minibatch_size: int = 256
    clip_param: float = SETTING["clip_range"].default
    entropy_coeff: float = SETTING["ent_coef"].default
    vf_loss_coeff: float = SETTING["vf_coef"].default
    grad_clip: float = SETTING["max_grad_norm"].default
    hidden: tuple[int, ...] = SETTING["net_arch"].default


def run_settings(
    game_name: str,
    params: dict[str, Any] | None = None,
    *,
    policy: str = "shared",
    iterations: int = 100,
    env_runners: int = 2,
    rollout_length: int = 1024,
    envs_per_runner: int = 8,
    seed: int = 0,
    address: str | None = None,
    checkpoint_every: int = 10,
    eval_games: int = 1000,
    hyperparameters: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything a run is asked to do, checked, as saved in ``settings.json``."""
    from cardzoo.training.rllib.envs import is_simultaneous, module_ids

    game = load_game(game_name, **(params or {}))  # checks the params
    if not game.has_decisions:
        raise InputError(f"{game_name} has no decisions to learn (one action only)")
    agents = [f"player_{i}" for i in range(game.num_players)]
    _check_count("iterations", iterations, 1)
    _check_count("env_runners", env_runners, 0)
    _check_count("rollout_length", rollout_length, 1)
    _check_count("envs_per_runner", envs_per_runner, 1)
    _check_count("checkpoint_every", checkpoint_every, 1)
    _check_count("eval_games", eval_games, 0)
    _check_count("seed", seed, 0)
    ppo = dataclasses.asdict(_ppo_settings(hyperparameters or {}))
    return {
        "kind": RUN_KIND,
        "game": game_name,
        "params": {**game.params(), **(params or {})},
        "policy": policy,
        "module_ids": module_ids(policy, agents),  # also checks the policy mode
        "form": "parallel" if is_simultaneous(game_name) else "aec",
        "iterations": iterations,
        "env_runners": env_runners,
        "rollout_length": rollout_length,
        "envs_per_runner": envs_per_runner,
        "seed": seed,
        "address": address,
        "checkpoint_every": checkpoint_every,
        "eval_games": eval_games,
        "ppo": {**ppo, "hidden": list(ppo["hidden"])},
    }


def _ppo_settings(hyperparameters: dict[str, Any]) -> PPOSettings:
    known = [field.name for field in dataclasses.fields(PPOSettings)]
    unknown = sorted(set(hyperparameters) - set(known))
    if unknown:
        raise InputError(f"hyperparameters: unknown {unknown}; known: {', '.join(known)}")
    settings = PPOSettings(**hyperparameters)
    return dataclasses.replace(settings, hidden=tuple(settings.hidden))  # as saved: a list


def _check_count(name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}")


def train(
    game_name: str,
    out: str | Path,
    params: dict[str, Any] | None = None,
    *,
    resume: bool = False,
    force: bool = False,
    log: Callable[[str], None] | None = print,
    **options: Any,
) -> dict[str, Any]:
    """Train, evaluate and save one run in the folder ``out``; returns its ``metrics.json``.

    ``options`` are :func:`run_settings`'s keywords (policy, iterations, env_runners,
    rollout_length, envs_per_runner, seed, address, checkpoint_every, eval_games,
    hyperparameters: :class:`PPOSettings` fields).

    ``resume`` continues the run in ``out`` from its last checkpoint with its saved game,
    parameters, policies, seed and hyperparameters (``params`` and ``policy``, if given, must
    match them); only :data:`RESUMABLE` options may change — ``iterations`` is the total to reach.
    A run already at that total is only evaluated again. ``force`` starts an existing run over.
    ``log`` receives one line per iteration (None: silent)."""
    _require_ray()
    from cardzoo.io import write_json_atomic
    from cardzoo.training.rllib.algorithm import run_training
    from cardzoo.training.rllib.eval import evaluate_run, run_metrics

    log = log or (lambda line: None)
    started = time.perf_counter()
    folder = RunFolder(out)
    if resume and force:
        raise InputError("--resume and --force exclude each other: continue or start over")
    if resume:
        settings = resumed_settings(folder, game_name, params, options)
        folder.start_resumed(settings)
    else:
        settings = run_settings(game_name, params, **options)
        folder.start_new(settings, force=force)
    training = run_training(folder, settings, log)
    log(f"evaluating {', '.join(settings['module_ids'])} ({settings['eval_games']} games each)")
    evaluation = evaluate_run(folder, settings, log)
    metrics = run_metrics(settings, training, evaluation, time.perf_counter() - started)
    write_json_atomic(folder.metrics_path, metrics)
    log(f"run folder: {folder.path}")
    return metrics


#: the options a resumed run may change: how long and where it trains, how it is evaluated
RESUMABLE = (
    "iterations",
    "env_runners",
    "envs_per_runner",
    "address",
    "checkpoint_every",
    "eval_games",
)


def resumed_settings(
    folder: RunFolder, game_name: str, params: dict[str, Any] | None, options: dict[str, Any]
) -> dict[str, Any]:
    """The saved settings of the run in ``folder`` with the :data:`RESUMABLE` ``options``
    replaced; anything else given must agree with the saved run."""
    if not folder.is_run():
        raise InputError(f"--resume: {folder.path} holds no run to resume")
    saved = folder.read_settings()
    if game_name != saved["game"]:
        raise InputError(f"--resume: {folder.path} is a run of {saved['game']}, not {game_name}")
    if params:
        asked = run_settings(game_name, params)["params"]
        if asked != saved["params"]:
            raise InputError(
                f"--resume: {folder.path} was trained with parameters {saved['params']}, "
                f"not {asked}"
            )
    if options.get("policy") not in (None, saved["policy"]):
        raise InputError(
            f"--resume: {folder.path} trains policy={saved['policy']!r}, not {options['policy']!r}"
        )
    unknown = set(options) - set(RESUMABLE) - {"policy"}
    changed = sorted(key for key in unknown if options[key] != saved.get(key))
    if changed:
        raise InputError(
            f"--resume: only {', '.join(RESUMABLE)} may change when resuming, not {changed}"
        )
    kept = {key: saved[key] for key in (*RESUMABLE, "rollout_length", "seed", "policy")}
    return run_settings(
        saved["game"],
        saved["params"],
        **{**kept, **{key: options[key] for key in RESUMABLE if key in options}},
        hyperparameters=saved["ppo"],
    )


def _require_ray() -> None:
    try:
        import ray.rllib  # noqa: F401
    except ImportError as error:
        raise missing_extra("rllib", "cardzoo.training.rllib", error.name) from None
