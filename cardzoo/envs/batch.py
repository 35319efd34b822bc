"""Many games of one kind in numpy arrays, advanced in one call: the engine of the vector envs.

A :class:`GameBatch` holds N games of one :class:`~cardzoo.envs.core.Game` as rows of an integer
array (:data:`~cardzoo.envs.kernels.ROW_DTYPE`) and steps them all through the game's kernel
(``Game.kernel_module``: the game's rules on packed rows, the same source compiled by numba where it
is installed and run as plain Python otherwise, with identical results;
:mod:`cardzoo.envs.kernels`).

**Same games as the environments.** Each game keeps the two generators an AEC environment has:
the environment's, seeded by :meth:`GameBatch.seed` as ``env.reset(seed=s)`` seeds it, and the
game's, drawn from it for every new game (:func:`~cardzoo.envs.helpers.deal_for_reset`), both
numpy's PCG64 reproduced bit for bit (:mod:`cardzoo.envs.kernel_random`). So game b seeded with
``s`` deals and reshuffles the cards ``env.reset(seed=s)`` does, and each later game it starts
is the one the environment's next unseeded ``reset()`` would deal: with the same actions, the
observations, masks, rewards and ends are the AEC environment's, step by step.

**Decision (plain games as lists).** Plain Python indexes a list several times faster than a
numpy array, and draws with a ``numpy.random.Generator`` at C speed where the kernel's own
generator does 128-bit arithmetic in 16-bit limbs (:mod:`cardzoo.envs.kernel_random`). So a
plain batch keeps its games as :mod:`cardzoo.envs.packed` keeps a plain game: each game's row a
list, and its generators (its own, its environment's, its policy generator and its heuristics')
``numpy.random.Generator`` objects (the plain kernel draws with them the very numbers it draws
from the arrays); the arrays a call takes are read as lists once and written back once,
observations are written into lists and copied into the caller's array in one call, masks into
the caller's array (a kept mask copied at C speed: :mod:`cardzoo.envs.kernel_arrays`). The
arrays :attr:`GameBatch.rows`, :attr:`~GameBatch.rngs`, :attr:`~GameBatch.env_rngs`,
:attr:`~GameBatch.policy_rngs`, :attr:`~GameBatch.heuristic_rngs` and :attr:`~GameBatch.steps`
are written from the lists when first asked for, and from then on they are the games (as a
packed state's views): the batch runs them as arrays, slower and with the same games. A caller
that only reads them takes copies that leave the lists be (:meth:`GameBatch.row`,
:meth:`GameBatch.step_counts`). The compiled kernel runs arrays always.

**Decision (the policy generators are the batch's).** The drivers that seat opponents in the
kernel draw the learner's seat and the random opponents' actions from a second generator per
game, seeded by :meth:`GameBatch.seed` with the game's other generators. The batch holds it, as
it holds the others, so that a plain batch keeps it as a ``numpy.random.Generator`` between
calls (a caller's array would be read and written at every call).

Nothing here checks the actions: the vector environments do (:meth:`GameBatch.first_illegal`),
before calling :meth:`step`.
"""

from __future__ import annotations

import importlib
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cardzoo.envs import kernel_arrays, kernel_random
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_int, check_max_cycles
from cardzoo.envs.kernels import ROW_DTYPE, plain_and_compiled, use_compiled
from cardzoo.envs.packed import KernelGame
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

#: the slots of each opponent's table of positions at first, in a kernel whose heuristics
#: remember them (doubled for all whenever one is half full, and quartered while all are less
#: than an eighth full; see :meth:`GameBatch.step_seats`)
MEMORY_SLOTS = 256


def opponent_seeds(seed: int, count: int) -> list[int]:
    """The seeds of the ``count`` opponents of a game seeded with ``seed``, one per other seat
    in seat order: what the vector environment seeds its opponent agents with, and its kernel's
    heuristics' generators."""
    first = int(np.random.SeedSequence(seed, spawn_key=(2,)).generate_state(1)[0])
    return [first + index for index in range(count)]


def policy_generator(seed: int) -> np.random.Generator:
    """The policy generator of a game seeded with ``seed`` (its learner's seat and its seats
    played at random in the kernel, :attr:`GameBatch.policy_rngs`): numpy's PCG64 of
    ``SeedSequence(seed, spawn_key=(1,))``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(1,))))


def has_batch(game_class: type[Game]) -> bool:
    """Whether a game has a kernel that plays many games at once (and so a vector form)."""
    return game_class.kernel_module is not None


class GameBatch:
    """``num_games`` games of ``game``, each cut at ``max_cycles`` agent steps (default: the
    game's ``default_max_cycles``), on the compiled kernel (``compiled`` None: where numba is
    installed; False: plain Python; True: numba required). No game is dealt until
    :meth:`seed` and :meth:`start`.

    ``seats_in_kernel`` False: every decision is taken outside (:meth:`step` alone), so the
    batch seeds no policy or heuristic generators (seeding them cost a seeded reset of 1,024
    games several times the deal) and refuses :meth:`step_seats`, :meth:`play_codes` and
    :meth:`draw`."""

    def __init__(
        self,
        game: Game,
        num_games: int,
        max_cycles: int | None = None,
        compiled: bool | None = None,
        seats_in_kernel: bool = True,
    ):
        if not has_batch(type(game)):
            raise InputError(f"{game.name} has no vector form yet (no kernel)")
        self.game = game
        self.seats_in_kernel = bool(seats_in_kernel)
        self.num_games = check_int("num_envs", num_games, 1)
        self.max_cycles = check_max_cycles(max_cycles, game.default_max_cycles)
        assert game.kernel_module is not None  # has_batch
        plain, compiled_kernel = plain_and_compiled(importlib.import_module(game.kernel_module))
        self.compiled = use_compiled(compiled, compiled_kernel)
        self.kernel = compiled_kernel if self.compiled else plain
        self._random = kernel_random if self.compiled else plain_and_compiled(kernel_random)[0]
        self._runs = kernel_arrays if self.compiled else plain_and_compiled(kernel_arrays)[0]
        self.parameters = game.kernel_parameters()
        size = int(self.kernel.row_size(*self.parameters))
        # The plain kernel computes with the numbers it reads: from numpy's 32-bit integers its
        # legal-action bits would overflow, so a plain batch's arrays hold 64-bit ones.
        self._row_dtype = ROW_DTYPE if self.compiled else np.int64
        self._rows = np.zeros((self.num_games, size), self._row_dtype)
        self._rngs = np.zeros((self.num_games, kernel_random.SIZE), np.int64)
        self._env_rngs = np.zeros_like(self._rngs)
        self._policy_rngs = np.zeros_like(self._rngs)
        self._steps = np.zeros(self.num_games, np.int64)
        #: plain, until the arrays are asked for: the games as lists and generators (see the
        #: module docstring), made at the first call (None until then, and for good after)
        self._lists: PlainGames | None = None
        self._arrays_out = self.compiled
        assert isinstance(game, KernelGame)  # has_batch: the games with a kernel are
        self.starts = np.array(game.observation_starts(), np.int64)
        self._starts_list = self.starts.tolist()
        self._pack_view = struct.Struct(f"{game.observation_size}f").pack
        #: 0, 1, .., n-1 once per game: the seats of :meth:`seat_views`
        self._seat_cycle = np.tile(np.arange(game.num_players, dtype=np.int64), self.num_games)
        self._mask = np.zeros(game.num_actions, np.int64)  # the kernel's scratch
        #: whether the kernel plays heuristics as opponents (it has ``policy_action``): its
        #: ``step_seats`` then takes a policy code per opponent (see :meth:`step_seats`)
        self.plays_heuristics = hasattr(self.kernel, "policy_action")
        self._observation = np.zeros(game.observation_size)  # the heuristics' scratch
        self._seat_rewards = np.zeros(game.num_players)  # play_codes' scratch
        #: whether the kernel's heuristics draw and remember (between decisions of one game):
        #: each game's heuristics (other seat o: in seat order, the learner's or stop seat's
        #: left out) then have a generator (seeded by :meth:`seed`, as the agents of the Python
        #: path are) and a memory of int64s, cleared at every new game: a fixed
        #: ``HEURISTIC_MEMORY`` of them (a plan: Believe It or Not's), or, where the kernel has
        #: ``remember`` (loop breakers: Minus Two's), a table of positions that grows
        #: (:attr:`tables`; ``remembered`` counts them). Decision: a row for every seat, one
        #: more than a learner's opponents need, so that :meth:`play_codes` can play every seat
        #: of a game (no stop seat)
        self.tables = hasattr(self.kernel, "remember")
        slots = getattr(self.kernel, "HEURISTIC_MEMORY", 0)
        self.remembers = self.tables or slots > 0
        seats = game.num_players
        self.memory = np.zeros((self.num_games, seats, slots), np.int64)  # tables: at first use
        self.remembered = np.zeros((self.num_games, seats), np.int64)
        self._heuristic_rngs = np.zeros((self.num_games, seats, kernel_random.SIZE), np.int64)

    # --- the games' containers --------------------------------------------------------------

    @property
    def rows(self) -> np.ndarray:
        """The games' packed rows (:data:`~cardzoo.envs.kernels.ROW_DTYPE`, int64 in a plain
        batch; one per game; live: the games from now on)."""
        return self._arrays()._rows

    @property
    def rngs(self) -> np.ndarray:
        """Each game's own generator (:mod:`~cardzoo.envs.kernel_random` arrays; live)."""
        return self._arrays()._rngs

    @property
    def env_rngs(self) -> np.ndarray:
        """Each game's environment generator, which deals its games' generators (live)."""
        return self._arrays()._env_rngs

    @property
    def policy_rngs(self) -> np.ndarray:
        """Each game's policy generator (:func:`policy_generator`; live): the learner's seat
        drawn by :meth:`step_seats` and :meth:`draw`, and the random opponents' actions."""
        return self._arrays()._policy_rngs

    @property
    def heuristic_rngs(self) -> np.ndarray:
        """The generators of each game's heuristics, one per seat (see :meth:`step_seats`;
        live)."""
        return self._arrays()._heuristic_rngs

    @property
    def steps(self) -> np.ndarray:
        """Each game's agent steps so far (int64; live)."""
        return self._arrays()._steps

    def row(self, b: int) -> np.ndarray:
        """A copy of game b's packed row, for reading: the batch runs on as it was."""
        lists = self._plain()
        return self._rows[b].copy() if lists is None else np.array(lists.rows[b], self._row_dtype)

    def step_counts(self, out: np.ndarray) -> np.ndarray:
        """Each game's agent steps so far, into ``out`` (as :attr:`steps` holds them; for
        reading: the batch runs on as it was)."""
        lists = self._plain()
        out[...] = self._steps if lists is None else lists.steps
        return out

    def _arrays(self) -> GameBatch:
        """The games as arrays from now on: the lists written back, if there are any (see the
        module docstring). Returns the batch."""
        lists, self._lists, self._arrays_out = self._lists, None, True
        if lists is not None:
            lists.write_back(self)
        return self

    def _plain(self) -> PlainGames | None:
        """The games as lists (plain, no array asked for; made at the first call), or None
        where the kernel runs the arrays."""
        if self._arrays_out:
            return None
        if self._lists is None:
            self._lists = PlainGames(self)
        return self._lists

    def _games(self) -> tuple:
        """The games' rows, generators, environment generators and steps, as the kernel runs
        them: the lists (:meth:`_plain`) or the arrays."""
        lists = self._plain()
        if lists is None:
            return self._rows, self._rngs, self._env_rngs, self._steps
        return lists.rows, lists.rngs, lists.env_rngs, lists.steps

    # --- the games ----------------------------------------------------------------------------

    def seed(self, seeds: np.ndarray | Sequence[int | None]) -> None:
        """Seed game b's environment generator as ``numpy.random.default_rng(seeds[b])``
        (integers in 0 .. 2**63 - 1), its policy generator as :func:`policy_generator`, and its
        heuristic opponents' generators as ``default_rng`` of :func:`opponent_seeds` (those two
        only with :attr:`seats_in_kernel`), for every b whose ``seeds[b]`` is not None (the
        others keep theirs)."""
        values = seeds.tolist() if isinstance(seeds, np.ndarray) else list(seeds)
        chosen = [(b, int(seed)) for b, seed in enumerate(values) if seed is not None]
        lists, count = self._plain(), self.game.num_players - 1
        for b, seed in chosen:
            if lists is None:
                self._random.seed_numpy(self._env_rngs[b], seed)
            else:
                lists.env_rngs[b] = np.random.default_rng(seed)
            if not self.seats_in_kernel:
                continue
            opponents = opponent_seeds(seed, count)
            if lists is not None:
                lists.policy_rngs[b] = policy_generator(seed)
                if lists.heuristic_rngs:
                    lists.heuristic_rngs[b][:count] = [np.random.default_rng(s) for s in opponents]
                continue
            kernel_random.set_numpy_state(
                self._policy_rngs[b], dict(policy_generator(seed).bit_generator.state)
            )
            if self.remembers:
                self.seed_generators(self._heuristic_rngs[b], np.array(opponents))

    def start(self, games: np.ndarray) -> None:
        """A new game wherever ``games`` (bool, one per game) is true; its heuristics'
        memory (:attr:`remembers`) is cleared, as an agent's ``reset``."""
        if self.remembers:
            self.memory[games] = 0
            self.remembered[games] = 0
        rows, rngs, env_rngs, steps = self._games()
        if type(rows) is list:
            games = games.tolist()
        self.kernel.start_games(rows, rngs, env_rngs, steps, games, *self.parameters)

    def observe(self, players: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> None:
        """Write the observation of seat ``players[b]`` of each game (-1: the player to decide)
        into ``observations[b]`` (float32) and its legal actions into ``masks[b]`` (int8; all 0
        unless that seat decides now); games with ``players[b] < -1`` are skipped."""
        rows = self._games()[0]
        if type(rows) is not list:
            self.kernel.observe_games(
                rows, players, self.starts, observations, masks, *self.parameters
            )
            return
        views = self._views(len(rows))
        self.kernel.observe_games(
            rows, players.tolist(), self._starts_list, views, masks, *self.parameters
        )
        shown = players >= -1
        if shown.all():
            observations[...] = self._as_float32(views)
        elif shown.any():
            seen = [view for view, kept in zip(views, shown.tolist()) if kept]
            observations[shown] = self._as_float32(seen)

    def _as_float32(self, views: list[list[float]]) -> np.ndarray:
        """The plain kernel's observation lists as one float32 array. (Packed by ``struct``,
        which takes Python's numbers several times faster than numpy reads a list of lists:
        a tenth of a plain vector step.)"""
        packed = b"".join([self._pack_view(*view) for view in views])
        return np.frombuffer(packed, np.float32).reshape(len(views), -1)

    def _views(self, count: int) -> list[list[float]]:
        """``count`` observation vectors as lists, for the plain kernel to write."""
        return [[0.0] * self.game.observation_size for _ in range(count)]

    def first_illegal(self, masks: np.ndarray, actions: np.ndarray, ignored: np.ndarray) -> int:
        """The first game b whose ``actions[b]`` (int64) is not a legal action of ``masks[b]``
        (int8, 1 legal) and is not ``ignored[b]`` (bool); -1 if there is none (in the kernel's
        form: one compiled loop, or a few numpy calls)."""
        return int(self._runs.first_illegal(masks, actions, ignored))

    def seat_views(self, games: np.ndarray) -> np.ndarray:
        """Every seat's observation of each game where ``games`` (bool) is true: float32 of
        shape (games, seats, observation size), in the order of ``np.flatnonzero(games)``
        (one kernel call over copies of those games' rows)."""
        n = self.game.num_players
        all_rows = self._games()[0]
        if type(all_rows) is list:  # the rows themselves (observing reads them only)
            rows = [all_rows[b] for b in np.flatnonzero(games).tolist() for _ in range(n)]
            views = self._views(len(rows))
            seats, starts = list(range(n)) * (len(rows) // n), self._starts_list
        else:
            rows = all_rows[np.repeat(np.flatnonzero(games), n)]
            views = np.empty((len(rows), self.game.observation_size), np.float32)
            seats, starts = self._seat_cycle[: len(rows)], self.starts
        masks = np.empty((len(rows), self.game.num_actions), np.int8)
        self.kernel.observe_games(rows, seats, starts, views, masks, *self.parameters)
        return np.asarray(views, np.float32).reshape(-1, n, self.game.observation_size)

    def scores(self, out: np.ndarray) -> np.ndarray:
        """Each seat's score in each game (the game's ``scores``), into ``out`` (int64, one row
        per game)."""
        self.kernel.scores_games(self._games()[0], out, *self.parameters)
        return out

    def current_players(self, out: np.ndarray) -> np.ndarray:
        """The seat that decides now in each game, into ``out``."""
        self.kernel.current_players(self._games()[0], out, *self.parameters)
        return out

    def step(self, actions: np.ndarray, rewards: np.ndarray, ends: np.ndarray) -> None:
        """Each game with ``actions[b] >= 0`` takes it for the player to decide (legal actions
        only: nothing is checked); ``rewards[b]`` gets what each seat earned (float64, one per
        seat), ``ends[b]`` how the game stands (:data:`RUNNING`, :data:`OVER`,
        :data:`TRUNCATED`). Games with ``actions[b] < 0`` are left alone."""
        rows, rngs, _, steps = self._games()
        if type(rows) is not list:
            self.kernel.step_games(
                rows, rngs, steps, actions, self.max_cycles, rewards, ends, *self.parameters
            )
            return
        earned, ended = rewards.tolist(), [RUNNING] * len(rows)
        self.kernel.step_games(
            rows, rngs, steps, actions.tolist(), self.max_cycles, earned, ended,
            *self.parameters,
        )  # fmt: skip
        rewards[...] = earned
        ends[...] = ended

    def step_observe(
        self,
        actions: np.ndarray,
        rewards: np.ndarray,
        ends: np.ndarray,
        players: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> None:
        """:meth:`step`, and each game that runs on (``ends[b]`` :data:`RUNNING`) observed for
        the player to decide: that player into ``players[b]``, as :meth:`current_players`, its
        observation and mask into ``observations[b]`` and ``masks[b]``, as :meth:`observe`.
        Games that ended are left as they are in the three arrays. Compiled, each game is
        observed right after its step, while its row is in the cache: one pass over the rows
        where the two calls take two."""
        rows, rngs, _, steps = self._games()
        if type(rows) is not list:
            self.kernel.step_observe_games(
                rows, rngs, steps, actions, self.max_cycles, rewards, ends, players, self.starts,
                observations, masks, *self.parameters,
            )  # fmt: skip
            return
        self.step(actions, rewards, ends)
        running = ends == RUNNING
        players[running] = self.current_players(np.empty_like(players))[running]
        self.observe(np.where(running, -1, -2), observations, masks)

    def step_seats(
        self,
        seats: np.ndarray,
        actions: np.ndarray,
        learner_seat: int,
        rewards: np.ndarray,
        ends: np.ndarray,
        policies: np.ndarray | None = None,
    ) -> None:
        """One decision of a learner in each game, the other seats played by ``policies``: one
        int64 code per other seat, in seat order without the learner's: :data:`RANDOM_POLICY`
        (uniformly random, from the game's policy generator :attr:`policy_rngs`) or, where the
        kernel :attr:`plays_heuristics`, a heuristic written in it (the code its agent class
        names as ``kernel_policy``); None: all random. ``actions[b] >= 0``: the learner, in seat
        ``seats[b]``, takes it, and the others play until it decides again or the game ends;
        ``rewards[b]`` is what it earned, ``ends[b]`` how the game stands. ``actions[b] == -1``:
        a new episode: a new game, the learner in ``learner_seat`` (-1: a seat drawn from the
        policy generator, written into ``seats[b]``), the others playing up to its first
        decision; a game that ends first is dealt again, and :data:`MAX_DEALS` in vain raise
        ``InputError``. Games with ``actions[b] < -1`` are left alone.

        Where the kernel's heuristics :attr:`remembers`, other seat o of game b plays with the
        generator ``heuristic_rngs[b, o]`` and the memory ``memory[b, o]``, which every new game
        clears (as an agent's ``reset``). Where that memory is a table of positions
        (:attr:`tables`), a table half full stops the kernel before that opponent's decision,
        every table grows to twice the slots, and the kernel goes on from that game (the same
        games as with tables large enough from the start); the tables shrink again once the
        games that grew them are over."""
        self._check_seats_in_kernel("step_seats")
        if policies is None:
            policies = np.zeros(self.game.num_players - 1, np.int64)
        elif not self.plays_heuristics and np.any(policies):
            raise InputError(f"{self.game.name}: its kernel plays only random opponents")
        if self.tables:
            self._fit_memory()
        lists = self._plain()
        mask, observation, _ = self._scratch(lists)
        given = _as_run(lists, seats, actions, rewards, ends, policies)
        seats_run, actions_run, rewards_run, ends_run, policies_run = given
        starts = self.starts if lists is None else self._starts_list
        heuristics = (policies_run, starts, observation) if self.plays_heuristics else ()
        games: tuple = self._rows, self._rngs, self._env_rngs, self._policy_rngs, self._steps
        if lists is not None:
            games = lists.rows, lists.rngs, lists.env_rngs, lists.policy_rngs, lists.steps
        first_row = 0
        while True:
            memory = self._memory_arguments(lists) + ((first_row,) if self.tables else ())
            failed = self.kernel.step_seats(
                *games, seats_run, actions_run, learner_seat, self.max_cycles, MAX_DEALS,
                rewards_run, ends_run, mask, *heuristics, *memory, *self.parameters,
            )  # fmt: skip
            if not self.tables or failed > self.kernel.FULL:  # type: ignore[union-attr]
                break
            first_row, actions_run = self._grow_memory(failed, actions_run)
        _written_back((seats, rewards, ends), (seats_run, rewards_run, ends_run))
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
        earned: np.ndarray,
        ends: np.ndarray,
        players: np.ndarray,
        actions: np.ndarray,
        deciding: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
    ) -> int:
        """Play each game b with ``active[b]``: first the player to decide takes ``actions[b]``
        where it is >= 0 (a decision made outside, legal: nothing is checked; the kernel sets it
        to -1 once taken), then the game goes on until seat ``stops[b]`` must decide
        (``stops[b]`` the number of players: no seat stops), a seat whose code
        ``codes[b, seat]`` is :data:`EXTERNAL_POLICY` must decide, or the game ends; every other
        seat by its code, as :meth:`step_seats` plays its opponents (:data:`RANDOM_POLICY` from
        the game's policy generator, or a heuristic's ``kernel_policy``; where the heuristics
        :attr:`remembers`, the one of seat p draws from ``heuristic_rngs[b, o]`` and keeps
        ``memory[b, o]``, o = p - (p > stops[b]), which :meth:`start` clears). Adds what each
        seat earned meanwhile to ``earned[b, seat]`` (float64, one per seat; 0 for a step that
        truncates, as :meth:`step` counts); ``ends[b]`` says how the game stands, ``players[b]``
        which seat decides now, ``deciding[b]`` (int8) is 1 where a seat of
        :data:`EXTERNAL_POLICY` must decide now, its observation and legal actions written
        into ``observations[b]`` and ``masks[b]`` as :meth:`observe` writes them (one kernel
        call a round of outside decisions). Games not active are left alone. Returns how many
        games wait for a seat decided outside."""
        self._check_seats_in_kernel("play_codes")
        if self.tables:
            self._fit_memory()
        lists = self._plain()
        scratch = self._scratch(lists)
        arrays = (stops, codes, active, earned, ends, players, actions, deciding)
        stops_run, codes_run, active_run, *outputs = _as_run(lists, *arrays)
        games: tuple = self._rows, self._rngs, self._policy_rngs, self._steps
        views: Any = observations
        starts = self.starts
        if lists is not None:
            games = lists.rows, lists.rngs, lists.policy_rngs, lists.steps
            views, starts = self._views(self.num_games), self._starts_list
        earned_run, ends_run, players_run, actions_run, deciding_run = outputs
        while True:
            waiting = self.kernel.play_codes(
                *games, stops_run, codes_run, active_run, self.max_cycles, earned_run, ends_run,
                players_run, actions_run, deciding_run, views, masks, scratch[0], starts,
                scratch[1], scratch[2], *self._memory_arguments(lists), *self.parameters,
            )  # fmt: skip
            if waiting >= 0:
                break
            # a table of positions half full (tables only): every table grows, and the games go
            # on where they stopped (those done stay as they are)
            self._resize_memory(2 * self.memory.shape[2])
        _written_back(arrays[3:], outputs)
        if views is not observations and waiting:
            chosen = np.flatnonzero(deciding).tolist()
            observations[chosen] = [views[b] for b in chosen]
        return int(waiting)

    def _check_seats_in_kernel(self, method: str) -> None:
        if not self.seats_in_kernel:
            raise RuntimeError(f"GameBatch.{method}: a batch made with seats_in_kernel=False")

    def _scratch(self, lists: PlainGames | None) -> tuple:
        """The kernel's scratch: a mask, an observation and a reward per seat (lists for the
        plain kernel on lists)."""
        if lists is None:
            return self._mask, self._observation, self._seat_rewards
        game = self.game
        return [0] * game.num_actions, [0.0] * game.observation_size, [0.0] * game.num_players

    def _memory_arguments(self, lists: PlainGames | None) -> tuple:
        """What the kernel's drivers take for the heuristics' generators and memory: nothing,
        the generators (the arrays or ``lists``') and ``memory``, and with tables of positions
        ``remembered``."""
        if not self.remembers:
            return ()
        rngs = self._heuristic_rngs if lists is None else lists.heuristic_rngs
        if not self.tables:
            return (rngs, self.memory)
        return (rngs, self.memory, self.remembered)

    def _resize_memory(self, slots: int) -> None:
        """Every opponent's table of positions moved into one of ``slots`` slots."""
        assert self.kernel is not None
        resized = np.zeros((*self.memory.shape[:2], slots), np.int64)
        self.kernel.moved(self.memory, resized, self.remembered)
        self.memory = resized

    def _fit_memory(self) -> None:
        """The tables of positions made at the first call, and made small again once the long
        games that grew them are over (a table holds a game's positions only)."""
        slots = self.memory.shape[2]
        if not slots:
            self.memory = np.zeros((*self.memory.shape[:2], MEMORY_SLOTS), np.int64)
        elif slots > MEMORY_SLOTS and 8 * int(self.remembered.max()) < slots:
            self._resize_memory(max(MEMORY_SLOTS, slots // 4))

    def _grow_memory(self, failed: int, actions: Any) -> tuple[int, Any]:
        """After the kernel's ``step_seats`` stopped at game ``FULL - failed`` because an
        opponent's table of positions was half full: every table twice the slots, and where the
        kernel goes on (that game, and the actions that tell it how)."""
        kernel = self.kernel
        assert kernel is not None
        first_row = kernel.FULL - failed
        self._resize_memory(2 * self.memory.shape[2])
        stepped = actions[first_row] >= 0 or actions[first_row] == kernel.RESUME_STEP
        actions = actions.copy()
        actions[first_row] = kernel.RESUME_STEP if stepped else kernel.RESUME_EPISODE
        return first_row, actions

    def load_generator(self, b: int, other: int, generator: np.random.Generator) -> None:
        """Other seat ``other`` of game b (in seat order, the learner's or stop seat's left out;
        with no stop seat, the seat itself)
        plays its heuristic with a copy of ``generator`` (a PCG64 ``numpy.random.Generator``, as
        agents have; it is not advanced): the draws its agent would make."""
        self._set_heuristic_generator(b, other, generator.bit_generator.state)

    def seed_generator(self, b: int, other: int, seed: int) -> None:
        """Other seat ``other`` of game b (as :meth:`load_generator` numbers them) plays its
        heuristic with a generator seeded as ``numpy.random.default_rng(seed)`` (0 .. 2**63 - 1):
        compiled, by the kernel's own seeding (under a microsecond, where numpy's ``PCG64(seed)``
        takes about ten: the training sampler seeds the heuristics of every game it deals)."""
        if self.compiled:
            self._random.seed_numpy(self._heuristic_rngs[b, other], seed)
            return
        self._set_heuristic_generator(b, other, np.random.PCG64(seed).state)

    def _set_heuristic_generator(self, b: int, other: int, state: Mapping[str, Any]) -> None:
        """The generator of other seat ``other`` of game b at ``state`` (a PCG64 state; the
        array's where the heuristics do not draw: :class:`PlainGames` keeps none)."""
        lists = self._plain()
        if lists is None or not self.remembers:
            kernel_random.set_numpy_state(self._heuristic_rngs[b, other], dict(state))
        else:
            lists.heuristic_rngs[b][other] = generator_at(state)

    def draw(self, b: int, count: int) -> int:
        """A number in 0..count-1 from game b's policy generator (as the kernel draws the
        learner's seat)."""
        self._check_seats_in_kernel("draw")
        lists = self._plain()
        generator = self._policy_rngs[b] if lists is None else lists.policy_rngs[b]
        return int(self._random.below(generator, count))

    def seed_generators(self, generators: np.ndarray, seeds: np.ndarray) -> None:
        """Seed each row of ``generators`` as ``numpy.random.default_rng(seeds[b])``."""
        for rng, seed in zip(generators, np.asarray(seeds).tolist()):
            self._random.seed_numpy(rng, seed)


class PlainGames:
    """A plain batch's games as the plain kernel runs them fastest (see the module docstring):
    each row a list, each generator of numpy's kind a ``numpy.random.Generator`` (any other,
    such as the zeros of an environment never seeded, the list of its array), the steps a list.
    A game's own generator is a ``numpy.random.Generator`` always: every new game seeds it
    before it draws (so that a game not dealt yet has one too, at no position that matters).
    The heuristics' generators are kept where the heuristics draw (:attr:`GameBatch.remembers`);
    elsewhere none is drawn from, and their arrays stay as they are."""

    def __init__(self, batch: GameBatch):
        self.rows = batch._rows.tolist()
        self.rngs = [as_generator(rng, True) for rng in batch._rngs]
        self.env_rngs = [as_generator(rng) for rng in batch._env_rngs]
        self.policy_rngs = [as_generator(rng) for rng in batch._policy_rngs]
        self.heuristic_rngs = [
            [as_generator(rng) for rng in rngs] for rngs in batch._heuristic_rngs
        ] if batch.remembers else []  # fmt: skip
        self.steps = batch._steps.tolist()

    def write_back(self, batch: GameBatch) -> None:
        """The games into the batch's arrays."""
        batch._rows[...] = self.rows
        pairs = [(self.rngs, batch._rngs), (self.env_rngs, batch._env_rngs)]
        pairs += [(self.policy_rngs, batch._policy_rngs)]
        pairs += zip(self.heuristic_rngs, batch._heuristic_rngs)
        for generators, arrays in pairs:
            for generator, array in zip(generators, arrays):
                if type(generator) is list:
                    array[:] = generator
                else:
                    kernel_random.set_numpy_state(array, dict(generator.bit_generator.state))
        batch._steps[...] = self.steps


def _as_run(lists: PlainGames | None, *arrays: np.ndarray) -> list:
    """The arrays a driver takes as the kernel runs them: themselves, or for the plain kernel on
    ``lists`` lists of them (written back by :func:`_written_back`)."""
    return list(arrays) if lists is None else [array.tolist() for array in arrays]


def _written_back(arrays: Sequence[np.ndarray], runs: Sequence) -> None:
    """What the kernel wrote into the ``runs`` of :func:`_as_run` into their ``arrays``."""
    for array, run in zip(arrays, runs):
        if run is not array:
            array[...] = run


def generator_at(state: Mapping[str, Any]) -> np.random.Generator:
    """A ``numpy.random.Generator`` at ``state`` (a PCG64 ``bit_generator.state``)."""
    generator = np.random.default_rng(0)
    generator.bit_generator.state = state
    return generator


def as_generator(rng: np.ndarray, seeded_later: bool = False) -> np.random.Generator | list[int]:
    """A :mod:`~cardzoo.envs.kernel_random` generator as the plain kernel draws from it
    fastest: a ``numpy.random.Generator`` at its position if it is numpy's, else as a list (or,
    ``seeded_later``, a ``numpy.random.Generator`` anyway, at a position of no matter)."""
    if rng[kernel_random.KIND] == kernel_random.NUMPY:
        return generator_at(kernel_random.numpy_state(rng))
    return np.random.default_rng(0) if seeded_later else rng.tolist()
