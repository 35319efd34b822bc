"""The cardzoo games as PettingZoo environments.

>>> from cardzoo.envs import henhouse_v0
>>> env = henhouse_v0.env(num_players=4)
>>> from cardzoo.envs import load_game
>>> game = load_game("henhouse", num_players=4)  # the engine alone
"""

from __future__ import annotations

import importlib

from cardzoo.envs.registry import GAMES, game_spec, load_game

__all__ = [
    "GAMES",
    "game_spec",
    "load_game",
    "believe_it_or_not_v1",
    "foxy_v0",
    "henhouse_v0",
    "minus_two_v0",
    "nobody_wants_it_v0",
]


def __getattr__(name: str):
    # Public modules load on first use, so importing one game never imports the others.
    if name in __all__:
        return importlib.import_module(f"cardzoo.envs.{name}")
    raise AttributeError(f"module 'cardzoo.envs' has no attribute {name!r}")
