"""The PettingZoo AEC environment of Believe It or Not: the common AEC base
(:class:`cardzoo.envs.aec.CardGameEnv`) over its engine. Rules:
:mod:`cardzoo.envs.believe_it_or_not.rules`; user guide: ``docs/believe_it_or_not.md``."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot
from cardzoo.envs.wrapper import wrap


class raw_env(CardGameEnv):
    """Believe It or Not without wrappers: an illegal action raises ``ValueError``."""

    game_class = BelieveItOrNot
    metadata = {**CardGameEnv.metadata, "name": "believe_it_or_not_v1"}


def env(**kwargs: Any) -> AECEnv:
    """Believe It or Not with PettingZoo's classic wrappers (see
    :func:`cardzoo.envs.wrapper.wrap`)."""
    return wrap(raw_env(**kwargs))
