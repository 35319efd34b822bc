"""The league (`cardzoo train --league`): prioritized fictitious self-play weights, members joining
and leaving, exploiters trained against the learner, resume, and the same run from the same seed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from tiny_runs import TINY, interrupted_at_the_second_call  # noqa: E402

import cardzoo  # noqa: E402
from cardzoo.agents.policy import NumpyPolicy  # noqa: E402
from cardzoo.cli import main  # noqa: E402
from cardzoo.training import ppo  # noqa: E402
from cardzoo.training.exploit import exploit_config  # noqa: E402
from cardzoo.training.league import EXPLOITER, ONE_WINNER, SNAPSHOT, League  # noqa: E402
from cardzoo.training.ppo import TrainConfig, train  # noqa: E402

#: the league's mechanics at the smallest scale: its exploiters trained as the tiny learner is
#: (the default recipe, ``cardzoo exploit``'s, trains at the game's defaults: see below)
TINY_LEAGUE = dict(
    TINY,
    timesteps=2048,
    league=True,
    exploiter_every=1024,
    exploiter_timesteps=512,
    exploiter_recipe="learner",
)


def tiny_league(**changes) -> TrainConfig:
    return TrainConfig("nobody_wants_it", **{**TINY_LEAGUE, **changes})


def a_policy(value: float = 0.0) -> NumpyPolicy:
    weight = np.full((3, 2), value, np.float32)
    return NumpyPolicy([(weight, np.zeros(2, np.float32), "linear")])


# --- prioritized fictitious self-play -----------------------------------------------------------


def test_pfsp_draws_a_member_more_often_the_more_it_beats_the_learner():
    league = League.start(
        4, {"beats_learner": 0.5, "loses": 0.5}, pool_size=10, power=2.0, fair_share=ONE_WINNER
    )
    league.record([("beats_learner", False, 1)] * 20 + [("loses", True, 1)] * 20)
    # learner's win rates with 4 games of prior at the fair 1/4: 1/24 and 21/24; even odds at
    # the fair share: 1/12 and 1 (capped); weights (1 - odds)^2 + 0.02
    strong, weak = (11 / 12) ** 2 + 0.02, 0.02
    assert league.weights() == pytest.approx([strong / (strong + weak), weak / (strong + weak)])


#: 40 games of four seats with three winners each (Believe It or Not's standard game): the
#: learner wins 15 of 20 against member a and 20 of 20 against b
THREE_WINNERS = [("a", True, 3)] * 15 + [("a", False, 3)] * 5 + [("b", True, 3)] * 20


def test_pfsp_even_odds_at_the_observed_share_of_winners():
    """Decision (the fair share is measured): 120 winners of 160 seats and a prior of 4
    one-winner games give the fair share 124/176 = 31/44; the learner's win rates (4 games of
    prior at it) 0.742 against a and 0.951 against b; odds 0.564 and 0.917; a is drawn 0.886
    of the time."""
    league = League.start(4, {"a": 0.5, "b": 0.5}, pool_size=10, power=2.0)
    league.record(THREE_WINNERS)
    assert league.fair() == pytest.approx(31 / 44)
    assert [league.learner_win_rate(m) for m in league.members] == pytest.approx(
        [0.742424, 0.950758], abs=1e-6
    )
    assert league.weights() == pytest.approx([0.886287, 0.113713], abs=1e-6)


def test_one_winner_fair_share_left_pfsp_idle_where_three_players_win():
    """The runs before the fair share was measured: even odds at 1/4, capped at 1 from 1/2, so
    both members the learner beats more than half the time sit at the floor: drawn by the
    mix's weights alone."""
    league = League.start(4, {"a": 0.5, "b": 0.5}, pool_size=10, power=2.0, fair_share=ONE_WINNER)
    league.record(THREE_WINNERS)
    assert league.fair() == 0.25
    assert league.weights() == pytest.approx([0.5, 0.5])


def test_pfsp_power_zero_draws_by_the_mix_alone():
    league = League.start(4, {"a": 0.7, "b": 0.3}, pool_size=10, power=0.0)
    league.record([("a", False, 1)] * 50 + [("b", True, 1)] * 50)
    assert league.weights() == pytest.approx([0.7, 0.3])


def test_old_results_fade_and_a_member_that_left_counts_no_more():
    league = League.start(2, {"a": 1.0}, pool_size=10, power=2.0)
    league.record([("a", True, 1)] * 10)
    league.record([("a", False, 2)] * 2 + [("gone", True, 1)] * 5)
    member = league.members[0]
    assert member.games == pytest.approx(10 * 0.95 + 2)
    assert member.wins == pytest.approx(10 * 0.95)
    # every game counts in the fair share, a gone member's too: seats and winners, faded
    assert (league.seats, league.winners) == pytest.approx((20 * 0.95 + 14, 10 * 0.95 + 9))


def test_snapshots_and_exploiters_share_the_weight_of_self_kind_by_kind():
    league = League.start(4, {"nwi_dodger": 0.5, "self": 0.5}, pool_size=10, power=2.0)
    league.add(SNAPSHOT, "snapshot@0", a_policy())
    assert league.weights() == pytest.approx([0.5, 0.5])
    league.add(SNAPSHOT, "snapshot@512", a_policy())
    league.add(EXPLOITER, "exploiter-1@512", a_policy(1.0))
    keys = ["nwi_dodger", "snapshot@0", "snapshot@512", "exploiter-1@512"]
    assert [m.key for m in league.members] == keys
    assert league.weights() == pytest.approx([0.5, 0.125, 0.125, 0.25])
    assert league.exploiters == 1


def test_the_oldest_snapshot_leaves_a_full_league():
    league = League.start(4, {"self": 1.0}, pool_size=2, power=2.0)
    for steps in (0, 512, 1024):
        league.add(SNAPSHOT, f"snapshot@{steps}", a_policy(steps))
    league.add(EXPLOITER, "exploiter-1@1024", a_policy())
    assert [m.key for m in league.members] == ["snapshot@512", "snapshot@1024", "exploiter-1@1024"]


def test_a_league_round_trips_through_json_exactly():
    league = League.start(4, {"nwi_dodger": 0.5, "self": 0.5}, pool_size=3, power=1.5)
    league.add(SNAPSHOT, "snapshot@0", a_policy(0.25))
    league.record([("nwi_dodger", True, 1), ("snapshot@0", False, 2)])
    again = League.from_json(json.loads(json.dumps(league.to_json())))
    assert again.table() == league.table()
    assert (again.fair_share, again.seats, again.winners) == ("observed", 8.0, 3.0)
    weight = again.members[1].policy["layers"][0][0]
    assert weight.dtype == np.float32 and weight[0, 0] == 0.25


# --- in training ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def league_run(tmp_path_factory):
    return train(tiny_league(), tmp_path_factory.mktemp("runs") / "league", progress=False)


def test_an_exploiter_trained_against_the_learner_joins_the_league(league_run):
    league = league_run.metrics["league"]
    assert [e["exploiter"] for e in league["exploits"]] == [1, 2]
    assert [e["timesteps"] for e in league["exploits"]] == [1024, 2048]
    keys = [m["member"] for m in league["members"]]
    assert keys[:2] == ["nwi_dodger", "hand_shedder"]
    assert "exploiter-1@1024" in keys and "exploiter-2@2048" in keys
    assert [k for k in keys if k.startswith("snapshot")] == [
        f"snapshot@{steps}" for steps in (0, 512, 1024, 1536, 2048)
    ]
    exploiter = json.loads((league_run.run_dir / "league/exploiter-1/config.json").read_text())
    target = league_run.run_dir.resolve() / "league/learner-1.npz"
    assert exploiter["opponents"] == f"ppo:{target}"
    assert exploiter["timesteps"] == 512 and exploiter["league"] is False
    assert (league_run.run_dir / "league/exploiter-2/policy.npz").is_file()


def test_a_league_runs_report_gives_its_exploiters_gains_and_its_members(league_run):
    """The printed report of a league run said nothing of its league (a review)."""
    text = ppo.report(league_run)
    gains = ", ".join(f"{e['gain']:+.3f}" for e in league_run.metrics["league"]["exploits"])
    assert "league: 2 exploiters (" in text and f"gain over the learner's share: {gains}\n" in text
    members = league_run.metrics["league"]["members"]
    top = max(members, key=lambda member: member["weight"])
    assert f"league: {len(members)} members, the most drawn at the end {top['member']} " in text
    assert "(policy.npz, metrics.json, tb/, league/)" in text


def test_every_evaluation_records_the_leagues_draw_weights(league_run):
    """As the next rollouts draw them, with the evaluation's snapshot and exploiter in the
    league (as TensorBoard logs them; the record was taken before the snapshot joined, so the
    two disagreed under the same step)."""
    tables = [entry["league"] for entry in league_run.metrics["history"]]
    assert len(tables) == 4
    for table in tables:
        assert sum(member["weight"] for member in table) == pytest.approx(1.0, abs=1e-3)
    first = ["nwi_dodger", "hand_shedder", "snapshot@0", "snapshot@512"]
    assert [m["member"] for m in tables[0]] == first
    # with the exploiter that joined at that evaluation (the next rollouts meet it)
    assert "exploiter-1@1024" in [m["member"] for m in tables[1]]
    assert "exploiter-2@2048" in [m["member"] for m in tables[3]]


def test_the_same_seed_gives_the_same_league_run(league_run, tmp_path):
    again = train(tiny_league(), tmp_path / "again", progress=False)
    assert (tmp_path / "again/policy.npz").read_bytes() == (
        league_run.run_dir / "policy.npz"
    ).read_bytes()
    assert again.metrics["league"]["members"] == league_run.metrics["league"]["members"]

    def results(history: list[dict]) -> list[dict]:  # what was measured, not how long it took
        return [{k: v for k, v in entry.items() if k != "train_seconds"} for entry in history]

    assert results(again.metrics["history"]) == results(league_run.metrics["history"])


def test_resume_restores_the_league_and_finishes_an_interrupted_exploiter(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real = ppo._train_exploiter
    monkeypatch.setattr(ppo, "_train_exploiter", interrupted_at_the_second_call(real))
    with pytest.raises(KeyboardInterrupt):
        train(tiny_league(), out, progress=False)
    monkeypatch.setattr(ppo, "_train_exploiter", real)
    saved = json.loads((out / "progress.json").read_text())
    assert saved["exploiter_due"] is True
    assert saved["league"]["exploiters"] == 1
    before = League.from_json(saved["league"]).table()
    result = train(tiny_league(), out, resume=True, progress=False)
    assert [e["exploiter"] for e in result.metrics["league"]["exploits"]] == [1, 2]
    after = [m["member"] for m in result.metrics["league"]["members"]]
    assert [m["member"] for m in before] == after[: len(before)]  # nobody lost, order kept


def test_an_exploiter_interrupted_mid_training_is_trained_again_even_in_a_moved_folder(
    tmp_path, monkeypatch
):
    """An exploiter has no checkpoint before its end: interrupted, it was resumed from its saved
    settings, which name the frozen learner by its absolute path, so the run could not resume
    once its folder had moved ('started with other settings', naming --opponents the user never
    gave), and its aborted TensorBoard log stayed beside the new one (a review). Now it is
    trained again from its start in a clean folder: the same exploiter as without the
    interruption."""
    whole = train(tiny_league(timesteps=1024), tmp_path / "whole", progress=False)
    real_evaluate = ppo.evaluate

    def interrupted_in_an_exploiter(config, *args, **kwargs):
        if "learner-" in str(config.eval_opponents):  # the exploiter's evaluation, at its end
            raise KeyboardInterrupt
        return real_evaluate(config, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(ppo, "evaluate", interrupted_in_an_exploiter)
        with pytest.raises(KeyboardInterrupt):
            train(tiny_league(timesteps=1024), tmp_path / "run", progress=False)
    exploiter = tmp_path / "run" / "league" / "exploiter-1"
    assert (exploiter / "config.json").is_file() and not (exploiter / "metrics.json").exists()
    (tmp_path / "run").rename(tmp_path / "moved")
    train(tiny_league(timesteps=1024), tmp_path / "moved", resume=True, progress=False)
    again = tmp_path / "moved" / "league" / "exploiter-1"
    assert (again / "policy.npz").read_bytes() == (
        whole.run_dir / "league" / "exploiter-1" / "policy.npz"
    ).read_bytes()
    assert len(list((again / "tb").iterdir())) == 1  # the aborted attempt's log is gone


#: a policy file of Believe It or Not (standard), standing in for a frozen learner
SHIPPED = Path(cardzoo.__file__).parent / "agents/pretrained/believe_it_or_not.npz"


def test_an_exploiter_trains_as_the_exploit_command_trains_a_best_response_by_default():
    """Decision: exploiters train with the game's training defaults (``cardzoo exploit``'s), not
    the learner's long-run settings, and read their inputs as the learner does."""
    learner = TrainConfig(
        "believe_it_or_not", params={"variant": "standard"}, timesteps=12_000_000,
        n_envs=128, batch_size=1024, lr_schedule="linear", league=True, seed=3,
        exploiter_every=2_000_000, exploiter_timesteps=1_000_000, frame_stack=2,
        eval_games=300, processes=1,
    ).resolved()  # fmt: skip
    assert learner.exploiter_recipe == "exploit"
    target = f"ppo:{SHIPPED}"  # a frozen learner of this game (it must exist: it is read)
    exploiter = ppo._exploiter_config(learner, target, seed=11)
    # what `cardzoo exploit` trains (shown with a target that exists), but against the learner
    command = exploit_config(
        "believe_it_or_not", "random", {"variant": "standard"}, timesteps=1_000_000, seed=11,
        eval_games=300, eval_seed=ppo.EXPLOITER_EVAL_SEED, eval_every=1_000_000, frame_stack=2,
    ).resolved()  # fmt: skip
    # with the learner's sampling processes: they ran on the game's 2 in a run limited to 1
    assert command.processes == 2
    assert exploiter == dataclasses.replace(
        command, opponents=target, eval_opponents=(target,), processes=1
    )
    assert (exploiter.n_envs, exploiter.batch_size, exploiter.lr_schedule) == (64, 512, "constant")
    assert (exploiter.timesteps, exploiter.seed, exploiter.frame_stack) == (1_000_000, 11, 2)
    assert (exploiter.opponents, exploiter.eval_opponents) == (target, (target,))
    assert (exploiter.league, exploiter.exploiter_every, exploiter.positions) == (
        False,
        0,
        "learned",
    )
    assert (exploiter.final_eval_games, exploiter.final_eval_seed) == (300, ppo.EXPLOITER_EVAL_SEED)


def test_an_exploiter_by_the_learner_recipe_keeps_the_learners_settings():
    learner = TrainConfig(
        "believe_it_or_not", params={"variant": "standard"}, timesteps=12_000_000,
        n_envs=128, batch_size=1024, lr_schedule="linear", league=True,
        exploiter_every=2_000_000, exploiter_timesteps=1_000_000, exploiter_recipe="learner",
        select_top=5,
    ).resolved()  # fmt: skip
    exploiter = ppo._exploiter_config(learner, f"ppo:{SHIPPED}", seed=11)
    assert (exploiter.n_envs, exploiter.batch_size, exploiter.lr_schedule) == (128, 1024, "linear")
    assert exploiter.select_top == 1  # one evaluation: nothing to choose among
    assert (exploiter.timesteps, exploiter.league, exploiter.exploiter_every) == (
        1_000_000,
        False,
        0,
    )


def test_a_league_run_saved_before_the_exploiter_recipe_resumes_with_the_learner_recipe():
    saved = tiny_league().resolved().to_json()
    del saved["exploiter_recipe"]
    assert TrainConfig.from_json(saved).exploiter_recipe == "learner"


def test_a_league_saved_before_the_fair_share_resumes_with_one_winner():
    saved = tiny_league().resolved().to_json()
    del saved["pfsp_fair_share"]
    assert TrainConfig.from_json(saved).pfsp_fair_share == ONE_WINNER
    league = League.start(4, {"nwi_dodger": 1.0}, pool_size=3, power=2.0).to_json()
    for field in ("fair_share", "seats", "winners"):
        del league[field]
    assert League.from_json(league).fair_share == ONE_WINNER


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"exploiter_recipe": "mine"}, "exploiter_recipe"),
        ({"pfsp_fair_share": "half"}, "pfsp_fair_share"),
        ({"league": False}, "exploiters join a league"),
        ({"pfsp_power": -1.0}, "pfsp_power"),
        ({"exploiter_timesteps": 0}, "exploiter_timesteps"),
        ({"exploiter_every": -5}, "exploiter_every"),
    ],
)
def test_bad_league_settings_are_refused_before_any_work(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        train(tiny_league(**changes), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_the_train_command_refuses_exploiters_without_a_league(tmp_path, capsys):
    code = main(
        ["train", "nobody_wants_it", "--exploiter-every", "1000", "--out", str(tmp_path / "r")]
    )
    assert code == 2
    assert "--exploiter-every: exploiters join a league" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_an_exploiter_holds_the_circle_for_the_same_share_of_its_training(tmp_path, monkeypatch):
    """Foxy's learner holds its circle (hold_special) for half its 1,024 decisions: its
    exploiter of 256, trained by the learner's recipe, holds it for half of its own."""
    configs = []
    real = ppo._train

    def recording(config, *args, **kwargs):
        configs.append(config)
        return real(config, *args, **kwargs)

    monkeypatch.setattr(ppo, "_train", recording)
    short = dict(timesteps=1024, exploiter_every=1024, exploiter_timesteps=256, eval_every=1024)
    config = TrainConfig("foxy", **{**TINY_LEAGUE, **short}, params={"num_players": 2},
                         hold_special=512)  # fmt: skip
    train(config, tmp_path / "run", progress=False)
    learner, *exploiters = configs
    assert learner.hold_special == 512
    assert [exploiter.hold_special for exploiter in exploiters] == [128]


def test_a_league_of_self_alone_meets_its_snapshots_from_the_first_game(tmp_path):
    """``--league --opponents self``: the sampling processes' first games, dealt before the
    first rollout, meet the league's first member (the untrained learner) like every later
    game; they used to be drawn seat by seat from a mix with no one in it, and the run died."""
    run = train(tiny_league(opponents="self", exploiter_every=0, processes=2), tmp_path / "run",
                progress=False)  # fmt: skip
    tables = [entry["league"] for entry in run.metrics["history"]]
    assert [m["member"] for m in tables[0]] == ["snapshot@0", "snapshot@512"]
    assert tables[0][0]["games"] > 0  # the games of the first rollout were league games
    # no exploiter, no league/ folder: the report does not name one
    assert not (run.run_dir / "league").exists()
    assert "(policy.npz, metrics.json, tb/)" in ppo.report(run)


def test_exploiters_without_self_in_the_mix_are_refused_before_any_work(tmp_path, capsys):
    """Exploiters share ``self``'s weight: in a mix without it they would be trained and never
    met (drawn with weight 0)."""
    with pytest.raises(ValueError, match="add self to it"):
        train(tiny_league(opponents="nwi_dodger"), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()
    out = tmp_path / "cli"
    command = ["train", "nobody_wants_it", "--league", "--opponents", "nwi_dodger"]
    assert main([*command, "--exploiter-every", "4096", "--out", str(out)]) == 2
    assert "--exploiter-every: a league's exploiters are drawn" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    "option", [["--pfsp-power", "3"], ["--pfsp-fair-share", "one_winner"],
               ["--exploiter-timesteps", "1000"], ["--exploiter-recipe", "learner"]]
)  # fmt: skip
def test_the_leagues_options_are_refused_without_a_league(tmp_path, capsys, option):
    """A league's setting given to a run without one would be ignored: refused, even at the
    value a league run would take by default or by its age."""
    out = tmp_path / "run"
    assert main(["train", "nobody_wants_it", *option, "--out", str(out)]) == 2
    assert f"{option[0]}: " in capsys.readouterr().err
    assert not out.exists()


def test_a_league_run_saved_with_exploiters_closer_than_evaluations_still_resumes(
    tmp_path, monkeypatch
):
    """``exploiter_every`` below ``eval_every`` is refused for a new run only: a run the earlier
    version trained so (one exploiter at each evaluation) resumes as it was trained; the refusal
    had called its config.json damaged and offered --force, which throws the run away."""
    close = tiny_league(timesteps=1024, exploiter_every=256, eval_every=512)
    with pytest.raises(ValueError, match="256 is below eval_every"):
        train(close, tmp_path / "new", progress=False)
    assert not (tmp_path / "new").exists()
    with monkeypatch.context() as earlier:  # as the version before the refusal trained it
        earlier.setattr(ppo, "check_exploiter_spacing", lambda config: None)
        train(close, tmp_path / "saved", progress=False)
    longer = train(dataclasses.replace(close, timesteps=2048), tmp_path / "saved", resume=True,
                   progress=False)  # fmt: skip
    assert [e["timesteps"] for e in longer.metrics["league"]["exploits"]] == [512, 1024, 1536, 2048]
