"""One learning seat as a single-agent Gymnasium environment; the other seats are played by agents.

Every game is registered as ``cardzoo/<GameName>-v0`` (``import cardzoo`` first)::

    import gymnasium, cardzoo
    env = gymnasium.make("cardzoo/NobodyWantsIt-v0", opponents="random", num_players=4)

The observation is the game's float32 vector; the legal actions are in ``info["action_mask"]``
and in ``env.action_masks()``, where sb3-contrib's ``MaskablePPO`` looks for them. The reward of a
step is everything the learner's seat earned from its action up to its next decision (the
opponents' moves in between included). An illegal action ends the episode with −1 for the learner
(PettingZoo's classic convention; ``illegal_action="raise"`` raises ``ValueError`` instead), so
random exploration and ``gymnasium.utils.env_checker.check_env`` are safe.

**Decision:** when a deal ends before the learner is ever asked to decide (possible in games where
a seat can be out early), the environment deals again from its own generator: an episode always
starts with a decision of the learner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from cardzoo.agents import Agent, make_agent, take_turn
from cardzoo.envs import GAMES, game_spec
from cardzoo.envs.core import Game, check_choice, check_int, spawn_game_rng

AgentSpec = str | Callable[[Game, int], Agent]


class SingleAgentEnv(gymnasium.Env):
    """``game`` with the learner in ``learner_seat`` (None: a random seat every episode) and
    ``opponents`` in the other seats: one agent name or factory for all, or one per other seat."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        game: str,
        opponents: AgentSpec | Sequence[AgentSpec] = "random",
        learner_seat: int | None = None,
        max_cycles: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        **params: Any,
    ):
        spec = game_spec(game)
        check_choice("illegal_action", illegal_action, ["terminate", "raise"])
        check_choice("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        self.game_name = game
        self.game = spec.module().raw_env(**params).game
        n = self.game.num_players
        if learner_seat is not None:
            check_int("learner_seat", learner_seat, 0, n - 1)
        self.learner_seat = learner_seat
        self.max_cycles = check_int(
            "max_cycles", self.game.default_max_cycles if max_cycles is None else max_cycles, 1
        )
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        if isinstance(opponents, (str,)) or callable(opponents):
            opponents = [opponents] * (n - 1)
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: need {n - 1} agents for {n} seats, got {len(opponents)}")
        self._opponent_specs = list(opponents)
        low, high = self.game.observation_bounds()
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self._env_rng: np.random.Generator | None = None
        self.state = None
        self.seat = 0
        self._opponents: dict[int, Agent] = {}
        self._steps = 0

    # --- gymnasium API --------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or self._env_rng is None:
            self._env_rng = np.random.default_rng(seed)
        while True:
            game_rng = spawn_game_rng(self._env_rng)
            self.state = self.game.new_state(game_rng, options)
            n = self.game.num_players
            self.seat = (
                int(self._env_rng.integers(n)) if self.learner_seat is None else self.learner_seat
            )
            self._seat_opponents(int(self._env_rng.integers(2**31)))
            self._steps = 0
            self._play_opponents()
            if not self._episode_over():
                return self._observation(), self._info()
            if options:  # a fixed deal that never reaches the learner cannot be dealt again
                raise ValueError("this deal ends before the learner's seat ever decides")

    def step(self, action):
        if self.state is None:
            raise RuntimeError("step() called before reset()")
        if self._episode_over():
            raise RuntimeError("step() called after the episode ended; call reset()")
        mask = self.game.legal_mask(self.state, self.seat)
        if not (0 <= int(action) < self.game.num_actions and mask[int(action)]):
            if self.illegal_action == "raise":
                self.game.step(self.state, int(action))  # raises the engine's ValueError
            info = {**self._info(), "illegal_action": True}
            return self._observation(), -1.0, True, False, info
        reward = self._reward_of(self.game.apply(self.state, int(action)))
        self._steps += 1
        reward += self._play_opponents()
        terminated = bool(self.state.terminal)
        truncated = not terminated and self._steps >= self.max_cycles
        if self.render_mode == "human":
            print(self.render())
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (sb3-contrib's ``MaskablePPO`` reads this)."""
        return self.game.legal_mask(self.state, self.seat).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.game.render(self.state, self.seat)
        return text

    # --- inside ---------------------------------------------------------------------------

    def _seat_opponents(self, seed: int) -> None:
        others = [p for p in range(self.game.num_players) if p != self.seat]
        self._opponents = {}
        for index, (player, spec) in enumerate(zip(others, self._opponent_specs)):
            agent_seed = seed + index
            if isinstance(spec, str):
                agent = make_agent(self.game_name, spec, self.game, seed=agent_seed)
            else:
                agent = spec(self.game, agent_seed)
            agent.reset()
            self._opponents[player] = agent

    def _play_opponents(self) -> float:
        """Let the other seats act until the learner must decide or the game ends; return the
        learner's rewards meanwhile."""
        reward = 0.0
        state, game = self.state, self.game
        while not state.terminal and self._steps < self.max_cycles:
            player = state.current_player
            if player == self.seat:
                break
            reward += self._reward_of(take_turn(game, state, self._opponents[player]))
            self._steps += 1
        return reward

    def _reward_of(self, step_rewards: np.ndarray | None) -> float:
        if step_rewards is None:
            return 0.0
        if not self.state.terminal and self._steps + 1 >= self.max_cycles:
            return 0.0  # the truncating step gives nothing, as in the AEC environment
        return float(step_rewards[self.seat])

    def _episode_over(self) -> bool:
        return bool(self.state.terminal) or self._steps >= self.max_cycles

    def _observation(self) -> np.ndarray:
        return self.game.observe(self.state, self.seat)

    def _info(self) -> dict:
        return {"action_mask": self.game.legal_mask(self.state, self.seat), "seat": self.seat}


def gym_id(game_name: str) -> str:
    """``"nobody_wants_it"`` -> ``"cardzoo/NobodyWantsIt-v0"``."""
    return "cardzoo/" + "".join(word.capitalize() for word in game_name.split("_")) + "-v0"


def register_all() -> None:
    """Register every game with Gymnasium (called on ``import cardzoo``)."""
    for name in GAMES:
        if gym_id(name) not in gymnasium.registry:
            gymnasium.register(
                id=gym_id(name),
                entry_point="cardzoo.training.single_agent:SingleAgentEnv",
                kwargs={"game": name},
            )
