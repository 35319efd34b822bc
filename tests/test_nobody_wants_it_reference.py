"""Nobody Wants It plays exactly the games of the numpy engine it replaced, step by step.

The reference (``tests/reference/nobody_wants_it.py``) is the game's former numpy engine. Both are
played through the AEC environment, seeded alike, with the same random legal actions; at every
step they must show the same agent to act, every seat's observation and action mask, the same
rewards, terminations and truncations; their states must hold the same cards, scores and
decisions, and their generators stand at the same place (deals and reshuffles draw the same
numbers). After a game the next unseeded ``reset()`` deals the same next game in both. Every
table size, round count and reward: 1,080 games on the compiled kernel, 180 on the plain one.
"""

from __future__ import annotations

import pytest
from reference.nobody_wants_it import NumpyNobodyWantsIt
from reference.side_by_side import play_side_by_side, restore_and_play_on

from cardzoo.envs import kernels, nobody_wants_it_v0, packed
from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.nobody_wants_it.rules import HORSE_GIFT, PIG_ANSWER, TURN, NobodyWantsIt

CONFIGS = [
    {"num_players": n, "num_rounds": rounds, "reward": reward}
    for n in range(2, 8)
    for rounds in (1, 2, 3)
    for reward in ("win", "points")
]
#: games per configuration, compiled and plain (the plain kernel is slower)
GAMES_PER_CONFIG = {True: 30, False: 5}
KERNELS = [
    pytest.param(
        True,
        id="compiled",
        marks=pytest.mark.skipif(kernels.numba is None, reason="numba is not installed"),
    ),
    pytest.param(False, id="plain"),
]


class ReferenceEnv(CardGameEnv):
    game_class = NumpyNobodyWantsIt
    metadata = {**CardGameEnv.metadata, "name": "nobody_wants_it_v0"}


def live_state(state) -> tuple:
    """Everything of a state the game can still read (pile slots beyond a pile's size are not)."""
    return (
        (state.round_number, state.dealer, state.active_player, state.current_player),
        (state.decision, state.terminal, state.draw_size, state.discard_size),
        state.hands.tolist(),
        state.hand_sizes.tolist(),
        state.draw_pile[: state.draw_size].tolist(),
        state.discard_pile[: state.discard_size].tolist(),
        state.discard_counts.tolist(),
        state.nwi_holder.tolist(),
        state.horse_gifts.tolist(),
        state.penalty_cards.tolist(),
        state.points.tolist(),
        state.fixed_decks.tolist(),
        state.rng.bit_generator.state,
    )


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: f"{c['num_players']}p-{c['num_rounds']}r-{c['reward']}"
)
def test_the_game_plays_the_numpy_engines_games_step_by_step(config, compiled, monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", compiled)
    games = GAMES_PER_CONFIG[compiled]
    env, reference = nobody_wants_it_v0.raw_env(**config), ReferenceEnv(**config)
    steps, _ = play_side_by_side(env, reference, config["num_players"], games, live_state)
    assert steps >= games * config["num_rounds"] * 5  # a round takes 5 steps at least


@pytest.mark.parametrize("compiled", KERNELS)
def test_snapshots_of_the_numpy_engine_restore_and_play_on_alike(compiled, monkeypatch):
    """A snapshot holds the same fields, dtypes and shapes as before: one the numpy engine wrote
    at any step of a game (horse exchanges and pig answers included) restores into the game,
    which plays on exactly as the numpy engine does (across round ends too)."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    config = {"num_players": 3, "num_rounds": 2, "reward": "points"}
    reference, game = NumpyNobodyWantsIt(**config), NobodyWantsIt(**config)
    decisions, round_ends = restore_and_play_on(game, reference, 9, 20, live_state)
    assert decisions == {TURN, PIG_ANSWER, HORSE_GIFT} and round_ends > 0
