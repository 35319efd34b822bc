"""Nobody Wants It's playout kernel: the rules on a packed int64 row, for fast rollouts.

Small integer functions only (no numpy calls), so that one source runs both compiled by numba
and as plain Python on lists (:mod:`cardzoo.envs.nobody_wants_it.playout` loads this file twice:
as ``kernel``, compiled when numba is installed, with numba's on-disk cache, and as
``kernel_plain``, never compiled). Rows are laid out as
:func:`~cardzoo.envs.nobody_wants_it.playout.row_layout` says; ``rng`` is a one-element array
(or list) holding the state of a xorshift32 generator, never 0.
"""

from cardzoo.envs.kernels import kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

from cardzoo.envs.nobody_wants_it.cards import NUM_CARDS, NUM_SPECIES  # noqa: E402, F401

# The scalars at the start of a packed row.
ROUND, DEALER, ACTIVE, CURRENT, DECISION, DRAW_SIZE, DISCARD_SIZE, TERMINAL = range(8)


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
