"""Believe It or Not's kernel (the game's engine, search playouts, vector games) against the
numpy engine it replaced (``tests/reference/believe_it_or_not.py``).

The kernel must play exactly the numpy engine's rules: the same legal actions and, after every
legal action, the same state (packed rows compared whole), step by step through random games of
both variants and through fixed positions that reach each rule a random game rarely meets
(special cards, going out, the end without animals, two winners at once, truncation); in those
positions every seat's observation and legal actions too; and it deals the numpy engine's deal
from the same numpy generator, void deals included.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.believe_it_or_not import NumpyBelieveItOrNot

from cardzoo.agents import agent_action, make_agent, take_turn
from cardzoo.agents.search import AGENTS, PIMCAgent
from cardzoo.envs import GAMES, kernel_random, kernels
from cardzoo.envs.batch import GameBatch
from cardzoo.envs.believe_it_or_not import kernel, playout
from cardzoo.envs.believe_it_or_not import rules as engine
from cardzoo.envs.believe_it_or_not.rules import (
    BELIEVE,
    CARD_NAMES,
    DECLARE,
    DOUBT,
    FINISH,
    PEEK_AT,
    PLAY_PEEK,
    PLAY_SKIP,
    TURN_CARD,
    BelieveItOrNot,
    BelieveItOrNotState,
)

QUICK, STANDARD = BelieveItOrNot(variant="quick"), BelieveItOrNot(variant="standard")
#: the numpy engine, the reference the kernel is held to
NUMPY_QUICK, NUMPY_STANDARD = (NumpyBelieveItOrNot(variant=v) for v in ("quick", "standard"))
DUCK, RABBIT, ELEPHANT, PEEK, SKIP = 7, 6, 8, 9, 10


def both_variants():
    return pytest.mark.parametrize("game", [QUICK, STANDARD], ids=["quick", "standard"])


def both_numpy_variants():
    return pytest.mark.parametrize("game", [NUMPY_QUICK, NUMPY_STANDARD], ids=["quick", "standard"])


def packed_row(game, state) -> np.ndarray:
    """The kernel's row of a numpy engine's state (its fields written into a row)."""
    return np.array(BelieveItOrNotState.from_field_values(game, state.field_values()).row)


def test_kernel_numbers_are_the_rules_files():
    """The action ids, card types and decisions of the rules' tables."""
    numbers = {
        "NUM_TYPES": 11,
        "ELEPHANT": 8,
        "PEEK": 9,
        "SKIP": 10,
        "SET_SIZE": 4,
        "MAX_PLACEMENT": 5,
        "FINISH": 11,
        "DECLARE": 12,
        "BELIEVE": 20,
        "DOUBT": 21,
        "TURN_CARD": 22,
        "PLAY_PEEK": 27,
        "PLAY_SKIP": 28,
        "PEEK_AT": 29,
        "NUM_ACTIONS": 34,
    }
    assert {name: getattr(kernel, name) for name in numbers} == numbers
    decisions = ["LEAD", "BUILD", "RESPOND", "CHOOSE_TURN", "CHOOSE_PEEK"]
    assert [getattr(kernel, name) for name in decisions] == [0, 1, 2, 3, 4]
    assert tuple(STANDARD.observation_layout) == kernel.OBSERVATION_FIELDS


@both_numpy_variants()
def test_playout_kernel_follows_the_engine_step_by_step(game):
    """Random games from fixed deals: at every step the kernel's legal actions are the numpy
    engine's, and every legal action leaves the same state in both."""
    compared = endings = 0
    for seed in range(8):
        state = game.new_state(np.random.default_rng(seed))
        choices = np.random.default_rng(100 + seed)
        while not state.terminal:
            legal = np.flatnonzero(game.legal_mask(state, state.current_player)).tolist()
            row = packed_row(game, state)
            assert playout.legal_packed(game, row) == legal
            for action in legal:
                after = game.copy_state(state)
                game.apply(after, action)
                assert np.array_equal(
                    playout.apply_packed(game, row, action), packed_row(game, after)
                ), game.action_name(action)
                compared += 1
                endings += after.terminal
            game.apply(state, int(choices.choice(legal)))
    assert compared > 5000 and endings >= 8


def position(game, hands, gone=()):
    """A fixed position of the numpy engine: ``hands`` one list of card names per seat, the
    species ``gone`` discarded as sets; player_0 to lead. Checked by the game's invariants."""
    state = game.new_state(np.random.default_rng(0))
    state.hands[:] = 0
    for seat, names in enumerate(hands):
        for name in names:
            state.hands[seat, CARD_NAMES.index(name)] += 1
    state.seat_counts[engine.HAND_SIZE] = state.hands.sum(axis=1)
    state.out_of_game[:] = 0
    state.out_of_game[[CARD_NAMES.index(name) for name in gone]] = engine.SET_SIZE
    game.check_invariants(state)
    return state


def assert_same_views(game, state, row):
    """Every seat's observation and legal actions, by the kernel (a batch of one game, plain
    Python) and by the numpy engine."""
    batch = GameBatch(game, 1, compiled=False)
    batch.rows[0] = row
    observations = np.zeros((1, game.observation_size), np.float32)
    masks = np.zeros((1, game.num_actions), np.int8)
    for seat in range(game.num_players):
        batch.observe(np.array([seat]), observations, masks)
        assert np.array_equal(observations[0], game.observe(state, seat)), f"player_{seat}"
        assert np.array_equal(masks[0], game.legal_mask(state, seat)), f"player_{seat}"


def play_both(game, state, actions):
    """``actions`` through the numpy engine and the kernel side by side, the states,
    observations and legal actions compared after every one; returns the numpy engine's state
    and the kernel's row at the end."""
    row = packed_row(game, state)
    assert_same_views(game, state, row)
    for action in actions:
        game.apply(state, action)
        row = playout.apply_packed(game, row, action)
        assert np.array_equal(row, packed_row(game, state)), game.action_name(action)
        assert_same_views(game, state, row)
    return state, row


#: seeds whose first deal is void at two players and four species (found by search): the
#: numpy engine deals again from the same generator
VOID_DEALS = {True: [7717, 8309], False: [2300, 3728, 4817]}  # by special_cards


@pytest.mark.parametrize(
    "config", GAMES["believe_it_or_not"].test_configs(), ids=lambda c: str(sorted(c.items()))
)
def test_the_kernel_deals_the_engines_deal(config):
    """From a generator seeded as ``numpy.random.default_rng(seed)``, the kernel's new game is
    the numpy engine's ``new_state`` row for row, and leaves the generator where the numpy
    engine leaves it; a void deal is dealt again, as the numpy engine does."""
    game = NumpyBelieveItOrNot(**config)
    plain = kernels.plain_and_compiled(kernel)[0]
    void = VOID_DEALS[game.special_cards] if (game.num_players, game.num_species) == (2, 4) else []
    generator = np.zeros(kernel_random.SIZE, np.int64)
    for seed in [*range(100), *void]:
        engine_rng = np.random.default_rng(seed)
        expected = packed_row(game, game.new_state(engine_rng))
        plain.seed_numpy(generator, seed)
        row = np.zeros_like(expected)
        plain.new_game(row, *game.kernel_parameters(), generator)
        assert np.array_equal(row, expected), seed
        assert kernel_random.numpy_state(generator) == engine_rng.bit_generator.state
        one_deal = np.random.default_rng(seed)
        one_deal.permutation(game.num_cards)
        assert (one_deal.bit_generator.state != engine_rng.bit_generator.state) == (seed in void)


def kernel_winners(game, row):
    return np.flatnonzero(playout.winners(game, row[None])[0]).tolist()


SIX_SPECIES_GONE = ("cat", "dog", "cow", "pig", "sheep", "horse")
TWO_SPECIES_LEFT = ("dog", "cow", "pig", "sheep", "horse", "rabbit")  # cat and duck left
# player_0 places its last card, a true duck; player_1 completes the ducks by doubting it
LAST_CARD_DOUBTED = [
    ["duck"],
    ["duck", "duck", "duck", "peek"],
    ["rabbit", "rabbit", "elephant", "peek", "skip"],
    ["rabbit", "rabbit", "skip"],
]


def test_quick_two_players_out_at_once_both_win():
    """A doubter whose last cards go out as a set while the table's owner had none left: both
    are out at the same moment and both win the quick game. On the way: believing is not
    allowed while P has no card (peek first is)."""
    state = position(NUMPY_QUICK, LAST_CARD_DOUBTED, SIX_SPECIES_GONE)
    state, row = play_both(NUMPY_QUICK, state, [DECLARE + DUCK, DUCK, FINISH])
    assert playout.legal_packed(NUMPY_QUICK, row) == [DOUBT, PLAY_PEEK]  # no believe: P has no card
    state, row = play_both(NUMPY_QUICK, state, [PLAY_PEEK, PEEK_AT + 0])
    assert playout.legal_packed(NUMPY_QUICK, row) == [DOUBT]
    state, row = play_both(NUMPY_QUICK, state, [DOUBT, TURN_CARD + 0])
    assert state.terminal and kernel_winners(NUMPY_QUICK, row) == [0, 1]


def test_standard_goes_on_when_two_players_go_out_at_once():
    state = position(NUMPY_STANDARD, LAST_CARD_DOUBTED, SIX_SPECIES_GONE)
    actions = [DECLARE + DUCK, DUCK, FINISH, PLAY_PEEK, PEEK_AT + 0, DOUBT, TURN_CARD + 0]
    state, row = play_both(NUMPY_STANDARD, state, actions)
    assert not state.terminal and NUMPY_STANDARD.players_out(state) == [0, 1]
    assert row[kernel.CURRENT] == 2 and row[kernel.DECISION] == kernel.LEAD


LAST_DUCKS = [
    ["duck", "duck", "skip", "peek"],
    ["duck", "elephant"],
    ["duck", "peek"],
    ["skip"],
]


def test_standard_without_animals_the_elephants_holder_loses():
    """Decision (no animals left), standard: player_2 takes the table and discards the last set
    (ducks); the game ends at once and player_1, holding the elephant, loses."""
    state = position(NUMPY_STANDARD, LAST_DUCKS, (*SIX_SPECIES_GONE, "rabbit"))
    actions = [DECLARE + DUCK, DUCK, DUCK, FINISH, BELIEVE, DUCK, FINISH, DOUBT, TURN_CARD + 0]
    state, row = play_both(NUMPY_STANDARD, state, actions)
    assert state.terminal and kernel_winners(NUMPY_STANDARD, row) == [0, 2, 3]


def test_quick_without_animals_the_fewest_cards_win():
    """Decision (no animals left), quick: players 1, 2 and 3 hold one card each, player_0 two."""
    state = position(NUMPY_QUICK, LAST_DUCKS, (*SIX_SPECIES_GONE, "rabbit"))
    actions = [DECLARE + DUCK, DUCK, DUCK, FINISH, BELIEVE, DUCK, FINISH, DOUBT, TURN_CARD + 0]
    state, row = play_both(NUMPY_QUICK, state, actions)
    assert state.terminal and kernel_winners(NUMPY_QUICK, row) == [1, 2, 3]
    assert playout.scores(NUMPY_QUICK, row[None])[0].tolist() == [2, 1, 1, 1]


@both_numpy_variants()
def test_a_skip_as_last_card_goes_out_at_once(game):
    """player_1 skips with its last card: out at once (quick: it wins); player_2 responds to
    player_0's placement."""
    hands = [
        ["duck", "duck", "cat"],
        ["skip"],
        ["duck", "cat", "cat", "peek"],
        ["duck", "cat", "elephant", "peek", "skip"],
    ]
    state = position(game, hands, TWO_SPECIES_LEFT)
    state, row = play_both(game, state, [DECLARE + DUCK, DUCK, FINISH, PLAY_SKIP])
    assert game.players_out(state) == [1]
    if game.variant == "quick":
        assert kernel_winners(game, row) == [1]
    else:
        assert (row[kernel.CURRENT], row[kernel.DECISION]) == (2, kernel.RESPOND)


@both_numpy_variants()
def test_a_peek_as_last_card_keeps_the_player_in_until_the_doubt(game):
    """player_1's last card is a peek: still in while it chooses the card, then forced to
    doubt; the claim was a lie, so player_0 takes the table back and player_1 is out."""
    hands = [
        ["duck", "duck", "cat"],
        ["peek"],
        ["duck", "cat", "cat", "peek"],
        ["duck", "cat", "elephant", "skip", "skip"],
    ]
    state = position(game, hands, TWO_SPECIES_LEFT)
    state, row = play_both(game, state, [DECLARE + DUCK, 0, FINISH, PLAY_PEEK, PEEK_AT + 0])
    assert game.players_out(state) == [] and playout.legal_packed(game, row) == [DOUBT]
    state, row = play_both(game, state, [DOUBT, TURN_CARD + 0])
    assert game.players_out(state) == [1] and state.revealed_taker == 0


def test_skip_is_not_allowed_when_the_next_player_is_the_placer():
    """Two players: the next player after the responder is always P."""
    game = NumpyBelieveItOrNot(num_players=2, variant="quick")
    hands = [
        ["duck", "duck", "cat", "cat", "elephant", "peek"],
        ["duck", "duck", "cat", "cat", "skip", "skip", "peek"],
    ]
    state = position(game, hands, TWO_SPECIES_LEFT)
    state, row = play_both(game, state, [DECLARE + DUCK, DUCK, FINISH])
    assert playout.legal_packed(game, row) == [BELIEVE, DOUBT, PLAY_PEEK]


def test_playouts_stop_at_the_step_limit_without_winners():
    """A playout cut at the game's ``default_max_cycles`` steps has no winner (the truncated
    game gives every player 0)."""
    game = BelieveItOrNot(variant="quick")
    game.default_max_cycles = 5
    states = [game.new_state(np.random.default_rng(seed)) for seed in range(4)]
    winners, _scores = game.random_playouts(states, np.random.default_rng(0))
    assert not winners.any()


@both_variants()
@pytest.mark.parametrize("policy", list(playout.POLICIES))
def test_playouts_end_in_valid_finished_games(game, policy):
    states = [game.new_state(np.random.default_rng(seed)) for seed in range(20)]
    before = game.snapshot(states[0])
    rows = playout.playouts(game, playout.pack(game, states), np.random.default_rng(0), None)
    for row in rows:
        game.check_invariants(playout.unpack(game, row, np.random.default_rng(0)))
    assert (rows[:, kernel.TERMINAL] == 1).all()
    winners, scores = game.random_playouts(states, np.random.default_rng(0), policy=policy)
    assert winners.any(axis=1).all()
    assert game.snapshot(states[0]) == before  # the states themselves are not played


@pytest.mark.skipif(kernels.numba is None, reason="numba is not installed")
def test_playouts_compiled_and_plain_are_identical():
    """Decision: one source, compiled by numba or run as plain Python, same results."""
    states = [STANDARD.new_state(np.random.default_rng(seed)) for seed in range(10)]
    rows = playout.pack(STANDARD, states)
    first = np.array([12, 13, -1, 14, 15, 12, 16, -1, 17, 18])
    for policy in playout.POLICIES:
        compiled = playout.playouts(
            STANDARD, rows.copy(), np.random.default_rng(7), first, True, policy
        )
        plain = playout.playouts(
            STANDARD, rows.copy(), np.random.default_rng(7), first, False, policy
        )
        assert np.array_equal(compiled, plain)


def test_rollout_policy_is_always_legal():
    for game in (QUICK, STANDARD):
        for seed in range(3):
            state = game.new_state(np.random.default_rng(seed))
            choices = np.random.default_rng(seed)
            while not state.terminal:
                legal = np.flatnonzero(game.legal_mask(state, state.current_player))
                row = playout.pack(game, [state])[0]
                assert playout.policy_actions(game, row, 1, seed=seed + 1)[0] in legal.tolist()
                game.apply(state, int(choices.choice(legal)))


def test_decision_the_rollouts_bluffer_is_the_agents():
    """Decision: the default rollout policy is the bluffer agent's own function, from each
    seat's observation, every seat planning its placements as the agent does. Player_0 leads
    its most held species and places every true card and two spares (the elephant first), in an
    order drawn from the rollout's generator; player_1, who sees no duck, peeks at an unsure
    claim (4 unseen copies for 5 cards), finds position 0 a lie (the elephant), doubts and turns
    it. The bluffer agent itself, on the numpy engine, plans the same cards."""
    hands = [
        ["duck", "duck", "duck", "elephant", "cat", "rabbit", "rabbit"],
        ["cat", "cat", "dog", "dog", "dog", "peek"],
        ["cat", "skip", "rabbit", "rabbit", "dog"],
        ["duck", "peek", "skip"],
    ]
    state = position(STANDARD, hands, ("cow", "pig", "sheep", "horse"))
    row = playout.pack(STANDARD, [state])[0]
    placement = [ELEPHANT, DUCK, 0, DUCK, DUCK]  # 0: the cat
    assert playout.policy_actions(STANDARD, row, 11, seed=1) == [
        DECLARE + DUCK, *placement, FINISH, PLAY_PEEK, PEEK_AT + 0, DOUBT, TURN_CARD + 0,
    ]  # fmt: skip
    bluffer = make_agent("believe_it_or_not", "bluffer", STANDARD, seed=0)
    placed = []
    while state.current_player == 0:
        placed.append(int(agent_action(STANDARD, state, bluffer)[0]))
        STANDARD.step(state, placed[-1])
    assert placed[0] == DECLARE + DUCK and placed[-1] == FINISH
    assert sorted(placed[1:-1]) == sorted(placement)


def test_decision_a_placement_begun_outside_the_bluffer_is_planned_when_built():
    """Decision (a placement begun outside the bluffer is planned when built): a rollout that
    starts after the search's own declaration, or in the middle of a placement, plays the
    builder as the bluffer would have planned it at the declaration: from what it holds now,
    every true card and up to two spares (the cards already placed aside), not one card and
    finish. Player_0 declared ducks: it places its three ducks, the elephant and the cat; after
    one duck already placed, the other two, the elephant and the cat."""
    hands = [
        ["duck", "duck", "duck", "elephant", "cat", "rabbit", "rabbit"],
        ["cat", "cat", "dog", "dog", "dog", "peek"],
        ["cat", "skip", "rabbit", "rabbit", "dog"],
        ["duck", "peek", "skip"],
    ]
    for given, expected in (
        ([DECLARE + DUCK], [ELEPHANT, DUCK, 0, DUCK, DUCK, FINISH]),
        ([DECLARE + DUCK, DUCK], [ELEPHANT, 0, DUCK, DUCK, FINISH]),
    ):
        state = position(STANDARD, hands, ("cow", "pig", "sheep", "horse"))
        for action in given:
            STANDARD.step(state, action)
        row = playout.pack(STANDARD, [state])[0]
        assert playout.policy_actions(STANDARD, row, len(expected), seed=1) == expected


def test_search_agents_roll_out_by_the_bluffer_by_default():
    agent = PIMCAgent(QUICK, seed=0, simulations=10)
    assert (agent.rollout, agent.horizon) == ("bluffer", "game")
    with pytest.raises(ValueError, match=r"rollout='dodger' is not a rollout policy"):
        PIMCAgent(QUICK, rollout="dodger")


def decision_positions(game, count, seed):
    """Positions with a real choice from a game of bluffers (seeded)."""
    state = game.new_state(np.random.default_rng(seed))
    agents = [make_agent(game.name, "bluffer", game, seed=i) for i in range(4)]
    choices = np.random.default_rng(seed)
    found = []
    while not state.terminal and len(found) < count:
        if game.legal_mask(state, state.current_player).sum() > 1 and choices.random() < 0.3:
            found.append(game.copy_state(state))
        take_turn(game, state, agents[state.current_player])
    return found


@both_variants()
@pytest.mark.parametrize(("name", "budget"), [("pimc", 300), ("ismcts", 60)])
def test_search_never_peeks_with_fast_playouts(game, name, budget):
    """The leak test at a real budget: the move is the same when the cards the seat cannot see
    are dealt differently (and the true state's generator differs)."""
    shuffler = np.random.default_rng(5)
    moves = set()
    for state in decision_positions(game, 6, seed=3):
        seat = state.current_player
        mask = game.legal_mask(state, seat)
        action = AGENTS[name](game, seed=4, simulations=budget).act(
            {"action_mask": mask, "state": state}
        )
        other = game.resample(state, seat, shuffler)
        other.rng = np.random.default_rng(777)
        again = AGENTS[name](game, seed=4, simulations=budget).act(
            {"action_mask": mask, "state": other}
        )
        assert again == action
        moves.add(action)
    assert len(moves) > 2
