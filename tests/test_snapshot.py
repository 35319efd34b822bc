"""Snapshots and restore: versioned, checked before anything changes, never trusting the data.

Every game: a restore either succeeds completely (a consistent game that plays on to its end) or
raises ``ValueError`` and leaves the environment exactly as it was. The fuzz test takes real
snapshots at several points of a game, tampers with them in every way listed below, and holds
each result to that rule.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cardzoo.envs import GAMES
from cardzoo.envs.snapshot import BIT_GENERATORS, SNAPSHOT_FORMAT

ONE_CONFIG_PER_GAME = [
    pytest.param(spec, spec.test_configs()[0], id=spec.name) for spec in GAMES.values()
]
# The fuzz test: the smallest table and three players (Foxy alone: a game may end unwon).
FUZZ_CONFIGS = [
    pytest.param(spec, {**spec.test_configs()[0], "num_players": n}, id=f"{spec.name}-{n}")
    for spec in GAMES.values()
    for n in sorted({spec.game_class().min_players, min(3, spec.game_class().max_players)})
]


# --- helpers ----------------------------------------------------------------------------------


def as_json(data):
    return json.loads(json.dumps(data))


def legal_action(env, rng) -> int:
    return int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))


def is_over(env) -> bool:
    agent = env.agent_selection
    return env.terminations[agent] or env.truncations[agent]


def play(env, rng, steps: int) -> None:
    """Up to ``steps`` random legal actions; stops at the end of the game."""
    for _ in range(steps):
        if is_over(env):
            return
        env.step(legal_action(env, rng))


def picture(env):
    """Everything a rejected restore must leave as it was."""
    if env.state_ is None:
        return None
    return (
        json.dumps(env.snapshot(), sort_keys=True),
        env.agent_selection,
        getattr(env, "_skip_agent_selection", None),
        dict(env.terminations),
        dict(env.truncations),
        {agent: info["action_mask"].tolist() for agent, info in env.infos.items()},
    )


def last_of_every_step(env, rng, limit: int = 100_000) -> list:
    """Play on to the end with random legal actions (stepping every agent out); the trace of
    ``last()`` (action mask aside) at every step."""
    trace = []
    for _ in range(limit):
        if not env.agents:
            break
        observation, reward, terminated, truncated, _ = env.last()
        trace.append(
            (
                env.agent_selection,
                observation["observation"].tobytes(),
                reward,
                terminated,
                truncated,
            )
        )
        env.step(None if terminated or truncated else legal_action(env, rng))
    return trace


def snapshots_of_one_game(module, config, seed: int) -> dict:
    """Real snapshots (after a JSON round trip) at several points of one random game."""
    env = module.raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    points = {"start": as_json(env.snapshot())}
    play(env, rng, 7)
    points["middle"] = as_json(env.snapshot())
    play(env, rng, 10**6)
    points["end"] = as_json(env.snapshot())
    env.step(None)
    points["one agent out"] = as_json(env.snapshot())
    return points


def restore_and_play_to_the_end(env, snapshot, rng) -> None:
    env.restore(snapshot)
    game = env.game
    game.check_invariants(env.state_)
    space = env.observation_space(env.possible_agents[0])["observation"]
    for agent in env.agents:
        assert space.contains(env.observe(agent)["observation"]), f"{agent} out of space"
    steps = 0
    while env.agents:
        if is_over(env):
            env.step(None)
            continue
        assert env.observe(env.agent_selection)["action_mask"].any()
        env.step(legal_action(env, rng))
        steps += 1
        if steps % 16 == 0 or env.state_.terminal:
            game.check_invariants(env.state_)


# --- tampering --------------------------------------------------------------------------------

BAD_SCALARS = (-1, -2, 0, 1, 2, 5, 99, 2**40, 2**70, 1.5, True, False, "1", None, [], {})
BAD_ELEMENTS = (-1, -2, 1, 3, 5, 20, 99, 127, 2**40, 1.5, "a", None)


def tampered_generators(value) -> list:
    def with_state(change):
        data = copy.deepcopy(value)
        change(data["__generator__"])
        return data

    return [
        ("bit generator MT19937", with_state(lambda s: s.update(bit_generator="MT19937"))),
        ("bit generator Philox", with_state(lambda s: s.update(bit_generator="Philox"))),
        ("bit generator __import__", with_state(lambda s: s.update(bit_generator="__import__"))),
        ("even increment", with_state(lambda s: s["state"].update(inc=2))),
        ("negative state", with_state(lambda s: s["state"].update(state=-1))),
        ("state too large", with_state(lambda s: s["state"].update(state=2**129))),
        ("has_uint32 2", with_state(lambda s: s.update(has_uint32=2))),
        ("state key missing", with_state(lambda s: s.pop("uinteger"))),
        ("state not a dict", with_state(lambda s: s.update(state=[1, 2]))),
        ("not a generator", "PCG64"),
        ("no generator state", {"__generator__": None}),
    ]


def tampered_arrays(value, rng) -> list:
    array = np.array(value["__ndarray__"], dtype=object)
    out = []

    def changed(**fields):
        data = copy.deepcopy(value)
        data.update(fields)
        return data

    other_dtype = "<f8" if value["dtype"] != "<f8" else "<i8"
    out.append(("dtype", changed(dtype=other_dtype)))
    out.append(("dtype object", changed(dtype="|O")))
    out.append(("shape", changed(shape=[*value["shape"], 1])))
    out.append(("data flattened", changed(__ndarray__=np.ravel(array).tolist() + [0])))
    out.append(("data not a list", changed(__ndarray__="1 2 3")))
    if not array.size:
        return out
    bads = (not array.flat[0],) if value["dtype"] == "|b1" else BAD_ELEMENTS
    for bad in bads:
        index = tuple(int(rng.integers(size)) for size in array.shape)
        element = array.copy()
        element[index] = bad
        out.append((f"{list(index)} = {bad!r}", changed(__ndarray__=element.tolist())))
    return out


def tampered_engines(engine, rng) -> list:
    """(label, engine snapshot) pairs, each one change away from ``engine``."""
    out = []

    def variant(label, change):
        data = copy.deepcopy(engine)
        change(data)
        out.append((label, data))

    for name, value in engine["state"].items():
        variant(f"drop {name}", lambda d, n=name: d["state"].pop(n))
        if isinstance(value, dict) and "__ndarray__" in value:
            bad_values = tampered_arrays(value, rng)
        elif isinstance(value, dict) and "__generator__" in value:
            bad_values = tampered_generators(value)
        else:
            bad_values = [(repr(bad), bad) for bad in BAD_SCALARS if value is not bad]
        for label, bad in bad_values:
            variant(f"{name}: {label}", lambda d, n=name, b=bad: d["state"].__setitem__(n, b))
    variant("unknown field", lambda d: d["state"].update(no_such_field=1))
    variant("state not a dict", lambda d: d.update(state=[]))
    variant("another game", lambda d: d.update(game="foxy" if d["game"] != "foxy" else "henhouse"))
    variant("other parameters", lambda d: d.update(params={"__dict__": []}))
    variant("format 2", lambda d: d.update(format=SNAPSHOT_FORMAT + 1))
    variant("format '1'", lambda d: d.update(format=str(SNAPSHOT_FORMAT)))
    variant("format True", lambda d: d.update(format=True))
    variant("no format", lambda d: d.pop("format"))
    variant("unknown key", lambda d: d.update(comment="hello"))
    return out


def tampered_env_snapshots(snapshot, possible_agents, rng) -> list:
    """(label, environment snapshot) pairs, each one change away from ``snapshot``."""
    out = [
        (f"engine {label}", {**snapshot, "engine": engine})
        for label, engine in tampered_engines(snapshot["engine"], rng)
    ]

    def variant(label, **changes):
        out.append((label, {**copy.deepcopy(snapshot), **changes}))

    agents, first = snapshot["agents"], possible_agents[0]
    for bad in (-1, 1.5, True, 2**70, None, "3", 10**6):
        variant(f"num_steps {bad!r}", num_steps=bad)
    for label, bad in tampered_generators(snapshot["env_rng"]):
        variant(f"env_rng {label}", env_rng=bad)
    for bad in ([], ["player_9"], agents + agents[:1], agents[::-1], "player_0", None, [0]):
        variant(f"agents {bad!r}", agents=bad)
    if agents != possible_agents:
        variant("every agent back", agents=possible_agents)
    for key in ("rewards", "cumulative_rewards"):
        rewards = snapshot[key]
        for bad in (float("nan"), float("inf"), "1", True, None):
            if agents:
                variant(f"{key} {bad!r}", **{key: {**rewards, agents[0]: bad}})
        variant(f"{key} extra agent", **{key: {**rewards, "player_9": 0.0}})
        variant(f"{key} not a dict", **{key: [0.0] * len(agents)})
        if agents:
            variant(
                f"{key} missing agent",
                **{key: {a: r for a, r in rewards.items() if a != agents[0]}},
            )
    for bad in ("nobody", 3, first, [], {}):
        variant(f"illegal_action_by {bad!r}", illegal_action_by=bad)
    for key in snapshot:
        out.append((f"drop {key}", {k: v for k, v in snapshot.items() if k != key}))
    variant("unknown key", comment="hello")
    variant("format 2", format=SNAPSHOT_FORMAT + 1)
    out.append(("engine snapshot given to env.restore", copy.deepcopy(snapshot["engine"])))
    return out


# --- the fuzz test ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec, config", FUZZ_CONFIGS)
def test_tampered_snapshots_are_restored_and_playable_or_rejected_leaving_env_unchanged(
    spec, config
):
    module = spec.module()
    rng = np.random.default_rng(0)

    def game_in_progress():
        env = module.raw_env(**config)
        env.reset(seed=5)
        play(env, np.random.default_rng(5), 3)
        return env

    target = game_in_progress()
    before = picture(target)
    outcomes = {"accepted": 0, "rejected": 0}
    for point, snapshot in snapshots_of_one_game(module, config, seed=1).items():
        for label, tampered in tampered_env_snapshots(snapshot, target.possible_agents, rng):
            where = f"{point} snapshot, {label}"
            try:
                restore_and_play_to_the_end(target, tampered, rng)
            except ValueError:
                assert picture(target) == before, f"{where}: rejected but the env changed"
                outcomes["rejected"] += 1
                continue
            except Exception as error:  # noqa: BLE001 -- name the tampering that broke it
                pytest.fail(f"{where}: {type(error).__name__}: {error}")
            outcomes["accepted"] += 1
            target = game_in_progress()
    assert outcomes["rejected"] > 300 and outcomes["accepted"] > 5, outcomes


# --- format, game, parameters -----------------------------------------------------------------


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_snapshots_carry_the_format_version(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=0)
    assert env.snapshot()["format"] == SNAPSHOT_FORMAT
    assert env.game.snapshot(env.state_)["format"] == SNAPSHOT_FORMAT


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_restore_rejects_another_format_version(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=0)
    snapshot = env.snapshot()
    with pytest.raises(ValueError, match="format 2; .* reads snapshot format 1"):
        env.restore({**snapshot, "format": 2})
    with pytest.raises(ValueError, match="format None"):
        env.game.restore({k: v for k, v in snapshot["engine"].items() if k != "format"})


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_rejected_snapshot_of_another_game_keeps_the_game_in_progress(spec, config):
    env = spec.module().raw_env(**config)
    env.reset(seed=3)
    play(env, np.random.default_rng(3), 5)
    before = picture(env)
    other_name = "foxy" if spec.name != "foxy" else "henhouse"
    other = GAMES[other_name].module().raw_env()
    other.reset(seed=0)
    with pytest.raises(ValueError, match=f"it is a snapshot of game '{other_name}'"):
        env.restore(other.snapshot())
    assert picture(env) == before


def test_restore_rejects_other_parameters():
    from cardzoo.envs import henhouse_v0

    four, three = henhouse_v0.raw_env(num_players=4), henhouse_v0.raw_env(num_players=3)
    three.reset(seed=0)
    with pytest.raises(ValueError, match="parameters .* differ"):
        four.restore(three.snapshot())
    assert four.state_ is None


# --- what may be passed to restore -------------------------------------------------------------


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_restore_accepts_the_snapshot_as_json_text_str_or_utf8_bytes(spec, config):
    """Decision: ``restore`` takes the dict or its JSON text, as written to a file."""
    env = spec.module().raw_env(**config)
    env.reset(seed=4)
    play(env, np.random.default_rng(4), 6)
    text = json.dumps(env.snapshot())
    for given in (text, text.encode()):
        restored = spec.module().raw_env(**config)
        restored.restore(given)
        assert picture(restored) == picture(env)
    assert env.game.snapshot(env.game.restore(env.game.to_json(env.state_))) == env.game.snapshot(
        env.state_
    )


@pytest.mark.parametrize(
    "given, message",
    [
        (None, "expected a dict .* got NoneType"),
        (42, "expected a dict .* got int"),
        ([1, 2], "expected a dict .* got list"),
        ("{not json", "not JSON"),
        ('"a string"', "expected a dict .* got str"),
        (b"\xff\xfe{", "not UTF-8"),
        ("[" * 100_000, "not JSON"),
    ],
)
def test_restore_of_something_that_is_no_snapshot_is_a_value_error(given, message):
    from cardzoo.envs import nobody_wants_it_v0

    env = nobody_wants_it_v0.raw_env()
    env.reset(seed=0)
    before = picture(env)
    with pytest.raises(ValueError, match=message):
        env.restore(given)
    with pytest.raises(ValueError, match=message):
        env.game.restore(given)
    assert picture(env) == before


def test_engine_snapshot_given_to_env_restore_is_named():
    from cardzoo.envs import minus_two_v0

    env = minus_two_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"a game's snapshot \(game.snapshot\)"):
        env.restore(env.game.snapshot(env.state_))


# --- the generator: chosen by the reader, never by the data ---------------------------------------


def test_snapshot_cannot_choose_the_bit_generator(monkeypatch):
    """Only whitelisted bit generators are rebuilt, and never by looking a name up on
    ``numpy.random``: a name there would be code chosen by the snapshot."""
    from cardzoo.envs import henhouse_v0

    assert list(BIT_GENERATORS) == ["PCG64"]
    env = henhouse_v0.raw_env()
    env.reset(seed=0)
    snapshot = env.snapshot()
    called = []
    monkeypatch.setattr(np.random, "Philox", lambda *args: called.append(args))
    for field in ("env_rng", "engine"):
        tampered = copy.deepcopy(snapshot)
        generator = (
            tampered["env_rng"] if field == "env_rng" else tampered["engine"]["state"]["rng"]
        )
        generator["__generator__"]["bit_generator"] = "Philox"
        with pytest.raises(ValueError, match=r"bit generator 'Philox' is not allowed"):
            env.restore(tampered)
    assert called == []


# --- restoring into a fresh environment, and after the end -------------------------------------


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_restore_into_a_fresh_wrapped_env_needs_no_reset(spec, config):
    module = spec.module()
    original = module.env(**config)
    original.reset(seed=2)
    for _ in range(5):
        observation, _, terminated, truncated, _ = original.last()
        if terminated or truncated:
            break
        original.step(int(np.flatnonzero(observation["action_mask"])[0]))
    restored = module.env(**config)
    restored.restore(original.unwrapped.snapshot())
    assert restored.last()[1:4] == original.last()[1:4]
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    assert last_of_every_step(restored.unwrapped, rng_a) == last_of_every_step(
        original.unwrapped, rng_b
    )


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_failed_restore_of_a_fresh_wrapped_env_leaves_it_waiting_for_reset(spec, config):
    env = spec.module().env(**config)
    with pytest.raises(ValueError):
        env.restore({"format": SNAPSHOT_FORMAT})
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_snapshot_after_agents_stepped_out_of_a_finished_game_continues(spec, config):
    module = spec.module()
    original = module.raw_env(**config)
    original.reset(seed=6)
    play(original, np.random.default_rng(6), 10**6)
    while len(original.agents) > 1:
        original.step(None)  # every agent but one steps out
        snapshot = as_json(original.snapshot())
        restored = module.env(**config)
        restored.restore(snapshot)
        assert restored.agents == original.agents
        assert restored.agent_selection == original.agent_selection
        assert restored.last()[1:4] == original.last()[1:4]
        rng = np.random.default_rng(0)
        copy_of_original = module.raw_env(**config)
        copy_of_original.restore(snapshot)
        assert last_of_every_step(restored.unwrapped, rng) == last_of_every_step(
            copy_of_original, rng
        )
        assert not restored.agents


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_snapshot_after_every_agent_stepped_out_restores_an_empty_game(spec, config):
    module = spec.module()
    env = module.env(**config)
    env.reset(seed=6)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else int(np.flatnonzero(observation["action_mask"])[0]))
    restored = module.env(**config)
    restored.restore(env.unwrapped.snapshot())
    assert restored.agents == [] and restored.agent_selection == env.agent_selection
    assert list(restored.agent_iter()) == []


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_snapshot_after_an_illegal_move_restores_terminated_and_truncated(spec, config):
    module = spec.module()
    env = module.env(**config)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.last()[0]["action_mask"].all() and not (env.last()[2] or env.last()[3]):
        env.step(legal_action(env.unwrapped, rng))
    if env.last()[2] or env.last()[3]:
        pytest.skip("every action is always legal in this game")
    mask = env.last()[0]["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))  # PettingZoo logs a warning
    restored = module.env(**config)
    restored.restore(as_json(env.unwrapped.snapshot()))
    assert restored.terminations == env.terminations and all(restored.terminations.values())
    assert restored.truncations == env.truncations and all(restored.truncations.values())
    assert restored.unwrapped.illegal_action_by == env.unwrapped.illegal_action_by
    assert last_of_every_step(restored.unwrapped, rng) == last_of_every_step(env.unwrapped, rng)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_restore_with_a_smaller_max_cycles_truncates_the_restored_game(spec, config):
    """Truncation follows from the snapshot's step count and the restoring env's own
    ``max_cycles``."""
    module = spec.module()
    env = module.raw_env(**config)
    env.reset(seed=1)
    play(env, np.random.default_rng(1), 2)
    if env.state_.terminal or env.num_steps == 0:
        pytest.skip("the game is over after two steps")
    short = module.raw_env(max_cycles=env.num_steps, **config)
    short.restore(env.snapshot())
    assert all(short.truncations.values()) and not any(short.terminations.values())


# --- the checks hold without assert statements -------------------------------------------------


def test_restore_checks_the_game_under_python_dash_o():
    """``check_invariants`` uses ``require``, not ``assert``: ``python -O`` keeps the checks."""
    script = textwrap.dedent(
        """
        from cardzoo.envs import henhouse_v0
        env = henhouse_v0.raw_env()
        env.reset(seed=0)
        snapshot = env.snapshot()
        snapshot["engine"]["state"]["pile_size"] = 3  # three cards too many
        try:
            env.restore(snapshot)
        except ValueError as error:
            print("rejected:", error)
        """
    )
    result = subprocess.run(
        [sys.executable, "-O", "-c", script], capture_output=True, text=True, check=True
    )
    assert "rejected: invalid henhouse snapshot: inconsistent state" in result.stdout


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_check_invariants_contains_no_assert_statement(spec, config):
    import inspect

    game = spec.module().raw_env(**config).game
    source = inspect.getsource(type(game))
    start = source.index("def check_invariants")
    assert "\n        assert " not in source[start:] and " assert " not in source[start:]


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_every_state_field_has_a_type_restore_can_check(spec, config):
    game = spec.module().raw_env(**config).game
    specs = game._field_specs
    assert specs["rng"] == ("generator",)
    assert specs["current_player"] == ("int",) and specs["terminal"] == ("bool",)
