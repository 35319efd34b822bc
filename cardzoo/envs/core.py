"""The engine contract every cardzoo game follows (:class:`Game` and :class:`State`), and the rules
every entry point follows.

A game is split the way OpenSpiel splits it:

- a :class:`Game` holds the parameters (fixed after construction) and the rules as methods;
- a :class:`State` holds all the data of one game in progress: numpy arrays and plain scalars,
  plus the game's own ``numpy.random.Generator`` (reshuffles during play draw from it, so a
  snapshot carries the generator too and a restored game continues exactly).

Exactly one player acts at any moment (``state.current_player``). Decisions that the rules make
simultaneous (a horse exchange, a Foxy card) are asked one player after another; the engine keeps
the choices already made out of every observation until all are in.

:class:`~cardzoo.envs.aec.CardGameEnv` implements all PettingZoo bookkeeping once, over any
engine: agent selection, rewards, terminations, truncation after ``max_cycles`` agent steps, the
observation dict with the action mask, rendering (:mod:`cardzoo.envs.rendering`) and seeding. A
game's ``env.py`` only names its ``Game`` class.

The shared machinery, one concern a module: :mod:`cardzoo.envs.helpers` (what the engines share:
checks of parameters, seeds and reset options, card names, observation layouts, generators),
this module (the contract), :mod:`cardzoo.envs.snapshot` and :mod:`cardzoo.envs.restore`
(snapshots written and read, and checked against a game and an environment),
:mod:`cardzoo.envs.aec` (the one PettingZoo AEC base) and :mod:`cardzoo.envs.wrapper` (the
order-enforcing wrapper of ``env()``).

Rules every entry point follows (engine, AEC environment, Foxy's parallel form, Gymnasium view):

Seeds
    ``None`` or an integer >= 0 (Python or numpy); anything else, ``True`` included, raises
    ``ValueError`` naming ``seed``. **Decision:** numpy also accepts sequences of integers as
    seeds; cardzoo does not (as Gymnasium's ``reset`` does not), so every game a report names can
    be replayed from one printed number.

Reset options
    ``options`` is a dict or None; anything else raises ``InputError`` (a ``ValueError``).
    **Decision:** a key the game does not know is dropped with a ``UserWarning`` naming it
    (PettingZoo's ``api_test`` and other people's wrappers pass options of their own), at every
    level: :func:`~cardzoo.envs.helpers.known_options` is the one place that does it. A known key
    with a bad value (a misspelt card name, a wrong number of cards) raises ``ValueError`` naming
    the option, what was wrong and what is allowed.

A reset that raises changes nothing
    Options are checked, and the new game dealt, before the environment changes: a rejected
    ``reset`` leaves the game in progress (or the fresh environment) as it was, and the
    environment's generator too, so the next unseeded reset deals what it would have dealt.

States belong to their game
    A state is played by the game that made it, or by another game of the same name and
    parameters (a search agent's copy of the environment's game). :meth:`Game.legal_mask`,
    :meth:`Game.observe`, :meth:`Game.step`, :meth:`Game.scores`, :meth:`Game.winners`,
    :meth:`Game.render`, :meth:`Game.picture`, :meth:`Game.snapshot`, :meth:`Game.copy_state`
    and :meth:`Game.resample` refuse any other state with ``InputError`` naming both games
    (:meth:`Game.check_state`). **Decision:** other parameters are refused even where the state
    would fit (Nobody Wants It of 2 rounds or of 3): the rules read it differently, and a seat
    or a field beyond the other game's would be read silently, as :meth:`Game.restore` refuses
    a snapshot of other parameters. The unchecked :meth:`Game.apply` trusts its caller.

Snapshots
    ``env.snapshot()`` / ``game.snapshot(state)`` are JSON-serialisable dicts carrying a format
    version (:data:`~cardzoo.envs.snapshot.SNAPSHOT_FORMAT`). ``env.restore(snapshot)`` and
    ``game.restore(snapshot)`` accept such a dict or its JSON text (``str`` or UTF-8 ``bytes``),
    check everything before changing anything — format, game, parameters, the state's field
    names, dtypes, shapes and value ranges, the game's invariants, the environment's agents and
    rewards — and either restore completely or raise ``ValueError`` and leave the environment
    exactly as it was. Untrusted data is never trusted to be small: JSON ``true``/``false`` are
    refused where a number belongs, integers longer than any field's values, lists nested
    however deeply, and rewards beyond :meth:`Game.reward_bound` each raise ``ValueError``
    naming the field. A fresh environment can be restored without a ``reset()`` first (through
    ``env.restore`` or ``env.unwrapped.restore``: the wrappers of ``env()`` notice either); a
    snapshot taken after some agents stepped out of a finished game continues from there.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import inspect
import json
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from cardzoo.envs.helpers import check_choice, check_int, copy_generator, is_index
from cardzoo.envs.restore import restored_state
from cardzoo.envs.snapshot import SNAPSHOT_FORMAT, encode, field_spec
from cardzoo.errors import InputError

__all__ = ["Game", "State"]


_ARRAY_FIELDS: dict[type, tuple[str, ...]] = {}


def _array_fields(state: State) -> tuple[str, ...]:
    """The names of the fields of ``state``'s class that hold numpy arrays (every state of a
    class has the same ones: see :class:`State`), looked up once per class."""
    names = _ARRAY_FIELDS.get(type(state))
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(state)
            if isinstance(getattr(state, f.name), np.ndarray)
        )
        _ARRAY_FIELDS[type(state)] = names
    return names


@dataclasses.dataclass
class State:
    """Base of every game's state. Subclasses add numpy arrays and scalars as dataclass fields.

    Fields hold numpy arrays (bool, int or float), ints, floats, bools and the game's generator
    ``rng``; a fresh state from ``new_state`` already holds every field with its final type, dtype
    and shape. That is what makes :meth:`Game.snapshot` and :meth:`Game.restore` generic. A
    state kept otherwise (a game on its kernel: :class:`~cardzoo.envs.packed.PackedState`)
    answers the three methods below for its own fields.
    """

    rng: np.random.Generator
    current_player: int = 0
    terminal: bool = False

    def field_values(self) -> dict[str, Any]:
        """The state's fields by name, as a snapshot holds them (``rng`` first)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @property
    def game_key(self) -> str | None:
        """The :attr:`Game.state_key` of the game that made this state (None: not known, a state
        built by hand). Not a field: a snapshot holds the game and its parameters instead."""
        return self.__dict__.get("_game_key")

    def set_game_key(self, key: str) -> None:
        """Record the game that made this state (its :attr:`Game.state_key`); copies keep it."""
        self.__dict__["_game_key"] = key

    @classmethod
    def from_field_values(cls, game: Game, values: dict[str, Any]) -> State:
        """The state of ``game`` that :meth:`field_values` gave (checked by the caller)."""
        state = cls(**values)
        state.set_game_key(game.state_key)
        return state

    def copy(self, rng: np.random.Generator | None = None) -> State:
        """An independent copy (see :meth:`Game.copy_state`): the arrays copied, the generator
        copied or, if given, ``rng`` itself."""
        copied = copy.copy(self)  # scalars are immutable; arrays are copied below
        for name in _array_fields(self):
            setattr(copied, name, getattr(self, name).copy())
        copied.rng = copy_generator(self.rng) if rng is None else rng
        return copied


class Game(ABC):
    """Parameters and rules of one card game. Subclasses set the class attributes and implement
    the abstract methods; everything here is pure Python and numpy, no PettingZoo."""

    name: ClassVar[str]  # environment id without version, e.g. "henhouse"
    #: the environment's version, the N of ``<name>_vN``: raised by any change of what an agent
    #: meets in the same seeded game (rules, observations, actions, rewards, deals; CHANGELOG)
    version: ClassVar[int] = 0
    state_class: ClassVar[type[State]]
    default_max_cycles: ClassVar[int]
    #: the keys ``new_state`` understands in ``options`` (each game's docs list them)
    reset_options: ClassVar[tuple[str, ...]] = ()

    # --- facts the layers above read instead of naming the game -------------------------
    # Each is declared here, once, and read from here by every reader: the list of games and
    # the registries (cardzoo.envs.registry), the agents, the table, training and the command.
    #: what the game is, in one line (``cardzoo list``, the web page)
    description: ClassVar[str]
    #: the player counts the game accepts, ``min_players..max_players``
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: +1 where a higher score is better (Foxy's points), -1 where a lower one is (penalty
    #: points, totals, cards held)
    score_direction: ClassVar[int] = -1
    #: whether the game has a ``reward="points"`` mode (rewards in points, not only win/loss)
    has_points_reward: ClassVar[bool] = False
    #: what a player aims at: "win" (win rate) or "points" (Foxy: the mean score)
    objective: ClassVar[str] = "win"
    #: whether everybody decides on each card at once (Foxy): the engine still asks in turn,
    #: and the game's public module also offers PettingZoo's ``parallel_env()``
    simultaneous: ClassVar[bool] = False
    #: whether any seat ever has more than one legal action (Henhouse: never); a game without
    #: decisions has nothing to learn and no heuristics
    has_decisions: ClassVar[bool] = True
    #: the rollout policies of :meth:`random_playouts`, the search agents' default first
    playout_policies: ClassVar[tuple[str, ...]] = ("random",)
    #: how far :meth:`random_playouts` plays: ``"game"`` (to its end) and, where a game offers
    #: it, ``"round"`` (to the end of the round), the default first
    playout_horizons: ClassVar[tuple[str, ...]] = ("game",)
    #: the module of the game's kernel (its rules on packed integer rows, compiled by numba where
    #: installed), through which :mod:`cardzoo.envs.batch` plays many games in one call: the
    #: vector environments (:mod:`cardzoo.vector`); None for a game without one yet
    kernel_module: ClassVar[str | None] = None

    num_players: int
    num_actions: int
    #: field name -> slice of the observation vector; the vector's length is ``observation_size``.
    observation_layout: dict[str, slice]

    # --- parameters -----------------------------------------------------------------------

    @classmethod
    def with_params(cls, params: Mapping[str, Any], also: tuple[str, ...] = ()) -> Game:
        """The game built from ``params``; a key its constructor does not take raises
        :class:`~cardzoo.errors.InputError` naming it and every parameter allowed (``also``: the
        caller's own keyword arguments, named among them), where the constructor would raise a
        bare ``TypeError``. :func:`~cardzoo.envs.load_game` and the environments build their
        game with it."""
        signature = inspect.signature(cls).parameters
        known = list(signature)
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.values()):
            return cls(**params)  # a constructor that takes any keyword checks its own
        unknown = [key for key in params if key not in known]
        if unknown:
            allowed = ", ".join([*known, *also])
            raise InputError(f"{cls.name} has no parameter {unknown[0]!r}; its parameters: "
                             f"{allowed}")  # fmt: skip
        return cls(**params)

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this game (``type(game)(**game.params())``)."""

    @functools.cached_property
    def observation_size(self) -> int:
        return max(part.stop for part in self.observation_layout.values())

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Low and high bounds of the observation vector (default: non-negative, unbounded)."""
        size = self.observation_size
        return np.zeros(size, np.float32), np.full(size, np.inf, np.float32)

    def action_name(self, action: int) -> str:
        """A short human-readable name of an action id (for errors, logs, rendering)."""
        return str(action)

    def action_numbers(self) -> tuple[np.ndarray, np.ndarray] | None:
        """For a game whose actions write a number (Foxy): per action the number it writes and
        its kind (0 plain, 1 circled, ...), which a learner's ordinal policy head uses; None for
        games whose actions are not numbers (the default)."""
        return None

    def reward_bound(self) -> float:
        """The largest absolute value a reward can take, in one step or summed in an AEC
        environment's cumulative rewards; a snapshot holding a larger one is refused. Default
        1: a win gives +1, a loss or an illegal action -1, a truncation 0. Games with a
        ``reward="points"`` mode return a bound of what their scoring can give."""
        return 1.0

    def kernel_parameters(self) -> tuple[int, ...]:
        """The game's parameters as the batch functions of its kernel take them (their last
        arguments); only for a game with a :attr:`kernel_module`."""
        raise NotImplementedError(f"{self.name} has no kernel (Game.kernel_module)")

    # --- the rules ------------------------------------------------------------------------

    @abstractmethod
    def new_state(
        self, rng: np.random.Generator | int | None, options: dict | None = None
    ) -> State:
        """A new game dealt with ``rng``: a ``numpy.random.Generator`` (kept as the state's
        generator), or a seed (an integer >= 0: the game ``env.reset(seed=seed)`` deals) or None
        (fresh entropy), turned into one by :func:`~cardzoo.envs.helpers.game_generator`, which
        implementations call first. ``options`` fixes the cards (see the game's docs);
        implementations pass them through :func:`~cardzoo.envs.helpers.known_options`; bad
        values raise ``ValueError``."""

    @abstractmethod
    def legal_mask(self, state: State, player: int) -> np.ndarray:
        """int8 array of ``num_actions``: 1 where ``player`` may take that action now (all zero
        for a player who is not to act)."""

    @abstractmethod
    def apply(self, state: State, action: int) -> np.ndarray | None:
        """Apply a legal action of ``state.current_player`` (not checked here: see :meth:`step`).

        Returns the rewards this step gives every player (float64 array), or None for none."""

    @abstractmethod
    def observe(self, state: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """float32 observation of ``player`` (seat-relative), written into ``out`` if given."""

    @abstractmethod
    def scores(self, state: State) -> np.ndarray:
        """Each player's score as the rules count it (points, cards held, ...)."""

    @abstractmethod
    def winners(self, state: State) -> np.ndarray:
        """bool array: the winners of a finished game (all False while it is running)."""

    # --- search: copies, sampled worlds, playouts -------------------------------------------

    def copy_state(self, state: State, rng: np.random.Generator | None = None) -> State:
        """An independent copy of ``state``, its arrays copied (:meth:`State.copy`): much cheaper
        than ``copy.deepcopy``. The copy's generator is a copy of ``state.rng`` at its position
        (the copy continues exactly as the original would), or ``rng`` itself if given: making a
        new generator is most of the cost of a copy, and a search that plays sampled worlds one
        after another can share one."""
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        return state.copy(rng)

    def resample(self, state: State, player: int, rng: np.random.Generator) -> State:
        """A new full state that ``player`` cannot tell from ``state``: the same own cards,
        public piles, counts and public record, with every card ``player`` cannot see drawn
        again uniformly at random among the places ``player`` cannot see (OpenSpiel's
        ``ResampleFromInfostate``). It reads ``state`` only for what ``player`` knows, and gives
        the new state ``rng`` itself as its generator (the true one would foretell the game's
        reshuffles; a new generator would cost more than the rest of a resample). Games with
        hidden information override this; search agents need it."""
        raise NotImplementedError(
            f"{self.name} has no resampler (Game.resample): search agents cannot play it"
        )

    @classmethod
    def can_resample(cls) -> bool:
        """Whether the game has a resampler (it overrides :meth:`resample`), so that search
        agents can play it."""
        return cls.resample is not Game.resample

    def random_playouts(
        self,
        states: list[State],
        rng: np.random.Generator,
        first_actions: np.ndarray | None = None,
        *,
        seed_groups: int = 1,
        policy: str = "random",
        horizon: str = "game",
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each state played on by a rollout ``policy`` (one of :attr:`playout_policies`),
        after ``first_actions[i]`` where given and >= 0, without changing ``states``, to the
        ``horizon`` (one of :attr:`playout_horizons`). Returns the winners (bool,
        ``(len(states), num_players)``; none for a playout cut at ``default_max_cycles`` steps)
        and the scores. ``seed_groups`` consecutive states play with generators seeded alike
        (common random numbers). The rollouts of the search agents.

        This default plays uniformly random legal actions through the engine, one game at a
        time, to the end of the game; games with fast batched playouts override it (and name
        their own policies and horizons)."""
        check_choice("policy", policy, self.playout_policies)
        check_choice("horizon", horizon, self.playout_horizons)
        n = self.num_players
        winners = np.zeros((len(states), n), bool)
        scores = np.zeros((len(states), n))
        seed = 0
        for index, state in enumerate(states):
            if index % seed_groups == 0:
                seed = int(rng.integers(2**63))
            world = self.copy_state(state, rng=np.random.default_rng(seed))
            steps = 0
            if first_actions is not None and first_actions[index] >= 0 and not world.terminal:
                self.apply(world, int(first_actions[index]))
                steps += 1
            while not world.terminal and steps < self.default_max_cycles:
                legal = np.flatnonzero(self.legal_mask(world, world.current_player))
                self.apply(world, int(legal[world.rng.integers(legal.size)]))
                steps += 1
            winners[index] = self.winners(world)
            scores[index] = self.scores(world)
        return winners, scores

    @abstractmethod
    def render(self, state: State, player: int | None = None) -> str:
        """A readable text picture of the table (from ``player``'s seat if given: their hand
        shown, everything they could not see hidden)."""

    def picture(
        self,
        state: State,
        viewer: int | None = None,
        last_actions: Mapping[int, int] | None = None,
    ) -> np.ndarray:
        """The table as an ``(H, W, 3)`` uint8 RGB picture, from ``viewer``'s seat if given (their
        cards face up, every card they may not see face down), with ``last_actions`` (player ->
        action of the latest move) in its header. H and W depend only on the game's parameters;
        the same state gives the same pixels. Drawn by the game's ``picture`` module, imported
        here on first use so that nothing of it is loaded unless a picture is asked for."""
        self.check_state(state)
        if viewer is not None:
            viewer = self.check_player(viewer, "viewer")
        module = importlib.import_module(f"cardzoo.envs.{self.name}.picture")
        return module.draw(self, state, viewer, last_actions)

    @abstractmethod
    def check_invariants(self, state: State) -> None:
        """Raise AssertionError if the state is inconsistent: every value in its range, every
        card in exactly one place, a finished game with its winners, a legal action for the
        player to act. The test suite calls it after every step, and :meth:`restore` on every
        snapshot, so it must hold for every reachable state, reject every value that would make
        a later step fail, and use :func:`~cardzoo.envs.helpers.require` (which ``python -O``
        keeps), not ``assert``. It may assume the state's fields have their dtypes and shapes
        (``restore`` checks those first)."""

    # --- checked entry points -------------------------------------------------------------

    def check_player(self, player: Any, name: str = "player") -> int:
        """``player`` as an int if it is a seat of this game (0..num_players-1); else
        :class:`~cardzoo.errors.InputError` (a ``ValueError``) naming the game, ``name`` and the
        seats allowed. :meth:`legal_mask`, :meth:`observe`, :meth:`render` and :meth:`picture`
        check their player with it (a seat that does not exist would read past the game's
        arrays: a wrong observation, or an ``IndexError`` from deep inside the rules)."""
        if type(player) is int and 0 <= player < self.num_players:
            return player
        try:
            return check_int(name, player, 0, self.num_players - 1)
        except ValueError as error:
            raise type(error)(f"{self.name}: {error}") from None

    @functools.cached_property
    def state_key(self) -> str:
        """What each state of this game records of it (:attr:`State.game_key`): the game's name,
        version and parameters, ``nobody_wants_it_v0(num_players=4, ...)``, one (interned)
        string for equal games."""
        shown = ", ".join(f"{name}={value!r}" for name, value in self.params().items())
        return sys.intern(f"{self.name}_v{self.version}({shown})")

    def check_state(self, state: Any) -> None:
        """Nothing if ``state`` is a state of this game (module docstring, "States belong to
        their game"): of its state class, made by this game or one of the same name and
        parameters, or by hand (no :attr:`State.game_key`). Otherwise
        :class:`~cardzoo.errors.InputError` naming the game that made it and this one."""
        if isinstance(state, self.state_class):
            made_by = state.game_key
            if made_by is None or made_by == self.state_key:
                return
            raise InputError(
                f"{self.name}: this state was made by {made_by}, and this game is "
                f"{self.state_key}: a state is played by a game of the same parameters only"
            )
        raise InputError(
            f"{self.name}: expected a state of this game ({self.state_class.__name__}), got "
            f"{type(state).__name__}"
        )

    def step(self, state: State, action: int, mask: np.ndarray | None = None) -> np.ndarray | None:
        """Apply ``action`` for ``state.current_player`` after checking it; an illegal or
        out-of-range action raises ``ValueError`` naming the player, the action and the legal
        ones. ``mask``: that player's legal actions in ``state`` where the caller has them
        already (the table loop does), so they are not computed twice."""
        if mask is None:
            mask = self.legal_mask(state, state.current_player)  # checks the state
        if state.terminal:
            raise ValueError(f"{self.name}: the game is over; no action can be taken")
        if not (is_index(action, self.num_actions) and mask[action]):
            raise self.action_error(state, action, mask)
        return self.apply(state, int(action))

    def action_error(self, state: State, action: Any, mask: np.ndarray) -> ValueError:
        """The error for an action ``mask`` does not allow, naming the player, the action and
        the legal actions."""
        player = state.current_player
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            return ValueError(f"{self.name}: action must be an integer, got {action!r}")
        if 0 <= action < self.num_actions:
            what = f"illegal ({self.action_name(int(action))})"
        else:
            what = f"out of range (0..{self.num_actions - 1})"
        legal = [f"{a} ({self.action_name(int(a))})" for a in np.flatnonzero(mask)]
        return ValueError(
            f"{self.name}: action {action} of player_{player} is {what}; "
            f"legal actions: {', '.join(legal)}"
        )

    # --- snapshot and restore -------------------------------------------------------------

    def snapshot(self, state: State) -> dict[str, Any]:
        """A JSON-serialisable dict of the format version, the game's parameters and the whole
        state."""
        self.check_state(state)
        fields = {name: encode(value) for name, value in state.field_values().items()}
        return {
            "format": SNAPSHOT_FORMAT,
            "game": self.name,
            "params": encode(self.params()),
            "state": fields,
        }

    def restore(self, snapshot: Mapping | str | bytes) -> State:
        """The state a :meth:`snapshot` describes (the dict, after a JSON round trip or not, or
        its JSON text). Everything is checked: the format version, the game and its parameters,
        exactly the state's field names, each field's type, dtype and shape (a fresh state of
        this game is the template), the value ranges and consistency (:meth:`check_invariants`),
        ``current_player`` and a running game without winners. Anything wrong raises
        ``ValueError``; nothing else is changed, so a failed restore has no effect."""
        return restored_state(self, snapshot)

    @functools.cached_property
    def _field_specs(self) -> dict[str, tuple]:
        """Field name -> what a snapshot must hold for it, read off a fresh state."""
        template = self.new_state(np.random.default_rng(0))
        return {name: field_spec(value) for name, value in template.field_values().items()}

    def to_json(self, state: State) -> str:
        return json.dumps(self.snapshot(state))

    def from_json(self, text: str | bytes) -> State:
        """:meth:`restore` from JSON text."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise ValueError(f"{self.name}: from_json needs JSON text, got {type(text).__name__}")
        return self.restore(text)
