"""Believe It or Not's heuristics are written once, in the game's kernel, and decide exactly as the
agents did before they moved there, random draws included.

The reference (``tests/reference/believe_it_or_not_agents.py``) is the agents as they were first
written. Seeded games of every player count, variant and deck are played with the new agents; at
every decision the reference agent of that seat, the new agent and the kernel's function (plain,
given the agent's numpy generator, and compiled, given numpy's generator reproduced) must take the
same action, keep the same plan and leave their generators at the same place.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from reference import believe_it_or_not_agents as reference
from reference.kernel_runs import KERNELS
from reference.side_by_side import (
    match_beside_the_reference,
    play_beside_references,
    seat_view,
    seated_beside_references,
)

from cardzoo import cli
from cardzoo.agents import kernel_heuristic, make_agent
from cardzoo.agents.kernel_heuristic import legal_bits
from cardzoo.envs import GAMES, kernel_random, kernels, packed
from cardzoo.envs.believe_it_or_not import kernel
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.envs.kernels import plain_and_compiled

PLAIN, COMPILED = plain_and_compiled(kernel)
HEURISTICS = ("honest", "bluffer")
DECISION_FUNCTIONS = {"honest": "honest_action", "bluffer": "bluffer_action"}
DECISIONS = ("lead", "build", "respond", "choose turn", "choose peek")
#: every player count and variant, with and without specials, 4 to 8 species
CONFIGS = GAMES["believe_it_or_not"].test_configs()
GAMES_PER_CONFIG = 20


def kernel_decides_as_the_agent(
    name: str, game: BelieveItOrNot, observation: dict, memory: list[int], state: dict
) -> tuple[int, list[int], dict]:
    """The kernel's function of ``name`` for one decision, plain (with a numpy generator at
    ``state``) and, where numba is, compiled (numpy's generator reproduced at ``state``), from the
    agent's ``memory`` before the decision: both must give one action, memory and generator
    state, which are returned."""
    starts = [game.observation_layout[field].start for field in kernel.OBSERVATION_FIELDS]
    legal, parameters = legal_bits(observation["action_mask"]), game.kernel_parameters()
    generator = np.random.default_rng()
    generator.bit_generator.state = state
    plain_memory = list(memory)
    action = getattr(PLAIN, DECISION_FUNCTIONS[name])(
        observation["observation"].tolist(), starts, legal, plain_memory, generator, *parameters
    )
    if COMPILED is not None:
        compiled_generator = np.zeros(kernel_random.SIZE, np.int64)
        kernel_random.set_numpy_state(compiled_generator, state)
        compiled_memory = np.array(memory, np.int64)
        compiled_action = getattr(COMPILED, DECISION_FUNCTIONS[name])(
            observation["observation"], np.array(starts, np.int64), legal, compiled_memory,
            compiled_generator, *parameters,
        )  # fmt: skip
        assert compiled_action == action
        assert compiled_memory.tolist() == plain_memory
        assert kernel_random.numpy_state(compiled_generator) == generator.bit_generator.state
    return action, plain_memory, generator.bit_generator.state


def play_side_by_side(config: dict, seed: int, seen: Counter) -> None:
    """One seeded game, the seats (from seat ``seed % 3`` on) bluffer, honest, random in turn;
    every heuristic decision is taken by the new agent and checked against the reference agent
    and the kernel's function. ``seen`` counts the decisions checked, by agent and kind, and
    those that drew random numbers."""
    game = BelieveItOrNot(**config)
    names, agents, references = seated_beside_references(
        game, ("bluffer", "honest", "random"), seed, reference.AGENTS
    )
    state = game.new_state(game_rng_from_seed(seed))
    while not state.terminal:
        player = state.current_player
        agent, name = agents[player], names[player]
        observation = seat_view(game, state)
        if name in HEURISTICS:
            memory = [int(value) for value in agent._memory]
            generator_before = agent.rng.bit_generator.state
        action = agent.act(observation)
        if name in HEURISTICS:
            assert action == references[player].act(observation), (config, seed, player, name)
            expected = kernel_decides_as_the_agent(
                name, game, observation, memory, generator_before
            )
            after = agent.rng.bit_generator.state
            assert expected == (action, [int(value) for value in agent._memory], after)
            assert after == references[player].rng.bit_generator.state
            seen[name, DECISIONS[state.decision]] += 1
            seen[name, "drew"] += after != generator_before
        game.step(state, action)


@pytest.mark.parametrize("compiled", KERNELS)
def test_the_agents_decide_as_the_reference_agents_at_every_decision(compiled, monkeypatch):
    """Every player count, variant and deck: the new agents (on the plain kernel, or the
    compiled one from their first decision), the reference agents and the kernel's functions
    agree at every decision, and draw the same numbers from their generators."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    seen: Counter = Counter()
    for config in CONFIGS:
        for seed in range(GAMES_PER_CONFIG):
            play_side_by_side(config, seed, seen)
    assert dict(seen) == {
        ("honest", "lead"): 2255,
        ("honest", "build"): 10559,
        ("honest", "respond"): 4110,
        ("honest", "choose turn"): 1934,
        ("honest", "choose peek"): 302,
        ("honest", "drew"): 3489,
        ("bluffer", "lead"): 2280,
        ("bluffer", "build"): 11831,
        ("bluffer", "respond"): 2952,
        ("bluffer", "choose turn"): 1810,
        ("bluffer", "choose peek"): 244,
        ("bluffer", "drew"): 3924,
    }


@pytest.mark.parametrize("name", HEURISTICS)
@pytest.mark.parametrize("variant", ["quick", "standard"])
def test_matches_give_the_same_results_as_with_the_reference_agents(name, variant):
    """A match of the agent against random players gives, game by game, the reference agent's
    rewards, scores, winners and lengths."""
    games = match_beside_the_reference(
        "believe_it_or_not",
        [name, "random", "random"],
        reference.AGENTS,
        30,
        4,
        {"variant": variant, "num_players": 3},
    )
    lengths = {
        ("honest", "quick"): 5134,
        ("bluffer", "quick"): 4278,
        ("honest", "standard"): 6047,
        ("bluffer", "standard"): 6812,
    }
    assert sum(length for *_, length in games) == lengths[name, variant]


#: ``cardzoo match believe_it_or_not --games 100 --seed 3``: each agent's wins and mean score, as
#: the agents gave them before they moved into the kernel
MATCHES = [
    (
        "honest,bluffer,random",
        "quick",
        [("honest", 38, 2.84), ("bluffer", 55, 2.65), ("random", 19, 4.47)],
    ),
    (
        "bluffer,bluffer,honest,random",
        "standard",
        [("bluffer", 190, 0.27), ("honest", 89, 0.31), ("random", 21, 0.84)],
    ),
]


@pytest.mark.parametrize(("agents", "variant", "expected"), MATCHES)
def test_cardzoo_match_gives_the_results_it_gave_before(agents, variant, expected, tmp_path):
    out = tmp_path / "match.json"
    argv = ["match", "believe_it_or_not", "--agents", agents, "--param", f"variant={variant}"]
    assert cli.main([*argv, "--games", "100", "--seed", "3", "--quiet", "--out", str(out)]) == 0
    summary = json.loads(out.read_text())["agents"]
    assert [(row["agent"], row["wins"], row["mean_score"]) for row in summary] == expected


def test_agents_move_to_the_compiled_kernel_after_switch_after_decisions(monkeypatch):
    """packed.COMPILED None: the agents of a process run the plain copy of the kernel, then the
    compiled one after SWITCH_AFTER decisions (where numba is installed), deciding and drawing
    the same."""
    monkeypatch.setattr(packed, "SWITCH_AFTER", 40)
    monkeypatch.setattr(packed, "COMPILED", None)
    monkeypatch.setattr(kernel_heuristic, "_DECISIONS", {})
    game = BelieveItOrNot(num_players=3)
    agents = [make_agent("believe_it_or_not", name, game, seed=7) for name in HEURISTICS]
    references = [reference.AGENTS[name](game, seed=7) for name in HEURISTICS]
    decisions = kernel_heuristic.kernel_decisions((kernel.__name__, None))
    assert not decisions.compiled
    taken = play_beside_references(game, agents, references, [0, 1, 2])
    assert taken > 40
    assert decisions.compiled == (kernels.numba is not None)
    for agent, former in zip(agents, references, strict=True):
        assert agent.rng.bit_generator.state == former.rng.bit_generator.state


def test_an_agent_built_with_compiled_false_never_loads_the_compiled_kernel(monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", False)
    agent = make_agent("believe_it_or_not", "bluffer", BelieveItOrNot())
    decisions = kernel_heuristic.kernel_decisions(agent._decisions_key)
    assert decisions.switch_in == -1 and decisions.kernel is PLAIN


@pytest.mark.parametrize("compiled", KERNELS)
def test_reset_leaves_an_agent_as_built_but_for_its_generator(compiled, monkeypatch):
    """An agent that planned placements and drew numbers, once reset (a new game), holds
    nothing of that game (plain, or compiled: its memory a list again, the kernel's generator
    empty); only its own generator has moved on."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    game = BelieveItOrNot(num_players=3)
    agents = [make_agent("believe_it_or_not", name, game, seed=1) for name in HEURISTICS]
    built = [make_agent("believe_it_or_not", name, game, seed=1) for name in HEURISTICS]
    references = [reference.AGENTS[name](game, seed=1) for name in HEURISTICS]
    assert play_beside_references(game, agents, references, [5]) > 50
    for agent, fresh in zip(agents, built, strict=True):
        assert agent.rng.bit_generator.state != fresh.rng.bit_generator.state
        assert any(agent._memory)  # a placement was planned
        agent.reset()
        assert agent._memory == fresh._memory == [0] * kernel.HEURISTIC_MEMORY
        assert np.array_equal(agent._generator, fresh._generator)
