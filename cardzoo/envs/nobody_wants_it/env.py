"""The PettingZoo AEC environment of Nobody Wants It: the common AEC base
(:class:`cardzoo.envs.aec.CardGameEnv`) over its engine. Rules:
:mod:`cardzoo.envs.nobody_wants_it.rules`; user guide: ``docs/nobody_wants_it.md``."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt
from cardzoo.envs.wrapper import wrap


class raw_env(CardGameEnv):
    """Nobody Wants It without wrappers: an illegal action raises ``ValueError``."""

    game_class = NobodyWantsIt
    metadata = {**CardGameEnv.metadata, "name": "nobody_wants_it_v0"}


def env(**kwargs: Any) -> AECEnv:
    """Nobody Wants It with PettingZoo's classic wrappers (see
    :func:`cardzoo.envs.wrapper.wrap`)."""
    return wrap(raw_env(**kwargs))
