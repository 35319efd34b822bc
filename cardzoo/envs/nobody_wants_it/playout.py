"""Nobody Wants It played to the end by a cheap policy, many games in one call: search rollouts.

Search agents (:mod:`cardzoo.agents.search`) finish thousands of sampled games per move by a
cheap default policy (:data:`POLICIES`: uniformly random legal actions, or mostly a shedding
heuristic). A game's state is already its kernel's packed row (:mod:`cardzoo.envs.packed`):
:func:`pack` stacks the rows of many states, and the kernel plays the batch out in one call
(:func:`~.kernel.playouts`), with the game's own rules.

The kernel is compiled by numba when it is installed (the ``search`` extra; compiled once per
machine and kept in numba's on-disk cache) and runs as plain Python otherwise, on Python lists.
**Decision:** both run the very same source, with integer arithmetic only and a random
generator of their own (xorshift32, seeded per game from the caller's numpy ``Generator``), so
the compiled and the plain results are identical, bit for bit, on every machine; only the speed
differs (benchmarks/search.py measures both). A playout's deals and reshuffles draw from that
generator, not the game's, and a playout shuffles every later round even where reset options
fixed its deck: a playout is another sample of the same game, not a replay.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardzoo.envs import kernel_random
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_choice
from cardzoo.envs.kernels import ROW_DTYPE, plain_and_compiled, playout_inputs, run_playouts
from cardzoo.envs.nobody_wants_it import kernel as _kernel
from cardzoo.envs.nobody_wants_it.kernel import ROUND, TERMINAL  # scalars of a packed row
from cardzoo.envs.packed import PackedState


def row_layout(num_players: int, num_rounds: int) -> dict[str, int]:
    """Where each part of a packed row starts (the state's field names, at the kernel's
    :func:`~.kernel.parts`), and the row's length (``"size"``)."""
    starts = {name: start for name, (start, _) in _kernel.parts(num_players, num_rounds).items()}
    starts["size"] = int(_kernel.row_size(num_players, num_rounds, 0))
    return starts


def pack(states: Sequence[PackedState]) -> np.ndarray:
    """The states' rows as one array (of :data:`~cardzoo.envs.kernels.ROW_DTYPE`), their later
    rounds shuffled (no fixed deck). A state that follows itself (one world after several first
    actions) is copied once."""
    if not states:
        raise ValueError("pack needs at least one state")
    rows = np.empty((len(states), len(states[0].row)), ROW_DTYPE)
    previous = None
    for index, state in enumerate(states):
        rows[index] = rows[index - 1] if state is previous else state.row
        previous = state
    rows[:, states[0].layout.parts["fixed_decks"][0] :] = -1
    return rows


def unpack(game: Game, row: np.ndarray, rng: np.random.Generator) -> PackedState:
    """The game's state of a packed row (for tests and debugging), ``rng`` its generator."""
    return game.state_class(game.row_layout, np.array(row, ROW_DTYPE), rng)


# ----------------------------------------------------------------------------------------------
# The kernel, compiled (numba, when installed) and plain (Python)
# ----------------------------------------------------------------------------------------------


_PLAIN, _COMPILED = plain_and_compiled(_kernel)


#: rollout policies: name -> (the share of actions, per mille, played at random; whether the
#: others choose their pairs by where the NWI cards go). "random" is uniformly random legal
#: play, "shedder" mostly the hand_shedder heuristic, "dodger" mostly the same with nwi_dodger's
#: first and last choices among pairs.
POLICIES = {"random": (1000, False), "shedder": (100, False), "dodger": (100, True)}


def playouts(
    game: Game,
    rows: np.ndarray,
    rng: np.random.Generator,
    first_actions: np.ndarray | None = None,
    compiled: bool | None = None,
    policy: str = "random",
    seed_groups: int = 1,
    one_round: bool = False,
) -> np.ndarray:
    """Play every packed row to the end of the game (of its round if ``one_round``), after
    ``first_actions[b]`` where it is >= 0, by ``policy`` (:data:`POLICIES`), in place; returns
    ``rows``. Seeds come from ``rng``, one per ``seed_groups`` consecutive rows (those rows play
    with the same random numbers: common random numbers for one world after different first
    actions). ``compiled`` None: numba if installed; False forces the plain Python kernel
    (identical results, slower); True requires numba."""
    rows, first_actions, seeds = playout_inputs(rows, rng, first_actions, seed_groups)
    check_choice("policy", policy, tuple(POLICIES))
    # A playout stops where it is after the environment's own truncation limit of steps.
    arguments = (game.num_players, game.num_rounds, game.default_max_cycles)
    options = (*POLICIES[policy], bool(one_round))
    scratch = (kernel_random.SIZE, _kernel.NUM_ACTIONS)  # a generator, a mask
    return run_playouts(
        _PLAIN, _COMPILED, compiled, rows, first_actions, seeds, arguments, scratch, options
    )


def apply_packed(
    game: Game, row: np.ndarray, action: int, seed: int, compiled: bool = False
) -> np.ndarray:
    """A copy of ``row`` after ``action`` (for tests: the kernel's rules against the engine's)."""
    kernel = _COMPILED if compiled else _PLAIN
    rng = np.zeros(kernel_random.SIZE, np.int64)
    kernel_random.seed_xorshift(rng, seed)
    if compiled:
        out = np.array(row, ROW_DTYPE)
        kernel.apply_action(out, game.num_players, game.num_rounds, action, rng)
        return out
    out = list(map(int, row))
    kernel.apply_action(out, game.num_players, game.num_rounds, action, rng.tolist())
    return np.array(out, ROW_DTYPE)


def policy_action(game: Game, row: np.ndarray, policy: str) -> int:
    """The action the heuristic part of a rollout ``policy`` takes in a packed row (for tests;
    "random" has none)."""
    if policy not in POLICIES or policy == "random":
        raise ValueError(f"policy={policy!r}: choose one of {list(POLICIES)[1:]}")
    nwi_aware = POLICIES[policy][1]
    return int(
        _PLAIN.shedding_action(list(map(int, row)), game.num_players, game.num_rounds, nwi_aware)
    )


def final_points(game: Game, rows: np.ndarray) -> np.ndarray:
    """Each row's points per seat (the final scores of finished games)."""
    start = row_layout(game.num_players, game.num_rounds)["points"]
    return rows[:, start : start + game.num_players]


__all__ = [
    "ROUND",
    "TERMINAL",
    "apply_packed",
    "final_points",
    "pack",
    "playouts",
    "policy_action",
    "row_layout",
    "unpack",
]
