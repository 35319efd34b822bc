"""The environments a training run learns in: one learning seat, opponents drawn from a mix.

- :class:`OpponentMix` — who sits in the other seats: agent names with proportions, and ``self``
  for frozen earlier snapshots of the learner (a policy pool, as in RLlib's league-style
  self-play). Every seat of every episode draws its agent from the mix.
- :class:`TrainingEnv` — the single-agent Gymnasium view of a game
  (:class:`~cardzoo.single_agent.SingleAgentEnv`) with the observation scaled to a fixed
  range, optionally stacked with the learner's previous observations (memory for Foxy without
  memory), and an optional reward mode that adds the game's points to the win/loss reward.
- :func:`make_vec_env` — several of them as one SB3 ``VecEnv`` (in this process, or shared out
  among worker processes, :class:`~cardzoo.training.vec_env.MultiGameVecEnv`), with the action
  masks passed along with each step so that ``MaskablePPO`` needs no extra round trip to the
  workers for them (:class:`MaskFromInfo`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecEnvWrapper

from cardzoo.agents import POLICY_LOADERS, Agent, check_agent_name, make_agent
from cardzoo.agents.policy import NumpyPolicy, PolicyAgent, PolicyInput
from cardzoo.envs.core import Game
from cardzoo.single_agent import SingleAgentEnv
from cardzoo.training.vec_env import MultiGameVecEnv

SELF = "self"


def parse_mix(game_name: str, text: str | Sequence[str]) -> dict[str, float]:
    """``"nwi_dodger:0.5,self:0.3,random:0.2"`` -> {name: weight}, weights summing to 1. A name
    without a weight counts 1; ``self`` is the learner's snapshot pool; any agent name
    :func:`~cardzoo.agents.make_agent` takes may be used (``ppo:PATH:0.2`` for a saved policy
    with its weight). The one place that reads an opponent mix."""
    entries = text.split(",") if isinstance(text, str) else list(text)
    mix: dict[str, float] = {}
    for entry in entries:
        name, weight_text = _split_weight(entry.strip())
        if name != SELF:
            try:
                check_agent_name(game_name, name)
            except ValueError as error:
                raise ValueError(f"opponents: {error}, or self") from None
        try:
            weight = float(weight_text) if weight_text else 1.0
        except ValueError:
            raise ValueError(f"opponents: weight of {name!r} must be a number") from None
        if not (weight > 0 and np.isfinite(weight)):
            raise ValueError(f"opponents: weight of {name!r} must be positive, got {weight_text}")
        mix[name] = mix.get(name, 0.0) + weight
    if not mix:
        raise ValueError("opponents: name at least one agent")
    total = sum(mix.values())
    return {name: weight / total for name, weight in mix.items()}


def _split_weight(entry: str) -> tuple[str, str]:
    """``"bluffer:0.3"`` -> ("bluffer", "0.3"); ``"ppo:runs/x"`` -> ("ppo:runs/x", ""): the text
    after the last colon is a weight when the name before it has no colon of its own, or when it
    reads as a number (``"ppo:runs/x:0.3"``)."""
    head, colon, tail = entry.rpartition(":")
    if not colon:
        return entry, ""
    if ":" not in head:
        kind_takes_path = head in POLICY_LOADERS and not _is_number(tail)
        return (entry, "") if kind_takes_path or "=" in tail else (head, tail)
    return (head, tail) if _is_number(tail) else (entry, "")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class OpponentMix:
    """A factory ``mix(game, seed) -> Agent`` drawing one opponent from the mix. ``self`` draws a
    uniformly random policy of the pool (played by sampling from its action distribution, so the
    learner meets varied play), until the pool has a policy ``self`` is skipped. Every call
    builds a new agent: two seats never share one (a policy with a frame stack keeps one
    frame buffer per seat); saved policies are read from disk once and shared as weights."""

    name = "opponent mix"

    def __init__(self, game_name: str, mix: dict[str, float], frame_stack: int = 1):
        self.game_name = game_name
        self.mix = mix
        self.frame_stack = frame_stack
        self.pool: list[NumpyPolicy] = []

    def __call__(self, game: Game, seed: int) -> Agent:
        rng = np.random.default_rng(seed)
        names = [name for name in self.mix if name != SELF or self.pool]
        weights = np.array([self.mix[name] for name in names])
        name = names[rng.choice(len(names), p=weights / weights.sum())]
        if name == SELF:
            policy = self.pool[rng.integers(len(self.pool))]
            return PolicyAgent(
                game, policy, seed=seed, deterministic=False, frame_stack=self.frame_stack
            )
        return make_agent(self.game_name, name, game, seed=seed)


class TrainingEnv(gymnasium.Wrapper):
    """:class:`SingleAgentEnv` with scaled (and optionally stacked) observations, the opponents
    drawn from an :class:`OpponentMix`, and the reward mode of the run.

    ``params`` are the game's (with ``reward="points"`` for the two modes that use points).
    ``reward="win"``: the game's own reward. ``reward="points"``: the game's points reward times
    ``points_scale``. ``reward="win+points"``: those scaled points, and at the end of the game +1
    to a winner and −1 to a loser — the points give a signal in every round, the win term keeps
    the goal the goal. ``reward="win+score"``: the game's win reward, plus ``points_scale`` times
    how much the seat's score (:meth:`Game.scores`: Foxy's points, Believe It or Not's cards held,
    penalty points, totals) improved since its previous decision, ``score_sign`` saying which
    direction is better. This is potential-based shaping (the potential is the signed score), so
    it changes how fast the learner finds good play, not which play is best; it also gives Foxy,
    whose rewards come only at the end, a signal on every card (the policy never sees rewards, so
    this tells it nothing it could not know)."""

    def __init__(
        self,
        game_name: str,
        mix: OpponentMix,
        params: dict[str, Any],
        reward: str = "win",
        points_scale: float = 0.0,
        frame_stack: int = 1,
        score_sign: int = -1,
    ):
        inner = SingleAgentEnv(game_name, opponents=mix, **params)
        super().__init__(inner)
        self.mix = mix
        self.reward_mode = reward
        self.points_scale = points_scale
        self.score_sign = score_sign
        self.inputs = PolicyInput(inner.game, frame_stack)
        self.observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, (self.inputs.size,), np.float32
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observation, info = self.env.reset(seed=seed, options=options)
        self.inputs.reset()
        return self.inputs(observation).copy(), info

    def step(self, action):
        inner = self.env.unwrapped
        if self.reward_mode == "win+score":
            before = inner.game.scores(inner.state)[inner.seat]
        observation, reward, terminated, truncated, info = self.env.step(action)
        if self.reward_mode == "win+score":
            after = inner.game.scores(inner.state)[inner.seat]
            reward += self.points_scale * self.score_sign * float(after - before)
        elif self.reward_mode != "win":
            reward = reward * self.points_scale
        if self.reward_mode == "win+points" and terminated and not info.get("illegal_action"):
            reward += 1.0 if inner.game.winners(inner.state)[inner.seat] else -1.0
        return self.inputs(observation).copy(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()

    def set_pool(self, states: list[dict]) -> None:
        """Replace the self-play pool (called through ``VecEnv.env_method`` in every worker)."""
        self.mix.pool = [NumpyPolicy(**state) for state in states]


class MaskFromInfo(VecEnvWrapper):
    """Answers ``env_method("action_masks")`` — which ``MaskablePPO`` calls before every step —
    from the masks the environments already return in their infos, instead of asking every
    worker process again."""

    def __init__(self, venv: VecEnv):
        super().__init__(venv)
        self._masks: np.ndarray | None = None

    def reset(self):
        observations = self.venv.reset()
        self._masks = np.stack([info["action_mask"] for info in self.venv.reset_infos])
        return observations

    def step_wait(self):
        observations, rewards, dones, infos = self.venv.step_wait()
        masks = []
        for index, (done, info) in enumerate(zip(dones, infos)):
            source = self.venv.reset_infos[index] if done else info
            masks.append(source["action_mask"])
        self._masks = np.stack(masks)
        return observations, rewards, dones, infos

    def env_method(self, method_name: str, *args, indices=None, **kwargs):
        if method_name == "action_masks" and indices is None and self._masks is not None:
            return list(self._masks.astype(bool))
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or self.venv.has_attr(attr_name)


def make_vec_env(
    env_factory: Callable[[int], TrainingEnv],
    n_envs: int,
    seed: int,
    processes: int = 1,
) -> MaskFromInfo:
    """``n_envs`` environments, ``env_factory(index)`` each, seeded ``seed + index``; stepped in
    this process (``processes=1``) or shared out among ``processes`` worker processes."""
    factories = [_Factory(env_factory, index) for index in range(n_envs)]
    if processes > 1:
        venv: VecEnv = MultiGameVecEnv(factories, processes)
    else:
        venv = DummyVecEnv(factories)
    venv.seed(seed)
    return MaskFromInfo(venv)


class _Factory:
    """Picklable ``() -> env`` (a lambda would not cross to a worker process)."""

    def __init__(self, env_factory: Callable[[int], TrainingEnv], index: int):
        self.env_factory, self.index = env_factory, index

    def __call__(self) -> TrainingEnv:
        return self.env_factory(self.index)
