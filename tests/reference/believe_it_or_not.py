"""The numpy engine of Believe It or Not, kept as the reference the game is held to.

Until the game ran on its kernel (:mod:`cardzoo.envs.believe_it_or_not.kernel`), this was its
engine: the rules written with numpy on a dataclass of int8 arrays. The tests play it beside the
game, seeded alike, and compare them step by step
(``tests/test_believe_it_or_not_reference.py``). :class:`NumpyBelieveItOrNot` is the game with
its rules replaced by the old ones; everything that is not a rule (parameters, observation
layout, rendering, invariants, the resampler, snapshots) is the game's.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo.envs.believe_it_or_not.rules import (
    BELIEVE,
    BUILD,
    CHOOSE_PEEK,
    CHOOSE_TURN,
    DECISION_NAMES,
    DECLARE,
    DOUBT,
    ELEPHANT,
    FINISH,
    HAND_SIZE,
    IS_OUT,
    LEAD,
    MAX_PLACEMENT,
    MAX_SPECIES,
    NO_ONE,
    NUM_ACTIONS,
    NUM_TYPES,
    ON_TABLE,
    PEEK,
    PEEK_AT,
    PLAY_PEEK,
    PLAY_SKIP,
    RESPOND,
    SET_SIZE,
    SKIP,
    TURN_CARD,
    BelieveItOrNot,
)
from cardzoo.envs.core import State

ADD_CARD = 0


@dataclasses.dataclass
class NumpyState(State):
    hands: np.ndarray = None  # (n, 11) int8 cards in hand by type
    seat_counts: np.ndarray = None  # (3, n) int8 rows HAND_SIZE, IS_OUT (0/1), ON_TABLE
    decision: int = LEAD
    special_played: bool = False  # the responder played a special this turn
    building: np.ndarray = None  # (5,) int8 the placement being built, in the order added
    building_size: int = 0
    declared: int = NO_ONE  # the declared species while the table is live
    table_cards: np.ndarray = None  # (deck size,) int8 the table's cards in the order placed
    table_size: int = 0
    placement_owners: np.ndarray = None  # (deck size,) int8, oldest placement first
    placement_sizes: np.ndarray = None  # (deck size,) int8
    num_placements: int = 0
    table_counts: np.ndarray = None  # (n, 11) int8 cards on the table by owner and type
    out_of_game: np.ndarray = None  # (11,) int8 discarded sets and played specials by type
    peek_player: int = NO_ONE  # who peeked at the last placement (NO_ONE: nobody)
    peek_position: int = NO_ONE
    revealed_card: int = NO_ONE  # the card turned by the latest doubt
    revealed_true: bool = False  # it was the declared species
    revealed_taker: int = NO_ONE  # who took the table then
    winner_mask: np.ndarray = None  # (n,) bool, set when the game ends
    # (n, 11) int8: the cards each player saw go to revealed_taker with the table at the latest
    # doubt and knows are still the taker's (see "Decision (memory of the taken table)")
    taken_known: np.ndarray = None


class NumpyBelieveItOrNot(BelieveItOrNot):
    """The game with the numpy engine's rules."""

    state_class = NumpyState

    def scores(self, state: NumpyState) -> np.ndarray:
        """Cards each player holds: hand, cards being placed and own placements on the table."""
        held = state.seat_counts[HAND_SIZE] + state.seat_counts[ON_TABLE].astype(np.int64)
        held[state.current_player] += state.building_size
        return held

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._pieces = _ObservationPieces(self.num_players)
        self._masks = self._make_masks()
        self._forgotten_by_discarded: dict[bytes, tuple[int, ...]] = {}
        self._every_species_out = bytes([SET_SIZE]) * self.num_species

    def _make_masks(self) -> dict[str, np.ndarray | list[np.ndarray]]:
        """Masks that depend only on the decision and a few facts of the table (a placement's
        size; for a response, what may be played: index ``_respond_code``); handed out as
        copies."""
        none = np.zeros(NUM_ACTIONS, np.int8)
        lead = none.copy()
        lead[DECLARE : DECLARE + self.num_species] = 1
        turn, peek, respond = [], [], []
        for size in range(MAX_PLACEMENT + 1):
            turn.append(none.copy())
            turn[-1][TURN_CARD : TURN_CARD + size] = 1
            peek.append(none.copy())
            peek[-1][PEEK_AT : PEEK_AT + size] = 1
        for code in range(8):
            respond.append(none.copy())
            respond[-1][[DOUBT, BELIEVE, PLAY_PEEK, PLAY_SKIP]] = (
                1,
                code & 1,
                code >> 1 & 1,
                code >> 2,
            )
        return {"none": none, "lead": lead, "turn": turn, "peek": peek, "respond": respond}

    # --- deal -----------------------------------------------------------------------------

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> NumpyState:
        deck = self._parse_options(options)
        if deck is not None:
            state = self._deal(rng, deck)
            if not self._deal_is_playable(state):
                raise ValueError(
                    "deck option makes a void deal: after the sets of four are discarded some "
                    "player has no card, or no animal card is left"
                )
            return state
        full_deck = np.repeat(np.arange(NUM_TYPES, dtype=np.int8), self.composition)
        while True:  # void deals are dealt again
            state = self._deal(rng, rng.permutation(full_deck))
            if self._deal_is_playable(state):
                return state

    def _deal(self, rng: np.random.Generator, deck: np.ndarray) -> NumpyState:
        n = self.num_players
        receivers = np.arange(len(deck)) % n  # one card at a time from player_0
        hands = np.bincount(receivers * NUM_TYPES + deck, minlength=n * NUM_TYPES)
        hands = hands.reshape(n, NUM_TYPES).astype(np.int8)
        seat_counts = np.zeros((3, n), np.int8)
        seat_counts[HAND_SIZE] = hands.sum(axis=1)
        state = NumpyState(
            rng=rng,
            hands=hands,
            seat_counts=seat_counts,
            building=np.zeros(MAX_PLACEMENT, np.int8),
            table_cards=np.zeros(self.num_cards, np.int8),
            placement_owners=np.zeros(self.num_cards, np.int8),
            placement_sizes=np.zeros(self.num_cards, np.int8),
            table_counts=np.zeros((n, NUM_TYPES), np.int8),
            out_of_game=np.zeros(NUM_TYPES, np.int8),
            winner_mask=np.zeros(n, bool),
            taken_known=np.zeros((n, NUM_TYPES), np.int8),
        )
        for player in range(n):
            self._discard_sets(state, player)
        return state

    def _deal_is_playable(self, state: NumpyState) -> bool:
        return bool(state.seat_counts[HAND_SIZE].all()) and not self._no_animals_left(state)

    # --- legal actions --------------------------------------------------------------------

    def legal_mask(self, state: NumpyState, player: int) -> np.ndarray:
        masks = self._masks
        if state.terminal or player != state.current_player:
            return masks["none"].copy()
        decision = state.decision  # the commonest first
        if decision == BUILD:
            return _build_mask(state, player)
        if decision == RESPOND:
            return masks["respond"][self._respond_code(state, player)].copy()
        if decision == LEAD:
            return masks["lead"].copy()
        last_size = state.placement_sizes.item(state.num_placements - 1)
        return masks["turn" if decision == CHOOSE_TURN else "peek"][last_size].copy()

    def _respond_code(self, state: NumpyState, player: int) -> int:
        """What a responder may do besides doubt: 1 believe, 2 play peek, 4 play skip (summed)."""
        n = self.num_players
        seats = state.seat_counts.tobytes()  # bytes: Python ints without numpy scalars
        owner = state.placement_owners.item(state.num_placements - 1)
        code = 1 if seats[HAND_SIZE * n + owner] and seats[HAND_SIZE * n + player] else 0
        if not state.special_played:
            hands, mine = state.hands.tobytes(), player * NUM_TYPES
            if hands[mine + PEEK]:
                code += 2
            if hands[mine + SKIP] and self._next_in(state, player) != owner:
                code += 4
        return code

    # --- play -----------------------------------------------------------------------------

    def apply(self, state: NumpyState, action: int) -> np.ndarray | None:
        player = state.current_player
        if action < FINISH:
            self._add_card(state, player, action - ADD_CARD)
        elif action == FINISH:
            return self._finish_placement(state, player)
        elif action < BELIEVE:
            state.declared = action - DECLARE
            state.decision = BUILD
        elif action == BELIEVE:
            state.decision = BUILD
        elif action == DOUBT:
            state.decision = CHOOSE_TURN
        elif action < PLAY_PEEK:
            return self._turn_card(state, player, action - TURN_CARD)
        elif action == PLAY_PEEK:
            self._play_special(state, player, PEEK)
            state.decision = CHOOSE_PEEK
        elif action == PLAY_SKIP:
            self._play_special(state, player, SKIP)
            return self._end_turn(state, player, RESPOND)  # the next player responds to P
        else:
            state.peek_player = player
            state.peek_position = action - PEEK_AT
            state.decision = RESPOND
        return None

    def _add_card(self, state: NumpyState, player: int, card: int) -> None:
        # (.item() and a Python int: numpy's in-place scalar arithmetic costs more)
        hands, seat_counts = state.hands, state.seat_counts
        hands[player, card] = hands.item(player, card) - 1
        seat_counts[HAND_SIZE, player] = seat_counts.item(HAND_SIZE, player) - 1
        state.building[state.building_size] = card
        state.building_size += 1

    def _finish_placement(self, state: NumpyState, player: int) -> np.ndarray | None:
        size = state.building_size
        start = state.table_size
        cards = state.building[:size]
        state.table_cards[start : start + size] = cards
        state.table_size = start + size
        state.placement_owners[state.num_placements] = player
        state.placement_sizes[state.num_placements] = size
        state.num_placements += 1
        own_on_table = state.table_counts[player]
        for card in state.building.tobytes()[:size]:
            own_on_table[card] = own_on_table.item(card) + 1
        state.seat_counts[ON_TABLE, player] = state.seat_counts.item(ON_TABLE, player) + size
        state.building_size = 0
        state.peek_player = state.peek_position = NO_ONE
        return self._end_turn(state, player, RESPOND)

    def _play_special(self, state: NumpyState, player: int, card: int) -> None:
        state.hands[player, card] -= 1
        state.seat_counts[HAND_SIZE, player] -= 1
        state.out_of_game[card] += 1
        state.special_played = True

    def _turn_card(self, state: NumpyState, doubter: int, position: int) -> np.ndarray:
        last = state.num_placements - 1
        last_start = state.table_size - state.placement_sizes.item(last)
        card = state.table_cards.item(last_start + position)
        is_true = card == state.declared
        taker = doubter if is_true else state.placement_owners.item(last)
        known = self._remember_taken_cards(state, last_start, position)
        self._take_table(state, taker)
        self._forget_what_can_leave_unseen(state, taker, known)
        state.revealed_card = card
        state.revealed_true = is_true
        state.revealed_taker = taker
        return self._end_turn(state, taker, LEAD)

    def _remember_taken_cards(self, state: NumpyState, last_start: int, position: int) -> bytearray:
        """Before the table is taken: every player knows their own cards on it, the card turned
        face up and the card they peeked at. Counted as bytes laid out as ``taken_known``
        (a few Python operations instead of numpy calls on a small array)."""
        known = bytearray(state.table_counts.tobytes())
        card = state.table_cards.item(last_start + position)
        known[card::NUM_TYPES] = known[card::NUM_TYPES].translate(_PLUS_ONE)  # everybody saw it
        known[state.placement_owners.item(state.num_placements - 1) * NUM_TYPES + card] -= 1
        peeker = state.peek_player  # (the owner's own card was counted already)
        if peeker != NO_ONE and state.peek_position != position:
            peeked = state.table_cards.item(last_start + state.peek_position)
            known[peeker * NUM_TYPES + peeked] += 1
        return known

    def _forget_what_can_leave_unseen(
        self, state: NumpyState, taker: int, known: bytearray
    ) -> None:
        """After the table is taken: the taker knows their own hand; specials may leave it
        again unseen among the ones played; species discarded as a set are gone. ``known``
        (from :meth:`_remember_taken_cards`) goes into ``taken_known``."""
        n = self.num_players
        known[taker * NUM_TYPES : (taker + 1) * NUM_TYPES] = bytes(NUM_TYPES)
        for kind in self._forgotten_types(state):
            known[kind::NUM_TYPES] = bytes(n)
        state.taken_known[:] = np.frombuffer(known, np.int8).reshape(n, NUM_TYPES)

    def _forgotten_types(self, state: NumpyState) -> tuple[int, ...]:
        """The specials and the species discarded as sets (made once per pattern of discarded
        species)."""
        discarded = state.out_of_game.tobytes()[: self.num_species]
        forgotten = self._forgotten_by_discarded.get(discarded)
        if forgotten is None:
            species = [s for s in range(self.num_species) if discarded[s] == SET_SIZE]
            forgotten = self._forgotten_by_discarded[discarded] = (PEEK, SKIP, *species)
        return forgotten

    def _take_table(self, state: NumpyState, taker: int) -> None:
        # Counted card by card in Python: a table holds few cards, and the loop costs less than
        # numpy's sum of table_counts over the owners.
        mine = taker * NUM_TYPES
        hand = bytearray(state.hands.tobytes()[mine : mine + NUM_TYPES])
        for card in state.table_cards.tobytes()[: state.table_size]:
            hand[card] += 1
        state.hands[taker] = hand
        state.seat_counts[HAND_SIZE, taker] = (
            state.seat_counts.item(HAND_SIZE, taker) + state.table_size
        )
        state.seat_counts[ON_TABLE] = 0
        state.table_counts.fill(0)
        state.table_size = state.num_placements = 0
        state.declared = NO_ONE
        state.peek_player = state.peek_position = NO_ONE
        self._discard_sets(state, taker)

    def _discard_sets(self, state: NumpyState, player: int) -> None:
        mine = player * NUM_TYPES
        species_held = state.hands.tobytes()[mine : mine + self.num_species]
        species = species_held.find(SET_SIZE)
        while species != -1:
            state.hands[player, species] = 0
            state.seat_counts[HAND_SIZE, player] -= SET_SIZE
            state.out_of_game[species] = SET_SIZE
            species = species_held.find(SET_SIZE, species + 1)

    def _end_turn(
        self, state: NumpyState, last_actor: int, next_decision: int
    ) -> np.ndarray | None:
        """Players with no card go out and the game may end; otherwise the next player still in
        after ``last_actor`` (the placer, the skipper or the taker) has ``next_decision``."""
        state.special_played = False
        # Only a player going out or a table taken (sets discarded) can end the game.
        someone_went_out = self._mark_players_out(state)
        if someone_went_out or next_decision == LEAD:
            winners = self._winners_if_over(state)
            if winners is not None:
                state.terminal = True
                state.winner_mask[:] = winners
                return np.where(winners, 1.0, -1.0)
        state.current_player = self._next_in(state, last_actor)
        state.decision = next_decision
        return None

    def _mark_players_out(self, state: NumpyState) -> bool:
        """Mark out every player in with no card in hand who does not own the last placement of
        a live table; whether anybody went out."""
        n = self.num_players
        seats = state.seat_counts.tobytes()
        if seats.count(0, HAND_SIZE * n, HAND_SIZE * n + n) == seats.count(
            1, IS_OUT * n, IS_OUT * n + n
        ):
            return False  # every empty hand is out already (players out hold no cards)
        owner = (
            state.placement_owners.item(state.num_placements - 1) if state.table_size else NO_ONE
        )
        went_out = False
        for player in range(n):
            if (
                not seats[HAND_SIZE * n + player]
                and player != owner
                and not seats[IS_OUT * n + player]
            ):
                state.seat_counts[IS_OUT, player] = 1
                went_out = True
        return went_out

    def _winners_if_over(self, state: NumpyState) -> np.ndarray | None:
        n = self.num_players
        is_out = state.seat_counts.tobytes()[IS_OUT * n : IS_OUT * n + n]
        if self.variant == "quick":
            if 1 in is_out:
                return state.seat_counts[IS_OUT] == 1  # the first out win
        elif is_out.count(0) <= 1:
            return state.seat_counts[IS_OUT] == 1  # the one player still in loses
        if self._no_animals_left(state):
            return self._winners_without_animals(state)
        return None

    def _no_animals_left(self, state: NumpyState) -> bool:
        return state.out_of_game.tobytes()[: self.num_species] == self._every_species_out

    def _winners_without_animals(self, state: NumpyState) -> np.ndarray:
        if self.variant == "standard":
            holds_elephant = state.hands[:, ELEPHANT] + state.table_counts[:, ELEPHANT] > 0
            return ~holds_elephant
        held = self.scores(state)
        still_in = state.seat_counts[IS_OUT] == 0
        return still_in & (held == held[still_in].min())

    def _next_in(self, state: NumpyState, player: int) -> int:
        """The next player after ``player`` (leftwards) who is not out."""
        n = self.num_players
        seats = state.seat_counts.tobytes()
        for step in range(1, n):
            candidate = (player + step) % n
            if not seats[IS_OUT * n + candidate]:
                return candidate
        return player

    # --- what a player sees ---------------------------------------------------------------

    def observe(self, state: NumpyState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """Every entry is a small count or a 0/1: the vector is built as bytes, field after field
        in layout order from precomputed pieces, and turned into floats by one numpy call
        instead of one numpy write per field (numpy's cost per call dominates on arrays this
        small)."""
        pieces = self._pieces
        mine = player * NUM_TYPES
        parts = [
            state.hands.tobytes()[mine : mine + NUM_TYPES],
            state.seat_counts.ravel()[pieces.seat_rows[player]].tobytes(),
            state.out_of_game.tobytes(),
        ]
        if state.terminal:
            parts.append(pieces.no_turn)
        else:
            actor = state.current_player
            special = 1 if state.special_played else 0
            if player == actor and state.building_size:
                parts.append(pieces.own_turn[state.decision][special])
                parts.append(_building_counts(state))
            else:  # nothing being built that the observer sees
                relative = (actor - player) % self.num_players
                parts.append(pieces.turn[relative][state.decision][special])
        if state.table_size:
            self._observe_table(state, player, parts)
        elif state.declared != NO_ONE:  # the lead's placement being built: declared, no table
            parts.append(pieces.declared[state.declared] + pieces.no_table[MAX_SPECIES:])
        else:
            parts.append(pieces.no_table)
        if state.revealed_card != NO_ONE:
            relative = (state.revealed_taker - player) % self.num_players
            true = 1 if state.revealed_true else 0
            parts.append(pieces.revealed[state.revealed_card][true][relative])
        else:
            parts.append(pieces.no_revealed)
        vector = np.frombuffer(b"".join(parts), _BYTE)
        if out is None:
            return vector.astype(_FLOAT)
        out[:] = vector
        return out

    def _observe_table(self, state: NumpyState, player: int, parts: list) -> None:
        """The fields from ``declared`` to ``peeked_card``, appended to ``parts``."""
        pieces = self._pieces
        last = state.num_placements - 1
        owner = state.placement_owners.item(last)
        last_size = state.placement_sizes.item(last)
        mine = player * NUM_TYPES
        parts.append(pieces.declared[state.declared])
        parts.append(bytes((state.table_size, last_size)))
        owner_has_cards = 1 if state.seat_counts.item(HAND_SIZE, owner) else 0
        parts.append(pieces.owner[(owner - player) % self.num_players][owner_has_cards])
        parts.append(state.table_counts.tobytes()[mine : mine + NUM_TYPES])
        if state.peek_player == player:
            position = state.peek_position
            card = state.table_cards.item(state.table_size - last_size + position)
            parts.append(pieces.peeked[position][card])
        else:
            parts.append(pieces.no_peek)

    # --- a seat's view of the unseen cards (determinized search) ----------------------------

    def _without_views(self, state):
        return state  # a dataclass state has no views


def _one_hot(size: int, index: int) -> bytes:
    return bytes(1 if i == index else 0 for i in range(size))


class _ObservationPieces:
    """The observation's fields that take few values, as bytes, precomputed for a number of
    players: :meth:`BelieveItOrNot.observe` joins them with the counts read from the state."""

    def __init__(self, n: int):
        rows = np.arange(3)[:, None] * n  # hand_sizes, is_out, cards_on_table: seat_counts' rows
        #: per observer: where in seat_counts.ravel() its three rows are, rotated to start at its
        #: seat
        self.seat_rows = [(rows + (np.arange(n) + player) % n).ravel() for player in range(n)]
        self.seat = [_one_hot(n, seat) for seat in range(n)]  # one-hot relative seat
        # to_act, decision, special_played by [relative actor][decision][special played]
        self.own_turn, self.turn = [], []
        for seat in range(n):
            self.turn.append([])
            for decision in range(len(DECISION_NAMES)):
                fields = [self.seat[seat] + _one_hot(5, decision) + bytes((s,)) for s in (0, 1)]
                if seat == 0:
                    self.own_turn.append(fields)  # followed by the building's counts
                self.turn[-1].append([f + bytes(NUM_TYPES) for f in fields])  # building: none
        self.no_turn = bytes(n + len(DECISION_NAMES) + 1 + NUM_TYPES)
        # last_owner, owner_has_no_cards by [relative owner][owner has cards]
        self.owner = [[self.seat[seat] + b"\1", self.seat[seat] + b"\0"] for seat in range(n)]
        self.declared = [_one_hot(MAX_SPECIES, species) for species in range(MAX_SPECIES)]
        # peeked_position, peeked_card by [position][card]
        self.peeked = [
            [
                _one_hot(MAX_PLACEMENT, position) + _one_hot(NUM_TYPES, card)
                for card in range(NUM_TYPES)
            ]
            for position in range(MAX_PLACEMENT)
        ]
        self.no_peek = bytes(MAX_PLACEMENT + NUM_TYPES)
        # declared .. peeked_card when the table is empty
        self.no_table = bytes(MAX_SPECIES + 2 + n + 1 + NUM_TYPES) + self.no_peek
        # revealed_card, revealed_true, revealed_taker by [card][true][relative taker]
        self.revealed = [
            [
                [_one_hot(NUM_TYPES, card) + bytes((true,)) + self.seat[seat] for seat in range(n)]
                for true in (0, 1)
            ]
            for card in range(NUM_TYPES)
        ]
        self.no_revealed = bytes(NUM_TYPES + 1 + n)


def _building_counts(state: NumpyState) -> bytearray:
    """The cards chosen so far in the placement being built, by type."""
    counts = bytearray(NUM_TYPES)
    for card in state.building.tobytes()[: state.building_size]:
        counts[card] += 1
    return counts


#: ``bytes.translate`` tables: 0 for no card and 1 for any number of them; one card more
_ANY = bytes([0] + [1] * 255)
_BYTE, _FLOAT = np.dtype(np.uint8), np.dtype(np.float32)
_PLUS_ONE = bytes([*range(1, 256), 0])
#: building masks by their first FINISH + 1 entries (at most 2**12 of them), made on first use
_BUILD_MASKS: dict[bytes, np.ndarray] = {}


def _build_mask(state: NumpyState, player: int) -> np.ndarray:
    """While building: add a type still held (fewer than 5 chosen); finish once one is. (The
    adds are actions 0..10 by type and finish is 11: the mask begins with the hand's row.)"""
    if state.building_size < MAX_PLACEMENT:
        mine = player * NUM_TYPES
        head = state.hands.tobytes()[mine : mine + NUM_TYPES].translate(_ANY)
    else:
        head = bytes(NUM_TYPES)
    head += b"\1" if state.building_size else b"\0"
    mask = _BUILD_MASKS.get(head)
    if mask is None:
        mask = np.frombuffer(head + bytes(NUM_ACTIONS - len(head)), np.int8)
        _BUILD_MASKS[head] = mask  # read-only: handed out as copies
    return mask.copy()


#: Rejected deals before :meth:`BelieveItOrNot.resample` gives up: far more than any position
