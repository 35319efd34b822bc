"""Minus Two's playout kernel: the rules on a packed int64 row, for fast rollouts.

Small integer functions only (no numpy calls), so that one source runs both compiled by numba
and as plain Python on lists (:mod:`cardzoo.envs.minus_two.playout` loads this file twice: as
``kernel``, compiled when numba is installed, with numba's on-disk cache, and as
``kernel_plain``, never compiled). Rows are laid out as
:func:`~cardzoo.envs.minus_two.playout.row_layout` says; ``rng`` is a one-element array (or
list) holding the state of a xorshift32 generator, never 0; ``buf`` is scratch room for the
legal actions of one decision (:data:`MAX_LEGAL` numbers).

Card types: 0..9 = values 1..10, 10 = ``-2``, 11 = ``>>>``. Actions as the engine's:
``source * 144 + type * 12 + count - 1`` (source 0 hand, 1 face-up), 288..291 a face-down
position, 292 take the pile.
"""

from cardzoo.envs.kernels import kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

# The scalars at the start of a packed row.
CURRENT, PILE_SIZE, LIMIT, TARGET, DEALER, ROUND, TERMINAL, ROUND_WINNER = range(8)

MINUS_TWO, CLEAR = 10, 11
BLIND, TAKE_PILE = 288, 292
#: the most legal actions a decision can have (a hand of every card of a 6-player game)
MAX_LEGAL = 300


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
def offsets(n):
    cards = 8  # (2, n, 12): hand and face-up row by type
    face_down = cards + 24 * n  # (n, 4): the card type at each position, -1 when gone
    sizes = face_down + 4 * n  # (3, n): cards in hand, face-up row, face-down row
    totals = sizes + 3 * n
    pile = totals + n  # (12,): the pile by type
    removed = pile + 12  # (12,): cards removed by >>> this round
    return cards, face_down, sizes, totals, pile, removed


@jit
def copies_in_colour(card):
    return 2 if card == MINUS_TWO else 1


@jit
def card_points(card, count_scoring):
    if count_scoring:
        return 1
    if card < MINUS_TWO:
        return card + 1
    return 20 if card == MINUS_TWO else 50


@jit
def held(row, n, player):
    _, _, sizes, _, _, _ = offsets(n)
    return row[sizes + player] + row[sizes + n + player] + row[sizes + 2 * n + player]


@jit
def play_source(row, n, player):
    # The engine's play_source: 0 hand, 1 face-up row, 2 face-down row.
    cards, _, sizes, _, _, _ = offsets(n)
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
def legal_actions(row, n, buf):
    # The engine's legal_mask as a list in increasing order: buf[:k]; returns k.
    cards, face_down, sizes, _, _, _ = offsets(n)
    player = row[CURRENT]
    source = play_source(row, n, player)
    k = 0
    if source == 2:
        for position in range(4):
            if row[face_down + 4 * player + position] >= 0:
                buf[k] = BLIND + position
                k += 1
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
                buf[k] = source * 144 + card * 12 + more
                k += 1
            can_play = True
    in_hand, face_up = row[sizes + player], row[sizes + n + player]
    minus_twos = row[cards + 12 * player + MINUS_TWO] + row[cards + 12 * (n + player) + MINUS_TWO]
    if row[sizes + 2 * n + player] == 0 and minus_twos == in_hand + face_up:
        # The last cards: every -2 at once (the source holds only -2, listed last).
        last = source * 144 + MINUS_TWO * 12 + in_hand + face_up - 1
        if k == 0 or buf[k - 1] != last:
            buf[k] = last
            k += 1
    elif row[PILE_SIZE] > 0 and not can_play:
        buf[k] = TAKE_PILE
        k += 1
    return k


@jit
def empty_pile(row, n):
    _, _, _, _, pile, _ = offsets(n)
    row[PILE_SIZE] = 0
    row[LIMIT] = 0
    for card in range(12):
        row[pile + card] = 0


@jit
def take_pile(row, n, player):
    cards, _, sizes, _, pile, _ = offsets(n)
    for card in range(12):
        row[cards + 12 * player + card] += row[pile + card]
    row[sizes + player] += row[PILE_SIZE]
    empty_pile(row, n)


@jit
def add_to_hand(row, n, player, card):
    cards, _, sizes, _, _, _ = offsets(n)
    row[cards + 12 * player + card] += 1
    row[sizes + player] += 1


@jit
def remove_every_minus_two(row, n, player):
    cards, _, sizes, _, _, _ = offsets(n)
    in_hand = row[cards + 12 * player + MINUS_TWO]
    face_up = row[cards + 12 * (n + player) + MINUS_TWO]
    row[cards + 12 * player + MINUS_TWO] = 0
    row[cards + 12 * (n + player) + MINUS_TWO] = 0
    row[sizes + player] -= in_hand
    row[sizes + n + player] -= face_up
    return in_hand + face_up


@jit
def deal(row, n, rng):
    # Every player's colour shuffled on its own: 4 face down, 4 face up, 5 in hand, each card
    # drawn uniformly from what is left of the colour (a random permutation, without a buffer).
    cards, face_down, sizes, _, _, removed = offsets(n)
    for player in range(n):
        hand, face_up = cards + 12 * player, cards + 12 * (n + player)
        for card in range(12):
            row[hand + card] = 0
            row[face_up + card] = 0
        for position in range(4):
            row[face_down + 4 * player + position] = -1
        for slot in range(13):
            pick = below(rng, 13 - slot)
            card = 0
            while True:
                left = copies_in_colour(card) - row[hand + card] - row[face_up + card]
                for position in range(4):
                    if row[face_down + 4 * player + position] == card:
                        left -= 1
                if pick < left:
                    break
                pick -= left
                card += 1
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
    cards, face_down, sizes, totals, _, _ = offsets(n)
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
    _, _, _, _, pile, removed = offsets(n)
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
    _, face_down, sizes, _, _, _ = offsets(n)
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
    cards, _, sizes, _, _, _ = offsets(n)
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
        rng[0] = seeds[b]
        steps = 0
        round_number = row[ROUND]
        if first_actions[b] >= 0 and row[TERMINAL] == 0:
            apply_action(row, n, first_actions[b], rng, count_scoring, target_raise)
            steps += 1
        while row[TERMINAL] == 0 and steps < max_steps:
            if one_round and row[ROUND] != round_number:
                break
            k = legal_actions(row, n, buf)
            if random_permille >= 1000 or below(rng, 1000) < random_permille:
                action = buf[below(rng, k)]
            else:
                action = heuristic_action(row, n, buf, k, attacker)
            apply_action(row, n, action, rng, count_scoring, target_raise)
            steps += 1
