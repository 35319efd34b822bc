"""The shared test suite: every registered game, at every allowed player count and variant, passes
PettingZoo's API test, plays reproducibly, survives a JSON snapshot round trip, keeps its
invariants under random play, and rejects bad parameters."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from cardzoo.envs import GAMES

CONFIGS = [
    pytest.param(spec, config, id=f"{spec.name}-" + "-".join(f"{v}" for v in config.values()))
    for spec in GAMES.values()
    for config in spec.test_configs()
]
ONE_CONFIG_PER_GAME = [
    pytest.param(spec, spec.test_configs()[0], id=spec.name) for spec in GAMES.values()
]


def play_random(env, seed: int, max_steps: int = 100_000, disturb_global_random: bool = False):
    """Play one game with seeded random legal actions; return the trace of everything seen."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter(max_steps):
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        trace.append(
            (agent, observation["observation"].tobytes(), observation["action_mask"].tobytes())
        )
        trace.append((reward, terminated, truncated, action))
        if disturb_global_random:
            random.random()
            np.random.random()
        env.step(action)
    return trace


@pytest.mark.parametrize("spec, config", CONFIGS)
def test_pettingzoo_api(spec, config):
    env = spec.module().env(**config)
    api_test(env, num_cycles=200)


@pytest.mark.parametrize("spec, config", CONFIGS)
def test_same_seed_same_game(spec, config):
    first = play_random(spec.module().env(**config), seed=7)
    second = play_random(spec.module().env(**config), seed=7, disturb_global_random=True)
    assert first == second


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_different_seed_different_deal(spec, config):
    env = spec.module().raw_env(**config)
    deals = set()
    for seed in range(5):
        env.reset(seed=seed)
        deals.add(json.dumps(env.game.snapshot(env.state_)["state"], sort_keys=True))
    assert len(deals) == 5


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_reset_without_seed_continues_the_sequence_of_deals(spec, config):
    first, second = spec.module().raw_env(**config), spec.module().raw_env(**config)
    first.reset(seed=3)
    second.reset(seed=3)
    first.reset()
    second.reset()
    assert first.game.snapshot(first.state_) == second.game.snapshot(second.state_)


@pytest.mark.parametrize("spec, config", CONFIGS)
def test_snapshot_json_round_trip_continues_identically(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(25):
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    saved = json.loads(json.dumps(env.snapshot()))
    restored = spec.module().raw_env(**config)
    restored.restore(saved)
    actions_rng = np.random.default_rng(1)
    for _ in range(200):
        agent = env.agent_selection
        assert restored.agent_selection == agent
        original_obs, restored_obs = env.observe(agent), restored.observe(agent)
        np.testing.assert_array_equal(original_obs["observation"], restored_obs["observation"])
        np.testing.assert_array_equal(original_obs["action_mask"], restored_obs["action_mask"])
        assert env.rewards == restored.rewards
        if env.terminations[agent] or env.truncations[agent]:
            break
        action = int(actions_rng.choice(np.flatnonzero(original_obs["action_mask"])))
        env.step(action)
        restored.step(action)


@pytest.mark.parametrize("spec, config", CONFIGS)
def test_random_play_keeps_invariants(spec, config):
    """Random games from many seeds: cards all accounted for, the actor always has a legal
    action, observations in their space, and every game ends (or is truncated)."""
    env = spec.module().raw_env(**config)
    game = env.game
    space = env.observation_space(env.possible_agents[0])["observation"]
    rng = np.random.default_rng(123)
    for seed in range(8):
        env.reset(seed=seed)
        game.check_invariants(env.state_)
        steps = 0
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            agent = env.agent_selection
            observation = env.observe(agent)
            assert observation["action_mask"].any(), f"{agent} must act but has no legal action"
            for other in env.agents:
                assert space.contains(env.observe(other)["observation"]), f"{other} out of space"
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            game.check_invariants(env.state_)
            steps += 1
        assert steps <= env.max_cycles
        if env.state_.terminal:
            assert game.winners(env.state_).any() or spec.name == "foxy"


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_max_cycles_truncates_with_zero_reward(spec, config):
    env = spec.module().raw_env(max_cycles=3, **config)
    env.reset(seed=0)
    rewards = dict.fromkeys(env.agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        rewards[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1
    assert steps == 3
    assert all(value == 0.0 for value in rewards.values())


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_bad_parameters_raise_value_error(spec, config):
    module = spec.module()
    with pytest.raises(ValueError, match="num_players"):
        module.env(num_players=spec.min_players - 1)
    with pytest.raises(ValueError, match="num_players"):
        module.env(num_players=spec.max_players + 1)
    with pytest.raises(ValueError, match="max_cycles"):
        module.env(max_cycles=0)
    with pytest.raises(ValueError, match="render_mode"):
        module.env(render_mode="rgb_array")
    with pytest.raises(TypeError):
        module.env(no_such_parameter=1)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_illegal_action_raw_env_raises_naming_agent_and_legal_actions(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"{env.agent_selection}.*legal actions"):
        env.step(env.game.num_actions)  # out of range
    mask = env.observe(env.agent_selection)["action_mask"]
    if not mask.all():
        with pytest.raises(ValueError, match="illegal"):
            env.step(int(np.flatnonzero(mask == 0)[0]))


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_out_of_range_action_wrapped_env_is_an_error(spec, config):
    env = spec.module().env(**config)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(env.unwrapped.game.num_actions)
    with pytest.raises(ValueError, match="integer"):
        env.step("0")


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_wrapped_env_step_before_reset_is_an_error(spec, config):
    env = spec.module().env(**config)
    with pytest.raises(AssertionError, match="reset"):  # PettingZoo's OrderEnforcingWrapper
        env.step(0)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_wrapped_env_agent_iter_without_step_is_an_error(spec, config):
    env = spec.module().env(**config)
    with pytest.raises(AssertionError, match="reset"):
        env.agent_iter()
    env.reset(seed=0)
    iterator = iter(env.agent_iter())
    next(iterator)
    with pytest.raises(AssertionError, match="step"):
        next(iterator)  # no step() in between


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_wrapped_env_stepping_after_the_end_warns_and_does_nothing(spec, config):
    env = spec.module().env(max_cycles=1, **config)
    env.reset(seed=0)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(np.flatnonzero(observation["action_mask"])[0]))
    assert not env.agents
    env.step(None)  # PettingZoo logs a warning; nothing changes
    assert not env.agents


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_illegal_action_wrapped_env_ends_game_minus_one_for_offender(spec, config):
    env = spec.module().env(**config)
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    if mask.all():
        pytest.skip("every action is legal at the start of this game")
    env.step(int(np.flatnonzero(mask == 0)[0]))  # PettingZoo logs a warning
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.unwrapped.illegal_action_by == offender
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated and reward == (-1.0 if agent == offender else 0.0)
        env.step(None)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_observation_layout_covers_the_vector(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=0)
    layout = env.observation_layout
    covered = np.zeros(env.game.observation_size, int)
    for part in layout.values():
        covered[part] += 1
    assert (covered == 1).all()
    fields = env.describe_observation(env.observe(env.agent_selection))
    assert list(fields) == list(layout)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_render_ansi_returns_text(spec, config):
    env = spec.module().env(render_mode="ansi", **config)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 2


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_corrupt_snapshot_raises_value_error(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.game.from_json("{not json")
    with pytest.raises(ValueError):
        env.game.restore({"game": "another_game", "params": {}, "state": {}})
    snapshot = env.game.snapshot(env.state_)
    snapshot["state"]["no_such_field"] = 1
    with pytest.raises(ValueError):
        env.game.restore(snapshot)
