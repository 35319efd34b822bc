"""The PettingZoo AEC environment of Minus Two: the common AEC base
(:class:`cardzoo.envs.aec.CardGameEnv`) over the Minus Two engine. Rules:
:mod:`cardzoo.envs.minus_two.rules`; user guide: ``docs/minus_two.md``."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.minus_two.rules import MinusTwo
from cardzoo.envs.wrapper import wrap


class raw_env(CardGameEnv):
    """Minus Two without wrappers: an illegal action raises ``ValueError``."""

    game_class = MinusTwo
    metadata = {**CardGameEnv.metadata, "name": "minus_two_v0"}


def env(**kwargs: Any) -> AECEnv:
    """Minus Two with PettingZoo's classic wrappers (see :func:`cardzoo.envs.wrapper.wrap`)."""
    return wrap(raw_env(**kwargs))
