"""benchmarks/tune.py: its first trial is the game's training defaults (what every best response
trains with), a trial is a best response scored on the trials' deals, and the report plays the
best trials and the defaults' once on the held-out deals and keeps those figures."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from cardzoo.training.config import best_response_config

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "tune.py"


@pytest.fixture
def tune(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("benchmarks_tune", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "RESULTS", tmp_path / "tuning_results.json")
    monkeypatch.setattr(module, "REPORT", tmp_path / "tuning.md")
    monkeypatch.setattr(module, "TRIAL_GAMES", 8)
    monkeypatch.setattr(module, "HELD_OUT_GAMES", 8)
    return module


@pytest.mark.parametrize(
    "game, agent",
    [("nobody_wants_it", "nwi_dodger"), ("minus_two", "attacker"), ("foxy", "random")],
)
def test_the_first_trial_is_the_games_training_defaults(tune, game, agent):
    config = best_response_config(game, agent, None, 1000, 0, 10, 0)
    resolved = config.resolved(build_agents=False)
    first = tune.defaults(game, agent)
    for name, value in tune.run_settings(first).items():
        assert getattr(resolved, name) == value or (name, value) == ("lr_schedule", "constant")
    # ... and a point of the search space (Optuna refuses a first trial outside it)
    trial = EnqueuedTrial(first)
    assert tune.suggest(trial, first) == first


class EnqueuedTrial:
    """What an Optuna trial does with settings enqueued for it (``make test`` has no Optuna: it
    is in the bench extra): each suggestion returns the enqueued value, which must lie in the
    space suggested; the spaces are kept, as ``trial.distributions``."""

    def __init__(self, values):
        self.values, self.spaces = values, {}

    def suggest_categorical(self, name, choices):
        assert self.values[name] in choices, (name, self.values[name], choices)
        self.spaces[name] = tuple(choices)
        return self.values[name]

    def suggest_float(self, name, low, high, log=False):
        assert low <= self.values[name] <= high, (name, self.values[name], low, high)
        self.spaces[name] = (low, high)
        return self.values[name]


def test_the_nobody_wants_it_search_space_is_the_one_the_report_searched(tune):
    first = tune.defaults("nobody_wants_it", "nwi_dodger")
    assert first["reward"] == "win+points" and first["points_scale"] == 0.05
    trial = EnqueuedTrial(first)  # its reward uses points: the scale is searched too
    tune.suggest(trial, first)
    assert trial.spaces["reward"] == ("win", "win+points")
    assert trial.spaces["points_scale"] == (0.01, 0.2)
    assert trial.spaces["gamma"] == (0.98, 0.99, 0.995, 1.0)
    assert trial.spaces["learning_rate"] == (1e-4, 1.5e-3)


def test_another_studys_results_are_refused_and_another_game_has_files_of_its_own(
    tune, tmp_path, monkeypatch
):
    import argparse

    args = argparse.Namespace(game="nobody_wants_it", agent="nwi_dodger", timesteps=1000)
    assert tune.study_files(args) == (tune.RESULTS, tune.REPORT)
    tune.RESULTS.write_text(json.dumps({**vars(args), "timesteps": 2000, "trials": []}))
    with pytest.raises(SystemExit, match="holds the search of nwi_dodger in nobody_wants_it at "
                       "2,000 decisions"):  # fmt: skip
        tune.read_results(args)
    other = argparse.Namespace(game="minus_two", agent="attacker", timesteps=1000, held_out=1)
    assert tune.study_files(other)[0].name == "tuning_results-minus_two-attacker.json"
    monkeypatch.setattr(tune, "HERE", tmp_path)
    with pytest.raises(SystemExit, match="no trial yet to report"):
        tune.report(other)


def test_a_trial_is_scored_on_its_deals_and_the_report_holds_out_the_best(tune, tmp_path):
    import argparse

    args = argparse.Namespace(game="nobody_wants_it", agent="nwi_dodger", timesteps=2048,
                              runs=tmp_path / "runs", held_out=1)  # fmt: skip
    small = {
        **tune.defaults("nobody_wants_it", "nwi_dodger"),
        "n_envs": 16,
        "n_steps": 32,
        "batch_size": 256,
    }
    lines = [tune.run_trial(args, number, small) for number in (0, 1)]
    summary = json.loads((Path(lines[0]["run"]) / "exploit.json").read_text())
    assert summary["eval_seed"] == tune.TRIAL_SEED and summary["games"] == 8
    assert lines[0]["score"] == summary["best_response"]
    lines[1]["score"] = 1.0  # the best by score: held out with the defaults' trial
    lines.append({**lines[1], "trial": 2, "score": 0.5})  # neither: not played again
    record = {"game": args.game, "agent": args.agent, "timesteps": 2048}
    tune.RESULTS.write_text(json.dumps({**record, "trials": lines}))
    tune.report(args)
    saved = {line["trial"]: line for line in json.loads(tune.RESULTS.read_text())["trials"]}
    assert "held_out" in saved[0] and "held_out" in saved[1] and "held_out" not in saved[2]
    table = [line for line in tune.REPORT.read_text().splitlines() if line.startswith("| ")]
    assert [row.split("|")[1].strip() for row in table[2:]] == ["1", "2", "0 (defaults)"]
    saved[1]["held_out"]["win_rate"] = 0.123  # a figure once measured is kept, not replayed
    tune.RESULTS.write_text(json.dumps({**record, "trials": list(saved.values())}))
    tune.report(args)
    assert "| 1 | 1.000 | 0.123 [" in tune.REPORT.read_text()


def test_long_runs_train_the_best_trials_and_the_defaults_again(tune, tmp_path, monkeypatch):
    import argparse

    monkeypatch.setattr(tune, "LONG_EVAL_EVERY", 1024)
    args = argparse.Namespace(game="nobody_wants_it", agent="nwi_dodger", timesteps=1024,
                              runs=tmp_path / "runs", held_out=1, long=1,
                              long_timesteps=2048)  # fmt: skip
    small = {
        **tune.defaults("nobody_wants_it", "nwi_dodger"),
        "n_envs": 16,
        "n_steps": 32,
        "batch_size": 256,
    }
    trials = [{"trial": n, "settings": small, "score": score, "score_ci": [0, 1],
               "train_seconds": 1.0, "run": str(tmp_path / f"trial-{n}")}
              for n, score in ((0, 0.2), (1, 0.5), (2, 0.4))]  # fmt: skip
    tune.RESULTS.write_text(json.dumps({"game": args.game, "agent": args.agent,
                                        "timesteps": 1024, "trials": trials}))  # fmt: skip
    tune.long_runs(args)
    long = json.loads(tune.RESULTS.read_text())["long"]
    assert [line["trial"] for line in long] == [1, 0]
    summary = json.loads((Path(long[0]["run"]) / "exploit.json").read_text())
    assert summary["timesteps"] >= 2048 and summary["eval_seed"] == tune.TRIAL_SEED
    tune.long_runs(args)  # done: nothing trained again
    assert len(json.loads(tune.RESULTS.read_text())["long"]) == 2
    tune.report(args)
    long = {line["trial"]: line for line in json.loads(tune.RESULTS.read_text())["long"]}
    assert "held_out" in long[0] and "held_out" in long[1]
    assert "## The best settings trained longer" in tune.REPORT.read_text()
