"""What a resume checks before it writes anything: the opponents' policy files it recorded when
it started, its own ``policy.npz`` and candidates, nulls in its ``config.json``, an exploit run's
folder, and messages that name only the options the command has (each found by a review of bad
input); and an evaluation's files, written after its record."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tiny_runs import TINY, disk  # noqa: E402

from cardzoo.cli import main  # noqa: E402
from cardzoo.errors import InputError  # noqa: E402
from cardzoo.training import ppo  # noqa: E402
from cardzoo.training.exploit import REPORT_FILE, exploit  # noqa: E402
from cardzoo.training.ppo import LoopState, RunFolder, TrainConfig, train  # noqa: E402

#: the smallest runs: one rollout of 128 decisions, evaluated once on 4 games
SMALL = {**TINY, "timesteps": 128, "n_envs": 2, "processes": 1, "eval_every": 64,
         "eval_games": 4, "final_eval_games": 4}  # fmt: skip
#: the same run from the command line
SMALL_ARGS = ["--timesteps", "128", "--n-envs", "2", "--processes", "1", "--eval-every", "64",
              "--eval-games", "4", "--final-eval-games", "4", "--net-arch", "16",
              "--quiet"]  # fmt: skip


def small(**changes) -> TrainConfig:
    return TrainConfig("nobody_wants_it", **{**SMALL, **changes})


@pytest.fixture
def no_training(monkeypatch):
    """A refused resume must be refused before any training starts."""

    def must_not_train(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(ppo, "start_workers", must_not_train)


@pytest.fixture(scope="module")
def policies(tmp_path_factory) -> tuple[Path, Path]:
    """Two finished runs of other seeds: two different policies of the game."""
    root = tmp_path_factory.mktemp("policies")
    for seed in (0, 1):
        train(small(seed=seed), root / f"seed{seed}", progress=False)
    first, second = root / "seed0" / "policy.npz", root / "seed1" / "policy.npz"
    assert first.read_bytes() != second.read_bytes()
    return first, second


@pytest.fixture(scope="module")
def finished(policies) -> Path:
    return policies[0].parent


@pytest.fixture(scope="module")
def against_a_policy(policies, tmp_path_factory) -> tuple[Path, Path]:
    """A finished run against ``ppo:TARGET`` (an absolute path), and the target folder."""
    root = tmp_path_factory.mktemp("against")
    target = root / "target"
    target.mkdir()
    shutil.copy(policies[0], target / "policy.npz")
    train(small(opponents=f"ppo:{target}"), root / "run", progress=False)
    return root / "run", target


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to


# --- 1. an opponent's policy file that changed ------------------------------------------------


def test_a_run_records_the_sha256_of_each_saved_policy_opponent(against_a_policy):
    run, target = against_a_policy
    digest = hashlib.sha256((target / "policy.npz").read_bytes()).hexdigest()
    record = {f"ppo:{target}": {"path": str((target / "policy.npz").resolve()), "sha256": digest}}
    assert json.loads((run / "progress.json").read_text())["opponent_files"] == record
    assert json.loads((run / "metrics.json").read_text())["opponent_files"] == record


def test_resume_refuses_an_opponent_whose_file_changed(against_a_policy, policies, no_training):
    run, target = against_a_policy
    before = disk(run)
    (target / "policy.npz").write_bytes(policies[1].read_bytes())
    try:
        with pytest.raises(InputError) as refused:
            config = small(opponents=f"ppo:{target}", timesteps=256)
            train(config, run, resume=True, progress=False)
    finally:
        (target / "policy.npz").write_bytes(policies[0].read_bytes())
    message = str(refused.value)
    assert message.startswith(f"resume: ppo:{target} plays {target}/policy.npz, whose contents ")
    assert "changed since the run in" in message
    assert "put the policy the run trained against back there" in message
    assert "--force" in message and "\n" not in message
    assert disk(run) == before


def test_a_run_stops_at_an_evaluation_when_an_opponents_file_changed_during_it(
    policies, tmp_path, monkeypatch
):
    """Each evaluation reads the opponents' files again: a run extended in place (its
    policy.npz rewritten at its evaluations) while another trained against it was measured
    against another policy than it trained against, without a word."""
    target, out = tmp_path / "target", tmp_path / "run"
    target.mkdir()
    shutil.copy(policies[0], target / "policy.npz")
    real_evaluate = ppo.evaluate

    def evaluate_then_change_the_file(*args, **kwargs):
        result = real_evaluate(*args, **kwargs)
        shutil.copy(policies[1], target / "policy.npz")
        return result

    config = small(opponents=f"ppo:{target}", timesteps=512, eval_every=256, n_steps=128)
    with monkeypatch.context() as patched:
        patched.setattr(ppo, "evaluate", evaluate_then_change_the_file)
        with pytest.raises(InputError) as stopped:
            train(config, out, progress=False)
    message = str(stopped.value)
    assert message.startswith(f"ppo:{target} plays {target}/policy.npz, whose contents changed ")
    assert f"during the run in {out} (sha256 " in message
    assert message.endswith(
        "; the run stopped at its last checkpoint: put the policy the run trained against back "
        "there (--resume), or start a new run (--force, or another --out)"
    )
    assert [entry["timesteps"] for entry in RunFolder(out).load_progress().history] == [256]
    shutil.copy(policies[0], target / "policy.npz")  # put back: the run resumes to its end
    assert train(config, out, resume=True, progress=False).metrics["timesteps"] == 512


def test_a_relative_path_is_read_from_the_current_folder_and_checked_by_its_contents(
    policies, tmp_path, monkeypatch
):
    """Decision: ``ppo:PATH`` is read from the current folder, as every agent name is. Resumed
    from another folder, a relative PATH that names the same bytes is the same opponent, and one
    that names other bytes is refused, naming the file the run read."""
    for folder, policy in (("here", policies[0]), ("same", policies[0]), ("other", policies[1])):
        (tmp_path / folder / "target").mkdir(parents=True)
        shutil.copy(policy, tmp_path / folder / "target" / "policy.npz")
    run = tmp_path / "run"
    monkeypatch.chdir(tmp_path / "here")
    train(small(opponents="ppo:target"), run, progress=False)
    monkeypatch.chdir(tmp_path / "other")
    with pytest.raises(InputError, match="read from the current folder; the run read .*here/tar"):
        train(small(opponents="ppo:target", final_eval_games=8), run, resume=True, progress=False)
    monkeypatch.chdir(tmp_path / "same")  # evaluated again on more games: no training
    train(small(opponents="ppo:target", final_eval_games=8), run, resume=True, progress=False)
    assert json.loads((run / "metrics.json").read_text())["final_evaluation"]["games"] == 8


def test_a_run_saved_before_the_record_still_resumes(against_a_policy, policies, tmp_path):
    run, target = against_a_policy
    run = _copy(run, tmp_path / "run")
    progress = json.loads((run / "progress.json").read_text())
    del progress["opponent_files"]
    (run / "progress.json").write_text(json.dumps(progress))
    result = train(small(opponents=f"ppo:{target}", final_eval_games=8), run, resume=True,
                   progress=False)  # fmt: skip
    assert result.metrics["opponent_files"][f"ppo:{target}"]["path"].endswith("policy.npz")


def test_a_changed_pretrained_policy_is_refused_naming_the_cardzoo_version(tmp_path):
    shipped = tmp_path / "pretrained.npz"
    shipped.write_bytes(b"the new version's weights")
    loop = LoopState(opponent_files={"pretrained": {"path": str(shipped), "sha256": "0" * 64}})
    now = {"pretrained": {"path": str(shipped), "sha256": "1" * 64}}
    with pytest.raises(InputError, match="resume with the cardzoo version the run started with"):
        RunFolder(tmp_path / "run").check_opponent_files(loop, now)


def test_exploit_resume_refuses_a_target_whose_file_changed(policies, tmp_path, capsys):
    target = tmp_path / "target"
    target.mkdir()
    shutil.copy(policies[0], target / "policy.npz")
    out = tmp_path / "run"
    budget = dict(n_envs=2, processes=1, eval_every=64, eval_games=4, net_arch=(16,))
    exploit("nobody_wants_it", f"ppo:{target}", out, timesteps=128, progress=False, **budget)
    shutil.copy(policies[1], target / "policy.npz")
    before = disk(out)
    argv = ["exploit", "nobody_wants_it", f"ppo:{target}", "--timesteps", "256", "--resume"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"cardzoo: error: --resume: ppo:{target} plays {target}/policy.npz,")
    assert error.count("\n") == 1
    assert disk(out) == before


# --- 2. the run's own policy.npz and candidates ------------------------------------------------


def _damaged(folder: Path, name: str) -> str:
    (folder / name).write_bytes((folder / name).read_bytes()[:300])
    return f"{name} is not a cardzoo policy file: not a numpy .npz archive"


def _missing(folder: Path, name: str) -> str:
    (folder / name).unlink()
    return f"{name} is missing, though the run has evaluated (progress.json)"


def _another_games(folder: Path, name: str) -> str:
    from cardzoo.agents.policy import pretrained_file

    shipped = pretrained_file("minus_two")
    assert shipped is not None
    shutil.copy(shipped, folder / name)
    return f"{name} was trained on minus_two, not nobody_wants_it"


def _another_runs(folder: Path, name: str) -> str:
    other = folder.parent / "wider"
    train(small(net_arch=(8,)), other, progress=False)
    shutil.copy(other / "policy.npz", folder / name)
    shutil.rmtree(other)
    return f"{name} is not this run's policy (its network differs from the checkpoint's)"


@pytest.mark.parametrize("name", ["policy.npz", "candidates/1024.npz"])
@pytest.mark.parametrize("spoil", [_damaged, _missing, _another_games, _another_runs])
def test_resume_checks_policy_npz_and_candidates_before_any_work(
    spoil, name, first_best, tmp_path, capsys, monkeypatch
):
    """policy.npz is played at the final evaluation and the candidates are evaluated again when
    training ends: a missing or damaged one was found there, after all the training the resume
    did (and a rewritten config.json), candidates with a traceback."""
    run = _copy(first_best, tmp_path / "run")
    expected = spoil(run, name)
    before = disk(tmp_path)
    monkeypatch.setattr(ppo, "_selection_score", _first_is_best)
    monkeypatch.setattr(ppo, "start_workers", _must_not_train)  # spoil may train: patched after
    argv = ["train", "nobody_wants_it", "--timesteps", "4096", "--resume", "--quiet"]
    assert main([*argv, "--out", str(run)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"cardzoo: error: --resume: {run}/{expected}"), error
    assert error.endswith("; --force starts the run again\n") and error.count("\n") == 1
    assert disk(tmp_path) == before  # config.json too: the run keeps its length


def _must_not_train(*args, **kwargs):
    raise AssertionError("training started")


# --- 4. an exploit run's folder -----------------------------------------------------------------


@pytest.fixture(scope="module")
def exploit_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("exploit") / "run"
    budget = dict(n_envs=2, processes=1, eval_every=64, eval_games=4, net_arch=(16,))
    exploit("nobody_wants_it", "nwi_dodger", out, timesteps=128, progress=False, **budget)
    assert (out / REPORT_FILE).is_file()
    return out


@pytest.mark.parametrize(
    ("extra", "option"), [(["--resume", "--timesteps", "256"], "--resume"), ([], "--out")]
)
def test_cardzoo_train_refuses_an_exploit_runs_folder(extra, option, exploit_run, tmp_path,
                                                      capsys, no_training):  # fmt: skip
    run = _copy(exploit_run, tmp_path / "run")
    before = disk(run)
    assert main(["train", "nobody_wants_it", *SMALL_ARGS, *extra, "--out", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"cardzoo: error: {option}: {run} holds a run of cardzoo exploit (with its "
        "exploit.json); resume it with cardzoo exploit, or choose another --out (--force "
        "replaces it, the report too)\n"
    )
    assert disk(run) == before


def test_train_from_python_refuses_an_exploit_runs_folder(exploit_run, tmp_path, no_training):
    run = _copy(exploit_run, tmp_path / "run")
    before = disk(run)
    config = small(opponents="nwi_dodger", eval_opponents=("nwi_dodger",), timesteps=256)
    with pytest.raises(InputError, match="^resume: .* holds a run of cardzoo exploit"):
        train(config, run, resume=True, progress=False)
    assert disk(run) == before


def test_force_replaces_an_exploit_run_report_included(exploit_run, tmp_path, capsys):
    """Decision: ``cardzoo train --force`` over an exploit run replaces it, as it replaces any
    run: the report goes with the run's other files (it would describe a run no longer there),
    and a user's own files stay."""
    run = _copy(exploit_run, tmp_path / "run")
    (run / "notes.txt").write_text("mine")
    assert main(["train", "nobody_wants_it", *SMALL_ARGS, "--force", "--out", str(run)]) == 0
    assert not (run / REPORT_FILE).exists()
    assert (run / "notes.txt").read_text() == "mine"
    assert json.loads((run / "config.json").read_text())["eval_opponents"] == []


def test_exploit_force_removes_the_old_report_when_the_new_run_starts(
    exploit_run, tmp_path, monkeypatch
):
    """An interrupted ``cardzoo exploit --force`` leaves no report of the run it replaced."""
    run = _copy(exploit_run, tmp_path / "run")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ppo, "start_workers", interrupted)
    budget = dict(n_envs=2, processes=1, eval_every=64, eval_games=4, net_arch=(16,))
    with pytest.raises(KeyboardInterrupt):
        exploit("nobody_wants_it", "random", run, timesteps=128, force=True, progress=False,
                **budget)  # fmt: skip
    assert not (run / REPORT_FILE).exists()


# --- 6. a null in config.json -------------------------------------------------------------------


@pytest.mark.parametrize("setting", ["n_envs", "learning_rate", "timesteps"])
def test_a_null_in_config_json_is_damage_not_the_games_default(setting, finished, tmp_path,
                                                               capsys, no_training):  # fmt: skip
    run = _copy(finished, tmp_path / "run")
    saved = json.loads((run / "config.json").read_text())
    saved[setting] = None
    (run / "config.json").write_text(json.dumps(saved))
    before = disk(run)
    argv = ["train", "nobody_wants_it", "--timesteps", "256", "--resume", "--quiet"]
    assert main([*argv, "--out", str(run)]) == 2
    assert capsys.readouterr().err == (
        f"cardzoo: error: --resume: {run}/config.json is damaged ({setting}: null); --force "
        "starts the run again\n"
    )
    assert disk(run) == before


# --- 9. the options a message names -------------------------------------------------------------


def test_a_changed_setting_is_named_by_the_options_cardzoo_train_has(finished, capsys,
                                                                     no_training):  # fmt: skip
    before = disk(finished)
    argv = ["train", "nobody_wants_it", "--players", "3", "--timesteps", "256", "--resume"]
    assert main([*argv, "--quiet", "--out", str(finished)]) == 2
    error = capsys.readouterr().err
    assert "(--players/--param {} there, {'num_players': 3} here)" in error, error
    assert error.endswith(
        "use the same ones (only --timesteps, --final-eval-games, final_eval_seed (a setting "
        "of the Python API) may change)\n"
    )
    assert "--params" not in error and "--final-eval-seed" not in error
    assert disk(finished) == before


def test_a_changed_network_is_named_as_its_option_takes_it(finished, capsys, no_training):
    """Layers are written as --net-arch takes them, not as the Python tuples they are kept in."""
    layers = ",".join(str(size) for size in small().net_arch)
    argv = ["train", "nobody_wants_it", "--timesteps", "256", "--resume", "--quiet"]
    assert main([*argv, "--net-arch", "32,16", "--out", str(finished)]) == 2
    error = capsys.readouterr().err
    assert f"(--net-arch {layers} there, 32,16 here)" in error, error


def test_from_python_a_changed_setting_is_named_as_train_takes_it(finished, no_training):
    """Called from Python, the message named command-line options (``--params``,
    ``--final-eval-seed``) of a command the caller was not running."""
    before = disk(finished)
    with pytest.raises(InputError) as refused:
        train(small(params={"num_players": 3}, timesteps=256), finished, resume=True)
    message = str(refused.value)
    assert "(params {} there, {'num_players': 3} here)" in message, message
    assert message.endswith(
        "use the same ones (only timesteps, final_eval_games, final_eval_seed may change)"
    )
    assert "--" not in message
    assert disk(finished) == before


# --- 10. an evaluation's files and its record ----------------------------------------------------

#: four evaluations (512, 1024, 1536, 2048 decisions), the two best kept as candidates
CANDIDATES = {**TINY, "timesteps": 2048, "eval_every": 256, "select_top": 2, "select_games": 8}


def _interrupted(monkeypatch, out: Path, method: str, call: int) -> None:
    """A run of :data:`CANDIDATES` with a Ctrl-C at the ``call``-th call of ``RunFolder.method``
    (the call does not happen)."""
    real, calls = getattr(RunFolder, method), []

    def interrupted(self, *args):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return real(self, *args)

    with monkeypatch.context() as patched:
        patched.setattr(RunFolder, method, interrupted)
        with pytest.raises(KeyboardInterrupt):
            train(TrainConfig("nobody_wants_it", **CANDIDATES), out, progress=False)


def _files_and_record(out: Path) -> tuple[list[int], list[int], bool]:
    """The candidates the record keeps, those the folder holds, and whether policy.npz is the
    record's best evaluation (its candidate's file)."""
    config = TrainConfig("nobody_wants_it", **CANDIDATES).resolved()
    loop = RunFolder(out).load_progress()
    kept = [timesteps for timesteps, _ in RunFolder.candidates(config, loop)]
    held = sorted(int(path.stem) for path in (out / "candidates").glob("*.npz"))
    best = out / "candidates" / f"{loop.best_timesteps}.npz"
    return kept, held, best.is_file() and best.read_bytes() == (out / "policy.npz").read_bytes()


@pytest.mark.parametrize("evaluation", [2, 3, 4])
def test_a_run_interrupted_before_an_evaluations_record_holds_none_of_its_files(
    evaluation, tmp_path, monkeypatch
):
    """The run wrote policy.npz and the candidates of an evaluation before its record
    (progress.json): interrupted in between, the folder kept a candidate the record did not know
    and had removed one the record still kept (at the second evaluation: [512] kept, [512,
    1024] held; at the third, [512, 1024] kept, [512, 1536] held), so a resume went on without
    it and could fail when training ended, or choose among other policies than its record named."""
    out = tmp_path / "run"
    _interrupted(monkeypatch, out, "save_checkpoint", evaluation)  # saved with the record
    kept, held, policy_is_best = _files_and_record(out)
    assert kept == held and policy_is_best, (kept, held, policy_is_best)
    assert len(kept) == min(evaluation - 1, 2)


def test_a_resume_writes_the_files_of_an_evaluation_recorded_before_the_interruption(
    tmp_path, monkeypatch
):
    """Interrupted after the second evaluation's record, before its files: the resume writes
    them from the checkpoint saved with the record, the same files an uninterrupted run wrote."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    _interrupted(monkeypatch, whole, "save_checkpoint", 3)  # the second evaluation done
    _interrupted(monkeypatch, cut, "write_evaluated", 2)
    assert _files_and_record(cut)[:2] == ([512, 1024], [512])
    with monkeypatch.context() as patched:  # stop the resume when training would start again
        patched.setattr(ppo, "start_workers", _must_not_train)
        with pytest.raises(AssertionError, match="training started"):
            train(TrainConfig("nobody_wants_it", **CANDIDATES), cut, resume=True, progress=False)
    assert _files_and_record(cut) == ([512, 1024], [512, 1024], True)
    for name in ("policy.npz", "candidates/512.npz", "candidates/1024.npz"):
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name


def _first_is_best(config, evaluation) -> float:
    """A selection score by which every evaluation is worse than the one before."""
    return -evaluation["timesteps"]


@pytest.fixture(scope="module")
def first_best(tmp_path_factory) -> Path:
    """A run of :data:`CANDIDATES` interrupted after three evaluations (512, 1,024 and 1,536
    decisions), scored so that the first is the best: policy.npz and both candidates (512 and
    1,024) are of evaluations before the checkpoint's, and a resume checks them."""
    out = tmp_path_factory.mktemp("first_best") / "run"
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(ppo, "_selection_score", _first_is_best)
        _interrupted(patched, out, "save_checkpoint", 4)
        assert _files_and_record(out) == ([512, 1024], [512, 1024], True)
    return out


def _interrupted_after(monkeypatch, out: Path, method: str, call: int) -> None:
    """A run of :data:`CANDIDATES` with a Ctrl-C right after the ``call``-th call of
    ``RunFolder.method`` has done its work."""
    real, calls = getattr(RunFolder, method), []

    def then_interrupted(self, *args):
        real(self, *args)
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(RunFolder, method, then_interrupted)
        with pytest.raises(KeyboardInterrupt):
            train(TrainConfig("nobody_wants_it", **CANDIDATES), out, progress=False)


def _resumed_until_training(monkeypatch, out: Path) -> None:
    """A resume of ``out``, stopped when training would start again."""
    with monkeypatch.context() as patched:
        patched.setattr(ppo, "start_workers", _must_not_train)
        with pytest.raises(AssertionError, match="training started"):
            train(TrainConfig("nobody_wants_it", **CANDIDATES), out, resume=True, progress=False)


@pytest.mark.parametrize(
    ("method", "recorded"),
    [("save_checkpoint", [512]), ("save_progress", [512, 1024])],
    ids=["before the record", "after the record, before its checkpoint took its place"],
)
def test_the_checkpoint_a_resume_restores_is_always_its_records_evaluation(
    method, recorded, tmp_path, monkeypatch
):
    """The checkpoint and the record are two files: interrupted between them, the checkpoint was
    one evaluation ahead of the record, and the resume wrote that learner into the record's
    policy.npz and candidates (a review: candidates/512.npz became the 1,024-decision policy).
    Now the checkpoint waits beside the record until the record is written."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    _interrupted(monkeypatch, whole, "save_checkpoint", 3)  # two evaluations, all written
    _interrupted_after(monkeypatch, cut, method, 2)  # the second evaluation's checkpoint saved
    assert [entry["timesteps"] for entry in RunFolder(cut).load_progress().history] == recorded
    _resumed_until_training(monkeypatch, cut)
    assert _files_and_record(cut) == (recorded, recorded, True)
    for timesteps in recorded:
        name = f"candidates/{timesteps}.npz"
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name
    assert not (cut / "checkpoint.pending.pt").exists()
    if recorded == [512, 1024]:  # the checkpoint is the record's: the uninterrupted run's
        assert (cut / "checkpoint.pt").read_bytes() == (whole / "checkpoint.pt").read_bytes()


def test_resuming_a_finished_run_keeps_the_candidate_its_selection_chose(tmp_path, monkeypatch):
    """A finished ``select_top`` run's policy.npz is the candidate the selection chose: a resume
    (a larger final evaluation, a longer run) wrote the last checkpoint over it where that was
    the best periodic evaluation, until the selection ran again (a review)."""
    out = tmp_path / "run"
    real_select = ppo.select_candidate

    def choose_the_first(config, run, loop):  # a choice that is not the last evaluation
        rows = real_select(config, run, loop)
        (run.path / "policy.npz").write_bytes(run.candidate(rows[0]["timesteps"]).read_bytes())
        return [{**row, "chosen": row is rows[0]} for row in rows]

    with monkeypatch.context() as patched:
        patched.setattr(ppo, "_selection_score", lambda config, entry: entry["timesteps"])
        patched.setattr(ppo, "select_candidate", choose_the_first)
        train(TrainConfig("nobody_wants_it", **CANDIDATES), out, progress=False)
        chosen = (out / "candidates" / "1536.npz").read_bytes()
        assert (out / "policy.npz").read_bytes() == chosen
        larger = TrainConfig("nobody_wants_it", **{**CANDIDATES, "final_eval_games": 16})
        patched.setattr(ppo, "start_workers", _must_not_train)
        with pytest.raises(AssertionError, match="training started"):
            train(larger, out, resume=True, progress=False)
    assert (out / "policy.npz").read_bytes() == chosen


def test_a_damaged_pending_checkpoint_is_named_as_the_damaged_file(tmp_path, monkeypatch, capsys):
    """The refusal named checkpoint.pt, which was sound, when the pending checkpoint beside it
    could not be read."""
    run = tmp_path / "run"
    _interrupted(monkeypatch, run, "save_checkpoint", 3)  # two evaluations recorded
    (run / "checkpoint.pending.pt").write_bytes(b"not a checkpoint")
    before = disk(tmp_path)
    monkeypatch.setattr(ppo, "start_workers", _must_not_train)
    assert main(["train", "nobody_wants_it", "--resume", "--quiet", "--out", str(run)]) == 2
    assert capsys.readouterr().err.startswith(
        f"cardzoo: error: --resume: {run}/checkpoint.pending.pt is damaged ("
    )
    assert disk(tmp_path) == before


# --- 11. a finished run is extended, never cut short --------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"timesteps": 64}, "finished with timesteps 128; a finished run is extended, not cut "
         "short: give at least that many (not 64), or --force to start again"),
        ({"final_eval_games": 2}, "finished with final_eval_games 4; a finished run is extended"),
    ],
)  # fmt: skip
def test_a_finished_run_is_not_resumed_shorter(finished, change, message, no_training):
    """It was resumed: its final evaluation ran again, and its config.json took the shorter
    length, which a later plain --resume then took as the run's (a review of bad input)."""
    before = disk(finished)
    with pytest.raises(InputError, match=re.escape(message)):
        train(small(**change), finished, resume=True)
    assert disk(finished) == before
