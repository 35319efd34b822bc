"""The single-agent Gymnasium view: registration, the checker, masks, rewards, illegal actions."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardzoo  # noqa: F401  (registers the Gymnasium ids)
from cardzoo.envs import GAMES
from cardzoo.training.single_agent import SingleAgentEnv, gym_id


@pytest.mark.parametrize("name", list(GAMES))
def test_registered_and_passes_gymnasium_check_env(name):
    env = gymnasium.make(gym_id(name))
    check_env(env.unwrapped, skip_render_check=True)


def test_gym_ids():
    assert gym_id("nobody_wants_it") == "cardzoo/NobodyWantsIt-v0"
    assert gym_id("henhouse") == "cardzoo/Henhouse-v0"


@pytest.mark.parametrize("name", list(GAMES))
def test_random_episodes_end_with_the_learner_rewards(name):
    env = SingleAgentEnv(name, learner_seat=0)
    for seed in range(3):
        observation, info = env.reset(seed=seed)
        assert env.observation_space.contains(observation)
        done, total = False, 0.0
        while not done:
            mask = env.action_masks()
            assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
            action = int(np.flatnonzero(mask)[0])
            observation, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        assert "illegal_action" not in info


def test_same_seed_same_episode():
    def episode(seed):
        env = SingleAgentEnv("henhouse", num_players=3)
        observation, _ = env.reset(seed=seed)
        trace = [observation.tobytes(), env.seat]
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(0)
            trace.append((observation.tobytes(), reward))
            done = terminated or truncated
        return trace

    assert episode(4) == episode(4)
    assert episode(4) != episode(5)


def test_henhouse_learner_reward_is_plus_or_minus_one():
    env = SingleAgentEnv("henhouse", learner_seat=1, num_players=2)
    env.reset(seed=0)
    done, total = False, 0.0
    while not done:
        _, reward, terminated, truncated, _ = env.step(0)
        total += reward
        done = terminated or truncated
    winner = int(np.flatnonzero(env.game.winners(env.state))[0])
    assert total == (1.0 if winner == 1 else -1.0)


def test_illegal_action_terminates_with_minus_one_or_raises():
    env = SingleAgentEnv("henhouse")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(5)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = SingleAgentEnv("henhouse", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="legal actions"):
        strict.step(5)


def test_bad_parameters():
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv("henhouse", opponents=["random"], num_players=4)
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("henhouse", learner_seat=4, num_players=4)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("henhouse", illegal_action="ignore")
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("chess")


def test_truncation_after_max_cycles():
    env = SingleAgentEnv("henhouse", learner_seat=0, max_cycles=5, num_players=2)
    env.reset(seed=0)
    done, steps = False, 0
    while not done:
        _, reward, terminated, truncated, _ = env.step(0)
        steps += 1
        done = terminated or truncated
    assert truncated and not terminated and reward == 0.0


def test_maskable_ppo_learns_on_it_without_error():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    env = gymnasium.make("cardzoo/NobodyWantsIt-v0", num_players=3)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, verbose=0)
    model.learn(128)
    observation, info = env.reset(seed=1)
    for _ in range(20):  # the masked policy only ever picks legal actions
        mask = env.unwrapped.action_masks()
        action, _ = model.predict(observation, action_masks=mask)
        assert mask[int(action)]
        observation, _, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            observation, info = env.reset()
