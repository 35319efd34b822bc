"""Foxy rules, one test per rule and Decision of shared/rules/foxy.md (and of the engine's
docstring), on fixed stacks given with ``reset(options={"stack": ...})``; then the AEC and the
parallel environments."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from cardzoo.envs import foxy_v0
from cardzoo.envs.foxy.rules import (
    CARD_SPECIES,
    DECK,
    FOXY,
    KIND_COPIES,
    MAX_SPECIES_COUNT,
    SPECIES,
    Foxy,
    card_name,
    true_answers,
)

# A stack with its true answers worked out by hand (card 4 is the rules' example: pig+cat after
# 3 pigs and 2 cats, this card included -> 5).
STACK = [
    ["pig"],  # 1: pig 1                                  -> 1
    ["cat"],  # 2: cat 1                                  -> 1
    ["rooster", "pig"],  # 3: rooster 1 + pig 2           -> 3
    ["pig", "cat"],  # 4: pig 3 + cat 2                   -> 5
    ["pig", "cat"],  # 5: pig 4 + cat 3                   -> 7
    "foxy",  # 6: pig, cat, rooster                       -> 3
    ["hare"],  # 7: hare 1                                -> 1
    ["zebra", "giraffe", "cat"],  # 8: 1 + 1 + cat 4      -> 6
    ["octopus", "cat"],  # 9: 1 + cat 5                   -> 6
    ["dolphin"],  # 10: dolphin 1                         -> 1
    ["bear", "cat"],  # 11: 1 + cat 6                     -> 7
    ["rooster", "pig", "cat"],  # 12: 2 + 5 + cat 7       -> 14
    ["hare", "bear"],  # 13: 2 + 2                        -> 4
    ["cat"],  # 14: cat 8                                 -> 8
    ["giraffe"],  # 15: giraffe 2                         -> 2
    ["zebra", "cat"],  # 16: 2 + cat 9                    -> 11
    ["octopus", "dolphin"],  # 17: 2 + 2                  -> 4
    ["rooster", "cat"],  # 18: 3 + cat 10                 -> 13
    ["pig"],  # 19: pig 6                                 -> 6
    ["dolphin", "cat"],  # 20: 3 + cat 11                 -> 14
]
ANSWERS = [1, 1, 3, 5, 7, 3, 1, 6, 6, 1, 7, 14, 4, 8, 2, 11, 4, 13, 6, 14]
BEST_UNCIRCLED = sum(ANSWERS)  # 117

# Differs from STACK at every place but the 10th (dolphin).
OTHER_STACK = [
    ["hare"],
    ["bear"],
    ["zebra"],
    ["giraffe"],
    ["octopus"],
    ["octopus", "cat"],
    "foxy",
    ["cat"],
    ["rooster"],
    ["dolphin"],
    ["rooster", "cat"],
    ["hare", "cat"],
    ["zebra", "giraffe"],
    ["bear", "cat"],
    ["pig", "cat"],
    ["giraffe", "cat"],
    ["cat"],
    ["hare", "bear", "cat"],
    ["zebra", "cat"],
    ["octopus", "dolphin", "cat"],
]

G = 40  # the default max_guess
CIRCLE = G + 1  # action offset of a circled number


def new_env(stack=STACK, **params) -> foxy_v0.raw_env:
    env = foxy_v0.raw_env(**params)
    env.reset(seed=0, options={"stack": stack})
    return env


def play(env, sheets, circles=None):
    """Every player writes their row of ``sheets`` (circling at ``circles[player]``); returns
    the rewards of every step, in order."""
    circles = circles or {}
    step_rewards = []
    for card in range(20):
        for player, sheet in enumerate(sheets):
            assert env.agent_selection == f"player_{player}"
            circled = circles.get(player) == card
            env.step(sheet[card] + (CIRCLE if circled else 0))
            step_rewards.append(dict(env.rewards))
    return step_rewards


def fields(env, agent):
    return env.describe_observation(env.observe(agent))


def card_of(observation_card):
    shown = [SPECIES[s] for s in np.flatnonzero(observation_card[:9])]
    return "foxy" if observation_card[9] else shown


# --- components -----------------------------------------------------------------------------


def test_nine_species_in_the_rules_order():
    assert SPECIES == (
        "rooster",
        "pig",
        "hare",
        "bear",
        "zebra",
        "giraffe",
        "octopus",
        "dolphin",
        "cat",
    )


def test_deck_48_animal_cards_12_per_landscape_as_decided():
    assert len(DECK) == 48
    shown = CARD_SPECIES[DECK]
    for landscape in range(4):
        a, b = 2 * landscape, 2 * landscape + 1
        on_landscape = shown[:, [a, b]].any(axis=1)
        cards = shown[on_landscape]
        # the landscape cards plus its own cat-only card make 12
        assert len(cards) + 1 == 12
        kinds = sorted(tuple(int(v) for v in card[[a, b, 8]]) for card in cards)
        assert kinds == sorted(
            [(1, 0, 0)] * 2
            + [(0, 1, 0)] * 2
            + [(1, 1, 0)] * 2
            + [(1, 0, 1)] * 2
            + [(0, 1, 1)] * 2
            + [(1, 1, 1)]
        )
    # every landscape species is on 7 cards; the cat on 6 per landscape
    assert shown.sum(axis=0).tolist() == [7] * 8 + [24]


def test_cat_only_cards_are_one_kind_with_four_copies():
    cat_only = [k for k in range(FOXY) if CARD_SPECIES[k].tolist() == [0] * 8 + [1]]
    assert len(cat_only) == 1
    assert KIND_COPIES[cat_only[0]] == 4
    assert KIND_COPIES[FOXY] == 1


# --- setup ----------------------------------------------------------------------------------


def test_random_stack_is_19_animal_cards_plus_foxy():
    game = Foxy()
    for seed in range(50):
        state = game.new_state(np.random.default_rng(seed))
        game.check_invariants(state)
        kinds = np.bincount(state.stack, minlength=FOXY + 1)
        assert kinds[FOXY] == 1 and kinds.sum() == 20
        assert (kinds <= KIND_COPIES).all()


def test_random_stack_foxy_anywhere_and_cards_drawn_evenly():
    game = Foxy()
    rng = np.random.default_rng(0)
    stacks = np.array([game.new_state(rng).stack for _ in range(4000)])
    foxy_places = np.bincount(np.flatnonzero(stacks == FOXY) % 20, minlength=20)
    assert foxy_places.min() > 140 and foxy_places.max() < 270  # 200 expected at each place
    cats_alone = (CARD_SPECIES[stacks].sum(axis=2) == 1) & (CARD_SPECIES[stacks][:, :, 8] == 1)
    assert cats_alone.sum(axis=1).mean() == pytest.approx(4 * 19 / 48, abs=0.06)


def test_stack_option_fixes_the_stack_first_card_first():
    env = new_env()
    assert env.game.stack_names(env.state_)[:6] == [
        "pig",
        "cat",
        "rooster+pig",
        "pig+cat",
        "pig+cat",
        "FOXY",
    ]
    assert card_of(fields(env, "player_0")["card"]) == ["pig"]


def test_stack_option_species_order_does_not_matter():
    reordered = [card[::-1] if isinstance(card, list) else card for card in STACK]
    assert np.array_equal(new_env(reordered).state_.stack, new_env().state_.stack)


@pytest.mark.parametrize(
    "stack, message",
    [
        (STACK[:19], "20 cards"),
        ("foxy", "list of 20"),
        ([["pig"]] + STACK[1:5] + [["pig", "cat"]] + STACK[6:], '"foxy" exactly once'),
        (STACK[:6] + ["foxy"] + STACK[7:], '"foxy" exactly once'),
        (STACK[:-1] + [["pig", "hare"]], "not in the deck"),
        (STACK[:-1] + [["cat", "cat"]], "not in the deck"),
        (STACK[:-1] + [["lion"]], "unknown species"),
        (STACK[:-1] + ["pig"], "list of species names"),
        (STACK[:-1] + [["pig", "cat"]], "deck has 2"),
        (STACK[:-1] + [["rooster", "pig", "cat"]], "deck has 1"),
    ],
)
def test_bad_stack_option_is_a_value_error(stack, message):
    env = foxy_v0.raw_env()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"stack": stack})


# --- phase 1: the true answers --------------------------------------------------------------


def test_true_answer_of_animal_card_sums_the_species_on_it_this_card_included():
    env = new_env()
    assert env.state_.answers.tolist() == ANSWERS
    assert env.state_.answers[3] == 5  # the rules' example


def test_true_answer_counts_only_the_species_on_this_card():
    # card 7 (hare) comes after pigs, cats and a rooster: only the hare counts
    assert new_env().state_.answers[6] == 1


def test_true_answer_of_foxy_is_the_number_of_distinct_species_cat_included():
    assert new_env().state_.answers[5] == 3  # pig, cat, rooster
    late_foxy = STACK[:5] + STACK[6:] + ["foxy"]  # the 20th card
    # all nine species have appeared by then
    assert new_env(late_foxy).state_.answers[19] == 9


def test_true_answer_of_foxy_first_is_zero():
    stack = ["foxy"] + STACK[:5] + STACK[6:]
    assert new_env(stack).state_.answers[0] == 0


def test_foxy_card_counts_for_no_species():
    env = new_env(memory="perfect")
    counts = env.state_.counts
    assert np.array_equal(counts[5], counts[4])  # the Foxy card adds nothing


def test_largest_true_answer_is_27_and_fits_the_default_max_guess():
    # all 12 farm cards, then 7 cats from the other landscapes, rooster+pig+cat last
    farm = [["rooster"]] * 2 + [["pig"]] * 2 + [["rooster", "pig"]] * 2
    farm += [["rooster", "cat"]] * 2 + [["pig", "cat"]] * 2 + [["cat"]]
    others = [["hare", "cat"]] * 2 + [["bear", "cat"]] * 2 + [["zebra", "cat"]] * 2 + [["cat"]]
    stack = ["foxy"] + farm + others + [["rooster", "pig", "cat"]]
    state = new_env(stack).state_
    assert state.answers[19] == 27 == state.answers.max()
    assert Foxy().max_guess >= 27


# --- phase 2: scoring -----------------------------------------------------------------------


def test_number_not_circled_scores_itself_if_at_most_the_answer():
    env = new_env(num_players=1)
    sheet = list(ANSWERS)
    sheet[11] = 10  # below the answer 14: scores 10
    play(env, [sheet])
    assert env.game.points(env.state_)[0, 11] == 10
    assert env.game.scores(env.state_)[0] == BEST_UNCIRCLED - 4


def test_number_not_circled_above_the_answer_scores_zero():
    env = new_env(num_players=1)
    sheet = list(ANSWERS)
    sheet[11] = 15
    play(env, [sheet])
    assert env.game.points(env.state_)[0, 11] == 0
    assert env.game.scores(env.state_)[0] == BEST_UNCIRCLED - 14


def test_circled_exact_number_scores_twice():
    env = new_env(num_players=2)
    play(env, [ANSWERS, ANSWERS], circles={0: 11})
    assert env.game.points(env.state_)[0, 11] == 28
    assert env.game.scores(env.state_).tolist() == [BEST_UNCIRCLED + 14, BEST_UNCIRCLED]


@pytest.mark.parametrize("written", [13, 15])
def test_circled_number_not_exact_scores_zero(written):
    env = new_env(num_players=2)
    sheet = list(ANSWERS)
    sheet[11] = written
    play(env, [sheet, ANSWERS], circles={0: 11})
    assert env.game.points(env.state_)[0, 11] == 0
    assert env.game.scores(env.state_)[0] == BEST_UNCIRCLED - 14


def test_circle_once_per_game():
    env = new_env(num_players=2)
    assert env.observe("player_0")["action_mask"].all()
    env.step(1 + CIRCLE)  # player_0 circles on card 1
    env.step(1)
    mask = env.observe("player_0")["action_mask"]
    assert mask[: G + 1].all() and not mask[G + 1 :].any()
    with pytest.raises(ValueError, match="player_0.*illegal.*legal actions"):
        env.step(3 + CIRCLE)
    env.step(3)
    assert env.observe("player_1")["action_mask"].all()  # player_1's circle is still free


def test_circled_zero_is_legal_and_scores_zero():
    env = new_env(num_players=2)
    env.step(0 + CIRCLE)
    assert env.state_.circled[0] == 0 and env.state_.sheets[0, 0] == 0
    assert env.game.points(env.state_)[0, 0] == 0


def test_highest_total_wins_plus_one_others_minus_one():
    env = new_env(num_players=3)
    low = [max(a - 1, 0) for a in ANSWERS]
    rewards = play(env, [low, ANSWERS, low])
    assert rewards[-1] == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0}
    assert env.game.winners(env.state_).tolist() == [False, True, False]


def test_players_tied_for_highest_all_win():
    env = new_env(num_players=3)
    low = [max(a - 1, 0) for a in ANSWERS]
    rewards = play(env, [ANSWERS, low, ANSWERS])
    assert rewards[-1] == {"player_0": 1.0, "player_1": -1.0, "player_2": 1.0}


def test_everybody_tied_everybody_wins():
    env = new_env(num_players=2)
    rewards = play(env, [[0] * 20, [0] * 20])
    assert rewards[-1] == {"player_0": 1.0, "player_1": 1.0}


def test_points_reward_is_each_players_total():
    env = new_env(num_players=2, reward="points")
    low = [max(a - 1, 0) for a in ANSWERS]
    rewards = play(env, [ANSWERS, low], circles={0: 11})
    assert rewards[-1] == {"player_0": 131.0, "player_1": float(sum(low))}


@pytest.mark.parametrize("reward", ["win", "points"])
def test_rewards_only_when_the_game_ends(reward):
    env = new_env(num_players=2, reward=reward)
    rewards = play(env, [ANSWERS, [50 - G] * 20])  # the second sheet: 10 everywhere
    assert all(r == {"player_0": 0.0, "player_1": 0.0} for r in rewards[:-1])
    assert rewards[-1]["player_0"] > 0


def test_scores_during_the_game_count_the_numbers_written_so_far():
    env = new_env(num_players=2)
    for card in range(3):
        env.step(ANSWERS[card])
        env.step(9)
    assert env.game.scores(env.state_).tolist() == [1 + 1 + 3, 0]


# --- solo -----------------------------------------------------------------------------------


def test_solo_cannot_circle():
    env = new_env(num_players=1)
    mask = env.observe("player_0")["action_mask"]
    assert mask[: G + 1].all() and not mask[G + 1 :].any()
    with pytest.raises(ValueError, match="illegal"):
        env.step(1 + CIRCLE)


def test_solo_wins_less_than_5_points_below_the_best_possible():
    env = new_env(num_players=1)
    sheet = list(ANSWERS)
    sheet[11] -= 4  # 113 of 117
    rewards = play(env, [sheet])
    assert rewards[-1] == {"player_0": 1.0}
    assert env.game.best_possible_score(env.state_) == BEST_UNCIRCLED


def test_solo_loses_5_points_below_the_best_possible():
    env = new_env(num_players=1)
    sheet = list(ANSWERS)
    sheet[11] -= 5  # 112 of 117
    rewards = play(env, [sheet])
    assert rewards[-1] == {"player_0": -1.0}
    assert not env.game.winners(env.state_)[0]


def test_solo_points_reward_is_the_total():
    env = new_env(num_players=1, reward="points")
    rewards = play(env, [ANSWERS])
    assert rewards[-1] == {"player_0": float(BEST_UNCIRCLED)}


def test_best_possible_score_caps_answers_at_max_guess():
    env = new_env(num_players=1, max_guess=10)
    capped = [min(a, 10) for a in ANSWERS]
    assert env.game.best_possible_score(env.state_) == sum(capped)
    rewards = play(env, [capped])
    assert rewards[-1] == {"player_0": 1.0}
    two = new_env(num_players=2, max_guess=10)
    assert two.game.best_possible_score(two.state_) == sum(capped) + 8  # 8: largest answer <= 10


def test_best_possible_score_with_circle_doubles_the_largest_answer():
    env = new_env(num_players=2)
    assert env.game.best_possible_score(env.state_) == BEST_UNCIRCLED + 14


# --- the reinforcement-learning interface ---------------------------------------------------


def test_players_write_in_seat_order_on_every_card():
    env = new_env(num_players=3)
    order = []
    for _ in range(9):
        order.append(env.agent_selection)
        env.step(0)
    assert order == ["player_0", "player_1", "player_2"] * 3
    assert env.state_.turned == 4


def test_game_ends_after_the_last_player_writes_on_the_20th_card():
    for n in range(1, 6):
        env = new_env(num_players=n)
        for _ in range(20 * n - 1):
            env.step(0)
        assert not any(env.terminations.values())
        env.step(0)
        assert all(env.terminations.values())


def test_action_table_write_and_circle():
    game = Foxy(max_guess=G)
    assert game.num_actions == 2 * (G + 1)
    assert game.action_name(7) == "write 7"
    assert game.action_name(7 + CIRCLE) == "write 7 circled"
    assert game.action_for(7, circle=True) == 7 + CIRCLE
    env = new_env(num_players=2)
    env.step(4 + CIRCLE)
    env.step(40)
    assert env.state_.sheets[:, 0].tolist() == [4, 40]
    assert env.state_.circled.tolist() == [0, -1]


def test_action_numbers_name_the_number_each_action_writes_and_whether_circled():
    numbers, kinds = Foxy(max_guess=20).action_numbers()
    assert numbers.tolist() == [*range(21), *range(21)]
    assert kinds.tolist() == [0] * 21 + [1] * 21


def test_max_guess_sets_the_action_space():
    env = foxy_v0.raw_env(max_guess=20)
    assert env.action_space("player_0").n == 42
    assert env.observation_space("player_0")["observation"].high[
        env.observation_layout["sheet"]
    ].max() == pytest.approx(20)


def test_observation_card_field_shows_the_species_or_foxy():
    env = new_env(num_players=1)
    seen = []
    for _ in range(20):
        seen.append(card_of(fields(env, "player_0")["card"]))
        env.step(0)
    assert seen == [card if card == "foxy" else sorted(card, key=SPECIES.index) for card in STACK]


def test_observation_own_sheet_written_and_circled():
    env = new_env(num_players=2)
    env.step(3)
    env.step(0)
    env.step(2 + CIRCLE)
    f = fields(env, "player_0")
    assert f["cards_turned"][0] == 2
    assert f["sheet"][:3].tolist() == [3, 2, 0]
    assert f["written"][:3].tolist() == [1, 1, 0]
    assert f["circled"].tolist() == [0, 1] + [0] * 18
    assert fields(env, "player_1")["written"][:3].tolist() == [1, 0, 0]


def test_observation_never_shows_another_players_number_for_the_same_card():
    observations = []
    for first_action in (0, 27, 5 + CIRCLE):
        env = new_env(num_players=3)
        env.step(first_action)
        observations.append([env.observe(a)["observation"] for a in ("player_1", "player_2")])
    for other in observations[1:]:
        for seen, seen_other in zip(observations[0], other):
            np.testing.assert_array_equal(seen, seen_other)


def test_observation_holds_no_earlier_card_without_memory():
    """Change every card but the current one (earlier and later): nothing observed changes."""
    seen = {}
    for name, stack in (("stack", STACK), ("other", OTHER_STACK)):
        for memory in ("none", "perfect"):
            env = new_env(stack, num_players=2, memory=memory)
            for card in range(9):
                env.step(card % 3)
                env.step(card + CIRCLE if card == 4 else 1)
            seen[name, memory] = [env.observe(a)["observation"] for a in env.agents]
            env.step(1)  # player_0 writes on card 10: player_1 still sees the same
            seen[name, memory].append(env.observe("player_1")["observation"])
    for mine, other in zip(seen["stack", "none"], seen["other", "none"]):
        np.testing.assert_array_equal(mine, other)
    # the same experiment shows the difference when memory is perfect (the test can fail)
    assert not np.array_equal(seen["stack", "perfect"][0], seen["other", "perfect"][0])


def test_perfect_memory_observation_counts_every_species_so_far():
    env = new_env(num_players=1, memory="perfect")
    for _ in range(11):
        env.step(0)
    f = fields(env, "player_0")
    assert card_of(f["card"]) == ["rooster", "pig", "cat"]  # card 12
    expected = dict(rooster=2, pig=5, hare=1, bear=1, zebra=1, giraffe=1, octopus=1, dolphin=1)
    expected["cat"] = 7
    assert f["species_counts"].tolist() == [expected[s] for s in SPECIES]


def test_perfect_memory_adds_only_the_species_counts_field():
    plain = foxy_v0.raw_env(memory="none").observation_layout
    perfect = foxy_v0.raw_env(memory="perfect").observation_layout
    assert list(plain) == ["card", "cards_turned", "sheet", "written", "circled"]
    assert list(perfect) == [*plain, "species_counts"]
    assert perfect["species_counts"].stop - perfect["species_counts"].start == 9
    high = foxy_v0.raw_env(memory="perfect").observation_space("player_0")["observation"].high
    assert high[perfect["species_counts"]].tolist() == MAX_SPECIES_COUNT.tolist()
    assert MAX_SPECIES_COUNT.tolist() == [7] * 8 + [19]


def test_observation_at_the_end_reveals_nothing_about_others():
    finals = []
    for other_sheet in ([0] * 20, ANSWERS):
        env = new_env(num_players=2)
        play(env, [ANSWERS, other_sheet])
        finals.append(env.observe("player_0")["observation"])
    np.testing.assert_array_equal(*finals)


def test_illegal_action_raw_env_raises_naming_agent_action_and_legal_ones():
    env = new_env(num_players=1)
    with pytest.raises(ValueError, match=r"action 45 of player_0 is illegal .*legal actions: 0"):
        env.step(45)


def test_illegal_action_wrapped_env_ends_the_game_minus_one_for_the_offender():
    env = foxy_v0.env(num_players=2)
    env.reset(seed=0, options={"stack": STACK})
    env.step(3 + CIRCLE)
    env.step(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns about the illegal move
        env.step(5 + CIRCLE)  # player_0 circles a second time
    _, reward, terminated, _, _ = env.last()
    assert terminated
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}


@pytest.mark.parametrize(
    "params, name",
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"memory": "partial"}, "memory"),
        ({"reward": "score"}, "reward"),
        ({"max_guess": 0}, "max_guess"),
        ({"max_guess": 1001}, "max_guess"),
        ({"max_guess": 4.5}, "max_guess"),
    ],
)
def test_bad_parameters_name_the_parameter(params, name):
    with pytest.raises(ValueError, match=name):
        foxy_v0.raw_env(**params)
    with pytest.raises(ValueError, match=name):
        foxy_v0.parallel_env(**params)


def test_snapshot_of_a_just_finished_game_keeps_its_rewards():
    env = new_env(num_players=1)
    play(env, [ANSWERS])
    restored = foxy_v0.raw_env(num_players=1)
    restored.restore(env.snapshot())
    assert restored.rewards == env.rewards == {"player_0": 1.0}
    assert restored.terminations == {"player_0": True}


# --- rendering ------------------------------------------------------------------------------


def test_render_shows_the_card_just_turned():
    env = foxy_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(options={"stack": STACK})
    for _ in range(6):
        env.step(1)
    text = env.render()
    assert text.splitlines()[0] == "Foxy, 2 players: card 4 of 20: pig+cat"
    assert "player_0: to write (to act)" in text and "player_1: to write (to act)" in text
    assert "sheet" not in text  # nobody's numbers in the table view
    env.step(2)  # player_0 has written for card 4: player_1 is still to write
    assert "player_0: written\n  player_1: to write (to act)" in env.render()


def test_decision_everyone_writes_at_once_so_the_parallel_form_shows_every_writer_to_act():
    """Decision: Foxy's players write at the same time (the AEC form asks them in turn), so the
    table marks every player who has not written for the card as to act, in both forms; the
    parallel form showed player_0 alone."""
    parallel = foxy_v0.parallel_env(num_players=3, render_mode="ansi")
    parallel.reset(seed=0)
    parallel.step({agent: 2 for agent in parallel.agents})
    text = parallel.render_seat("player_2", mode="ansi")
    assert [line.strip() for line in text.splitlines()[1:4]] == [
        f"player_{seat}: to write (to act)" for seat in range(3)
    ]
    from cardzoo.envs.foxy.picture import status

    assert status(parallel.game, parallel.state_) == "everyone to write a number for card 2"


def test_render_from_a_seat_shows_only_that_sheet():
    env = new_env(num_players=2)
    env.step(3 + CIRCLE)
    env.step(7)
    env.step(1)
    text = env.game.render(env.state_, player=0)
    assert "sheet of player_0: (3) 1" in text
    assert "7" not in text.split("sheet of player_0")[1]


def test_render_at_the_end_shows_the_sheets_with_their_checks():
    env = foxy_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(options={"stack": STACK})
    low = list(ANSWERS)
    low[0] = 3  # too high: struck out
    play(env, [ANSWERS, low], circles={0: 11})
    lines = env.render().splitlines()
    assert lines[0].startswith("Foxy: game over")
    assert lines[2].split() == ["1", "pig", "1", "1", "+1", "3", "x"]
    assert lines[13].split() == ["12", "rooster+pig+cat", "14", "(14)", "+28", "14", "+14"]
    assert lines[-3].split() == ["total", "131", "116"]
    assert lines[-1] == "winner: player_0"


def test_render_solo_end_tells_win_or_loss():
    env = foxy_v0.raw_env(num_players=1, render_mode="ansi")
    env.reset(options={"stack": STACK})
    play(env, [ANSWERS])
    assert env.render().splitlines()[-1] == "best possible 117; a total above 112 wins: won"


# --- the parallel environment ---------------------------------------------------------------


@pytest.mark.parametrize("num_players", range(1, 6))
@pytest.mark.parametrize("memory", ["none", "perfect"])
@pytest.mark.parametrize("reward", ["win", "points"])
def test_parallel_env_passes_pettingzoo_parallel_api_test(num_players, memory, reward):
    env = foxy_v0.parallel_env(num_players=num_players, memory=memory, reward=reward)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the test's own reset option {"options": 1}
        parallel_api_test(env, num_cycles=100)


def test_parallel_env_every_player_acts_on_every_card():
    env = foxy_v0.parallel_env(num_players=3)
    observations, infos = env.reset(seed=0, options={"stack": STACK})
    assert set(observations) == set(infos) == {"player_0", "player_1", "player_2"}
    for card in range(20):
        actions = {agent: ANSWERS[card] for agent in env.agents}
        observations, rewards, terminations, truncations, _ = env.step(actions)
    assert env.agents == []
    assert all(terminations.values()) and not any(truncations.values())
    assert rewards == {"player_0": 1.0, "player_1": 1.0, "player_2": 1.0}
    assert env.state_.sheets.tolist() == [ANSWERS] * 3


def test_parallel_env_plays_the_same_game_as_the_aec_env():
    parallel = foxy_v0.parallel_env(num_players=2, reward="points")
    aec = foxy_v0.raw_env(num_players=2, reward="points")
    parallel_obs, _ = parallel.reset(seed=42)
    aec.reset(seed=42)
    assert np.array_equal(parallel.state_.stack, aec.state_.stack)
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = {}
        for agent in aec.agents:
            observation = aec.observe(agent)
            np.testing.assert_array_equal(
                observation["observation"], parallel_obs[agent]["observation"]
            )
            np.testing.assert_array_equal(
                observation["action_mask"], parallel_obs[agent]["action_mask"]
            )
            actions[agent] = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            aec.step(actions[agent])
        parallel_obs, rewards, _, _, _ = parallel.step(actions)
    assert rewards == {agent: aec._cumulative_rewards[agent] for agent in rewards}
    np.testing.assert_array_equal(aec.state_.sheets, parallel.state_.sheets)
    np.testing.assert_array_equal(aec.state_.circled, parallel.state_.circled)


def test_parallel_env_illegal_action_raise_mode_rejects_it_before_applying_any():
    env = foxy_v0.parallel_env(num_players=2, illegal_action="raise")
    env.reset(seed=0, options={"stack": STACK})
    env.step({"player_0": 1 + CIRCLE, "player_1": 1})
    with pytest.raises(ValueError, match=r"player_0 is illegal; legal actions: 0\.\.40"):
        env.step({"player_0": 2 + CIRCLE, "player_1": 2})
    assert env.state_.turned == 2 and not env.state_.sheets[:, 1].any()
    assert env.agents == ["player_0", "player_1"]


def test_parallel_env_malformed_actions_are_value_errors_in_every_mode():
    env = foxy_v0.parallel_env(num_players=2)
    env.reset(seed=0, options={"stack": STACK})
    with pytest.raises(ValueError, match="one action for each"):
        env.step({"player_1": 2})
    with pytest.raises(ValueError, match="one action for each"):
        env.step([1, 2])
    with pytest.raises(ValueError, match="must be an integer"):
        env.step({"player_0": 1.5, "player_1": 2})
    with pytest.raises(ValueError, match="must be an integer"):
        env.step({"player_0": True, "player_1": 2})
    with pytest.raises(ValueError, match=r"out of range \(0\.\.81\)"):
        env.step({"player_0": 82, "player_1": 2})
    assert env.state_.turned == 1 and not env.state_.sheets.any()


def test_parallel_env_illegal_action_ends_the_game_minus_one_for_the_offender():
    env = foxy_v0.parallel_env(num_players=3)
    env.reset(seed=0, options={"stack": STACK})
    env.step({"player_0": 1 + CIRCLE, "player_1": 1, "player_2": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns about the illegal move
        observations, rewards, terminations, truncations, infos = env.step(
            {"player_0": 1 + CIRCLE, "player_1": 1, "player_2": 1}  # player_0's second circle
        )
    assert rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(terminations.values()) and all(truncations.values())  # TerminateIllegalWrapper
    assert env.agents == [] and env.illegal_action_by == ["player_0"]
    assert [info.get("illegal_action", False) for info in infos.values()] == [True, False, False]
    assert not env.state_.sheets[:, 1].any()  # nothing of the illegal step was applied
    assert all(not obs["action_mask"].any() for obs in observations.values())


def test_parallel_env_every_simultaneous_offender_gets_minus_one():
    env = foxy_v0.parallel_env(num_players=3)
    env.reset(seed=0, options={"stack": STACK})
    env.step({"player_0": 1 + CIRCLE, "player_1": 1, "player_2": 1 + CIRCLE})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, rewards, _, _, _ = env.step(dict.fromkeys(env.agents, 1 + CIRCLE))
    assert rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": -1.0}
    assert env.illegal_action_by == ["player_0", "player_2"]


def test_parallel_env_illegal_action_mode_must_be_known():
    with pytest.raises(ValueError, match=r"illegal_action='ignore' is not allowed"):
        foxy_v0.parallel_env(illegal_action="ignore")


def test_parallel_env_infos_carry_the_action_mask_on_reset_and_every_step():
    env = foxy_v0.parallel_env(num_players=2, max_guess=3)
    observations, infos = env.reset(seed=0, options={"stack": STACK})
    assert infos["player_0"]["action_mask"].tolist() == [1] * 8
    for card in range(20):
        actions = {"player_0": 1, "player_1": 4 if card == 0 else 1}  # player_1 circles a 0
        observations, _, _, _, infos = env.step(actions)
        for agent in ("player_0", "player_1"):
            np.testing.assert_array_equal(
                infos[agent]["action_mask"], observations[agent]["action_mask"]
            )
        if card == 0:
            assert infos["player_0"]["action_mask"].tolist() == [1] * 8
            assert infos["player_1"]["action_mask"].tolist() == [1] * 4 + [0] * 4
    assert env.agents == []
    assert not infos["player_0"]["action_mask"].any()  # the game is over


def test_parallel_env_step_before_reset_says_call_reset_first():
    env = foxy_v0.parallel_env()
    with pytest.raises(RuntimeError, match=r"before reset\(\); call reset\(\) first"):
        env.step({"player_0": 0, "player_1": 0})


def test_parallel_env_step_after_the_end_says_the_game_is_over():
    env = foxy_v0.parallel_env(num_players=2, max_cycles=1)
    env.reset(seed=0)
    env.step({"player_0": 0, "player_1": 0})
    with pytest.raises(RuntimeError, match=r"the game is over; call reset\(\)"):
        env.step({})


@pytest.mark.parametrize("seed", [True, -1, 1.5, "3", [1, 2]])
def test_parallel_env_bad_seed_is_a_value_error_naming_seed(seed):
    env = foxy_v0.parallel_env()
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0"):
        env.reset(seed=seed)
    assert env.state_ is None and env.agents == []


def test_parallel_env_rejected_reset_leaves_game_and_generator_as_they_were():
    env, reference = foxy_v0.parallel_env(), foxy_v0.parallel_env()
    env.reset(seed=8)
    reference.reset(seed=8)
    env.step({"player_0": 1, "player_1": 1})
    with pytest.raises(ValueError, match="stack option"):
        env.reset(options={"stack": STACK[:19]})
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options=[("stack", STACK)])
    assert env.state_.turned == 2 and env.agents == ["player_0", "player_1"]
    env.reset()
    reference.reset()
    assert np.array_equal(env.state_.stack, reference.state_.stack)


def test_parallel_env_max_cycles_truncates_with_zero_rewards():
    env = foxy_v0.parallel_env(num_players=2, max_cycles=3)
    env.reset(seed=0)
    for _ in range(3):
        _, rewards, terminations, truncations, _ = env.step(dict.fromkeys(env.agents, 0))
    assert all(truncations.values()) and not any(terminations.values())
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and env.agents == []


def test_aec_max_cycles_counts_cards_like_the_parallel_form():
    env = foxy_v0.raw_env(num_players=3, max_cycles=4)
    env.reset(seed=0, options={"stack": STACK})
    agent_steps = 0
    while not env.truncations[env.agent_selection]:
        env.step(1)
        agent_steps += 1
    assert agent_steps == 12 and env.num_steps == 4 and env.state_.turned == 5
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


def test_max_cycles_default_is_the_whole_stack_in_both_forms():
    aec = foxy_v0.raw_env(num_players=5)
    assert aec.max_cycles == foxy_v0.parallel_env(num_players=5).max_cycles == 20
    aec.reset(seed=0)
    for _ in range(100):  # 20 cards x 5 players: the game ends by the rules
        aec.step(0)
    assert all(aec.terminations.values()) and not any(aec.truncations.values())


def test_aec_snapshot_counts_cards_and_restore_refuses_another_count():
    env = new_env(num_players=2)
    for _ in range(5):  # two cards and player_0's number on the third
        env.step(1)
    snapshot = env.snapshot()
    assert snapshot["num_steps"] == 2
    restored = foxy_v0.raw_env(num_players=2, max_cycles=3)
    restored.restore(snapshot)
    restored.step(1)  # player_1 completes the third card: max_cycles reached
    assert all(restored.truncations.values()) and restored.num_steps == 3
    fresh = foxy_v0.raw_env(num_players=2)
    with pytest.raises(ValueError, match="num_steps=5, but its game has completed 2 cards"):
        fresh.restore({**snapshot, "num_steps": 5})
    assert fresh.state_ is None


# --- the parallel environment: snapshot and restore -----------------------------------------


def parallel_after(cards: int, num_players: int = 2, **params) -> foxy_v0.parallel_env:
    """A parallel env on STACK after every player wrote the true answer on ``cards`` cards."""
    env = foxy_v0.parallel_env(num_players=num_players, **params)
    env.reset(seed=0, options={"stack": STACK})
    for card in range(cards):
        env.step(dict.fromkeys(env.agents, ANSWERS[card]))
    return env


def test_parallel_snapshot_restores_into_a_fresh_env_and_plays_on_identically():
    env = parallel_after(5, reward="points")
    snapshot = json.loads(json.dumps(env.snapshot()))
    restored = foxy_v0.parallel_env(num_players=2, reward="points")
    restored.restore(snapshot)  # no reset() needed
    assert restored.agents == env.agents == ["player_0", "player_1"]
    for card in range(5, 20):
        actions = {"player_0": ANSWERS[card], "player_1": card}
        original, copy = env.step(actions), restored.step(actions)
        assert original[1:4] == copy[1:4]
    # player_1: 17 for the five exact answers, then only "11" on card 12 (answer 14) is not above
    assert original[1] == {"player_0": 117.0, "player_1": 28.0}
    env.reset()  # the environment's generator came along
    restored.reset()
    assert np.array_equal(env.state_.stack, restored.state_.stack)


def test_parallel_restore_takes_json_text():
    env = parallel_after(3)
    restored = foxy_v0.parallel_env(num_players=2)
    restored.restore(json.dumps(env.snapshot()))
    assert restored.state_.turned == 4 and restored.num_steps == 3


def test_parallel_snapshot_of_a_finished_game_restores_with_no_agents():
    env = parallel_after(20)
    restored = foxy_v0.parallel_env(num_players=2)
    restored.restore(env.snapshot())
    assert restored.agents == [] and restored.state_.terminal
    with pytest.raises(RuntimeError, match="the game is over"):
        restored.step({})


def test_parallel_snapshot_of_a_game_ended_by_an_illegal_action_keeps_the_offender():
    env = parallel_after(1)
    env.step({"player_0": CIRCLE, "player_1": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step({"player_0": CIRCLE, "player_1": 1})
    restored = foxy_v0.parallel_env(num_players=2)
    restored.restore(env.snapshot())
    assert restored.agents == [] and restored.illegal_action_by == ["player_0"]


def test_parallel_restore_truncates_at_this_envs_max_cycles():
    restored = foxy_v0.parallel_env(num_players=2, max_cycles=4)
    restored.restore(parallel_after(6).snapshot())
    assert restored.agents == [] and not restored.state_.terminal


def test_parallel_snapshot_before_reset_says_call_reset_first():
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        foxy_v0.parallel_env().snapshot()


def _tampered(snapshot: dict, path: tuple, value) -> dict:
    """A deep copy of ``snapshot`` with the entry at ``path`` set to ``value``."""
    copy = json.loads(json.dumps(snapshot))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


def _bad_parallel_snapshots() -> list:
    good = parallel_after(3).snapshot()
    aec = new_env(num_players=2)
    aec.step(1)  # player_1 still to write on the first card
    without_rng = {key: value for key, value in good.items() if key != "env_rng"}
    mt19937 = {"__generator__": np.random.MT19937(0).state}
    return [
        pytest.param(None, "expected a dict", id="none"),
        pytest.param(aec.snapshot(), "AEC form", id="aec-snapshot"),
        pytest.param(good["engine"], "game's snapshot", id="engine-only"),
        pytest.param({**good, "format": 2}, "format 2", id="format"),
        pytest.param(without_rng, r"missing \['env_rng'\]", id="missing-key"),
        pytest.param({**good, "agents": []}, r"unknown \['agents'\]", id="unknown-key"),
        pytest.param({**good, "engine": aec.snapshot()["engine"]}, "middle of a card", id="mid"),
        pytest.param(
            {**good, "engine": parallel_after(3, num_players=3).snapshot()["engine"]},
            "parameters",
            id="other-players",
        ),
        pytest.param(
            _tampered(good, ("engine", "game"), "henhouse"), "game 'henhouse'", id="other-game"
        ),
        pytest.param(
            _tampered(good, ("engine", "state", "turned"), 25), "turned", id="turned-out-of-range"
        ),
        pytest.param({**good, "env_rng": mt19937}, "not allowed", id="other-bit-generator"),
        pytest.param(
            _tampered(good, ("env_rng", "__generator__", "bit_generator"), "seed"),
            "not allowed",
            id="generator-named-seed",
        ),
        pytest.param({**good, "illegal_action_by": "player_0"}, "list", id="offender-not-list"),
        pytest.param({**good, "illegal_action_by": ["player_7"]}, "unknown", id="bad-offender"),
        pytest.param(
            {**parallel_after(20).snapshot(), "illegal_action_by": ["player_1"]},
            "not ended by an illegal action",
            id="offender-of-finished-game",
        ),
    ]


@pytest.mark.parametrize("snapshot, message", _bad_parallel_snapshots())
def test_parallel_restore_rejects_a_bad_snapshot_and_changes_nothing(snapshot, message):
    env = parallel_after(7)
    before, agents = env.snapshot(), list(env.agents)
    global_random = np.random.get_state()[1].copy()
    with pytest.raises(ValueError, match=message):
        env.restore(snapshot)
    assert env.snapshot() == before and env.agents == agents
    assert np.array_equal(np.random.get_state()[1], global_random)  # no code chosen by the data
    env.step(dict.fromkeys(env.agents, ANSWERS[7]))  # and the game goes on


def test_parallel_env_seeding_and_reset_without_seed():
    first, second = foxy_v0.parallel_env(), foxy_v0.parallel_env()
    first.reset(seed=5)
    second.reset(seed=5)
    first.reset()
    second.reset()
    assert np.array_equal(first.state_.stack, second.state_.stack)
    second.reset(seed=6)
    assert not np.array_equal(first.state_.stack, second.state_.stack)


def test_parallel_env_ignores_unknown_reset_options_with_a_warning():
    env = foxy_v0.parallel_env()
    with pytest.warns(UserWarning, match="unknown reset options"):
        env.reset(seed=0, options={"stack": STACK, "colour": "red"})
    assert env.game.stack_names(env.state_)[0] == "pig"


def test_parallel_env_renders_ansi():
    env = foxy_v0.parallel_env(num_players=2, render_mode="ansi")
    env.reset(options={"stack": STACK})
    assert env.render().startswith("Foxy, 2 players: card 1 of 20: pig")
    for card in range(20):
        env.step(dict.fromkeys(env.agents, ANSWERS[card]))
    assert env.render().splitlines()[-1] == "winners: player_0, player_1"


def test_true_answers_helper_matches_a_slow_count():
    rng = np.random.default_rng(3)
    game = Foxy()
    for _ in range(20):
        stack = game.new_state(rng).stack
        counts, answers = true_answers(stack)
        seen = np.zeros(9, int)
        for k, kind in enumerate(stack):
            seen += CARD_SPECIES[kind]
            expected = (seen > 0).sum() if kind == FOXY else seen[CARD_SPECIES[kind] == 1].sum()
            assert answers[k] == expected, card_name(kind)
