"""The Nobody Wants It heuristics: legal at every table size, sensible in the positions they are
built for, and clearly better than random play."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardzoo.agents import agent_classes, make_agent
from cardzoo.envs.nobody_wants_it.rules import ON_PILE, NobodyWantsIt
from cardzoo.evaluation import play_game, play_match

LETTERS = "sphc"
PLAY = {letter: species for species, letter in enumerate(LETTERS)}
PAIR = {letter: 4 + species for species, letter in enumerate(LETTERS)}
PASS_DRAW, PIG_DRAW, PIG_TAKE = 8, 10, 11
GIVE = {letter: 12 + species for species, letter in enumerate(LETTERS)}
HEURISTICS = ["hand_shedder", "nwi_dodger"]


def decision(hands, nwi=(ON_PILE,) * 4, active=0, after=(), seat=None):
    """The observation dict of ``seat`` (default: the player to act) in a position with these
    hands (letters per seat), the current round's NWI holders, ``active`` to play, after the
    actions ``after``. Every other card is in the draw pile."""
    game = NobodyWantsIt(num_players=len(hands))
    state = game.new_state(np.random.default_rng(0))
    left = Counter(dict.fromkeys(LETTERS, 18))
    left.subtract("".join(hands))
    draw = [LETTERS.index(letter) for letter in LETTERS for _ in range(left[letter])]
    state.hands[:] = [[hand.count(letter) for letter in LETTERS] for hand in hands]
    state.hand_sizes[:] = [len(hand) for hand in hands]
    state.draw_pile[: len(draw)] = draw
    state.draw_size = len(draw)
    state.nwi_holder[0] = nwi
    state.active_player = state.current_player = active
    game.check_invariants(state)
    for action in after:
        game.step(state, action)
    player = state.current_player if seat is None else seat
    observation = {
        "observation": game.observe(state, player),
        "action_mask": game.legal_mask(state, player),
    }
    return game, observation


def act(agent_name, hands, **position) -> int:
    game, observation = decision(hands, **position)
    return make_agent("nobody_wants_it", agent_name, game, seed=0).act(observation)


def test_heuristics_are_registered():
    assert list(agent_classes("nobody_wants_it")) == ["random", *HEURISTICS]


@pytest.mark.parametrize("num_players", range(2, 8))
def test_heuristics_play_only_legal_actions_at_every_table_size(num_players):
    game = NobodyWantsIt(num_players=num_players)
    lineup = (HEURISTICS * num_players)[:num_players]
    agents = [make_agent("nobody_wants_it", name, game, seed=i) for i, name in enumerate(lineup)]
    for seed in range(2):
        record = play_game(game, agents, seed)  # game.step raises on an illegal action
        assert not record.truncated and record.winners.any()


# --- hand_shedder -------------------------------------------------------------------------------


def test_hand_shedder_plays_a_pair_first():
    assert act("hand_shedder", ["sppch", "sss"]) == PAIR["p"]


def test_hand_shedder_single_keeps_its_pairs_and_sheds_a_pig_before_a_sheep():
    assert act("hand_shedder", ["spc", "sss"]) == PLAY["p"]


def test_hand_shedder_plays_a_cow_rather_than_pass():
    assert act("hand_shedder", ["c", "sss"]) == PLAY["c"]


def test_hand_shedder_takes_the_pig_only_to_complete_a_pair():
    assert act("hand_shedder", ["ps", "pss"], after=[PLAY["p"]]) == PIG_TAKE
    assert act("hand_shedder", ["ps", "ppss"], after=[PLAY["p"]]) == PIG_DRAW


def test_hand_shedder_gives_away_a_card_without_a_partner_cows_first():
    assert act("hand_shedder", ["hssc", "ss"], after=[PLAY["h"]]) == GIVE["c"]
    assert act("hand_shedder", ["hsssh", "ss"], after=[PLAY["h"]]) == GIVE["s"]


# --- nwi_dodger ---------------------------------------------------------------------------------


def test_nwi_dodger_does_not_pull_an_nwi_card_onto_itself():
    # The sheep NWI card is held by player_3, on player_0's right: a sheep pair would bring it
    # to player_0. The cow pair sends the cow card away instead.
    hands = ["ssccph", "sss", "ppp", "hhh"]
    assert act("nwi_dodger", hands, nwi=(3, ON_PILE, ON_PILE, ON_PILE)) == PAIR["c"]
    assert act("hand_shedder", hands, nwi=(3, ON_PILE, ON_PILE, ON_PILE)) == PAIR["s"]


def test_nwi_dodger_passes_on_an_nwi_card_it_holds():
    hands = ["sshhhp", "sss", "ppp", "ccc"]
    assert act("nwi_dodger", hands, nwi=(0, ON_PILE, ON_PILE, ON_PILE)) == PAIR["s"]
    assert act("nwi_dodger", hands, nwi=(ON_PILE, ON_PILE, 0, ON_PILE)) == PAIR["h"]


def test_nwi_dodger_closes_the_round_when_it_can():
    # Even with the NWI card coming to it: closing saves the penalty card.
    assert act("nwi_dodger", ["ss", "sss", "ppp"], nwi=(2, ON_PILE, ON_PILE, ON_PILE)) == PAIR["s"]
    assert act("nwi_dodger", ["h", "sss", "ppp"]) == PLAY["h"]


def test_nwi_dodger_saves_its_pig_for_a_neighbour_about_to_go_out():
    assert act("nwi_dodger", ["pshc", "ssssss", "ppp"]) != PLAY["p"]
    assert act("nwi_dodger", ["pshc", "ss", "ppp"]) == PLAY["p"]


def test_nwi_dodger_never_feeds_its_left_neighbour_a_pig_in_a_horse_exchange():
    assert act("nwi_dodger", ["hpps", "ss"], after=[PLAY["h"]]) == GIVE["s"]
    assert act("nwi_dodger", ["hpc", "ss"], after=[PLAY["h"]]) == GIVE["c"]
    assert act("nwi_dodger", ["hpp", "ss"], after=[PLAY["h"]]) == GIVE["p"]  # nothing else


def test_nwi_dodger_takes_the_pig_only_to_complete_a_pair():
    assert act("nwi_dodger", ["ps", "pss"], after=[PLAY["p"]]) == PIG_TAKE
    assert act("nwi_dodger", ["ps", "ss"], after=[PLAY["p"]]) == PIG_DRAW


def test_nwi_dodger_still_prefers_a_pair_coming_back_to_it_over_a_single():
    assert (
        act("nwi_dodger", ["sshc", "sss", "ppp", "hhh"], nwi=(3, ON_PILE, ON_PILE, ON_PILE))
        == (PAIR["s"])
    )


# --- strength -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_clearly_beats_random(name):
    result = play_match("nobody_wants_it", [name, "random", "random", "random"], 200, seed=1)
    heuristic, random = result.agents[name].summary(), result.agents["random"].summary()
    assert heuristic["win_rate_ci"][0] > random["win_rate_ci"][1] + 0.2
    assert heuristic["mean_score_ci"][1] < random["mean_score_ci"][0]


def test_same_seed_same_agent_game():
    game = NobodyWantsIt(num_players=3)
    agents = [make_agent("nobody_wants_it", name, game) for name in [*HEURISTICS, "random"]]
    agents[2] = make_agent("nobody_wants_it", "random", game, seed=3)
    first = play_game(game, agents, seed=4)
    agents[2] = make_agent("nobody_wants_it", "random", game, seed=3)
    second = play_game(game, agents, seed=4)
    assert first.length == second.length and (first.scores == second.scores).all()
