"""Ray RLlib training (the rllib extra, in its own environment: ``make test-rllib``).

The run folder's rules (atomic checkpoints, resume and force) need no Ray and run everywhere.
Everything else is skipped where ray is not installed; one end-to-end test trains a few
iterations with 2 env runners on a local Ray instance, resumes it, and checks the files, loading
and evaluation.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from cardzoo.training.rllib.run import (
    CHECKPOINT_INFO,
    KEEP_CHECKPOINTS,
    RUN_KIND,
    RunFolder,
)


def _settings(**changes):
    return {"kind": RUN_KIND, "game": "nobody_wants_it", "iterations": 3, **changes}


class FakeAlgorithm:
    """Writes a checkpoint file as RLlib's save_to_path would, or fails halfway."""

    def __init__(self, fail: bool = False):
        self.fail = fail

    def save_to_path(self, path: str) -> None:
        Path(path, "algorithm_state.pkl").write_bytes(b"state")
        if self.fail:
            raise OSError("disk full")


def _info(iteration: int) -> dict:
    return {
        "kind": RUN_KIND,
        "game": "nobody_wants_it",
        "params": {"num_players": 3},
        "module_ids": ["shared"],
        "iteration": iteration,
    }


# ----------------------------------------------------------------------------------------------
# The run folder (no Ray needed)
# ----------------------------------------------------------------------------------------------


def test_checkpoint_is_atomic_a_failed_save_leaves_no_checkpoint(tmp_path):
    folder = RunFolder(tmp_path)
    folder.save_checkpoint(FakeAlgorithm(), _info(1))
    with pytest.raises(OSError, match="disk full"):
        folder.save_checkpoint(FakeAlgorithm(fail=True), _info(2))
    assert [path.name for path in folder.checkpoints()] == ["checkpoint_000001"]
    assert sorted(path.name for path in folder.checkpoints_path.iterdir()) == ["checkpoint_000001"]


def test_checkpoint_left_half_written_by_a_crash_is_ignored(tmp_path):
    folder = RunFolder(tmp_path)
    folder.save_checkpoint(FakeAlgorithm(), _info(1))
    crashed = folder.checkpoints_path / ".checkpoint_000002.abc"
    crashed.mkdir()
    (crashed / CHECKPOINT_INFO).write_text(json.dumps(_info(2)))
    assert folder.latest_checkpoint().name == "checkpoint_000001"
    folder.save_checkpoint(FakeAlgorithm(), _info(3))
    assert not crashed.exists()  # cleaned up by the next save


def test_checkpoints_keep_only_the_last_two(tmp_path):
    folder = RunFolder(tmp_path)
    for iteration in (10, 20, 30):
        folder.save_checkpoint(FakeAlgorithm(), _info(iteration))
    assert KEEP_CHECKPOINTS == 2
    assert [path.name for path in folder.checkpoints()] == [
        "checkpoint_000020",
        "checkpoint_000030",
    ]


def test_start_new_refuses_a_folder_holding_something_else(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty and holds no cardzoo RLlib run"):
        RunFolder(tmp_path).start_new(_settings(), force=True)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_start_new_refuses_an_existing_run_without_force(tmp_path):
    folder = RunFolder(tmp_path)
    folder.start_new(_settings(), force=False)
    (tmp_path / "metrics.json").write_text("{}")
    with pytest.raises(ValueError, match="already holds a finished run; --resume continues it"):
        folder.start_new(_settings(), force=False)


def test_force_starts_a_run_over_removing_only_run_files(tmp_path):
    folder = RunFolder(tmp_path)
    folder.start_new(_settings(iterations=3), force=False)
    folder.save_checkpoint(FakeAlgorithm(), _info(1))
    folder.write_progress([{"iteration": 1}])
    (tmp_path / "metrics.json").write_text("{}")
    folder.start_new(_settings(iterations=7), force=True)
    assert folder.read_settings()["iterations"] == 7
    assert folder.checkpoints() == [] and folder.read_progress() == []
    assert not folder.is_finished()


def test_resume_needs_a_checkpoint(tmp_path):
    folder = RunFolder(tmp_path)
    folder.start_new(_settings(), force=False)
    with pytest.raises(ValueError, match="has no checkpoint yet; start over with --force"):
        folder.start_resumed(_settings())


def test_out_that_is_a_file_is_refused(tmp_path):
    path = tmp_path / "run"
    path.write_text("")
    with pytest.raises(ValueError, match="is a file, not a run folder"):
        RunFolder(path).start_new(_settings(), force=False)


# ----------------------------------------------------------------------------------------------
# Everything below needs Ray RLlib
# ----------------------------------------------------------------------------------------------

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="ray[rllib] is not installed"
)


@pytest.fixture(scope="module")
def rllib():
    pytest.importorskip("ray.rllib")
    import torch

    torch.set_num_threads(1)
    from cardzoo.training import rllib

    return rllib


def _nwi_module(num_players: int = 2):
    """A fresh MaskedActorCritic for Nobody Wants It (no Ray instance needed)."""
    from cardzoo.envs import nobody_wants_it_v0
    from cardzoo.envs.aec import agent_spaces
    from cardzoo.training.rllib.module import MaskedActorCritic

    game = nobody_wants_it_v0.raw_env(num_players=num_players).game
    observation_space, action_space = agent_spaces(game)
    module = MaskedActorCritic(
        observation_space=observation_space, action_space=action_space, model_config={}
    )
    return game, module


@needs_ray
def test_masked_module_never_samples_an_illegal_action(rllib):
    import torch
    from ray.rllib.core.columns import Columns

    game, module = _nwi_module()
    torch.manual_seed(0)
    observation = torch.rand(1000, game.observation_size) * 3
    mask = torch.zeros(1000, game.num_actions, dtype=torch.int8)
    mask[:, [2, 5]] = 1
    logits = module.forward_exploration(
        {Columns.OBS: {"observation": observation, "action_mask": mask}}
    )
    distribution = module.get_exploration_action_dist_cls().from_logits(
        logits[Columns.ACTION_DIST_INPUTS]
    )
    actions = distribution.sample()
    assert set(actions.tolist()) == {2, 5}
    assert torch.all(distribution.logp(torch.full((1000,), 3)) < -1e30)  # probability 0


@needs_ray
def test_module_scales_bounded_fields_and_log_squashes_unbounded_ones(rllib):
    import gymnasium

    from cardzoo.agents.policy import observation_scaling

    space = gymnasium.spaces.Box(
        np.zeros(3, np.float32), np.array([4.0, np.inf, 0.0], np.float32), dtype=np.float32
    )
    scale, unbounded = observation_scaling(space.high)
    assert scale.tolist() == [0.25, 1.0, 1.0]
    assert unbounded.tolist() == [False, True, False]


@needs_ray
def test_module_default_networks_are_separate_tanh_mlps_of_128_128(rllib):
    import torch

    game, module = _nwi_module()
    sizes = [layer.out_features for layer in module.policy_net if hasattr(layer, "out_features")]
    assert sizes == [128, 128, game.num_actions]
    assert isinstance(module.policy_net[1], torch.nn.Tanh)
    assert module.value_net[-1].out_features == 1
    assert module.get_non_inference_attributes() == ["value_net"]


@needs_ray
def test_numpy_policy_gives_the_modules_masked_logits(rllib):
    import torch

    from cardzoo.agents.policy import ObservationScaler
    from cardzoo.envs import minus_two_v0
    from cardzoo.envs.aec import agent_spaces
    from cardzoo.training.rllib.agent import numpy_policy
    from cardzoo.training.rllib.module import MaskedActorCritic

    env = minus_two_v0.raw_env(num_players=3)  # unbounded totals: the log squashing too
    observation_space, action_space = agent_spaces(env.game)
    module = MaskedActorCritic(
        observation_space=observation_space, action_space=action_space, model_config={}
    )
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    observation["observation"] = observation["observation"] + np.float32(250)  # large totals
    with torch.no_grad():
        expected = module.masked_logits(
            {key: torch.as_tensor(value[None]) for key, value in observation.items()}
        )[0].numpy()
    scaled = ObservationScaler(env.game)(observation["observation"].copy())
    got = numpy_policy(module).logits(scaled)
    legal = observation["action_mask"].astype(bool)
    np.testing.assert_allclose(got[legal], expected[legal], rtol=1e-5, atol=1e-5)


@needs_ray
def test_rllib_agent_plays_its_most_likely_legal_action_and_samples_only_legal_ones(rllib):
    from cardzoo.agents.policy import ObservationScaler, PolicyAgent
    from cardzoo.training.rllib.agent import numpy_policy

    game, module = _nwi_module()
    policy = numpy_policy(module)
    rng = np.random.default_rng(0)
    observation = {
        "observation": rng.random(game.observation_size, dtype=np.float32),
        "action_mask": np.zeros(game.num_actions, np.int8),
    }
    observation["action_mask"][[1, 4, 9]] = 1
    logits = policy.logits(ObservationScaler(game)(observation["observation"].copy()))
    greedy = PolicyAgent(game, policy, seed=0)
    assert greedy.act(observation) == [1, 4, 9][int(np.argmax(logits[[1, 4, 9]]))]
    sampler = PolicyAgent(game, policy, seed=0, deterministic=False)
    assert {sampler.act(observation) for _ in range(200)} == {1, 4, 9}
    observation["action_mask"][:] = 0
    with pytest.raises(ValueError, match="no legal action"):
        greedy.act(observation)


@needs_ray
def test_learner_process_trains_with_one_torch_thread(rllib):
    import torch

    from cardzoo.training.rllib.algorithm import one_torch_thread

    torch.set_num_threads(2)
    with one_torch_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    torch.set_num_threads(1)


@needs_ray
def test_turn_based_games_use_the_raw_env_so_an_illegal_action_raises(rllib):
    from cardzoo.training.rllib.envs import TurnBasedEnv, env_class, env_config

    env = TurnBasedEnv(env_config("nobody_wants_it", {"num_players": 2}))
    observations, _ = env.reset(seed=0)
    ((agent, observation),) = observations.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal|not legal"):
        env.step({agent: illegal})
    assert env_class("foxy").__name__ == "SimultaneousEnv"
    assert env_class("minus_two") is TurnBasedEnv


@needs_ray
def test_more_env_runners_than_cores_share_them(rllib):
    from cardzoo.training.rllib.algorithm import cpus_per_env_runner

    assert cpus_per_env_runner(2, 2) == 1.0
    assert cpus_per_env_runner(2, 0) == 1.0
    assert cpus_per_env_runner(2, 8) == 0.25


@needs_ray
def test_rollout_length_counts_decisions_per_env_runner(rllib):
    from cardzoo.training.rllib.algorithm import ppo_config

    settings = rllib.run_settings(
        "foxy", {"num_players": 3}, env_runners=3, rollout_length=100, envs_per_runner=4
    )
    config = ppo_config(settings)
    assert config.train_batch_size_per_learner == 300
    assert config.num_envs_per_env_runner == 4
    assert [config.get_rollout_fragment_length(index) for index in (1, 2, 3)] == [25, 25, 25]
    assert config.count_steps_by == "agent_steps"
    assert settings["form"] == "parallel"


@needs_ray
def test_local_ray_gets_a_token_in_the_environment_not_in_home(rllib, monkeypatch, tmp_path):
    from cardzoo.training.rllib.algorithm import _provide_auth_token

    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.setenv(name, "")  # recorded, so that teardown restores the environment
        monkeypatch.delenv(name)
    assert _provide_auth_token()
    import os

    assert len(os.environ["RAY_AUTH_TOKEN"]) == 64
    first = os.environ["RAY_AUTH_TOKEN"]
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    assert _provide_auth_token() and os.environ["RAY_AUTH_TOKEN"] == first  # one per process
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # the user's own choice is kept
    assert not _provide_auth_token()


@needs_ray
def test_run_settings_refuse_bad_options(rllib):
    with pytest.raises(ValueError, match="henhouse has no decisions to learn"):
        rllib.run_settings("henhouse")
    with pytest.raises(ValueError, match="policy must be one of"):
        rllib.run_settings("nobody_wants_it", policy="each")
    with pytest.raises(ValueError, match="env_runners must be an integer >= 0"):
        rllib.run_settings("nobody_wants_it", env_runners=-1)
    with pytest.raises(ValueError, match="num_players"):
        rllib.run_settings("nobody_wants_it", {"num_players": 1})


def _saved_run(rllib, tmp_path, **options):
    folder = RunFolder(tmp_path / "run")
    folder.start_new(rllib.run_settings("nobody_wants_it", {"num_players": 3}, **options), False)
    folder.save_checkpoint(FakeAlgorithm(), _info(2))
    return folder


@needs_ray
def test_resume_keeps_the_saved_settings_and_changes_only_resumable_ones(rllib, tmp_path):
    folder = _saved_run(rllib, tmp_path, iterations=5, rollout_length=64, seed=3)
    settings = rllib.resumed_settings(
        folder, "nobody_wants_it", None, {"iterations": 9, "env_runners": 1}
    )
    assert (settings["iterations"], settings["env_runners"]) == (9, 1)
    assert (settings["rollout_length"], settings["seed"], settings["params"]["num_players"]) == (
        64,
        3,
        3,
    )
    with pytest.raises(ValueError, match=r"only iterations, .* may change .*\['seed'\]"):
        rllib.resumed_settings(folder, "nobody_wants_it", None, {"seed": 4})
    with pytest.raises(ValueError, match="is a run of nobody_wants_it, not minus_two"):
        rllib.resumed_settings(folder, "minus_two", None, {})
    with pytest.raises(ValueError, match="trained with parameters"):
        rllib.resumed_settings(folder, "nobody_wants_it", {"num_players": 4}, {})
    with pytest.raises(ValueError, match="trains policy='shared', not 'per-seat'"):
        rllib.resumed_settings(folder, "nobody_wants_it", None, {"policy": "per-seat"})


def test_rllib_agent_errors_name_the_problem(tmp_path):
    """rllib:PATH needs no Ray: a run's policies are numpy files beside its checkpoints."""
    from cardzoo.agents import make_agent
    from cardzoo.agents.policy import NumpyPolicy, save_policy
    from cardzoo.envs import load_game

    game = load_game("nobody_wants_it")
    with pytest.raises(ValueError, match="does not exist"):
        make_agent("nobody_wants_it", f"rllib:{tmp_path / 'missing'}", game)
    with pytest.raises(ValueError, match="is not an RLlib run folder of cardzoo"):
        make_agent("nobody_wants_it", f"rllib:{tmp_path}", game)
    folder = RunFolder(tmp_path / "run")
    info = _info(1)

    def write_policies(checkpoint):
        played = load_game(info["game"], **info["params"])
        layers = [(np.zeros((played.observation_size, played.num_actions), np.float32),
                   np.arange(played.num_actions, dtype=np.float32), "Identity")]  # fmt: skip
        (checkpoint / "policies").mkdir()
        record = {"game": info["game"], "params": played.params(), "module_ids": ["shared"],
                  "observation_size": played.observation_size,
                  "num_actions": played.num_actions}  # fmt: skip
        save_policy(checkpoint / "policies" / "shared.npz", NumpyPolicy(layers), record)

    folder.save_checkpoint(FakeAlgorithm(), info, write_policies)
    assert (folder.path / "policies" / "shared.npz").is_file()  # the latest, in the run folder
    with pytest.raises(ValueError, match="was trained on nobody_wants_it, not foxy"):
        make_agent("foxy", f"rllib:{folder.path}", load_game("foxy"))
    with pytest.raises(ValueError, match=r"has no policy 'player_1'; it has \['shared'\]"):
        make_agent("nobody_wants_it", f"rllib:{folder.path}@player_1", game)
    with pytest.raises(ValueError, match="observations or actions differ"):
        make_agent("nobody_wants_it", f"rllib:{folder.path}", load_game("nobody_wants_it"))
    three = load_game("nobody_wants_it", num_players=3)
    agent = make_agent("nobody_wants_it", f"rllib:{folder.path}", three, seed=0)
    observation = {"observation": np.zeros(three.observation_size, np.float32),
                   "action_mask": np.ones(three.num_actions, np.int8)}  # fmt: skip
    assert agent.act(observation) == three.num_actions - 1  # the largest bias
    assert agent.name == "rllib:run"
    checkpoint = folder.latest_checkpoint()
    assert make_agent("nobody_wants_it", f"rllib:{checkpoint}", three).act(observation) == 15
    (folder.path / "policies" / "shared.npz").write_bytes(b"damaged")
    with pytest.raises(ValueError, match="is not a cardzoo policy file"):
        make_agent("nobody_wants_it", f"rllib:{folder.path}", three)


# ----------------------------------------------------------------------------------------------
# End to end: train with 2 env runners on a local Ray instance, resume, load, evaluate
# ----------------------------------------------------------------------------------------------


@needs_ray
def test_train_resume_load_and_evaluate_on_local_ray(rllib, tmp_path, monkeypatch):
    from cardzoo.agents import make_agent
    from cardzoo.agents.policy import PolicyAgent
    from cardzoo.envs import nobody_wants_it_v0
    from cardzoo.evaluation import play_match

    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # Ray must write nothing there
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    from ray.tune.trainable.trainable import DEFAULT_STORAGE_PATH

    ray_results = Path(DEFAULT_STORAGE_PATH)  # ~/ray_results, fixed when ray was imported
    ray_results_before = sorted(ray_results.iterdir()) if ray_results.exists() else None
    monkeypatch.chdir(tmp_path)
    out = Path("runs", "nwi")  # relative, as users type it
    options = dict(env_runners=2, rollout_length=64, checkpoint_every=2, eval_games=6)
    params = {"num_players": 2}
    rllib.train(
        "nobody_wants_it", out, params, iterations=2, policy="per-seat", log=None, **options
    )
    # Resumed with the games played in this process (0 env runners): the smallest Ray setup.
    options["env_runners"] = 0
    metrics = rllib.train("nobody_wants_it", out, resume=True, iterations=3, log=None, **options)

    # Nothing outside the run folder (and Ray's temporary folder): no HOME/.ray, no ray_results.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["runs"]
    assert (sorted(ray_results.iterdir()) if ray_results.exists() else None) == ray_results_before
    assert sorted(path.name for path in out.iterdir()) == [
        "checkpoints",
        "metrics.json",
        "policies",
        "progress.jsonl",
        "settings.json",
    ]
    assert sorted(path.name for path in (out / "policies").iterdir()) == [
        "player_0.npz",
        "player_1.npz",
    ]
    folder = RunFolder(out)
    assert [row["iteration"] for row in folder.read_progress()] == [1, 2, 3]
    assert [path.name for path in folder.checkpoints()] == [
        "checkpoint_000002",
        "checkpoint_000003",
    ]
    assert folder.read_progress()[-1]["agent_steps"] == 2 * 2 * 64 + 64
    assert json.loads((out / "metrics.json").read_text()) == json.loads(json.dumps(metrics))
    assert metrics["versions"]["ray"] == __import__("ray").__version__
    assert metrics["training"]["agent_steps_per_second"] > 0
    rows = metrics["evaluation"]["opponents"]["nwi_dodger"]
    assert list(rows) == [
        "rllib player_0",
        "rllib player_1",
        "random (same seat)",
        "nwi_dodger (same seat)",
    ]
    assert rows["rllib player_1"]["seat_games"] == 6
    low, high = rows["rllib player_1"]["win_rate_ci"]
    assert low - 1e-9 <= rows["rllib player_1"]["win_rate"] <= high + 1e-9

    game = nobody_wants_it_v0.raw_env(**params).game
    agent = make_agent("nobody_wants_it", f"rllib:{out}@player_1", game, seed=0)
    assert isinstance(agent, PolicyAgent) and agent.name == "rllib:nwi@player_1"
    result = play_match("nobody_wants_it", [f"rllib:{out}", "random"], 4, params=params)
    assert result.truncated == 0 and len(result.games) == 4
