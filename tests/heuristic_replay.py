"""Replays seeded games of the heuristic agents and digests every action they take, so that a
faster implementation can be checked to decide exactly as the original did.

Used by ``tests/test_heuristics_unchanged.py`` (which stores the digests the original agents
gave) and by ``benchmarks/heuristics_speed.py``. Run this module to print the digests of the
agents as they are now: ``python tests/heuristic_replay.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

import numpy as np

from cardzoo.agents import Agent, agent_classes
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot
from cardzoo.envs.core import Game
from cardzoo.envs.foxy.rules import Foxy
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.envs.minus_two.rules import MinusTwo
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt

#: games per (game, agent, line-up); deal g uses seed g and the parameter set g % len(params)
NUM_GAMES = 300

#: parameter sets cycled over the games: every table size class and every variant the heuristics
#: read differently (Believe It or Not's elephant rule, Foxy's species counts and max_guess)
PARAMS: dict[str, list[Callable[[], Game]]] = {
    "nobody_wants_it": [
        lambda: NobodyWantsIt(),
        lambda: NobodyWantsIt(num_players=2),
        lambda: NobodyWantsIt(num_players=3, num_rounds=1),
        lambda: NobodyWantsIt(num_players=7, num_rounds=2),
    ],
    "believe_it_or_not": [
        lambda: BelieveItOrNot(),
        lambda: BelieveItOrNot(num_players=2, variant="quick"),
        lambda: BelieveItOrNot(num_players=3, num_species=4, special_cards=False),
        lambda: BelieveItOrNot(num_players=6, variant="quick", num_species=6),
    ],
    "minus_two": [
        lambda: MinusTwo(),
        lambda: MinusTwo(num_players=2, target_score=100),
        lambda: MinusTwo(num_players=3, scoring="count", target_score=10),
        lambda: MinusTwo(num_players=6, target_score=100),
    ],
    "foxy": [
        lambda: Foxy(),
        lambda: Foxy(num_players=1),
        lambda: Foxy(num_players=3, memory="perfect"),
        lambda: Foxy(num_players=5, max_guess=12),
        lambda: Foxy(num_players=4, memory="perfect", max_guess=20),
    ],
}

#: "all": the agent in every seat; "mixed": the agent in even seats, random in odd seats
LINEUPS = ("all", "mixed")


def heuristic_names(game_name: str) -> list[str]:
    return [name for name in agent_classes(game_name) if name != "random"]


def lineup_factories(game_name: str, agent_name: str, lineup: str, num_players: int) -> list:
    classes = agent_classes(game_name)
    names = [
        agent_name if lineup == "all" or seat % 2 == 0 else "random" for seat in range(num_players)
    ]
    return [classes[name] for name in names]


def play_recorded(game: Game, agents: list[Agent], seed: int) -> list[int]:
    """Plays the deal ``seed`` with ``agents[seat]`` in each seat (reset first); every action."""
    state = game.new_state(game_rng_from_seed(seed))
    for agent in agents:
        agent.reset()
    actions = []
    while not state.terminal and len(actions) < game.default_max_cycles:
        player = state.current_player
        agent = agents[player]
        observation = {"action_mask": game.legal_mask(state, player)}
        if agent.uses_observation:
            observation["observation"] = game.observe(state, player)
        action = agent.act(observation)
        actions.append(int(action))
        game.step(state, action)
    return actions


def agent_seed(seed: int, seat: int) -> int:
    return 1_000 * seed + seat


def replay_digest(
    game_name: str, agent_name: str, lineup: str, seeds: Iterable[int]
) -> tuple[str, int]:
    """sha256 of the actions of the games ``seeds`` (fresh agents per game, seeded per seat),
    and the number of decisions."""
    games = [make() for make in PARAMS[game_name]]
    digest = hashlib.sha256()
    decisions = 0
    for seed in seeds:
        game = games[seed % len(games)]
        factories = lineup_factories(game_name, agent_name, lineup, game.num_players)
        agents = [factory(game, seed=agent_seed(seed, s)) for s, factory in enumerate(factories)]
        actions = play_recorded(game, agents, seed)
        digest.update(np.array(actions, np.int32).tobytes())
        digest.update(b"|")
        decisions += len(actions)
    return digest.hexdigest(), decisions


def all_cases() -> list[tuple[str, str, str]]:
    cases = [(game_name, "random", "all") for game_name in PARAMS]
    for game_name in PARAMS:
        for agent_name in heuristic_names(game_name):
            cases += [(game_name, agent_name, lineup) for lineup in LINEUPS]
    return cases


if __name__ == "__main__":
    for case in all_cases():
        digest, decisions = replay_digest(*case, range(NUM_GAMES))
        print(f"    {case}: ({digest!r}, {decisions}),")
