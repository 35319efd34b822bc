"""Believe It or Not: the resampler a search agent uses to act from what its seat knows.

``BelieveItOrNot.resample(state, player, rng)`` deals again every card ``player`` cannot see (the
other hands, the other players' face-down cards on the table, the cards another player is
placing). These tests check it over many positions of seeded games of both variants played by
the heuristic and random agents: the seat's view is unchanged, the deal does not depend on where
the unseen cards really are (the leak test's foundation), every unseen card can land everywhere
it could be and nowhere else, and play goes on from the new state. The Decisions of "Resampling"
in the rules docstring are tested on fixed deals."""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import numpy as np
import pytest

from cardzoo.agents import make_agent, take_turn
from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    BELIEVE,
    CARD_NAMES,
    DECLARE,
    DOUBT,
    FINISH,
    HAND_SIZE,
    NO_ONE,
    NUM_TYPES,
    PEEK_AT,
    PLAY_PEEK,
    SET_SIZE,
    TURN_CARD,
    BelieveItOrNot,
)

AGENTS = ("honest", "bluffer", "random")
#: the fields every seat sees in full
PUBLIC_FIELDS = (
    "seat_counts",
    "decision",
    "special_played",
    "building_size",
    "declared",
    "table_size",
    "num_placements",
    "out_of_game",
    "peek_player",
    "peek_position",
    "revealed_card",
    "revealed_true",
    "revealed_taker",
    "winner_mask",
    "current_player",
    "terminal",
)


def positions(game: BelieveItOrNot, seed: int, every: int = 4) -> list:
    """Copies of every ``every``-th position of a game of heuristic and random agents."""
    agents = [
        make_agent("believe_it_or_not", AGENTS[(seat + seed) % 3], game, seed=seed * 10 + seat)
        for seat in range(game.num_players)
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
    for variant, num_players, seed in (
        ("quick", 2, 1),
        ("quick", 4, 2),
        ("quick", 6, 3),
        ("standard", 3, 4),
        ("standard", 4, 5),
        ("standard", 5, 6),
    ):
        game = BelieveItOrNot(num_players=num_players, variant=variant)
        cases.append((game, positions(game, seed)))
    return cases


def owner_at(state) -> np.ndarray:
    """The owner of every card on the table, in table order."""
    used = slice(0, state.num_placements)
    return np.repeat(state.placement_owners[used], state.placement_sizes[used])


def peeked_position(state, seat: int) -> int | None:
    """The table position of the card ``seat`` is looking at, if any."""
    if state.peek_player != seat:
        return None
    return state.table_size - state.placement_sizes[state.num_placements - 1] + state.peek_position


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


def check_seat_view(game: BelieveItOrNot, state, world, seat: int) -> None:
    game.check_invariants(world)
    np.testing.assert_array_equal(game.observe(world, seat), game.observe(state, seat))
    np.testing.assert_array_equal(game.legal_mask(world, seat), game.legal_mask(state, seat))
    for name in PUBLIC_FIELDS:
        np.testing.assert_array_equal(getattr(world, name), getattr(state, name), name)
    used = slice(0, state.num_placements)
    np.testing.assert_array_equal(world.placement_owners[used], state.placement_owners[used])
    np.testing.assert_array_equal(world.placement_sizes[used], state.placement_sizes[used])
    np.testing.assert_array_equal(world.hands[seat], state.hands[seat])
    np.testing.assert_array_equal(world.taken_known[seat], state.taken_known[seat])
    own = np.flatnonzero(owner_at(state) == seat)
    np.testing.assert_array_equal(world.table_cards[own], state.table_cards[own])
    peeked = peeked_position(state, seat)
    if peeked is not None:
        assert world.table_cards[peeked] == state.table_cards[peeked]
    if state.current_player == seat:
        building = slice(0, state.building_size)
        np.testing.assert_array_equal(world.building[building], state.building[building])


def test_resampled_state_keeps_everything_the_seat_knows(games_and_positions):
    rng = np.random.default_rng(0)
    checked = Counter()
    for game, states in games_and_positions:
        for state, seat in itertools.product(states, range(game.num_players)):
            check_seat_view(game, state, game.resample(state, seat, rng), seat)
            checked["positions"] += 1
            checked["peeks"] += state.peek_player == seat
            checked["taken"] += state.taken_known[seat].any()
            checked["building"] += state.building_size > 0 and state.current_player != seat
    assert checked["positions"] > 800
    assert min(checked["peeks"], checked["taken"], checked["building"]) >= 5, checked


def test_resampled_state_plays_on_with_the_generator_passed_in(games_and_positions):
    game, states = games_and_positions[1]
    rng = np.random.default_rng(5)
    assert game.resample(states[3], 0, rng).rng is rng


# --- it does not depend on the cards the seat cannot see ---------------------------------------


def unseen_places(state, seat: int) -> list[tuple[str, int]]:
    """Every card the seat cannot see: ("hand", player) once per card, ("table", position),
    ("building", index)."""
    places = []
    for player in range(len(state.hands)):
        if player != seat:
            places += [("hand", player)] * int(state.hands[player].sum())
    peeked = peeked_position(state, seat)
    for position, owner in enumerate(owner_at(state).tolist()):
        if owner != seat and position != peeked:
            places.append(("table", position))
    if state.current_player != seat:
        places += [("building", index) for index in range(state.building_size)]
    return places


def unseen_owners(state, seat: int) -> list[int]:
    """The player whose card each of :func:`unseen_places` is."""
    table_owners = owner_at(state).tolist()
    owner = {
        "hand": lambda player: player,
        "table": lambda position: table_owners[position],
        "building": lambda _: state.current_player,
    }
    return [owner[kind](where) for kind, where in unseen_places(state, seat)]


def cards_in(state, places: list) -> list[int]:
    hands = {
        player: np.repeat(np.arange(NUM_TYPES), state.hands[player]).tolist()
        for player in range(len(state.hands))
    }
    cards = []
    for kind, where in places:
        if kind == "hand":
            cards.append(hands[where].pop(0))
        else:
            cards.append(int((state.table_cards if kind == "table" else state.building)[where]))
    return cards


def with_cards(state, places: list, cards: list[int]):
    """A copy of ``state`` with ``cards`` put into ``places`` and the table recounted."""
    other = copy.deepcopy(state)
    for player in {where for kind, where in places if kind == "hand"}:
        other.hands[player] = 0
    for (kind, where), card in zip(places, cards):
        if kind == "hand":
            other.hands[where, card] += 1
        elif kind == "table":
            other.table_cards[where] = card
        else:
            other.building[where] = card
    other.table_counts[:] = 0
    np.add.at(other.table_counts, (owner_at(other), other.table_cards[: other.table_size]), 1)
    return other


def swap_unseen_by_hand(game, state, seat: int, rng: np.random.Generator):
    """The same position with some of the seat's unseen cards swapped by the test itself,
    every swap kept only if the result is a consistent state; and the others remember nothing
    of the taken table (what they saw go to the taker is theirs alone)."""
    state = copy.deepcopy(state)
    state.taken_known[np.arange(game.num_players) != seat] = 0
    places = unseen_places(state, seat)
    cards = cards_in(state, places)
    other = state
    for _ in range(12 if len(places) > 1 else 0):
        first, second = rng.choice(len(places), 2, replace=False)
        if cards[first] == cards[second]:
            continue
        swapped = list(cards)
        swapped[first], swapped[second] = swapped[second], swapped[first]
        candidate = with_cards(state, places, swapped)
        try:
            game.check_invariants(candidate)
        except AssertionError:
            continue
        cards, other = swapped, candidate
    return other


def test_resample_does_not_depend_on_the_cards_the_seat_cannot_see(games_and_positions):
    rng = np.random.default_rng(1)
    moved = 0
    for game, states in games_and_positions:
        for state, seat in itertools.product(states[::5], range(game.num_players)):
            by_hand = swap_unseen_by_hand(game, state, seat, rng)
            by_resample = game.resample(state, seat, rng)
            for other in (by_hand, by_resample):
                moved += not np.array_equal(other.hands, state.hands)
                first = game.resample(state, seat, np.random.default_rng(99))
                second = game.resample(other, seat, np.random.default_rng(99))
                assert same_state(first, second)
    assert moved > 300  # the other positions really hold their unseen cards elsewhere


# --- every unseen card can land everywhere it could be, and nowhere else ------------------------


def regions_seen(game, state, seat: int, samples: int) -> dict:
    """For every player's unseen hand, unseen table cards and unseen cards being placed, the
    card types the resampler put there."""
    rng = np.random.default_rng(2)
    places = unseen_places(state, seat)
    owners = unseen_owners(state, seat)
    seen = {}
    for _ in range(samples):
        world = game.resample(state, seat, rng)
        for (kind, _), owner, card in zip(places, owners, cards_in(world, places)):
            seen.setdefault((kind, owner), set()).add(card)
    return seen


def max_flow(capacity: np.ndarray) -> int:
    """The largest flow from node 0 to the last node (augmenting paths, breadth first)."""
    residual, total, sink = capacity.copy(), 0, len(capacity) - 1
    while True:
        parent = {0: 0}
        frontier = [0]
        while frontier and sink not in parent:
            node = frontier.pop(0)
            for nxt in np.flatnonzero(residual[node] > 0).tolist():
                if nxt not in parent:
                    parent[nxt] = node
                    frontier.append(nxt)
        if sink not in parent:
            return total
        path, node = [], sink
        while node:
            path.append((parent[node], node))
            node = parent[node]
        push = min(residual[a, b] for a, b in path)
        for a, b in path:
            residual[a, b] -= push
            residual[b, a] += push
        total += push


def could_be_in(game, state, seat: int, region: tuple) -> set[int]:
    """The types that can be in ``region`` (of player ``region[1]``) in some state the seat
    cannot tell from ``state``, found independently of the resampler: the unseen cards go to
    the players' unseen slots, the cards the seat saw go to the latest taker stay the taker's,
    and nobody holds four of a species (hand and own table together); a transport problem
    solved as a maximum flow."""
    n, player = game.num_players, region[1]
    unseen = np.bincount(cards_in(state, unseen_places(state, seat)), minlength=NUM_TYPES)
    slots = np.bincount(unseen_owners(state, seat), minlength=n)
    room = np.full((n, NUM_TYPES), 10**6)
    room[:, : game.num_species] = SET_SIZE - 1
    peeked = peeked_position(state, seat)
    if peeked is not None:
        room[owner_at(state)[peeked], state.table_cards[peeked]] -= 1
    taker, possible = state.revealed_taker, set()
    if taker not in (NO_ONE, seat):  # the cards the seat saw go to the taker are theirs
        reserved = state.taken_known[seat].astype(np.int64)
        if peeked is not None and reserved[state.table_cards[peeked]]:
            reserved[state.table_cards[peeked]] -= 1  # the card seen may be one of them
        if player == taker:
            possible = set(np.flatnonzero(reserved).tolist())
        unseen = unseen - reserved
        slots[taker] -= reserved.sum()
        room[taker] -= reserved
    for card in np.flatnonzero(unseen).tolist():
        if room[player, card] < 1 or slots[player] < 1:
            continue
        supply, demand, limit = unseen.copy(), slots.copy(), room.copy()
        supply[card] -= 1
        demand[player] -= 1
        limit[player, card] -= 1
        # nodes: source, card types, players, sink
        size = 2 + NUM_TYPES + n
        capacity = np.zeros((size, size), np.int64)
        capacity[0, 1 : 1 + NUM_TYPES] = supply
        capacity[1 : 1 + NUM_TYPES, 1 + NUM_TYPES : 1 + NUM_TYPES + n] = limit.T
        capacity[1 + NUM_TYPES : 1 + NUM_TYPES + n, -1] = demand
        if max_flow(capacity) == supply.sum():
            possible.add(card)
    return possible


def test_every_unseen_card_lands_in_every_place_it_could_be_and_nowhere_else(
    games_and_positions,
):
    checked = Counter()
    for game, states in games_and_positions:
        for state in states[2::18]:
            for seat in range(game.num_players):
                possible = {}  # the same for every region of one player
                for region, types in regions_seen(game, state, seat, samples=120).items():
                    if region[1] not in possible:
                        possible[region[1]] = could_be_in(game, state, seat, region)
                    assert types == possible[region[1]], (region, types)
                    checked[region[0]] += len(types) > 1
    assert min(checked.values()) > 5 and len(checked) == 3, checked


def test_cards_seen_going_to_the_taker_stay_with_the_taker(games_and_positions):
    rng = np.random.default_rng(4)
    checked = 0
    for game, states in games_and_positions:
        for state, seat in itertools.product(states[::3], range(game.num_players)):
            taker = state.revealed_taker
            if taker in (NO_ONE, seat) or not state.taken_known[seat].any():
                continue
            world = game.resample(state, seat, rng)
            theirs = world.hands[taker] + world.table_counts[taker]
            if world.current_player == taker:
                building = world.building[: world.building_size]
                theirs = theirs + np.bincount(building, minlength=NUM_TYPES)
            assert (theirs >= world.taken_known[seat]).all()
            checked += 1
    assert checked > 50


# --- play goes on; a seed gives one state ------------------------------------------------------


def test_the_game_can_be_played_to_the_end_from_a_resampled_state(games_and_positions):
    rng = np.random.default_rng(3)
    for game, states in games_and_positions:
        agents = [make_agent("believe_it_or_not", "random", game, seed=s) for s in range(6)]
        for state in states[1::30]:
            world = game.resample(state, state.current_player, rng)
            while not world.terminal:
                take_turn(game, world, agents[world.current_player])
                game.check_invariants(world)


def test_resample_is_deterministic_for_a_seed(games_and_positions):
    game, states = games_and_positions[4]
    state = states[len(states) // 2]
    first = game.resample(state, 1, np.random.default_rng(7))
    again = game.resample(state, 1, np.random.default_rng(7))
    assert same_state(first, again)
    others = [game.resample(state, 1, np.random.default_rng(s)) for s in range(8, 12)]
    assert not all(np.array_equal(w.hands, first.hands) for w in others)


def test_resample_leaves_the_true_state_unchanged(games_and_positions):
    game, states = games_and_positions[3]
    state = states[5]
    before = copy.deepcopy(state)
    game.resample(state, 2, np.random.default_rng(0))
    assert same_state(state, before)


def test_bad_player_and_finished_game_raise_value_error():
    game = BelieveItOrNot(num_players=3)
    state = game.new_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="player"):
        game.resample(state, -1, np.random.default_rng(0))
    state.terminal = True
    with pytest.raises(ValueError, match="game is over"):
        game.resample(state, 0, np.random.default_rng(0))


# --- Decisions, on fixed deals -----------------------------------------------------------------

CAT, DOG, COW = (CARD_NAMES.index(name) for name in ("cat", "dog", "cow"))


def fixed_game(*hands: str, special_cards: bool):
    """A three-player game of four species dealing exactly these hands."""
    game = BelieveItOrNot(num_players=3, num_species=4, special_cards=special_cards)
    hands = [hand.split() for hand in hands]
    deck = [hand[i] for i in range(len(hands[0])) for hand in hands if i < len(hand)]
    return game, game.new_state(np.random.default_rng(0), options={"deck": deck})


def play(game, state, *actions: int) -> None:
    for action in actions:
        game.step(state, action)


def counts(**by_name: int) -> np.ndarray:
    row = np.zeros(NUM_TYPES, np.int8)
    for name, count in by_name.items():
        row[CARD_NAMES.index(name)] = count
    return row


def test_decision_memory_of_the_taken_table():
    game, state = fixed_game(
        "cat cat dog cow pig elephant",
        "cat dog dog cow pig pig",
        "cat dog cow cow pig",
        special_cards=False,
    )
    # player_0 claims two cats, truly; player_1 doubts, turns a cat and takes the table.
    play(game, state, DECLARE + CAT, ADD_CARD + CAT, ADD_CARD + CAT, FINISH)
    play(game, state, DOUBT, TURN_CARD + 0)
    assert state.revealed_taker == 1 and state.hands[1, CAT] == 3
    # player_0 knows both its cats went to player_1; player_2 saw only the one turned.
    np.testing.assert_array_equal(state.taken_known, [counts(cat=2), counts(), counts(cat=1)])
    restored = game.from_json(game.to_json(state))
    np.testing.assert_array_equal(restored.taken_known, state.taken_known)
    rng = np.random.default_rng(0)
    seen_by = {0: Counter(), 2: Counter()}
    for seat, seen in seen_by.items():
        for _ in range(300):
            world = game.resample(state, seat, rng)
            seen[int(world.hands[1, CAT])] += 1
            # What the others saw is theirs alone: a resampled state keeps only the turned cat.
            others = [counts(cat=1), counts(), counts(cat=1)]
            others[seat] = state.taken_known[seat]
            np.testing.assert_array_equal(world.taken_known, others)
    assert set(seen_by[0]) == {2, 3}  # both of player_0's cats, and maybe a third
    assert set(seen_by[2]) == {1, 2, 3}


def test_decision_peeks_remembered_while_live():
    game, state = fixed_game(
        "cat cat dog cow pig elephant skip",
        "cat dog dog cow pig pig peek",
        "cat dog cow cow pig peek skip",
        special_cards=True,
    )
    play(game, state, DECLARE + CAT, ADD_CARD + CAT, ADD_CARD + DOG, FINISH)
    play(game, state, PLAY_PEEK, PEEK_AT + 1)  # player_1 sees the dog
    rng = np.random.default_rng(0)
    by_seat = {seat: Counter() for seat in (1, 2)}
    for seat, seen in by_seat.items():
        for _ in range(200):
            seen[int(game.resample(state, seat, rng).table_cards[1])] += 1
    assert set(by_seat[1]) == {DOG}  # the peeker knows it
    assert len(by_seat[2]) > 3  # the others do not
    # Believing buries the peeked placement: the peek is forgotten, by the engine and the
    # resampler alike.
    play(game, state, BELIEVE, ADD_CARD + CAT, FINISH)
    assert state.peek_player == NO_ONE
    forgotten = {int(game.resample(state, 1, rng).table_cards[1]) for _ in range(200)}
    assert len(forgotten) > 3 and DOG in forgotten
    assert state.seat_counts[HAND_SIZE, 1] == 5


def test_decision_peeks_remembered_while_live_a_peeked_card_goes_with_the_table():
    game, state = fixed_game(
        "cat cat dog cow pig elephant skip",
        "cat dog dog cow pig pig peek",
        "cat dog cow cow pig peek skip",
        special_cards=True,
    )
    play(game, state, DECLARE + CAT, ADD_CARD + CAT, ADD_CARD + DOG, ADD_CARD + COW, FINISH)
    play(game, state, PLAY_PEEK, PEEK_AT + 0)  # player_1 sees the cat
    play(game, state, DOUBT, TURN_CARD + 1)  # and turns the dog: player_0 takes the table
    assert state.revealed_taker == 0
    np.testing.assert_array_equal(
        state.taken_known, [counts(), counts(cat=1, dog=1), counts(dog=1)]
    )
    rng = np.random.default_rng(0)
    cats = Counter(int(game.resample(state, 1, rng).hands[0, CAT]) for _ in range(200))
    assert min(cats) == 1 and len(cats) > 1  # the peeked cat is still player_0's


def test_taken_known_inconsistent_with_the_taker_is_refused_by_restore():
    game, state = fixed_game(
        "cat cat dog cow pig elephant",
        "cat dog dog cow pig pig",
        "cat dog cow cow pig",
        special_cards=False,
    )
    play(game, state, DECLARE + CAT, ADD_CARD + CAT, ADD_CARD + CAT, FINISH)
    play(game, state, DOUBT, TURN_CARD + 0)
    broken = game.snapshot(state)
    broken["state"]["taken_known"]["__ndarray__"][0][DOG] = 3  # player_1 holds two dogs
    with pytest.raises(ValueError, match="no longer theirs"):
        game.restore(broken)
