"""The network RLlib trains for cardzoo: a masked actor-critic ``RLModule`` (new API stack).

Every cardzoo observation is a dict ``{"observation": vector, "action_mask": 0/1 per action}``.
:class:`MaskedActorCritic` reads both: the policy network sees the observation vector, and the
logits of illegal actions are pushed to the lowest float before RLlib builds the action
distribution, so an illegal action has probability exactly 0 — when sampling during training,
greedily at evaluation, and in the PPO loss. The value network sees the same vector.

Observations are scaled inside the module, from the observation space's bounds: a field with a
finite upper bound is divided by it; an unbounded field (Minus Two's totals) is squashed with
``sign(x) * log1p(|x|)``. The scaling therefore travels with the checkpoint, and a loaded policy
acts on the raw observations the environments give.

Decision: policy and value have separate networks (no shared trunk), each ``hidden`` sizes with
tanh, as in SB3's default ``MlpPolicy``; ``model_config={"hidden": [128, 128]}`` by default —
small enough that the forward pass on the env runners stays cheap on a laptop core.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from cardzoo.agents.policy import observation_scaling

DEFAULT_HIDDEN = (128, 128)

#: the logit of an illegal action (finite, so an all-illegal final observation gives no NaN)
ILLEGAL_LOGIT = torch.finfo(torch.float32).min


def _mlp(sizes: list[int]) -> torch.nn.Sequential:
    """Linear layers with tanh between them (none after the last)."""
    layers: list[torch.nn.Module] = []
    for index, (size_in, size_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(torch.nn.Linear(size_in, size_out))
        if index < len(sizes) - 2:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Actor-critic over a cardzoo observation dict; illegal actions get probability 0.

    On the env runners RLlib builds it ``inference_only``: without the value network."""

    def setup(self) -> None:
        vector_space = self.observation_space["observation"]
        hidden = list(self.model_config.get("hidden", DEFAULT_HIDDEN))
        size_in = int(np.prod(vector_space.shape))
        scale, unbounded = observation_scaling(vector_space.high)
        # Buffers, not weights: rebuilt from the observation space, never trained or saved.
        self.register_buffer("obs_scale", torch.from_numpy(scale), persistent=False)
        self.register_buffer("obs_unbounded", torch.from_numpy(unbounded), persistent=False)
        self.policy_net = _mlp([size_in, *hidden, int(self.action_space.n)])
        if not self.inference_only:
            self.value_net = _mlp([size_in, *hidden, 1])

    def scaled(self, observation: torch.Tensor) -> torch.Tensor:
        scaled = observation.float() * self.obs_scale
        squashed = torch.sign(scaled) * torch.log1p(torch.abs(scaled))
        return torch.where(self.obs_unbounded, squashed, scaled)

    def masked_logits(self, observation: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = self.policy_net(self.scaled(observation["observation"]))
        return logits.masked_fill(observation["action_mask"] == 0, ILLEGAL_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(batch[Columns.OBS])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        vector = self.scaled(batch[Columns.OBS]["observation"])
        return self.value_net(vector).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["value_net"]
