"""Many games in one call (``cardzoo.envs.batch``) play exactly the games of the environments.

The kernel's generator is numpy's, bit for bit; a batch seeded like ``env.reset(seed=s)`` gives
the AEC environment's observations, masks, rewards and ends, step by step, for the same actions,
and the game it starts next is the one the environment's next unseeded ``reset()`` deals. Compiled
(numba) and plain Python alike; the plain kernel plays fewer games (it is slow). Every game with a
vector form (a kernel) is played at every configuration of the shared tests.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np
import pytest
from reference.kernel_runs import KERNELS, needs_numba

from cardzoo.envs import GAMES, kernel_arrays, kernel_random, kernels, load_game, packed
from cardzoo.envs import batch as batch_module
from cardzoo.envs.batch import (
    EXTERNAL_POLICY,
    OVER,
    RANDOM_POLICY,
    RUNNING,
    TRUNCATED,
    GameBatch,
    has_batch,
)
from cardzoo.envs.kernels import plain_and_compiled
from cardzoo.errors import InputError

#: the games with a vector form
VECTOR_GAMES = [name for name, spec in GAMES.items() if has_batch(spec.game_class())]
#: the parameter values the shared tests' configurations leave out
MORE_CONFIGS = {
    "nobody_wants_it": [
        {"num_players": 5, "reward": "points", "num_rounds": 3},
        {"num_players": 3, "reward": "win", "num_rounds": 2},
    ],
}
#: (game, configuration): the shared tests' configurations and those above (Minus Two's games
#: to its default targets: tests/test_batch_minus_two.py)
CONFIGS = [
    (name, config)
    for name in VECTOR_GAMES
    for config in GAMES[name].test_configs() + MORE_CONFIGS.get(name, [])
]
#: seeds per configuration, each playing 2 games in a row: compiled, plain (which is slow)
SEEDS_PER_CONFIG = {"nobody_wants_it": (42, 5), "believe_it_or_not": (17, 2), "minus_two": (24, 2)}
#: the fewest decisions a game takes: Minus Two's round takes a turn per card of a colour
MIN_DECISIONS = {"nobody_wants_it": 5, "believe_it_or_not": 5, "minus_two": 13}
PLAIN_RANDOM, COMPILED_RANDOM = plain_and_compiled(kernel_random)
SIZE = kernel_random.SIZE
SEEDS = [0, 1, 2**32 - 1, 2**32, 2**40 + 7, 2**63 - 1, 123456789012345, 98765]


def config_id(game_and_config: tuple[str, dict]) -> str:
    name, config = game_and_config
    return "-".join([name, *(f"{key}={value}" for key, value in config.items())])


# ----------------------------------------------------------------------------------------------
# The copies of runs
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compiled", KERNELS)
def test_the_kernels_copy_runs_as_the_slices_they_stand_for(compiled):
    arrays = plain_and_compiled(kernel_arrays)[1 if compiled else 0]
    row = np.arange(100, 120, dtype=np.int64)
    out = np.zeros(10, np.float32)
    arrays.copy_run(out, 1, row, 3, 4)
    assert out.tolist() == [0, 103, 104, 105, 106, 0, 0, 0, 0, 0]
    arrays.copy_rotated(out, 5, row, 10, 5, 2)  # five seats from seat 2 on: 12 13 14 10 11
    assert out.tolist() == [0, 103, 104, 105, 106, 112, 113, 114, 110, 111]
    arrays.copy_run(row, 0, row, 16, 4)  # within one array, the runs apart
    assert row[:5].tolist() == [116, 117, 118, 119, 104]


# ----------------------------------------------------------------------------------------------
# numpy's generator, reproduced
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_kernel_generator_is_numpys_default_rng(seed, compiled):
    random = COMPILED_RANDOM if compiled else PLAIN_RANDOM
    rng = np.zeros(kernel_random.SIZE, np.int64)
    random.seed_numpy(rng, seed)
    expected = np.random.default_rng(seed)
    assert kernel_random.numpy_state(rng) == expected.bit_generator.state
    deck = np.repeat(np.arange(4), 18)
    for size in (72, 40, 2, 1, 0, 72):
        cards = deck[:size].copy()
        random.shuffle(cards, 0, size, rng)
        assert np.array_equal(cards, expected.permutation(deck[:size].astype(np.int8)))
        assert kernel_random.numpy_state(rng) == expected.bit_generator.state
    assert random.next_seed(rng) == expected.integers(2**63)
    assert kernel_random.numpy_state(rng) == expected.bit_generator.state


#: bounds of Generator.integers: none drawn (1), small ones (a legal action), ones rejected
#: about a quarter (3 * 2**30), an eighth (3 * 2**29) and half (2**31 + 1) of the time, around
#: 2**31, and the whole 32 bits (a plain draw)
COUNTS = [1, 2, 3, 5, 7, 8, 37, 100, 293, 1000, 12345678, 3 * 2**29, 3 * 2**30, 2**31 - 1, 2**31]
COUNTS += [2**31 + 1, 2**32 - 1, 2**32]


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_kernel_generators_integers_are_numpys(seed, compiled):
    """``integers(rng, count)`` is ``Generator.integers(count)`` number for number, and leaves
    the generator where numpy does after every draw, between draws of the other kind (a
    shuffle's: the buffered half)."""
    random = COMPILED_RANDOM if compiled else PLAIN_RANDOM
    rng = np.zeros(kernel_random.SIZE, np.int64)
    random.seed_numpy(rng, seed)
    expected = np.random.default_rng(seed)
    drawn = []
    for round_number in range(40):
        for count in COUNTS:
            drawn.append(random.integers(rng, count))
            assert drawn[-1] == expected.integers(count)
            assert kernel_random.numpy_state(rng) == expected.bit_generator.state
        if round_number % 3 == 0:  # a shuffle's 32-bit draws in between
            cards = np.arange(3)
            random.shuffle(cards, 0, 3, rng)
            assert np.array_equal(cards, expected.permutation(3))
    assert max(drawn) >= 2**31  # the large bounds were drawn from too
    assert len(set(drawn[COUNTS.index(3 * 2**29) :: len(COUNTS)])) == 40  # no stuck draws


def test_the_plain_kernels_integers_take_a_numpy_generator_itself():
    generator, expected = np.random.default_rng(3), np.random.default_rng(3)
    drawn = [PLAIN_RANDOM.integers(generator, count) for count in COUNTS * 5]
    assert drawn == [int(expected.integers(count)) for count in COUNTS * 5]
    assert all(type(number) is int for number in drawn)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_plain_kernels_below_takes_a_numpy_generator_itself(seed):
    """The plain copy's ``below`` draws from a numpy generator given itself (numpy's own
    ``next_uint32``) the numbers it draws from its array, and leaves it where it leaves the
    array after every draw, between draws of numpy's own (the buffered half)."""
    generator, array = np.random.default_rng(seed), np.zeros(kernel_random.SIZE, np.int64)
    PLAIN_RANDOM.seed_numpy(array, seed)
    for round_number in range(20):
        for count in COUNTS:
            drawn = PLAIN_RANDOM.below(generator, count)
            assert type(drawn) is int and drawn == PLAIN_RANDOM.below(array, count)
            assert kernel_random.numpy_state(array) == generator.bit_generator.state
        if round_number % 3 == 0:  # numpy's draws in between: Generator.integers
            assert PLAIN_RANDOM.integers(generator, 5) == PLAIN_RANDOM.integers(array, 5)


def test_the_plain_kernels_seeding_takes_a_numpy_generator_itself():
    """The plain copy's ``next_seed`` draws ``Generator.integers(2**63)`` from a numpy generator
    given itself (as from its array), and ``seed_numpy`` moves one to ``default_rng(seed)``."""
    generator, array = np.random.default_rng(5), np.zeros(kernel_random.SIZE, np.int64)
    PLAIN_RANDOM.seed_numpy(array, 5)
    seeds = [PLAIN_RANDOM.next_seed(generator) for _ in range(6)]
    assert seeds == [PLAIN_RANDOM.next_seed(array) for _ in range(6)]
    assert all(type(seed) is int for seed in seeds)
    for seed in SEEDS:
        PLAIN_RANDOM.seed_numpy(generator, seed)
        assert generator.bit_generator.state == np.random.default_rng(seed).bit_generator.state


def batches_to_compare(game, count: int, max_cycles: int) -> list[GameBatch]:
    """Batches of ``count`` games of ``game`` that must play the same games: a plain one on
    arrays (asked for at once), a plain one on lists, and the compiled one where numba is."""
    batches = [GameBatch(game, count, max_cycles=max_cycles, compiled=False) for _ in range(2)]
    if kernels.numba is not None:
        batches.append(GameBatch(game, count, max_cycles=max_cycles, compiled=True))
    batches[0].rows  # noqa: B018 - arrays asked for: this batch runs on arrays
    return batches


def assert_same_games(lists: GameBatch, arrays: GameBatch) -> None:
    """The arrays of a batch that ran on lists, asked for now, are those of a batch that ran on
    arrays: rows, steps, every generator (numpy's state; the rest is seeding's scratch) and the
    heuristics' memory. From then on ``lists`` runs its arrays."""
    assert np.array_equal(lists.rows, arrays.rows)
    assert np.array_equal(lists.steps, arrays.steps)
    fields = ["rngs", "env_rngs", "policy_rngs"] + (["heuristic_rngs"] if lists.remembers else [])
    for field in fields:
        states = [
            [kernel_random.numpy_state(rng) for rng in getattr(batch, field).reshape(-1, SIZE)]
            for batch in (lists, arrays)
        ]
        assert states[0] == states[1], field
    assert np.array_equal(lists.memory, arrays.memory)
    assert np.array_equal(lists.remembered, arrays.remembered)


@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_plain_batch_plays_the_same_games_on_lists_as_on_arrays(name):
    """A plain batch runs its games as lists with numpy generators until its arrays are asked
    for (``batch.rows``), then as those arrays: the same observations, masks, rewards and ends
    as a batch on arrays from the start and as the compiled one, step by step, through ends and
    new games; the arrays written from the lists midway are the arrays'."""
    game = load_game(name, num_players=3)
    count, n = 5, game.num_players
    batches = batches_to_compare(game, count, 60)
    for batch in batches:
        batch.seed(np.arange(count, dtype=np.int64) + 70)
        batch.start(np.ones(count, bool))
    rng = np.random.default_rng(2)
    ended = 0
    for step in range(150):
        if step == 90:  # the list batch's arrays asked for midway: the same games go on
            assert_same_games(batches[1], batches[0])
        seen = []
        for batch in batches:
            observations = np.zeros((count, game.observation_size), np.float32)
            masks = np.zeros((count, game.num_actions), np.int8)
            batch.observe(np.full(count, -1), observations, masks)
            seen.append((observations, masks))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in seen[0][1]])
        for batch in batches:
            rewards, ends = np.zeros((count, n)), np.zeros(count, np.int64)
            batch.step(actions, rewards, ends)
            over = ends != RUNNING
            views = batch.seat_views(over) if over.any() else None
            batch.start(over)
            seen.append((rewards, ends, views))
        ended += int(over.sum())
        first = seen[: len(batches)][0] + seen[len(batches)][:2]
        for index in range(1, len(batches)):
            other = seen[index] + seen[len(batches) + index][:2]
            assert all(np.array_equal(a, b) for a, b in zip(first, other)), (step, index)
            views = (seen[len(batches)][2], seen[len(batches) + index][2])
            assert views[0] is None if views[1] is None else np.array_equal(*views)
    assert ended >= 5  # games ended (by the rules or at max_cycles) and new ones were dealt


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_step_observe_is_a_step_then_the_running_games_observed(name, compiled):
    """``step_observe`` (one pass compiled) leaves every batch as ``step`` does, and gives the
    games that run on the player to decide, observation and mask that ``current_players`` and
    ``observe`` give after the step; it leaves the rows of ended games (and of games left
    alone) in those three arrays as they were."""
    game = load_game(name, num_players=3)
    count, n = 6, game.num_players
    one_pass, two_calls = (GameBatch(game, count, 60, compiled) for _ in range(2))
    for batch in (one_pass, two_calls):
        batch.seed(np.arange(count, dtype=np.int64) + 40)
        batch.start(np.ones(count, bool))
    rng, ended, left_alone = np.random.default_rng(4), 0, 0
    for _ in range(200):
        observations = np.zeros((count, game.observation_size), np.float32)
        masks = np.zeros((count, game.num_actions), np.int8)
        two_calls.observe(np.full(count, -1), observations, masks)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        actions[rng.random(count) < 0.2] = -1  # some games left alone
        rewards, ends = np.zeros((2, count, n)), np.zeros((2, count), np.int64)
        two_calls.step(actions, rewards[0], ends[0])
        after = two_calls.current_players(np.zeros(count, np.int64))
        seen = np.zeros((count, game.observation_size), np.float32)
        seen_masks = np.zeros((count, game.num_actions), np.int8)
        two_calls.observe(np.full(count, -1), seen, seen_masks)
        # Sentinels where step_observe must not write (the ended games' rows).
        out = (np.full(count, 77), np.full_like(seen, 5.0), np.full_like(seen_masks, 9))
        one_pass.step_observe(actions, rewards[1], ends[1], *out)
        assert np.array_equal(rewards[0], rewards[1]) and np.array_equal(ends[0], ends[1])
        running = ends[0] == RUNNING
        assert np.array_equal(out[0][running], after[running])
        assert np.array_equal(out[1][running], seen[running])
        assert np.array_equal(out[2][running], seen_masks[running])
        assert (out[0][~running] == 77).all() and (out[1][~running] == 5.0).all()
        assert (out[2][~running] == 9).all()
        assert np.array_equal(one_pass.rows, two_calls.rows)
        assert np.array_equal(one_pass.steps, two_calls.steps)
        for batch in (one_pass, two_calls):
            batch.start(~running)
        ended += int((~running).sum())
        left_alone += int((actions < 0).sum())
    assert ended >= 5 and left_alone >= 20


#: configurations whose games end by the rules in a few dozen decisions a seat, and the agent
#: steps that cut some of them (the tests of the drivers below)
SHORT_GAMES = {
    "nobody_wants_it": ({"num_rounds": 1, "reward": "points"}, 40),
    "believe_it_or_not": ({"variant": "quick"}, 150),
    "minus_two": ({"scoring": "count", "target_score": 8}, 150),
}
#: opponents' codes: random (RANDOM_POLICY) only, or mixed with the two heuristics every kernel
#: holds (numbered 1 and 2 in each)
OPPONENT_CODES = {"random": [RANDOM_POLICY], "heuristics": [1, RANDOM_POLICY, 2]}


@pytest.mark.parametrize("opponents", list(OPPONENT_CODES))
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_plain_batch_seats_learners_the_same_on_lists_as_on_arrays(name, opponents, monkeypatch):
    """``step_seats`` (the Gymnasium vector env's driver) on lists with numpy generators plays
    the games it plays on arrays and compiled: the same seats (drawn for every new episode),
    rewards, ends, observations and masks, step by step, through ends, new episodes (a new
    episode where a game ended), games left alone, ``draw`` from the policy generators and
    Minus Two's tables of positions growing from 2 slots; the arrays written from the lists
    midway are the arrays'."""
    monkeypatch.setattr(batch_module, "MEMORY_SLOTS", 2)
    config, max_cycles = SHORT_GAMES[name]
    game = load_game(name, num_players=4, **config)
    count, n = 5, game.num_players
    batches = batches_to_compare(game, count, max_cycles)
    policies = np.array((OPPONENT_CODES[opponents] * n)[: n - 1], np.int64)
    seats = [np.zeros(count, np.int64) for _ in batches]
    for batch in batches:
        batch.seed(np.arange(count, dtype=np.int64) + 30)
    actions = np.full(count, -1, np.int64)
    rng = np.random.default_rng(4)
    ends_seen = []
    for step in range(300):
        if step == 200:
            assert_same_games(batches[1], batches[0])
        seen = []
        for batch, batch_seats in zip(batches, seats):
            rewards, ends = np.zeros(count), np.zeros(count, np.int64)
            batch.step_seats(batch_seats, actions, -1, rewards, ends, policies)
            observations = np.zeros((count, game.observation_size), np.float32)
            masks = np.zeros((count, game.num_actions), np.int8)
            batch.observe(batch_seats, observations, masks)
            drawn = [batch.draw(b, 7) for b in range(count)] if step % 9 == 4 else []
            seen.append((batch_seats.copy(), rewards, ends, observations, masks, drawn))
        for index in range(1, len(batches)):
            assert all(np.array_equal(a, b) for a, b in zip(seen[0], seen[index], strict=True)), (
                step,
                index,
            )
        _, _, ends, _, masks = seen[0][:5]
        ends_seen += ends.tolist()
        actions = np.array(
            [rng.choice(np.flatnonzero(mask)) if mask.any() else -1 for mask in masks]
        )
        actions[ends != RUNNING] = -1  # a new episode
        if step % 5 == 2 and actions[step % count] >= 0:
            actions[step % count] = -2  # left alone (its learner decides later)
    assert ends_seen.count(OVER) >= 5 and ends_seen.count(TRUNCATED) >= 2
    if batches[0].tables and opponents == "heuristics":  # grown alike (assert_same_games)
        assert batches[0].memory.shape[2] > 2


@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_plain_batch_plays_codes_the_same_on_lists_as_on_arrays(name, monkeypatch):
    """``play_codes`` (the training sampler's and the match runner's driver) on lists with
    numpy generators plays the games it plays on arrays and compiled: every seat random, a
    heuristic (drawing from generators seeded or loaded per seat) or decided outside, games
    with a stop seat and without, some games inactive in a round; the same rewards, ends,
    players, outside decisions, observations and masks round by round, through ends and new
    games, and Minus Two's tables growing from 2 slots; the arrays written from the lists midway
    are the arrays'."""
    monkeypatch.setattr(batch_module, "MEMORY_SLOTS", 2)
    config, max_cycles = SHORT_GAMES[name]
    game = load_game(name, num_players=4, **config)
    count, n = 6, game.num_players
    batches = batches_to_compare(game, count, max_cycles)
    choices = [EXTERNAL_POLICY, RANDOM_POLICY, 1, 2]  # the kernels' heuristics: 1 and 2
    codes = np.array([[choices[(b + seat) % 4] for seat in range(n)] for b in range(count)])
    stops = np.array([n if b % 2 else b % n for b in range(count)], np.int64)
    for batch in batches:
        batch.seed(np.arange(count, dtype=np.int64) + 50)
        for b in range(count):
            for other in range(n - (stops[b] < n)):
                if b % 3:
                    batch.seed_generator(b, other, 1000 * b + other)
                else:
                    batch.load_generator(b, other, np.random.default_rng(b + other))
        batch.start(np.ones(count, bool))
    actions = np.full(count, -1, np.int64)
    rng = np.random.default_rng(6)
    ends_seen, decided = [], 0
    for round_number in range(300):
        if round_number == 200:
            assert_same_games(batches[1], batches[0])
        active = np.ones(count, bool)
        active[round_number % 4] = round_number % 3 != 0
        seen = []
        for batch in batches:
            earned = np.zeros((count, n))
            ends, players = np.zeros(count, np.int64), np.zeros(count, np.int64)
            taken, deciding = actions.copy(), np.zeros(count, np.int8)
            observations = np.zeros((count, game.observation_size), np.float32)
            masks = np.zeros((count, game.num_actions), np.int8)
            waiting = batch.play_codes(
                stops, codes, active, earned, ends, players, taken, deciding, observations, masks
            )
            views, stopped = np.zeros_like(observations), np.zeros_like(masks)
            batch.observe(np.where(ends == RUNNING, -1, -2), views, stopped)
            seen.append(
                (waiting, earned, ends, players, taken, deciding, observations, masks, stopped)
            )
        for index in range(1, len(batches)):
            assert all(np.array_equal(a, b) for a, b in zip(seen[0], seen[index], strict=True)), (
                round_number,
                index,
            )
        _, _, ends, players, taken, deciding, _, _, stopped = seen[0]
        over = active & (ends != RUNNING)
        to_decide = active & ~over & ((deciding == 1) | (players == stops))
        actions = np.where(taken >= 0, taken, -1)  # an inactive game keeps its action
        for b in np.flatnonzero(to_decide).tolist():
            actions[b] = rng.choice(np.flatnonzero(stopped[b]))
        ends_seen += ends[over].tolist()
        decided += int(deciding.sum())
        for batch in batches:
            batch.start(over)
    assert ends_seen.count(OVER) >= 5 and ends_seen.count(TRUNCATED) >= 2 and decided >= 100
    if batches[0].tables:
        assert batches[0].memory.shape[2] > 2


def test_a_state_converts_to_numpy_and_back():
    expected = np.random.default_rng(5)
    expected.permutation(10)  # leaves half a 64-bit draw buffered
    rng = np.zeros(kernel_random.SIZE, np.int64)
    kernel_random.set_numpy_state(rng, expected.bit_generator.state)
    assert kernel_random.numpy_state(rng) == expected.bit_generator.state
    assert expected.bit_generator.state["has_uint32"] == 1
    cards = np.arange(30)
    PLAIN_RANDOM.shuffle(cards, 0, 30, rng)
    assert np.array_equal(cards, expected.permutation(30))
    with pytest.raises(ValueError, match="PCG64"):
        kernel_random.set_numpy_state(rng, np.random.MT19937(0).state)


# ----------------------------------------------------------------------------------------------
# The batch against the AEC environment
# ----------------------------------------------------------------------------------------------


def play_side_by_side(
    name: str,
    config: dict,
    seeds: list[int],
    games_each: int,
    compiled: bool,
    watch=None,
    max_cycles: int | None = None,
) -> int:
    """Random legal play in a batch and in one AEC environment of game ``name`` per seed,
    compared at every step:
    each environment's observation and mask of the player to act (and every other seat's
    observation), the rewards of all seats, terminations and truncations. After a game ends the
    batch starts the next one and the environment deals with ``reset()`` (no seed), until each
    has played ``games_each`` games, each cut at ``max_cycles`` agent steps (default: the
    game's). ``watch(env)``, if given, sees each environment after each of its steps. Returns
    the number of steps compared."""
    envs = [GAMES[name].module().raw_env(max_cycles=max_cycles, **config) for _ in seeds]
    game = envs[0].game
    count, n = len(seeds), game.num_players
    batch = GameBatch(game, count, max_cycles, compiled)
    batch.seed(np.array(seeds))
    batch.start(np.ones(count, bool))
    for env, seed in zip(envs, seeds):
        env.reset(seed=seed)
    observations = np.zeros((count, game.observation_size), np.float32)
    masks = np.zeros((count, game.num_actions), np.int8)
    rewards, ends = np.zeros((count, n)), np.zeros(count, np.int64)
    players = np.zeros(count, np.int64)
    choose = np.random.default_rng(sum(seeds))
    games_played = np.zeros(count, np.int64)
    compared = 0
    while (games_played < games_each).any():
        actions = np.full(count, -1, np.int64)
        for seat in range(n):  # every seat's view of every game
            batch.observe(np.full(count, seat), observations, masks)
            for b, env in enumerate(envs):
                if games_played[b] < games_each:
                    expected = env.observe(f"player_{seat}")
                    assert np.array_equal(observations[b], expected["observation"])
                    assert np.array_equal(masks[b], expected["action_mask"])
        batch.current_players(players)
        for b, env in enumerate(envs):
            if games_played[b] < games_each:
                assert players[b] == env.agent_name_mapping[env.agent_selection]
                legal = np.flatnonzero(env.infos[env.agent_selection]["action_mask"])
                actions[b] = legal[choose.integers(legal.size)]
                env.step(int(actions[b]))
                if watch is not None:
                    watch(env)
        batch.step(actions, rewards, ends)
        finished = np.zeros(count, bool)
        for b, env in enumerate(envs):
            if actions[b] < 0:
                continue
            compared += 1
            expected = [env.rewards[agent] for agent in env.possible_agents]
            assert str(rewards[b].tolist()) == str(expected)  # -0.0 where the env gives it
            terminated, truncated = all(env.terminations.values()), all(env.truncations.values())
            assert ends[b] == (OVER if terminated else TRUNCATED if truncated else RUNNING)
            if terminated or truncated:
                games_played[b] += 1
                finished[b] = games_played[b] < games_each
                if finished[b]:
                    env.reset()
        batch.start(finished)
    return compared


@pytest.mark.parametrize("game_and_config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("compiled", KERNELS)
def test_the_batch_plays_the_aec_envs_games_step_by_step(game_and_config, compiled):
    """Compiled: Nobody Wants It 42 seeds x 2 games in a row x 14 configurations = 1,176 games,
    Believe It or Not 17 x 2 x 30 = 1,020, Minus Two 24 x 2 x 20 = 960; plain: 140, 120, 80."""
    name, config = game_and_config
    count = SEEDS_PER_CONFIG[name][0 if compiled else 1]
    seeds = list(range(count)) if compiled else [7, 2**40 + 3, 11, 5, 1000][:count]
    compared = play_side_by_side(name, config, seeds, games_each=2, compiled=compiled)
    assert compared >= MIN_DECISIONS[name] * 2 * len(seeds)


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("nobody_wants_it", {"num_players": 3, "reward": "points", "num_rounds": 1}),
        ("believe_it_or_not", {"num_players": 3, "variant": "quick"}),
    ],
)
def test_a_game_cut_at_max_cycles_is_truncated_with_no_reward(name, config):
    env = GAMES[name].module().raw_env(max_cycles=5, **config)
    batch = GameBatch(env.game, 2, max_cycles=5, compiled=False)
    batch.seed(np.array([3, 4]))
    batch.start(np.ones(2, bool))
    env.reset(seed=3)
    rewards, ends = np.zeros((2, 3)), np.zeros(2, np.int64)
    masks = np.zeros((2, env.game.num_actions), np.int8)
    observations = np.zeros((2, env.game.observation_size), np.float32)
    for step in range(5):
        batch.observe(np.full(2, -1), observations, masks)
        assert np.array_equal(observations[0], env.observe(env.agent_selection)["observation"])
        actions = np.array([np.flatnonzero(masks[0])[0], -1])
        env.step(int(actions[0]))
        batch.step(actions, rewards, ends)
        assert ends.tolist() == ([TRUNCATED, RUNNING] if step == 4 else [RUNNING, RUNNING])
    assert all(env.truncations.values())
    assert rewards.tolist() == [[0.0] * 3] * 2
    assert batch.steps.tolist() == [5, 0]  # a game without an action is left alone


@needs_numba
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_kernel_calls_compiled_code_of_its_own_file_only(name):
    """numba's on-disk cache notices a change in a cached function's own file only, so every
    compiled function a kernel can call (its drivers, its rules, its heuristics) is written in
    its own file: a change to any of them reloads them all. The exceptions are the generator
    (``kernel_random``) and the copies of runs (``kernel_arrays``), taken by
    ``kernel_dependency``; a change there needs the cache cleared, as their docstrings say."""
    kernel = importlib.import_module(GAMES[name].game_class().kernel_module)
    own = {kernel.__file__, kernel_random.__file__, kernel_arrays.__file__}
    compiled = {key: value for key, value in vars(kernel).items() if hasattr(value, "py_func")}
    modules = [value for value in vars(kernel).values() if isinstance(value, ModuleType)]
    assert len(compiled) > 20 and modules[0] is kernel_random
    assert set(modules) <= {kernel_random, kernel_arrays}
    assert [
        key for key, value in compiled.items() if value.py_func.__code__.co_filename not in own
    ] == []


@needs_numba
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_kernel_compiles_without_numbas_reference_counting(name):
    """Every compiled function a kernel can call, the generator's and the copies' included, is
    compiled without numba's runtime (``kernels.COMPILE_OPTIONS``): with it, every view and call
    paid an atomic reference count, half of a vector step. A function compiled with numba's
    default options (``numba.njit`` itself) fails here."""
    kernel = importlib.import_module(GAMES[name].game_class().kernel_module)
    compiled = [
        (module.__name__, key, value)
        for module in (kernel, kernel_random, kernel_arrays)
        for key, value in vars(module).items()
        if hasattr(value, "targetoptions")
    ]
    assert len(compiled) > 30
    assert [
        (module, key) for module, key, value in compiled if value.targetoptions.get("_nrt", True)
    ] == []


@needs_numba
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_rows_are_32_bit_and_the_plain_kernel_reads_python_ints(name, monkeypatch):
    """Decision (32-bit rows): a compiled batch, a compiled game's state and the search
    playouts keep their rows as 32-bit integers; a plain batch's arrays are 64-bit. A plain
    game whose row is a 32-bit array (a field asked for) gives the compiled game's masks and
    observations step by step: the plain kernel reads Python ints from it (from numpy's 32-bit
    scalars Minus Two's legal-action code, bits up to 55, overflowed)."""
    game = load_game(name)
    assert GameBatch(game, 2, compiled=True).rows.dtype == np.int32
    assert GameBatch(game, 2, compiled=False).rows.dtype == np.int64
    monkeypatch.setattr(packed, "COMPILED", True)
    compiled_game = load_game(name)
    monkeypatch.setattr(packed, "COMPILED", False)
    plain_game = load_game(name)
    compiled_state = compiled_game.new_state(np.random.default_rng(5))
    plain_state = plain_game.new_state(np.random.default_rng(5))
    getattr(plain_state, plain_state.fields[-1])  # a field asked for: the row is an array now
    rng, steps = np.random.default_rng(6), 0
    while not compiled_state.terminal and steps < 300:
        player = compiled_state.current_player
        assert type(plain_state.row) is np.ndarray and plain_state.row.dtype == np.int32
        mask = compiled_game.legal_mask(compiled_state, player)
        assert np.array_equal(plain_game.legal_mask(plain_state, player), mask)
        assert np.array_equal(
            plain_game.observe(plain_state, player), compiled_game.observe(compiled_state, player)
        )
        action = int(rng.choice(np.flatnonzero(mask)))
        compiled_game.apply(compiled_state, action)
        plain_game.apply(plain_state, action)
        steps += 1
    assert compiled_state.row.dtype == np.int32 and steps >= 30
    playout = importlib.import_module(f"cardzoo.envs.{name}.playout")
    states = [compiled_state]
    arguments = (compiled_game, states) if name == "believe_it_or_not" else (states,)
    assert playout.pack(*arguments).dtype == np.int32


def test_a_game_without_a_kernel_has_no_batch():
    from cardzoo.envs.foxy.rules import Foxy

    with pytest.raises(InputError, match="foxy has no vector form yet"):
        GameBatch(Foxy(), 4)


@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_batch_needs_a_game_at_least(name):
    with pytest.raises(InputError, match="num_envs=0 is out of range"):
        GameBatch(load_game(name), 0)


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_batch_scores_its_games_as_the_game_does(name, compiled):
    """GameBatch.scores (the kernel's scores_games) gives every game's Game.scores, game by
    game, after every step of random play (the training sampler's score shaping reads it)."""
    game = load_game(name)
    batch = GameBatch(game, 6, compiled=compiled)
    batch.seed(np.arange(6, dtype=np.int64) + 40)
    batch.start(np.ones(6, bool))
    states = [game.state_class(game.row_layout, row, None) for row in batch.rows]
    rng = np.random.default_rng(3)
    observations = np.zeros((6, game.observation_size), np.float32)
    masks = np.zeros((6, game.num_actions), np.int8)
    rewards, ends = np.zeros((6, game.num_players)), np.zeros(6, np.int64)
    scores = np.zeros((6, game.num_players), np.int64)
    seen = set()
    for _ in range(400):
        batch.observe(np.full(6, -1), observations, masks)
        batch.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]), rewards, ends)
        batch.scores(scores)
        assert scores.tolist() == [game.scores(state).tolist() for state in states]
        seen.update(map(tuple, scores.tolist()))
        batch.start(ends != RUNNING)
    assert len(seen) > 3  # the scores changed as the games went on


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("name", VECTOR_GAMES)
def test_a_batch_without_seats_in_kernel_deals_the_same_games_and_seeds_no_seat(name, compiled):
    """GameBatch(seats_in_kernel=False), the multi-agent vector env's: the same deals as a
    batch that seats agents in the kernel, from the same seeds; its policy and heuristic
    generators never seeded (all zeros); the drivers that would draw from them refused."""
    game = load_game(name)
    seeds = np.arange(5, dtype=np.int64) + 70
    batches = [GameBatch(game, 5, compiled=compiled, seats_in_kernel=s) for s in (True, False)]
    for each in batches:
        each.seed(seeds)
        each.start(np.ones(5, bool))
    seated, outside = batches
    assert outside.rows.tolist() == seated.rows.tolist()
    assert outside.env_rngs.tolist() == seated.env_rngs.tolist()
    assert not outside.policy_rngs.any() and not outside.heuristic_rngs.any()
    assert seated.policy_rngs.any()
    with pytest.raises(RuntimeError, match="seats_in_kernel=False"):
        outside.draw(0, 3)
    zeros = np.zeros(5, np.int64)
    with pytest.raises(RuntimeError, match="seats_in_kernel=False"):
        outside.step_seats(zeros.copy(), zeros - 1, 0, np.zeros(5), zeros.copy())
