"""Believe It or Not played to the end by a cheap policy, many games in one call: search rollouts.

Search agents (:mod:`cardzoo.agents.search`) finish thousands of sampled games per move by a
cheap default policy (:data:`POLICIES`: mostly the bluffer heuristic, or uniformly random legal
actions). A game's state is already its kernel's packed row (:mod:`cardzoo.envs.packed`):
:func:`pack` stacks the rows of many states, and the kernel plays the batch out in one call
(:func:`~.kernel.playouts`), with the game's own rules.

As for Nobody Wants It (:mod:`cardzoo.envs.nobody_wants_it.playout`), the kernel is compiled by
numba when it is installed (the ``search`` extra; compiled once per machine and kept in numba's
on-disk cache) and runs as plain Python otherwise, on Python lists: the very same source,
integer arithmetic only, with a cheap random generator (xorshift32 of
:mod:`cardzoo.envs.kernel_random`, seeded per game from the caller's numpy ``Generator``), so the
compiled and the plain results are identical; only the speed differs (benchmarks/search.py
measures both). The same kernel plays the vector environments' games (:mod:`cardzoo.envs.batch`)
and every single game (:mod:`.rules`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardzoo.envs import kernel_random
from cardzoo.envs.believe_it_or_not import kernel as _kernel
from cardzoo.envs.believe_it_or_not.kernel import HEURISTIC_MEMORY, TERMINAL
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_choice
from cardzoo.envs.kernels import ROW_DTYPE, plain_and_compiled, playout_inputs, run_playouts
from cardzoo.envs.packed import KernelGame, PackedState


def row_layout(game: Game) -> dict[str, int]:
    """Where each part of a packed row starts (the state's field names, at the kernel's
    :func:`~.kernel.parts`), and the row's length (``"size"``)."""
    parts = _kernel.parts(game.num_players, game.num_cards)
    starts = {name: start for name, (start, _) in parts.items()}
    starts["size"] = int(_kernel.row_size(*game.kernel_parameters()))
    return starts


def pack(game: KernelGame, states: Sequence[PackedState]) -> np.ndarray:
    """The states' rows as one array (of :data:`~cardzoo.envs.kernels.ROW_DTYPE`). A state that
    follows itself (one world after several first actions) is copied once."""
    if not states:
        raise ValueError("pack needs at least one state")
    rows = np.empty((len(states), game.row_layout.size), ROW_DTYPE)
    previous = None
    for index, state in enumerate(states):
        rows[index] = rows[index - 1] if state is previous else state.row
        previous = state
    return rows


def unpack(game: KernelGame, row: np.ndarray, rng: np.random.Generator) -> PackedState:
    """The game's state of a packed row (for tests and debugging), ``rng`` its generator."""
    return game.state_class(game.row_layout, np.array(row, ROW_DTYPE), rng)


# ----------------------------------------------------------------------------------------------
# The kernel, compiled (numba, when installed) and plain (Python)
# ----------------------------------------------------------------------------------------------


_PLAIN, _COMPILED = plain_and_compiled(_kernel)

#: rollout policies: name -> the share of actions, per mille, played uniformly at random among
#: the legal ones; the others are the bluffer agent's (:class:`~cardzoo.agents.believe_it_or_not.
#: BlufferAgent`'s own function, from the acting seat's observation, each seat planning its
#: placements as the agent does). "bluffer" is that heuristic with a tenth of random moves (which
#: also breaks the cycles a deterministic policy can fall into), "random" uniformly random legal
#: play.
POLICIES = {"bluffer": 100, "random": 1000}


def playouts(
    game: KernelGame,
    rows: np.ndarray,
    rng: np.random.Generator,
    first_actions: np.ndarray | None = None,
    compiled: bool | None = None,
    policy: str = "bluffer",
    seed_groups: int = 1,
) -> np.ndarray:
    """Play every packed row to the end of the game (or the game's ``default_max_cycles``
    steps), after ``first_actions[b]`` where it is >= 0, by ``policy`` (:data:`POLICIES`), in
    place; returns ``rows``. Seeds come from ``rng``, one per ``seed_groups`` consecutive rows
    (those rows play with the same random numbers: common random numbers for one world after
    different first actions). ``compiled`` None: numba if installed; False forces the plain
    Python kernel (identical results, slower); True requires numba."""
    rows, first_actions, seeds = playout_inputs(rows, rng, first_actions, seed_groups)
    check_choice("policy", policy, tuple(POLICIES))
    arguments = (*game.kernel_parameters(), game.default_max_cycles)
    # a generator, the legal actions, each seat's plan and whether it made it; an observation
    n = game.num_players
    scratch = (kernel_random.SIZE, _kernel.NUM_ACTIONS, (n, HEURISTIC_MEMORY), n)
    options = (np.array(game.observation_starts(), np.int64), POLICIES[policy])
    return run_playouts(
        _PLAIN, _COMPILED, compiled, rows, first_actions, seeds, arguments, scratch, options,
        (game.observation_size,),
    )  # fmt: skip


def apply_packed(game: Game, row: np.ndarray, action: int, compiled: bool = False) -> np.ndarray:
    """A copy of ``row`` after ``action`` (for tests: the kernel's rules against the engine's)."""
    if compiled:
        out = np.array(row, ROW_DTYPE)
        _COMPILED.apply_action(out, *game.kernel_parameters(), action)
        return out
    out = list(map(int, row))
    _PLAIN.apply_action(out, *game.kernel_parameters(), action)
    return np.array(out, ROW_DTYPE)


def legal_packed(game: Game, row: np.ndarray) -> list[int]:
    """The legal actions of a packed row, by the kernel (for tests)."""
    legal = [0] * _kernel.NUM_ACTIONS
    count = _PLAIN.legal_list(list(map(int, row)), *game.kernel_parameters(), legal)
    return legal[:count]


def policy_actions(game: KernelGame, row: np.ndarray, count: int, seed: int = 1) -> list[int]:
    """The first ``count`` actions the rollout policy's heuristic part (the bluffer, no random
    moves) takes from a packed row, as a rollout seeded with ``seed`` takes them (for tests)."""
    values = list(map(int, row))
    n, cards, species, quick = game.kernel_parameters()
    rng, legal = [0] * kernel_random.SIZE, [0] * _kernel.NUM_ACTIONS
    memories, planned = [[0] * HEURISTIC_MEMORY for _ in range(n)], [0] * n
    observation, starts = [0.0] * game.observation_size, game.observation_starts()
    _PLAIN.seed_xorshift(rng, seed)
    actions: list[int] = []
    while len(actions) < count and not values[TERMINAL]:
        action = _PLAIN.rollout_action(
            values, n, cards, species, quick, rng, legal, memories, planned, observation, starts,
            0,
        )  # fmt: skip
        _PLAIN.apply_action(values, n, cards, species, quick, action)
        actions.append(int(action))
    return actions


def winners(game: Game, rows: np.ndarray) -> np.ndarray:
    """Each row's winners (bool ``(len(rows), n)``; none for a game not finished)."""
    start = row_layout(game)["winner_mask"]
    finished = rows[:, TERMINAL] == 1
    return (rows[:, start : start + game.num_players] == 1) & finished[:, None]


def scores(game: Game, rows: np.ndarray) -> np.ndarray:
    """The game's scores of each row (:meth:`~.rules.BelieveItOrNot.scores`): the cards each
    player holds (hand, being placed, own placements on the table)."""
    layout = row_layout(game)
    n, seats = game.num_players, layout["seat_counts"]
    held = rows[:, seats : seats + n] + rows[:, seats + 2 * n : seats + 3 * n]
    building = rows[:, _kernel.BUILDING_SIZE]
    held[np.arange(len(rows)), rows[:, _kernel.CURRENT]] += building
    return held


__all__ = [
    "POLICIES",
    "apply_packed",
    "legal_packed",
    "pack",
    "playouts",
    "policy_actions",
    "row_layout",
    "scores",
    "unpack",
    "winners",
]
