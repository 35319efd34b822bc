"""Minus Two in many games at once (``cardzoo.envs.batch``): exactly the games of the environments.

The kernel deals from numpy's generator, bit for bit; a batch seeded like ``env.reset(seed=s)``
gives the AEC environment's observations, masks, rewards and ends, step by step, for the same
actions, and the game it starts next is the one the environment's next unseeded ``reset()``
deals. Compiled (numba) and plain Python alike; the plain kernel plays fewer games (it is slow).
The vector environments' own tests (tests/test_vector.py) cover Minus Two beside the other games
with a vector form, and tests/test_batch.py plays the shared tests' configurations.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_batch import KERNELS, config_id, play_side_by_side

from cardzoo.envs import minus_two_v0
from cardzoo.vector import VectorEnv

# The default targets, whose games go on for several rounds (dealt by the kernel as by the
# engine); the shared tests' configurations (every player count; both scorings and rewards, to
# low targets: most of their games end after one round) are played in tests/test_batch.py.
CONFIGS = [{"num_players": 2, "reward": "points"}, {"num_players": 3, "scoring": "count"}]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda config: config_id(("minus_two", config)))
@pytest.mark.parametrize("compiled", KERNELS)
def test_the_batch_plays_the_aec_envs_games_to_the_default_targets(config, compiled):
    """Compiled: 24 seeds x 2 games in a row x 2 configurations = 96 games; plain: 8."""
    seeds = list(range(24)) if compiled else [7, 2**40 + 3]
    rounds = []
    watch = lambda env: rounds.append(env.state_.round)  # noqa: E731
    compared = play_side_by_side("minus_two", config, seeds, 2, compiled, watch)
    assert compared >= 2 * 13 * len(seeds)  # a round takes a turn per card of a colour at least
    if compiled:
        assert max(rounds) >= 3  # several rounds: later deals compared too


@pytest.mark.parametrize("compiled", KERNELS)
def test_a_tie_for_lowest_raises_the_target_alike_in_the_batch(compiled):
    """Six players to 30 cards (count scoring): in one of these eight seeded games two players
    tie for the lowest total, the target rises to 40 and play goes on, alike in both."""
    config = {"num_players": 6, "scoring": "count"}
    targets = set()
    watch = lambda env: targets.add(env.state_.target)  # noqa: E731
    assert play_side_by_side("minus_two", config, list(range(16, 24)), 1, compiled, watch) > 0
    assert targets == {30, 40}


@pytest.mark.parametrize("compiled", KERNELS)
def test_games_cut_at_max_cycles_are_truncated_alike_with_no_reward(compiled):
    """At 60 agent steps these games of four players to 300 are cut (no one reaches 300 in a
    round or two), with rewards 0 on the cutting step, and the next ones dealt."""
    config = {"num_players": 4, "reward": "points"}
    ends = []
    watch = lambda env: ends.append(all(env.truncations.values()))  # noqa: E731
    compared = play_side_by_side("minus_two", config, [1, 2, 3], 2, compiled, watch, 60)
    assert compared == 3 * 2 * 60 and sum(ends) == 6


def test_unknown_reset_options_are_warned_of_as_by_the_aec_env():
    """(Fixed deals are refused as every game's: tests/test_vector.py.)"""
    env = VectorEnv("minus_two", 2, num_players=2, learner_seat=0)
    deal = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "-2", "-2", ">>>"]
    with pytest.warns(UserWarning, match=r"minus_two ignores unknown reset options \['deck'\]"):
        observations, _ = env.reset(options={"deck": deal}, seed=4)  # as the AEC env: warned
    aec = minus_two_v0.raw_env(num_players=2)
    aec.reset(seed=4)
    assert np.array_equal(observations[0], aec.observe("player_0")["observation"])
