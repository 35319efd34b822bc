"""Nobody Wants It rules, one test per rule and Decision of shared/rules/nobody_wants_it.md and of
the engine's docstring.

Cards are written as letters: s = sheep, p = pig, h = horse, c = cow. Early-turn rules are played
on fixed deals (``reset(options={"deck": ...})``). Round ends and empty piles would take dozens of
turns to reach from a deal, so those tests build the position directly as a state (the same data
a snapshot restores) and check its invariants first."""

from __future__ import annotations

import copy
import json
from collections import Counter

import numpy as np
import pytest

from cardzoo.envs import nobody_wants_it_v0
from cardzoo.envs.nobody_wants_it.rules import (
    HORSE_GIFT,
    NUM_CARDS,
    ON_PILE,
    OUT_OF_GAME,
    PIG_ANSWER,
    SPECIES,
    TURN,
    NobodyWantsIt,
)

LETTERS = "sphc"
S, P, H, C = range(4)  # species ids
PLAY = {letter: species for species, letter in enumerate(LETTERS)}  # actions 0..3
PAIR = {letter: 4 + species for species, letter in enumerate(LETTERS)}  # actions 4..7
PASS_DRAW, PASS_DISCARD, PIG_DRAW, PIG_TAKE = 8, 9, 10, 11
GIVE = {letter: 12 + species for species, letter in enumerate(LETTERS)}  # actions 12..15


def names(cards: str) -> list[str]:
    return [SPECIES[LETTERS.index(letter)] for letter in cards]


def codes(cards: str) -> list[int]:
    return [LETTERS.index(letter) for letter in cards]


def counts(cards: str) -> list[int]:
    return [cards.count(letter) for letter in LETTERS]


def leftover(*used: str) -> Counter:
    """The animal cards of the game not in ``used``."""
    left = Counter(dict.fromkeys(LETTERS, 18))
    left.subtract("".join(used))
    assert min(left.values()) >= 0, "more cards of a species than the game holds"
    return left


def round_robin(left: Counter) -> str:
    """The cards of ``left`` in the order s, p, h, c, s, p, ... (no long runs of one species)."""
    cards, left = [], Counter(left)
    while sum(left.values()):
        for letter in LETTERS:
            if left[letter] > 0:
                cards.append(letter)
                left[letter] -= 1
    return "".join(cards)


def deal(num_players: int, hands: dict[int, str], draw_top: str = "", dealer=None) -> list[str]:
    """A 72-card deck in deal order: seat p is dealt ``hands[p]`` (9 letters; other seats get
    filler), the draw pile starts (top first) with ``draw_top`` and the rest lies below it."""
    n = num_players
    dealer = n - 1 if dealer is None else dealer
    fill = list(round_robin(leftover(*hands.values(), draw_top)))
    full = {seat: hands.get(seat) or "".join(fill.pop(0) for _ in range(9)) for seat in range(n)}
    assert all(len(hand) == 9 for hand in full.values())
    dealt = "".join(full[(dealer + 1 + k) % n][k // n] for k in range(9 * n))
    return names(dealt + draw_top + "".join(fill))


def new_env(num_players: int, hands: dict[int, str], draw_top: str = "", **params):
    env = nobody_wants_it_v0.raw_env(num_players=num_players, **params)
    env.reset(seed=0, options={"deck": deal(num_players, hands, draw_top)})
    return env


def position(hands, draw=None, discard="", active=0, nwi=None, round_number=1, **params):
    """A state with exactly these hands (letters per seat), discard pile (bottom first) and draw
    pile (top first; None: every card not placed elsewhere), the current round's NWI holders
    (seat or ON_PILE per species) and ``active`` to play."""
    game = NobodyWantsIt(num_players=len(hands), **params)
    state = game.new_state(np.random.default_rng(0))
    left = leftover(*hands, discard, draw or "")
    draw = round_robin(left) if draw is None else draw
    state.hands[:] = [counts(hand) for hand in hands]
    state.hand_sizes[:] = [len(hand) for hand in hands]
    state.draw_pile[: len(draw)] = codes(draw[::-1])  # stored bottom first
    state.draw_size = len(draw)
    state.discard_pile[: len(discard)] = codes(discard)
    state.discard_size = len(discard)
    state.discard_counts[:] = counts(discard)
    state.round_number = round_number
    state.nwi_holder[: round_number - 1] = OUT_OF_GAME  # earlier rounds: nobody kept one
    if nwi is not None:
        state.nwi_holder[round_number - 1] = nwi
    state.active_player = state.current_player = active
    state.dealer = (active - 1) % len(hands)
    game.check_invariants(state)
    return game, state


def hand(state, seat: int) -> list[int]:
    return state.hands[seat].tolist()


def draw_top(state, cards: int = 1) -> list[int]:
    """The top ``cards`` of the draw pile, top first."""
    return state.draw_pile[state.draw_size - cards : state.draw_size][::-1].tolist()


def discard(state) -> list[int]:
    return state.discard_pile[: state.discard_size].tolist()


def nwi(state) -> list[int]:
    return state.nwi_holder[state.round_number - 1].tolist()


def play(env, *actions: int) -> None:
    for action in actions:
        env.step(action)


# --- setup of a round -----------------------------------------------------------------------


def test_deal_one_card_at_a_time_from_dealers_left_rest_is_draw_pile():
    # Two players: the dealer is player_1, so player_0 receives cards 0, 2, 4, ...
    deck = ["sheep", "pig"] * 9 + ["horse"] * 18 + ["cow"] * 18 + ["sheep", "pig"] * 9
    env = nobody_wants_it_v0.raw_env(num_players=2)
    env.reset(options={"deck": deck})
    state = env.state_
    assert hand(state, 0) == [9, 0, 0, 0] and hand(state, 1) == [0, 9, 0, 0]
    assert state.draw_size == 72 - 18 and state.discard_size == 0
    assert draw_top(state, 19) == [H] * 18 + [C]  # the first undealt card is the top
    assert state.draw_pile[: state.draw_size].tolist() == codes("ps" * 9 + "c" * 18 + "h" * 18)


@pytest.mark.parametrize("num_players", range(2, 8))
def test_everybody_holds_nine_and_the_rest_is_the_draw_pile(num_players):
    hands = {0: "sssppphhc", num_players - 1: "cccchhhps"}
    env = new_env(num_players, hands, draw_top="hcp")
    state = env.state_
    assert state.hand_sizes.tolist() == [9] * num_players
    assert hand(state, 0) == counts(hands[0])
    assert hand(state, num_players - 1) == counts(hands[num_players - 1])
    assert state.draw_size == NUM_CARDS - 9 * num_players
    assert draw_top(state, 3) == codes("hcp")
    assert nwi(state) == [ON_PILE] * 4 and (state.nwi_holder == ON_PILE).all()


def test_first_round_dealer_is_the_last_seat_so_player_0_starts():
    env = new_env(5, {})
    assert env.state_.dealer == 4 and env.state_.round_number == 1
    assert env.agent_selection == "player_0" and env.state_.active_player == 0
    assert env.state_.decision == TURN


def test_unfixed_deals_come_from_the_seed():
    first, second = nobody_wants_it_v0.raw_env(), nobody_wants_it_v0.raw_env()
    first.reset(seed=5)
    second.reset(seed=5)
    assert first.game.snapshot(first.state_) == second.game.snapshot(second.state_)
    second.reset(seed=6)
    assert not np.array_equal(first.state_.hands, second.state_.hands)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"deck": ["wolf"] * 72}, "species names"),
        ({"deck": ["sheep"] * 72}, "18 of each species"),
        ({"deck": (["sheep", "pig", "horse", "cow"] * 18)[:71]}, "72 cards"),
        ({"deck": [0, 1, 2, 3] * 18}, "species names"),
        ({"decks": "sheep"}, "decks option"),
        ({"decks": [None, None, None, None]}, "at most num_rounds=3"),
        ({"decks": [["cow"] * 72]}, r"decks\[0\]"),
        ({"deck": "not a deck", "decks": [None]}, "deck option"),  # decks wins, deck checked
    ],
)
def test_bad_reset_options_are_value_errors(options, match):
    game = NobodyWantsIt(num_players=4)
    with pytest.raises(ValueError, match=match):
        game.new_state(np.random.default_rng(0), options)


def test_unknown_reset_option_is_dropped_with_a_warning():
    game = NobodyWantsIt(num_players=4)
    with pytest.warns(UserWarning, match=r"ignores unknown reset options \['hands'\]"):
        state = game.new_state(np.random.default_rng(0), {"hands": []})
    assert game.snapshot(state) == game.snapshot(game.new_state(np.random.default_rng(0)))


def test_bad_deck_through_the_environment_is_a_value_error():
    env = nobody_wants_it_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match="18 of each species"):
        env.reset(options={"deck": ["pig"] * 72})


# --- the three turn options -----------------------------------------------------------------


def test_play_sheep_nothing_happens_turn_passes_left():
    env = new_env(4, {0: "ssspphhcc"})
    before = env.state_.hands.copy()
    play(env, PLAY["s"])
    state = env.state_
    assert hand(state, 0) == counts("sspphhcc")
    assert (state.hands[1:] == before[1:]).all()
    assert discard(state) == [S] and state.draw_size == 36
    assert (env.agent_selection, state.active_player, state.decision) == ("player_1", 1, TURN)


def test_pig_left_neighbour_chooses():
    env = new_env(4, {0: "ssspphhcc"})
    play(env, PLAY["p"])
    state = env.state_
    assert state.decision == PIG_ANSWER and state.active_player == 0
    assert env.agent_selection == "player_1"
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [PIG_DRAW, PIG_TAKE]
    assert not env.observe("player_0")["action_mask"].any()


def test_pig_answer_take_the_pig():
    env = new_env(4, {0: "ssspphhcc", 1: "sssssssss"})
    play(env, PLAY["p"], PIG_TAKE)
    state = env.state_
    assert hand(state, 0) == counts("sssphhcc") and hand(state, 1) == counts("sssssssssp")
    assert discard(state) == [] and state.draw_size == 36
    assert (env.agent_selection, state.decision) == ("player_1", TURN)  # then player_1's turn


def test_pig_answer_take_top_of_draw_pile():
    env = new_env(4, {0: "ssspphhcc", 1: "sssssssss"}, draw_top="c")
    play(env, PLAY["p"], PIG_DRAW)
    state = env.state_
    assert hand(state, 1) == counts("sssssssssc")
    assert discard(state) == [P] and state.draw_size == 35
    assert (env.agent_selection, state.decision) == ("player_1", TURN)


def test_pig_answer_at_two_players_is_the_other_players_choice():
    env = new_env(2, {0: "pssssssss", 1: "ccccccccc"})
    play(env, PLAY["p"])
    assert env.agent_selection == "player_1" and env.state_.decision == PIG_ANSWER
    play(env, PIG_TAKE)
    assert hand(env.state_, 1) == counts("cccccccccp") and env.agent_selection == "player_1"


HORSE_HANDS = {0: "ssspphhcc", 1: "ccccccccc", 2: "sssssssss", 3: "ppppppppp"}


def test_horse_every_player_chooses_from_active_leftwards_then_all_give_left():
    env = new_env(4, HORSE_HANDS)
    play(env, PLAY["h"])
    state = env.state_
    assert state.decision == HORSE_GIFT and env.agent_selection == "player_0"
    choosers = []
    for gift in (GIVE["c"], GIVE["c"], GIVE["s"], GIVE["p"]):
        choosers.append(env.agent_selection)
        play(env, gift)
    assert choosers == ["player_0", "player_1", "player_2", "player_3"]
    # player_0 gave a cow to player_1, who gave a cow to player_2, who gave a sheep to player_3,
    # who gave a pig to player_0.
    assert hand(state, 0) == counts("sssppphc")
    assert hand(state, 1) == counts("ccccccccc")
    assert hand(state, 2) == counts("ssssssssc")
    assert hand(state, 3) == counts("pppppppps")
    assert discard(state) == [H] and (state.horse_gifts == -1).all()
    assert (env.agent_selection, state.decision, state.active_player) == ("player_1", TURN, 1)


def test_horse_gift_only_of_a_species_held():
    env = new_env(4, HORSE_HANDS)
    play(env, PLAY["h"], GIVE["s"])
    mask = env.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [GIVE["c"]]  # player_1 holds only cows
    with pytest.raises(
        ValueError, match=r"action 13 of player_1 is illegal.*legal actions: 15 \(horse: give cow\)"
    ):
        env.step(GIVE["p"])


def test_horse_at_two_players_the_two_swap_a_card():
    env = new_env(2, {0: "hssssssss", 1: "ccccccccc"})
    play(env, PLAY["h"], GIVE["s"], GIVE["c"])
    assert hand(env.state_, 0) == counts("sssssssc")
    assert hand(env.state_, 1) == counts("ccccccccs")
    assert env.agent_selection == "player_1"


def test_horse_choices_stay_hidden_until_the_exchange():
    observations = []
    for first_gift in (GIVE["s"], GIVE["c"]):
        env = new_env(4, HORSE_HANDS)
        play(env, PLAY["h"], first_gift)
        seen = [env.observe(f"player_{p}")["observation"].copy() for p in (1, 2, 3)]
        play(env, GIVE["c"])  # player_1's choice, hidden from player_2 and player_3
        seen += [env.observe(f"player_{p}")["observation"].copy() for p in (2, 3)]
        observations.append(seen)
    for with_sheep, with_cow in zip(*observations):
        np.testing.assert_array_equal(with_sheep, with_cow)


def test_horse_card_set_aside_leaves_the_hand_until_the_exchange():
    env = new_env(4, HORSE_HANDS)
    play(env, PLAY["h"], GIVE["s"])
    state = env.state_
    assert hand(state, 0) == counts("sspphcc") and state.horse_gifts.tolist() == [S, -1, -1, -1]
    assert state.hand_sizes.tolist() == [7, 9, 9, 9]
    fields = env.describe_observation(env.observe("player_1"))
    assert fields["hand_sizes"].tolist() == [9, 9, 9, 7]


def test_horse_as_last_card_exchanges_nothing():
    game, state = position(["h", "sss", "pp"], num_rounds=1)
    game.step(state, PLAY["h"])
    assert state.terminal  # nobody is asked for a card: the round (and game) is over
    assert hand(state, 1) == counts("sss") and hand(state, 2) == counts("pp")
    assert game.scores(state).tolist() == [0, 4, 2]


def test_cow_active_player_draws_top_card():
    env = new_env(4, {0: "ssspphhcc"}, draw_top="hp")
    play(env, PLAY["c"])
    state = env.state_
    assert hand(state, 0) == counts("ssspphhhc")
    assert discard(state) == [C] and state.draw_size == 35 and draw_top(state) == [P]
    assert env.agent_selection == "player_1"


@pytest.mark.parametrize("letter", LETTERS)
def test_pair_two_cards_no_species_action(letter):
    env = new_env(4, {0: "sspphhccs"}, draw_top="h")
    play(env, PAIR[letter])
    state = env.state_
    expected = Counter("sspphhccs")
    expected[letter] -= 2
    assert hand(state, 0) == [expected[x] for x in LETTERS]
    assert discard(state) == [PLAY[letter]] * 2
    assert state.draw_size == 36  # no cow draw, no pig answer, no horse exchange
    assert (env.agent_selection, state.decision) == ("player_1", TURN)


@pytest.mark.parametrize("letter", LETTERS)
def test_pair_moves_nwi_from_its_pile_to_the_left_neighbour(letter):
    env = new_env(4, {0: "sspphhccs"})
    play(env, PAIR[letter])
    expected = [ON_PILE] * 4
    expected[PLAY[letter]] = 1
    assert nwi(env.state_) == expected


@pytest.mark.parametrize(
    "holder, receiver",
    [(2, 3), (0, 1), (3, 0)],  # (3, 0): the holder sits on the pair player's right
    ids=["other-holder", "own-card-passed-on", "comes-to-the-pair-player"],
)
def test_pair_moves_nwi_from_its_holder_to_the_holders_left(holder, receiver):
    game, state = position(["sspc", "cc", "hh", "pp"], nwi=[holder, ON_PILE, 1, ON_PILE])
    game.step(state, PAIR["s"])
    assert nwi(state) == [receiver, ON_PILE, 1, ON_PILE]


def test_nwi_card_travels_left_pair_after_pair():
    env = new_env(3, {0: "sssssphhc", 1: "sssssphhc", 2: "ppppphhcc"})
    play(env, PAIR["s"])  # pile -> player_1
    play(env, PAIR["s"])  # player_1 pairs: it passes its own card to player_2
    assert nwi(env.state_)[S] == 2
    play(env, PLAY["p"], PIG_DRAW)  # player_2 plays a pig; player_0 answers
    play(env, PAIR["s"])  # player_0 pairs again: player_2 passes it to player_0
    assert nwi(env.state_)[S] == 0


def test_pass_take_top_of_draw_pile():
    env = new_env(4, {0: "ssspphhcc"}, draw_top="hs")
    play(env, PASS_DRAW)
    state = env.state_
    assert hand(state, 0) == counts("ssspphhhcc") and state.draw_size == 35
    assert draw_top(state) == [S] and discard(state) == []
    assert env.agent_selection == "player_1"


def test_pass_take_top_of_discard_pile():
    env = new_env(4, {0: "ssspphhcc", 1: "ccccccccc", 2: "hhhhhhhhh"}, draw_top="p")
    play(env, PLAY["s"], PLAY["c"])  # player_1's cow draws the pig
    play(env, PASS_DISCARD)  # player_2 takes player_1's cow
    state = env.state_
    assert hand(state, 2) == counts("hhhhhhhhhc") and discard(state) == [S]
    assert env.agent_selection == "player_3"


def test_pass_take_discard_illegal_while_discard_pile_is_empty():
    env = new_env(4, {})
    mask = env.observe("player_0")["action_mask"]
    assert mask[PASS_DRAW] == 1 and mask[PASS_DISCARD] == 0
    with pytest.raises(ValueError, match=r"player_0 is illegal.*legal actions: .*8 \(pass"):
        env.step(PASS_DISCARD)


# --- drawing from an empty draw pile ----------------------------------------------------------


def reshuffled(state, extra: str = "") -> list[int]:
    """The draw pile (bottom first) the reshuffle of ``state``'s discard pile (plus ``extra``
    cards about to be discarded) will make, from a copy of the game's generator."""
    cards = np.array(discard(state) + codes(extra), np.int8)
    copy.deepcopy(state.rng).shuffle(cards)
    return cards.tolist()


def test_empty_draw_pile_discard_pile_reshuffled_with_the_game_generator():
    rest = round_robin(leftover("sc", "ss"))
    game, state = position(["sc", "ss"], draw="", discard=rest)
    new_draw_pile = reshuffled(state)
    game.step(state, PASS_DRAW)
    assert state.discard_size == 0 and state.draw_size == len(rest) - 1
    assert state.draw_pile[: state.draw_size].tolist() == new_draw_pile[:-1]
    expected = Counter("sc")
    expected[LETTERS[new_draw_pile[-1]]] += 1
    assert hand(state, 0) == [expected[x] for x in LETTERS]


ALL_CARDS_IN_HANDS = ["c" * 18, "s" * 18, "p" * 18, "h" * 18]


def test_draw_with_both_piles_empty_draws_nothing():
    game, state = position(ALL_CARDS_IN_HANDS, draw="")
    game.step(state, PASS_DRAW)  # still legal
    assert hand(state, 0) == counts("c" * 18) and state.draw_size == state.discard_size == 0
    assert state.current_player == 1


def test_cow_with_both_piles_empty_draws_the_cow_back():
    game, state = position(ALL_CARDS_IN_HANDS, draw="")
    game.step(state, PLAY["c"])  # the discard pile (that cow) becomes the draw pile
    assert hand(state, 0) == counts("c" * 18)
    assert state.draw_size == state.discard_size == 0 and state.current_player == 1


def test_pig_answer_draw_with_empty_draw_pile_reshuffles_the_pig_in():
    rest = round_robin(leftover("pss", "hh"))
    game, state = position(["pss", "hh"], draw="", discard=rest)
    new_draw_pile = reshuffled(state, extra="p")
    game.step(state, PLAY["p"])
    game.step(state, PIG_DRAW)
    assert state.discard_size == 0 and state.draw_size == len(rest)  # the pig is in it
    assert state.draw_pile[: state.draw_size].tolist() == new_draw_pile[:-1]
    assert state.hand_sizes.tolist() == [2, 3]


# --- end of a round -------------------------------------------------------------------------


def test_round_ends_when_the_active_player_has_no_card_left():
    game, state = position(["s", "sss", "ppppp", "hh"], num_rounds=2)
    rewards = game.step(state, PLAY["s"])
    assert rewards is None  # reward "win": nothing until the game ends
    assert state.round_number == 2 and not state.terminal
    assert state.penalty_cards.tolist() == [[0, 0], [1, 0], [0, 1], [0, 0]]
    assert game.scores(state).tolist() == [0, 2, 4, 0]


def test_closer_deals_the_next_round_and_their_left_neighbour_starts():
    game, state = position(["sss", "pp", "s"], active=2, num_rounds=2)
    game.step(state, PLAY["s"])
    assert state.round_number == 2 and state.dealer == 2
    assert state.active_player == state.current_player == 0
    assert state.hand_sizes.tolist() == [9, 9, 9] and state.discard_size == 0
    assert state.draw_size == NUM_CARDS - 27 and nwi(state) == [ON_PILE] * 4


def test_round_ends_only_after_the_pig_answer_it_caused():
    game, state = position(["p", "s", "ss"], num_rounds=1)
    game.step(state, PLAY["p"])
    assert not state.terminal and state.decision == PIG_ANSWER and state.current_player == 1
    game.step(state, PIG_TAKE)  # player_1 now holds 2 cards, as many as player_2
    assert state.terminal
    assert game.scores(state).tolist() == [0, 2, 2]  # tie for the most: a 2 each


def test_cow_as_last_card_does_not_end_the_round():
    game, state = position(
        ["c", "ss", "ss"], draw="s" + round_robin(leftover("c", "ss", "ss", "s"))
    )
    game.step(state, PLAY["c"])
    assert hand(state, 0) == counts("s") and state.round_number == 1
    assert state.current_player == 1 and state.decision == TURN


def test_last_pair_ends_the_round_after_moving_the_nwi_card():
    game, state = position(["ss", "pp", "ppp"], num_rounds=1)
    game.step(state, PAIR["s"])
    assert state.terminal
    assert state.nwi_holder[0].tolist() == [1, OUT_OF_GAME, OUT_OF_GAME, OUT_OF_GAME]
    assert game.scores(state).tolist() == [0, 2 + 1, 4]  # player_1: penalty 2 and the NWI


def test_other_players_never_run_out_during_a_round():
    # A horse exchange takes one card from every hand and gives one back: a one-card hand
    # refills before anybody could close out of turn.
    game, state = position(["hs", "c", "p"], num_rounds=1)
    for action in (PLAY["h"], GIVE["s"], GIVE["c"], GIVE["p"]):
        game.step(state, action)
    assert state.hand_sizes.tolist() == [1, 1, 1] and not state.terminal
    assert state.current_player == 1


# --- penalty cards ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand_sizes, closer, penalties",
    [
        ([0, 5, 3, 1], 0, [0, 4, 2, 0]),  # one most: a 4; the second-highest: a 2
        ([0, 5, 3, 3, 1], 0, [0, 4, 2, 2, 0]),  # a tie for second: a 2 each
        ([0, 5, 5, 3], 0, [0, 2, 2, 0]),  # a tie for most: a 2 each, no 4, second nothing
        ([0, 2, 2, 2], 0, [0, 2, 2, 2]),  # everybody tied for most
        ([3, 0, 1], 1, [4, 0, 2]),  # the closer can sit anywhere
        ([0, 7], 0, [0, 4]),  # two players: the other takes the 4, nobody is second
    ],
    ids=["most-and-second", "tie-for-second", "tie-for-most", "all-tied", "closer-mid", "two"],
)
def test_penalty_cards(hand_sizes, closer, penalties):
    game = NobodyWantsIt(num_players=len(hand_sizes))
    assert game.penalty_points(np.array(hand_sizes), closer).tolist() == penalties


def test_penalty_the_closer_never_takes_a_card():
    game = NobodyWantsIt(num_players=3)
    assert game.penalty_points(np.array([0, 1, 1]), 0)[0] == 0
    game, state = position(["s", "ss", "ss"], num_rounds=1)
    game.step(state, PLAY["s"])
    assert state.penalty_cards.tolist() == [[0, 0], [1, 0], [1, 0]]


# --- NWI cards at the end of a round ------------------------------------------------------------


def test_unclaimed_nwi_cards_leave_held_ones_score_the_round_value():
    game, state = position(
        ["s", "sss", "pp", "hhhh"], round_number=2, nwi=[1, ON_PILE, 1, 3], num_rounds=3
    )
    game.step(state, PLAY["s"])
    assert state.nwi_holder[1].tolist() == [1, OUT_OF_GAME, 1, 3]
    # player_1: two round-2 NWI cards (2 each) and a 2; player_3: one (2) and a 4.
    assert game.scores(state).tolist() == [0, 4 + 2, 0, 2 + 4]
    assert state.round_number == 3 and nwi(state) == [ON_PILE] * 4


def test_nwi_cards_of_later_rounds_wait_until_their_round():
    game, state = position(["ss", "pp", "ppp"], nwi=[2, 2, ON_PILE, 1], num_rounds=3)
    assert (state.nwi_holder[1:] == ON_PILE).all()
    game.step(state, PAIR["s"])  # ends round 1
    # The observation shows only the new round's NWI cards: all on their piles.
    observation = game.observe(state, 0)
    blocks = observation[game.observation_layout["nwi_position"]].reshape(4, 4)
    assert blocks[:, 0].tolist() == [1, 1, 1, 1]
    assert state.nwi_holder[0].tolist() == [0, 2, OUT_OF_GAME, 1]  # round 1's stay kept


# --- end of the game ----------------------------------------------------------------------------


def quick_round_env(**params):
    """Two players: player_0 sheds nine sheep in five turns while player_1 passes; the sheep NWI
    card goes back and forth and ends with player_0. Returns the env after round 1's last step
    and the rewards seen."""
    env = nobody_wants_it_v0.raw_env(num_players=2, **params)
    options = {"decks": [deal(2, {0: "sssssssss", 1: "hhhhhhhhh"}, draw_top="cccc")]}
    if params.get("num_rounds", 3) >= 2:
        options["decks"].append(deal(2, {0: "hhhhhhhhh", 1: "ccccccccc"}, dealer=0))
    env.reset(seed=0, options=options)
    rewards = []
    for action in [PAIR["s"], PASS_DRAW] * 4 + [PLAY["s"]]:
        env.step(action)
        rewards.append(dict(env.rewards))
    return env, rewards


def test_quick_round_scores_penalty_and_nwi():
    env, _ = quick_round_env(num_rounds=1)
    state = env.state_
    assert state.terminal and state.hand_sizes.tolist() == [0, 13]
    assert state.nwi_holder[0].tolist() == [0, OUT_OF_GAME, OUT_OF_GAME, OUT_OF_GAME]
    assert env.game.scores(state).tolist() == [1, 4]


def test_decks_option_gives_each_round_its_deck():
    env, _ = quick_round_env(num_rounds=2)
    state = env.state_
    assert state.round_number == 2 and state.dealer == 0 and env.agent_selection == "player_1"
    assert hand(state, 1) == counts("ccccccccc") and hand(state, 0) == counts("hhhhhhhhh")


def test_decks_option_wins_over_deck():
    env = nobody_wants_it_v0.raw_env(num_players=2)
    first = deal(2, {0: "sssssssss", 1: "hhhhhhhhh"})
    env.reset(options={"deck": deal(2, {0: "ccccccccc"}), "decks": [first]})
    assert hand(env.state_, 0) == counts("sssssssss")


def test_decks_option_rounds_without_a_deck_are_shuffled():
    played = []
    for seed in (0, 1):
        env = nobody_wants_it_v0.raw_env(num_players=2, num_rounds=2)
        env.reset(seed=seed, options={"decks": [deal(2, {0: "sssssssss"}), None]})
        for action in [PAIR["s"], PASS_DRAW] * 4 + [PLAY["s"]]:
            env.step(action)
        env.game.check_invariants(env.state_)
        played.append(env.state_.hands.copy())
    assert env.state_.round_number == 2
    assert not np.array_equal(*played)  # round 2 comes from each seed's own shuffle


def test_game_ends_after_num_rounds():
    env, _ = quick_round_env(num_rounds=1)
    assert env.state_.terminal and all(env.terminations.values())
    env, _ = quick_round_env(num_rounds=2)
    assert not env.state_.terminal and not any(env.terminations.values())
    assert NobodyWantsIt().num_rounds == 3


def test_lowest_score_wins_and_ties_are_all_winners():
    game, state = position(["s", "ss", "ss", "s"], num_rounds=1)
    rewards = game.step(state, PLAY["s"])
    assert game.scores(state).tolist() == [0, 2, 2, 0]
    assert game.winners(state).tolist() == [True, False, False, True]
    assert rewards.tolist() == [1.0, -1.0, -1.0, 1.0]


def test_reward_win_plus_one_for_winners_minus_one_for_others_at_the_end():
    env, rewards = quick_round_env(num_rounds=1)
    assert rewards[-1] == {"player_0": 1.0, "player_1": -1.0}
    assert all(r == {"player_0": 0.0, "player_1": 0.0} for r in rewards[:-1])


def test_reward_win_every_player_tied_all_win():
    game, state = position(["s", "s", "s"], round_number=2, num_rounds=2)
    state.penalty_cards[0] = [1, 0]  # player_0 took a 2 in round 1
    state.points[0] = 2
    game.check_invariants(state)
    rewards = game.step(state, PLAY["s"])  # player_1 and player_2 tie for the most: a 2 each
    assert game.scores(state).tolist() == [2, 2, 2]
    assert game.winners(state).all() and rewards.tolist() == [1.0, 1.0, 1.0]


def test_reward_points_minus_points_gained_at_each_round_end():
    env, rewards = quick_round_env(num_rounds=2, reward="points")
    assert rewards[-1] == {"player_0": -1.0, "player_1": -4.0}
    assert all(r == {"player_0": 0.0, "player_1": 0.0} for r in rewards[:-1])
    assert not env.state_.terminal  # a reward at a round end, not only at the game end
    game, state = position(["ss", "pp", "ppp"], num_rounds=1, reward="points")
    assert game.step(state, PAIR["s"]).tolist() == [0.0, -3.0, -4.0]


def test_points_rewards_add_up_to_minus_the_final_scores():
    env = nobody_wants_it_v0.raw_env(num_players=4, reward="points")
    env.reset(seed=3)
    total = dict.fromkeys(env.agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        mask = observation["action_mask"]
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
    assert env.state_.terminal and env.state_.round_number == 3
    assert list(total.values()) == (-env.game.scores(env.state_)).tolist()


def test_max_cycles_counts_pig_answers_and_horse_gifts():
    env = nobody_wants_it_v0.raw_env(num_players=4, max_cycles=3)
    env.reset(seed=0, options={"deck": deal(4, HORSE_HANDS)})
    play(env, PLAY["h"], GIVE["s"])  # the horse and player_0's gift: 2 steps
    assert not any(env.truncations.values())
    play(env, GIVE["c"])  # player_1's gift: the third step
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0.0}


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_default_max_cycles_is_500_per_player(num_players):
    """Decision (default max_cycles)."""
    assert nobody_wants_it_v0.raw_env(num_players=num_players).max_cycles == 500 * num_players


def test_game_ending_step_at_max_cycles_is_a_normal_end():
    env, rewards = quick_round_env(num_rounds=1, max_cycles=9)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert rewards[-1] == {"player_0": 1.0, "player_1": -1.0}


# --- the environment ----------------------------------------------------------------------------


def test_raw_env_illegal_action_raises_naming_agent_action_and_legal_ones():
    env = new_env(4, {0: "sssssssss"})
    with pytest.raises(ValueError) as error:
        env.step(PLAY["c"])
    message = str(error.value)
    assert "player_0" in message and "action 3" in message and "play cow" in message
    assert "legal actions: 0 (play sheep), 4 (play pair of sheep), 8 (pass" in message


def test_wrapped_env_illegal_action_ends_the_game_with_minus_one_for_the_offender():
    env = nobody_wants_it_v0.env(num_players=3)
    env.reset(seed=0)
    env.step(PASS_DISCARD)  # illegal: the discard pile is empty (PettingZoo logs a warning)
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1.0
    assert env.rewards["player_1"] == env.rewards["player_2"] == 0.0


def test_bad_parameters_name_the_parameter():
    for params, match in [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 8}, "num_players"),
        ({"num_rounds": 0}, "num_rounds"),
        ({"num_rounds": 4}, "num_rounds"),
        ({"num_rounds": 2.0}, "num_rounds"),
        ({"reward": "score"}, "reward"),
    ]:
        with pytest.raises(ValueError, match=match):
            nobody_wants_it_v0.env(**params)


def test_action_names_are_readable():
    game = NobodyWantsIt()
    names = [game.action_name(a) for a in range(16)]
    assert names[0] == "play sheep" and names[7] == "play pair of cow"
    assert names[8] == "pass, take top of draw pile"
    assert names[9] == "pass, take top of discard pile"
    assert names[10] == "pig answer: take top of draw pile"
    assert names[11] == "pig answer: take the pig"
    assert names[14] == "horse: give horse"
    assert len(set(names)) == 16


# --- observations -------------------------------------------------------------------------------


def test_observation_fields_are_seat_relative():
    game, state = position(
        ["ss", "pphc", "hhh", "c"],
        discard="scp",
        active=1,
        round_number=2,
        nwi=[3, ON_PILE, 2, 1],
        num_rounds=3,
    )
    game.step(state, PLAY["p"])  # player_1's pig: player_2 must answer
    fields = {k: game.observe(state, 2)[part] for k, part in game.observation_layout.items()}
    assert fields["hand"].tolist() == counts("hhh")
    assert fields["hand_sizes"].tolist() == [3, 1, 2, 3]  # player_2, 3, 0, 1
    assert fields["discard_top"].tolist() == [0, 1, 0, 0]
    assert fields["discard_counts"].tolist() == [1, 2, 0, 1]
    assert fields["draw_size"].tolist() == [NUM_CARDS - 10 - 3]
    # NWI blocks [on pile, me, +1, +2, +3]: sheep with player_3 (+1), pig on its pile, horse
    # with me, cow with player_1 (+3).
    assert fields["nwi_position"].reshape(4, 5).tolist() == [
        [0, 0, 1, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],
        [0, 0, 0, 0, 1],
    ]
    assert fields["round"].tolist() == [0, 1, 0]
    assert fields["decision"].tolist() == [0, 1, 0]  # pig answer
    assert fields["active"].tolist() == [0, 0, 0, 1]  # player_1 is three seats left of me
    assert fields["to_act"].tolist() == [1, 0, 0, 0]


def test_observation_scores_are_points_of_finished_rounds():
    game, state = position(["s", "sss", "ppppp", "hh"], nwi=[2, ON_PILE, ON_PILE, ON_PILE])
    before = game.observe(state, 3)[game.observation_layout["scores"]]
    assert before.tolist() == [0, 0, 0, 0]  # player_2's NWI card counts at the round end
    game.step(state, PLAY["s"])
    after = game.observe(state, 3)[game.observation_layout["scores"]]
    assert after.tolist() == [0, 0, 2, 4 + 1]  # player_3, 0, 1, 2


def scramble_hidden_cards(game, state, observer, rng):
    """A copy of ``state`` in which every card ``observer`` cannot see is dealt again: the other
    hands (same sizes), the others' horse gifts set aside, and the draw pile (same size)."""
    other = game.restore(game.snapshot(state))
    others = [seat for seat in range(game.num_players) if seat != observer]
    gifts = [seat for seat in others if other.horse_gifts[seat] >= 0]
    pool = np.concatenate(
        [np.repeat(np.arange(4), other.hands[seat]) for seat in others]
        + [other.horse_gifts[gifts], other.draw_pile[: other.draw_size]]
    )
    rng.shuffle(pool)
    start = 0
    for seat in others:
        size = int(other.hand_sizes[seat])
        other.hands[seat] = np.bincount(pool[start : start + size], minlength=4)
        start += size
    other.horse_gifts[gifts] = pool[start : start + len(gifts)]
    start += len(gifts)
    other.draw_pile[: other.draw_size] = pool[start:]
    game.check_invariants(other)
    return other


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_observation_hides_other_hands_draw_pile_and_horse_gifts(num_players):
    game = NobodyWantsIt(num_players=num_players)
    rng = np.random.default_rng(num_players)
    changed, checked, horse_checks = 0, 0, 0
    for seed in range(2):
        state = game.new_state(np.random.default_rng(seed))
        while not state.terminal:
            for observer in range(num_players):
                other = scramble_hidden_cards(game, state, observer, rng)
                np.testing.assert_array_equal(
                    game.observe(state, observer), game.observe(other, observer)
                )
                changed += not (
                    np.array_equal(other.hands, state.hands)
                    and np.array_equal(other.draw_pile, state.draw_pile)
                )
                checked += 1
                horse_checks += state.decision == HORSE_GIFT and (state.horse_gifts >= 0).any()
            legal = np.flatnonzero(game.legal_mask(state, state.current_player))
            game.step(state, int(rng.choice(legal)))
    assert changed > 0.9 * checked  # the scrambles really changed the hidden cards
    assert horse_checks > 0  # including positions with horse gifts already chosen


def test_observation_bounds_hold_the_extremes():
    game = NobodyWantsIt(num_players=3)
    low, high = game.observation_bounds()
    layout = game.observation_layout
    assert (low == 0).all()
    assert high[layout["scores"]].tolist() == [36, 36, 36]  # (4 + 4) + (8 + 4) + (12 + 4)
    assert high[layout["hand"]].tolist() == [18] * 4
    assert NobodyWantsIt(num_players=3, num_rounds=1).observation_bounds()[1][
        layout["scores"]
    ].tolist() == [8, 8, 8]


# --- render and snapshots -----------------------------------------------------------------------


def test_render_shows_sizes_hand_piles_nwi_and_scores():
    game, state = position(
        ["ss", "pphc", "hhh", "c"], discard="scp", nwi=[3, ON_PILE, 2, 1], active=1
    )
    text = game.render(state, player=1)
    assert "round 1 of 3" in text and "player_1's turn" in text
    assert "sheep 0 pig 2 horse 1 cow 1" in text  # player_1's own hand
    assert text.count("hidden") == 3 and "sheep 2 pig 0" not in text
    assert "draw pile: 59 cards" in text and "discard pile: 3 cards, top pig" in text
    assert "sheep held by player_3" in text and "pig on its pile" in text
    everything = game.render(state)
    assert "hidden" not in everything and "sheep 2 pig 0 horse 0 cow 0" in everything


def test_render_ansi_through_the_environment():
    env = nobody_wants_it_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Nobody Wants It, round 1 of 3, dealer player_3" in text
    assert text.count("player_") >= 5


def test_snapshot_mid_horse_exchange_round_trips_and_continues_identically():
    env = new_env(4, HORSE_HANDS)
    play(env, PLAY["h"], GIVE["s"], GIVE["c"])
    game = env.game
    restored = game.from_json(json.dumps(game.snapshot(env.state_)))
    assert restored.horse_gifts.tolist() == [S, C, -1, -1]
    for action in (GIVE["s"], GIVE["p"], PASS_DRAW):
        game.step(env.state_, action)
        game.step(restored, action)
    assert game.snapshot(restored) == game.snapshot(env.state_)


def test_resample_of_a_finished_game_is_refused_as_in_the_other_games():
    from cardzoo.envs.helpers import game_rng_from_seed

    game = NobodyWantsIt(num_players=3)
    state = game.new_state(game_rng_from_seed(0))
    rng = np.random.default_rng(0)
    while not state.terminal:
        game.step(
            state, int(rng.choice(np.flatnonzero(game.legal_mask(state, state.current_player))))
        )
    with pytest.raises(ValueError, match="resample: the game is over"):
        game.resample(state, 0, rng)
