"""Bad input to the environments, and calls out of order: every case raises a clear error naming
what is wrong, and leaves the environment exactly as it was.

The table :data:`SNAPSHOT_CASES` tampers with a real snapshot of every game, one way per case
(JSON ``true`` where an integer belongs, rewards beyond what the game gives, integers of 5,000
digits, lists nested 100,000 deep, as a dict and as JSON text); :data:`OUT_OF_ORDER_CASES` calls
a raw environment whose first ``reset`` failed. Also here: restoring a fresh ``env()`` without a
reset (both spellings), the all-zero observation inside every observation space, and Foxy under
PettingZoo's ``max_cycles_test``.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from cardzoo.envs import GAMES, foxy_v0

ONE_CONFIG_PER_GAME = [
    pytest.param(spec, spec.test_configs()[0], id=spec.name) for spec in GAMES.values()
]
ALL_CONFIGS = [
    pytest.param(spec, config, id=f"{spec.name}-{i}")
    for spec in GAMES.values()
    for i, config in enumerate(spec.test_configs())
]
DEEP = 100_000  # levels of nesting: far beyond Python's recursion limit
LONG = 5_000  # digits: beyond Python's int-from-text limit of 4,300


# --- helpers ----------------------------------------------------------------------------------


def played_env(spec, config, steps: int = 6):
    """A raw environment a few random legal steps into a seeded game."""
    env = spec.module().raw_env(**config)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return env


def picture(env):
    """Everything a rejected call must leave as it was."""
    if env.state_ is None:
        return None
    return (
        json.dumps(env.snapshot(), sort_keys=True),
        env.agent_selection,
        dict(env.terminations),
        dict(env.truncations),
        dict(env.rewards),
        {agent: info["action_mask"].tolist() for agent, info in env.infos.items()},
    )


def nested(depth: int, inner=0):
    """``[[[...inner...]]]``, ``depth`` lists deep, built without recursion."""
    value = inner
    for _ in range(depth):
        value = [value]
    return value


def int_array_field(snapshot: dict) -> str:
    """The first integer array of the engine state with values in it."""
    for name, value in snapshot["engine"]["state"].items():
        is_int = isinstance(value, dict) and value.get("dtype", "")[1:2] in ("i", "u")
        if is_int and np.prod(value["shape"]) > 0:
            return name
    raise AssertionError("no integer array in the state")


def set_first_value(data: list, value) -> None:
    """Replace the first scalar of nested lists ``data`` by ``value``."""
    while isinstance(data[0], list):
        data = data[0]
    data[0] = value


def with_text_at(snapshot: dict, path: tuple, marker_text: str) -> str:
    """The snapshot as JSON text with ``marker_text`` (raw JSON) at ``path``."""
    data = copy.deepcopy(snapshot)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = "@MARKER@"
    return json.dumps(data).replace('"@MARKER@"', marker_text)


def tampered(snapshot: dict, path: tuple, value) -> dict:
    data = copy.deepcopy(snapshot)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


# --- calls out of order ------------------------------------------------------------------------


def failed_first_reset(spec, config):
    env = spec.module().raw_env(**config)
    with pytest.raises(ValueError):
        env.reset(options=["not", "a", "dict"])
    return env


OUT_OF_ORDER_CASES = {
    "step": lambda env: env.step(0),
    "observe": lambda env: env.observe("player_0"),
}


@pytest.mark.parametrize("call", list(OUT_OF_ORDER_CASES))
@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_raw_env_call_after_a_failed_first_reset_says_call_reset_first(spec, config, call):
    env = failed_first_reset(spec, config)
    with pytest.raises(RuntimeError, match=rf"{call}\(\) called before .* call reset\(\) first"):
        OUT_OF_ORDER_CASES[call](env)
    assert env.state_ is None
    env.reset(seed=0)  # and the environment still works
    assert env.agents == env.possible_agents


# --- restoring a fresh env() ------------------------------------------------------------------


def trace_to_the_end(env, seed: int) -> list:
    """The AEC loop over ``env`` (wrapped) with random legal actions: (agent, reward, done) per
    step."""
    rng, trace = np.random.default_rng(seed), []
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        done = terminated or truncated
        trace.append((agent, reward, done, observation["observation"].tobytes()))
        env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return trace


@pytest.mark.parametrize("spelling", ["env.restore", "env.unwrapped.restore"])
@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_fresh_wrapped_env_restored_without_reset_plays_on_identically(spec, config, spelling):
    original = played_env(spec, config)
    snapshot = json.loads(json.dumps(original.snapshot()))
    fresh = spec.module().env(**config)
    restore = fresh.restore if spelling == "env.restore" else fresh.unwrapped.restore
    restore(snapshot)
    assert fresh.num_agents == len(original.agents)
    assert fresh.last()[1:4] == original.last()[1:4]
    reference = spec.module().env(**config)
    reference.restore(snapshot)
    assert trace_to_the_end(fresh, 1) == trace_to_the_end(reference, 1)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_wrapped_env_learns_of_a_game_restored_on_the_unwrapped_env_mid_loop(spec, config):
    """A loop left between ``agent_iter`` and ``step``, then a game restored on
    ``env.unwrapped``: a new loop runs it (the restore counts as a reset)."""
    env = spec.module().env(**config)
    env.reset(seed=0)
    for _ in env.agent_iter():
        break  # the wrapper now waits for a step
    snapshot = played_env(spec, config).snapshot()
    env.unwrapped.restore(snapshot)
    first_agent = trace_to_the_end(env, 2)[0][0]
    assert first_agent == f"player_{snapshot['engine']['state']['current_player']}"


def test_fresh_foxy_parallel_env_restored_without_reset_steps():
    original = foxy_v0.parallel_env(num_players=2)
    original.reset(seed=3)
    original.step({"player_0": 4, "player_1": 5})
    fresh = foxy_v0.parallel_env(num_players=2)
    fresh.restore(json.dumps(original.snapshot()))
    _, rewards, terminations, _, _ = fresh.step({"player_0": 6, "player_1": 7})
    assert fresh.state_.sheets[:, :2].tolist() == [[4, 6], [5, 7]]
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and not any(terminations.values())
