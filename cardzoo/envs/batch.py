"""Many games of one kind in numpy arrays, advanced in one call: the engine of the vector envs.

A :class:`GameBatch` holds N games of one :class:`~cardzoo.envs.core.Game` as rows of an int64
array and steps them all through the game's kernel (``Game.kernel_module``: the game's rules on
packed rows, the same source compiled by numba where it is installed and run as plain Python
otherwise, with identical results; :mod:`cardzoo.envs.kernels`).

**Same games as the environments.** Each game keeps the two generators an AEC environment has:
the environment's, seeded by :meth:`GameBatch.seed` as ``env.reset(seed=s)`` seeds it, and the
game's, drawn from it for every new game (:func:`~cardzoo.envs.helpers.deal_for_reset`), both
numpy's PCG64 reproduced bit for bit (:mod:`cardzoo.envs.kernel_random`). So game b seeded with
``s`` deals and reshuffles the cards ``env.reset(seed=s)`` does, and each later game it starts
is the one the environment's next unseeded ``reset()`` would deal: with the same actions, the
observations, masks, rewards and ends are the AEC environment's, step by step.

Nothing here checks the actions: the vector environments do, before calling :meth:`step`.
"""

from __future__ import annotations

import importlib

import numpy as np

from cardzoo.envs import kernel_random
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_int
from cardzoo.envs.kernels import plain_and_compiled, use_compiled
from cardzoo.errors import InputError

#: how a game stands after a step (the kernels' codes)
RUNNING, OVER, TRUNCATED = 0, 1, 2

#: the code of uniformly random opponents among the policies every kernel plays (its
#: ``step_seats``); a kernel with heuristics numbers them from 1 (:meth:`GameBatch.step_seats`)
RANDOM_POLICY = 0

#: the code of a seat that :meth:`GameBatch.play_codes` leaves to be decided outside
EXTERNAL_POLICY = -1

#: deals in a row that may end before a learner's seat decides (see :meth:`GameBatch.step_seats`)
MAX_DEALS = 1000


def has_batch(game_class: type[Game]) -> bool:
    """Whether a game has a kernel that plays many games at once (and so a vector form)."""
    return game_class.kernel_module is not None


class GameBatch:
    """``num_games`` games of ``game``, each cut at ``max_cycles`` agent steps (default: the
    game's ``default_max_cycles``), on the compiled kernel (``compiled`` None: where numba is
    installed; False: plain Python; True: numba required). No game is dealt until
    :meth:`seed` and :meth:`start`."""

    def __init__(
        self,
        game: Game,
        num_games: int,
        max_cycles: int | None = None,
        compiled: bool | None = None,
    ):
        if not has_batch(type(game)):
            raise InputError(f"{game.name} has no vector form yet (no kernel)")
        self.game = game
        self.num_games = check_int("num_envs", num_games, 1)
        self.max_cycles = check_int(
            "max_cycles", game.default_max_cycles if max_cycles is None else max_cycles, 1
        )
        assert game.kernel_module is not None  # has_batch
        plain, compiled_kernel = plain_and_compiled(importlib.import_module(game.kernel_module))
        self.compiled = use_compiled(compiled, compiled_kernel)
        self.kernel = compiled_kernel if self.compiled else plain
        self._random = kernel_random if self.compiled else plain_and_compiled(kernel_random)[0]
        self.parameters = game.kernel_parameters()
        size = int(self.kernel.row_size(*self.parameters))
        self.rows = np.zeros((self.num_games, size), np.int64)
        self.rngs = np.zeros((self.num_games, kernel_random.SIZE), np.int64)
        self.env_rngs = np.zeros_like(self.rngs)
        self.steps = np.zeros(self.num_games, np.int64)
        layout = game.observation_layout
        self.starts = np.array([layout[f].start for f in self.kernel.OBSERVATION_FIELDS])
        self._mask = np.zeros(game.num_actions, np.int64)  # the kernel's scratch
        #: whether the kernel plays heuristics as opponents (it has ``policy_action``): its
        #: ``step_seats`` then takes a policy code per opponent (see :meth:`step_seats`)
        self.plays_heuristics = hasattr(self.kernel, "policy_action")
        self._observation = np.zeros(game.observation_size)  # the heuristics' scratch

    def seed(self, seeds: np.ndarray) -> None:
        """Seed each game's environment generator as ``numpy.random.default_rng(seeds[b])``
        (integers in 0 .. 2**63 - 1)."""
        self.seed_generators(self.env_rngs, seeds)

    def start(self, games: np.ndarray) -> None:
        """A new game wherever ``games`` (bool, one per game) is true."""
        self.kernel.start_games(
            self.rows, self.rngs, self.env_rngs, self.steps, games, *self.parameters
        )

    def observe(self, players: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> None:
        """Write the observation of seat ``players[b]`` of each game (-1: the player to decide)
        into ``observations[b]`` (float32) and its legal actions into ``masks[b]`` (int8; all 0
        unless that seat decides now); games with ``players[b] < -1`` are skipped."""
        self.kernel.observe_games(
            self.rows, players, self.starts, observations, masks, *self.parameters
        )

    def current_players(self, out: np.ndarray) -> np.ndarray:
        """The seat that decides now in each game, into ``out``."""
        self.kernel.current_players(self.rows, out, *self.parameters)
        return out

    def step(self, actions: np.ndarray, rewards: np.ndarray, ends: np.ndarray) -> None:
        """Each game with ``actions[b] >= 0`` takes it for the player to decide (legal actions
        only: nothing is checked); ``rewards[b]`` gets what each seat earned (float64, one per
        seat), ``ends[b]`` how the game stands (:data:`RUNNING`, :data:`OVER`,
        :data:`TRUNCATED`). Games with ``actions[b] < 0`` are left alone."""
        self.kernel.step_games(
            self.rows, self.rngs, self.steps, actions, self.max_cycles, rewards, ends,
            *self.parameters,
        )  # fmt: skip

    def step_seats(
        self,
        seats: np.ndarray,
        actions: np.ndarray,
        learner_seat: int,
        policy_rngs: np.ndarray,
        rewards: np.ndarray,
        ends: np.ndarray,
        policies: np.ndarray | None = None,
    ) -> None:
        """One decision of a learner in each game, the other seats played by ``policies``: one
        int64 code per other seat, in seat order without the learner's: :data:`RANDOM_POLICY`
        (uniformly random, from the generators ``policy_rngs``) or, where the kernel
        :attr:`plays_heuristics`, a heuristic written in it (the code its agent class names as
        ``kernel_policy``); None: all random. ``actions[b] >= 0``: the learner, in seat
        ``seats[b]``, takes it, and the others play until it decides again or the game ends;
        ``rewards[b]`` is what it earned, ``ends[b]`` how the game stands. ``actions[b] == -1``:
        a new episode: a new game, the learner in ``learner_seat`` (-1: a seat drawn from
        ``policy_rngs[b]``), the others playing up to its first decision; a game that ends first
        is dealt again, and :data:`MAX_DEALS` in vain raise ``InputError``. Games with
        ``actions[b] < -1`` are left alone."""
        heuristics: tuple = ()
        if self.plays_heuristics:
            if policies is None:
                policies = np.zeros(self.game.num_players - 1, np.int64)
            heuristics = (policies, self.starts, self._observation)
        elif policies is not None and np.any(policies):
            raise InputError(f"{self.game.name}: its kernel plays only random opponents")
        failed = self.kernel.step_seats(
            self.rows, self.rngs, self.env_rngs, policy_rngs, self.steps, seats, actions,
            learner_seat, self.max_cycles, MAX_DEALS, rewards, ends, self._mask, *heuristics,
            *self.parameters,
        )  # fmt: skip
        if failed >= 0:
            seat = "a random seat" if learner_seat < 0 else f"seat {learner_seat}"
            raise InputError(
                f"{self.game.name}: in {MAX_DEALS} deals in a row game {failed} ended or reached "
                f"max_cycles={self.max_cycles} before the learner ({seat}) had a decision; "
                "raise max_cycles"
            )

    def play_codes(
        self,
        stops: np.ndarray,
        codes: np.ndarray,
        active: np.ndarray,
        policy_rngs: np.ndarray,
        earned: np.ndarray,
        ends: np.ndarray,
        players: np.ndarray,
    ) -> int:
        """Play each game b with ``active[b]`` until seat ``stops[b]`` must decide, a seat whose
        code ``codes[b, seat]`` is :data:`EXTERNAL_POLICY` must decide, or the game ends; every
        other seat by its code (:data:`RANDOM_POLICY`, from the generators ``policy_rngs``, or,
        where the kernel :attr:`plays_heuristics`, a heuristic's ``kernel_policy``). Adds what
        seat ``stops[b]`` earned meanwhile to ``earned[b]`` (float64); ``ends[b]`` says how the
        game stands, ``players[b]`` which seat decides now. Games not active are left alone.
        Returns how many games wait for a seat decided outside."""
        return int(
            self.kernel.play_codes(
                self.rows, self.rngs, policy_rngs, self.steps, stops, codes, active,
                self.max_cycles, earned, ends, players, self._mask, self.starts, self._observation,
                *self.parameters,
            )
        )  # fmt: skip

    def draw(self, generator: np.ndarray, count: int) -> int:
        """A number in 0..count-1 from one of the kernels' generators (as the kernel draws)."""
        return int(self._random.below(generator, count))

    def seed_generators(self, generators: np.ndarray, seeds: np.ndarray) -> None:
        """Seed each row of ``generators`` as ``numpy.random.default_rng(seeds[b])``."""
        for rng, seed in zip(generators, np.asarray(seeds).tolist()):
            self._random.seed_numpy(rng, seed)
