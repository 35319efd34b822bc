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
action mask, rendering and seeding. A game's ``env.py`` only names its ``Game`` class.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import warnings
from abc import ABC, abstractmethod
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

# ----------------------------------------------------------------------------------------------
# Small helpers shared by the engines
# ----------------------------------------------------------------------------------------------


def check_choice(name: str, value: Any, allowed: Any) -> None:
    """Raise ``ValueError`` naming the parameter unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; choose one of {list(allowed)}")


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Raise ``ValueError`` naming the parameter unless ``value`` is an int in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        upper = "" if high is None else f"..{high}"
        raise ValueError(f"{name}={value} is out of range; allowed {low}{upper}")
    return int(value)


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
    return spawn_game_rng(np.random.default_rng(seed))


@functools.cache
def seat_order(player: int, num_players: int) -> np.ndarray:
    """Seats starting with ``player`` and going left: the order observations list players in.
    Cached and read-only: observations ask for it at every step."""
    seats = (np.arange(num_players) + player) % num_players
    seats.flags.writeable = False
    return seats


# ----------------------------------------------------------------------------------------------
# The engine contract
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class State:
    """Base of every game's state. Subclasses add numpy arrays and scalars as dataclass fields.

    Fields may hold: numpy arrays, ints, floats, bools, strings, None, lists/tuples/dicts of those,
    and the game's generator ``rng``. That is what makes :meth:`Game.snapshot` generic.
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
    #: the keys ``new_state`` understands in ``options`` (see the rules file)
    reset_options: ClassVar[tuple[str, ...]] = ()

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

    # --- the rules ------------------------------------------------------------------------

    @abstractmethod
    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> State:
        """A new game. ``options`` fixes the cards (see the rules file); bad options raise
        ``ValueError``."""

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

    @abstractmethod
    def render(self, state: State, player: int | None = None) -> str:
        """A readable text picture of the table (from ``player``'s seat if given: their hand
        shown, everything they could not see hidden)."""

    @abstractmethod
    def check_invariants(self, state: State) -> None:
        """Raise AssertionError if the state is inconsistent: every card in exactly one place,
        counts in range, a legal action for the player to act. Used by the test suite."""

    # --- checked entry points -------------------------------------------------------------

    def step(self, state: State, action: int) -> np.ndarray | None:
        """Apply ``action`` for ``state.current_player`` after checking it; an illegal or
        out-of-range action raises ``ValueError`` naming the player, the action and the legal
        ones."""
        if state.terminal:
            raise ValueError(f"{self.name}: the game is over; no action can be taken")
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
        """A JSON-serialisable dict of the game's parameters and the whole state."""
        fields = {f.name: _encode(getattr(state, f.name)) for f in dataclasses.fields(state)}
        return {"game": self.name, "params": _encode(self.params()), "state": fields}

    def restore(self, snapshot: dict[str, Any]) -> State:
        """The state a :meth:`snapshot` describes (after ``json`` round trip or not)."""
        if not isinstance(snapshot, dict) or snapshot.get("game") != self.name:
            found = snapshot.get("game") if isinstance(snapshot, dict) else type(snapshot)
            raise ValueError(f"not a {self.name} snapshot (found {found!r})")
        if _decode(snapshot.get("params")) != self.params():
            raise ValueError(
                f"snapshot parameters {snapshot.get('params')} differ from this game's "
                f"{self.params()}"
            )
        try:
            fields = {k: _decode(v) for k, v in snapshot["state"].items()}
            return self.state_class(**fields)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"corrupt {self.name} snapshot: {error}") from error

    def to_json(self, state: State) -> str:
        return json.dumps(self.snapshot(state))

    def from_json(self, text: str) -> State:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"corrupt {self.name} snapshot: {error}") from error
        return self.restore(data)


def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str, "shape": value.shape}
    if isinstance(value, np.random.Generator):
        return {"__generator__": value.bit_generator.state}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        array = np.array(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
        return array.reshape(value["shape"])
    if "__generator__" in value:
        state = value["__generator__"]
        bit_generator = getattr(np.random, state["bit_generator"])()
        bit_generator.state = state
        return np.random.Generator(bit_generator)
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_decode(k): _decode(v) for k, v in value["__dict__"]}
    raise ValueError(f"unknown snapshot entry {value!r}")


# ----------------------------------------------------------------------------------------------
# The PettingZoo AEC base
# ----------------------------------------------------------------------------------------------


def known_options(game: Game, options: dict | None) -> dict:
    """The reset options ``game`` understands. Others are reported, not fatal: wrappers and test
    harnesses (PettingZoo's api_test among them) pass options of their own."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(game.reset_options))
    if unknown:
        warnings.warn(
            f"{game.name} ignores unknown reset options {unknown}; "
            f"it understands {list(game.reset_options)}",
            stacklevel=3,
        )
    return {key: options[key] for key in game.reset_options if key in options}


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


def render_table(game: Game, state: State | None, render_mode: str | None) -> str | None:
    """``render()`` of every environment: the table as text ("ansi"), or printed ("human")."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
        return None
    if state is None:
        raise RuntimeError("render() called before reset()")
    text = game.render(state)
    if render_mode == "human":
        print(text)
        return None
    return text


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
        if isinstance(observation, dict):
            observation = observation["observation"]
        return split_observation(self.observation_layout, observation)


class CardGameEnv(AgentsAndSpaces, AECEnv):
    """PettingZoo AEC environment over any :class:`Game`. A game's ``raw_env`` subclasses it and
    sets ``game_class`` and ``metadata["name"]``; keyword arguments other than ``render_mode``
    and ``max_cycles`` are the game's parameters."""

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
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

    # --- reset, step, observe -------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        game_rng = spawn_game_rng(self._rng)
        self.state_ = self.game.new_state(game_rng, known_options(self.game, options))
        self.num_steps = 0
        self.illegal_action_by = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"action_mask": self._no_actions} for agent in self.agents}
        self._masked_agent: str | None = None
        self._rewards_given = False
        self._after_change()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self.infos[agent]["action_mask"]
        if not (_is_index(action, len(mask)) and mask[action]):
            if self.illegal_action == "terminate" and _is_index(action, len(mask)):
                self._end_by_illegal_action(agent)
                return
            raise self.game.action_error(self.state_, action, mask)
        step_rewards = self.game.apply(self.state_, int(action))
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_given or step_rewards is not None:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_given = False
        if step_rewards is not None:
            for name, reward in zip(self.agents, step_rewards):
                self.rewards[name] = float(reward)
            self._rewards_given = True
        if self.state_.terminal:
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.num_steps >= self.max_cycles:
            # Truncation: nobody wins, no reward (the rules files' convention).
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.truncations = dict.fromkeys(self.agents, True)
        if self._rewards_given:
            self._accumulate_rewards()
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal_action(self, agent: str) -> None:
        """PettingZoo's classic convention for ``env()``: the offender gets −1, everybody else 0,
        and the game is over for all."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.illegal_action_by = agent
        self._rewards_given = True
        self._accumulate_rewards()
        self._after_change()

    def _after_change(self) -> None:
        """Select the acting agent and refresh the infos' action masks (all zero but the
        actor's: one mask computed per step)."""
        state = self.state_
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

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.agent_name_mapping[agent]
        return {
            "observation": self.game.observe(self.state_, player),
            "action_mask": self.infos[agent]["action_mask"]
            if agent in self.infos
            else self._no_actions,
        }

    def render(self) -> str | None:
        return render_table(self.game, self.state_, self.render_mode)

    def close(self) -> None:
        pass

    # --- saving ---------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON-serialisable picture of the game in progress and the environment's counters."""
        return {
            "engine": self.game.snapshot(self.state_),
            "num_steps": self.num_steps,
            "env_rng": _encode(self._rng),
            # rewards not yet collected by ``last()`` (a game may have just ended)
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "illegal_action_by": self.illegal_action_by,
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Continue from a :meth:`snapshot` (as if the game had been played up to it)."""
        self.reset()
        self.state_ = self.game.restore(snapshot["engine"])
        self._rng = _decode(snapshot["env_rng"])
        self.num_steps = int(snapshot["num_steps"])
        self.rewards = {agent: float(r) for agent, r in snapshot["rewards"].items()}
        self._cumulative_rewards = {
            agent: float(r) for agent, r in snapshot["cumulative_rewards"].items()
        }
        self.illegal_action_by = snapshot["illegal_action_by"]
        self._rewards_given = any(self.rewards.values())
        ended = self.state_.terminal or self.illegal_action_by is not None
        self.terminations = dict.fromkeys(self.agents, ended)
        self.truncations = dict.fromkeys(
            self.agents, not ended and self.num_steps >= self.max_cycles
        )
        self._after_change()


def _forward(name: str) -> property:
    def get(self):
        if not self._has_reset and name != "_cumulative_rewards":
            raise AttributeError(name)  # Python then calls __getattr__: PettingZoo's own error
        return getattr(self.env, name)

    return property(get, doc=f"the wrapped environment's ``{name}``")


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the attributes the AEC loop reads at every
    step forwarded directly. The parent reaches them through ``__getattr__``, which Python calls
    only after a normal lookup has failed: eight such lookups per step were the largest single
    cost of a wrapped step (measured by benchmarks/throughput.py --profile)."""

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    rewards = _forward("rewards")
    _cumulative_rewards = _forward("_cumulative_rewards")

    # The three calls of every step of the AEC loop go straight to the wrapped environment,
    # with the parent's checks and messages.
    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset:
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
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        self.iters_til_term -= 1
        return raw.agent_selection


def wrap(raw: CardGameEnv) -> AECEnv:
    """The user-facing environment: an illegal action ends the game with −1 for the offender
    (PettingZoo's classic convention); out-of-range actions raise ``ValueError``; calls out of
    order are errors (PettingZoo's ``OrderEnforcingWrapper``).

    The first two are done by the base class itself rather than by PettingZoo's
    ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``: each wrapper layer costs an
    attribute lookup chain on every access, which made the wrapped environment four times slower
    than PettingZoo's own rock-paper-scissors (measured, see benchmarks/). The behaviour is the
    same, except that an out-of-range action is a ``ValueError`` even under ``python -O``."""
    raw.illegal_action = "terminate"
    return _OrderEnforcingWrapper(raw)


def _is_index(action: Any, size: int) -> bool:
    if type(action) is int:  # the common case, checked first: this runs at every step
        return 0 <= action < size
    return (
        isinstance(action, (int, np.integer))
        and not isinstance(action, (bool, np.bool_))
        and 0 <= action < size
    )
