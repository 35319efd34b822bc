"""The Believe It or Not heuristics: legal in every configuration, sensible in the positions they
are built for, and clearly better than random play."""

from __future__ import annotations

import numpy as np
import pytest

from cardzoo.agents import agent_classes, make_agent
from cardzoo.envs import kernel_random
from cardzoo.envs.believe_it_or_not import kernel
from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    CARD_NAMES,
    DOUBT,
    FINISH,
    PEEK_AT,
    PLAY_PEEK,
    SPECIES,
    TURN_CARD,
    BelieveItOrNot,
)
from cardzoo.envs.kernels import plain_copy
from cardzoo.evaluation import play_game, play_match

HEURISTICS = ["honest", "bluffer"]
SMALL = {"num_species": 4, "special_cards": False}
SPECIALS = {"num_species": 4}


def names(text: str) -> list[str]:
    return text.split()


def dealt(hands: list[list[str]], **params):
    """A game and its state dealt exactly these hands (one card at a time from player_0)."""
    game = BelieveItOrNot(num_players=len(hands), **params)
    deck = [hand[i] for i in range(len(hands[0])) for hand in hands if i < len(hand)]
    return game, game.new_state(np.random.default_rng(0), {"deck": deck})


def observation(game, state) -> dict[str, np.ndarray]:
    player = state.current_player
    return {
        "observation": game.observe(state, player),
        "action_mask": game.legal_mask(state, player),
    }


def play_turn(game, state, agent) -> list[str]:
    """Let ``agent`` play until the turn passes; the names of its actions."""
    player, actions = state.current_player, []
    while not state.terminal and state.current_player == player:
        action = agent.act(observation(game, state))
        actions.append(game.action_name(action))
        game.step(state, action)
    return actions


def apply_names(game, state, actions: list[str]) -> None:
    by_name = {game.action_name(a): a for a in range(game.num_actions)}
    for name in actions:
        game.step(state, by_name[name])


def test_heuristics_are_registered():
    assert list(agent_classes("believe_it_or_not")) == ["random", *HEURISTICS]


@pytest.mark.parametrize("num_players", range(2, 7))
@pytest.mark.parametrize(
    "params", [{}, {"variant": "quick"}, SMALL, {"variant": "quick", "num_species": 5}]
)
def test_heuristics_play_only_legal_actions_in_every_configuration(num_players, params):
    game = BelieveItOrNot(num_players=num_players, **params)
    lineup = (HEURISTICS * num_players)[:num_players]
    for seed in range(4):
        agents = [
            make_agent("believe_it_or_not", name, game, seed=seed * 10 + i)
            for i, name in enumerate(lineup)
        ]
        record = play_game(game, agents, seed)  # game.step raises on an illegal action
        assert not record.truncated


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_leads_with_its_most_held_species_true_cards(agent_name):
    p0 = names("cat cat cat dog cow pig elephant peek skip pig skip")
    game, state = dealt([p0, names("cat dog dog dog cow cow cow pig pig peek")], **SPECIALS)
    agent = make_agent("believe_it_or_not", agent_name, game, seed=0)
    actions = play_turn(game, state, agent)
    assert actions[0] == "declare cat"
    placed = game.placements(state)[0][1]
    assert placed.count("cat") == 3
    extras = [card for card in placed if card != "cat"]
    if agent_name == "honest":
        assert extras == ["elephant"]  # its one lie in the standard game
    else:
        assert 1 <= len(extras) <= 2 and "elephant" in extras
        assert "peek" not in extras and "skip" not in extras


def test_honest_quick_game_places_only_true_cards():
    game, state = dealt(
        [
            names("cat cat cat dog cow pig elephant peek skip pig skip"),
            names("cat dog dog dog cow cow cow pig pig peek"),
        ],
        variant="quick",
        **SPECIALS,
    )
    play_turn(game, state, make_agent("believe_it_or_not", "honest", game, seed=0))
    assert game.placements(state) == [(0, ["cat", "cat", "cat"])]


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_believes_holding_the_declared_species_and_places_it(agent_name):
    game, state = dealt(
        [
            names("cat cat dog dog cow cow pig pig elephant"),
            names("cat cat dog dog cow cow pig pig"),
        ],
        **SMALL,
    )
    apply_names(game, state, ["declare cow", "add cow", "finish placement"])
    actions = play_turn(game, state, make_agent("believe_it_or_not", agent_name, game, seed=0))
    assert actions[0] == "believe"
    assert game.placements(state)[1][1].count("cow") == 2  # both of its cows


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_doubts_a_claim_its_own_hand_makes_impossible(agent_name):
    game, state = dealt(
        [
            names("cat cat dog dog cow pig pig elephant peek peek skip"),
            names("cat cat dog dog cow cow cow pig pig skip"),
        ],
        **SPECIALS,
    )
    # player_0 claims three cows; player_1 holds three of the four.
    apply_names(game, state, ["declare cow", "add cow", "add cat", "add dog", "finish placement"])
    agent = make_agent("believe_it_or_not", agent_name, game, seed=0)
    assert agent.act(observation(game, state)) == DOUBT


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_turns_the_peeked_card_when_it_was_a_lie(agent_name):
    game, state = dealt(
        [
            names("cat cat dog dog cow pig pig elephant peek skip skip"),
            names("cat cat dog dog cow cow cow pig pig peek"),
        ],
        **SPECIALS,
    )
    apply_names(game, state, ["declare pig", "add pig", "add dog", "add pig", "finish placement"])
    apply_names(game, state, ["play peek", "peek at card 1", "doubt"])
    agent = make_agent("believe_it_or_not", agent_name, game, seed=0)
    assert agent.act(observation(game, state)) == TURN_CARD + 1


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_never_turns_a_card_it_peeked_true(agent_name):
    game, state = dealt(
        [
            names("cat cat dog dog cow pig pig elephant peek skip skip"),
            names("cat cat dog dog cow cow cow pig pig peek"),
        ],
        **SPECIALS,
    )
    apply_names(game, state, ["declare pig", "add pig", "add dog", "finish placement"])
    apply_names(game, state, ["play peek", "peek at card 0", "doubt"])
    for seed in range(10):
        agent = make_agent("believe_it_or_not", agent_name, game, seed=seed)
        assert agent.act(observation(game, state)) == TURN_CARD + 1


def test_honest_peeks_at_an_unsure_claim_then_doubts_the_lie_it_saw():
    game, state = dealt(
        [
            names("cat cat dog pig pig elephant skip"),
            names("cat dog dog cow cow cow peek"),
            names("cat dog cow pig pig peek skip"),
        ],
        **SPECIALS,
    )
    honest = make_agent("believe_it_or_not", "honest", game, seed=0)
    # One pig claimed; player_1 holds none and sees none: likely, not sure.
    apply_names(game, state, ["declare pig", "add cat", "finish placement"])
    assert honest.act(observation(game, state)) == PLAY_PEEK
    game.step(state, PLAY_PEEK)
    assert honest.act(observation(game, state)) == PEEK_AT  # the only card
    game.step(state, PEEK_AT)
    assert honest.act(observation(game, state)) == DOUBT  # it saw the cat


def test_spare_cards_elephant_first_then_singles_never_specials():
    game, state = dealt(
        [
            names("cat cat cat dog cow cow pig elephant peek skip skip"),
            names("cat dog dog dog cow cow pig pig pig peek"),
        ],
        **SPECIALS,
    )
    plain = plain_copy(kernel.__name__)
    starts = [game.observation_layout[name].start for name in kernel.OBSERVATION_FIELDS]
    seen = observation(game, state)["observation"].tolist()
    plan = [0] * (kernel.PLAN + 30)  # room for every spare card
    count = plain.plan_spares(seen, starts, 4, SPECIES.index("cat"), plan, 30)
    spares = [CARD_NAMES[c] for c in plan[kernel.PLAN : kernel.PLAN + count]]
    assert spares[:3] == ["elephant", "dog", "pig"] and spares[3:] == ["cow", "cow"]
    assert plain.plan_spares(seen, starts, 4, SPECIES.index("cat"), plan, 2) == 2


def test_plans_stay_legal_when_joining_mid_placement():
    game, state = dealt(
        [
            names("cat cat dog dog cow cow pig pig elephant"),
            names("cat cat dog dog cow cow pig pig"),
        ],
        **SMALL,
    )
    apply_names(game, state, ["declare pig", "add pig"])
    for name in HEURISTICS:
        agent = make_agent("believe_it_or_not", name, game, seed=0)  # no plan: joined mid-turn
        action = agent.act(observation(game, state))
        assert game.legal_mask(state, 0)[action] and ADD_CARD <= action <= FINISH


@pytest.mark.parametrize("agent_name", HEURISTICS)
@pytest.mark.parametrize("variant", ["standard", "quick"])
def test_heuristic_beats_random_clearly(agent_name, variant):
    result = play_match(
        "believe_it_or_not",
        [agent_name, "random", "random", "random"],
        200,
        seed=1,
        params={"num_players": 4, "variant": variant},
    )
    heuristic, random = result.agents[agent_name].summary(), result.agents["random"].summary()
    assert heuristic["win_rate_ci"][0] > random["win_rate_ci"][1]
    assert heuristic["mean_reward"] > random["mean_reward"] + 0.3


def test_a_draw_from_a_list_is_rng_choice():
    """The agents draw an item of a list with the kernel generator's ``integers``: what
    ``rng.choice`` gives, leaving the generator where ``rng.choice`` leaves it."""
    random = plain_copy(kernel_random.__name__)
    drawn, chosen = np.zeros(kernel_random.SIZE, np.int64), np.random.default_rng(4)
    random.seed_numpy(drawn, 4)
    for size in [1, 2, 3, 5, 8] * 200:
        values = list(range(10, 10 + size))
        assert values[random.integers(drawn, size)] == int(chosen.choice(values))
    assert kernel_random.numpy_state(drawn) == chosen.bit_generator.state
