"""Recorded matches: ``cardzoo.recording.record_games`` and ``cardzoo match --record DIR``. A
recorded file opens with Pillow and has the deal plus one frame per step of the game the match
played; a folder that cannot take the recording is refused before any game is played."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PIL import Image

from cardzoo import cli
from cardzoo.envs import load_game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.errors import InputError
from cardzoo.evaluation import play_match
from cardzoo.recording import check_record_folder, gif_name, record_games

LINEUP = ["nwi_dodger", "random", "random"]
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def frame_count(path) -> int:
    with Image.open(path) as image:
        return image.n_frames


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_recorded_games_are_the_match_games_one_frame_per_step(tmp_path):
    paths = record_games("nobody_wants_it", LINEUP, tmp_path / "rec", num_games=2, seed=5)
    match = play_match("nobody_wants_it", LINEUP, 2, seed=5)
    assert [path.name for path in paths] == ["game_0001.gif", "game_0002.gif"]
    for path, game in zip(paths, match.games):
        assert frame_count(path) == game.length + 1  # the deal, then one frame per step
    picture = load_game("nobody_wants_it", num_players=3).picture(match_state(5))
    with Image.open(paths[0]) as image:
        assert image.format == "GIF" and image.size == (picture.shape[1], picture.shape[0])


def match_state(deal: int):
    game = load_game("nobody_wants_it", num_players=3)
    return game.new_state(game_rng_from_seed(deal))


def test_recording_from_a_seat_differs_from_the_full_table(tmp_path):
    full = record_games("nobody_wants_it", LINEUP, tmp_path / "full", num_games=1)
    seat = record_games("nobody_wants_it", LINEUP, tmp_path / "seat", num_games=1, viewer=0)
    assert frame_count(full[0]) == frame_count(seat[0])
    assert full[0].read_bytes() != seat[0].read_bytes()


def test_gif_names_count_from_one():
    assert [gif_name(g) for g in (0, 9, 1234)] == [
        "game_0001.gif",
        "game_0010.gif",
        "game_1235.gif",
    ]


def test_record_folder_holding_a_recording_is_refused_before_playing(tmp_path):
    (tmp_path / "game_0002.gif").write_bytes(b"an earlier recording")
    with pytest.raises(ValueError, match="folder: .* already holds game_0002.gif; recordings are"):
        record_games("nobody_wants_it", LINEUP, tmp_path, num_games=3)
    assert os.listdir(tmp_path) == ["game_0002.gif"]  # nothing written, nothing replaced
    assert (tmp_path / "game_0002.gif").read_bytes() == b"an earlier recording"


def test_record_folder_that_is_a_file_or_empty_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="folder: .* is a file"):
        check_record_folder(tmp_path / "file", 1)
    with pytest.raises(ValueError, match="folder: an empty path"):
        check_record_folder("", 1)


def test_record_games_checks_its_arguments(tmp_path):
    with pytest.raises(ValueError, match="num_games"):
        record_games("nobody_wants_it", LINEUP, tmp_path, num_games=0)
    with pytest.raises(ValueError, match="viewer"):
        record_games("nobody_wants_it", LINEUP, tmp_path, num_games=1, viewer=3)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("fps", [0, -1.0, float("inf"), float("nan"), True, "2"])
def test_a_bad_fps_is_refused_before_the_folder_is_made(tmp_path, fps):
    """It was checked after the first game was played, into a folder already made."""
    folder = tmp_path / "games"
    with pytest.raises(InputError, match="fps must be a finite number > 0"):
        record_games("nobody_wants_it", LINEUP, folder, num_games=1, fps=fps)
    assert not folder.exists()


def test_numpy_numbers_are_frame_rates(tmp_path):
    written = record_games("henhouse", ["random"] * 2, tmp_path, num_games=1, fps=np.int64(4))
    with Image.open(written[0]) as picture:
        assert picture.info["duration"] == 250


# --- the command ------------------------------------------------------------------------------

MATCH = ["match", "nobody_wants_it", "--agents", ",".join(LINEUP), "--quiet", "--seed", "5"]


def test_cli_match_record_writes_the_first_games(tmp_path, capsys):
    folder = tmp_path / "new" / "replays"
    code, out, _ = run(
        capsys, *MATCH, "--games", "4", "--record", str(folder), "--record-games", "2"
    )
    assert code == 0 and f"2 recorded games written to {folder}" in out
    assert sorted(os.listdir(folder)) == ["game_0001.gif", "game_0002.gif"]
    lengths = [game.length for game in play_match("nobody_wants_it", LINEUP, 2, seed=5).games]
    assert [frame_count(folder / name) for name in sorted(os.listdir(folder))] == [
        length + 1 for length in lengths
    ]


def test_cli_match_records_every_game_when_fewer_than_twenty(tmp_path, capsys):
    code, out, _ = run(capsys, *MATCH, "--games", "3", "--record", str(tmp_path))
    assert code == 0 and sorted(os.listdir(tmp_path)) == [gif_name(g) for g in range(3)]


def refused(capsys, tmp_path, *extra: str) -> str:
    """Run a match that must be refused before any game: exit 2, no table printed."""
    code, out, err = run(capsys, *MATCH, "--games", "4", *extra)
    assert code == 2 and out == ""  # the table is printed after the games: none was played
    return err


def test_cli_record_into_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    err = refused(capsys, tmp_path, "--record", str(tmp_path / "file"))
    assert "--record: " in err and "is a file; give a folder" in err


def test_cli_record_empty_path_is_refused(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--record", "")
    assert "--record: an empty path names no folder" in err


def test_cli_record_over_an_earlier_recording_is_refused(tmp_path, capsys):
    (tmp_path / "game_0001.gif").write_bytes(b"old")
    err = refused(capsys, tmp_path, "--record", str(tmp_path))
    assert "cardzoo: error: --record: " in err and "already holds game_0001.gif" in err
    assert os.listdir(tmp_path) == ["game_0001.gif"]
    assert (tmp_path / "game_0001.gif").read_bytes() == b"old"


@pytest.mark.skipif(ROOT, reason="root may write into a read-only folder")
def test_cli_record_into_a_read_only_folder_is_refused(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        err = refused(capsys, tmp_path, "--record", str(locked / "replays"))
        assert "--record: cannot write" in err
    finally:
        locked.chmod(0o700)


def test_cli_record_games_without_record_or_beyond_games_is_refused(tmp_path, capsys):
    err = refused(capsys, tmp_path, "--record-games", "2")
    assert "--record-games: needs --record DIR" in err
    err = refused(capsys, tmp_path, "--record", str(tmp_path), "--record-games", "5")
    assert "--record-games: 5 games to record but --games is 4" in err
    assert os.listdir(tmp_path) == []
