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

With ``memory`` "gru" or "lstm" a recurrent core (one ``torch.nn.GRU``/``torch.nn.LSTM`` layer of
``memory_size``, CleanRL's initialisation: orthogonal weights, zero biases) reads the inputs
first, and both MLPs read its output. **Decision (one core for the actor and the critic):**
as CleanRL's LSTM PPO and RLlib's LSTM wrapper do, not two as sb3-contrib's default: the
sequential core is the update's largest cost, and the value's gradient teaches the core what is
worth remembering too. The update then works on sequences: each game slot's
decisions of the rollout (``n_steps`` of them: backpropagation through time truncated at the
rollout's edges), started from the hidden state the sampler stored for it, reset to zeros after
every episode's end; a minibatch is ``batch_size // n_steps`` whole sequences (at least one)
(:class:`Sequences`). Cut at the episodes' ends, a minibatch's segments are independent of one
another and run side by side, so the core takes as many steps as its longest segment (Foxy: 20,
not 64). The torch modules hold the core's weights; its steps run forward and back through time
in numpy (:class:`Recurrence`, stepping with the agents' own
:func:`~cardzoo.agents.policy.core_step`): on these small shapes each torch operation's fixed
cost dominates, and numpy ran the GRU's steps 2-3x faster than ``torch.nn.GRU``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo.extras import missing_extra

try:
    import torch
except ImportError as error:
    raise missing_extra("train", "cardzoo.training", error.name) from None

from cardzoo.agents.policy import NumpyPolicy, OrdinalHead, core_step
from cardzoo.training.config import MEMORY_SIZE

ILLEGAL_LOGIT = torch.finfo(torch.float32).min


#: the hidden layers' activations a learner may use (the numpy policy knows both)
ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
#: the recurrent cores a learner may have (the numpy policy plays both: RecurrentCore)
CORES = {"gru": torch.nn.GRU, "lstm": torch.nn.LSTM}
#: the core's hidden size unless a run sets it (the setting's default): the update's cost grows
#: with its square; a GRU of 64 trained at 0.44-0.69 of the feed-forward speed, one of 128 at
#: 0.25-0.50 (benchmarks/training_speed.md, "Memory")
DEFAULT_MEMORY_SIZE: int = MEMORY_SIZE.default


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


def _core(memory: str, input_size: int, memory_size: int) -> torch.nn.Module:
    """A one-layer GRU or LSTM, initialised as CleanRL's LSTM PPO does."""
    core = CORES[memory](input_size, memory_size)
    for name, parameter in core.named_parameters():
        if name.startswith("bias"):
            torch.nn.init.zeros_(parameter)
        else:
            torch.nn.init.orthogonal_(parameter, 1.0)
    return core


class ActorCritic(torch.nn.Module):
    def __init__(
        self,
        input_size: int,
        num_actions: int,
        hidden: tuple[int, ...],
        head: OrdinalHead | None = None,
        activation: str = "tanh",
        memory: str = "none",
        memory_size: int = DEFAULT_MEMORY_SIZE,
    ):
        super().__init__()
        outputs = head.outputs if head else num_actions
        #: the MLPs' inputs: the observations, or the recurrent core's outputs
        features = input_size if memory == "none" else memory_size
        self.policy = _mlp([features, *hidden, outputs], 0.01, activation)
        self.value = _mlp([features, *hidden, 1], 1.0, activation)
        self.core = None if memory == "none" else _core(memory, input_size, memory_size)
        self.memory = memory
        self.head = head
        if head is not None:
            with torch.no_grad():  # a start the head's formula chooses (OrdinalHead.initial_bias)
                self.policy[-1].bias.copy_(torch.from_numpy(head.initial_bias()))
            self.register_buffer("numbers", torch.from_numpy(head.numbers))
            self.register_buffer("kinds", torch.from_numpy(head.kinds))

    def replay(self, inputs: torch.Tensor, hidden: torch.Tensor, plan: Plan) -> torch.Tensor:
        """The core's outputs for the samples of ``plan`` (a minibatch of whole sequences), run
        over each episode segment from its starting hidden state: one run for all the segments,
        padded to the longest (the padding comes after a segment's steps and changes none of
        them)."""
        starts = torch.from_numpy(plan.first_of[:, None] >= 0)
        stored = hidden[torch.from_numpy(np.maximum(plan.first_of, 0))]
        start = torch.where(starts, stored, torch.zeros(()))  # zeros after an episode's end
        core = self.core
        steps = inputs[torch.from_numpy(plan.padded)]
        projected = torch.nn.functional.linear(steps, core.weight_ih_l0, core.bias_ih_l0)
        outputs = Recurrence.apply(
            projected, start, core.weight_hh_l0, core.bias_hh_l0, self.memory
        )
        return outputs.reshape(-1, outputs.shape[-1])[torch.from_numpy(plan.gather)]

    def logits(self, inputs: torch.Tensor) -> torch.Tensor:
        """The per-action logits of the MLP's inputs (the observations, or the core's outputs);
        with an ordinal head the formula numpy plays with."""
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


def _entropy(log_probabilities: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """The mean entropy of the rows' distributions, over their ``legal`` actions: the same value
    and gradients as over all of them (an illegal action's probability is 0), bit for bit.
    **Decision:** torch's exp takes a slow path where its result underflows, as it does at every
    illegal action's log-probability (near the lowest float): on Minus Two's 293 actions that
    path was a fifth of the update's time. The illegal entries are taken as log-probability 0
    here, which adds 1 x 0 to each row's sum where it added 0 x (the lowest float)."""
    legal_log_probabilities = torch.where(legal, log_probabilities, 0.0)
    return -(legal_log_probabilities.exp() * legal_log_probabilities).sum(dim=1).mean()


class Recurrence(torch.autograd.Function):
    """A GRU or an LSTM over side-by-side sequences (a minibatch's episode segments), forward and
    back through time in numpy.

    ``projected`` [steps, rows, gates] are the inputs' projections (``x @ weight_ih.T +
    bias_ih``, in torch: autograd carries their gradient on to ``weight_ih`` and ``bias_ih``),
    ``start`` the rows' hidden states before their first step. Returns the outputs h [steps,
    rows, size]; the gradients reach ``projected``, ``weight_hh`` and ``bias_hh`` (the starting
    states are the sampler's data, not parameters)."""

    @staticmethod
    def forward(ctx, projected, start, weight_hh, bias_hh, kind):
        inputs, hidden = projected.detach().numpy(), start.numpy()
        weights = weight_hh.detach().numpy()
        transposed, bias = np.ascontiguousarray(weights.T), bias_hh.detach().numpy()
        outputs = np.empty((*inputs.shape[:2], weights.shape[1]), np.float32)
        previous, gates = [], []
        for step in range(len(inputs)):
            previous.append(hidden)
            outputs[step], hidden, step_gates = core_step(
                kind, inputs[step], hidden, transposed, bias
            )
            gates.append(step_gates)
        ctx.kind, ctx.weights = kind, weights
        ctx.previous = np.stack(previous)
        # the local derivatives of every step at once, so that the backward loop, which has to
        # go one step at a time, does only what depends on the step after it
        if kind == "gru":
            reset, update, new, candidate = (np.stack(gate) for gate in zip(*gates))
            ctx.factors = (
                (1.0 - update) * (1.0 - new * new),  # d h / d new's pre-activation
                candidate * reset * (1.0 - reset),  # d new's pre-activation / d reset's, per new
                (ctx.previous - new) * update * (1.0 - update),  # d h / d update's
                update,  # d h / d previous h
                reset,  # d new's pre-activation / d the candidate's hidden part
            )
        else:
            into, forget, written, shown, squashed = (np.stack(gate) for gate in zip(*gates))
            size = weights.shape[1]
            ctx.factors = (
                shown * (1.0 - squashed * squashed),  # d h / d cell
                np.concatenate(  # d cell / d the input, forget and write gates' pre-activations
                    [
                        written * into * (1.0 - into),
                        ctx.previous[..., size:] * forget * (1.0 - forget),
                        into * (1.0 - written * written),
                    ],
                    axis=2,
                ),
                squashed * shown * (1.0 - shown),  # d h / d the output gate's pre-activation
                forget,  # d cell / d previous cell
            )
        return torch.from_numpy(outputs)

    @staticmethod
    def backward(ctx, grad_outputs):
        upstream = grad_outputs.numpy()
        weights, factors = ctx.weights, ctx.factors
        size = weights.shape[1]
        steps, rows = upstream.shape[:2]
        grad_gates = np.empty((steps, rows, weights.shape[0]), np.float32)
        carried = np.zeros((rows, size), np.float32)  # the gradient of the next step's h
        if ctx.kind == "gru":
            by_new, by_reset, by_update, by_previous, reset = factors
            # the candidate's hidden part: the reset gate scales its gradient
            grad_candidate = np.empty((steps, rows, size), np.float32)
            for step in reversed(range(steps)):
                grad_h = upstream[step] + carried
                grad_new = grad_h * by_new[step]
                gradient = grad_gates[step]
                gradient[:, :size] = grad_new * by_reset[step]
                gradient[:, size : 2 * size] = grad_h * by_update[step]
                gradient[:, 2 * size :] = grad_new
                grad_candidate[step] = grad_new * reset[step]
                carried = grad_h * by_previous[step] + gradient[:, : 2 * size] @ weights[: 2 * size]
                carried += grad_candidate[step] @ weights[2 * size :]
            grad_recurrent = np.concatenate([grad_gates[..., : 2 * size], grad_candidate], axis=2)
        else:
            by_cell, by_gates, by_shown, forget = factors
            carried_cell = np.zeros((rows, size), np.float32)
            for step in reversed(range(steps)):
                grad_h = upstream[step] + carried
                grad_cell = carried_cell + grad_h * by_cell[step]
                gradient = grad_gates[step]
                three = gradient[:, : 3 * size].reshape(rows, 3, size)
                np.multiply(grad_cell[:, None, :], by_gates[step].reshape(rows, 3, size), out=three)
                gradient[:, 3 * size :] = grad_h * by_shown[step]
                carried = gradient @ weights
                carried_cell = grad_cell * forget[step]
            grad_recurrent = grad_gates  # the LSTM's hidden products enter its gates unscaled
        flat = grad_recurrent.reshape(-1, weights.shape[0])
        grad_weights = flat.T @ ctx.previous[..., :size].reshape(-1, size)
        return (
            torch.from_numpy(grad_gates),
            None,
            torch.from_numpy(grad_weights),
            torch.from_numpy(flat.sum(axis=0)),
            None,
        )


@dataclasses.dataclass
class Plan:
    """A minibatch of whole sequences, as :meth:`ActorCritic.replay` runs it: ``samples`` the
    rollout's samples in minibatch order; per episode segment (the columns) ``padded`` its
    samples [longest segment, segments] (a short one repeats its last), ``first_of`` the
    sequence whose stored hidden state it starts from (-1: it starts a new episode, from
    zeros); ``gather`` where each of ``samples`` lies in the padded output."""

    samples: np.ndarray
    padded: np.ndarray
    first_of: np.ndarray
    gather: np.ndarray


class Sequences:
    """A recurrent learner's rollout: ``num_sequences`` sequences of equal length, one after the
    other (the sampler lays each game slot's decisions out as one), cut after every episode's
    end (``dones``) into segments."""

    def __init__(self, dones: np.ndarray, num_sequences: int):
        self.count = num_sequences
        self.length = len(dones) // num_sequences
        starts = np.zeros((num_sequences, self.length), bool)
        starts[:, 0] = True
        starts[:, 1:] = dones.reshape(num_sequences, self.length)[:, :-1]
        self.starts = starts.reshape(-1)
        #: per sample: its segment, and its step within it
        self.segment = np.cumsum(self.starts) - 1
        self.segment_start = np.flatnonzero(self.starts)
        self.step = np.arange(len(dones)) - self.segment_start[self.segment]
        self.segment_length = np.diff(np.append(self.segment_start, len(dones)))

    def plan(self, sequences: np.ndarray) -> Plan:
        """The minibatch of these sequences (indices), in this order."""
        samples = (sequences[:, None] * self.length + np.arange(self.length)).reshape(-1)
        segments = self.segment[samples[self.starts[samples]]]
        column = np.cumsum(self.starts[samples]) - 1  # each sample's segment in the minibatch
        starts, lengths = self.segment_start[segments], self.segment_length[segments]
        steps = np.arange(lengths.max())[:, None]
        padded = starts + np.minimum(steps, lengths - 1)
        first_of = np.where(starts % self.length == 0, starts // self.length, -1)
        gather = self.step[samples] * len(segments) + column
        return Plan(samples, padded, first_of, gather)


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
        memory: str = "none",
        memory_size: int = DEFAULT_MEMORY_SIZE,
    ):
        torch.manual_seed(seed)
        self.network = ActorCritic(
            input_size, num_actions, hidden, head, activation, memory, memory_size
        )
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
        *,
        clip_range: float,
        ent_coef: float,
        vf_coef: float,
        max_grad_norm: float,
    ) -> dict[str, float]:
        """``n_epochs`` passes of minibatches over ``rollout``; the mean losses of the last. With a
        recurrent core the minibatches are whole sequences (module docstring)."""
        inputs = torch.from_numpy(rollout.inputs)
        masks = torch.from_numpy(rollout.masks)
        actions = torch.from_numpy(rollout.actions)
        old_logprobs = torch.from_numpy(rollout.logprobs)
        advantages = torch.from_numpy(rollout.advantages)
        returns = torch.from_numpy(rollout.returns)
        sequences = hidden = None
        if self.network.core is not None:
            sequences = Sequences(rollout.dones, len(rollout.hidden))
            hidden = torch.from_numpy(rollout.hidden)
        stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": []}
        for _ in range(n_epochs):
            stats = {key: [] for key in stats}
            for batch, plan in self._minibatches(len(actions), batch_size, sequences):
                features = (
                    inputs[batch] if plan is None else self.network.replay(inputs, hidden, plan)
                )
                legal = masks[batch]
                logits = self.network.masked_logits(features, legal)
                log_probabilities = torch.log_softmax(logits, dim=1)
                logprobs = log_probabilities.gather(1, actions[batch, None])[:, 0]
                entropy = _entropy(log_probabilities, legal)
                advantage = advantages[batch]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                ratio = torch.exp(logprobs - old_logprobs[batch])
                policy_loss = torch.max(
                    -advantage * ratio,
                    -advantage * torch.clamp(ratio, 1 - clip_range, 1 + clip_range),
                ).mean()
                value_loss = ((self.network.value(features)[:, 0] - returns[batch]) ** 2).mean()
                loss = policy_loss + vf_coef * value_loss - ent_coef * entropy
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.network.parameters(), max_grad_norm)
                self.optimizer.step()
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
                stats["entropy"].append(entropy.item())
        return {key: float(np.mean(values)) for key, values in stats.items()}

    def _minibatches(self, size: int, batch_size: int, sequences: Sequences | None):
        """One epoch's minibatches in a random order: (samples, None) of ``batch_size`` samples,
        or with ``sequences`` (samples, :class:`Plan`) of whole sequences."""
        if sequences is None:
            order = torch.randperm(size, generator=self.generator)
            for start in range(0, size, batch_size):
                yield order[start : start + batch_size], None
            return
        per_batch = max(1, batch_size // sequences.length)
        order = torch.randperm(sequences.count, generator=self.generator).numpy()
        for start in range(0, sequences.count, per_batch):
            plan = sequences.plan(order[start : start + per_batch])
            yield torch.from_numpy(plan.samples), plan

    def restart_rows(self, rows: list[tuple[int, int, float]]) -> None:
        """Copy rows of the policy's last layer onto others, (row, source, added to the bias),
        their optimiser moments cleared: what ``hold_special`` does when the learner may first
        choose the special kinds of action (:func:`~cardzoo.agents.policy.restarted_rows`)."""
        last = self.network.policy[-1]
        moments = [self.optimizer.state.get(weights, {}) for weights in (last.weight, last.bias)]
        with torch.no_grad():
            for row, source, added in rows:
                last.weight[row] = last.weight[source]
                last.bias[row] = last.bias[source] + added
                for state in moments:
                    for name in ("exp_avg", "exp_avg_sq"):
                        if name in state:
                            state[name][row] = 0.0

    def numpy_policy(self) -> NumpyPolicy:
        """The policy (with its core, if any) as the samplers and the agents play it."""
        return NumpyPolicy.from_torch(self.network.policy, self.network.head, self.network.core)

    def numpy_value(self) -> NumpyPolicy:
        """The value network: of the observations, or of the policy's core's outputs."""
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
