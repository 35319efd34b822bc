"""The agent interface: an observation dict (with its action mask) in, an action out.

An agent sees only what its seat could see at the table: the observation vector, the action mask,
and the game's public parameters (``game``, for the observation layout and the player count). It
may remember earlier observations of the same game; :meth:`Agent.reset` starts a new game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardzoo.envs.core import Game, State, split_observation


class Agent:
    """Base class of every agent. Subclasses implement :meth:`act`."""

    #: registry name, e.g. "random" or "nwi_dodger"
    name = "agent"
    #: False for agents that decide from the action mask alone: :func:`take_turn` then skips
    #: building the observation vector (a large share of a random opponent's cost in training)
    uses_observation = True
    #: True for search agents: :func:`take_turn` then also passes the true game state as
    #: ``observation["state"]``, which such an agent may read only through the game's resampler
    #: (:meth:`~cardzoo.envs.core.Game.resample`, from its own seat's view)
    uses_state = False

    def __init__(self, game: Game, seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Forget everything about the previous game."""

    def act(self, observation: dict[str, np.ndarray]) -> int:
        raise NotImplementedError

    def fields(self, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The observation vector split into its named fields."""
        return split_observation(self.game.observation_layout, observation["observation"])

    def __call__(self, observation: dict[str, Any]) -> int:
        return self.act(observation)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.name})"


def take_turn(game: Game, state: State, agent: Agent) -> np.ndarray | None:
    """``agent`` decides for ``state.current_player`` from that seat's observation and mask; the
    action is checked and applied. Returns the step's rewards, as :meth:`Game.step` does."""
    player = state.current_player
    observation = {"action_mask": game.legal_mask(state, player)}
    if agent.uses_observation:
        observation["observation"] = game.observe(state, player)
    if agent.uses_state:
        observation["state"] = state
    return game.step(state, agent.act(observation))


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    name = "random"
    uses_observation = False

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"{self!r} was asked to act with no legal action")
        return int(legal[self.rng.integers(legal.size)])
