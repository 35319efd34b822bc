"""Believe It or Not's rules on a packed int64 row: the kernel of the playouts and the vector games.

Small integer functions only (no numpy calls), so that one source runs both compiled by numba
and as plain Python (:func:`cardzoo.envs.kernels.plain_and_compiled` loads this file twice: as
``kernel``, compiled when numba is installed, with numba's on-disk cache, and as
``kernel_plain``, never compiled). Rows are laid out as :func:`offsets` says (the names are
:func:`~cardzoo.envs.believe_it_or_not.playout.row_layout`'s). ``rng`` is a generator of
:mod:`cardzoo.envs.kernel_random`: numpy's own (PCG64) where a game must be dealt exactly as the
engine deals it for the same seed (the vector games), xorshift32 for the playouts. Every
function takes the game's parameters ``n`` (players), ``cards`` (deck size), ``species`` and
``quick`` (the variant), or the first of them it needs.

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
NO_ONE = -1
# The engine's observation fields, in its layout's order: observe() writes field k from
# ``starts[k]`` on (GameBatch gives the starts from the engine's observation layout).
OBSERVATION_FIELDS = (
    "hand",
    "hand_sizes",
    "is_out",
    "cards_on_table",
    "out_of_game",
    "to_act",
    "decision",
    "special_played",
    "building",
    "declared",
    "table_size",
    "last_size",
    "last_owner",
    "owner_has_no_cards",
    "own_table_cards",
    "peeked_position",
    "peeked_card",
    "revealed_card",
    "revealed_true",
    "revealed_taker",
)


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


@jit
def legal_mask(row, n, cards, species, mask):
    """The engine's legal_mask of the player to decide: 1 or 0 per action in ``mask`` (all 0
    once the game is over); returns how many actions are legal."""
    if row[TERMINAL]:
        for action in range(NUM_ACTIONS):
            mask[action] = 0
        return 0
    # legal_actions lists the actions in ``mask`` itself, in increasing order; each is then
    # moved to its own place, from the last one: an action id is at least its index in the
    # list, so no entry still to be read is overwritten.
    count = legal_actions(row, n, cards, species, mask)
    for index in range(count, NUM_ACTIONS):
        mask[index] = 0
    for index in range(count - 1, -1, -1):
        action = mask[index]
        mask[index] = 0
        mask[action] = 1
    return count


@jit
def random_action(row, n, cards, species, rng, legal):
    """Uniform among the legal actions (``legal``: scratch of NUM_ACTIONS)."""
    return legal[below(rng, legal_actions(row, n, cards, species, legal))]


@jit
def copies(card, cards, species):
    # Copies of card type ``card`` in a deck of ``cards`` cards with ``species`` species: four of
    # each species, one elephant, and two peeks and two skips unless the deck leaves them out.
    if card < species:
        return SET_SIZE
    if card == ELEPHANT:
        return 1
    if card in (PEEK, SKIP):
        return (cards - SET_SIZE * species - 1) // 2
    return 0


@jit
def new_game(row, n, cards, species, rng):
    """The engine's new_state: numpy's permutation of the deck in type order (shuffled on the
    table's slots, which are empty again after the deal), dealt one card at a time from
    player_0, sets of four discarded; dealt again while the deal is void."""
    hands, seats, _, table, _, _, _, _, winners = offsets(n, cards)
    playable = False
    while not playable:
        for index in range(winners + n):
            row[index] = 0
        for index in (DECLARED, PEEK_PLAYER, PEEK_POSITION, REVEALED_CARD, REVEALED_TAKER):
            row[index] = NO_ONE
        position = table
        for card in range(NUM_TYPES):
            for _ in range(copies(card, cards, species)):
                row[position] = card
                position += 1
        shuffle(row, table, cards, rng)
        for index in range(cards):
            player = index % n
            row[hands + NUM_TYPES * player + row[table + index]] += 1
            row[seats + player] += 1
            row[table + index] = 0
        playable = True
        for player in range(n):
            discard_sets(row, n, cards, species, player)
            playable = playable and row[seats + player] > 0
        playable = playable and not no_animals_left(row, n, cards, species)


@jit
def seen_from(seat, player, n):
    # ``seat`` counted from ``player`` leftwards (the observation's seat-relative order); no
    # modulo: observe() needs several per call.
    relative = seat - player
    return relative + n if relative < 0 else relative


@jit
def observe(row, n, cards, player, starts, out):
    """The engine's observation of ``player`` into ``out`` (float32), field k of
    OBSERVATION_FIELDS from ``starts[k]`` on."""
    hands, seats, building, table, _, _, counts, out_of_game, _ = offsets(n, cards)
    for index in range(len(out)):
        out[index] = 0.0
    for t in range(NUM_TYPES):
        out[starts[0] + t] = row[hands + NUM_TYPES * player + t]
        out[starts[4] + t] = row[out_of_game + t]
    for seat in range(n):  # hand_sizes, is_out, cards_on_table: the observer first
        relative = seen_from(seat, player, n)
        out[starts[1] + relative] = row[seats + seat]
        out[starts[2] + relative] = row[seats + n + seat]
        out[starts[3] + relative] = row[seats + 2 * n + seat]
    if row[TERMINAL] == 0:
        actor = row[CURRENT]
        out[starts[5] + seen_from(actor, player, n)] = 1.0
        out[starts[6] + row[DECISION]] = 1.0
        out[starts[7]] = row[SPECIAL_PLAYED]
        if actor == player:
            for index in range(row[BUILDING_SIZE]):
                out[starts[8] + row[building + index]] += 1.0
    if row[TABLE_SIZE] > 0:
        owner = last_owner(row, n, cards)
        size = last_size(row, n, cards)
        out[starts[9] + row[DECLARED]] = 1.0
        out[starts[10]] = row[TABLE_SIZE]
        out[starts[11]] = size
        out[starts[12] + seen_from(owner, player, n)] = 1.0
        out[starts[13]] = 1.0 if row[seats + owner] == 0 else 0.0
        for t in range(NUM_TYPES):
            out[starts[14] + t] = row[counts + NUM_TYPES * player + t]
        if row[PEEK_PLAYER] == player:
            position = row[PEEK_POSITION]
            out[starts[15] + position] = 1.0
            out[starts[16] + row[table + row[TABLE_SIZE] - size + position]] = 1.0
    if row[REVEALED_CARD] != NO_ONE:
        out[starts[17] + row[REVEALED_CARD]] = 1.0
        out[starts[18]] = row[REVEALED_TRUE]
        out[starts[19] + seen_from(row[REVEALED_TAKER], player, n)] = 1.0


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
    # random_permille / 1000, else the bluffer heuristic's. rng: a generator to seed (xorshift).
    for b in range(len(rows)):
        row = rows[b]
        seed_xorshift(rng, seeds[b])
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


# ----------------------------------------------------------------------------------------------
# Many games at once (the vector environments: cardzoo.envs.batch)
# ----------------------------------------------------------------------------------------------
# The functions GameBatch calls, each doing what the GameBatch method of (about) the same name
# says, with the game's parameters last, as Game.kernel_parameters() gives them: (num_players,
# deck size, num_species, quick). Game b is rows[b], dealt by its generator rngs[b] (numpy's, as
# the engine's state.rng), which is drawn from env_rngs[b] for every new game (as an
# environment's reset draws the game's generator from its own); steps[b] counts its agent steps
# against max_cycles. A reward comes only at the end of a game: +1 to each winner, -1 to
# everybody else; a game cut at max_cycles gives 0.
RUNNING, OVER, TRUNCATED = 0, 1, 2


@jit
def row_size(n, cards, species, quick):
    """The length of a packed row."""
    return offsets(n, cards)[8] + n  # winners last


@jit
def start_games(rows, rngs, env_rngs, steps, games, n, cards, species, quick):
    for b in range(len(rows)):
        if games[b]:
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(rows[b], n, cards, species, rngs[b])
            steps[b] = 0


@jit
def observe_games(rows, players, starts, observations, masks, n, cards, species, quick):
    for b in range(len(rows)):
        if players[b] < -1:
            continue
        row = rows[b]
        player = row[CURRENT] if players[b] < 0 else players[b]
        observe(row, n, cards, player, starts, observations[b])
        if player == row[CURRENT]:
            legal_mask(row, n, cards, species, masks[b])
        else:
            for action in range(NUM_ACTIONS):
                masks[b][action] = 0


@jit
def current_players(rows, players, n, cards, species, quick):
    for b in range(len(rows)):
        players[b] = rows[b][CURRENT]


@jit
def reward_after(row, n, cards, seat, steps, max_cycles):
    """How game ``row`` stands after an agent step (its ``steps``-th) and what ``seat`` earned
    by it: the game's end, or else a truncation (reward 0) at ``max_cycles``."""
    if row[TERMINAL]:
        return OVER, 1 if row[offsets(n, cards)[8] + seat] else -1
    return (TRUNCATED if steps >= max_cycles else RUNNING), 0


@jit
def step_games(rows, rngs, steps, actions, max_cycles, rewards, ends, n, cards, species, quick):
    for b in range(len(rows)):
        row = rows[b]
        ends[b] = RUNNING
        for seat in range(n):
            rewards[b][seat] = 0
        if actions[b] < 0:
            continue
        apply_action(row, n, cards, species, quick, actions[b])
        steps[b] += 1
        for seat in range(n):
            ends[b], rewards[b][seat] = reward_after(row, n, cards, seat, steps[b], max_cycles)


@jit
def play_to_seat(row, steps, b, policy_rng, seat, max_cycles, mask, n, cards, species, quick):
    """Uniformly random play (from ``policy_rng``) by every seat but ``seat`` in game b
    (``row``, its agent steps in ``steps[b]``) until ``seat`` must decide or the game ends;
    returns how the game stands and what ``seat`` earned meanwhile."""
    if row[TERMINAL]:
        return OVER, 0
    end, earned = (TRUNCATED if steps[b] >= max_cycles else RUNNING), 0
    while end == RUNNING and row[CURRENT] != seat:
        action = random_action(row, n, cards, species, policy_rng, mask)
        apply_action(row, n, cards, species, quick, action)
        steps[b] += 1
        end, earned = reward_after(row, n, cards, seat, steps[b], max_cycles)
    return end, earned


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
    cards,
    species,
    quick,
):
    """Returns -1, or the first row that was dealt ``max_deals`` times in vain."""
    for b in range(len(rows)):
        row = rows[b]
        if actions[b] >= 0:
            apply_action(row, n, cards, species, quick, actions[b])
            steps[b] += 1
            ends[b], rewards[b] = reward_after(row, n, cards, seats[b], steps[b], max_cycles)
            if ends[b] == RUNNING:
                ends[b], rewards[b] = play_to_seat(
                    row, steps, b, policy_rngs[b], seats[b], max_cycles, mask, n, cards, species,
                    quick,
                )  # fmt: skip
            continue
        rewards[b] = 0
        ends[b] = RUNNING
        if actions[b] < -1:
            continue
        deals, end = 0, OVER
        while end != RUNNING:
            if deals == max_deals:
                return b
            deals += 1
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(row, n, cards, species, rngs[b])
            steps[b] = 0
            seats[b] = learner_seat if learner_seat >= 0 else below(policy_rngs[b], n)
            end, _ = play_to_seat(
                row, steps, b, policy_rngs[b], seats[b], max_cycles, mask, n, cards, species, quick
            )
    return -1
