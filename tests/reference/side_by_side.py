"""A game on its kernel played beside the numpy engine it replaced, step by step (the tests
``test_<game>_reference.py``): through the AEC environment, and from the numpy engine's
snapshots. ``state_of(state)`` is what of a state the two must share (a game's own choice: the
live cards, or every field). And heuristic agents beside the agents they replaced, decision by
decision (:func:`play_beside_references`) and in a match (:func:`match_beside_the_reference`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardzoo.agents import Agent, RandomAgent, make_agent
from cardzoo.envs import packed
from cardzoo.envs.aec import CardGameEnv
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.evaluation import play_match

StateOf = Callable[[Any], Any]


def whole_state(state) -> dict:
    """Every field of a state as a snapshot holds it (values and dtypes), and its generator's
    position."""
    fields = {}
    for name, value in state.field_values().items():
        if name == "rng":
            value = value.bit_generator.state
        elif isinstance(value, np.ndarray):
            value = (value.dtype.str, value.shape, value.tolist())
        else:
            value = (type(value).__name__, value)
        fields[name] = value
    return fields


def assert_same_step(env: CardGameEnv, reference: CardGameEnv, state_of: StateOf) -> None:
    """The same agent to act, every seat's observation and action mask (values and dtypes),
    rewards (signs included), cumulative rewards, ends, scores, and ``state_of`` the states."""
    assert env.agent_selection == reference.agent_selection
    for agent in env.possible_agents:
        seen, expected = env.observe(agent), reference.observe(agent)
        assert np.array_equal(seen["observation"], expected["observation"]), agent
        assert seen["observation"].dtype == expected["observation"].dtype
        assert np.array_equal(seen["action_mask"], expected["action_mask"]), agent
        assert seen["action_mask"].dtype == expected["action_mask"].dtype
    assert str(env.rewards) == str(reference.rewards)  # -0.0 and 0.0 alike
    assert str(env._cumulative_rewards) == str(reference._cumulative_rewards)
    assert env.terminations == reference.terminations
    assert env.truncations == reference.truncations
    assert state_of(env.state_) == state_of(reference.state_)
    scores = env.game.scores(env.state_)  # the kernel's seat_scores, against the numpy engine's
    assert scores.tolist() == reference.game.scores(reference.state_).tolist()
    assert scores.dtype == np.int64


def play_side_by_side(
    env: CardGameEnv, reference: CardGameEnv, seed: int, games: int, state_of: StateOf
) -> tuple[int, int]:
    """``games`` games in a row from ``seed`` in both, with the same random legal actions
    (:func:`assert_same_step` after each); after each game the next unseeded ``reset()``.
    Returns the steps compared and how many games ended by the rules (not truncated)."""
    assert env.game.engine.compiled == packed.COMPILED  # type: ignore[attr-defined]
    choices = np.random.default_rng(seed)
    env.reset(seed=seed)
    reference.reset(seed=seed)
    steps = ended = 0
    for _ in range(games):
        assert_same_step(env, reference, state_of)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                action = None
            else:
                legal = np.flatnonzero(env.infos[agent]["action_mask"])
                action = int(legal[choices.integers(legal.size)])
            env.step(action)
            reference.step(action)
            assert_same_step(env, reference, state_of)
            steps += 1
        ended += bool(env.state_.terminal)
        env.reset()
        reference.reset()
    return steps, ended


def restore_and_play_on(
    game: Game,
    reference: Game,
    seed: int,
    steps: int,
    state_of: StateOf,
    kind_of: Callable[[Any], Any] = lambda state: state.decision,
) -> tuple[set, int]:
    """A game of the numpy engine (random legal actions from ``seed``); at each of its steps its
    snapshot restored into ``game``, which then plays ``steps`` more random legal actions beside
    a copy of the numpy engine's state, with the same rewards and ``state_of`` after each.
    Returns the kinds of position (``kind_of`` the restored state: by default the decision) the
    snapshots were taken at and how many steps gave rewards."""
    position, choices = (
        reference.new_state(np.random.default_rng(seed)),
        np.random.default_rng(seed),
    )
    decisions, rewarded = set(), 0
    while not position.terminal:
        state = game.from_json(reference.to_json(position))
        expected = reference.copy_state(position)
        decisions.add(kind_of(state))
        for _ in range(steps):
            if state.terminal:
                break
            legal = np.flatnonzero(game.legal_mask(state, state.current_player))
            action = int(legal[choices.integers(legal.size)])
            rewards, expected_rewards = game.apply(state, action), reference.apply(expected, action)
            assert str(rewards) == str(expected_rewards)
            assert state_of(state) == state_of(expected)
            rewarded += expected_rewards is not None
        legal = np.flatnonzero(reference.legal_mask(position, position.current_player))
        reference.apply(position, int(legal[choices.integers(legal.size)]))
    return decisions, rewarded


def play_beside_references(
    game: Game, agents: list[Agent], references: list[Agent], seeds: list[int]
) -> int:
    """A game dealt from each of ``seeds``, its first seats played by ``agents`` and every
    decision of theirs checked against the agent of the same seat in ``references``, the other
    seats by a random agent; every agent reset before each game. Returns the decisions checked."""
    random = RandomAgent(game, seed=0)
    checked = 0
    for seed in seeds:
        for agent in (*agents, *references):
            agent.reset()
        state = game.new_state(game_rng_from_seed(seed))
        while not state.terminal:
            player = state.current_player
            observation = seat_view(game, state)
            if player < len(agents):
                action = agents[player].act(observation)
                assert action == references[player].act(observation), (seed, player)
                checked += 1
            else:
                action = random.act(observation)
            game.step(state, action)
    return checked


def seated_beside_references(
    game: Game, turn: tuple[str, ...], seed: int, references: dict[str, type]
) -> tuple[list[str], list[Agent], list[Agent | None]]:
    """Every seat of ``game`` named by ``turn`` in turn, from ``turn[seed % len(turn)]`` on: the
    names, the agents (each seeded with its seat) and beside each the reference agent of its
    name, seeded alike (None for a name ``references`` lacks)."""
    names = [turn[(seat + seed) % len(turn)] for seat in range(game.num_players)]
    agents = [make_agent(game.name, name, game, seed=seat) for seat, name in enumerate(names)]
    beside = [
        references[name](game, seed=seat) if name in references else None
        for seat, name in enumerate(names)
    ]
    return names, agents, beside


def seat_view(game: Game, state: Any) -> dict[str, np.ndarray]:
    """What the player to decide is given: its observation and action mask."""
    player = state.current_player
    return {
        "observation": game.observe(state, player),
        "action_mask": game.legal_mask(state, player),
    }


def match_beside_the_reference(
    game_name: str,
    lineup: list,
    references: dict[str, type],
    num_games: int,
    seed: int,
    params: dict | None = None,
) -> list[tuple]:
    """``play_match`` of ``lineup`` (agent names; the game's ``params``), and again with the
    agents named in ``references`` replaced by those reference classes: the same games, game by
    game (rewards, scores, winners, lengths), which it returns."""
    records = []
    for replaced in (False, True):
        seats = [
            (lambda game, seed, name=name: references[name](game, seed))
            if replaced and name in references
            else name
            for name in lineup
        ]
        result = play_match(game_name, seats, num_games, seed=seed, params=params)
        records.append(
            [
                (g.rewards.tolist(), g.scores.tolist(), g.winners.tolist(), g.length)
                for g in result.games
            ]
        )
    assert records[0] == records[1]
    return records[0]
