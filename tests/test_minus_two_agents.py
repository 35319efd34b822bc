"""The Minus Two heuristics: legal at every table size, sensible in the positions they are built
for, and clearly better than random play. Positions come from fixed deals, as in the rules
tests (whose helpers are reused: ``"hand 9x2"`` is two 9 from the hand, ``?`` a leftover card)."""

from __future__ import annotations

import numpy as np
import pytest
from test_minus_two_rules import SAME, action, new_game, play

from cardzoo.agents import agent_classes, make_agent
from cardzoo.envs.minus_two.rules import MinusTwo
from cardzoo.evaluation import play_match

HEURISTICS = ["high_cards", "attacker"]


def choice(agent_name: str, game: MinusTwo, state) -> int:
    player = state.current_player
    observation = {
        "observation": game.observe(state, player),
        "action_mask": game.legal_mask(state, player),
    }
    return make_agent("minus_two", agent_name, game, seed=0).act(observation)


def test_heuristics_are_registered():
    assert list(agent_classes("minus_two")) == ["random", *HEURISTICS]


@pytest.mark.parametrize("num_players", range(2, 7))
def test_heuristics_play_only_legal_actions_at_every_table_size(num_players):
    game = MinusTwo(num_players=num_players, target_score=60)
    lineup = [HEURISTICS[seat % 2] if seat < num_players - 1 else "random" for seat in range(6)]
    agents = [make_agent("minus_two", name, game, seed=seat) for seat, name in enumerate(lineup)]
    for seed in range(3):
        state = game.new_state(np.random.default_rng(seed))
        for agent in agents:
            agent.reset()
        steps = 0
        while not state.terminal and steps < 20_000:
            player = state.current_player
            mask = game.legal_mask(state, player)
            chosen = agents[player].act(
                {"observation": game.observe(state, player), "action_mask": mask}
            )
            assert mask[chosen], f"{lineup[player]} chose illegal {game.action_name(chosen)}"
            game.apply(state, chosen)
            steps += 1
        assert state.terminal


def test_high_cards_leads_a_clear_card_and_attacker_keeps_it():
    game, state, _ = new_game({0: SAME, 1: SAME})
    assert choice("high_cards", game, state) == action("hand >>>")
    assert choice("attacker", game, state) == action("hand 10")


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_heuristics_play_the_highest_number_that_fits_with_every_copy(agent_name):
    seats = {0: "1 2 3 4 | 5 6 7 8 | 10 10 -2 -2 >>>", 1: "? ? ? ? | ? ? ? ? | 9 9 9 5 -2"}
    game, state, _ = new_game(seats, num_players=3)
    play(game, state, "hand 10")
    assert choice(agent_name, game, state) == action("hand 9x3")


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_heuristics_play_one_minus_two_when_no_number_fits_and_the_limit_stays_above_0(
    agent_name,
):
    seats = {0: "1 2 3 4 | 6 7 8 9 | 5 10 -2 -2 >>>", 1: "? ? ? ? | ? ? ? ? | 9 9 10 -2 -2"}
    game, state, _ = new_game(seats, num_players=3)
    play(game, state, "hand 5")
    assert choice(agent_name, game, state) == action("hand -2")  # limit 3: still room


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_heuristics_save_themselves_with_a_clear_card_rather_than_take_the_pile(agent_name):
    game, state, _ = new_game(
        {0: "2 3 4 5 | 6 7 8 9 | 1 10 -2 -2 -2", 1: "-2 1 2 3 | 4 5 6 7 | 8 9 10 >>> >>>"}
    )
    play(game, state, "hand 1")
    assert choice(agent_name, game, state) == action("hand >>>")


ATTACK = {
    0: "9 1 1 1 | 10 10 10 10 | >>> >>> >>> >>> >>>",
    **{p: "? ? ? ? | ? ? ? ? | 9 8 ? ? ?" for p in (1, 2, 3, 4)},
    5: "? ? ? ? | ? ? ? ? | 9 8 -2 -2 -2",
}


def test_attacker_plays_minus_two_down_to_the_lowest_limit_against_a_neighbour_near_the_end():
    game, state, _ = new_game(ATTACK, num_players=6)
    play(game, state, "hand >>>x5", "up 10x4", *["hand 9"] * 4)
    # player_0, on player_5's left, holds 4 cards: no attack yet.
    assert choice("attacker", game, state) == action("hand 9")
    play(game, state, "hand 9", "blind 0", *["hand 8"] * 4)
    # Now 3 cards: three -2 take the limit from 8 to 2 (a fourth would take the pile).
    assert state.limit == 8
    assert choice("attacker", game, state) == action("hand -2x3")
    assert choice("high_cards", game, state) == action("hand 8")


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_heuristics_break_a_repeated_position_with_a_random_legal_action(agent_name):
    game, state, _ = new_game({0: SAME, 1: SAME})
    mask = game.legal_mask(state, 0)
    observation = {"observation": game.observe(state, 0), "action_mask": mask}
    agent = make_agent("minus_two", agent_name, game, seed=0)
    usual = agent.act(observation)
    again = [agent.act(observation) for _ in range(30)]
    assert all(mask[a] for a in again) and len(set(again)) == 3  # all three legal plays
    agent.reset()
    assert agent.act(observation) == usual


@pytest.mark.parametrize("agent_name", HEURISTICS)
def test_heuristic_beats_random_clearly(agent_name):
    result = play_match("minus_two", [agent_name, "random", "random", "random"], 200, seed=3)
    record = result.agents[agent_name]
    # Random players win a quarter of 4-player games; the heuristics about 85%.
    assert record.win_rate > 0.6, result.table()
    assert np.mean(record.scores) < np.mean(result.agents["random"].scores) - 100
