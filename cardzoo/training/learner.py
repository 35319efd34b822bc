"""The PPO learner, in CleanRL's style: a masked actor-critic and its clipped update.

The network is SB3's ``MlpPolicy`` for flat observations: separate policy and value MLPs with tanh
(or ReLU: ``activation``), orthogonal initialisation, gain √2 in the hidden layers, 0.01 for the
policy's output and 1 for the value's. The legal-action mask pushes illegal logits to the lowest
float, so an illegal action has probability 0 in the loss as in play. One update is ``n_epochs``
passes over a rollout in shuffled minibatches: the clipped surrogate objective on per-minibatch
normalised advantages, the squared error of the value against the GAE returns, an entropy bonus,
gradients clipped at ``max_grad_norm``; Adam. With ``action_numbers`` (a game whose actions write a
number) the policy ends in :class:`~cardzoo.agents.policy.OrdinalHead`: a bell over the numbers
added to the per-action logits. The policy and value networks copy out as numpy policies
(:meth:`Learner.numpy_policy`, :meth:`Learner.numpy_value`) for the samplers and the agents.
"""

from __future__ import annotations

import numpy as np
import torch

from cardzoo.agents.policy import NumpyPolicy, OrdinalHead

ILLEGAL_LOGIT = torch.finfo(torch.float32).min


#: the hidden layers' activations a learner may use (the numpy policy knows both)
ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def _mlp(sizes: list[int], output_gain: float, activation: str = "tanh") -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for index, (size_in, size_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        linear = torch.nn.Linear(size_in, size_out)
        last = index == len(sizes) - 2
        torch.nn.init.orthogonal_(linear.weight, gain=output_gain if last else np.sqrt(2))
        torch.nn.init.zeros_(linear.bias)
        layers.append(linear)
        if not last:
            layers.append(ACTIVATIONS[activation]())
    return torch.nn.Sequential(*layers)


class ActorCritic(torch.nn.Module):
    def __init__(
        self,
        input_size: int,
        num_actions: int,
        hidden: tuple[int, ...],
        head: OrdinalHead | None = None,
        activation: str = "tanh",
    ):
        super().__init__()
        outputs = head.outputs if head else num_actions
        self.policy = _mlp([input_size, *hidden, outputs], 0.01, activation)
        self.value = _mlp([input_size, *hidden, 1], 1.0, activation)
        self.head = head
        if head is not None:
            self.register_buffer("numbers", torch.from_numpy(head.numbers))
            self.register_buffer("kinds", torch.from_numpy(head.kinds))

    def logits(self, inputs: torch.Tensor) -> torch.Tensor:
        """The per-action logits; with an ordinal head the formula numpy plays with."""
        outputs = self.policy(inputs)
        if self.head is None:
            return outputs
        return self.head.logits(
            outputs,
            self.numbers,
            self.kinds,
            exp=torch.exp,
            sigmoid=torch.sigmoid,
            at_most=lambda x, high: torch.clamp(x, max=high),
        )

    def masked_logits(self, inputs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        return self.logits(inputs).masked_fill(~masks, ILLEGAL_LOGIT)


class Learner:
    """The actor-critic, its optimiser and the PPO update. Deterministic for a given seed (one
    torch thread, a generator of its own for the minibatches)."""

    def __init__(
        self,
        input_size: int,
        num_actions: int,
        hidden: tuple[int, ...],
        learning_rate: float,
        seed: int,
        head: OrdinalHead | None = None,
        activation: str = "tanh",
    ):
        torch.manual_seed(seed)
        self.network = ActorCritic(input_size, num_actions, hidden, head, activation)
        # fused: one kernel for all parameters, ~10% faster on these small networks on a CPU
        self.optimizer = torch.optim.Adam(
            self.network.parameters(), lr=learning_rate, eps=1e-5, fused=True
        )
        self.generator = torch.Generator().manual_seed(seed)

    def set_learning_rate(self, learning_rate: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def update(
        self,
        rollout,
        n_epochs: int,
        batch_size: int,
        clip_range: float = 0.2,
        ent_coef: float = 0.0,
        vf_coef: float = 0.5,
        max_grad_norm: float = 0.5,
    ) -> dict[str, float]:
        """``n_epochs`` passes of minibatches over ``rollout``; the mean losses of the last."""
        inputs = torch.from_numpy(rollout.inputs)
        masks = torch.from_numpy(rollout.masks)
        actions = torch.from_numpy(rollout.actions)
        old_logprobs = torch.from_numpy(rollout.logprobs)
        advantages = torch.from_numpy(rollout.advantages)
        returns = torch.from_numpy(rollout.returns)
        size = len(actions)
        stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": []}
        for _ in range(n_epochs):
            stats = {key: [] for key in stats}
            order = torch.randperm(size, generator=self.generator)
            for start in range(0, size, batch_size):
                batch = order[start : start + batch_size]
                logits = self.network.masked_logits(inputs[batch], masks[batch])
                log_probabilities = torch.log_softmax(logits, dim=1)
                logprobs = log_probabilities.gather(1, actions[batch, None])[:, 0]
                probabilities = log_probabilities.exp()
                entropy = -(probabilities * log_probabilities).sum(dim=1).mean()
                advantage = advantages[batch]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                ratio = torch.exp(logprobs - old_logprobs[batch])
                policy_loss = torch.max(
                    -advantage * ratio,
                    -advantage * torch.clamp(ratio, 1 - clip_range, 1 + clip_range),
                ).mean()
                value_loss = (
                    (self.network.value(inputs[batch])[:, 0] - returns[batch]) ** 2
                ).mean()
                loss = policy_loss + vf_coef * value_loss - ent_coef * entropy
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.network.parameters(), max_grad_norm)
                self.optimizer.step()
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
                stats["entropy"].append(entropy.item())
        return {key: float(np.mean(values)) for key, values in stats.items()}

    def numpy_policy(self) -> NumpyPolicy:
        return NumpyPolicy.from_torch(self.network.policy, self.network.head)

    def numpy_value(self) -> NumpyPolicy:
        return NumpyPolicy.from_torch(self.network.value)

    def state(self) -> dict:
        """Everything a resumed run needs: weights, optimiser, the minibatch generator."""
        return {
            "network": self.network.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "generator": self.generator.get_state(),
        }

    def load_state(self, state: dict) -> None:
        self.network.load_state_dict(state["network"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])
