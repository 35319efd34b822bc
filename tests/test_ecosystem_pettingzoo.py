"""Other people's PettingZoo tools, run against cardzoo the way their users run them: PettingZoo's
test kit (api_test, parallel_api_test, seed tests, render_test, max_cycles), its registry
(``pettingzoo.make`` after ``import cardzoo``), pickling, the SB3 action-masking tutorial's
self-play wrapper, and SuperSuit's vector pipeline with Stable-Baselines3 PPO on Foxy."""

from __future__ import annotations

import pickle
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pettingzoo.utils
import pytest
import supersuit as ss
import torch
from pettingzoo.env_registry.exceptions import NameNotFound, VersionNotFound
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)
from pettingzoo.utils.env_logger import EnvLogger
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker
from stable_baselines3 import PPO

import cardzoo  # noqa: F401  (registers the games with PettingZoo, as users do)
from cardzoo.envs import GAMES
from cardzoo.envs.registry import register_pettingzoo

torch.set_num_threads(1)

GAME_IDS = [spec.pettingzoo_id for spec in GAMES.values()]
#: each game at its smallest and a larger player count
PLAYER_COUNTS = [
    pytest.param(spec.pettingzoo_id, n, id=f"{spec.name}-{n}p")
    for spec in GAMES.values()
    for low, high in [(spec.game_class().min_players, spec.game_class().max_players)]
    for n in sorted({low, min(low + 2, high)})
]


@pytest.fixture
def quiet_illegal_moves():
    """PettingZoo logs a warning for every illegal move; random play makes many."""
    EnvLogger.suppress_output()
    yield
    EnvLogger.unsuppress_output()


def legal_random_action(space: gymnasium.spaces.Discrete, mask: np.ndarray) -> int:
    return int(space.sample(mask.astype(np.int8)))


# --- the registry -------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_pettingzoo_make_aec_creates_every_game(game_id):
    env = pettingzoo.make("aec", game_id)
    assert isinstance(env, pettingzoo.AECEnv)
    assert env.metadata["name"] == game_id.split("/")[1].replace("-v", "_v")
    env.reset(seed=0)
    assert env.agent_selection in env.possible_agents


def test_pettingzoo_make_parallel_creates_foxy():
    env = pettingzoo.make("parallel", "cardzoo/foxy-v0", num_players=3)
    assert isinstance(env, pettingzoo.ParallelEnv)
    observations, infos = env.reset(seed=0)
    assert set(observations) == set(infos) == {"player_0", "player_1", "player_2"}


def test_pettingzoo_make_accepts_every_id_spelling_and_passes_keywords():
    # The tutorials' form, PettingZoo's module-style spelling, and "the latest version".
    for game_id in ["cardzoo/minus_two-v0", "cardzoo/minus_two_v0", "cardzoo/minus_two"]:
        env = pettingzoo.make("aec", game_id, num_players=5, max_cycles=7, render_mode="ansi")
        assert env.unwrapped.game.num_players == 5
        assert env.unwrapped.max_cycles == 7 and env.unwrapped.render_mode == "ansi"
    # max_cycles=-1: PettingZoo passes none, so the game's own default holds.
    assert pettingzoo.make("aec", "cardzoo/foxy-v0", max_cycles=-1).unwrapped.max_cycles == 20
    spec = pettingzoo.spec("parallel", "cardzoo/foxy-v0")
    assert spec.entry_point == "cardzoo.envs.foxy_v0:parallel_env"
    assert spec.make(num_players=4).possible_agents[-1] == "player_3"


def test_pettingzoo_make_of_an_unknown_game_names_the_registered_ones():
    with pytest.raises(NameNotFound, match="cardzoo/henhouse-v0"):
        pettingzoo.make("aec", "cardzoo/no_such_game-v0")
    with pytest.raises(NameNotFound):  # only Foxy has a parallel form
        pettingzoo.make("parallel", "cardzoo/henhouse-v0")


def test_an_old_version_is_refused_naming_the_registered_one():
    """Believe It or Not is v1 (its observation changed, CHANGELOG): PettingZoo and Gymnasium
    refuse v0 and name v1."""
    with pytest.raises(VersionNotFound, match="Available version: v1"):
        pettingzoo.make("aec", "cardzoo/believe_it_or_not-v0")
    with pytest.raises(gymnasium.error.DeprecatedEnv, match="cardzoo/BelieveItOrNot-v1"):
        gymnasium.make("cardzoo/BelieveItOrNot-v0")
    assert pettingzoo.make("aec", "cardzoo/believe_it_or_not").metadata["name"] == (
        "believe_it_or_not_v1"
    )


def test_registering_again_changes_nothing_and_warns_nothing():
    before = dict(pettingzoo.aec_registry)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_pettingzoo()
    assert pettingzoo.aec_registry == before


# --- PettingZoo's test kit ----------------------------------------------------------------------


@pytest.mark.parametrize("game_id, num_players", PLAYER_COUNTS)
def test_api_test_on_env_from_make(game_id, num_players):
    api_test(pettingzoo.make("aec", game_id, num_players=num_players), num_cycles=100)


@pytest.mark.parametrize("num_players", [1, 3, 5])
def test_parallel_api_test_on_foxy_from_make(num_players):
    env = pettingzoo.make("parallel", "cardzoo/foxy-v0", num_players=num_players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the kit's own reset option {"options": 1}
        parallel_api_test(env, num_cycles=100)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_seed_test(game_id, quiet_illegal_moves):
    seed_test(lambda: pettingzoo.make("aec", game_id), num_cycles=100)


def test_parallel_seed_test_on_foxy(quiet_illegal_moves):
    parallel_seed_test(lambda: pettingzoo.make("parallel", "cardzoo/foxy-v0"), num_cycles=100)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_render_test(game_id, capsys):
    render_test(lambda render_mode: pettingzoo.make("aec", game_id, render_mode=render_mode))
    assert capsys.readouterr().out  # "human" printed the table


# --- max_cycles: PettingZoo's max_cycles_test, with legal actions --------------------------------


def cycles_until_done_parallel(env) -> int:
    """max_cycles_test's parallel half: steps until every agent is done."""
    observations, _ = env.reset(seed=0)
    for step in range(1, 100):
        actions = {
            agent: legal_random_action(env.action_space(agent), obs["action_mask"])
            for agent, obs in observations.items()
        }
        observations, _, terminations, truncations, _ = env.step(actions)
        if all(terminations[a] or truncations[a] for a in terminations):
            return step
    raise AssertionError("the parallel game never ended")


def agent_turns_aec(env) -> np.ndarray:
    """max_cycles_test's AEC half: how often agent_iter gives each agent its turn (the last one
    being the step out of the finished game)."""
    env.reset(seed=0)
    turns = np.zeros(len(env.possible_agents))
    for agent in env.agent_iter():
        turns[env.possible_agents.index(agent)] += 1
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(
            None
            if done
            else legal_random_action(env.action_space(agent), observation["action_mask"])
        )
    return turns


@pytest.mark.parametrize("num_players", [1, 2, 4])
def test_max_cycles_counts_cycles_in_both_forms_of_foxy(num_players):
    max_cycles = 4
    parallel = pettingzoo.make(
        "parallel", "cardzoo/foxy-v0", num_players=num_players, max_cycles=max_cycles
    )
    assert cycles_until_done_parallel(parallel) == max_cycles
    aec = pettingzoo.make("aec", "cardzoo/foxy-v0", num_players=num_players, max_cycles=max_cycles)
    turns = agent_turns_aec(aec)
    assert np.max(turns) - 1 == max_cycles and np.median(turns) - 1 == max_cycles


@pytest.mark.parametrize("game_id", ["cardzoo/henhouse-v0", "cardzoo/minus_two-v0"])
def test_max_cycles_counts_agent_steps_in_the_turn_based_games(game_id):
    env = pettingzoo.make("aec", game_id, num_players=3, max_cycles=4)
    turns = agent_turns_aec(env)
    assert turns.sum() == 4 + 3  # four agent steps, then every agent steps out


# --- pickling -----------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_pickled_env_mid_game_continues_identically(game_id):
    env = pettingzoo.make("aec", game_id)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    copy = pickle.loads(pickle.dumps(env))
    for agent in env.agent_iter(200):
        observation, reward, terminated, truncated, _ = env.last()
        copied = copy.last()
        assert copy.agent_selection == agent
        np.testing.assert_array_equal(copied[0]["observation"], observation["observation"])
        assert copied[1:4] == (reward, terminated, truncated)
        done = terminated or truncated
        action = None if done else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        copy.step(action)


def test_pickled_foxy_parallel_env_continues_identically():
    env = pettingzoo.make("parallel", "cardzoo/foxy-v0", num_players=2, reward="points")
    env.reset(seed=4)
    env.step({"player_0": 3, "player_1": 50})
    copy = pickle.loads(pickle.dumps(env))
    while env.agents:
        actions = dict.fromkeys(env.agents, 2)
        original, copied = env.step(actions), copy.step(actions)
        assert original[1:4] == copied[1:4]
    assert copy.agents == [] and copy.illegal_action_by == env.illegal_action_by == []


# --- the SB3 action-masking tutorial: one policy plays every seat -------------------------------


class SelfPlayMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """What PettingZoo's SB3 action-masking tutorial wraps an AEC env in: one agent at a time as
    a Gymnasium env, the observation without its mask, the mask from ``action_mask()``."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        acting = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[acting],
            self.terminations[acting],
            self.truncations[acting],
            self.infos[acting],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_sb3_action_mask_tutorial_trains_on_env_from_make(game_id):
    env = SelfPlayMaskWrapper(pettingzoo.make("aec", game_id))
    env.reset(seed=0)  # the tutorial: reset first, to set the spaces
    env = ActionMasker(env, lambda wrapped: wrapped.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=128, batch_size=64, n_epochs=1)
    model.set_random_seed(0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256


def tutorial_evaluation_lengths(model, game_id: str, num_games: int) -> list[int]:
    """The SB3 action-masking tutorial's evaluation: ``player_0`` random, the model
    (deterministic) in every other seat; the agent steps of each game until it ends."""
    env = pettingzoo.make("aec", game_id)
    lengths = []
    for seed in range(num_games):
        env.reset(seed=seed)
        env.action_space(env.possible_agents[0]).seed(seed)
        steps = 0
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            mask = observation["action_mask"]
            if agent == env.possible_agents[0]:
                action = env.action_space(agent).sample(mask)
            else:
                action = model.predict(
                    observation["observation"], action_masks=mask, deterministic=True
                )[0]
            env.step(int(action))
            steps += 1
        lengths.append(steps)
    return lengths


def test_sb3_action_mask_tutorial_evaluation_finishes_on_believe_it_or_not():
    """Decision (default max_cycles): a briefly trained deterministic policy cycles once the
    random seat is out; the default (2,000 steps at 4 players) stops it five times sooner than
    the former 10,000."""
    game_id = "cardzoo/believe_it_or_not-v1"
    env = SelfPlayMaskWrapper(pettingzoo.make("aec", game_id))
    env.reset(seed=0)
    env = ActionMasker(env, lambda wrapped: wrapped.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=128, batch_size=64, n_epochs=1)
    model.set_random_seed(0)
    model.learn(total_timesteps=256)
    lengths = tutorial_evaluation_lengths(model, game_id, num_games=2)
    assert max(lengths) <= 2000


# --- SuperSuit's vector pipeline with SB3 PPO on Foxy -------------------------------------------


def foxy_vector_env(parallel_env, copies: int = 2):
    """The SB3 tutorials' pipeline: a parallel env, one vector slot per agent, copies side by
    side."""
    parallel_env.reset(seed=0)
    vector_env = ss.pettingzoo_env_to_vec_env_v1(parallel_env)
    return ss.concat_vec_envs_v1(vector_env, copies, num_cpus=1, base_class="stable_baselines3")


def test_supersuit_ppo_on_foxy_vector_observation(quiet_illegal_moves):
    # MlpPolicy wants a Box: keep the observation vector, as the SB3 tutorial's wrapper does.
    env = ss.observation_lambda_v0(
        pettingzoo.make("parallel", "cardzoo/foxy-v0", num_players=2),
        lambda observation, space: observation["observation"],
        lambda space: space["observation"],
    )
    vector_env = foxy_vector_env(env)
    model = PPO("MlpPolicy", vector_env, n_steps=64, batch_size=64, n_epochs=1)
    model.learn(total_timesteps=512)  # two rollouts of 4 x 64 steps
    assert model.num_timesteps == 512


def test_supersuit_ppo_on_foxy_dict_observation(quiet_illegal_moves):
    env = pettingzoo.make("parallel", "cardzoo/foxy-v0", num_players=3)
    vector_env = foxy_vector_env(env)
    model = PPO("MultiInputPolicy", vector_env, n_steps=32, batch_size=96, n_epochs=1)
    model.learn(total_timesteps=384)
    assert model.num_timesteps == 384


def test_supersuit_vector_env_ends_games_on_illegal_actions_and_resets(quiet_illegal_moves):
    vector_env = foxy_vector_env(pettingzoo.make("parallel", "cardzoo/foxy-v0", num_players=2))
    vector_env.reset()
    circle_everything = np.full(4, 41)  # a circled 0 for every player, on every card
    _, rewards, dones, infos = vector_env.step(circle_everything)
    assert not dones.any() and not rewards.any()
    _, rewards, dones, infos = vector_env.step(circle_everything)  # the second circle
    assert dones.all() and rewards.tolist() == [-1.0] * 4
    assert all(info["illegal_action"] for info in infos)
    assert all(info["action_mask"].all() for info in infos)  # the new game's masks
