"""Recorded matches: the first games of a match played again move by move and written as
animated GIFs, one file per game (``game_0001.gif``, ``game_0002.gif``, ...).

>>> from cardzoo.recording import record_games
>>> record_games("henhouse", ["random", "random", "random"], "replays", num_games=3)

Game ``g`` is game ``g`` of :func:`cardzoo.evaluation.play_match` with the same arguments: the
same deal, the same seats, the same agent seeds, so ``cardzoo match ... --record DIR`` shows the
games the table reports. A GIF holds the deal and then one frame after every step (a game of L
agent steps has L + 1 frames), drawn by the game's ``picture`` (everything face up, or from one
seat's eyes with ``viewer``), with the latest move in its header.

Decision (never overwrite): the folder must not hold any of the files a recording would write,
and must be a folder that can be written in (or created); this is checked before the first game
is played (a ``ValueError`` naming ``folder``). A file that appears there while the games are
played is not replaced either: each GIF is written under a temporary name and then given its
own only if that name is still free (:func:`cardzoo.io.publish_new`); otherwise it is kept
beside it (``game_0001-1.gif``) and, once every game is written, an
:class:`~cardzoo.errors.InputError` says so.

Memory: a game's pictures are kept compressed as they are drawn and the GIF is written one
frame at a time (:class:`~cardzoo.envs.recording.PackedFrames`), so a long game takes no more
memory than a short one.

Layer: the table (with :mod:`cardzoo.evaluation`); the environments and agents never import it.
"""

from __future__ import annotations

__all__ = ["record_games"]

import contextlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cardzoo.agents import Agent, AgentSpec, agent_action, build_agent
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_int, game_rng_from_seed
from cardzoo.envs.recording import PackedFrames, check_fps, write_gif
from cardzoo.envs.rendering import RENDER_FPS
from cardzoo.errors import InputError
from cardzoo.evaluation import GameRecord, agent_seed, check_match, game_record, match_seating
from cardzoo.io import appeared_error, publish_new
from cardzoo.table import Table

#: how many games ``cardzoo match --record`` records unless told otherwise
DEFAULT_RECORDED_GAMES = 20


def gif_name(game_index: int) -> str:
    """The file of game ``game_index`` (0-based) of a recording: ``game_0001.gif`` for 0."""
    return f"game_{game_index + 1:04d}.gif"


def check_record_folder(folder: str | os.PathLike, num_games: int) -> Path:
    """``folder`` as a Path if a recording of ``num_games`` games may be written there: a folder
    that can be written in, or one that can be created (its nearest existing parent is a folder
    that can be written in), holding none of the files it would write.
    :class:`~cardzoo.errors.InputError` naming ``folder`` otherwise.

    Decision: permissions alone do not tell (root may write anywhere by them, yet nothing can
    be created in ``/proc``), so a folder is made in the nearest existing one and removed at
    once; nothing else is created, and nothing is left."""
    text = os.fspath(folder)
    path = Path(folder)
    if not text.strip():
        raise InputError("folder: an empty path names no folder; give a folder name")
    try:
        existing = path.absolute()
        while not os.path.lexists(existing):  # a link to nothing is there too
            existing = existing.parent
    except OSError as error:  # a parent that may not be looked into
        raise InputError(f"folder: cannot write {text!r}: {error.strerror}") from None
    if existing == path.absolute() and not existing.is_dir():
        raise InputError(f"folder: {text!r} is a file or a link to nothing; give a folder")
    if not existing.is_dir():
        raise InputError(f"folder: cannot write {text!r}: {str(existing)!r} is a file")
    taken = [gif_name(g) for g in range(num_games) if os.path.lexists(path / gif_name(g))]
    if taken:
        raise InputError(
            f"folder: {text!r} already holds {taken[0]}"
            f"{f' and {len(taken) - 1} more recorded games' if len(taken) > 1 else ''}; "
            "recordings are never overwritten: give another folder or remove them"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(
            f"folder: cannot write {text!r}: no permission to write in {str(existing)!r}"
        )
    try:
        probe = tempfile.mkdtemp(prefix=".cardzoo-write-check-", dir=existing)
    except OSError as error:
        raise InputError(
            f"folder: cannot write {text!r}: nothing can be created in {str(existing)!r} "
            f"({error.strerror})"
        ) from None
    os.rmdir(probe)
    return path


def record_games(
    game_name: str,
    lineup: Sequence[AgentSpec],
    folder: str | os.PathLike,
    num_games: int = DEFAULT_RECORDED_GAMES,
    seed: int = 0,
    params: dict | None = None,
    mirrored: bool = True,
    max_cycles: int | None = None,
    viewer: int | None = None,
    fps: float = RENDER_FPS,
) -> list[Path]:
    """Play games ``0 .. num_games - 1`` of the match :func:`~cardzoo.evaluation.play_match`
    would play with these arguments and write each as ``folder/game_NNNN.gif``; returns the
    paths in order. ``viewer`` (a seat number) draws every frame from that seat's eyes. Every
    argument and the folder are checked before the first game (``ValueError`` naming the
    argument; the folder must be one that can be written in or created, holding none of the
    files the recording writes); the folder is created if missing.

    No file is ever replaced: a file that appears under a GIF's name while the games are
    played is left as it was, the GIF is kept beside it (``game_0001-1.gif``, as
    :func:`cardzoo.io.publish_new` names it), and once every game is written an
    :class:`~cardzoo.errors.InputError` names both. A recording interrupted by an error leaves
    the GIFs it finished and nothing else (no half-written file; a folder it created is removed
    if it is still empty).

    ``seed`` is the first deal's seed (an int >= 0): deals use ``seed, seed + 1, ...`` as
    ``env.reset(seed=...)`` does, and the agents are reseeded from it for every game.
    ``mirrored`` (default True) replays each deal under every rotation of the seats; False
    gives every game a deal of its own. ``fps`` is the pictures shown a second in the GIF
    (default 2), from 100/65535 to 50, as a GIF holds each picture's time in whole hundredths
    of a second, at most 65535, and browsers show a picture of one hundredth for ten
    (:func:`~cardzoo.envs.recording.check_fps`). ``max_cycles`` is the
    most agent steps a game may take before it is cut short (truncated); None, the default, is
    the game's own limit."""
    game, lineup, num_games, seed, max_cycles = check_match(
        game_name, lineup, num_games, seed, params, max_cycles
    )
    n = game.num_players
    if viewer is not None:
        viewer = check_int("viewer", viewer, 0, n - 1)
    fps = check_fps(fps)
    path = check_record_folder(folder, num_games)
    agents = [
        build_agent(game_name, entry, game, seed * 7919 + i) for i, entry in enumerate(lineup)
    ]
    created = [level for level in (path, *path.parents) if not level.exists()]  # deepest first
    path.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".cardzoo-record-", dir=path))
    placed = []  # (the name a GIF should have, the name it got)
    try:
        for g in range(num_games):
            deal, seat_entries = match_seating(seed, g, n, mirrored)
            seated = [agents[entry] for entry in seat_entries]
            for agent, entry in zip(seated, seat_entries):
                agent.reseed(agent_seed(seed, g, entry, agent.named_seed))
            _, frames = play_recorded_game(game, seated, deal, max_cycles, viewer)
            with frames:
                made = Path(write_gif(scratch / gif_name(g), frames, fps=fps))
            placed.append((path / gif_name(g), publish_new(made, path / gif_name(g))))
    except BaseException:  # an interrupted recording leaves the GIFs it finished, nothing else
        with contextlib.suppress(OSError):
            (scratch / gif_name(len(placed))).unlink(missing_ok=True)
        for made_folder in (scratch, *created):
            with contextlib.suppress(OSError):  # kept if not empty
                made_folder.rmdir()
        raise
    with contextlib.suppress(OSError):  # empty unless a GIF found no free name (then kept)
        scratch.rmdir()
    taken = [(wanted, kept) for wanted, kept in placed if kept != wanted]
    if taken:
        others = len(taken) - 1
        more = f" (and {others} more recorded game{'s' if others > 1 else ''})" if others else ""
        raise InputError(str(appeared_error(*taken[0])) + more)
    return [kept for _, kept in placed]


def play_recorded_game(
    game: Game,
    agents: Sequence[Agent],
    deal: int,
    max_cycles: int,
    viewer: int | None = None,
) -> tuple[GameRecord, PackedFrames]:
    """Play the game dealt from ``deal`` with ``agents[seat]`` in each seat, as a
    :class:`~cardzoo.table.Table` plays it; returns its record and its pictures (the deal,
    then one after every step), each compressed as soon as it is drawn so that a long game
    does not fill the memory (close them when done)."""
    table = Table(game, game.new_state(game_rng_from_seed(deal)), agents, max_cycles)
    state = table.state
    frames = PackedFrames()
    try:
        frames.append(game.picture(state, viewer))
        while not table.over:
            player = state.current_player
            action, _ = agent_action(game, state, agents[player])
            table.step(action)
            frames.append(game.picture(state, viewer, {player: action}))
    except BaseException:
        frames.close()
        raise
    return game_record(table, deal), frames
