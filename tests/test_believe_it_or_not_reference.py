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
from reference.side_by_side import play_side_by_side, restore_and_play_on, whole_state
from test_nobody_wants_it_reference import KERNELS

from cardzoo.envs import GAMES, believe_it_or_not_v1, packed
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
    metadata = {**CardGameEnv.metadata, "name": "believe_it_or_not_v1"}


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: str(sorted(c.items())))
def test_the_game_plays_the_numpy_engines_games_step_by_step(config, compiled, monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", compiled)
    games = GAMES_PER_CONFIG[compiled]
    env, reference = believe_it_or_not_v1.raw_env(**config), ReferenceEnv(**config)
    steps, ended = play_side_by_side(env, reference, config["num_players"], games, whole_state)
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
    decisions, rewarded = restore_and_play_on(game, reference, 9, 15, whole_state)
    assert decisions == set(range(len(DECISION_NAMES))) and rewarded > 0


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
