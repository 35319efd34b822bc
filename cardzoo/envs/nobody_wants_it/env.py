"""The PettingZoo AEC environment of Nobody Wants It: the common AEC base
(:class:`cardzoo.envs.core.CardGameEnv`) over its engine. Rules:
:mod:`cardzoo.envs.nobody_wants_it.rules`; user guide: ``docs/nobody_wants_it.md``."""

from __future__ import annotations

from cardzoo.envs.core import CardGameEnv, wrap
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt


class raw_env(CardGameEnv):
    """Nobody Wants It without wrappers: an illegal action raises ``ValueError``."""

    game_class = NobodyWantsIt
    metadata = {**CardGameEnv.metadata, "name": "nobody_wants_it_v0"}


def env(**kwargs):
    """Nobody Wants It with PettingZoo's classic wrappers (see :func:`cardzoo.envs.core.wrap`)."""
    return wrap(raw_env(**kwargs))
