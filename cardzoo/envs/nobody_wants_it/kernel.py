"""Nobody Wants It's rules on a packed row of 32-bit integers: the game's one engine.

Every rule and every observation field of the game is written here, once, as small integer
functions (no numpy calls), so that one source runs both compiled by numba and as plain Python
(:func:`cardzoo.envs.kernels.plain_and_compiled` loads this file twice: as ``kernel``, compiled
when numba is installed, with numba's on-disk cache and without its reference counting,
:data:`cardzoo.envs.kernels.COMPILE_OPTIONS`, and as ``kernel_plain``, never compiled).
Three drivers play it: the game's ``Game``/``State`` (:mod:`.rules`: one game, one decision at a
time; the state *is* a row, its named fields views into it), the vector games (the functions of
"Many games at once", through :mod:`cardzoo.envs.batch`) and the search playouts
(:func:`playouts`). The game's heuristics are here too, as functions of a seat's observation and
legal actions (:func:`hand_shedder_action`, :func:`nwi_dodger_action`): the agents call them
(:mod:`cardzoo.agents.nobody_wants_it`) and the vector games play them as opponents
(:func:`policy_action`). All live in this file because numba's cache notices a change in a
cached function's own file only: a changed heuristic (or rule) reloads every compiled function
that calls it (a test keeps every compiled function a kernel calls in its own file, the
generator's aside).

``rng`` is a generator of :mod:`cardzoo.envs.kernel_random`: numpy's own (PCG64) where a game
must deal and reshuffle exactly as numpy's generator of the same seed does (a game's own
generator, the vector games), xorshift32 for the playouts.

A row, for ``n`` players and ``rounds`` rounds: the scalars (:data:`ROUND` ... :data:`TERMINAL`),
then the parts every table size has at fixed places, then the parts per player:

========================  ==============================================================
where                     what
========================  ==============================================================
``DRAW``                  the draw pile, 72 slots of species, bottom card first (its top
                          card at ``DRAW + row[DRAW_SIZE] - 1``); slots beyond its size
                          keep old values
``DISCARD``               the discard pile, the same way
``COUNTS``                the discard pile's cards per species (4)
``NWI``                   where each round's NWI cards are, 4 per round (room for 3): a
                          seat, :data:`ON_PILE` or :data:`OUT_OF_GAME`
``HANDS``                 cards per player and species (``4 n``)
``HANDS + 4 n``           cards per player (``n``)
``HANDS + 5 n``           the species a player set aside for a horse exchange, or
                          :data:`NO_GIFT` (``n``)
``HANDS + 6 n``           points of finished rounds (``n``)
``HANDS + 7 n``           penalty cards per player: 2-point, 4-point (``2 n``)
``HANDS + 9 n``           the decks fixed by reset options, 72 species per round in deal
                          order (all -1 where the round is shuffled); the rules only read
                          them
========================  ==============================================================
"""

from cardzoo.envs.kernels import kernel_dependency, kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see the module docstring)
PLAIN, jit = kernel_jit(__name__)

from cardzoo.envs.nobody_wants_it.cards import (  # noqa: E402, F401
    CARDS_PER_SPECIES,
    NUM_CARDS,
    NUM_SPECIES,
)

_random = kernel_dependency("cardzoo.envs.kernel_random", PLAIN)
below, shuffle, seed_xorshift = _random.below, _random.shuffle, _random.seed_xorshift
next_seed, seed_numpy = _random.next_seed, _random.seed_numpy
_arrays = kernel_dependency("cardzoo.envs.kernel_arrays", PLAIN)
fill, bits_into = _arrays.fill, _arrays.bits_into

# The scalars at the start of a row.
ROUND, DEALER, ACTIVE, CURRENT, DECISION, DRAW_SIZE, DISCARD_SIZE, TERMINAL = range(8)
NUM_SCALARS = 8
# Where the parts of a row start (see the module docstring).
DRAW = NUM_SCALARS
DISCARD = DRAW + 72
COUNTS = DISCARD + 72
NWI = COUNTS + 4
MAX_ROUNDS = 3
HANDS = NWI + 4 * MAX_ROUNDS
HAND_SIZE = 9  # cards dealt to each player

# The decision being asked.
TURN, PIG_ANSWER, HORSE_GIFT = range(3)
# Where an NWI card can be besides a player's seat, and a horse_gifts entry of a player who has
# not chosen yet.
ON_PILE, OUT_OF_GAME, NO_GIFT = -1, -2, -1
# Action ids (the species-indexed groups start at these).
PLAY_ONE, PLAY_PAIR, PASS_TAKE_DRAW, PASS_TAKE_DISCARD = 0, 4, 8, 9
PIG_TAKE_DRAW, PIG_TAKE_PIG, HORSE_GIVE, NUM_ACTIONS = 10, 11, 12, 16
SHEEP, PIG, HORSE, COW = range(4)
SMALL_PENALTY, BIG_PENALTY = 2, 4


def parts(n, rounds):
    """Where each named part of a row starts, and its shape (``name -> (start, shape)``), in the
    names of the game's State; plain Python, for the drivers."""
    return {
        "hands": (HANDS, (n, 4)),
        "hand_sizes": (HANDS + 4 * n, (n,)),
        "draw_pile": (DRAW, (72,)),
        "discard_pile": (DISCARD, (72,)),
        "discard_counts": (COUNTS, (4,)),
        "nwi_holder": (NWI, (rounds, 4)),
        "horse_gifts": (HANDS + 5 * n, (n,)),
        "penalty_cards": (HANDS + 7 * n, (n, 2)),
        "points": (HANDS + 6 * n, (n,)),
        "fixed_decks": (HANDS + 9 * n, (rounds, 72)),
    }


def observation_sizes(n):
    """The fields of a player's observation vector in order, with their sizes (plain Python: the
    game's ``observation_layout`` is built from it; :func:`observe` fills them)."""
    return [
        ("hand", 4),
        ("hand_sizes", n),
        ("discard_top", 4),
        ("discard_counts", 4),
        ("draw_size", 1),
        ("nwi_position", 4 * (n + 1)),
        ("scores", n),
        ("round", MAX_ROUNDS),
        ("decision", 3),
        ("active", n),
        ("to_act", n),
    ]


#: the observation fields in the order of the ``starts`` argument of :func:`observe`
OBSERVATION_FIELDS = tuple(name for name, _size in observation_sizes(1))


@jit
def row_size(n, rounds, points_reward):
    """The length of a packed row."""
    return HANDS + 9 * n + 72 * rounds


# ----------------------------------------------------------------------------------------------
# The rules
# ----------------------------------------------------------------------------------------------


@jit
def gain(row, n, player, species, amount):
    row[HANDS + 4 * player + species] += amount
    row[HANDS + 4 * n + player] += amount


@jit
def deal(row, n, dealer, rng):
    """Deal the round ``row[ROUND]`` from ``dealer``: its fixed deck, or all 72 cards shuffled
    with ``rng``; card k goes to seat (dealer + 1 + k) mod n until everybody holds 9, the rest
    is the draw pile (its top card the first not dealt). The dealer's left neighbour plays."""
    deck = HANDS + 9 * n + 72 * (row[ROUND] - 1)
    if row[deck] < 0:
        for card in range(72):
            row[DRAW + card] = card // 18
        shuffle(row, DRAW, 72, rng)
    else:
        for card in range(72):
            row[DRAW + card] = row[deck + card]
    # The pile is stacked bottom first: the deck's first card on top.
    for card in range(36):
        row[DRAW + card], row[DRAW + 71 - card] = row[DRAW + 71 - card], row[DRAW + card]
    for index in range(4 * n):
        row[HANDS + index] = 0
    for player in range(n):
        row[HANDS + 4 * n + player] = HAND_SIZE
        row[HANDS + 5 * n + player] = NO_GIFT
    size = 72
    for k in range(HAND_SIZE * n):
        size -= 1
        row[HANDS + 4 * ((dealer + 1 + k) % n) + row[DRAW + size]] += 1
    row[DRAW_SIZE] = size
    row[DISCARD_SIZE] = 0
    for species in range(4):
        row[COUNTS + species] = 0
    row[DEALER] = dealer
    row[ACTIVE] = (dealer + 1) % n
    row[CURRENT] = (dealer + 1) % n
    row[DECISION] = TURN


@jit
def new_game(row, n, rounds, points_reward, rng):
    """A new game in ``row``, whose deck part says which rounds' decks are fixed: round 1 dealt
    by the last seat, so that seat 0 plays first; every NWI card on its pile."""
    row[ROUND] = 1
    row[TERMINAL] = 0
    for place in range(4 * rounds):
        row[NWI + place] = ON_PILE
    for index in range(3 * n):  # points, then penalty cards
        row[HANDS + 6 * n + index] = 0
    deal(row, n, n - 1, rng)


@jit
def draw_card(row, n, player, rng):
    """``player`` draws the top card of the draw pile; an empty draw pile is first replaced by
    the discard pile, shuffled; if both are empty nothing is drawn."""
    if row[DRAW_SIZE] == 0:
        size = row[DISCARD_SIZE]
        if size == 0:
            return
        shuffle(row, DISCARD, size, rng)
        for i in range(size):
            row[DRAW + i] = row[DISCARD + i]
        row[DRAW_SIZE] = size
        row[DISCARD_SIZE] = 0
        for species in range(4):
            row[COUNTS + species] = 0
    row[DRAW_SIZE] -= 1
    gain(row, n, player, row[DRAW + row[DRAW_SIZE]], 1)


@jit
def discard_card(row, n, player, species):
    gain(row, n, player, species, -1)
    row[DISCARD + row[DISCARD_SIZE]] = species
    row[DISCARD_SIZE] += 1
    row[COUNTS + species] += 1


@jit
def take_discard_top(row, n, player):
    row[DISCARD_SIZE] -= 1
    species = row[DISCARD + row[DISCARD_SIZE]]
    row[COUNTS + species] -= 1
    gain(row, n, player, species, 1)


@jit
def penalty(sizes, start, n, closer, player):
    """The penalty card (0, 2 or 4 points) of ``player`` when ``closer`` ends the round, from the
    hand sizes ``sizes[start:start + n]``: the single largest hand takes a 4 and the second
    largest a 2; hands tied for the largest take a 2 each (no 4, no second); never the closer."""
    if player == closer:
        return 0
    most, ties, second = -1, 0, -1
    for other in range(n):
        if other == closer:
            continue
        size = sizes[start + other]
        if size > most:
            most, ties, second = size, 1, most
        elif size == most:
            ties += 1
        elif size > second:
            second = size
    mine = sizes[start + player]
    if mine == most:
        return SMALL_PENALTY if ties > 1 else BIG_PENALTY
    if ties == 1 and mine == second:
        return SMALL_PENALTY
    return 0


@jit
def end_round(row, n, rounds, closer, rng):
    """Penalty cards; the round's NWI cards score their round's value for their holders and
    unclaimed ones leave the game; then the closer deals the next round, or the game is over."""
    points = HANDS + 6 * n
    for player in range(n):
        value = penalty(row, HANDS + 4 * n, n, closer, player)
        if value:
            row[points + player] += value
            row[HANDS + 7 * n + 2 * player + value // BIG_PENALTY] += 1
    round_number = row[ROUND]
    for species in range(4):
        place = NWI + 4 * (round_number - 1) + species
        holder = row[place]
        if holder == ON_PILE:
            row[place] = OUT_OF_GAME
        elif holder >= 0:
            row[points + holder] += round_number
    if round_number == rounds:
        row[TERMINAL] = 1
    else:
        row[ROUND] = round_number + 1
        deal(row, n, closer, rng)


@jit
def end_turn(row, n, rounds, rng):
    """The round ends with the turn of a player left without cards; else the left neighbour
    plays."""
    player = row[ACTIVE]
    if row[HANDS + 4 * n + player] == 0:
        end_round(row, n, rounds, player, rng)
    else:
        row[ACTIVE] = (player + 1) % n
        row[CURRENT] = (player + 1) % n
        row[DECISION] = TURN


@jit
def apply_action(row, n, rounds, action, rng):
    """The player to decide takes ``action`` (legal: not checked)."""
    player = row[CURRENT]
    decision = row[DECISION]
    if decision == PIG_ANSWER:
        if action == PIG_TAKE_PIG:
            take_discard_top(row, n, player)
        else:
            draw_card(row, n, player, rng)
        end_turn(row, n, rounds, rng)
    elif decision == HORSE_GIFT:
        # The card is set aside at once; when everybody has chosen, all give to the left.
        gifts = HANDS + 5 * n
        gain(row, n, player, action - HORSE_GIVE, -1)
        row[gifts + player] = action - HORSE_GIVE
        if (player + 1) % n != row[ACTIVE]:
            row[CURRENT] = (player + 1) % n
            return
        for giver in range(n):
            gain(row, n, (giver + 1) % n, row[gifts + giver], 1)
        for giver in range(n):
            row[gifts + giver] = NO_GIFT
        end_turn(row, n, rounds, rng)
    elif action < PLAY_PAIR:
        species = action - PLAY_ONE
        discard_card(row, n, player, species)
        if species == PIG:  # the left neighbour answers
            row[DECISION] = PIG_ANSWER
            row[CURRENT] = (player + 1) % n
            return
        if species == HORSE and row[HANDS + 4 * n + player] > 0:
            row[DECISION] = HORSE_GIFT  # the active player chooses first
            return
        if species == COW:
            draw_card(row, n, player, rng)
        end_turn(row, n, rounds, rng)
    elif action < PASS_TAKE_DRAW:
        # A pair: the round's NWI card of its species moves to the left (from its pile: to the
        # player's left neighbour).
        species = action - PLAY_PAIR
        discard_card(row, n, player, species)
        discard_card(row, n, player, species)
        place = NWI + 4 * (row[ROUND] - 1) + species
        holder = row[place]
        row[place] = (player + 1) % n if holder == ON_PILE else (holder + 1) % n
        end_turn(row, n, rounds, rng)
    else:
        if action == PASS_TAKE_DRAW:
            draw_card(row, n, player, rng)
        else:
            take_discard_top(row, n, player)
        end_turn(row, n, rounds, rng)


@jit
def seat_reward(row, n, rounds, seat, points_before, points_reward):
    """What ``seat`` earned by the action just applied: minus the points it gained (points
    reward; a float, -0.0 for none), or at the end of the game +1 for a winner (a lowest score)
    and -1 for the others."""
    points = HANDS + 6 * n
    if points_reward:
        return -1.0 * (row[points + seat] - points_before)
    if row[TERMINAL] == 0:
        return 0
    for player in range(n):
        if row[points + player] < row[points + seat]:
            return -1
    return 1


@jit
def apply_rewarded(row, n, rounds, points_reward, action, rewards, rng):
    """:func:`apply_action`; returns 1 if the step gives rewards (the end of a round with the
    points reward, the end of the game with the win reward) and then writes what each seat
    earned into ``rewards`` (:func:`seat_reward`), else 0 (and ``rewards`` are left alone)."""
    points = HANDS + 6 * n
    if points_reward:
        for player in range(n):
            rewards[player] = row[points + player]  # the points before, for a moment
    round_number = row[ROUND]
    apply_action(row, n, rounds, action, rng)
    if row[TERMINAL] == 0 and (row[ROUND] == round_number or not points_reward):
        return 0
    for player in range(n):
        rewards[player] = seat_reward(row, n, rounds, player, rewards[player], points_reward)
    return 1


@jit
def step(row, n, rounds, points_reward, action, rewards, rng):
    """One step of one game (the single-game driver's: :class:`~cardzoo.envs.packed.KernelGame`):
    :func:`apply_rewarded`, and the legal actions of the decision that follows, in one call.
    Returns their bits shifted left by one, plus 1 if the step gives rewards."""
    rewarded = apply_rewarded(row, n, rounds, points_reward, action, rewards, rng)
    return (legal_actions(row, n, rounds, points_reward) << 1) | rewarded


@jit
def legal_actions(row, n, rounds, points_reward):
    """The legal actions of the player to decide, as bits: bit ``a`` set if action ``a`` is
    legal (none once the game is over)."""
    if row[TERMINAL]:
        return 0
    decision = row[DECISION]
    if decision == PIG_ANSWER:
        return (1 << PIG_TAKE_DRAW) | (1 << PIG_TAKE_PIG)
    hand = HANDS + 4 * row[CURRENT]
    singles = pairs = 0  # bit s: the hand holds one, two of species s
    for species in range(4):
        held = row[hand + species]
        if held > 0:
            singles |= 1 << species
            if held > 1:
                pairs |= 1 << species
    if decision == HORSE_GIFT:
        return singles << HORSE_GIVE
    bits = (singles << PLAY_ONE) | (pairs << PLAY_PAIR) | (1 << PASS_TAKE_DRAW)
    if row[DISCARD_SIZE] > 0:
        bits |= 1 << PASS_TAKE_DISCARD
    return bits


@jit
def legal_mask(row, n, rounds, mask):
    """The legal actions of the player to decide, 1 or 0 in ``mask``; returns how many."""
    return bits_into(mask, 0, legal_actions(row, n, rounds, 0), NUM_ACTIONS)


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
def observe(row, n, rounds, points_reward, player, starts, out):
    """The observation vector of ``player`` into ``out``, which holds zeros (``starts``: where
    each field of OBSERVATION_FIELDS starts). Seats are relative: the observer first, then
    leftwards. (Written out element by element: slices cost numba more than loops, and loops
    cost plain Python more than writing four numbers out.)"""
    hand, start, counts = HANDS + 4 * player, starts[0], starts[3]
    out[start], out[start + 1] = row[hand], row[hand + 1]
    out[start + 2], out[start + 3] = row[hand + 2], row[hand + 3]
    out[counts], out[counts + 1] = row[COUNTS], row[COUNTS + 1]
    out[counts + 2], out[counts + 3] = row[COUNTS + 2], row[COUNTS + 3]
    sizes, scores, seat = starts[1], starts[6], HANDS + 4 * n + player  # hand_sizes[player]
    for relative in range(n):
        if relative == n - player:  # past the last seat: on from seat 0
            seat -= n
        out[sizes + relative] = row[seat]
        out[scores + relative] = row[seat + 2 * n]  # points[seat]
        seat += 1
    if row[DISCARD_SIZE] > 0:
        out[starts[2] + row[DISCARD + row[DISCARD_SIZE] - 1]] = 1.0
    out[starts[4]] = row[DRAW_SIZE]
    round_number, later = row[ROUND], n - player  # seat s is (s + later) % n seats to the left
    nwi, block = NWI + 4 * (round_number - 1), starts[5]
    for species in range(4):
        # One-hot per species: on its pile (or, after the last round, unclaimed), or a seat.
        holder = row[nwi + species]
        out[block + (0 if holder < 0 else (holder + later) % n + 1)] = 1.0
        block += n + 1
    out[starts[7] + round_number - 1] = 1.0
    out[starts[8] + row[DECISION]] = 1.0
    out[starts[9] + (row[ACTIVE] + later) % n] = 1.0
    out[starts[10] + (row[CURRENT] + later) % n] = 1.0


# ----------------------------------------------------------------------------------------------
# The heuristics: the agents hand_shedder and nwi_dodger (cardzoo.agents.nobody_wants_it), the
# vector games' compiled opponents (policy_action) and the playouts' policies (shedding_action)
# ----------------------------------------------------------------------------------------------
# An agent decides from what its seat sees: its observation vector as observe writes it (float
# counts and one-hot flags; starts: where each field begins) and its legal actions as bits.
# Seats there are relative (0: the observer, then leftwards). Every count is read through int(),
# so that the arithmetic is the same on float32, float64 and Python floats; powers take a float
# exponent, so that numba calls the C library's pow as Python does (with an integer exponent it
# multiplies in a loop, which rounds differently).

#: the opponents the vector games play here (policy_action): uniformly random, the heuristics
RANDOM, HAND_SHEDDER, NWI_DODGER = range(3)
#: nwi_dodger's weights: the bonus for the action that empties the hand; the chance that an NWI
#: card moves one seat further before the round ends (beyond the first); the cost, in cards per
#: NWI point, of a pair that brings its NWI card to me (it stays the last choice among pairs but
#: still beats a single card: shedding speed matters most), and of the chance that a released
#: card travels back to me
CLOSING_BONUS, PASS_ON_CHANCE, SELF_LANDING_COST, RETURN_RISK_COST = 20.0, 0.35, 0.3, 0.3


@jit
def first_max(values, start, size):
    """The first index of the largest of ``values[start:start + size]``."""
    best = 0
    for index in range(1, size):
        if values[start + index] > values[start + best]:
            best = index
    return best


@jit
def seen_decision(observation, starts, legal):
    """The decision asked of the observer: a turn as the observation says, else a pig answer if
    taking the pig is legal, else a horse gift."""
    if first_max(observation, starts[8], 3) == TURN:
        return TURN
    return PIG_ANSWER if (legal >> PIG_TAKE_PIG) & 1 else HORSE_GIFT


@jit
def shedding_choice(cards, hand, decision, held, landing):
    """hand_shedder's action from the hand ``cards[hand:hand + 4]`` (of a row or an observation):
    a pig answer takes the pig that completes a pair; a horse gift gives a card without a partner
    (cows first, pigs last), else a cow, sheep, horse, pig; a turn plays the largest pair (the
    first species of equals), else a pig, horse, sheep (keeping pairs whole), else a cow, and
    passes only with an empty hand. Among pairs, species in the bits ``held`` come first and
    those in ``landing`` last (the playouts' NWI-aware variant; 0 for hand_shedder)."""
    if decision == PIG_ANSWER:
        return PIG_TAKE_PIG if cards[hand + PIG] % 2 == 1 else PIG_TAKE_DRAW
    if decision == HORSE_GIFT:
        for species in (COW, SHEEP, HORSE, PIG):
            if cards[hand + species] % 2 == 1:
                return HORSE_GIVE + species
        for species in (COW, SHEEP, HORSE, PIG):
            if cards[hand + species] > 0:
                return HORSE_GIVE + species
    best, best_value = -1, -1000
    for species in range(4):
        count = int(cards[hand + species])
        if count < 2:
            continue
        value = count
        if (held >> species) & 1:
            value += 100
        elif (landing >> species) & 1:
            value -= 50
        if value > best_value:
            best, best_value = species, value
    if best >= 0:
        return PLAY_PAIR + best
    for species in (PIG, HORSE, SHEEP, COW):
        if cards[hand + species] > 0:
            return PLAY_ONE + species
    return PASS_TAKE_DRAW


@jit
def hand_shedder_action(observation, starts, legal):
    """The hand_shedder agent (:func:`shedding_choice`), from its seat's view."""
    decision = seen_decision(observation, starts, legal)
    return shedding_choice(observation, starts[0], decision, 0, 0)


@jit
def chance_of_a_pair(observation, starts, size, seat, species, extra_seen):
    """Rough chance that the player at (relative) ``seat`` holds two or more of ``species``:
    their cards are drawn from everything the observer has not seen (the draw pile and the other
    hands); ``size``: the observer's cards."""
    hand, counts = starts[0], starts[3]
    discarded = 0
    for other in range(4):
        discarded += int(observation[counts + other])
    unseen_total = NUM_CARDS - discarded - size
    unseen = CARDS_PER_SPECIES - int(observation[counts + species])
    unseen -= int(observation[hand + species]) + extra_seen
    if unseen_total <= 0 or unseen <= 1:
        return 0.0
    share = min(1.0, unseen / unseen_total)
    cards = int(observation[starts[1] + seat])
    none = (1 - share) ** float(cards)
    one = cards * share * (1 - share) ** float(cards - 1)
    return max(0.0, 1.0 - none - one)


@jit
def dodger_pair_value(observation, starts, size, species):
    """nwi_dodger's value of the pair of ``species``: two cards shed (and the closing bonus),
    plus passing on an NWI card it holds, minus the NWI card landing on it or the risk that the
    card it releases travels back to it."""
    n = starts[2] - starts[1]
    closes = size == 2
    value = 2.0 + (CLOSING_BONUS if closes else 0.0)
    points = first_max(observation, starts[7], MAX_ROUNDS) + 1  # the round's NWI value
    holder = first_max(observation, starts[5] + species * (n + 1), n + 1) - 1  # -1: on its pile
    if holder == 0:
        value += 2.0 * points
    destination = 1 % n if holder < 0 else (holder + 1) % n
    if destination == 0:
        return value - (0.0 if closes else SELF_LANDING_COST * points)
    # The released card comes back only if it travels, seat by seat, all the way to me: the
    # first holder needs a pair of that species (few cards, species spent: unlikely).
    steps_to_me = (n - destination) % n
    first = chance_of_a_pair(observation, starts, size, destination, species, 2)
    risk = first * PASS_ON_CHANCE ** float(steps_to_me - 1)
    return value - RETURN_RISK_COST * points * risk


@jit
def dodger_value(observation, starts, size, action):
    """nwi_dodger's value of a turn's ``action``, in cards shed (a pair 2, a single 1, a pass -1)
    plus bonuses: taking the discard pile's top card to complete a pair, keeping pigs for a left
    neighbour close to going out."""
    hand = starts[0]
    if PLAY_PAIR <= action < PASS_TAKE_DRAW:
        return dodger_pair_value(observation, starts, size, action - PLAY_PAIR)
    if action == PASS_TAKE_DRAW:
        return -1.0
    if action == PASS_TAKE_DISCARD:
        top = first_max(observation, starts[2], 4)
        single = int(observation[hand + top]) % 2 == 1
        return -1.0 + (0.3 if single and top != COW else -0.1)
    species = action - PLAY_ONE
    if species == COW:
        return 0.0  # sheds one card, draws one
    value = 1.0 + (CLOSING_BONUS if size == 1 else 0.0)
    if int(observation[hand + species]) % 2 == 0:
        value -= 0.5  # breaks a pair
    if species == PIG:
        left_size = int(observation[starts[1] + 1 % (starts[2] - starts[1])])
        value += 0.6 if left_size <= 3 else -0.2  # save pigs for a neighbour about to go out
    return value


@jit
def nwi_dodger_action(observation, starts, legal):
    """The nwi_dodger agent, from its seat's view: in a turn the legal action of the highest
    :func:`dodger_value` (the lowest action of equals); a pig answer as hand_shedder's; a horse
    gift a cow if any, else a sheep or horse without a partner, else a sheep, horse, pig (never
    a pig it can keep)."""
    hand = starts[0]
    decision = seen_decision(observation, starts, legal)
    if decision == PIG_ANSWER:
        return shedding_choice(observation, hand, decision, 0, 0)
    if decision == HORSE_GIFT:
        if observation[hand + COW] > 0:
            return HORSE_GIVE + COW
        for species in (SHEEP, HORSE):
            if int(observation[hand + species]) % 2 == 1:
                return HORSE_GIVE + species
        for species in (SHEEP, HORSE, PIG):
            if observation[hand + species] > 0:
                return HORSE_GIVE + species
        return -1
    size = 0
    for species in range(4):
        size += int(observation[hand + species])
    best, best_value = -1, 0.0
    for action in range(PASS_TAKE_DISCARD + 1):
        if (legal >> action) & 1:
            value = dodger_value(observation, starts, size, action)
            if best < 0 or value > best_value:
                best, best_value = action, value
    return best


@jit
def policy_action(policy, row, n, rounds, points_reward, rng, mask, starts, observation):
    """The action of the player to decide by ``policy`` (:data:`RANDOM`, :data:`HAND_SHEDDER`,
    :data:`NWI_DODGER`); a heuristic sees only that player's observation (written into the
    scratch ``observation``) and legal actions."""
    if policy == RANDOM:
        return random_action(row, n, rounds, rng, mask)
    fill(observation, 0, len(observation), 0.0)
    observe(row, n, rounds, points_reward, row[CURRENT], starts, observation)
    legal = legal_actions(row, n, rounds, points_reward)
    if policy == HAND_SHEDDER:
        return hand_shedder_action(observation, starts, legal)
    return nwi_dodger_action(observation, starts, legal)


@jit
def shedding_action(row, n, rounds, nwi_aware):
    """The playouts' heuristic: hand_shedder (:func:`shedding_choice`) on the row, with
    ``nwi_aware`` first a pair that passes on an NWI card the player holds and last one that
    brings an NWI card to it (nwi_dodger's first and last choices)."""
    player = row[CURRENT]
    held = landing = 0
    if nwi_aware:
        for species in range(4):
            holder = row[NWI + 4 * (row[ROUND] - 1) + species]
            lands_on = (player + 1) % n if holder == ON_PILE else (holder + 1) % n
            if holder == player:
                held |= 1 << species
            elif lands_on == player:
                landing |= 1 << species
    return shedding_choice(row, HANDS + 4 * player, row[DECISION], held, landing)


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
# generator rngs[b] (numpy's, as a game's own), which is drawn from env_rngs[b] for every new
# game (as an environment's reset draws the game's generator from its own); steps[b] counts its
# agent steps against max_cycles. Ends: 0 running, 1 over by the rules, 2 truncated.
RUNNING, OVER, TRUNCATED = 0, 1, 2


@jit
def start_game(row, rng, env_rng, n, rounds, points_reward):
    """A new game in ``row``, every round shuffled, its generator drawn from ``env_rng``."""
    for index in range(72 * rounds):
        row[HANDS + 9 * n + index] = -1
    seed_numpy(rng, next_seed(env_rng))
    new_game(row, n, rounds, points_reward, rng)


@jit
def start_games(rows, rngs, env_rngs, steps, games, n, rounds, points_reward):
    """A new game in every row b with games[b] true."""
    for b in range(len(rows)):
        if games[b]:
            start_game(rows[b], rngs[b], env_rngs[b], n, rounds, points_reward)
            steps[b] = 0


@jit
def observe_games(rows, players, starts, observations, masks, n, rounds, points_reward):
    """observations[b] of seat players[b] (-1: the player to decide) and masks[b] its legal
    actions (all 0 unless that seat decides now); rows with players[b] < -1 are skipped."""
    for b in range(len(rows)):
        if players[b] >= -1:
            observe_game(rows[b], players[b], starts, observations[b], masks[b], n, rounds,
                         points_reward)  # fmt: skip


@jit
def observe_game(row, player, starts, observation, mask, n, rounds, points_reward):
    """The observation of seat ``player`` (-1: the player to decide) into ``observation`` and
    its legal actions into ``mask`` (all 0 unless that seat decides now)."""
    if player < 0:
        player = row[CURRENT]
    fill(observation, 0, len(observation), 0.0)
    observe(row, n, rounds, points_reward, player, starts, observation)
    if player == row[CURRENT]:
        legal_mask(row, n, rounds, mask)
    else:
        fill(mask, 0, NUM_ACTIONS, 0)


@jit
def current_players(rows, players, n, rounds, points_reward):
    for b in range(len(rows)):
        players[b] = rows[b][CURRENT]


@jit
def seat_scores(row, n, out):
    """Each seat's score into ``out``: its points (the game's ``scores``)."""
    points = HANDS + 6 * n
    for seat in range(n):
        out[seat] = row[points + seat]


@jit
def scores_games(rows, out, n, rounds, points_reward):
    """Each game's seat scores into ``out[b]`` (:func:`seat_scores`)."""
    for b in range(len(rows)):
        seat_scores(rows[b], n, out[b])


@jit
def end_of(row, steps, max_cycles):
    if row[TERMINAL]:
        return OVER
    return TRUNCATED if steps >= max_cycles else RUNNING


@jit
def step_game(row, rng, steps, b, action, max_cycles, seat_rewards, n, rounds, points_reward):
    """Game b (``row``) takes ``action`` (legal: the caller checks) for the player to decide;
    seat_rewards what each seat earned (0 on a truncating step). Returns how the game stands."""
    points = HANDS + 6 * n
    # What apply_rewarded does, written out: numba runs the whole batch about 15% faster so
    for player in range(n):
        seat_rewards[player] = row[points + player]  # the points before, for a moment
    round_number = row[ROUND]
    apply_action(row, n, rounds, action, rng)
    steps[b] += 1
    end = end_of(row, steps[b], max_cycles)
    ended = row[TERMINAL] == 1 or row[ROUND] != round_number
    for player in range(n):
        earned = seat_reward(row, n, rounds, player, seat_rewards[player], points_reward)
        seat_rewards[player] = earned if ended and end != TRUNCATED else 0
    return end


@jit
def step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, rounds, points_reward):
    """Row b of :func:`step_games`."""
    ends[b] = RUNNING
    for player in range(n):
        rewards[b][player] = 0
    if actions[b] >= 0:
        ends[b] = step_game(rows[b], rngs[b], steps, b, actions[b], max_cycles, rewards[b], n,
                            rounds, points_reward)  # fmt: skip


@jit
def step_games(rows, rngs, steps, actions, max_cycles, rewards, ends, n, rounds, points_reward):
    """Every row b with actions[b] >= 0 takes that action (legal: the caller checks) for the
    player to decide; rewards[b] what each seat earned (0 on a truncating step), ends[b] how the
    game stands. Rows with actions[b] < 0 are left alone (rewards 0, ends RUNNING)."""
    for b in range(len(rows)):
        step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, rounds, points_reward)


@jit
def step_observe_games(rows, rngs, steps, actions, max_cycles, rewards, ends, players, starts,
                       observations, masks, n, rounds, points_reward):  # fmt: skip
    """:func:`step_games`, each game that runs on observed at once, while its row is at hand
    (one pass over the rows where a step and then :func:`observe_games` take two): players[b]
    the player to decide, observations[b] and masks[b] what it sees and may do. A game that
    ended is left as it is there (to be observed once it is dealt again)."""
    for b in range(len(rows)):
        step_one(rows, rngs, steps, actions, max_cycles, rewards, ends, b, n, rounds, points_reward)
        if ends[b] == RUNNING:
            players[b] = rows[b][CURRENT]
            observe_game(rows[b], -1, starts, observations[b], masks[b], n, rounds, points_reward)


@jit
def take_action(row, rng, steps, b, action, seat, max_cycles, n, rounds, points_reward):
    """Game b (``row``) takes ``action``; returns what ``seat`` earned (0 on a truncating step)."""
    before = row[HANDS + 6 * n + seat]
    apply_action(row, n, rounds, action, rng)
    steps[b] += 1
    if end_of(row, steps[b], max_cycles) == TRUNCATED:
        return 0
    return seat_reward(row, n, rounds, seat, before, points_reward)


@jit
def play_others(
    rows, rngs, policy_rngs, steps, b, seat, max_cycles, mask, policies, starts, observation, n,
    rounds, points_reward,
):  # fmt: skip
    """Every seat but ``seat`` plays in game b by its policy (:func:`policy_action`; seat p's is
    policies[p - (p > seat)], random ones drawing from policy_rngs[b]) until ``seat`` must
    decide or the game ends; returns what ``seat`` earned meanwhile."""
    row = rows[b]
    earned = 0.0
    while end_of(row, steps[b], max_cycles) == RUNNING and row[CURRENT] != seat:
        player = row[CURRENT]
        action = policy_action(
            policies[player - (player > seat)], row, n, rounds, points_reward, policy_rngs[b],
            mask, starts, observation,
        )  # fmt: skip
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
    policies,
    starts,
    observation,
    n,
    rounds,
    points_reward,
):
    """One decision of the learner in every game, the other seats played by ``policies`` (one
    per other seat in seat order, the learner's left out: :data:`RANDOM`, :data:`HAND_SHEDDER`,
    :data:`NWI_DODGER`; ``starts`` where the observation fields begin; ``mask``, ``observation``
    scratch).

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
                rows, rngs, policy_rngs, steps, b, seat, max_cycles, mask, policies, starts,
                observation, n, rounds, points_reward,
            )  # fmt: skip
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
            start_game(row, rngs[b], env_rngs[b], n, rounds, points_reward)
            steps[b] = 0
            seats[b] = learner_seat if learner_seat >= 0 else below(policy_rngs[b], n)
            play_others(
                rows, rngs, policy_rngs, steps, b, seats[b], max_cycles, mask, policies, starts,
                observation, n, rounds, points_reward,
            )  # fmt: skip
    return -1


@jit
def play_codes(
    rows, rngs, policy_rngs, steps, stops, codes, active, max_cycles, earned, ends, players,
    actions, deciding, observations, masks, mask, starts, observation, seat_rewards, n, rounds,
    points_reward,
):  # fmt: skip
    """Every game b with active[b]: first the player to decide takes actions[b] where it is
    >= 0 (a decision made outside; then set to -1), then the game is played until seat
    stops[b] must decide (stops[b] = n: no seat stops), a seat whose code codes[b, seat] is -1
    (decided outside) must decide, or the game ends; the other seats by their codes
    (:func:`policy_action`, random ones drawing from policy_rngs[b]). Adds what each seat
    earned meanwhile to earned[b][seat] (seat_rewards: scratch of n); ends[b] says how the game
    stands, players[b] who decides now; deciding[b] is 1 where a seat decided outside must
    decide now (0 elsewhere), its observation and legal actions written into observations[b]
    and masks[b]. Returns how many games wait for such a seat."""
    waiting = 0
    for b in range(len(rows)):
        deciding[b] = 0
        if not active[b]:
            continue
        row, seat = rows[b], stops[b]
        if actions[b] >= 0:
            step_game(
                row, rngs[b], steps, b, actions[b], max_cycles, seat_rewards, n, rounds,
                points_reward,
            )  # fmt: skip
            for player in range(n):
                earned[b][player] += seat_rewards[player]
            actions[b] = -1
        while end_of(row, steps[b], max_cycles) == RUNNING and row[CURRENT] != seat:
            code = codes[b][row[CURRENT]]
            if code < 0:
                break
            action = policy_action(
                code, row, n, rounds, points_reward, policy_rngs[b], mask, starts, observation
            )
            step_game(
                row, rngs[b], steps, b, action, max_cycles, seat_rewards, n, rounds, points_reward
            )
            for player in range(n):
                earned[b][player] += seat_rewards[player]
        ends[b] = end_of(row, steps[b], max_cycles)
        players[b] = row[CURRENT]
        if ends[b] == RUNNING and row[CURRENT] != seat:
            deciding[b] = 1
            observe_game(row, -1, starts, observations[b], masks[b], n, rounds, points_reward)
            waiting += 1
    return waiting
