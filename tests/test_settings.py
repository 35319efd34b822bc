"""Each training setting declared once (``cardzoo/training/config.py``): a refused one names itself
as data, the command names its option, the docs' tables are the declaration's, an old run folder
resumes, each game's default budget is what ``--help`` says, and a run that ends below the best
heuristic says so."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")

from cardzoo.agents.profiles import PROFILES  # noqa: E402
from cardzoo.cli import main  # noqa: E402
from cardzoo.cli.train import DOC_TABLES, rewrite_tables  # noqa: E402
from cardzoo.errors import SettingError  # noqa: E402
from cardzoo.training import config as config_module  # noqa: E402
from cardzoo.training.config import GAME_DEFAULTS, SETTINGS, TrainConfig  # noqa: E402
from cardzoo.training.ppo import TrainResult, below_best_heuristic, report, train  # noqa: E402
from cardzoo.training.settings import RewardMode  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRAINING_DOC = ROOT / "docs" / "training.md"

#: config.json of a small Minus Two run as cardzoo wrote it before the settings had one
#: declaration (commit 5b0425f): the game's defaults of that day filled in (one sampling
#: process, minibatches of 512, a constant rate, no PPO clipping settings of its own)
OLD_CONFIG = {
    "game": "minus_two", "params": {}, "opponents": "attacker:0.5,high_cards:0.2,self:0.3",
    "timesteps": 128, "seed": 0, "n_envs": 2, "processes": 1, "reward": "win+points",
    "points_scale": 0.005, "frame_stack": 1, "stack_fields": [], "eval_every": 64,
    "eval_games": 4, "final_eval_games": 4, "eval_opponents": [], "final_eval_seed": 2000000,
    "pool_size": 10, "league": False, "pfsp_power": 2.0, "exploiter_every": 0,
    "exploiter_timesteps": 200000, "learning_rate": 0.0003, "lr_schedule": "constant",
    "n_steps": 64, "batch_size": 512, "n_epochs": 8, "gamma": 0.995, "gae_lambda": 0.95,
    "ent_coef": 0.01, "net_arch": [128, 128], "head": "linear", "activation": "tanh",
    "memory": "none", "memory_size": 64, "play": "greedy",
}  # fmt: skip


@pytest.fixture(scope="module")
def old_run(tmp_path_factory) -> Path:
    """A finished run whose config.json is the one cardzoo wrote before."""
    run = tmp_path_factory.mktemp("runs") / "m2"
    train(TrainConfig.from_json(OLD_CONFIG), run, progress=False)
    (run / "config.json").write_text(json.dumps(OLD_CONFIG))
    return run


# --- a refused setting names itself -------------------------------------------------------------


@pytest.mark.parametrize(
    "config, setting",
    [
        (TrainConfig("nobody_wants_it", frame_stack=0), "frame_stack"),
        (TrainConfig("nobody_wants_it", timesteps=10**11), "timesteps"),
        (TrainConfig("foxy", memory="gru", frame_stack=2), "memory"),
        (TrainConfig("nobody_wants_it", n_envs=4, processes=8), "processes"),
        (TrainConfig("believe_it_or_not", reward="points"), "reward"),
        (TrainConfig("nobody_wants_it", opponents="nobody"), "opponents"),
        (TrainConfig("nobody_wants_it", head="ordinal"), "head"),
        (TrainConfig("nobody_wants_it", exploiter_every=10), "exploiter_every"),
        (TrainConfig("nobody_wants_it", params={"reward": "points"}), "params"),
        (TrainConfig("nobody_wants_it", stack_fields=("card",)), "stack_fields"),
        (TrainConfig("nobody_wants_it", eval_opponents=("nobody",)), "eval_opponents"),
        (TrainConfig("henhouse"), "game"),
    ],
)
def test_a_refused_setting_names_itself_as_data(config, setting):
    with pytest.raises(SettingError) as refused:
        config.resolved()
    assert refused.value.setting == setting
    assert str(refused.value) == f"{setting}: {refused.value.reason}"


@pytest.mark.parametrize(
    "setting, value, reason",
    [
        ("gamma", 5.0, "must be a finite number >= 0 and <= 1, got 5.0"),
        ("gae_lambda", 1.5, "must be a finite number >= 0 and <= 1, got 1.5"),
        ("learning_rate", 0.0, "must be a finite number > 0, got 0.0"),
        ("clip_range", 0, "must be a finite number > 0, got 0"),
        ("max_grad_norm", -1.0, "must be a finite number > 0, got -1.0"),
        ("seed", 2**64, "18,446,744,073,709,551,616 is out of range; allowed "
                        "0..18,446,744,073,709,551,615"),
    ],
)  # fmt: skip
def test_a_setting_that_would_break_the_run_later_is_refused_before_it(setting, value, reason):
    """A discount of 5 trained until the weights were NaN, then failed in a sampling process
    saying an agent had no legal action; a seed of 2**64 failed in torch with a traceback."""
    with pytest.raises(SettingError) as refused:
        TrainConfig("nobody_wants_it", **{setting: value}).resolved()
    assert (refused.value.setting, refused.value.reason) == (setting, reason)


def test_the_bounds_of_the_ppo_settings_hold_their_edges():
    edges = {"gamma": 1.0, "gae_lambda": 0.0, "learning_rate": 1e-9, "seed": 2**64 - 1}
    assert TrainConfig("nobody_wants_it", **edges).resolved().gamma == 1.0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "believe_it_or_not", "--reward", "points"], "--reward: believe_it_or_not has"),
        (["train", "nobody_wants_it", "--param", "reward=points"], "--param: the game's reward"),
        (["train", "henhouse"], "GAME: henhouse has no decisions to learn"),
        (["train", "foxy", "--memory", "gru", "--frame-stack", "2"], "--memory: a gru core"),
        (["train", "nobody_wants_it", "--n-envs", "2", "--processes", "3"], "--processes: at"),
        (["train", "nobody_wants_it", "--exploiter-every", "5"], "--exploiter-every: exploiters"),
        (
            [
                "train",
                "nobody_wants_it",
                "--league",
                "--opponents",
                "self",
                "--exploiter-every",
                "3000",
                "--eval-every",
                "10000",
            ],
            "--exploiter-every: 3,000 is below --eval-every (10,000): an exploiter falls due at "
            "an evaluation, so one at most each; give 10,000 or more",
        ),
        (["exploit", "nobody_wants_it", "random", "--eval-games", "0"], "--eval-games: 0 is out"),
        (["exploit", "nobody_wants_it", "nobody"], "AGENT: unknown agent 'nobody'"),
    ],
)
def test_the_command_names_the_option_a_refused_setting_came_from(argv, message, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo: error: {message}"), err
    assert err.count("\n") == 1
    assert not (tmp_path / "run").exists()


# --- one declaration, read everywhere -----------------------------------------------------------


def _between(text: str, name: str) -> str:
    found = re.search(rf"<!-- {name} start -->\n(.*?)\n<!-- {name} end -->", text, re.DOTALL)
    assert found, f"docs/training.md has no <!-- {name} start/end --> markers"
    return found[1]


@pytest.mark.parametrize("name", list(DOC_TABLES))
def test_each_table_of_the_training_docs_is_built_from_the_declarations(name):
    """Rebuild them with ``python -c "from cardzoo.cli.train import rewrite_tables;
    rewrite_tables('docs/training.md')"``."""
    assert _between(TRAINING_DOC.read_text(), name) == DOC_TABLES[name]()


def test_the_options_table_lists_every_option_of_cardzoo_train_with_its_help(capsys):
    assert main(["train", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    table = _between(TRAINING_DOC.read_text(), "options")
    for declared in SETTINGS:
        if declared.option:
            assert f"| `{declared.flag}" in table
            assert declared.help in table and declared.help in help_text


def test_rewriting_the_tables_touches_only_what_lies_between_their_markers(tmp_path):
    page = tmp_path / "page.md"
    marked = "".join(f"<!-- {name} start -->\nSTALE\n<!-- {name} end -->\n" for name in DOC_TABLES)
    page.write_text("# Before\n" + marked + "After\n")
    rewrite_tables(str(page))
    text = page.read_text()
    assert text.startswith("# Before\n") and text.endswith("After\n") and "STALE" not in text
    for name, table in DOC_TABLES.items():
        assert _between(text, name) == table()


def test_every_game_s_training_defaults_pass_the_settings_checks():
    for game in GAME_DEFAULTS:
        resolved = TrainConfig(game).resolved()
        for name, value in GAME_DEFAULTS[game].items():
            if name == "hold_special" and 0 < value < 1:  # a share of the run's decisions
                assert resolved.hold_special == int(value * resolved.timesteps)
            elif name != "params":
                assert getattr(resolved, name) == value


def test_the_reward_mode_is_one_type_written_by_its_name():
    resolved = TrainConfig("nobody_wants_it", reward="win+points").resolved(build_agents=False)
    assert resolved.reward is RewardMode.WIN_POINTS
    assert resolved.to_json()["reward"] == "win+points"
    assert TrainConfig.from_json(resolved.to_json()).reward is RewardMode.WIN_POINTS


def test_a_setting_a_game_does_not_declare_is_refused_by_name(monkeypatch):
    monkeypatch.setitem(PROFILES["foxy"].training, "learning_rat", 0.1)
    with pytest.raises(TypeError, match="learning_rat"):
        config_module.game_defaults("foxy")


# --- old runs ----------------------------------------------------------------------------------


def test_a_run_folder_written_before_resumes_with_its_own_settings(old_run, tmp_path, monkeypatch):
    """The game's defaults have changed since (its minibatches, processes, rate, epochs): the
    resumed run keeps the ones it started with."""
    run = tmp_path / "m2"
    shutil.copytree(old_run, run)
    changed = {**GAME_DEFAULTS["minus_two"], "n_epochs": 3, "batch_size": 64, "processes": 2}
    monkeypatch.setitem(GAME_DEFAULTS, "minus_two", changed)
    argv = ["train", "minus_two", "--resume", "--timesteps", "256", "--quiet", "--out", str(run)]
    assert main(argv) == 0
    settings = json.loads((run / "metrics.json").read_text())["settings"]
    assert settings["timesteps"] == 256
    for name in ("n_envs", "processes", "batch_size", "n_epochs", "lr_schedule", "net_arch"):
        assert settings[name] == OLD_CONFIG[name], name


# --- each game's default budget ----------------------------------------------------------------

#: the default budgets chosen so that a first run passes the best heuristic's own share
#: (Foxy's never does: see benchmarks/learning.md)
BUDGETS = {
    "nobody_wants_it": 300_000,
    "believe_it_or_not": 2_000_000,
    "minus_two": 3_000_000,
    "foxy": 3_000_000,
}


def test_each_game_trains_its_default_budget_and_help_says_how_long_it_takes(capsys):
    assert main(["train", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    for game, budget in BUDGETS.items():
        assert TrainConfig(game).resolved(build_agents=False).timesteps == budget
        minutes = PROFILES[game].minutes
        assert minutes > 0
        assert f"{game} {budget:,}, {minutes:g} min" in help_text
    assert "a machine three times slower takes three times as long" in help_text


# --- a run below the best heuristic ------------------------------------------------------------


def _with_learner_at(metrics: dict, rate: float) -> dict:
    changed = copy.deepcopy(metrics)
    changed["final_evaluation"]["against"]["attacker"]["win_rate"] = rate
    return changed


def test_a_run_that_ends_below_the_best_heuristic_says_so_in_one_line(old_run):
    metrics = json.loads((old_run / "metrics.json").read_text())
    share = metrics["final_evaluation"]["baseline_same_seat"]["win_rate"]
    below = report(TrainResult(old_run, _with_learner_at(metrics, share - 0.01))).splitlines()
    assert below[-1].startswith(f"below attacker's own share ({share - 0.01:.3f} against")
    minutes = PROFILES["minus_two"].minutes
    assert f"passed it with {BUDGETS['minus_two']:,} decisions ({minutes:g} minutes" in below[-1]
    above = report(TrainResult(old_run, _with_learner_at(metrics, share))).splitlines()
    assert above[-1].startswith("learning curve:")


def test_foxy_below_its_best_heuristic_names_the_benchmark_s_longest_run():
    final = {
        "against": {"perfect_memory": {"mean_score": 80.0}},
        "baseline_same_seat": {"agent": "perfect_memory", "mean_score": 116.5},
        "gain": {"measure": "mean_score"},
    }
    line = below_best_heuristic("foxy", final)
    longest = PROFILES["foxy"].unbeaten
    assert longest is not None
    assert line == (
        "below perfect_memory's own share (80.0 points against 116.5 points): the learning "
        f"benchmark's longest run ({longest.decisions:,} decisions, {longest.minutes:g} "
        "minutes of training on our 2-core machine) stayed below it too"
    )


def test_a_run_against_another_agent_than_the_best_heuristic_says_nothing_of_it():
    final = {
        "against": {"random": {"win_rate": 0.1}},
        "baseline_same_seat": {"agent": "random", "win_rate": 0.25},
        "gain": {"measure": "win_rate"},
    }
    assert below_best_heuristic("nobody_wants_it", final) is None


def test_an_exploit_run_resumes_with_its_own_settings_when_the_game_s_defaults_change(
    tmp_path, monkeypatch
):
    from cardzoo.training.exploit import exploit

    tiny = dict(n_envs=2, eval_every=64, eval_games=4, progress=False)
    run = tmp_path / "exploit"
    exploit("nobody_wants_it", "random", run, timesteps=128, **tiny)
    changed = {**GAME_DEFAULTS["nobody_wants_it"], "n_epochs": 3, "batch_size": 64}
    monkeypatch.setitem(GAME_DEFAULTS, "nobody_wants_it", changed)
    result = exploit("nobody_wants_it", "random", run, timesteps=256, resume=True, **tiny)
    assert result.summary["timesteps"] == 256
    assert (result.metrics["settings"]["n_epochs"], result.metrics["settings"]["batch_size"]) == (
        8,
        512,
    )


def test_hold_special_reads_whole_decisions_or_a_share_of_the_run():
    from cardzoo.training.settings import StepsOrShare

    kind = StepsOrShare(10**10)
    assert kind.parse("3000000") == 3_000_000 and isinstance(kind.parse("3e6"), int)
    assert kind.parse("0.5") == 0.5
    assert (kind.show(0.5), kind.show(1_500_000)) == ("0.5 of the run", "1,500,000")
