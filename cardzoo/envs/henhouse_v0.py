"""Henhouse (``henhouse_v0``): hens, feathers, eggs and a fox — win all the cards.

A game without choices (one action: turn your top card), for simulation studies and as a throughput
benchmark. Rules as implemented, with every Decision, the observation layout and the rewards:
:mod:`cardzoo.envs.henhouse.rules` (user guide: ``docs/henhouse.md``).

>>> from cardzoo.envs import henhouse_v0
>>> env = henhouse_v0.env(num_players=4, render_mode="ansi")
"""

from cardzoo.envs.henhouse.env import env, raw_env
from cardzoo.envs.henhouse.rules import Henhouse

__all__ = ["Henhouse", "env", "raw_env"]
