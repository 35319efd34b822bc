"""Recorded matches: the first games of a match played again move by move and written as
animated GIFs, one file per game (``game_0001.gif``, ``game_0002.gif``, ...).

>>> from cardzoo.recording import record_games
>>> record_games("henhouse", ["random", "random", "random"], "replays", num_games=3)

Game ``g`` is game ``g`` of :func:`cardzoo.evaluation.play_match` with the same arguments: the
same deal, the same seats, the same agent seeds, so ``cardzoo match ... --record DIR`` shows the
games the table reports. A GIF holds the deal and then one frame after every step (a game of L
agent steps has L + 1 frames), drawn by the game's ``picture`` (everything face up, or from one
seat's eyes with ``viewer``), with the latest move in its header.

Decision (never overwrite): the folder must not hold any of the files a recording would write;
this is checked before the first game is played (a ``ValueError`` naming ``folder`` and the
file), so a recording never replaces an earlier one.

Layer: the table (with :mod:`cardzoo.evaluation`); the environments and agents never import it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cardzoo.agents import Agent, AgentSpec, agent_action, build_agent
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_int, game_rng_from_seed
from cardzoo.envs.recording import check_fps, write_gif
from cardzoo.envs.rendering import RENDER_FPS
from cardzoo.errors import InputError
from cardzoo.evaluation import GameRecord, agent_seed, check_match, game_record, match_seating
from cardzoo.table import Table

#: how many games ``cardzoo match --record`` records unless told otherwise
DEFAULT_RECORDED_GAMES = 20


def gif_name(game_index: int) -> str:
    """The file of game ``game_index`` (0-based) of a recording: ``game_0001.gif`` for 0."""
    return f"game_{game_index + 1:04d}.gif"


def check_record_folder(folder: str | os.PathLike, num_games: int) -> Path:
    """``folder`` as a Path if a recording of ``num_games`` games may be written there: not a
    file, and holding none of the files it would write. ``ValueError`` naming ``folder``
    otherwise. Nothing is created."""
    path = Path(folder)
    if not os.fspath(folder).strip():
        raise InputError("folder: an empty path names no folder; give a folder name")
    if path.exists() and not path.is_dir():
        raise InputError(f"folder: {os.fspath(folder)!r} is a file; give a folder")
    taken = [gif_name(g) for g in range(num_games) if (path / gif_name(g)).exists()]
    if taken:
        raise InputError(
            f"folder: {os.fspath(folder)!r} already holds {taken[0]}"
            f"{f' and {len(taken) - 1} more recorded games' if len(taken) > 1 else ''}; "
            "recordings are never overwritten: give another folder or remove them"
        )
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
    argument); the folder is created if missing.

    ``seed`` is the first deal's seed (an int >= 0): deals use ``seed, seed + 1, ...`` as
    ``env.reset(seed=...)`` does, and the agents are reseeded from it for every game.
    ``mirrored`` (default True) replays each deal under every rotation of the seats; False
    gives every game a deal of its own. ``fps`` is the pictures shown a second in the GIF (a
    finite number > 0; default 2). ``max_cycles`` is the most agent steps a game may take
    before it is cut short (truncated); None, the default, is the game's own limit."""
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
    path.mkdir(parents=True, exist_ok=True)
    written = []
    for g in range(num_games):
        deal, seat_entries = match_seating(seed, g, n, mirrored)
        seated = [agents[entry] for entry in seat_entries]
        for agent, entry in zip(seated, seat_entries):
            agent.reseed(agent_seed(seed, g, entry, agent.named_seed))
        _, frames = play_recorded_game(game, seated, deal, max_cycles, viewer)
        written.append(Path(write_gif(path / gif_name(g), frames, fps=fps)))
    return written


def play_recorded_game(
    game: Game,
    agents: Sequence[Agent],
    deal: int,
    max_cycles: int,
    viewer: int | None = None,
) -> tuple[GameRecord, list[np.ndarray]]:
    """Play the game dealt from ``deal`` with ``agents[seat]`` in each seat, as a
    :class:`~cardzoo.table.Table` plays it; returns its record and its pictures (the deal,
    then one after every step)."""
    table = Table(game, game.new_state(game_rng_from_seed(deal)), agents, max_cycles)
    state = table.state
    frames = [game.picture(state, viewer)]
    while not table.over:
        player = state.current_player
        action, _ = agent_action(game, state, agents[player])
        table.step(action)
        frames.append(game.picture(state, viewer, {player: action}))
    return game_record(table, deal), frames
