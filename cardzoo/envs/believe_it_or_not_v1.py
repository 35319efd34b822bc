"""Believe It or Not (``believe_it_or_not_v1``): animal bluffing — claim, believe or doubt.

Players put 1..5 cards face down claiming they are all one animal; the next player believes (and
adds cards under the same claim) or doubts and turns one over, and whoever was wrong takes the
table. Sets of four leave the game; ``"standard"``: the last player with cards (the elephant)
loses; ``"quick"``: the first player out wins. Rules as implemented, with every Decision, the action
table, the observation layout and the rewards: :mod:`cardzoo.envs.believe_it_or_not.rules`; user
page: ``docs/believe_it_or_not.md``.

>>> from cardzoo.envs import believe_it_or_not_v1
>>> env = believe_it_or_not_v1.env(num_players=4, variant="quick", render_mode="ansi")
"""

from cardzoo.envs.believe_it_or_not.env import env, raw_env
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot

__all__ = ["BelieveItOrNot", "env", "raw_env"]
