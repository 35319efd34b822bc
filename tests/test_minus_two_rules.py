"""Minus Two rules, one test per rule and Decision of shared/rules/minus_two.md.

Every position comes from a fixed deal (``reset(options={"deals": ...})``) and the moves written
in the test. Moves are written as at the table: ``"hand 9x2"`` (two 9 from the hand), ``"up 7"``
(a 7 from the face-up row), ``"blind 2"`` (turn face-down card 2), ``"take"`` (take the pile).
In six-player deals the players who only keep the game going are called fillers: ``?`` in a deal
stands for any card the named cards leave over (lowest first), so a test names only the cards it
is about."""

from __future__ import annotations

import copy
import json
import pickle
import warnings
from collections import Counter

import numpy as np
import pytest

from cardzoo.envs import minus_two_v0
from cardzoo.envs.minus_two.rules import (
    BLIND,
    BLIND_ACTIONS,
    CARD_NAMES,
    FACE_DOWN,
    FACE_UP,
    HAND,
    TAKE_PILE,
    MinusTwo,
    play_action,
)
from cardzoo.vector import MultiAgentVectorEnv

POINTS = {**{str(v): v for v in range(1, 11)}, "-2": 20, ">>>": 50}
SAME = "1 2 3 4 | 5 6 7 8 | 9 10 -2 -2 >>>"  # one colour, face-down | face-up | hand


def deals(num_players: int, seats: dict[int, str]) -> list[list[str]]:
    """The deals option: ``seats[p]`` = "4 face-down | 4 face-up | 5 hand" card names, ``?`` for
    a leftover card; unnamed players get leftovers only."""
    pool = Counter(dict.fromkeys(CARD_NAMES, num_players))
    pool["-2"] = 2 * num_players
    rows = []
    for player in range(num_players):
        names = seats.get(player, " ".join("?" * 13)).replace("|", " ").split()
        assert len(names) == 13, f"player {player}: {names}"
        pool.subtract(name for name in names if name != "?")
        rows.append(names)
    assert min(pool.values()) >= 0, f"more copies than the game holds: {pool}"
    leftovers = [name for name in CARD_NAMES for _ in range(pool[name])]
    for names in rows:
        for slot, name in enumerate(names):
            if name == "?":
                names[slot] = leftovers.pop(0)
    return rows


def new_game(seats: dict[int, str], num_players: int = 2, **params):
    game = MinusTwo(num_players=num_players, **params)
    rows = deals(num_players, seats)
    state = game.new_state(np.random.default_rng(0), {"deals": rows})
    game.check_invariants(state)
    return game, state, rows


def action(move: str) -> int:
    if move == "take":
        return TAKE_PILE
    where, what = move.split()
    if where == "blind":
        return BLIND_ACTIONS[int(what)]
    card, _, count = what.partition("x")
    return play_action({"hand": "hand", "up": "face_up"}[where], card, int(count or 1))


def move_name(action_id: int) -> str:
    if action_id == TAKE_PILE:
        return "take"
    if action_id >= BLIND:
        return f"blind {action_id - BLIND}"
    source, rest = divmod(action_id, 144)
    card, count = divmod(rest, 12)
    return f"{('hand', 'up')[source]} {CARD_NAMES[card]}" + (f"x{count + 1}" if count else "")


def play(game: MinusTwo, state, *moves: str):
    """Play the moves (each checked for legality); return the last step's rewards."""
    rewards = None
    for move in moves:
        rewards = game.step(state, action(move))
        game.check_invariants(state)
    return rewards


def legal(game: MinusTwo, state) -> set[str]:
    mask = game.legal_mask(state, state.current_player)
    return {move_name(a) for a in np.flatnonzero(mask)}


def points(cards) -> int:
    return sum(POINTS[card] for card in cards)


def play_round_out(game: MinusTwo, state, seed: int = 0) -> None:
    """Play the current round to its end with seeded random legal actions."""
    rng, round_now = np.random.default_rng(seed), state.round
    for _ in range(20_000):
        if state.terminal or state.round != round_now:
            return
        game.step(
            state, int(rng.choice(np.flatnonzero(game.legal_mask(state, state.current_player))))
        )
    raise AssertionError("the round did not end in 20 000 steps")


def field(game: MinusTwo, state, player: int, name: str) -> np.ndarray:
    return game.observe(state, player)[game.observation_layout[name]]


# --- six-player scenes: player_0 sheds fast with the many copies of a card ---------------------

FILLERS = (1, 2, 3, 4, 5)

# player_0 plays 5 >>> (and leads again) and 4 tens, then turns 4, 3, 2, 1 blind, one a turn;
# each filler plays the same value just before, so every blind card fits: player_0 goes out.
GOING_OUT = {
    0: "4 3 2 1 | 10 10 10 10 | >>> >>> >>> >>> >>>",
    **{p: "? ? ? ? | ? ? ? ? | 4 3 2 1 ?" for p in FILLERS},
}


def play_going_out(game, state, last: bool = True):
    play(game, state, "hand >>>x5", "up 10x4")
    for value, position in (("4", 0), ("3", 1), ("2", 2)):
        play(game, state, *[f"hand {value}"] * 5, f"blind {position}")
    play(game, state, *["hand 1"] * 5)
    return play(game, state, "blind 3") if last else None


# player_0 plays 5 >>> and 4 tens; fillers 1..4 play a 1 each and player_5, holding only fives,
# must take the pile: player_0 then turns blind cards on an empty pile.
EMPTY_PILE_FOR_BLIND = {
    **{p: "? ? ? ? | ? ? ? ? | 1 ? ? ? ?" for p in (1, 2, 3, 4)},
    5: "? ? ? ? | ? ? ? ? | 5 5 5 5 5",
}


def reach_empty_pile_for_blind(game, state):
    play(game, state, "hand >>>x5", "up 10x4", *["hand 1"] * 4, "take")
    assert state.current_player == 0 and state.pile_size == 0


# --- setup -----------------------------------------------------------------------------------


def test_deals_option_fixes_face_down_face_up_and_hand():
    game, state, _ = new_game({0: SAME, 1: "10 9 8 7 | 6 5 4 3 | 2 1 >>> -2 -2"})
    assert game.face_down_cards(state, 0) == ["1", "2", "3", "4"]
    assert game.face_up_cards(state, 0) == ["5", "6", "7", "8"]
    assert game.hand_cards(state, 0) == ["9", "10", "-2", "-2", ">>>"]
    assert game.face_down_cards(state, 1) == ["10", "9", "8", "7"]
    assert game.hand_cards(state, 1) == ["1", "2", "-2", "-2", ">>>"]
    assert state.pile_size == 0 and state.limit == 0 and state.round == 1


def test_deals_option_may_give_any_player_any_cards_of_the_colours():
    game, state, _ = new_game({0: "9 9 10 10 | 8 8 7 7 | >>> >>> -2 -2 -2"})
    assert game.face_up_cards(state, 0) == ["7", "7", "8", "8"]
    assert game.hand_cards(state, 0) == ["-2", "-2", "-2", ">>>", ">>>"]


@pytest.mark.parametrize(
    "bad, message",
    [
        ([["1"] * 13], "list of 2 deals"),
        ([SAME.replace("|", "").split()[:12], SAME.replace("|", "").split()], "13 card names"),
        ([["11"] + SAME.replace("|", "").split()[1:], SAME.replace("|", "").split()], "unknown"),
        ([["10"] + SAME.replace("|", "").split()[1:]] * 2, "exactly 2 colours"),
        ("1 2 3", "list of 2 deals"),
    ],
)
def test_deals_option_rejects_bad_deals(bad, message):
    game = MinusTwo(num_players=2)
    with pytest.raises(ValueError, match=message):
        game.new_state(np.random.default_rng(0), {"deals": bad})


def test_unknown_reset_option_is_dropped_with_a_warning_by_engine_and_env():
    with pytest.warns(UserWarning, match=r"ignores unknown reset options \['deck'\]"):
        state = MinusTwo().new_state(np.random.default_rng(0), {"deck": []})
    assert MinusTwo().snapshot(state) == MinusTwo().snapshot(
        MinusTwo().new_state(np.random.default_rng(0))
    )
    env = minus_two_v0.raw_env(num_players=2)
    with pytest.warns(UserWarning, match="deck"):
        env.reset(seed=0, options={"deck": []})


def test_round_one_dealer_is_the_last_player_so_player_0_starts():
    for num_players in range(2, 7):
        game = MinusTwo(num_players=num_players)
        state = game.new_state(np.random.default_rng(num_players))
        assert state.dealer == num_players - 1 and state.current_player == 0


def test_random_deal_gives_every_player_one_shuffled_colour():
    game = MinusTwo(num_players=5)
    state = game.new_state(np.random.default_rng(3))
    for player in range(5):
        cards = Counter(
            game.face_down_cards(state, player)
            + game.face_up_cards(state, player)
            + game.hand_cards(state, player)
        )
        assert cards == Counter({**dict.fromkeys(CARD_NAMES, 1), "-2": 2})
        assert len(game.hand_cards(state, player)) == 5
        assert len(game.face_up_cards(state, player)) == 4


# --- where from ------------------------------------------------------------------------------


def test_play_from_hand_while_it_has_cards():
    game, state, _ = new_game({0: SAME, 1: SAME})
    assert legal(game, state) == {"hand 9", "hand 10", "hand >>>"}
    assert field(game, state, 0, "play_from").tolist() == [1, 0, 0]


def test_play_from_face_up_when_the_hand_is_empty():
    game, state, _ = new_game({0: "1 2 3 4 | 10 9 9 -2 | >>> >>> >>> >>> >>>"}, num_players=6)
    play(game, state, "hand >>>x5")
    assert legal(game, state) == {"up 10", "up 9", "up 9x2"}
    assert field(game, state, 0, "play_from").tolist() == [0, 1, 0]
    play(game, state, "up 9x2")
    assert game.face_up_cards(state, 0) == ["10", "-2"] and state.limit == 9


def test_play_face_down_blind_when_hand_and_face_up_are_empty():
    game, state, _ = new_game(GOING_OUT, num_players=6)
    play(game, state, "hand >>>x5", "up 10x4", *["hand 4"] * 5)
    assert legal(game, state) == {"blind 0", "blind 1", "blind 2", "blind 3"}
    assert field(game, state, 0, "play_from").tolist() == [0, 0, 1]


def test_several_equal_cards_from_one_place_only():
    game, state, _ = new_game({0: "1 2 3 4 | 7 5 6 8 | 7 9 9 10 >>>"})
    # The hand holds one 7 and the face-up row another: never played together.
    assert legal(game, state) == {"hand 7", "hand 9", "hand 9x2", "hand 10", "hand >>>"}
    with pytest.raises(ValueError, match="illegal"):
        play(game, state, "hand 7x2")


def test_face_down_cards_are_played_one_at_a_time():
    game, state, _ = new_game(GOING_OUT, num_players=6)
    play(game, state, "hand >>>x5", "up 10x4", *["hand 4"] * 5, "blind 0")
    assert game.face_down_cards(state, 0) == [None, "3", "2", "1"]
    assert game.pile_cards(state)[-1] == "4" and state.current_player == 1


# --- number cards, -2 and >>> ----------------------------------------------------------------


def test_number_any_value_on_an_empty_pile():
    game, state, _ = new_game({0: "2 3 4 5 | 6 7 8 9 | 1 10 -2 -2 >>>", 1: SAME})
    assert {"hand 1", "hand 10"} <= legal(game, state)
    play(game, state, "hand 1")
    assert state.limit == 1


def test_number_at_most_the_limit():
    game, state, _ = new_game({0: SAME, 1: "1 2 3 4 | 5 6 7 -2 | 8 9 10 -2 >>>"})
    play(game, state, "hand 9")
    assert legal(game, state) == {"hand 8", "hand 9", "hand -2", "hand >>>"}


def test_several_equal_numbers_set_the_limit_to_their_value():
    game, state, _ = new_game({0: "1 2 3 4 | 7 5 6 8 | 7 9 9 10 >>>"})
    play(game, state, "hand 9x2")
    assert game.pile_cards(state) == ["9", "9"] and state.limit == 9
    assert game.hand_cards(state, 0) == ["7", "10", ">>>"]
    assert state.current_player == 1


def test_play_goes_to_the_left():
    game, state, _ = new_game({0: SAME, 1: SAME, 2: SAME}, num_players=3)
    order = []
    for _ in range(4):
        order.append(state.current_player)
        game.step(state, int(np.flatnonzero(game.legal_mask(state, state.current_player))[0]))
    assert order == [0, 1, 2, 0]


def test_minus_two_lowers_the_limit_by_two_per_card():
    game, state, _ = new_game({0: SAME, 1: SAME})
    play(game, state, "hand 10")
    assert {"hand -2", "hand -2x2"} <= legal(game, state)
    play(game, state, "hand -2")
    assert state.limit == 8
    play(game, state, "hand -2x2")
    assert state.limit == 4
    assert game.pile_cards(state) == ["10", "-2", "-2", "-2"] and state.current_player == 1


def test_minus_two_below_one_makes_its_player_take_the_pile():
    deal = "1 3 4 5 | 6 7 8 9 | 2 10 -2 -2 >>>"
    game, state, _ = new_game({0: deal, 1: deal})
    play(game, state, "hand 2", "hand -2")  # 2 - 2 = 0, below 1
    assert game.hand_cards(state, 1) == ["2", "2", "10", "-2", "-2", ">>>"]
    assert state.pile_size == 0 and state.limit == 0 and state.current_player == 0


def test_minus_two_down_to_exactly_one_stays_on_the_pile():
    deal = "1 2 4 5 | 6 7 8 9 | 3 10 -2 -2 >>>"
    game, state, _ = new_game({0: deal, 1: deal})
    play(game, state, "hand 3", "hand -2")
    assert state.limit == 1 and game.pile_cards(state) == ["3", "-2"]
    assert game.hand_cards(state, 1) == ["3", "10", "-2", ">>>"] and state.current_player == 0


def test_minus_two_never_first_on_an_empty_pile():
    game, state, _ = new_game({0: "1 2 3 4 | 5 6 7 8 | 9 10 -2 -2 -2"})
    assert legal(game, state) == {"hand 9", "hand 10"}
    with pytest.raises(ValueError, match="illegal"):
        play(game, state, "hand -2")


def test_clear_removes_the_pile_for_good_and_the_same_player_leads():
    game, state, _ = new_game({0: SAME, 1: SAME})
    play(game, state, "hand 10", "hand 9", "hand >>>")
    assert state.pile_size == 0 and state.limit == 0
    assert state.removed[[8, 9, 11]].tolist() == [1, 1, 1] and state.removed.sum() == 3
    assert state.current_player == 0
    assert legal(game, state) == {"hand 9"}  # the -2 cannot lead
    assert field(game, state, 1, "removed").sum() == 3


def test_clear_may_be_played_on_any_pile():
    deal = "2 3 4 5 | 6 7 8 9 | 1 10 -2 -2 >>>"
    game, state, _ = new_game({0: deal, 1: deal})
    assert "hand >>>" in legal(game, state)  # empty pile
    play(game, state, "hand 1")
    assert "hand >>>" in legal(game, state)  # limit 1
    play(game, state, "hand >>>")
    assert state.current_player == 1 and state.pile_size == 0


def test_several_clear_cards_may_go_together():
    game, state, _ = new_game({0: "1 2 3 4 | 10 9 9 -2 | >>> >>> >>> >>> >>>"}, num_players=6)
    assert legal(game, state) == {f"hand >>>x{k}" if k > 1 else "hand >>>" for k in range(1, 6)}
    play(game, state, "hand >>>x5")
    assert state.removed[11] == 5 and state.current_player == 0


# --- blind cards -----------------------------------------------------------------------------


def test_blind_card_that_may_be_played_is_played():
    game, state, _ = new_game(GOING_OUT, num_players=6)
    play(game, state, "hand >>>x5", "up 10x4", *["hand 4"] * 5, "blind 0")
    assert game.pile_cards(state)[-1] == "4" and state.limit == 4
    assert game.hand_cards(state, 0) == []


def test_blind_card_that_cannot_be_played_goes_into_the_hand_with_the_pile():
    seats = {
        0: "5 6 7 8 | 10 10 10 10 | >>> >>> >>> >>> >>>",
        **{p: "? ? ? ? | ? ? ? ? | 1 ? ? ? ?" for p in FILLERS},
    }
    game, state, _ = new_game(seats, num_players=6)
    play(game, state, "hand >>>x5", "up 10x4", *["hand 1"] * 5)
    assert legal(game, state) == {"blind 0", "blind 1", "blind 2", "blind 3"}  # never "take"
    play(game, state, "blind 2")  # a 7 on limit 1
    assert game.hand_cards(state, 0) == ["1"] * 5 + ["7"] + ["10"] * 4
    assert game.face_down_cards(state, 0) == ["5", "6", None, "8"]
    assert state.pile_size == 0 and state.current_player == 1


def test_blind_minus_two_on_a_pile_is_played():
    seats = {
        0: "-2 6 7 8 | 10 10 10 10 | >>> >>> >>> >>> >>>",
        **{p: "? ? ? ? | ? ? ? ? | 9 ? ? ? ?" for p in FILLERS},
    }
    game, state, _ = new_game(seats, num_players=6)
    play(game, state, "hand >>>x5", "up 10x4", *["hand 9"] * 5, "blind 0")
    assert state.limit == 7 and game.pile_cards(state)[-1] == "-2"
    assert game.hand_cards(state, 0) == [] and state.current_player == 1


def test_blind_minus_two_on_an_empty_pile_goes_into_the_hand_and_another_is_turned():
    seats = {0: "-2 9 -2 8 | 10 10 10 10 | >>> >>> >>> >>> >>>", **EMPTY_PILE_FOR_BLIND}
    game, state, _ = new_game(seats, num_players=6)
    reach_empty_pile_for_blind(game, state)
    play(game, state, "blind 0")
    assert game.hand_cards(state, 0) == ["-2"] and state.current_player == 0
    # Only a -2 in the hand on an empty pile: the next face-down card it is.
    assert legal(game, state) == {"blind 1", "blind 2", "blind 3"}
    play(game, state, "blind 2")
    assert game.hand_cards(state, 0) == ["-2", "-2"] and state.current_player == 0
    play(game, state, "blind 1")  # a 9: played on the empty pile, the turn passes
    assert game.pile_cards(state) == ["9"] and state.current_player == 1
    assert game.face_down_cards(state, 0) == [None, None, None, "8"]


def test_blind_minus_two_as_last_face_down_card_on_an_empty_pile_ends_the_round():
    seats = {0: "-2 -2 -2 -2 | 10 10 10 10 | >>> >>> >>> >>> >>>", **EMPTY_PILE_FOR_BLIND}
    game, state, rows = new_game(seats, num_players=6, reward="points")
    reach_empty_pile_for_blind(game, state)
    play(game, state, "blind 0", "blind 1", "blind 2")
    assert game.hand_cards(state, 0) == ["-2"] * 3 and state.current_player == 0
    rewards = play(game, state, "blind 3")  # all four -2 go out together: bonus 80
    expected = [-80] + [points(rows[p]) - 1 for p in (1, 2, 3, 4)]
    expected.append(points(rows[5]) + 4 * 10 + 4 * 1)  # player_5 took 10 10 10 10 1 1 1 1
    assert state.round_points.tolist() == expected
    assert rewards.tolist() == [-p for p in expected]
    assert state.round == 2


# --- taking the pile -------------------------------------------------------------------------


def test_take_the_pile_without_a_legal_play():
    game, state, _ = new_game(
        {0: "2 3 4 5 | 6 7 8 9 | 1 10 -2 -2 >>>", 1: "-2 -2 >>> 1 | 2 3 4 5 | 6 7 8 9 10"}
    )
    play(game, state, "hand 1")
    assert legal(game, state) == {"take"}
    play(game, state, "take")
    assert game.hand_cards(state, 1) == ["1", "6", "7", "8", "9", "10"]
    assert state.pile_size == 0 and state.current_player == 0
    assert "take" not in legal(game, state)  # never on an empty pile


def test_take_the_pile_is_illegal_with_a_legal_play():
    deal = "2 3 4 5 | 6 7 8 9 | 1 10 -2 -2 >>>"
    game, state, _ = new_game({0: deal, 1: deal})
    play(game, state, "hand 1")
    assert legal(game, state) == {"hand 1", "hand -2", "hand -2x2", "hand >>>"}
    with pytest.raises(ValueError, match="illegal"):
        play(game, state, "take")


# --- empty pile, only -2 where one must play from --------------------------------------------


def test_empty_pile_only_minus_two_in_hand_plays_from_face_up():
    game, state, _ = new_game({0: "1 2 3 4 | 5 6 7 8 | -2 -2 -2 -2 >>>"})
    assert legal(game, state) == {"hand >>>"}
    play(game, state, "hand >>>")
    assert legal(game, state) == {"up 5", "up 6", "up 7", "up 8"}
    assert field(game, state, 0, "play_from").tolist() == [0, 1, 0]


def test_empty_pile_only_minus_two_face_up_plays_any_face_down_card():
    game, state, _ = new_game({0: "-2 -2 -2 >>> | -2 -2 -2 -2 | >>> >>> >>> >>> >>>"}, 6)
    play(game, state, "hand >>>x5")
    # Every face-down card lies under a face-up -2; all four may be turned.
    assert legal(game, state) == {"blind 0", "blind 1", "blind 2", "blind 3"}
    assert field(game, state, 0, "play_from").tolist() == [0, 0, 1]


# --- last cards ------------------------------------------------------------------------------


def test_last_cards_every_minus_two_together_on_an_empty_pile_ends_the_round():
    game, state, rows = new_game(
        {0: "-2 -2 -2 >>> | -2 -2 -2 -2 | >>> >>> >>> >>> >>>"}, 6, target_score=10_000
    )
    play(game, state, "hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3")
    # The >>> was the last face-down card: three -2 in hand, four face up, an empty pile.
    assert game.hand_cards(state, 0) == ["-2"] * 3 and state.pile_size == 0
    assert legal(game, state) == {"hand -2x7"}
    play(game, state, "hand -2x7")
    assert state.round_winner == 0
    assert state.totals.tolist() == [-80] + [points(rows[p]) for p in FILLERS]


@pytest.mark.parametrize("filler_card, limit", [("9", 9), ("1", 1)])
def test_last_cards_on_a_pile_end_the_round_whatever_the_limit(filler_card, limit):
    seats = {
        0: "-2 -2 -2 9 | -2 -2 -2 -2 | >>> >>> >>> >>> >>>",
        **{p: f"? ? ? ? | ? ? ? ? | {filler_card} ? ? ? ?" for p in FILLERS},
    }
    game, state, rows = new_game(seats, 6, target_score=10_000)
    play(game, state, "hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3")
    play(game, state, *[f"hand {filler_card}"] * 5)
    assert state.limit == limit
    assert legal(game, state) == {"hand -2", "hand -2x2", "hand -2x3", "hand -2x7"}
    play(game, state, "hand -2x7")  # 7 x -2 on any limit: below 1, but the round is over
    assert state.round == 2 and state.round_winner == 0
    assert state.totals[0] == -80
    assert state.totals[1:].tolist() == [points(rows[p]) - int(filler_card) for p in FILLERS]


def test_last_cards_on_a_pile_may_also_play_fewer_minus_two():
    seats = {
        0: "-2 -2 -2 9 | -2 -2 -2 -2 | >>> >>> >>> >>> >>>",
        **{p: "? ? ? ? | ? ? ? ? | 9 ? ? ? ?" for p in FILLERS},
    }
    game, state, _ = new_game(seats, 6)
    play(game, state, "hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3", *["hand 9"] * 5)
    play(game, state, "hand -2x2")
    assert state.limit == 5 and game.hand_cards(state, 0) == ["-2"]
    assert state.current_player == 1 and state.round == 1


# --- scoring ---------------------------------------------------------------------------------


def test_round_winner_with_a_number_last_gets_minus_10_and_others_their_cards():
    game, state, rows = new_game(GOING_OUT, 6, target_score=10_000)
    play_going_out(game, state)
    # Fillers played 4 3 2 1 from their hands; the >>> removed are never scored.
    expected = [-10] + [points(rows[p]) - 10 for p in FILLERS]
    assert state.round_points.tolist() == expected and state.totals.tolist() == expected
    assert state.round_winner == 0
    assert points(rows[5]) - 10 == 8 * 20 + 50  # player_5 holds eight -2 and a >>>


def test_round_winner_with_minus_two_last_gets_minus_80():
    game, state, _ = new_game(
        {0: "-2 -2 -2 >>> | -2 -2 -2 -2 | >>> >>> >>> >>> >>>"}, 6, target_score=10_000
    )
    play(game, state, "hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3", "hand -2x7")
    assert state.round_points[0] == -80


def test_count_scoring_counts_every_card_one_point_and_gives_no_bonus():
    game, state, _ = new_game(GOING_OUT, 6, scoring="count", target_score=1000)
    play_going_out(game, state)
    assert state.round_points.tolist() == [0] + [9] * 5


def test_points_reward_is_minus_the_points_added_each_round():
    game, state, rows = new_game(GOING_OUT, 6, reward="points", target_score=10_000)
    rewards = play_going_out(game, state)
    assert rewards.tolist() == [10.0] + [-(points(rows[p]) - 10.0) for p in FILLERS]


def test_win_reward_gives_nothing_at_a_round_end_before_the_game_end():
    game, state, _ = new_game(GOING_OUT, 6, target_score=10_000)
    assert play_going_out(game, state) is None and not state.terminal


# --- rounds and the game end -----------------------------------------------------------------


def test_dealer_moves_left_every_round_and_the_left_neighbour_starts():
    game, state, _ = new_game(GOING_OUT, 6, target_score=10_000)
    play_going_out(game, state)
    assert state.round == 2 and state.dealer == 0 and state.current_player == 1
    assert state.sizes[:, :].tolist() == [[5] * 6, [4] * 6, [4] * 6]
    play_round_out(game, state)
    assert state.round == 3 and state.dealer == 1 and state.current_player == 2


def test_later_rounds_are_dealt_from_the_seeded_generator():
    dealt = []
    for _ in range(2):
        game, state, _ = new_game(GOING_OUT, 6, target_score=10_000)
        play_going_out(game, state)
        dealt.append(game.snapshot(state)["state"]["face_down"])
    assert dealt[0] == dealt[1]
    for player in range(6):  # every player gets their own colour again
        cards = game.face_down_cards(state, player)
        cards += game.face_up_cards(state, player) + game.hand_cards(state, player)
        assert Counter(cards) == Counter({**dict.fromkeys(CARD_NAMES, 1), "-2": 2})


def test_game_ends_when_a_total_reaches_the_target_and_the_lowest_wins():
    game, state, rows = new_game(GOING_OUT, 6, target_score=points(rows_of(GOING_OUT)[5]) - 10)
    rewards = play_going_out(game, state)
    assert state.terminal
    assert game.winners(state).tolist() == [True] + [False] * 5
    assert rewards.tolist() == [1.0] + [-1.0] * 5
    assert game.scores(state).tolist() == state.totals.tolist()
    assert game.pile_cards(state)[-1] == "1" and state.round == 1  # the last table stays


def test_game_goes_on_while_no_total_reaches_the_target():
    target = points(rows_of(GOING_OUT)[5]) - 10 + 1  # player_5's total falls one short
    game, state, _ = new_game(GOING_OUT, 6, target_score=target)
    play_going_out(game, state)
    assert not state.terminal and state.round == 2


def rows_of(seats, num_players=6):
    return deals(num_players, seats)


@pytest.mark.parametrize("scoring, raise_by", [("face", 100), ("count", 10)])
def test_tie_for_lowest_raises_the_target_and_play_goes_on(scoring, raise_by):
    game, state, rows = new_game(GOING_OUT, 6, scoring=scoring)
    target = game.target_score
    play_going_out(game, state, last=False)
    # Earlier rounds, say, left player_1 to tie with player_0 after this one.
    bonus = -10 if scoring == "face" else 0
    added_1 = points(rows[1]) - 10 if scoring == "face" else 9
    state.totals[:] = [5, 5 + bonus - added_1] + [target + 200] * 4
    play(game, state, "blind 3")
    assert state.totals[0] == state.totals[1] == 5 + bonus
    assert not state.terminal and state.target == target + raise_by and state.round == 2
    # One more round at least: then the end is checked again against the new target.
    play_round_out(game, state)
    lowest = state.totals == state.totals.min()
    assert state.terminal == (lowest.sum() == 1)
    if state.terminal:
        assert game.winners(state).tolist() == lowest.tolist()


def test_default_target_is_300_for_face_and_30_for_count_scoring():
    assert MinusTwo().target_score == 300
    assert MinusTwo(scoring="count").target_score == 30
    assert MinusTwo(scoring="count", target_score=8).target_score == 8


@pytest.mark.parametrize(
    "params, name",
    [
        ({"scoring": "faces"}, "scoring"),
        ({"reward": "score"}, "reward"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": 2.5}, "target_score"),
        ({"num_players": 7}, "num_players"),
    ],
)
def test_bad_parameters_name_the_parameter(params, name):
    with pytest.raises(ValueError, match=name):
        minus_two_v0.env(**params)


# --- the environment -------------------------------------------------------------------------


def env_on(seats, num_players=6, **params):
    env = minus_two_v0.raw_env(num_players=num_players, **params)
    env.reset(seed=0, options={"deals": deals(num_players, seats)})
    return env


def test_raw_env_illegal_action_raises_naming_agent_action_and_legal_ones():
    env = env_on({0: SAME, 1: SAME}, num_players=2)
    with pytest.raises(ValueError, match=r"player_0 is illegal \(play 1 x -2 from hand\)") as info:
        env.step(action("hand -2"))
    assert "play 1 x 9 from hand" in str(info.value) and "take the pile" not in str(info.value)


def test_env_illegal_action_ends_the_game_with_minus_one_for_the_offender():
    env = minus_two_v0.env(num_players=2)
    env.reset(seed=0, options={"deals": deals(2, {0: SAME, 1: SAME})})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(action("hand -2"))
    assert env.rewards == {"player_0": -1, "player_1": 0}
    assert all(env.terminations.values())


def test_max_cycles_truncates_the_game_with_zero_reward():
    env = env_on(GOING_OUT, max_cycles=25, target_score=1)
    moves = ["hand >>>x5", "up 10x4"]
    for value, position in (("4", 0), ("3", 1), ("2", 2)):
        moves += [f"hand {value}"] * 5 + [f"blind {position}"]
    moves += ["hand 1"] * 5
    for move in moves[:25]:
        env.step(action(move))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0.0}


def test_game_end_on_the_max_cycles_step_is_a_normal_end():
    env = env_on(GOING_OUT, max_cycles=26, target_score=1)
    moves = ["hand >>>x5", "up 10x4"]
    for value, position in (("4", 0), ("3", 1), ("2", 2)):
        moves += [f"hand {value}"] * 5 + [f"blind {position}"]
    moves += ["hand 1"] * 5 + ["blind 3"]
    assert len(moves) == 26
    for move in moves:
        env.step(action(move))
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, **{f"player_{p}": -1.0 for p in FILLERS}}


# --- what a player sees ----------------------------------------------------------------------


def test_observation_is_seat_relative():
    seats = {0: SAME, 1: "1 2 3 4 | 9 9 10 10 | 5 6 7 8 >>>", 2: "? ? ? ? | 5 6 7 8 | ? ? ? ? ?"}
    game, state, _ = new_game(seats, num_players=3)
    play(game, state, "hand 9")
    seen = game.observe(state, 1)
    fields = {name: seen[part] for name, part in game.observation_layout.items()}
    face_up = fields["face_up"].reshape(3, 12)
    assert face_up[0, [8, 9]].tolist() == [2, 2]  # player_1 (the observer) first
    assert face_up[1, [4, 5, 6, 7]].tolist() == [1, 1, 1, 1]  # then player_2
    assert face_up[2, [4, 5, 6, 7]].tolist() == [1, 1, 1, 1]  # then player_0
    assert fields["hand"][[4, 5, 6, 7, 11]].tolist() == [1] * 5
    assert fields["hand_sizes"].tolist() == [5, 5, 4]
    assert fields["face_up_sizes"].tolist() == [4, 4, 4]
    assert fields["face_down_sizes"].tolist() == [4, 4, 4]
    assert fields["face_down"].tolist() == [1, 1, 1, 1]
    assert fields["play_from"].tolist() == [1, 0, 0]
    assert fields["pile_limit"][0] == 9 and fields["pile_size"][0] == 1
    assert fields["pile"][8] == 1 and fields["pile"].sum() == 1
    assert fields["target"][0] == 300 and fields["totals"].tolist() == [0, 0, 0]


def test_totals_may_go_negative_within_the_observation_space():
    env = env_on({0: "-2 -2 -2 >>> | -2 -2 -2 -2 | >>> >>> >>> >>> >>>"}, target_score=10_000)
    for move in ["hand >>>x5", "blind 0", "blind 1", "blind 2", "blind 3", "hand -2x7"]:
        env.step(action(move))
    observation = env.observe("player_0")["observation"]
    assert observation[env.observation_layout["totals"]][0] == -80
    assert env.observation_space("player_0")["observation"].contains(observation)
    # Seen from player_1, player_0 comes last.
    totals = env.observe("player_1")["observation"][env.observation_layout["totals"]]
    assert totals.tolist() == env.state_.totals[[1, 2, 3, 4, 5, 0]].tolist() and totals[-1] == -80


def redeal_hidden_cards(game: MinusTwo, state, observer: int) -> None:
    """Give every hidden card (other players' hands, every face-down card) a different type,
    keeping each place's size: what the observer cannot see is all that changes."""
    slots = []  # (kind, player, index) of every hidden card
    types = []
    for player in range(game.num_players):
        for position, card in enumerate(state.face_down[player]):
            if card >= 0:
                slots.append(("down", player, position))
                types.append(int(card))
        if player != observer:
            for card in np.repeat(np.arange(12), state.cards[HAND, player]):
                slots.append(("hand", player, None))
                types.append(int(card))
    types = np.array(types)
    order = np.argsort(types, kind="stable")
    shift = int(np.bincount(types).max())
    assert 2 * shift <= len(types), "too many equal hidden cards to change them all"
    new_types = types.copy()
    new_types[order] = np.roll(types[order], shift)  # sorted and shifted: every type changes
    assert (new_types != types).all()
    for player in range(game.num_players):
        if player != observer:
            state.cards[HAND, player] = 0
    for (kind, player, position), card in zip(slots, new_types):
        if kind == "down":
            state.face_down[player, position] = card
        else:
            state.cards[HAND, player, card] += 1
    # The table's memory of the hands (not observed) must still fit the redealt hands.
    np.minimum(state.hidden_hand, state.cards[HAND], out=state.hidden_hand)
    state.hand_excludes[:] = False
    game.check_invariants(state)


@pytest.mark.parametrize("seed", range(4))
def test_no_leak_changing_every_hidden_card_leaves_the_observation_unchanged(seed):
    game = MinusTwo(num_players=4)
    state = game.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(12 + 5 * seed):
        legal_actions = np.flatnonzero(game.legal_mask(state, state.current_player))
        game.step(state, int(rng.choice(legal_actions)))
    for observer in range(4):
        changed = game.restore(game.snapshot(state))
        before = game.observe(state, observer).copy()
        mask_before = game.legal_mask(state, observer)
        redeal_hidden_cards(game, changed, observer)
        assert not np.array_equal(changed.face_down, state.face_down)
        np.testing.assert_array_equal(game.observe(changed, observer), before)
        np.testing.assert_array_equal(game.legal_mask(changed, observer), mask_before)


def test_render_from_a_seat_shows_only_what_that_seat_sees():
    game, state, _ = new_game({0: SAME, 1: "10 9 8 7 | 6 5 4 3 | 2 1 >>> -2 -2"})
    play(game, state, "hand 9")
    seen = game.render(state, 0)
    assert "hand: 10 -2 -2 >>>" in seen and "hand: 5 cards" in seen
    assert "face-up: 3 4 5 6" in seen and "face-down: # # # #" in seen
    assert "[10]" not in seen and "limit 9" in seen
    everything = game.render(state)
    assert "hand: 1 2 -2 -2 >>>" in everything and "[10] [9] [8] [7]" in everything
    env = minus_two_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    assert "player_1" in env.render()


def test_action_names_and_ids():
    game = MinusTwo()
    assert game.num_actions == 293
    assert play_action("hand", "1") == 0 and play_action("face_up", ">>>", 12) == 287
    assert game.action_name(play_action("face_up", "-2", 3)) == "play 3 x -2 from face-up row"
    assert game.action_name(BLIND_ACTIONS[2]) == "turn face-down card 2"
    assert game.action_name(TAKE_PILE) == "take the pile"
    with pytest.raises(ValueError, match="source"):
        play_action("deck", "7")
    assert (HAND, FACE_UP, FACE_DOWN) == (0, 1, 2)


def test_state_views_stay_tied_to_their_own_table_after_restore_copy_and_pickle():
    """The named counts are views into one flat table (one gather per observation): every way
    of copying a state must give the copy views of its own table."""
    game = MinusTwo(num_players=4)
    state = game.new_state(np.random.default_rng(0))
    copies = [
        game.restore(json.loads(json.dumps(game.snapshot(state)))),
        copy.deepcopy(state),
        pickle.loads(pickle.dumps(state)),
    ]
    for duplicate in copies:
        for name in ("cards", "face_down_held", "sizes", "totals", "pile_counts", "removed"):
            assert np.shares_memory(getattr(duplicate, name), duplicate.table), name
            assert not np.shares_memory(getattr(duplicate, name), state.table), name
        duplicate.totals[0] += 5
        assert duplicate.table[duplicate.table != state.table].tolist() == [5]
        assert state.totals[0] == 0


def test_target_score_bounded_at_one_million():
    """Decision (target score bounded): the highest target a row of 32-bit integers is given is
    1,000,000; it is played and observed as any other, one more is refused by name."""
    env = env_on({0: SAME, 1: SAME}, num_players=2, target_score=1_000_000)
    seen = env.observe("player_0")["observation"]
    assert seen[env.observation_layout["target"]].tolist() == [1_000_000.0]
    assert env.unwrapped.state_.target == 1_000_000
    games = MultiAgentVectorEnv("minus_two", 2, num_players=2, target_score=1_000_000)
    step = games.reset(seed=0)
    assert games.batch.rows.dtype == np.int32  # the rows the Decision is about
    assert step.observation[:, env.observation_layout["target"]].tolist() == [[1e6], [1e6]]
    with pytest.raises(ValueError, match=r"target_score=1000001 is out of range; allowed 1\.\."):
        minus_two_v0.env(target_score=1_000_001)
