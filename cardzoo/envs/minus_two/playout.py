"""Minus Two played on by a cheap policy, many games in one call: search rollouts.

Search agents (:mod:`cardzoo.agents.search`) finish thousands of sampled games per move by a
cheap default policy (:data:`POLICIES`: mostly the ``attacker`` heuristic, mostly
``high_cards``, or uniformly random legal actions). A game's state is already its kernel's
packed row (:mod:`cardzoo.envs.packed`): :func:`pack` stacks the rows of many states, and the
kernel plays the batch out in one call (:func:`~.kernel.playouts`), with the game's own rules.

As for Nobody Wants It's playouts (:mod:`cardzoo.envs.nobody_wants_it.playout`), those functions
are compiled by numba when it is installed (the ``search`` extra) and run as plain Python
otherwise, on Python lists: the very same source, integer arithmetic only, a xorshift32
generator (:mod:`cardzoo.envs.kernel_random`) seeded per game from the caller's numpy
``Generator``, so compiled and plain results are identical on every machine; only the speed
differs.

Later rounds are dealt in the game's order but from the playout's own generator: a playout is
another sample of the same game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardzoo.envs import kernel_random
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_choice
from cardzoo.envs.kernels import ROW_DTYPE, plain_and_compiled, playout_inputs, run_playouts
from cardzoo.envs.minus_two import kernel as _kernel
from cardzoo.envs.minus_two.kernel import MAX_LEGAL, ROUND, TERMINAL  # scalars of a row
from cardzoo.envs.packed import PackedState


def row_layout(num_players: int) -> dict[str, int]:
    """Where each part of a packed row starts (the state's field names, at the kernel's
    :func:`~.kernel.parts`), and the row's length (``"size"``)."""
    starts = {name: start for name, (start, _) in _kernel.parts(num_players).items()}
    starts["size"] = int(_kernel.row_size(num_players, 0, 0, 0, 0))
    return starts


def pack(states: Sequence[PackedState]) -> np.ndarray:
    """The states' rows as one array (of :data:`~cardzoo.envs.kernels.ROW_DTYPE`). A state that
    follows itself (one world after several first actions) is copied once."""
    if not states:
        raise ValueError("pack needs at least one state")
    rows = np.empty((len(states), len(states[0].row)), ROW_DTYPE)
    previous = None
    for index, state in enumerate(states):
        rows[index] = rows[index - 1] if state is previous else state.row
        previous = state
    return rows


# ----------------------------------------------------------------------------------------------
# The kernel, compiled (numba, when installed) and plain (Python)
# ----------------------------------------------------------------------------------------------


_PLAIN, _COMPILED = plain_and_compiled(_kernel)


#: rollout policies: name -> (the share of actions, per mille, played uniformly at random; the
#: heuristic playing the others, True for attacker, False for high_cards). The random share
#: also breaks the cycles that deterministic players can fall into (cards going from hand to
#: pile and back), as the heuristics' loop breaker does.
POLICIES = {"attacker": (50, True), "high_cards": (50, False), "random": (1000, True)}


def _rules(game: Game) -> tuple[int, bool, int]:
    """The game's parameters the kernel needs: players, count scoring, the target's raise."""
    return game.num_players, game.scoring == "count", game.target_raise


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
    (identical results, slower); True requires numba. A playout stops where it is after the
    game's ``default_max_cycles`` steps."""
    rows, first_actions, seeds = playout_inputs(rows, rng, first_actions, seed_groups)
    check_choice("policy", policy, tuple(POLICIES))
    n, count_scoring, target_raise = _rules(game)
    arguments = (n, game.default_max_cycles)
    scratch = (kernel_random.SIZE, MAX_LEGAL)  # a generator, the legal actions of a decision
    options = (*POLICIES[policy], bool(one_round), count_scoring, target_raise)
    return run_playouts(
        _PLAIN, _COMPILED, compiled, rows, first_actions, seeds, arguments, scratch, options
    )


def apply_packed(
    game: Game, row: np.ndarray, action: int, seed: int, compiled: bool = False
) -> np.ndarray:
    """A copy of ``row`` after ``action`` (for tests: the kernel's rules against the engine's).
    ``seed`` seeds the deal of a next round."""
    n, count_scoring, target_raise = _rules(game)
    kernel = _COMPILED if compiled else _PLAIN
    rng = np.zeros(kernel_random.SIZE, np.int64)
    kernel_random.seed_xorshift(rng, seed)
    if compiled:
        out = np.array(row, ROW_DTYPE)
        kernel.apply_action(out, n, int(action), rng, count_scoring, target_raise)
        return out
    out = list(map(int, row))
    kernel.apply_action(out, n, int(action), rng.tolist(), count_scoring, target_raise)
    return np.array(out, ROW_DTYPE)


def legal_actions(game: Game, row: np.ndarray) -> list[int]:
    """The legal actions of a packed row, in increasing order (for tests)."""
    buf = [0] * MAX_LEGAL
    k = _PLAIN.list_legal(list(map(int, row)), game.num_players, buf)
    return buf[:k]


def policy_action(game: Game, row: np.ndarray, policy: str) -> int:
    """The action the heuristic part of a rollout ``policy`` takes in a packed row (for tests;
    "random" has none)."""
    if policy not in POLICIES or policy == "random":
        raise ValueError(f"policy={policy!r}: choose one of {list(POLICIES)[:-1]}")
    values = list(map(int, row))
    code = _PLAIN.legal_code(values, game.num_players)
    return int(_PLAIN.heuristic_action(values, game.num_players, code, POLICIES[policy][1]))


def final_totals(game: Game, rows: np.ndarray) -> np.ndarray:
    """Each row's running totals per seat (the final scores of finished games)."""
    start = row_layout(game.num_players)["totals"]
    return rows[:, start : start + game.num_players]


__all__ = [
    "POLICIES",
    "ROUND",
    "TERMINAL",
    "apply_packed",
    "final_totals",
    "legal_actions",
    "pack",
    "playouts",
    "policy_action",
    "row_layout",
]
