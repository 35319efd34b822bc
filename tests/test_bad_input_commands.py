"""Bad input to the commands and run folders: one clear line naming the option or the file, exit
code 2, and nothing on disk changed (a table of cases, each reproduced from a user's report)."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tiny_runs import disk  # noqa: E402

from cardzoo.cli import main  # noqa: E402
from cardzoo.errors import InputError  # noqa: E402

TINY_RUN = ["--timesteps", "128", "--n-envs", "2", "--eval-every", "64", "--eval-games", "4",
            "--final-eval-games", "4", "--quiet"]  # fmt: skip
#: the same settings without the run's length and final evaluation (what --resume may leave out)
UNSIZED_RUN = ["--n-envs", "2", "--eval-every", "64", "--eval-games", "4", "--quiet"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("runs") / "nwi"
    assert main(["train", "nobody_wants_it", *TINY_RUN, "--out", str(run)]) == 0
    return run


def _interrupted(finished: Path, target: Path) -> Path:
    shutil.copytree(finished, target)
    (target / "metrics.json").unlink()
    return target


def _copy(run: Path, target: Path) -> Path:
    shutil.copytree(run, target)
    return target


def _damage(path: Path, text: str) -> None:
    path.write_text(text)


CASES = {
    "match ppo: a path too long for the system": (
        lambda tmp, run: ["match", "nobody_wants_it", "--agents", f"ppo:{'x' * 5000},random"],
        f"ppo:{'x' * 60}... (5,000 characters) names no file here (File name too long)",
    ),
    "train --opponents ppo: a path too long for the system, with a weight": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--opponents",
            f"ppo:{'x' * 5000}:2,random",
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--opponents: ppo:xxxxxxxx",
    ),
    "match ppo: a device, not a file": (
        lambda tmp, run: ["match", "nobody_wants_it", "--agents", "ppo:/dev/zero,random"],
        "model file /dev/zero is not a regular file",  # it said "does not exist"
    ),
    "match --out a link to nothing": (
        lambda tmp, run: _match_out(_dangling_link(tmp)),
        "--out: '{tmp}/dangling.json' is a link to nothing; give the name of a new file",
    ),
    "match --record the same path as --out": (
        lambda tmp, run: [*_match_out(tmp / "m.json"), "--record", str(tmp / "m.json")],
        "--record: {tmp}/m.json is, or is inside, --out's file {tmp}/m.json: give the recording "
        "a folder of its own",
    ),
    "match --record inside --out": (
        lambda tmp, run: [*_match_out(tmp / "m.json"), "--record", str(tmp / "m.json" / "rec")],
        "--record: {tmp}/m.json/rec is, or is inside, --out's file {tmp}/m.json",
    ),
    "train --opponents in --out, --force": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            *TINY_RUN,
            "--opponents",
            f"ppo:{_copy(run, tmp / 'own')}",
            "--out",
            str(tmp / "own"),
            "--force",
        ],  # fmt: skip
        "--opponents: ppo:{tmp}/own plays {tmp}/own/policy.npz, inside {tmp}/own, the folder "
        "this run writes (--force would remove it first",
    ),
    "exploit an agent in --out, --force": (
        lambda tmp, run: [
            "exploit",
            "nobody_wants_it",
            f"ppo:{_copy(run, tmp / 'own')}",
            "--timesteps",
            "128",
            "--n-envs",
            "2",
            "--out",
            str(tmp / "own"),
            "--force",
            "--quiet",
        ],  # fmt: skip
        "opponents: ppo:{tmp}/own plays {tmp}/own/policy.npz, inside {tmp}/own, the folder this "
        "run writes",
    ),
    "match --out empty": (
        lambda tmp, run: ["match", "henhouse", "--agents", "random,random", "--out", ""],
        "--out: an empty path names no file; give a file name",
    ),
    "tournament --out empty": (
        lambda tmp, run: ["tournament", "henhouse", "--agents", "random,nwi", "--out", ""],
        "--out: an empty path names no folder; give a folder name",
    ),
    "train --out empty": (
        lambda tmp, run: ["train", "nobody_wants_it", "--out", ""],
        "--out: an empty path names no folder; give a folder name",
    ),
    "match --out under a file": (
        lambda tmp, run: _match_out(tmp / "note.txt" / "r.json"),
        "is a file",
    ),
    "train --frame-stack absurd": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--frame-stack",
            "100000000",
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--frame-stack: 100,000,000 is out of range; allowed 1..64",
    ),
    "train --count-fields unknown": (
        lambda tmp, run: [
            "train",
            "foxy",
            "--count-fields",
            "cards",
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--count-fields: foxy has no observation field ['cards']",
    ),
    "train --timesteps absurd": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--timesteps",
            str(10**11),
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--timesteps: 100,000,000,000 is out of range; allowed 1..10,000,000,000",
    ),
    # match and play have no --players: the message named it
    "match --param num_players": (
        lambda tmp, run: [
            "match",
            "nobody_wants_it",
            "--agents",
            "random,random",
            "--param",
            "num_players=3",
        ],  # fmt: skip
        "--param: the number of players is set by --agents, one for each seat, not --param",
    ),
    "play --param num_players": (
        lambda tmp, run: [
            "play",
            "nobody_wants_it",
            "--opponents",
            "random,random",
            "--param",
            "num_players=4",
        ],  # fmt: skip
        "--param: the number of players is set by --opponents, not --param",
    ),
    "match one agent": (
        lambda tmp, run: ["match", "nobody_wants_it", "--agents", "random"],
        "--agents: 1 agent given, one for each seat; num_players=1 is out of range; allowed 2..7",
    ),
    "train --seed beyond 64 bits": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--seed",
            str(2**64),
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--seed: 18,446,744,073,709,551,616 is out of range; allowed 0..18,446,744,073,709,551,615",
    ),
    "match --games absurd": (
        lambda tmp, run: ["match", "henhouse", "--agents", "random,random", "--games", str(10**9)],
        "--games: must be at most 10,000,000",
    ),
    "resume an empty folder": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            *TINY_RUN,
            "--resume",
            "--out",
            str(tmp / "empty"),
        ],  # fmt: skip
        "holds no run to resume (no config.json)",
    ),
    # Paths whose folder cannot be created: refused before any game (as root too, whom
    # permissions never stop, and for whom nothing can be created in /proc).
    "match --out in /proc": (
        lambda tmp, run: [
            "match",
            "nobody_wants_it",
            "--agents",
            "random,random,random,random",
            "--games",
            "200",
            "--out",
            "/proc/none/x.json",
        ],  # fmt: skip
        "--out: cannot write '/proc/none/x.json': ",
    ),
    "match --record in /proc": (
        lambda tmp, run: [
            "match",
            "henhouse",
            "--agents",
            "random,random",
            "--games",
            "2",
            "--record",
            "/proc/none/gifs",
        ],  # fmt: skip
        "--record: cannot write '/proc/none/gifs': ",
    ),
    "tournament --out in /proc": (
        lambda tmp, run: [
            "tournament",
            "nobody_wants_it",
            "--agents",
            "random,nwi_dodger",
            "--out",
            "/proc/none/t",
        ],  # fmt: skip
        "--out: cannot write '/proc/none/t': ",
    ),
    "train --out in /proc": (
        lambda tmp, run: ["train", "nobody_wants_it", *TINY_RUN, "--out", "/proc/none/run"],
        "--out: cannot write '/proc/none/run': ",
    ),
    "exploit --out in /proc": (
        lambda tmp, run: [
            "exploit",
            "nobody_wants_it",
            "random",
            "--timesteps",
            "128",
            "--out",
            "/proc/none/run",
        ],  # fmt: skip
        "--out: cannot write '/proc/none/run': ",
    ),
    "train-rllib --out in /proc": (
        lambda tmp, run: ["train-rllib", "nobody_wants_it", "--out", "/proc/none/run"],
        "--out: cannot write '/proc/none/run': ",
    ),
    "match with an agent parameter given twice": (
        lambda tmp, run: [
            "match",
            "nobody_wants_it",
            "--agents",
            "pimc:simulations=5:simulations=6,random,random,random",
        ],  # fmt: skip
        "--agents: agent 'pimc': parameter simulations given twice in "
        "'simulations=5:simulations=6'",
    ),
    # Opponents that cannot play: refused before the run folder is created (issue 32).
    "train --opponents pretrained of another player count": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--players",
            "3",
            "--opponents",
            "pretrained:1",
            *TINY_RUN,
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--opponents: the pretrained nobody_wants_it policies play {'num_players': 4, "
        "'num_rounds': 3}; none was trained for this game ({'num_players': 3, 'num_rounds': 3})",
    ),
    "train --opponents with an unknown parameter": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--opponents",
            "ismcts:foo=1:1",
            *TINY_RUN,
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--opponents: agent 'ismcts': unknown parameter 'foo'; write KEY=VALUE",
    ),
    "train --opponents with a bad parameter value": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--opponents",
            "pimc:simulations=-1",
            *TINY_RUN,
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "--opponents: simulations must be an integer >= 1, got -1",
    ),
    "train --opponents with an empty policy file": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            "--opponents",
            f"ppo:{_empty_policy(tmp)}:0.5,random",
            *TINY_RUN,
            "--out",
            str(tmp / "new"),
        ],  # fmt: skip
        "is not a cardzoo policy file: it is empty (0 bytes)",
    ),
    # A refused resume writes nothing, config.json included (issue 32).
    "extend a finished run whose checkpoint is damaged": (
        lambda tmp, run: _extend_damaged(run, tmp, ["--timesteps", "256"]),
        "checkpoint.pt is damaged",
    ),
    "resume a finished run whose checkpoint is damaged, no --timesteps": (
        lambda tmp, run: _extend_damaged(run, tmp, []),
        "is finished; nothing to resume (raise --timesteps or --final-eval-games",
    ),
    "resume a finished run without a new length": (
        lambda tmp, run: ["train", "nobody_wants_it", *UNSIZED_RUN, "--resume", "--out", str(run)],
        "is finished; nothing to resume (raise --timesteps or --final-eval-games",
    ),
    "resume with a truncated progress.json": (
        lambda tmp, run: _resume(run, "progress.json", '{"history": [', tmp),
        "progress.json is damaged",
    ),
    "resume with an edited config.json": (
        lambda tmp, run: _resume(run, "config.json", '{"game": 3}', tmp),
        "config.json is damaged",
    ),
    "resume with a damaged checkpoint": (
        lambda tmp, run: _resume(run, "checkpoint.pt", "not a checkpoint", tmp),
        "checkpoint.pt is damaged",
    ),
    "resume with a deleted checkpoint": (
        lambda tmp, run: _resume(run, "checkpoint.pt", None, tmp),
        "checkpoint.pt is missing, so the run cannot continue where it stopped",
    ),
    "resume with a best score of NaN": (
        lambda tmp, run: _resume(run, "progress.json", _nan_progress(run), tmp),
        "best_score must be a number, got nan",
    ),
    "a finished run without --resume or --force": (
        lambda tmp, run: ["train", "nobody_wants_it", *TINY_RUN, "--out", str(run)],
        "holds a finished run; --resume with a larger --timesteps",
    ),
    "resume a finished run with its own settings": (
        lambda tmp, run: ["train", "nobody_wants_it", *TINY_RUN, "--resume", "--out", str(run)],
        "is finished; nothing to resume (raise --timesteps or --final-eval-games",
    ),
    "match --out an existing file": (
        lambda tmp, run: _match_out(tmp / "note.txt"),
        "note.txt' exists; give the name of a new file",
    ),
    "--force over a folder whose config.json is a user's": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            *TINY_RUN,
            "--force",
            "--out",
            str(_users_folder(tmp)),
        ],  # fmt: skip
        "is not empty and holds no run",
    ),
    "--force over a user's config.json naming a game, beside a metrics.json": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            *TINY_RUN,
            "--force",
            "--out",
            str(_users_folder(tmp, '{"game": "nobody_wants_it"}')),
        ],  # fmt: skip
        "is not empty and holds no run",
    ),
    "--force over an empty config.json beside a user's metrics.json": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            *TINY_RUN,
            "--force",
            "--out",
            str(_users_folder(tmp, "")),
        ],  # fmt: skip
        "is not empty and holds no run",
    ),
    "--resume in a folder whose config.json is a user's": (
        lambda tmp, run: [
            "train",
            "nobody_wants_it",
            *TINY_RUN,
            "--resume",
            "--out",
            str(_users_folder(tmp)),
        ],  # fmt: skip
        "holds no run to resume (config.json is not a run's settings)",
    ),
    "resume another game's run": (
        lambda tmp, run: ["train", "minus_two", "--resume", "--out", str(run)],
        "holds a run of nobody_wants_it, not of minus_two; resume it as nobody_wants_it",
    ),
    "another game's run without --resume": (
        lambda tmp, run: ["train", "minus_two", *TINY_RUN, "--out", str(run)],
        "holds a run of nobody_wants_it; choose another --out (--force replaces it)",
    ),
}


def _dangling_link(tmp: Path) -> Path:
    """Checked by exists(), which follows it, the match was played, then refused as a file that
    "appeared while the command ran" (the result went to dangling-1.json)."""
    link = tmp / "dangling.json"
    link.symlink_to(tmp / "nowhere" / "target.json")
    return link


def _match_out(path: Path) -> list[str]:
    return ["match", "henhouse", "--agents", "random,random", "--out", str(path)]


def _users_folder(tmp: Path, config: str | None = None) -> Path:
    """A user's folder that happens to hold a ``config.json`` of its own (with ``config``: that
    text, beside a ``metrics.json`` of the user's; both had been taken for a run's, and --force
    replaced them)."""
    folder = tmp / "project"
    folder.mkdir()
    (folder / "config.json").write_text('{"project": 1}' if config is None else config)
    if config is not None:
        (folder / "metrics.json").write_text('{"my": "metrics"}')
    return folder


def _extend_damaged(run: Path, tmp: Path, length: list[str]) -> list[str]:
    """A copy of the finished run with its checkpoint damaged, resumed with ``length``."""
    target = tmp / "damaged"
    shutil.copytree(run, target)
    (target / "checkpoint.pt").write_text("not a checkpoint")
    return ["train", "nobody_wants_it", *UNSIZED_RUN, *length, "--resume", "--out", str(target)]


def _empty_policy(tmp: Path) -> Path:
    (tmp / "empty_policy").mkdir()
    (tmp / "empty_policy" / "policy.npz").write_bytes(b"")
    return tmp / "empty_policy"


def _resume(run: Path, name: str, text: str | None, tmp: Path) -> list[str]:
    target = _interrupted(run, tmp / "interrupted")
    if text is None:
        (target / name).unlink()
    else:
        _damage(target / name, text)
    return ["train", "nobody_wants_it", *TINY_RUN, "--resume", "--out", str(target)]


def _nan_progress(run: Path) -> str:
    progress = json.loads((run / "progress.json").read_text())
    progress["best_score"] = float("nan")
    return json.dumps(progress)


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_and_changes_nothing(case, finished, tmp_path, capsys, monkeypatch):
    import cardzoo.training.ppo as ppo

    def must_not_train(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(ppo, "start_workers", must_not_train)
    make_argv, message = CASES[case]
    (tmp_path / "note.txt").write_text("mine")
    (tmp_path / "empty").mkdir()
    argv = make_argv(tmp_path, finished)
    before = {folder: disk(folder) for folder in (tmp_path, finished)}
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cardzoo: error: "), err
    assert message.replace("{tmp}", str(tmp_path)) in err, err
    assert {folder: disk(folder) for folder in (tmp_path, finished)} == before
    assert not (tmp_path / "new").exists()


def test_resume_without_a_length_keeps_the_runs_own(finished, tmp_path, monkeypatch):
    """Decision (issue 32): --resume without --timesteps or --final-eval-games continues to the
    run's own length and final evaluation (here 128 steps, 4 games), not the game's default of
    300,000 steps and 1,000 games."""
    import cardzoo.training.ppo as ppo

    real_start_workers = ppo.start_workers

    def only_the_runs_length(config, *args, **kwargs):
        assert (config.timesteps, config.final_eval_games) == (128, 4)
        return real_start_workers(config, *args, **kwargs)

    monkeypatch.setattr(ppo, "start_workers", only_the_runs_length)
    run = _interrupted(finished, tmp_path / "run")
    assert main(["train", "nobody_wants_it", *UNSIZED_RUN, "--resume", "--out", str(run)]) == 0
    saved = json.loads((run / "config.json").read_text())
    assert (saved["timesteps"], saved["final_eval_games"]) == (128, 4)
    assert json.loads((run / "metrics.json").read_text())["final_evaluation"]["games"] == 4


def test_resumed_settings_from_python_take_the_saved_length(finished):
    from cardzoo.training.ppo import TrainConfig, resumed_settings

    config = resumed_settings(TrainConfig("nobody_wants_it", n_envs=2), finished)
    assert (config.timesteps, config.final_eval_games) == (128, 4)
    longer = resumed_settings(TrainConfig("nobody_wants_it", timesteps=256), finished)
    assert (longer.timesteps, longer.final_eval_games) == (256, 4)


def test_force_replaces_only_the_runs_own_files(finished, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    (run / "my_notes.txt").write_text("keep me")
    assert main(["train", "nobody_wants_it", *TINY_RUN, "--force", "--out", str(run)]) == 0
    assert (run / "my_notes.txt").read_text() == "keep me"
    assert (run / "metrics.json").is_file()


def test_an_interrupted_run_resumes_from_the_command_line(finished, tmp_path, capsys):
    run = _interrupted(finished, tmp_path / "run")
    assert main(["train", "nobody_wants_it", *TINY_RUN, "--resume", "--out", str(run)]) == 0
    assert "learner + 3 x random" in capsys.readouterr().out


def test_run_files_follow_the_users_umask(finished):
    for name in ("policy.npz", "checkpoint.pt", "metrics.json", "progress.json", "config.json"):
        mode = stat.S_IMODE((finished / name).stat().st_mode)
        assert mode & 0o044 == 0o044, (name, oct(mode))  # readable by group and others (umask 022)


# ----------------------------------------------------------------------------------------------
# The Python helpers
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: _play_match(params={"max_cycles": 5}), "max_cycles is not a game parameter (pass"),
        (lambda: _play_match(params={"render_mode": "ansi"}), "render_mode is not a game param"),
        (lambda: _play_match(params={"colour": "red"}), "no parameter 'colour'; its parameters"),
        (lambda: _simulate(params={"max_cycles": 5}), "max_cycles is not a game parameter"),
        (lambda: _play_match(lineup=[_returns_none] * 4), "agent factory 'broken' returned None"),
        # a range says "low..high", or ">= low" without a bound (issue 32), not "allowed 1"
        (
            lambda: _play_match(max_cycles=0),
            "^max_cycles=0 is out of range; allowed 1..9223372036854775807$",
        ),
        (lambda: _play_match(seed=-1), "^seed=-1 is out of range; allowed >= 0$"),
        # a string is true to Python: "no" played mirrored deals
        (lambda: _play_match(mirrored="no"), "^mirrored must be True or False, got 'no'$"),
        (lambda: _play_match(tables=1), "^tables must be True or False, got 1$"),
    ],
)
def test_play_match_and_simulate_name_what_they_refuse(call, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        call()


@pytest.mark.parametrize(
    "game_name, agent_name, engine, message",
    [
        # an engine of another game: a bare AssertionError in the heuristic's first move, an
        # AttributeError, or (random) an agent of the wrong game without a word
        ("nobody_wants_it", "nwi_dodger", "foxy", "make_agent: game is a foxy game, not nobody"),
        ("foxy", "perfect_memory", "nobody_wants_it", "game is a nobody_wants_it game, not foxy"),
        ("foxy", "random", "nobody_wants_it", "game is a nobody_wants_it game, not foxy"),
        ("nobody_wants_it", "random", None, "game must be the game's engine, load_game"),
        # an empty path is never the current folder (it played ./policy.npz)
        ("nobody_wants_it", "ppo:", "nobody_wants_it", "^ppo: an empty path names no policy"),
        ("nobody_wants_it", "ppo: ", "nobody_wants_it", "^ppo: an empty path names no policy"),
        ("nobody_wants_it", "rllib:", "nobody_wants_it", "^rllib: an empty path names no"),
        # not a name: AttributeError ('NoneType' object has no attribute 'partition')
        ("nobody_wants_it", None, "nobody_wants_it", "agent_name must be an agent's name, got No"),
        ("nobody_wants_it", 3, "nobody_wants_it", "agent_name must be an agent's name, got 3"),
    ],
)
def test_make_agent_refuses_an_engine_of_another_game_and_an_empty_policy_path(
    game_name, agent_name, engine, message, tmp_path, monkeypatch
):
    from cardzoo.agents import make_agent
    from cardzoo.agents.policy import POLICY_FILE, save_policy
    from cardzoo.envs import load_game

    if str(agent_name).startswith("ppo"):  # a policy in the current folder, not to be played
        monkeypatch.chdir(tmp_path)
        policy, info = read_policy_of_pretrained()
        save_policy(tmp_path / POLICY_FILE, policy, info)
    game = None if engine is None else load_game(engine)
    with pytest.raises(InputError, match=message):
        make_agent(game_name, agent_name, game)


def test_a_policy_that_does_not_fit_names_the_parameter_that_matters():
    """The message listed both parameter sets; a user who then set the reward too (which
    changes nothing a seat sees) got the same refusal."""
    from cardzoo.agents import make_agent
    from cardzoo.agents.policy import pretrained_file
    from cardzoo.envs import load_game

    game = load_game("nobody_wants_it", num_players=3, reward="win")
    with pytest.raises(InputError) as refused:
        make_agent("nobody_wants_it", f"ppo:{pretrained_file('nobody_wants_it')}", game)
    assert str(refused.value).endswith(
        "differ from this game's ({'num_players': 3, 'num_rounds': 3, 'reward': 'win'}): "
        "num_players is 4 there and 3 here (reward may differ)"
    )


def test_a_policy_is_refused_at_another_player_count_where_the_sizes_fit():
    """In Foxy the observation and actions do not depend on the player count: a 2-player
    policy played 3-player games (``cardzoo match``, as a training opponent) without a word,
    though ``pretrained`` refused the same file there (a review)."""
    import cardzoo
    from cardzoo.agents import make_agent
    from cardzoo.envs import load_game

    game = load_game("foxy", num_players=3, memory="none")
    assert game.observation_size == load_game("foxy", memory="none").observation_size
    shipped = Path(cardzoo.__file__).parent / "agents" / "pretrained" / "foxy.npz"  # memory none
    with pytest.raises(InputError) as refused:
        make_agent("foxy", f"ppo:{shipped}", game)
    assert str(refused.value) == (
        f"{shipped} was trained on foxy with {{'num_players': 2, 'memory': 'none', 'reward': "
        "'win', 'max_guess': 40}, for 2 players, not 3 ({'num_players': 3, 'memory': 'none', "
        "'reward': 'win', 'max_guess': 40}): play it at 2 players"
    )


def test_a_policy_agent_built_with_inputs_other_than_its_runs_is_refused_when_built():
    """It failed at its first move with numpy's matmul error (a review)."""
    import cardzoo
    from cardzoo.agents.policy import PolicyAgent, read_policy
    from cardzoo.envs import load_game

    policy, info = read_policy(Path(cardzoo.__file__).parent / "agents/pretrained/foxy.npz")
    assert info["count_fields"] == ["card"]  # its run counted the cards
    with pytest.raises(InputError) as refused:
        PolicyAgent(load_game("foxy", memory="none"), policy)
    assert str(refused.value) == (
        "ppo does not fit foxy (frame_stack 1, count_fields []: those of its training run?): its "
        "first layer takes 91 inputs, but this game's observations give 71"
    )


def test_memory_size_without_a_recurrent_core_is_refused_even_at_its_default(tmp_path, capsys):
    """``--memory-size 64`` without ``--memory`` trained (64 is the default), where the docs
    promise a refusal and ``--memory-size 32`` got one (a review)."""
    out = tmp_path / "run"
    assert main(["train", "foxy", "--memory-size", "64", "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith(
        "cardzoo: error: --memory-size: only with a recurrent core (--memory gru or lstm)"
    )
    assert not out.exists()


def read_policy_of_pretrained():
    from cardzoo.agents.policy import pretrained_file, read_policy

    return read_policy(pretrained_file("nobody_wants_it"))


def test_read_policy_refuses_what_is_not_a_path():
    from cardzoo.agents.policy import read_policy

    for path in (None, "", 3):
        with pytest.raises(InputError, match="^read_policy: path must name a policy file"):
            read_policy(path)


def _returns_none(game, seed):
    return None


_returns_none.name = "broken"


def _play_match(lineup=("random",) * 4, params=None, **settings):
    from cardzoo.evaluation import play_match

    return play_match("nobody_wants_it", list(lineup), 4, params=params, **settings)


def _simulate(params=None):
    from cardzoo.evaluation import simulate

    return simulate("nobody_wants_it", 4, params=params)


def test_a_bug_during_training_keeps_its_traceback_and_the_run_resumes(tmp_path, monkeypatch):
    """Only refused input is the one-line error: a ValueError from a bug after the training
    loop propagates (the program would print its traceback), and the run it leaves behind is an
    interrupted one that --resume finishes."""
    import cardzoo.training.ppo as ppo

    real_final_evaluation = ppo.final_evaluation

    def broken(config, policy):
        raise ValueError("a bug in the final evaluation")

    run = tmp_path / "run"
    monkeypatch.setattr(ppo, "final_evaluation", broken)
    with pytest.raises(ValueError, match="a bug in the final evaluation"):
        main(["train", "nobody_wants_it", *TINY_RUN, "--out", str(run)])
    assert (run / "checkpoint.pt").is_file() and not (run / "metrics.json").exists()
    monkeypatch.setattr(ppo, "final_evaluation", real_final_evaluation)
    assert main(["train", "nobody_wants_it", *TINY_RUN, "--resume", "--out", str(run)]) == 0
    assert json.loads((run / "metrics.json").read_text())["timesteps"] == 128


@pytest.mark.parametrize(
    "argv, folder",
    [
        (["train", "nobody_wants_it", *TINY_RUN], "runs/nobody_wants_it"),
        (
            ["exploit", "nobody_wants_it", "random", "--quiet"],
            "runs/exploit-nobody_wants_it-random",
        ),
        (["train-rllib", "nobody_wants_it"], "runs/nobody_wants_it-rllib"),
    ],
)
def test_a_default_run_folder_that_cannot_be_created_is_refused_first(
    argv, folder, monkeypatch, capsys
):
    """Without --out the default folder (under the current one) is checked as --out is."""
    monkeypatch.chdir("/proc")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo: error: --out: cannot write '{folder}': "), err
    assert err.endswith(" (the default folder; give --out)\n") and err.count("\n") == 1


def test_train_from_python_refuses_an_opponent_before_creating_the_folder(tmp_path):
    """The same checks in ``cardzoo.training.ppo.train()``: nothing is created."""
    from cardzoo.errors import InputError
    from cardzoo.training.ppo import TrainConfig, train

    config = TrainConfig("nobody_wants_it", opponents="pimc:simulations=-1", timesteps=128)
    with pytest.raises(
        InputError, match="^opponents: simulations must be an integer >= 1, got -1$"
    ):
        train(config, tmp_path / "run", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_force_leaves_a_users_files_in_the_runs_folders(finished, tmp_path):
    """``--force`` starts a run again over the old one's files, and only those: a user's files
    in the run's ``tb`` and ``candidates`` folders stay, with the folders."""
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    (run / "candidates").mkdir(exist_ok=True)
    mine = [run / "notes.txt", run / "tb" / "notes.txt", run / "candidates" / "notes.txt"]
    for path in mine:
        path.write_text("mine")
    (run / "candidates" / "64.npz").write_bytes(b"a candidate the old run kept")
    old_events = sorted((run / "tb").glob("events.out.tfevents.*"))
    assert main(["train", "nobody_wants_it", *TINY_RUN, "--force", "--out", str(run)]) == 0
    assert [path.read_text() for path in mine] == ["mine"] * 3
    assert not (run / "candidates" / "64.npz").exists()
    assert not set(old_events) & set((run / "tb").glob("events.out.tfevents.*"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tournament", "foxy", "--agents", "random,forgetful", "--players", "1"],
         "cardzoo: error: --players: players=1 is out of range; allowed 2..5"),
        (["train", "nobody_wants_it", "--resume", "--out", "{tmp}/none"],
         "cardzoo: error: --resume: {tmp}/none holds no run to resume (no config.json)"),
    ],
)  # fmt: skip
def test_a_refusal_names_the_option_that_gave_the_value(argv, message, tmp_path, capsys):
    """The library names a refused value as Python does (``players=1``, ``resume: ...``); the
    command line names the option, as its other errors do."""
    argv = [part.replace("{tmp}", str(tmp_path)) for part in argv]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(message.replace("{tmp}", str(tmp_path)))


def test_an_opponent_in_a_users_subfolder_of_the_run_is_played(finished, tmp_path):
    """Only the run's own files are refused as opponents (a code review: every file under the
    folder was, with a reason that did not hold for a subfolder the run never touches)."""
    run = _copy(finished, tmp_path / "own")
    (run / "mine").mkdir()
    shutil.copy(run / "policy.npz", run / "mine" / "policy.npz")
    argv = ["train", "nobody_wants_it", *TINY_RUN, "--opponents", f"ppo:{run / 'mine'}"]
    assert main([*argv, "--out", str(run), "--force"]) == 0
    assert (run / "mine" / "policy.npz").is_file()
