"""Henhouse rules, one test per rule and Decision of shared/rules/henhouse.md.

Deals are fixed with ``reset(options={"deck": ...})``. Late-game positions (players running out)
would take hundreds of turns to reach from a deal, so those tests build the position directly as
a :class:`HenhouseState` — the same data a snapshot restores."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.envs import henhouse_v0
from cardzoo.envs.henhouse.rules import (
    CARD_NAMES,
    NO_PLAYER,
    Henhouse,
    HenhouseState,
    deck_composition,
)

EXPECTED_CARDS_PER_PLAYER = {
    2: [20, 20],
    3: [13, 13, 13],
    4: [10, 10, 10, 10],
    5: [8] * 5,
    6: [6, 6, 7, 7, 7, 7],
    7: [5, 5, 6, 6, 6, 6, 6],
    8: [5] * 8,
}


def deal(num_players: int, tops: dict[int, list[str]], fox_at: int | None = 0) -> list[str]:
    """A full deck in deal order: each player's deck starts (top first) with ``tops[player]``,
    the ``fox`` lies at the bottom of player ``fox_at``'s deck unless placed explicitly, and the
    rest is filled with hens, then eggs, then feathers."""
    game = Henhouse(num_players)
    remaining = dict(zip(CARD_NAMES, deck_composition(num_players).tolist()))
    hands = {p: list(tops.get(p, [])) for p in range(num_players)}
    for cards in hands.values():
        for card in cards:
            remaining[card] -= 1
    assert min(remaining.values()) >= 0, "more copies asked for than the deck holds"
    fox_placed = remaining["fox"] == 0
    fill = [
        c for c in ("hen", "egg", "feather1", "feather2", "feather3") for _ in range(remaining[c])
    ]
    sizes = [game.deal_counts[p] - (p == fox_at and not fox_placed) for p in range(num_players)]
    for depth in range(max(sizes)):  # layer by layer, so the hens lie on top of every deck
        for p in range(num_players):
            if len(hands[p]) <= depth < sizes[p]:
                hands[p].append(fill.pop(0))
    if not fox_placed:
        hands[fox_at].append("fox")
    assert not fill
    received = [0] * num_players
    deck = []
    for player in game._deal_order():
        deck.append(hands[player][received[player]])
        received[player] += 1
    return deck


def new_env(num_players: int, deck: list[str], **kwargs) -> henhouse_v0.raw_env:
    env = henhouse_v0.raw_env(num_players=num_players, **kwargs)
    env.reset(seed=0, options={"deck": deck})
    return env


def turn(env, times: int = 1) -> None:
    for _ in range(times):
        env.step(0)


def player(env) -> int:
    return env.state_.current_player


def position(num_players, decks, pile=(), current=0, debt=0, owed=NO_PLAYER, payer=NO_PLAYER):
    """A Henhouse state holding exactly these decks (top first) and pile (oldest first)."""
    game = Henhouse(num_players)
    n, capacity = num_players, game.num_cards
    state = HenhouseState(
        rng=np.random.default_rng(0),
        current_player=current,
        decks=np.zeros((n, capacity), np.int8),
        deck_top=np.zeros(n, np.int64),
        deck_size=np.array([len(d) for d in decks], np.int64),
        pile=np.zeros(capacity, np.int8),
        pile_size=len(pile),
        is_out=np.zeros(n, bool),
        debt=debt,
        owed=owed,
        payer=payer,
    )
    for p, cards in enumerate(decks):
        state.decks[p, : len(cards)] = [CARD_NAMES.index(c) for c in cards]
    state.pile[: len(pile)] = [CARD_NAMES.index(c) for c in pile]
    game.check_invariants(state)
    return game, state


def rest_of_deck(num_players: int, *used: list[str]) -> list[str]:
    """Every card of the game not in ``used`` (hens first), to give to a bystander."""
    remaining = dict(zip(CARD_NAMES, deck_composition(num_players).tolist()))
    for cards in used:
        for card in cards:
            remaining[card] -= 1
    return [card for card in CARD_NAMES for _ in range(remaining[card])]


# --- the deal -------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", range(2, 9))
def test_cards_per_player_for_every_player_count(num_players):
    env = henhouse_v0.raw_env(num_players=num_players)
    env.reset(seed=num_players)
    assert env.state_.deck_size.tolist() == EXPECTED_CARDS_PER_PLAYER[num_players]


def test_deck_is_40_cards_as_decided():
    game = Henhouse(4)
    assert game.num_cards == 40
    assert dict(zip(CARD_NAMES, deck_composition(4).tolist())) == {
        "hen": 23,
        "feather1": 4,
        "feather2": 4,
        "feather3": 4,
        "egg": 4,
        "fox": 1,
    }
    state = game.new_state(np.random.default_rng(0))
    dealt = sorted(card for p in range(4) for card in game.deck_cards(state, p))
    assert dealt == sorted(deal(4, {}))


def test_three_players_one_hen_removed():
    game = Henhouse(3)
    assert game.num_cards == 39
    assert deck_composition(3).tolist() == [22, 4, 4, 4, 4, 1]
    with pytest.raises(ValueError, match="22"):
        game.new_state(np.random.default_rng(0), {"deck": deal(4, {})})


@pytest.mark.parametrize("num_players, extra", [(6, [2, 3, 4, 5]), (7, [2, 3, 4, 5, 6])])
def test_youngest_players_get_the_extra_cards(num_players, extra):
    sizes = Henhouse(num_players).new_state(np.random.default_rng(0)).deck_size
    assert np.flatnonzero(sizes == sizes.max()).tolist() == extra


def test_deal_one_card_at_a_time_first_received_is_top():
    deck = deal(4, {0: ["egg", "feather1"], 1: ["feather2"]})
    game = Henhouse(4)
    state = game.new_state(np.random.default_rng(0), {"deck": deck})
    assert deck[0] == "egg" and deck[1] == "feather2" and deck[4] == "feather1"
    assert game.deck_cards(state, 0)[:2] == ["egg", "feather1"]
    assert game.deck_cards(state, 1)[0] == "feather2"


def test_fox_holder_plays_first():
    env = new_env(4, deal(4, {}, fox_at=2))
    assert env.agent_selection == "player_2"


def test_bad_deck_option_is_a_value_error():
    with pytest.raises(ValueError, match="unknown card name"):
        new_env(4, ["wolf"] * 40)
    with pytest.raises(ValueError, match="exactly"):
        new_env(4, ["hen"] * 40)


# --- free play ------------------------------------------------------------------------------


def test_hen_next_player_plays():
    env = new_env(4, deal(4, {0: ["hen"]}))
    turn(env)
    assert player(env) == 1
    assert env.game.pile_cards(env.state_) == ["hen"]
    assert env.state_.debt == 0


def test_egg_next_player_plays():
    env = new_env(4, deal(4, {0: ["egg"]}))
    turn(env)
    assert player(env) == 1 and env.state_.debt == 0


@pytest.mark.parametrize("feather, owed_cards", [("feather1", 1), ("feather2", 2), ("feather3", 3)])
def test_feather_paid_in_full_owner_collects_pile_under_deck(feather, owed_cards):
    env = new_env(4, deal(4, {0: ["hen", feather, "hen"], 1: ["hen", "hen", "hen", "hen", "hen"]}))
    turn(env, 4)  # a hen from every player
    turn(env)  # player_0 plays the feather
    assert (env.state_.debt, env.state_.owed, player(env)) == (owed_cards, 0, 1)
    turn(env, owed_cards)  # player_1 pays with hens
    pile = ["hen"] * 4 + [feather] + ["hen"] * owed_cards
    assert env.state_.pile_size == 0 and env.state_.debt == 0
    assert player(env) == 0
    assert env.state_.deck_size.tolist() == [8 + len(pile), 9 - owed_cards, 9, 9]
    assert env.game.deck_cards(env.state_, 0)[-len(pile) :] == pile  # oldest pile card first
    assert env.game.deck_cards(env.state_, 0)[0] == "hen"  # then plays from their own top


def test_feather_during_payment_moves_the_debt():
    env = new_env(4, deal(4, {0: ["feather3"], 1: ["hen", "feather2"]}))
    turn(env)  # player_0: feather3, player_1 owes 3
    turn(env)  # player_1 pays a hen
    assert (env.state_.debt, env.state_.payer) == (2, 1)
    turn(env)  # player_1 turns feather2: now player_1 is owed 2, player_2 pays
    assert (env.state_.debt, env.state_.owed, env.state_.payer, player(env)) == (2, 1, 2, 2)
    turn(env, 2)  # player_2 pays two hens
    assert player(env) == 1 and env.state_.pile_size == 0
    assert env.state_.deck_size.tolist() == [9, 8 + 5, 8, 10]


def test_egg_during_payment_cancels_it():
    env = new_env(4, deal(4, {0: ["feather2"], 1: ["hen", "egg"]}))
    turn(env, 3)  # feather2, then player_1 pays a hen and turns an egg
    assert env.state_.debt == 0 and env.state_.owed == NO_PLAYER
    assert player(env) == 2  # the next player after the payer plays normally
    assert env.game.pile_cards(env.state_) == ["feather2", "hen", "egg"]  # the pile stays


def test_egg_right_under_a_feather_cancels_it():
    env = new_env(4, deal(4, {0: ["egg"], 1: ["feather3"]}))
    turn(env, 2)
    assert env.state_.debt == 0 and player(env) == 2
    assert env.game.pile_cards(env.state_) == ["egg", "feather3"]


def test_fox_outside_payment_passes_every_deck_left():
    env = new_env(4, deal(4, {0: ["fox"], 1: ["egg"], 2: ["feather1"], 3: ["feather2"]}))
    before = [env.game.deck_cards(env.state_, p) for p in range(4)]
    turn(env)
    after = [env.game.deck_cards(env.state_, p) for p in range(4)]
    assert after[1] == before[0][1:]  # player_0's deck (less the fox) is now player_1's
    assert after[2] == before[1] and after[3] == before[2] and after[0] == before[3]
    assert player(env) == 1 and env.game.deck_cards(env.state_, 1)[0] == "hen"


def test_fox_during_payment_passes_decks_then_payer_goes_on_from_new_deck():
    deck = deal(4, {0: ["hen", "fox"], 3: ["feather2", "egg"]}, fox_at=None)
    env = new_env(4, deck)
    turn(env, 4)  # hens from player_0..2, then player_3's feather2: player_0 owes 2
    old_decks = [env.game.deck_cards(env.state_, p) for p in range(4)]
    turn(env)  # player_0 pays with the fox: one card paid, then every deck passes left
    assert (env.state_.debt, env.state_.payer, player(env)) == (1, 0, 0)
    assert env.game.deck_cards(env.state_, 0) == old_decks[3]
    assert env.game.deck_cards(env.state_, 1) == old_decks[0][1:]
    turn(env)  # player_0 goes on paying from the deck it now holds: player_3's old egg
    assert env.game.pile_cards(env.state_)[-1] == "egg"
    assert env.state_.debt == 0 and player(env) == 1  # cancelled: the next player plays


def test_fox_as_last_card_owed_passes_decks_then_owner_collects():
    deck = deal(4, {0: ["hen", "fox"], 3: ["feather1"]}, fox_at=None)
    env = new_env(4, deck)
    turn(env, 4)  # hens, then player_3's feather1: player_0 owes 1
    old_decks = [env.game.deck_cards(env.state_, p) for p in range(4)]
    turn(env)  # the fox pays it: decks pass left first, then player_3 collects
    pile = ["hen", "hen", "hen", "feather1", "fox"]
    assert player(env) == 3 and env.state_.pile_size == 0 and env.state_.debt == 0
    assert env.game.deck_cards(env.state_, 3) == old_decks[2] + pile
    assert env.game.deck_cards(env.state_, 0) == old_decks[3]


# --- running out ----------------------------------------------------------------------------


def test_payer_running_out_next_player_pays_the_rest():
    decks = [["hen"], ["hen"], ["hen", "hen"]]
    decks.append(rest_of_deck(4, *decks, ["feather3"]))
    game, state = position(4, decks, pile=["feather3"], current=1, debt=3, owed=0, payer=1)
    game.step(state, 0)  # player_1 pays its last card and is out when it must pay again
    assert state.is_out.tolist() == [False, True, False, False]
    assert (state.debt, state.payer, state.current_player) == (2, 2, 2)
    game.step(state, 0)
    game.step(state, 0)
    assert state.current_player == 0 and state.pile_size == 0
    assert state.deck_size.tolist() == [1 + 4, 0, 0, len(decks[3])]
    assert game.deck_cards(state, 0) == ["hen", "feather3", "hen", "hen", "hen"]


def test_owed_player_collects_when_nobody_is_left_to_pay():
    rest = rest_of_deck(3, ["hen"], ["hen"], ["feather2"])
    game, state = position(
        3, [["hen"], ["hen"], []], pile=rest + ["feather2"], current=1, debt=2, owed=0, payer=1
    )
    rewards = game.step(state, 0)  # player_1 pays its last card; player_2 has none to pay with
    assert state.is_out.tolist() == [False, True, True]
    assert state.terminal and game.winners(state).tolist() == [True, False, False]
    assert state.deck_size.tolist() == [39, 0, 0]
    assert rewards.tolist() == [1.0, -1.0, -1.0]


def test_owed_player_with_empty_deck_stays_in_until_settled():
    rest = rest_of_deck(4, ["feather1"], ["hen"], ["hen"])
    game, state = position(
        4, [[], ["hen"], ["hen"], rest], pile=["feather1"], current=1, debt=1, owed=0, payer=1
    )
    game.step(state, 0)
    assert not state.is_out[0]
    assert state.current_player == 0 and state.deck_size[0] == 2


def test_player_with_no_card_to_turn_is_out():
    rest = rest_of_deck(4, ["hen"], ["hen"])
    game, state = position(4, [["hen"], [], ["hen"], rest], current=0)
    game.step(state, 0)
    assert state.is_out.tolist() == [False, True, False, False]
    assert state.current_player == 2


def test_fox_passes_only_among_players_still_in():
    rest = rest_of_deck(4, ["fox", "hen"], ["egg"])
    game, state = position(4, [["fox", "hen"], [], ["egg"], rest], current=0)
    state.is_out[1] = True
    game.step(state, 0)
    assert game.deck_cards(state, 1) == []  # out: receives nothing
    assert game.deck_cards(state, 2) == ["hen"]  # from player_0, skipping player_1
    assert game.deck_cards(state, 0) == rest  # from player_3
    assert state.current_player == 2


def test_fox_gives_a_deck_to_a_player_in_with_an_empty_deck():
    rest = rest_of_deck(3, ["fox", "hen"])
    game, state = position(3, [["fox", "hen"], [], rest], current=0)
    game.step(state, 0)
    assert game.deck_cards(state, 1) == ["hen"] and not state.is_out[1]
    assert state.current_player == 1


def test_last_player_in_takes_the_pile_and_wins():
    rest = rest_of_deck(3, ["hen"])
    game, state = position(3, [["hen"], [], []], pile=rest, current=0)
    rewards = game.step(state, 0)
    assert state.is_out.tolist() == [False, True, True]
    assert state.terminal and state.deck_size[0] == 39 and state.pile_size == 0
    assert rewards.tolist() == [1.0, -1.0, -1.0]


# --- end of the game ------------------------------------------------------------------------


def test_game_ends_when_one_player_holds_every_card_with_rewards():
    env = henhouse_v0.raw_env(num_players=4)
    env.reset(seed=1)
    total = dict.fromkeys(env.agents, 0.0)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        env.step(None if terminated or truncated else 0)
    winner = int(np.flatnonzero(env.game.winners(env.state_))[0])
    assert env.state_.deck_size[winner] == 40
    assert total == {a: (1.0 if i == winner else -1.0) for i, a in enumerate(env.possible_agents)}
    assert env.game.scores(env.state_).tolist() == env.state_.deck_size.tolist()


def test_max_cycles_truncates_with_reward_zero():
    env = henhouse_v0.raw_env(num_players=2, max_cycles=10)
    env.reset(seed=0)
    turn(env, 10)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert not env.state_.terminal


def test_default_max_cycles_is_20000():
    assert henhouse_v0.raw_env().max_cycles == 20_000


# --- interface ------------------------------------------------------------------------------


def test_single_action_always_legal_for_the_player_to_act():
    env = new_env(4, deal(4, {}, fox_at=1))
    assert env.observe("player_1")["action_mask"].tolist() == [1]
    assert env.observe("player_0")["action_mask"].tolist() == [0]


def test_observation_fields_are_seat_relative():
    env = new_env(4, deal(4, {0: ["feather2"], 1: ["hen"]}))
    turn(env, 2)  # feather2 by player_0, player_1 pays one hen
    fields = env.describe_observation(env.observe("player_1"))
    assert fields["deck_sizes"].tolist() == [9, 10, 10, 9]  # player_1, 2, 3, 0
    assert fields["pile_size"].tolist() == [2]
    assert fields["pile_top"].tolist() == [1, 0, 0, 0, 0, 0]  # hen
    assert fields["pile_second"].tolist() == [0, 0, 1, 0, 0, 0]  # feather2
    assert fields["debt"].tolist() == [1]
    assert fields["owed"].tolist() == [0, 0, 0, 1]  # player_0 sits three seats left of player_1
    assert fields["payer"].tolist() == [1, 0, 0, 0]


def test_render_shows_decks_pile_and_debt():
    env = henhouse_v0.raw_env(num_players=4, render_mode="ansi")
    env.reset(seed=0, options={"deck": deal(4, {0: ["feather2"]})})
    env.step(0)
    text = env.render()
    assert "player_1:" in text and "paying" in text and "owed 2" in text
    assert "pile: 1 cards (top: feather2)" in text


def test_observation_hides_the_order_of_every_deck():
    env = new_env(4, deal(4, {0: ["feather2"], 1: ["hen"]}))
    turn(env, 2)
    game, state = env.game, env.state_
    before = [game.observe(state, p).copy() for p in range(4)]
    rng = np.random.default_rng(0)
    for p in range(4):  # shuffle every face-down deck in place
        slots = (state.deck_top[p] + np.arange(state.deck_size[p])) % game.num_cards
        state.decks[p, slots] = rng.permutation(state.decks[p, slots])
    game.check_invariants(state)
    for p in range(4):
        np.testing.assert_array_equal(game.observe(state, p), before[p])
