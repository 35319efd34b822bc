"""A trained policy as a cardzoo agent, acting on a cheap numpy forward pass.

Training (:mod:`cardzoo.training.ppo`) learns with sb3-contrib's ``MaskablePPO`` and saves the
model as ``model.zip``. To play, only the policy head is needed: :class:`NumpyPolicy` copies its
weights out of torch once, and then one decision is a few small matrix products in numpy — about
ten times cheaper than a torch call for one observation, which matters when frozen policies fill
three seats of every training game (self-play) or play thousands of evaluation games.

>>> from cardzoo.agents import make_agent
>>> agent = make_agent("nobody_wants_it", "ppo:runs/nwi", game, seed=0)   # a run folder
>>> agent = make_agent("nobody_wants_it", "ppo:runs/nwi/model.zip", game)  # or its model file

Observations are scaled to a fixed range before the network sees them (:class:`ObservationScaler`):
each field is divided by its finite upper bound; fields without one (Minus Two's totals) are
squashed with ``sign(x) * log1p(|x|)``. The scaling depends only on the game, so a saved policy
and its scaler always agree.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.core import Game

#: what a saved model records about the game it was trained on (``model.cardzoo`` in SB3's zip)
MODEL_INFO_KEY = "cardzoo"

_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "Identity": lambda x: x,
}


class ObservationScaler:
    """Maps a game's raw observation vector into roughly [-1, 1] (bounded fields) or a log scale
    (unbounded fields). Pure function of the game's observation bounds."""

    def __init__(self, game: Game):
        _, high = game.observation_bounds()
        finite = np.isfinite(high) & (high > 0)
        self.scale = np.where(finite, 1.0 / np.where(finite, high, 1.0), 1.0).astype(np.float32)
        self.unbounded = ~np.isfinite(high)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        scaled = observation * self.scale
        if self.unbounded.any():
            raw = scaled[..., self.unbounded]
            scaled[..., self.unbounded] = np.sign(raw) * np.log1p(np.abs(raw))
        return scaled.astype(np.float32, copy=False)


class PolicyInput:
    """What the network sees: the scaled observation, after the seat's ``frame_stack`` - 1
    previous ones in the same game (oldest first, zeros before the first). The training
    environment and :class:`PolicyAgent` both use it, so a policy plays on exactly the inputs it
    was trained on."""

    def __init__(self, game: Game, frame_stack: int = 1):
        self.scaler = ObservationScaler(game)
        self.frame_stack = frame_stack
        self.size = game.observation_size * frame_stack
        self._frames = np.zeros(self.size, np.float32)

    def reset(self) -> None:
        """A new game: nothing seen yet."""
        self._frames[:] = 0.0

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        """Add this observation; the input vector (a view, valid until the next call)."""
        scaled = self.scaler(np.asarray(observation, dtype=np.float32))
        size = scaled.shape[0]
        if self.frame_stack > 1:
            self._frames[:-size] = self._frames[size:]
        self._frames[-size:] = scaled
        return self._frames


class NumpyPolicy:
    """The action head of an SB3 actor-critic MLP policy, evaluated in numpy."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray, str]]):
        self.layers = layers  # (weight [in, out], bias [out], activation applied after)

    @classmethod
    def from_sb3(cls, policy: Any) -> NumpyPolicy:
        """Copy the weights of an SB3 ``ActorCriticPolicy`` (MLP, flattened observations)."""
        import torch

        modules = [*policy.mlp_extractor.policy_net, policy.action_net]
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
        return cls(layers)

    def state(self) -> dict[str, np.ndarray]:
        """Plain arrays (picklable, small) to rebuild this policy in another process."""
        return {"layers": self.layers}

    def logits(self, observations: np.ndarray) -> np.ndarray:
        hidden = observations
        for weight, bias, activation in self.layers:
            hidden = _ACTIVATIONS[activation](hidden @ weight + bias)
        return hidden

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


class PolicyAgent(Agent):
    """A trained policy playing one seat. ``deterministic`` (default) takes the most likely legal
    action; otherwise it samples, using the agent's own generator. With ``frame_stack`` k > 1 the
    policy sees its last k observations of the game (oldest first, zeros before the first), as it
    did in training."""

    name = "ppo"

    def __init__(
        self,
        game: Game,
        policy: NumpyPolicy,
        seed: int | None = None,
        deterministic: bool = True,
        label: str = "ppo",
        frame_stack: int = 1,
    ):
        super().__init__(game, seed)
        self.policy = policy
        self.inputs = PolicyInput(game, frame_stack)
        self.deterministic = deterministic
        self.name = label

    def reset(self) -> None:
        self.inputs.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        if not mask.any():
            raise ValueError(f"{self!r} was asked to act with no legal action")
        inputs = self.inputs(observation["observation"])
        return self.policy.act(inputs, mask, None if self.deterministic else self.rng)

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name}, {self.game.name})"


# ----------------------------------------------------------------------------------------------
# Loading a saved model
# ----------------------------------------------------------------------------------------------


def model_file(path: str | Path) -> Path:
    """``path`` itself if it is a model file, else the run folder's ``model.zip``."""
    path = Path(path)
    candidate = path / "model.zip" if path.is_dir() else path
    if not candidate.is_file():
        if path.is_dir():
            raise ValueError(f"no trained model in {path} (expected {candidate.name})")
        raise ValueError(f"model file {path} does not exist")
    return candidate


def read_model_info(path: Path) -> dict[str, Any]:
    """What the model file records about its game, without loading torch."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as error:
        raise ValueError(f"{path} is not a cardzoo model file ({error})") from error
    info = data.get(MODEL_INFO_KEY)
    if not isinstance(info, dict) or "game" not in info:
        raise ValueError(f"{path} is not a cardzoo model (no {MODEL_INFO_KEY!r} record)")
    return info


def load_numpy_policy(
    game_name: str, path: str | Path, game: Game
) -> tuple[NumpyPolicy, dict[str, Any]]:
    """The policy saved at ``path`` (run folder or model file), checked against ``game``, and the
    model's record of its game."""
    file = model_file(path)
    info = read_model_info(file)
    if info["game"] != game_name:
        raise ValueError(f"{file} was trained on {info['game']}, not {game_name}")
    if info.get("observation_size") != game.observation_size or info.get("num_actions") != int(
        game.num_actions
    ):
        raise ValueError(
            f"{file} was trained on {game_name} with {info.get('params')}, whose observations "
            f"or actions differ from this game's ({game.params()})"
        )
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(file, device="cpu")
    except Exception as error:  # SB3 raises many kinds on a damaged archive
        raise ValueError(f"cannot load model {file}: {error}") from error
    return NumpyPolicy.from_sb3(model.policy), info


def load_agent(game_name: str, path: str, game: Game, seed: int | None = None) -> PolicyAgent:
    """``make_agent(game_name, "ppo:PATH", game)``: the policy saved at PATH as an agent."""
    policy, info = load_numpy_policy(game_name, path, game)
    frame_stack = int(info.get("frame_stack", 1))
    return PolicyAgent(game, policy, seed=seed, label=f"ppo:{path}", frame_stack=frame_stack)
