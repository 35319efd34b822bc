"""The one PettingZoo AEC base of every cardzoo game: :class:`CardGameEnv` over any
:class:`~cardzoo.envs.core.Game`, and what every cardzoo environment (AEC or Foxy's parallel form)
says about its agents (:class:`AgentsAndSpaces`).

:class:`CardGameEnv` implements all PettingZoo bookkeeping once: agent selection, rewards,
terminations, truncation after ``max_cycles`` agent steps, the observation dict with the action
mask, rendering (:mod:`cardzoo.envs.rendering`), seeding and snapshots. A game's ``env.py`` only
names its ``Game`` class; ``env()`` wraps it (:func:`cardzoo.envs.wrapper.wrap`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import (
    check_choice,
    check_max_cycles,
    deal_for_reset,
    is_index,
    split_observation,
)
from cardzoo.envs.rendering import RENDER_FPS, RENDER_MODES, Rendering
from cardzoo.envs.restore import (
    ENV_SNAPSHOT_KEYS,
    restored_agents,
    restored_rewards,
)
from cardzoo.envs.snapshot import (
    SNAPSHOT_FORMAT,
    check_format,
    check_keys,
    decode_generator,
    decode_int,
    describe,
    encode_generator,
    invalid,
    snapshot_data,
)
from cardzoo.errors import InputError


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
        """Split an observation vector (or dict) into its named fields; a vector of another
        shape than the game's ``(observation_size,)`` raises ``ValueError``."""
        vector = observation["observation"] if isinstance(observation, dict) else observation
        size = self.game.observation_size
        if np.shape(vector) != (size,):
            raise InputError(f"describe_observation: an observation of {self.game.name} has "
                             f"shape ({size},); got {np.shape(vector)}")  # fmt: skip
        return split_observation(self.observation_layout, vector)


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
        self.game = self.game_class.with_params(params, ("render_mode", "max_cycles"))
        self.max_cycles = check_max_cycles(max_cycles, self.game.default_max_cycles)
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
        # Nothing is changed before the new game is dealt: a reset that raises has no effect.
        env_rng, state = deal_for_reset(self.game, seed, options, self._rng)
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
        if not (is_index(action, len(mask)) and mask[action]):
            if self.illegal_action == "terminate" and is_index(action, len(mask)):
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
        agents = restored_agents(self.possible_agents, data["agents"], f"{what}: agents")
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
        rewards = restored_rewards(self.game, data["rewards"], agents, f"{what}: rewards")
        cumulative = restored_rewards(
            self.game, data["cumulative_rewards"], agents, f"{what}: cumulative_rewards"
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
