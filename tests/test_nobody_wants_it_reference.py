"""Nobody Wants It plays exactly the games of the numpy engine it replaced, step by step.

The reference (``tests/reference/nobody_wants_it.py``) is the game's former numpy engine. Both are
played through the AEC environment, seeded alike, with the same random legal actions; at every
step they must show the same agent to act, every seat's observation and action mask, the same
rewards, terminations and truncations; their states must hold the same cards, scores and
decisions, and their generators stand at the same place (deals and reshuffles draw the same
numbers). After a game the next unseeded ``reset()`` deals the same next game in both. Every
table size, round count and reward: 1,080 games.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.nobody_wants_it import NumpyNobodyWantsIt

from cardzoo.envs import nobody_wants_it_v0
from cardzoo.envs.aec import CardGameEnv

CONFIGS = [
    {"num_players": n, "num_rounds": rounds, "reward": reward}
    for n in range(2, 8)
    for rounds in (1, 2, 3)
    for reward in ("win", "points")
]
GAMES_PER_CONFIG = 30


class ReferenceEnv(CardGameEnv):
    game_class = NumpyNobodyWantsIt
    metadata = {**CardGameEnv.metadata, "name": "nobody_wants_it_v0"}


def live_state(state) -> tuple:
    """Everything of a state the game can still read (pile slots beyond a pile's size are not)."""
    return (
        (state.round_number, state.dealer, state.active_player, state.current_player),
        (state.decision, state.terminal, state.draw_size, state.discard_size),
        state.hands.tolist(),
        state.hand_sizes.tolist(),
        state.draw_pile[: state.draw_size].tolist(),
        state.discard_pile[: state.discard_size].tolist(),
        state.discard_counts.tolist(),
        state.nwi_holder.tolist(),
        state.horse_gifts.tolist(),
        state.penalty_cards.tolist(),
        state.points.tolist(),
        state.fixed_decks.tolist(),
        state.rng.bit_generator.state,
    )


def assert_same_step(env, reference) -> None:
    assert env.agent_selection == reference.agent_selection
    for agent in env.possible_agents:
        seen, expected = env.observe(agent), reference.observe(agent)
        assert np.array_equal(seen["observation"], expected["observation"]), agent
        assert seen["observation"].dtype == expected["observation"].dtype
        assert np.array_equal(seen["action_mask"], expected["action_mask"]), agent
        assert seen["action_mask"].dtype == expected["action_mask"].dtype
    assert env.rewards == reference.rewards
    assert env._cumulative_rewards == reference._cumulative_rewards
    assert env.terminations == reference.terminations
    assert env.truncations == reference.truncations
    assert live_state(env.state_) == live_state(reference.state_)


def play_side_by_side(config: dict, seed: int, games: int) -> int:
    """``games`` games in a row from ``seed`` in both; returns the steps compared."""
    env, reference = nobody_wants_it_v0.raw_env(**config), ReferenceEnv(**config)
    choices = np.random.default_rng(seed)
    env.reset(seed=seed)
    reference.reset(seed=seed)
    steps = 0
    for _ in range(games):
        assert_same_step(env, reference)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                action = None
            else:
                legal = np.flatnonzero(env.infos[agent]["action_mask"])
                action = int(legal[choices.integers(legal.size)])
            env.step(action)
            reference.step(action)
            assert_same_step(env, reference)
            steps += 1
        env.reset()
        reference.reset()
    return steps


@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['num_rounds']}r-{c['reward']}"
)
def test_the_game_plays_the_numpy_engines_games_step_by_step(config):
    steps = play_side_by_side(config, seed=config["num_players"], games=GAMES_PER_CONFIG)
    assert steps >= GAMES_PER_CONFIG * config["num_rounds"] * 5  # a round takes 5 steps at least
