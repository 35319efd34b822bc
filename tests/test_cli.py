"""The ``cardzoo`` command: its subcommands, its one error path and its exit codes."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import types

import pytest

import cardzoo
from cardzoo import cli
from cardzoo.cli import args as cli_args


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----------------------------------------------------------------------------------------------
# Subcommands that work
# ----------------------------------------------------------------------------------------------


def test_cli_list(capsys):
    code, out, _ = run(capsys, "list", "--agents", "--params")
    assert code == 0
    for name in ("henhouse_v0", "nobody_wants_it_v0", "believe_it_or_not_v1", "foxy_v0"):
        assert name in out
    assert "agents: random, hand_shedder, nwi_dodger" in out
    assert "parameters: num_players=4, num_rounds=3, reward='win'" in out
    # each game's line: its player counts and description, as its engine class declares them
    assert (
        "foxy_v0                 1..5      memory game: write how many animals have appeared so "
        "far (simultaneous moves)\n"
    ) in out


def test_cli_simulate(capsys):
    code, out, _ = run(capsys, "simulate", "henhouse", "--players", "3", "--games", "20", "--quiet")
    assert code == 0
    assert "henhouse {'num_players': 3}: 20 games of random play" in out and "player_2:" in out


def test_cli_game_names_as_listed_are_accepted(capsys):
    """Decision: a game is accepted as ``cardzoo list`` prints it (henhouse_v0) or without the
    suffix; both play the same games."""
    _, with_suffix, _ = run(capsys, "simulate", "henhouse_v0", "--games", "5", "--quiet")
    _, without, _ = run(capsys, "simulate", "henhouse", "--games", "5", "--quiet")
    assert with_suffix == without and "henhouse {'num_players': 4}: 5 games" in without


def test_cli_game_of_another_version_is_refused_naming_the_installed_one(capsys):
    code, _, err = run(capsys, "simulate", "believe_it_or_not_v0", "--games", "5")
    assert code == 2
    assert "'believe_it_or_not_v0': this cardzoo has believe_it_or_not_v1" in err
    assert run(capsys, "simulate", "believe_it_or_not_v1", "--games", "5", "--quiet")[0] == 0


def test_cli_match_writes_json(tmp_path, capsys):
    out_file = tmp_path / "result.json"
    argv = ["match", "henhouse", "--agents", "random,random", "--games", "4", "--quiet"]
    code, out, _ = run(capsys, *argv, "--out", str(out_file))
    assert code == 0 and f"results written to {out_file}" in out
    data = json.loads(out_file.read_text())
    assert data["num_games"] == 4 and data["agents"][0]["agent"] == "random"
    assert data["params"] == {"num_players": 2}
    # results are comparable within one version of a game: the file says which
    assert (data["game"], data["env"], data["cardzoo"]) == (
        "henhouse",
        "henhouse_v0",
        cardzoo.__version__,
    )
    argv = ["match", "believe_it_or_not", "--agents", "random,random", "--games", "2", "--quiet"]
    assert run(capsys, *argv, "--out", str(tmp_path / "bion.json"))[0] == 0
    assert json.loads((tmp_path / "bion.json").read_text())["env"] == "believe_it_or_not_v1"


def test_cli_agents_list_ignores_spaces(capsys):
    code, out, _ = run(
        capsys, "match", "nobody_wants_it", "--agents", " nwi_dodger , random", "--games", "2",
        "--quiet",
    )  # fmt: skip
    assert code == 0
    assert "\nnwi_dodger " in out and "\nrandom " in out


def test_cli_param_sets_a_game_parameter(capsys):
    code, out, _ = run(
        capsys, "simulate", "nobody_wants_it", "--param", "reward=points", "--param",
        "num_rounds=1", "--players", "3", "--games", "3", "--quiet",
    )  # fmt: skip
    assert code == 0
    assert "{'num_players': 3, 'num_rounds': 1, 'reward': 'points'}" in out


@pytest.mark.parametrize(
    ("value", "taken"),
    [("True", True), ("False", False), ("true", True), ("false", False)],
)
def test_cli_param_takes_a_bool_as_cardzoo_list_prints_it(value, taken, capsys):
    """``cardzoo list --params`` prints ``special_cards=True``; copied, it was refused with
    "special_cards must be True or False, got 'True'" (a review of bad input)."""
    argv = ["simulate", "believe_it_or_not", "--param", f"special_cards={value}", "--games", "2"]
    code, out, _ = run(capsys, *argv, "--quiet")
    assert code == 0 and f"'special_cards': {taken}}}" in out
    assert "special_cards=True" in run(capsys, "list", "--params")[1]


def test_cli_max_cycles_truncates(capsys):
    code, out, _ = run(capsys, "simulate", "henhouse", "--games", "3", "--max-cycles", "1")
    assert code == 0 and "truncated (max_cycles reached): 3 of 3" in out


def test_cli_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"cardzoo {cardzoo.__version__}\n"


def test_cli_help_exits_0(capsys):
    code, out, _ = run(capsys, "match", "--help")
    assert code == 0 and "--agents NAMES" in out


def test_cardzoo_help_is_plain_text_without_docstring_markup(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "The cardzoo command: list the games" in out and "``" not in out


def test_python_dash_m_cardzoo_runs_the_command():
    done = subprocess.run(
        [sys.executable, "-m", "cardzoo", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout == f"cardzoo {cardzoo.__version__}\n"


# ----------------------------------------------------------------------------------------------
# Bad arguments: one line naming the option, exit code 2, no traceback
# ----------------------------------------------------------------------------------------------

BAD_ARGUMENTS = [
    (["simulate", "henhouse", "--param", "foo=1"], "--param: henhouse has no parameter 'foo'"),
    (["simulate", "nobody_wants_it", "--param", "reward=bogus"], "--param: reward='bogus'"),
    (["simulate", "henhouse", "--param", "noequals"], "--param: wants KEY=VALUE"),
    (["simulate", "henhouse", "--max-cycles", "0"], "--max-cycles: must be an integer of at"),
    (["simulate", "henhouse", "--max-cycles", "-3"], "--max-cycles: must be an integer of at"),
    (["simulate", "henhouse", "--max-cycles", "2.5"], "--max-cycles: must be an integer of at"),
    (["simulate", "henhouse", "--seed", "-1"], "--seed: must be a non-negative integer"),
    (["simulate", "henhouse", "--seed", "x"], "--seed: must be a non-negative integer"),
    (["simulate", "henhouse", "--games", "0"], "--games: must be an integer of at least 1"),
    (["simulate", "henhouse", "--players", "9"], "--players: num_players=9 is out of range"),
    (["simulate", "henhouse", "--players", "0"], "--players: must be an integer of at least 1"),
    (
        ["simulate", "henhouse", "--param", "num_players=3", "--players", "4"],
        "--param: set num_players with --players",
    ),
    (
        ["simulate", "henhouse", "--param", "max_cycles=3"],
        "--param: set max_cycles with --max-cycles",
    ),
    (
        ["simulate", "minus_two", "--param", "target_score=60", "--param", "target_score=70"],
        "--param: target_score given twice",
    ),
    (["simulate", "chess"], "GAME: unknown game 'chess'"),
    (["simulate"], "the following arguments are required: GAME"),
    ([], "the following arguments are required: COMMAND"),
    (["juggle"], "COMMAND: invalid choice: 'juggle'"),
    (["simulate", "henhouse", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["match", "henhouse"], "the following arguments are required: --agents"),
    (["match", "henhouse", "--agents", "random,,random"], "--agents: an empty agent name"),
    (["match", "henhouse", "--agents", " , "], "--agents: give at least one agent name"),
    (["match", "nobody_wants_it", "--agents", "nope,random"], "--agents: unknown agent 'nope'"),
    (["match", "henhouse", "--agents", "xyz:model,random"], "--agents: unknown policy kind 'xyz'"),
    (
        ["match", "henhouse", "--agents", "random"],
        "--agents: 1 agent given, one for each seat; num_players=1 is out of range",
    ),
    (
        ["match", "nobody_wants_it", "--agents", "pimc:simulations=abc,random"],
        "--agents: agent 'pimc': parameter simulations must be int, got 'abc'",
    ),
    (
        ["match", "nobody_wants_it", "--agents", "pimc::seed=1,random"],
        "--agents: agent 'pimc': empty parameter in ':seed=1'",
    ),
    (["match", "henhouse", "--agents", "random,random", "--players", "3"], "unrecognized"),
]


@pytest.mark.parametrize("argv, message", BAD_ARGUMENTS)
def test_every_usage_error_is_one_line_naming_the_option_with_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv, "--quiet") if argv[:1] == ["match"] else run(capsys, *argv)
    assert code == 2
    assert err.startswith(f"cardzoo: error: {message}"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


def test_input_the_library_refuses_is_a_usage_error_too(capsys, monkeypatch):
    import cardzoo.evaluation
    from cardzoo.errors import InputError

    def refuse(*args, **kwargs):
        raise InputError("deck: 'Zebra' is not a card of this game")

    monkeypatch.setattr(cardzoo.evaluation, "simulate", refuse)
    code, _, err = run(capsys, "simulate", "henhouse")
    assert (code, err) == (2, "cardzoo: error: deck: 'Zebra' is not a card of this game\n")


def test_any_other_value_error_is_a_bug_and_keeps_its_traceback(capsys, monkeypatch):
    """Only refused input becomes the one-line error; a ValueError from a bug propagates."""
    import cardzoo.evaluation

    def broken(*args, **kwargs):
        raise ValueError("operands could not be broadcast together")

    monkeypatch.setattr(cardzoo.evaluation, "simulate", broken)
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        cli.main(["simulate", "henhouse"])
    assert capsys.readouterr().err == ""


def test_a_bug_in_a_command_run_as_a_program_prints_its_traceback(tmp_path):
    """The same through ``python -m cardzoo``: exit code 1 and Python's traceback."""
    script = (
        "import sys\n"
        "import cardzoo.evaluation\n"
        "def broken(*args, **kwargs):\n"
        "    raise ValueError('a bug, not your input')\n"
        "cardzoo.evaluation.simulate = broken\n"
        "from cardzoo.cli import main\n"
        "sys.exit(main(['simulate', 'henhouse']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert done.stderr.startswith("Traceback (most recent call last):")
    assert done.stderr.rstrip().endswith("ValueError: a bug, not your input")


def test_unwritable_out_fails_before_the_match_runs(tmp_path, capsys, monkeypatch):
    import cardzoo.evaluation

    def must_not_run(*args, **kwargs):
        raise AssertionError("the match ran before --out was checked")

    monkeypatch.setattr(cardzoo.evaluation, "play_match", must_not_run)
    a_file = tmp_path / "file.txt"
    a_file.write_text("")
    for out, message in [
        (a_file / "result.json", f"cannot write '{a_file / 'result.json'}': '{a_file}' is a file"),
        (tmp_path, f"'{tmp_path}' is a folder; give a file name"),
    ]:
        argv = ["match", "henhouse", "--agents", "random,random", "--out", str(out)]
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.startswith(f"cardzoo: error: --out: {message}"), err
        assert err.count("\n") == 1


def test_out_in_a_folder_without_write_permission_is_refused(tmp_path, capsys, monkeypatch):
    # os.access is what the check asks; faked here because the tests may run as root
    monkeypatch.setattr(cli_args.os, "access", lambda path, mode: path != tmp_path)
    argv = ["match", "henhouse", "--agents", "random,random", "--out", str(tmp_path / "r.json")]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith(f"cardzoo: error: --out: cannot write '{tmp_path / 'r.json'}': no ")
    assert f"no permission to write in '{tmp_path}'" in err


def test_out_of_a_match_of_one_game_is_strict_json_with_null_intervals(tmp_path, capsys):
    """An agent of one game has no interval: the file said NaN, which is not JSON (JavaScript's
    JSON.parse refuses the file)."""
    out = tmp_path / "r.json"
    argv = ["match", "nobody_wants_it", "--agents", "random,nwi_dodger,random", "--games", "1",
            "--quiet", "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0

    def refuse(constant):
        raise AssertionError(f"{constant} in the file")

    summary = json.loads(out.read_text(), parse_constant=refuse)
    nwi_dodger = next(a for a in summary["agents"] if a["agent"] == "nwi_dodger")
    assert nwi_dodger["seat_games"] == 1 and nwi_dodger["mean_reward_ci"] == [None, None]
    assert isinstance(nwi_dodger["mean_reward"], float)


def test_out_into_missing_folders_is_created_and_mode_follows_umask(tmp_path, capsys):
    target = tmp_path / "new" / "deeper" / "r.json"
    old = os.umask(0o022)
    try:
        code = cli.main(["match", "henhouse", "--agents", "random,random", "--games", "2",
                         "--quiet", "--out", str(target)])  # fmt: skip
    finally:
        os.umask(old)
    assert code == 0 and stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]


def test_out_that_appears_while_the_match_runs_is_never_replaced(tmp_path, capsys, monkeypatch):
    """``--out`` is checked new when the command starts; a file of that name made while the
    match runs is left as it was, and the results go beside it, named in the error."""
    import cardzoo.evaluation

    target = tmp_path / "race.json"
    real = cardzoo.evaluation.play_match

    def user_saves_a_file_meanwhile(*args, **kwargs):
        result = real(*args, **kwargs)
        target.write_text("user data\n")
        return result

    monkeypatch.setattr(cardzoo.evaluation, "play_match", user_saves_a_file_meanwhile)
    argv = ["match", "henhouse", "--agents", "random,random", "--games", "2", "--quiet"]
    code, _, err = run(capsys, *argv, "--out", str(target))
    assert target.read_text() == "user data\n"
    kept = tmp_path / "race-1.json"
    assert code == 2 and err == (
        f"cardzoo: error: --out: '{target}' appeared while the command ran and is left as it "
        f"was (a file that exists is never replaced); the result is in '{kept}' instead\n"
    )
    assert json.loads(kept.read_text())["num_games"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race-1.json", "race.json"]


def test_a_recorded_game_that_appears_while_the_match_runs_is_never_replaced(
    tmp_path, capsys, monkeypatch
):
    import cardzoo.recording

    folder = tmp_path / "gifs"
    real = cardzoo.recording.write_gif

    def user_saves_a_file_meanwhile(path, frames, **kwargs):
        if not (folder / "game_0001.gif").exists():
            folder.mkdir(exist_ok=True)
            (folder / "game_0001.gif").write_text("user data\n")
        return real(path, frames, **kwargs)

    monkeypatch.setattr(cardzoo.recording, "write_gif", user_saves_a_file_meanwhile)
    argv = ["match", "henhouse", "--agents", "random,random", "--games", "2", "--quiet"]
    code, out, err = run(capsys, *argv, "--record", str(folder))
    assert (folder / "game_0001.gif").read_text() == "user data\n"
    assert code == 2 and "2 recorded games written to" in out
    assert err.startswith(f"cardzoo: error: --record: '{folder / 'game_0001.gif'}' appeared ")
    assert f"the result is in '{folder / 'game_0001-1.gif'}' instead" in err
    names = sorted(p.name for p in folder.iterdir())  # the hidden scratch folder is gone
    assert names == ["game_0001-1.gif", "game_0001.gif", "game_0002.gif"]
    assert (folder / "game_0001-1.gif").read_bytes().startswith(b"GIF")


@pytest.mark.parametrize("links", [True, False])
def test_write_bytes_new_never_replaces_a_file_with_or_without_hard_links(
    tmp_path, monkeypatch, links
):
    """Where the file system has no hard links (``os.link`` fails), the file is created only if
    its name is free: never replacing either."""
    from cardzoo import io
    from cardzoo.errors import InputError

    if not links:

        def no_hard_links(source, target):
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(io.os, "link", no_hard_links)
    target = tmp_path / "r.json"
    assert io.write_bytes_new(target, b"first") == target
    assert target.read_bytes() == b"first"
    (tmp_path / "r-1.json").write_bytes(b"also a user's")
    with pytest.raises(InputError, match="the result is in .*r-2.json' instead"):
        io.write_bytes_new(target, b"second")
    assert target.read_bytes() == b"first"
    assert (tmp_path / "r-1.json").read_bytes() == b"also a user's"
    assert (tmp_path / "r-2.json").read_bytes() == b"second"
    assert len(list(tmp_path.iterdir())) == 3  # no temporary file left behind


# ----------------------------------------------------------------------------------------------
# Ctrl-C
# ----------------------------------------------------------------------------------------------


def test_keyboard_interrupt_exits_130_with_one_line(capsys, monkeypatch):
    import cardzoo.evaluation

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cardzoo.evaluation, "play_match", interrupted)
    code, _, err = run(capsys, "match", "henhouse", "--agents", "random,random")
    assert code == 130 and err.strip() == "cardzoo: interrupted"


def test_ctrl_c_during_a_simulation_prints_interrupted_and_exits_130():
    """The real thing: SIGINT to ``python -m cardzoo`` while a long simulation runs."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cardzoo", "simulate", "henhouse", "--games", "1000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a shell starts it: a test worker may have been left ignoring SIGINT, and a child
        # inherits that (Python then never raises KeyboardInterrupt)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # wait for the progress bar (not any first byte, such as a warning at import): the
        # games are being played
        seen = ""
        while "simulation" not in seen:
            character = process.stderr.read(1)
            assert character, f"the simulation ended before its progress bar: {seen!r}"
            seen += character
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130
    assert "Traceback" not in err and err.rstrip().endswith("cardzoo: interrupted")
    assert out == ""


# ----------------------------------------------------------------------------------------------
# The shared helpers other subcommands build on
# ----------------------------------------------------------------------------------------------


def test_shared_helpers_build_a_new_subcommand(capsys, tmp_path, monkeypatch):
    """A subcommand registered the documented way gets checked arguments and the error path."""
    seen = {}

    def add_echo_parser(subparsers):
        parser = subparsers.add_parser("echo")
        cli_args.add_game_argument(parser)
        cli_args.add_players_argument(parser)
        cli_args.add_param_argument(parser)
        cli_args.add_seed_argument(parser)
        cli_args.add_max_cycles_argument(parser)
        cli_args.add_agents_argument(parser, required=False)
        cli_args.add_out_argument(parser, folder=True)
        parser.set_defaults(func=run_echo)

    def run_echo(args):
        seen["params"] = cli_args.game_params(args)
        seen["args"] = args
        if args.agents:
            cli_args.check_agent_names(args.game, args.agents)
        return 0

    echo = types.SimpleNamespace(add_parser=add_echo_parser)
    monkeypatch.setattr(cli, "SUBCOMMANDS", [*cli.SUBCOMMANDS, echo])
    argv = ["echo", "minus_two_v0", "--players", "3", "--param", "target_score=60", "--seed", "7"]
    assert cli.main([*argv, "--out", str(tmp_path / "run")]) == 0
    args = seen["args"]
    assert (args.game, args.seed, args.max_cycles, args.out) == (
        "minus_two",
        7,
        None,
        tmp_path / "run",
    )
    assert seen["params"] == {"target_score": 60, "num_players": 3}
    assert cli.main(["echo", "minus_two", "--agents", "attacker, bogus"]) == 2
    assert capsys.readouterr().err.startswith("cardzoo: error: --agents: unknown agent 'bogus'")
    (tmp_path / "f").write_text("")
    assert cli.main(["echo", "foxy", "--out", str(tmp_path / "f")]) == 2
    assert "--out: " in capsys.readouterr().err


def test_agent_factory_turns_a_load_error_into_a_usage_error():
    from cardzoo.envs import henhouse_v0

    factory = cli_args.agent_factory("henhouse", "xyz:nowhere")
    assert factory.name == "xyz:nowhere"
    with pytest.raises(cli.UsageError, match="--agents: unknown policy kind"):
        factory(henhouse_v0.raw_env().game, 0)


def test_a_closed_output_pipe_stops_quietly_with_141():
    """`cardzoo list | head -1`: the reader is gone; no traceback, the shell's SIGPIPE code."""
    script = (
        "import os, sys\n"
        "read_end, write_end = os.pipe()\n"
        "os.close(read_end)\n"
        "os.dup2(write_end, 1)\n"
        "from cardzoo.cli import main\n"
        "sys.exit(main(['list', '--agents']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-u", "-c", script], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (141, "")


def test_param_cannot_set_what_has_an_option_of_its_own(capsys):
    """Decision: one spelling for each setting, so `--param num_players=3 --players 4` cannot
    silently play either count: num_players only through --players (or the number of --agents),
    max_cycles only through --max-cycles."""
    for argv in (
        ["simulate", "henhouse", "--param", "num_players=3"],
        ["simulate", "henhouse", "--param", "num_players=4", "--players", "4"],
    ):
        code, _, err = run(capsys, *argv)
        assert (code, err) == (2, "cardzoo: error: --param: set num_players with --players, "
                                  "not --param\n")  # fmt: skip
    # match has no --players: the count is that of --agents
    argv = ["match", "henhouse", "--agents", "random,random", "--param", "num_players=2"]
    code, _, err = run(capsys, *argv)
    assert (code, err) == (2, "cardzoo: error: --param: the number of players is set by "
                              "--agents, one for each seat, not --param\n")  # fmt: skip


def test_the_same_param_given_twice_must_agree(capsys):
    """Decision: a repeated --param with another value is an error, not last-one-wins."""
    argv = ["simulate", "minus_two", "--param", "target_score=60", "--games", "2", "--quiet"]
    assert run(capsys, *argv, "--param", "target_score=60")[0] == 0
    code, _, err = run(capsys, *argv, "--param", "target_score=61")
    assert (code, err) == (2, "cardzoo: error: --param: target_score given twice (60 and 61)\n")


def test_simulate_without_players_plays_the_game_s_default_count(capsys):
    """Decision: --players left out means the game's own default (Foxy 2, the others 4)."""
    _, out, _ = run(capsys, "simulate", "foxy", "--games", "2", "--quiet")
    assert out.startswith("foxy {'num_players': 2,") and "player_1:" in out
    assert "player_2:" not in out


def test_argparse_errors_point_to_the_subcommand_help(capsys):
    code, _, err = run(capsys, "match", "henhouse", "--agents", "random,random", "--bogus")
    assert (code, err) == (
        2,
        "cardzoo: error: unrecognized arguments: --bogus (see 'cardzoo match --help')\n",
    )


def test_cli_serve_without_the_web_extra_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the web extra were not installed
    code, out, err = run(capsys, "serve")
    assert code == 2 and out == ""
    assert "cardzoo serve needs the web extra (uvicorn is missing)" in err
    assert "pip install 'cardzoo[web]'" in err


@pytest.mark.parametrize(
    "command", [["train", "nobody_wants_it"], ["exploit", "nobody_wants_it", "random"]]
)
def test_cli_training_without_the_train_extra_says_how_to_install_it(
    command, capsys, monkeypatch, tmp_path
):
    """The base install has no torch: the commands that train gave a ModuleNotFoundError
    traceback."""
    monkeypatch.setitem(sys.modules, "torch", None)  # as if the train extra were not installed
    assert cli.main([*command, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert f"cardzoo {command[0]} needs the train extra (torch is missing)" in err
    assert "pip install 'cardzoo[train]'" in err and not (tmp_path / "run").exists()


def test_agents_lists_each_games_agents_with_their_parameters(capsys):
    assert cli.main(["agents", "nobody_wants_it"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "nobody_wants_it_v0"
    names = [line.split()[0] for line in out[1:-1]]
    assert names[:5] == ["random", "hand_shedder", "nwi_dodger", "pimc", "ismcts"]
    assert "[pimc:simulations=...:seconds=...:seed=..." in out[4]
    assert cli.main(["agents", "foxy"]) == 0
    foxy = capsys.readouterr().out
    assert "perfect_memory" in foxy and "pimc" not in foxy  # Foxy has no resampler


def test_the_agents_command_prints_plain_text_not_docstring_markup(capsys):
    code, out, _ = run(capsys, "agents", "nobody_wants_it")
    assert code == 0
    assert ":class:" not in out and "`" not in out
    assert "Sheds like HandShedder but chooses its pairs" in out


def test_the_agents_command_strips_literal_markup(capsys):
    code, out, _ = run(capsys, "agents", "foxy")
    assert code == 0
    assert "`" not in out
    assert "Remembers only the last memory_cards earlier cards" in out
    code, out, _ = run(capsys, "agents")
    assert code == 0 and "`" not in out


def test_the_agents_command_shows_the_pretrained_policys_parameter(capsys):
    """``pretrained`` is no class with ``PARAMS``, yet takes ``positions``: shown with the values
    the game accepts (``blind`` only where cards are chosen by position)."""
    code, out, _ = run(capsys, "agents", "believe_it_or_not")
    assert code == 0
    line = next(line for line in out.splitlines() if line.split()[0] == "pretrained")
    assert line.endswith("  [pretrained:positions=learned|blind]")
    code, out, _ = run(capsys, "agents", "nobody_wants_it")
    line = next(line for line in out.splitlines() if line.split()[0] == "pretrained")
    assert line.endswith("  [pretrained:positions=learned]")


def _another_policy(path) -> None:
    """The policy file at ``path`` replaced by another policy of the same game and sizes."""
    import numpy as np

    with np.load(path) as saved:
        arrays = dict(saved)
    arrays["bias_0"] = arrays["bias_0"] + 1.0
    with open(path, "wb") as file:
        np.savez(file, **arrays)


def test_match_records_no_other_policy_than_the_table_played(tmp_path, capsys, monkeypatch):
    """A policy file rewritten during the match (a run still training rewrites its policy.npz):
    the recording, which builds its agents again, had filmed the new policy under the table
    of the old one (a review of bad input)."""
    import hashlib
    import shutil

    from cardzoo import evaluation
    from cardzoo.agents.policy import pretrained_file

    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copy(pretrained_file("nobody_wants_it"), folder / "policy.npz")
    digest = hashlib.sha256((folder / "policy.npz").read_bytes()).hexdigest()
    real_play_match = evaluation.play_match

    def play_then_retrain(*args, **kwargs):
        result = real_play_match(*args, **kwargs)
        _another_policy(folder / "policy.npz")
        return result

    monkeypatch.setattr(evaluation, "play_match", play_then_retrain)
    out, record = tmp_path / "m.json", tmp_path / "rec"
    argv = ["match", "nobody_wants_it", "--agents", f"ppo:{folder},random,random,random",
            "--games", "4", "--quiet", "--out", str(out), "--record", str(record)]  # fmt: skip
    code, printed, err = run(capsys, *argv)
    assert code == 2 and f"results written to {out}" in printed
    assert err == (
        f"cardzoo: error: --record: the file of ppo:{folder} changed during the match: the "
        "recording would show another policy than the table, so none was made (the table is "
        "the policy of the match's start)\n"
    )
    assert not record.exists()
    assert json.loads(out.read_text())["policy_sha256"] == {f"ppo:{folder}": digest}


@pytest.mark.parametrize("command", ["train", "exploit", "train-rllib"])
def test_the_training_commands_offer_only_games_with_decisions(command, capsys):
    """Their help listed Henhouse, which they refuse: it has no decisions to learn."""
    assert cli.main([command, "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "which game: nobody_wants_it, believe_it_or_not, minus_two, foxy (its _vN" in help_text
    assert "henhouse" not in help_text
