"""A trained policy as a cardzoo agent, acting on a cheap numpy forward pass.

Both training back ends (cardzoo's own PPO and Ray RLlib) learn MLP policies over the same
scaled observations, and both save the policy as a small numpy file, ``policy.npz``
(:func:`save_policy`): the weights, the activations and a record of the game it was trained on.
``cardzoo train --memory gru|lstm`` puts a recurrent core before the MLP (:class:`RecurrentCore`);
the file records it, and the agent keeps the core's hidden state, one per seat and game.
Playing a policy needs nothing but numpy: :class:`NumpyPolicy` is a few small matrix products,
about ten times cheaper than a torch call for one observation, which matters when frozen
policies fill three seats of every training game (self-play) or play thousands of evaluation
games.

>>> from cardzoo.agents import make_agent
>>> agent = make_agent("nobody_wants_it", "ppo:runs/nwi", game, seed=0)     # a run folder
>>> agent = make_agent("nobody_wants_it", "rllib:runs/nwi-rllib", game)     # an RLlib run

Observations are scaled to a fixed range before the network sees them (:func:`observation_scaling`):
each field is divided by its finite upper bound; fields without one (Minus Two's totals) are
squashed with ``sign(x) * log1p(|x|)``. The scaling depends only on the game, so a saved policy
and its scaler always agree.

May import: numpy, :mod:`cardzoo.envs`, :mod:`cardzoo.agents.base`; torch and
stable-baselines3 only inside :func:`load_sb3_policy`, for model files of older runs.
"""

from __future__ import annotations

__all__ = ["NumpyPolicy", "OrdinalHead", "PolicyAgent", "read_policy", "save_policy"]

import functools
import io
import json
import os
import warnings
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.core import Game
from cardzoo.envs.registry import load_game
from cardzoo.errors import InputError, SettingError

#: what a saved model records about the game it was trained on (``model.cardzoo`` in SB3's zip)
MODEL_INFO_KEY = "cardzoo"
#: the numpy policy file of a run folder (and of each RLlib checkpoint's ``policies/``)
POLICY_FILE = "policy.npz"
POLICY_FORMAT = 2
#: the format of a file whose policy has a recurrent core (a feed-forward policy is still written
#: as format 2, which older cardzoo versions read; they refuse a core they would not play)
RECURRENT_POLICY_FORMAT = 3
#: the format of a file whose policy's inputs hold counts (``count_fields``, PolicyInput) or
#: whose ordinal head shares one sharpness: versions before them would refuse the head or feed
#: the policy wrong inputs
COUNTING_POLICY_FORMAT = 4
#: the format of a file whose policy plays positions blind (``positions``, :class:`PolicyAgent`):
#: versions before it would play its positions by habit, not as the file says
BLIND_POLICY_FORMAT = 5
#: the formats :func:`read_policy` reads (1: no policy head of its own; 3: a recurrent core;
#: 4: counted inputs or a shared-sharpness head, with or without a core; 5: blind positions)
POLICY_FORMATS = (1, 2, 3, 4, 5)

#: the activations a layer may have, by torch's module name, each applied in place to the
#: layer's own new array (None: nothing to apply): no new array per layer, as training's
#: opponents decide in forward passes of one to a few rows, where allocating is much of the cost
_ACTIVATIONS: dict[str, Callable[[np.ndarray], object] | None] = {
    "Tanh": lambda x: np.tanh(x, out=x),
    "ReLU": lambda x: np.maximum(x, 0.0, out=x),
    "Identity": None,
}


def observation_scaling(high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per field of an observation whose upper bounds are ``high``: the factor that maps it into
    [0, 1] (1 where unbounded) and whether it is unbounded (then log-squashed after scaling).
    Both training back ends scale with it."""
    high = np.asarray(high, dtype=np.float64)
    bounded = np.isfinite(high) & (high > 0)
    scale = np.where(bounded, 1.0 / np.where(bounded, high, 1.0), 1.0)
    return scale.astype(np.float32), ~np.isfinite(high)


class ObservationScaler:
    """Maps a game's raw observation vector into roughly [-1, 1] (bounded fields) or a log scale
    (unbounded fields). Pure function of the game's observation bounds."""

    def __init__(self, game: Game):
        self.scale, self.unbounded = observation_scaling(game.observation_bounds()[1])
        self._squashes = bool(self.unbounded.any())

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        scaled = observation * self.scale
        if self._squashes:
            raw = scaled[..., self.unbounded]
            scaled[..., self.unbounded] = np.sign(raw) * np.log1p(np.abs(raw))
        return scaled.astype(np.float32, copy=False)


class PolicyInput:
    """What the network sees: the scaled observation, after the seat's ``frame_stack`` - 1
    previous ones in the same game (oldest first, zeros before the first). With
    ``stack_fields`` (names of the game's observation fields) only those fields of the previous
    observations are kept — Foxy's ``("card",)``: the cards seen, not twenty copies of the
    sheet. With ``count_fields`` the network also sees, after the observation, each of those
    fields summed over the seat's observations of the game so far (this one included), then that
    sum times the field's value now: a count of everything seen, and of what is shown now, exact
    at any length of game (a DeepSets-style sum over the cards seen; Foxy's ``("card",)``: how
    many of each species have appeared, and of the species on this card). The training
    environment and :class:`PolicyAgent` both use it, so a policy plays on exactly the inputs it
    was trained on."""

    def __init__(
        self,
        game: Game,
        frame_stack: int = 1,
        stack_fields: tuple[str, ...] = (),
        count_fields: tuple[str, ...] = (),
    ):
        self.scaler = ObservationScaler(game)
        self.frame_stack = frame_stack
        self.stack_fields = tuple(stack_fields)
        self.count_fields = tuple(count_fields)
        whole = np.arange(game.observation_size)
        #: the positions of an observation kept from each earlier frame
        self.kept = _positions(game, "stack_fields", self.stack_fields) if stack_fields else whole
        #: the positions of an observation summed over the game
        self.counted = _positions(game, "count_fields", self.count_fields)
        self.size = (
            self.kept.size * (frame_stack - 1) + game.observation_size + 2 * self.counted.size
        )
        self._frames = np.zeros(self.size, np.float32)
        self._previous = np.zeros(self.kept.size, np.float32)
        #: whether the inputs are the observation alone (nothing carried from earlier ones)
        self.stateless = stateless_inputs(frame_stack, self.count_fields)

    def reset(self) -> None:
        """A new game: nothing seen yet."""
        self._frames[:] = 0.0
        self._previous[:] = 0.0

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        """Add this observation; the input vector (a view, valid until the next call)."""
        scaled = self.scaler(np.asarray(observation, dtype=np.float32))
        size, counted = scaled.shape[0], self.counted.size
        end = self.size - 2 * counted  # the observation ends here, the counts follow
        if self.frame_stack > 1:
            kept, past = self.kept.size, end - size
            self._frames[: past - kept] = self._frames[kept:past]
            self._frames[past - kept : past] = self._previous
            np.take(scaled, self.kept, out=self._previous)  # no new array per decision
        self._frames[end - size : end] = scaled
        if counted:
            now = scaled[self.counted]
            sums = self._frames[end : end + counted]
            sums += now
            np.multiply(sums, now, out=self._frames[end + counted :])
        return self._frames


def _positions(game: Game, setting: str, fields: tuple[str, ...]) -> np.ndarray:
    """The positions in ``game``'s observations of the named fields, in order; an unknown name
    is refused, naming ``setting``."""
    layout = game.observation_layout
    unknown = sorted(set(fields) - set(layout))
    if unknown:
        raise SettingError(
            setting,
            f"{game.name} has no observation field {unknown}; its fields are {', '.join(layout)}",
        )
    whole = np.arange(game.observation_size)
    return np.concatenate([whole[layout[name]] for name in fields]) if fields else whole[:0]


class OrdinalHead:
    """A policy head for actions that write a number (Foxy; see ``Game.action_numbers``): a
    Gaussian policy over the numbers, as continuous-control PPO has, discretised and masked.

    The network's last layer gives a centre ``m`` and, per kind of action (plain, circled), a
    preference ``b`` and a sharpness ``k``; an action that writes n, of kind c, gets the logit

        b_c - exp(k_c + KAPPA_OFFSET) * (n - mu) ** 2,   mu = largest n * sigmoid(m),

    a bell over the numbers around mu. With one logit per action a policy learns each number
    apart and rarely tries the large ones; here moving mu moves them all, so "write more" is
    learned once. An untrained head is a broad bell over the small numbers
    (:data:`INITIAL_CENTRE`).

    With ``shared_sharpness`` one sharpness ``k`` serves every kind: how sure the policy is of
    its number is then the same whether or not it circles, and a kind chosen rarely (Foxy's
    circle) is as exact as the plain numbers that train ``k`` on every card.
    """

    KAPPA_OFFSET = -5.0
    KAPPA_MAX = 20.0  # exp stays finite in float32
    #: where the preference of every kind after the first (0, plain) starts: an action of a
    #: special kind (Foxy's circle, once a game of 20 cards) starts about 1/20 as likely as a
    #: plain one, so that an untrained policy does not spend it on the first card it sees
    SPECIAL_KIND_PREFERENCE = -3.0
    #: the number an untrained bell is centred on: a small one, because a number written
    #: below the answer scores itself and one above scores nothing (Foxy). A bell that starts
    #: below the answers climbs to them, every number nearer scoring more; one that starts above
    #: them (the middle of 0..40) can grow sharp there, where every number it tries scores 0 and
    #: nothing tells it to come down: it did so on Foxy's first card, writing about 7 for 1 or 2
    INITIAL_CENTRE = 2.0

    def __init__(self, numbers: np.ndarray, kinds: np.ndarray, shared_sharpness: bool = False):
        self.shared_sharpness = bool(shared_sharpness)
        self.numbers = np.asarray(numbers, np.float32)
        self.kinds = np.asarray(kinds, np.int64)
        if self.numbers.ndim != 1 or self.kinds.shape != self.numbers.shape:
            raise ValueError("ordinal head: one number and one kind per action")
        if len(self.numbers) == 0 or self.kinds.min() < 0:
            raise ValueError("ordinal head: kinds are integers >= 0, at least one action")
        self.num_actions = len(self.numbers)
        self.num_kinds = int(self.kinds.max()) + 1
        #: the network's outputs: the centre, then each kind's preference, then each kind's
        #: sharpness (or the one they share)
        self.outputs = 1 + self.num_kinds + (1 if self.shared_sharpness else self.num_kinds)
        self.top = float(self.numbers.max()) or 1.0

    def initial_bias(self) -> np.ndarray:
        """The last layer's bias before training: a broad bell on :data:`INITIAL_CENTRE`, the
        special kinds unlikely (:data:`SPECIAL_KIND_PREFERENCE`)."""
        bias = np.zeros(self.outputs, np.float32)
        centre = min(self.INITIAL_CENTRE, self.top / 2)  # mu = top * sigmoid(bias[0])
        bias[0] = np.log(centre / (self.top - centre))
        bias[2 : 1 + self.num_kinds] = self.SPECIAL_KIND_PREFERENCE
        return bias

    def restarted_rows(self) -> list[tuple[int, int, float]]:
        """How to start the special kinds again beside a trained plain kind (see
        :func:`restarted_rows`): each special kind's preference becomes the plain one's plus
        :data:`SPECIAL_KIND_PREFERENCE`, its sharpness the plain one's (its numbers as exact)."""
        rows = []
        for kind in range(1, self.num_kinds):
            rows.append((1 + kind, 1, self.SPECIAL_KIND_PREFERENCE))
            if not self.shared_sharpness:
                rows.append((1 + self.num_kinds + kind, 1 + self.num_kinds, 0.0))
        return rows

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        """The per-action logits from the last layer's outputs."""
        return self.logits(
            outputs,
            self.numbers,
            self.kinds,
            exp=np.exp,
            sigmoid=lambda x: 1.0 / (1.0 + np.exp(-x)),
            at_most=np.minimum,
        )

    def logits(
        self,
        outputs: Any,
        numbers: Any,
        kinds: np.ndarray,
        exp: Callable[[Any], Any],
        sigmoid: Callable[[Any], Any],
        at_most: Callable[[Any, float], Any],
    ) -> Any:
        """The bell, in the array library whose functions are given (numpy here, torch in the
        learner: ``outputs`` and ``numbers`` its arrays), so that play and training compute one
        formula: the logits, of shape ``outputs.shape[:-1] + (actions,)``."""
        kinds_count = self.num_kinds
        mu = self.top * sigmoid(outputs[..., :1])
        preference = outputs[..., 1 : 1 + kinds_count]
        kappa = at_most(outputs[..., 1 + kinds_count :] + self.KAPPA_OFFSET, self.KAPPA_MAX)
        sharpness = kappa if self.shared_sharpness else kappa[..., kinds]
        return preference[..., kinds] - exp(sharpness) * (numbers - mu) ** 2

    def state(self) -> dict[str, Any]:
        return {
            "numbers": self.numbers,
            "kinds": self.kinds,
            "shared_sharpness": self.shared_sharpness,
        }


def restarted_rows(
    numbers: np.ndarray, kinds: np.ndarray, head: OrdinalHead | None
) -> list[tuple[int, int, float]]:
    """How a policy's last layer starts its special kinds of action (``kinds`` > 0: Foxy's
    circled numbers) again beside its trained plain ones, as rows (output, the output whose
    weights it copies, what is added to the copied bias): so that each special action is 1/20 as
    likely as its plain twin (:data:`OrdinalHead.SPECIAL_KIND_PREFERENCE`) whatever the
    observation, and as exact. The ordinal head's outputs are per kind; a plain head's, one per
    action, copy the action that writes the same number plainly."""
    if head is not None:
        return head.restarted_rows()
    plain = {int(n): action for action, (n, kind) in enumerate(zip(numbers, kinds)) if kind == 0}
    return [
        (action, plain[int(n)], OrdinalHead.SPECIAL_KIND_PREFERENCE)
        for action, (n, kind) in enumerate(zip(numbers, kinds))
        if kind > 0
    ]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function, without overflow warnings for large negative inputs."""
    y = x * 0.5
    np.tanh(y, out=y)
    y *= 0.5
    y += 0.5
    return y


#: the recurrent cores a policy may have, and how many vectors of ``hidden_size`` their hidden
#: state holds: the GRU's h, the LSTM's h and c
CORE_STATES = {"gru": 1, "lstm": 2}


class RecurrentCore:
    """One GRU or LSTM layer in numpy, with PyTorch's equations and weight layout
    (``torch.nn.GRU``/``torch.nn.LSTM``: ``weight_ih`` [gates * hidden, inputs], gates in the
    order r, z, n for the GRU and i, f, g, o for the LSTM), so a core trained in torch plays the
    same here. Its hidden state is one float32 row per sequence: h (GRU), or h then c (LSTM),
    ``state_size`` numbers; a new game starts from zeros."""

    def __init__(
        self,
        kind: str,
        weight_ih: np.ndarray,
        weight_hh: np.ndarray,
        bias_ih: np.ndarray,
        bias_hh: np.ndarray,
    ):
        if kind not in CORE_STATES:
            raise ValueError(f"unknown recurrent core {kind!r}; choose one of {list(CORE_STATES)}")
        self.kind = kind
        self.weight_ih, self.weight_hh = weight_ih, weight_hh
        self.bias_ih, self.bias_hh = bias_ih, bias_hh
        self.hidden_size = int(weight_hh.shape[1])
        self.input_size = int(weight_ih.shape[1])
        gates = (3 if kind == "gru" else 4) * self.hidden_size
        if (
            weight_ih.shape[0] != gates
            or weight_hh.shape != (gates, self.hidden_size)
            or bias_ih.shape != (gates,)
            or bias_hh.shape != (gates,)
        ):
            raise ValueError(f"{kind} core: its weights do not fit one another")
        self.state_size = CORE_STATES[kind] * self.hidden_size
        # transposed once: a decision is then two plain matrix products
        self._input_weights = np.ascontiguousarray(weight_ih.T)
        self._hidden_weights = np.ascontiguousarray(weight_hh.T)

    @classmethod
    def from_torch(cls, module: Any) -> RecurrentCore:
        """Copy a one-layer ``torch.nn.GRU`` or ``torch.nn.LSTM``."""
        kind = type(module).__name__.lower()
        arrays = [
            getattr(module, f"{name}_l0").detach().cpu().numpy().astype(np.float32)
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        ]
        return cls(kind, *arrays)

    def state(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "weight_ih": self.weight_ih,
            "weight_hh": self.weight_hh,
            "bias_ih": self.bias_ih,
            "bias_hh": self.bias_hh,
        }

    def __call__(self, inputs: np.ndarray, hidden: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One step for a batch of sequences: ``inputs`` [rows, input_size] and their hidden
        states [rows, state_size] -> the core's outputs (h) and the new hidden states."""
        projected = inputs @ self._input_weights + self.bias_ih
        outputs, hidden, _ = core_step(
            self.kind, projected, hidden, self._hidden_weights, self.bias_hh
        )
        return outputs, hidden


def core_step(
    kind: str,
    projected: np.ndarray,
    hidden: np.ndarray,
    hidden_weights: np.ndarray,
    bias_hh: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """One step of a GRU or an LSTM, PyTorch's equations, for a batch of rows: the inputs'
    projections ``projected`` [rows, gates] (``inputs @ weight_ih.T + bias_ih``), the hidden
    states [rows, state_size] and ``hidden_weights`` (``weight_hh.T``) -> the outputs h, the new
    hidden states, and the gates' values: what the learner's backpropagation through time needs
    (:mod:`cardzoo.training.learner`), so that play and training step one formula."""
    size = hidden_weights.shape[0]
    h = hidden[:, :size]
    from_hidden = h @ hidden_weights
    from_hidden += bias_hh
    if kind == "gru":
        both = _sigmoid(projected[:, : 2 * size] + from_hidden[:, : 2 * size])
        reset, update = both[:, :size], both[:, size:]
        candidate = from_hidden[:, 2 * size :]
        new = np.tanh(projected[:, 2 * size :] + reset * candidate)
        h = new + update * (h - new)  # (1 - update) * new + update * h
        return h, h, (reset, update, new, candidate)
    gates = projected + from_hidden
    squashed_gates = _sigmoid(gates)  # one call for the three gates (the write gate unused)
    into, forget = squashed_gates[:, :size], squashed_gates[:, size : 2 * size]
    shown = squashed_gates[:, 3 * size :]
    written = np.tanh(gates[:, 2 * size : 3 * size])
    cell = forget * hidden[:, size:] + into * written
    squashed = np.tanh(cell)
    h = shown * squashed
    return h, np.concatenate([h, cell], axis=1), (into, forget, written, shown, squashed)


class NumpyPolicy:
    """The action head of an SB3 actor-critic MLP policy, evaluated in numpy; optionally an
    :class:`OrdinalHead` after its last layer, and a :class:`RecurrentCore` before its first
    (its MLP then reads the core's outputs)."""

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray, str]],
        head: OrdinalHead | dict[str, Any] | None = None,
        core: RecurrentCore | dict[str, Any] | None = None,
    ):
        self.layers = layers  # (weight [in, out], bias [out], activation applied after)
        self.head = OrdinalHead(**head) if isinstance(head, dict) else head
        self.core = RecurrentCore(**core) if isinstance(core, dict) else core

    @classmethod
    def from_sb3(cls, policy: Any) -> NumpyPolicy:
        """Copy the weights of an SB3 ``ActorCriticPolicy`` (MLP, flattened observations)."""
        return cls.from_torch([*policy.mlp_extractor.policy_net, policy.action_net])

    @classmethod
    def from_torch(
        cls, modules: Any, head: OrdinalHead | None = None, core: Any = None
    ) -> NumpyPolicy:
        """Copy a torch MLP given as its modules in order (linear layers, each optionally
        followed by an activation of :data:`_ACTIVATIONS`): SB3's policies, our learner's
        networks and RLlib's modules all copy through here; ``core`` a torch GRU or LSTM
        before them."""
        import torch

        layers: list[tuple[np.ndarray, np.ndarray, str]] = []
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                weight = module.weight.detach().cpu().numpy().T.astype(np.float32)
                bias = module.bias.detach().cpu().numpy().astype(np.float32)
                layers.append((weight, bias, "Identity"))
            elif type(module).__name__ in _ACTIVATIONS and layers:
                weight, bias, _ = layers[-1]
                layers[-1] = (weight, bias, type(module).__name__)
            else:
                raise ValueError(f"cannot copy policy layer {module!r} to numpy")
        return cls(layers, head, None if core is None else RecurrentCore.from_torch(core))

    def state(self) -> dict[str, Any]:
        """Plain arrays (picklable, small) to rebuild this policy in another process."""
        return {
            "layers": self.layers,
            "head": None if self.head is None else self.head.state(),
            "core": None if self.core is None else self.core.state(),
        }

    def initial_hidden(self) -> np.ndarray | None:
        """The hidden state of one seat at the start of a game (None: no recurrent core)."""
        return None if self.core is None else np.zeros(self.core.state_size, np.float32)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The logits of the MLP (and head) on its inputs: the observations, or, for a policy
        with a recurrent core, the core's outputs (:meth:`step` runs both)."""
        hidden = observations
        for weight, bias, activation in self.layers:
            hidden = hidden @ weight  # a new array: the bias and activation go in place
            hidden += bias
            in_place = _ACTIVATIONS[activation]
            if in_place is not None:
                in_place(hidden)
        return hidden if self.head is None else self.head(hidden)

    def step(
        self, inputs: np.ndarray, hidden: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The logits of a batch of inputs [rows, input size] and the rows' new hidden states
        (a policy without a core: unchanged None)."""
        if self.core is None:
            return self.logits(inputs), hidden
        if hidden is None:  # the start of a game
            hidden = np.zeros((len(inputs), self.core.state_size), np.float32)
        outputs, hidden = self.core(inputs, hidden)
        return self.logits(outputs), hidden

    def act(
        self,
        observation: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> int:
        """The most likely legal action, or a sample from the masked distribution if ``rng``."""
        logits = np.where(mask.astype(bool), self.logits(observation), -np.inf)
        if rng is None:
            return int(np.argmax(logits))
        probabilities = np.exp(logits - logits.max())
        probabilities /= probabilities.sum()
        return int(rng.choice(probabilities.size, p=probabilities))


#: how a policy chooses the positions of face-down cards where a game has them: as it learnt, or
#: blind, as the game's heuristics do (:attr:`cardzoo.agents.profiles.GameAgents.positions`)
POSITION_MODES = ("learned", "blind")


def stacked_inputs(inputs: Sequence[PolicyInput], observations: np.ndarray) -> np.ndarray:
    """The inputs of several seats at once, a row per observation, each seat's own
    :class:`PolicyInput` adding its observation (its frames and counts); where every one reads
    the observation alone, one scaling of them all (nothing to stack)."""
    if all(each.stateless for each in inputs):
        return inputs[0].scaler(observations.astype(np.float32, copy=False))
    return np.stack([each(row) for each, row in zip(inputs, observations)])


def stateless_inputs(frame_stack: int, count_fields: tuple[str, ...]) -> bool:
    """Whether a policy with this frame stack and these counted fields reads the observation
    alone (nothing carried from earlier ones): :attr:`PolicyInput.stateless`, before the inputs
    exist (a run's settings)."""
    return frame_stack == 1 and not count_fields


def position_rule(
    game: Game, positions: str, inputs: PolicyInput, policy: NumpyPolicy, seed: int | None = None
) -> Any:
    """The game's rule for playing positions blind (None for ``positions="learned"``). Blind play
    plans a placement by asking the policy for one card after another on observations that never
    happen, so it needs a policy that reads the observation alone: ``positions="blind"`` for a
    game without face-down positions, with a frame stack, counts or a recurrent core is an
    :class:`~cardzoo.errors.InputError` saying which."""
    rule = check_positions(game.name, positions, inputs.stateless, policy.core is not None)
    return None if rule is None else rule(game, seed)


def check_positions(game_name: str, positions: str, stateless: bool, recurrent: bool) -> Any:
    """The checks of :func:`position_rule` (``stateless``: inputs of the observation alone),
    before any policy exists; returns the game's rule class for ``"blind"``, else None."""
    from cardzoo.agents.profiles import game_agents  # the profiles import the agent modules

    if positions not in POSITION_MODES:
        raise InputError(f"positions must be one of {list(POSITION_MODES)}, got {positions!r}")
    if positions == "learned":
        return None
    rule = game_agents(game_name).positions
    if rule is None:
        raise InputError(
            f"'blind' is for games with face-down cards chosen by position; {game_name} has "
            "none (use 'learned')"
        )
    if not stateless or recurrent:
        raise InputError(
            "'blind' plans a placement with the policy on observations alone: not with a frame "
            "stack, counts or a recurrent core (use 'learned' with those)"
        )
    return rule


def cumulative(probabilities: np.ndarray) -> np.ndarray:
    """The cumulative sums of each distribution (the last axis) that :func:`draw_index` and
    :func:`choices` draw from, made as ``Generator.choice`` makes them from ``p`` (summed,
    then divided by the last sum). The ufunc's own accumulation, not ``np.cumsum``'s wrapper:
    training's opponents draw from rows of one to a few at a time."""
    sums = np.add.accumulate(probabilities, axis=-1, dtype=np.float64)
    sums /= sums[..., -1:]
    return sums


def draw_index(rng: np.random.Generator, sums: np.ndarray) -> int:
    """``rng.choice(len(p), p=p)`` for ``sums = cumulative(p)``: the same number drawn from
    ``rng`` (one uniform, the sums searched from the right), without ``choice``'s checks and
    sums at every call, a sixth of its time; ``p`` is checked where it is made."""
    return int(sums.searchsorted(rng.random(), side="right"))


def choices(probabilities: np.ndarray, generators: list[np.random.Generator]) -> np.ndarray:
    """Row i's draw from its distribution ``probabilities[i]`` with ``generators[i]``, exactly
    as ``generators[i].choice(len(row), p=row)`` draws it (what :func:`draw_index` draws for
    one row), for all rows at once. Rows that are not distributions get ``choice``'s own
    errors."""
    if not (np.isfinite(probabilities).all() and (probabilities >= 0).all()):
        return np.array([g.choice(len(p), p=p) for p, g in zip(probabilities, generators)])
    return _drawn(cumulative(probabilities), generators)


def _drawn(sums: np.ndarray, generators: list[np.random.Generator]) -> np.ndarray:
    """Row i's draw with ``generators[i]`` from the cumulative sums ``sums[i]``
    (:func:`cumulative`): one uniform each, as ``choice`` draws."""
    uniforms = np.array([generator.random() for generator in generators])
    return np.add.reduce(sums <= uniforms[:, None], axis=1)


class PolicyAgent(Agent):
    """A trained policy playing one seat. ``deterministic`` (default) takes the most likely legal
    action; otherwise it samples, using the agent's own generator. With ``frame_stack`` k > 1 the
    policy sees its last k observations of the game (oldest first, zeros before the first), as it
    did in training. A policy with a recurrent core keeps its hidden state in the agent
    (``hidden``): zeros at every new game (:meth:`reset`, also on ``reseed``), advanced by each
    of its decisions only. An agent plays one seat (every cardzoo driver builds one per seat),
    so the state of one seat or game never reaches another.

    ``positions="blind"`` (Believe It or Not): the card it turns or peeks at and the order of
    its placements' cards are chosen by the game's rule for blind play (:func:`position_rule`),
    drawing from the agent's generator; the policy chooses everything else, including which
    cards it places.

    ``label`` becomes the agent's ``name`` (default ``"ppo"``; the loaders give the name the
    agent was asked for, e.g. ``"ppo:PATH"``). ``stack_fields`` and ``count_fields`` are the
    observation fields the policy was trained to see as ``cardzoo train``'s ``--stack-fields``
    and ``--count-fields`` (:class:`PolicyInput`): with ``frame_stack`` > 1 only the
    ``stack_fields`` of earlier observations are kept (empty: all of them), and each field of
    ``count_fields`` is also seen summed over the game so far. They must be the training run's
    own: the loaders (``ppo:PATH``, ``pretrained``) read them from the policy file."""

    name = "ppo"

    def __init__(
        self,
        game: Game,
        policy: NumpyPolicy,
        seed: int | None = None,
        deterministic: bool = True,
        label: str = "ppo",
        frame_stack: int = 1,
        stack_fields: tuple[str, ...] = (),
        count_fields: tuple[str, ...] = (),
        positions: str = "learned",
    ):
        super().__init__(game, seed)
        self.policy = policy
        self.inputs = PolicyInput(game, frame_stack, stack_fields, count_fields)
        # checked here, not at the first move (numpy's matmul error): inputs built by hand
        stacked = (f" (frame_stack {frame_stack}, count_fields {list(count_fields)}: those of "
                   "its training run?)")  # fmt: skip
        _check_inputs(policy, self.inputs.size, f"{label} does not fit {game.name}{stacked}")
        self.deterministic = deterministic
        self.name = label
        self.hidden = policy.initial_hidden()
        self.positions = position_rule(game, positions, self.inputs, policy)

    def reset(self) -> None:
        """A new game: no earlier observation, and the hidden state of the policy playing now
        (the training opponents' policy may change between games) back to zeros."""
        self.inputs.reset()
        self.hidden = self.policy.initial_hidden()
        if self.positions is not None:
            self.positions.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        if self.positions is not None:
            action = self.positions.choose(observation, self._decide, self.rng)
            if action is not None:
                return int(action)
        return self._decide(observation)

    def _decide(self, observation: dict[str, np.ndarray]) -> int:
        """The policy's own choice (what :meth:`act` does without a rule for positions)."""
        mask = observation["action_mask"]
        if self.hidden is not None:  # the one path that advances a hidden state
            return int(self.act_batch([self], observation["observation"][None], mask[None])[0])
        if not mask.any():
            raise ValueError(f"{self!r} was asked to act with no legal action")
        inputs = self.inputs(observation["observation"])
        return self.policy.act(inputs, mask, None if self.deterministic else self.rng)

    @property
    def batch_key(self) -> tuple[int, bool]:
        """Seats whose agents share a key decide together in one forward pass
        (:meth:`act_batch`): those playing the same policy, with or without blind positions."""
        return id(self.policy), self.positions is None

    @staticmethod
    def act_batch(
        agents: list[PolicyAgent], observations: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        """The actions of several seats that play one policy, in one forward pass: exactly what
        each agent's :meth:`act` would choose (the same inputs, and a sampling agent draws from
        its own generator). A recurrent policy advances each agent's own hidden state; the
        decisions a rule for positions takes are taken one by one, as :meth:`act` takes them."""
        if agents[0].positions is None:
            return PolicyAgent._forward(agents, observations, masks)
        actions = np.zeros(len(agents), np.int64)
        rest = []
        for index, (agent, row, mask) in enumerate(zip(agents, observations, masks)):
            observation = {"observation": row, "action_mask": mask}
            action = agent.positions.choose(observation, agent._decide, agent.rng)
            if action is None:
                rest.append(index)
            else:
                actions[index] = action
        if rest:
            chosen = [agents[index] for index in rest]
            actions[rest] = PolicyAgent._forward(chosen, observations[rest], masks[rest])
        return actions

    @staticmethod
    def _forward(
        agents: list[PolicyAgent], observations: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        """The policy's own choices for several seats, in one forward pass."""
        inputs = stacked_inputs([agent.inputs for agent in agents], observations)
        policy = agents[0].policy
        if policy.core is None:
            logits = policy.logits(inputs)
        else:
            states = [agent.hidden for agent in agents]
            assert all(state is not None for state in states)  # a recurrent agent's are rows
            logits, hidden = policy.step(inputs, np.stack(states))  # type: ignore[arg-type]
            assert hidden is not None
            for agent, row in zip(agents, hidden):
                agent.hidden = row
        # ufuncs' own reductions, not the methods that wrap them: these passes are of one to a
        # few rows, where the wrappers cost more than the sums
        some = np.logical_or.reduce(masks, axis=1)
        if not np.logical_and.reduce(some):
            raise ValueError(
                f"{agents[int(np.argmin(some))]!r} was asked to act with no legal action"
            )
        logits = np.where(masks, logits, -np.inf)
        sampling = [index for index, agent in enumerate(agents) if not agent.deterministic]
        if len(sampling) == len(agents):  # training's opponents: no argmax to take
            return _sampled(logits, [agent.rng for agent in agents])
        actions = np.argmax(logits, axis=1)
        if sampling:
            generators = [agents[index].rng for index in sampling]
            actions[sampling] = _sampled(logits[sampling], generators)
        return actions

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name}, {self.game.name})"


def _sampled(logits: np.ndarray, generators: list[np.random.Generator]) -> np.ndarray:
    """Row i's action drawn with ``generators[i]`` from the softmax of ``logits[i]`` (masked:
    -inf where illegal, a legal action in every row), exactly as :func:`choices` draws it;
    ``logits`` is the caller's own, overwritten. The ufuncs' own reductions: see
    :meth:`PolicyAgent._forward`."""
    logits -= np.maximum.reduce(logits, axis=1, keepdims=True)
    probabilities = np.exp(logits, out=logits)  # in [0, 1], or NaN
    probabilities /= np.add.reduce(probabilities, axis=1, keepdims=True)
    sums = cumulative(probabilities)  # without choices' checks: only a NaN can be wrong here
    if not np.isfinite(sums[:, -1]).all():  # choices raises choice's own error
        return choices(probabilities, generators)
    return _drawn(sums, generators)


# ----------------------------------------------------------------------------------------------
# The policy file
# ----------------------------------------------------------------------------------------------


def save_policy(path: str | Path, policy: NumpyPolicy, info: dict[str, Any]) -> None:
    """Write ``policy`` and ``info`` (the game, its parameters, observation size, number of
    actions, frame stack, ...) as one ``.npz`` file, atomically (a reader never sees half a
    file)."""
    from cardzoo.io import write_bytes_atomic

    arrays: dict[str, Any] = {}  # np.savez's keywords: arrays by name
    for index, (weight, bias, _) in enumerate(policy.layers):
        arrays[f"weight_{index}"] = np.asarray(weight, np.float32)
        arrays[f"bias_{index}"] = np.asarray(bias, np.float32)
    if policy.head is not None:
        arrays["head_numbers"] = policy.head.numbers
        arrays["head_kinds"] = policy.head.kinds
    if policy.core is not None:
        for name, array in policy.core.state().items():
            if name != "kind":
                arrays[f"core_{name}"] = np.asarray(array, np.float32)
    record = {
        **info,
        "format": _policy_format(policy, info),
        "activations": [activation for _, _, activation in policy.layers],
        "head": None if policy.head is None else _head_name(policy.head),
        "core": None if policy.core is None else policy.core.kind,
    }
    arrays["info"] = np.frombuffer(json.dumps(record).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_bytes_atomic(Path(path), buffer.getvalue())


def read_policy(path: str | Path) -> tuple[NumpyPolicy, dict[str, Any]]:
    """The policy and its record from a file written by :func:`save_policy`, or from an SB3
    model file (``.zip``). Cached: the seats and games that play one file share its weights,
    read once (a file changed on disk is read again).

    The file is checked before anything plays it: not empty, a numpy archive with its record
    and every array the record names, each layer's weights and biases of shapes that chain from
    one layer to the next up to the actions (or the head), in finite floating-point numbers.
    Anything else is an :class:`~cardzoo.errors.InputError` naming the file and what is wrong
    (:func:`check_policy_fits` then checks it against the game)."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise InputError(f"read_policy: path must name a policy file, got {path!r:.80}")
    path = Path(path).resolve()
    try:
        status = path.stat()
    except OSError as error:
        raise InputError(f"policy file {path} cannot be read ({error.strerror})") from None
    return _read_policy(path, status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=64)
def _read_policy(path: Path, modified: int, size: int) -> tuple[NumpyPolicy, dict[str, Any]]:
    if size == 0:
        raise _not_a_policy(path, "it is empty (0 bytes)")
    if path.suffix == ".zip":
        return load_sb3_policy(path)
    try:
        with path.open("rb") as file:
            magic = file.read(6)
    except OSError as error:
        raise _not_a_policy(path, f"it cannot be read ({error})") from None
    if not magic.startswith((b"PK", b"\x93NUMPY")):  # numpy would guess a pickle, and say so
        raise _not_a_policy(path, "not a numpy .npz archive (it starts as neither a zip file "
                            "nor a numpy array)")  # fmt: skip
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise _not_a_policy(path, "it is one numpy array, not a numpy .npz archive")
            arrays = {name: archive[name] for name in archive.files}
    except InputError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise _not_a_policy(path, f"not a numpy .npz archive ({error})") from None
    info = _policy_record(path, arrays)
    layers: list[tuple[np.ndarray, np.ndarray, str]] = []
    for index, activation in enumerate(info["activations"]):
        weight = _float_array(path, arrays, f"weight_{index}", 2)
        bias = _float_array(path, arrays, f"bias_{index}", 1)
        if bias.shape[0] != weight.shape[1]:
            raise _not_a_policy(
                path,
                f"weight_{index} has {weight.shape[1]} outputs but bias_{index} has "
                f"{bias.shape[0]} numbers",
            )
        if layers and weight.shape[0] != layers[-1][0].shape[1]:
            raise _not_a_policy(
                path,
                f"weight_{index} takes {weight.shape[0]} inputs but layer {index - 1} gives "
                f"{layers[-1][0].shape[1]}",
            )
        weight.flags.writeable = False
        layers.append((weight, bias, activation))
    head = None
    if info.get("head") is not None:
        if info["head"] not in ORDINAL_HEADS:
            raise _not_a_policy(path, f"unknown policy head {info['head']!r}")
        for name in ("head_numbers", "head_kinds"):
            if name not in arrays:
                raise _not_a_policy(path, f"its record names an ordinal head but it has no {name}")
        try:
            shared = ORDINAL_HEADS[info["head"]]
            head = OrdinalHead(arrays["head_numbers"], arrays["head_kinds"], shared)
        except (ValueError, TypeError) as error:
            raise _not_a_policy(path, f"its head arrays are wrong ({error})") from None
    outputs = layers[-1][0].shape[1]
    expected = head.outputs if head else info.get("num_actions", outputs)
    if outputs != expected or (head is not None and head.num_actions != info.get("num_actions")):
        raise _not_a_policy(
            path, f"its last layer does not fit ({outputs} outputs; its record asks {expected})"
        )
    core = _recurrent_core(path, info, arrays)
    if core is not None and layers[0][0].shape[0] != core.hidden_size:
        raise _not_a_policy(
            path,
            f"its core gives {core.hidden_size} numbers but its first layer takes "
            f"{layers[0][0].shape[0]}",
        )
    return NumpyPolicy(layers, head, core), info


def _recurrent_core(
    path: Path, info: dict[str, Any], arrays: dict[str, np.ndarray]
) -> RecurrentCore | None:
    """The file's recurrent core (format 3), checked like its layers; None without one."""
    if info.get("core") is None:
        return None
    weights = [_float_array(path, arrays, f"core_{name}", 2) for name in ("weight_ih", "weight_hh")]
    biases = [_float_array(path, arrays, f"core_{name}", 1) for name in ("bias_ih", "bias_hh")]
    try:
        return RecurrentCore(info["core"], *weights, *biases)
    except (ValueError, TypeError) as error:
        raise _not_a_policy(path, f"its core is wrong ({error})") from None


#: the ordinal heads a policy file may name, and whether their kinds share one sharpness
ORDINAL_HEADS = {"ordinal": False, "ordinal-shared": True}


def _head_name(head: OrdinalHead) -> str:
    """The name a policy file gives ``head`` (:data:`ORDINAL_HEADS`)."""
    return next(name for name, shared in ORDINAL_HEADS.items() if shared == head.shared_sharpness)


def _policy_format(policy: NumpyPolicy, info: dict[str, Any]) -> int:
    """The oldest format that holds this policy (so older versions read what they can play)."""
    if info.get("positions", "learned") != "learned":
        return BLIND_POLICY_FORMAT
    if info.get("count_fields") or (policy.head is not None and policy.head.shared_sharpness):
        return COUNTING_POLICY_FORMAT
    return POLICY_FORMAT if policy.core is None else RECURRENT_POLICY_FORMAT


def _not_a_policy(path: Path, what: str) -> InputError:
    return InputError(f"{path} is not a cardzoo policy file: {what}")


def _policy_record(path: Path, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The file's record (``info``), checked: the format, the game, the layers' activations
    and how the inputs are built."""
    if "info" not in arrays:
        raise _not_a_policy(path, "it has no record (array 'info')")
    try:
        info = json.loads(arrays["info"].tobytes().decode())
    except (ValueError, UnicodeDecodeError) as error:
        raise _not_a_policy(path, f"its record is not JSON ({error})") from None
    formats = " or ".join(map(str, POLICY_FORMATS))
    if not isinstance(info, dict) or info.get("format") not in POLICY_FORMATS:
        raise _not_a_policy(path, f"its record is not of format {formats}")
    if not isinstance(info.get("game"), str):
        raise _not_a_policy(path, "its record names no game")
    activations = info.get("activations")
    if not isinstance(activations, list) or not activations:
        raise _not_a_policy(path, "its record lists no layers (activations)")
    unknown = sorted({str(a) for a in activations if a not in _ACTIVATIONS})
    if unknown:
        raise _not_a_policy(
            path, f"unknown activation(s) {unknown}; known: {', '.join(_ACTIVATIONS)}"
        )
    frame_stack = info.get("frame_stack", 1)
    if isinstance(frame_stack, bool) or not isinstance(frame_stack, int) or frame_stack < 1:
        raise _not_a_policy(path, f"its frame_stack must be an integer >= 1, got {frame_stack!r}")
    version = info.get("version", 0)  # the game's _vN it was trained on (none: v0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise _not_a_policy(path, f"its version must be an integer >= 0, got {version!r:.40}")
    for setting in ("stack_fields", "count_fields"):
        fields = info.get(setting) or []
        if not isinstance(fields, list) or not all(isinstance(name, str) for name in fields):
            raise _not_a_policy(path, f"its {setting} must be a list of names, got {fields!r}")
    if info.get("positions", "learned") not in POSITION_MODES:
        raise _not_a_policy(
            path, f"its positions must be one of {list(POSITION_MODES)}, got {info['positions']!r}"
        )
    if info.get("play", "greedy") not in PLAY_MODES:
        raise _not_a_policy(
            path, f"its play must be one of {list(PLAY_MODES)}, got {info['play']!r:.40}"
        )
    params = info.get("params") or {}
    if not isinstance(params, dict) or not all(isinstance(name, str) for name in params):
        raise _not_a_policy(path, f"its params must be the game's parameters, got {params!r:.60}")
    players = params.get("num_players", 1)
    if isinstance(players, bool) or not isinstance(players, int):
        raise _not_a_policy(path, f"its num_players must be an integer, got {players!r:.40}")
    return info


def _float_array(path: Path, arrays: dict[str, np.ndarray], name: str, dims: int) -> np.ndarray:
    """Array ``name`` of the file: ``dims``-dimensional, non-empty, floating point, finite."""
    if name not in arrays:
        raise _not_a_policy(path, f"it has no array {name!r}")
    array = arrays[name]
    if array.ndim != dims or array.size == 0:
        shape = "a matrix" if dims == 2 else "a vector"
        raise _not_a_policy(path, f"{name} must be {shape}, got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.floating):
        raise _not_a_policy(path, f"{name} holds {array.dtype}, not floating-point numbers")
    if not np.isfinite(array).all():
        raise _not_a_policy(path, f"{name} holds NaN or infinite numbers")
    return array


def check_policy_fits(
    info: dict[str, Any],
    game_name: str,
    game: Game,
    where: str,
    policy: NumpyPolicy | None = None,
) -> None:
    """A policy plays any game of its name whose observations and actions are those it was
    trained on, at the player count it was trained for; another player count (or Foxy's other
    memory mode) is refused with what differs (in Foxy the sizes do not follow the player
    count: a 2-player policy had played 3-player games without a word). With ``policy``, its
    first layer must also take the inputs the
    game gives it (the observation, stacked as its record says). A policy trained on another
    version of the game (its record's ``version``; files written before versions were recorded
    are of version 0) plays with a warning: the sizes fit, but what it sees or does changed
    (CHANGELOG.md), so its results are not those of its own version."""
    if info["game"] != game_name:
        raise InputError(f"{where} was trained on {info['game']}, not {game_name}")
    if info.get("observation_size") != game.observation_size or info.get("num_actions") != int(
        game.num_actions
    ):
        raise InputError(
            f"{where} was trained on {game_name} with {info.get('params')}, whose observations "
            f"or actions differ from this game's ({game.params()}): "
            + _what_differs(game_name, info.get("params") or {}, game.params())
        )
    trained_for = (info.get("params") or {}).get("num_players", game.num_players)
    if trained_for != game.num_players:  # files that recorded no parameters are not checked
        raise InputError(
            f"{where} was trained on {game_name} with {info.get('params')}, for "
            f"{trained_for} players, not {game.num_players} ({game.params()}): play it at "
            f"{trained_for} players"
        )
    trained_on = int(info.get("version", 0))
    if trained_on != game.version:
        warnings.warn(
            f"{where} was trained on {game_name}_v{trained_on}, and this is "
            f"{game_name}_v{game.version}: what a seat sees or does changed between them "
            "(CHANGELOG.md), so it plays a game it was not trained on",
            UserWarning,
            stacklevel=2,
        )
    if policy is None:
        return
    try:
        size = PolicyInput(game, **input_settings(info)).size
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
    _check_inputs(policy, size, f"{where} does not fit {game_name}")


def _check_inputs(policy: NumpyPolicy, size: int, what: str) -> None:
    """The policy's first layer (or core) takes ``size`` inputs, or an
    :class:`~cardzoo.errors.InputError` starting with ``what``."""
    core = policy.core
    takes = core.input_size if core is not None else policy.layers[0][0].shape[0]
    if takes != size:
        raise InputError(
            f"{what}: its first layer takes {takes} inputs, but this game's observations give "
            f"{size}"
        )


# ----------------------------------------------------------------------------------------------
# Loading a saved policy: ppo:PATH and rllib:PATH
# ----------------------------------------------------------------------------------------------


def load_ppo_agent(game_name: str, path: str, game: Game, seed: int | None = None) -> PolicyAgent:
    """``make_agent(game_name, "ppo:PATH", game)``: the policy saved at PATH — a run folder of
    ``cardzoo train``, its ``policy.npz``, or an SB3 model file (``model.zip``) — as an agent."""
    location = _ppo_file(path)
    policy, info = read_policy(location)
    check_policy_fits(info, game_name, game, str(location), policy)
    return PolicyAgent(game, policy, seed=seed, label=f"ppo:{path}", **play_settings(info))


def _what_differs(game_name: str, trained: dict[str, Any], here: dict[str, Any]) -> str:
    """The parameters, of those that differ, that change what a seat sees or does (each set
    alone to this game's value in the trained game), and those that do not: a user told only
    that the parameters differ set the reward too, and got the same refusal."""
    shape = _shape(game_name, trained)
    differ = [key for key in here if key in trained and trained[key] != here[key]]
    matters = [key for key in differ if _shape(game_name, {**trained, key: here[key]}) != shape]
    said = "; ".join(f"{key} is {trained[key]!r} there and {here[key]!r} here" for key in matters)
    rest = [key for key in differ if key not in matters]
    if not matters:
        return "play it with the parameters it was trained with"
    return said + (f" ({', '.join(rest)} may differ)" if rest else "")


def _shape(game_name: str, params: dict[str, Any]) -> tuple[int, int] | None:
    """The observation size and action count of the game with ``params`` (None: refused)."""
    try:
        game = load_game(game_name, **params)
    except InputError:
        return None
    return game.observation_size, int(game.num_actions)


def _ppo_file(path: str) -> Path:
    """The file ``ppo:PATH`` plays: PATH itself, or a run folder's policy (or model) file
    (``~`` is the user's home, as a shell reads it)."""
    if not path.strip():  # Path("") is the current folder, which a user never meant
        raise InputError("ppo: an empty path names no policy; give ppo:PATH")
    location = Path(path).expanduser()
    try:
        if location.is_dir():
            numpy_file = location / POLICY_FILE
            return numpy_file if numpy_file.is_file() else model_file(location)
        if not location.is_file():
            what = "is not a regular file" if location.exists() else "does not exist"
            raise InputError(f"model file {path} {what}")
    except OSError as error:  # a name too long for the system, say
        shown = path if len(path) <= 80 else f"{path[:60]}... ({len(path):,} characters)"
        raise InputError(f"ppo:{shown} names no file here ({error.strerror})") from None
    return location


def load_rllib_agent(game_name: str, path: str, game: Game, seed: int | None = None) -> PolicyAgent:
    """``make_agent(game_name, "rllib:PATH", game)``: a policy of an RLlib run of
    ``cardzoo train-rllib`` — its latest checkpoint (``PATH`` the run folder) or one checkpoint
    (``PATH`` a checkpoint folder). A run with one policy per seat plays ``player_0``'s policy
    unless the path names another: ``runs/NAME@player_2``. Needs no Ray: the run saves each
    policy as a numpy file beside its checkpoints (``policies/<policy>.npz``)."""
    location, file, module_ids = _rllib_file(path)
    policy, info = read_policy(file)
    check_policy_fits(info, game_name, game, f"rllib policy: {path}", policy)
    run_name = info.get("run_name", location.name)
    label = f"rllib:{run_name}" + (f"@{file.stem}" if len(module_ids) > 1 else "")
    return PolicyAgent(game, policy, seed=seed, label=label)


def _rllib_file(path: str) -> tuple[Path, Path, list[str]]:
    """For ``rllib:PATH``: the run (or checkpoint) folder, the file of the policy it plays,
    and the run's policies."""
    if not path.strip():  # Path("") is the current folder, which a user never meant
        raise InputError("rllib: an empty path names no policy; give rllib:PATH")
    text, module_id = path, None
    if not Path(path).exists() and "@" in path:
        text, _, module_id = path.rpartition("@")
    location = Path(text)
    if not location.exists():
        raise InputError(f"rllib policy: {location} does not exist")
    folder = location / "policies"
    files = sorted(folder.glob("*.npz")) if folder.is_dir() else []
    if not files:
        raise InputError(
            f"rllib policy: {location} is not an RLlib run folder of cardzoo (written by "
            "cardzoo train-rllib) with a checkpoint yet, nor one of its checkpoints"
        )
    _, info = read_policy(files[0])
    module_ids = info.get("module_ids") or [file.stem for file in files]
    module_id = module_id or module_ids[0]
    if not (folder / f"{module_id}.npz").is_file():
        raise InputError(f"rllib policy: {path} has no policy {module_id!r}; it has {module_ids}")
    return location, folder / f"{module_id}.npz", module_ids


def saved_policy_record(kind: str, path: str) -> dict[str, Any]:
    """The record of the file ``KIND:PATH`` (``ppo`` or ``rllib``) plays, the file checked
    (:func:`read_policy`): which game, with which parameters, it was trained on."""
    return read_policy(saved_policy_file(kind, path))[1]


def saved_policy_file(kind: str, path: str) -> Path:
    """The file ``KIND:PATH`` (``ppo`` or ``rllib``) plays."""
    return _ppo_file(path) if kind == "ppo" else _rllib_file(path)[1]


#: the pretrained policies shipped in the package, one ``<game>.npz`` (and its model card,
#: ``<game>.md``) per decision game
PRETRAINED = Path(__file__).parent / "pretrained"


def pretrained_files(game_name: str) -> list[Path]:
    """The package's pretrained policies of ``game_name``: ``<game>.npz`` for the game's default
    parameters and ``<game>-<tag>.npz`` for others (``believe_it_or_not-quick.npz``)."""
    if not PRETRAINED.is_dir():
        return []
    return sorted(
        path
        for path in PRETRAINED.glob(f"{game_name}*.npz")
        if path.stem == game_name or path.stem.startswith(f"{game_name}-")
    )


def pretrained_file(game_name: str, game: Game | None = None) -> Path | None:
    """The pretrained policy of ``game_name`` that plays ``game``'s parameters (any of them
    without ``game``), or None."""
    for path in pretrained_files(game_name):
        if game is None or _played_params(read_policy(path)[1]) == _played_params(game.params()):
            return path
    return None


def _played_params(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters a policy must have been trained for: all but the reward, which changes
    what training pays, not what a seat sees or may do."""
    params = params.get("params", params)
    return {key: value for key, value in params.items() if key != "reward"}


def load_pretrained_agent(
    game_name: str,
    game: Game,
    seed: int | None = None,
    label: str = "pretrained",
    positions: str | None = None,
) -> PolicyAgent:
    """``make_agent(game_name, "pretrained", game)``: the policy shipped with cardzoo for this
    game and its parameters (model cards beside them: ``cardzoo/agents/pretrained/*.md``). Each
    plays the player count and parameters it was trained for; anything else is a
    ``ValueError`` naming the parameters that have one. ``positions`` (None: as its file says)
    plays its positions ``"learned"`` or ``"blind"`` (:class:`PolicyAgent`)."""
    shipped = pretrained_files(game_name)
    if not shipped:
        raise InputError(f"cardzoo ships no pretrained policy for {game_name}")
    path = pretrained_file(game_name, game)
    if path is None:
        played = [_played_params(read_policy(p)[1]) for p in shipped]
        raise InputError(
            f"the pretrained {game_name} policies play {' or '.join(map(str, played))}; none "
            f"was trained for this game ({_played_params(game.params())})"
        )
    policy, info = read_policy(path)
    check_policy_fits(info, game_name, game, f"the pretrained policy {path}", policy)
    settings = play_settings(info)
    if positions is not None:
        settings["positions"] = positions
    return PolicyAgent(game, policy, seed=seed, label=label, **settings)


#: how a saved policy chooses its action: the most likely legal one, or a draw from its
#: distribution (a mixed strategy, as bluffing asks for)
PLAY_MODES = ("greedy", "sample")


def input_settings(info: dict[str, Any]) -> dict[str, Any]:
    """How a saved policy's inputs are built (:class:`PolicyInput`), from its record."""
    return {
        "frame_stack": int(info.get("frame_stack", 1)),
        "stack_fields": tuple(info.get("stack_fields") or ()),
        "count_fields": tuple(info.get("count_fields") or ()),
    }


def play_settings(info: dict[str, Any]) -> dict[str, Any]:
    """How a saved policy plays as an agent, from its record: its inputs, and whether it takes
    the most likely action (``play`` "greedy", and files written before ``play`` was recorded)
    or samples (``play`` "sample")."""
    return {
        **input_settings(info),
        "deterministic": info.get("play", "greedy") != "sample",
        "positions": info.get("positions", "learned"),
    }


def model_file(path: str | Path) -> Path:
    """``path`` itself if it is a model file, else the run folder's ``model.zip``."""
    path = Path(path)
    candidate = path / "model.zip" if path.is_dir() else path
    if not candidate.is_file():
        if path.is_dir():
            raise InputError(f"no trained model in {path} (expected {POLICY_FILE} or model.zip)")
        what = "is not a regular file" if path.exists() else "does not exist"
        raise InputError(f"model file {path} {what}")
    return candidate


def read_model_info(path: Path) -> dict[str, Any]:
    """What an SB3 model file records about its game, without loading torch."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as error:
        raise InputError(f"{path} is not a cardzoo model file ({error})") from error
    info = data.get(MODEL_INFO_KEY)
    if not isinstance(info, dict) or "game" not in info:
        raise InputError(f"{path} is not a cardzoo model (no {MODEL_INFO_KEY!r} record)")
    return info


def load_sb3_policy(path: Path) -> tuple[NumpyPolicy, dict[str, Any]]:
    """The policy of an SB3 ``MaskablePPO`` model file and its record (needs the train extra;
    runs save ``policy.npz`` too, which needs nothing but numpy)."""
    info = read_model_info(path)
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as error:  # SB3 raises many kinds on a damaged archive
        raise InputError(f"cannot load model {path}: {error}") from error
    return NumpyPolicy.from_sb3(model.policy), info
