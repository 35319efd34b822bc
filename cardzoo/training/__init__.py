"""Training: learning policies for the games.

- :func:`train` / :class:`TrainConfig` (:mod:`cardzoo.training.ppo`) — a PPO run into
  a run folder (needs the ``train`` extra: ``pip install cardzoo[train]``); its policy plays as
  ``make_agent(game_name, "ppo:RUN", game)``. Every setting of a run is declared once, as a
  field of ``TrainConfig`` in :mod:`cardzoo.training.config` (which imports no torch);
- :mod:`cardzoo.training.rllib` — every seat learning at once on Ray RLlib, locally or on a
  cluster (the ``rllib`` extra; ``make_agent(game_name, "rllib:RUN", game)``).

Layer: above the table (evaluation, the Gymnasium view), the agents and the engines; below the
command line. ``from cardzoo.training.ppo import TrainConfig, train``.
"""
