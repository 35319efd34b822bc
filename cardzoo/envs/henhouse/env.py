"""The PettingZoo AEC environment of Henhouse: the common AEC base
(:class:`cardzoo.envs.aec.CardGameEnv`) over the Henhouse engine. Rules:
:mod:`cardzoo.envs.henhouse.rules`; user guide: ``docs/henhouse.md``."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.henhouse.rules import Henhouse
from cardzoo.envs.wrapper import wrap


class raw_env(CardGameEnv):
    """Henhouse without wrappers: an illegal action raises ``ValueError``."""

    game_class = Henhouse
    metadata = {**CardGameEnv.metadata, "name": "henhouse_v0"}


def env(**kwargs: Any) -> AECEnv:
    """Henhouse with PettingZoo's classic wrappers (see :func:`cardzoo.envs.wrapper.wrap`)."""
    return wrap(raw_env(**kwargs))
