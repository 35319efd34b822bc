"""The PettingZoo AEC environment of Nobody Wants It: the shared base over its engine."""

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
