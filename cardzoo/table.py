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


class Tables:
    """Many games of one ``game`` advancing together, each a :class:`Table`.

    :meth:`play` lets every game's agents act until each game needs a decision from outside or
    is over. Seats whose agents decide in batches (agents with a ``batch_key`` and a static
    ``act_batch(agents, observations, masks)``, such as policy agents) are gathered over all the
    games first, so that every policy decides for all the seats it plays in one forward pass;
    every other agent acts at once, one decision at a time. Each game is played exactly as a
    :class:`Table` would play it alone: the order in which games advance changes nothing, as long
    as every agent plays one seat of one game.
    """

    def __init__(self, tables: Sequence[Table]) -> None:
        self.tables = list(tables)

    def play(self, until: Sequence[int | None] | None = None) -> None:
        """Advance every game until seat ``until[i]`` of game i must decide (None: to the end)
        or the game is over."""
        stops = [None] * len(self.tables) if until is None else list(until)
        while True:
            waiting: dict[int, list[tuple[Table, int]]] = {}
            for table, stop in zip(self.tables, stops):
                self._play_unbatched(table, stop, waiting)
            if not waiting:
                return
            for seats in waiting.values():
                self._decide_together(seats)

    @staticmethod
    def _play_unbatched(table: Table, stop: int | None, waiting: dict) -> None:
        """Let ``table``'s agents act until a batched agent must decide (queued in ``waiting``
        by its batch key), seat ``stop`` must decide, or the game is over."""
        game, state = table.game, table.state
        while not (state.terminal or table.steps >= table.max_cycles):
            player = state.current_player
            if player == stop:
                return
            agent = table.agents[player]
            key = getattr(agent, "batch_key", None)
            if key is not None:
                waiting.setdefault(key, []).append((table, player))
                return
            table._count(take_turn(game, state, agent))

    @staticmethod
    def _decide_together(seats: list[tuple[Table, int]]) -> None:
        first_table, first_player = seats[0]
        game = first_table.game
        agents = [table.agents[player] for table, player in seats]
        observations = np.stack([game.observe(table.state, player) for table, player in seats])
        masks = np.stack([game.legal_mask(table.state, player) for table, player in seats])
        actions = type(agents[0]).act_batch(agents, observations, masks)
        for (table, _), action in zip(seats, actions):
            table.step(int(action))
