"""A policy trained by :mod:`cardzoo.training.rllib` as a cardzoo agent.

Only the network is loaded, from the checkpoint's RLModule folder (RLlib's
``RLModule.from_checkpoint``): no Ray instance, no algorithm, no env runners. Its policy network
is then copied into numpy (:class:`NumpyMaskedPolicy`), so one decision is a few small matrix
products.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from cardzoo.agents.base import Agent
from cardzoo.envs.core import Game, agent_spaces
from cardzoo.training.rllib_module import observation_scaling
from cardzoo.training.rllib_run import RunFolder, read_checkpoint_info

#: where RLlib keeps one policy's network inside an algorithm checkpoint
MODULE_SUBPATH = ("learner_group", "learner", "rl_module")


class NumpyMaskedPolicy:
    """The policy network of a :class:`MaskedActorCritic` copied into numpy: the same scaling,
    layers and mask, about ten times cheaper than a torch call for one observation."""

    def __init__(self, module: torch.nn.Module):
        self.scale, self.unbounded = observation_scaling(module.observation_space["observation"])
        self.layers = [
            (layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy())
            for layer in module.policy_net
            if isinstance(layer, torch.nn.Linear)
        ]

    def logits(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        hidden = np.asarray(observation, dtype=np.float32) * self.scale
        raw = hidden[..., self.unbounded]
        hidden[..., self.unbounded] = np.sign(raw) * np.log1p(np.abs(raw))
        for index, (weight, bias) in enumerate(self.layers):
            hidden = hidden @ weight + bias
            if index < len(self.layers) - 1:
                hidden = np.tanh(hidden)
        return np.where(np.asarray(mask) == 0, -np.inf, hidden)


class RLlibAgent(Agent):
    """A trained RLlib policy in one seat. ``deterministic`` (default): the most likely legal
    action; otherwise a sample of the masked distribution, from the agent's own generator."""

    name = "rllib"

    def __init__(
        self,
        game: Game,
        policy: NumpyMaskedPolicy,
        seed: int | None = None,
        deterministic: bool = True,
        label: str = "rllib",
    ):
        super().__init__(game, seed)
        self.policy = policy
        self.deterministic = deterministic
        self.name = label

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        if not mask.any():
            raise ValueError(f"{self!r} was asked to act with no legal action")
        logits = self.policy.logits(observation["observation"], mask)
        if self.deterministic:
            return int(np.argmax(logits))
        probabilities = np.exp(logits - logits.max())
        return int(self.rng.choice(probabilities.size, p=probabilities / probabilities.sum()))

    def __repr__(self) -> str:
        return f"RLlibAgent({self.name}, {self.game.name})"


def resolve_checkpoint(path: str) -> tuple[Path, str | None]:
    """The checkpoint folder meant by ``path`` (a run folder or a checkpoint, optionally with
    ``@MODULE``), and the module named, if any."""
    text, module_id = path, None
    if not Path(path).exists() and "@" in path:
        text, _, module_id = path.rpartition("@")
    location = Path(text)
    if not location.exists():
        raise ValueError(f"rllib policy: {location} does not exist")
    if (location / "cardzoo.json").is_file():
        return location, module_id
    folder = RunFolder(location)
    if not folder.is_run():
        raise ValueError(
            f"rllib policy: {location} is not an RLlib run folder of cardzoo "
            "(written by cardzoo train-rllib) nor one of its checkpoints"
        )
    checkpoint = folder.latest_checkpoint()
    if checkpoint is None:
        raise ValueError(f"rllib policy: the run in {location} has no checkpoint yet")
    return checkpoint, module_id


def load_rllib_agent(game_name: str, path: str, game: Game, seed: int | None = None) -> RLlibAgent:
    """See :func:`cardzoo.training.rllib.load_agent`.

    Decision: a policy plays any game of the same name whose observations and actions are those
    it was trained on (the same vector length and bounds, the same actions); other parameters,
    e.g. the reward or the number of rounds, may differ, so a policy can be tried on a variant.
    Another player count or Foxy's other memory mode changes the observations and is refused."""
    checkpoint, module_id = resolve_checkpoint(path)
    info = read_checkpoint_info(checkpoint)
    if info["game"] != game_name:
        raise ValueError(f"rllib policy: {path} was trained on {info['game']}, not {game_name}")
    module_id = module_id or info["module_ids"][0]
    if module_id not in info["module_ids"]:
        raise ValueError(
            f"rllib policy: {path} has no policy {module_id!r}; it has {info['module_ids']}"
        )
    module = load_module(checkpoint, module_id)
    _check_spaces(module, game, path, info)
    label = f"rllib:{checkpoint.parent.parent.name}" + (
        f"@{module_id}" if len(info["module_ids"]) > 1 else ""
    )
    return RLlibAgent(game, NumpyMaskedPolicy(module), seed=seed, label=label)


def load_module(checkpoint: Path, module_id: str) -> torch.nn.Module:
    from ray.rllib.core.rl_module.rl_module import RLModule

    location = checkpoint.joinpath(*MODULE_SUBPATH, module_id)
    try:
        return RLModule.from_checkpoint(str(location.absolute()))  # RLlib reads URIs
    except Exception as error:  # a missing or damaged file: RLlib raises many kinds
        raise ValueError(
            f"rllib policy: cannot load the network {module_id!r} from {checkpoint} "
            f"(damaged or incomplete checkpoint?): {type(error).__name__}: {error}"
        ) from error


def _check_spaces(module: torch.nn.Module, game: Game, path: str, info: dict) -> None:
    """The policy's observation and action spaces must be the game's."""
    observation_space, action_space = agent_spaces(game)
    trained = module.observation_space["observation"]
    wanted = observation_space["observation"]
    if (
        trained.shape != wanted.shape
        or module.action_space.n != action_space.n
        or not np.array_equal(trained.high, wanted.high)
    ):
        raise ValueError(
            f"rllib policy: {path} was trained on {info['game']} with {info['params']}; its "
            f"observations ({trained.shape[0]} numbers) and actions ({module.action_space.n}) "
            f"differ from this game's ({wanted.shape[0]}, {action_space.n}: {game.params()})"
        )
