"""Stable-Baselines3's ``VecEnv`` over :class:`cardzoo.vector.VectorEnv`: sb3-contrib's
``MaskablePPO`` trains on the vector form unmodified (SB3's own algorithms do not mask their
actions, and an illegal action is refused, so they need a learner that masks)::

    from sb3_contrib import MaskablePPO
    from cardzoo.vector.sb3 import SB3VecEnv

    env = SB3VecEnv("nobody_wants_it", num_envs=64, num_players=4)
    model = MaskablePPO("MlpPolicy", env, n_steps=64).learn(10_000)

Needs the ``train`` extra (stable-baselines3). The episodes reset themselves (SB3's convention,
Gymnasium's ``SAME_STEP``): a game that ends reports ``done`` with its final observation in
``infos[i]["terminal_observation"]`` and ``infos[i]["TimeLimit.truncated"]``, and the returned
observation is the new episode's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from cardzoo.extras import missing_extra

try:
    from stable_baselines3.common.vec_env import VecEnv
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices
except ImportError as error:
    raise missing_extra("train", "cardzoo.vector.sb3", error.name) from None

from cardzoo.errors import InputError
from cardzoo.vector.gymnasium_env import VectorEnv

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """``num_envs`` games of ``game`` as an SB3 ``VecEnv``; keyword arguments are those of
    :class:`~cardzoo.vector.VectorEnv` (``opponents``, ``learner_seat``, ``max_cycles``,
    ``compiled`` and the game's parameters). ``env`` is the :class:`VectorEnv` inside.

    ``seed(s)`` (as SB3's algorithms call it) seeds game i with ``s + i`` at the next reset.
    ``env_method("action_masks")`` gives each game's legal actions (what ``MaskablePPO``
    asks); other methods and attributes are the inner :class:`VectorEnv`'s, the same value for
    every index, and ``set_attr`` sets one for every game (it refuses ``indices`` that leave a
    game out)."""

    def __init__(self, game: str, num_envs: int, **kwargs: Any):
        if "autoreset_mode" in kwargs:
            raise InputError(
                "autoreset_mode: SB3VecEnv resets each game in the step that ends it, as SB3 "
                "expects (the last observation in infos['terminal_observation']); it takes no "
                "other mode"
            )
        self.env = VectorEnv(game, num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        self._actions: np.ndarray | None = None
        super().__init__(
            self.env.num_envs, self.env.single_observation_space, self.env.single_action_space
        )

    def reset(self) -> np.ndarray:
        seeds = self._seeds if any(seed is not None for seed in self._seeds) else None
        # set_options gives one dict per game; the vector form takes one for all (it refuses the
        # game's own options, such as a fixed deck, and warns of unknown ones)
        options = next((given for given in self._options if given), None)
        observations, infos = self.env.reset(seed=seeds, options=options)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [
            {"action_mask": mask, "seat": int(seat)}
            for mask, seat in zip(infos["action_mask"], infos["seat"])
        ]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async(actions) first")
        observations, rewards, terminated, truncated, infos = self.env.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        step_infos: list[dict] = [{} for _ in range(self.num_envs)]
        for index in np.flatnonzero(dones).tolist():
            step_infos[index] = {
                "terminal_observation": infos["final_obs"][index],
                "TimeLimit.truncated": bool(truncated[index] and not terminated[index]),
            }
        return observations, rewards.astype(np.float32), dones, step_infos

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        chosen = list(self._get_indices(indices))
        if sorted(chosen) != list(range(self.num_envs)):
            raise InputError(
                f"set_attr({attr_name!r}): the games of an SB3VecEnv share one VectorEnv and "
                f"its attributes; set them for every game (indices=None), not {indices!r}"
            )
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs
    ) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[index] for index in chosen]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> list[np.ndarray | None]:
        raise NotImplementedError(
            "the vector forms do not render; for pictures use the single environments "
            "(gymnasium.make(id, render_mode='rgb_array'), or SB3's make_vec_env)"
        )

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions, ``(num_envs, num_actions)`` bool."""
        return self.env.action_masks()
