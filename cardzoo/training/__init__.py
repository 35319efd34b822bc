"""Training: the single-agent Gymnasium view, and learning policies with sb3-contrib.

- :mod:`cardzoo.training.single_agent` — one learning seat as a ``gymnasium.Env`` (no torch);
- :func:`train` / :class:`TrainConfig` (:mod:`cardzoo.training.ppo`) — a MaskablePPO run into
  a run folder (needs the ``train`` extra: ``pip install cardzoo[train]``);
- :mod:`cardzoo.training.policy` — a saved policy as an agent (``make_agent(game, "ppo:RUN")``);
- :mod:`cardzoo.training.rllib` — every seat learning at once on Ray RLlib, locally or on a
  cluster (the ``rllib`` extra; ``make_agent(game, "rllib:RUN")``).
"""

from __future__ import annotations

import importlib

_LAZY = {
    "train": "cardzoo.training.ppo",
    "TrainConfig": "cardzoo.training.ppo",
    "GAME_DEFAULTS": "cardzoo.training.ppo",
}


def __getattr__(name: str):
    # Imported on first use: `import cardzoo` must not import torch or stable-baselines3.
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cardzoo.training' has no attribute {name!r}")
