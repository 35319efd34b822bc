"""Minus Two plays exactly the games of the numpy engine it replaced, step by step.

The reference (``tests/reference/minus_two.py``) is the game's former numpy engine. Both are
played through the AEC environment, seeded alike, with the same random legal actions; at every
step they must show the same agent to act, every seat's observation and action mask (values and
dtypes), the same rewards (signs included), terminations and truncations; their states must hold
the same fields, whole arrays compared (the pile's slots beyond its size included), with the same
dtypes, and their generators stand at the same place (later rounds deal the same cards). After a
game the next unseeded ``reset()`` deals the same next game in both. Every player count, both
scorings and both rewards, to the default target and to a low one (one round or two): 1,000
games on the compiled kernel, 160 on the plain one.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.minus_two import NumpyMinusTwo
from reference.side_by_side import play_side_by_side, restore_and_play_on, whole_state
from test_nobody_wants_it_reference import KERNELS

from cardzoo.envs import minus_two_v0, packed
from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.minus_two.rules import MinusTwo

#: low targets: a round or two (a colour holds 145 points at face value, 13 cards)
LOW_TARGET = {"face": 60, "count": 8}
CONFIGS = [
    {"num_players": n, "scoring": scoring, "reward": reward, "target_score": target}
    for n in range(2, 7)
    for scoring in ("face", "count")
    for reward in ("win", "points")
    for target in (None, LOW_TARGET[scoring])
]
#: games per configuration, compiled and plain (the plain kernel is slower)
GAMES_PER_CONFIG = {True: 25, False: 4}


class ReferenceEnv(CardGameEnv):
    game_class = NumpyMinusTwo
    metadata = {**CardGameEnv.metadata, "name": "minus_two_v0"}


def config_id(config: dict) -> str:
    target = config["target_score"] or "default"
    return f"{config['num_players']}p-{config['scoring']}-{config['reward']}-{target}"


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_the_game_plays_the_numpy_engines_games_step_by_step(config, compiled, monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", compiled)
    games = GAMES_PER_CONFIG[compiled]
    env, reference = minus_two_v0.raw_env(**config), ReferenceEnv(**config)
    steps, ended = play_side_by_side(env, reference, config["num_players"], games, whole_state)
    # A round takes a turn per card of a colour at least; every game ends by the rules.
    assert steps >= games * 13 and ended == games


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("reward", ["win", "points"])
def test_snapshots_of_the_numpy_engine_restore_and_play_on_alike(reward, compiled, monkeypatch):
    """A snapshot holds the same fields, dtypes and shapes as before: one the numpy engine wrote
    at any step of a game (played from the hand, the face-up row and the face-down row)
    restores into the game, which plays on exactly as the numpy engine does (across round ends
    too)."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    config = {"num_players": 3, "target_score": 150, "reward": reward}
    reference, game = NumpyMinusTwo(**config), MinusTwo(**config)
    where, rewarded = restore_and_play_on(
        game, reference, 9, 20, whole_state, lambda state: game.play_source(state, 0)
    )
    assert where == {0, 1, 2} and rewarded > 0


def test_a_deals_option_deals_those_cards_as_the_numpy_engine_did():
    """Round 1 from the ``deals`` option (one player holding another's cards), round 2 from the
    generator: alike in both, and the option's cards where it puts them."""
    deals = [
        ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "-2", "-2", ">>>"],
        ["-2", "-2", ">>>", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"],
    ]
    config = {"num_players": 2, "target_score": 400}
    game, reference = MinusTwo(**config), NumpyMinusTwo(**config)
    state = game.new_state(np.random.default_rng(0), {"deals": deals})
    expected = reference.new_state(np.random.default_rng(0), {"deals": deals})
    assert whole_state(state) == whole_state(expected)
    assert game.face_down_cards(state, 1) == ["-2", "-2", ">>>", "10"]
    assert game.face_up_cards(state, 0) == ["5", "6", "7", "8"]
    assert game.hand_cards(state, 1) == ["1", "2", "3", "4", "5"]
    choices = np.random.default_rng(1)
    while state.round == 1:
        legal = np.flatnonzero(game.legal_mask(state, state.current_player))
        action = int(legal[choices.integers(legal.size)])
        assert str(game.apply(state, action)) == str(reference.apply(expected, action))
        assert whole_state(state) == whole_state(expected)
    assert state.round == 2 and not state.terminal
