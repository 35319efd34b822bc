"""Nobody Wants It (``nobody_wants_it_v0``): farm animals — shed your hand, and pairs pass the
"Nobody wants it" penalty cards to the left.

2 to 7 players, three rounds; the lowest score wins. Rules as implemented, with every Decision, the
action table, the observation layout and the rewards: :mod:`cardzoo.envs.nobody_wants_it.rules`
(user page: ``docs/nobody_wants_it.md``).

>>> from cardzoo.envs import nobody_wants_it_v0
>>> env = nobody_wants_it_v0.env(num_players=4, reward="win", render_mode="ansi")
"""

from cardzoo.envs.nobody_wants_it.env import env, raw_env
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt

__all__ = ["NobodyWantsIt", "env", "raw_env"]
