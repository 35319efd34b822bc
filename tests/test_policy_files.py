"""Saved policy files are checked when they are loaded: a damaged ``policy.npz`` is refused with
one message naming the file and what is wrong with it (empty, not an archive, a missing array,
shapes that do not chain or do not fit the game, numbers that are not finite), never played, and
never a numpy traceback in the middle of a match."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from cardzoo.agents import make_agent
from cardzoo.agents.policy import PRETRAINED, read_policy
from cardzoo.cli import main
from cardzoo.envs import load_game
from cardzoo.errors import InputError

SOURCE = PRETRAINED / "nobody_wants_it.npz"  # a good policy: 55 inputs, 256, 256, 16 actions


def damaged(folder: Path, change) -> Path:
    """A run folder whose ``policy.npz`` is the shipped Nobody Wants It policy with ``change``
    applied to its arrays (a dict, changed in place); ``change`` may also be bytes: the file."""
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(change, bytes):
        (folder / "policy.npz").write_bytes(change)
        return folder
    with np.load(SOURCE) as archive:
        arrays = {name: archive[name] for name in archive.files}
    change(arrays)
    np.savez(folder / "policy.npz", **arrays)
    return folder


def _set(name, value):
    return lambda arrays: arrays.update({name: value(arrays[name])})


def _record(info: np.ndarray, **changes) -> np.ndarray:
    """The policy's record (JSON, as bytes in an array) with ``changes``."""
    record = json.loads(info.tobytes())
    record.update(changes)
    return np.frombuffer(json.dumps(record).encode(), np.uint8)


def _with_nan(weight):
    weight = weight.copy()
    weight[3, 4] = np.nan
    return weight


def _with_inf(bias):
    bias = bias.copy()
    bias[0] = np.inf
    return bias


DAMAGES = {
    "empty": (b"", "it is empty (0 bytes)"),
    "text": (b"these are not weights", "not a numpy .npz archive ("),
    # numpy guessed a pickle here, and its message suggested allow_pickle=True
    "JSON": (
        b'{"game": "nobody_wants_it"}',
        "not a numpy .npz archive (it starts as neither a zip file nor a numpy array)",
    ),  # fmt: skip
    "a version that is text": (
        _set("info", lambda info: _record(info, version="abc")),
        "its version must be an integer >= 0, got 'abc'",
    ),
    "a version of null": (
        _set("info", lambda info: _record(info, version=None)),
        "its version must be an integer >= 0, got None",
    ),
    # the next four had been read: a traceback at the first check, or greedy play, followed
    "params that are text": (
        _set("info", lambda info: _record(info, params="x")),
        "its params must be the game's parameters, got 'x'",
    ),
    "a player count that is text": (
        _set("info", lambda info: _record(info, params={"num_players": "4"})),
        "its num_players must be an integer, got '4'",
    ),
    "an unknown way to play": (
        _set("info", lambda info: _record(info, play="random")),
        "its play must be one of ['greedy', 'sample'], got 'random'",
    ),
    "a way to play that is a number": (
        _set("info", lambda info: _record(info, play=5)),
        "its play must be one of ['greedy', 'sample'], got 5",
    ),
    "no record": (lambda a: a.pop("info"), "it has no record (array 'info')"),
    "no weight_1": (lambda a: a.pop("weight_1"), "it has no array 'weight_1'"),
    "NaN weights": (_set("weight_1", _with_nan), "weight_1 holds NaN or infinite numbers"),
    "infinite bias": (_set("bias_2", _with_inf), "bias_2 holds NaN or infinite numbers"),
    "integer weights": (
        _set("weight_2", lambda w: w.astype(np.int64)),
        "weight_2 holds int64, not floating-point numbers",
    ),
    "short bias": (
        _set("bias_0", lambda b: b[:100]),
        "weight_0 has 256 outputs but bias_0 has 100",
    ),
    "layers that do not chain": (
        _set("weight_1", lambda w: w[:100]),
        "weight_1 takes 100 inputs but layer 0 gives 256",
    ),
    "a vector for a matrix": (
        _set("weight_0", lambda w: w[0]),
        "weight_0 must be a matrix, got shape (256,)",
    ),
}


@pytest.mark.parametrize("case", list(DAMAGES))
def test_a_damaged_policy_file_is_refused_at_load_time_naming_the_file(case, tmp_path):
    change, what = DAMAGES[case]
    folder = damaged(tmp_path / "run", change)
    path = (folder / "policy.npz").resolve()
    with pytest.raises(InputError) as refused:
        make_agent("nobody_wants_it", f"ppo:{folder}", load_game("nobody_wants_it"))
    assert str(refused.value).startswith(f"{path} is not a cardzoo policy file: {what}")


def test_weights_of_the_wrong_input_size_do_not_fit_the_game(tmp_path):
    """The record says 55 observations, the first layer takes 54: refused when loaded, not a
    matmul error at the first move."""
    folder = damaged(tmp_path / "run", _set("weight_0", lambda w: w[:54]))
    with pytest.raises(InputError) as refused:
        make_agent("nobody_wants_it", f"ppo:{folder}", load_game("nobody_wants_it"))
    assert str(refused.value) == (
        f"{folder / 'policy.npz'} does not fit nobody_wants_it: its first layer takes 54 inputs, "
        "but this game's observations give 55"
    )


def test_a_policy_file_is_read_again_after_it_is_mended(tmp_path):
    """The cache of read files keys on the file's size too: an empty file replaced by a good
    one within the same clock tick is read again."""
    folder = damaged(tmp_path / "run", b"")
    with pytest.raises(InputError, match="it is empty"):
        read_policy(folder / "policy.npz")
    (folder / "policy.npz").write_bytes(SOURCE.read_bytes())
    assert read_policy(folder / "policy.npz")[1]["game"] == "nobody_wants_it"


@pytest.mark.parametrize(
    "case, what",
    [
        ("empty", "is not a cardzoo policy file: it is empty (0 bytes)"),
        ("NaN weights", "is not a cardzoo policy file: weight_1 holds NaN or infinite numbers"),
        ("wrong input size", "does not fit nobody_wants_it: its first layer takes 54 inputs"),
    ],
)
def test_match_refuses_a_damaged_policy_in_one_line(case, what, tmp_path, capsys):
    change = DAMAGES[case][0] if case in DAMAGES else _set("weight_0", lambda w: w[:54])
    folder = damaged(tmp_path / "run", change)
    argv = ["match", "nobody_wants_it", "--agents", f"ppo:{folder},random,random,random",
            "--games", "4", "--quiet"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo: error: --agents: {folder / 'policy.npz'} {what}"), err
    assert err.count("\n") == 1


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    "case, what",
    [
        ("empty", "is not a cardzoo policy file: it is empty (0 bytes)"),
        ("NaN weights", "is not a cardzoo policy file: weight_1 holds NaN or infinite numbers"),
        ("wrong input size", "does not fit nobody_wants_it: its first layer takes 54 inputs"),
    ],
)
def test_serve_refuses_a_damaged_policy_before_serving(case, what, tmp_path, capsys, monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")

    def must_not_serve(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr(uvicorn, "run", must_not_serve)
    change = DAMAGES[case][0] if case in DAMAGES else _set("weight_0", lambda w: w[:54])
    folder = damaged(tmp_path / "run", change)
    assert main(["serve", "--port", str(_free_port()), "--agent", f"ppo:{folder}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cardzoo: error: --agent: {folder / 'policy.npz'} {what}"), err
    assert err.count("\n") == 1


def test_serve_offers_a_sound_policy(tmp_path, capsys, monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    served = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: served.append(kwargs["port"]))
    folder = damaged(tmp_path / "run", lambda arrays: None)  # the shipped policy, unchanged
    port = _free_port()
    assert main(["serve", "--port", str(port), "--agent", f"ppo:{folder}"]) == 0
    assert served == [port]


def test_a_policy_of_another_version_of_its_game_plays_with_a_warning(tmp_path):
    """A Believe It or Not policy recorded as trained on v0 (as every file written before
    versions were recorded is read) plays v1 with a warning naming both; recorded as v1, it
    plays without one."""
    from cardzoo.agents.policy import save_policy

    policy, info = read_policy(PRETRAINED / "believe_it_or_not-quick.npz")
    game = load_game("believe_it_or_not", variant="quick")
    old = tmp_path / "old"
    old.mkdir()
    save_policy(old / "policy.npz", policy, {k: v for k, v in info.items() if k != "version"})
    with pytest.warns(UserWarning) as warned:
        make_agent("believe_it_or_not", f"ppo:{old}", game)
    assert [str(w.message) for w in warned] == [
        f"{old / 'policy.npz'} was trained on believe_it_or_not_v0, and this is "
        "believe_it_or_not_v1: what a seat sees or does changed between them (CHANGELOG.md), so "
        "it plays a game it was not trained on"
    ]
    new = tmp_path / "new"
    new.mkdir()
    save_policy(new / "policy.npz", policy, {**info, "version": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = make_agent("believe_it_or_not", f"ppo:{new}", game)
    assert agent.policy.layers[0][0].shape == policy.layers[0][0].shape


def test_a_policy_path_may_start_at_the_users_home(tmp_path, monkeypatch):
    """``ppo:~/...`` reads ``~`` as a shell does."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "policy.npz").write_bytes(SOURCE.read_bytes())
    agent = make_agent("nobody_wants_it", "ppo:~/runs", load_game("nobody_wants_it"))
    assert agent.name == "ppo:~/runs"


def test_serve_refuses_a_policy_its_page_cannot_seat(tmp_path, capsys, monkeypatch):
    """The page builds its games with their default parameters and a player count: a policy
    trained with Foxy's ``memory=perfect`` (the training default) was offered, listed, then
    refused when a line-up seated it (a review)."""
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")

    def must_not_serve(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr(uvicorn, "run", must_not_serve)
    perfect = tmp_path / "perfect.npz"
    perfect.write_bytes((PRETRAINED / "foxy-perfect.npz").read_bytes())
    assert main(["serve", "--port", str(_free_port()), "--agent", f"ppo:{perfect}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "cardzoo: error: --agent: the page plays foxy with its default parameters "
        "({'num_players': 2, 'memory': 'none', 'reward': 'win', 'max_guess': 40}), which this "
        f"policy cannot play: {perfect} was trained on foxy with "
    ), err
    assert err.endswith("memory is 'perfect' there and 'none' here\n") and err.count("\n") == 1
