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
import functools
import json
import re
import types
import warnings

import numpy as np
import pytest
from pettingzoo.test import max_cycles_test
from pettingzoo.utils.env_logger import EnvLogger

from cardzoo.envs import GAMES, foxy_v0
from cardzoo.errors import InputError

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


# --- the table of tampered snapshots ------------------------------------------------------------


def bool_in_int_array(snapshot):
    field = int_array_field(snapshot)
    data = copy.deepcopy(snapshot)
    set_first_value(data["engine"]["state"][field]["__ndarray__"], True)
    return data, rf"field '{field}': expected integers, got True"


def long_int_in_int_array_text(snapshot):
    field = int_array_field(snapshot)
    data = copy.deepcopy(snapshot)
    set_first_value(data["engine"]["state"][field]["__ndarray__"], "@MARKER@")
    text = json.dumps(data).replace('"@MARKER@"', "7" * LONG)
    return text, rf"field '{field}': expected integers, got an integer of {LONG} digits"


def deep_list_in_array_data(snapshot):
    field = int_array_field(snapshot)
    data = copy.deepcopy(snapshot)
    set_first_value(data["engine"]["state"][field]["__ndarray__"], nested(DEEP))
    return data, rf"field '{field}': data is nested deeper than its shape"


SNAPSHOT_CASES = {
    "bool in an int array": bool_in_int_array,
    "reward beyond the game's": lambda s: (
        tampered(s, ("rewards", "player_0"), 2.0),
        r"rewards\['player_0'\]: 2\.0 is out of range -1\.\.1",
    ),
    "cumulative reward absurd": lambda s: (
        tampered(s, ("cumulative_rewards", "player_0"), -1e300),
        r"cumulative_rewards\['player_0'\]: -1e\+300 is out of range -1\.\.1",
    ),
    "5,000-digit int, JSON text": lambda s: (
        with_text_at(s, ("num_steps",), "9" * LONG),
        rf"num_steps: an integer of {LONG} digits is out of range",
    ),
    "5,000-digit int, dict": lambda s: (
        tampered(s, ("num_steps",), int("9" * 1000) ** 5),
        r"num_steps: an integer of more than 40 digits is out of range",
    ),
    "5,000-digit int in an array, JSON text": long_int_in_int_array_text,
    "100,000-deep list, JSON text": lambda s: (
        with_text_at(s, ("num_steps",), "[" * DEEP + "]" * DEEP),
        r"nested too deeply .* at field 'num_steps'",
    ),
    "100,000-deep list in the engine, JSON text": lambda s: (
        with_text_at(s, ("engine", "state", "current_player"), "[" * DEEP + "]" * DEEP),
        r"nested too deeply .* at field 'current_player'",
    ),
    "100,000-deep list, dict": lambda s: (
        tampered(s, ("num_steps",), nested(DEEP)),
        r"num_steps: expected an integer, got a list of 1 items",
    ),
    "100,000-deep list as parameters": lambda s: (
        tampered(s, ("engine", "params"), nested(DEEP)),
        r"its parameters a list of 1 items differ",
    ),
    "100,000-deep list as agents": lambda s: (
        tampered(s, ("agents",), nested(DEEP, "player_0")),
        r"agents: agents must be a list of agent names, got a list of 1 items",
    ),
    "100,000-deep list as a generator": lambda s: (
        tampered(s, ("engine", "state", "rng"), nested(DEEP)),
        r"field 'rng': expected \{'__generator__': state\}, got a list of 1 items",
    ),
    "100,000-deep list in an array": deep_list_in_array_data,
}


@pytest.mark.parametrize("case", list(SNAPSHOT_CASES))
@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_tampered_snapshot_is_a_value_error_naming_the_field_and_changes_nothing(
    spec, config, case
):
    env = played_env(spec, config)
    bad, message = SNAPSHOT_CASES[case](json.loads(json.dumps(env.snapshot())))
    before = picture(env)
    with pytest.raises(ValueError, match=message):
        env.restore(bad)
    assert picture(env) == before
    fresh = spec.module().raw_env(**config)
    with pytest.raises(ValueError, match=message):
        fresh.restore(bad)
    assert fresh.state_ is None


def test_bool_in_an_array_shape_is_a_value_error():
    # Foxy solo: the sheets are (1, 20); JSON true == 1 must not pass for the 1.
    env = played_env(GAMES["foxy"], {"num_players": 1})
    bad = tampered(env.snapshot(), ("engine", "state", "circled", "shape"), [True])
    before = picture(env)
    with pytest.raises(ValueError, match=r"field 'circled': shape \[True\], expected \[1\]"):
        env.restore(json.loads(json.dumps(bad)))
    assert picture(env) == before


def test_reward_bound_of_points_modes_is_what_the_scoring_can_give():
    """Decision (reward bound): ``reward="points"`` bounds are the scoring's most."""
    nwi = GAMES["nobody_wants_it"].module().raw_env(reward="points").game
    assert nwi.reward_bound() == (4 * 1 + 4) + (4 * 2 + 4) + (4 * 3 + 4)
    assert foxy_v0.raw_env(reward="points", max_guess=10).game.reward_bound() == 21 * 10
    minus_two = GAMES["minus_two"].module().raw_env(reward="points", num_players=2).game
    assert minus_two.reward_bound() == 2 * int(
        minus_two.composition @ np.append(np.array(list(range(1, 11)) + [20, 50]), 0)[:12]
    )
    env = foxy_v0.raw_env(reward="points", max_guess=10)
    env.reset(seed=0)
    at_bound = tampered(env.snapshot(), ("rewards", "player_0"), 210)
    env.restore(at_bound)  # the bound itself is allowed
    with pytest.raises(ValueError, match=r"210\.5 is out of range -210\.\.210"):
        env.restore(tampered(at_bound, ("rewards", "player_0"), 210.5))


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


@pytest.mark.parametrize("action", [None, 0])
@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_step_after_every_agent_stepped_out_says_the_game_is_over(spec, config, action):
    """Issue 32: a KeyError ('player_0') before; now what Foxy's parallel form says, and the
    environment still works after reset()."""
    env = spec.module().raw_env(**config)
    env.reset(seed=0)
    trace_to_the_end(env, 0)
    assert env.agents == []
    name = env.metadata["name"]
    message = f"{name}: the game is over; call reset() to start a new one"
    with pytest.raises(RuntimeError) as over:
        env.step(action)
    assert str(over.value) == message
    env.reset(seed=1)
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


# --- the all-zero observation --------------------------------------------------------------------


@pytest.mark.parametrize("spec, config", ALL_CONFIGS)
def test_all_zero_observation_lies_in_the_observation_space(spec, config):
    """Frame stacking and SuperSuit's delay_observations pad with zeros."""
    env = spec.module().env(**config)
    space = env.observation_space("player_0")
    zeros = {key: np.zeros(part.shape, part.dtype) for key, part in space.spaces.items()}
    assert space.contains(zeros)
    if spec.game_class().simultaneous:
        parallel_space = spec.module().parallel_env(**config).observation_space("player_0")
        assert parallel_space.contains(zeros)


# --- Foxy under PettingZoo's max_cycles_test ----------------------------------------------------


def foxy_module(**params) -> types.SimpleNamespace:
    """What max_cycles_test takes: a module with ``env`` and ``parallel_env``."""
    return types.SimpleNamespace(
        env=functools.partial(foxy_v0.env, **params),
        parallel_env=functools.partial(foxy_v0.parallel_env, **params),
    )


@pytest.mark.parametrize("num_players", [1, 2, 5])
def test_max_cycles_test_passes_on_foxy_with_drop_circle(num_players):
    """Decision (drop_circle): the test plays unmasked random actions, half of them circled."""
    EnvLogger.suppress_output()
    try:
        for _ in range(5):  # the test is unseeded: several games
            max_cycles_test(foxy_module(num_players=num_players, illegal_action="drop_circle"))
    finally:
        EnvLogger.unsuppress_output()


def test_drop_circle_writes_a_second_circle_plain_in_both_forms():
    circle = foxy_v0.raw_env().game.max_guess + 1  # action of a circled 0
    parallel = foxy_v0.parallel_env(num_players=2, illegal_action="drop_circle")
    parallel.reset(seed=0)
    parallel.step({"player_0": circle + 3, "player_1": 2})
    _, rewards, terminations, _, _ = parallel.step({"player_0": circle + 5, "player_1": 4})
    assert parallel.state_.sheets[:, :2].tolist() == [[3, 5], [2, 4]]
    assert parallel.state_.circled.tolist() == [0, -1]
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and not any(terminations.values())
    aec = foxy_v0.env(num_players=2, illegal_action="drop_circle")
    aec.reset(seed=0)
    for action in (circle + 3, 2, circle + 5, 4):
        aec.step(action)
    assert aec.unwrapped.state_.sheets[:, :2].tolist() == [[3, 5], [2, 4]]
    assert aec.unwrapped.state_.circled.tolist() == [0, -1]
    assert aec.unwrapped.illegal_action_by is None and aec.agents == ["player_0", "player_1"]


def test_foxy_env_illegal_action_mode_must_be_known():
    with pytest.raises(ValueError, match=r"illegal_action='ignore' is not allowed"):
        foxy_v0.env(illegal_action="ignore")


def test_foxy_env_keeps_the_classic_convention_by_default():
    env = foxy_v0.env(num_players=1)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns about the illegal move
        env.step(foxy_v0.raw_env().game.max_guess + 1)  # solo: no circling
    assert env.rewards == {"player_0": -1.0} and env.unwrapped.illegal_action_by == "player_0"


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
@pytest.mark.parametrize("seat", [-1, "n", 1.0, True])
def test_a_seat_that_does_not_exist_is_refused_by_the_engine(spec, config, seat):
    """observe, legal_mask, render and picture read a player's arrays: a seat outside
    0..num_players-1 gave values outside the observation space, a picture "seen by player_7"
    or an IndexError from deep inside the rules."""
    env = played_env(spec, config)
    game, state = env.game, env.state_
    seat = game.num_players if seat == "n" else seat
    before = json.dumps(game.snapshot(state), sort_keys=True)
    allowed = f"allowed 0..{game.num_players - 1}" if type(seat) is int else "must be an integer"
    for call in (game.observe, game.legal_mask, game.render):
        with pytest.raises(ValueError, match=f"{spec.name}: player.*{allowed}"):
            call(state, seat)
    with pytest.raises(ValueError, match=f"{spec.name}: viewer.*{allowed}"):
        game.picture(state, seat)
    assert json.dumps(game.snapshot(state), sort_keys=True) == before
    assert game.observe(state, np.int64(game.num_players - 1)).shape == (game.observation_size,)


@pytest.mark.parametrize(
    "agent, mode, message",
    [
        ("player_5", "ansi", "agent='player_5' is not one of"),
        ([], "ansi", r"agent=\[\] is not one of"),  # it was a TypeError: unhashable
        ("player_0", "human", "mode='human' is not allowed"),
    ],
)
def test_render_seat_refuses_a_seat_or_mode_as_bad_input(agent, mode, message):
    env = foxy_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(InputError, match=message):
        env.render_seat(agent, mode)


def test_render_seat_before_reset_names_render_seat():
    env = foxy_v0.raw_env()
    with pytest.raises(RuntimeError, match=r"render_seat\(\) called before reset\(\)"):
        env.render_seat("player_0", "ansi")


@pytest.mark.parametrize("spec, config", ALL_CONFIGS)
def test_new_state_from_a_seed_is_the_game_reset_deals_from_it(spec, config):
    """``game.new_state(7)`` deals what ``env.reset(seed=7)`` deals (it raised a TypeError or
    an AttributeError, and no public function gave the environment's deal)."""
    env = spec.module().raw_env(**config)
    env.reset(seed=7)
    state = env.game.new_state(7)
    expected = env.game.snapshot(env.state_)["state"]
    assert json.dumps(env.game.snapshot(state)["state"]) == json.dumps(expected)
    env.game.check_invariants(env.game.new_state(None))  # fresh entropy: some valid deal
    for bad in (-1, 1.5, True, "7", [7]):
        with pytest.raises(ValueError, match="new_state: rng must be a numpy.random.Generator"):
            env.game.new_state(bad)


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_an_unknown_keyword_of_env_and_raw_env_names_the_parameters(spec, config):
    """env(num_player=3) raised a bare TypeError naming the engine class's __init__."""
    for make in (spec.module().env, spec.module().raw_env):
        with pytest.raises(ValueError, match=rf"{spec.name} has no parameter 'num_player'; its "
                           r"parameters: num_players, .*render_mode, max_cycles"):  # fmt: skip
            make(num_player=3)


def test_foxy_raw_env_has_no_illegal_action_keyword():
    with pytest.raises(ValueError, match="foxy has no parameter 'illegal_action'"):
        foxy_v0.raw_env(illegal_action="raise")


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_describe_observation_refuses_a_vector_of_another_shape(spec, config):
    env = spec.module().raw_env(**config)
    size = env.game.observation_size
    with pytest.raises(ValueError, match=rf"has shape \({size},\); got \(3,\)"):
        env.describe_observation(np.zeros(3))
    assert set(env.describe_observation(np.zeros(size))) == set(env.game.observation_layout)


# --- states belong to their game (cardzoo.envs.core, "States belong to their game") -----------

#: per game: a game of other parameters than its default one, with fewer seats
FEWER_SEATS = {
    "nobody_wants_it": {"num_players": 3},
    "believe_it_or_not": {"num_players": 3},
    "minus_two": {"num_players": 3},
    "foxy": {"num_players": 3},
    "henhouse": {"num_players": 3},
}


def state_calls(game, state) -> dict:
    """Every engine method that takes a state, called on ``state``."""
    calls = {
        "legal_mask": lambda: game.legal_mask(state, 0),
        "observe": lambda: game.observe(state, 0),
        "step": lambda: game.step(state, 0),
        "scores": lambda: game.scores(state),
        "winners": lambda: game.winners(state),
        "render": lambda: game.render(state),
        "picture": lambda: game.picture(state),
        "snapshot": lambda: game.snapshot(state),
        "copy_state": lambda: game.copy_state(state),
    }
    if game.can_resample():
        calls["resample"] = lambda: game.resample(state, 0, np.random.default_rng(0))
    return calls


def not_refused(calls: dict, pattern: str) -> list[str]:
    """The names of the ``calls`` that do not raise an InputError matching ``pattern``."""
    missed = []
    for method, call in calls.items():
        try:
            call()
        except InputError as error:
            if re.search(pattern, str(error)):
                continue
        missed.append(method)
    return missed


@pytest.mark.parametrize("name", list(FEWER_SEATS))
def test_states_belong_to_their_game_a_state_of_other_parameters_is_refused(name):
    """A state dealt by the game at 3 seats, handed to the game at its default seats: the
    4-seat game observed a 3-seat Nobody Wants It state for seat 3 as numbers of nobody's hand.
    Every method refuses it, naming both games, and leaves the state as it was."""
    from cardzoo.envs import load_game

    default, fewer = load_game(name), load_game(name, **FEWER_SEATS[name])
    assert default.num_players != fewer.num_players
    state = fewer.new_state(7)
    before = json.dumps(fewer.snapshot(state), sort_keys=True)
    made_by = re.escape(f"this state was made by {fewer.state_key}, and this game is "
                        f"{default.state_key}")  # fmt: skip
    assert not_refused(state_calls(default, state), made_by) == []
    assert json.dumps(fewer.snapshot(state), sort_keys=True) == before


def test_states_belong_to_their_game_the_key_names_the_game_version_and_parameters():
    from cardzoo.envs import load_game

    game = load_game("nobody_wants_it", num_players=3)
    assert game.state_key == "nobody_wants_it_v0(num_players=3, num_rounds=3, reward='win')"
    assert game.new_state(0).game_key == game.state_key
    assert load_game("believe_it_or_not", variant="quick").state_key == (
        "believe_it_or_not_v1(num_players=4, variant='quick', num_species=8, special_cards=True)"
    )


@pytest.mark.parametrize("name", list(FEWER_SEATS))
def test_states_belong_to_their_game_of_the_same_parameters_too(name):
    """Another game object of the same parameters (a search agent's, a restored environment's)
    plays the state as its own: the same masks, observations and snapshot. Copies and restored
    states keep their game, and a state built by hand (no game recorded) is accepted."""
    from cardzoo.envs import load_game

    game, same = load_game(name), load_game(name)
    state = game.new_state(7)
    assert same.state_key is game.state_key  # one string for equal games
    for seat in range(game.num_players):
        assert (same.legal_mask(state, seat) == game.legal_mask(state, seat)).all()
        assert (same.observe(state, seat) == game.observe(state, seat)).all()
    assert same.snapshot(state) == game.snapshot(state)
    assert same.copy_state(state).game_key == game.state_key
    assert same.restore(game.snapshot(state)).game_key == game.state_key
    other = load_game(name, **FEWER_SEATS[name])
    with pytest.raises(InputError, match="this state was made by"):
        other.observe(same.restore(game.snapshot(state)), 0)
    if not hasattr(state, "layout"):  # a dataclass state: one built field by field
        by_hand = type(state)(**state.field_values())
        assert by_hand.game_key is None
        assert (game.observe(by_hand, 0) == game.observe(state, 0)).all()


def test_states_belong_to_their_game_a_state_of_another_game_is_refused():
    from cardzoo.envs import load_game

    nobody_wants_it, foxy = load_game("nobody_wants_it"), load_game("foxy")
    state = nobody_wants_it.new_state(7)
    expected = r"foxy: expected a state of this game \(FoxyState\), got NobodyWantsItState"
    assert not_refused(state_calls(foxy, state), expected) == []
    with pytest.raises(InputError, match="expected a state of this game .*, got NoneType"):
        nobody_wants_it.observe(None, 0)


def test_decision_states_of_other_parameters_are_refused_even_where_they_fit():
    """Nobody Wants It of 2 rounds and of 3: the same seats and fields, so the state fits, but
    the rules read it differently (when the game ends): refused, as a snapshot of other
    parameters is refused by restore."""
    from cardzoo.envs import load_game

    two = load_game("nobody_wants_it", num_rounds=2)
    three = load_game("nobody_wants_it", num_rounds=3)
    state = two.new_state(7)
    with pytest.raises(InputError) as refused:
        three.observe(state, 0)
    assert str(refused.value) == (
        "nobody_wants_it: this state was made by nobody_wants_it_v0(num_players=4, "
        "num_rounds=2, reward='win'), and this game is nobody_wants_it_v0(num_players=4, "
        "num_rounds=3, reward='win'): a state is played by a game of the same parameters only"
    )
    with pytest.raises(ValueError, match="parameters"):
        three.restore(two.snapshot(state))


@pytest.mark.parametrize("max_cycles", [2**63, 2**64, 10**30])
def test_a_max_cycles_beyond_64_bits_is_refused_where_it_is_given(max_cycles):
    """The compiled kernels count steps in 64 bits: a larger bound passed every check, then
    numba failed with a typing traceback in matches and tournaments (a review of bad input)."""
    from cardzoo.envs import nobody_wants_it_v0
    from cardzoo.evaluation import play_match
    from cardzoo.play import play
    from cardzoo.single_agent import SingleAgentEnv
    from cardzoo.tournament import tournament
    from cardzoo.vector import VectorEnv

    message = re.escape(f"max_cycles={max_cycles} is out of range; allowed 1..{2**63 - 1}")
    calls = [
        lambda: nobody_wants_it_v0.env(max_cycles=max_cycles),
        lambda: foxy_v0.parallel_env(max_cycles=max_cycles),
        lambda: SingleAgentEnv("nobody_wants_it", max_cycles=max_cycles),
        lambda: VectorEnv("nobody_wants_it", 2, max_cycles=max_cycles),
        lambda: play_match("nobody_wants_it", ["random", "random"], 2, max_cycles=max_cycles),
        lambda: tournament("minus_two", ["random", "attacker"], 2, max_cycles=max_cycles),
        lambda: play("nobody_wants_it", ["random"], max_cycles=max_cycles),
    ]
    for call in calls:
        with pytest.raises(InputError, match=message):
            call()
    assert nobody_wants_it_v0.env(max_cycles=2**63 - 1).max_cycles == 2**63 - 1
