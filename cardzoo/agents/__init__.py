"""Baseline agents: uniform random for every game, heuristics per game, trained policies, and a
registry.

>>> from cardzoo.agents import make_agent
>>> agent = make_agent("henhouse", "random", game, seed=0)
>>> trained = make_agent("nobody_wants_it", "ppo:runs/nwi", game, seed=0)  # a saved policy

A name ``KIND:PATH`` loads a saved policy: ``ppo:`` a run folder or model file written by
``cardzoo train``, ``rllib:`` a run folder written by ``cardzoo train-rllib``.
"""

from __future__ import annotations

import importlib

from cardzoo.agents.base import Agent, RandomAgent, take_turn
from cardzoo.envs.core import Game

# game name -> module of that game's heuristic agents; each module has AGENTS: {name: class}.
_HEURISTIC_MODULES = {
    "henhouse": None,  # no choices to make: random is the only agent
    "nobody_wants_it": "cardzoo.agents.nobody_wants_it",
    "believe_it_or_not": "cardzoo.agents.believe_it_or_not",
    "minus_two": "cardzoo.agents.minus_two",
    "foxy": "cardzoo.agents.foxy",
}


#: each game's strongest heuristic (measured in matches against each other): the opponent a
#: trained policy has to beat, in training defaults, evaluations and benchmarks
BEST_HEURISTIC = {
    "nobody_wants_it": "nwi_dodger",
    "believe_it_or_not": "bluffer",
    "minus_two": "attacker",
    "foxy": "perfect_memory",
}

# "KIND:PATH" agent names -> "module:function" that loads such a policy as an Agent. Loaders are
# imported only when used, so the baselines never import torch or ray.
_POLICY_LOADERS = {
    "ppo": "cardzoo.training.policy:load_agent",
    "rllib": "cardzoo.training.rllib:load_agent",
}


def agent_classes(game_name: str) -> dict[str, type[Agent]]:
    """All agents of a game by registry name (``random`` first)."""
    if game_name not in _HEURISTIC_MODULES:
        raise ValueError(f"unknown game {game_name!r}; choose one of {list(_HEURISTIC_MODULES)}")
    classes: dict[str, type[Agent]] = {"random": RandomAgent}
    module_name = _HEURISTIC_MODULES[game_name]
    if module_name is not None:
        classes.update(importlib.import_module(module_name).AGENTS)
    return classes


def make_agent(game_name: str, agent_name: str, game: Game, seed: int | None = None) -> Agent:
    """A new agent ``agent_name`` for ``game`` (a :class:`~cardzoo.envs.core.Game`): a registry
    name (:func:`agent_classes`) or ``KIND:PATH`` for a saved policy."""
    kind, colon, path = agent_name.partition(":")
    if colon:
        if kind not in _POLICY_LOADERS:
            raise ValueError(
                f"unknown policy kind {kind!r} in agent {agent_name!r}; "
                f"choose one of {[k + ':PATH' for k in _POLICY_LOADERS]}"
            )
        module_name, function = _POLICY_LOADERS[kind].split(":")
        loader = getattr(importlib.import_module(module_name), function)
        return loader(game_name, path, game, seed=seed)
    classes = agent_classes(game_name)
    if agent_name not in classes:
        raise ValueError(
            f"unknown agent {agent_name!r} for {game_name}; choose one of {list(classes)}"
        )
    return classes[agent_name](game, seed=seed)


__all__ = ["BEST_HEURISTIC", "Agent", "RandomAgent", "agent_classes", "make_agent", "take_turn"]
