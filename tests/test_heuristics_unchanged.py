"""The heuristic agents decide exactly as they did before they were optimised, and an agent
reused over many games (reset between them) plays exactly like a fresh one.

The digests below are the sha256 of every action of ``NUM_GAMES`` seeded games per case (see
``tests/heuristic_replay.py``), recorded with the original, unoptimised agents. A case that
fails means the agent now decides differently somewhere in those games: speed-ups must not
change a single decision. (Regenerate only for an intended change of play, and say so.)
"""

from __future__ import annotations

import copy
from collections import deque

import numpy as np
import pytest
from heuristic_replay import (
    NUM_GAMES,
    PARAMS,
    agent_seed,
    all_cases,
    heuristic_names,
    lineup_factories,
    play_recorded,
    replay_digest,
)

from cardzoo.agents import RandomAgent
from cardzoo.envs.helpers import game_rng_from_seed

# (game, agent, line-up): (sha256 of the actions, decisions), with the original agents
DIGESTS = {
    ("nobody_wants_it", "random", "all"): (
        "ce01afc9496ed002b4ee2bc01672704a8a6d904c8a9782bf3e7ea5ffd8d21a2f",
        69221,
    ),
    ("believe_it_or_not", "random", "all"): (
        "32cfa662ff7b6592bd07316e9711f879358624df00b0f44f2f6359658d91a0ef",
        64498,
    ),
    ("minus_two", "random", "all"): (
        "75eec43640278f6ed60fd1935500a8cce64a64148bb867472092a60691976a49",
        78934,
    ),
    ("foxy", "random", "all"): (
        "cff9eefef760a50bc309e06c39e0737b56065d416a4d4a0f0f4ffbb6f038f92a",
        18000,
    ),
    ("nobody_wants_it", "hand_shedder", "all"): (
        "d4ce8d73517ccb44bc28b776f1be104b399cbba727731f87239224fc8381978a",
        17082,
    ),
    ("nobody_wants_it", "hand_shedder", "mixed"): (
        "42dc49ed3978cd4a1d311ae0e59c85772187da9a9064f368fa46a97edaf188aa",
        18612,
    ),
    ("nobody_wants_it", "nwi_dodger", "all"): (
        "041c9798e06b445d97e7441cfcb8fc504ae9a82a1065891f7227bb7d3361cee7",
        15855,
    ),
    ("nobody_wants_it", "nwi_dodger", "mixed"): (
        "5d752dfd3b83266495a9480dddf98600274796b127d6952c20f0d84405b9ed6c",
        18640,
    ),
    ("believe_it_or_not", "honest", "all"): (
        "da0c65df689c397599e024c6be12984482f09d1313f3cfd3d0c5e8855741b06f",
        29126,
    ),
    ("believe_it_or_not", "honest", "mixed"): (
        "26a643c03d12c85cd4b2c6b9c250c62d670302581195d9a4f5407aba5dc0d698",
        33603,
    ),
    ("believe_it_or_not", "bluffer", "all"): (
        "1ddb6b2cfecde52dcd1779714786cb8aaefba27affc2ff43ac177a83f440d103",
        24959,
    ),
    ("believe_it_or_not", "bluffer", "mixed"): (
        "e8f8312d10415e3a3f1328bc8ebcd6e4e632dc44a88508adeb04fd6ad4ef8a0d",
        38343,
    ),
    ("minus_two", "high_cards", "all"): (
        "1da95a359da754fc461e931830ffa8af3eeb4c85e9b4e05ab5d44bbff53769fa",
        43543,
    ),
    ("minus_two", "high_cards", "mixed"): (
        "649eddc229fd6bf1d588c1d1fd407075d590859e404d8ea4dbb1454fba2141aa",
        47507,
    ),
    ("minus_two", "attacker", "all"): (
        "0560ac216f477026600819d4ba2b8a39045a80b4a7d5457466028810235231dd",
        45761,
    ),
    ("minus_two", "attacker", "mixed"): (
        "6f9f041e24f116cbb4b291119ceaf5c0e19e6da3da6a2fcfc8d45b609ff42104",
        42230,
    ),
    ("foxy", "perfect_memory", "all"): (
        "026fcdd54e5940b023e3e7826697ac374a2c3d018f1d3de4e529cc4d0d65e55d",
        18000,
    ),
    ("foxy", "perfect_memory", "mixed"): (
        "250d5b7eb15732ef12cb65f217f0400f0600536f93eb22b69c42d65e5eb3f66d",
        18000,
    ),
    ("foxy", "forgetful", "all"): (
        "a3fe039720971b899a46e7d09c13baaf1f166927ae10cedad264508f45ce20f6",
        18000,
    ),
    ("foxy", "forgetful", "mixed"): (
        "0a18d8bd446c7c98309e8abd5eed5918f1deac59fa68713164ddf5cacd9cdb5b",
        18000,
    ),
}


def test_every_agent_and_line_up_has_a_digest():
    assert sorted(DIGESTS) == sorted(all_cases())


@pytest.mark.parametrize("case", list(DIGESTS), ids="-".join)
def test_agents_take_the_recorded_actions(case):
    assert replay_digest(*case, range(NUM_GAMES)) == DIGESTS[case]


REUSE_CASES = [
    (game_name, agent_name)
    for game_name in PARAMS
    for agent_name in ["random", *heuristic_names(game_name)]
]


@pytest.mark.parametrize("case", REUSE_CASES, ids="-".join)
def test_a_reset_agent_plays_like_a_fresh_one(case):
    """One agent object per seat over 20 games (reset before each) takes the same actions as
    agents built fresh for each game whose generator is where the reused agent's is."""
    game_name, agent_name = case
    for make_game in PARAMS[game_name]:
        game = make_game()
        classes = lineup_factories(game_name, agent_name, "mixed", game.num_players)
        reused = [cls(game, seed=agent_seed(7, seat)) for seat, cls in enumerate(classes)]
        for seed in range(20):
            fresh = [cls(game, seed=0) for cls in classes]
            for new, old in zip(fresh, reused):
                new.rng.bit_generator.state = old.rng.bit_generator.state
            assert play_recorded(game, reused, seed) == play_recorded(game, fresh, seed), seed


def test_an_agent_generator_is_made_at_first_use_from_its_seed():
    game = PARAMS["nobody_wants_it"][0]()
    agent = RandomAgent(game, seed=5)
    assert agent._rng is None  # building a generator costs more than a heuristic's decision
    assert agent.rng.integers(1000, size=5).tolist() == (
        np.random.default_rng(5).integers(1000, size=5).tolist()
    )


@pytest.mark.parametrize("seed", [-1, "7", 2.5])
def test_a_bad_agent_seed_is_refused_at_construction(seed):
    with pytest.raises((ValueError, TypeError)):
        RandomAgent(PARAMS["nobody_wants_it"][0](), seed=seed)


def _same(a, b) -> bool:
    """Deep equality of agent attributes: numpy arrays by value, objects by their attributes."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple, deque)) and type(a) is type(b):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dict__") and type(a) is type(b) and not isinstance(a, type):
        return _same(vars(a), vars(b))
    return a == b


@pytest.mark.parametrize("case", REUSE_CASES, ids="-".join)
def test_reset_leaves_an_agent_as_it_was_built(case):
    """After a game and reset(), every attribute of the agent (its generator aside) is what it
    was when the agent was built: no memory of the game survives."""
    game_name, agent_name = case
    game = PARAMS[game_name][0]()
    classes = lineup_factories(game_name, agent_name, "all", game.num_players)
    agents = [cls(game, seed=seat) for seat, cls in enumerate(classes)]
    built = [copy.deepcopy({k: v for k, v in vars(a).items() if k != "game"}) for a in agents]
    play_recorded(game, agents, seed=3)  # reset() before the game
    for agent in agents:
        agent.reset()
    for agent, before in zip(agents, built):
        after = {k: v for k, v in vars(agent).items() if k not in ("game", "_rng")}
        before = {k: v for k, v in before.items() if k != "_rng"}
        assert _same(after, before)


def play_with_one_buffer(game, agents, seed: int) -> list[int]:
    """:func:`play_recorded`, but every observation is written into one shared array (as a
    batched driver may do with ``observe(state, player, out=buffer)``)."""
    state = game.new_state(game_rng_from_seed(seed))
    for agent in agents:
        agent.reset()
    buffer = np.zeros(game.observation_size, np.float32)
    actions = []
    while not state.terminal and len(actions) < game.default_max_cycles:
        player = state.current_player
        observation = {
            "action_mask": game.legal_mask(state, player),
            "observation": game.observe(state, player, out=buffer),
        }
        actions.append(int(agents[player].act(observation)))
        game.step(state, actions[-1])
    return actions


@pytest.mark.parametrize("case", REUSE_CASES, ids="-".join)
def test_agents_keep_no_reference_to_an_observation(case):
    """Agents that remember read what they need; none keeps the observation array, so an
    observation buffer reused for every decision gives the same games."""
    game_name, agent_name = case
    for make_game in PARAMS[game_name]:
        game = make_game()
        classes = lineup_factories(game_name, agent_name, "all", game.num_players)
        for seed in range(10):
            fresh = [cls(game, seed=agent_seed(seed, s)) for s, cls in enumerate(classes)]
            again = [cls(game, seed=agent_seed(seed, s)) for s, cls in enumerate(classes)]
            assert play_with_one_buffer(game, fresh, seed) == play_recorded(game, again, seed)
