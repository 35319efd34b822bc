"""Nobody Wants It's heuristics are written once, in the game's kernel, and decide exactly as the
agents did before they moved there.

The reference (``tests/reference/nobody_wants_it_agents.py``) is the agents as they were first
written, and the search playouts' heuristic as the kernel had it. Seeded games of every table
size are played with the new agents; at every decision the reference agent of that seat, the new
agent and the kernel's function (plain and compiled) must take the same action, and the
playouts' heuristic (the same choice on a packed row) must be its former self.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from reference import nobody_wants_it_agents as reference
from reference.kernel_runs import KERNELS
from reference.side_by_side import (
    match_beside_the_reference,
    play_beside_references,
    seat_view,
    seated_beside_references,
)

from cardzoo.agents import make_agent
from cardzoo.agents.kernel_heuristic import legal_bits
from cardzoo.envs import kernels, packed
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.envs.kernels import plain_and_compiled
from cardzoo.envs.nobody_wants_it import kernel
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt

PLAIN, COMPILED = plain_and_compiled(kernel)
HEURISTICS = ("hand_shedder", "nwi_dodger")
DECISION_FUNCTIONS = {"hand_shedder": "hand_shedder_action", "nwi_dodger": "nwi_dodger_action"}

#: table sizes and round counts; games per configuration
CONFIGS = [(n, rounds) for n in range(2, 8) for rounds in (1, 3)]
GAMES = 50


def starts_of(game: NobodyWantsIt) -> list[int]:
    return [game.observation_layout[name].start for name in kernel.OBSERVATION_FIELDS]


def play_side_by_side(num_players: int, num_rounds: int, seed: int, seen: Counter) -> None:
    """One seeded game, the seats (from seat ``seed % 3`` on) nwi_dodger, hand_shedder, random
    in turn; every heuristic decision is taken by the new agent and checked against the
    reference agent and the kernel's function, every decision against the former playout
    heuristic. ``seen`` counts the decisions checked, by agent and kind."""
    game = NobodyWantsIt(num_players=num_players, num_rounds=num_rounds)
    names, agents, references = seated_beside_references(
        game, ("nwi_dodger", "hand_shedder", "random"), seed, reference.AGENTS
    )
    starts, starts_array = starts_of(game), np.array(starts_of(game), np.int64)
    state = game.new_state(game_rng_from_seed(seed))
    while not state.terminal:
        player = state.current_player
        observation = seat_view(game, state)
        row = [int(value) for value in state.row]
        for aware in (False, True):
            former = reference.shedding_action(row, num_players, num_rounds, aware)
            assert PLAIN.shedding_action(row, num_players, num_rounds, aware) == former
            if COMPILED is not None:
                array = np.array(row, np.int64)
                assert COMPILED.shedding_action(array, num_players, num_rounds, aware) == former
        action = agents[player].act(observation)
        name = names[player]
        if name in HEURISTICS:
            assert action == references[player].act(observation), (seed, player, name)
            decide = DECISION_FUNCTIONS[name]
            vector, legal = observation["observation"], legal_bits(observation["action_mask"])
            assert getattr(PLAIN, decide)(vector.tolist(), starts, legal) == action
            if COMPILED is not None:
                assert getattr(COMPILED, decide)(vector, starts_array, legal) == action
            shedder = PLAIN.shedding_action(row, num_players, num_rounds, False)
            if name == "hand_shedder":  # the playouts' shedder is hand_shedder on the row
                assert shedder == action
            seen[name, ("turn", "pig answer", "horse gift")[state.decision]] += 1
            seen[name, "not as hand_shedder" if action != shedder else ""] += 1
        game.step(state, action)


@pytest.mark.parametrize("compiled", KERNELS)
def test_the_agents_decide_as_the_reference_agents_at_every_decision(compiled, monkeypatch):
    """Every table size and round count: the new agents (on the plain kernel, or the compiled
    one from their first decision), the reference agents and the kernel's functions agree at
    every decision: turns, pig answers, horse gifts, and the decisions where nwi_dodger's own
    valuation leads it away from hand_shedder's choice."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    seen: Counter = Counter()
    for num_players, num_rounds in CONFIGS:
        for seed in range(GAMES):
            play_side_by_side(num_players, num_rounds, seed, seen)
    del seen["hand_shedder", ""], seen["nwi_dodger", ""]
    assert dict(seen) == {
        ("hand_shedder", "turn"): 8797,
        ("hand_shedder", "pig answer"): 868,
        ("hand_shedder", "horse gift"): 2870,
        ("nwi_dodger", "turn"): 8894,
        ("nwi_dodger", "pig answer"): 818,
        ("nwi_dodger", "horse gift"): 2902,
        ("nwi_dodger", "not as hand_shedder"): 2891,
    }


@pytest.mark.parametrize("name", HEURISTICS)
def test_matches_give_the_same_results_as_with_the_reference_agents(name):
    """A match of the agent against random players gives, game by game, the reference agent's
    rewards, scores, winners and lengths."""
    games = match_beside_the_reference(
        "nobody_wants_it", [name, "random", "random"], reference.AGENTS, 30, 4
    )
    assert sum(length for *_, length in games) == {"hand_shedder": 2178, "nwi_dodger": 2159}[name]


def chance_inputs() -> list[tuple[list[float], int]]:
    """Observations of a 7-player table covering every input of nwi_dodger's chance that a
    seat holds a pair: the unseen cards of the species (2..16), the unseen cards in all
    (1..72) and the seat's cards (1..64), for sheep; with the observer's cards (the size)."""
    game = NobodyWantsIt(num_players=7)
    layout = game.observation_layout
    cases = []
    for unseen in range(2, 17):
        held = 16 - unseen  # the observer's sheep, none discarded; 2 more seen (extra_seen)
        for unseen_total in range(1, 73 - held):
            size = 72 - unseen_total
            for cards in range(1, 65):
                vector = [0.0] * game.observation_size
                vector[layout["hand"].start] = float(held)
                vector[layout["hand"].start + 1] = float(size - held)
                vector[layout["hand_sizes"].start + 1] = float(cards)
                cases.append((vector, size))
    return cases


def test_the_chance_of_a_pair_is_the_references_over_its_whole_domain():
    """The one float computation with powers: plain and compiled equal the reference's to the
    last bit for every input it can get (numba's pow of a float exponent is the C library's, as
    Python's is; an integer exponent would multiply in a loop and round differently)."""
    game = NobodyWantsIt(num_players=7)
    layout = reference._Layout(game.observation_layout, 7)
    starts = starts_of(game)
    mask = np.zeros(game.num_actions, np.int8)
    cases = chance_inputs()
    expected = [
        reference._Table(layout, np.array(vector), mask).chance_of_a_pair(1, 0, extra_seen=2)
        for vector, _size in cases
    ]
    plain = [PLAIN.chance_of_a_pair(vector, starts, size, 1, 0, 2) for vector, size in cases]
    assert plain == expected
    assert len(cases) == 62400 and len(set(expected)) == 30480  # distinct chances
    if COMPILED is not None:
        starts_array = np.array(starts, np.int64)
        compiled = [
            COMPILED.chance_of_a_pair(np.array(vector, np.float32), starts_array, size, 1, 0, 2)
            for vector, size in cases
        ]
        assert compiled == expected


def test_agents_move_to_the_compiled_kernel_after_switch_after_decisions(monkeypatch):
    """packed.COMPILED None: the agents of a process run the plain copy of the kernel, then the
    compiled one after SWITCH_AFTER decisions (where numba is installed), deciding the same."""
    monkeypatch.setattr(packed, "SWITCH_AFTER", 20)
    monkeypatch.setattr(packed, "COMPILED", None)
    from cardzoo.agents import kernel_heuristic

    monkeypatch.setattr(kernel_heuristic, "_DECISIONS", {})
    game = NobodyWantsIt(num_players=3)
    agents = [make_agent("nobody_wants_it", name, game) for name in HEURISTICS]
    references = [reference.AGENTS[name](game) for name in HEURISTICS]
    decisions = kernel_heuristic.kernel_decisions((kernel.__name__, None))
    assert not decisions.compiled
    taken = play_beside_references(game, agents, references, [0])
    assert taken > 20
    assert decisions.compiled == (kernels.numba is not None)


def test_an_agent_built_with_compiled_false_never_loads_the_compiled_kernel(monkeypatch):
    monkeypatch.setattr(packed, "COMPILED", False)
    agent = make_agent("nobody_wants_it", "nwi_dodger", NobodyWantsIt())
    from cardzoo.agents import kernel_heuristic

    decisions = kernel_heuristic.kernel_decisions(agent._decisions_key)
    assert decisions.switch_in == -1 and decisions.kernel is PLAIN


def test_legal_bits_read_any_mask_dtype():
    mask = np.zeros(16, np.int8)
    mask[[0, 4, 9]] = 1
    assert (
        legal_bits(mask) == legal_bits(mask.astype(bool)) == legal_bits(mask * 7.0) == 0b1000010001
    )
