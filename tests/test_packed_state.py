"""A game on its kernel (``cardzoo.envs.packed``), on Nobody Wants It: the state is the kernel's
row, its fields read and write it, copies are independent, the generator is loaded only for a
step that draws and then draws what numpy's would, and numba is loaded only where a compiled
kernel is wanted. On Minus Two: view-only parts, and legal actions as a kernel's code."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
from reference.minus_two import NumpyState
from reference.nobody_wants_it import NumpyNobodyWantsIt
from test_nobody_wants_it_reference import KERNELS, live_state

from cardzoo.envs import kernels, packed
from cardzoo.envs.kernels import plain_copy
from cardzoo.envs.minus_two.rules import MinusTwo, MinusTwoState
from cardzoo.envs.nobody_wants_it import kernel
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt

minus_two_kernel = plain_copy("cardzoo.envs.minus_two.kernel")


@pytest.fixture(params=KERNELS)
def game(request, monkeypatch) -> NobodyWantsIt:
    monkeypatch.setattr(packed, "COMPILED", request.param)
    built = NobodyWantsIt(num_players=3, num_rounds=2)
    assert built.engine.compiled == request.param
    return built


def play(game, state, steps: int, seed: int = 0) -> list[int]:
    """Up to ``steps`` random legal actions (fewer if the game ends); returns them."""
    choices = np.random.default_rng(seed)
    actions = []
    for _ in range(steps):
        if state.terminal:
            break
        legal = np.flatnonzero(game.legal_mask(state, state.current_player))
        actions.append(int(legal[choices.integers(legal.size)]))
        game.apply(state, actions[-1])
    return actions


def test_fields_read_and_write_the_row(game):
    state = game.new_state(np.random.default_rng(0))
    start, _ = state.layout.parts["hands"]
    state.hands[1, 2] = 7
    assert state.row[start + 4 + 2] == 7
    state.draw_size = 5
    assert state.row[kernel.DRAW_SIZE] == 5 and type(state.draw_size) is int
    state.horse_gifts = [0, -1, 3]  # assigning to an array field writes into the row
    assert state.horse_gifts.tolist() == [0, -1, 3]
    assert type(state.terminal) is bool and type(state.current_player) is int


def test_views_handed_out_follow_the_game(game):
    state = game.new_state(np.random.default_rng(1))
    hands, points = state.hands, state.points
    play(game, state, 400)
    assert state.terminal
    assert hands is state.hands and points.tolist() == game.scores(state).tolist()
    assert hands.sum() == state.hand_sizes.sum()


def test_the_plain_kernel_plays_on_a_list_until_a_field_is_asked_for(monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", False)
    game = NobodyWantsIt()
    state = game.new_state(np.random.default_rng(2))
    play(game, state, 50)
    game.observe(state, 1)
    assert type(state.row) is list
    state.discard_counts  # noqa: B018 -- a view is asked for
    assert type(state.row) is np.ndarray
    before = state.hands.copy()
    play(game, state, 1)
    assert type(state.row) is np.ndarray and not np.array_equal(before, state.hands)


def test_copies_deep_copies_and_pickles_are_independent_and_play_on_alike(game):
    state = game.new_state(np.random.default_rng(3))
    play(game, state, 20)
    others = [
        game.copy_state(state),
        copy.deepcopy(state),
        pickle.loads(pickle.dumps(state)),
        game.restore(json.loads(json.dumps(game.snapshot(state)))),
    ]
    shallow = copy.copy(state)  # its own row, the same generator
    assert shallow == state and shallow.row is not state.row and shallow.rng is state.rng
    for other in others:
        assert other == state and other.row is not state.row and other.rng is not state.rng
    others[0].hands[0, 0] += 1
    assert others[0] != state and others[0].hands[0, 0] != state.hands[0, 0]
    actions = play(game, state, 10**4, seed=4)
    for other in others[1:]:
        for action in actions:
            game.apply(other, action)
        assert game.snapshot(other) == game.snapshot(state)


def test_a_step_draws_from_the_states_own_generator_as_numpy_would(game):
    """A generator shared with its caller (as search worlds share the agent's): whatever the
    caller draws between steps, the game's deals and reshuffles take the next numbers, as the
    numpy engine's did, and steps that draw nothing leave it alone."""
    reference = NumpyNobodyWantsIt(**game.params())
    shared, reference_shared = np.random.default_rng(5), np.random.default_rng(5)
    state, expected = game.new_state(shared), reference.new_state(reference_shared)
    choices, draws = np.random.default_rng(6), 0
    while not state.terminal:
        assert shared.random() == reference_shared.random()  # the caller draws too
        legal = np.flatnonzero(game.legal_mask(state, state.current_player))
        action = int(legal[choices.integers(legal.size)])
        before = shared.bit_generator.state
        game.apply(state, action)
        reference.apply(expected, action)
        draws += shared.bit_generator.state != before
        assert live_state(state) == live_state(expected)
    assert state.rng is shared and 0 < draws < 10  # a deal, and a reshuffle or two


def test_a_game_pickles_as_its_parameters(game):
    copied = pickle.loads(pickle.dumps(game))
    assert type(copied) is NobodyWantsIt and copied.params() == game.params()


def test_import_cardzoo_and_a_plain_game_load_no_numba():
    script = (
        "import sys\n"
        "import numpy as np\n"
        "import cardzoo\n"
        "from cardzoo.envs import nobody_wants_it_v0, packed\n"
        "assert 'numba' not in sys.modules\n"
        "packed.COMPILED = False\n"
        "env = nobody_wants_it_v0.raw_env()\n"
        "env.reset(seed=0)\n"
        "env.step(8)\n"
        "assert 'numba' not in sys.modules\n"
        "print(env.observe('player_1')['observation'].tolist())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    from cardzoo.envs import nobody_wants_it_v0

    env = nobody_wants_it_v0.raw_env()
    env.reset(seed=0)
    env.step(8)
    assert done.stdout.strip() == str(env.observe("player_1")["observation"].tolist())


@pytest.mark.skipif(kernels.numba is None, reason="numba is not installed")
def test_a_game_moves_to_the_compiled_kernel_after_switch_after_steps(monkeypatch):
    """Decision: a game starts plain (a short use never loads numba) and runs compiled once it
    has taken SWITCH_AFTER steps, playing on exactly as it would have."""
    monkeypatch.setattr(packed, "COMPILED", None)
    monkeypatch.setattr(packed, "SWITCH_AFTER", 40)
    switching = NobodyWantsIt(num_players=3)
    monkeypatch.setattr(packed, "COMPILED", False)
    plain = NobodyWantsIt(num_players=3)
    state, expected = (game.new_state(np.random.default_rng(7)) for game in (switching, plain))
    compiled_after = []
    choices = np.random.default_rng(8)
    while not state.terminal:
        legal = np.flatnonzero(switching.legal_mask(state, state.current_player))
        assert np.array_equal(
            legal, np.flatnonzero(plain.legal_mask(expected, state.current_player))
        )
        assert np.array_equal(switching.observe(state, 1), plain.observe(expected, 1))
        action = int(legal[choices.integers(legal.size)])
        assert str(switching.apply(state, action)) == str(plain.apply(expected, action))
        compiled_after.append(switching.engine.compiled)
    assert compiled_after[:39] == [False] * 39 and all(compiled_after[39:])
    assert len(compiled_after) > 100 and type(state.row) is np.ndarray
    assert switching.snapshot(state) == plain.snapshot(expected)


# --- what Minus Two needs of a game on its kernel ---------------------------------------------


def test_a_view_only_part_is_no_field_and_snapshots_list_the_fields_as_before():
    """Minus Two's table is one field; its parts (``Part(snapshot=False)``) are views of it,
    not fields of their own: a snapshot holds the numpy engine's fields in its order."""
    state = MinusTwo(num_players=3).new_state(np.random.default_rng(0))
    expected = [f.name for f in dataclasses.fields(NumpyState)]
    assert list(state.field_values()) == expected
    assert "cards" not in MinusTwoState.fields and "table" in MinusTwoState.fields
    state.totals[2] = 7
    assert state.table[state.layout.parts["totals"][0] - state.layout.parts["table"][0] + 2] == 7


@pytest.mark.parametrize("compiled", KERNELS)
def test_legal_actions_beyond_an_int64s_bits_come_as_a_code_and_few_masks_are_kept(
    compiled, monkeypatch
):
    """Minus Two's 293 actions: the kernel gives its legal actions as a code that its
    ``expand_legal`` writes out; the game keeps at most ``kernel_arrays.KEPT`` masks, and its
    masks are the kernel's list of legal actions all along."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    monkeypatch.setattr(plain_copy("cardzoo.envs.kernel_arrays"), "KEPT", 50)
    game = MinusTwo(num_players=4)
    state = game.new_state(np.random.default_rng(3))
    choices, buffer, steps = np.random.default_rng(3), [0] * minus_two_kernel.MAX_LEGAL, 0
    while not state.terminal:
        mask = game.legal_mask(state, state.current_player)
        count = minus_two_kernel.list_legal(np.asarray(state.row).tolist(), 4, buffer)
        assert np.flatnonzero(mask).tolist() == buffer[:count]
        assert len(game._masks) <= 50
        legal = np.flatnonzero(mask)
        game.apply(state, int(legal[choices.integers(legal.size)]))
        steps += 1
    assert steps > 200 and not game.legal_mask(state, state.current_player).any()
