"""Is it the hyperparameters? A search over the trainer's settings for one best response.

Nobody Wants It's learners level off near 0.38 against three ``nwi_dodger``, below the issue's
0.40, whatever was changed by hand (``learning.md``: longer runs, larger networks, a memory, other
rewards and rates). This searches the settings those pilots did not: Optuna's TPE sampler (a
Bayesian search that proposes each trial from the results of the trials before it) over the
learning rate and its schedule, the rollout's shape, the minibatch, the epochs, the discount,
GAE's lambda, the entropy bonus, the clipping, the reward and the network. Each trial is
:func:`cardzoo.training.exploit.exploit`: a fresh best response of ``--timesteps`` decisions
(training seed 0) against three copies of ``--agent``, scored by its win rate on 1,000 mirrored
games on the deals from :data:`TRIAL_SEED`. The first trial is the game's training defaults,
which every exploit and league exploiter uses.

A short budget favours settings that learn fast, and the best responses of the defaults rose
until about 12M decisions; so ``--long K`` trains the K best trials' settings and the defaults
again for ``--long-timesteps`` (default 16M), each choosing its checkpoint on its periodic
evaluations as ``cardzoo exploit`` does, and scores them on the trials' deals.

The scores choose; they are not results (the best of many noisy scores is lucky). The report
plays the ``--held-out`` best trials, the best long run and the defaults' trial and long run
again, once, on 2,000 games on the deals from :data:`HELD_OUT_SEED`, a range written down before
the search's first run (``DEALS.md``) and used for nothing else.

    pip install optuna                                   # in the bench extra (make bench)
    python benchmarks/tune.py --trials 40                # resumes: run it again to go on
    python benchmarks/tune.py --trials 40 --long 4       # then 16M runs of the 4 best and defaults
    python benchmarks/tune.py --report                   # held-out games, tuning.md
    python benchmarks/tune.py --game minus_two --agent attacker --trials 20   # another study

Another game or agent is a study of its own: its first trial is that game's defaults, the
search space is widened where needed to hold them, and its results and report are
``tuning_results-GAME-AGENT.json`` and ``tuning-GAME-AGENT.md`` (trials under
``runs/tune-GAME-AGENT``). A results file of another budget is refused, not added to.

Every trial is a run folder under ``--runs`` (``trial-N``) and a line of
``tuning_results.json``, written as it ends; Optuna's own record (its journal file) lies beside
the trials, so a search that is stopped goes on where it stopped (a trial cut off is run again
under a new number).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from cardzoo.envs import load_game
from cardzoo.evaluation import play_match
from cardzoo.io import write_bytes_atomic, write_json_atomic
from cardzoo.training.config import best_response_config
from cardzoo.training.exploit import REPORT_FILE, exploit

HERE = Path(__file__).parent
RESULTS = HERE / "tuning_results.json"
REPORT = HERE / "tuning.md"
#: the deals the trials are scored on (selection) and the deals of the report (held out): both
#: written down in DEALS.md before the first trial
TRIAL_SEED = 12_000_000
TRIAL_GAMES = 1000
HELD_OUT_SEED = 13_000_000
HELD_OUT_GAMES = 2000
#: the long runs' periodic evaluations (they choose the checkpoint, on the trainer's own deals)
LONG_EVAL_EVERY = 1_000_000
#: the settings searched, in the report's order
SEARCHED = ("learning_rate", "lr_schedule", "n_steps", "n_envs", "batch_size", "n_epochs", "gamma",
            "gae_lambda", "ent_coef", "clip_range", "reward", "points_scale", "net_arch",
            "activation")  # fmt: skip
#: the study the report files beside this script hold (another game's or agent's get their own)
FIRST_STUDY = ("nobody_wants_it", "nwi_dodger")


def defaults(game: str, agent: str) -> dict[str, Any]:
    """The searched settings as the game's training defaults give them to a best response to
    ``agent`` (the first trial): what every ``cardzoo exploit`` and league exploiter trains with."""
    resolved = best_response_config(game, agent, None, 1, 0, 1, 0).resolved(build_agents=False)
    settings = {name: getattr(resolved, name) for name in SEARCHED}
    settings["lr_schedule"] = settings["lr_schedule"] or "constant"
    settings["reward"] = str(getattr(settings["reward"], "value", settings["reward"]))
    settings["net_arch"] = ",".join(str(size) for size in settings["net_arch"])
    return settings


def suggest(trial: Any, first: dict[str, Any]) -> dict[str, Any]:
    """One trial's settings: the search space, widened to hold the game's defaults ``first``
    (the first trial's settings must be a point of it)."""

    def choice(name: str, values: list[Any]) -> Any:
        return trial.suggest_categorical(name, list(dict.fromkeys([*values, first[name]])))

    def span(name: str, low: float, high: float) -> float:
        low, high = min(low, first[name]), max(high, first[name])
        return trial.suggest_float(name, low, high, log=True)

    settings = {
        "learning_rate": span("learning_rate", 1e-4, 1.5e-3),
        "lr_schedule": choice("lr_schedule", ["constant", "linear"]),
        "n_steps": choice("n_steps", [32, 64, 128]),
        "n_envs": choice("n_envs", [64, 128, 256]),
        "batch_size": choice("batch_size", [256, 512, 1024, 2048]),
        "n_epochs": choice("n_epochs", [2, 4, 8]),
        "gamma": choice("gamma", [0.98, 0.99, 0.995, 1.0]),
        "gae_lambda": choice("gae_lambda", [0.9, 0.95, 0.98]),
        "ent_coef": span("ent_coef", 1e-4, 3e-2),
        "clip_range": choice("clip_range", [0.1, 0.2, 0.3]),
        "reward": choice("reward", ["win"]),
        "net_arch": choice("net_arch", ["128,128", "256,256", "128,128,128"]),
        "activation": choice("activation", ["tanh", "relu"]),
    }
    if settings["reward"] != "win":  # a reward of points or score: its scale
        settings["points_scale"] = span("points_scale", 0.01, 0.2)
    return settings


def study_files(args: argparse.Namespace) -> tuple[Path, Path]:
    """The results and report files of the study ``args`` names: :data:`RESULTS` and
    :data:`REPORT` for :data:`FIRST_STUDY`, files of their own for another game or agent."""
    if (args.game, args.agent) == FIRST_STUDY:
        return RESULTS, REPORT
    tag = f"{args.game}-{args.agent}"
    return HERE / f"tuning_results-{tag}.json", HERE / f"tuning-{tag}.md"


def read_results(args: argparse.Namespace) -> dict[str, Any]:
    """The study's results so far (none: a new study); a file that holds another study (another
    budget) is refused before any work."""
    results_file = study_files(args)[0]
    if not results_file.exists():
        return {"trials": []}
    results = json.loads(results_file.read_text())
    study = (args.game, args.agent, args.timesteps)
    held = (results.get("game"), results.get("agent"), results.get("timesteps"))
    if None not in held and held != study:
        raise SystemExit(
            f"{results_file} holds the search of {held[1]} in {held[0]} at {held[2]:,} "
            f"decisions a trial, not this one ({args.agent} in {args.game} at "
            f"{args.timesteps:,}): move it away first"
        )
    return results


def run_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A trial's settings as the trainer takes them."""
    sizes = tuple(int(size) for size in settings["net_arch"].split(","))
    return {**settings, "net_arch": sizes}


def run_trial(args: argparse.Namespace, number: int, settings: dict[str, Any]) -> dict[str, Any]:
    """Train and score one trial (one evaluation, at its end); its line of the results."""
    return train_and_score(args, "trial", number, settings, args.timesteps, args.timesteps)


def run_long(args: argparse.Namespace, line: dict[str, Any]) -> dict[str, Any]:
    """A trial's settings trained again for ``--long-timesteps``, its checkpoint chosen by the
    periodic evaluations (every :data:`LONG_EVAL_EVERY`, on the trainer's own deals) as
    ``cardzoo exploit`` chooses it, then scored on the trials' deals."""
    return train_and_score(
        args, "long", line["trial"], line["settings"], args.long_timesteps, LONG_EVAL_EVERY
    )


def train_and_score(
    args: argparse.Namespace,
    kind: str,
    number: int,
    settings: dict[str, Any],
    timesteps: int,
    every: int,
) -> dict[str, Any]:
    """A best response of ``timesteps`` decisions in the run folder ``KIND-NUMBER`` under
    ``--runs``, scored on :data:`TRIAL_GAMES` games from :data:`TRIAL_SEED`; its line of the
    results (``number``: the trial whose settings it trains)."""
    folder = args.runs / f"{kind}-{number}"
    result = exploit(
        args.game,
        args.agent,
        folder,
        timesteps=timesteps,
        eval_games=TRIAL_GAMES,
        eval_seed=TRIAL_SEED,
        force=True,  # a run cut off leaves its folder: it starts anew
        progress=False,
        eval_every=every,
        **run_settings(settings),
    )
    summary = result.summary
    return {
        "trial": number,
        "settings": settings,
        "score": summary["best_response"],
        "score_ci": summary["best_response_ci"],
        "train_seconds": summary["train_seconds"],
        "run": str(folder),
    }


def long_runs(args: argparse.Namespace) -> None:
    """The ``--long`` best trials by score, and the defaults' (trial 0), each trained again for
    ``--long-timesteps`` (those not done yet), recorded as each ends."""
    results_file = study_files(args)[0]
    results = read_results(args)
    done = {line["trial"] for line in results.setdefault("long", [])}
    best = sorted(results["trials"], key=lambda line: -line["score"])[: args.long]
    for line in [*best, *[t for t in results["trials"] if t["trial"] == 0 and t not in best]]:
        if line["trial"] in done:
            continue
        started = time.time()
        results["long"].append(run_long(args, line))
        results["long_timesteps"] = args.long_timesteps
        write_json_atomic(results_file, results)
        print(f"long {line['trial']}: {results['long'][-1]['score']:.3f} in "
              f"{time.time() - started:.0f} s", flush=True)  # fmt: skip


def search(args: argparse.Namespace) -> None:
    """Run trials until ``--trials`` have finished, recording each as it ends."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    results_file = study_files(args)[0]
    results = read_results(args)
    args.runs.mkdir(parents=True, exist_ok=True)
    storage = JournalStorage(JournalFileBackend(str(args.runs / "optuna.journal")))
    study = optuna.create_study(
        study_name=f"{args.game}-{args.agent}-{args.timesteps}",
        storage=storage,
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=0, n_startup_trials=10),
        load_if_exists=True,
    )
    first = defaults(args.game, args.agent)
    if not study.trials:
        study.enqueue_trial(first)
    results.update(game=args.game, agent=args.agent, timesteps=args.timesteps)
    while sum(t.state.name == "COMPLETE" for t in study.trials) < args.trials:
        trial = study.ask()
        settings = suggest(trial, first)
        started = time.time()
        line = run_trial(args, trial.number, settings)
        study.tell(trial, line["score"])
        results["trials"].append(line)
        write_json_atomic(results_file, results)
        print(f"trial {trial.number}: {line['score']:.3f} in {time.time() - started:.0f} s "
              f"{settings}", flush=True)  # fmt: skip


def held_out(args: argparse.Namespace, line: dict[str, Any]) -> dict[str, Any]:
    """A trial's best response against three copies of the agent on the held-out deals."""
    spec = f"ppo:{line['run']}"
    others = [args.agent] * (load_game(args.game).num_players - 1)
    played = play_match(args.game, [spec, *others], HELD_OUT_GAMES, HELD_OUT_SEED)
    summary = played.agents[spec].summary()
    return {"win_rate": summary["win_rate"], "ci": summary["win_rate_ci"]}


def report(args: argparse.Namespace) -> None:
    """Play on the held-out deals the ``--held-out`` best trials, the best long run, and the
    defaults' trial and long run (once each: a run measured there keeps its figure), then write
    the report."""
    results_file, report_file = study_files(args)
    results = read_results(args)
    if not results["trials"]:
        raise SystemExit(f"{results_file}: no trial yet to report; run the search first")
    for part, count in (("trials", args.held_out), ("long", 1)):
        lines = sorted(results.get(part, []), key=lambda line: -line["score"])
        for line in lines[:count] + [t for t in lines[count:] if t["trial"] == 0]:
            if "held_out" not in line and (Path(line["run"]) / REPORT_FILE).exists():
                line["held_out"] = held_out(args, line)
                write_json_atomic(results_file, results)
    write_bytes_atomic(report_file, markdown(results).encode())
    print(f"wrote {report_file}")


def table(lines: list[dict[str, Any]]) -> list[str]:
    """Runs by score, with their settings and held-out figures where measured."""
    names = list(SEARCHED)
    head = ["trial", f"score ({TRIAL_GAMES:,} games)", f"held out ({HELD_OUT_GAMES:,} games)",
            "minutes", *names]  # fmt: skip
    rows = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for line in sorted(lines, key=lambda line: -line["score"]):
        held = line.get("held_out")
        cells = [
            str(line["trial"]) + (" (defaults)" if line["trial"] == 0 else ""),
            f"{line['score']:.3f}",
            f"{held['win_rate']:.3f} [{held['ci'][0]:.3f}, {held['ci'][1]:.3f}]" if held else "",
            f"{line['train_seconds'] / 60:.1f}",
        ]
        for name in names:
            value = line["settings"].get(name, "")
            cells.append(f"{value:.3g}" if isinstance(value, float) else str(value))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def markdown(results: dict[str, Any]) -> str:
    """The report: every trial by score, then the long runs, the held-out figures where
    measured."""
    text = [
        "# Hyperparameter search: a best response to three "
        f"`{results['agent']}` in `{results['game']}`",
        "",
        "Written by `benchmarks/tune.py` (its docstring says how). Each trial trains a best "
        f"response of {results['timesteps']:,} decisions (seed 0) with the settings of its row "
        "and is scored by its win rate against three copies of the agent on "
        f"{TRIAL_GAMES:,} mirrored games on the deals from {TRIAL_SEED:,} (selection). The "
        f"best trials and the defaults' are played again on {HELD_OUT_GAMES:,} games on the "
        f"deals from {HELD_OUT_SEED:,}, written down before the first trial (held out; 95% "
        "CIs). Minutes: training on 2 cores, shared with other work for some trials.",
        "",
        *table(results["trials"]),
        "",
    ]
    if results.get("long"):
        text += [
            "## The best settings trained longer",
            "",
            f"The best trials' settings and the defaults trained again for "
            f"{results['long_timesteps']:,} decisions (seed 0), the checkpoint chosen by "
            f"periodic evaluations every {LONG_EVAL_EVERY:,} decisions (400 games, the "
            "trainer's own deals), scored on the trials' deals; the best of them by that score "
            "and the defaults' played again on the held-out deals.",
            "",
            *table(results["long"]),
            "",
        ]
    return "\n".join(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="nobody_wants_it")
    parser.add_argument("--agent", default="nwi_dodger")
    parser.add_argument("--timesteps", type=int, default=2_000_000)
    parser.add_argument("--trials", type=int, default=40, help="trials to finish in all")
    parser.add_argument(
        "--runs", type=Path, help="the trials' folders (default runs/tune, another study's "
        "runs/tune-GAME-AGENT)",
    )  # fmt: skip
    parser.add_argument("--held-out", type=int, default=3, help="best trials played held out")
    parser.add_argument("--long", type=int, default=0, help="best trials trained again, longer")
    parser.add_argument("--long-timesteps", type=int, default=16_000_000)
    parser.add_argument("--report", action="store_true", help="only the held-out games, report")
    args = parser.parse_args()
    if args.runs is None:
        first = (args.game, args.agent) == FIRST_STUDY
        args.runs = Path("runs/tune" if first else f"runs/tune-{args.game}-{args.agent}")
    read_results(args)  # another study's file: refused before any work
    if not args.report:
        search(args)
        if args.long:
            long_runs(args)
    report(args)


if __name__ == "__main__":
    main()
