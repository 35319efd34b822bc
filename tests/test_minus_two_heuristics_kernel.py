"""Minus Two's heuristics are written once, in the game's kernel, and decide exactly as the agents
did before they moved there.

The reference (``tests/reference/minus_two_agents.py``) is the agents as they were first written,
and the search playouts' heuristic as the kernel had it. Seeded games of every table size and
both scorings are played with the new agents; at every decision the reference agent of that
seat, the new agent and the kernel's function (plain and compiled, given the legal actions read
from the mask or the row's own code) must take the same action, the loop breakers' random
actions included, and the playouts' heuristic (the same choice on a packed row) must be its
former self.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from reference import minus_two_agents as reference
from reference.kernel_runs import KERNELS
from reference.side_by_side import match_beside_the_reference, seat_view, seated_beside_references

from cardzoo.agents import make_agent
from cardzoo.agents.kernel_heuristic import legal_code
from cardzoo.agents.minus_two import KERNEL
from cardzoo.envs import packed
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.envs.kernels import plain_and_compiled
from cardzoo.envs.minus_two import kernel
from cardzoo.envs.minus_two.rules import MinusTwo

PLAIN, COMPILED = plain_and_compiled(kernel)
HEURISTICS = ("high_cards", "attacker")
DECISION_FUNCTIONS = {"high_cards": "high_cards_action", "attacker": "attacker_action"}

#: table sizes and scorings; games per configuration
CONFIGS = [(n, scoring) for n in range(2, 7) for scoring in ("face", "count")]
GAMES = 24
#: the decisions checked, by agent and kind
DECISIONS_SEEN = {
    ("attacker", "-2"): 3957,
    ("attacker", ">>>"): 477,
    ("attacker", "blind"): 1736,
    ("attacker", "not as high_cards"): 626,
    ("attacker", "number"): 13424,
    ("attacker", "repeated position"): 53,
    ("attacker", "take the pile"): 1625,
    ("high_cards", "-2"): 4647,
    ("high_cards", ">>>"): 486,
    ("high_cards", "blind"): 1571,
    ("high_cards", "number"): 14127,
    ("high_cards", "repeated position"): 30,
    ("high_cards", "take the pile"): 1490,
}


def kind_of(action: int) -> str:
    if action == kernel.TAKE_PILE:
        return "take the pile"
    if action >= kernel.BLIND:
        return "blind"
    card = action % kernel.ACTIONS_PER_SOURCE // 12
    return {kernel.MINUS_TWO: "-2", kernel.CLEAR: ">>>"}.get(card, "number")


def check_the_playouts_heuristic(row: list[int], n: int) -> None:
    """On a packed row the playouts' heuristic is its former self, and the legal code read back
    from the legal actions lists them."""
    code = PLAIN.legal_code(row, n)
    buf = [0] * kernel.MAX_LEGAL
    k = PLAIN.expand_legal(code, buf, False)
    listed = [0] * kernel.MAX_LEGAL
    assert PLAIN.expand_legal(PLAIN.legal_code_of(buf, k), listed, False) == k
    assert listed[:k] == buf[:k]
    for attacker in (False, True):
        former = reference.heuristic_action(row, n, buf, k, attacker)
        assert PLAIN.heuristic_action(row, n, code, attacker) == former
        if COMPILED is not None:
            array = np.array(row, np.int64)
            assert COMPILED.heuristic_action(array, n, code, attacker) == former


def play_side_by_side(num_players: int, scoring: str, seed: int, seen: Counter) -> None:
    """One seeded game, the seats (from seat ``seed % 3`` on) attacker, high_cards, random in
    turn; every heuristic decision is taken by the new agent and checked against the reference
    agent and the kernel's function, every decision's playout heuristic against its former self.
    ``seen`` counts the decisions checked, by agent and kind."""
    game = MinusTwo(num_players=num_players, scoring=scoring)
    names, agents, references = seated_beside_references(
        game, ("attacker", "high_cards", "random"), seed, reference.AGENTS
    )
    starts = [game.observation_layout[name].start for name in kernel.OBSERVATION_FIELDS]
    starts_array = np.array(starts, np.int64)
    state = game.new_state(game_rng_from_seed(seed))
    while not state.terminal:
        player = state.current_player
        observation = seat_view(game, state)
        row = [int(value) for value in state.row]
        check_the_playouts_heuristic(row, num_players)
        name = names[player]
        repeated = name in HEURISTICS and (
            observation["observation"].tobytes() in references[player]._seen
        )
        action = agents[player].act(observation)
        if name in HEURISTICS:
            assert action == references[player].act(observation), (seed, player, name)
            decide = DECISION_FUNCTIONS[name]
            vector = observation["observation"]
            own_code = PLAIN.legal_code(row, num_players)
            for legal in (legal_code(KERNEL, observation["action_mask"]), own_code):
                choice = getattr(PLAIN, decide)(vector.tolist(), starts, legal)
                if COMPILED is not None:
                    assert getattr(COMPILED, decide)(vector, starts_array, legal) == choice
                assert (choice == action) or repeated
            high_cards = PLAIN.high_cards_action(vector.tolist(), starts, own_code)
            seen[name, "repeated position" if repeated else kind_of(action)] += 1
            if name == "attacker" and action != high_cards and not repeated:
                seen[name, "not as high_cards"] += 1
        game.apply(state, action)


@pytest.mark.parametrize("compiled", KERNELS)
def test_the_agents_decide_as_the_reference_agents_at_every_decision(compiled, monkeypatch):
    """Every table size and scoring: the new agents (on the plain kernel, or the compiled one
    from their first decision), the reference agents and the kernel's functions agree at every
    decision: every kind of action, the attacker's choices away from high_cards', and the random
    actions of repeated positions (2-player games cycle)."""
    monkeypatch.setattr(packed, "COMPILED", compiled)
    seen: Counter = Counter()
    for num_players, scoring in CONFIGS:
        for seed in range(GAMES):
            play_side_by_side(num_players, scoring, seed, seen)
    assert dict(seen) == DECISIONS_SEEN


@pytest.mark.parametrize("name", HEURISTICS)
def test_matches_give_the_same_results_as_with_the_reference_agents(name):
    """A match of the agent against random players gives, game by game, the reference agent's
    rewards, scores, winners and lengths."""
    games = match_beside_the_reference(
        "minus_two", [name, "random", "random", "random"], reference.AGENTS, 30, 4
    )
    assert sum(length for *_, length in games) == {"high_cards": 8608, "attacker": 7411}[name]


def test_two_heuristics_in_a_two_player_match_play_as_the_reference_agents():
    """Two loop breakers facing each other (their games cycle): the same games as with the
    reference agents, repeated positions and their random actions included."""
    games = match_beside_the_reference("minus_two", list(HEURISTICS), reference.AGENTS, 20, 7)
    assert sum(length for *_, length in games) == 7427


@pytest.mark.parametrize("compiled", KERNELS)
def test_the_memory_forgets_everything_once_it_holds_max_remembered(compiled):
    """As the agents' memory: MAX_REMEMBERED positions are kept; the next new one empties it."""
    module = COMPILED if compiled else PLAIN
    table = np.zeros(1 << 17, np.int64)
    remembered = np.zeros(2, np.int64)
    keys = np.arange(1, kernel.MAX_REMEMBERED + 2, dtype=np.int64) * 7919
    assert not any(module.remember(table, remembered, 1, key) for key in keys[:-1].tolist())
    assert remembered.tolist() == [0, kernel.MAX_REMEMBERED]
    assert module.remember(table, remembered, 1, int(keys[5]))  # still there
    assert not module.remember(table, remembered, 1, int(keys[-1]))  # one more: all forgotten
    assert remembered.tolist() == [0, 1] and np.count_nonzero(table) == 1
    assert not module.remember(table, remembered, 1, int(keys[5]))
    assert make_agent("minus_two", "attacker", MinusTwo()).max_remembered == kernel.MAX_REMEMBERED


@pytest.mark.parametrize("compiled", KERNELS)
def test_a_positions_key_reads_every_value_of_the_observation(compiled):
    """Any one value changed (by one, or its sign) gives another key; float32 and float64
    observations the same key; plain and compiled the same."""
    module = COMPILED if compiled else PLAIN
    game = MinusTwo(num_players=3)
    state = game.new_state(np.random.default_rng(0))
    observation = game.observe(state, 1)
    key = PLAIN.position_key(observation.tolist())
    assert module.position_key(observation) == module.position_key(observation.astype(float)) == key
    assert 0 < key < 2**61
    keys = {key}
    for index in range(observation.size):
        for change in (1.0, -2 * observation[index] - 1):
            changed = observation.copy()
            changed[index] += change
            keys.add(module.position_key(changed))
    assert len(keys) == 1 + 2 * observation.size
