"""Nobody Wants It's rules on a packed int64 row: the kernel of the playouts and the vector games.

Small integer functions only (no numpy calls), so that one source runs both compiled by numba
and as plain Python (:func:`cardzoo.envs.kernels.plain_and_compiled` loads this file twice: as
``kernel``, compiled when numba is installed, with numba's on-disk cache, and as
``kernel_plain``, never compiled). Rows are laid out as
:func:`~cardzoo.envs.nobody_wants_it.playout.row_layout` says. ``rng`` is a generator of
:mod:`cardzoo.envs.kernel_random`: numpy's own (PCG64) where a game must deal and reshuffle
exactly as the engine does for the same seed (the vector games), xorshift32 for the playouts.

Two drivers play many rows per call: :func:`playouts` (search rollouts) and the functions of
"Many games at once" (:mod:`cardzoo.envs.batch`, the vector environments). They live in this
file because numba's cache notices a change in a cached function's own file only.
"""

from cardzoo.envs import kernel_random
from cardzoo.envs.kernels import kernel_dependency, kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

from cardzoo.envs.nobody_wants_it.cards import NUM_CARDS, NUM_SPECIES  # noqa: E402, F401

_random = kernel_dependency(kernel_random, PLAIN)
below, shuffle, seed_xorshift = _random.below, _random.shuffle, _random.seed_xorshift
next_seed, seed_numpy = _random.next_seed, _random.seed_numpy

# The scalars at the start of a packed row.
ROUND, DEALER, ACTIVE, CURRENT, DECISION, DRAW_SIZE, DISCARD_SIZE, TERMINAL = range(8)
NUM_ACTIONS = 16
# Where each observation field starts, in the order of the ``starts`` argument of observe().
OBSERVATION_FIELDS = (
    "hand",
    "hand_sizes",
    "discard_top",
    "discard_counts",
    "draw_size",
    "nwi_position",
    "scores",
    "round",
    "decision",
    "active",
    "to_act",
)


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
    # The engine deals the shuffled deck from its first card; this deals from the end.
    for card in range(36):
        row[draw + card], row[draw + 71 - card] = row[draw + 71 - card], row[draw + card]
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
def legal_mask(row, n, rounds, mask):
    """The legal actions of the player to decide, 1 or 0 in ``mask`` (all 0 once the game is
    over); returns how many there are."""
    for action in range(NUM_ACTIONS):
        mask[action] = 0
    if row[TERMINAL]:
        return 0
    hands = 8 + 4 * row[CURRENT]
    decision = row[DECISION]
    if decision == 1:  # pig answer
        mask[10] = 1
        mask[11] = 1
        return 2
    count = 0
    for species in range(4):
        held = row[hands + species]
        if decision == 2:  # horse gift
            if held > 0:
                mask[12 + species] = 1
                count += 1
            continue
        if held > 0:
            mask[species] = 1
            count += 1
        if held > 1:
            mask[4 + species] = 1
            count += 1
    if decision == 0:
        mask[8] = 1
        count += 1
        if row[DISCARD_SIZE] > 0:
            mask[9] = 1
            count += 1
    return count


@jit
def random_action(row, n, rounds, rng, mask):
    """Uniform among the legal actions (``mask``: scratch of NUM_ACTIONS)."""
    pick = below(rng, legal_mask(row, n, rounds, mask))
    for action in range(NUM_ACTIONS):
        if mask[action]:
            if pick == 0:
                return action
            pick -= 1
    return -1


@jit
def observe(row, n, rounds, player, starts, out):
    """The observation vector of ``player`` into ``out`` (``starts``: where each field of
    OBSERVATION_FIELDS starts, from the engine's observation layout)."""
    hands, hand_sizes, _, discard, counts, nwi, _, points = offsets(n, rounds)
    for index in range(len(out)):
        out[index] = 0.0
    for species in range(4):
        out[starts[0] + species] = row[hands + 4 * player + species]
        out[starts[3] + species] = row[counts + species]
    for relative in range(n):
        seat = (player + relative) % n
        out[starts[1] + relative] = row[hand_sizes + seat]
        out[starts[6] + relative] = row[points + seat]
    if row[DISCARD_SIZE] > 0:
        out[starts[2] + row[discard + row[DISCARD_SIZE] - 1]] = 1.0
    out[starts[4]] = row[DRAW_SIZE]
    round_number = row[ROUND]
    for species in range(4):
        holder = row[nwi + 4 * (round_number - 1) + species]
        place = 0 if holder < 0 else (holder - player + n) % n + 1  # 0: on its pile
        out[starts[5] + species * (n + 1) + place] = 1.0
    out[starts[7] + round_number - 1] = 1.0
    out[starts[8] + row[DECISION]] = 1.0
    out[starts[9] + (row[ACTIVE] - player + n) % n] = 1.0
    out[starts[10] + (row[CURRENT] - player + n) % n] = 1.0


@jit
def new_game(row, n, rounds, rng):
    """A new game: round 1 dealt by the last seat, so that seat 0 plays first."""
    _, _, _, _, _, nwi, _, points = offsets(n, rounds)
    row[ROUND] = 1
    row[TERMINAL] = 0
    for place in range(4 * rounds):
        row[nwi + place] = -1  # every NWI card on its pile
    for index in range(3 * n):  # points, then penalty cards
        row[points + index] = 0
    deal(row, n, rounds, n - 1, rng)


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
    rows,
    first_actions,
    seeds,
    n,
    rounds,
    max_steps,
    rng,
    mask,
    random_permille,
    nwi_aware,
    one_round,
):
    # rows[b] played to the end of the game (of its round if one_round; or max_steps),
    # first_actions[b] first unless it is -1; each action random with probability
    # random_permille / 1000, else shedding_action.
    for b in range(len(rows)):
        row = rows[b]
        seed_xorshift(rng, seeds[b])
        steps = 0
        round_number = row[ROUND]
        if first_actions[b] >= 0 and row[TERMINAL] == 0:
            apply_action(row, n, rounds, first_actions[b], rng)
            steps += 1
        while row[TERMINAL] == 0 and steps < max_steps:
            if one_round and row[ROUND] != round_number:
                break
            if random_permille >= 1000 or below(rng, 1000) < random_permille:
                action = random_action(row, n, rounds, rng, mask)
            else:
                action = shedding_action(row, n, rounds, nwi_aware)
            apply_action(row, n, rounds, action, rng)
            steps += 1


# ----------------------------------------------------------------------------------------------
# Many games at once (the vector environments: cardzoo.envs.batch)
# ----------------------------------------------------------------------------------------------
# Every function here takes the game's parameters last, as Game.kernel_parameters() gives them:
# (num_players, num_rounds, points_reward). Game b is rows[b], dealt and reshuffled by its
# generator rngs[b] (numpy's, as the engine's state.rng), which is drawn from env_rngs[b] for
# every new game (as an environment's reset draws the game's generator from its own); steps[b]
# counts its agent steps against max_cycles. Ends: 0 running, 1 over by the rules, 2 truncated.
RUNNING, OVER, TRUNCATED = 0, 1, 2


@jit
def row_size(n, rounds, points_reward):
    """The length of a packed row."""
    return offsets(n, rounds)[7] + 3 * n  # points, then penalty cards


@jit
def start_games(rows, rngs, env_rngs, steps, games, n, rounds, points_reward):
    """A new game in every row b with games[b] true."""
    for b in range(len(rows)):
        if games[b]:
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(rows[b], n, rounds, rngs[b])
            steps[b] = 0


@jit
def observe_games(rows, players, starts, observations, masks, n, rounds, points_reward):
    """observations[b] of seat players[b] (-1: the player to decide) and masks[b] its legal
    actions (all 0 unless that seat decides now); rows with players[b] < -1 are skipped."""
    for b in range(len(rows)):
        if players[b] < -1:
            continue
        row = rows[b]
        player = row[CURRENT] if players[b] < 0 else players[b]
        observe(row, n, rounds, player, starts, observations[b])
        if player == row[CURRENT]:
            legal_mask(row, n, rounds, masks[b])
        else:
            for action in range(NUM_ACTIONS):
                masks[b][action] = 0


@jit
def current_players(rows, players, n, rounds, points_reward):
    for b in range(len(rows)):
        players[b] = rows[b][CURRENT]


@jit
def seat_reward(row, n, rounds, seat, points_before, points_reward):
    """What ``seat`` earned by the action just applied: minus the points it gained (points
    reward), or at the end of the game +1 for a winner and -1 for the others."""
    points = offsets(n, rounds)[7]
    if points_reward:
        return points_before - row[points + seat]
    if row[TERMINAL] == 0:
        return 0
    for player in range(n):
        if row[points + player] < row[points + seat]:
            return -1
    return 1


@jit
def end_of(row, steps, max_cycles):
    if row[TERMINAL]:
        return OVER
    return TRUNCATED if steps >= max_cycles else RUNNING


@jit
def step_games(rows, rngs, steps, actions, max_cycles, rewards, ends, n, rounds, points_reward):
    """Every row b with actions[b] >= 0 takes that action (legal: the caller checks) for the
    player to decide; rewards[b] what each seat earned (0 on a truncating step), ends[b] how the
    game stands. Rows with actions[b] < 0 are left alone (rewards 0, ends RUNNING)."""
    points = offsets(n, rounds)[7]
    for b in range(len(rows)):
        row = rows[b]
        ends[b] = RUNNING
        for player in range(n):
            rewards[b][player] = 0
        if actions[b] < 0:
            continue
        for player in range(n):
            rewards[b][player] = row[points + player]  # the points before, for a moment
        apply_action(row, n, rounds, actions[b], rngs[b])
        steps[b] += 1
        ends[b] = end_of(row, steps[b], max_cycles)
        for player in range(n):
            earned = seat_reward(row, n, rounds, player, rewards[b][player], points_reward)
            rewards[b][player] = 0 if ends[b] == TRUNCATED else earned


@jit
def take_action(row, rng, steps, b, action, seat, max_cycles, n, rounds, points_reward):
    """Game b (``row``) takes ``action``; returns what ``seat`` earned (0 on a truncating step)."""
    before = row[offsets(n, rounds)[7] + seat]
    apply_action(row, n, rounds, action, rng)
    steps[b] += 1
    if end_of(row, steps[b], max_cycles) == TRUNCATED:
        return 0
    return seat_reward(row, n, rounds, seat, before, points_reward)


@jit
def play_others(
    rows, rngs, policy_rngs, steps, b, seat, max_cycles, mask, n, rounds, points_reward
):
    """Uniformly random play by every seat but ``seat`` in game b until ``seat`` must decide or
    the game ends; returns what ``seat`` earned meanwhile."""
    row = rows[b]
    earned = 0.0
    while end_of(row, steps[b], max_cycles) == RUNNING and row[CURRENT] != seat:
        action = random_action(row, n, rounds, policy_rngs[b], mask)
        earned += take_action(
            row, rngs[b], steps, b, action, seat, max_cycles, n, rounds, points_reward
        )
    return earned


@jit
def step_seats(
    rows,
    rngs,
    env_rngs,
    policy_rngs,
    steps,
    seats,
    actions,
    learner_seat,
    max_cycles,
    max_deals,
    rewards,
    ends,
    mask,
    n,
    rounds,
    points_reward,
):
    """One decision of the learner in every game, the other seats played uniformly at random.

    Row b with actions[b] >= 0: the learner (seats[b]) takes it, then the others play until the
    learner decides again or the game ends; rewards[b] is what the learner earned, ends[b] how the
    game stands. Row b with actions[b] == -1: a new episode (rewards 0): a new game, the
    learner's seat ``learner_seat`` or, if -1, drawn from policy_rngs[b], and the others play
    up to the learner's first decision, dealing again (at most ``max_deals`` times) while a game
    ends before it. Rows with actions[b] < -1 are left alone. Returns -1, or the first row that
    was dealt ``max_deals`` times in vain."""
    for b in range(len(rows)):
        row = rows[b]
        seat = seats[b]
        if actions[b] >= 0:
            earned = take_action(
                row, rngs[b], steps, b, actions[b], seat, max_cycles, n, rounds, points_reward
            )
            earned += play_others(
                rows, rngs, policy_rngs, steps, b, seat, max_cycles, mask, n, rounds, points_reward
            )
            rewards[b] = earned
            ends[b] = end_of(row, steps[b], max_cycles)
            continue
        rewards[b] = 0
        ends[b] = RUNNING
        if actions[b] < -1:
            continue
        deals = 0
        while deals == 0 or end_of(row, steps[b], max_cycles) != RUNNING:
            if deals == max_deals:
                return b
            deals += 1
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(row, n, rounds, rngs[b])
            steps[b] = 0
            seats[b] = learner_seat if learner_seat >= 0 else below(policy_rngs[b], n)
            play_others(
                rows,
                rngs,
                policy_rngs,
                steps,
                b,
                seats[b],
                max_cycles,
                mask,
                n,
                rounds,
                points_reward,
            )
    return -1
