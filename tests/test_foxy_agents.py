"""Foxy's heuristic agents: what they write, when they circle, what they remember, and that they
beat random play."""

from __future__ import annotations

import numpy as np
import pytest
from test_foxy_rules import ANSWERS, STACK

from cardzoo.agents import agent_classes, make_agent
from cardzoo.agents.foxy import (
    ForgetfulAgent,
    MemoryAgent,
    _convolve,
    _python_choice,
    _unknown_card_odds,
    _unknown_card_odds_list,
    choice,
    circle_thresholds,
)
from cardzoo.envs import foxy_v0
from cardzoo.envs.foxy.rules import CARD_SPECIES, KIND_COPIES, Foxy, parse_stack
from cardzoo.envs.helpers import split_observation
from cardzoo.evaluation import play_match

G = 40

# Small answers all along: nothing reaches the circle threshold before the last card (a cat: 1).
QUIET_STACK = [["rooster"], ["pig"], ["hare"], ["bear"], ["zebra"], ["giraffe"], ["octopus"]]
QUIET_STACK += [["dolphin"], ["rooster"], ["pig"], ["hare"], ["bear"], ["zebra", "giraffe"]]
QUIET_STACK += [["octopus", "dolphin"], "foxy", ["rooster", "pig"], ["hare", "bear"]]
QUIET_STACK += [["zebra", "giraffe"], ["octopus", "dolphin"], ["cat"]]
QUIET_ANSWERS = [1] * 8 + [2] * 4 + [4, 4, 8, 6, 6, 6, 6, 1]

# STACK from card 8 on, other cards before (so card 12 has another true answer: 9, not 14).
SAME_LAST_CARDS = [["hare", "cat"], ["bear"], ["zebra"], "foxy", ["giraffe", "cat"]]
SAME_LAST_CARDS += [["octopus"], ["rooster"]] + STACK[7:]


def play_agents(agents, stack, **params):
    """Play one game on ``stack`` with one agent per seat; returns the finished raw env,
    every action each agent took and each agent's total reward."""
    env = foxy_v0.raw_env(num_players=len(agents), **params)
    env.reset(options={"stack": stack})
    for agent in agents:
        agent.reset()
    actions = {agent: [] for agent in env.agents}
    rewards = dict.fromkeys(env.agents, 0.0)
    for name in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        rewards[name] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = agents[env.agent_name_mapping[name]].act(observation)
        actions[name].append(action)
        env.step(action)
    return env, actions, rewards


def test_agents_registered_with_random():
    assert list(agent_classes("foxy")) == ["random", "perfect_memory", "forgetful"]


def test_perfect_memory_agent_writes_every_exact_answer():
    game = Foxy(num_players=2)
    env, _, _ = play_agents([MemoryAgent(game), MemoryAgent(game)], STACK)
    assert env.state_.sheets.tolist() == [ANSWERS, ANSWERS]


def test_perfect_memory_agent_circles_the_first_answer_reaching_the_threshold():
    thresholds = circle_thresholds(G)
    # card 12's answer 14 is the first at or above the value of waiting
    assert all(a < thresholds[k] for k, a in enumerate(ANSWERS[:11]))
    assert ANSWERS[11] >= thresholds[11]
    game = Foxy(num_players=2)
    env, _, _ = play_agents([MemoryAgent(game), make_agent("foxy", "random", game, seed=0)], STACK)
    assert env.state_.circled[0] == 11
    assert env.game.scores(env.state_)[0] == env.game.best_possible_score(env.state_) == 131


def test_perfect_memory_agent_circles_on_the_last_card_if_nothing_was_worth_it():
    game = Foxy(num_players=2)
    env, _, _ = play_agents([MemoryAgent(game), MemoryAgent(game)], QUIET_STACK)
    assert env.state_.answers.tolist() == QUIET_ANSWERS
    assert env.state_.circled.tolist() == [19, 19]
    assert env.game.scores(env.state_).tolist() == [sum(QUIET_ANSWERS) + 1] * 2


def test_perfect_memory_agent_never_circles_in_solo_and_wins():
    game = Foxy(num_players=1)
    env, _, rewards = play_agents([MemoryAgent(game)], STACK)
    assert env.state_.circled[0] == -1
    assert rewards == {"player_0": 1.0}


def test_perfect_memory_agent_reads_species_counts_when_memory_is_perfect():
    game = Foxy(num_players=1, memory="perfect")
    agent = MemoryAgent(game)
    env = foxy_v0.raw_env(num_players=1, memory="perfect")
    env.reset(options={"stack": STACK})
    for _ in range(11):  # the agent misses the first 11 cards, yet the counts tell it
        env.step(0)
    assert agent.act(env.observe("player_0")) == 14


def test_circle_thresholds_fall_to_zero_at_the_last_card_and_are_reproducible():
    thresholds = circle_thresholds(G)
    assert thresholds[-1] == 0.0
    assert (np.diff(thresholds) <= 1e-9).all()
    assert 10 < thresholds[0] < 16
    assert np.array_equal(thresholds, circle_thresholds.__wrapped__(G))


def test_agents_forget_between_games():
    game = Foxy(num_players=1)
    agent = MemoryAgent(game)
    play_agents([agent], STACK)
    agent.reset()
    assert agent.cards_turned == 0 and not agent.remembered and agent.card_on_table is None
    env, _, _ = play_agents([agent], QUIET_STACK)
    assert env.state_.sheets[0].tolist() == QUIET_ANSWERS
    # a new game without reset(): the drop in cards_turned makes it start afresh
    env = foxy_v0.raw_env(num_players=1)
    env.reset(options={"stack": STACK})
    for _ in range(20):
        env.step(agent.act(env.observe("player_0")))
    assert env.state_.sheets[0].tolist() == ANSWERS


def test_forgetful_agent_is_exact_while_it_remembers_every_card():
    game = Foxy(num_players=1)
    env, _, _ = play_agents([ForgetfulAgent(game, memory_cards=4)], STACK)
    assert env.state_.sheets[0, :5].tolist() == ANSWERS[:5]


def test_forgetful_agent_writes_at_least_what_it_remembers():
    game = Foxy(num_players=1)
    k = 4
    env, _, _ = play_agents([ForgetfulAgent(game, memory_cards=k)], STACK)
    kinds = parse_stack(STACK)
    for card in range(20):
        shown = CARD_SPECIES[kinds[card]]
        remembered = kinds[max(0, card - k) : card + 1]
        if shown.any():
            lower_bound = int((CARD_SPECIES[remembered] @ shown).sum())
        else:  # Foxy: the species remembered
            lower_bound = int(CARD_SPECIES[remembered].any(axis=0).sum())
        assert env.state_.sheets[0, card] >= lower_bound


def test_forgetful_agent_remembers_only_the_last_k_cards():
    """Different cards before the last 4: the forgetful agent writes the same, the perfect
    memory does not."""
    game = Foxy(num_players=1)
    actions = {}
    for name, stack in (("stack", STACK), ("other", SAME_LAST_CARDS)):
        for agent in (ForgetfulAgent(game, memory_cards=4), MemoryAgent(game)):
            _, taken, _ = play_agents([agent], stack)
            actions[name, agent.name] = taken["player_0"]
    assert actions["stack", "forgetful"][11:] == actions["other", "forgetful"][11:]
    assert actions["stack", "perfect_memory"][11] == 14
    assert actions["other", "perfect_memory"][11] == 9


def test_forgetful_agent_estimates_are_low():
    """Too-high numbers score nothing, so the estimates lean low: most score."""
    env = foxy_v0.raw_env(num_players=1)
    agent = ForgetfulAgent(env.game)
    too_high = 0
    for seed in range(30):
        env.reset(seed=seed)
        agent.reset()
        while not env.state_.terminal:
            env.step(agent.act(env.observe("player_0")))
        too_high += int((env.state_.sheets[0] > env.state_.answers).sum())
    assert too_high / (30 * 20) < 0.2


def test_forgetful_agent_memory_cards_must_be_valid():
    with pytest.raises(ValueError, match="memory_cards"):
        ForgetfulAgent(Foxy(), memory_cards=-1)


@pytest.mark.parametrize("heuristic", ["perfect_memory", "forgetful"])
def test_heuristic_beats_random(heuristic):
    result = play_match("foxy", [heuristic, "random"], 200, seed=0)
    summary = {s["agent"]: s for s in result.summary()["agents"]}
    assert summary[heuristic]["win_rate_ci"][0] > 0.9
    assert summary[heuristic]["mean_score_ci"][0] > 5 * summary["random"]["mean_score_ci"][1]


def test_perfect_memory_beats_forgetful():
    result = play_match("foxy", ["perfect_memory", "forgetful"], 100, seed=0)
    summary = {s["agent"]: s for s in result.summary()["agents"]}
    assert summary["perfect_memory"]["win_rate_ci"][0] > 0.9


@pytest.mark.parametrize("memory", ["none", "perfect"])
@pytest.mark.parametrize("agent_class", [MemoryAgent, ForgetfulAgent])
def test_fast_choice_is_the_choice_of_the_full_belief(agent_class, memory):
    """At every decision of 20 seeded games, what the agent plays (from its running counts and
    cached choices) is what the full belief (``answer_distribution``) gives: the number with the
    best expected score, or the circle when its gain reaches the threshold and it may circle."""
    env = foxy_v0.raw_env(num_players=3, memory=memory)
    game = env.game
    agents = [agent_class(game, seed=seat) for seat in range(3)]
    for seed in range(20):
        env.reset(seed=seed)
        for agent in agents:
            agent.reset()
        for name in env.agent_iter():
            if env.terminations[name]:
                env.step(None)
                continue
            observation = env.observe(name)
            agent = agents[env.agents.index(name)]
            action = agent.act(observation)
            fields = game_fields(game, observation)
            write, circle, gain = choice(agent.answer_distribution(fields), game.max_guess)
            circles = gain > 0 and gain >= agent.thresholds[agent.cards_turned - 1]
            circles = circles and observation["action_mask"][game.max_guess + 1 :].any()
            assert action == (circle + game.max_guess + 1 if circles else write)
            env.step(action)


def game_fields(game, observation):
    return split_observation(game.observation_layout, observation["observation"])


def test_convolve_without_checks_gives_numpys_numbers():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        a, v = rng.random(rng.integers(1, 25)), rng.random(rng.integers(1, 25))
        assert np.array_equal(_convolve(a, v), np.convolve(a, v))


def test_python_choice_gives_numpys_choice():
    rng = np.random.default_rng(1)
    for _ in range(2000):
        distribution = rng.random(rng.integers(1, 60))
        distribution /= distribution.sum()
        max_guess = int(rng.integers(1, 50))
        expected = choice(distribution, max_guess)
        assert _python_choice(distribution.tolist(), max_guess) == expected


def test_odds_of_an_unknown_card_in_python_are_numpys():
    rng = np.random.default_rng(2)
    deck = np.repeat(np.arange(len(KIND_COPIES)), KIND_COPIES)
    for _ in range(500):
        remembered = rng.choice(deck, size=rng.integers(0, 20), replace=False)
        counts = np.bincount(remembered, minlength=len(KIND_COPIES))
        expected = _unknown_card_odds(remembered).tolist()
        assert _unknown_card_odds_list(tuple(counts.tolist())) == expected


def test_forgetful_memory_is_set_by_its_name():
    """docs/foxy.md's curve over k remembered cards is played by name: forgetful:memory_cards=k
    (it answered 'agent forgetful takes no parameters')."""
    from cardzoo.agents import make_agent
    from cardzoo.envs import load_game

    game = load_game("foxy")
    assert make_agent("foxy", "forgetful:memory_cards=0", game).memory_cards == 0
    assert make_agent("foxy", "forgetful", game).memory_cards == 4
    with pytest.raises(ValueError, match="memory_cards=21 is out of range; allowed 0..20"):
        make_agent("foxy", "forgetful:memory_cards=21", game)
