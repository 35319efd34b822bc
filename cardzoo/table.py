"""How a table advances: the one loop that lets seats' agents play, used by every layer above.

A :class:`Table` is one game in progress: the engine's state, an agent per seat (``None`` for a
seat whose moves come from outside: the learner of the Gymnasium view, a person at the terminal),
the agent steps taken so far against ``max_cycles``, and each seat's rewards.
:meth:`Table.play` lets the agents act until a given seat must decide or the game is over;
:meth:`Table.step` applies one move decided outside.

Rewards are counted as the environments count them: the step that reaches ``max_cycles``
without ending the game by the rules truncates it and earns nothing.

Layer: above :mod:`cardzoo.agents` and :mod:`cardzoo.envs`; evaluation, tournaments, the
Gymnasium view and terminal play use it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardzoo.agents import Agent, take_turn
from cardzoo.envs.core import Game, State


class Table:
    """``game`` in ``state`` with ``agents[seat]`` in each seat (None: decided outside)."""

    def __init__(
        self, game: Game, state: State, agents: Sequence[Agent | None], max_cycles: int
    ) -> None:
        self.game = game
        self.state = state
        self.agents = list(agents)
        self.max_cycles = max_cycles
        self.steps = 0
        self.rewards = np.zeros(game.num_players)

    @property
    def over(self) -> bool:
        """The game ended by the rules or reached ``max_cycles``."""
        return bool(self.state.terminal) or self.steps >= self.max_cycles

    @property
    def truncated(self) -> bool:
        """Stopped by ``max_cycles`` before the rules ended the game."""
        return not self.state.terminal and self.steps >= self.max_cycles

    def play(self, until: int | None = None) -> np.ndarray:
        """Let the agents act until seat ``until`` must decide (None: to the end) or the game is
        over; returns what each seat earned meanwhile."""
        earned = np.zeros(self.game.num_players)
        state = self.state
        while not (state.terminal or self.steps >= self.max_cycles):
            player = state.current_player
            if player == until:
                break
            step_rewards = self._count(take_turn(self.game, state, self.agents[player]))
            if step_rewards is not None:
                earned += step_rewards
        return earned

    def step(self, action: int) -> np.ndarray | None:
        """Apply ``action`` (checked) for the player to move; the rewards it earns (None when
        the step gives none)."""
        return self._count(self.game.step(self.state, action))

    def _count(self, step_rewards: np.ndarray | None) -> np.ndarray | None:
        self.steps += 1
        if step_rewards is None or self.truncated:
            return None
        self.rewards += step_rewards
        return step_rewards
