"""Every seat decided outside: N games stepped in one call, as pgx steps a batch.

:class:`MultiAgentVectorEnv` is for research code with a learner of its own (self-play, several
policies): each call gives, per game, the seat that must decide (``current_player``), its
observation and legal actions, and takes one action per game. Observations, masks and rewards
are those of the game's AEC environment, step by step (same seeds, same actions, same game).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium
import numpy as np

from cardzoo.envs import load_game
from cardzoo.envs.aec import agent_spaces
from cardzoo.envs.batch import OVER, RUNNING, TRUNCATED, GameBatch
from cardzoo.envs.helpers import check_bool, check_seed
from cardzoo.errors import InputError

__all__ = ["MultiAgentVectorEnv", "VectorStep"]


@dataclasses.dataclass
class VectorStep:
    """What :class:`MultiAgentVectorEnv` returns, one row per game (arrays of its own: keeping
    them is safe)."""

    #: (N, observation_size) float32: the observation of the seat that must decide now
    observation: np.ndarray
    #: (N, num_actions) int8: that seat's legal actions (1 legal, 0 not)
    action_mask: np.ndarray
    #: (N,) int64: the seat that must decide now
    current_player: np.ndarray
    #: (N, num_players) float64: what each seat earned by the step (0 after a reset)
    rewards: np.ndarray
    #: (N,) bool: the step ended the game by the rules
    terminated: np.ndarray
    #: (N,) bool: the step reached ``max_cycles`` without ending the game (no reward)
    truncated: np.ndarray
    #: (k, num_players, observation_size) float32: every seat's observation at the end of the
    #: k games this step ended, in game order (their indices: ``final_games``); None if no game
    #: ended. With ``autoreset`` they are ``np.flatnonzero(terminated | truncated)``; without it,
    #: a game ended earlier keeps its end flag but has no row here
    final_observation: np.ndarray | None = None
    #: (k,) int64: the games of ``final_observation``'s rows; None if no game ended
    final_games: np.ndarray | None = None


def checked_seeds(seed: Any, num_envs: int) -> list[int | None] | None:
    """One seed per game from ``seed``: None, an integer s (game i gets s + i, as Gymnasium's
    vector environments do), or a sequence of ``num_envs`` entries, each an integer or None (that
    game is not seeded: it goes on with its own sequence of deals, as Gymnasium's
    ``list[int | None]``). ``InputError`` otherwise."""
    if seed is None:
        return None
    if isinstance(seed, np.ndarray) and seed.ndim == 0:
        seed = seed.item()  # a numpy scalar held in an array: one seed
    if isinstance(seed, (list, tuple, np.ndarray)):
        if len(seed) != num_envs:
            raise InputError(f"seed: one per game needed ({num_envs}), got {len(seed)}")
        candidates = list(seed)
    else:
        first = check_seed(seed)
        candidates = [first + index for index in range(num_envs)] if first is not None else []
    seeds: list[int | None] = []
    for value in candidates:
        number = None if value is None else check_seed(value, "seed")
        if number is not None and number >= 2**63:
            if not isinstance(seed, (list, tuple, np.ndarray)):  # s + i for game i went over
                raise InputError(
                    f"seed: game i gets seed + i, so for {num_envs} games the seed must be at "
                    f"most 2**63 - {num_envs}; got {seed!r:.80}"
                )
            raise InputError(f"seed: integers in 0 .. 2**63 - 1 needed, got {value!r:.80}")
        seeds.append(number)
    return seeds


def seeds_to_deal(seeds: list[int | None] | None, num_envs: int, dealt: bool) -> list | None:
    """The seeds a reset gives the games: ``seeds`` (checked), where a game that was never dealt
    and has none gets one from fresh entropy; None if no game is seeded."""
    if dealt:
        return seeds
    fresh = fresh_seeds(num_envs)
    if seeds is None:
        return fresh
    return [own if own is not None else new for own, new in zip(seeds, fresh)]


def fresh_seeds(num_envs: int) -> list[int]:
    """Seeds from the operating system's entropy (a reset without a seed, the first time)."""
    first = int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 1
    return [(first + index) % 2**63 for index in range(num_envs)]


def checked_actions(
    batch: GameBatch, actions: Any, masks: np.ndarray, players: np.ndarray, ignored: np.ndarray
) -> np.ndarray:
    """``actions`` as an int64 array (a copy), one legal action per game of ``batch`` (games
    where ``ignored`` is true may hold anything); ``InputError`` naming the first bad game, its
    player, the action and the legal ones."""
    game, count = batch.game, len(masks)
    array = np.asarray(actions)
    if array.shape != (count,):
        raise InputError(
            f"{game.name}: actions must be an array of shape ({count},), one per game; "
            f"got shape {array.shape}"
        )
    if array.dtype.kind not in "iu":
        raise InputError(f"{game.name}: actions must be integers, got dtype {array.dtype}")
    checked = array.astype(np.int64)
    index = batch.first_illegal(masks, checked, ignored)
    if index >= 0:
        action, player = array[index].item(), int(players[index])  # as given (not wrapped)
        if 0 <= action < game.num_actions:
            what = f"illegal ({game.action_name(action)})"
        else:
            what = f"out of range (0..{game.num_actions - 1})"
        allowed = [f"{a} ({game.action_name(int(a))})" for a in np.flatnonzero(masks[index])]
        raise InputError(
            f"{game.name}: game {index}: action {action} of player_{player} is {what}; "
            f"legal actions: {', '.join(allowed)}"
        )
    return checked


class MultiAgentVectorEnv:
    """``num_envs`` games of ``game`` (a name from ``cardzoo.envs.GAMES`` with a vector form, and
    its parameters ``params``), every seat's decisions taken from outside, all games stepped by
    one call.

    ``reset(seed)`` deals every game and :meth:`step` takes one action per game, for the seat
    that must decide (``current_player``); both return a :class:`VectorStep`. A game that ends
    (by the rules, or truncated at ``max_cycles`` agent steps, default the game's
    ``default_max_cycles``) reports its rewards and end in that step's rows and, with
    ``autoreset`` (default), is dealt again at once: the observation, mask and current player of
    those rows are the new game's, and ``final_observation`` holds every seat's view of the
    game that ended. Without ``autoreset`` an ended game stays as it ended (its action is
    ignored, its rewards are 0) until the next ``reset()``.

    Seeds: game i of ``reset(seed=s)`` is the game ``env.reset(seed=s + i)`` deals in the AEC
    environment; each game it deals after that is the one that environment's next ``reset()``
    would deal. A reset without a seed deals the next games of every game's sequence (from
    fresh entropy the first time); so does a game whose entry is None in a list of seeds.

    ``compiled``: None runs the compiled kernel where numba is installed; False forces plain
    Python (identical results, much slower); True requires numba. ``seats_in_kernel``: its
    batch also seeds the generators of seats played in the kernel (as ``GameBatch`` takes it;
    the Gymnasium ``VectorEnv``, built on this class, plays its opponents there); by default
    every seat decides outside, and a seeded reset seeds only the deals. An action that is not legal
    for the seat to decide, an array of the wrong shape or dtype and ``num_envs < 1`` raise
    :class:`~cardzoo.errors.InputError`."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        max_cycles: int | None = None,
        autoreset: bool = True,
        compiled: bool | None = None,
        seats_in_kernel: bool = False,
        **params: Any,
    ):
        self.game_name = game
        self.game = load_game(game, **params)
        self.batch = GameBatch(self.game, num_envs, max_cycles, compiled, seats_in_kernel)
        self.num_envs = self.batch.num_games
        self.max_cycles = self.batch.max_cycles
        self.compiled = self.batch.compiled
        self.autoreset = check_bool("autoreset", autoreset)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        #: the observation and action space of one seat of one game (the observation vector
        #: alone: the mask comes separately)
        self.single_observation_space = agent_spaces(self.game)[0]["observation"]
        self.single_action_space = gymnasium.spaces.Discrete(self.num_actions)
        count, n = self.num_envs, self.num_players
        self._observation_shape = (count, self.game.observation_size)
        self._masks = np.zeros((count, self.num_actions), np.int8)
        self._players = np.zeros(count, np.int64)
        self._rewards = np.zeros((count, n))
        self._ends = np.zeros(count, np.int64)
        self._ended = np.zeros(count, bool)  # ended games left alone (no autoreset)
        self._final_ends = np.zeros(count, np.int64)  # and how they ended
        self._to_decide = np.full(count, -1, np.int64)  # observe: the seat to decide
        self._dealt = False
        self.closed = False

    @property
    def observation_layout(self) -> dict[str, slice]:
        """Field name -> slice of an observation vector (the game's layout)."""
        return self.game.observation_layout

    def reset(self, seed: int | list[int] | None = None) -> VectorStep:
        """Deal every game (see the class docstring for ``seed``)."""
        self._check_open("reset")
        seeds = seeds_to_deal(checked_seeds(seed, self.num_envs), self.num_envs, self._dealt)
        if seeds is not None:
            self.batch.seed(seeds)
        self.batch.start(np.ones(self.num_envs, bool))
        self._dealt = True
        self._ended[:] = False
        self._rewards[:] = 0.0
        self._ends[:] = 0
        return self._result(None)

    def step(self, actions: Any) -> VectorStep:
        """One action per game for the seat that must decide (``current_player``)."""
        self._check_open("step")
        if not self._dealt:
            raise RuntimeError("step() called before reset(); call reset() first")
        checked = checked_actions(self.batch, actions, self._masks, self._players, self._ended)
        if not self.autoreset:
            checked[self._ended] = -1
        # The games that run on are observed in the step's own pass; those that ended, after
        # their new deal (or as they ended, without autoreset).
        observations = np.empty(self._observation_shape, np.float32)
        self.batch.step_observe(
            checked, self._rewards, self._ends, self._players, observations, self._masks
        )
        ended = self._ends != RUNNING
        final = None
        if ended.any():
            final = self.batch.seat_views(ended)
            if self.autoreset:
                self.batch.start(ended)
            else:
                self._final_ends[ended] = self._ends[ended]
            self.batch.current_players(self._players)
            self.batch.observe(np.where(ended, -1, -2), observations, self._masks)
        if not self.autoreset:
            # An ended game stays as it ended: terminated or truncated, no legal action.
            self._ended |= ended
            self._ends[self._ended] = self._final_ends[self._ended]
        return self._result(
            final, observations, np.flatnonzero(ended) if final is not None else None
        )

    def observe(self, seat: int | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observation of ``seat`` (one for all games, or one per game) in every game, and
        its legal actions (all 0 where it is not that seat's decision): any seat's view, as the
        AEC environment's ``observe(agent)`` gives it."""
        self._check_open("observe")
        if not self._dealt:
            raise RuntimeError("observe() called before reset(); call reset() first")
        seats = np.asarray(seat)
        if seats.shape not in ((), (self.num_envs,)):
            raise InputError(
                f"seat must be one integer or one per game (shape ({self.num_envs},)); got "
                f"shape {seats.shape}"
            )
        seats = np.broadcast_to(seats, (self.num_envs,))
        if seats.dtype.kind not in "iu" or ((seats < 0) | (seats >= self.num_players)).any():
            raise InputError(f"seat must be integers in 0..{self.num_players - 1}, got {seat!r}")
        observations = np.zeros(self._observation_shape, np.float32)
        masks = np.zeros_like(self._masks)
        self.batch.observe(seats.astype(np.int64), observations, masks)
        if not self.autoreset:
            masks[self._ended] = 0  # an ended game has no decision left, as in step's results
        return observations, masks

    def close(self) -> None:
        """Let the games go; :meth:`reset`, :meth:`step` and :meth:`observe` refuse to run
        after it (closing again does nothing)."""
        self.closed = True

    def _check_open(self, call: str) -> None:
        if self.closed:
            raise RuntimeError(f"{call}() called after close(); make a new environment")

    def _result(
        self,
        final: np.ndarray | None,
        observations: np.ndarray | None = None,
        final_games: np.ndarray | None = None,
    ) -> VectorStep:
        """The step's result; every game observed here unless ``observations`` (with the
        players and masks) are the step's already."""
        # The kernel writes every number of every game's observation: into an array of the
        # caller's own, with no copy. The masks stay here too, for the next step's checks.
        if observations is None:
            self.batch.current_players(self._players)
            observations = np.empty(self._observation_shape, np.float32)
            self.batch.observe(self._to_decide, observations, self._masks)
        if not self.autoreset:
            self._masks[self._ended] = 0
        return VectorStep(
            observation=observations,
            action_mask=self._masks.copy(),
            current_player=self._players.copy(),
            rewards=self._rewards.copy(),
            terminated=self._ends == OVER,
            truncated=self._ends == TRUNCATED,
            final_observation=final,
            final_games=final_games,
        )
