"""Believe It or Not plays exactly the games of the numpy engine it replaced, step by step.

The reference (``tests/reference/believe_it_or_not.py``) is the game's former numpy engine. Both
are played through the AEC environment, seeded alike, with the same random legal actions; at
every step they must show the same agent to act, every seat's observation and action mask (values
and dtypes), the same rewards, terminations and truncations; their states must hold the same
fields, whole arrays compared (the slots a rule no longer reads included), with the same dtypes,
and their generators stand at the same place (void deals draw again). After a game the next
unseeded ``reset()`` deals the same next game in both. Every player count and every variant the
shared tests play (standard and quick, smaller decks, no specials): 1,020 games on the compiled
kernel, 180 on the plain one.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.believe_it_or_not import NumpyBelieveItOrNot
from test_nobody_wants_it_reference import KERNELS

from cardzoo.envs import GAMES, believe_it_or_not_v0, packed
from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.believe_it_or_not.rules import CARD_NAMES, DECISION_NAMES, BelieveItOrNot

CONFIGS = GAMES["believe_it_or_not"].test_configs()
#: games per configuration, compiled and plain (the plain kernel is slower)
GAMES_PER_CONFIG = {True: 34, False: 6}
#: player_1's hand after the deal of test_a_deck_option_deals_that_deck_and_a_void_one_is_refused
HAND_OF_PLAYER_1 = [
    *["cat", "dog", "cow", "cow", "cow", "pig", "pig", "sheep", "sheep", "horse", "horse"],
    *["horse", "rabbit", "rabbit", "rabbit", "duck"],
]


class ReferenceEnv(CardGameEnv):
    game_class = NumpyBelieveItOrNot
    metadata = {**CardGameEnv.metadata, "name": "believe_it_or_not_v0"}


def whole_state(state) -> dict:
    """Every field of a state as a snapshot holds it (values and dtypes), and its generator's
    position."""
    fields = {}
    for name, value in state.field_values().items():
        if name == "rng":
            value = value.bit_generator.state
        elif isinstance(value, np.ndarray):
            value = (value.dtype.str, value.shape, value.tolist())
        else:
            value = (type(value).__name__, value)
        fields[name] = value
    return fields


def assert_same_step(env, reference) -> None:
    assert env.agent_selection == reference.agent_selection
    for agent in env.possible_agents:
        seen, expected = env.observe(agent), reference.observe(agent)
        assert np.array_equal(seen["observation"], expected["observation"]), agent
        assert seen["observation"].dtype == expected["observation"].dtype
        assert np.array_equal(seen["action_mask"], expected["action_mask"]), agent
        assert seen["action_mask"].dtype == expected["action_mask"].dtype
    assert str(env.rewards) == str(reference.rewards)  # -0.0 and 0.0 alike
    assert str(env._cumulative_rewards) == str(reference._cumulative_rewards)
    assert env.terminations == reference.terminations
    assert env.truncations == reference.truncations
    assert whole_state(env.state_) == whole_state(reference.state_)


def play_side_by_side(config: dict, seed: int, games: int) -> tuple[int, int]:
    """``games`` games in a row from ``seed`` in both; returns the steps compared and the games
    that ended by the rules (not cut at ``max_cycles``)."""
    env, reference = believe_it_or_not_v0.raw_env(**config), ReferenceEnv(**config)
    assert env.game.engine.compiled == packed.COMPILED
    choices = np.random.default_rng(seed)
    env.reset(seed=seed)
    reference.reset(seed=seed)
    steps = ended = 0
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
        ended += env.state_.terminal
        env.reset()
        reference.reset()
    return steps, ended


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: str(sorted(c.items())))
def test_the_game_plays_the_numpy_engines_games_step_by_step(config, compiled, monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", compiled)
    games = GAMES_PER_CONFIG[compiled]
    steps, ended = play_side_by_side(config, seed=config["num_players"], games=games)
    assert steps >= games * 8 and ended >= games // 2  # a game takes 8 steps at least


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("variant", ["standard", "quick"])
def test_snapshots_of_the_numpy_engine_restore_and_play_on_alike(variant, compiled, monkeypatch):
    """A snapshot holds the same fields, dtypes and shapes as before: one the numpy engine wrote
    at any step of a game (every decision, peeks and doubts included) restores into the game,
    which plays on exactly as the numpy engine does, to the end."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    config = {"num_players": 3, "variant": variant}
    reference, game = NumpyBelieveItOrNot(**config), BelieveItOrNot(**config)
    position, choices = reference.new_state(np.random.default_rng(9)), np.random.default_rng(9)
    decisions, doubts = set(), 0
    while not position.terminal:
        state = game.from_json(reference.to_json(position))
        expected = reference.copy_state(position)
        decisions.add(state.decision)
        for _ in range(15):
            if state.terminal:
                break
            legal = np.flatnonzero(game.legal_mask(state, state.current_player))
            action = int(legal[choices.integers(legal.size)])
            rewards, expected_rewards = game.apply(state, action), reference.apply(expected, action)
            assert str(rewards) == str(expected_rewards)
            assert whole_state(state) == whole_state(expected)
            doubts += state.revealed_card != expected.revealed_card or bool(state.taken_known.any())
        legal = np.flatnonzero(reference.legal_mask(position, position.current_player))
        reference.apply(position, int(legal[choices.integers(legal.size)]))
    assert decisions == set(range(len(DECISION_NAMES))) and doubts > 0


def test_a_deck_option_deals_that_deck_and_a_void_one_is_refused():
    """Decision (void deal) with the ``deck`` option: the kernel deals a given deck as the numpy
    engine did, and refuses one whose deal is void."""
    config = {"num_players": 2, "special_cards": False}
    game, reference = BelieveItOrNot(**config), NumpyBelieveItOrNot(**config)
    types = np.random.default_rng(3).permutation(np.repeat(np.arange(11), game.composition))
    deck = [CARD_NAMES[card] for card in types]
    state = game.new_state(np.random.default_rng(0), {"deck": deck})
    expected = reference.new_state(np.random.default_rng(0), {"deck": deck})
    assert whole_state(state) == whole_state(expected)
    assert game.hand_cards(state, 1) == HAND_OF_PLAYER_1
    # player_1 is dealt four sets of four and nothing else (player_0 the rest)
    sets, rest = ["cat", "dog", "cow", "pig"], ["sheep", "horse", "rabbit", "duck"]
    second = [name for name in sets for _ in range(4)]
    first = [name for name in rest for _ in range(4)] + ["elephant"]
    void = [first[k // 2] if k % 2 == 0 else second[k // 2] for k in range(33)]
    for engine in (game, reference):
        with pytest.raises(ValueError, match="void deal"):
            engine.new_state(np.random.default_rng(0), {"deck": void})
