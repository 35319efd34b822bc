"""Minus Two (``minus_two_v0``): a shedding game with ``-2`` and ``>>>`` cards; lowest total wins.

Play one or more equal cards no higher than the pile's limit, from your hand, then your face-up row,
then blind from your face-down row; ``-2`` lowers the limit, ``>>>`` throws the pile out of the
game. Rounds are scored by the cards left; the game ends when someone reaches the target score.
Rules as implemented, with every Decision, the action table, the observation layout, the rewards
and the parameters: :mod:`cardzoo.envs.minus_two.rules` (user page: ``docs/minus_two.md``).

>>> from cardzoo.envs import minus_two_v0
>>> env = minus_two_v0.env(num_players=4, render_mode="ansi")
"""

from cardzoo.envs.minus_two.env import env, raw_env
from cardzoo.envs.minus_two.rules import MinusTwo

__all__ = ["MinusTwo", "env", "raw_env"]
