"""Believe It or Not rules, one test per rule and Decision of shared/rules/believe_it_or_not.md.

Deals are fixed with ``reset(options={"deck": ...})``, mostly with the small decks (4 species, 17
cards without specials, 21 with them) so that every hand can be written out. The few late-game
positions that no short deal reaches are built directly as a state (``position``) and restored into
the environment through its public snapshot."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import believe_it_or_not_v1
from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    BELIEVE,
    BUILD,
    CARD_NAMES,
    CHOOSE_PEEK,
    CHOOSE_TURN,
    DECLARE,
    DOUBT,
    FINISH,
    HAND_SIZE,
    IS_OUT,
    LEAD,
    NUM_ACTIONS,
    NUM_TYPES,
    ON_TABLE,
    PEEK,
    PEEK_AT,
    PLAY_PEEK,
    PLAY_SKIP,
    RESPOND,
    SKIP,
    SPECIES,
    TURN_CARD,
    BelieveItOrNot,
)


def names(text: str) -> list[str]:
    """Card names written as one string: ``names("cat cat dog")``."""
    return text.split()


SMALL = {"num_species": 4, "special_cards": False}  # 4 cat, dog, cow, pig + elephant: 17 cards
SPECIALS = {"num_species": 4}  # the same with 2 peek and 2 skip: 21 cards

# Two players, small deck, no set in either hand.
P0_SMALL = names("cat cat cat dog dog dog cow elephant pig")
P1_SMALL = names("cat dog cow cow cow pig pig pig")
P1_SMALL_NO_CAT = names("dog dog cow cow cow pig pig pig")  # with player_0 holding 4 cats

# Two players with specials: after the cats and dogs leave as sets, player_0 holds 3 cards.
P0_SHORT = names("cat cat cat cat dog dog dog dog cow pig skip")
P1_SHORT = names("cow cow cow pig pig pig elephant peek peek skip")

# Three players with specials, no set dealt.
P0_THREE = names("cat cat dog dog cow pig elephant")
P1_THREE = names("cat dog cow cow pig peek skip")
P2_THREE = names("cat dog cow pig pig peek skip")

# Three players with specials; player_1's cats leave as a set and it keeps dog, cow and one
# special: a peek (PEEKER) or a skip (SKIPPER).
P0_PEEKER = names("dog cow cow pig pig elephant skip")
P1_PEEKER = names("cat cat cat cat dog peek cow")
P2_PEEKER = names("dog dog cow pig pig peek skip")
P0_SKIPPER = names("dog cow cow pig pig elephant skip")
P1_SKIPPER = names("cat cat cat cat dog skip cow")
P2_SKIPPER = names("dog dog cow pig pig peek peek")

# Four players with specials: cats, dogs and cows leave as sets, the pigs are split 1 / 3.
NO_ANIMALS_DEAL = [
    names("cat cat cat cat pig peek"),
    names("pig pig pig skip skip"),
    names("dog dog dog dog peek"),
    names("cow cow cow cow elephant"),
]


def deck(*hands: list[str]) -> list[str]:
    """The deck in deal order that deals exactly these hands (one card at a time from
    player_0)."""
    sizes = [len(hand) for hand in hands]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1, sizes
    return [hand[i] for i in range(sizes[0]) for hand in hands if i < len(hand)]


def new_env(*hands: list[str], **params) -> believe_it_or_not_v1.raw_env:
    env = believe_it_or_not_v1.raw_env(num_players=len(hands), **params)
    env.reset(seed=0, options={"deck": deck(*hands)})
    return env


def card(name: str) -> int:
    return CARD_NAMES.index(name)


def add_cards(env, cards: list[str]) -> None:
    for name in cards:
        env.step(ADD_CARD + card(name))


def lead(env, species: str, cards: list[str]) -> None:
    env.step(DECLARE + SPECIES.index(species))
    add_cards(env, cards)
    env.step(FINISH)


def believe(env, cards: list[str]) -> None:
    env.step(BELIEVE)
    add_cards(env, cards)
    env.step(FINISH)


def doubt(env, position: int) -> None:
    env.step(DOUBT)
    env.step(TURN_CARD + position)


def hand(env, player: int) -> list[str]:
    return env.game.hand_cards(env.state_, player)


def actor(env) -> int:
    return env.state_.current_player


def legal(env) -> set[int]:
    return set(np.flatnonzero(env.game.legal_mask(env.state_, actor(env))).tolist())


def rewards(env) -> list[float]:
    return [env.rewards[agent] for agent in env.possible_agents]


def fields(env, player: int) -> dict[str, np.ndarray]:
    return env.describe_observation(env.observe(f"player_{player}"))


def sorted_names(names: list[str]) -> list[str]:
    return sorted(names, key=CARD_NAMES.index)


def position(
    params: dict,
    hands: list[list[str]],
    placements: list[tuple[int, list[str]]] = (),
    declared: str | None = None,
    discarded: list[str] = (),
    out: list[int] = (),
    current: int = 0,
    decision: int = LEAD,
) -> believe_it_or_not_v1.raw_env:
    """An environment in exactly this position (restored through the public snapshot)."""
    env = believe_it_or_not_v1.raw_env(num_players=len(hands), **params)
    env.reset(seed=0)
    game, state = env.game, env.state_
    state.hands[:] = 0
    for player, names in enumerate(hands):
        for name in names:
            state.hands[player, card(name)] += 1
    state.seat_counts[:] = 0
    state.seat_counts[HAND_SIZE] = state.hands.sum(axis=1)
    state.seat_counts[IS_OUT, list(out)] = 1
    state.table_counts[:] = 0
    state.table_size = 0
    for index, (owner, names) in enumerate(placements):
        for name in names:
            state.table_cards[state.table_size] = card(name)
            state.table_counts[owner, card(name)] += 1
            state.table_size += 1
        state.placement_owners[index], state.placement_sizes[index] = owner, len(names)
        state.seat_counts[ON_TABLE, owner] += len(names)
    state.num_placements = len(placements)
    state.declared = -1 if declared is None else SPECIES.index(declared)
    state.out_of_game[:] = 0
    for name in discarded:
        state.out_of_game[card(name)] = 4
    state.current_player, state.decision = current, decision
    game.check_invariants(state)
    snapshot = env.snapshot()
    snapshot["engine"] = game.snapshot(state)
    env.restore(snapshot)
    return env


# --- components and parameters --------------------------------------------------------------


def test_default_deck_8_species_elephant_two_peeks_two_skips():
    game = BelieveItOrNot()
    counts = dict(zip(CARD_NAMES, game.composition.tolist()))
    assert counts == {
        **dict.fromkeys(SPECIES, 4),
        "elephant": 1,
        "peek": 2,
        "skip": 2,
    }
    assert game.num_cards == 37 and game.num_players == 4 and game.variant == "standard"


def test_num_species_keeps_the_first_species_and_their_type_numbers():
    game = BelieveItOrNot(num_species=5)
    assert game.composition.tolist() == [4, 4, 4, 4, 4, 0, 0, 0, 1, 2, 2]
    assert game.num_cards == 25
    state = game.new_state(np.random.default_rng(0))
    declare = set(np.flatnonzero(game.legal_mask(state, 0)).tolist())
    assert declare == {DECLARE + s for s in range(5)}  # cat .. sheep


def test_special_cards_false_removes_peek_and_skip():
    game = BelieveItOrNot(special_cards=False)
    assert game.composition[PEEK] == game.composition[SKIP] == 0
    assert game.num_cards == 33


@pytest.mark.parametrize(
    "params, name",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"variant": "slow"}, "variant"),
        ({"num_species": 3}, "num_species"),
        ({"num_species": 9}, "num_species"),
        ({"special_cards": "yes"}, "special_cards"),
        ({"special_cards": 1}, "special_cards"),
    ],
)
def test_bad_parameters_raise_value_error_naming_them(params, name):
    with pytest.raises(ValueError, match=name):
        believe_it_or_not_v1.env(**params)


# --- the deal ---------------------------------------------------------------------------------


def test_deal_one_card_at_a_time_from_player_0_first_seats_get_one_more():
    in_type_order = [
        name for name, k in zip(CARD_NAMES, BelieveItOrNot().composition) for _ in range(k)
    ]
    env = believe_it_or_not_v1.raw_env(num_players=4)
    env.reset(options={"deck": in_type_order})
    # Card i goes to player i mod 4: one of every species each, then the elephant, peeks, skips.
    assert hand(env, 0) == [*SPECIES, "elephant", "skip"]
    assert hand(env, 1) == [*SPECIES, "peek"]
    assert hand(env, 2) == [*SPECIES, "peek"]
    assert hand(env, 3) == [*SPECIES, "skip"]
    assert env.game.hand_sizes(env.state_) == [10, 9, 9, 9]


def test_player_0_leads_first():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    assert env.agent_selection == "player_0" and env.state_.decision == LEAD
    assert legal(env) == {DECLARE + s for s in range(4)}


def test_sets_of_four_discarded_after_the_deal_seen_by_everybody():
    env = new_env(names("cat cat cat cat dog dog cow pig elephant"), P1_SMALL_NO_CAT, **SMALL)
    assert hand(env, 0) == names("dog dog cow pig elephant")
    assert env.game.discarded_species(env.state_) == ["cat"]
    for player in (0, 1):
        assert fields(env, player)["out_of_game"].tolist() == [4] + [0] * (NUM_TYPES - 1)
    assert "discarded sets: cat" in env.game.render(env.state_)


def test_void_deal_explicit_deck_leaving_a_player_without_cards_is_value_error():
    p0 = names("cat cat cat cat dog dog dog dog elephant")
    p1 = names("cow cow cow cow pig pig pig pig")
    with pytest.raises(ValueError, match="void deal"):
        new_env(p0, p1, **SMALL)


def test_void_deal_explicit_deck_leaving_no_animals_is_value_error():
    p0 = names("cat cat cat cat dog dog dog dog elephant peek peek")
    p1 = names("cow cow cow cow pig pig pig pig skip skip")
    with pytest.raises(ValueError, match="void deal"):
        new_env(p0, p1, **SPECIALS)


def test_void_deal_is_shuffled_and_dealt_again():
    game = BelieveItOrNot(num_players=5, **SMALL)
    full_deck = np.repeat(np.arange(NUM_TYPES, dtype=np.int8), game.composition)
    rng = np.random.default_rng(473)  # its first shuffle leaves a player without cards
    first, second = rng.permutation(full_deck), rng.permutation(full_deck)
    first_hands = np.zeros((5, NUM_TYPES), int)
    np.add.at(first_hands, (np.arange(17) % 5, first), 1)
    assert ((first_hands[:, :4] % 4).sum(axis=1) + first_hands[:, 4:].sum(axis=1) == 0).any()
    state = game.new_state(np.random.default_rng(473))
    redealt = game.new_state(np.random.default_rng(0), {"deck": [CARD_NAMES[c] for c in second]})
    assert np.array_equal(state.hands, redealt.hands)
    assert state.seat_counts[HAND_SIZE].all()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"deck": P0_SMALL + P1_SMALL[:-1]}, "exactly"),
        ({"deck": P0_SMALL + P1_SMALL[:-1] + ["cat"]}, "exactly"),
        ({"deck": P0_SMALL + P1_SMALL[:-1] + ["tiger"]}, "unknown card"),
        ({"deck": "cat dog"}, "list of card names"),
        ({"deck": [0, 1, 2]}, "list of card names"),
        ({"deck": 17}, "list of card names"),
    ],
)
def test_bad_reset_options_raise_value_error(options, message):
    env = believe_it_or_not_v1.raw_env(num_players=2, **SMALL)
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)


def test_unknown_reset_option_is_dropped_with_a_warning_by_engine_and_environment():
    game = BelieveItOrNot(num_players=2, **SMALL)
    with pytest.warns(UserWarning, match=r"ignores unknown reset options \['seed'\]"):
        state = game.new_state(np.random.default_rng(0), {"seed": 3})
    assert game.snapshot(state) == game.snapshot(game.new_state(np.random.default_rng(0)))
    env = believe_it_or_not_v1.raw_env(num_players=2, **SMALL)
    with pytest.warns(UserWarning, match="ignores unknown reset options"):
        env.reset(seed=1, options={"seed": 3})


# --- leading -----------------------------------------------------------------------------------


def test_lead_may_declare_any_species_even_one_discarded():
    env = new_env(names("cat cat cat cat dog dog cow pig elephant"), P1_SMALL_NO_CAT, **SMALL)
    assert legal(env) == {DECLARE, DECLARE + 1, DECLARE + 2, DECLARE + 3}  # cat is allowed
    env.step(DECLARE + SPECIES.index("cat"))
    assert env.state_.declared == 0 and env.state_.decision == BUILD
    assert actor(env) == 0  # the same player now builds the placement


def test_placement_of_1_to_5_cards_of_any_kind_specials_and_elephant_included():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    env.step(DECLARE + SPECIES.index("cow"))
    assert FINISH not in legal(env)  # at least one card
    held = {ADD_CARD + card(name) for name in P0_THREE}
    assert legal(env) == held
    add_cards(env, ["elephant", "cat", "dog", "cat", "dog"])
    assert legal(env) == {FINISH}  # five cards at most
    env.step(FINISH)
    assert env.game.placements(env.state_) == [(0, ["elephant", "cat", "dog", "cat", "dog"])]


def test_only_cards_still_in_hand_can_be_added():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    env.step(DECLARE)
    add_cards(env, ["elephant", "pig"])
    assert ADD_CARD + card("elephant") not in legal(env)
    assert ADD_CARD + card("pig") not in legal(env)
    assert ADD_CARD + card("cat") in legal(env)
    with pytest.raises(ValueError, match="illegal"):
        env.step(ADD_CARD + card("elephant"))


def test_chosen_cards_leave_the_hand_and_join_the_table_when_finished():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    env.step(DECLARE + SPECIES.index("dog"))
    add_cards(env, ["dog", "cat"])
    assert env.agent_selection == "player_0"  # every card added is a step of the same agent
    assert hand(env, 0) == names("cat cat dog dog cow pig elephant")
    assert env.state_.table_size == 0
    assert fields(env, 0)["building"][[card("cat"), card("dog")]].tolist() == [1, 1]
    assert fields(env, 1)["building"].sum() == 0  # only the builder sees the chosen cards
    assert fields(env, 1)["hand_sizes"].tolist() == [8, 7]  # everyone sees the hand shrink
    env.step(FINISH)
    assert env.game.placements(env.state_) == [(0, ["dog", "cat"])]
    assert fields(env, 0)["own_table_cards"][[card("cat"), card("dog")]].tolist() == [1, 1]


def test_turn_passes_to_the_next_player_after_a_placement():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat"])
    assert actor(env) == 1 and env.state_.decision == RESPOND
    believe(env, ["cat"])
    assert actor(env) == 2 and env.state_.decision == RESPOND


# --- responding ----------------------------------------------------------------------------------


def test_respond_choices_believe_doubt_and_the_specials_held():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat", "dog"])
    assert legal(env) == {BELIEVE, DOUBT, PLAY_PEEK, PLAY_SKIP}


def test_believe_adds_a_placement_under_the_same_declaration():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["cat"])
    believe(env, ["pig", "cow"])
    assert env.game.placements(env.state_) == [(0, ["cat"]), (1, ["pig", "cow"])]
    assert env.state_.declared == SPECIES.index("cat")
    assert actor(env) == 0 and env.state_.decision == RESPOND  # now responding to player_1


def test_believe_not_allowed_when_the_owner_has_no_cards_left_doubt_forced():
    env = new_env(P0_SHORT, P1_SHORT, **SPECIALS)
    assert hand(env, 0) == ["cow", "pig", "skip"]
    lead(env, "cow", ["cow", "pig", "skip"])  # player_0's last cards
    # Only doubt, though a special may still be played first (skip would hand back to P).
    assert legal(env) == {DOUBT, PLAY_PEEK}
    assert fields(env, 1)["owner_has_no_cards"].tolist() == [1]
    env.step(PLAY_PEEK)
    env.step(PEEK_AT + 2)
    assert legal(env) == {DOUBT}


def test_doubt_true_card_doubter_takes_the_table():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["cat"])
    env.step(DOUBT)
    assert env.state_.decision == CHOOSE_TURN and legal(env) == {TURN_CARD}
    env.step(TURN_CARD)
    assert hand(env, 1) == sorted_names(P1_SMALL + ["cat"])
    assert hand(env, 0) == names("cat cat dog dog dog cow pig elephant")
    assert env.state_.table_size == 0 and env.state_.declared == -1
    observed = fields(env, 0)
    assert observed["revealed_card"][card("cat")] == 1 and observed["revealed_true"][0] == 1
    assert observed["revealed_taker"].tolist() == [0, 1]  # seat-relative: player_1


def test_doubt_bluff_owner_takes_the_table():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["dog", "cat"])
    doubt(env, 0)  # card 0 is the dog
    assert hand(env, 0) == sorted_names(P0_SMALL)
    assert hand(env, 1) == sorted_names(P1_SMALL)
    assert fields(env, 1)["revealed_true"][0] == 0


def test_card_k_is_the_kth_card_added_to_the_placement():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["dog", "cat"])
    assert legal(env) >= {DOUBT}
    env.step(DOUBT)
    assert legal(env) == {TURN_CARD, TURN_CARD + 1}
    env.step(TURN_CARD + 1)  # the cat: true
    assert hand(env, 1) == sorted_names(P1_SMALL + ["dog", "cat"])


def test_doubt_turns_a_card_of_the_last_placement_and_the_whole_table_is_taken():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["cat"])
    believe(env, ["pig", "pig", "pig"])
    env.step(DOUBT)
    assert legal(env) == {TURN_CARD, TURN_CARD + 1, TURN_CARD + 2}  # player_1's 3 cards only
    env.step(TURN_CARD + 1)  # a pig: player_1 bluffed and takes everything
    assert hand(env, 1) == sorted_names(P1_SMALL + ["cat"])
    assert hand(env, 0) == names("cat cat dog dog dog cow pig elephant")


@pytest.mark.parametrize("turned, taker, leader", [(0, 2, 0), (1, 1, 2)])
def test_next_player_after_the_taker_leads(turned, taker, leader):
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cow", ["cow"])
    believe(env, ["cow", "dog"])  # card 0 true, card 1 a bluff
    doubt(env, turned)
    assert env.state_.revealed_taker == taker
    assert actor(env) == leader and env.state_.decision == LEAD
    assert legal(env) == {DECLARE + s for s in range(4)}


def test_sets_of_four_discarded_after_taking_the_table():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["cat", "cat", "cat"])
    doubt(env, 2)  # true: player_1 takes three cats to its one
    assert hand(env, 1) == names("dog cow cow cow pig pig pig")
    assert env.game.discarded_species(env.state_) == ["cat"]
    assert fields(env, 0)["out_of_game"][card("cat")] == 4
    assert env.game.hand_sizes(env.state_) == [6, 7]


# --- special cards ----------------------------------------------------------------------------


def test_peek_shows_the_chosen_card_to_the_peeker_only():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat", "dog"])
    env.step(PLAY_PEEK)
    assert env.state_.decision == CHOOSE_PEEK and legal(env) == {PEEK_AT, PEEK_AT + 1}
    env.step(PEEK_AT + 1)
    peeker = fields(env, 1)
    assert peeker["peeked_position"].tolist() == [0, 1, 0, 0, 0]
    assert np.flatnonzero(peeker["peeked_card"]).tolist() == [card("dog")]
    for other in (0, 2):
        assert fields(env, other)["peeked_position"].sum() == 0
        assert fields(env, other)["peeked_card"].sum() == 0
    assert "dog (peeked)" in env.game.render(env.state_, player=1)
    assert "peeked" not in env.game.render(env.state_, player=2)
    assert hand(env, 1) == names("cat dog cow cow pig skip")  # the peek left the game
    assert fields(env, 2)["out_of_game"][PEEK] == 1


def test_one_special_card_per_turn_then_believe_or_doubt():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat", "dog"])
    env.step(PLAY_PEEK)
    env.step(PEEK_AT)
    assert legal(env) == {BELIEVE, DOUBT}  # player_1 still holds a skip
    assert fields(env, 1)["special_played"].tolist() == [1]


def test_specials_are_played_only_when_responding():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["dog"])
    doubt(env, 0)  # a bluff: player_0 takes, player_1 (holding a peek and a skip) leads
    assert actor(env) == 1 and legal(env) == {DECLARE + s for s in range(4)}
    env.step(DECLARE)
    assert legal(env) == {ADD_CARD + card(name) for name in P1_THREE}  # placing them is fine
    add_cards(env, ["peek"])
    env.step(FINISH)
    env.step(DOUBT)  # player_2 holds a peek and a skip but must now turn a card
    assert legal(env) == {TURN_CARD}


def test_peek_is_forgotten_when_the_peeked_placement_is_covered():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat", "dog"])
    env.step(PLAY_PEEK)
    env.step(PEEK_AT)
    believe(env, ["cat"])
    assert fields(env, 1)["peeked_card"].sum() == 0
    assert fields(env, 1)["own_table_cards"][card("cat")] == 1


def test_peek_as_last_card_forces_doubt_and_the_peeker_stays_in_until_settled():
    env = new_env(P0_PEEKER, P1_PEEKER, P2_PEEKER, **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog", "cow"])
    assert hand(env, 1) == ["peek"]
    doubt(env, 0)  # true: player_2 takes, player_0 leads
    lead(env, "pig", ["cow"])
    env.step(PLAY_PEEK)
    env.step(PEEK_AT)
    assert env.game.hand_sizes(env.state_)[1] == 0 and env.game.players_out(env.state_) == []
    assert legal(env) == {DOUBT}  # no card left to believe with
    doubt(env, 0)  # a cow: player_0 takes it back, player_1 has nothing and goes out
    assert env.game.players_out(env.state_) == [1]
    assert actor(env) == 2  # the next after the taker, player_0
    assert not any(env.terminations.values())  # standard: a player out is safe


def test_peeker_whose_doubt_fails_takes_the_table_and_stays_in():
    env = new_env(P0_PEEKER, P1_PEEKER, P2_PEEKER, **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog", "cow"])
    doubt(env, 0)
    lead(env, "pig", ["pig"])
    env.step(PLAY_PEEK)
    env.step(PEEK_AT)
    doubt(env, 0)  # the pig is true: player_1 takes it
    assert hand(env, 1) == ["pig"] and env.game.players_out(env.state_) == []
    assert actor(env) == 2


def test_skip_hands_the_decision_on_the_same_placement_to_the_next_player():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat"])
    env.step(PLAY_SKIP)
    assert actor(env) == 2 and env.state_.decision == RESPOND
    assert env.game.placements(env.state_) == [(0, ["cat"])]
    assert hand(env, 1) == names("cat dog cow cow pig peek")
    assert fields(env, 0)["out_of_game"][SKIP] == 1
    # player_2 responds to player_0 with its own choice of special (one per turn each).
    assert legal(env) == {BELIEVE, DOUBT, PLAY_PEEK}  # its skip would hand back to player_0
    doubt(env, 0)  # true: player_2 takes; player_0 leads
    assert hand(env, 2) == sorted_names(P2_THREE + ["cat"]) and actor(env) == 0


def test_skip_not_allowed_when_the_next_player_is_the_owner():
    env = new_env(P0_SHORT, P1_SHORT, **SPECIALS)
    lead(env, "cow", ["cow"])
    assert legal(env) == {BELIEVE, DOUBT, PLAY_PEEK}  # player_1 holds a skip


def test_skip_as_last_card_goes_out_standard_game_goes_on():
    env = new_env(P0_SKIPPER, P1_SKIPPER, P2_SKIPPER, **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog", "cow"])
    doubt(env, 0)  # true: player_2 takes, player_0 leads
    lead(env, "pig", ["pig"])
    assert hand(env, 1) == ["skip"]
    env.step(PLAY_SKIP)
    assert env.game.players_out(env.state_) == [1]
    assert actor(env) == 2 and env.state_.decision == RESPOND
    assert not any(env.terminations.values())


def test_quick_skip_as_last_card_wins():
    env = new_env(P0_SKIPPER, P1_SKIPPER, P2_SKIPPER, variant="quick", **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog", "cow"])
    doubt(env, 0)
    lead(env, "pig", ["pig"])
    env.step(PLAY_SKIP)
    assert all(env.terminations.values())
    assert rewards(env) == [-1.0, 1.0, -1.0]


def test_player_out_with_older_placements_their_cards_go_with_the_table():
    env = new_env(P0_SKIPPER, P1_SKIPPER, P2_SKIPPER, **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog"])  # player_1 keeps cow and skip
    believe(env, ["dog"])  # player_2
    believe(env, ["cow"])  # player_0
    believe(env, ["cow"])  # player_1 keeps only its skip
    believe(env, ["pig"])  # player_2
    believe(env, ["pig"])  # player_0
    env.step(PLAY_SKIP)  # player_1's last card: out, two placements of its still on the table
    assert env.game.players_out(env.state_) == [1]
    assert env.state_.seat_counts[ON_TABLE].tolist() == [3, 2, 2]
    assert actor(env) == 2
    doubt(env, 0)  # player_0's pig is a bluff: player_0 takes all seven cards
    assert hand(env, 0) == names("dog dog dog cow cow cow pig pig pig elephant skip")
    assert env.state_.seat_counts[ON_TABLE].tolist() == [0, 0, 0]
    assert hand(env, 1) == [] and env.game.players_out(env.state_) == [1]
    assert actor(env) == 2  # the next after player_0 still in


# --- going out ---------------------------------------------------------------------------------


def test_owner_of_last_cards_stays_in_until_the_doubt_is_settled():
    env = new_env(P0_SHORT, P1_SHORT, **SPECIALS)
    lead(env, "cow", ["cow", "pig", "skip"])
    assert env.game.hand_sizes(env.state_)[0] == 0
    assert env.game.players_out(env.state_) == []
    doubt(env, 2)  # the skip: a bluff, player_0 takes everything back
    assert hand(env, 0) == ["cow", "pig", "skip"]
    assert env.game.players_out(env.state_) == [] and actor(env) == 1


def test_players_out_are_skipped():
    env = new_env(P0_SKIPPER, P1_SKIPPER, P2_SKIPPER, **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog", "cow"])
    doubt(env, 0)
    lead(env, "pig", ["pig"])
    env.step(PLAY_SKIP)  # player_1's last card: out
    believe(env, ["cow"])  # player_2
    believe(env, ["cow"])  # player_0
    assert actor(env) == 2  # player_1 is skipped
    doubt(env, 0)  # player_0's cow is a bluff: player_0 takes
    assert actor(env) == 2 and env.state_.decision == LEAD  # player_1 skipped when leading too


# --- the end ----------------------------------------------------------------------------------


def test_standard_last_player_with_cards_loses():
    env = new_env(P0_SHORT, P1_SHORT, **SPECIALS)
    lead(env, "cow", ["cow", "pig", "skip"])
    doubt(env, 0)  # true: player_1 takes, player_0 has nothing left
    assert env.game.players_out(env.state_) == [0]
    assert all(env.terminations.values())
    assert rewards(env) == [1.0, -1.0]
    assert env.game.winners(env.state_).tolist() == [True, False]
    # The last player holds every animal left, so its sets leave: only the elephant and the
    # specials stay (the "no animals left" Decision names the same loser).
    assert hand(env, 1) == names("elephant peek peek skip skip")
    assert env.game.scores(env.state_).tolist() == [0, 5]


def test_quick_first_player_out_wins():
    env = new_env(P0_SHORT, P1_SHORT, variant="quick", **SPECIALS)
    lead(env, "cow", ["cow", "pig", "skip"])
    doubt(env, 0)
    assert all(env.terminations.values())
    assert rewards(env) == [1.0, -1.0]


def test_quick_two_players_out_at_once_both_win():
    env = position(
        {"variant": "quick", "num_species": 5, "special_cards": False},
        hands=[[], ["pig"] * 3, ["sheep", "sheep", "elephant"], ["sheep", "sheep"]],
        placements=[(0, ["pig"])],
        declared="pig",
        discarded=["cat", "dog", "cow"],
        current=1,
        decision=RESPOND,
    )
    assert legal(env) == {DOUBT}
    doubt(env, 0)  # true: player_1 takes the pig and its four pigs leave as a set
    assert env.game.players_out(env.state_) == [0, 1]
    assert rewards(env) == [1.0, 1.0, -1.0, -1.0]


def test_standard_players_out_are_safe_until_one_player_is_left():
    env = new_env(P0_SKIPPER, P1_SKIPPER, P2_SKIPPER, **SPECIALS)
    lead(env, "dog", ["dog"])
    believe(env, ["dog", "cow"])
    doubt(env, 0)
    lead(env, "pig", ["pig"])
    env.step(PLAY_SKIP)  # player_1 goes out
    state = env.state_
    # Play on until the end: player_0 and player_2 believe truthfully or doubt.
    agent_rng = np.random.default_rng(5)
    for _ in range(2000):
        env.step(int(agent_rng.choice(sorted(legal(env)))))
        if state.terminal:
            break
    assert state.terminal
    loser = int(np.flatnonzero(~env.game.winners(state))[0])
    assert loser != 1 and rewards(env)[1] == 1.0
    assert sorted(rewards(env)) == [-1.0, 1.0, 1.0]
    assert env.game.hand_sizes(state)[loser] > 0 and state.hands[loser, card("elephant")] == 1


def test_no_animals_left_standard_elephant_holder_loses():
    env = new_env(*NO_ANIMALS_DEAL, **SPECIALS)
    assert env.game.discarded_species(env.state_) == ["cat", "dog", "cow"]
    lead(env, "pig", ["pig"])
    doubt(env, 0)  # true: player_1 gets its fourth pig; no animal is left anywhere
    assert all(env.terminations.values())
    assert env.game.players_out(env.state_) == []
    assert rewards(env) == [1.0, 1.0, 1.0, -1.0]  # player_3 holds the elephant


def test_no_animals_left_quick_fewest_cards_win():
    env = new_env(*NO_ANIMALS_DEAL, variant="quick", **SPECIALS)
    lead(env, "pig", ["pig"])
    doubt(env, 0)
    assert env.game.hand_sizes(env.state_) == [1, 2, 1, 1]
    assert rewards(env) == [1.0, -1.0, 1.0, 1.0]


def test_max_cycles_truncates_counting_every_card_added_with_reward_zero():
    env = believe_it_or_not_v1.raw_env(num_players=2, max_cycles=4, **SMALL)
    env.reset(options={"deck": deck(P0_SMALL, P1_SMALL)})
    env.step(DECLARE)
    add_cards(env, ["cat", "cat"])
    assert not any(env.truncations.values())
    env.step(ADD_CARD + card("dog"))  # the 4th step
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert rewards(env) == [0.0, 0.0]


def test_max_cycles_step_that_ends_the_game_is_a_normal_end():
    env = believe_it_or_not_v1.raw_env(num_players=2, max_cycles=7, variant="quick", **SPECIALS)
    env.reset(options={"deck": deck(P0_SHORT, P1_SHORT)})
    lead(env, "cow", ["cow", "pig", "skip"])  # 5 steps
    doubt(env, 0)  # steps 6 and 7: player_0 goes out and wins
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert rewards(env) == [1.0, -1.0]


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_default_max_cycles_is_500_per_player(num_players):
    """Decision (default max_cycles)."""
    assert believe_it_or_not_v1.raw_env(num_players=num_players).max_cycles == 500 * num_players


def test_scores_count_cards_in_hand_being_placed_and_on_the_table():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    lead(env, "cat", ["cat", "cat"])
    env.step(BELIEVE)
    add_cards(env, ["pig"])
    assert env.game.scores(env.state_).tolist() == [9, 8]


# --- the environment: illegal actions, observations, rendering ---------------------------------


def test_illegal_action_raw_env_raises_value_error_naming_agent_action_and_legal_ones():
    env = new_env(P0_SMALL, P1_SMALL, **SMALL)
    with pytest.raises(
        ValueError,
        match=r"action 20 of player_0 is illegal \(believe\).*"
        r"12 \(declare cat\)",
    ):
        env.step(BELIEVE)


def test_illegal_action_wrapped_env_ends_the_game_with_minus_one_for_the_offender():
    env = believe_it_or_not_v1.env(num_players=2, **SMALL)
    env.reset(options={"deck": deck(P0_SMALL, P1_SMALL)})
    env.step(DECLARE)
    env.step(ADD_CARD + card("cat"))
    env.step(FINISH)
    env.step(ADD_CARD + card("cat"))  # player_1 must respond, not build
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}


def test_observation_is_seat_relative():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat", "dog"])
    observed = fields(env, 2)
    assert observed["hand_sizes"].tolist() == [7, 5, 7]  # player_2, player_0, player_1
    assert observed["cards_on_table"].tolist() == [0, 2, 0]
    assert observed["last_owner"].tolist() == [0, 1, 0]
    assert observed["to_act"].tolist() == [0, 0, 1]
    assert observed["decision"].tolist() == [0, 0, 1, 0, 0]
    assert observed["declared"].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert observed["table_size"].tolist() == [2] and observed["last_size"].tolist() == [2]
    assert observed["hand"].tolist() == [1, 1, 1, 2, 0, 0, 0, 0, 0, 1, 1]


def test_decision_declaration_seen_while_the_lead_is_built():
    """Decision (declaration seen while the lead is built): the species declared at a lead is
    in every seat's observation from the declaration on, while the table is still empty; before
    it, and after a doubt clears the table, none is."""
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    for player in range(3):
        assert fields(env, player)["declared"].tolist() == [0] * 8  # player_0 to lead
    env.step(DECLARE + SPECIES.index("dog"))
    add_cards(env, ["cat"])
    dog = [0, 1, 0, 0, 0, 0, 0, 0]
    for player in range(3):
        observed = fields(env, player)
        assert observed["declared"].tolist() == dog
        assert observed["table_size"].tolist() == [0] and observed["last_size"].tolist() == [0]
    assert fields(env, 0)["building"].tolist() == [1] + [0] * 10  # the cat chosen
    env.step(FINISH)
    assert fields(env, 1)["declared"].tolist() == dog
    doubt(env, 0)  # the cat: a lie, player_0 takes the table back
    assert actor(env) == 1 and hand(env, 0) == sorted_names(P0_THREE)
    for player in range(3):
        assert fields(env, player)["declared"].tolist() == [0] * 8


def test_render_ansi_shows_the_table_from_a_seat():
    env = believe_it_or_not_v1.raw_env(num_players=2, render_mode="ansi", **SMALL)
    env.reset(options={"deck": deck(P0_SMALL, P1_SMALL)})
    lead(env, "cat", ["dog", "cat"])
    text = env.render()
    assert "player_0:  7 cards [cat cat dog dog cow pig elephant]" in text
    assert "declared cat" in text and "player_0: dog cat" in text
    seen_by_1 = env.game.render(env.state_, player=1)
    assert "player_0: ? ?" in seen_by_1 and "[cat cat dog" not in seen_by_1
    assert "to respond" in seen_by_1


def test_action_names():
    game = BelieveItOrNot()
    names = [game.action_name(a) for a in range(NUM_ACTIONS)]
    assert names[0] == "add cat" and names[10] == "add skip" and names[11] == "finish placement"
    assert names[12] == "declare cat" and names[19] == "declare duck"
    assert names[20:22] == ["believe", "doubt"]
    assert names[22] == "turn card 0" and names[26] == "turn card 4"
    assert names[27:29] == ["play peek", "play skip"]
    assert names[29] == "peek at card 0" and names[33] == "peek at card 4"


# --- no leaks ------------------------------------------------------------------------------------


def hidden_slots(game: BelieveItOrNot, state, observer: int, include_visible: bool = False):
    """Every card ``observer`` cannot see, as (where, index) slots with their card types: other
    hands, another player's placement in progress, table cards it neither placed nor peeked."""
    slots, types = [], []
    for player in range(game.num_players):
        if player != observer or include_visible:
            for card_type in np.repeat(np.arange(NUM_TYPES), state.hands[player]):
                slots.append(("hand", player))
                types.append(card_type)
    if state.current_player != observer or include_visible:
        for index in range(state.building_size):
            slots.append(("building", index))
            types.append(state.building[index])
    start, last = 0, state.num_placements - 1
    for index in range(state.num_placements):
        owner, size = state.placement_owners[index], state.placement_sizes[index]
        for position in range(size):
            peeked = index == last and state.peek_player == observer == state.current_player
            peeked = peeked and position == state.peek_position
            if include_visible or (owner != observer and not peeked):
                slots.append(("table", start + position))
                types.append(state.table_cards[start + position])
        start += size
    return slots, np.array(types, np.int64)


def scrambled(game: BelieveItOrNot, state, observer: int, include_visible: bool = False):
    """A copy of ``state`` where every card hidden from ``observer`` is changed (as far as the
    hidden cards allow), sizes kept."""
    copy = game.restore(game.snapshot(state))
    slots, types = hidden_slots(game, state, observer, include_visible)
    if not slots:
        return copy, 0
    order = np.argsort(types, kind="stable")
    shift = int(np.bincount(types).max())
    new_types = np.empty_like(types)
    new_types[order] = types[order][(np.arange(len(types)) + shift) % len(types)]
    for player in {where[1] for where in slots if where[0] == "hand"}:
        copy.hands[player] = 0
    for (kind, index), card_type in zip(slots, new_types):
        if kind == "hand":
            copy.hands[index, card_type] += 1
        elif kind == "building":
            copy.building[index] = card_type
        else:
            copy.table_cards[index] = card_type
    copy.table_counts[:] = 0
    for owner, cards in game.placements(copy):
        for name in cards:
            copy.table_counts[owner, card(name)] += 1
    return copy, int((new_types != types).sum())


@pytest.mark.parametrize("num_players, params", [(3, SPECIALS), (4, {}), (5, {"variant": "quick"})])
def test_no_leak_hidden_cards_never_change_an_observation(num_players, params):
    game = BelieveItOrNot(num_players=num_players, **params)
    agent_rng = np.random.default_rng(num_players)
    checked = 0
    for seed in range(3):
        state = game.new_state(np.random.default_rng(seed))
        while not state.terminal:
            for observer in range(num_players):
                copy, changed = scrambled(game, state, observer)
                slots, types = hidden_slots(game, state, observer)
                most_alike = int(np.bincount(types).max()) if len(types) else 0
                assert changed >= min(len(slots), 2 * (len(slots) - most_alike))
                assert np.array_equal(game.observe(copy, observer), game.observe(state, observer))
                if observer == state.current_player:
                    mask = game.legal_mask(state, observer)
                    assert np.array_equal(game.legal_mask(copy, observer), mask)
                checked += changed
            legal_actions = np.flatnonzero(game.legal_mask(state, state.current_player))
            game.apply(state, int(agent_rng.choice(legal_actions)))
    assert checked > 1000


def test_no_leak_check_would_see_a_changed_visible_card():
    """The scrambling above is able to change an observation: scrambling the observer's own
    cards, its placements and its peek too changes what it sees."""
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["cat", "dog"])
    env.step(PLAY_PEEK)
    env.step(PEEK_AT + 1)
    game, state = env.game, env.state_
    copy, _ = scrambled(game, state, 1, include_visible=True)
    assert not np.array_equal(game.observe(copy, 1), game.observe(state, 1))


def test_observer_sees_its_own_placements_and_what_it_peeked():
    env = new_env(P0_THREE, P1_THREE, P2_THREE, **SPECIALS)
    lead(env, "cat", ["elephant", "pig"])
    believe(env, ["cow", "cow"])  # player_1
    env.step(PLAY_PEEK)  # player_2 looks at player_1's card 1
    env.step(PEEK_AT + 1)
    own = fields(env, 0)["own_table_cards"]
    assert {CARD_NAMES[t]: int(own[t]) for t in np.flatnonzero(own)} == {"pig": 1, "elephant": 1}
    own = fields(env, 1)["own_table_cards"]
    assert {CARD_NAMES[t]: int(own[t]) for t in np.flatnonzero(own)} == {"cow": 2}
    peeker = fields(env, 2)
    assert peeker["own_table_cards"].sum() == 0
    assert peeker["peeked_position"].tolist() == [0, 1, 0, 0, 0]
    assert np.flatnonzero(peeker["peeked_card"]).tolist() == [card("cow")]
    text = env.game.render(env.state_, player=2)
    assert "player_0: ? ?" in text and "player_1: ? cow (peeked)" in text


def test_a_snapshot_whose_builder_would_keep_four_of_a_species_is_refused():
    """The cards being placed count with the hand of the player to act: a snapshot edited to
    hand player_0's four cards in building to player_3 passed every check, and two steps later
    player_3 held four sheep."""
    from cardzoo.envs import load_game
    from cardzoo.envs.helpers import game_rng_from_seed

    game = load_game("believe_it_or_not")
    state = game.new_state(game_rng_from_seed(0))
    rng = np.random.default_rng(1)
    for _ in range(int(rng.integers(0, 150))):
        game.step(
            state, int(rng.choice(np.flatnonzero(game.legal_mask(state, state.current_player))))
        )
    snapshot = game.snapshot(state)
    assert (state.current_player, int(state.building_size)) == (0, 4)
    assert game.restore(snapshot) is not None  # as it was: accepted
    snapshot["state"]["current_player"] = 3
    with pytest.raises(ValueError, match=r"inconsistent state \(four of a species kept\)"):
        game.restore(snapshot)
