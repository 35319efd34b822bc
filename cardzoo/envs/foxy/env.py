"""The PettingZoo environments of Foxy over one engine (:mod:`cardzoo.envs.foxy.rules`).

- :class:`raw_env` / :func:`env`: the AEC form (the shared base): the players write one after
  another, in seat order, for every card; nobody's observation shows another's number.
- :class:`parallel_env`: the ``ParallelEnv`` form: every player writes on every card at once; the
  actions are stepped through the same engine in seat order, so both forms play the same game
  (the same seed deals the same stack).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from cardzoo.envs.core import (
    AgentsAndSpaces,
    CardGameEnv,
    check_choice,
    check_int,
    known_options,
    render_table,
    spawn_game_rng,
    wrap,
)
from cardzoo.envs.foxy.rules import STACK_SIZE, Foxy, FoxyState


class raw_env(CardGameEnv):
    """Foxy (AEC) without wrappers: an illegal action raises ``ValueError``."""

    game_class = Foxy
    metadata = {**CardGameEnv.metadata, "name": "foxy_v0"}


def env(**kwargs):
    """Foxy (AEC) with PettingZoo's classic wrappers (see :func:`cardzoo.envs.core.wrap`)."""
    return wrap(raw_env(**kwargs))


class parallel_env(AgentsAndSpaces, ParallelEnv):
    """Foxy as a PettingZoo ``ParallelEnv``: ``step`` takes every live player's number for the
    current card. Keyword arguments are the game's parameters plus ``render_mode`` and
    ``max_cycles`` (here: parallel steps, i.e. cards; default 20, so a game always ends first).
    An illegal or missing action raises ``ValueError`` before any action is applied."""

    metadata = {"render_modes": ["ansi", "human"], "name": "foxy_v0"}

    def __init__(self, render_mode: str | None = None, max_cycles: int | None = None, **params):
        check_choice("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        self.game = Foxy(**params)
        self.max_cycles = check_int(
            "max_cycles", STACK_SIZE if max_cycles is None else max_cycles, 1
        )
        self.render_mode = render_mode
        self._set_up_agents()
        self.agents: list[str] = []
        self.state_: FoxyState | None = None
        self._rng: np.random.Generator | None = None
        self.num_steps = 0

    def reset(self, seed: int | None = None, options: dict | None = None):
        # The same generator scheme as CardGameEnv: one seed deals the same stack in both forms.
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.state_ = self.game.new_state(
            spawn_game_rng(self._rng), known_options(self.game, options)
        )
        self.num_steps = 0
        self.agents = self.possible_agents[:]
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, Any]):
        if not self.agents:
            raise ValueError("foxy: the game is over; call reset()")
        self._check_actions(actions)
        rewards = np.zeros(self.game.num_players)
        for agent in self.agents:  # seat order: exactly the AEC order
            step_rewards = self.game.apply(self.state_, int(actions[agent]))
            if step_rewards is not None:
                rewards = step_rewards
        self.num_steps += 1
        ended = self.state_.terminal
        truncated = not ended and self.num_steps >= self.max_cycles
        live = self.agents
        observations = self._observations()
        reward_of = {agent: float(rewards[self.agent_name_mapping[agent]]) for agent in live}
        terminations = dict.fromkeys(live, ended)
        truncations = dict.fromkeys(live, truncated)
        infos = {agent: {} for agent in live}
        if ended or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, reward_of, terminations, truncations, infos

    def _check_actions(self, actions: dict[str, Any]) -> None:
        if set(actions) != set(self.agents):
            raise ValueError(
                f"foxy: step needs one action for each of {self.agents}, got {sorted(actions)}"
            )
        for agent in self.agents:
            action = actions[agent]
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise ValueError(f"foxy: action of {agent} must be an integer, got {action!r}")
            mask = self.game.choice_mask(self.state_, self.agent_name_mapping[agent])
            if not 0 <= action < self.game.num_actions or not mask[action]:
                legal = np.flatnonzero(mask)
                raise ValueError(
                    f"foxy: action {action} ({self.game.action_name(int(action))}) of {agent} is "
                    f"illegal; legal actions: {legal[0]}..{legal[-1]}"
                    + ("" if len(legal) == self.game.num_actions else " (the circle is used)")
                )

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        state = self.state_
        return {
            agent: {
                "observation": self.game.observe(state, player),
                "action_mask": self.game.choice_mask(state, player),
            }
            for agent, player in self.agent_name_mapping.items()
            if agent in self.agents
        }

    def render(self) -> str | None:
        return render_table(self.game, self.state_, self.render_mode)

    def close(self) -> None:
        pass
