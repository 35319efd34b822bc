"""Many games in one call (``cardzoo.envs.batch``) play exactly the games of the environments.

The kernel's generator is numpy's, bit for bit; a batch seeded like ``env.reset(seed=s)`` gives
the AEC environment's observations, masks, rewards and ends, step by step, for the same actions,
and the game it starts next is the one the environment's next unseeded ``reset()`` deals. Compiled
(numba) and plain Python alike; the plain kernel plays fewer games (it is slow).
"""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import GAMES, kernel_random, kernels, nobody_wants_it_v0
from cardzoo.envs.batch import OVER, RUNNING, TRUNCATED, GameBatch
from cardzoo.envs.kernels import plain_and_compiled
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt
from cardzoo.errors import InputError

# The shared tests' configurations, and the parameter values they leave out.
CONFIGS = GAMES["nobody_wants_it"].test_configs() + [
    {"num_players": 5, "reward": "points", "num_rounds": 3},
    {"num_players": 3, "reward": "win", "num_rounds": 2},
]
PLAIN_RANDOM, COMPILED_RANDOM = plain_and_compiled(kernel_random)
needs_numba = pytest.mark.skipif(kernels.numba is None, reason="numba is not installed")
KERNELS = [
    pytest.param(False, id="plain"),
    pytest.param(True, id="compiled", marks=needs_numba),
]
SEEDS = [0, 1, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 1, 123456789012345, 98765]


def config_id(config: dict) -> str:
    return "-".join(f"{key}={value}" for key, value in config.items())


# ----------------------------------------------------------------------------------------------
# numpy's generator, reproduced
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_kernel_generator_is_numpys_default_rng(seed, compiled):
    random = COMPILED_RANDOM if compiled else PLAIN_RANDOM
    rng = np.zeros(kernel_random.SIZE, np.int64)
    random.seed_numpy(rng, seed)
    expected = np.random.default_rng(seed)
    assert kernel_random.numpy_state(rng) == expected.bit_generator.state
    deck = np.repeat(np.arange(4), 18)
    for size in (72, 40, 2, 1, 0, 72):
        cards = deck[:size].copy()
        random.shuffle(cards, 0, size, rng)
        assert np.array_equal(cards, expected.permutation(deck[:size].astype(np.int8)))
        assert kernel_random.numpy_state(rng) == expected.bit_generator.state
    assert random.next_seed(rng) == expected.integers(2**63)
    assert kernel_random.numpy_state(rng) == expected.bit_generator.state


def test_a_state_converts_to_numpy_and_back():
    expected = np.random.default_rng(5)
    expected.permutation(10)  # leaves half a 64-bit draw buffered
    rng = np.zeros(kernel_random.SIZE, np.int64)
    kernel_random.set_numpy_state(rng, expected.bit_generator.state)
    assert kernel_random.numpy_state(rng) == expected.bit_generator.state
    assert expected.bit_generator.state["has_uint32"] == 1
    cards = np.arange(30)
    PLAIN_RANDOM.shuffle(cards, 0, 30, rng)
    assert np.array_equal(cards, expected.permutation(30))
    with pytest.raises(ValueError, match="PCG64"):
        kernel_random.set_numpy_state(rng, np.random.MT19937(0).state)


# ----------------------------------------------------------------------------------------------
# The batch against the AEC environment
# ----------------------------------------------------------------------------------------------


def play_side_by_side(
    config: dict,
    seeds: list[int],
    games_each: int,
    compiled: bool,
    module=nobody_wants_it_v0,
    watch=None,
    max_cycles: int | None = None,
) -> int:
    """Random legal play in a batch and in one AEC environment per seed (of the game's public
    ``module``), compared at every step:
    each environment's observation and mask of the player to act (and every other seat's
    observation), the rewards of all seats, terminations and truncations. After a game ends the
    batch starts the next one and the environment deals with ``reset()`` (no seed), until each
    has played ``games_each`` games, each cut at ``max_cycles`` agent steps (default: the
    game's). ``watch(env)``, if given, sees each environment after each of its steps. Returns
    the number of steps compared."""
    envs = [module.raw_env(max_cycles=max_cycles, **config) for _ in seeds]
    game = envs[0].game
    count, n = len(seeds), game.num_players
    batch = GameBatch(game, count, max_cycles, compiled)
    batch.seed(np.array(seeds))
    batch.start(np.ones(count, bool))
    for env, seed in zip(envs, seeds):
        env.reset(seed=seed)
    observations = np.zeros((count, game.observation_size), np.float32)
    masks = np.zeros((count, game.num_actions), np.int8)
    rewards, ends = np.zeros((count, n)), np.zeros(count, np.int64)
    players = np.zeros(count, np.int64)
    choose = np.random.default_rng(sum(seeds))
    games_played = np.zeros(count, np.int64)
    compared = 0
    while (games_played < games_each).any():
        actions = np.full(count, -1, np.int64)
        for seat in range(n):  # every seat's view of every game
            batch.observe(np.full(count, seat), observations, masks)
            for b, env in enumerate(envs):
                if games_played[b] < games_each:
                    expected = env.observe(f"player_{seat}")
                    assert np.array_equal(observations[b], expected["observation"])
                    assert np.array_equal(masks[b], expected["action_mask"])
        batch.current_players(players)
        for b, env in enumerate(envs):
            if games_played[b] < games_each:
                assert players[b] == env.agent_name_mapping[env.agent_selection]
                legal = np.flatnonzero(env.infos[env.agent_selection]["action_mask"])
                actions[b] = legal[choose.integers(legal.size)]
                env.step(int(actions[b]))
                if watch is not None:
                    watch(env)
        batch.step(actions, rewards, ends)
        finished = np.zeros(count, bool)
        for b, env in enumerate(envs):
            if actions[b] < 0:
                continue
            compared += 1
            assert np.array_equal(rewards[b], [env.rewards[a] for a in env.possible_agents])
            terminated, truncated = all(env.terminations.values()), all(env.truncations.values())
            assert ends[b] == (OVER if terminated else TRUNCATED if truncated else RUNNING)
            if terminated or truncated:
                games_played[b] += 1
                finished[b] = games_played[b] < games_each
                if finished[b]:
                    env.reset()
        batch.start(finished)
    return compared


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("compiled", KERNELS)
def test_the_batch_plays_the_aec_envs_games_step_by_step(config, compiled):
    """Compiled: 42 seeds x 2 games in a row x 14 configurations = 1,176 games; plain: 140."""
    seeds = list(range(42)) if compiled else [7, 2**40 + 3, 11, 5, 1000]
    compared = play_side_by_side(config, seeds, games_each=2, compiled=compiled)
    assert compared >= 5 * 2 * len(seeds)  # a round takes at least 5 turns


def test_a_game_cut_at_max_cycles_is_truncated_with_no_reward():
    config = {"num_players": 3, "reward": "points", "num_rounds": 1}
    env = nobody_wants_it_v0.raw_env(max_cycles=5, **config)
    batch = GameBatch(env.game, 2, max_cycles=5, compiled=False)
    batch.seed(np.array([3, 4]))
    batch.start(np.ones(2, bool))
    env.reset(seed=3)
    rewards, ends = np.zeros((2, 3)), np.zeros(2, np.int64)
    masks = np.zeros((2, 16), np.int8)
    observations = np.zeros((2, env.game.observation_size), np.float32)
    for step in range(5):
        batch.observe(np.full(2, -1), observations, masks)
        actions = np.array([np.flatnonzero(masks[0])[0], -1])
        env.step(int(actions[0]))
        batch.step(actions, rewards, ends)
        assert ends.tolist() == ([TRUNCATED, RUNNING] if step == 4 else [RUNNING, RUNNING])
    assert all(env.truncations.values())
    assert rewards.tolist() == [[0.0] * 3] * 2
    assert batch.steps.tolist() == [5, 0]  # a game without an action is left alone


def test_a_game_without_a_kernel_has_no_batch():
    from cardzoo.envs.foxy.rules import Foxy

    with pytest.raises(InputError, match="foxy has no vector form yet"):
        GameBatch(Foxy(), 4)


def test_a_batch_needs_a_game_at_least():
    with pytest.raises(InputError, match="num_envs=0 is out of range"):
        GameBatch(NobodyWantsIt(), 0)
