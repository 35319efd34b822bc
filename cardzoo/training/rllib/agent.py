"""An RLlib policy as a cardzoo agent: each checkpoint's networks saved as numpy policy files.

When the run saves a checkpoint it also writes each policy's network as the numpy policy file
both back ends share (:func:`cardzoo.agents.policy.save_policy`), in the checkpoint's
``policies/<policy>.npz`` and, for the latest checkpoint, in the run folder's ``policies/``.
``make_agent(game_name, "rllib:RUN", game)`` plays it with
:class:`~cardzoo.agents.policy.PolicyAgent`: no Ray, no torch. The network's scaling of the
observations is the shared one (:func:`cardzoo.agents.policy.observation_scaling`), so the numpy
copy acts exactly as the trained module does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from cardzoo.agents.policy import NumpyPolicy, save_policy
from cardzoo.envs import load_game
from cardzoo.training.rllib.run import POLICIES


def numpy_policy(module: torch.nn.Module) -> NumpyPolicy:
    """The policy network of a :class:`~cardzoo.training.rllib.module.MaskedActorCritic` as a
    :class:`NumpyPolicy` (tanh between its linear layers, none after the last)."""
    return NumpyPolicy.from_torch(module.policy_net)


def export_policies(algorithm: Any, info: dict[str, Any], checkpoint: Path) -> None:
    """Save every policy of ``algorithm`` as a numpy policy file in ``checkpoint/policies/``."""
    game = load_game(info["game"], **info["params"])
    record = {
        "game": info["game"],
        "version": game.version,
        "params": game.params(),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
        "frame_stack": 1,
        "module_ids": list(info["module_ids"]),
        "run_name": checkpoint.parent.parent.name,
        "iteration": info["iteration"],
        "backend": "rllib",
    }
    folder = checkpoint / POLICIES
    folder.mkdir(exist_ok=True)
    for module_id in info["module_ids"]:
        policy = numpy_policy(algorithm.get_module(module_id))
        save_policy(folder / f"{module_id}.npz", policy, record)
