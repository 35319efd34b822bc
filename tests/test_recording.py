"""Recorded matches: ``cardzoo.recording.record_games`` and ``cardzoo match --record DIR``. A
recorded file opens with Pillow and has the deal plus one frame per step of the game the match
played; a folder that cannot take the recording is refused before any game is played."""

from __future__ import annotations

import os
import tracemalloc

import numpy as np
import pytest
from PIL import Image
from tiny_runs import interrupted_at_the_second_call

import cardzoo.recording
from cardzoo import cli
from cardzoo.agents import build_agent
from cardzoo.envs import load_game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.envs.picture import BAD
from cardzoo.envs.recording import PackedFrames, stamp, write_gif
from cardzoo.errors import InputError
from cardzoo.evaluation import play_match
from cardzoo.recording import check_record_folder, gif_name, play_recorded_game, record_games

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


@pytest.mark.parametrize(
    "fps",
    [0, -1.0, float("inf"), float("nan"), True, "2", 0.001, 100 / 65536, 50.5, 100, 150, 1e9],
)
def test_a_bad_fps_is_refused_before_the_folder_is_made(tmp_path, fps):
    """It was checked after the first game was played, into a folder already made; and a rate a
    GIF cannot hold (its delays are whole hundredths of a second in 16 bits) passed the check,
    then failed once the game was played (0.001, an OverflowError, leaving an empty folder) or
    wrote frames of no duration (150 and up: a delay of 0), or that browsers play at 10 (67 to
    100: a delay of one hundredth, which they show for ten)."""
    folder = tmp_path / "games"
    with pytest.raises(InputError, match=r"fps must be a number from 100/65535 .* to 50, got "):
        record_games("nobody_wants_it", LINEUP, folder, num_games=1, fps=fps)
    assert not folder.exists()


def test_numpy_numbers_are_frame_rates(tmp_path):
    written = record_games("henhouse", ["random"] * 2, tmp_path, num_games=1, fps=np.int64(4))
    with Image.open(written[0]) as picture:
        assert picture.info["duration"] == 250


@pytest.mark.parametrize(("fps", "duration"), [(50, 20), (100 / 65535, 655350), (3, 330)])
def test_the_fastest_and_slowest_frame_rates_a_gif_plays_are_kept(tmp_path, fps, duration):
    """50 a second: pictures of 2/100 s, the shortest browsers show as written."""
    frame = np.zeros((4, 4, 3), np.uint8)
    path = write_gif(tmp_path / "a.gif", [frame, frame + 1], fps=fps)
    with Image.open(path) as picture:
        assert picture.info["duration"] == duration  # 100 / fps hundredths, rounded


def test_the_same_seed_gives_the_same_gif_bytes(tmp_path):
    first = record_games("henhouse", ["random"] * 2, tmp_path / "a", num_games=1, seed=3)
    second = record_games("henhouse", ["random"] * 2, tmp_path / "b", num_games=1, seed=3)
    assert first[0].read_bytes() == second[0].read_bytes()


def test_recorded_frames_decode_to_the_stamped_pictures(tmp_path):
    """The GIF is written frame by frame, each cut to what changed (the rest transparent): what
    a viewer shows is still every picture, stamped, in the game's palette colours."""
    game = load_game("nobody_wants_it", num_players=3)
    agents = [build_agent("nobody_wants_it", name, game, i) for i, name in enumerate(LINEUP)]
    _, frames = play_recorded_game(game, agents, 5, game.default_max_cycles)
    with frames:
        path = write_gif(tmp_path / "a.gif", frames)
        with Image.open(path) as gif:
            assert gif.n_frames == len(frames)
            for index in range(len(frames)):
                gif.seek(index)
                shown = np.asarray(gif.convert("RGB")).astype(int)
                drawn = stamp(frames[index], f"{index + 1}/{len(frames)}").astype(int)
                assert np.abs(shown - drawn).max() < 48, index  # the nearest palette colour


# --- memory -------------------------------------------------------------------------------------


def test_recording_memory_does_not_grow_with_the_game(tmp_path):
    """Every picture of a game was kept, then stamped copies of all of them: 2.6 GB for one
    game of Believe It or Not (447 frames). Now they are kept compressed and written one at a
    time: the peak is a few pictures (the palette's 8 samples, one being written), whatever
    the game's length."""
    tracemalloc.start()
    try:
        [path] = record_games("henhouse", ["random"] * 2, tmp_path, num_games=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    with Image.open(path) as gif:
        frames, (width, height) = gif.n_frames, gif.size
    assert frames > 80  # long enough that holding every frame would show
    assert peak < 30 * width * height * 3  # about 16 pictures


def test_packed_frames_give_back_the_pictures_and_check_them():
    pictures = [np.full((6, 5, 3), value, np.uint8) for value in (0, 7, 255)]
    pictures[1][2, 3] = (1, 2, 3)
    with PackedFrames() as frames:
        for picture in pictures:
            frames.append(picture)
        assert len(frames) == 3 and frames.shape == (6, 5, 3)
        assert all(np.array_equal(frame, picture) for frame, picture in zip(frames, pictures))
        assert np.array_equal(frames[-1], pictures[-1])
        assert [frame[0, 0, 0] for frame in frames[1:]] == [7, 255]
        assert frames.packed_bytes < 3 * pictures[0].nbytes
        with pytest.raises(InputError, match=r"frames\[3\] has shape \(6, 6, 3\) but frames"):
            frames.append(np.zeros((6, 6, 3), np.uint8))
        with pytest.raises(IndexError):
            frames[3]
    assert len(frames) == 0  # closed: the pictures are let go


# --- never replacing a file ---------------------------------------------------------------------


def test_a_file_appearing_while_games_are_played_is_never_replaced(tmp_path, monkeypatch):
    """The folder was checked once, before the games; a file saved under a recording's name
    afterwards was written over."""
    folder = tmp_path / "gifs"
    real = cardzoo.recording.write_gif

    def user_saves_a_file_meanwhile(path, frames, **kwargs):
        if not (folder / "game_0001.gif").exists():
            (folder / "game_0001.gif").write_text("user data\n")
        return real(path, frames, **kwargs)

    monkeypatch.setattr(cardzoo.recording, "write_gif", user_saves_a_file_meanwhile)
    with pytest.raises(InputError) as refused:
        record_games("henhouse", ["random"] * 2, folder, num_games=2)
    assert (folder / "game_0001.gif").read_text() == "user data\n"
    assert str(refused.value).startswith(f"'{folder / 'game_0001.gif'}' appeared while")
    assert f"the result is in '{folder / 'game_0001-1.gif'}' instead" in str(refused.value)
    assert sorted(os.listdir(folder)) == ["game_0001-1.gif", "game_0001.gif", "game_0002.gif"]
    assert frame_count(folder / "game_0001-1.gif") > 1


def test_an_interrupted_recording_keeps_its_finished_games_and_nothing_else(tmp_path, monkeypatch):
    fails_in_the_second_game = interrupted_at_the_second_call(cardzoo.recording.play_recorded_game)
    monkeypatch.setattr(cardzoo.recording, "play_recorded_game", fails_in_the_second_game)
    with pytest.raises(KeyboardInterrupt):
        record_games("henhouse", ["random"] * 2, tmp_path / "kept", num_games=3)
    assert os.listdir(tmp_path / "kept") == ["game_0001.gif"]  # no temporary file or folder

    def interrupted(*args, **kwargs):  # Ctrl-C in the first game of the next recording
        raise KeyboardInterrupt

    monkeypatch.setattr(cardzoo.recording, "play_recorded_game", interrupted)
    with pytest.raises(KeyboardInterrupt):
        record_games("henhouse", ["random"] * 2, tmp_path / "new" / "gone", num_games=1)
    assert os.listdir(tmp_path) == ["kept"]  # the folders it made are removed, being empty


def test_write_gif_replaces_a_file_as_documented(tmp_path):
    """The low-level writer is ``open(path, "wb")``: record_games is the one that never
    replaces."""
    (tmp_path / "a.gif").write_text("old")
    write_gif(tmp_path / "a.gif", [np.zeros((4, 4, 3), np.uint8)])
    assert (tmp_path / "a.gif").read_bytes().startswith(b"GIF89a")


def test_a_write_gif_that_fails_keeps_the_file_it_was_to_replace(tmp_path, monkeypatch):
    """It opened the path for writing first and removed it when writing failed: the file it
    was replacing was lost too (a review of bad input)."""
    from cardzoo.envs import recording as low_level

    (tmp_path / "a.gif").write_text("old")

    def fails(file, frames, palette, delay):
        file.write(b"GIF89a")
        raise MemoryError

    monkeypatch.setattr(low_level, "write_gif_frames", fails)
    with pytest.raises(MemoryError):
        write_gif(tmp_path / "a.gif", [np.zeros((4, 4, 3), np.uint8)])
    assert (tmp_path / "a.gif").read_text() == "old"
    assert os.listdir(tmp_path) == ["a.gif"]  # no half-written or temporary file


def test_write_gif_writes_through_a_link_as_open_does(tmp_path):
    """Made in memory and renamed into place, the GIF had replaced the link itself."""
    (tmp_path / "target.gif").write_text("old")
    (tmp_path / "link.gif").symlink_to(tmp_path / "target.gif")
    write_gif(tmp_path / "link.gif", [np.zeros((4, 4, 3), np.uint8)])
    assert (tmp_path / "link.gif").is_symlink()
    assert (tmp_path / "target.gif").read_bytes().startswith(b"GIF89a")


# --- the palette --------------------------------------------------------------------------------


def test_the_palette_keeps_the_colours_only_the_last_frame_has(tmp_path):
    """Foxy draws struck-out cards red only at the end of a game; the palette's sample frames
    (every step-th, the first 8) could skip the last, and the red came out orange."""
    game = load_game("foxy", num_players=1)
    agents = [build_agent("foxy", "random", game, 0)]
    _, frames = play_recorded_game(game, agents, 0, game.default_max_cycles)
    with frames:
        count = len(frames)
        assert count % 8 and count > 16  # 8 samples, every 2nd frame: the last is not one
        assert not any((frames[i] == BAD).all(axis=-1).any() for i in range(count - 1))
        last = stamp(frames[-1], f"{count}/{count}")
        path = write_gif(tmp_path / "foxy.gif", frames)
    red = (last == BAD).all(axis=-1)
    assert red.sum() > 80
    with Image.open(path) as gif:
        gif.seek(count - 1)
        shown = np.asarray(gif.convert("RGB"))
    assert (shown[red] == BAD).all()


# --- write_gif's input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frames", "message"),
    [
        (
            [np.zeros((10, 10, 4), np.uint8)],
            r"frames\[0\] must be an \(H, W, 3\) uint8 array of RGB colours, got an array of "
            r"shape \(10, 10, 4\) and dtype uint8 \(RGBA\? drop the alpha",
        ),
        ([np.zeros((0, 0, 3), np.uint8)], r"frames\[0\] has shape \(0, 0, 3\): a GIF picture "),
        (
            [np.zeros((10, 10, 3), np.uint8), np.zeros((10, 11, 3), np.uint8)],
            r"frames\[1\] has shape \(10, 11, 3\) but frames\[0\] has \(10, 10, 3\): every",
        ),
        ([[[1, 2, 3]]], r"frames\[0\] is a list; a frame must be an \(H, W, 3\) uint8 numpy"),
    ],
)
def test_write_gif_says_what_is_wrong_with_a_frame_before_writing(tmp_path, frames, message):
    with pytest.raises(InputError, match=message):
        write_gif(tmp_path / "a.gif", frames)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("fps", [100, 150, 1e9, 0.001])
def test_write_gif_refuses_a_frame_rate_a_gif_cannot_hold(tmp_path, fps):
    """150 and more wrote a delay of 0 (browsers then pick their own), 100 a delay of one
    hundredth (browsers show it for ten), 0.001 an OverflowError."""
    with pytest.raises(InputError, match="fps must be a number from 100/65535"):
        write_gif(tmp_path / "a.gif", [np.zeros((4, 4, 3), np.uint8)], fps=fps)
    assert os.listdir(tmp_path) == []


def test_write_gif_refuses_a_path_it_cannot_write_before_writing(tmp_path):
    frame = np.zeros((10, 10, 3), np.uint8)
    (tmp_path / "file").write_text("x")
    cases = [
        (tmp_path / "missing" / "a.gif", r"the folder of .*missing.* does not exist"),
        (tmp_path / "file" / "a.gif", r"the folder of .*file.* is a file"),
        (tmp_path, r"path: .* is a folder; give the name of a file in it"),
        ("", r"path: an empty path names no file"),
    ]
    for path, message in cases:
        with pytest.raises(InputError, match=message):
            write_gif(path, [frame])
    assert os.listdir(tmp_path) == ["file"]


# --- the folder ---------------------------------------------------------------------------------


def no_game_is_played(*args, **kwargs):
    raise AssertionError("a game was played before the folder was checked")


def test_a_folder_under_a_file_is_refused_before_the_first_game(tmp_path, monkeypatch):
    """It was a NotADirectoryError, after the agents were built."""
    monkeypatch.setattr(cardzoo.recording, "play_recorded_game", no_game_is_played)
    (tmp_path / "file").write_text("x")
    folder = tmp_path / "file" / "sub"
    with pytest.raises(InputError, match=f"folder: cannot write '{folder}': .*file' is a file"):
        record_games("henhouse", ["random"] * 2, folder, num_games=1)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_folder_nothing_can_be_created_in_is_refused_before_the_first_game(monkeypatch):
    """It was a FileNotFoundError, after the agents were built (root's permissions say yes)."""
    monkeypatch.setattr(cardzoo.recording, "play_recorded_game", no_game_is_played)
    with pytest.raises(InputError, match="folder: cannot write '/proc/x': nothing can be created"):
        record_games("henhouse", ["random"] * 2, "/proc/x", num_games=1)


@pytest.mark.skipif(ROOT, reason="root may write into a read-only folder")
def test_a_read_only_folder_is_refused_before_the_first_game(tmp_path, monkeypatch):
    monkeypatch.setattr(cardzoo.recording, "play_recorded_game", no_game_is_played)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(InputError, match="folder: cannot write .*: no permission to write"):
            record_games("henhouse", ["random"] * 2, locked / "replays", num_games=1)
    finally:
        locked.chmod(0o700)


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


def test_links_to_nothing_are_refused_before_the_first_game(tmp_path):
    """A link to nothing named as a recording, or as the folder, is there: refused at once (the
    first was taken for a file that appeared during the games, the second a FileExistsError)."""
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "game_0001.gif").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match="already holds game_0001.gif"):
        record_games("henhouse", ["random"] * 2, folder, num_games=1)
    (tmp_path / "link").symlink_to(tmp_path / "nofolder")
    with pytest.raises(InputError, match="is a file or a link to nothing"):
        record_games("henhouse", ["random"] * 2, tmp_path / "link", num_games=1)
