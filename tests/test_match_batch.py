"""play_match on a batch of games (cardzoo.vector.seated) where every agent of the line-up can
sit at one: the very match the Tables play, game for game (rewards, scores, winners, steps,
truncation) and agent for agent, compiled and plain; the line-ups that stay on Tables."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from reference.kernel_runs import KERNELS

from cardzoo import evaluation
from cardzoo.agents import Agent, make_agent
from cardzoo.evaluation import play_match
from cardzoo.vector.seated import SeatedGames


def sampling_pretrained(game, seed):
    """The pretrained policy sampling its actions (each agent from its own generator)."""
    agent = make_agent(game.name, "pretrained", game, seed)
    agent.deterministic = False
    return agent


sampling_pretrained.name = "pretrained-sampling"  # type: ignore[attr-defined]

#: (game, line-up, play_match's other arguments, what the match gives: games truncated and each
#: agent's wins)
MATCHES = [
    ("nobody_wants_it", ["hand_shedder", "nwi_dodger", "random"], {}, (0, [8, 11, 1])),
    (
        "nobody_wants_it",
        ["pretrained", "nwi_dodger", "hand_shedder", "random"],
        {"mirrored": False},
        (0, [8, 6, 7, 0]),  # version 4 (3: [6, 8, 8, 0]; 2: [11, 6, 5, 0]; 1: [10, 8, 2, 0])
    ),
    (
        "nobody_wants_it",
        ["nwi_dodger", "hand_shedder"],
        {"max_cycles": 44, "mirrored": False},
        (7, [8, 5]),
    ),
    ("believe_it_or_not", ["honest", "bluffer", "random"], {}, (0, [16, 20, 4])),
    (
        "believe_it_or_not",
        [sampling_pretrained, "honest", "bluffer", "honest"],
        {},
        (0, [16, 26, 18]),
    ),
    (
        "believe_it_or_not",
        ["honest", "bluffer", "honest", "bluffer"],
        {"max_cycles": 140},
        (9, [14, 19]),
    ),
    ("minus_two", ["attacker", "high_cards"], {}, (0, [15, 5])),
    (
        "minus_two",
        ["pretrained", "attacker", "high_cards", "random"],
        {"mirrored": False},
        (0, [8, 6, 5, 1]),  # the shipped agent of version 2 (version 1: [8, 5, 7, 0])
    ),
    ("minus_two", ["attacker", "high_cards", "random"], {"max_cycles": 250}, (9, [6, 5, 0])),
]


def assert_same_match(got: evaluation.MatchResult, expected: evaluation.MatchResult) -> None:
    assert got.summary() == expected.summary()
    assert len(got.games) == len(expected.games)
    for ours, theirs in zip(got.games, expected.games):
        assert (ours.seed, ours.length, ours.truncated) == (
            theirs.seed,
            theirs.length,
            theirs.truncated,
        )
        for field in ("rewards", "scores", "winners"):
            mine, table = getattr(ours, field), getattr(theirs, field)
            assert mine.dtype == table.dtype, field
            np.testing.assert_array_equal(mine, table, err_msg=field)
    for label, record in got.agents.items():
        assert vars(record) == vars(expected.agents[label])


@pytest.fixture
def batches(monkeypatch):
    """Counts the chunks of games play_match plays on a batch."""
    played = []
    on_batch = evaluation._play_on_batch

    def counted(seated, seatings):
        played.append(len(seatings))
        return on_batch(seated, seatings)

    monkeypatch.setattr(evaluation, "_play_on_batch", counted)
    return played


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    ("name", "lineup", "options", "expected"),
    MATCHES,
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_match_on_a_batch_is_the_match_on_tables(
    name, lineup, options, expected, compiled, batches, monkeypatch
):
    """20 games in chunks of 6 (the last one short) on a batch and on Tables: the same games
    and the same agent records; heuristics only, with random seats, with a policy (greedy, or
    sampling from its agents' generators), 2 to 4 players, mirrored or not, and max_cycles that
    truncates some games."""
    monkeypatch.setattr(
        evaluation, "SeatedGames", functools.partial(SeatedGames, compiled=compiled)
    )
    arguments = dict(num_games=20, seed=5, parallel=6, **options)
    on_batch = evaluation.play_match(name, lineup, **arguments)
    assert batches == [6, 6, 6, 2]
    on_tables = evaluation.play_match(name, lineup, tables=True, **arguments)
    assert batches == [6, 6, 6, 2]  # tables=True did not take the batch
    assert_same_match(on_batch, on_tables)
    wins = [record.wins for record in on_batch.agents.values()]
    assert (on_batch.truncated, wins) == expected


@pytest.mark.parametrize(
    ("name", "lineup"),
    [
        ("nobody_wants_it", ["hand_shedder", "pimc:simulations=4"]),
        ("foxy", ["random", "perfect_memory", "forgetful"]),
    ],
    ids=["search-agent", "foxy"],
)
def test_line_ups_a_batch_cannot_seat_play_on_tables(name, lineup, batches):
    """A search agent (it reads the engine's state) keeps the match on Tables, as Foxy (no
    kernel) does; the match is played all the same."""
    result = evaluation.play_match(name, lineup, 2, parallel=2)
    assert batches == []
    assert len(result.games) == 2


def test_an_agent_played_from_python_one_by_one_keeps_the_match_on_tables(batches):
    """An agent that is neither random, nor a heuristic of the kernel, nor decides in batches
    plays on Tables: the batch path is held to the Tables only for the agents it seats."""

    class Wrapped(Agent):
        name = "wrapped"

        def __init__(self, game, seed):
            super().__init__(game, seed)
            self.inner = make_agent(game.name, "hand_shedder", game, seed)

        def act(self, observation):
            return self.inner.act(observation)

    result = evaluation.play_match("nobody_wants_it", [Wrapped, "nwi_dodger"], 4, parallel=4)
    assert batches == []
    expected = evaluation.play_match("nobody_wants_it", ["hand_shedder", "nwi_dodger"], 4)
    assert [g.winners.tolist() for g in result.games] == [
        g.winners.tolist() for g in expected.games
    ]


def test_a_match_whose_deals_reach_past_64_bit_seeds_plays_on_tables():
    """A batch deals from 64-bit seeds; the deals of a match from seed 2**63 - 2 reach past them,
    so it plays on Tables (it died with an OverflowError): the games are the ones ``tables=True``
    plays, and its table's columns stay apart when a figure is wider than its column."""
    lineup = ["attacker", "random"]
    batch = play_match("minus_two", lineup, 4, seed=2**63 - 2, params={"reward": "points"})
    tables = play_match("minus_two", lineup, 4, seed=2**63 - 2, params={"reward": "points"},
                        tables=True)  # fmt: skip
    assert batch.to_json() == tables.to_json()
    for line in batch.table().splitlines()[2:4]:
        assert "] +" in line or "] -" in line  # mean reward, a space, mean score
