"""Believe It or Not's playout kernel: the rules on a packed int64 row, for fast rollouts.

Small integer functions only (no numpy calls), so that one source runs both compiled by numba
and as plain Python on lists (:mod:`cardzoo.envs.believe_it_or_not.playout` loads this file
twice: as ``kernel``, compiled when numba is installed, with numba's on-disk cache, and as
``kernel_plain``, never compiled). Rows are laid out as :func:`offsets` says (the names are
:func:`~cardzoo.envs.believe_it_or_not.playout.row_layout`'s); ``rng`` is a one-element array
(or list) holding the state of a xorshift32 generator, never 0. Every function takes the game's
parameters ``n`` (players), ``cards`` (deck size), ``species`` and ``quick`` (the variant).
"""

from cardzoo.envs.kernels import kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

# The scalars at the start of a packed row (the engine's state fields of the same names).
(
    CURRENT,
    DECISION,
    SPECIAL_PLAYED,
    BUILDING_SIZE,
    DECLARED,
    TABLE_SIZE,
    NUM_PLACEMENTS,
    PEEK_PLAYER,
    PEEK_POSITION,
    REVEALED_CARD,
    REVEALED_TRUE,
    REVEALED_TAKER,
    TERMINAL,
) = range(13)
NUM_SCALARS = 13

# The card types and decisions of the rules engine (a test checks they agree).
NUM_TYPES, ELEPHANT, PEEK, SKIP = 11, 8, 9, 10
SET_SIZE, MAX_PLACEMENT = 4, 5
LEAD, BUILD, RESPOND, CHOOSE_TURN, CHOOSE_PEEK = 0, 1, 2, 3, 4
FINISH, DECLARE, BELIEVE, DOUBT, TURN_CARD, PLAY_PEEK, PLAY_SKIP, PEEK_AT = (
    11,
    12,
    20,
    21,
    22,
    27,
    28,
    29,
)
NUM_ACTIONS = 34


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
def offsets(n, cards):
    # hands (n x 11), seat counts (hand size, is out, on table: 3 x n), building (5), table
    # cards, placement owners, placement sizes (cards each), table counts (n x 11), out of game
    # (11), winners (n)
    hands = NUM_SCALARS
    seats = hands + NUM_TYPES * n
    building = seats + 3 * n
    table = building + MAX_PLACEMENT
    owners = table + cards
    sizes = owners + cards
    counts = sizes + cards
    out = counts + NUM_TYPES * n
    winners = out + NUM_TYPES
    return hands, seats, building, table, owners, sizes, counts, out, winners


@jit
def last_owner(row, n, cards):
    # The owner of the last placement of a live table, else -1.
    if row[TABLE_SIZE] == 0:
        return -1
    _, _, _, _, owners, _, _, _, _ = offsets(n, cards)
    return row[owners + row[NUM_PLACEMENTS] - 1]


@jit
def last_size(row, n, cards):
    _, _, _, _, _, sizes, _, _, _ = offsets(n, cards)
    return row[sizes + row[NUM_PLACEMENTS] - 1]


@jit
def next_in(row, n, cards, player):
    # The next player after ``player`` (leftwards) who is not out.
    _, seats, _, _, _, _, _, _, _ = offsets(n, cards)
    for step in range(1, n):
        candidate = (player + step) % n
        if row[seats + n + candidate] == 0:
            return candidate
    return player


@jit
def discard_sets(row, n, cards, species, player):
    hands, seats, _, _, _, _, _, out, _ = offsets(n, cards)
    for s in range(species):
        if row[hands + NUM_TYPES * player + s] == SET_SIZE:
            row[hands + NUM_TYPES * player + s] = 0
            row[seats + player] -= SET_SIZE
            row[out + s] = SET_SIZE


@jit
def no_animals_left(row, n, cards, species):
    _, _, _, _, _, _, _, out, _ = offsets(n, cards)
    for s in range(species):  # noqa: SIM110 (a loop numba compiles; no generator)
        if row[out + s] != SET_SIZE:
            return False
    return True


@jit
def set_winners_if_over(row, n, cards, species, quick):
    # The engine's _winners_if_over: writes the winners and returns True if the game is over.
    hands, seats, _, _, _, _, counts, _, winners = offsets(n, cards)
    anybody_out, still_in = 0, 0
    for p in range(n):
        if row[seats + n + p]:
            anybody_out = 1
        else:
            still_in += 1
    if (quick and anybody_out) or (not quick and still_in <= 1):
        for p in range(n):
            row[winners + p] = row[seats + n + p]  # the first out win / the one still in loses
        return True
    if not no_animals_left(row, n, cards, species):
        return False
    if not quick:  # the elephant's holder loses
        for p in range(n):
            held = row[hands + NUM_TYPES * p + ELEPHANT] + row[counts + NUM_TYPES * p + ELEPHANT]
            row[winners + p] = 1 if held == 0 else 0
        return True
    fewest = 1 << 30  # quick: the players still in with the fewest cards (hand and table)
    for p in range(n):
        if row[seats + n + p] == 0:
            fewest = min(fewest, row[seats + p] + row[seats + 2 * n + p])
    for p in range(n):
        held = row[seats + p] + row[seats + 2 * n + p]
        row[winners + p] = 1 if row[seats + n + p] == 0 and held == fewest else 0
    return True


@jit
def end_turn(row, n, cards, species, quick, last_actor, next_decision):
    # Players without cards go out (not the owner of a live table's last placement); the game
    # may end; else the next player still in after ``last_actor`` has ``next_decision``.
    _, seats, _, _, _, _, _, _, _ = offsets(n, cards)
    row[SPECIAL_PLAYED] = 0
    owner = last_owner(row, n, cards)
    went_out = False
    for p in range(n):
        if row[seats + p] == 0 and p != owner and row[seats + n + p] == 0:
            row[seats + n + p] = 1
            went_out = True
    over = went_out or next_decision == LEAD  # only then can the game end
    if over and set_winners_if_over(row, n, cards, species, quick):
        row[TERMINAL] = 1
        return
    row[CURRENT] = next_in(row, n, cards, last_actor)
    row[DECISION] = next_decision


@jit
def finish_placement(row, n, cards, species, quick, player):
    _, seats, building, table, owners, sizes, counts, _, _ = offsets(n, cards)
    size = row[BUILDING_SIZE]
    start = row[TABLE_SIZE]
    for i in range(size):
        card = row[building + i]
        row[table + start + i] = card
        row[counts + NUM_TYPES * player + card] += 1
    row[TABLE_SIZE] = start + size
    row[owners + row[NUM_PLACEMENTS]] = player
    row[sizes + row[NUM_PLACEMENTS]] = size
    row[NUM_PLACEMENTS] += 1
    row[seats + 2 * n + player] += size
    row[BUILDING_SIZE] = 0
    row[PEEK_PLAYER] = -1
    row[PEEK_POSITION] = -1
    end_turn(row, n, cards, species, quick, player, RESPOND)


@jit
def take_table(row, n, cards, species, taker):
    hands, seats, _, _, _, _, counts, _, _ = offsets(n, cards)
    for p in range(n):
        for t in range(NUM_TYPES):
            row[hands + NUM_TYPES * taker + t] += row[counts + NUM_TYPES * p + t]
            row[counts + NUM_TYPES * p + t] = 0
        row[seats + 2 * n + p] = 0
    row[seats + taker] += row[TABLE_SIZE]
    row[TABLE_SIZE] = 0
    row[NUM_PLACEMENTS] = 0
    row[DECLARED] = -1
    row[PEEK_PLAYER] = -1
    row[PEEK_POSITION] = -1
    discard_sets(row, n, cards, species, taker)


@jit
def turn_card(row, n, cards, species, quick, doubter, position):
    _, _, _, table, owners, _, _, _, _ = offsets(n, cards)
    last_start = row[TABLE_SIZE] - last_size(row, n, cards)
    card = row[table + last_start + position]
    is_true = card == row[DECLARED]
    taker = doubter if is_true else row[owners + row[NUM_PLACEMENTS] - 1]
    take_table(row, n, cards, species, taker)
    row[REVEALED_CARD] = card
    row[REVEALED_TRUE] = 1 if is_true else 0
    row[REVEALED_TAKER] = taker
    end_turn(row, n, cards, species, quick, taker, LEAD)


@jit
def play_special(row, n, cards, player, card):
    hands, seats, _, _, _, _, _, out, _ = offsets(n, cards)
    row[hands + NUM_TYPES * player + card] -= 1
    row[seats + player] -= 1
    row[out + card] += 1
    row[SPECIAL_PLAYED] = 1


@jit
def apply_action(row, n, cards, species, quick, action):
    # The engine's apply.
    hands, seats, building, _, _, _, _, _, _ = offsets(n, cards)
    player = row[CURRENT]
    if action < FINISH:
        row[hands + NUM_TYPES * player + action] -= 1
        row[seats + player] -= 1
        row[building + row[BUILDING_SIZE]] = action
        row[BUILDING_SIZE] += 1
    elif action == FINISH:
        finish_placement(row, n, cards, species, quick, player)
    elif action < BELIEVE:
        row[DECLARED] = action - DECLARE
        row[DECISION] = BUILD
    elif action == BELIEVE:
        row[DECISION] = BUILD
    elif action == DOUBT:
        row[DECISION] = CHOOSE_TURN
    elif action < PLAY_PEEK:
        turn_card(row, n, cards, species, quick, player, action - TURN_CARD)
    elif action == PLAY_PEEK:
        play_special(row, n, cards, player, PEEK)
        row[DECISION] = CHOOSE_PEEK
    elif action == PLAY_SKIP:
        play_special(row, n, cards, player, SKIP)
        end_turn(row, n, cards, species, quick, player, RESPOND)
    else:
        row[PEEK_PLAYER] = player
        row[PEEK_POSITION] = action - PEEK_AT
        row[DECISION] = RESPOND


@jit
def legal_actions(row, n, cards, species, legal):
    # The engine's legal_mask as a list: writes the legal action ids into ``legal`` in
    # increasing order and returns how many there are.
    hands, seats, _, _, _, _, _, _, _ = offsets(n, cards)
    player = row[CURRENT]
    decision = row[DECISION]
    count = 0
    if decision == LEAD:
        for s in range(species):
            legal[count] = DECLARE + s
            count += 1
    elif decision in (CHOOSE_TURN, CHOOSE_PEEK):
        first = TURN_CARD if decision == CHOOSE_TURN else PEEK_AT
        for k in range(last_size(row, n, cards)):
            legal[count] = first + k
            count += 1
    elif decision == BUILD:
        if row[BUILDING_SIZE] < MAX_PLACEMENT:
            for t in range(NUM_TYPES):
                if row[hands + NUM_TYPES * player + t] > 0:
                    legal[count] = t
                    count += 1
        if row[BUILDING_SIZE] > 0:
            legal[count] = FINISH
            count += 1
    else:  # RESPOND
        owner = last_owner(row, n, cards)
        if row[seats + owner] > 0 and row[seats + player] > 0:
            legal[count] = BELIEVE
            count += 1
        legal[count] = DOUBT
        count += 1
        if row[SPECIAL_PLAYED] == 0:
            if row[hands + NUM_TYPES * player + PEEK] > 0:
                legal[count] = PLAY_PEEK
                count += 1
            skip_allowed = next_in(row, n, cards, player) != owner
            if row[hands + NUM_TYPES * player + SKIP] > 0 and skip_allowed:
                legal[count] = PLAY_SKIP
                count += 1
    return count


# ------------------------------------------------------------------------------------------------
# The rollout policy: the bluffer heuristic, read from the acting player's own view
# ------------------------------------------------------------------------------------------------


@jit
def most_held_species(row, n, cards, species, player, rng):
    # The species held most (ties at random); without animals, the one with most unseen copies.
    hands, _, _, _, _, _, counts, out, _ = offsets(n, cards)
    base = hands + NUM_TYPES * player
    most, ties = 0, 0
    for s in range(species):
        if row[base + s] > most:
            most, ties = row[base + s], 1
        elif row[base + s] == most and most > 0:
            ties += 1
    if most > 0:
        pick = below(rng, ties)
        for s in range(species):
            if row[base + s] == most:
                if pick == 0:
                    return s
                pick -= 1
    best, ties = -1, 0
    for s in range(species):
        unseen = SET_SIZE - row[base + s] - row[counts + NUM_TYPES * player + s] - row[out + s]
        if unseen > best:
            best, ties = unseen, 1
        elif unseen == best:
            ties += 1
    pick = below(rng, ties)
    for s in range(species):
        unseen = SET_SIZE - row[base + s] - row[counts + NUM_TYPES * player + s] - row[out + s]
        if unseen == best:
            if pick == 0:
                return s
            pick -= 1
    return 0


@jit
def spare_card(row, n, cards, species, player, keep):
    # The card the player needs least (the heuristics' spare_cards, first one): the elephant,
    # then a single of a species it has most of on the table itself, then a card of a pair;
    # never the ``keep`` species, never a special; -1 if none.
    hands, _, _, _, _, _, counts, _, _ = offsets(n, cards)
    base = hands + NUM_TYPES * player
    if row[base + ELEPHANT] > 0:
        return ELEPHANT
    best, best_own = -1, -1
    for s in range(species):
        if s != keep and row[base + s] == 1 and row[counts + NUM_TYPES * player + s] > best_own:
            best, best_own = s, row[counts + NUM_TYPES * player + s]
    if best >= 0:
        return best
    for s in range(species):
        if s != keep and row[base + s] == 2:
            return s
    return -1


@jit
def build_action(row, n, cards, species, player):
    # The bluffer's placement: every true card (up to 5), then up to two spare cards; all bluff:
    # one card only.
    hands, _, building, _, _, _, _, _, _ = offsets(n, cards)
    base = hands + NUM_TYPES * player
    declared = row[DECLARED]
    size = row[BUILDING_SIZE]
    if size < MAX_PLACEMENT and row[base + declared] > 0:
        return declared
    true_cards = 0
    for i in range(size):
        if row[building + i] == declared:
            true_cards += 1
    if size == 0:
        spare = spare_card(row, n, cards, species, player, -1)
        if spare >= 0:
            return spare
        for t in range(species):
            if row[base + t] > 0:
                return t
        return SKIP if row[base + SKIP] > 0 else PEEK
    if true_cards > 0 and size - true_cards < 2 and size < MAX_PLACEMENT:
        spare = spare_card(row, n, cards, species, player, declared)
        if spare >= 0:
            return spare
    return FINISH


@jit
def chance_claim_true(row, n, cards, player, honesty):
    # The heuristics' estimate that the card turned shows the declared species, as a fraction
    # (numerator, denominator) of integers: honesty (per cent) x an honest P + the rest x a
    # random P. Integers keep the compiled and the plain kernel identical.
    hands, seats, _, table, _, _, counts, out, _ = offsets(n, cards)
    declared = row[DECLARED]
    size = last_size(row, n, cards)
    own = row[hands + NUM_TYPES * player + declared] + row[counts + NUM_TYPES * player + declared]
    unseen = max(0, SET_SIZE - own - row[out + declared])
    if row[PEEK_PLAYER] == player:
        card = row[table + row[TABLE_SIZE] - size + row[PEEK_POSITION]]
        if card != declared:
            return 0, 1
        size -= 1
        unseen -= 1
        if size == 0:
            return 1, 1
    gone = 0
    for t in range(NUM_TYPES):
        gone += row[out + t]
    unseen_cards = max(1, cards - row[seats + player] - row[seats + 2 * n + player] - gone)
    numerator = honesty * min(size, unseen) * unseen_cards + (100 - honesty) * unseen * size
    return numerator, 100 * size * unseen_cards


@jit
def respond_action(row, n, cards, player, honesty, legal, count):
    hands, _, _, _, _, _, _, _, _ = offsets(n, cards)
    numerator, denominator = chance_claim_true(row, n, cards, player, honesty)
    can_believe = can_peek = can_skip = False
    for i in range(count):
        can_believe = can_believe or legal[i] == BELIEVE
        can_peek = can_peek or legal[i] == PLAY_PEEK
        can_skip = can_skip or legal[i] == PLAY_SKIP
    unsure = 10 * numerator > 3 * denominator and 10 * numerator < 7 * denominator
    if can_peek and unsure and row[PEEK_PLAYER] != player:
        return PLAY_PEEK
    holds = row[hands + NUM_TYPES * player + row[DECLARED]] > 0
    threshold = 3 if holds else 5  # tenths: doubt below 0.3 holding the species, else 0.5
    if 10 * numerator < threshold * denominator or not can_believe:
        return DOUBT
    if not holds and can_skip:
        return PLAY_SKIP
    return BELIEVE


@jit
def turn_action(row, n, cards, player, rng):
    # The peeked card if it was a lie (or the only card), else another card at random.
    _, _, _, table, _, _, _, _, _ = offsets(n, cards)
    size = last_size(row, n, cards)
    if row[PEEK_PLAYER] != player:
        return TURN_CARD + below(rng, size)
    position = row[PEEK_POSITION]
    if row[table + row[TABLE_SIZE] - size + position] != row[DECLARED] or size == 1:
        return TURN_CARD + position
    other = below(rng, size - 1)
    return TURN_CARD + (other if other < position else other + 1)


@jit
def heuristic_action(row, n, cards, species, honesty, legal, count, rng):
    player = row[CURRENT]
    decision = row[DECISION]
    if decision == LEAD:
        return DECLARE + most_held_species(row, n, cards, species, player, rng)
    if decision == BUILD:
        return build_action(row, n, cards, species, player)
    if decision == CHOOSE_TURN:
        return turn_action(row, n, cards, player, rng)
    if decision == CHOOSE_PEEK:
        return PEEK_AT + below(rng, last_size(row, n, cards))
    return respond_action(row, n, cards, player, honesty, legal, count)


@jit
def playouts(
    rows, first_actions, seeds, n, cards, species, quick, max_steps, rng, legal, random_permille
):
    # rows[b] played to the end of the game (or max_steps), first_actions[b] first unless it is
    # -1; each action uniformly random among the legal ones with probability
    # random_permille / 1000, else the bluffer heuristic's.
    for b in range(len(rows)):
        row = rows[b]
        rng[0] = seeds[b]
        steps = 0
        if first_actions[b] >= 0 and row[TERMINAL] == 0:
            apply_action(row, n, cards, species, quick, first_actions[b])
            steps += 1
        while row[TERMINAL] == 0 and steps < max_steps:
            count = legal_actions(row, n, cards, species, legal)
            if random_permille >= 1000 or below(rng, 1000) < random_permille:
                action = legal[below(rng, count)]
            else:
                action = heuristic_action(row, n, cards, species, 35, legal, count, rng)
            apply_action(row, n, cards, species, quick, action)
            steps += 1
