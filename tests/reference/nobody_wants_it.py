"""The numpy engine of Nobody Wants It, kept as the reference the game is held to.

Until the game ran on its kernel (:mod:`cardzoo.envs.nobody_wants_it.kernel`), this was its
engine: the rules written with numpy on a dataclass of arrays. The tests play it beside the
game, seeded alike, and compare them step by step (``tests/test_nobody_wants_it_reference.py``).
:class:`NumpyNobodyWantsIt` is the game with its rules replaced by the old ones; everything that
is not a rule (parameters, observation layout, rendering, invariants, snapshots) is the game's.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo.envs.core import State
from cardzoo.envs.nobody_wants_it.cards import (
    CARDS_PER_SPECIES,
    COW,
    HORSE,
    NUM_CARDS,
    NUM_SPECIES,
    PIG,
)
from cardzoo.envs.nobody_wants_it.rules import NobodyWantsIt

HAND_SIZE = 9
SMALL_PENALTY, BIG_PENALTY = 2, 4
PLAY_ONE, PLAY_PAIR, PASS_TAKE_DRAW, PASS_TAKE_DISCARD = 0, 4, 8, 9
PIG_TAKE_DRAW, PIG_TAKE_PIG, HORSE_GIVE, NUM_ACTIONS = 10, 11, 12, 16
TURN, PIG_ANSWER, HORSE_GIFT = range(3)
ON_PILE, OUT_OF_GAME, NO_GIFT = -1, -2, -1

# A species count clipped to 2 (none, one, a pair or more), indexed by the count.
_CLIP_TO_PAIR = (0, 1) + (2,) * NUM_CARDS


@dataclasses.dataclass
class NumpyState(State):
    """All of one game: the round, whose turn and decision it is, hands, piles, NWI cards,
    horse gifts set aside, penalty cards and points."""

    round_number: int = 1  # 1-based
    dealer: int = 0
    active_player: int = 0  # whose turn it is (current_player is who decides now)
    decision: int = TURN
    hands: np.ndarray = None  # (n, 4) int64 cards per species
    hand_sizes: np.ndarray = None  # (n,) int64, always hands.sum(axis=1)
    # Piles are stacks, bottom card first: the top card is at index size - 1.
    draw_pile: np.ndarray = None  # (72,) int8 species
    draw_size: int = 0
    discard_pile: np.ndarray = None  # (72,) int8 species
    discard_size: int = 0
    discard_counts: np.ndarray = None  # (4,) int64, always the species counts of the discard pile
    nwi_holder: np.ndarray = None  # (num_rounds, 4) int8: holder seat, ON_PILE or OUT_OF_GAME
    horse_gifts: np.ndarray = None  # (n,) int8 species set aside for a horse exchange, or NO_GIFT
    penalty_cards: np.ndarray = None  # (n, 2) int64: how many 2-point and 4-point cards taken
    points: np.ndarray = None  # (n,) int64 points of finished rounds
    fixed_decks: np.ndarray = None  # (num_rounds, 72) int8 decks from reset options; -1 = shuffle


class NumpyNobodyWantsIt(NobodyWantsIt):
    """The game with the numpy engine's rules."""

    state_class = NumpyState

    def scores(self, state: NumpyState) -> np.ndarray:
        return state.points.astype(np.int64)

    def __init__(self, num_players: int = 4, num_rounds: int = 3, reward: str = "win"):
        super().__init__(num_players, num_rounds, reward)
        n = self.num_players
        self._left = [(seat + 1) % n for seat in range(n)]
        self._left_array = np.array(self._left)
        self._seat_orders = [(np.arange(n) + seat) % n for seat in range(n)]
        self._build_mask_tables()
        self._full_deck = np.repeat(np.arange(NUM_SPECIES, dtype=np.int8), CARDS_PER_SPECIES)
        # deal_receivers[dealer][k]: the seat that receives the k-th card dealt.
        dealt = np.arange(n * HAND_SIZE)
        self._deal_receivers = [(dealer + 1 + dealt) % n for dealer in range(n)]
        self._build_observation_indices()

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> NumpyState:
        n = self.num_players
        state = NumpyState(
            rng=rng,
            hands=np.zeros((n, NUM_SPECIES), np.int64),
            hand_sizes=np.zeros(n, np.int64),
            draw_pile=np.zeros(NUM_CARDS, np.int8),
            discard_pile=np.zeros(NUM_CARDS, np.int8),
            discard_counts=np.zeros(NUM_SPECIES, np.int64),
            nwi_holder=np.full((self.num_rounds, NUM_SPECIES), ON_PILE, np.int8),
            horse_gifts=np.full(n, NO_GIFT, np.int8),
            penalty_cards=np.zeros((n, 2), np.int64),
            points=np.zeros(n, np.int64),
            fixed_decks=self._parse_options(options),
        )
        self._start_round(state, dealer=n - 1)
        return state

    def _start_round(self, state: NumpyState, dealer: int) -> None:
        """Deal the round ``state.round_number`` from ``dealer``: 9 cards each, the rest is the
        draw pile, whose top card is the first one not dealt."""
        n = self.num_players
        deck = state.fixed_decks[state.round_number - 1]
        if deck[0] < 0:
            deck = state.rng.permutation(self._full_deck)
        dealt = n * HAND_SIZE
        seats_and_species = self._deal_receivers[dealer] * NUM_SPECIES + deck[:dealt]
        state.hands[:] = np.bincount(seats_and_species, minlength=n * NUM_SPECIES).reshape(n, -1)
        state.hand_sizes[:] = HAND_SIZE
        rest = deck[dealt:]
        state.draw_size = rest.size
        state.draw_pile[: rest.size] = rest[::-1]
        state.discard_size = 0
        state.discard_counts[:] = 0
        state.horse_gifts[:] = NO_GIFT
        state.dealer = dealer
        state.active_player = state.current_player = self._left[dealer]
        state.decision = TURN

    # --- legal actions ----------------------------------------------------------------------

    def legal_mask(self, state: NumpyState, player: int) -> np.ndarray:
        if state.terminal or player != state.current_player:
            return self._no_actions.copy()
        if state.decision == PIG_ANSWER:
            return self._pig_answer_mask.copy()
        # Masks are looked up, not built: they depend only on each species' count clipped to 2
        # (none, one, a pair) and on whether the discard pile is empty.
        sheep, pig, horse, cow = state.hands[player].tolist()
        clip = _CLIP_TO_PAIR
        key = clip[sheep] + 3 * clip[pig] + 9 * clip[horse] + 27 * clip[cow]
        if state.decision == TURN:
            return self._turn_masks[key + (81 if state.discard_size else 0)].copy()
        return self._horse_masks[key].copy()

    def _build_mask_tables(self) -> None:
        self._no_actions = np.zeros(NUM_ACTIONS, np.int8)
        self._pig_answer_mask = self._no_actions.copy()
        self._pig_answer_mask[[PIG_TAKE_DRAW, PIG_TAKE_PIG]] = 1
        self._turn_masks, self._horse_masks = [], []
        for discard_empty in (True, False):
            for key in range(81):
                clipped = np.array([key // 3**species % 3 for species in range(NUM_SPECIES)])
                turn = self._no_actions.copy()
                turn[PLAY_ONE:PLAY_PAIR] = clipped >= 1
                turn[PLAY_PAIR:PASS_TAKE_DRAW] = clipped >= 2
                turn[PASS_TAKE_DRAW] = 1
                turn[PASS_TAKE_DISCARD] = not discard_empty
                self._turn_masks.append(turn)
                if discard_empty:
                    horse = self._no_actions.copy()
                    horse[HORSE_GIVE:] = clipped >= 1
                    self._horse_masks.append(horse)

    # --- playing ----------------------------------------------------------------------------

    def apply(self, state: NumpyState, action: int) -> np.ndarray | None:
        if state.decision == TURN:
            return self._take_turn(state, action)
        if state.decision == PIG_ANSWER:
            if action == PIG_TAKE_PIG:
                self._take_discard_top(state, state.current_player)
            else:
                self._draw(state, state.current_player)
            return self._end_turn(state)
        return self._give_for_horse(state, action - HORSE_GIVE)

    def _take_turn(self, state: NumpyState, action: int) -> np.ndarray | None:
        player = state.active_player
        if action < PLAY_PAIR:
            species = action - PLAY_ONE
            self._discard(state, player, species)
            if species == PIG:
                state.decision = PIG_ANSWER
                state.current_player = self._left[player]
                return None
            if species == HORSE and state.hand_sizes[player] > 0:
                state.decision = HORSE_GIFT  # the active player chooses first
                return None
            if species == COW:
                self._draw(state, player)
        elif action < PASS_TAKE_DRAW:
            species = action - PLAY_PAIR
            self._discard(state, player, species)
            self._discard(state, player, species)
            self._move_nwi(state, species, player)
        elif action == PASS_TAKE_DRAW:
            self._draw(state, player)
        else:
            self._take_discard_top(state, player)
        return self._end_turn(state)

    def _give_for_horse(self, state: NumpyState, species: int) -> np.ndarray | None:
        """The current player sets a card aside; after the last chooser, all give at once."""
        player = state.current_player
        state.hands[player, species] -= 1
        state.hand_sizes[player] -= 1
        state.horse_gifts[player] = species
        next_chooser = self._left[player]
        if next_chooser != state.active_player:
            state.current_player = next_chooser
            return None
        # Everybody has chosen: each card goes to the giver's left neighbour (distinct receivers).
        state.hands[self._left_array, state.horse_gifts] += 1
        state.hand_sizes += 1
        state.horse_gifts[:] = NO_GIFT
        return self._end_turn(state)

    def _move_nwi(self, state: NumpyState, species: int, player: int) -> None:
        """A pair of ``species`` by ``player``: the round's NWI card of that species moves left."""
        holders = state.nwi_holder[state.round_number - 1]
        holder = holders[species]
        holders[species] = self._left[player] if holder == ON_PILE else self._left[holder]

    def _discard(self, state: NumpyState, player: int, species: int) -> None:
        state.hands[player, species] -= 1
        state.hand_sizes[player] -= 1
        state.discard_pile[state.discard_size] = species
        state.discard_size += 1
        state.discard_counts[species] += 1

    def _take_discard_top(self, state: NumpyState, player: int) -> None:
        state.discard_size -= 1
        species = state.discard_pile[state.discard_size]
        state.discard_counts[species] -= 1
        state.hands[player, species] += 1
        state.hand_sizes[player] += 1

    def _draw(self, state: NumpyState, player: int) -> None:
        """``player`` draws the top card of the draw pile, reshuffling the discard pile into a new
        draw pile first if it is empty; nothing happens if both piles are empty."""
        if state.draw_size == 0:
            if state.discard_size == 0:
                return
            self._reshuffle_discard_pile(state)
        state.draw_size -= 1
        species = state.draw_pile[state.draw_size]
        state.hands[player, species] += 1
        state.hand_sizes[player] += 1

    def _reshuffle_discard_pile(self, state: NumpyState) -> None:
        size = state.discard_size
        cards = state.discard_pile[:size]
        state.rng.shuffle(cards)  # in place, with the game's generator
        state.draw_pile[:size] = cards
        state.draw_size = size
        state.discard_size = 0
        state.discard_counts[:] = 0

    def _end_turn(self, state: NumpyState) -> np.ndarray | None:
        player = state.active_player
        if state.hand_sizes[player] == 0:
            return self._end_round(state, closer=player)
        state.active_player = state.current_player = self._left[player]
        state.decision = TURN
        return None

    # --- round and game end -----------------------------------------------------------------

    def _end_round(self, state: NumpyState, closer: int) -> np.ndarray | None:
        penalties = self.penalty_points(state.hand_sizes, closer)
        state.penalty_cards[:, 0] += penalties == SMALL_PENALTY
        state.penalty_cards[:, 1] += penalties == BIG_PENALTY
        holders = state.nwi_holder[state.round_number - 1]
        holders[holders == ON_PILE] = OUT_OF_GAME  # unclaimed NWI cards leave the game
        kept = holders[holders >= 0]
        nwi_points = np.bincount(kept, minlength=self.num_players) * state.round_number
        gained = penalties + nwi_points
        state.points += gained
        if state.round_number == self.num_rounds:
            state.terminal = True
            if self.reward == "win":
                return np.where(self.winners(state), 1.0, -1.0)
        else:
            state.round_number += 1
            self._start_round(state, dealer=closer)
        return -gained.astype(np.float64) if self.reward == "points" else None

    def penalty_points(self, hand_sizes: np.ndarray, closer: int) -> np.ndarray:
        """Penalty card (0, 2 or 4 points) of each player when ``closer`` ends the round."""
        counts = hand_sizes.astype(np.int64)
        counts[closer] = -1  # the closer never takes a penalty card
        penalties = np.zeros(self.num_players, np.int64)
        most = counts.max()
        at_most = counts == most
        if at_most.sum() > 1:
            penalties[at_most] = SMALL_PENALTY  # shared first place: 2 each, no 4, no second
            return penalties
        penalties[at_most] = BIG_PENALTY
        below = counts[(counts < most) & (counts >= 0)]
        if below.size:
            penalties[counts == below.max()] = SMALL_PENALTY
        return penalties

    def observe(self, state: NumpyState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.zeros(self.observation_size, np.float32)
        else:
            out.fill(0.0)
        seats = self._seat_orders[player]
        out[self._hand_part] = state.hands[player]
        out[self._hand_sizes_part] = state.hand_sizes[seats]
        if state.discard_size:
            out[self._discard_top_start + state.discard_pile[state.discard_size - 1]] = 1.0
        out[self._discard_counts_part] = state.discard_counts
        out[self._draw_size_index] = state.draw_size
        # Each species' NWI holder as an index into that species' one-hot block, seat-relative.
        nwi_index = self._nwi_index[player]
        holders = state.nwi_holder[state.round_number - 1].tolist()
        for block, holder in zip(self._nwi_blocks, holders):
            out[block + nwi_index[holder]] = 1.0
        out[self._scores_part] = state.points[seats]
        out[self._round_start + state.round_number - 1] = 1.0
        out[self._decision_start + state.decision] = 1.0
        out[self._active_index[player][state.active_player]] = 1.0
        out[self._to_act_index[player][state.current_player]] = 1.0
        return out

    def _build_observation_indices(self) -> None:
        """Slices and index tables that let :meth:`observe` write each field in one step."""
        n, layout = self.num_players, self.observation_layout
        self._hand_part = layout["hand"]
        self._hand_sizes_part = layout["hand_sizes"]
        self._discard_top_start = layout["discard_top"].start
        self._discard_counts_part = layout["discard_counts"]
        self._draw_size_index = layout["draw_size"].start
        self._scores_part = layout["scores"]
        self._round_start = layout["round"].start
        self._decision_start = layout["decision"].start
        nwi_start = layout["nwi_position"].start
        self._nwi_blocks = [nwi_start + species * (n + 1) for species in range(NUM_SPECIES)]
        # _nwi_index[observer][holder]: 1 + the holder's seat relative to the observer; the two
        # trailing zeros catch holder ON_PILE (-1) and OUT_OF_GAME (-2) by negative indexing.
        self._nwi_index = [
            [(holder - observer) % n + 1 for holder in range(n)] + [0, 0] for observer in range(n)
        ]
        # _active_index[observer][seat]: where the one-hot bit of that seat goes.
        self._active_index, self._to_act_index = (
            [
                [layout[field].start + (seat - observer) % n for seat in range(n)]
                for observer in range(n)
            ]
            for field in ("active", "to_act")
        )
