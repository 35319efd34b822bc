"""Minus Two's rules on a packed row of 32-bit integers.

The game's one engine, as Nobody Wants It's kernel is that game's (see
:mod:`cardzoo.envs.kernels` for how one source runs compiled by numba, without its reference
counting, and as plain Python):
every rule and every observation field of Minus Two is written here, once, as small integer
functions without numpy calls. The game's ``Game``/``State`` (:mod:`.rules`, over
:mod:`cardzoo.envs.packed`) play it one decision at a time on a state that *is* a row; the
vector games (the functions of "Many games at once", through :mod:`cardzoo.envs.batch`) and the
search playouts (:func:`playouts`) many rows a call. All live in this file: numba's cache
notices a change in a cached function's own file only.

``rng`` is a generator of :mod:`cardzoo.envs.kernel_random`: numpy's own (PCG64) where a game
must deal exactly as numpy's generator of the same seed does (a game's own generator, the vector
games), xorshift32 for the playouts. ``buf`` is scratch room for the legal actions of one
decision (:data:`MAX_LEGAL` numbers).

Card types: 0..9 = values 1..10, 10 = ``-2``, 11 = ``>>>``. Actions:
``source * 144 + type * 12 + count - 1`` (source 0 hand, 1 face-up), 288..291 a face-down
position, 292 take the pile.

A row, for ``n`` players (:func:`parts` names its parts as the game's state does): the scalars
(:data:`CURRENT` ... :data:`ROUND_WINNER`), then

==================  ===========  ==========================================================
part                size         what
==================  ===========  ==========================================================
``cards``           2 x n x 12   cards per type in every hand, then every face-up row
``face_down_held``  n x 4        1 where a face-down position still holds a card
``sizes``           3 x n        cards in each hand, face-up row and face-down row
``totals``          n            running totals
``pile_counts``     12           the pile by type
``removed``         12           cards removed by ``>>>`` this round, by type
``face_down``       n x 4        the card type at each face-down position, -1 when gone
``pile``            13 n         the pile in play order (slots beyond its size keep old
                                 values)
``round_points``    n            the points each player added at the last round's end
``hidden_hand``     n x 12       hand cards from the deal that nobody else has seen
``hand_excludes``   n x 12       1 for the types those hidden cards cannot be
``fixed_deal``      n x 13       round 1's deal fixed by reset options, card type + 1 (all
                                 0: shuffled), and the scratch room of a deal (0 after it)
==================  ===========  ==========================================================

The first six parts follow one another: the game's state shows them as one ``table`` too.
"""

from cardzoo.envs.kernels import kernel_dependency, kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

_random = kernel_dependency("cardzoo.envs.kernel_random", PLAIN)
below, shuffle, seed_xorshift = _random.below, _random.shuffle, _random.seed_xorshift
next_seed, seed_numpy, integers = _random.next_seed, _random.seed_numpy, _random.integers
_arrays = kernel_dependency("cardzoo.envs.kernel_arrays", PLAIN)
copy_run, copy_rotated = _arrays.copy_run, _arrays.copy_rotated
fill = _arrays.fill

# The scalars at the start of a packed row.
CURRENT, PILE_SIZE, LIMIT, TARGET, DEALER, ROUND, TERMINAL, ROUND_WINNER = range(8)
NUM_SCALARS = 8

NUM_TYPES, MINUS_TWO, CLEAR = 12, 10, 11
CARDS_PER_COLOUR, ROW, HAND_DEAL = 13, 4, 5
WIN_BONUS, MINUS_TWO_BONUS = 10, 80
HAND, FACE_UP, FACE_DOWN = 0, 1, 2
ACTIONS_PER_SOURCE, BLIND, TAKE_PILE, NUM_ACTIONS = 144, 288, 292, 293
#: the most legal actions a decision can have (a hand of every card of a 6-player game)
MAX_LEGAL = 300

# The legal actions of a decision as one number (see legal_code): 4 bits per type, the count of
# the last cards, take the pile, the place played from.
LAST_CARDS_SHIFT, TAKE_PILE_BIT, SOURCE_SHIFT = 48, 52, 53


def parts(n):
    """Where each named part of a row starts, and its shape (``name -> (start, shape)``), in the
    names of the game's state; plain Python, for the drivers."""
    shapes = (
        ("cards", (2, n, NUM_TYPES)),
        ("face_down_held", (n, ROW)),
        ("sizes", (3, n)),
        ("totals", (n,)),
        ("pile_counts", (NUM_TYPES,)),
        ("removed", (NUM_TYPES,)),
        ("face_down", (n, ROW)),
        ("pile", (CARDS_PER_COLOUR * n,)),
        ("round_points", (n,)),
        ("hidden_hand", (n, NUM_TYPES)),
        ("hand_excludes", (n, NUM_TYPES)),
        ("fixed_deal", (n, CARDS_PER_COLOUR)),
    )
    found, start = {}, NUM_SCALARS
    for name, shape in shapes:
        found[name] = (start, shape)
        size = 1
        for length in shape:
            size *= length
        start += size
    return found


def observation_sizes(n):
    """The fields of a player's observation vector in order, with their sizes (plain Python: the
    game's ``observation_layout`` is built from it; :func:`observe` fills them)."""
    return [
        ("hand", NUM_TYPES),
        ("face_up", n * NUM_TYPES),
        ("face_down", ROW),
        ("play_from", 3),
        ("hand_sizes", n),
        ("face_up_sizes", n),
        ("face_down_sizes", n),
        ("totals", n),
        ("pile_limit", 1),
        ("pile_size", 1),
        ("pile", NUM_TYPES),
        ("removed", NUM_TYPES),
        ("target", 1),
    ]


#: the observation fields in the order of the ``starts`` argument of :func:`observe`
OBSERVATION_FIELDS = tuple(name for name, _size in observation_sizes(1))


@jit
def offsets(n):
    """Where the parts of a row start (as :func:`parts` says), in its order."""
    cards = NUM_SCALARS
    held = cards + 24 * n
    sizes = held + 4 * n
    totals = sizes + 3 * n
    pile = totals + n
    removed = pile + 12
    face_down = removed + 12
    order = face_down + 4 * n
    points = order + 13 * n
    hidden = points + n
    excludes = hidden + 12 * n
    deck = excludes + 12 * n
    return (
        cards,
        held,
        sizes,
        totals,
        pile,
        removed,
        face_down,
        order,
        points,
        hidden,
        excludes,
        deck,
    )


if PLAIN:  # plain Python looks the offsets up (computing them costs a microsecond a call)
    _offsets_of = {}

    def offsets(n, _computed=offsets):
        found = _offsets_of.get(n)
        if found is None:
            found = _offsets_of[n] = _computed(n)
        return found


@jit
def card_points(card, count_scoring):
    if count_scoring:
        return 1
    if card < MINUS_TWO:
        return card + 1
    return 20 if card == MINUS_TWO else 50


@jit
def held(row, n, player):
    sizes = offsets(n)[2]
    return row[sizes + player] + row[sizes + n + player] + row[sizes + 2 * n + player]


@jit
def play_source(row, n, player):
    """Where ``player`` must play from now: 0 hand, 1 face-up row, 2 face-down row."""
    cards, _, sizes = offsets(n)[:3]
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
def playable(card, limit):
    """Whether ``card`` may be played on a pile with ``limit`` (0: empty): on an empty pile any
    number and >>>, never -2; else up to the limit, -2 and >>>."""
    if limit == 0:
        return card != MINUS_TWO
    return card < limit or card >= MINUS_TWO


# ----------------------------------------------------------------------------------------------
# The legal actions
# ----------------------------------------------------------------------------------------------


@jit
def legal_code(row, n):
    """The legal actions of the player to act as one number (0: none, once the game is over),
    which :func:`expand_legal` lists: from the face-down row, bit p for position p; else bits
    4t..4t+3 the cards of type t that may go together (1..count of them), bits 48..51 the
    count of the last cards (every -2 at once; 0: not allowed), bit 52 taking the pile, and
    bits 53.. the place played from."""
    if row[TERMINAL]:
        return 0
    cards, held_part, sizes = offsets(n)[:3]
    player = row[CURRENT]
    source = play_source(row, n, player)
    if source == 2:
        code = 2 << SOURCE_SHIFT
        for position in range(4):
            code |= row[held_part + 4 * player + position] << position
        return code
    start = cards + 12 * (source * n + player)
    limit = row[LIMIT]
    code = source << SOURCE_SHIFT
    for card in range(12):
        count = row[start + card]
        # playable(card, limit), written out (plain Python calls cost here)
        if count > 0 and (
            (card != MINUS_TWO) if limit == 0 else (card < limit or card >= MINUS_TWO)
        ):
            code |= count << (4 * card)
    in_hand, face_up = row[sizes + player], row[sizes + n + player]
    minus_twos = row[cards + 12 * player + MINUS_TWO] + row[cards + 12 * (n + player) + MINUS_TWO]
    if row[sizes + 2 * n + player] == 0 and minus_twos == in_hand + face_up:
        # The last cards: every -2 at once, unless the place holds them all and they are
        # listed as a play already (on a pile).
        if limit == 0 or row[start + MINUS_TWO] != minus_twos:
            code |= minus_twos << LAST_CARDS_SHIFT
    elif row[PILE_SIZE] > 0 and code == source << SOURCE_SHIFT:
        code |= 1 << TAKE_PILE_BIT  # no legal play: take the pile
    return code


@jit
def listed(out, k, action, as_mask):
    """Action ``action`` as the k-th of a list (``out[k]``) or in a mask (``out[action] = 1``)."""
    if as_mask:
        out[action] = 1
    else:
        out[k] = action
    return k + 1


@jit
def expand_legal(code, out, as_mask):
    """The legal actions of a :func:`legal_code`: listed in increasing order, ``out[:k]``, or
    (``as_mask``) as 1 at each legal action of ``out``, zero elsewhere already; returns k, how
    many there are."""
    source = code >> SOURCE_SHIFT
    k = 0
    if source == 2:
        for position in range(4):
            if (code >> position) & 1:
                k = listed(out, k, BLIND + position, as_mask)
        return k
    first = source * ACTIONS_PER_SOURCE
    for card in range(12):
        for more in range((code >> (4 * card)) & 15):
            k = listed(out, k, first + card * 12 + more, as_mask)
    last = (code >> LAST_CARDS_SHIFT) & 15
    if last > 0:  # the place holds only -2 (none of the plays above is of a later type)
        k = listed(out, k, first + MINUS_TWO * 12 + last - 1, as_mask)
    if (code >> TAKE_PILE_BIT) & 1:
        k = listed(out, k, TAKE_PILE, as_mask)
    return k


@jit
def list_legal(row, n, out):
    """The legal actions of the player to act, in increasing order, ``out[:k]``; returns k."""
    return expand_legal(legal_code(row, n), out, False)


if PLAIN:  # plain Python lists each code once (expanding one costs it microseconds)
    _lists_of: dict = {}

    def list_legal(row, n, out):
        code = legal_code(row, n)
        found = _lists_of.get(code)
        if found is None:
            if len(_lists_of) >= _arrays.KEPT:
                _lists_of.clear()
            listed = [0] * NUM_ACTIONS
            found = _lists_of[code] = listed[: expand_legal(code, listed, False)]
        out[: len(found)] = found
        return len(found)


# ----------------------------------------------------------------------------------------------
# The rules
# ----------------------------------------------------------------------------------------------


@jit
def empty_pile(row, n):
    pile = offsets(n)[4]
    row[PILE_SIZE] = 0
    row[LIMIT] = 0
    for card in range(12):
        row[pile + card] = 0


@jit
def take_pile(row, n, player):
    cards, _, sizes, _, pile = offsets(n)[:5]
    for card in range(12):
        row[cards + 12 * player + card] += row[pile + card]
    row[sizes + player] += row[PILE_SIZE]
    empty_pile(row, n)


@jit
def add_to_hand(row, n, player, card):
    cards, _, sizes = offsets(n)[:3]
    row[cards + 12 * player + card] += 1
    row[sizes + player] += 1


@jit
def remove_every_minus_two(row, n, player):
    """Every -2 out of the player's hand and face-up row; returns how many."""
    cards, _, sizes = offsets(n)[:3]
    hidden = offsets(n)[9]
    in_hand = row[cards + 12 * player + MINUS_TWO]
    face_up = row[cards + 12 * (n + player) + MINUS_TWO]
    row[cards + 12 * player + MINUS_TWO] = 0
    row[cards + 12 * (n + player) + MINUS_TWO] = 0
    row[hidden + 12 * player + MINUS_TWO] = 0
    row[sizes + player] -= in_hand
    row[sizes + n + player] -= face_up
    return in_hand + face_up


@jit
def deal(row, n, rng):
    """Every player's colour shuffled on its own, as numpy's ``Generator.permuted`` does (row by
    row), and dealt (:func:`lay_out_deal`)."""
    deck = offsets(n)[11]
    for player in range(n):
        start = deck + 13 * player
        for slot in range(13):
            row[start + slot] = 1 + (slot if slot <= MINUS_TWO else slot - 1)  # 1..10, -2 x2, >>>
        shuffle(row, start, 13, rng)
    lay_out_deal(row, n)


@jit
def lay_out_deal(row, n):
    """The deal in the row's deal part (type + 1 per card; per player 4 face down, 4 face up, 5
    in hand), which it empties; the pile empty, and the dealer's left neighbour to play. Nobody
    has seen anybody's hand yet."""
    cards, held_part, sizes, _, _, removed, face_down, _, _, hidden, excludes, deck = offsets(n)
    for player in range(n):
        hand, face_up = cards + 12 * player, cards + 12 * (n + player)
        for card in range(12):
            row[hand + card] = 0
            row[face_up + card] = 0
            row[excludes + 12 * player + card] = 0
        for slot in range(13):
            card = row[deck + 13 * player + slot] - 1
            row[deck + 13 * player + slot] = 0
            if slot < 4:
                row[face_down + 4 * player + slot] = card
                row[held_part + 4 * player + slot] = 1
            elif slot < 8:
                row[face_up + card] += 1
            else:
                row[hand + card] += 1
        for card in range(12):
            row[hidden + 12 * player + card] = row[hand + card]
        row[sizes + player] = HAND_DEAL
        row[sizes + n + player] = ROW
        row[sizes + 2 * n + player] = ROW
    empty_pile(row, n)
    for card in range(12):
        row[removed + card] = 0
    row[CURRENT] = (row[DEALER] + 1) % n


@jit
def new_game(row, n, count_scoring, target_raise, target_score, points_reward, rng):
    """A new game: round 1 dealt by the last seat, so that seat 0 plays first, from the row's
    fixed deal if it holds one, else shuffled with ``rng``."""
    _, _, _, totals, _, _, _, order, points, _, _, deck = offsets(n)
    row[TARGET] = target_score
    row[DEALER] = n - 1
    row[ROUND] = 1
    row[TERMINAL] = 0
    row[ROUND_WINNER] = -1
    for player in range(n):
        row[totals + player] = 0
        row[points + player] = 0
    for slot in range(13 * n):
        row[order + slot] = 0
    if row[deck] > 0:
        lay_out_deal(row, n)
    else:
        deal(row, n, rng)


@jit
def end_round(row, n, winner, last_minus_two, rng, count_scoring, target_raise):
    """Every player adds what they hold (the winner their bonus); the game ends if a total
    reached the target and one player has the lowest, else (the target raised on a tie for
    lowest) the next dealer deals."""
    cards, _, _, totals, _, _, face_down, _, points = offsets(n)[:9]
    for player in range(n):
        added = 0
        for card in range(12):
            count = row[cards + 12 * player + card] + row[cards + 12 * (n + player) + card]
            added += count * card_points(card, count_scoring)
        for position in range(4):
            card = row[face_down + 4 * player + position]
            if card >= 0:
                added += card_points(card, count_scoring)
        if player == winner and not count_scoring:
            added = -(MINUS_TWO_BONUS if last_minus_two else WIN_BONUS)  # the winner holds none
        row[points + player] = added
        row[totals + player] += added
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
    """``count`` cards of ``card``, already out of the player's places, onto the pile."""
    pile, removed = offsets(n)[4:6]
    order = offsets(n)[7]
    size = row[PILE_SIZE]
    for slot in range(size, size + count):
        row[order + slot] = card
    row[PILE_SIZE] = size + count
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
    _, held_part, sizes = offsets(n)[:3]
    face_down = offsets(n)[6]
    card = row[face_down + 4 * player + position]
    row[face_down + 4 * player + position] = -1
    row[held_part + 4 * player + position] = 0
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
def note_what_the_move_shows(row, n, player, action):
    """What everybody learns about the unseen cards of ``player``'s hand (not empty) when they
    do not play from it: taking the pile shows that none of them could be played; playing from
    the face-up or face-down row, that they are all -2."""
    excludes = offsets(n)[10] + 12 * player
    limit = row[LIMIT]
    for card in range(12):
        if playable(card, limit) if action == TAKE_PILE else card != MINUS_TWO:
            row[excludes + card] = 1


@jit
def apply_action(row, n, action, rng, count_scoring, target_raise):
    """The player to act takes ``action`` (legal: not checked)."""
    cards, _, sizes = offsets(n)[:3]
    player = row[CURRENT]
    if action >= ACTIONS_PER_SOURCE and row[sizes + player] > 0:
        note_what_the_move_shows(row, n, player, action)
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
        left = row[place + card] - count
        row[place + card] = left
        row[sizes + source * n + player] -= count
        # A card played from the hand is the publicly known one while there is one.
        hidden = offsets(n)[9] + 12 * player + card
        if source == HAND and row[hidden] > left:
            row[hidden] = left
    play(row, n, player, card, count, rng, count_scoring, target_raise)


@jit
def seat_reward(row, n, seat, points_reward):
    """What ``seat`` earned by an action that ended a round: minus the points its total gained
    (points reward; a float, -0.0 for none), or at the end of the game +1 for the winner and -1
    for the others (0 before)."""
    _, _, _, totals, _, _, _, _, points = offsets(n)[:9]
    if points_reward:
        return -1.0 * row[points + seat]
    if row[TERMINAL] == 0:
        return 0
    for player in range(n):
        if row[totals + player] < row[totals + seat]:
            return -1
    return 1


@jit
def apply_rewarded(row, n, points_reward, action, rewards, rng, count_scoring, target_raise):
    """:func:`apply_action`; returns 1 if the step gives rewards (a round's end with the points
    reward, the game's end with the win reward) and then writes what each seat earned into
    ``rewards`` (:func:`seat_reward`), else 0 (and ``rewards`` are left alone)."""
    round_number = row[ROUND]
    apply_action(row, n, action, rng, count_scoring, target_raise)
    if row[TERMINAL] == 0 and (row[ROUND] == round_number or not points_reward):
        return 0
    for player in range(n):
        rewards[player] = seat_reward(row, n, player, points_reward)
    return 1


@jit
def step(row, n, count_scoring, target_raise, target_score, points_reward, action, rewards, rng):
    """One step of one game (the single-game driver's: :class:`~cardzoo.envs.packed.KernelGame`):
    :func:`apply_rewarded`, and the legal actions that follow (:func:`legal_code`), in one call.
    Returns their code shifted left by one, plus 1 if the step gives rewards."""
    rewarded = apply_rewarded(
        row, n, points_reward, action, rewards, rng, count_scoring, target_raise
    )
    return (legal_code(row, n) << 1) | rewarded


@jit
def legal_actions(row, n, count_scoring, target_raise, target_score, points_reward):
    """The legal actions of the player to act, as :func:`legal_code` gives them."""
    return legal_code(row, n)


@jit
def observe(row, n, count_scoring, target_raise, target_score, points_reward, player, starts, out):
    """The observation vector of ``player`` into ``out`` (``starts``: where each field of
    OBSERVATION_FIELDS starts), players listed from ``player`` on: a seat-relative field is
    the row's part from ``player`` on, then up to it (runs copied by :mod:`kernel_arrays`)."""
    cards, held_part, sizes, _, pile, removed = offsets(n)[:6]
    copy_run(out, starts[0], row, cards + 12 * player, 12)
    copy_rotated(out, starts[1], row, cards + 12 * n, 12 * n, 12 * player)
    copy_run(out, starts[2], row, held_part + 4 * player, 4)
    source, at = play_source(row, n, player), starts[3]
    out[at], out[at + 1], out[at + 2] = source == 0, source == 1, source == 2
    for field in range(4):  # hand, face-up and face-down sizes, then the totals that follow
        copy_rotated(out, starts[4 + field], row, sizes + n * field, n, player)
    out[starts[8]] = row[LIMIT]
    out[starts[9]] = row[PILE_SIZE]
    copy_run(out, starts[10], row, pile, 12)
    copy_run(out, starts[11], row, removed, 12)
    out[starts[12]] = row[TARGET]


# ----------------------------------------------------------------------------------------------
# The heuristics: the agents high_cards and attacker (cardzoo.agents.minus_two), the vector
# games' compiled opponents (policy_action) and the playouts' policies (heuristic_action)
# ----------------------------------------------------------------------------------------------
# An agent decides from what its seat sees: its observation vector as observe writes it (starts:
# where each field begins; seats relative, 0 the observer and 1 its left neighbour) and its legal
# actions as a legal_code (an agent gets it from the action mask: legal_code_of). Both are loop
# breakers: a position a seat has seen before in the game gets a random legal action (the agents
# keep what they saw; the vector games' kernel remembers it in arrays: remember).

#: the opponents the vector games play here (policy_action): uniformly random, the heuristics
RANDOM, HIGH_CARDS, ATTACKER = range(3)
#: the attacker attacks a left neighbour holding this many cards or fewer
THREAT = 3


@jit
def may_play(code, card, count):
    """Whether the legal actions ``code`` (from a hand or face-up row) play ``count`` of
    ``card``: up to the type's count, or all the last cards at once."""
    if count <= (code >> (4 * card)) & 15:
        return True
    return card == MINUS_TWO and count == (code >> LAST_CARDS_SHIFT) & 15


@jit
def heuristic_choice(code, mine, left, limit, pile_size, attacker):
    """The action of the attacker (``attacker`` true) or high_cards for the legal actions
    ``code``, holding ``mine`` cards (hand, face up and face down) with ``left`` held by the left
    neighbour, on a pile of ``pile_size`` cards with ``limit``: a face-down card (any position:
    they are unseen); else going out; high_cards leads a >>> on an empty pile; the attacker plays
    as many -2 as leave the limit at 1 or more when the neighbour holds :data:`THREAT` cards or
    fewer; else the highest number that fits, every copy of it; else one -2 that leaves the
    limit at 1 or more, a >>>, taking the pile, and last the first play of the fewest cards.
    The first play is the lowest action of those that qualify. -1 without a legal action."""
    source = code >> SOURCE_SHIFT
    if source == 2:
        for position in range(4):
            if (code >> position) & 1:
                return BLIND + position
        return -1
    first = source * ACTIONS_PER_SOURCE
    for card in range(12):
        if may_play(code, card, mine):
            return first + 12 * card + mine - 1  # going out
    if not attacker and pile_size == 0 and may_play(code, CLEAR, 1):
        return first + 12 * CLEAR  # 50 points gone for nothing, and I lead again
    if attacker and pile_size > 0 and left <= THREAT:
        for count in range(12, 0, -1):  # the lowest limit of 1 or more
            if limit - 2 * count >= 1 and may_play(code, MINUS_TWO, count):
                return first + 12 * MINUS_TWO + count - 1
    for card in range(MINUS_TWO - 1, -1, -1):
        count = (code >> (4 * card)) & 15
        if count > 0:
            return first + 12 * card + count - 1
    if pile_size > 0 and limit >= 3 and may_play(code, MINUS_TWO, 1):
        return first + 12 * MINUS_TWO
    if may_play(code, CLEAR, 1):
        return first + 12 * CLEAR
    if (code >> TAKE_PILE_BIT) & 1:
        return TAKE_PILE
    for count in range(1, 13):
        for card in range(12):
            if may_play(code, card, count):
                return first + 12 * card + count - 1
    return -1


@jit
def seen_choice(observation, starts, legal, attacker):
    """:func:`heuristic_choice` from a seat's view: its observation and legal code."""
    hand_sizes, n = starts[4], starts[5] - starts[4]
    mine, left = 0, 0
    for field in range(3):  # hand, face-up and face-down sizes
        mine += int(observation[hand_sizes + n * field])
        left += int(observation[hand_sizes + n * field + 1 % n])
    limit, pile_size = int(observation[starts[8]]), int(observation[starts[9]])
    return heuristic_choice(legal, mine, left, limit, pile_size, attacker)


@jit
def high_cards_action(observation, starts, legal):
    """The high_cards agent's choice (without its loop breaker), from its seat's view."""
    return seen_choice(observation, starts, legal, False)


@jit
def attacker_action(observation, starts, legal):
    """The attacker agent's choice (without its loop breaker), from its seat's view."""
    return seen_choice(observation, starts, legal, True)


@jit
def heuristic_action(row, n, code, attacker):
    """The attacker (``attacker`` true) or high_cards on a row, for the player to act whose
    legal actions are ``code`` (the playouts' heuristic; they break loops by random actions)."""
    player = row[CURRENT]
    mine, left = held(row, n, player), held(row, n, (player + 1) % n)
    return heuristic_choice(code, mine, left, row[LIMIT], row[PILE_SIZE], attacker)


@jit
def legal_code_of(actions, k):
    """A :func:`legal_code` of the legal actions ``actions[:k]`` (increasing), as an agent reads
    them from its mask: it lists the same actions (a decision's own code may count some of the
    last cards in their type's bits instead). 0 for none."""
    if k == 0:
        return 0
    if actions[0] >= BLIND and actions[0] < TAKE_PILE:
        code = 2 << SOURCE_SHIFT
        for i in range(k):
            code |= 1 << (actions[i] - BLIND)
        return code
    source = 1 if actions[0] >= ACTIONS_PER_SOURCE and actions[0] < BLIND else 0
    code = source << SOURCE_SHIFT
    for i in range(k):
        action = actions[i]
        if action == TAKE_PILE:
            code |= 1 << TAKE_PILE_BIT
            continue
        card, count = (action % ACTIONS_PER_SOURCE) // 12, action % 12 + 1
        if count == ((code >> (4 * card)) & 15) + 1:
            code += 1 << (4 * card)  # the next count of a run from 1
        else:
            code |= count << LAST_CARDS_SHIFT
    return code


# The vector games' loop breaker: every heuristic opponent remembers the positions it has seen
# this game as 61-bit keys of its observations (position_key) in an open-addressing table of
# its own (a power of two of slots, 0 for empty), and plays a random legal action, drawn as its
# agent's Generator.integers would (kernel_random.integers), when one comes back. Two different
# observations with the same key would make it play one random action where the agent plays
# its choice: with m positions remembered that happens with odds about m * m / 2**62 a game
# (about 1e-13 for a long game of 600 decisions a seat), and it is still a legal action.

#: positions remembered at most, as the agents keep them (all forgotten at the next new one)
MAX_REMEMBERED = 50_000
KEY_MASK = (1 << 61) - 1
KEY_MULTIPLIER = 0x9E3779B97F4A7C15 & KEY_MASK


@jit
def position_key(observation):
    """A 61-bit key of an observation (its values are whole numbers), never 0."""
    key = len(observation)
    for index in range(len(observation)):
        key = ((key ^ int(observation[index])) * KEY_MULTIPLIER) & KEY_MASK
        key ^= key >> 29
    return key if key != 0 else 1


@jit
def remember(table, remembered, slot, key):
    """Whether ``key`` is in the table (a power of two of slots), ``remembered[slot]`` its
    keys; if not, it goes in (the table emptied first once it holds :data:`MAX_REMEMBERED`)."""
    size = len(table)
    place = key & (size - 1)
    while table[place] != 0:
        if table[place] == key:
            return True
        place = (place + 1) & (size - 1)
    if remembered[slot] >= MAX_REMEMBERED:
        forget(table, remembered, slot)
        place = key & (size - 1)
    table[place] = key
    remembered[slot] += 1
    return False


@jit
def forget(table, remembered, slot):
    if remembered[slot] > 0:
        for place in range(len(table)):
            table[place] = 0
        remembered[slot] = 0


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
            code = legal_code(row, n)
            k = expand_legal(code, buf, False)
            if random_permille >= 1000 or below(rng, 1000) < random_permille:
                action = buf[below(rng, k)]
            else:
                action = heuristic_action(row, n, code, attacker)
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
    return offsets(n)[11] + 13 * n  # the deal part, last


@jit
def legal_mask(row, n, mask):
    """The legal actions of the player to act, 1 or 0 in ``mask`` (an array; all 0 once the
    game is over); returns how many there are."""
    fill(mask, 0, NUM_ACTIONS, 0)
    return expand_legal(legal_code(row, n), mask, True)


if PLAIN:  # plain Python keeps each code's mask (listing a code's actions costs microseconds)
    _masks_of = {}

    def legal_mask(row, n, mask):
        code = legal_code(row, n)
        found = _arrays.kept(_masks_of, code, NUM_ACTIONS, _expanded, code)
        return _arrays.put_kept(mask, 0, found)

    def _expanded(run, code):
        return expand_legal(code, run, True)


@jit
def start_games(
    rows, rngs, env_rngs, steps, games, n, count_scoring, target_raise, target_score, points_reward
):
    """A new game in every row b with games[b] true."""
    for b in range(len(rows)):
        if games[b]:
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(rows[b], n, count_scoring, target_raise, target_score, points_reward, rngs[b])
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
        if players[b] >= -1:
            observe_game(rows[b], players[b], starts, observations[b], masks[b], n,
                         count_scoring, target_raise, target_score, points_reward)  # fmt: skip


@jit
def observe_game(row, player, starts, observation, mask, n, count_scoring, target_raise,
                 target_score, points_reward):  # fmt: skip
    """The observation of seat ``player`` (-1: the player to act) into ``observation`` and its
    legal actions into ``mask`` (all 0 unless that seat acts now)."""
    if player < 0:
        player = row[CURRENT]
    observe(row, n, count_scoring, target_raise, target_score, points_reward, player, starts,
            observation)  # fmt: skip
    if player == row[CURRENT]:
        legal_mask(row, n, mask)
    else:
        fill(mask, 0, NUM_ACTIONS, 0)


@jit
def current_players(rows, players, n, count_scoring, target_raise, target_score, points_reward):
    for b in range(len(rows)):
        players[b] = rows[b][CURRENT]


@jit
def seat_scores(row, n, out):
    """Each seat's score into ``out``: its running total (the game's ``scores``)."""
    totals = offsets(n)[3]
    for seat in range(n):
        out[seat] = row[totals + seat]


@jit
def scores_games(rows, out, n, count_scoring, target_raise, target_score, points_reward):
    """Each game's seat scores into ``out[b]`` (:func:`seat_scores`)."""
    for b in range(len(rows)):
        seat_scores(rows[b], n, out[b])


@jit
def end_of(row, steps, max_cycles):
    if row[TERMINAL]:
        return OVER
    return TRUNCATED if steps >= max_cycles else RUNNING


@jit
def step_game(row, rng, steps, b, action, max_cycles, seat_rewards, n, count_scoring,
              target_raise, points_reward):  # fmt: skip
    """Game b (``row``) takes ``action`` (legal: the caller checks) for the player to act;
    seat_rewards what each seat earned (0 on a truncating step). Returns how the game stands."""
    for player in range(n):
        seat_rewards[player] = 0
    round_before = row[ROUND]
    apply_action(row, n, action, rng, count_scoring, target_raise)
    steps[b] += 1
    end = end_of(row, steps[b], max_cycles)
    if end != TRUNCATED and (row[TERMINAL] == 1 or row[ROUND] != round_before):
        for player in range(n):
            seat_rewards[player] = seat_reward(row, n, player, points_reward)
    return end


@jit
def step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, count_scoring,
             target_raise, target_score, points_reward):  # fmt: skip
    """Row b of :func:`step_games`."""
    ends[b] = RUNNING
    for player in range(n):
        rewards[b][player] = 0
    if actions[b] >= 0:
        ends[b] = step_game(rows[b], rngs[b], steps, b, actions[b], max_cycles, rewards[b], n,
                            count_scoring, target_raise, points_reward)  # fmt: skip


@jit
def step_games(rows, rngs, steps, actions, max_cycles, rewards, ends, n, count_scoring,
               target_raise, target_score, points_reward):  # fmt: skip
    """Every row b with actions[b] >= 0 takes that action (legal: the caller checks) for the
    player to act; rewards[b] what each seat earned (0 on a truncating step), ends[b] how the
    game stands. Rows with actions[b] < 0 are left alone (rewards 0, ends RUNNING)."""
    for b in range(len(rows)):
        step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, count_scoring,
                 target_raise, target_score, points_reward)  # fmt: skip


@jit
def step_observe_games(rows, rngs, steps, actions, max_cycles, rewards, ends, players, starts,
                       observations, masks, n, count_scoring, target_raise, target_score,
                       points_reward):  # fmt: skip
    """:func:`step_games`, each game that runs on observed at once, while its row is at hand
    (one pass over the rows where a step and then :func:`observe_games` take two): players[b]
    the player to decide, observations[b] and masks[b] what it sees and may do. A game that
    ended is left as it is there (to be observed once it is dealt again)."""
    for b in range(len(rows)):
        step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, count_scoring,
                 target_raise, target_score, points_reward)  # fmt: skip
        if ends[b] == RUNNING:
            players[b] = rows[b][CURRENT]
            observe_game(rows[b], -1, starts, observations[b], masks[b], n, count_scoring,
                         target_raise, target_score, points_reward)  # fmt: skip


@jit
def take_action(
    row, rng, steps, b, action, seat, max_cycles, n, count_scoring, target_raise, points_reward
):
    """Game b (``row``) takes ``action``; returns what ``seat`` earned (0 on a truncating step)."""
    round_before = row[ROUND]
    apply_action(row, n, action, rng, count_scoring, target_raise)
    steps[b] += 1
    if end_of(row, steps[b], max_cycles) == TRUNCATED:
        return 0
    if row[TERMINAL] == 0 and row[ROUND] == round_before:
        return 0
    return seat_reward(row, n, seat, points_reward)


#: step_seats' codes: an opponent's memory is full (its table needs more slots), and the two
#: ways a row goes on after its table grew (see step_seats)
FULL, RESUME_STEP, RESUME_EPISODE = -2, -3, -4


@jit
def policy_action(
    policy, row, n, policy_rng, buf, starts, observation, table, remembered, slot, heuristic_rng,
    count_scoring, target_raise, target_score, points_reward,
):  # fmt: skip
    """The action of the player to act by ``policy`` (:data:`RANDOM`, :data:`HIGH_CARDS`,
    :data:`ATTACKER`): a heuristic sees only that player's observation (written into the scratch
    ``observation``) and legal actions, and plays a random one (from ``heuristic_rng``) in a
    position it remembers (``table``, ``remembered[slot]`` its keys: :func:`remember`).
    :data:`FULL`, before anything, when the table must grow first."""
    if policy == RANDOM:
        return buf[below(policy_rng, list_legal(row, n, buf))]
    if 2 * remembered[slot] >= len(table) and remembered[slot] < MAX_REMEMBERED:
        return FULL
    rules = (count_scoring, target_raise, target_score, points_reward)
    observe(row, n, *rules, row[CURRENT], starts, observation)
    code = legal_code(row, n)
    if remember(table, remembered, slot, position_key(observation)):
        return buf[integers(heuristic_rng, expand_legal(code, buf, False))]
    return seen_choice(observation, starts, code, policy == ATTACKER)


@jit
def play_others(
    rows, rngs, policy_rngs, steps, b, seat, max_cycles, buf, policies, starts, observation,
    heuristic_rngs, memory, remembered, n, count_scoring, target_raise, target_score,
    points_reward,
):  # fmt: skip
    """Every seat but ``seat`` plays in game b by its policy (:func:`policy_action`; seat p's is
    policies[p - (p > seat)], and so are its table memory[b][p - (p > seat)] and generator)
    until ``seat`` must act or the game ends; returns what ``seat`` earned meanwhile, and
    whether it stopped because an opponent's table is full."""
    row = rows[b]
    earned = 0.0
    rules = (count_scoring, target_raise, points_reward)
    while end_of(row, steps[b], max_cycles) == RUNNING and row[CURRENT] != seat:
        player = row[CURRENT]
        slot = player - (player > seat)
        action = policy_action(
            policies[slot], row, n, policy_rngs[b], buf, starts, observation, memory[b][slot],
            remembered[b], slot, heuristic_rngs[b][slot], count_scoring, target_raise,
            target_score, points_reward,
        )  # fmt: skip
        if action == FULL:
            return earned, True
        earned += take_action(row, rngs[b], steps, b, action, seat, max_cycles, n, *rules)
    return earned, False


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
    policies,
    starts,
    observation,
    heuristic_rngs,
    memory,
    remembered,
    first_row,
    n,
    count_scoring,
    target_raise,
    target_score,
    points_reward,
):
    """One decision of the learner in every game from row ``first_row`` on, the other seats
    played by ``policies`` (one per other seat in seat order, the learner's left out:
    :data:`RANDOM`, :data:`HIGH_CARDS`, :data:`ATTACKER`; ``starts`` where the observation
    fields begin; ``buf``, ``observation`` scratch). A heuristic opponent remembers its positions
    in ``memory[b][slot]`` (``remembered[b][slot]`` of them; forgotten at every new game) and
    draws from ``heuristic_rngs[b][slot]``.

    Row b with actions[b] >= 0: the learner (seats[b]) takes it, then the others play until the
    learner acts again or the game ends; rewards[b] is what the learner earned, ends[b] how the
    game stands. Row b with actions[b] == -1: a new episode (rewards 0): a new game, the
    learner's seat ``learner_seat`` or, if -1, drawn from policy_rngs[b], and the others play
    up to the learner's first decision, dealing again (at most ``max_deals`` times) while a game
    ends before it. Rows with actions[b] in -2, -5 and below are left alone.

    Returns -1; or the first row that was dealt ``max_deals`` times in vain; or ``FULL - b``
    when an opponent of row b must remember a position and its table is half full: rows before
    b are done, row b stands before that opponent's decision (what the learner earned so far in
    rewards[b]), and once the tables have grown (:func:`moved`) a call from row b with
    actions[b] :data:`RESUME_STEP` (the row was a learner's step) or :data:`RESUME_EPISODE` (a
    new episode) goes on."""
    heuristics = (policies, starts, observation, heuristic_rngs, memory, remembered)
    rules = (count_scoring, target_raise, target_score, points_reward)
    for b in range(first_row, len(rows)):
        row = rows[b]
        seat = seats[b]
        action = actions[b]
        if action >= 0 or action == RESUME_STEP:
            if action >= 0:
                rewards[b] = take_action(
                    row, rngs[b], steps, b, action, seat, max_cycles, n, count_scoring,
                    target_raise, points_reward,
                )  # fmt: skip
            earned, full = play_others(
                rows, rngs, policy_rngs, steps, b, seat, max_cycles, buf, *heuristics, n, *rules
            )
            rewards[b] += earned
            ends[b] = end_of(row, steps[b], max_cycles)
            if full:
                return FULL - b
            continue
        deals = 1
        if action == RESUME_EPISODE:
            _, full = play_others(
                rows, rngs, policy_rngs, steps, b, seat, max_cycles, buf, *heuristics, n, *rules
            )
            if full:
                return FULL - b
        elif action == -1:
            rewards[b] = 0
            ends[b] = RUNNING
            deals = 0
        else:
            rewards[b] = 0
            ends[b] = RUNNING
            continue
        while deals == 0 or end_of(row, steps[b], max_cycles) != RUNNING:
            if deals == max_deals:
                return b
            deals += 1
            seed_numpy(rngs[b], next_seed(env_rngs[b]))
            new_game(row, n, count_scoring, target_raise, target_score, points_reward, rngs[b])
            steps[b] = 0
            for slot in range(n - 1):
                forget(memory[b][slot], remembered[b], slot)
            seats[b] = learner_seat if learner_seat >= 0 else below(policy_rngs[b], n)
            _, full = play_others(
                rows, rngs, policy_rngs, steps, b, seats[b], max_cycles, buf, *heuristics, n,
                *rules,
            )  # fmt: skip
            if full:
                return FULL - b
    return -1


@jit
def moved(old, new, remembered):
    """Every opponent's table of ``old`` into the larger tables of ``new`` (zeros), its keys
    counted again in ``remembered``."""
    for b in range(len(old)):
        for slot in range(len(old[b])):
            remembered[b][slot] = 0
            for place in range(len(old[b][slot])):
                if old[b][slot][place] != 0:
                    remember(new[b][slot], remembered[b], slot, old[b][slot][place])


@jit
def play_codes(
    rows, rngs, policy_rngs, steps, stops, codes, active, max_cycles, earned, ends, players,
    actions, deciding, observations, masks, buf, starts, observation, seat_rewards,
    heuristic_rngs, memory, remembered, n, count_scoring, target_raise, target_score,
    points_reward,
):  # fmt: skip
    """Every game b with active[b]: first the player to act takes actions[b] where it is >= 0
    (a decision made outside; then set to -1), then the game is played until seat stops[b]
    must decide (stops[b] = n: no seat stops), a seat whose code codes[b, seat] is -1 (decided
    outside) must decide, or the game ends; the other seats by their codes
    (:func:`policy_action`: random play from policy_rngs[b]; the heuristic of seat p with its
    generator heuristic_rngs[b][o] and its table memory[b][o], o = p - (p > stops[b])). Adds
    what each seat earned meanwhile to earned[b][seat] (seat_rewards: scratch of n); ends[b]
    says how the game stands, players[b] who decides now; deciding[b] is 1 where a seat decided
    outside must decide now (0 elsewhere), its observation and legal actions written into
    observations[b] and masks[b]. Returns how many games wait for such a seat; or :data:`FULL`
    when a heuristic's table is half full: that game stands before its decision, and once the
    tables have grown (:func:`moved`) the same call goes on with it (the actions taken stay
    taken: they are -1 by then)."""
    rules = (count_scoring, target_raise, points_reward)
    waiting = 0
    for b in range(len(rows)):
        deciding[b] = 0
        if not active[b]:
            continue
        row, seat = rows[b], stops[b]
        if actions[b] >= 0:
            step_game(row, rngs[b], steps, b, actions[b], max_cycles, seat_rewards, n, *rules)
            for seat_earning in range(n):
                earned[b][seat_earning] += seat_rewards[seat_earning]
            actions[b] = -1
        while end_of(row, steps[b], max_cycles) == RUNNING and row[CURRENT] != seat:
            player = row[CURRENT]
            if codes[b][player] < 0:
                break
            other = player - (player > seat)
            action = policy_action(
                codes[b][player], row, n, policy_rngs[b], buf, starts, observation,
                memory[b][other], remembered[b], other, heuristic_rngs[b][other], count_scoring,
                target_raise, target_score, points_reward,
            )  # fmt: skip
            if action == FULL:
                return FULL
            step_game(row, rngs[b], steps, b, action, max_cycles, seat_rewards, n, *rules)
            for seat_earning in range(n):
                earned[b][seat_earning] += seat_rewards[seat_earning]
        ends[b] = end_of(row, steps[b], max_cycles)
        players[b] = row[CURRENT]
        if ends[b] == RUNNING and row[CURRENT] != seat:
            deciding[b] = 1
            observe_game(row, -1, starts, observations[b], masks[b], n, count_scoring,
                         target_raise, target_score, points_reward)  # fmt: skip
            waiting += 1
    return waiting
