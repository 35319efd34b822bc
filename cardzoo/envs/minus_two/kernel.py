"""Minus Two's rules on a packed int64 row: the kernel of the playouts and the vector games.

Small integer functions only (no numpy calls), so that one source runs both compiled by numba
and as plain Python (:func:`cardzoo.envs.kernels.plain_and_compiled` loads this file twice: as
``kernel``, compiled when numba is installed, with numba's on-disk cache, and as
``kernel_plain``, never compiled). Rows are laid out as
:func:`~cardzoo.envs.minus_two.playout.row_layout` says. ``rng`` is a generator of
:mod:`cardzoo.envs.kernel_random`: numpy's own (PCG64) where a game must deal exactly as the
engine does for the same seed (the vector games), xorshift32 for the playouts. ``buf`` is
scratch room for the legal actions of one decision (:data:`MAX_LEGAL` numbers).

Card types: 0..9 = values 1..10, 10 = ``-2``, 11 = ``>>>``. Actions as the engine's:
``source * 144 + type * 12 + count - 1`` (source 0 hand, 1 face-up), 288..291 a face-down
position, 292 take the pile.

Two drivers play many rows per call: :func:`playouts` (search rollouts) and the functions of
"Many games at once" (:mod:`cardzoo.envs.batch`, the vector environments). They live in this
file because numba's cache notices a change in a cached function's own file only.
"""

from cardzoo.envs.kernels import kernel_dependency, kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

_random = kernel_dependency("cardzoo.envs.kernel_random", PLAIN)
below, shuffle, seed_xorshift = _random.below, _random.shuffle, _random.seed_xorshift
next_seed, seed_numpy = _random.next_seed, _random.seed_numpy

# The scalars at the start of a packed row.
CURRENT, PILE_SIZE, LIMIT, TARGET, DEALER, ROUND, TERMINAL, ROUND_WINNER = range(8)

MINUS_TWO, CLEAR = 10, 11
BLIND, TAKE_PILE = 288, 292
#: the most legal actions a decision can have (a hand of every card of a 6-player game)
MAX_LEGAL = 300
# Where each observation field starts, in the order of the ``starts`` argument of observe().
OBSERVATION_FIELDS = (
    "hand",
    "face_up",
    "face_down",
    "play_from",
    "hand_sizes",
    "face_up_sizes",
    "face_down_sizes",
    "totals",
    "pile_limit",
    "pile_size",
    "pile",
    "removed",
    "target",
)


@jit
def offsets(n):
    cards = 8  # (2, n, 12): hand and face-up row by type
    face_down = cards + 24 * n  # (n, 4): the card type at each position, -1 when gone
    sizes = face_down + 4 * n  # (3, n): cards in hand, face-up row, face-down row
    totals = sizes + 3 * n
    pile = totals + n  # (12,): the pile by type
    removed = pile + 12  # (12,): cards removed by >>> this round
    deck = removed + 12  # (13,): room to shuffle a colour at a deal
    return cards, face_down, sizes, totals, pile, removed, deck


@jit
def card_points(card, count_scoring):
    if count_scoring:
        return 1
    if card < MINUS_TWO:
        return card + 1
    return 20 if card == MINUS_TWO else 50


@jit
def held(row, n, player):
    _, _, sizes, _, _, _, _ = offsets(n)
    return row[sizes + player] + row[sizes + n + player] + row[sizes + 2 * n + player]


@jit
def play_source(row, n, player):
    # The engine's play_source: 0 hand, 1 face-up row, 2 face-down row.
    cards, _, sizes, _, _, _, _ = offsets(n)
    in_hand, face_up = row[sizes + player], row[sizes + n + player]
    if row[PILE_SIZE] > 0:
        if in_hand > 0:
            return 0
        return 1 if face_up > 0 else 2
    # Empty pile: skip a place that holds nothing but -2 (which cannot lead).
    if in_hand > row[cards + 12 * player + MINUS_TWO]:
        return 0
    if face_up > row[cards + 12 * (n + player) + MINUS_TWO]:
        return 1
    if row[sizes + 2 * n + player] > 0:
        return 2
    return 0 if in_hand > 0 else 1


@jit
def listed(out, k, action, as_mask):
    """Action ``action`` as the k-th of a list (``out[k]``) or in a mask (``out[action] = 1``)."""
    if as_mask:
        out[action] = 1
    else:
        out[k] = action
    return k + 1


@jit
def legal_actions(row, n, out, as_mask):
    """The engine's legal_mask of the player to act: as a list in increasing order, ``out[:k]``,
    or (``as_mask``) as 1 at each legal action of ``out``, zero elsewhere already; returns k,
    how many there are."""
    cards, face_down, sizes, _, _, _, _ = offsets(n)
    player = row[CURRENT]
    source = play_source(row, n, player)
    k = 0
    if source == 2:
        for position in range(4):
            if row[face_down + 4 * player + position] >= 0:
                k = listed(out, k, BLIND + position, as_mask)
        return k
    start = cards + 12 * (source * n + player)
    limit = row[LIMIT]
    can_play = False
    for card in range(12):
        count = row[start + card]
        if count == 0:
            continue
        # Empty pile (limit 0): any number and >>>, never -2; else up to the limit, -2, >>>.
        if (card != MINUS_TWO) if limit == 0 else (card < limit or card >= MINUS_TWO):
            for more in range(count):
                k = listed(out, k, source * 144 + card * 12 + more, as_mask)
            can_play = True
    in_hand, face_up = row[sizes + player], row[sizes + n + player]
    minus_twos = row[cards + 12 * player + MINUS_TWO] + row[cards + 12 * (n + player) + MINUS_TWO]
    if row[sizes + 2 * n + player] == 0 and minus_twos == in_hand + face_up:
        # The last cards: every -2 at once (the source holds only -2, so this comes last),
        # unless the source holds them all and they were listed as a play (on a pile).
        if limit == 0 or row[start + MINUS_TWO] != minus_twos:
            k = listed(out, k, source * 144 + MINUS_TWO * 12 + minus_twos - 1, as_mask)
    elif row[PILE_SIZE] > 0 and not can_play:
        k = listed(out, k, TAKE_PILE, as_mask)
    return k


@jit
def empty_pile(row, n):
    _, _, _, _, pile, _, _ = offsets(n)
    row[PILE_SIZE] = 0
    row[LIMIT] = 0
    for card in range(12):
        row[pile + card] = 0


@jit
def take_pile(row, n, player):
    cards, _, sizes, _, pile, _, _ = offsets(n)
    for card in range(12):
        row[cards + 12 * player + card] += row[pile + card]
    row[sizes + player] += row[PILE_SIZE]
    empty_pile(row, n)


@jit
def add_to_hand(row, n, player, card):
    cards, _, sizes, _, _, _, _ = offsets(n)
    row[cards + 12 * player + card] += 1
    row[sizes + player] += 1


@jit
def remove_every_minus_two(row, n, player):
    cards, _, sizes, _, _, _, _ = offsets(n)
    in_hand = row[cards + 12 * player + MINUS_TWO]
    face_up = row[cards + 12 * (n + player) + MINUS_TWO]
    row[cards + 12 * player + MINUS_TWO] = 0
    row[cards + 12 * (n + player) + MINUS_TWO] = 0
    row[sizes + player] -= in_hand
    row[sizes + n + player] -= face_up
    return in_hand + face_up


@jit
def deal(row, n, rng):
    # Every player's colour shuffled on its own, as the engine's Generator.permuted does (row by
    # row): 4 face down, 4 face up, 5 in hand.
    cards, face_down, sizes, _, _, removed, deck = offsets(n)
    for player in range(n):
        for slot in range(13):
            row[deck + slot] = slot if slot <= MINUS_TWO else slot - 1  # 1..10, -2, -2, >>>
        shuffle(row, deck, 13, rng)
        hand, face_up = cards + 12 * player, cards + 12 * (n + player)
        for card in range(12):
            row[hand + card] = 0
            row[face_up + card] = 0
        for slot in range(13):
            card = row[deck + slot]
            if slot < 4:
                row[face_down + 4 * player + slot] = card
            elif slot < 8:
                row[face_up + card] += 1
            else:
                row[hand + card] += 1
        row[sizes + player] = 5
        row[sizes + n + player] = 4
        row[sizes + 2 * n + player] = 4
    empty_pile(row, n)
    for card in range(12):
        row[removed + card] = 0
    row[CURRENT] = (row[DEALER] + 1) % n


@jit
def end_round(row, n, winner, last_minus_two, rng, count_scoring, target_raise):
    cards, face_down, sizes, totals, _, _, _ = offsets(n)
    for player in range(n):
        points = 0
        for card in range(12):
            count = row[cards + 12 * player + card] + row[cards + 12 * (n + player) + card]
            points += count * card_points(card, count_scoring)
        for position in range(4):
            card = row[face_down + 4 * player + position]
            if card >= 0:
                points += card_points(card, count_scoring)
        row[totals + player] += points  # the winner holds nothing: 0
    if not count_scoring:
        row[totals + winner] -= 80 if last_minus_two else 10
    row[ROUND_WINNER] = winner
    highest, lowest, lowest_count = row[totals], row[totals], 0
    for player in range(n):
        total = row[totals + player]
        highest = max(highest, total)
        lowest = min(lowest, total)
    for player in range(n):
        lowest_count += row[totals + player] == lowest
    if highest >= row[TARGET]:
        if lowest_count == 1:
            row[TERMINAL] = 1
            return
        row[TARGET] += target_raise  # a tie for lowest: play on to a higher target
    row[DEALER] = (row[DEALER] + 1) % n
    row[ROUND] += 1
    deal(row, n, rng)


@jit
def play(row, n, player, card, count, rng, count_scoring, target_raise):
    # ``count`` cards of ``card``, already out of the player's places, onto the pile.
    _, _, _, _, pile, removed, _ = offsets(n)
    row[PILE_SIZE] += count
    row[pile + card] += count
    if held(row, n, player) == 0:
        end_round(row, n, player, card == MINUS_TWO, rng, count_scoring, target_raise)
        return
    if card == CLEAR:
        for other in range(12):
            row[removed + other] += row[pile + other]
        empty_pile(row, n)
        return  # the same player leads the empty pile
    if card == MINUS_TWO:
        row[LIMIT] -= 2 * count
        if row[LIMIT] < 1:
            take_pile(row, n, player)
    else:
        row[LIMIT] = card + 1
    row[CURRENT] = (player + 1) % n


@jit
def turn_blind(row, n, player, position, rng, count_scoring, target_raise):
    _, face_down, sizes, _, _, _, _ = offsets(n)
    card = row[face_down + 4 * player + position]
    row[face_down + 4 * player + position] = -1
    row[sizes + 2 * n + player] -= 1
    if card == MINUS_TWO and row[PILE_SIZE] == 0:
        # Into the hand, and another face-down card; with none left, the last -2 played out.
        add_to_hand(row, n, player, card)
        if row[sizes + 2 * n + player] > 0:
            return
        count = remove_every_minus_two(row, n, player)
        play(row, n, player, MINUS_TWO, count, rng, count_scoring, target_raise)
        return
    if row[PILE_SIZE] == 0 or card >= MINUS_TWO or card < row[LIMIT]:
        play(row, n, player, card, 1, rng, count_scoring, target_raise)
        return
    add_to_hand(row, n, player, card)  # above the limit: into the hand with the pile
    take_pile(row, n, player)
    row[CURRENT] = (player + 1) % n


@jit
def apply_action(row, n, action, rng, count_scoring, target_raise):
    cards, _, sizes, _, _, _, _ = offsets(n)
    player = row[CURRENT]
    if action == TAKE_PILE:
        take_pile(row, n, player)
        row[CURRENT] = (player + 1) % n
        return
    if action >= BLIND:
        turn_blind(row, n, player, action - BLIND, rng, count_scoring, target_raise)
        return
    source = action // 144
    card = (action % 144) // 12
    count = action % 12 + 1
    place = cards + 12 * (source * n + player)
    if card == MINUS_TWO and count > row[place + MINUS_TWO]:
        remove_every_minus_two(row, n, player)  # the last cards, hand and face-up
    else:
        row[place + card] -= count
        row[sizes + source * n + player] -= count
    play(row, n, player, card, count, rng, count_scoring, target_raise)


@jit
def heuristic_action(row, n, buf, k, attacker):
    # The attacker heuristic (attacker true) or high_cards, on the legal actions buf[:k], exactly
    # as cardzoo.agents.minus_two chooses (without its loop breaker: rollouts mix in random
    # actions instead).
    if buf[0] >= BLIND:
        return buf[0]  # face-down cards are unseen: any position
    player = row[CURRENT]
    mine = held(row, n, player)
    plays = k - 1 if buf[k - 1] >= BLIND else k  # the take-pile action comes last
    for i in range(plays):
        if buf[i] % 12 + 1 == mine:
            return buf[i]  # going out
    limit, pile_size = row[LIMIT], row[PILE_SIZE]
    if not attacker and pile_size == 0:
        for i in range(plays):
            if (buf[i] % 144) // 12 == CLEAR and buf[i] % 12 == 0:
                return buf[i]
    if attacker and pile_size > 0 and held(row, n, (player + 1) % n) <= 3:
        best, most = -1, 0  # as many -2 as leave the limit at 1 or more
        for i in range(plays):
            count = buf[i] % 12 + 1
            if (buf[i] % 144) // 12 == MINUS_TWO and limit - 2 * count >= 1 and count > most:
                best, most = buf[i], count
        if best >= 0:
            return best
    top = -1  # the highest number that fits, every copy of it
    for i in range(plays):
        card = (buf[i] % 144) // 12
        if card < MINUS_TWO and card > top:
            top = card
    if top >= 0:
        best, most = -1, 0
        for i in range(plays):
            count = buf[i] % 12 + 1
            if (buf[i] % 144) // 12 == top and count > most:
                best, most = buf[i], count
        return best
    if pile_size > 0 and limit >= 3:  # one -2 that keeps the pile off my hand
        for i in range(plays):
            if (buf[i] % 144) // 12 == MINUS_TWO and buf[i] % 12 == 0:
                return buf[i]
    for i in range(plays):
        if (buf[i] % 144) // 12 == CLEAR and buf[i] % 12 == 0:
            return buf[i]
    if plays < k:
        return TAKE_PILE
    best, fewest = buf[0], 100
    for i in range(plays):
        if buf[i] % 12 + 1 < fewest:
            best, fewest = buf[i], buf[i] % 12 + 1
    return best


@jit
def playouts(
    rows,
    first_actions,
    seeds,
    n,
    max_steps,
    rng,
    buf,
    random_permille,
    attacker,
    one_round,
    count_scoring,
    target_raise,
):
    # rows[b] played to the end of the game (of its round if one_round; or max_steps),
    # first_actions[b] first unless it is -1; each action random with probability
    # random_permille / 1000, else the heuristic's (attacker, or high_cards).
    for b in range(len(rows)):
        row = rows[b]
        seed_xorshift(rng, seeds[b])
        steps = 0
        round_number = row[ROUND]
        if first_actions[b] >= 0 and row[TERMINAL] == 0:
            apply_action(row, n, first_actions[b], rng, count_scoring, target_raise)
            steps += 1
        while row[TERMINAL] == 0 and steps < max_steps:
            if one_round and row[ROUND] != round_number:
                break
            k = legal_actions(row, n, buf, False)
            if random_permille >= 1000 or below(rng, 1000) < random_permille:
                action = buf[below(rng, k)]
            else:
                action = heuristic_action(row, n, buf, k, attacker)
            apply_action(row, n, action, rng, count_scoring, target_raise)
            steps += 1


# ----------------------------------------------------------------------------------------------
# Many games at once (the vector environments: cardzoo.envs.batch)
# ----------------------------------------------------------------------------------------------
# Every function here takes the game's parameters last, as Game.kernel_parameters() gives them:
# (num_players, count_scoring, target_raise, target_score, points_reward). Game b is rows[b],
# dealt by its generator rngs[b] (numpy's, as the engine's state.rng), which is drawn from
# env_rngs[b] for every new game (as an environment's reset draws the game's generator from its
# own); steps[b] counts its agent steps against max_cycles. Ends: 0 running, 1 over by the
# rules, 2 truncated.
RUNNING, OVER, TRUNCATED = 0, 1, 2


@jit
def row_size(n, count_scoring, target_raise, target_score, points_reward):
    """The length of a packed row."""
    return offsets(n)[6] + 13  # the deck, last


@jit
def new_game(row, n, target_score, rng):
    """A new game: round 1 dealt by the last seat, so that seat 0 plays first."""
    totals = offsets(n)[3]
    row[TARGET] = target_score
    row[DEALER] = n - 1
    row[ROUND] = 1
    row[TERMINAL] = 0
    row[ROUND_WINNER] = -1
    for player in range(n):
        row[totals + player] = 0
    deal(row, n, rng)


@jit
def observe(row, n, player, starts, out):
    """The observation vector of ``player`` into ``out`` (``starts``: where each field of
    OBSERVATION_FIELDS starts, from the engine's observation layout), players listed from
    ``player`` on."""
    cards, face_down, sizes, totals, pile, removed, _ = offsets(n)
    # The fields' starts read once: the compiled code would read them again after every write
    # to ``out`` (it cannot tell that ``out`` is not ``starts``).
    at_hand, at_face_up, at_face_down, at_play_from = starts[0], starts[1], starts[2], starts[3]
    at_hand_sizes, at_pile, at_removed = starts[4], starts[10], starts[11]
    at_face_up_sizes, at_face_down_sizes, at_totals = starts[5], starts[6], starts[7]
    hand = cards + 12 * player
    for card in range(12):
        out[at_hand + card] = row[hand + card]
        out[at_pile + card] = row[pile + card]
        out[at_removed + card] = row[removed + card]
    seat = player
    for relative in range(n):
        face_up = cards + 12 * (n + seat)
        for card in range(12):
            out[at_face_up + 12 * relative + card] = row[face_up + card]
        out[at_hand_sizes + relative] = row[sizes + seat]
        out[at_face_up_sizes + relative] = row[sizes + n + seat]
        out[at_face_down_sizes + relative] = row[sizes + 2 * n + seat]
        out[at_totals + relative] = row[totals + seat]
        seat = seat + 1 if seat + 1 < n else 0
    for position in range(4):
        out[at_face_down + position] = 1.0 if row[face_down + 4 * player + position] >= 0 else 0.0
    source = play_source(row, n, player)
    for place in range(3):
        out[at_play_from + place] = 1.0 if place == source else 0.0
    out[starts[8]] = row[LIMIT]
    out[starts[9]] = row[PILE_SIZE]
    out[starts[12]] = row[TARGET]


@jit
def legal_mask(row, n, mask):
    """The legal actions of the player to act, 1 or 0 in ``mask`` (an array; all 0 once the
    game is over); returns how many there are."""
    mask[:] = 0  # one assignment in plain Python, not 293
    if row[TERMINAL]:
        return 0
    return legal_actions(row, n, mask, True)


@jit
def start_games(
    rows, rngs, env_rngs, steps, games, n, count_scoring, target_raise, target_score, points_reward
):
    """A new game in every row b with games[b] true."""
    for b in range(len(rows)):
        if games[b]:
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(rows[b], n, target_score, rngs[b])
            steps[b] = 0


@jit
def observe_games(
    rows,
    players,
    starts,
    observations,
    masks,
    n,
    count_scoring,
    target_raise,
    target_score,
    points_reward,
):
    """observations[b] of seat players[b] (-1: the player to act) and masks[b] its legal
    actions (all 0 unless that seat acts now); rows with players[b] < -1 are skipped."""
    for b in range(len(rows)):
        if players[b] < -1:
            continue
        row = rows[b]
        player = row[CURRENT] if players[b] < 0 else players[b]
        observe(row, n, player, starts, observations[b])
        if player == row[CURRENT]:
            legal_mask(row, n, masks[b])
        else:
            masks[b][:] = 0


@jit
def current_players(rows, players, n, count_scoring, target_raise, target_score, points_reward):
    for b in range(len(rows)):
        players[b] = rows[b][CURRENT]


@jit
def seat_reward(row, n, seat, total_before, round_before, points_reward):
    """What ``seat`` earned by the action just applied: at a round's end minus the points its
    total gained (points reward; a float, -0.0 for none, as the engine gives it), or at the end
    of the game +1 for the winner and -1 for the others."""
    totals = offsets(n)[3]
    if points_reward:
        if row[ROUND] == round_before and row[TERMINAL] == 0:
            return 0.0
        return -1.0 * (row[totals + seat] - total_before)
    if row[TERMINAL] == 0:
        return 0
    for player in range(n):
        if row[totals + player] < row[totals + seat]:
            return -1
    return 1


@jit
def end_of(row, steps, max_cycles):
    if row[TERMINAL]:
        return OVER
    return TRUNCATED if steps >= max_cycles else RUNNING


@jit
def step_games(
    rows,
    rngs,
    steps,
    actions,
    max_cycles,
    rewards,
    ends,
    n,
    count_scoring,
    target_raise,
    target_score,
    points_reward,
):
    """Every row b with actions[b] >= 0 takes that action (legal: the caller checks) for the
    player to act; rewards[b] what each seat earned (0 on a truncating step), ends[b] how the
    game stands. Rows with actions[b] < 0 are left alone (rewards 0, ends RUNNING)."""
    totals = offsets(n)[3]
    for b in range(len(rows)):
        row = rows[b]
        ends[b] = RUNNING
        for player in range(n):
            rewards[b][player] = 0
        if actions[b] < 0:
            continue
        for player in range(n):
            rewards[b][player] = row[totals + player]  # the totals before, for a moment
        round_before = row[ROUND]
        apply_action(row, n, actions[b], rngs[b], count_scoring, target_raise)
        steps[b] += 1
        ends[b] = end_of(row, steps[b], max_cycles)
        for player in range(n):
            earned = seat_reward(row, n, player, rewards[b][player], round_before, points_reward)
            rewards[b][player] = 0 if ends[b] == TRUNCATED else earned


@jit
def take_action(
    row, rng, steps, b, action, seat, max_cycles, n, count_scoring, target_raise, points_reward
):
    """Game b (``row``) takes ``action``; returns what ``seat`` earned (0 on a truncating step)."""
    before, round_before = row[offsets(n)[3] + seat], row[ROUND]
    apply_action(row, n, action, rng, count_scoring, target_raise)
    steps[b] += 1
    if end_of(row, steps[b], max_cycles) == TRUNCATED:
        return 0
    return seat_reward(row, n, seat, before, round_before, points_reward)


@jit
def play_others(rows, rngs, policy_rngs, steps, b, seat, max_cycles, buf, n, *rules):
    """Uniformly random play by every seat but ``seat`` in game b until ``seat`` must act or
    the game ends; returns what ``seat`` earned meanwhile (``rules``: count_scoring,
    target_raise, points_reward)."""
    row = rows[b]
    earned = 0.0
    while end_of(row, steps[b], max_cycles) == RUNNING and row[CURRENT] != seat:
        action = buf[below(policy_rngs[b], legal_actions(row, n, buf, False))]
        earned += take_action(row, rngs[b], steps, b, action, seat, max_cycles, n, *rules)
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
    buf,
    n,
    count_scoring,
    target_raise,
    target_score,
    points_reward,
):
    """One decision of the learner in every game, the other seats played uniformly at random
    (``buf``: scratch for the legal actions of a decision).

    Row b with actions[b] >= 0: the learner (seats[b]) takes it, then the others play until the
    learner acts again or the game ends; rewards[b] is what the learner earned, ends[b] how the
    game stands. Row b with actions[b] == -1: a new episode (rewards 0): a new game, the
    learner's seat ``learner_seat`` or, if -1, drawn from policy_rngs[b], and the others play
    up to the learner's first decision, dealing again (at most ``max_deals`` times) while a game
    ends before it. Rows with actions[b] < -1 are left alone. Returns -1, or the first row that
    was dealt ``max_deals`` times in vain."""
    rules = (count_scoring, target_raise, points_reward)
    for b in range(len(rows)):
        row = rows[b]
        seat = seats[b]
        if actions[b] >= 0:
            earned = take_action(row, rngs[b], steps, b, actions[b], seat, max_cycles, n, *rules)
            earned += play_others(
                rows, rngs, policy_rngs, steps, b, seat, max_cycles, buf, n, *rules
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
            new_game(row, n, target_score, rngs[b])
            steps[b] = 0
            seats[b] = learner_seat if learner_seat >= 0 else below(policy_rngs[b], n)
            play_others(rows, rngs, policy_rngs, steps, b, seats[b], max_cycles, buf, n, *rules)
    return -1
