"""cardzoo: five animal card games as multi-agent reinforcement-learning environments.

- ``cardzoo.envs``: the PettingZoo environments (``from cardzoo.envs import henhouse_v0``) and
  the engines (``cardzoo.envs.load_game``);
- ``cardzoo.agents``: random and heuristic baseline agents, trained policies, ``make_agent``;
- ``cardzoo.evaluation``: matches between agents with confidence intervals; ``cardzoo.tournament``;
- ``cardzoo.training``: learning policies (cardzoo's own PPO, Ray RLlib);
- PettingZoo: every game is registered on import as ``cardzoo/<game>-vN``, so
  ``pettingzoo.make("aec", "cardzoo/henhouse-v0")`` and, for Foxy,
  ``pettingzoo.make("parallel", "cardzoo/foxy-v0")`` work;
- Gymnasium: every game is registered as ``cardzoo/<GameName>-vN`` on import, one learning seat
  against agents (:mod:`cardzoo.single_agent`).

Importing cardzoo imports only the list of games and their engines' ``Game`` classes (to read
which games have a parallel form): each other layer loads when it is used.
"""

__all__ = ["__version__"]

from cardzoo.envs.registry import register_gymnasium, register_pettingzoo

__version__ = "0.2.0.dev0"

register_pettingzoo()
register_gymnasium()
