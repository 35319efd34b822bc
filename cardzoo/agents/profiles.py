"""What the layers above need to know of each game's agents, in one table: its heuristics, the
strongest of them (the opponent a learner has to beat), and the training defaults that
experiments chose for it (``benchmarks/learning.md``). A new game adds one entry here.

May import: :mod:`cardzoo.agents` modules of the games (their ``AGENTS``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cardzoo.agents import believe_it_or_not, foxy, minus_two, nobody_wants_it
from cardzoo.agents.base import Agent
from cardzoo.envs.registry import unknown_game


@dataclasses.dataclass(frozen=True)
class Budget:
    """A training run's length in learner decisions and its minutes of training on our 2-core
    machine (a machine three times slower takes three times longer)."""

    decisions: int
    minutes: float


@dataclasses.dataclass(frozen=True)
class GameAgents:
    """One game's agents: ``heuristics`` by registry name, the ``best`` of them, and its
    ``training`` defaults: values of per-game training settings by name (the settings are
    declared in ``cardzoo/training/config.py``; a setting the game leaves out keeps its own
    default). ``minutes`` is the training time of a run with these defaults on our 2-core
    machine; such a run passes the best heuristic's own share, except where ``unbeaten``
    names the longest run of the learning benchmark (``benchmarks/learning.md``), which stayed
    below it too. A game without decisions (``Game.has_decisions`` False: Henhouse) has none
    of these."""

    heuristics: dict[str, type[Agent]]
    best: str | None = None
    training: dict[str, Any] = dataclasses.field(default_factory=dict)
    minutes: float = 0.0
    unbeaten: Budget | None = None
    #: where face-down cards are chosen by position (Believe It or Not): how a learned policy
    #: plays those positions blind (``positions="blind"``), a class built like an agent with a
    #: ``choose(observation, decide, rng)`` method; None where the game has no such choice
    positions: type | None = None


PROFILES: dict[str, GameAgents] = {
    "henhouse": GameAgents({}),  # no choices to make: random is the only agent
    # NWI: the first mix (20% random, 20% hand_shedder, 30% dodger, 30% self) levelled off at
    # 0.270 against three dodgers; half the seats dodgers and 8 epochs per rollout reached 0.330
    # [0.309, 0.350] after 2M steps, above the dodger's own share (benchmarks/learning.md).
    # 300,000 decisions pass it already (make demo's table).
    "nobody_wants_it": GameAgents(
        nobody_wants_it.AGENTS,
        best="nwi_dodger",
        training=dict(
            opponents="nwi_dodger:0.5,hand_shedder:0.2,self:0.3",
            reward="win+points",
            points_scale=0.05,
            n_epochs=8,
            timesteps=300_000,
        ),
        minutes=1,
    ),
    # Believe It or Not: the quick variant, shedding rewarded (win+score); 300,000 decisions
    # ended at 0.122 against three bluffers (their own share 0.261), 2M passed it (the shipped
    # believe_it_or_not-quick policy: 0.310 against 0.248).
    "believe_it_or_not": GameAgents(
        believe_it_or_not.AGENTS,
        best="bluffer",
        training=dict(
            opponents="random:0.2,honest:0.2,bluffer:0.3,self:0.3",
            reward="win+score",
            points_scale=0.05,
            params={"variant": "quick"},
            timesteps=2_000_000,
            positions="blind",
        ),
        minutes=12,
        positions=believe_it_or_not.BlindPositions,
    ),
    # Minus Two: half the seats attackers and 8 epochs raised the first mix's 0.209 to 0.247
    # [0.221, 0.275] against three attackers, level with the attacker's own 0.250. 300,000
    # decisions ended at 0.143, 1M with the settings below at 0.187; 3M with them pass it: 128
    # games at once, minibatches of 1,024 and a learning rate falling to 0 (the shipped
    # policy's settings: benchmarks/pretrained.py), the update and the games each on a core.
    "minus_two": GameAgents(
        minus_two.AGENTS,
        best="attacker",
        training=dict(
            opponents="attacker:0.5,high_cards:0.2,self:0.3",
            reward="win+points",
            points_scale=0.005,
            n_epochs=8,
            timesteps=3_000_000,
            n_envs=128,
            batch_size=1024,
            lr_schedule="linear",
        ),
        minutes=14,
    ),
    # Foxy: 20 decisions whose points the engine pays only at the end. Rewarded that way a run
    # stalled at ~56 points; per-card points (win+score) ten times the +-1 result, a short
    # horizon (each number is nearly a decision of its own) and a small entropy bonus over 82
    # actions reached 77 after 1M steps and were still rising (benchmarks/learning.md). No run
    # reached perfect_memory's points: a first run of 3M decisions on the shipped policy's
    # network and settings (benchmarks/pretrained.py) reaches about forgetful's (83 points).
    "foxy": GameAgents(
        foxy.AGENTS,
        best="perfect_memory",
        training=dict(
            opponents="random:0.2,forgetful:0.3,perfect_memory:0.3,self:0.2",
            reward="win+score",
            points_scale=0.1,
            params={"num_players": 2, "memory": "perfect"},
            gamma=0.9,
            ent_coef=0.001,
            # the plain head never wrote more than ~9 and stalled at 77.9 points after 6M
            # decisions; the ordinal head on two ReLU layers of 256 passed 80 after 1.5M
            head="ordinal",
            activation="relu",
            net_arch=(256, 256),
            timesteps=3_000_000,
            # the circle held for the first half: given up for good otherwise (docs/training.md)
            hold_special=0.5,
            n_envs=128,
            batch_size=1024,
            lr_schedule="linear",
        ),
        minutes=8,
        # the shipped foxy-perfect policy: 99.9 points against perfect_memory's 116.5
        unbeaten=Budget(22_000_000, 54),
    ),
}


def game_agents(game_name: str) -> GameAgents:
    """The agents of ``game_name``; ``ValueError`` for an unknown game."""
    if game_name not in PROFILES:
        raise unknown_game(game_name, PROFILES)
    return PROFILES[game_name]


#: each game's strongest heuristic (measured in matches against each other): the opponent a
#: trained policy has to beat, in training defaults, evaluations and benchmarks
BEST_HEURISTIC = {name: agents.best for name, agents in PROFILES.items() if agents.best}
