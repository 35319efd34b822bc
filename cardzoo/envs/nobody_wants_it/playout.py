"""Nobody Wants It played to the end at random, many games in one call: the rollouts of search.

Search agents (:mod:`cardzoo.agents.search`) finish thousands of sampled games per move with
uniformly random legal actions. Through the engine (``legal_mask`` + ``apply``, numpy calls on
tiny arrays) that costs milliseconds per game; here a game is packed into one int64 row
(:func:`pack`) and a batch of rows is played out by a few small integer functions.

Those functions are compiled by numba when it is installed (the ``search`` extra) and run as
plain Python otherwise, on Python lists. **Decision:** both run the very same source, with
integer arithmetic only and a random generator of their own (xorshift32, seeded per game from
the caller's numpy ``Generator``), so the compiled and the plain results are identical, bit for
bit, on every machine; only the speed differs (benchmarks/search.py measures both).

The rules are the engine's (:mod:`cardzoo.envs.nobody_wants_it.rules`); tests play both side by
side. Random choices differ from the engine's (its deals and reshuffles draw from the game's
numpy generator): a playout is another sample of the same game, not a replay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cardzoo.envs.nobody_wants_it.rules import (
    NUM_CARDS,
    NUM_SPECIES,
    NobodyWantsIt,
    NobodyWantsItState,
)

try:  # optional: the ``search`` extra
    import numba
except ImportError:  # pragma: no cover - depends on the installation
    numba = None

# The scalars at the start of a packed row.
ROUND, DEALER, ACTIVE, CURRENT, DECISION, DRAW_SIZE, DISCARD_SIZE, TERMINAL = range(8)
NUM_SCALARS = 8
#: steps after which a playout stops where it is (the environment's own truncation limit)
MAX_STEPS = NobodyWantsIt.default_max_cycles


def row_layout(num_players: int, num_rounds: int) -> dict[str, int]:
    """Where each part of a packed row starts, and the row's length (``"size"``)."""
    n = num_players
    starts = {}
    position = NUM_SCALARS
    for name, length in (
        ("hands", n * NUM_SPECIES),
        ("hand_sizes", n),
        ("draw_pile", NUM_CARDS),
        ("discard_pile", NUM_CARDS),
        ("discard_counts", NUM_SPECIES),
        ("nwi_holder", num_rounds * NUM_SPECIES),
        ("horse_gifts", n),
        ("points", n),
        ("penalty_cards", 2 * n),
    ):
        starts[name] = position
        position += length
    starts["size"] = position
    return starts


_ARRAY_PARTS = (
    "hands",
    "hand_sizes",
    "draw_pile",
    "discard_pile",
    "discard_counts",
    "nwi_holder",
    "horse_gifts",
    "points",
    "penalty_cards",
)


def pack(states: Sequence[NobodyWantsItState]) -> np.ndarray:
    """The states as rows of an int64 array, one per state (see :func:`row_layout`)."""
    if not states:
        raise ValueError("pack needs at least one state")
    first = states[0]
    num_players, num_rounds = first.hands.shape[0], first.nwi_holder.shape[0]
    layout = row_layout(num_players, num_rounds)
    parts = [(layout[name], layout[name] + getattr(first, name).size) for name in _ARRAY_PARTS]
    rows = np.empty((len(states), layout["size"]), np.int64)
    previous = None
    for index, state in enumerate(states):
        row = rows[index]
        if state is previous:  # the same world after several first actions: packed once
            row[:] = rows[index - 1]
            continue
        previous = state
        row[:NUM_SCALARS] = (
            state.round_number,
            state.dealer,
            state.active_player,
            state.current_player,
            state.decision,
            state.draw_size,
            state.discard_size,
            state.terminal,
        )
        for (start, stop), name in zip(parts, _ARRAY_PARTS):
            row[start:stop] = getattr(state, name).reshape(-1)
    return rows


def unpack(game: NobodyWantsIt, row: np.ndarray, rng: np.random.Generator) -> NobodyWantsItState:
    """The engine's state of a packed row (for tests and debugging); ``rng`` becomes its
    generator, and no deck is fixed."""
    layout = row_layout(game.num_players, game.num_rounds)
    state = game.new_state(rng)
    state.round_number, state.dealer, state.active_player, state.current_player = (
        int(v) for v in row[:4]
    )
    state.decision, state.draw_size, state.discard_size = (int(v) for v in row[4:7])
    state.terminal = bool(row[TERMINAL])
    for name in _ARRAY_PARTS:
        target = getattr(state, name)
        start = layout[name]
        target[...] = row[start : start + target.size].reshape(target.shape)
    return state


# ----------------------------------------------------------------------------------------------
# The kernel: built twice from one source, compiled (numba) and plain (Python)
# ----------------------------------------------------------------------------------------------


def _build_kernel(jit: Callable) -> tuple[Callable, Callable]:
    """``(playouts, apply_action)`` made of functions wrapped by ``jit`` (numba's ``njit`` or
    nothing). Rows are int64 arrays (compiled) or lists (plain); ``rng`` is a one-element array
    or list holding the xorshift32 state, never 0."""

    @jit
    def next_random(rng):
        x = rng[0]
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        rng[0] = x
        return x

    @jit
    def below(rng, k):
        # A number in 0..k-1 from the high bits (the low bits of xorshift are the weak ones).
        return (next_random(rng) * k) >> 32

    @jit
    def offsets(n, rounds):
        hands = 8
        hand_sizes = hands + 4 * n
        draw = hand_sizes + n
        discard = draw + 72
        counts = discard + 72
        nwi = counts + 4
        gifts = nwi + 4 * rounds
        points = gifts + n
        return hands, hand_sizes, draw, discard, counts, nwi, gifts, points

    @jit
    def add_penalty(row, n, rounds, player, value):
        _, _, _, _, _, _, _, points = offsets(n, rounds)
        row[points + player] += value
        row[points + n + 2 * player + value // 4] += 1  # penalty_cards: [2-point, 4-point]

    @jit
    def shuffle(row, start, size, rng):
        for i in range(size - 1, 0, -1):
            j = below(rng, i + 1)
            row[start + i], row[start + j] = row[start + j], row[start + i]

    @jit
    def gain(row, n, rounds, player, species, amount):
        hands, hand_sizes, _, _, _, _, _, _ = offsets(n, rounds)
        row[hands + 4 * player + species] += amount
        row[hand_sizes + player] += amount

    @jit
    def deal(row, n, rounds, dealer, rng):
        hands, hand_sizes, draw, _, counts, _, gifts, _ = offsets(n, rounds)
        for card in range(72):
            row[draw + card] = card // 18
        shuffle(row, draw, 72, rng)
        size = 72
        for player in range(n):
            for species in range(4):
                row[hands + 4 * player + species] = 0
            row[hand_sizes + player] = 0
            row[gifts + player] = -1
        for k in range(9 * n):
            size -= 1
            gain(row, n, rounds, (dealer + 1 + k) % n, row[draw + size], 1)
        row[DRAW_SIZE] = size
        row[DISCARD_SIZE] = 0
        for species in range(4):
            row[counts + species] = 0
        row[DEALER] = dealer
        row[ACTIVE] = (dealer + 1) % n
        row[CURRENT] = (dealer + 1) % n
        row[DECISION] = 0

    @jit
    def draw_card(row, n, rounds, player, rng):
        _, _, draw, discard, counts, _, _, _ = offsets(n, rounds)
        if row[DRAW_SIZE] == 0:
            size = row[DISCARD_SIZE]
            if size == 0:
                return
            for i in range(size):
                row[draw + i] = row[discard + i]
            shuffle(row, draw, size, rng)
            row[DRAW_SIZE] = size
            row[DISCARD_SIZE] = 0
            for species in range(4):
                row[counts + species] = 0
        row[DRAW_SIZE] -= 1
        gain(row, n, rounds, player, row[draw + row[DRAW_SIZE]], 1)

    @jit
    def discard_card(row, n, rounds, player, species):
        _, _, _, discard, counts, _, _, _ = offsets(n, rounds)
        gain(row, n, rounds, player, species, -1)
        row[discard + row[DISCARD_SIZE]] = species
        row[DISCARD_SIZE] += 1
        row[counts + species] += 1

    @jit
    def take_discard_top(row, n, rounds, player):
        _, _, _, discard, counts, _, _, _ = offsets(n, rounds)
        row[DISCARD_SIZE] -= 1
        species = row[discard + row[DISCARD_SIZE]]
        row[counts + species] -= 1
        gain(row, n, rounds, player, species, 1)

    @jit
    def end_round(row, n, rounds, closer, rng):
        _, hand_sizes, _, _, _, nwi, _, points = offsets(n, rounds)
        most, ties = -1, 0
        for player in range(n):
            size = row[hand_sizes + player] if player != closer else -1
            if size > most:
                most, ties = size, 1
            elif size == most:
                ties += 1
        second = -1
        for player in range(n):
            size = row[hand_sizes + player] if player != closer else -1
            if size < most and size > second:
                second = size
        for player in range(n):
            size = row[hand_sizes + player] if player != closer else -1
            if ties > 1:
                if size == most:
                    add_penalty(row, n, rounds, player, 2)
            elif size == most:
                add_penalty(row, n, rounds, player, 4)
            elif size == second and second >= 0:
                add_penalty(row, n, rounds, player, 2)
        round_number = row[ROUND]
        for species in range(4):
            place = nwi + 4 * (round_number - 1) + species
            holder = row[place]
            if holder == -1:
                row[place] = -2  # unclaimed: out of the game
            elif holder >= 0:
                row[points + holder] += round_number
        if round_number == rounds:
            row[TERMINAL] = 1
        else:
            row[ROUND] = round_number + 1
            deal(row, n, rounds, closer, rng)

    @jit
    def end_turn(row, n, rounds, rng):
        _, hand_sizes, _, _, _, _, _, _ = offsets(n, rounds)
        player = row[ACTIVE]
        if row[hand_sizes + player] == 0:
            end_round(row, n, rounds, player, rng)
        else:
            row[ACTIVE] = (player + 1) % n
            row[CURRENT] = (player + 1) % n
            row[DECISION] = 0

    @jit
    def apply_action(row, n, rounds, action, rng):
        hands, hand_sizes, _, _, _, nwi, gifts, _ = offsets(n, rounds)
        player = row[CURRENT]
        decision = row[DECISION]
        if decision == 1:  # pig answer
            if action == 11:
                take_discard_top(row, n, rounds, player)
            else:
                draw_card(row, n, rounds, player, rng)
            end_turn(row, n, rounds, rng)
        elif decision == 2:  # horse gift
            gain(row, n, rounds, player, action - 12, -1)
            row[gifts + player] = action - 12
            if (player + 1) % n != row[ACTIVE]:
                row[CURRENT] = (player + 1) % n
                return
            for giver in range(n):
                gain(row, n, rounds, (giver + 1) % n, row[gifts + giver], 1)
            for giver in range(n):
                row[gifts + giver] = -1
            end_turn(row, n, rounds, rng)
        elif action < 4:
            discard_card(row, n, rounds, player, action)
            if action == 1:
                row[DECISION] = 1
                row[CURRENT] = (player + 1) % n
                return
            if action == 2 and row[hand_sizes + player] > 0:
                row[DECISION] = 2
                return
            if action == 3:
                draw_card(row, n, rounds, player, rng)
            end_turn(row, n, rounds, rng)
        elif action < 8:
            species = action - 4
            discard_card(row, n, rounds, player, species)
            discard_card(row, n, rounds, player, species)
            place = nwi + 4 * (row[ROUND] - 1) + species
            holder = row[place]
            row[place] = (player + 1) % n if holder == -1 else (holder + 1) % n
            end_turn(row, n, rounds, rng)
        else:
            if action == 8:
                draw_card(row, n, rounds, player, rng)
            else:
                take_discard_top(row, n, rounds, player)
            end_turn(row, n, rounds, rng)
        return

    @jit
    def random_action(row, n, rounds, rng):
        # Uniform among the legal actions, exactly the engine's legal_mask.
        hands = 8 + 4 * row[CURRENT]
        decision = row[DECISION]
        if decision == 1:
            return 10 + below(rng, 2)
        if decision == 2:
            legal = 0
            for species in range(4):
                if row[hands + species] > 0:
                    legal += 1
            pick = below(rng, legal)
            for species in range(4):
                if row[hands + species] > 0:
                    if pick == 0:
                        return 12 + species
                    pick -= 1
        legal = 1 if row[DISCARD_SIZE] == 0 else 2  # the passes
        for species in range(4):
            count = row[hands + species]
            legal += (count > 0) + (count > 1)
        pick = below(rng, legal)
        for species in range(4):
            if row[hands + species] > 0:
                if pick == 0:
                    return species
                pick -= 1
        for species in range(4):
            if row[hands + species] > 1:
                if pick == 0:
                    return 4 + species
                pick -= 1
        return 8 + pick

    @jit
    def shedding_action(row, n, rounds, nwi_aware):
        # The hand_shedder heuristic: the largest pair; else a pig, horse, sheep; else a cow;
        # pig answers take a pig that completes a pair; horse gifts give a card without partner.
        # nwi_aware: among pairs, first one that passes on an NWI card I hold, last one that
        # brings an NWI card to me (nwi_dodger's first and last choices).
        player = row[CURRENT]
        hands = 8 + 4 * player
        decision = row[DECISION]
        if decision == 1:
            return 11 if row[hands + 1] % 2 == 1 else 10
        if decision == 2:
            for species in (3, 0, 2, 1):
                if row[hands + species] % 2 == 1:
                    return 12 + species
            for species in (3, 0, 2, 1):
                if row[hands + species] > 0:
                    return 12 + species
        _, _, _, _, _, nwi, _, _ = offsets(n, rounds)
        best, best_value = -1, -1000
        for species in range(4):
            count = row[hands + species]
            if count < 2:
                continue
            value = count
            if nwi_aware:
                holder = row[nwi + 4 * (row[ROUND] - 1) + species]
                lands_on = (player + 1) % n if holder == -1 else (holder + 1) % n
                if holder == player:
                    value += 100
                elif lands_on == player:
                    value -= 50
            if value > best_value:
                best, best_value = species, value
        if best >= 0:
            return 4 + best
        for species in (1, 2, 0, 3):
            if row[hands + species] > 0:
                return species
        return 8

    @jit
    def playouts(
        rows, first_actions, seeds, n, rounds, max_steps, rng, random_permille, nwi_aware, one_round
    ):
        # rows[b] played to the end of the game (of its round if one_round; or max_steps),
        # first_actions[b] first unless it is -1; each action random with probability
        # random_permille / 1000, else shedding_action.
        for b in range(len(rows)):
            row = rows[b]
            rng[0] = seeds[b]
            steps = 0
            round_number = row[ROUND]
            if first_actions[b] >= 0 and row[TERMINAL] == 0:
                apply_action(row, n, rounds, first_actions[b], rng)
                steps += 1
            while row[TERMINAL] == 0 and steps < max_steps:
                if one_round and row[ROUND] != round_number:
                    break
                if random_permille >= 1000 or below(rng, 1000) < random_permille:
                    action = random_action(row, n, rounds, rng)
                else:
                    action = shedding_action(row, n, rounds, nwi_aware)
                apply_action(row, n, rounds, action, rng)
                steps += 1

    return playouts, apply_action, shedding_action


def _plain(function: Callable) -> Callable:
    return function


_PLAIN = _build_kernel(_plain)
_COMPILED = _build_kernel(numba.njit) if numba is not None else None


#: rollout policies: name -> (the share of actions, per mille, played at random; whether the
#: others choose their pairs by where the NWI cards go). "random" is uniformly random legal
#: play, "shedder" mostly the hand_shedder heuristic, "dodger" mostly the same with nwi_dodger's
#: first and last choices among pairs.
POLICIES = {"random": (1000, False), "shedder": (100, False), "dodger": (100, True)}


def playouts(
    game: NobodyWantsIt,
    rows: np.ndarray,
    rng: np.random.Generator,
    first_actions: np.ndarray | None = None,
    compiled: bool | None = None,
    policy: str = "random",
    seed_groups: int = 1,
    one_round: bool = False,
) -> np.ndarray:
    """Play every packed row to the end of the game (of its round if ``one_round``), after
    ``first_actions[b]`` where it is >= 0, by ``policy`` (:data:`POLICIES`), in place; returns
    ``rows``. Seeds come from ``rng``, one per ``seed_groups`` consecutive rows (those rows play
    with the same random numbers: common random numbers for one world after different first
    actions). ``compiled`` None: numba if installed; False forces the plain Python kernel
    (identical results, slower); True requires numba."""
    if policy not in POLICIES:
        raise ValueError(
            f"policy={policy!r} is not a rollout policy; choose one of {list(POLICIES)}"
        )
    rows = np.ascontiguousarray(rows, np.int64)
    count = len(rows)
    if first_actions is None:
        first_actions = np.full(count, -1, np.int64)
    groups = -(-count // seed_groups)
    seeds = rng.integers(1, 2**32, size=groups, dtype=np.int64).repeat(seed_groups)[:count]
    if compiled is None:
        compiled = _COMPILED is not None
    if compiled and _COMPILED is None:
        raise ValueError("compiled=True needs numba: pip install 'cardzoo[search]'")
    arguments = (game.num_players, game.num_rounds, MAX_STEPS)
    options = (*POLICIES[policy], bool(one_round))
    if compiled:
        first = np.ascontiguousarray(first_actions, np.int64)
        _COMPILED[0](rows, first, seeds, *arguments, np.zeros(1, np.int64), *options)
        return rows
    as_lists = rows.tolist()
    first = np.asarray(first_actions).tolist()
    _PLAIN[0](as_lists, first, seeds.tolist(), *arguments, [0], *options)
    rows[:] = as_lists
    return rows


def apply_packed(
    game: NobodyWantsIt, row: np.ndarray, action: int, seed: int, compiled: bool = False
) -> np.ndarray:
    """A copy of ``row`` after ``action`` (for tests: the kernel's rules against the engine's)."""
    kernel = _COMPILED if compiled else _PLAIN
    if compiled:
        out = np.array(row, np.int64)
        kernel[1](out, game.num_players, game.num_rounds, action, np.array([seed], np.int64))
        return out
    out = list(map(int, row))
    kernel[1](out, game.num_players, game.num_rounds, action, [seed])
    return np.array(out, np.int64)


def policy_action(game: NobodyWantsIt, row: np.ndarray, policy: str) -> int:
    """The action the heuristic part of a rollout ``policy`` takes in a packed row (for tests;
    "random" has none)."""
    if policy not in POLICIES or policy == "random":
        raise ValueError(f"policy={policy!r}: choose one of {list(POLICIES)[1:]}")
    nwi_aware = POLICIES[policy][1]
    return int(_PLAIN[2](list(map(int, row)), game.num_players, game.num_rounds, nwi_aware))


def final_points(game: NobodyWantsIt, rows: np.ndarray) -> np.ndarray:
    """Each row's points per seat (the final scores of finished games)."""
    start = row_layout(game.num_players, game.num_rounds)["points"]
    return rows[:, start : start + game.num_players]


__all__ = [
    "apply_packed",
    "final_points",
    "pack",
    "playouts",
    "policy_action",
    "row_layout",
    "unpack",
]
