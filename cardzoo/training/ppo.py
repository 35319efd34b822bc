"""Train a policy for one seat of a game with PPO, top to bottom (CleanRL's shape).

    from cardzoo.training.ppo import TrainConfig, train
    result = train(TrainConfig("nobody_wants_it", timesteps=200_000), out="runs/nwi")

1. resolve the configuration once (:meth:`TrainConfig.resolved`: the game's defaults filled in,
   every value checked; it is what ``config.json`` and ``metrics.json`` record);
2. start ``processes`` sampling workers (:mod:`cardzoo.training.sampler`), each playing its share
   of ``n_envs`` games at once, the learner in one seat, the other seats drawn from a mix of
   agents and, with ``self``, a pool of frozen snapshots of the learner;
3. build the learner (:mod:`cardzoo.training.learner`; with ``memory`` a recurrent core, whose
   hidden state the workers keep per game and whose update replays whole sequences), or load
   the last checkpoint of an interrupted run;
4. repeat until ``timesteps``: while the workers play the next rollout, update on the last one
   (both cores busy); every ``eval_every`` steps put a snapshot into the pool, evaluate against
   random and the game's best heuristic (win rate with its 95% Wilson interval, logged to
   TensorBoard), keep the best policy so far and write a checkpoint (atomically);
5. evaluate the best policy on ``final_eval_games`` mirrored deals with seats rotated, and write
   ``metrics.json`` and the learning curve.

The run folder (``out``) holds everything needed to reload, resume, evaluate and plot the run:

- ``policy.npz`` — the selected policy (best periodic evaluation against the best heuristic),
  numpy only; ``make_agent(game_name, "ppo:RUN", game)`` plays it;
- ``checkpoint.pt`` + ``progress.json`` — the latest learner (weights, optimiser) and the loop's
  state, for ``resume``;
- ``metrics.json`` — settings, versions, git commit, seed, evaluations with CIs, wall-clock,
  samples/s; ``learning_curve.png``; ``tb/`` — TensorBoard logs.

**Decision:** the periodic evaluations use deals (seeds from 10⁶ on) disjoint from the final
evaluation's (from 2·10⁶ on), so choosing the best checkpoint does not flatter the final figure.
**Decision:** a resumed run continues from its last checkpoint with fresh games: the games in
progress at the interruption are lost, so a resumed run is not bit-identical to an uninterrupted
one (the learner, its optimiser and the pool are restored exactly). A resumed run must keep its
settings except ``timesteps`` and ``final_eval_games``: a run may be extended (finished or not),
cut short (a run already past the new length goes straight to its final evaluation), or
evaluated again on more games.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import math
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from cardzoo.agents import game_agents, make_agent
from cardzoo.agents.policy import (
    ORDINAL_HEADS,
    POLICY_FILE,
    NumpyPolicy,
    OrdinalHead,
    PolicyAgent,
    PolicyInput,
    check_policy_fits,
    read_policy,
    restarted_rows,
    save_policy,
)
from cardzoo.agents.registry import policy_file
from cardzoo.envs.core import Game
from cardzoo.errors import InputError
from cardzoo.evaluation import play_match
from cardzoo.extras import TRAIN_MODULES, require_modules
from cardzoo.io import file_sha256, write_bytes_atomic, write_json_atomic
from cardzoo.stats import mean_interval
from cardzoo.training.config import (
    GAME_DEFAULTS,
    RESUMABLE_CHANGES,
    SELECTION_EVAL_SEED,
    SETTING,
    SETTINGS,
    TrainConfig,
    best_response_config,
    check_exploiter_spacing,
    game_params,
    option_name,
    run_game,
)
from cardzoo.training.league import (
    EXPLOITER,
    SNAPSHOT,
    League,
    decode_policy,
    encode_policy,
)
from cardzoo.training.learner import Learner
from cardzoo.training.run_info import machine, source_state, versions
from cardzoo.training.sampler import SELF, Rollout, SamplerWorker, parse_mix
from cardzoo.training.threads import torch_threads

# torch is checked as the learner is imported; the trainer's other modules are imported when a
# run starts, and checked here, before any work
require_modules("train", "cardzoo.training", TRAIN_MODULES)

FORMAT_VERSION = 1
#: the first deal of the periodic evaluations (which choose the checkpoint and draw the
#: learning curve) and of the final evaluation (``FINAL_EVAL_SEED``, unless a run says
#: otherwise): the ranges of deals they use never meet (:func:`evaluation_deals`); training
#: deals come from the run's own generator instead
PERIODIC_EVAL_SEED = 1_000_000
#: the first deal of an exploiter's evaluation against the frozen learner (a diagnostic of the
#: league, never a report)
EXPLOITER_EVAL_SEED = 1_500_000
#: the report ``cardzoo exploit`` writes beside its run's files
#: (:mod:`cardzoo.training.exploit`): a folder holding it holds an exploit run, which
#: :func:`train` does not resume (the report would be left describing another run)
EXPLOIT_REPORT = "exploit.json"
#: the files a run folder holds: what --force replaces (nothing else in the folder is touched)
RUN_FILES = (
    "league",
    "candidates",
    "config.json",
    "progress.json",
    "checkpoint.pt",
    "checkpoint.pending.pt",
    "policy.npz",
    "metrics.json",
    "learning_curve.png",
    "tb",
    EXPLOIT_REPORT,
)

#: what a run writes inside its folders of :data:`RUN_FILES` (anything else there is a user's,
#: and ``force`` leaves it, and the folder, in place); a league's exploiters are run folders
RUN_FOLDER_FILES = {
    "tb": "events.out.tfevents.*",
    "candidates": "[0-9]*.npz",
    "league": "learner-*.npz",
}

__all__ = ["GAME_DEFAULTS", "TrainConfig", "TrainResult", "report", "train"]


@dataclasses.dataclass
class TrainResult:
    run_dir: Path
    metrics: dict[str, Any]


# ----------------------------------------------------------------------------------------------
# The training loop
# ----------------------------------------------------------------------------------------------


def train(
    config: TrainConfig,
    out: str | os.PathLike,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
) -> TrainResult:
    """Run (or, with ``resume``, continue) the training ``config`` describes into ``out``.
    Torch and numpy's BLAS run on one thread meanwhile (5-10x faster than their defaults on
    these small networks and few cores, and a spinning second thread slows the samplers); the
    caller's settings are restored on return.

    Everything is checked before the run folder is created or changed (the settings, every
    opponent, the saved files of a run to resume): input refused raises
    :class:`~cardzoo.errors.InputError` and leaves the folder as it was.

    ``force`` starts again in a folder that holds a run, finished or interrupted (even with
    ``resume``): it removes only the files a run writes, and a user's other files stay. Without
    it, a folder that holds a run is refused unless ``resume`` is given. A folder that holds a
    run of ``cardzoo exploit`` (with its report, ``exploit.json``) is refused too, resumed or
    not: resume it with :func:`~cardzoo.training.exploit.exploit`, which rewrites the report;
    ``force`` replaces it, the report included. ``progress`` shows a progress bar of the
    training steps (tqdm, on standard error); the final evaluation is not printed either way
    (:func:`report` formats it).

    **Decision:** on ``resume``, a setting left None keeps the run's own (not the game's
    default, which may have changed since): a run is extended only by asking for a longer one
    (``timesteps``), and resuming a finished run without a new length is refused as having
    nothing to do, unless the final evaluation's size changes (``final_eval_games``, e.g. a
    larger one): then the policy is evaluated again on that many games, without training.

    **Decision:** an opponent that plays a file (``ppo:PATH``, ``rllib:PATH``, ``pretrained``)
    is recorded by the file's sha256 when the run starts (in ``progress.json``, with the
    checkpoint trained against it; ``metrics.json`` shows it), and a resume refuses a file
    whose contents changed since, naming it: the run would go on against another policy. The
    contents are what is compared, not the path: PATH is read from the current folder, as
    every agent name is, so a relative PATH may be resumed from another folder where it names
    a file of the same contents (the same policy), and is refused where it names another.
    Runs saved before the files were recorded have no record: they resume unchecked, and their
    next checkpoint records the files."""
    refuse_exploit_run(out, resume, force)
    return train_run(config, out, resume, force, progress)


def train_run(
    config: TrainConfig, out: str | os.PathLike, resume: bool, force: bool, progress: bool
) -> TrainResult:
    """:func:`train`, for a run of any kind: ``cardzoo exploit``'s runs
    (:func:`~cardzoo.training.exploit.exploit`), whose folders :func:`train` refuses, go
    through here."""
    from threadpoolctl import threadpool_limits

    if resume and not force:
        config = resumed_settings(config, out)
    with torch_threads(1), threadpool_limits(1):
        return _train(config.resolved(), out, resume, force, progress)


def refuse_exploit_run(out: str | os.PathLike, resume: bool, force: bool) -> None:
    """:func:`train` refuses a folder holding a run of ``cardzoo exploit`` (a run and its report,
    :data:`EXPLOIT_REPORT`) unless ``force`` replaces both: resumed, or started again without
    the report removed, the folder would hold a report that describes another run."""
    run = RunFolder(Path(out))
    if force or not run.holds_exploit_run():
        return
    raise InputError(
        f"{'resume' if resume else 'out'}: {run.path} holds a run of cardzoo exploit (with its "
        f"{EXPLOIT_REPORT}); resume it with cardzoo exploit, or choose another --out (--force "
        "replaces it, the report too)"
    )


def resumed_settings(
    config: TrainConfig, out: str | os.PathLike, keep: Iterable[str] | None = None
) -> TrainConfig:
    """``config`` with the settings in ``keep`` taken from the run saved in ``out`` (unchanged
    where there is no run there: resuming it is refused later). By default ``keep`` is every
    setting ``config`` leaves unset (None, or no game parameters): a resumed run keeps its own
    length, final evaluation and per-game defaults, even where the game's defaults have changed
    since it started."""
    run = RunFolder(Path(out))
    if not run.holds_run():
        return config
    saved = run.read_config()
    run.check_game(saved, config)
    if keep is None:
        keep = [s.name for s in SETTINGS if getattr(config, s.name) is None or s.name == "params"
                and not config.params]  # fmt: skip
    return dataclasses.replace(config, **{name: getattr(saved, name) for name in keep})


def _train(
    config: TrainConfig, out: str | os.PathLike, resume: bool, force: bool, progress: bool
) -> TrainResult:
    # resolved (TrainConfig.resolved): the game's defaults are filled in
    assert config.timesteps is not None and config.frame_stack is not None
    assert config.activation is not None and config.opponents is not None
    assert config.memory is not None and config.hold_special is not None
    assert config.net_arch is not None
    run = RunFolder(Path(out))
    evaluation_deals(config)  # disjoint, or nothing starts
    resumed = run.check(config, resume=resume, force=force)
    if not resumed:
        check_exploiter_spacing(config)
    game = run_game(config)
    loop = run.load_progress() if resumed else LoopState()
    run.check_opponent_files(loop, opponent_files(config, game))  # and records them
    loop.sources.append(source_state())
    if loop.next_evaluation < 0:
        loop.next_evaluation = config.eval_every

    learner = Learner(
        PolicyInput(game, config.frame_stack, config.stack_fields, config.count_fields).size,
        game.num_actions,
        config.net_arch,
        config.learning_rate,
        config.seed,
        policy_head(config, game),
        config.activation,
        config.memory,
        config.memory_size,
    )
    # a resume writes the last evaluation's files again from its checkpoint, unless the run
    # ended there (they are written, and policy.npz may be the selection's choice)
    rewrite = False
    if resumed:
        rewrite = run.restore(learner, loop) and not run.finished(loop)
        _check_pool_fits(loop, learner.numpy_policy(), run.progress)
        run.check_policies(config, game, loop, learner.numpy_policy(), rewrite)
    mix = parse_mix(config.game, config.opponents)
    league = _league(config, mix, loop, learner.numpy_policy())
    run.start(config, replace=force)  # everything above was read and checked, nothing written
    if resumed:
        run.settle_checkpoint()
    if rewrite:  # the checkpoint is the last evaluation's learner: write its files again
        run.write_evaluated(config, loop, learner.numpy_policy(), _model_info(config, game))
    uses_pool = SELF in mix and league is None
    if uses_pool and not loop.pool:  # the untrained learner is the first opponent of the pool
        loop.pool.append(learner.numpy_policy().state())
    writer = _summary_writer(run.path / "tb")
    if league is not None and loop.exploiter_due:  # interrupted while training an exploiter
        try:
            _exploiter_joins(config, run, league, loop, writer)
        except BaseException:
            writer.close()
            raise
    workers = start_workers(config, mix, config.seed + 7919 * len(loop.history), loop.pool,
                            _draws(league, league.roster() if league else None))  # fmt: skip
    bar = (
        _progress_bar(rounded_timesteps(config, loop.timesteps), loop.timesteps)
        if progress
        else None
    )
    try:
        pool = [NumpyPolicy(**state) for state in loop.pool] if uses_pool else None
        roster = league.roster() if league else None  # sent again only when it changes
        numbers = game.action_numbers()
        special = numbers[1] > 0 if numbers is not None and config.hold_special else None
        hold = int(config.hold_special)  # resolved: whole decisions

        def held() -> np.ndarray | None:  # hold_special: what the learner may not choose yet
            return special if special is not None and loop.timesteps < hold else None

        pending = [
            w.start(learner.numpy_policy(), learner.numpy_value(), pool, _draws(league, roster),
                    held())
            for w in workers
        ]  # fmt: skip
        pool = roster = None  # sent with the next rollout only when it changes
        while loop.timesteps < config.timesteps:
            started, cpu_started = time.perf_counter(), time.process_time()
            rollout = Rollout.join([w.wait(b) for w, b in zip(workers, pending)])
            if league is not None:
                league.record(rollout.results)
            # The workers play the next rollout while the learner updates on this one.
            policy, value = learner.numpy_policy(), learner.numpy_value()
            pending = [
                w.start(policy, value, pool, _draws(league, roster), held()) for w in workers
            ]
            pool = roster = None
            learner.set_learning_rate(config.learning_rate_at(loop.timesteps))
            losses = learner.update(rollout, **config.update())
            was_held = held() is not None
            loop.timesteps += len(rollout.actions)
            if was_held and held() is None:  # the special kinds from the next rollout on
                assert numbers is not None  # held: the game has kinds of action
                learner.restart_rows(restarted_rows(*numbers, learner.network.head))
            loop.train_seconds += time.perf_counter() - started
            # Cores in use: the learner's CPU time here and the samplers' for their rollouts.
            loop.train_cpu_seconds += time.process_time() - cpu_started + rollout.cpu_seconds
            _log_rollout(writer, loop.timesteps, rollout, losses)
            if bar:
                bar.update(len(rollout.actions))
            if loop.timesteps < loop.next_evaluation and loop.timesteps < config.timesteps:
                continue
            loop.next_evaluation += config.eval_every
            policy = learner.numpy_policy()
            if uses_pool:
                loop.pool = (loop.pool + [policy.state()])[-config.pool_size :]
                # From the next rollout but one: the rollout under way already has its pool.
                pool = [NumpyPolicy(**state) for state in loop.pool]
            run.check_opponent_files(loop, opponent_files(config, game), during=True)
            evaluation = evaluate(config, policy, config.eval_games, PERIODIC_EVAL_SEED)
            evaluation["timesteps"] = loop.timesteps
            evaluation["train_seconds"] = round(loop.train_seconds, 1)  # time to strength
            loop.history.append(evaluation)
            _log_evaluation(writer, loop.timesteps, evaluation)
            score = _selection_score(config, evaluation)
            if score >= loop.best_score:
                loop.best_score, loop.best_timesteps = score, loop.timesteps
            if league is not None:
                roster = _grow_league(config, run, league, loop, policy)
                _record_league(league, loop, writer)
            run.save_checkpoint(learner.state(), loop.timesteps)
            run.commit(loop)  # the evaluation's record: its files are written after it
            run.write_evaluated(config, loop, policy, _model_info(config, game))
            if league is not None and loop.exploiter_due:
                _exploiter_joins(config, run, league, loop, writer)
                roster = league.roster()
    finally:
        if bar:
            bar.close()
        writer.close()
        for worker in workers:
            worker.close()

    run.check_opponent_files(loop, opponent_files(config, game), during=True)
    if config.select_top > 1:
        loop.selection = select_candidate(config, run, loop)
    best, _ = read_policy(run.policy)
    final = final_evaluation(config, best)
    metrics = run.write_metrics(config, loop, final, loop.timesteps)
    run.write_curve(config, loop)
    return TrainResult(run.path, metrics)


# ----------------------------------------------------------------------------------------------
# The league (cardzoo.training.league): opponents by PFSP, snapshots and exploiters
# ----------------------------------------------------------------------------------------------


def _league(config: TrainConfig, mix: dict[str, float], loop: LoopState, untrained: NumpyPolicy):
    """The run's league (restored on resume), or None without ``config.league``."""
    if not config.league:
        return None
    if loop.league is None:
        league = League.start(
            run_game(config).num_players, mix, config.pool_size, config.pfsp_power,
            config.pfsp_fair_share,
        )  # fmt: skip
        if SELF in mix:  # the untrained learner is the first snapshot, as in the pool
            league.add(SNAPSHOT, "snapshot@0", untrained)
        loop.league = league.to_json()
        loop.next_exploiter = config.exploiter_every
    return League.from_json(loop.league)


def _draws(league: League | None, roster: list | None):
    """What a worker needs of the league for its next rollout (None without one)."""
    return None if league is None else (roster, league.weights().tolist())


def _grow_league(config, run, league: League, loop: LoopState, policy: NumpyPolicy):
    """At an evaluation: the learner's snapshot joins the league (with ``self`` in the mix),
    and an exploiter falls due every ``exploiter_every`` decisions. Returns the new roster."""
    if SELF in league.mix:
        league.add(SNAPSHOT, f"snapshot@{loop.timesteps}", policy)
    if config.exploiter_every and loop.timesteps >= loop.next_exploiter:
        loop.exploiter_due = True
        loop.next_exploiter += config.exploiter_every * math.ceil(
            (loop.timesteps - loop.next_exploiter + 1) / config.exploiter_every
        )
        save_policy(_exploiter_target(run, league), policy, _model_info(config, run_game(config)))
    loop.league = league.to_json()
    return league.roster()


def _record_league(league: League, loop: LoopState, writer) -> None:
    """The league as the next rollouts draw from it, into the last evaluation's record
    (``history[-1]["league"]``) and, once no exploiter is due to join it, TensorBoard's
    ``league/weight/*`` at that evaluation's step."""
    loop.history[-1]["league"] = league.table()
    if loop.exploiter_due:  # recorded again when it has joined
        return
    for member in loop.history[-1]["league"]:
        writer.add_scalar(f"league/weight/{member['member']}", member["weight"], loop.timesteps)
    writer.add_scalar("league/fair_share", league.fair(), loop.timesteps)


def _exploiter_joins(config, run: RunFolder, league: League, loop: LoopState, writer) -> None:
    """The due exploiter trained and in the league, its gain logged, the evaluation's league
    recorded again with it, and the run's record saved."""
    _train_exploiter(config, run, league, loop)
    _log_exploiter(writer, loop)
    _record_league(league, loop, writer)
    run.save_progress(loop)


def _exploiter_target(run: RunFolder, league: League) -> Path:
    """The frozen learner the next exploiter trains against."""
    return run.path / "league" / f"learner-{league.exploiters + 1}.npz"


def _train_exploiter(config: TrainConfig, run: RunFolder, league: League, loop: LoopState):
    """Train the due exploiter against the frozen learner (:func:`_exploiter_config`, in the
    run folder's ``league/exploiter-K``), freeze it into the league, and record its gain over
    the learner's own share: a running estimate of the learner's exploitability. One
    interrupted before it finished is trained again from its start, into a clean folder: it
    evaluates (and saves a checkpoint) only at its end, so nothing of it was kept, and its seed
    gives the same exploiter. (Resumed, it had compared its saved settings, which name the
    frozen learner by its absolute path, and refused a run folder that had moved.)"""
    number = league.exploiters + 1
    target = _exploiter_target(run, league).resolve()
    folder = run.path / "league" / f"exploiter-{number}"
    started = time.perf_counter()
    if (folder / "metrics.json").exists():  # trained before an interruption
        metrics = json.loads((folder / "metrics.json").read_text())
    else:  # from its start: its one checkpoint is at its end, and its seed makes it again
        exploiter = _exploiter_config(config, f"ppo:{target}", config.seed + 104_729 * number)
        metrics = _train(exploiter, folder, resume=False, force=True, progress=False).metrics
    policy, _ = read_policy(folder / POLICY_FILE)
    league.add(EXPLOITER, f"exploiter-{number}@{loop.timesteps}", policy)
    gain = metrics["final_evaluation"]["gain"]
    loop.exploits.append({"exploiter": number, "timesteps": loop.timesteps, **gain})
    loop.league_seconds += time.perf_counter() - started
    loop.exploiter_due = False
    loop.league = league.to_json()


def _exploiter_config(config: TrainConfig, target: str, seed: int) -> TrainConfig:
    """The run of an exploiter of ``target`` (the frozen learner) in ``config``'s league, by its
    ``exploiter_recipe``: ``cardzoo exploit``'s best response at ``exploiter_timesteps`` (the
    game's training defaults), reading its inputs as the learner does, since the league plays it
    so, with as many sampling processes as the learner; or the learner's own settings at that
    length ("learner", the runs before the setting:
    their exploiters, trained with a long run's batch and falling learning rate, were weaker
    than the 1M-decision best response that measures the learner)."""
    assert config.hold_special is not None and config.timesteps is not None  # resolved
    length = config.exploiter_timesteps
    if config.exploiter_recipe == "exploit":
        exploiter = best_response_config(
            config.game, target, config.params, length, seed, config.eval_games,
            EXPLOITER_EVAL_SEED, eval_every=length, frame_stack=config.frame_stack,
            stack_fields=config.stack_fields, count_fields=config.count_fields,
        ).resolved()  # fmt: skip
        # the sampling processes the learner's run may start, not the game's default number
        assert config.processes is not None and exploiter.n_envs is not None  # resolved
        return dataclasses.replace(exploiter, processes=min(config.processes, exploiter.n_envs))
    return dataclasses.replace(
        config,
        opponents=target,
        eval_opponents=(target,),
        timesteps=length,
        # the learner's recipe at the exploiter's length: a held circle held as long in part
        hold_special=config.hold_special * length // config.timesteps,
        seed=seed,
        eval_every=length,
        select_top=1,  # one evaluation: nothing to choose among
        final_eval_games=config.eval_games,
        final_eval_seed=EXPLOITER_EVAL_SEED,
        league=False,
        exploiter_every=0,
        positions="learned",  # an exploiter looks for every habit, of positions too
    ).resolved()


def _log_exploiter(writer, loop: LoopState) -> None:
    last = loop.exploits[-1]
    writer.add_scalar("league/exploiter_gain", last["gain"], last["timesteps"])
    writer.flush()


def start_workers(
    config: TrainConfig,
    mix: dict[str, float],
    seed: int,
    pool: list[dict] | None = None,
    league: tuple[list, list[float]] | None = None,
) -> list[SamplerWorker]:
    """``config.processes`` sampling workers sharing ``config.n_envs`` games, their other
    seats drawn from ``mix`` (:func:`~cardzoo.training.sampler.parse_mix`). A mix of ``self``
    alone has no one else for the games dealt before the first rollout: those meet ``pool``
    (the untrained learner at the start). Other mixes skip ``self`` there, as always. With a
    league (its roster and draw probabilities), every game, the first ones too, meets one of
    its members."""
    first_pool = pool if set(mix) == {SELF} else None
    assert config.processes is not None and config.n_envs is not None  # resolved
    shares = np.diff(np.linspace(0, config.n_envs, config.processes + 1).astype(int))
    num_actions = run_game(config).num_actions
    workers: list[SamplerWorker] = []
    try:
        for index, num_games in enumerate(shares):
            sampler = config.sampler(int(num_games), seed + index)
            workers.append(
                SamplerWorker(sampler, mix, first_pool, config.n_steps, num_actions, league)
            )
    except BaseException:
        for worker in workers:
            worker.close()
        raise
    return workers


def policy_head(config: TrainConfig, game: Game) -> OrdinalHead | None:
    """The policy's head beyond its last layer: None for one logit per action."""
    if config.head != "linear":
        numbers = game.action_numbers()
        assert numbers is not None and config.head is not None  # TrainConfig.check saw to it
        return OrdinalHead(*numbers, shared_sharpness=ORDINAL_HEADS[config.head])
    return None


def full_params(config: TrainConfig) -> dict[str, Any]:
    """Every parameter of the game the run plays, defaults included."""
    return run_game(config).params()


def opponent_files(config: TrainConfig, game: Game) -> dict[str, dict[str, str]]:
    """The file each opponent and evaluation opponent that plays one reads (``ppo:PATH``,
    ``rllib:PATH``, ``pretrained``: :func:`~cardzoo.agents.registry.policy_file`, the files a
    tournament records), by agent name: its path, absolute, and its sha256."""
    assert config.opponents is not None  # resolved
    names = [*parse_mix(config.game, config.opponents), *config.evaluation_opponents]
    files = {}
    for name in dict.fromkeys(names):
        path = None if name == SELF else policy_file(config.game, name, game)
        if path is not None:
            files[name] = {"path": str(Path(path).resolve()), "sha256": file_sha256(path)}
    return files


def _model_info(config: TrainConfig, game: Game) -> dict[str, Any]:
    return {
        "game": config.game,
        "version": game.version,
        "params": game.params(),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
        "frame_stack": config.frame_stack,
        "stack_fields": list(config.stack_fields),
        "count_fields": list(config.count_fields),
        "play": config.play,
        "positions": config.positions,
        "format": FORMAT_VERSION,
    }


def select_candidate(config: TrainConfig, run: RunFolder, loop: LoopState) -> list[dict]:
    """The candidates (the ``select_top`` best periodic checkpoints) evaluated again against
    the deciding opponent on ``select_games`` games from :data:`SELECTION_EVAL_SEED`; the best
    there (the later on a tie, as the periodic choice) becomes ``policy.npz``. One evaluation
    of 400 games picks its best partly by luck (the checkpoint it favours tends to score less
    on other deals); a second, larger one on fresh deals chooses among the few it favoured.
    Returns each candidate's two figures, in the order of training."""
    deciding = config.evaluation_opponents[-1]
    measure = objective_measure(config)
    rows = []
    for timesteps, periodic in run.candidates(config, loop):
        policy, _ = read_policy(run.candidate(timesteps))
        evaluation = evaluate(
            config, policy, config.select_games, SELECTION_EVAL_SEED, opponents=(deciding,)
        )
        result = evaluation["against"][deciding]
        rows.append(
            {
                "timesteps": timesteps,
                "periodic": periodic,
                "selection": result[measure],
                "selection_ci": result[f"{measure}_ci"],
                "games": evaluation["games"],
            }
        )
    chosen = max(rows, key=lambda row: (row["selection"], row["timesteps"]))
    write_bytes_atomic(run.policy, run.candidate(chosen["timesteps"]).read_bytes())
    for row in rows:
        row["chosen"] = row is chosen
    return rows


def _selection_score(config: TrainConfig, evaluation: dict[str, Any]) -> float:
    """What "best" means when choosing the checkpoint: the win rate against the deciding
    evaluation opponent, by default the best heuristic (Foxy: the mean points, its goal)."""
    against = evaluation["against"][config.evaluation_opponents[-1]]
    return against[objective_measure(config)]


def objective_measure(config: TrainConfig) -> str:
    """The figure a run is judged by: ``win_rate``, or ``mean_score`` where the game's objective
    is points (Foxy)."""
    return "mean_score" if run_game(config).objective == "points" else "win_rate"


# ----------------------------------------------------------------------------------------------
# Evaluation
# ----------------------------------------------------------------------------------------------


def learner_factory(
    policy: NumpyPolicy,
    frame_stack: int,
    label: str = "learner",
    stack_fields: tuple = (),
    deterministic: bool = True,
    count_fields: tuple = (),
    positions: str = "learned",
):
    """A ``play_match`` line-up entry: the policy as an agent, greedy unless told to sample,
    playing positions as ``positions`` says (:class:`~cardzoo.agents.policy.PolicyAgent`)."""
    inputs = (frame_stack, stack_fields, count_fields)

    def build(game: Game, seed: int) -> PolicyAgent:
        return PolicyAgent(game, policy, seed, deterministic, label, *inputs, positions=positions)

    build.name = label  # type: ignore[attr-defined]  # play_match's label for this seat
    return build


def evaluate(
    config: TrainConfig,
    policy: NumpyPolicy,
    num_games: int,
    seed: int,
    keep: bool = False,
    opponents: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The learner in one seat, every other seat each evaluation opponent in turn (random, then
    the best heuristic, unless the run names others; ``opponents``: these instead); seats
    rotated, mirrored deals (``num_games`` rounded up to a multiple of the player count). With
    ``keep`` the matches' records come back too (under ``"matches"``, not JSON)."""
    params = game_params(config)
    n = run_game(config).num_players
    num_games = math.ceil(num_games / n) * n
    assert config.frame_stack is not None  # a resolved configuration's
    learner = learner_factory(
        policy,
        config.frame_stack,
        stack_fields=config.stack_fields,
        deterministic=config.greedy,
        count_fields=config.count_fields,
        positions=config.positions or "learned",
    )
    against, matches = {}, {}
    for opponent in config.evaluation_opponents if opponents is None else opponents:
        result = play_match(config.game, [learner] + [opponent] * (n - 1), num_games, seed, params)
        against[opponent] = _summary(result.agents["learner"].summary())
        matches[opponent] = result.agents["learner"]
    return {"games": num_games, "against": against, **({"matches": matches} if keep else {})}


def final_evaluation(config: TrainConfig, policy: NumpyPolicy) -> dict[str, Any]:
    """:func:`evaluate` on the final deals, plus the deciding opponent's own results in the
    same seat against copies of itself (the fair share the learner has to beat), and the
    learner's gain over that share with its 95% interval, paired game by game: both line-ups
    play the same deals with the seat under test in the same place."""
    assert config.final_eval_games is not None  # a resolved configuration's
    evaluation = evaluate(
        config, policy, config.final_eval_games, config.final_eval_seed, keep=True
    )
    baseline = config.evaluation_opponents[-1]
    params = game_params(config)
    n = run_game(config).num_players

    def seat_under_test(game: Game, seed: int):
        return make_agent(config.game, baseline, game, seed=seed)

    label = f"{baseline} (same seat)"
    seat_under_test.name = label  # type: ignore[attr-defined]  # play_match's label
    result = play_match(
        config.game,
        [seat_under_test] + [baseline] * (n - 1),
        evaluation["games"],
        config.final_eval_seed,
        params,
    )
    own = result.agents[label]
    evaluation["baseline_same_seat"] = {"agent": baseline, **_summary(own.summary())}
    learner = evaluation.pop("matches")[baseline]
    per_game = "scores" if objective_measure(config) == "mean_score" else "win_shares"
    gain, low, high = mean_interval(np.subtract(getattr(learner, per_game), getattr(own, per_game)))
    evaluation["gain"] = {
        "measure": objective_measure(config),
        "over": baseline,
        "gain": gain,
        "gain_ci": [low, high],
    }
    return evaluation


def evaluation_deals(config: TrainConfig) -> dict[str, range]:
    """The deals (reset seeds) of the periodic and the final evaluations (and of the
    candidates' second evaluation, ``select_top`` above 1), checked disjoint: the deals that
    choose the checkpoint never grade it."""
    assert config.final_eval_games is not None  # a resolved configuration's
    n = run_game(config).num_players
    deals = {
        "periodic": range(
            PERIODIC_EVAL_SEED, PERIODIC_EVAL_SEED + math.ceil(config.eval_games / n)
        ),
        "final": range(
            config.final_eval_seed, config.final_eval_seed + math.ceil(config.final_eval_games / n)
        ),
    }
    if config.select_top > 1:
        deals["selection"] = range(
            SELECTION_EVAL_SEED, SELECTION_EVAL_SEED + math.ceil(config.select_games / n)
        )
    clashes = [
        (first, second)
        for first, second in itertools.combinations(deals, 2)
        if set(deals[first]) & set(deals[second])
    ]
    if clashes:
        raise DealsClashError(deals, clashes)
    return deals


class DealsClashError(InputError):
    """Evaluations of a run whose deals would meet: ``deals`` (name -> range, as
    :func:`evaluation_deals` gives them) and the ``clashes`` (pairs of names), so that a caller
    can say which of its settings to change."""

    def __init__(self, deals: dict[str, range], clashes: list[tuple[str, str]]):
        self.deals, self.clashes = deals, clashes
        first, second = clashes[0]
        super().__init__(f"the {first} and the {second} evaluations would share deals")


def _summary(agent: dict[str, Any]) -> dict[str, Any]:
    return {
        "seat_games": agent["seat_games"],
        "win_rate": agent["win_rate"],
        "win_rate_ci": agent["win_rate_ci"],
        "mean_score": agent["mean_score"],
        "mean_score_ci": agent["mean_score_ci"],
        "mean_reward": agent["mean_reward"],
    }


def _summary_writer(folder: Path):
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(folder))


def _log_rollout(writer, timesteps: int, rollout: Rollout, losses: dict[str, float]) -> None:
    for name, value in losses.items():
        writer.add_scalar(f"train/{name}", value, timesteps)
    if rollout.episodes:
        writer.add_scalar("train/episode_win_rate", rollout.wins / rollout.episodes, timesteps)


def _log_evaluation(writer, timesteps: int, evaluation: dict[str, Any]) -> None:
    for opponent, result in evaluation["against"].items():
        writer.add_scalar(f"eval/win_rate_vs_{opponent}", result["win_rate"], timesteps)
        writer.add_scalar(
            f"eval/win_rate_ci_low_vs_{opponent}", result["win_rate_ci"][0], timesteps
        )
        writer.add_scalar(
            f"eval/win_rate_ci_high_vs_{opponent}", result["win_rate_ci"][1], timesteps
        )
        writer.add_scalar(f"eval/mean_score_vs_{opponent}", result["mean_score"], timesteps)
    writer.flush()


# ----------------------------------------------------------------------------------------------
# The run folder
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class LoopState:
    """What the loop carries from one evaluation to the next (saved in ``progress.json``)."""

    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    pool: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    best_score: float = -math.inf
    best_timesteps: int = 0
    train_seconds: float = 0.0
    train_cpu_seconds: float = 0.0
    timesteps: int = 0
    next_evaluation: int = -1  # set to eval_every when the loop starts
    #: the source each stretch of training ran (run_info.source_state), one per start or resume
    sources: list[str | None] = dataclasses.field(default_factory=list)
    #: with a league: its state (:meth:`League.to_json`), when the next exploiter falls due,
    #: whether one is due now (set before it trains, so an interruption resumes it), every
    #: exploiter's gain over the learner, and the wall-clock its training took
    league: dict[str, Any] | None = None
    next_exploiter: int = 0
    exploiter_due: bool = False
    exploits: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    league_seconds: float = 0.0
    #: with ``select_top`` above 1, the candidates' figures when training ended
    #: (:func:`select_candidate`)
    selection: list[dict[str, Any]] | None = None
    #: the files the opponents play, as the run recorded them when it started
    #: (:func:`opponent_files`; a resume refuses one whose contents changed); None: a run saved
    #: before they were recorded
    opponent_files: dict[str, dict[str, str]] | None = None


def remove_run_files(path: Path) -> None:
    """The files a run wrote in ``path`` (:data:`RUN_FILES`; in its folders only those of
    :data:`RUN_FOLDER_FILES` and its exploiters' runs); a folder left empty goes too, one that
    holds anything else stays with it."""
    for name in RUN_FILES:
        target = path / name
        if name not in RUN_FOLDER_FILES:
            if target.is_file():
                target.unlink()
            continue
        if not target.is_dir():
            continue
        for written in target.glob(RUN_FOLDER_FILES[name]):
            if written.is_file():
                written.unlink()
        if name == "league":
            for exploiter in target.glob("exploiter-*"):
                if exploiter.is_dir():
                    remove_run_files(exploiter)
                    _remove_if_empty(exploiter)
        _remove_if_empty(target)


def _remove_if_empty(folder: Path) -> None:
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


#: settings every run's ``config.json`` has held, from the first: a file without them is not one
ALWAYS_SAVED = ("game", "opponents", "timesteps", "seed")


def _as_given(value: Any) -> str:
    """A setting as its option takes it: ``128,128`` for a network's layers, quoted text."""
    if isinstance(value, (tuple, list)):
        return ",".join(str(item) for item in value)
    return repr(value)


class RunFolder:
    def __init__(self, path: Path):
        self.path = path
        self.policy = path / POLICY_FILE
        self.checkpoint = path / "checkpoint.pt"
        #: the checkpoint of an evaluation not yet recorded (:meth:`commit` renames it)
        self.pending_checkpoint = path / "checkpoint.pending.pt"
        self._restored: Path | None = None  # the checkpoint :meth:`restore` read
        self.progress = path / "progress.json"
        self.metrics = path / "metrics.json"
        self.config = path / "config.json"
        self.curve = path / "learning_curve.png"
        self.candidates_folder = path / "candidates"

    def check(self, config: TrainConfig, resume: bool, force: bool) -> bool:
        """Whether ``config`` may run in this folder: a fresh folder, or the run to resume.
        Writes nothing (:meth:`start` does, once everything is checked); returns whether the
        run continues from a checkpoint. A finished run is never overwritten without ``force``,
        and ``force`` replaces only the run's own files (:data:`RUN_FILES`); a run is resumed
        only with the settings it began with, except its length and the size of its final
        evaluation (``RESUMABLE_CHANGES``): an interrupted run can be cut short or extended, a
        finished one extended or evaluated again on more games. Anything damaged or missing is
        an :class:`~cardzoo.errors.InputError` naming the file."""
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"out: {self.path} exists and is not a folder")
        started = self.holds_run()
        if resume and not started:
            name = self.config.name
            what = f"{name} is not a run's settings" if self.config.exists() else f"no {name}"
            raise InputError(
                f"resume: {self.path} holds no run to resume ({what}); leave out --resume to "
                "start one in an empty folder"
            )
        if started and force:
            return False
        if started and not resume:
            other = self._saved_game()
            if other is not None and other != config.game:
                raise InputError(
                    f"out: {self.path} holds a run of {other}; choose another --out (--force "
                    "replaces it)"
                )
            if self.metrics.exists():
                raise InputError(
                    f"out: {self.path} holds a finished run; --resume with a larger "
                    f"{option_name('timesteps')} (or {option_name('final_eval_games')}) extends "
                    "it, --force starts it again"
                )
            raise InputError(
                f"out: {self.path} holds an interrupted run; --resume continues it, --force "
                "starts it again"
            )
        if not started:
            if self.path.exists() and any(self.path.iterdir()):
                raise InputError(f"out: {self.path} is not empty and holds no run")
            return False
        saved = self.read_config()
        self.check_game(saved, config)
        kept = {name: getattr(saved, name) for name in RESUMABLE_CHANGES}
        if dataclasses.replace(config, **kept) != saved:
            changed = [
                f"{option_name(field.name)} {_as_given(getattr(saved, field.name))} there, "
                f"{_as_given(getattr(config, field.name))} here"
                for field in dataclasses.fields(saved)
                if field.name not in kept
                and getattr(config, field.name) != getattr(saved, field.name)
            ]  # fmt: skip
            may = ", ".join(option_name(name) for name in RESUMABLE_CHANGES)
            raise InputError(
                f"resume: {self.path} was started with other settings ({'; '.join(changed)}); "
                f"use the same ones (only {may} may change)"
            )
        ended = self._metrics_settings() if self.metrics.exists() else None
        for name in ("timesteps", "final_eval_games") if ended is not None else ():
            if getattr(config, name) < getattr(ended, name):
                raise InputError(
                    f"resume: the run in {self.path} finished with {option_name(name)} "
                    f"{getattr(ended, name):,}; a finished run is extended, not cut short: give "
                    f"at least that many (not {getattr(config, name):,}), or --force to start again"
                )
        if ended is not None and config == saved and ended == saved:
            raise InputError(
                f"resume: the run in {self.path} is finished; nothing to resume (raise "
                f"{option_name('timesteps')} or {option_name('final_eval_games')} to extend it, "
                "or --force to start again)"
            )
        checkpoint = self.checkpoint.exists() or self.pending_checkpoint.exists()
        if self.progress.exists() != checkpoint:
            missing = self.checkpoint if self.progress.exists() else self.progress
            raise InputError(
                f"resume: {missing} is missing, so the run cannot continue where it stopped; "
                "--force starts it again"
            )
        return checkpoint

    def start(self, config: TrainConfig, replace: bool) -> None:
        """Begin writing, after :meth:`check` and the loading of everything resumed: with
        ``replace`` the old run's files go first; the settings are written."""
        if replace:
            self._remove_run_files()
        self.path.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.config, config.to_json())

    def _metrics_settings(self) -> TrainConfig | None:
        """The settings the run's metrics were written for: an extension interrupted before it
        finished leaves the shorter run's metrics beside the longer run's settings."""
        try:
            settings = json.loads(self.metrics.read_text())["settings"]
            return TrainConfig.from_json(settings).resolved(build_agents=False)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def read_config(self) -> TrainConfig:
        """The run's settings, checked as they were resolved when it started. A null among them
        is damage, as a wrong type is: a run saves the value it used, never None, which
        resolving would silently turn into today's default (a run of 16 games at once resumed
        with 64)."""
        try:
            data = json.loads(self.config.read_text())
            unset = [name for name in SETTING if isinstance(data, dict) and name in data
                     and data[name] is None]  # fmt: skip
            if unset:
                raise ValueError(", ".join(f"{name}: null" for name in unset))
            config = TrainConfig.from_json(data)
            return config.resolved(build_agents=False)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise InputError(
                f"resume: {self.config} is damaged ({error}); --force starts the run again"
            ) from None

    def holds_exploit_run(self) -> bool:
        """Whether the folder holds a run of ``cardzoo exploit``: a run and its report."""
        return (self.path / EXPLOIT_REPORT).is_file() and self.holds_run()

    def holds_run(self) -> bool:
        """Whether the folder holds a run: its ``config.json`` is a run's settings (the ones
        every run has written among them), or, damaged, lies beside files only a run writes (a
        checkpoint, ``progress.json``, a ``metrics.json`` with the run's settings). A
        ``config.json`` of anything else is a user's file: the folder holds no run, so nothing
        in it is resumed or replaced."""
        if not self.config.is_file():
            return False
        try:
            data = json.loads(self.config.read_text())
            TrainConfig.from_json(data)
            if all(name in data for name in ALWAYS_SAVED):
                return True
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        written = (self.progress, self.checkpoint, self.pending_checkpoint)
        return any(path.exists() for path in written) or self._metrics_settings() is not None

    def _saved_game(self) -> str | None:
        """The game of the run saved here (None: its settings are damaged)."""
        try:
            return str(json.loads(self.config.read_text())["game"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def check_game(self, saved: TrainConfig, config: TrainConfig) -> None:
        """A run is resumed as the game it plays."""
        if saved.game != config.game:
            raise InputError(
                f"resume: {self.path} holds a run of {saved.game}, not of {config.game}; resume "
                f"it as {saved.game}, or choose another --out"
            )

    def _remove_run_files(self) -> None:
        remove_run_files(self.path)

    def save_checkpoint(self, state: dict[str, Any], timesteps: int) -> None:
        """The learner's state at an evaluation of ``timesteps`` decisions, written atomically
        as the pending checkpoint: :meth:`commit` makes it the checkpoint with the evaluation's
        record."""
        import torch

        buffer = io.BytesIO()
        torch.save({**state, "timesteps": timesteps}, buffer)
        write_bytes_atomic(self.pending_checkpoint, buffer.getvalue())

    def commit(self, loop: LoopState) -> None:
        """An evaluation's record (``progress.json``), then its checkpoint in the place of the
        last: the two always describe one evaluation. Interrupted between them, the record is
        the new one and :meth:`restore` finds its checkpoint pending; interrupted before the
        record, the pending checkpoint is of an evaluation nothing recorded, and goes."""
        self.save_progress(loop)
        os.replace(self.pending_checkpoint, self.checkpoint)

    def restore(self, learner: Learner, loop: LoopState) -> bool:
        """The learner as the checkpoint of the run's record saved it: ``checkpoint.pt``, or the
        pending one where the record is its evaluation's (:meth:`commit` was interrupted).
        Returns whether that is the record's last evaluation (checkpoints saved before they
        named their evaluation's decisions are not known to be)."""
        import torch

        state = None
        try:
            if self.pending_checkpoint.exists():
                path = self.pending_checkpoint
                pending = torch.load(path, weights_only=True)
                if pending.get("timesteps") == loop.timesteps:
                    state = pending
            if state is None:
                path = self.checkpoint
                state = torch.load(path, weights_only=True)
            learner.load_state(state)
        except Exception as error:  # torch raises many kinds on a damaged or foreign file
            raise InputError(
                f"resume: {path} is damaged ({type(error).__name__}); --force starts the run again"
            ) from None
        self._restored = path
        return state.get("timesteps") == loop.timesteps

    def settle_checkpoint(self) -> None:
        """After :meth:`restore`, once the run may write: the pending checkpoint it restored
        becomes the checkpoint (the interrupted commit finished), one it did not goes."""
        if self._restored == self.pending_checkpoint:
            os.replace(self.pending_checkpoint, self.checkpoint)
        elif self.pending_checkpoint.exists():
            self.pending_checkpoint.unlink()

    def finished(self, loop: LoopState) -> bool:
        """Whether the run ended at its record's last evaluation (``metrics.json`` says so):
        every file of that evaluation was written, and with ``select_top`` above 1
        ``policy.npz`` holds the candidate the selection chose."""
        try:
            return json.loads(self.metrics.read_text())["timesteps"] == loop.timesteps
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def check_opponent_files(
        self, loop: LoopState, files: dict[str, dict[str, str]], during: bool = False
    ) -> None:
        """The run plays the opponents' files (:func:`opponent_files`) it recorded when it
        started, none of them among its own files: a file whose contents changed since is an
        :class:`~cardzoo.errors.InputError` naming it (a resumed run would go on against
        another policy). Then ``files`` are the record: a new run's, or, for a run saved before
        the record, from this resume on. ``during``: checked at an evaluation, which reads the
        files again (a run may extend the policy another trains against: its ``policy.npz``
        changes); the run stops there, at its last checkpoint."""
        inside = self.path.resolve()
        for name, now in files.items():
            file = Path(now["path"])
            written = file.is_relative_to(inside) and file.relative_to(inside).parts[0] in RUN_FILES
            if not during and written:  # a file of the run's own (a user's subfolder is not)
                raise InputError(
                    f"opponents: {name} plays {now['path']}, inside {self.path}, the folder this "
                    "run writes (--force would remove it first, and every evaluation rewrites its "
                    "policy.npz); copy it elsewhere and name the copy"
                )
            then = (loop.opponent_files or {}).get(name)
            if then is None or then["sha256"] == now["sha256"]:
                continue
            where = now["path"]
            if then["path"] != now["path"]:  # a relative path read from another folder
                where += f" (read from the current folder; the run read {then['path']})"
            if name.partition(":")[0] == "pretrained":
                advice = "resume with the cardzoo version the run started with"
            else:
                advice = "put the policy the run trained against back there"
            if during:
                changed = f"during the run in {self.path}"
                advice = f"the run stopped at its last checkpoint: {advice} (--resume)"
            else:
                changed = f"since the run in {self.path} recorded them"
            raise InputError(
                f"{'' if during else 'resume: '}{name} plays {where}, whose contents changed "
                f"{changed} (sha256 {then['sha256'][:12]}... then, {now['sha256'][:12]}... "
                f"now); {advice}, or start a new run (--force, or another --out)"
            )
        loop.opponent_files = files

    def check_policies(
        self,
        config: TrainConfig,
        game: Game,
        loop: LoopState,
        learner: NumpyPolicy,
        rewrite: bool = False,
    ) -> None:
        """The policy files a resumed run has written and will play or choose from
        (``policy.npz``, written at its best evaluation, played at its final one; with
        ``select_top`` above 1 the candidates' files, evaluated again when training ends) are
        there, readable, of the run's game and of its learner's network: checked before
        anything is written, not found missing or damaged after more training and a rewritten
        ``config.json``. With ``rewrite`` the last evaluation's files are not checked: the
        checkpoint is that evaluation's learner, and the resume writes them again from it
        (:meth:`write_evaluated`; the run may have stopped between the evaluation's record and
        its files)."""
        files = [] if not loop.history else [(self.policy, loop.best_timesteps)]
        if config.select_top > 1:
            files += [(self.candidate(t), t) for t, _ in self.candidates(config, loop)]
        for path, timesteps in files:
            if rewrite and timesteps == loop.timesteps:  # written again from the checkpoint
                continue
            if not path.is_file():
                raise InputError(
                    f"resume: {path} is missing, though the run has evaluated "
                    f"({self.progress.name}); --force starts the run again"
                )
            try:
                policy, info = read_policy(path)
                check_policy_fits(info, config.game, game, str(path), policy)
            except InputError as error:
                raise InputError(f"resume: {error}; --force starts the run again") from None
            if network_shape(policy.state()) != network_shape(learner.state()):
                raise InputError(
                    f"resume: {path} is not this run's policy (its network differs from the "
                    "checkpoint's); --force starts the run again"
                )

    def write_evaluated(
        self, config: TrainConfig, loop: LoopState, policy: NumpyPolicy, info: dict[str, Any]
    ) -> None:
        """The files of the evaluation ``loop`` recorded last, of ``policy``: ``policy.npz``
        where it is the best so far, and with ``select_top`` above 1 its candidate's file, and
        only the candidates' files. Written after ``progress.json`` (the evaluation's record,
        with the checkpoint of ``policy``), so that the folder never holds the files of an
        evaluation its record does not know: an interrupted run resumed then wrote policy.npz
        from an evaluation it trained again, and removed a candidate its record still kept."""
        if loop.best_timesteps == loop.timesteps:
            save_policy(self.policy, policy, info)
        if config.select_top > 1:
            self.keep_candidate(config, loop, policy, info)

    def save_progress(self, loop: LoopState) -> None:
        data = dataclasses.asdict(loop)
        data["pool"] = [encode_policy(state) for state in loop.pool]
        write_json_atomic(self.progress, data)

    def load_progress(self) -> LoopState:
        try:
            data = json.loads(self.progress.read_text())
            data["pool"] = [decode_policy(state) for state in data["pool"]]
            loop = LoopState(**data)
            _check_loop_state(loop)
            return loop
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise InputError(
                f"resume: {self.progress} is damaged ({error}); --force starts the run again"
            ) from None

    def candidate(self, timesteps: int) -> Path:
        """The policy file of the candidate evaluated at ``timesteps`` (``select_top`` above
        1)."""
        return self.candidates_folder / f"{timesteps}.npz"

    @staticmethod
    def candidates(config: TrainConfig, loop: LoopState) -> list[tuple[int, float]]:
        """The ``select_top`` best periodic evaluations so far (the later first on a tie, as the
        periodic choice), as (timesteps, score), in the order of training."""
        scored = [(_selection_score(config, entry), entry["timesteps"]) for entry in loop.history]
        best = sorted(scored, reverse=True)[: config.select_top]
        return sorted((timesteps, score) for score, timesteps in best)

    def keep_candidate(
        self, config: TrainConfig, loop: LoopState, policy: NumpyPolicy, info: dict[str, Any]
    ) -> None:
        """Keep the policy just evaluated (the last of ``loop.history``) if it is among the
        candidates, and only the candidates' files."""
        kept = {timesteps for timesteps, _ in self.candidates(config, loop)}
        self.candidates_folder.mkdir(exist_ok=True)
        if loop.timesteps in kept:
            save_policy(self.candidate(loop.timesteps), policy, info)
        for path in self.candidates_folder.glob("*.npz"):
            if path.stem.isdigit() and int(path.stem) not in kept:
                path.unlink()

    @staticmethod
    def _league_summary(loop: LoopState) -> dict[str, Any] | None:
        """The league at the end of the run (decoded once from the loop's JSON), or None."""
        if loop.league is None:
            return None
        league = League.from_json(loop.league)
        return {
            "exploits": loop.exploits,
            "members": league.table(),
            "fair_share": round(league.fair(), 4),
            "exploiter_seconds": round(loop.league_seconds, 1),
        }

    def write_metrics(
        self, config: TrainConfig, loop: LoopState, final: dict[str, Any], timesteps: int
    ) -> dict[str, Any]:
        metrics = {
            "format": FORMAT_VERSION,
            "game": config.game,
            "settings": config.to_json(),
            "seed": config.seed,
            "timesteps": int(timesteps),
            "selected_timesteps": next(
                (row["timesteps"] for row in loop.selection or () if row["chosen"]),
                loop.best_timesteps,
            ),
            # with select_top above 1: each candidate's periodic and second evaluation
            "selection": loop.selection,
            "final_evaluation": final,
            "history": loop.history,
            "train_seconds": round(loop.train_seconds, 1),
            # CPU time of the learner and the samplers over the training loop's wall clock
            # (2.0: both cores busy all the time)
            "cpu_per_wall": round(loop.train_cpu_seconds / loop.train_seconds, 2)
            if loop.train_seconds
            else None,
            "samples_per_second": round(timesteps / loop.train_seconds, 1)
            if loop.train_seconds
            else None,
            # with a league: every exploiter's gain over the learner, the members at the end,
            # and the wall-clock the exploiters' training took (not in train_seconds)
            "league": self._league_summary(loop),
            # the file each opponent that plays one read (ppo:PATH, pretrained): path, sha256
            "opponent_files": loop.opponent_files,
            "versions": versions(),
            # the source training started from, and every stretch's (a resumed run has several)
            "git_commit": loop.sources[0] if loop.sources else None,
            "git_commits": loop.sources,
            "machine": machine(),
        }
        write_json_atomic(self.metrics, metrics)
        return metrics

    def write_curve(self, config: TrainConfig, loop: LoopState) -> None:
        from cardzoo.training.plots import learning_curve

        title = (
            f"{config.game} {full_params(config)}, training reward {config.reward}\n"
            f"periodic evaluations on deals {PERIODIC_EVAL_SEED:,}.. (they also choose the "
            "checkpoint; the final evaluation uses other deals)"
        )
        learning_curve(loop.history, self.curve, title=title)


def _check_loop_state(loop: LoopState) -> None:
    """The loop's saved state holds what the loop wrote: lists, counts and finite seconds."""
    if not isinstance(loop.history, list) or not all(isinstance(h, dict) for h in loop.history):
        raise ValueError("history must be a list of evaluations")
    for name in ("best_timesteps", "timesteps", "next_evaluation"):
        value = getattr(loop, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    seconds, best = loop.train_seconds, loop.best_score
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, (int, float))
        or not (math.isfinite(seconds) and seconds >= 0)
    ):
        raise ValueError(f"train_seconds must be a finite number >= 0, got {seconds!r}")
    if isinstance(best, bool) or not isinstance(best, (int, float)) or math.isnan(best):
        raise ValueError(f"best_score must be a number, got {best!r}")
    if not isinstance(loop.sources, list) or not all(
        source is None or isinstance(source, str) for source in loop.sources
    ):
        raise ValueError("sources must be a list of commits")
    files = loop.opponent_files
    if files is not None and not (
        isinstance(files, dict)
        and all(
            isinstance(file, dict)
            and all(isinstance(file.get(key), str) for key in ("path", "sha256"))
            for file in files.values()
        )
    ):
        raise ValueError("opponent_files must map agents to their file's path and sha256")


def network_shape(state: dict[str, Any]) -> tuple:
    """What a policy's network is, from its :meth:`~cardzoo.agents.policy.NumpyPolicy.state`:
    each layer's weight shape and activation, whether it has a head, and its core's kind. Two
    policies of one run have the same; weights aside, they play alike."""
    return (
        [(layer[0].shape, layer[2]) for layer in state["layers"]],
        state.get("head") is None,
        (state.get("core") or {}).get("kind"),
    )


def _check_pool_fits(loop: LoopState, policy: NumpyPolicy, where: Path) -> None:
    """A resumed run's self-play snapshots are of this run's network (progress files written
    before the ordinal head kept no head)."""
    shape = network_shape(policy.state())
    for state in loop.pool:
        if network_shape(state) != shape:
            raise InputError(
                f"resume: the self-play pool in {where} does not fit this run's policy "
                "(written by an older cardzoo?); --force starts the run again"
            )


def rounded_timesteps(config: TrainConfig, done: int) -> int:
    """The decisions a run (``config`` resolved) from ``done`` trains to: ``timesteps`` rounded
    up to whole rollouts (``n_envs`` games of ``n_steps`` decisions each), as the loop stops
    after the rollout that reaches it."""
    assert config.n_envs is not None and config.timesteps is not None  # resolved
    rollout = config.n_envs * config.n_steps
    return done + max(0, math.ceil((config.timesteps - done) / rollout)) * rollout


def _progress_bar(total: int, done: int):
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="step", desc="training", smoothing=0.1)


def report(result: TrainResult, advice: bool = True) -> str:
    """The run's final evaluation as a plain-text table, with where its files are, and with
    ``advice`` a line on how long a run takes to pass the best heuristic where it ended below
    (:func:`below_best_heuristic`; a best response of ``cardzoo exploit`` below its target's
    share measures the target, and gets none)."""
    metrics = result.metrics
    final = metrics["final_evaluation"]
    settings = metrics["settings"]
    game = run_game(TrainConfig.from_json(settings))
    n = game.num_players
    minutes = metrics["train_seconds"] / 60
    lines = [
        f"{metrics['game']} {game.params()}, training reward "
        f"{settings['reward']}: {metrics['timesteps']:,} steps in "
        f"{minutes:.1f} min of training ({metrics['samples_per_second']:,.0f} samples/s); "
        f"model selected at {metrics['selected_timesteps']:,} steps"
        + (
            f" (the best of its {len(metrics['selection'])} best checkpoints, evaluated again "
            f"on {metrics['selection'][0]['games']:,} games)"
            if metrics.get("selection")
            else ""
        ),
        f"final evaluation: {final['games']} games per line-up, mirrored deals, seats rotated, "
        "95% CIs",
    ]
    baseline = final["baseline_same_seat"]
    rows = [(f"learner + {n - 1} x {opponent}", against)
            for opponent, against in final["against"].items()]  # fmt: skip
    rows.append((f"{baseline['agent']} (same seat) + {n - 1} x itself", baseline))
    gain_label = f"gain over {baseline['agent']} (paired by deal)"
    width = max(43, *(len(label) for label, _ in rows), len(gain_label))  # long agent names
    lines.append(f"{'line-up':<{width + 1}}{'win rate':<24}mean score")
    for label, figures in rows:
        low, high = figures["win_rate_ci"]
        score_low, score_high = figures["mean_score_ci"]
        lines.append(
            f"{label:<{width}} {figures['win_rate']:.3f} [{low:.3f}, {high:.3f}]   "
            f"{figures['mean_score']:.2f} [{score_low:.2f}, {score_high:.2f}]"
        )
    if "gain" in final:  # metrics written before the gain was reported have none
        gain = final["gain"]
        low, high = gain["gain_ci"]
        lines.append(
            f"{gain_label:<{width}} {gain['gain']:+.3f} [{low:+.3f}, {high:+.3f}] {gain['measure']}"
        )
    league = metrics.get("league")
    if league:
        lines += _league_lines(league)
    folders = "tb/, league/" if (result.run_dir / "league").is_dir() else "tb/"
    lines.append(f"run folder: {result.run_dir} (policy.npz, metrics.json, {folders})")
    lines.append(f"learning curve: {result.run_dir / 'learning_curve.png'}")
    below = below_best_heuristic(metrics["game"], final) if advice else None
    return "\n".join(lines if below is None else [*lines, below])


def _league_lines(league: dict[str, Any]) -> list[str]:
    """A league run's report: its exploiters' gains over the learner (how exploitable it was as
    it trained) and the members it met most when it ended."""
    lines = []
    if league["exploits"]:
        gains = ", ".join(f"{exploit['gain']:+.3f}" for exploit in league["exploits"])
        lines.append(
            f"league: {len(league['exploits'])} exploiters "
            f"({league['exploiter_seconds'] / 60:.1f} min), each one's gain over the learner's "
            f"share: {gains}"
        )
    drawn = sorted(league["members"], key=lambda member: -member["weight"])[:3]
    lines.append(
        f"league: {len(league['members'])} members, the most drawn at the end "
        + ", ".join(f"{member['member']} {member['weight']:.2f}" for member in drawn)
    )
    return lines


def below_best_heuristic(game: str, final: dict[str, Any]) -> str | None:
    """One plain line when the learner ended below the game's best heuristic's own share (the
    fair share it has to beat; Foxy: its mean points), saying how long the learning benchmark
    took to pass it; None otherwise, and for evaluations against other agents."""
    agents = game_agents(game)
    baseline = final["baseline_same_seat"]
    if agents.best is None or baseline["agent"] != agents.best or "gain" not in final:
        return None
    measure = final["gain"]["measure"]
    reached, share = final["against"][agents.best][measure], baseline[measure]
    if reached >= share:
        return None
    shown = (lambda x: f"{x:.1f} points") if measure == "mean_score" else (lambda x: f"{x:.3f}")
    line = f"below {agents.best}'s own share ({shown(reached)} against {shown(share)}): "
    if agents.unbeaten is not None:
        longest = agents.unbeaten
        return line + (
            f"the learning benchmark's longest run ({longest.decisions:,} decisions, "
            f"{_minutes(longest.minutes)} of training on our 2-core machine) stayed below it too"
        )
    needed = GAME_DEFAULTS[game]["timesteps"]
    return line + (
        f"a run with the game's defaults passed it with {needed:,} decisions "
        f"({_minutes(agents.minutes)} of training on our 2-core machine); --resume with a larger "
        "--timesteps trains on"
    )


def _minutes(count: float) -> str:
    return f"{count:g} minute{'' if count == 1 else 's'}"
