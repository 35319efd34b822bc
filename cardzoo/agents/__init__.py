"""Agents: uniform random for every game, heuristics per game, trained policies, and the one
factory that builds them by name.

>>> from cardzoo.agents import make_agent
>>> agent = make_agent("henhouse", "random", game, seed=0)
>>> trained = make_agent("nobody_wants_it", "ppo:runs/nwi", game, seed=0)  # a saved policy

An agent maps an observation dict (its seat's vector and action mask) to an action, seeing
nothing its seat could not see. A name ``KIND:PATH`` loads a saved policy: ``ppo:`` a run folder
or model file written by ``cardzoo train``, ``rllib:`` a run folder written by
``cardzoo train-rllib``; playing either needs only numpy.

Layer: agents sit on the engines (:mod:`cardzoo.envs`) and import nothing above them.
"""

from __future__ import annotations

from cardzoo.agents.base import Agent, RandomAgent, agent_action, take_turn
from cardzoo.agents.profiles import BEST_HEURISTIC, game_agents
from cardzoo.agents.registry import (
    POLICY_LOADERS,
    AgentSpec,
    agent_classes,
    agent_label,
    agent_names,
    build_agent,
    check_agent_name,
    check_saved_agent,
    make_agent,
)

__all__ = [
    "BEST_HEURISTIC",
    "POLICY_LOADERS",
    "Agent",
    "AgentSpec",
    "RandomAgent",
    "agent_action",
    "agent_classes",
    "agent_label",
    "agent_names",
    "build_agent",
    "check_agent_name",
    "check_saved_agent",
    "game_agents",
    "make_agent",
    "take_turn",
]
