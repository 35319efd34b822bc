"""Shared machinery of every cardzoo game: the engine contract and the one PettingZoo AEC base.

A game is split the way OpenSpiel splits it:

- a :class:`Game` holds the parameters (fixed after construction) and the rules as methods;
- a :class:`State` holds all the data of one game in progress: numpy arrays and plain scalars,
  plus the game's own ``numpy.random.Generator`` (reshuffles during play draw from it, so a
  snapshot carries the generator too and a restored game continues exactly).

Exactly one player acts at any moment (``state.current_player``). Decisions that the rules make
simultaneous (a horse exchange, a Foxy card) are asked one player after another; the engine keeps
the choices already made out of every observation until all are in.

:class:`CardGameEnv` implements all PettingZoo bookkeeping once, over any engine: agent selection,
rewards, terminations, truncation after ``max_cycles`` agent steps, the observation dict with the
action mask, rendering (:mod:`cardzoo.envs.rendering`) and seeding. A game's ``env.py`` only
names its ``Game`` class.

Rules every entry point follows (engine, AEC environment, Foxy's parallel form, Gymnasium view):

Seeds
    ``None`` or an integer >= 0 (Python or numpy); anything else, ``True`` included, raises
    ``ValueError`` naming ``seed``. **Decision:** numpy also accepts sequences of integers as
    seeds; cardzoo does not (as Gymnasium's ``reset`` does not), so every game a report names can
    be replayed from one printed number.

Reset options
    ``options`` is a dict or None; anything else raises ``ValueError``. **Decision:** a key the
    game does not know is dropped with a ``UserWarning`` naming it (PettingZoo's ``api_test`` and
    other people's wrappers pass options of their own), at every level: :func:`known_options` is
    the one place that does it. A known key with a bad value (a misspelt card name, a wrong
    number of cards) raises ``ValueError`` naming the option, what was wrong and what is allowed.

A reset that raises changes nothing
    Options are checked, and the new game dealt, before the environment changes: a rejected
    ``reset`` leaves the game in progress (or the fresh environment) as it was, and the
    environment's generator too, so the next unseeded reset deals what it would have dealt.

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
import json
import os
import sys
import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import FrameType
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from cardzoo.envs.rendering import RENDER_FPS, RENDER_MODES, Rendering
from cardzoo.envs.snapshot import (
    SNAPSHOT_FORMAT,
    check_format,
    check_keys,
    decode_field,
    decode_generator,
    decode_int,
    decode_number,
    describe,
    encode,
    encode_generator,
    field_spec,
    invalid,
    preview,
    same_data,
    snapshot_data,
)
from cardzoo.errors import InputError

# ----------------------------------------------------------------------------------------------
# Small helpers shared by the engines
# ----------------------------------------------------------------------------------------------


def check_choice(name: str, value: Any, allowed: Any) -> None:
    """Raise :class:`~cardzoo.errors.InputError` (a ``ValueError``) naming the parameter unless
    ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise InputError(f"{name}={value!r} is not allowed; choose one of {list(allowed)}")


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Raise :class:`~cardzoo.errors.InputError` (a ``ValueError``) naming the parameter unless
    ``value`` is an int in [low, high] (no upper bound where ``high`` is None)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"{low}..{high}"
        raise InputError(f"{name}={value} is out of range; allowed {allowed}")
    return int(value)


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """``seed`` as an int (or None); ``ValueError`` naming it unless it is None or an integer
    >= 0 (see "Seeds" in the module docstring)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"{name} must be None or an integer >= 0, got {seed!r:.80}")
    return int(seed)


def require(condition: Any, message: str) -> None:
    """``assert`` for :meth:`Game.check_invariants` that ``python -O`` does not remove:
    restoring a snapshot relies on those checks."""
    if not condition:
        raise AssertionError(message)


def in_range(values: Any, low: int, high: int) -> bool:
    """Whether every value (of an array or a scalar) lies in ``[low, high]``."""
    return bool(np.all((np.asarray(values) >= low) & (np.asarray(values) <= high)))


def card_types(
    where: str, names: Any, allowed: tuple[str, ...], noun: str = "card name"
) -> np.ndarray:
    """The card names of a reset option as type ids (their index in ``allowed``). ``ValueError``
    naming the option (``where``), every unknown name and the allowed names."""
    is_list = isinstance(names, (list, tuple, np.ndarray)) and not isinstance(names, str)
    if not is_list or not all(isinstance(name, str) for name in names):
        raise ValueError(
            f"{where} must be a list of {noun}s from {list(allowed)}, got {names!r:.80}"
        )
    index = {name: type_id for type_id, name in enumerate(allowed)}
    unknown = {repr(name) for name in names if name not in index}
    if unknown:
        raise ValueError(
            f"{where}: unknown {noun}(s) {', '.join(sorted(unknown))}; "
            f"allowed {noun}s: {list(allowed)}"
        )
    return np.array([index[name] for name in names], np.int64)


def layout_from_sizes(sizes: list[tuple[str, int]]) -> dict[str, slice]:
    """Turn ``[(field, length), ...]`` into ``{field: slice}`` laid end to end."""
    layout: dict[str, slice] = {}
    start = 0
    for name, size in sizes:
        if name in layout:
            raise ValueError(f"duplicate observation field {name!r}")
        layout[name] = slice(start, start + size)
        start += size
    return layout


def named_counts(counts: np.ndarray, card_names: tuple[str, ...]) -> dict[str, int]:
    """``{card name: count}`` of the non-zero counts, for messages."""
    return {name: int(count) for name, count in zip(card_names, counts) if count}


def check_card_counts(
    option: str,
    cards: np.ndarray,
    expected: np.ndarray,
    card_names: tuple[str, ...],
    description: str | None = None,
) -> None:
    """Raise ``ValueError`` unless the card types ``cards`` (from a reset option) hold exactly
    ``expected`` copies of each type; ``description`` says what was expected, in words."""
    counts = np.bincount(np.ravel(cards), minlength=len(card_names))
    if np.array_equal(counts, expected):
        return
    description = description or str(named_counts(expected, card_names))
    raise ValueError(
        f"{option} option must hold exactly {description}; "
        f"got {np.size(cards)} cards {named_counts(counts, card_names)}"
    )


def split_observation(layout: dict[str, slice], vector: np.ndarray) -> dict[str, np.ndarray]:
    """An observation vector split into its named fields."""
    return {name: vector[part] for name, part in layout.items()}


def spawn_game_rng(env_rng: np.random.Generator) -> np.random.Generator:
    """The generator of one new game, drawn from the environment's generator. A reset without a
    seed thus continues the environment's sequence of deals."""
    return np.random.default_rng(env_rng.integers(2**63))


def game_rng_from_seed(seed: int | None) -> np.random.Generator:
    """The game generator that ``env.reset(seed=seed)`` gives the engine (used by the match
    runner, so every game it reports can be replayed in the environment)."""
    return spawn_game_rng(np.random.default_rng(check_seed(seed)))


def deal_new_game(game: Game, env_rng: np.random.Generator, options: dict | None) -> State:
    """A new game dealt with a generator drawn from ``env_rng``. If dealing raises (bad reset
    options), ``env_rng`` is put back as it was: a rejected reset consumes no draw."""
    saved = env_rng.bit_generator.state
    try:
        return game.new_state(spawn_game_rng(env_rng), options)
    except BaseException:
        env_rng.bit_generator.state = saved
        raise


@functools.cache
def seat_order(player: int, num_players: int) -> np.ndarray:
    """Seats starting with ``player`` and going left: the order observations list players in.
    Cached and read-only: observations ask for it at every step."""
    seats = (np.arange(num_players) + player) % num_players
    seats.flags.writeable = False
    return seats


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _stacklevel_outside_package() -> int:
    """The ``stacklevel`` that makes a warning issued by our caller point at the first frame
    outside cardzoo (the user's ``reset`` call, however deep inside cardzoo it was noticed)."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def known_options(game: Game, options: Any) -> dict:
    """The reset options ``game`` understands, out of what a caller passed (see "Reset options"
    in the module docstring: not a dict -> ``ValueError``; unknown keys -> ``UserWarning``
    naming them, and dropped). Every engine's ``new_state`` and every environment's ``reset``
    goes through here."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(
            f"{game.name}: reset options must be a dict or None, "
            f"got {type(options).__name__} {options!r:.60}"
        )
    unknown = sorted((key for key in options if key not in game.reset_options), key=repr)
    if unknown:
        warnings.warn(
            f"{game.name} ignores unknown reset options {unknown}; "
            f"it understands {list(game.reset_options)}",
            UserWarning,
            stacklevel=_stacklevel_outside_package(),
        )
    return {key: options[key] for key in game.reset_options if key in options}


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


def _copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator of the same kind at the same position, independent of ``rng``."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


# ----------------------------------------------------------------------------------------------
# The engine contract
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class State:
    """Base of every game's state. Subclasses add numpy arrays and scalars as dataclass fields.

    Fields hold numpy arrays (bool, int or float), ints, floats, bools and the game's generator
    ``rng``; a fresh state from ``new_state`` already holds every field with its final type, dtype
    and shape. That is what makes :meth:`Game.snapshot` and :meth:`Game.restore` generic.
    """

    rng: np.random.Generator
    current_player: int = 0
    terminal: bool = False


class Game(ABC):
    """Parameters and rules of one card game. Subclasses set the class attributes and implement
    the abstract methods; everything here is pure Python and numpy, no PettingZoo."""

    name: ClassVar[str]  # environment id without version, e.g. "henhouse"
    state_class: ClassVar[type[State]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_max_cycles: ClassVar[int]
    #: the keys ``new_state`` understands in ``options`` (each game's docs list them)
    reset_options: ClassVar[tuple[str, ...]] = ()

    # --- facts the layers above read instead of naming the game -------------------------
    #: +1 where a higher score is better (Foxy's points), -1 where a lower one is (penalty
    #: points, totals, cards held)
    score_direction: ClassVar[int] = -1
    #: whether the game has a ``reward="points"`` mode (rewards in points, not only win/loss)
    has_points_reward: ClassVar[bool] = False
    #: what a player aims at: "win" (win rate) or "points" (Foxy: the mean score)
    objective: ClassVar[str] = "win"
    #: whether everybody decides on each card at once (Foxy); the engine still asks in turn
    simultaneous: ClassVar[bool] = False
    #: whether any seat ever has more than one legal action (Henhouse: never)
    has_decisions: ClassVar[bool] = True

    num_players: int
    num_actions: int
    #: field name -> slice of the observation vector; the vector's length is ``observation_size``.
    observation_layout: dict[str, slice]

    # --- parameters -----------------------------------------------------------------------

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

    # --- the rules ------------------------------------------------------------------------

    @abstractmethod
    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> State:
        """A new game. ``options`` fixes the cards (see the game's docs); implementations pass
        them through :func:`known_options` first; bad values raise ``ValueError``."""

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

    # --- search: copies and sampled worlds --------------------------------------------------

    def copy_state(self, state: State, rng: np.random.Generator | None = None) -> State:
        """An independent copy of ``state``, its arrays copied: much cheaper than
        ``copy.deepcopy`` (a state is a flat dataclass of arrays and scalars). The copy's
        generator is a copy of ``state.rng`` at its position (the copy continues exactly as the
        original would), or ``rng`` itself if given: making a new generator is most of the cost
        of a copy, and a search that plays sampled worlds one after another can share one."""
        copied = copy.copy(state)  # scalars are immutable; arrays are copied below
        for name in _array_fields(state):
            setattr(copied, name, getattr(state, name).copy())
        copied.rng = _copy_generator(state.rng) if rng is None else rng
        return copied

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
        module = importlib.import_module(f"cardzoo.envs.{self.name}.picture")
        return module.draw(self, state, viewer, last_actions)

    @abstractmethod
    def check_invariants(self, state: State) -> None:
        """Raise AssertionError if the state is inconsistent: every value in its range, every
        card in exactly one place, a finished game with its winners, a legal action for the
        player to act. The test suite calls it after every step, and :meth:`restore` on every
        snapshot, so it must hold for every reachable state, reject every value that would make
        a later step fail, and use :func:`require` (which ``python -O`` keeps), not ``assert``.
        It may assume the state's fields have their dtypes and shapes (``restore`` checks
        those first)."""

    # --- checked entry points -------------------------------------------------------------

    def step(self, state: State, action: int, mask: np.ndarray | None = None) -> np.ndarray | None:
        """Apply ``action`` for ``state.current_player`` after checking it; an illegal or
        out-of-range action raises ``ValueError`` naming the player, the action and the legal
        ones. ``mask``: that player's legal actions in ``state`` where the caller has them
        already (the table loop does), so they are not computed twice."""
        if state.terminal:
            raise ValueError(f"{self.name}: the game is over; no action can be taken")
        if mask is None:
            mask = self.legal_mask(state, state.current_player)
        if not (_is_index(action, self.num_actions) and mask[action]):
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
        fields = {f.name: encode(getattr(state, f.name)) for f in dataclasses.fields(state)}
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
        what = f"{self.name} snapshot"
        data = snapshot_data(snapshot, what)
        check_format(data, what)
        check_keys(data, ("format", "game", "params", "state"), what)
        if data["game"] != self.name:
            raise invalid(what, f"it is a snapshot of game {describe(data['game'])}")
        if not same_data(data["params"], encode(self.params())):
            raise invalid(
                what,
                f"its parameters {preview(data['params'])} differ from this game's {self.params()}",
            )
        state = self._state_from_fields(data["state"], what)
        self._check_restored(state, what)
        return state

    @functools.cached_property
    def _field_specs(self) -> dict[str, tuple]:
        """Field name -> what a snapshot must hold for it, read off a fresh state."""
        template = self.new_state(np.random.default_rng(0))
        return {f.name: field_spec(getattr(template, f.name)) for f in dataclasses.fields(template)}

    def _state_from_fields(self, fields: Any, what: str) -> State:
        specs = self._field_specs
        if not isinstance(fields, Mapping):
            raise invalid(what, f"'state' must be a dict of fields, got {describe(fields)}")
        check_keys(fields, tuple(specs), f"{what} state")
        values = {
            name: decode_field(fields[name], spec, f"{what}: field {name!r}")
            for name, spec in specs.items()
        }
        try:
            return self.state_class(**values)
        except (TypeError, ValueError, IndexError) as error:
            raise invalid(what, str(error)) from None

    def _check_restored(self, state: State, what: str) -> None:
        if not 0 <= state.current_player < self.num_players:
            raise invalid(
                what,
                f"current_player={state.current_player}; players are 0..{self.num_players - 1}",
            )
        try:
            self.check_invariants(state)
            winners = self.winners(state)
        except Exception as error:  # noqa: BLE001 -- untrusted data: any failure means invalid
            message = str(error) or type(error).__name__
            raise invalid(what, f"inconsistent state ({message})") from None
        if not state.terminal and np.any(winners):
            raise invalid(what, "a game still running has winners")

    def to_json(self, state: State) -> str:
        return json.dumps(self.snapshot(state))

    def from_json(self, text: str | bytes) -> State:
        """:meth:`restore` from JSON text."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise ValueError(f"{self.name}: from_json needs JSON text, got {type(text).__name__}")
        return self.restore(text)


# ----------------------------------------------------------------------------------------------
# The PettingZoo AEC base
# ----------------------------------------------------------------------------------------------


def agent_spaces(game: Game) -> tuple[gymnasium.spaces.Dict, gymnasium.spaces.Discrete]:
    """The observation space (vector and action mask) and action space of every agent."""
    low, high = game.observation_bounds()
    observation_space = gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (game.num_actions,), np.int8),
        }
    )
    return observation_space, gymnasium.spaces.Discrete(game.num_actions)


class AgentsAndSpaces:
    """What every cardzoo environment, AEC or parallel, says about its agents: their names,
    spaces and the observation layout of its ``game``."""

    game: Game

    def _set_up_agents(self) -> None:
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        observation_space, action_space = agent_spaces(self.game)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)

    # PettingZoo asks for these as methods.
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    @property
    def observation_layout(self) -> dict[str, slice]:
        """Field name -> slice of ``observe(agent)["observation"]``."""
        return self.game.observation_layout

    def describe_observation(self, observation: np.ndarray | dict) -> dict[str, np.ndarray]:
        """Split an observation vector (or dict) into its named fields."""
        vector = observation["observation"] if isinstance(observation, dict) else observation
        return split_observation(self.observation_layout, vector)

    # --- reading the agent bookkeeping of a snapshot (shared by the AEC and parallel forms) ---

    def restored_agents(self, value: Any, what: str) -> list[str]:
        """The agents still in the game, from a snapshot: distinct known names in seat order."""
        if not isinstance(value, list) or not all(isinstance(agent, str) for agent in value):
            raise invalid(what, f"agents must be a list of agent names, got {preview(value, 80)}")
        unknown = [agent for agent in value if agent not in self.agent_name_mapping]
        if unknown:
            raise invalid(what, f"unknown agents {unknown}; agents are {self.possible_agents}")
        in_seat_order = [agent for agent in self.possible_agents if agent in value]
        if value != in_seat_order:
            raise invalid(what, f"agents {value} are not distinct names in seat order")
        return in_seat_order  # a new list: the environment must not share the caller's

    def restored_rewards(self, value: Any, agents: list[str], what: str) -> dict[str, float]:
        """A reward per agent still in the game, from a snapshot: numbers within the game's
        :meth:`Game.reward_bound`."""
        if not isinstance(value, Mapping) or set(value) != set(agents):
            raise invalid(
                what, f"expected a number for each of {agents}, got {preview(value, 120)}"
            )
        bound = self.game.reward_bound()
        return {agent: decode_number(value[agent], f"{what}[{agent!r}]", bound) for agent in agents}


#: the keys of :meth:`CardGameEnv.snapshot`
ENV_SNAPSHOT_KEYS = (
    "format",
    "engine",
    "num_steps",
    "env_rng",
    "agents",
    "rewards",
    "cumulative_rewards",
    "illegal_action_by",
)


class CardGameEnv(Rendering, AgentsAndSpaces, AECEnv):
    """PettingZoo AEC environment over any :class:`Game`. A game's ``raw_env`` subclasses it and
    sets ``game_class`` and ``metadata["name"]``; keyword arguments other than ``render_mode``
    and ``max_cycles`` are the game's parameters.

    Seeds, reset options, a reset that raises, and snapshots follow the rules in the docstring
    of :mod:`cardzoo.envs.core`; rendering (``render_mode`` "ansi", "rgb_array", "human", and
    :meth:`render_seat`) those of :mod:`cardzoo.envs.rendering`."""

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "name": "cardzoo",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, max_cycles: int | None = None, **params):
        super().__init__()
        check_choice("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        self.game = self.game_class(**params)
        self.max_cycles = check_int(
            "max_cycles", self.game.default_max_cycles if max_cycles is None else max_cycles, 1
        )
        self.render_mode = render_mode
        #: "raise" (``raw_env``): an illegal action raises ``ValueError``; "terminate" (``env()``):
        #: it ends the game with −1 for the offender.
        self.illegal_action = "raise"
        self.illegal_action_by: str | None = None
        self._set_up_agents()
        self._no_actions = np.zeros(self.game.num_actions, np.int8)
        self._no_actions.flags.writeable = False
        self.state_: State | None = None
        self._rng: np.random.Generator | None = None
        self.num_steps = 0
        #: successful resets and restores so far: how the wrapper of ``env()`` notices a game set
        #: up on the unwrapped environment behind its back
        self.games_set_up = 0
        self._last_agent: str | None = None  # who took the latest action, and which: pictures
        self._last_action: int | None = None

    # --- reset, step, observe -------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        options = known_options(self.game, options)
        if seed is not None or self._rng is None:
            env_rng = np.random.default_rng(seed)
        else:
            env_rng = self._rng
        # Nothing is changed before the new game is dealt: a reset that raises has no effect.
        state = deal_new_game(self.game, env_rng, options)
        self._rng = env_rng
        self.state_ = state
        self.num_steps = 0
        self.illegal_action_by = None
        self._last_agent = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"action_mask": self._no_actions} for agent in self.agents}
        self._masked_agent: str | None = None
        self._rewards_given = False
        self._after_change()
        self.games_set_up += 1

    def step(self, action: int) -> None:
        try:
            agent = self.agent_selection
        except AttributeError:  # no game yet (none set up, or the first reset raised)
            raise self._not_set_up("step") from None
        if not self.agents:  # every agent has stepped out: as the parallel form says it
            raise RuntimeError(
                f"{self.metadata['name']}: the game is over; call reset() to start a new one"
            )
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self.infos[agent]["action_mask"]
        if not (_is_index(action, len(mask)) and mask[action]):
            if self.illegal_action == "terminate" and _is_index(action, len(mask)):
                self._end_by_illegal_action(agent)
                return
            raise self.game.action_error(self.state_, action, mask)
        state = self.state_
        assert state is not None  # set up with agent_selection
        step_rewards = self.game.apply(state, int(action))
        # For pictures, drawn only when one is asked for: two stores, no tuple (step's hot path).
        self._last_agent, self._last_action = agent, action
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_given or step_rewards is not None:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_given = False
        if step_rewards is not None:
            for name, reward in zip(self.agents, step_rewards):
                self.rewards[name] = float(reward)
            self._rewards_given = True
        if state.terminal:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.num_steps >= self.max_cycles:
            # Truncation: nobody wins, no reward (every game's convention).
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.truncations = dict.fromkeys(self.agents, True)
        if self._rewards_given:
            self._accumulate_rewards()
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal_action(self, agent: str) -> None:
        """What PettingZoo's ``TerminateIllegalWrapper`` (``illegal_reward=-1``) does: the
        offender gets −1, everybody else 0, and every agent is both terminated and truncated.
        The game's state is left as it was before the illegal action."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        self.illegal_action_by = agent
        self._rewards_given = True
        self._accumulate_rewards()
        self._after_change()

    def _after_change(self) -> None:
        """Select the acting agent and refresh the infos' action masks (all zero but the
        actor's: one mask computed per step)."""
        state = self.state_
        assert state is not None  # called once a game is set up
        if self._masked_agent in self.infos:
            self.infos[self._masked_agent]["action_mask"] = self._no_actions
        self._masked_agent = None
        self.agent_selection = self.possible_agents[state.current_player]
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            # All agents end together; they step out one by one from here.
            self._deads_step_first()
        else:
            mask = self.game.legal_mask(state, state.current_player)
            self.infos[self.agent_selection]["action_mask"] = mask
            self._masked_agent = self.agent_selection

    def _not_set_up(self, call: str) -> RuntimeError:
        return RuntimeError(
            f"{self.metadata['name']}: {call}() called before a game was set up; "
            "call reset() first (or restore() a snapshot)"
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.state_ is None:
            raise self._not_set_up("observe")
        player = self.agent_name_mapping[agent]
        return {
            "observation": self.game.observe(self.state_, player),
            "action_mask": self.infos[agent]["action_mask"]
            if agent in self.infos
            else self._no_actions,
        }

    # --- saving ---------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON-serialisable picture of the game in progress and the environment's bookkeeping:
        the engine's snapshot, the environment's generator, the step count, the agents still in
        the game with their rewards not yet collected, and who ended it by an illegal action."""
        if self.state_ is None or self._rng is None:  # both are set with every game
            raise RuntimeError("snapshot() called before reset()")
        return {
            "format": SNAPSHOT_FORMAT,
            "engine": self.game.snapshot(self.state_),
            "num_steps": self.num_steps,
            "env_rng": encode_generator(self._rng),
            "agents": list(self.agents),
            # rewards not yet collected by ``last()`` (a game may have just ended)
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "illegal_action_by": self.illegal_action_by,
        }

    def restore(self, snapshot: Mapping | str | bytes) -> None:
        """Continue from a :meth:`snapshot` (the dict, after a JSON round trip or not, or its
        JSON text), as if the game had been played up to it; no ``reset()`` is needed first.

        Everything is checked before anything changes (see :meth:`Game.restore` for the game's
        state; here the format, the agents still in the game, their rewards, the step count and
        the generator): a bad snapshot raises ``ValueError`` and leaves the environment exactly
        as it was. Terminations and truncations are not stored but follow from the snapshot:
        a game over by the rules is terminated; one ended by an illegal action is terminated and
        truncated; a running game is truncated once ``num_steps`` reaches *this* environment's
        ``max_cycles``."""
        what = f"{self.metadata['name']} environment snapshot"
        data = snapshot_data(snapshot, what)
        if "engine" not in data and "state" in data:
            raise invalid(what, "this is a game's snapshot (game.snapshot); pass env.snapshot()")
        check_format(data, what)
        check_keys(data, ENV_SNAPSHOT_KEYS, what)
        state = self.game.restore(data["engine"])
        env_rng = decode_generator(data["env_rng"], f"{what}: env_rng")
        num_steps = self._restored_num_steps(state, data["num_steps"], f"{what}: num_steps")
        agents = self.restored_agents(data["agents"], f"{what}: agents")
        illegal_by = data["illegal_action_by"]
        if illegal_by is not None and not (
            isinstance(illegal_by, str) and illegal_by in self.agent_name_mapping
        ):
            raise invalid(what, f"illegal_action_by={describe(illegal_by)} is not an agent")
        if illegal_by is not None and state.terminal:
            raise invalid(what, "a game over by the rules was not ended by an illegal action")
        if illegal_by is not None:
            terminated = truncated = True
        else:
            terminated = state.terminal
            truncated = not terminated and num_steps >= self.max_cycles
        if agents != self.possible_agents and not (terminated or truncated):
            raise invalid(what, f"only {agents} are left in a game still in progress")
        rewards = self.restored_rewards(data["rewards"], agents, f"{what}: rewards")
        cumulative = self.restored_rewards(
            data["cumulative_rewards"], agents, f"{what}: cumulative_rewards"
        )
        # Everything is valid: from here on nothing can fail.
        self.state_, self._rng, self.num_steps = state, env_rng, num_steps
        self.illegal_action_by = illegal_by
        self._last_agent = None
        self.agents = agents
        self.rewards, self._cumulative_rewards = rewards, cumulative
        self._rewards_given = any(rewards.values())
        self.terminations = dict.fromkeys(agents, terminated)
        self.truncations = dict.fromkeys(agents, truncated)
        self.infos = {agent: {"action_mask": self._no_actions} for agent in agents}
        self._masked_agent = None
        self._skip_agent_selection = None
        if terminated or truncated:
            # As after the last step: the first agent still in steps out next; after the last
            # one the selection returns to the player whose turn it was.
            self.agent_selection = self.possible_agents[state.current_player]
            self._deads_step_first()
        else:
            self._after_change()
        self.games_set_up += 1

    def _restored_num_steps(self, state: State, value: Any, what: str) -> int:
        """The step count of a snapshot (a subclass that derives it from the state checks that
        it agrees)."""
        return decode_int(value, what, 0)


def _forward(name: str) -> property:
    def get(self):
        if not self._has_reset and not self._learn_of_new_game() and name != "_cumulative_rewards":
            raise AttributeError(name)  # Python then calls __getattr__: PettingZoo's own error
        return getattr(self.env, name)

    return property(get, doc=f"the wrapped environment's ``{name}``")


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the attributes the AEC loop reads at every
    step forwarded directly. The parent reaches them through ``__getattr__``, which Python calls
    only after a normal lookup has failed: eight such lookups per step were the largest single
    cost of a wrapped step (measured by benchmarks/throughput.py --profile).

    Also: the wrapper counts as reset only once a ``reset`` has succeeded (PettingZoo's sets its
    flag first, so after a first reset that raised, ``step`` failed inside the environment
    instead of saying "reset first"); a successful ``restore``, of the wrapper or of
    ``env.unwrapped``, counts as a reset. The wrapper learns of a game set up on the unwrapped
    environment from its counter ``games_set_up``, checked only where the parent would refuse
    a call (never on the path of a normal step).
    """

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    rewards = _forward("rewards")
    _cumulative_rewards = _forward("_cumulative_rewards")

    def __init__(self, env: CardGameEnv):
        self._games_seen = env.games_set_up
        super().__init__(env)

    def _learn_of_new_game(self) -> bool:
        """Whether a game is set up, counting resets and restores made on ``env.unwrapped``
        since the wrapper last looked (each counts as a reset for the order checks)."""
        if self.env.games_set_up != self._games_seen:
            self._games_seen = self.env.games_set_up
            self._has_reset = self._has_updated = True
        return self._has_reset

    def __getattr__(self, name: str) -> Any:
        if "env" in self.__dict__ and not self.__dict__.get("_has_reset", True):
            self._learn_of_new_game()  # before the parent refuses ``num_agents`` & co.
        return super().__getattr__(name)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._learn_of_new_game()

    def restore(self, snapshot: Mapping | str | bytes) -> None:
        """:meth:`CardGameEnv.restore`; the environment then counts as reset."""
        self.env.restore(snapshot)
        self._learn_of_new_game()

    # The three calls of every step of the AEC loop go straight to the wrapped environment,
    # with the parent's checks and messages.
    def last(self, observe: bool = True):
        if not self._has_reset and not self._learn_of_new_game():
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset and not self._learn_of_new_game():
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def observe(self, agent: str):
        self._learn_of_new_game()
        return super().observe(agent)

    def render(self):
        self._learn_of_new_game()
        return super().render()

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset and not self._learn_of_new_game():
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the wrapped environment directly."""

    def __next__(self) -> str:
        raw = self.env.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        if not self.env._has_updated:
            self.env._learn_of_new_game()  # a reset or restore on env.unwrapped is an update too
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        self.iters_til_term -= 1
        return raw.agent_selection


def wrap(raw: CardGameEnv) -> AECEnv:
    """The user-facing environment, with PettingZoo's classic conventions:

    - an illegal action (in range, masked out) ends the game exactly as PettingZoo's
      ``TerminateIllegalWrapper(env, illegal_reward=-1)`` does: −1 for the offender, 0 for
      everybody else, every agent terminated *and* truncated, the agents then stepping out with
      ``None`` (``raw.illegal_action_by`` names the offender);
    - an out-of-range action or a non-integer raises ``ValueError``;
    - calls out of order are errors (PettingZoo's ``OrderEnforcingWrapper``).

    The first two are done by the base class itself rather than by PettingZoo's
    ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``: each wrapper layer costs an
    attribute lookup chain on every access, which made the wrapped environment four times slower
    than PettingZoo's own rock-paper-scissors (measured, see benchmarks/). The behaviour is the
    same (a test plays both side by side), with two **Decisions**: an out-of-range action is a
    ``ValueError`` even under ``python -O``; and once the game is over every agent's action mask
    is all zero, as at every end of a cardzoo game (the wrapper would leave the offender's last
    mask in its observation)."""
    raw.illegal_action = "terminate"
    return _OrderEnforcingWrapper(raw)


def _is_index(action: Any, size: int) -> bool:
    if type(action) is int:  # the common case, checked first: this runs at every step
        return 0 <= action < size
    return bool(
        isinstance(action, (int, np.integer))
        and not isinstance(action, (bool, np.bool_))
        and 0 <= action < size
    )
