"""Believe It or Not's rules on a packed row of 32-bit integers: the game's one engine.

Every rule and every observation field of the game is written here, once, in the small integer
functions that :mod:`cardzoo.envs.kernels` describes (one source, compiled by numba where it is
installed, without numba's reference counting, and run as plain Python otherwise, with identical
results). They are played one game at a time by the game itself (:mod:`.rules`, whose state *is*
a row, its named fields views into it: :mod:`cardzoo.envs.packed`), many games a call by the
vector games ("Many games at once" below, through :mod:`cardzoo.envs.batch`) and the search
playouts (:func:`playouts`), all kept in this one file for numba's cache.

``rng`` is a generator of :mod:`cardzoo.envs.kernel_random`: numpy's own (PCG64) where a game
must be dealt exactly as numpy's generator of the same seed deals it (a game's own generator,
the vector games), xorshift32 for the playouts. Every function takes the game's parameters
``n`` (players), ``cards`` (deck size), ``species`` and ``quick`` (the variant), or the first of
them it needs.

A row, for ``n`` players: the scalars (:data:`CURRENT` ... :data:`TERMINAL`), then the parts
every table size has at fixed places, then the parts per player:

=====================  ================================================================
where                  what
=====================  ================================================================
``BUILDING``           the placement being built, card types in the order added (5)
``OUT``                cards out of the game by type: sets discarded, specials played (11)
``TABLE``              the table's cards in the order placed (room for :data:`MAX_CARDS`);
                       slots beyond its size keep old values; a new game shuffles the deck
                       here before dealing it
``OWNERS``             the owner of each placement, oldest first (room for MAX_CARDS)
``SIZES``              the size of each placement, the same way
``HANDS``              cards per player and type (``11 n``)
``HANDS + 11 n``       cards in each player's hand (``n``), whether each is out (``n``), their
                       cards on the table (``n``): the state's ``seat_counts``
``HANDS + 14 n``       cards on the table by owner and type (``11 n``)
``HANDS + 25 n``       the winners, once the game is over (``n``)
``HANDS + 26 n``       the cards each player saw go to the latest doubt's taker and knows are
                       still the taker's (``11 n``: the resampler's memory,
                       "Decision (memory of the taken table)" in :mod:`.rules`)
=====================  ================================================================
"""

from cardzoo.envs.kernels import kernel_dependency, kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

_random = kernel_dependency("cardzoo.envs.kernel_random", PLAIN)
below, shuffle, seed_xorshift = _random.below, _random.shuffle, _random.seed_xorshift
integers = _random.integers
next_seed, seed_numpy = _random.next_seed, _random.seed_numpy
_arrays = kernel_dependency("cardzoo.envs.kernel_arrays", PLAIN)
copy_run, copy_rotated = _arrays.copy_run, _arrays.copy_rotated
fill, bits_into, set_bits_into = _arrays.fill, _arrays.bits_into, _arrays.set_bits_into

# The scalars at the start of a row (the state's fields of the same names).
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

# Card types: species 0..7, then the elephant, peek and skip.
NUM_TYPES, MAX_SPECIES, ELEPHANT, PEEK, SKIP = 11, 8, 8, 9, 10
SET_SIZE, MAX_PLACEMENT = 4, 5  # copies of a species (four in a hand are discarded)
MAX_CARDS = SET_SIZE * MAX_SPECIES + 5  # the largest deck: the elephant, two peeks, two skips
# The decision asked at the table.
LEAD, BUILD, RESPOND, CHOOSE_TURN, CHOOSE_PEEK = range(5)
# Action ids (the groups by card type, species or position start at these).
ADD_CARD, FINISH, DECLARE, BELIEVE, DOUBT, TURN_CARD = 0, 11, 12, 20, 21, 22
PLAY_PEEK, PLAY_SKIP, PEEK_AT, NUM_ACTIONS = 27, 28, 29, 34
NO_ONE = -1

# Where the parts of a row start (see the module docstring).
BUILDING = NUM_SCALARS
OUT = BUILDING + MAX_PLACEMENT
TABLE = OUT + NUM_TYPES
OWNERS = TABLE + MAX_CARDS
SIZES = OWNERS + MAX_CARDS
HANDS = SIZES + MAX_CARDS


def parts(n, cards):
    """Where each named part of a row starts, and its shape (``name -> (start, shape)``), in the
    names of the game's State; plain Python, for the drivers."""
    return {
        "hands": (HANDS, (n, NUM_TYPES)),
        "seat_counts": (HANDS + NUM_TYPES * n, (3, n)),
        "building": (BUILDING, (MAX_PLACEMENT,)),
        "table_cards": (TABLE, (cards,)),
        "placement_owners": (OWNERS, (cards,)),
        "placement_sizes": (SIZES, (cards,)),
        "table_counts": (HANDS + 14 * n, (n, NUM_TYPES)),
        "out_of_game": (OUT, (NUM_TYPES,)),
        "winner_mask": (HANDS + 25 * n, (n,)),
        "taken_known": (HANDS + 26 * n, (n, NUM_TYPES)),
    }


def observation_sizes(n):
    """The fields of a player's observation vector in order, with their sizes (plain Python: the
    game's ``observation_layout`` is built from it; :func:`observe` fills them)."""
    return [
        ("hand", NUM_TYPES),
        ("hand_sizes", n),
        ("is_out", n),
        ("cards_on_table", n),
        ("out_of_game", NUM_TYPES),
        ("to_act", n),
        ("decision", 5),
        ("special_played", 1),
        ("building", NUM_TYPES),
        ("declared", MAX_SPECIES),
        ("table_size", 1),
        ("last_size", 1),
        ("last_owner", n),
        ("owner_has_no_cards", 1),
        ("own_table_cards", NUM_TYPES),
        ("peeked_position", MAX_PLACEMENT),
        ("peeked_card", NUM_TYPES),
        ("revealed_card", NUM_TYPES),
        ("revealed_true", 1),
        ("revealed_taker", n),
    ]


#: the observation fields in the order of the ``starts`` argument of :func:`observe`
OBSERVATION_FIELDS = tuple(name for name, _size in observation_sizes(1))


@jit
def row_size(n, cards, species, quick):
    """The length of a packed row."""
    return HANDS + 37 * n


# ----------------------------------------------------------------------------------------------
# The rules
# ----------------------------------------------------------------------------------------------


@jit
def copies(card, cards, species):
    """Copies of card type ``card`` in a deck of ``cards`` cards with ``species`` species: four of
    each species, one elephant, and two peeks and two skips unless the deck leaves them out."""
    if card < species:
        return SET_SIZE
    if card == ELEPHANT:
        return 1
    if card in (PEEK, SKIP):
        return (cards - SET_SIZE * species - 1) // 2
    return 0


@jit
def next_in(row, n, player):
    """The next player after ``player`` (leftwards) who is not out."""
    is_out = HANDS + 12 * n
    for step in range(1, n):
        candidate = (player + step) % n
        if row[is_out + candidate] == 0:
            return candidate
    return player


@jit
def discard_sets(row, n, species, player):
    """Every set of four of one species in ``player``'s hand leaves the game."""
    hand = HANDS + NUM_TYPES * player
    for s in range(species):
        if row[hand + s] == SET_SIZE:
            row[hand + s] = 0
            row[HANDS + NUM_TYPES * n + player] -= SET_SIZE
            row[OUT + s] = SET_SIZE


@jit
def no_animals_left(row, species):
    """Every species discarded as a set."""
    for s in range(species):  # noqa: SIM110 (a loop numba compiles; no generator)
        if row[OUT + s] != SET_SIZE:
            return False
    return True


@jit
def set_winners_if_over(row, n, cards, species, quick):
    """Whether the game is over; if so, its winners are written. Quick: the first out win;
    standard: the one player still in loses. Without animals (Decision (no animals left)):
    standard, the elephant's holder (hand or own placements) loses; quick, the players still in
    with the fewest cards (hand and own placements) win."""
    sizes, is_out, on_table = HANDS + NUM_TYPES * n, HANDS + 12 * n, HANDS + 13 * n
    counts, winners = HANDS + 14 * n, HANDS + 25 * n
    anybody_out, still_in = 0, 0
    for p in range(n):
        if row[is_out + p]:
            anybody_out = 1
        else:
            still_in += 1
    if (quick and anybody_out) or (not quick and still_in <= 1):
        for p in range(n):
            row[winners + p] = row[is_out + p]
        return True
    if not no_animals_left(row, species):
        return False
    if not quick:
        for p in range(n):
            held = row[HANDS + NUM_TYPES * p + ELEPHANT] + row[counts + NUM_TYPES * p + ELEPHANT]
            row[winners + p] = 1 if held == 0 else 0
        return True
    fewest = 1 << 30
    for p in range(n):
        if row[is_out + p] == 0:
            fewest = min(fewest, row[sizes + p] + row[on_table + p])
    for p in range(n):
        held = row[sizes + p] + row[on_table + p]
        row[winners + p] = 1 if row[is_out + p] == 0 and held == fewest else 0
    return True


@jit
def end_turn(row, n, cards, species, quick, last_actor, next_decision):
    """Players without cards go out (not the owner of a live table's last placement: it can
    still be doubted); a player going out or a table taken may end the game; else the next
    player still in after ``last_actor`` has ``next_decision``."""
    row[SPECIAL_PLAYED] = 0
    owner = row[OWNERS + row[NUM_PLACEMENTS] - 1] if row[TABLE_SIZE] > 0 else NO_ONE
    sizes, is_out = HANDS + NUM_TYPES * n, HANDS + 12 * n
    went_out = False
    for p in range(n):
        if row[sizes + p] == 0 and p != owner and row[is_out + p] == 0:
            row[is_out + p] = 1
            went_out = True
    if (went_out or next_decision == LEAD) and set_winners_if_over(row, n, cards, species, quick):
        row[TERMINAL] = 1
        return
    row[CURRENT] = next_in(row, n, last_actor)
    row[DECISION] = next_decision


@jit
def finish_placement(row, n, cards, species, quick, player):
    """The cards being built join the table as ``player``'s placement."""
    size, start = row[BUILDING_SIZE], row[TABLE_SIZE]
    counts = HANDS + 14 * n + NUM_TYPES * player
    for i in range(size):
        card = row[BUILDING + i]
        row[TABLE + start + i] = card
        row[counts + card] += 1
    row[TABLE_SIZE] = start + size
    placements = row[NUM_PLACEMENTS]
    row[OWNERS + placements] = player
    row[SIZES + placements] = size
    row[NUM_PLACEMENTS] = placements + 1
    row[HANDS + 13 * n + player] += size
    row[BUILDING_SIZE] = 0
    row[PEEK_PLAYER] = NO_ONE
    row[PEEK_POSITION] = NO_ONE
    end_turn(row, n, cards, species, quick, player, RESPOND)


@jit
def take_table(row, n, species, taker):
    """``taker`` takes every card of the table into hand; then its sets of four leave. (The
    placements are walked: a table holds fewer cards than the counts have entries.)"""
    hand, counts, on_table = HANDS + NUM_TYPES * taker, HANDS + 14 * n, HANDS + 13 * n
    card = TABLE
    for placement in range(row[NUM_PLACEMENTS]):
        owner = counts + NUM_TYPES * row[OWNERS + placement]
        for _ in range(row[SIZES + placement]):
            row[hand + row[card]] += 1
            row[owner + row[card]] -= 1
            card += 1
    for p in range(n):
        row[on_table + p] = 0
    row[HANDS + NUM_TYPES * n + taker] += row[TABLE_SIZE]
    row[TABLE_SIZE] = 0
    row[NUM_PLACEMENTS] = 0
    row[DECLARED] = NO_ONE
    row[PEEK_PLAYER] = NO_ONE
    row[PEEK_POSITION] = NO_ONE
    discard_sets(row, n, species, taker)


@jit
def remember_taken_cards(row, n, owner, last_start, position, card):
    """Before the table is taken: every player knows their own cards on it, the card turned face
    up (``card``, at ``position`` of ``owner``'s last placement) and the card they peeked at."""
    known, counts = HANDS + 26 * n, HANDS + 14 * n
    copy_run(row, known, row, counts, NUM_TYPES * n)
    for p in range(n):
        row[known + NUM_TYPES * p + card] += 1
    row[known + NUM_TYPES * owner + card] -= 1  # counted among the owner's own already
    peeker, peeked = row[PEEK_PLAYER], row[PEEK_POSITION]
    if peeker != NO_ONE and peeked != position:
        row[known + NUM_TYPES * peeker + row[TABLE + last_start + peeked]] += 1


@jit
def forget_what_can_leave_unseen(row, n, species, taker):
    """After the table is taken: the taker knows their own hand; specials may leave it again
    unseen among the ones played; species discarded as a set are gone."""
    known, emptied = HANDS + 26 * n + NUM_TYPES * taker, HANDS + 14 * n + NUM_TYPES * taker
    copy_run(row, known, row, emptied, NUM_TYPES)  # zeros: table taken
    known = HANDS + 26 * n
    for kind in range(species + 2):
        t = PEEK + kind - species if kind >= species else kind
        if t >= PEEK or row[OUT + t] == SET_SIZE:
            for p in range(n):
                row[known + NUM_TYPES * p + t] = 0


@jit
def turn_card(row, n, cards, species, quick, doubter, position):
    """A doubt: card ``position`` of the last placement turned; the declared species: the
    doubter takes the table, anything else: its owner does. The next player after the taker
    leads."""
    last = row[NUM_PLACEMENTS] - 1
    last_start = row[TABLE_SIZE] - row[SIZES + last]
    card = row[TABLE + last_start + position]
    is_true = card == row[DECLARED]
    owner = row[OWNERS + last]
    taker = doubter if is_true else owner
    remember_taken_cards(row, n, owner, last_start, position, card)
    take_table(row, n, species, taker)
    forget_what_can_leave_unseen(row, n, species, taker)
    row[REVEALED_CARD] = card
    row[REVEALED_TRUE] = 1 if is_true else 0
    row[REVEALED_TAKER] = taker
    end_turn(row, n, cards, species, quick, taker, LEAD)


@jit
def play_special(row, n, player, card):
    row[HANDS + NUM_TYPES * player + card] -= 1
    row[HANDS + NUM_TYPES * n + player] -= 1
    row[OUT + card] += 1
    row[SPECIAL_PLAYED] = 1


@jit
def apply_action(row, n, cards, species, quick, action):
    """The player to decide takes ``action`` (legal: not checked)."""
    player = row[CURRENT]
    if action < FINISH:  # a card leaves the hand at once for the placement being built
        row[HANDS + NUM_TYPES * player + action] -= 1
        row[HANDS + NUM_TYPES * n + player] -= 1
        row[BUILDING + row[BUILDING_SIZE]] = action
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
        play_special(row, n, player, PEEK)
        row[DECISION] = CHOOSE_PEEK
    elif action == PLAY_SKIP:
        play_special(row, n, player, SKIP)
        end_turn(row, n, cards, species, quick, player, RESPOND)  # the next responds to P
    else:
        row[PEEK_PLAYER] = player
        row[PEEK_POSITION] = action - PEEK_AT
        row[DECISION] = RESPOND


@jit
def legal_actions(row, n, cards, species, quick):
    """The legal actions of the player to decide, as bits: bit ``a`` set if action ``a`` is
    legal (none once the game is over)."""
    if row[TERMINAL]:
        return 0
    decision, player = row[DECISION], row[CURRENT]
    hand = HANDS + NUM_TYPES * player
    if decision == BUILD:  # add a type still held while fewer than 5 are chosen; finish
        bits = 0
        if row[BUILDING_SIZE] < MAX_PLACEMENT:
            for t in range(NUM_TYPES):
                if row[hand + t] > 0:
                    bits |= 1 << t
        if row[BUILDING_SIZE] > 0:
            bits |= 1 << FINISH
        return bits
    if decision == RESPOND:
        owner = row[OWNERS + row[NUM_PLACEMENTS] - 1]
        sizes = HANDS + NUM_TYPES * n
        bits = 1 << DOUBT
        if row[sizes + owner] > 0 and row[sizes + player] > 0:
            bits |= 1 << BELIEVE
        if row[SPECIAL_PLAYED] == 0:
            if row[hand + PEEK] > 0:
                bits |= 1 << PLAY_PEEK
            if row[hand + SKIP] > 0 and next_in(row, n, player) != owner:
                bits |= 1 << PLAY_SKIP
        return bits
    if decision == LEAD:
        return ((1 << species) - 1) << DECLARE
    size = row[SIZES + row[NUM_PLACEMENTS] - 1]  # a card of the last placement to turn or peek
    return ((1 << size) - 1) << (TURN_CARD if decision == CHOOSE_TURN else PEEK_AT)


@jit
def step(row, n, cards, species, quick, action, rewards, rng):
    """One step of one game (the single-game driver's: :class:`~cardzoo.envs.packed.KernelGame`):
    the action, and the legal actions of the decision that follows, in one call. Returns their
    bits shifted left by one, plus 1 at the end of the game, which alone gives rewards: then
    ``rewards`` holds +1 for each winner and -1 for the others."""
    apply_action(row, n, cards, species, quick, action)
    if row[TERMINAL] == 0:
        return legal_actions(row, n, cards, species, quick) << 1
    winners = HANDS + 25 * n
    for p in range(n):
        rewards[p] = 1.0 if row[winners + p] else -1.0
    return 1


@jit
def legal_list(row, n, cards, species, quick, legal):
    """The legal actions of the player to decide into ``legal``, in increasing order; returns
    how many."""
    return set_bits_into(legal, legal_actions(row, n, cards, species, quick))


@jit
def legal_mask(row, n, cards, species, quick, mask):
    """The legal actions of the player to decide, 1 or 0 in ``mask``; returns how many."""
    return bits_into(mask, 0, legal_actions(row, n, cards, species, quick), NUM_ACTIONS)


@jit
def random_action(row, n, cards, species, quick, rng, legal):
    """Uniform among the legal actions (``legal``: scratch of NUM_ACTIONS)."""
    return legal[below(rng, legal_list(row, n, cards, species, quick, legal))]


@jit
def clear(row, n):
    """An empty table, nobody out, no doubt yet, no card anywhere (the table's slots aside)."""
    for index in range(TABLE):
        row[index] = 0
    for index in range(OWNERS, HANDS + 37 * n):
        row[index] = 0
    for index in (DECLARED, PEEK_PLAYER, PEEK_POSITION, REVEALED_CARD, REVEALED_TAKER):
        row[index] = NO_ONE


@jit
def deal(row, n, cards, species):
    """Deal the deck in the table's slots one card at a time from player_0 (the slots are left
    empty), then discard every set of four. Returns whether the deal is playable: every player
    holds a card and some animal is left (Decisions (void deal), (deal without animals))."""
    sizes = HANDS + NUM_TYPES * n
    for index in range(cards):
        player = index % n
        row[HANDS + NUM_TYPES * player + row[TABLE + index]] += 1
        row[sizes + player] += 1
        row[TABLE + index] = 0
    playable = True
    for player in range(n):
        discard_sets(row, n, species, player)
        playable = playable and row[sizes + player] > 0
    return playable and not no_animals_left(row, species)


@jit
def new_game(row, n, cards, species, quick, rng):
    """A new game: numpy's permutation of the deck in type order (shuffled on the table's slots),
    dealt, dealt again while the deal is void; player_0 leads."""
    playable = False
    while not playable:
        clear(row, n)
        position = TABLE
        for card in range(NUM_TYPES):
            for _ in range(copies(card, cards, species)):
                row[position] = card
                position += 1
        shuffle(row, TABLE, cards, rng)
        playable = deal(row, n, cards, species)


@jit
def deal_deck(row, n, cards, species, quick, rng):
    """A new game from the deck the table's slots hold (the ``deck`` reset option, in deal
    order); returns 1 if the deal is playable, else 0 (``rng`` is not drawn from)."""
    clear(row, n)
    return 1 if deal(row, n, cards, species) else 0


@jit
def observe(row, n, cards, species, quick, player, starts, out):
    """The observation vector of ``player`` into ``out``, which holds zeros (``starts``: where
    each field of OBSERVATION_FIELDS starts). Seats are relative: the observer first, then
    leftwards. (Runs of the row are copied by :mod:`kernel_arrays`.)"""
    copy_run(out, starts[0], row, HANDS + NUM_TYPES * player, NUM_TYPES)
    copy_run(out, starts[4], row, OUT, NUM_TYPES)
    later = n - player  # seat s is (s + later) % n seats to the observer's left
    # hand_sizes, is_out, cards_on_table: the observer's seat and those after it, then seat 0 ..
    seats = HANDS + NUM_TYPES * n
    copy_rotated(out, starts[1], row, seats, n, player)
    copy_rotated(out, starts[2], row, seats + n, n, player)
    copy_rotated(out, starts[3], row, seats + 2 * n, n, player)
    if row[TERMINAL] == 0:
        actor = row[CURRENT]
        out[starts[5] + (actor + later) % n] = 1.0
        out[starts[6] + row[DECISION]] = 1.0
        out[starts[7]] = row[SPECIAL_PLAYED]
        if actor == player:
            building = starts[8]
            for index in range(row[BUILDING_SIZE]):
                out[building + row[BUILDING + index]] += 1.0
    if row[DECLARED] != NO_ONE:  # announced: seen while the lead's placement is built too
        out[starts[9] + row[DECLARED]] = 1.0
    table_size = row[TABLE_SIZE]
    if table_size > 0:
        last = row[NUM_PLACEMENTS] - 1
        owner, size = row[OWNERS + last], row[SIZES + last]
        out[starts[10]] = table_size
        out[starts[11]] = size
        out[starts[12] + (owner + later) % n] = 1.0
        if row[seats + owner] == 0:
            out[starts[13]] = 1.0
        copy_run(out, starts[14], row, HANDS + 14 * n + NUM_TYPES * player, NUM_TYPES)
        if row[PEEK_PLAYER] == player:
            position = row[PEEK_POSITION]
            out[starts[15] + position] = 1.0
            out[starts[16] + row[TABLE + table_size - size + position]] = 1.0
    if row[REVEALED_CARD] != NO_ONE:
        out[starts[17] + row[REVEALED_CARD]] = 1.0
        out[starts[18]] = row[REVEALED_TRUE]
        out[starts[19] + (row[REVEALED_TAKER] + later) % n] = 1.0


# ------------------------------------------------------------------------------------------------
# Search rollouts: games played to the end by the bluffer, seat by seat, from each seat's view
# ------------------------------------------------------------------------------------------------


@jit
def playouts(
    rows, first_actions, seeds, n, cards, species, quick, max_steps, rng, legal, memories,
    planned, observation, starts, random_permille,
):  # fmt: skip
    """rows[b] played to the end of the game (or max_steps), first_actions[b] first unless it
    is -1; each action uniformly random among the legal ones with probability
    random_permille / 1000, else the bluffer's (:func:`policy_action`: the agent's own function,
    from the acting seat's observation, written into the scratch ``observation``; ``starts``:
    where its fields begin), each seat planning its placements in its row of ``memories``.
    A rollout knows no seat's plan at its start, and a placement begun by a random move or by
    the first action was planned by nobody: ``planned[seat]`` (scratch of n) is 1 where the
    seat's last decision before building was the bluffer's own, and a seat that builds without
    such a plan plans the placement when it first builds (:func:`plan_placement_now`). Every draw
    comes from ``rng``, a generator to seed (xorshift), one seed per row."""
    for b in range(len(rows)):
        row = rows[b]
        seed_xorshift(rng, seeds[b])
        for seat in range(n):
            memories[seat][PLAN_NEXT] = 0
            memories[seat][PLAN_SIZE] = 0
            planned[seat] = 0
        steps = 0
        if first_actions[b] >= 0 and row[TERMINAL] == 0:
            apply_action(row, n, cards, species, quick, first_actions[b])
            steps += 1
        while row[TERMINAL] == 0 and steps < max_steps:
            action = rollout_action(
                row, n, cards, species, quick, rng, legal, memories, planned, observation, starts,
                random_permille,
            )  # fmt: skip
            apply_action(row, n, cards, species, quick, action)
            steps += 1


@jit
def rollout_action(
    row, n, cards, species, quick, rng, legal, memories, planned, observation, starts,
    random_permille,
):  # fmt: skip
    """The next action of a rollout (:func:`playouts`, which says what the arguments are)."""
    player, building = row[CURRENT], row[DECISION] == BUILD
    if random_permille >= 1000 or below(rng, 1000) < random_permille:
        if not building:
            planned[player] = 0
        return random_action(row, n, cards, species, quick, rng, legal)
    if building and not planned[player]:
        plan_placement_now(
            row, n, cards, species, quick, starts, observation, memories[player], rng
        )
    planned[player] = 1
    return policy_action(
        BLUFFER, row, n, cards, species, quick, rng, legal, starts, observation, rng,
        memories[player],
    )  # fmt: skip


@jit
def plan_placement_now(row, n, cards, species, quick, starts, observation, memory, rng):
    """The bluffer's plan for the placement the player to decide is building without one (see
    :func:`playouts`): made now, from the seat's view, as the agent makes it when it declares
    or believes (the declared species; every true card it still holds and up to two spare
    cards, shuffled), the cards already placed aside."""
    fill(observation, 0, len(observation), 0.0)
    observe(row, n, cards, species, quick, row[CURRENT], starts, observation)
    kind = one_hot(observation, starts[SEEN_DECLARED], MAX_SPECIES)
    plan_placement(False, observation, starts, memory, kind, species, quick)
    shuffle(memory, PLAN, memory[PLAN_SIZE], rng)


# ----------------------------------------------------------------------------------------------
# The heuristics honest and bluffer, from a seat's view (cardzoo.agents.believe_it_or_not)
# ----------------------------------------------------------------------------------------------
# They read only the seat's observation (``starts``: where each of OBSERVATION_FIELDS begins),
# its legal actions as bits and the game's parameters, and keep between decisions the placement
# they planned (``memory``: the index of the next planned card, how many are planned, the cards)
# and their own generator (``rng``: numpy's, drawn as ``Generator.integers`` and ``permutation``
# draw). The agents call them one decision at a time and the vector games play them as
# opponents (:func:`policy_action`).

#: the policies the vector games play (``policy_action``): the agents' ``kernel_policy``
RANDOM, HONEST, BLUFFER = 0, 1, 2
#: a heuristic's memory: the next planned card, the planned cards' count, the cards in order
PLAN_NEXT, PLAN_SIZE, PLAN = 0, 1, 2
HEURISTIC_MEMORY = PLAN + MAX_PLACEMENT
# Where the fields a heuristic reads are in ``starts`` (the order of OBSERVATION_FIELDS).
SEEN_HAND, SEEN_OUT, SEEN_DECISION, SEEN_BUILDING, SEEN_DECLARED = 0, 4, 6, 8, 9
SEEN_LAST_SIZE, SEEN_OWN_TABLE, SEEN_PEEKED_POSITION, SEEN_PEEKED_CARD = 11, 14, 15, 16
#: the weight of "P tells the truth" in each heuristic's estimate of a claim
HONEST_HONESTY, BLUFFER_HONESTY = 0.5, 0.35
#: holding the declared species (believing is safe), doubt only a claim this unlikely
DOUBT_BELOW_HOLDING = 0.3
#: bluffer's bluff cards added to a placement at most
EXTRA_CARDS = 2


@jit
def one_hot(observation, start, size):
    """Which entry of the one-hot field ``observation[start:start + size]`` is set (0 if none)."""
    for index in range(size):
        if observation[start + index] > 0:
            return index
    return 0


@jit
def seen(observation, starts, field, index):
    """Entry ``index`` of observation field ``field`` (a count) as an int."""
    return int(observation[starts[field] + index])


@jit
def unseen_copies(observation, starts, kind):
    """Copies of species ``kind`` the seat cannot see (in other hands or face down)."""
    known = seen(observation, starts, SEEN_HAND, kind) + seen(observation, starts, SEEN_OUT, kind)
    known += seen(observation, starts, SEEN_OWN_TABLE, kind)
    known += seen(observation, starts, SEEN_BUILDING, kind)
    return max(0, SET_SIZE - known)


@jit
def unseen_cards(observation, starts, cards):
    """The cards the seat cannot see at all (at least 1)."""
    known = 0
    for field in (SEEN_HAND, SEEN_OWN_TABLE, SEEN_OUT, SEEN_BUILDING):
        for kind in range(NUM_TYPES):
            known += seen(observation, starts, field, kind)
    return max(1, cards - known)


@jit
def peeked_position(observation, starts):
    """The position of the card the seat peeked at in P's last placement, or -1."""
    start = starts[SEEN_PEEKED_POSITION]
    for position in range(MAX_PLACEMENT):
        if observation[start + position] > 0:
            return position
    return -1


@jit
def claim_true_chance(observation, starts, cards, honesty):
    """Estimated chance that the card the seat would turn shows the declared species: an honest
    P (``min(1, unseen copies / cards claimed)``) and a random P (``unseen copies / unseen
    cards``) mixed by ``honesty``; a peeked card settles its own position."""
    declared = one_hot(observation, starts[SEEN_DECLARED], MAX_SPECIES)
    position = peeked_position(observation, starts)
    if position >= 0 and one_hot(observation, starts[SEEN_PEEKED_CARD], NUM_TYPES) != declared:
        return 0.0  # a known lie
    size = seen(observation, starts, SEEN_LAST_SIZE, 0)
    unseen = unseen_copies(observation, starts, declared)
    if position >= 0:  # the peeked card is true; the turned card is another one
        size, unseen = size - 1, unseen - 1
        if size == 0:
            return 1.0
    honest = min(1.0, unseen / size)
    random = unseen / unseen_cards(observation, starts, cards)
    return honesty * honest + (1 - honesty) * random


@jit
def card_to_turn(observation, starts, rng):
    """The peeked card if it was a lie (or the only card), else another card at random."""
    size = seen(observation, starts, SEEN_LAST_SIZE, 0)
    position = peeked_position(observation, starts)
    if position < 0:
        return integers(rng, size)
    declared = one_hot(observation, starts[SEEN_DECLARED], MAX_SPECIES)
    if one_hot(observation, starts[SEEN_PEEKED_CARD], NUM_TYPES) != declared or size == 1:
        return position
    other = integers(rng, size - 1)
    return other if other < position else other + 1


@jit
def lead_weight(observation, starts, kind, holds_animals):
    """What makes ``kind`` a species to lead with: the copies held, or holding no animal, the
    copies unseen."""
    if holds_animals:
        return seen(observation, starts, SEEN_HAND, kind)
    return unseen_copies(observation, starts, kind)


@jit
def lead_species(observation, starts, species, rng):
    """The species the seat holds most (ties drawn); holding no animal, the species with the
    most unseen copies."""
    holds_animals = False
    for kind in range(species):
        holds_animals = holds_animals or seen(observation, starts, SEEN_HAND, kind) > 0
    ties, best = 0, 0
    for kind in range(species):
        weight = lead_weight(observation, starts, kind, holds_animals)
        if ties == 0 or weight > best:
            ties, best = 1, weight
        elif weight == best:
            ties += 1
    pick = integers(rng, ties)
    for kind in range(species):
        if lead_weight(observation, starts, kind, holds_animals) == best:
            if pick == 0:
                return kind
            pick -= 1
    return 0


@jit
def plan_card(memory, card):
    """One more card at the end of the planned placement."""
    memory[PLAN + memory[PLAN_SIZE]] = card
    memory[PLAN_SIZE] += 1


@jit
def plan_true_cards(observation, starts, memory, kind):
    """Every card of ``kind`` the seat holds (up to a placement's 5) into the plan; how many."""
    count = min(MAX_PLACEMENT, seen(observation, starts, SEEN_HAND, kind))
    for _ in range(count):
        plan_card(memory, kind)
    return count


@jit
def plan_spares(observation, starts, species, keep, memory, limit):
    """Up to ``limit`` of the cards the seat needs least into the plan, best to part with first:
    the elephant, then single cards, those of species whose other copies it can least hope to
    collect (most out of the game or its own on the table) first, then both cards of pairs;
    never the ``keep`` species, never a special card. Returns how many."""
    added = 0
    if seen(observation, starts, SEEN_HAND, ELEPHANT) > 0 and added < limit:
        plan_card(memory, ELEPHANT)
        added += 1
    # Singles in the order (-copies gone, species): each pick the first after the last one.
    last_gone, last_kind = 1 << 30, -1
    while added < limit:
        pick, pick_gone = -1, -1
        for kind in range(species):
            if kind == keep or seen(observation, starts, SEEN_HAND, kind) != 1:
                continue
            gone = seen(observation, starts, SEEN_OUT, kind)
            gone += seen(observation, starts, SEEN_OWN_TABLE, kind)
            after_last = gone < last_gone or (gone == last_gone and kind > last_kind)
            if after_last and gone > pick_gone:
                pick, pick_gone = kind, gone
        if pick < 0:
            break
        plan_card(memory, pick)
        added += 1
        last_gone, last_kind = pick_gone, pick
    for kind in range(species):
        if kind != keep and seen(observation, starts, SEEN_HAND, kind) == 2:
            for _ in range(2):
                if added < limit:
                    plan_card(memory, kind)
                    added += 1
    return added


@jit
def plan_any_card(observation, starts, species, memory):
    """One card to part with when nothing better is at hand: the first spare card, else an
    animal, a skip, a peek (none if the hand is empty)."""
    if plan_spares(observation, starts, species, -1, memory, 1):
        return
    for index in range(species + 2):
        kind = index if index < species else (SKIP if index == species else PEEK)
        if seen(observation, starts, SEEN_HAND, kind) > 0:
            plan_card(memory, kind)
            return


@jit
def plan_placement(honest, observation, starts, memory, kind, species, quick):
    """The placement the seat plans under the declared ``kind`` (its lead, or a belief).
    honest: every true card, the elephant along with two to four of them in the standard game
    (its one lie), else one card to part with; bluffer: every true card and up to two spare
    cards, or one spare card alone."""
    memory[PLAN_NEXT] = 0
    memory[PLAN_SIZE] = 0
    true_cards = plan_true_cards(observation, starts, memory, kind)
    if honest:
        elephant = seen(observation, starts, SEEN_HAND, ELEPHANT) > 0
        if not quick and elephant and 2 <= true_cards < MAX_PLACEMENT:
            plan_card(memory, ELEPHANT)
        elif true_cards == 0:
            plan_any_card(observation, starts, species, memory)
        return
    if true_cards > 0:
        room = MAX_PLACEMENT - true_cards
        plan_spares(observation, starts, species, kind, memory, min(room, EXTRA_CARDS))
    elif not plan_spares(observation, starts, species, kind, memory, 1):
        plan_any_card(observation, starts, species, memory)


@jit
def next_planned_card(observation, starts, legal, memory):
    """The next planned card that may be added to the placement; with nothing (more) planned,
    the first card held if none is chosen yet, else finish."""
    chosen = 0
    for kind in range(NUM_TYPES):
        chosen += seen(observation, starts, SEEN_BUILDING, kind)
    while memory[PLAN_NEXT] < memory[PLAN_SIZE] and chosen < MAX_PLACEMENT:
        card = memory[PLAN + memory[PLAN_NEXT]]
        memory[PLAN_NEXT] += 1
        if (legal >> (ADD_CARD + card)) & 1:
            return ADD_CARD + card
    if chosen > 0:
        return FINISH
    for kind in range(NUM_TYPES):
        if (legal >> (ADD_CARD + kind)) & 1:
            return ADD_CARD + kind
    return -1


@jit
def respond(honest, observation, starts, legal, cards):
    """Believe, doubt, peek or skip. honest: holding the declared species, believes unless the
    claim looks clearly false; else peeks when unsure, doubts an unlikely claim, skips rather
    than bluff. bluffer: peeks when unsure, doubts below its threshold, skips when it would
    have to bluff."""
    chance = claim_true_chance(
        observation, starts, cards, HONEST_HONESTY if honest else BLUFFER_HONESTY
    )
    declared = one_hot(observation, starts[SEEN_DECLARED], MAX_SPECIES)
    holds = seen(observation, starts, SEEN_HAND, declared) > 0
    can_believe = (legal >> BELIEVE) & 1 == 1
    can_peek = (legal >> PLAY_PEEK) & 1 == 1 and peeked_position(observation, starts) < 0
    can_skip = (legal >> PLAY_SKIP) & 1 == 1
    if honest:
        if holds:
            return DOUBT if chance < DOUBT_BELOW_HOLDING or not can_believe else BELIEVE
        if can_peek and 0.2 < chance < 0.8:
            return PLAY_PEEK
        if chance < 0.5 or not can_believe:
            return DOUBT
        return PLAY_SKIP if can_skip else BELIEVE
    if can_peek and 0.3 < chance < 0.7:
        return PLAY_PEEK
    if chance < (DOUBT_BELOW_HOLDING if holds else 0.5) or not can_believe:
        return DOUBT
    return PLAY_SKIP if not holds and can_skip else BELIEVE


@jit
def seat_heuristic(honest, observation, starts, legal, memory, rng, n, cards, species, quick):
    """The action of honest (or bluffer) from the seat's view: a lead or a belief plans the
    placement (its cards shuffled: where a lie sits tells nothing), which the following
    decisions add card by card; a doubt turns the peeked card if it was a lie, else another at
    random. An action that is not legal (a plan that no longer fits) gives way to the first
    legal one."""
    decision = one_hot(observation, starts[SEEN_DECISION], 5)
    if decision == BUILD:  # the most frequent decision
        action = next_planned_card(observation, starts, legal, memory)
    elif decision == LEAD:
        kind = lead_species(observation, starts, species, rng)
        plan_placement(honest, observation, starts, memory, kind, species, quick)
        shuffle(memory, PLAN, memory[PLAN_SIZE], rng)
        action = DECLARE + kind
    elif decision == CHOOSE_TURN:
        action = TURN_CARD + card_to_turn(observation, starts, rng)
    elif decision == CHOOSE_PEEK:
        action = PEEK_AT + integers(rng, seen(observation, starts, SEEN_LAST_SIZE, 0))
    else:
        action = respond(honest, observation, starts, legal, cards)
        if action == BELIEVE:
            kind = one_hot(observation, starts[SEEN_DECLARED], MAX_SPECIES)
            plan_placement(honest, observation, starts, memory, kind, species, quick)
            shuffle(memory, PLAN, memory[PLAN_SIZE], rng)
    if action < 0 or not (legal >> action) & 1:
        action = 0
        while not (legal >> action) & 1:
            action += 1
    return action


@jit
def honest_action(observation, starts, legal, memory, rng, n, cards, species, quick):
    """The honest agent (:class:`~cardzoo.agents.believe_it_or_not.HonestAgent`)."""
    return seat_heuristic(True, observation, starts, legal, memory, rng, n, cards, species, quick)


@jit
def bluffer_action(observation, starts, legal, memory, rng, n, cards, species, quick):
    """The bluffer agent (:class:`~cardzoo.agents.believe_it_or_not.BlufferAgent`)."""
    return seat_heuristic(False, observation, starts, legal, memory, rng, n, cards, species, quick)


# ----------------------------------------------------------------------------------------------
# Many games at once (the vector environments: cardzoo.envs.batch)
# ----------------------------------------------------------------------------------------------
# Every function here takes the game's parameters last, as Game.kernel_parameters() gives them:
# (num_players, deck size, num_species, quick). Game b is rows[b], dealt by its generator
# rngs[b] (numpy's, as a game's own), which is drawn from env_rngs[b] for every new game (as an
# environment's reset draws the game's generator from its own); steps[b] counts its agent steps
# against max_cycles. A reward comes only at the end of a game: +1 to each winner, -1 to
# everybody else; a game cut at max_cycles gives 0. Ends: 0 running, 1 over by the rules, 2
# truncated.
RUNNING, OVER, TRUNCATED = 0, 1, 2


@jit
def start_games(rows, rngs, env_rngs, steps, games, n, cards, species, quick):
    """A new game in every row b with games[b] true."""
    for b in range(len(rows)):
        if games[b]:
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(rows[b], n, cards, species, quick, rngs[b])
            steps[b] = 0


@jit
def observe_games(rows, players, starts, observations, masks, n, cards, species, quick):
    """observations[b] of seat players[b] (-1: the player to decide) and masks[b] its legal
    actions (all 0 unless that seat decides now); rows with players[b] < -1 are skipped."""
    for b in range(len(rows)):
        if players[b] >= -1:
            observe_game(rows[b], players[b], starts, observations[b], masks[b], n, cards,
                         species, quick)  # fmt: skip


@jit
def observe_game(row, player, starts, observation, mask, n, cards, species, quick):
    """The observation of seat ``player`` (-1: the player to decide) into ``observation`` and
    its legal actions into ``mask`` (all 0 unless that seat decides now)."""
    if player < 0:
        player = row[CURRENT]
    fill(observation, 0, len(observation), 0.0)
    observe(row, n, cards, species, quick, player, starts, observation)
    if player == row[CURRENT]:
        legal_mask(row, n, cards, species, quick, mask)
    else:
        fill(mask, 0, NUM_ACTIONS, 0)


@jit
def current_players(rows, players, n, cards, species, quick):
    for b in range(len(rows)):
        players[b] = rows[b][CURRENT]


@jit
def seat_scores(row, n, out):
    """Each seat's score into ``out`` (the game's ``scores``): the cards it holds, in hand, on
    the table and, for the player to act, being placed."""
    seats = HANDS + NUM_TYPES * n  # hand sizes, is-out flags, cards on the table
    for seat in range(n):
        out[seat] = row[seats + seat] + row[seats + 2 * n + seat]
    out[row[CURRENT]] += row[BUILDING_SIZE]


@jit
def scores_games(rows, out, n, cards, species, quick):
    """Each game's seat scores into ``out[b]`` (:func:`seat_scores`)."""
    for b in range(len(rows)):
        seat_scores(rows[b], n, out[b])


@jit
def reward_after(row, n, seat, steps, max_cycles):
    """How game ``row`` stands after an agent step (its ``steps``-th) and what ``seat`` earned
    by it: the game's end, or else a truncation (reward 0) at ``max_cycles``."""
    if row[TERMINAL]:
        return OVER, 1 if row[HANDS + 25 * n + seat] else -1
    return (TRUNCATED if steps >= max_cycles else RUNNING), 0


@jit
def step_game(row, steps, b, action, max_cycles, seat_rewards, n, cards, species, quick):
    """Game b (``row``) takes ``action`` (legal: the caller checks) for the player to decide;
    seat_rewards what each seat earned. Returns how the game stands."""
    apply_action(row, n, cards, species, quick, action)
    steps[b] += 1
    end = RUNNING
    for seat in range(n):
        end, seat_rewards[seat] = reward_after(row, n, seat, steps[b], max_cycles)
    return end


@jit
def step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, cards, species, quick):
    """Row b of :func:`step_games`."""
    ends[b] = RUNNING
    for seat in range(n):
        rewards[b][seat] = 0
    if actions[b] >= 0:
        ends[b] = step_game(rows[b], steps, b, actions[b], max_cycles, rewards[b], n, cards,
                            species, quick)  # fmt: skip


@jit
def step_games(rows, rngs, steps, actions, max_cycles, rewards, ends, n, cards, species, quick):
    """Every row b with actions[b] >= 0 takes that action (legal: the caller checks) for the
    player to decide; rewards[b] what each seat earned, ends[b] how the game stands. Rows with
    actions[b] < 0 are left alone (rewards 0, ends RUNNING)."""
    for b in range(len(rows)):
        step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, cards, species, quick)


@jit
def step_observe_games(rows, rngs, steps, actions, max_cycles, rewards, ends, players, starts,
                       observations, masks, n, cards, species, quick):  # fmt: skip
    """:func:`step_games`, each game that runs on observed at once, while its row is at hand
    (one pass over the rows where a step and then :func:`observe_games` take two): players[b]
    the player to decide, observations[b] and masks[b] what it sees and may do. A game that
    ended is left as it is there (to be observed once it is dealt again)."""
    for b in range(len(rows)):
        step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, cards, species, quick)
        if ends[b] == RUNNING:
            players[b] = rows[b][CURRENT]
            observe_game(rows[b], -1, starts, observations[b], masks[b], n, cards, species, quick)


@jit
def policy_action(
    policy, row, n, cards, species, quick, rng, legal, starts, observation, seat_rng, memory
):  # fmt: skip
    """The action of the player to decide by ``policy`` (:data:`RANDOM`, from ``rng``, with
    ``legal`` as scratch; :data:`HONEST`, :data:`BLUFFER`); a heuristic sees only that player's
    observation (written into the scratch ``observation``) and legal actions, and draws from its
    own generator ``seat_rng`` and keeps its ``memory``."""
    if policy == RANDOM:
        return random_action(row, n, cards, species, quick, rng, legal)
    fill(observation, 0, len(observation), 0.0)
    observe(row, n, cards, species, quick, row[CURRENT], starts, observation)
    bits = legal_actions(row, n, cards, species, quick)
    return seat_heuristic(
        policy == HONEST, observation, starts, bits, memory, seat_rng, n, cards, species, quick
    )


@jit
def play_to_seat(
    row, steps, b, policy_rng, seat, max_cycles, mask, policies, starts, observation, seat_rngs,
    memories, n, cards, species, quick,
):  # fmt: skip
    """Every seat but ``seat`` plays in game b (``row``, its agent steps in ``steps[b]``) by its
    policy (:func:`policy_action`; seat p's is policies[o] with o = p - (p > seat), a heuristic
    with its generator seat_rngs[o] and memory memories[o], random play drawing from
    ``policy_rng``) until ``seat`` must decide or the game ends; returns how the game stands and
    what ``seat`` earned meanwhile."""
    if row[TERMINAL]:
        return OVER, 0
    end, earned = (TRUNCATED if steps[b] >= max_cycles else RUNNING), 0
    while end == RUNNING and row[CURRENT] != seat:
        other = row[CURRENT] - (row[CURRENT] > seat)
        action = policy_action(
            policies[other], row, n, cards, species, quick, policy_rng, mask, starts, observation,
            seat_rngs[other], memories[other],
        )  # fmt: skip
        apply_action(row, n, cards, species, quick, action)
        steps[b] += 1
        end, earned = reward_after(row, n, seat, steps[b], max_cycles)
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
    policies,
    starts,
    observation,
    heuristic_rngs,
    memory,
    n,
    cards,
    species,
    quick,
):
    """One decision of the learner in every game, the other seats played by ``policies`` (one
    per other seat in seat order, the learner's left out: :data:`RANDOM`, :data:`HONEST`,
    :data:`BLUFFER`), as :meth:`cardzoo.envs.batch.GameBatch.step_seats` describes; in game b
    the heuristic of other seat o draws from heuristic_rngs[b][o] and keeps memory[b][o],
    forgotten at every new game. Returns -1, or the first row that was dealt ``max_deals``
    times in vain."""
    for b in range(len(rows)):
        row = rows[b]
        if actions[b] >= 0:
            apply_action(row, n, cards, species, quick, actions[b])
            steps[b] += 1
            ends[b], rewards[b] = reward_after(row, n, seats[b], steps[b], max_cycles)
            if ends[b] == RUNNING:
                ends[b], rewards[b] = play_to_seat(
                    row, steps, b, policy_rngs[b], seats[b], max_cycles, mask, policies, starts,
                    observation, heuristic_rngs[b], memory[b], n, cards, species, quick,
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
            new_game(row, n, cards, species, quick, rngs[b])
            steps[b] = 0
            for other in range(n - 1):
                for index in range(HEURISTIC_MEMORY):
                    memory[b][other][index] = 0
            seats[b] = learner_seat if learner_seat >= 0 else below(policy_rngs[b], n)
            end, _ = play_to_seat(
                row, steps, b, policy_rngs[b], seats[b], max_cycles, mask, policies, starts,
                observation, heuristic_rngs[b], memory[b], n, cards, species, quick,
            )  # fmt: skip
    return -1


@jit
def play_codes(
    rows, rngs, policy_rngs, steps, stops, codes, active, max_cycles, earned, ends, players,
    actions, deciding, observations, masks, mask, starts, observation, seat_rewards,
    heuristic_rngs, memory, n, cards, species, quick,
):  # fmt: skip
    """Every game b with active[b]: first the player to decide takes actions[b] where it is
    >= 0 (a decision made outside; then set to -1), then the game is played until seat
    stops[b] must decide (stops[b] = n: no seat stops), a seat whose code codes[b, seat] is -1
    (decided outside) must decide, or the game ends; the other seats by their codes
    (:func:`policy_action`: random play from policy_rngs[b]; the heuristic of seat p with its
    generator heuristic_rngs[b][o] and memory memory[b][o], o = p - (p > stops[b])). Adds what
    each seat earned meanwhile to earned[b][seat] (seat_rewards: scratch of n); ends[b] says
    how the game stands, players[b] who decides now; deciding[b] is 1 where a seat decided
    outside must decide now (0 elsewhere), its observation and legal actions written into
    observations[b] and masks[b]. Returns how many games wait for such a seat. (``rngs``: as
    other kernels take them; unused here.)"""
    waiting = 0
    for b in range(len(rows)):
        deciding[b] = 0
        if not active[b]:
            continue
        row, seat = rows[b], stops[b]
        if actions[b] >= 0:
            step_game(row, steps, b, actions[b], max_cycles, seat_rewards, n, cards, species, quick)
            for player in range(n):
                earned[b][player] += seat_rewards[player]
            actions[b] = -1
        end, _ = reward_after(row, n, 0, steps[b], max_cycles)
        while end == RUNNING and row[CURRENT] != seat and codes[b][row[CURRENT]] >= 0:
            other = row[CURRENT] - (row[CURRENT] > seat)
            action = policy_action(
                codes[b][row[CURRENT]], row, n, cards, species, quick, policy_rngs[b], mask,
                starts, observation, heuristic_rngs[b][other], memory[b][other],
            )  # fmt: skip
            end = step_game(
                row, steps, b, action, max_cycles, seat_rewards, n, cards, species, quick
            )
            for player in range(n):
                earned[b][player] += seat_rewards[player]
        ends[b] = end
        players[b] = row[CURRENT]
        if ends[b] == RUNNING and row[CURRENT] != seat:
            deciding[b] = 1
            observe_game(row, -1, starts, observations[b], masks[b], n, cards, species, quick)
            waiting += 1
    return waiting
