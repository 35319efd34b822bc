"""Training: the run folder, loading a policy as an agent, resuming, the sampling workers.

The learning runs themselves are benchmarks (benchmarks/learning.py); these tests train a few
thousand steps and check that everything a user relies on works.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

pytest.importorskip("torch")
import torch  # noqa: E402
from tiny_runs import TINY, interrupted_at_the_second_call  # noqa: E402

from cardzoo.agents import make_agent  # noqa: E402
from cardzoo.agents.policy import NumpyPolicy, ObservationScaler, PolicyAgent  # noqa: E402
from cardzoo.cli import main  # noqa: E402
from cardzoo.envs import foxy_v0, minus_two_v0, nobody_wants_it_v0  # noqa: E402
from cardzoo.errors import SettingError  # noqa: E402
from cardzoo.evaluation import play_match  # noqa: E402
from cardzoo.training import ppo  # noqa: E402
from cardzoo.training.ppo import TrainConfig, train  # noqa: E402
from cardzoo.training.sampler import (  # noqa: E402
    OpponentMix,
    Sampler,
    SamplerConfig,
    SamplerWorker,
    parse_mix,
    rollout_shapes,
)
from cardzoo.training.settings import RewardMode  # noqa: E402

torch.set_num_threads(1)


def tiny(game: str = "nobody_wants_it", **changes) -> TrainConfig:
    return TrainConfig(game, **{**TINY, **changes})


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "nwi"
    return train(tiny(), out, progress=False)


# --- the run folder ---------------------------------------------------------------------------


def test_a_run_folder_holds_model_metrics_curve_checkpoint_and_logs(finished_run):
    folder = finished_run.run_dir
    for name in ("policy.npz", "checkpoint.pt", "progress.json", "metrics.json", "config.json"):
        assert (folder / name).is_file(), name
    assert (folder / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert any((folder / "tb").rglob("events.out.tfevents.*"))
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["game"] == "nobody_wants_it"
    assert metrics["timesteps"] == 1024
    assert metrics["seed"] == 0
    assert metrics["versions"]["torch"]
    assert metrics["samples_per_second"] > 0
    assert len(metrics["history"]) == 2  # an evaluation every 512 steps


def test_timesteps_are_rounded_up_to_whole_rollouts_and_the_progress_bar_says_so(
    tmp_path, monkeypatch
):
    """A run asked for 600 decisions trains two rollouts of 4 games x 128 (1,024); the progress
    bar's total was the 600 asked, and ran past it."""
    totals = []
    real_bar = ppo._progress_bar
    monkeypatch.setattr(ppo, "_progress_bar", lambda total, done: totals.append(total) or
                        real_bar(total, done))  # fmt: skip
    config = TrainConfig("nobody_wants_it", **{**TINY, "timesteps": 600})
    result = train(config, tmp_path / "run", progress=True)
    assert result.metrics["timesteps"] == 1024 and totals == [1024]
    resolved = config.resolved(build_agents=False)
    assert ppo.rounded_timesteps(resolved, 0) == 1024
    assert ppo.rounded_timesteps(dataclasses.replace(resolved, timesteps=1025), 1024) == 1536
    assert ppo.rounded_timesteps(dataclasses.replace(resolved, timesteps=512), 1024) == 1024


def test_final_evaluation_has_random_best_heuristic_and_its_fair_share(finished_run):
    final = finished_run.metrics["final_evaluation"]
    assert set(final["against"]) == {"random", "nwi_dodger"}
    assert final["games"] == 8  # a multiple of the 4 seats: every rotation of each deal
    for result in [*final["against"].values(), final["baseline_same_seat"]]:
        assert result["seat_games"] == 8  # one seat in each of the 8 games
    assert final["baseline_same_seat"]["agent"] == "nwi_dodger"


def test_the_deals_that_choose_the_checkpoint_never_grade_it():
    deals = ppo.evaluation_deals(tiny(eval_games=400, final_eval_games=1000))
    assert deals == {"periodic": range(1_000_000, 1_000_100), "final": range(2_000_000, 2_000_250)}
    with pytest.raises(ValueError, match="would share deals"):
        ppo.evaluation_deals(tiny(eval_games=4 * 1_000_001, final_eval_games=4))


def test_the_candidates_are_the_best_periodic_evaluations_the_later_first_on_a_tie():
    """select_top 1 is the periodic choice (the later of equal evaluations); above it, the best
    K in the order of training."""
    loop = ppo.LoopState()
    for timesteps, rate in ((512, 0.5), (1024, 0.7), (1536, 0.7), (2048, 0.6)):
        loop.history.append({"timesteps": timesteps, "against": {"nwi_dodger": {"win_rate": rate}}})
    candidates = ppo.RunFolder.candidates
    assert candidates(tiny(select_top=1), loop) == [(1536, 0.7)]
    assert candidates(tiny(select_top=2), loop) == [(1024, 0.7), (1536, 0.7)]
    assert candidates(tiny(select_top=3), loop) == [(1024, 0.7), (1536, 0.7), (2048, 0.6)]


def test_select_top_evaluates_the_best_checkpoints_again_and_keeps_the_best_there(tmp_path):
    """Four periodic evaluations, the three best kept as candidates and played again on 40
    games from deal 1,250,000 against the deciding opponent (random here, where these tiny
    policies' results differ: the second evaluation chooses another checkpoint than the first
    did); the best there is policy.npz, the others' files stay (and only theirs), and each
    figure is the candidate's own on those deals."""
    config = tiny(timesteps=2048, eval_every=512, select_top=3, select_games=40,
                  eval_opponents=("random",))  # fmt: skip
    result = train(config, tmp_path / "run", progress=False)
    metrics, folder = result.metrics, tmp_path / "run"
    history = {entry["timesteps"]: entry["against"]["random"]["win_rate"]
               for entry in metrics["history"]}  # fmt: skip
    assert len(history) == 4
    best_three = sorted(sorted(history, key=lambda t: (history[t], t))[-3:])
    rows = metrics["selection"]
    assert [row["timesteps"] for row in rows] == best_three
    assert [row["periodic"] for row in rows] == [history[t] for t in best_three]
    assert sorted(int(path.stem) for path in (folder / "candidates").glob("*.npz")) == best_three
    chosen = max(rows, key=lambda row: (row["selection"], row["timesteps"]))
    assert [row["chosen"] for row in rows] == [row is chosen for row in rows]
    assert metrics["selected_timesteps"] == chosen["timesteps"]
    candidate = folder / "candidates" / f"{chosen['timesteps']}.npz"
    assert (folder / "policy.npz").read_bytes() == candidate.read_bytes()
    for row in rows:
        path = folder / "candidates" / f"{row['timesteps']}.npz"
        own = play_match("nobody_wants_it", [f"ppo:{path}"] + ["random"] * 3, 40, 1_250_000)
        assert row["selection"] == own.agents[own.lineup[0]].summary()["win_rate"]
        assert row["games"] == 40
    assert (
        f"model selected at {chosen['timesteps']:,} steps (the best of its 3 best checkpoints, "
        "evaluated again on 40 games)" in ppo.report(result)
    )


def test_the_selection_deals_are_apart_from_the_others():
    deals = ppo.evaluation_deals(tiny(eval_games=400, select_top=2, select_games=2000))
    assert deals["selection"] == range(1_250_000, 1_250_500)
    assert set(deals) == {"periodic", "final", "selection"}
    assert "selection" not in ppo.evaluation_deals(tiny(select_games=2000))  # select_top 1


def test_a_short_fixed_seed_run_learns_to_beat_random(tmp_path):
    """32,768 decisions of Nobody Wants It against random opponents: the learner's win rate
    against three random players on 400 held-out games is far above a random seat's share
    (0.25 by symmetry; 0.2-0.3 in matches)."""
    config = TrainConfig("nobody_wants_it", opponents="random", timesteps=32_768, n_envs=32,
                         eval_every=32_768, eval_games=40, final_eval_games=400,
                         processes=1)  # fmt: skip
    result = train(config, tmp_path / "learn", progress=False)
    against_random = result.metrics["final_evaluation"]["against"]["random"]
    assert against_random["win_rate_ci"][0] > 0.40, against_random


def test_the_report_names_every_line_up_and_the_curve(finished_run):
    text = ppo.report(finished_run)
    assert "learner + 3 x random" in text
    assert "nwi_dodger (same seat) + 3 x itself" in text
    assert "learning_curve.png" in text


def test_a_finished_run_is_not_overwritten_without_force(finished_run):
    before = (finished_run.run_dir / "policy.npz").read_bytes()
    with pytest.raises(ValueError, match="finished run.*--force"):
        train(tiny(), finished_run.run_dir, progress=False)
    with pytest.raises(ValueError, match="finished; nothing to resume"):
        train(tiny(), finished_run.run_dir, resume=True, progress=False)
    with pytest.raises(ValueError, match="other settings"):
        train(tiny(seed=3, timesteps=2048), finished_run.run_dir, resume=True, progress=False)
    assert (finished_run.run_dir / "policy.npz").read_bytes() == before


def test_a_finished_run_can_be_extended_and_evaluated_on_more_games(tmp_path):
    out = tmp_path / "run"
    train(tiny(timesteps=512), out, progress=False)
    result = train(tiny(timesteps=1024, final_eval_games=16), out, resume=True, progress=False)
    assert result.metrics["timesteps"] == 1024
    assert result.metrics["final_evaluation"]["games"] == 16
    assert [entry["timesteps"] for entry in result.metrics["history"]] == [512, 1024]


def test_an_extension_interrupted_before_it_finished_can_be_resumed(tmp_path, monkeypatch):
    """Extending a finished run writes the longer settings; interrupted then, the folder holds
    the shorter run's metrics beside them, and --resume still continues it."""
    out = tmp_path / "run"
    train(tiny(timesteps=512), out, progress=False)
    real_final = ppo.final_evaluation
    monkeypatch.setattr(ppo, "final_evaluation", _raise_interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(timesteps=1024), out, resume=True, progress=False)
    monkeypatch.setattr(ppo, "final_evaluation", real_final)
    result = train(tiny(timesteps=1024), out, resume=True, progress=False)
    assert result.metrics["timesteps"] == 1024


def _foxy_self_play_stopped_at_its_second_evaluation(tmp_path, monkeypatch):
    """A tiny Foxy run, ordinal head, self-play alone, interrupted at its second evaluation:
    its settings, folder and progress.json (evaluation restored for the resume)."""
    out = tmp_path / "run"
    config = tiny("foxy", head="ordinal", opponents="self:1", timesteps=1024)
    real_evaluate = ppo.evaluate
    monkeypatch.setattr(ppo, "evaluate", interrupted_at_the_second_call(real_evaluate))
    with pytest.raises(KeyboardInterrupt):
        train(config, out, progress=False)
    monkeypatch.setattr(ppo, "evaluate", real_evaluate)
    return config, out, json.loads((out / "progress.json").read_text())


def test_a_pool_without_the_runs_head_is_refused_on_resume(tmp_path, monkeypatch):
    config, out, progress = _foxy_self_play_stopped_at_its_second_evaluation(tmp_path, monkeypatch)
    for policy in progress["pool"]:
        policy["head"] = None  # as an older cardzoo wrote it
    (out / "progress.json").write_text(json.dumps(progress))
    with pytest.raises(ValueError, match="self-play pool .* does not fit"):
        train(config, out, resume=True, progress=False)


def test_force_starts_the_run_again(tmp_path):
    out = tmp_path / "run"
    train(tiny(timesteps=512), out, progress=False)
    result = train(tiny(timesteps=512, seed=1), out, force=True, progress=False)
    assert result.metrics["seed"] == 1


def test_an_interrupted_run_resumes_from_its_last_checkpoint(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real_evaluate = ppo.evaluate
    monkeypatch.setattr(ppo, "evaluate", interrupted_at_the_second_call(real_evaluate))
    with pytest.raises(KeyboardInterrupt):
        train(tiny(), out, progress=False)
    assert not (out / "metrics.json").exists()
    progress = json.loads((out / "progress.json").read_text())
    assert [entry["timesteps"] for entry in progress["history"]] == [512]
    with pytest.raises(ValueError, match="interrupted run.*--resume"):
        train(tiny(), out, progress=False)
    monkeypatch.setattr(ppo, "evaluate", real_evaluate)
    result = train(tiny(), out, resume=True, progress=False)
    assert result.metrics["timesteps"] == 1024
    assert [entry["timesteps"] for entry in result.metrics["history"]] == [512, 1024]


def test_a_resumed_run_records_the_source_of_each_stretch(tmp_path, monkeypatch):
    """Foxy with the ordinal head and self-play alone (``self:1``, which once stopped the
    sampler: nobody to deal against before the pool arrived): the pool's policies keep their
    head through progress.json, and metrics.json names the source each stretch ran."""
    config, out, progress = _foxy_self_play_stopped_at_its_second_evaluation(tmp_path, monkeypatch)
    assert [len(policy["head"]["numbers"]) for policy in progress["pool"]] == [82, 82]
    result = train(config, out, resume=True, progress=False)
    sources = result.metrics["git_commits"]
    assert len(sources) == 2 and result.metrics["git_commit"] == sources[0]


def test_resume_refuses_other_settings(tmp_path, monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setattr(ppo, "final_evaluation", _raise_interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(timesteps=512), out, progress=False)
    with pytest.raises(ValueError, match="other settings"):
        train(tiny(timesteps=512, seed=5), out, resume=True, progress=False)


def test_resume_may_change_only_the_length(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real_final = ppo.final_evaluation
    monkeypatch.setattr(ppo, "final_evaluation", _raise_interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(tiny(timesteps=1024), out, progress=False)
    monkeypatch.setattr(ppo, "final_evaluation", real_final)
    result = train(tiny(timesteps=512), out, resume=True, progress=False)  # cut short
    assert result.metrics["timesteps"] == 1024  # already past 512: straight to the evaluation
    assert json.loads((out / "config.json").read_text())["timesteps"] == 512


def _raise_interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_folder_with_other_files_is_not_used_as_a_run(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty"):
        train(tiny(), tmp_path, progress=False)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"reward": "best"}, "reward"),
        ({"n_envs": 0}, "n_envs"),
        ({"processes": 8}, "processes"),
        ({"opponents": "nobody:1"}, "unknown agent"),
        ({"opponents": "random:-1"}, "positive"),
        ({"params": {"reward": "points"}}, "reward mode"),
        ({"game": "believe_it_or_not", "reward": "win+points"}, "no points reward"),
        ({"seed": -1}, "seed"),
        ({"lr_schedule": "cosine"}, "lr_schedule"),
        ({"head": "bell"}, "head"),
        ({"activation": "gelu"}, "activation"),
        ({"head": "ordinal"}, "not numbers"),
        ({"net_arch": ()}, "net_arch"),
        ({"game": "foxy", "frame_stack": 2, "stack_fields": ("hand",)}, "no observation field"),
        ({"stack_fields": ("cards",)}, "only with a frame stack"),
        ({"net_arch": (64, 0)}, "net_arch"),
        ({"select_top": 0}, "select_top"),
        ({"select_top": 2, "select_games": 0}, "select_games"),
        ({"select_top": 2, "final_eval_seed": 1_250_004}, "final and the selection evaluations"),
    ],
)
def test_bad_settings_are_refused_before_anything_runs(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        train(tiny(**changes), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_a_game_without_decisions_cannot_be_trained(tmp_path):
    with pytest.raises(ValueError, match="no decisions"):
        train(TrainConfig("henhouse"), tmp_path / "run", progress=False)


# --- a trained policy is an agent -------------------------------------------------------------


def test_a_run_folder_and_its_model_file_load_as_agents(finished_run):
    game = nobody_wants_it_v0.raw_env().game
    for path in (finished_run.run_dir, finished_run.run_dir / "policy.npz"):
        agent = make_agent("nobody_wants_it", f"ppo:{path}", game, seed=0)
        assert isinstance(agent, PolicyAgent)
    result = play_match(
        "nobody_wants_it", [f"ppo:{finished_run.run_dir}", "nwi_dodger", "random", "random"], 8
    )
    assert result.agents[f"ppo:{finished_run.run_dir}"].seat_games == 8


def test_the_cli_match_plays_a_trained_policy(finished_run, capsys):
    code = main(
        [
            "match",
            "nobody_wants_it",
            "--agents",
            f"ppo:{finished_run.run_dir},random,random,random",
            "--games",
            "4",
            "--quiet",
        ]
    )
    assert code == 0
    assert f"ppo:{finished_run.run_dir}" in capsys.readouterr().out


def test_a_model_of_another_game_is_a_clear_error(finished_run):
    game = minus_two_v0.raw_env().game
    with pytest.raises(ValueError, match="trained on nobody_wants_it, not minus_two"):
        make_agent("minus_two", f"ppo:{finished_run.run_dir}", game)


def test_a_model_for_other_seats_count_is_a_clear_error(finished_run):
    game = nobody_wants_it_v0.raw_env(num_players=3).game
    with pytest.raises(ValueError, match="observations or actions differ"):
        make_agent("nobody_wants_it", f"ppo:{finished_run.run_dir}", game)


def test_a_missing_or_corrupt_model_is_a_clear_error(tmp_path):
    game = nobody_wants_it_v0.raw_env().game
    with pytest.raises(ValueError, match="does not exist"):
        make_agent("nobody_wants_it", f"ppo:{tmp_path / 'nope.zip'}", game)
    with pytest.raises(ValueError, match="no trained model"):
        make_agent("nobody_wants_it", f"ppo:{tmp_path}", game)
    (tmp_path / "model.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a cardzoo model file"):
        make_agent("nobody_wants_it", f"ppo:{tmp_path}", game)


def test_the_numpy_policy_acts_as_the_torch_policy(finished_run):
    import torch

    from cardzoo.training.learner import Learner

    game = nobody_wants_it_v0.raw_env().game
    learner = Learner(game.observation_size, game.num_actions, (16,), 3e-4, seed=1)
    learner.load_state(torch.load(finished_run.run_dir / "checkpoint.pt", weights_only=True))
    policy = learner.numpy_policy()
    rng = np.random.default_rng(0)
    inputs = rng.random((50, game.observation_size), dtype=np.float32)
    masks = rng.random((50, game.num_actions)) < 0.5
    masks[np.arange(50), rng.integers(game.num_actions, size=50)] = True
    with torch.no_grad():
        expected = learner.network.masked_logits(torch.from_numpy(inputs), torch.from_numpy(masks))
    for row in range(50):
        assert policy.act(inputs[row], masks[row]) == int(expected[row].argmax())


def test_an_untrained_foxy_policy_keeps_its_circle_for_later():
    """The ordinal head starts the circled kind at preference -3: on the first card of a deal an
    untrained policy circles with probability about e^-3 / (1 + e^-3), not one half (a policy
    that spent its circle at once learned to do so for good)."""
    from cardzoo.agents.policy import OrdinalHead, PolicyInput
    from cardzoo.training.learner import Learner

    game = foxy_v0.raw_env(num_players=2, memory="none").game
    head = OrdinalHead(*game.action_numbers())
    learner = Learner(PolicyInput(game).size, game.num_actions, (256, 256), 3e-4, 0, head, "relu")
    state = game.new_state(np.random.default_rng(0))
    inputs = PolicyInput(game)(game.observe(state, 0))
    logits = learner.numpy_policy().logits(inputs[None])[0]
    logits = np.where(game.legal_mask(state, 0), logits, -np.inf)
    probabilities = np.exp(logits - logits.max())
    circled = probabilities[game.max_guess + 1 :].sum() / probabilities.sum()
    assert circled == pytest.approx(np.exp(-3) / (1 + np.exp(-3)), abs=0.005)


@pytest.mark.parametrize("kind", ["ordinal", "ordinal-shared"])
def test_an_ordinal_relu_policy_plays_in_numpy_as_in_torch_and_from_its_file(tmp_path, kind):
    """Foxy with an ordinal head and ReLU layers: the trained network's logits, computed by
    torch, by the numpy policy and by the policy read back from ``policy.npz``, agree."""
    from cardzoo.agents.policy import read_policy
    from cardzoo.training.learner import Learner

    config = tiny("foxy", head=kind, activation="relu", timesteps=512)
    run = train(config, tmp_path / "foxy", progress=False)
    game = ppo.run_game(run_config(run))
    head = ppo.policy_head(run_config(run), game)
    learner = Learner(game.observation_size, game.num_actions, (16,), 3e-4, 1, head, "relu")
    learner.load_state(torch.load(run.run_dir / "checkpoint.pt", weights_only=True))
    inputs = np.random.default_rng(0).random((20, game.observation_size), dtype=np.float32)
    with torch.no_grad():
        expected = learner.network.logits(torch.from_numpy(inputs)).numpy()
    saved, info = read_policy(run.run_dir / "policy.npz")
    assert info["head"] == kind and expected.shape == (20, game.num_actions)
    assert info["format"] == (4 if kind == "ordinal-shared" else 2)
    close = dict(rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(learner.numpy_policy().logits(inputs), expected, **close)
    # the file holds the checkpoint selected at the last evaluation: the same weights
    np.testing.assert_allclose(saved.logits(inputs), expected, **close)


def test_a_shared_sharpness_head_writes_circled_numbers_as_sharply_as_plain_ones():
    """One sharpness for both kinds: on any outputs, the circled bell is the plain bell moved by
    the difference of the two preferences (the per-kind head's bells differ in width)."""
    from cardzoo.agents.policy import OrdinalHead

    game = foxy_v0.raw_env(num_players=2).game
    numbers, kinds = game.action_numbers()
    shared, apart = OrdinalHead(numbers, kinds, True), OrdinalHead(numbers, kinds)
    assert (shared.outputs, apart.outputs) == (4, 5)
    outputs = np.array([[0.3, 0.5, -1.0, 4.0]], np.float32)
    logits = shared(outputs)[0]
    plain, circled = logits[kinds == 0], logits[kinds == 1]
    np.testing.assert_allclose(circled - plain, -1.5, rtol=1e-5)
    wider = apart(np.array([[0.3, 0.5, -1.0, 4.0, 0.0]], np.float32))[0]
    assert np.ptp(wider[kinds == 1] - wider[kinds == 0]) > 1


def test_foxy_trains_the_ordinal_head_on_relu_by_default_and_other_games_the_plain_one():
    foxy, nwi = TrainConfig("foxy").resolved(), TrainConfig("nobody_wants_it").resolved()
    assert (foxy.head, foxy.activation) == ("ordinal", "relu")
    assert (nwi.head, nwi.activation) == ("linear", "tanh")


def test_a_run_saved_before_heads_were_settings_resumes_with_the_plain_head():
    """config.json of an older run has no head or activation: it was trained with the plain
    ones, whatever the game's default is now."""
    saved = TrainConfig("foxy").resolved().to_json()
    del saved["head"], saved["activation"]
    config = TrainConfig.from_json(saved).resolved()
    assert (config.head, config.activation) == ("linear", "tanh")


def test_a_policy_file_whose_head_does_not_fit_its_layers_is_a_clear_error(tmp_path):
    """An ordinal policy's file with its head arrays dropped, or its record saying plain while
    the last layer has the head's outputs: refused by name, not played wrongly."""
    from cardzoo.agents.policy import OrdinalHead, read_policy, save_policy
    from cardzoo.envs import foxy_v0

    game = foxy_v0.raw_env().game
    head = OrdinalHead(*game.action_numbers())
    rng = np.random.default_rng(0)
    layers = [(rng.random((game.observation_size, head.outputs), np.float32),
               np.zeros(head.outputs, np.float32), "Identity")]  # fmt: skip
    info = {"game": "foxy", "num_actions": game.num_actions, "observation_size": 71}
    save_policy(tmp_path / "good.npz", NumpyPolicy(layers, head), info)
    assert read_policy(tmp_path / "good.npz")[0].head.num_actions == 82
    with np.load(tmp_path / "good.npz") as archive:
        kept = {key: archive[key] for key in archive.files if not key.startswith("head_")}
    np.savez(tmp_path / "no_head_arrays.npz", **kept)
    with pytest.raises(ValueError, match="not a cardzoo policy file"):
        read_policy(tmp_path / "no_head_arrays.npz")
    save_policy(tmp_path / "plain.npz", NumpyPolicy(layers), info)
    with pytest.raises(ValueError, match="last layer does not fit"):
        read_policy(tmp_path / "plain.npz")


def test_an_untrained_ordinal_head_writes_small_numbers_first():
    """Foxy's untrained policy is a broad bell on 2 (OrdinalHead.INITIAL_CENTRE): below most
    answers, where a nearer number scores more, not on 20, above them all."""
    from cardzoo.agents.policy import OrdinalHead, PolicyInput
    from cardzoo.training.learner import Learner

    game = foxy_v0.raw_env(num_players=2, memory="none").game
    learner = Learner(PolicyInput(game).size, game.num_actions, (256, 256), 3e-4, 0,
                      OrdinalHead(*game.action_numbers()), "relu")  # fmt: skip
    state = game.new_state(np.random.default_rng(0))
    logits = learner.numpy_policy().logits(PolicyInput(game)(game.observe(state, 0))[None])[0]
    plain = np.exp(logits[: game.max_guess + 1] - logits.max())
    assert int(np.argmax(plain)) == 2
    assert 0.3 < plain[:6].sum() / plain.sum() < 0.6  # broad: every small answer is tried


def test_the_ordinal_head_writes_its_centre():
    """Outputs that put the bell's centre on 23 (sharp, and plain numbers preferred): the most
    likely number is 23, not circled; preferring circles makes it 23 circled."""
    from cardzoo.agents.policy import OrdinalHead
    from cardzoo.envs import foxy_v0

    head = OrdinalHead(*foxy_v0.raw_env().game.action_numbers())
    centre = np.log(23 / 17)  # sigmoid(centre) * 40 = 23
    logits = head(np.array([centre, 1.0, 0.0, 7.0, 7.0], np.float32))
    assert int(np.argmax(logits)) == 23
    assert logits[23] - logits[22] > 5 and logits[23] - logits[24] > 5
    circling = head(np.array([centre, 0.0, 1.0, 7.0, 7.0], np.float32))
    assert int(np.argmax(circling)) == 41 + 23


def run_config(run) -> TrainConfig:
    return TrainConfig.from_json(run.metrics["settings"])


# --- the training environments ----------------------------------------------------------------


def test_observations_are_scaled_to_a_fixed_range():
    game = minus_two_v0.raw_env().game
    scaler = ObservationScaler(game)
    raw = np.zeros(game.observation_size, np.float32)
    totals = game.observation_layout["totals"]
    raw[totals] = [593, -40, 0, 12]
    scaled = scaler(raw.copy())
    assert np.all(np.abs(scaled[totals]) < 7)  # sign(x) log1p|x| for unbounded fields
    assert scaled[totals][0] == pytest.approx(np.log1p(593))
    assert scaled[totals][1] == pytest.approx(-np.log1p(40))


def _sampler(game: str, mix: str, params: dict, reward: str = "win", scale: float = 0.0, **kw):
    given = {"game_name": game, "params": params, "num_games": 1, "seed": 3,
             "reward": RewardMode(reward), "points_scale": scale, **kw}  # fmt: skip
    config = sampler_config(**given)
    return Sampler(config, OpponentMix(game, parse_mix(game, mix), config.frame_stack))


def sampler_config(**given) -> SamplerConfig:
    """A sampler's configuration: ``given``, else the values these tests use."""
    usual = dict(frame_stack=1, stack_fields=(), gamma=0.99, gae_lambda=0.95)
    return SamplerConfig(**{**usual, **given})


def _uniform(sampler: Sampler) -> tuple[NumpyPolicy, NumpyPolicy]:
    size, actions = sampler.input_size, sampler.game.num_actions
    zero = np.zeros((size, actions), np.float32)
    policy = NumpyPolicy([(zero, np.zeros(actions, np.float32), "Identity")])
    value = NumpyPolicy([(np.zeros((size, 1), np.float32), np.zeros(1, np.float32), "Identity")])
    return policy, value


def _collect(sampler: Sampler, n_steps: int, held: np.ndarray | None = None) -> dict:
    shapes = rollout_shapes(
        n_steps * len(sampler.tables), sampler.input_size, sampler.game.num_actions
    )
    out = {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
    sampler.collect(*_uniform(sampler), n_steps, out, held)
    return out


def test_hold_special_keeps_the_circle_out_of_the_learners_rollouts():
    """While the special kinds are held the learner writes plain numbers only, and its
    rollout's masks say so (the update then weighs its choices among those); unheld, a uniform
    policy circles at once half the time, so once in every game."""
    numbers, kinds = foxy_v0.raw_env(num_players=2).game.action_numbers()
    held = _collect(_sampler("foxy", "random", {"num_players": 2}), 100, kinds > 0)
    assert not held["masks"][:, kinds > 0].any() and held["masks"][:, kinds == 0].all()
    assert not (held["actions"] > numbers.max()).any()
    free = _collect(_sampler("foxy", "random", {"num_players": 2}), 100)
    assert (free["actions"] > numbers.max()).sum() == 5  # a circle in each of the 5 games begun
    assert free["masks"][0, kinds > 0].all()


@pytest.mark.parametrize("kind", ["ordinal", "linear"])
def test_restarting_the_special_kinds_makes_a_circle_one_twentieth_as_likely_and_as_exact(kind):
    """After hold_special the circled numbers start from the trained plain ones: on any input
    each circled number's logit is its plain number's minus 3 (the ordinal head's circled bell
    as sharp as the plain one; a plain head's circled n copying its plain n)."""
    from cardzoo.agents.policy import OrdinalHead, restarted_rows
    from cardzoo.training.learner import Learner

    game = foxy_v0.raw_env(num_players=2).game
    head = OrdinalHead(*game.action_numbers()) if kind == "ordinal" else None
    learner = Learner(12, game.num_actions, (16,), 3e-4, 0, head, "relu")
    with torch.no_grad():  # a trained network: every output row its own
        for parameter in learner.network.policy[-1].parameters():
            parameter.normal_(generator=torch.Generator().manual_seed(1))
    inputs = np.random.default_rng(2).random((30, 12), dtype=np.float32)
    before = learner.numpy_policy().logits(inputs)
    learner.restart_rows(restarted_rows(*game.action_numbers(), head))
    after = learner.numpy_policy().logits(inputs)
    _, kinds = game.action_numbers()
    np.testing.assert_allclose(after[:, kinds == 0], before[:, kinds == 0])
    np.testing.assert_allclose(after[:, kinds == 1], after[:, kinds == 0] - 3.0, atol=1e-5)
    assert np.abs(before[:, kinds == 1] - before[:, kinds == 0] + 3.0).max() > 1


def test_a_run_holding_the_circle_restarts_it_when_the_hold_ends(tmp_path):
    """hold_special = the run's length: the last update ends the hold, and the checkpoint then
    saved holds the restarted head (the circle's rows copied from the plain ones)."""
    config = tiny("foxy", timesteps=1024, hold_special=1024, params={"num_players": 2})
    assert tiny("foxy", hold_special=0.25).resolved().hold_special == 256  # a share of 1,024
    assert tiny("foxy").resolved().hold_special == 512  # Foxy's default: the first half
    run = train(config, tmp_path / "held", progress=False)
    last = torch.load(run.run_dir / "checkpoint.pt", weights_only=True)["network"]
    weight, bias = last["policy.2.weight"], last["policy.2.bias"]  # centre, 2 preferences, 2 k
    assert torch.equal(weight[2], weight[1]) and torch.equal(weight[4], weight[3])
    assert bias[2].item() == pytest.approx(bias[1].item() - 3.0) and bias[4] == bias[3]
    assert run_config(run).hold_special == 1024


@pytest.mark.parametrize(
    ("game", "hold", "reason"),
    [
        ("nobody_wants_it", 100, "only for a game with special kinds of action"),
        ("foxy", 1.5, "a share below 1 or whole decisions"),
        ("foxy", -0.5, "out of range"),
        ("foxy", "half", "must be a number"),
    ],
)
def test_a_bad_hold_special_is_refused_before_work(tmp_path, game, hold, reason):
    with pytest.raises(SettingError, match=f"hold_special.*{reason}"):
        train(tiny(game, hold_special=hold), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_win_plus_points_reward_is_scaled_points_and_the_result():
    sampler = _sampler("nobody_wants_it", "random", {"reward": "points"}, "win+points", 0.1)
    out = _collect(sampler, 200)
    end = int(np.flatnonzero(out["dones"])[0])
    _, seat, scores, won = sampler.finished[0]
    total = float(out["rewards"][: end + 1].sum())
    assert total == pytest.approx(0.1 * -float(scores[seat]) + (1.0 if won else -1.0), abs=1e-5)


def test_win_plus_score_gives_foxy_its_points_card_by_card_and_the_result():
    sampler = _sampler("foxy", "perfect_memory", {"num_players": 2}, "win+score", 0.01)
    out = _collect(sampler, 40)
    end = int(np.flatnonzero(out["dones"])[0])
    _, seat, scores, won = sampler.finished[0]
    rewards = out["rewards"][: end + 1]
    assert float(rewards.sum()) == pytest.approx(0.01 * float(scores[seat]) + (1 if won else -1))
    assert (rewards[:-1] != 0).sum() > 0  # points arrive before the end


def test_frame_stack_keeps_the_last_observations_oldest_first():
    sampler = _sampler("foxy", "random", {"num_players": 2, "memory": "none"}, frame_stack=3)
    out = _collect(sampler, 2)
    first, second = out["inputs"][0], out["inputs"][1]
    size = first.shape[0] // 3
    assert not first[: 2 * size].any()  # nothing seen before the first card
    np.testing.assert_array_equal(second[size : 2 * size], first[2 * size :])


def test_stack_fields_keep_only_those_fields_of_the_earlier_observations():
    """Foxy without memory, 3 frames, the card field kept: the input is the first card, the
    second card, then the whole third observation."""
    from cardzoo.agents.policy import PolicyInput
    from cardzoo.envs import foxy_v0

    game = foxy_v0.raw_env(num_players=1).game
    inputs = PolicyInput(game, frame_stack=3, stack_fields=("card",))
    card = game.observation_layout["card"]
    state = game.new_state(np.random.default_rng(0))
    seen = []
    for _ in range(3):
        seen.append(inputs.scaler(game.observe(state, 0).astype(np.float32)))
        vector = inputs(game.observe(state, 0)).copy()
        game.apply(state, 1)
    assert vector.size == 2 * 10 + game.observation_size == inputs.size
    np.testing.assert_array_equal(vector, np.concatenate([seen[0][card], seen[1][card], seen[2]]))
    inputs.reset()
    first = inputs(game.observe(game.new_state(np.random.default_rng(0)), 0))
    assert not first[:20].any()


def test_a_policy_with_stacked_fields_is_trained_saved_and_played(tmp_path):
    config = tiny("foxy", params={"memory": "none"}, frame_stack=3, stack_fields=("card",))
    run = train(config, tmp_path / "foxy", progress=False)
    assert run.metrics["settings"]["stack_fields"] == ["card"]
    game = ppo.run_game(config.resolved())
    agent = make_agent("foxy", f"ppo:{run.run_dir}", game)
    assert agent.inputs.stack_fields == ("card",) and agent.inputs.frame_stack == 3
    result = play_match("foxy", [f"ppo:{run.run_dir}", "random"], 4, 0, {"memory": "none"})
    assert sum(a.seat_games for a in result.agents.values()) == 8


def test_count_fields_count_the_species_seen_and_those_on_the_card_now():
    """Foxy without memory, the card field counted, on a fixed deal: after each card the sums
    equal the species counts that memory="perfect" shows on the same deal, and the product,
    summed over the species, is the true answer of every animal card."""
    from cardzoo.agents.policy import PolicyInput
    from cardzoo.envs import foxy_v0

    blind = foxy_v0.raw_env(num_players=1, memory="none").game
    seeing = foxy_v0.raw_env(num_players=1, memory="perfect").game
    inputs = PolicyInput(blind, count_fields=("card",))
    assert inputs.size == blind.observation_size + 2 * 10
    counts = seeing.observation_layout["species_counts"]
    hidden = blind.new_state(np.random.default_rng(3))
    shown = seeing.new_state(np.random.default_rng(3))
    counted = []
    for _ in range(20):
        vector = inputs(blind.observe(hidden, 0))
        sums, now = vector[-20:-10], vector[-10:]
        np.testing.assert_array_equal(sums[:9], seeing.observe(shown, 0)[counts])
        counted.append(int(now[:9].sum()))
        blind.apply(hidden, 1)
        seeing.apply(shown, 1)
    foxy = [name == "FOXY" for name in blind.stack_names(hidden)]
    answers = [0 if is_foxy else int(a) for a, is_foxy in zip(hidden.answers, foxy)]
    assert counted == answers
    assert counted[:8] == [2, 3, 1, 4, 3, 4, 7, 9]  # bear+cat, zebra+cat, rooster, ...
    inputs.reset()
    first = inputs(blind.observe(blind.new_state(np.random.default_rng(3)), 0))
    assert int(first[-10:].sum()) == 2  # a new game counts from nothing: one bear, one cat


def test_a_policy_with_count_fields_is_trained_saved_and_played_as_trained(tmp_path):
    from cardzoo.agents.policy import COUNTING_POLICY_FORMAT, read_policy

    config = tiny("foxy", params={"memory": "none"}, count_fields=("card",))
    run = train(config, tmp_path / "foxy", progress=False)
    assert run.metrics["settings"]["count_fields"] == ["card"]
    assert read_policy(run.run_dir / "policy.npz")[1]["format"] == COUNTING_POLICY_FORMAT
    game = ppo.run_game(config.resolved())
    agents = [make_agent("foxy", f"ppo:{run.run_dir}", game) for _ in range(2)]
    assert agents[0].inputs.count_fields == ("card",)
    # two seats deciding together (one forward pass) choose what each would alone
    alone = [make_agent("foxy", f"ppo:{run.run_dir}", game) for _ in range(2)]
    state = game.new_state(np.random.default_rng(0))
    for _ in range(5):
        observations = np.stack([game.observe(state, seat) for seat in range(2)])
        masks = np.stack([game.choice_mask(state, seat) for seat in range(2)])
        together = PolicyAgent.act_batch(agents, observations, masks)
        each = [
            a.act({"observation": o, "action_mask": m})
            for a, o, m in zip(alone, observations, masks)
        ]
        assert list(together) == each
        for seat in range(2):
            game.apply(state, int(together[seat]))


@pytest.mark.parametrize(
    "beside", [{"memory": "gru"}, {"frame_stack": 3, "stack_fields": ("card",)}]
)
def test_counts_work_beside_a_recurrent_core_or_a_frame_stack(tmp_path, beside):
    config = tiny("foxy", params={"memory": "none"}, count_fields=("card",), **beside)
    run = train(config, tmp_path / "foxy", progress=False)
    agent = make_agent("foxy", f"ppo:{run.run_dir}", ppo.run_game(config.resolved()))
    frames = beside.get("frame_stack", 1)
    assert agent.inputs.size == 71 + (frames - 1) * 10 + 2 * 10
    result = play_match("foxy", [f"ppo:{run.run_dir}", "random"], 4, 0, {"memory": "none"})
    assert sum(a.seat_games for a in result.agents.values()) == 8


def test_the_learner_never_plays_an_illegal_action():
    sampler = _sampler("believe_it_or_not", "bluffer", {"variant": "quick"}, num_games=8)
    out = _collect(sampler, 100)
    assert out["masks"][np.arange(800), out["actions"]].all()


def test_the_self_entry_is_skipped_until_the_pool_has_a_policy():
    game = nobody_wants_it_v0.raw_env().game
    mix = OpponentMix("nobody_wants_it", parse_mix("nobody_wants_it", "self:0.9,random:0.1"))
    rng = np.random.default_rng(0)
    assert {mix.draw(game, 0, seat, rng).name for seat in range(20)} == {"random"}
    layers = [
        (
            np.zeros((game.observation_size, game.num_actions), np.float32),
            np.zeros(game.num_actions, np.float32),
            "Identity",
        )
    ]
    mix.pool = [NumpyPolicy(layers)]
    names = {type(mix.draw(game, 0, seat % 3, rng)).__name__ for seat in range(40)}
    assert names == {"PolicyAgent", "RandomAgent"}


def test_mix_weights_are_normalised_and_spaces_allowed():
    assert parse_mix("nobody_wants_it", "random:1, nwi_dodger:3") == {
        "random": 0.25,
        "nwi_dodger": 0.75,
    }
    assert parse_mix("nobody_wants_it", "ppo:runs/x:1,random") == {"ppo:runs/x": 0.5, "random": 0.5}


def test_a_worker_process_plays_exactly_as_this_process():
    config = sampler_config(game_name="nobody_wants_it", params={}, num_games=4,
                            reward=RewardMode.WIN, points_scale=0.0, seed=7)  # fmt: skip
    mix = parse_mix("nobody_wants_it", "random,nwi_dodger")
    inside = Sampler(config, OpponentMix("nobody_wants_it", mix))
    worker = SamplerWorker(config, mix, None, 30, inside.game.num_actions)
    try:
        expected = _collect(inside, 30)
        policy, value = _uniform(inside)
        got = worker.wait(worker.start(policy, value, None))
        for name, array in expected.items():
            np.testing.assert_array_equal(getattr(got, name), array, err_msg=name)
    finally:
        worker.close()


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities on this system")
def test_a_worker_process_yields_the_cores_to_the_learner():
    """The samplers wait for the learner on 2 cores: each worker runs SAMPLER_NICENESS below
    the process that started it, so that the learner is not slowed by them."""
    from cardzoo.training.sampler import SAMPLER_NICENESS

    config = sampler_config(game_name="nobody_wants_it", params={}, num_games=2,
                            reward=RewardMode.WIN, points_scale=0.0, seed=7)  # fmt: skip
    worker = SamplerWorker(config, {"random": 1.0}, None, 8, 16)
    try:
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert SAMPLER_NICENESS == 10
        assert os.getpriority(os.PRIO_PROCESS, worker.process.pid) == min(19, ours + 10)
    finally:
        worker.close()


def test_a_worker_that_dies_ends_training_with_a_clear_error():
    config = sampler_config(game_name="nobody_wants_it", params={}, num_games=2,
                            reward=RewardMode.WIN, points_scale=0.0, seed=7)  # fmt: skip
    worker = SamplerWorker(config, {"random": 1.0}, None, 8, 16)
    try:
        worker.process.kill()
        with pytest.raises(RuntimeError, match=r"the sampling worker \(pid \d+\) died"):
            worker.wait(0)
    finally:
        worker.close()


def test_a_worker_that_died_between_rollouts_ends_training_with_a_clear_error():
    """Asked for its next rollout, a dead worker's pipe is broken: the BrokenPipeError reached
    the command line, which took it for its own output closing (exit 141, no word)."""
    config = sampler_config(game_name="nobody_wants_it", params={}, num_games=2,
                            reward=RewardMode.WIN, points_scale=0.0, seed=7)  # fmt: skip
    mix = parse_mix("nobody_wants_it", "random")
    worker = SamplerWorker(config, mix, None, 8, 16)
    try:
        policy, value = _uniform(Sampler(config, OpponentMix("nobody_wants_it", mix)))
        worker.process.kill()
        worker.process.join()
        with pytest.raises(
            RuntimeError, match=r"the sampling worker \(pid \d+\) died \(exit code -9\)"
        ):
            worker.start(policy, value, None)
    finally:
        worker.close()


def test_a_run_with_two_sampling_processes_trains(tmp_path):
    result = train(
        tiny(timesteps=512, processes=2, final_eval_games=4), tmp_path / "r", progress=False
    )
    assert result.metrics["timesteps"] == 512


def test_self_play_pool_grows_with_each_evaluation(tmp_path):
    result = train(
        tiny(opponents="self:0.5,random:0.5", pool_size=2), tmp_path / "r", progress=False
    )
    progress = json.loads((result.run_dir / "progress.json").read_text())
    assert len(progress["pool"]) == 2  # the untrained learner, then one per evaluation, capped


# --- the command line -------------------------------------------------------------------------


def test_cardzoo_train_prints_the_table_and_the_curve(tmp_path, capsys):
    code = main(
        [
            "train",
            "minus_two",
            "--timesteps",
            "256",
            "--n-envs",
            "2",
            "--eval-every",
            "256",
            "--eval-games",
            "4",
            "--final-eval-games",
            "4",
            "--param",
            "target_score=20",
            "--out",
            str(tmp_path / "m2"),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "learner + 3 x attacker" in out
    assert str(tmp_path / "m2" / "learning_curve.png") in out


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["train", "foxy", "--opponents", "bogus"], "opponents"),
        (["train", "foxy", "--timesteps", "0"], "--timesteps"),
        (["train", "foxy", "--resume", "--force"], "--resume"),
        (["train", "henhouse"], "no decisions"),
    ],
)
def test_cardzoo_train_bad_arguments_are_one_line(argv, option, capsys, tmp_path):
    assert main([*argv, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cardzoo: error:") and option in err[0]


def test_a_saved_policy_opponent_is_loaded_once_not_every_episode(finished_run):
    import gymnasium

    from cardzoo.agents import policy

    policy._read_policy.cache_clear()
    env = gymnasium.make(
        "cardzoo/NobodyWantsIt-v0", opponents=f"ppo:{finished_run.run_dir}", num_players=4
    )
    for seed in range(3):
        env.reset(seed=seed)
    # one agent built at make (its check), then three opponent seats in three episodes: ten
    # agents, one read of the policy file
    assert policy._read_policy.cache_info().misses == 1
    assert policy._read_policy.cache_info().hits == 9


def test_the_same_seed_trains_the_same_policy(tmp_path):
    """Sampling processes, the one-rollout policy lag and the learner are all seeded: on one
    machine two runs with the same settings write byte-identical policy files and the same
    evaluations (and another seed does not). docs/training.md, "Reproducibility": what else
    must be the same elsewhere."""
    config = tiny(timesteps=1024, processes=2, final_eval_games=4, eval_every=1024)
    first = train(config, tmp_path / "a", progress=False)
    again = train(config, tmp_path / "b", progress=False)
    other = train(tiny(timesteps=1024, processes=2, final_eval_games=4, eval_every=1024, seed=1),
                  tmp_path / "c", progress=False)  # fmt: skip
    files = [(run.run_dir / "policy.npz").read_bytes() for run in (first, again, other)]
    assert files[0] == files[1]
    assert files[0] != files[2]
    metrics = [json.loads((run.run_dir / "metrics.json").read_text()) for run in (first, again)]
    assert metrics[0]["final_evaluation"] == metrics[1]["final_evaluation"]


def test_a_run_records_the_kernels_its_results_depend_on(finished_run, monkeypatch):
    """Where training is bit-identical depends on the kernels torch, MKL, OpenBLAS and numpy
    pick: the run folder records torch's CPU level and the settings that pin them."""
    from cardzoo.training.run_info import KERNEL_SETTINGS, machine

    recorded = json.loads((finished_run.run_dir / "metrics.json").read_text())["machine"]
    assert recorded["torch_cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    for name in KERNEL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_CBWR", "AVX2")
    assert machine()["kernel_settings"] == {"MKL_CBWR": "AVX2"}


def test_a_linear_learning_rate_falls_to_zero_at_the_run_length(tmp_path):
    """Two updates of 512 decisions in a 1,024-decision run: the first at 3e-4, the last at
    half of it (the step size after 512 decisions); a constant schedule keeps 3e-4 and learns
    other weights."""
    linear = train(tiny(lr_schedule="linear"), tmp_path / "linear", progress=False)
    constant = train(tiny(), tmp_path / "constant", progress=False)
    checkpoints = [
        torch.load(run.run_dir / "checkpoint.pt", weights_only=False) for run in (linear, constant)
    ]
    rates = [checkpoint["optimizer"]["param_groups"][0]["lr"] for checkpoint in checkpoints]
    assert rates == [pytest.approx(1.5e-4), pytest.approx(3e-4)]
    assert linear.metrics["settings"]["lr_schedule"] == "linear"
    # the learners after their last updates (policy.npz holds the policy the evaluations chose,
    # which may be the first update's, the same in both runs)
    weights = [next(iter(checkpoint["network"].values())) for checkpoint in checkpoints]
    assert not torch.equal(*weights)


def test_sigterm_stops_the_train_command_and_its_sampling_processes(tmp_path):
    """``kill`` (SIGTERM) of ``cardzoo train`` stops it as Ctrl-C does: its sampling
    processes end with it (they used to live on, orphaned), and it exits with 143."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = str(tmp_path / "run")
    command = [sys.executable, "-m", "cardzoo", "train", "nobody_wants_it", "--timesteps",
               "5000000", "--processes", "2", "--out", out, "--quiet"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def children() -> set[int]:
        found = set()
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if entry.isdigit() and int(fields[1]) == process.pid:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if b"resource_tracker" not in cmdline.read():  # the sampling processes
                        found.add(int(entry))
        return found

    try:
        deadline = time.monotonic() + 60
        while (tmp_path / "run" / "config.json").exists() is False or len(children()) < 2:
            assert time.monotonic() < deadline, "the run did not start"
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.2)
        workers = children()
        time.sleep(1.0)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
        assert b"cardzoo: terminated" in process.stderr.read()
        deadline = time.monotonic() + 10
        while {pid for pid in workers if os.path.exists(f"/proc/{pid}")}:
            assert time.monotonic() < deadline, f"processes left behind: {workers}"
            time.sleep(0.2)
    finally:
        if process.poll() is None:
            process.kill()


def test_an_installed_cardzoo_inside_a_users_repository_records_no_commit(tmp_path, monkeypatch):
    """A run recorded the commit of whatever repository held the installed package (a user's
    project with its .venv inside) as cardzoo's."""
    import subprocess

    from cardzoo.training import run_info

    def git(*arguments):
        subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@x", *arguments],
                       cwd=tmp_path, check=True, capture_output=True)  # fmt: skip

    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "the user's project")
    site = tmp_path / ".venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(run_info, "SOURCE_ROOT", site)
    assert run_info.git_commit() is None and run_info.source_state() is None
    monkeypatch.setattr(run_info, "SOURCE_ROOT", tmp_path.resolve())  # a checkout of its own
    assert run_info.git_commit() is not None
