"""Other people's tools run on the single-agent Gymnasium view exactly as their users run them:
Gymnasium's ``check_env`` and vector environments, Stable-Baselines3's ``make_vec_env`` (which asks
for ``render_mode="rgb_array"``, drawn from the learner's seat) and sb3-contrib's ``MaskablePPO``
through it. No argument is adapted to cardzoo beyond the environment id and the game's own
parameters."""

from __future__ import annotations

import functools
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import cardzoo  # noqa: F401  (registers the Gymnasium ids)
from cardzoo.envs import GAMES
from cardzoo.single_agent import gym_id

# Minus Two's running totals and target have no upper (and the totals no lower) bound: a round
# won with a -2 lowers a total by 80 and a tie for lowest raises the target. Its observation
# space says so with infinite bounds, which Gymnasium's checker reports. These are the only
# warnings allowed; when the game's bounds become finite this entry must go.
ALLOWED_CHECKER_WARNINGS = {
    "minus_two": {
        "A Box observation space minimum value is -infinity. This is probably too low.",
        "A Box observation space maximum value is infinity. This is probably too high.",
    },
}


def messages(caught: list[warnings.WarningMessage]) -> set[str]:
    """Warning texts without the colour codes gymnasium.logger adds."""
    texts = set()
    for warning in caught:
        text = str(warning.message).replace("\x1b[33m", "").replace("\x1b[0m", "")
        texts.add(text.removeprefix("WARN: "))
    return texts


def masked_actions(masks: np.ndarray) -> np.ndarray:
    """One legal action per row of ``masks`` (the first; 0 for a finished episode, whose next
    step a Gymnasium vector env spends on resetting it)."""
    return np.array([int(np.argmax(mask)) for mask in masks])


@pytest.fixture
def torch_one_thread():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- Gymnasium's checker --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_gymnasium_check_env_passes_without_warnings(name, capsys):
    env = gymnasium.make(gym_id(name))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # with the render checks: each render mode made and rendered
    assert messages(caught) == ALLOWED_CHECKER_WARNINGS.get(name, set())
    assert capsys.readouterr().out  # "human" mode printed the table


@pytest.mark.parametrize("name", list(GAMES))
def test_gymnasium_passive_env_checker_is_quiet_over_an_episode(name):
    env = gymnasium.make(gym_id(name), render_mode="ansi")  # PassiveEnvChecker and OrderEnforcing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, info = env.reset(seed=0)
        assert isinstance(env.render(), str)
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated


# --- Gymnasium's vector environments -------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec(mode):
    envs = gymnasium.make_vec(
        "cardzoo/NobodyWantsIt-v0", num_envs=2, vectorization_mode=mode, num_players=3
    )
    try:
        observations, infos = envs.reset(seed=0)
        assert observations.shape == (2, *envs.single_observation_space.shape)
        ended = np.zeros(2, bool)
        episodes_ended = 0
        for _ in range(120):  # several episodes: autoreset (on the next step) included
            masks = np.stack(envs.call("action_masks"))
            assert np.array_equal(masks, infos["action_mask"].astype(bool))
            assert np.array_equal(masks.any(axis=1), ~ended)  # a finished game has no moves
            observations, _, terminated, truncated, infos = envs.step(masked_actions(masks))
            assert "illegal_action" not in infos
            ended = terminated | truncated
            episodes_ended += int(ended.sum())
        assert episodes_ended >= 2
    finally:
        envs.close()


def make_in_fresh_python(env_id: str) -> subprocess.CompletedProcess:
    """``gymnasium.make(env_id)`` in a Python that has not imported cardzoo, as in a worker
    process of SB3's ``SubprocVecEnv`` started from Jupyter or pytest (which make the env from
    its id there)."""
    code = f"import gymnasium; gymnasium.make({env_id!r}).reset(seed=0); print('made')"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_a_python_that_has_not_imported_cardzoo_makes_it_by_the_module_in_the_id():
    # What the README tells SubprocVecEnv users in Jupyter or pytest to write.
    made = make_in_fresh_python("cardzoo:cardzoo/NobodyWantsIt-v0")
    assert made.returncode == 0 and made.stdout == "made\n", made.stderr
    # Why: without the module, the id is unknown there.
    unknown = make_in_fresh_python("cardzoo/NobodyWantsIt-v0")
    assert unknown.returncode != 0 and "NamespaceNotFound" in unknown.stderr


# --- Stable-Baselines3 and sb3-contrib ------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_sb3_make_vec_env_out_of_the_box(name):
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    maskable_utils = pytest.importorskip("sb3_contrib.common.maskable.utils")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 asks for render_mode="rgb_array": offered, no warning
        vec_env = env_util.make_vec_env(gym_id(name), n_envs=2, seed=0)
    try:
        vec_env.reset()
        frames = vec_env.get_images()
        assert len(frames) == 2 and all(frame.dtype == np.uint8 for frame in frames)
        assert maskable_utils.is_masking_supported(vec_env)
        for _ in range(30):
            masks = maskable_utils.get_action_masks(vec_env)  # env_method("action_masks")
            assert masks.shape == (2, vec_env.action_space.n) and masks.any(axis=1).all()
            _, _, _, infos = vec_env.step(masked_actions(masks))  # numpy int64 actions
            assert not any(info.get("illegal_action") for info in infos)
    finally:
        vec_env.close()


def maskable_ppo_learns(
    vec_env_cls, basetemp: Path, env_id: str = "cardzoo/NobodyWantsIt-v0"
) -> None:
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    vec_env = env_util.make_vec_env(
        env_id, n_envs=2, seed=0, vec_env_cls=vec_env_cls, env_kwargs={"num_players": 3}
    )
    try:
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy", vec_env, n_steps=64, batch_size=64, n_epochs=2, seed=0, verbose=0
        )
        model.learn(256)
        assert model.num_timesteps == 256
        # Its logger's folder is in pytest's temp dir (tests/conftest.py), not the system's.
        assert Path(model.logger.dir).is_relative_to(basetemp)
        # Every action of a rollout was legal: no episode ended on an illegal action.
        observations = vec_env.reset()
        for _ in range(40):
            masks = sb3_contrib.common.maskable.utils.get_action_masks(vec_env)
            actions, _ = model.predict(observations, action_masks=masks)
            assert masks[np.arange(2), actions].all()
            observations, _, _, infos = vec_env.step(actions)
            assert not any(info.get("illegal_action") for info in infos)
    finally:
        vec_env.close()


def test_maskable_ppo_through_make_vec_env_dummy(torch_one_thread, tmp_path_factory):
    maskable_ppo_learns(None, tmp_path_factory.getbasetemp())  # make_vec_env's default: DummyVecEnv


def test_maskable_ppo_through_make_vec_env_subproc(torch_one_thread, tmp_path_factory):
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    # "fork": SB3's default "forkserver" workers would not have imported cardzoo under pytest
    # (see the module-in-the-id test above) and would each import torch again (~8 s).
    subproc = functools.partial(vec_env.SubprocVecEnv, start_method="fork")
    maskable_ppo_learns(subproc, tmp_path_factory.getbasetemp())
