"""Minus Two: the resampler a search agent uses to act from what its seat knows.

``MinusTwo.resample(state, player, rng)`` deals again every card ``player`` cannot see. These
tests check it over many positions of seeded games played by the heuristic and random agents:
the seat's view is unchanged, the deal does not depend on where the unseen cards really are (the
leak test's foundation), every unseen card can land everywhere it could be and nowhere else, and
play goes on from the new state. The Decisions of "Resampling" in the rules docstring are tested
on fixed deals."""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import numpy as np
import pytest

from cardzoo.agents import make_agent, take_turn
from cardzoo.envs.minus_two.rules import (
    CARD_NAMES,
    FACE_UP,
    HAND,
    MINUS_TWO,
    NO_CARD,
    NUM_TYPES,
    TAKE_PILE,
    MinusTwo,
    play_action,
)

AGENTS = ("attacker", "high_cards", "random")
#: the fields a seat sees or remembers in full (everything but hands, face-down rows and rng)
PUBLIC_FIELDS = (
    "pile",
    "pile_size",
    "limit",
    "target",
    "dealer",
    "round",
    "round_points",
    "round_winner",
    "hand_excludes",
    "current_player",
    "terminal",
)


def positions(num_players: int, seed: int, every: int = 7) -> list:
    """Copies of every ``every``-th position of a game of heuristic and random agents."""
    game = MinusTwo(num_players=num_players)
    agents = [
        make_agent("minus_two", AGENTS[(seat + seed) % 3], game, seed=seed * 10 + seat)
        for seat in range(num_players)
    ]
    state = game.new_state(np.random.default_rng(seed))
    found = []
    for step in itertools.count():
        if state.terminal:
            return found
        if step % every == 0:
            found.append(copy.deepcopy(state))
        take_turn(game, state, agents[state.current_player])


@pytest.fixture(scope="module")
def games_and_positions():
    cases = []
    for num_players, seed in ((2, 1), (3, 2), (4, 3), (6, 4)):
        game = MinusTwo(num_players=num_players)
        cases.append((game, positions(num_players, seed)))
    return cases


def unseen_of(state, seat: int) -> np.ndarray:
    """A seat's unseen cards by type: hand cards nobody has seen plus the face-down row."""
    row = state.face_down[seat]
    return state.hidden_hand[seat] + np.bincount(row[row != NO_CARD], minlength=NUM_TYPES)


def same_state(first, second) -> bool:
    for name in first.__dataclass_fields__:
        a, b = getattr(first, name), getattr(second, name)
        if name == "rng":
            if a.bit_generator.state != b.bit_generator.state:
                return False
        elif not np.array_equal(a, b):
            return False
    return True


# --- the seat's view is unchanged --------------------------------------------------------------


def test_resampled_state_keeps_everything_the_seat_knows(games_and_positions):
    rng = np.random.default_rng(0)
    checked = 0
    for game, states in games_and_positions:
        for state, seat in itertools.product(states, range(game.num_players)):
            world = game.resample(state, seat, rng)
            game.check_invariants(world)
            np.testing.assert_array_equal(game.observe(world, seat), game.observe(state, seat))
            np.testing.assert_array_equal(
                game.legal_mask(world, seat), game.legal_mask(state, seat)
            )
            for name in PUBLIC_FIELDS:
                np.testing.assert_array_equal(getattr(world, name), getattr(state, name), name)
            np.testing.assert_array_equal(world.cards[FACE_UP], state.cards[FACE_UP])
            np.testing.assert_array_equal(world.sizes, state.sizes)
            np.testing.assert_array_equal(world.face_down_held, state.face_down_held)
            np.testing.assert_array_equal(world.cards[HAND, seat], state.cards[HAND, seat])
            own_row = np.sort(world.face_down[seat]), np.sort(state.face_down[seat])
            np.testing.assert_array_equal(*own_row)
            for other in range(game.num_players):
                seen = world.cards[HAND, other] - world.hidden_hand[other]
                np.testing.assert_array_equal(
                    seen, state.cards[HAND, other] - state.hidden_hand[other]
                )
                np.testing.assert_array_equal(unseen_of(world, other), unseen_of(state, other))
            checked += 1
    assert checked > 300


def test_resampled_state_plays_on_with_the_generator_passed_in(games_and_positions):
    game, states = games_and_positions[2]
    rng = np.random.default_rng(5)
    world = game.resample(states[3], 0, rng)
    assert world.rng is rng  # the true generator would foretell the next rounds' deals


def test_copy_state_is_independent_and_continues_the_same(games_and_positions):
    game, states = games_and_positions[1]
    state = copy.deepcopy(states[-1])  # near the end: the copy plays into later rounds
    copied = game.copy_state(state)
    assert copied.rng is not state.rng and same_state(copied, state)
    copied.cards[HAND, 0] += 1  # the named views are the copy's own
    assert not np.array_equal(copied.table, state.table)
    copied.cards[HAND, 0] -= 1
    agents = [make_agent("minus_two", "random", game, seed=0) for _ in range(2)]
    for world, agent in zip((state, copied), agents):
        while not world.terminal:
            take_turn(game, world, agent)
    assert same_state(state, copied)
    given = np.random.default_rng(1)
    assert game.copy_state(state, rng=given).rng is given


# --- it does not depend on the cards the seat cannot see ---------------------------------------


def shuffle_unseen_by_hand(game: MinusTwo, state, seat: int, rng: np.random.Generator):
    """The same position with the seat's unseen cards moved by the test itself: the seat's
    face-down row reordered, and each other seat's unseen hand cards swapped with its face-down
    cards where the hand may hold them."""
    other = copy.deepcopy(state)
    held = np.flatnonzero(other.face_down[seat] != NO_CARD)
    other.face_down[seat, held] = other.face_down[seat, held][::-1]
    for player in range(game.num_players):
        if player == seat:
            continue
        for position in np.flatnonzero(other.face_down[player] != NO_CARD):
            down = int(other.face_down[player, position])
            hidden_types = np.flatnonzero(other.hidden_hand[player])
            if not hidden_types.size or other.hand_excludes[player, down]:
                continue
            up = int(rng.choice(hidden_types))
            other.face_down[player, position] = up
            for card, change in ((up, -1), (down, +1)):
                other.hidden_hand[player, card] += change
                other.cards[HAND, player, card] += change
    game.check_invariants(other)
    return other


def test_resample_does_not_depend_on_the_cards_the_seat_cannot_see(games_and_positions):
    rng = np.random.default_rng(1)
    moved = 0
    for game, states in games_and_positions:
        for state, seat in itertools.product(states, range(game.num_players)):
            by_hand = shuffle_unseen_by_hand(game, state, seat, rng)
            by_resample = game.resample(state, seat, rng)
            for other in (by_hand, by_resample):
                moved += not np.array_equal(other.face_down, state.face_down)
                first = game.resample(state, seat, np.random.default_rng(99))
                second = game.resample(other, seat, np.random.default_rng(99))
                assert same_state(first, second)
    assert moved > 500  # the other positions really hold their unseen cards elsewhere


# --- every unseen card can land everywhere it could be, and nowhere else ------------------------


def places_seen(game: MinusTwo, state, seat: int, samples: int) -> dict:
    """For every place of the seat's unseen cards, the card types the resampler put there."""
    rng = np.random.default_rng(2)
    seen = {}
    for _ in range(samples):
        world = game.resample(state, seat, rng)
        for player in range(game.num_players):
            for position in np.flatnonzero(world.face_down_held[player]):
                place = ("face-down", player, int(position))
                seen.setdefault(place, set()).add(int(world.face_down[player, position]))
            if player != seat:
                types = set(np.flatnonzero(world.hidden_hand[player]).tolist())
                seen.setdefault(("hand", player), set()).update(types)
    return seen


def could_be_in(state, seat: int, place: tuple) -> set[int]:
    """The types that can be in ``place`` in some state the seat cannot tell from ``state``."""
    kind, player = place[0], place[1]
    if player == seat:  # the seat's own face-down row: its cards in any order
        row = state.face_down[seat]
        return set(row[row != NO_CARD].tolist())
    unseen = unseen_of(state, player)
    allowed = np.where(state.hand_excludes[player], 0, unseen)
    in_hand = int(state.hidden_hand[player].sum())
    if kind == "hand":
        return set(np.flatnonzero(allowed).tolist()) if in_hand else set()
    # A face-down card of type t leaves enough other cards the hand may hold.
    return {
        card
        for card in np.flatnonzero(unseen).tolist()
        if allowed.sum() - (allowed[card] > 0) >= in_hand
    }


def test_every_unseen_card_lands_in_every_place_it_could_be_and_nowhere_else(
    games_and_positions,
):
    checked = Counter()
    for game, states in games_and_positions:
        for state in states[1::15]:
            for seat in range(game.num_players):
                for place, types in places_seen(game, state, seat, samples=200).items():
                    assert types == could_be_in(state, seat, place), (place, types)
                    checked[place[0]] += len(types) > 1
    assert checked["face-down"] > 50 and checked["hand"] > 10


# --- play goes on; a seed gives one state ------------------------------------------------------


def test_the_game_can_be_played_to_the_end_from_a_resampled_state(games_and_positions):
    rng = np.random.default_rng(3)
    for game, states in games_and_positions:
        agents = [make_agent("minus_two", "random", game, seed=s) for s in range(6)]
        for state in states[2::20]:
            world = game.resample(state, state.current_player, rng)
            while not world.terminal:
                take_turn(game, world, agents[world.current_player])
                game.check_invariants(world)


def test_resample_is_deterministic_for_a_seed(games_and_positions):
    game, states = games_and_positions[2]
    state = states[len(states) // 2]
    first = game.resample(state, 1, np.random.default_rng(7))
    again = game.resample(state, 1, np.random.default_rng(7))
    assert same_state(first, again)
    others = [game.resample(state, 1, np.random.default_rng(s)) for s in range(8, 12)]
    assert not all(np.array_equal(w.face_down, first.face_down) for w in others)


def test_resample_leaves_the_true_state_unchanged(games_and_positions):
    game, states = games_and_positions[1]
    state = states[4]
    before = copy.deepcopy(state)
    game.resample(state, 2, np.random.default_rng(0))
    assert same_state(state, before)


def test_bad_player_and_finished_game_raise_value_error():
    game = MinusTwo(num_players=3)
    state = game.new_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="player"):
        game.resample(state, 3, np.random.default_rng(0))
    state.terminal = True
    with pytest.raises(ValueError, match="game is over"):
        game.resample(state, 0, np.random.default_rng(0))


# --- Decisions, on fixed deals -----------------------------------------------------------------

ONE_COLOUR = "1 2 3 4 | 5 6 7 8 | 9 10 -2 -2 >>>"


def fixed_game(rows: list[str]):
    """A two-player game from "4 face-down | 4 face-up | 5 hand" rows."""
    game = MinusTwo(num_players=2)
    deals = [row.replace("|", " ").split() for row in rows]
    return game, game.new_state(np.random.default_rng(0), options={"deals": deals})


def types(names: str) -> np.ndarray:
    """Card counts by type of space-separated card names."""
    return np.bincount([CARD_NAMES.index(name) for name in names.split()], minlength=NUM_TYPES)


def test_decision_own_face_down_row_known():
    # player_0 saw 9 of its colour's 13 cards at the deal: its face-down row is 1 2 3 4, in an
    # order it does not know.
    game, state = fixed_game([ONE_COLOUR, ONE_COLOUR])
    rng = np.random.default_rng(0)
    rows = {tuple(game.resample(state, 0, rng).face_down[0].tolist()) for _ in range(300)}
    assert {tuple(sorted(row)) for row in rows} == {(0, 1, 2, 3)}
    assert len(rows) == 24  # every order of the four cards


def test_decision_unseen_cards_stay_with_their_seat():
    # player_1's unseen cards are its colour less its face-up 5 6 7 8, whatever player_0 holds.
    game, state = fixed_game([ONE_COLOUR, ONE_COLOUR])
    rng = np.random.default_rng(0)
    hands = set()
    for _ in range(200):
        world = game.resample(state, 0, rng)
        unseen = world.cards[HAND, 1] + np.bincount(world.face_down[1], minlength=NUM_TYPES)
        np.testing.assert_array_equal(unseen, types("1 2 3 4 9 10 -2 -2 >>>"))
        hands.add(tuple(world.cards[HAND, 1].tolist()))
    assert len(hands) > 50  # split between hand and face-down row in many ways


def test_decision_public_memory_of_hands_taking_the_pile():
    game, state = fixed_game(
        ["1 2 3 4 | 1 2 3 4 | 7 -2 -2 8 5", "5 6 9 10 | -2 -2 >>> >>> | 6 7 8 9 10"]
    )
    for move in (("hand", "7"), ("hand", "6"), ("hand", "-2", 2)):
        game.step(state, play_action(*move))
    assert state.limit == 2 and game.legal_mask(state, 1)[TAKE_PILE]
    game.step(state, TAKE_PILE)  # player_1 could play nothing on limit 2
    np.testing.assert_array_equal(state.hidden_hand[1], types("7 8 9 10"))
    np.testing.assert_array_equal(state.hand_excludes[1], types("1 2 -2 >>>") > 0)
    game.step(state, play_action("hand", "8"))
    game.step(state, play_action("hand", "7"))  # the 7 it took, as far as anybody can tell
    np.testing.assert_array_equal(state.hidden_hand[1], types("7 8 9 10"))
    np.testing.assert_array_equal(state.cards[HAND, 1], types("7 8 9 10 6 -2 -2"))
    rng = np.random.default_rng(0)
    for _ in range(100):
        world = game.resample(state, 0, rng)
        # The 6 and the two -2 it took stay; its four unseen hand cards are four of its
        # unseen 5 7 8 9 9 10 10 (never a -2 or >>>, and its face-down row takes the rest).
        seen = world.cards[HAND, 1] - world.hidden_hand[1]
        np.testing.assert_array_equal(seen, types("6 -2 -2"))
        assert world.hidden_hand[1].sum() == 4
        assert not world.hidden_hand[1][[0, 1, MINUS_TWO, MINUS_TWO + 1]].any()


def test_decision_public_memory_of_hands_only_minus_two_left():
    game, state = fixed_game(
        ["1 2 3 4 | 5 6 7 8 | 9 9 10 10 >>>", "1 2 3 4 | 5 6 7 8 | -2 -2 -2 -2 >>>"]
    )
    game.step(state, play_action("hand", "9"))
    game.step(state, play_action("hand", ">>>"))  # player_1 clears the pile and leads again
    assert game.play_source(state, 1) == FACE_UP  # its hand holds only -2
    game.step(state, play_action("face_up", "5"))
    np.testing.assert_array_equal(state.hand_excludes[1], types("-2") == 0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        world = game.resample(state, 0, rng)
        np.testing.assert_array_equal(world.cards[HAND, 1], types("-2 -2 -2 -2"))
        np.testing.assert_array_equal(np.sort(world.face_down[1]), [0, 1, 2, 3])


def test_public_memory_survives_snapshot_and_restore():
    game, state = fixed_game(
        ["1 2 3 4 | 5 6 7 8 | 9 9 10 10 >>>", "1 2 3 4 | 5 6 7 8 | -2 -2 -2 -2 >>>"]
    )
    for move in (("hand", "9"), ("hand", ">>>"), ("face_up", "5")):
        game.step(state, play_action(*move))
    restored = game.from_json(game.to_json(state))
    np.testing.assert_array_equal(restored.hidden_hand, state.hidden_hand)
    np.testing.assert_array_equal(restored.hand_excludes, state.hand_excludes)
    broken = game.snapshot(state)
    broken["state"]["hand_excludes"]["__ndarray__"][1][MINUS_TWO] = True  # but it holds -2
    with pytest.raises(ValueError, match="excluded type"):
        game.restore(broken)
