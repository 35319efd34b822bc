"""Minus Two's playout kernel against the engine, its rollout policies, and search through it.

The kernel must play exactly the engine's rules: the same action from the same state gives the
same state (packed rows compared), with a test per rule the kernel handles on its own (scenes of
tests/test_minus_two_rules.py, fixed deals), and random games compared step by step. Only a new
round's deal differs (the kernel deals with its own generator). The rollout policies must choose
as the heuristics do, and the search agents must not peek through the fast playouts.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from positions import positions_with_a_choice
from test_minus_two_rules import (
    EMPTY_PILE_FOR_BLIND,
    FILLERS,
    GOING_OUT,
    SAME,
    action,
    new_game,
    play,
    play_going_out,
    points,
)

from cardzoo.agents.kernel_heuristic import legal_code
from cardzoo.agents.minus_two import KERNEL, Attacker, HighCards
from cardzoo.agents.search import ISMCTSAgent, PIMCAgent
from cardzoo.envs import kernel_random, kernels
from cardzoo.envs.minus_two import kernel, playout
from cardzoo.envs.minus_two.rules import COLOUR, MINUS_TWO, MinusTwo

GAME = MinusTwo()
COMPILED = [False] if kernels.numba is None else [False, True]
#: the scalars a new round's deal does not change: target, dealer, round, terminal, winner
SETTLED = slice(kernel.TARGET, kernel.ROUND_WINNER + 1)


def kernel_after(game, state, move, compiled=False, seed=1):
    """The packed row of ``state`` after ``move`` (a move name or an action id) by the kernel."""
    chosen = action(move) if isinstance(move, str) else move
    return playout.apply_packed(game, playout.pack([state])[0], chosen, seed, compiled)


def totals_of(game, row):
    return playout.final_totals(game, row[None])[0].tolist()


def play_both(game, state, *moves, compiled=False):
    """Play ``moves`` in the engine and in the kernel from the same state, asserting the same
    outcome after each (within a round: the whole row); returns the kernel's last row."""
    for move in moves:
        assert (
            playout.legal_actions(game, playout.pack([state])[0])
            == np.flatnonzero(game.legal_mask(state, state.current_player)).tolist()
        )
        round_before = state.round
        row = kernel_after(game, state, move, compiled)
        play(game, state, move)
        assert_same(game, state, row, state.round == round_before and not state.terminal)
    return row


def assert_same(game, state, row, same_round: bool):
    expected = playout.pack([state])[0]
    if same_round:
        assert row.tolist() == expected.tolist()
        return
    # A round ended: the scores and the scalars agree; the next deal is the kernel's own.
    assert totals_of(game, row) == state.totals.tolist()
    assert row[SETTLED].tolist() == expected[SETTLED].tolist()
    assert row[kernel.CURRENT] == expected[kernel.CURRENT]


# --- the engine's rules, one scene per rule the kernel handles ---------------------------------


@pytest.mark.parametrize("compiled", COMPILED)
def test_kernel_minus_two_below_one_makes_its_player_take_the_pile(compiled):
    deal = "1 3 4 5 | 6 7 8 9 | 2 10 -2 -2 >>>"
    game, state, _ = new_game({0: deal, 1: deal})
    row = play_both(game, state, "hand 2", "hand -2", compiled=compiled)
    hand = playout.row_layout(2)["cards"] + 12  # player_1's hand by type
    assert row[hand : hand + 12].tolist() == [0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1]
    assert row[kernel.PILE_SIZE] == row[kernel.LIMIT] == row[kernel.CURRENT] == 0


def test_kernel_minus_two_down_to_exactly_one_stays_on_the_pile():
    deal = "1 2 4 5 | 6 7 8 9 | 3 10 -2 -2 >>>"
    game, state, _ = new_game({0: deal, 1: deal})
    row = play_both(game, state, "hand 3", "hand -2")
    assert (row[kernel.LIMIT], row[kernel.PILE_SIZE], row[kernel.CURRENT]) == (1, 2, 0)


def test_kernel_clear_removes_the_pile_and_the_same_player_leads():
    game, state, _ = new_game({0: SAME, 1: SAME})
    row = play_both(game, state, "hand 10", "hand 9", "hand >>>")
    removed = playout.row_layout(2)["removed"]
    assert row[removed : removed + 12].tolist() == [0] * 8 + [1, 1, 0, 1]
    assert (row[kernel.PILE_SIZE], row[kernel.CURRENT]) == (0, 0)


def test_kernel_several_clear_cards_and_equal_numbers_go_together():
    game, state, _ = new_game(GOING_OUT, 6)
    row = play_both(game, state, "hand >>>x5", "up 10x4")
    assert (row[kernel.LIMIT], row[kernel.PILE_SIZE], row[kernel.CURRENT]) == (10, 4, 1)


def test_kernel_take_the_pile_without_a_legal_play():
    game, state, _ = new_game(
        {0: "2 3 4 5 | 6 7 8 9 | 1 10 -2 -2 >>>", 1: "-2 -2 >>> 1 | 2 3 4 5 | 6 7 8 9 10"}
    )
    play_both(game, state, "hand 1")
    assert playout.legal_actions(game, playout.pack([state])[0]) == [action("take")]
    row = play_both(game, state, "take")
    assert (row[kernel.PILE_SIZE], row[kernel.CURRENT]) == (0, 0)


def blind_above_the_limit(seed=0):
    """The first position of a seeded random game where the player to act must turn face-down
    position 0 and it holds a number above the pile's limit."""
    state = GAME.new_state(np.random.default_rng(seed))
    choices = np.random.default_rng(seed)
    while True:
        legal = np.flatnonzero(GAME.legal_mask(state, state.current_player))
        card = state.face_down[state.current_player, 0]
        if legal[0] == 288 and state.pile_size and MINUS_TWO > card >= state.limit:
            return state
        GAME.apply(state, int(choices.choice(legal)))


def test_kernel_blind_card_above_the_limit_goes_into_the_hand_with_the_pile():
    state = blind_above_the_limit()
    player, pile_size = state.current_player, state.pile_size
    hand_before = state.sizes[0, player]
    row = play_both(GAME, state, "blind 0")
    sizes = playout.row_layout(4)["sizes"]
    assert row[sizes + player] == hand_before + pile_size + 1
    assert row[kernel.PILE_SIZE] == 0 and row[kernel.CURRENT] == (player + 1) % 4


def test_kernel_blind_minus_two_on_an_empty_pile_goes_into_the_hand_and_another_is_turned():
    seats = {0: "-2 9 -2 8 | 10 10 10 10 | >>> >>> >>> >>> >>>", **EMPTY_PILE_FOR_BLIND}
    game, state, _ = new_game(seats, num_players=6)
    play_both(game, state, "hand >>>x5", "up 10x4", *["hand 1"] * 4, "take")
    row = play_both(game, state, "blind 0", "blind 2")
    hand = playout.row_layout(6)["cards"]
    assert row[hand + 10] == 2 and row[kernel.CURRENT] == 0 and row[kernel.PILE_SIZE] == 0
    row = play_both(game, state, "blind 1")  # a 9 leads; the turn passes
    assert (row[kernel.LIMIT], row[kernel.CURRENT]) == (9, 1)


@pytest.mark.parametrize("compiled", COMPILED)
def test_kernel_blind_minus_two_as_last_face_down_card_ends_the_round_with_the_bonus(compiled):
    seats = {0: "-2 -2 -2 -2 | 10 10 10 10 | >>> >>> >>> >>> >>>", **EMPTY_PILE_FOR_BLIND}
    game, state, rows = new_game(seats, num_players=6)
    play_both(game, state, "hand >>>x5", "up 10x4", *["hand 1"] * 4, "take")
    row = play_both(game, state, "blind 0", "blind 1", "blind 2", "blind 3", compiled=compiled)
    expected = [-80] + [points(rows[p]) - 1 for p in (1, 2, 3, 4)]
    expected.append(points(rows[5]) + 4 * 10 + 4 * 1)
    assert totals_of(game, row) == expected
    assert (row[kernel.ROUND], row[kernel.ROUND_WINNER], row[kernel.DEALER]) == (2, 0, 0)


def test_kernel_empty_pile_only_minus_two_in_hand_plays_from_face_up():
    game, state, _ = new_game({0: "1 2 3 4 | 5 6 7 8 | -2 -2 -2 -2 >>>"})
    play_both(game, state, "hand >>>")
    up = 144  # face-up plays start at 144
    assert playout.legal_actions(game, playout.pack([state])[0]) == [
        up + card * 12 for card in (4, 5, 6, 7)
    ]


def test_kernel_empty_pile_only_minus_two_face_up_plays_any_face_down_card():
    game, state, _ = new_game({0: "-2 -2 -2 >>> | -2 -2 -2 -2 | >>> >>> >>> >>> >>>"}, 6)
    play_both(game, state, "hand >>>x5")
    assert playout.legal_actions(game, playout.pack([state])[0]) == [288, 289, 290, 291]


@pytest.mark.parametrize("compiled", COMPILED)
def test_kernel_last_cards_every_minus_two_together_end_the_round(compiled):
    game, state, rows = new_game(
        {0: "-2 -2 -2 >>> | -2 -2 -2 -2 | >>> >>> >>> >>> >>>"}, 6, target_score=10_000
    )
    play_both(game, state, "hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3")
    assert playout.legal_actions(game, playout.pack([state])[0]) == [action("hand -2x7")]
    row = play_both(game, state, "hand -2x7", compiled=compiled)
    assert totals_of(game, row) == [-80] + [points(rows[p]) for p in FILLERS]


@pytest.mark.parametrize("filler_card", ["9", "1"])
def test_kernel_last_cards_on_a_pile_end_the_round_whatever_the_limit(filler_card):
    seats = {
        0: "-2 -2 -2 9 | -2 -2 -2 -2 | >>> >>> >>> >>> >>>",
        **{p: f"? ? ? ? | ? ? ? ? | {filler_card} ? ? ? ?" for p in FILLERS},
    }
    game, state, rows = new_game(seats, 6, target_score=10_000)
    play_both(game, state, "hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3")
    play_both(game, state, *[f"hand {filler_card}"] * 5)
    legal = playout.legal_actions(game, playout.pack([state])[0])
    assert legal == [action(m) for m in ("hand -2", "hand -2x2", "hand -2x3", "hand -2x7")]
    row = play_both(game, state, "hand -2x7")
    assert totals_of(game, row)[0] == -80 and row[kernel.ROUND] == 2


def test_kernel_round_winner_with_a_number_last_gets_minus_10_and_others_their_cards():
    game, state, rows = new_game(GOING_OUT, 6, target_score=10_000)
    play_going_out(game, state, last=False)
    row = play_both(game, state, "blind 3")
    assert totals_of(game, row) == [-10] + [points(rows[p]) - 10 for p in FILLERS]


def test_kernel_count_scoring_counts_every_card_one_point_and_gives_no_bonus():
    game, state, _ = new_game(GOING_OUT, 6, scoring="count", target_score=1000)
    play_going_out(game, state, last=False)
    row = play_both(game, state, "blind 3")
    assert totals_of(game, row) == [0] + [9] * 5


def test_kernel_game_ends_when_a_total_reaches_the_target_and_the_lowest_wins():
    game, state, rows = new_game(GOING_OUT, 6, target_score=8 * 20 + 50)
    play_going_out(game, state, last=False)
    row = play_both(game, state, "blind 3")
    assert row[kernel.TERMINAL] == 1 and row[kernel.ROUND] == 1


@pytest.mark.parametrize("scoring, raise_by", [("face", 100), ("count", 10)])
def test_kernel_tie_for_lowest_raises_the_target_and_play_goes_on(scoring, raise_by):
    game, state, rows = new_game(GOING_OUT, 6, scoring=scoring)
    target = game.target_score
    play_going_out(game, state, last=False)
    bonus = -10 if scoring == "face" else 0
    added_1 = points(rows[1]) - 10 if scoring == "face" else 9
    state.totals[:] = [5, 5 + bonus - added_1] + [target + 200] * 4
    row = play_both(game, state, "blind 3")
    assert row[kernel.TARGET] == target + raise_by and row[kernel.TERMINAL] == 0
    assert row[kernel.ROUND] == 2


@pytest.mark.parametrize("compiled", COMPILED)
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_kernel_deals_every_player_a_shuffled_colour_as_the_engine_does(num_players, compiled):
    """From numpy's generator (the vector games) the kernel deals the engine's very cards; from
    xorshift (the playouts) every player still gets a shuffled colour."""
    game = MinusTwo(num_players=num_players)
    layout = playout.row_layout(num_players)
    kernel_module = playout._COMPILED if compiled else playout._PLAIN
    orders = set()
    for seed in range(1, 40):
        expected = playout.pack([game.new_state(np.random.default_rng(seed))])[0]
        for kind in (kernel_random.NUMPY, kernel_random.XORSHIFT):
            row = expected.copy()
            row[layout["cards"] : layout["pile_counts"]] = 0  # nothing dealt, totals 0 alike
            rng = np.zeros(kernel_random.SIZE, np.int64)
            if kind == kernel_random.NUMPY:
                kernel_random.seed_numpy(rng, seed)
            else:
                kernel_random.seed_xorshift(rng, seed)
            kernel_module.deal(row, num_players, rng)
            assert not row[layout["fixed_deal"] :].any()  # the deal's room, emptied
            if kind == kernel_random.NUMPY:
                assert row.tolist() == expected.tolist()
                continue
            assert row[kernel.CURRENT] == 0 and row[kernel.PILE_SIZE] == 0
            for player in range(num_players):
                hand = layout["cards"] + 12 * player
                face_up = layout["cards"] + 12 * (num_players + player)
                start = layout["face_down"] + 4 * player
                face_down = row[start : start + 4]
                held = row[hand : hand + 12] + row[face_up : face_up + 12]
                held += np.bincount(face_down, minlength=12)
                assert held.tolist() == COLOUR.tolist()
                assert (row[hand : hand + 12].sum(), row[face_up : face_up + 12].sum()) == (5, 4)
                orders.add(tuple(face_down))
    assert len(orders) > 30  # shuffled, not one fixed order


@pytest.mark.parametrize("num_players, scoring", [(4, "face"), (2, "face"), (6, "count")])
def test_kernel_follows_the_engine_step_by_step_in_random_games(num_players, scoring):
    """Random games from seeded deals: at every step the kernel lists the engine's legal actions
    and reaches the engine's state; every kind of move happens."""
    game = MinusTwo(num_players=num_players, scoring=scoring)
    kinds = Counter()
    for seed in range(4):
        state = game.new_state(np.random.default_rng(seed))
        choices = np.random.default_rng(100 + seed)
        while not state.terminal:
            legal = np.flatnonzero(game.legal_mask(state, state.current_player))
            assert playout.legal_actions(game, playout.pack([state])[0]) == legal.tolist()
            move = int(choices.choice(legal))
            kinds[move_kind(game, state, move)] += 1
            round_before = state.round
            row = kernel_after(game, state, move)
            game.apply(state, move)
            assert_same(game, state, row, state.round == round_before and not state.terminal)
    assert {"take", "blind", "clear", "minus_two", "number"} <= set(kinds)


def move_kind(game, state, move: int) -> str:
    if move == 292:
        return "take"
    if move >= 288:
        return "blind"
    card = move % 144 // 12
    return {10: "minus_two", 11: "clear"}.get(card, "number")


# --- rollout policies ----------------------------------------------------------------------


def test_rollout_policies_choose_as_the_attacker_and_high_cards_heuristics():
    """The playouts' choice on a packed row is the agents' from their seat's view (their
    kernel function given the observation and the legal actions read from the mask)."""
    heuristics = {"attacker": Attacker, "high_cards": HighCards}
    starts = [GAME.observation_layout[name].start for name in kernel.OBSERVATION_FIELDS]
    plain = kernels.plain_copy(KERNEL)
    compared = 0
    for seed in range(3):
        state = GAME.new_state(np.random.default_rng(seed))
        choices = np.random.default_rng(seed)
        while not state.terminal:
            player = state.current_player
            mask = GAME.legal_mask(state, player)
            observation = GAME.observe(state, player).tolist()
            row = playout.pack([state])[0]
            for name, agent in heuristics.items():
                decide = getattr(plain, agent.decision)
                chosen = decide(observation, starts, legal_code(KERNEL, mask))
                assert playout.policy_action(GAME, row, name) == chosen
            compared += 1
            GAME.apply(state, int(choices.choice(np.flatnonzero(mask))))
    assert compared > 500


def test_attacker_rollout_policy_starves_a_left_neighbour_close_to_going_out():
    game, state, _ = new_game(
        {0: "1 2 3 4 | 5 6 7 8 | 9 10 -2 -2 >>>", 1: "1 2 3 4 | 5 6 7 8 | 9 10 -2 -2 >>>"}
    )
    play(game, state, "hand 10", "hand 9")  # player_1 plays a 9: limit 9
    state.sizes[:, 1] = [1, 0, 0]  # say player_1 is down to one card
    row = playout.pack([state])[0]
    assert playout.policy_action(game, row, "attacker") == action("hand -2x2")  # limit 9 -> 5
    assert playout.policy_action(game, row, "high_cards") == action("hand 9")


def test_default_rollout_policy_is_the_attacker_heuristic():
    assert PIMCAgent(GAME, seed=0).rollout == "attacker"
    assert ISMCTSAgent(GAME, seed=0).horizon == "game"


# --- playouts ------------------------------------------------------------------------------


def deals_of(count, game=GAME):
    return [game.new_state(np.random.default_rng(seed)) for seed in range(count)]


@pytest.mark.parametrize("policy", ["attacker", "high_cards", "random"])
def test_playouts_end_in_finished_games_with_one_winner(policy):
    states = deals_of(20)
    winners, totals = GAME.random_playouts(states, np.random.default_rng(0), policy=policy)
    assert (winners.sum(axis=1) == 1).all()
    assert (totals.max(axis=1) >= 300).all()
    assert np.array_equal(winners, totals == totals.min(axis=1, keepdims=True))
    assert all(state.round == 1 and not state.terminal for state in states)  # unchanged


@pytest.mark.skipif(kernels.numba is None, reason="numba is not installed")
@pytest.mark.parametrize("policy", ["attacker", "random"])
def test_playouts_compiled_and_plain_are_identical(policy):
    rows = playout.pack(deals_of(30))
    first = np.array([-1, 0] * 15)
    first[1::2] = [playout.legal_actions(GAME, row)[0] for row in rows[1::2]]
    compiled = playout.playouts(GAME, rows.copy(), np.random.default_rng(7), first, True, policy)
    plain = playout.playouts(GAME, rows.copy(), np.random.default_rng(7), first, False, policy)
    assert np.array_equal(compiled, plain)


def test_round_horizon_stops_playouts_at_the_end_of_the_round():
    states = deals_of(20)
    winners, totals = GAME.random_playouts(states, np.random.default_rng(0), horizon="round")
    rows = playout.pack(states)
    playout.playouts(GAME, rows, np.random.default_rng(0), policy="attacker", one_round=True)
    assert (rows[:, kernel.ROUND] == 2).all()
    assert np.array_equal(playout.final_totals(GAME, rows), totals)
    # After one round the round's winner, at -10 or -80, is the lowest.
    assert ((totals.min(axis=1) == -10) | (totals.min(axis=1) == -80)).all()
    assert (winners.sum(axis=1) == 1).all()


def test_seed_groups_play_alike_after_alike_first_actions():
    states = [state for state in deals_of(3) for _ in range(2)]
    rows = playout.playouts(GAME, playout.pack(states), np.random.default_rng(0), seed_groups=2)
    assert np.array_equal(rows[0::2], rows[1::2])
    assert not np.array_equal(rows[0], rows[2])


@pytest.mark.parametrize(
    "params, message",
    [({"rollout": "dodger"}, "rollout policy"), ({"horizon": "deal"}, "rollout horizon")],
)
def test_bad_rollout_options_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        PIMCAgent(GAME, seed=0, **params)


def test_bad_playout_policy_is_refused():
    with pytest.raises(ValueError, match="policy='dodger'"):
        playout.playouts(GAME, playout.pack(deals_of(1)), np.random.default_rng(0), policy="dodger")


# --- search through the fast playouts ----------------------------------------------------


@pytest.mark.parametrize("horizon", ["game", "round"])
@pytest.mark.parametrize("agent_class", [PIMCAgent, ISMCTSAgent])
def test_search_never_peeks_through_the_fast_playouts(agent_class, horizon):
    shuffler = np.random.default_rng(3)
    for state in positions_with_a_choice(GAME, 4):
        seat = state.current_player
        mask = GAME.legal_mask(state, seat)
        params = {"seed": 2, "simulations": 40, "horizon": horizon}
        chosen = agent_class(GAME, **params).act({"action_mask": mask, "state": state})
        other = GAME.resample(state, seat, shuffler)
        other.rng = np.random.default_rng(54321)
        again = agent_class(GAME, **params).act({"action_mask": mask, "state": other})
        assert again == chosen
