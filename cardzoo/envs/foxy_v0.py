"""Foxy (``foxy_v0``): the memory game — write how many animals have appeared so far.

All players act at the same time on every card: :func:`parallel_env` is the PettingZoo
``ParallelEnv``; :func:`env` / :class:`raw_env` give the AEC form of the same game (players asked
in seat order, nobody seeing another's number). Rules as implemented, with every Decision, the
action table, the observation layout and the rewards: :mod:`cardzoo.envs.foxy.rules`; user guide:
``docs/foxy.md``.

>>> from cardzoo.envs import foxy_v0
>>> env = foxy_v0.env(num_players=3, memory="none", render_mode="ansi")
>>> parallel = foxy_v0.parallel_env(num_players=3)
"""

from cardzoo.envs.foxy.env import env, parallel_env, raw_env
from cardzoo.envs.foxy.rules import Foxy

__all__ = ["Foxy", "env", "parallel_env", "raw_env"]
