"""The shared test suite: every registered game, at every allowed player count and variant, passes
PettingZoo's API test, plays reproducibly, survives a JSON snapshot round trip, keeps its
invariants under random play, and rejects bad parameters."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper

from cardzoo.envs import GAMES
from cardzoo.envs.helpers import game_rng_from_seed

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
        assert env.num_steps <= env.max_cycles  # Foxy counts cards, the others agent steps
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
        module.env(num_players=spec.game_class().min_players - 1)
    with pytest.raises(ValueError, match="num_players"):
        module.env(num_players=spec.game_class().max_players + 1)
    with pytest.raises(ValueError, match="max_cycles"):
        module.env(max_cycles=0)
    with pytest.raises(ValueError, match="render_mode"):
        module.env(render_mode="svg")
    with pytest.raises(ValueError, match="has no parameter 'no_such_parameter'; its paramet"):
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
    assert all(env.truncations.values())  # as PettingZoo's TerminateIllegalWrapper reports it
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.unwrapped.illegal_action_by == offender
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated and truncated and reward == (-1.0 if agent == offender else 0.0)
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


# --- an illegal action in env(): exactly PettingZoo's TerminateIllegalWrapper -------------------


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_illegal_action_in_env_is_exactly_pettingzoos_terminate_illegal_wrapper(spec, config):
    """The same game played by ``env()`` and by PettingZoo's own wrappers around ``raw_env``:
    after the illegal action every agent's rewards, terminations, truncations, selection order
    and observations agree until the last one has stepped out."""
    module = spec.module()
    ours = module.env(**config)
    theirs = OrderEnforcingWrapper(
        TerminateIllegalWrapper(module.raw_env(**config), illegal_reward=-1)
    )
    ours.reset(seed=1)
    theirs.reset(seed=1)
    rng = np.random.default_rng(1)
    mask = ours.last()[0]["action_mask"]
    while mask.all():
        action = int(rng.choice(np.flatnonzero(mask)))
        ours.step(action)
        theirs.step(action)
        if ours.last()[2] or ours.last()[3]:
            pytest.skip("every action is always legal in this game")
        mask = ours.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    ours.step(illegal)  # both log PettingZoo's warning
    theirs.step(illegal)
    while theirs.agents:
        assert ours.agents == theirs.agents and ours.agent_selection == theirs.agent_selection
        for name in ("rewards", "terminations", "truncations", "_cumulative_rewards"):
            assert getattr(ours, name) == getattr(theirs, name), name
        our_observation, *our_last = ours.last()
        their_observation, *their_last = theirs.last()
        assert our_last[:3] == their_last[:3]  # reward, terminated, truncated
        assert our_last[1] and our_last[2] and our_last[0] in (-1.0, 0.0)
        assert (our_observation["observation"] == their_observation["observation"]).all()
        ours.step(None)
        theirs.step(None)
    assert not ours.agents


# --- calls out of order in env(): exactly PettingZoo's OrderEnforcingWrapper --------------------


def outcome(call) -> tuple:
    """What a call did: the exception's type and message or the value returned (observations
    as bytes), and the warnings PettingZoo logged meanwhile."""
    EnvLogger.flush()
    try:
        value = call()
    except Exception as error:  # noqa: BLE001 -- the outcome is what is compared
        result: tuple = (type(error).__name__, str(error))
    else:
        if isinstance(value, dict) and "action_mask" in value:
            value = {key: array.tobytes() for key, array in value.items()}
        result = ("returned", repr(value))
    return result, list(EnvLogger.mqueue)


def calls_out_of_order(env) -> list:
    """The outcome of every call PettingZoo's OrderEnforcingWrapper checks, before a reset, in
    an agent loop without a step, through a whole game, and after its end."""
    names = ["rewards", "terminations", "truncations", "infos", "agent_selection", "agents"]
    names += ["num_agents", "_cumulative_rewards"]
    seen = [outcome(lambda name=name: getattr(env, name)) for name in names]
    seen += [outcome(call) for call in (lambda: env.step(0), lambda: env.observe("player_0"))]
    seen += [outcome(call) for call in (env.render, env.state, env.agent_iter, env.last)]
    env.reset(seed=3)
    loop = iter(env.agent_iter())
    seen += [outcome(lambda: next(loop)), outcome(lambda: next(loop))]  # no step in between
    env.reset(seed=3)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        mask = observation["action_mask"]
        action = None if terminated or truncated else int(np.flatnonzero(mask)[0])
        seen += [agent, reward, outcome(lambda action=action: env.step(action))]
    seen += [outcome(lambda: env.step(None)), outcome(lambda: next(iter(env.agent_iter())))]
    seen += [outcome(lambda: env.observe("player_0")), outcome(env.render), outcome(env.state)]
    return seen


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_calls_out_of_order_in_env_are_exactly_pettingzoos_order_enforcing_wrapper(spec, config):
    """cardzoo's wrapper keeps its own record of the order (it touches none of PettingZoo's
    private attributes): the same calls through env() and through PettingZoo's wrapper around
    raw_env raise, warn and return alike. When PettingZoo changes what its wrapper does, this
    fails."""
    module = spec.module()
    ours = calls_out_of_order(module.env(**config))
    theirs = calls_out_of_order(OrderEnforcingWrapper(module.raw_env(**config)))
    assert ours == theirs
    assert ours[0] == (("AttributeError", "rewards cannot be accessed before reset"), [])
    assert ours[8] == (("AssertionError", "reset() needs to be called before step."), [])
    step_after_end = (
        "[WARNING]: step() called after all agents are terminated or truncated. "
        "Should reset() first."
    )
    assert ours[-5] == (("returned", "None"), [step_after_end])


# --- reset options: one rule (warn about unknown keys and drop them) ----------------------------


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_unknown_reset_option_warns_naming_it_and_is_dropped_everywhere(spec, config):
    module = spec.module()
    plain, with_unknown = module.raw_env(**config), module.raw_env(**config)
    plain.reset(seed=2)
    match = r"ignores unknown reset options \['no_such_option'\]"
    with pytest.warns(UserWarning, match=match) as record:
        with_unknown.reset(seed=2, options={"no_such_option": 1})
    assert record[0].filename == __file__  # the warning points at the caller's line
    assert plain.game.snapshot(plain.state_) == with_unknown.game.snapshot(with_unknown.state_)
    with pytest.warns(UserWarning, match=match) as record:
        module.env(**config).reset(seed=2, options={"no_such_option": 1})
    assert record[0].filename == __file__
    game = plain.game
    with pytest.warns(UserWarning, match=match):
        state = game.new_state(np.random.default_rng(0), {"no_such_option": 1})
    assert game.snapshot(state) == game.snapshot(game.new_state(np.random.default_rng(0)))


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
@pytest.mark.parametrize("options", [[("deck", [])], "deck", 3])
def test_reset_options_that_are_not_a_dict_raise_a_clear_value_error(spec, config, options):
    env = spec.module().env(**config)
    with pytest.raises(ValueError, match=r"reset options must be a dict or None, got"):
        env.reset(options=options)


# --- a reset that raises changes nothing --------------------------------------------------------


def bad_option(game) -> dict:
    """A reset option of ``game`` with a bad value."""
    return {game.reset_options[0]: ["no such card"]}


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_failed_first_reset_leaves_the_wrapped_env_waiting_for_reset(spec, config):
    env = spec.module().env(**config)
    with pytest.raises(ValueError):
        env.reset(options=bad_option(env.unwrapped.game))
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(0)
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    env.reset(seed=0)
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_rejected_reset_consumes_no_draw_and_keeps_the_game_in_progress(spec, config):
    module = spec.module()
    env, twin = module.raw_env(**config), module.raw_env(**config)
    env.reset(seed=3)
    twin.reset(seed=3)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = json.dumps(env.snapshot(), sort_keys=True), env.agent_selection
    with pytest.raises(ValueError):
        env.reset(options=bad_option(env.game))
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    assert (json.dumps(env.snapshot(), sort_keys=True), env.agent_selection) == before
    env.reset()  # the next unseeded deal is the one it would have been
    twin.reset()
    assert env.game.snapshot(env.state_) == twin.game.snapshot(twin.state_)


# --- clear messages -----------------------------------------------------------------------------


def misspelt_card_option(name: str, num_players: int) -> tuple[str, object, tuple[str, ...]]:
    """(option, value with the unknown card name "tiger", the allowed names) of each game."""
    from cardzoo.envs.believe_it_or_not import rules as believe_it_or_not
    from cardzoo.envs.foxy import rules as foxy
    from cardzoo.envs.henhouse import rules as henhouse
    from cardzoo.envs.minus_two import rules as minus_two
    from cardzoo.envs.nobody_wants_it import rules as nobody_wants_it

    return {
        "henhouse": ("deck", ["hen", "tiger"], henhouse.CARD_NAMES),
        "believe_it_or_not": ("deck", ["cat", "tiger"], believe_it_or_not.CARD_NAMES),
        "nobody_wants_it": ("deck", ["sheep", "tiger"], nobody_wants_it.SPECIES),
        "minus_two": ("deals", [["tiger"] + ["1"] * 12] * num_players, minus_two.CARD_NAMES),
        "foxy": ("stack", [["tiger"]] * 20, foxy.SPECIES),
    }[name]


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
def test_bad_card_name_in_a_reset_option_names_the_option_the_name_and_the_allowed_names(
    spec, config
):
    option, value, allowed = misspelt_card_option(spec.name, config["num_players"])
    env = spec.module().raw_env(**config)
    with pytest.raises(ValueError) as error:
        env.reset(options={option: value})
    message = str(error.value)
    assert f"{option} option" in message and "'tiger'" in message, message
    assert all(repr(name) in message for name in allowed), message


@pytest.mark.parametrize("spec, config", ONE_CONFIG_PER_GAME)
@pytest.mark.parametrize("seed", [True, False, -1, 1.5, "3", [1, 2], np.float64(2.0)])
def test_seed_must_be_none_or_an_integer_at_least_zero(spec, config, seed):
    """Decision: seeds are None or integers >= 0, as in Gymnasium (numpy's sequences are not);
    ``True`` is not the seed 1."""
    env = spec.module().env(**config)
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0"):
        env.reset(seed=seed)
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0"):
        game_rng_from_seed(seed)


def test_a_numpy_integer_seed_is_the_same_seed():
    from cardzoo.envs import henhouse_v0

    first, second = henhouse_v0.raw_env(), henhouse_v0.raw_env()
    first.reset(seed=np.int64(4))
    second.reset(seed=4)
    assert first.game.snapshot(first.state_) == second.game.snapshot(second.state_)
