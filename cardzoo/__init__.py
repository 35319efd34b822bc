"""cardzoo: five animal card games as multi-agent reinforcement-learning environments.

- ``cardzoo.envs``: the PettingZoo environments (``from cardzoo.envs import henhouse_v0``);
- ``cardzoo.agents``: random and heuristic baseline agents;
- ``cardzoo.evaluation``: matches between agents with confidence intervals;
- PettingZoo: every game is registered on import as ``cardzoo/<game>-v0``, so
  ``pettingzoo.make("aec", "cardzoo/henhouse-v0")`` and, for Foxy,
  ``pettingzoo.make("parallel", "cardzoo/foxy-v0")`` work (:mod:`cardzoo.envs.registry`);
- Gymnasium: every game is registered as ``cardzoo/<GameName>-v0`` on import, one learning seat
  against agents (:mod:`cardzoo.training.single_agent`).
"""

from cardzoo.envs.registry import register_pettingzoo
from cardzoo.training.single_agent import register_all

__version__ = "0.1.0"

register_pettingzoo()
register_all()
