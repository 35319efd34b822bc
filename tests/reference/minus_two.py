"""The numpy engine of Minus Two, kept as the reference the game is held to.

Until the game ran on its kernel (:mod:`cardzoo.envs.minus_two.kernel`), this was its engine: the
rules written with numpy on a dataclass whose counts are views into one flat table. The tests
play it beside the game, seeded alike, and compare them step by step
(``tests/test_minus_two_reference.py``). :class:`NumpyMinusTwo` is the game with its rules
replaced by the old ones; everything that is not a rule (parameters, observation layout,
rendering, invariants, resampling, snapshots) is the game's.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from cardzoo.envs.core import State
from cardzoo.envs.helpers import known_options, layout_from_sizes, seat_order
from cardzoo.envs.minus_two.rules import MinusTwo

NUM_TYPES = 12
MINUS_TWO = 10
CLEAR = 11
COLOUR = np.array([1] * 10 + [2, 1])
ROW = 4
HAND_DEAL = 5
NO_CARD = -1
WIN_BONUS, MINUS_TWO_BONUS = 10, 80
HAND, FACE_UP, FACE_DOWN = 0, 1, 2
ACTIONS_PER_SOURCE = NUM_TYPES * 12
BLIND = 2 * ACTIONS_PER_SOURCE
TAKE_PILE = BLIND + ROW
NUM_ACTIONS = TAKE_PILE + 1


@functools.cache
def table_parts(num_players: int) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Where each count lives in :attr:`NumpyState.table`: name -> (slice, shape). Cached
    (every new state asks): do not modify."""
    n = num_players
    shapes = {
        "cards": (2, n, NUM_TYPES),  # cards per type in every hand and face-up row
        "face_down_held": (n, ROW),  # 1 where a face-down position still holds a card
        "sizes": (3, n),  # cards in each place: sizes[HAND], [FACE_UP], [FACE_DOWN]
        "totals": (n,),  # running totals
        "pile_counts": (NUM_TYPES,),  # the pile by type
        "removed": (NUM_TYPES,),  # cards removed by >>> this round
    }
    slices = layout_from_sizes([(name, int(np.prod(shape))) for name, shape in shapes.items()])
    return {name: (slices[name], shape) for name, shape in shapes.items()}


@dataclasses.dataclass
class NumpyState(State):
    # Every count an observation shows lives in ONE flat int array, so that observe() gathers
    # them with a single take(). Read and write them through the named views that
    # __post_init__ makes (cards, face_down_held, sizes, totals, pile_counts, removed: see
    # table_parts); write into the views, never rebind them. Only the table is a field, so the
    # generic snapshot stores it once and restore() rebuilds the views.
    table: np.ndarray = None
    face_down: np.ndarray = None  # (n, 4) card type at each face-down position, NO_CARD if gone
    pile: np.ndarray = None  # (13 n,) card types in play order; the first pile_size count
    pile_size: int = 0
    limit: int = 0  # 0 = empty pile, no limit
    target: int = 300  # current target score (rises on a tie for lowest)
    dealer: int = 0
    round: int = 1
    round_points: np.ndarray = None  # (n,) points added at the last round's end
    round_winner: int = -1  # who went out in the last finished round
    # What the whole table knows about the hands (see "Decision (public memory of hands)"):
    hidden_hand: np.ndarray = None  # (n, 12) hand cards from the deal nobody else has seen
    hand_excludes: np.ndarray = None  # (n, 12) bool: types those hidden cards cannot be

    def __post_init__(self) -> None:
        for name, (part, shape) in table_parts(len(self.face_down)).items():
            setattr(self, name, self.table[part].reshape(shape))

    # copy, deepcopy and pickle: carry the fields only and rebuild the views on the copy.
    def __getstate__(self) -> dict:
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def __setstate__(self, fields: dict) -> None:
        self.__dict__.update(fields)
        self.__post_init__()

    def copy(self, rng: np.random.Generator | None = None) -> NumpyState:
        copied = super().copy(rng)
        assert isinstance(copied, NumpyState)
        copied.__post_init__()  # views of the copy's own table
        return copied


class NumpyMinusTwo(MinusTwo):
    """The game with the numpy engine's rules."""

    state_class = NumpyState

    def scores(self, state: NumpyState) -> np.ndarray:
        return state.totals.copy()

    def __init__(self, **params: Any):
        super().__init__(**params)  # the game's parameters, composition and points
        self._precompute()

    def _precompute(self) -> None:
        """Tables that make legal_mask and observe a few array operations."""
        # playable[limit]: the card types that may be played on a pile with that limit.
        self._playable = [[*range(MINUS_TWO), CLEAR]]  # empty pile: numbers and >>>
        for limit in range(1, 11):
            self._playable.append([*range(limit), MINUS_TWO, CLEAR])
        self._playable_mask = np.zeros((11, NUM_TYPES), bool)
        for limit, types in enumerate(self._playable):
            self._playable_mask[limit, types] = True
        self._types = np.arange(NUM_TYPES)
        self._not_minus_two = self._types != MINUS_TWO
        self._no_actions = np.zeros(NUM_ACTIONS, np.int8)
        self._play_from = list(np.eye(3, dtype=np.float32))  # one-hot rows by place
        n = self.num_players
        self._table_size = max(part.stop for part, _ in table_parts(n).values())
        # Observations list players from the observer on.
        self._observed = [self._observed_indices(player) for player in range(n)]
        layout = self.observation_layout
        # observe() writes these after the gather.
        self._obs_play_from = layout["play_from"]
        self._obs_limit, self._obs_pile_size = layout["pile_limit"].start, layout["pile_size"].start
        self._obs_target = layout["target"].start

    def _observed_indices(self, player: int) -> np.ndarray:
        """Indices into the state's table that give ``player``'s observation in one take(),
        players listed from the observer on. Fields that are not in the table (play_from and
        the scalars) get index 0 and are written after the gather."""
        n = self.num_players
        seats = seat_order(player, n)
        # Views of the table's own indices, shaped like the state's named parts.
        at = {
            name: np.arange(part.start, part.stop).reshape(shape)
            for name, (part, shape) in table_parts(n).items()
        }
        from_table = {
            "hand": at["cards"][HAND, player],
            "face_up": at["cards"][FACE_UP, seats],
            "face_down": at["face_down_held"][player],
            "hand_sizes": at["sizes"][HAND, seats],
            "face_up_sizes": at["sizes"][FACE_UP, seats],
            "face_down_sizes": at["sizes"][FACE_DOWN, seats],
            "totals": at["totals"][seats],
            "pile": at["pile_counts"],
            "removed": at["removed"],
        }
        indices = np.zeros(self.observation_size, np.intp)
        for field, where in self.observation_layout.items():
            if field in from_table:
                indices[where] = from_table[field].ravel()
        return indices

    # --- deal -----------------------------------------------------------------------------

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> NumpyState:
        options = known_options(self, options)
        n = self.num_players
        state = NumpyState(
            rng=rng,
            table=np.zeros(self._table_size, np.int64),
            face_down=np.full((n, ROW), NO_CARD, np.int64),
            pile=np.zeros(self.num_cards, np.int64),
            target=self.target_score,
            dealer=n - 1,
            round=1,
            round_points=np.zeros(n, np.int64),
            hidden_hand=np.zeros((n, NUM_TYPES), np.int64),
            hand_excludes=np.zeros((n, NUM_TYPES), bool),
        )
        if "deals" in options:
            cards = self._parse_deals(options["deals"])
        else:
            cards = self._shuffled_colours(rng)
        self._deal(state, cards)
        return state

    def _shuffled_colours(self, rng: np.random.Generator) -> np.ndarray:
        """(n, 13) card types: every player's colour, shuffled on its own."""
        colour = np.repeat(np.arange(NUM_TYPES), COLOUR)
        return rng.permuted(np.tile(colour, (self.num_players, 1)), axis=1)

    def _deal(self, state: NumpyState, cards: np.ndarray) -> None:
        """Deal one round from ``cards`` ((n, 13) types: 4 face-down, 4 face-up, 5 hand)."""
        state.face_down[:] = cards[:, :ROW]
        state.face_down_held[:] = 1
        for player in range(self.num_players):
            face_up, hand = cards[player, ROW : 2 * ROW], cards[player, 2 * ROW :]
            state.cards[FACE_UP, player] = np.bincount(face_up, minlength=NUM_TYPES)
            state.cards[HAND, player] = np.bincount(hand, minlength=NUM_TYPES)
        state.sizes[HAND] = HAND_DEAL
        state.sizes[FACE_UP] = ROW
        state.sizes[FACE_DOWN] = ROW
        state.pile_size = 0
        state.pile_counts[:] = 0
        state.limit = 0
        state.removed[:] = 0
        state.hidden_hand[:] = state.cards[HAND]
        state.hand_excludes[:] = False
        state.current_player = (state.dealer + 1) % self.num_players

    # --- where to play from, and what is legal ---------------------------------------------

    def play_source(self, state: NumpyState, player: int) -> int:
        """Where ``player`` must play from now: HAND, FACE_UP or FACE_DOWN."""
        if state.pile_size:
            if state.sizes[HAND, player]:
                return HAND
            return FACE_UP if state.sizes[FACE_UP, player] else FACE_DOWN
        # Empty pile: skip a place that holds nothing but -2 (which cannot lead).
        if state.sizes[HAND, player] > state.cards[HAND, player, MINUS_TWO]:
            return HAND
        if state.sizes[FACE_UP, player] > state.cards[FACE_UP, player, MINUS_TWO]:
            return FACE_UP
        if state.sizes[FACE_DOWN, player]:
            return FACE_DOWN
        return HAND if state.sizes[HAND, player] else FACE_UP  # only -2 left: the last cards

    def holds_only_minus_two(self, state: NumpyState, player: int) -> bool:
        """True when the player may play all their cards, every one a -2, as their last."""
        return (
            not state.sizes[FACE_DOWN, player]
            and state.cards[HAND, player, MINUS_TWO] + state.cards[FACE_UP, player, MINUS_TWO]
            == state.sizes[HAND, player] + state.sizes[FACE_UP, player]
        )

    def legal_mask(self, state: NumpyState, player: int) -> np.ndarray:
        mask = self._no_actions.copy()
        if state.terminal or player != state.current_player:
            return mask
        source = self.play_source(state, player)
        if source == FACE_DOWN:
            mask[BLIND:TAKE_PILE] = state.face_down_held[player]
            return mask
        held = state.cards[source, player].tolist()
        offset = source * ACTIONS_PER_SOURCE
        can_play = False
        # A Python loop over a dozen types beats array operations at this size (and fill()
        # beats assigning a number to a slice).
        for card in self._playable[state.limit]:
            count = held[card]
            if count:
                first = offset + card * 12
                mask[first : first + count].fill(1)  # play 1..count of them
                can_play = True
        if not state.sizes[FACE_DOWN, player] and self.holds_only_minus_two(state, player):
            every_card = state.sizes[HAND, player] + state.sizes[FACE_UP, player]
            mask[offset + MINUS_TWO * 12 + every_card - 1] = 1
        elif state.pile_size and not can_play:
            mask[TAKE_PILE] = 1
        return mask

    # --- play -----------------------------------------------------------------------------

    def apply(self, state: NumpyState, action: int) -> np.ndarray | None:
        player = state.current_player
        if action >= ACTIONS_PER_SOURCE and state.sizes[HAND, player]:
            self._note_what_the_move_shows(state, player, action)
        if action == TAKE_PILE:
            self._take_pile(state, player)
            self._pass_turn(state, player)
            return None
        if action >= BLIND:
            return self._turn_blind(state, player, action - BLIND)
        source, rest = divmod(action, ACTIONS_PER_SOURCE)
        card, count = rest // 12, rest % 12 + 1
        if card == MINUS_TWO and count > state.cards[source, player, MINUS_TWO]:
            self._remove_every_minus_two(state, player)  # the last cards, hand and face-up
        else:
            held = state.cards[source, player, card] - count
            state.cards[source, player, card] = held
            state.sizes[source, player] -= count
            # A card played from the hand is the publicly known one while there is one.
            if source == HAND and state.hidden_hand[player, card] > held:
                state.hidden_hand[player, card] = held
        return self._play(state, player, card, count)

    def _note_what_the_move_shows(self, state: NumpyState, player: int, action: int) -> None:
        """What everybody learns about the unseen cards of ``player``'s hand (not empty) when
        they do not play from it: taking the pile shows that none of them could be played;
        playing from the face-up or face-down row shows that they are all -2 (on an empty
        pile)."""
        if action == TAKE_PILE:
            state.hand_excludes[player] |= self._playable_mask[state.limit]
        else:
            state.hand_excludes[player] |= self._not_minus_two

    def _play(self, state: NumpyState, player: int, card: int, count: int) -> np.ndarray | None:
        """Put ``count`` cards of type ``card``, already out of the player's hands, on the pile
        and apply their effect."""
        size = state.pile_size
        state.pile[size : size + count].fill(card)
        state.pile_size = size + count
        state.pile_counts[card] += count
        sizes = state.sizes
        if not (sizes[HAND, player] or sizes[FACE_UP, player] or sizes[FACE_DOWN, player]):
            return self._end_round(state, player, last_card_minus_two=card == MINUS_TWO)
        if card == CLEAR:
            state.removed += state.pile_counts
            self._empty_pile(state)
            return None  # the same player leads the empty pile
        if card == MINUS_TWO:
            state.limit -= 2 * count
            if state.limit < 1:
                self._take_pile(state, player)
        else:
            state.limit = card + 1
        state.current_player = (player + 1) % self.num_players  # the turn passes
        return None

    def _turn_blind(self, state: NumpyState, player: int, position: int) -> np.ndarray | None:
        card = int(state.face_down[player, position])
        state.face_down[player, position] = NO_CARD
        state.face_down_held[player, position] = 0
        state.sizes[FACE_DOWN, player] -= 1
        if card == MINUS_TWO and not state.pile_size:
            # The source's exception: the -2 goes into the hand and the player turns another
            # face-down card; with none left, all they hold is -2 and they play it out.
            self._add_to_hand(state, player, card)
            if state.sizes[FACE_DOWN, player]:
                return None
            count = self._remove_every_minus_two(state, player)
            return self._play(state, player, MINUS_TWO, count)
        if not state.pile_size or card >= MINUS_TWO or card < state.limit:  # value <= limit
            return self._play(state, player, card, 1)
        # A number above the limit cannot be played: it goes into the hand with the pile.
        self._add_to_hand(state, player, card)
        self._take_pile(state, player)
        self._pass_turn(state, player)
        return None

    def _add_to_hand(self, state: NumpyState, player: int, card: int) -> None:
        state.cards[HAND, player, card] += 1
        state.sizes[HAND, player] += 1

    def _remove_every_minus_two(self, state: NumpyState, player: int) -> int:
        """Take every -2 out of the player's hand and face-up row; return how many."""
        in_hand, face_up = state.cards[:, player, MINUS_TWO].tolist()
        state.cards[:, player, MINUS_TWO] = 0
        state.hidden_hand[player, MINUS_TWO] = 0
        state.sizes[HAND, player] -= in_hand
        state.sizes[FACE_UP, player] -= face_up
        return in_hand + face_up

    def _take_pile(self, state: NumpyState, player: int) -> None:
        hand = state.cards[HAND, player]
        np.add(hand, state.pile_counts, out=hand)  # in place, without writing the view back
        state.sizes[HAND, player] += state.pile_size
        self._empty_pile(state)

    def _empty_pile(self, state: NumpyState) -> None:
        state.pile_size = 0
        state.pile_counts.fill(0)
        state.limit = 0

    def _pass_turn(self, state: NumpyState, player: int) -> None:
        state.current_player = (player + 1) % self.num_players

    # --- end of a round and of the game ----------------------------------------------------

    def points_held(self, state: NumpyState) -> np.ndarray:
        """What each player's remaining cards are worth under this game's scoring."""
        points = self._points_or_nothing
        in_hands = state.cards.sum(axis=0) @ points[:NUM_TYPES]
        return in_hands + points[state.face_down].sum(axis=1)

    def _end_round(
        self, state: NumpyState, winner: int, last_card_minus_two: bool
    ) -> np.ndarray | None:
        added = self.points_held(state)
        if self.scoring == "face":
            added[winner] = -(MINUS_TWO_BONUS if last_card_minus_two else WIN_BONUS)
        state.totals += added
        state.round_points = added
        state.round_winner = winner
        rewards = -added.astype(np.float64) if self.reward == "points" else None
        if state.totals.max() >= state.target:
            lowest = state.totals == state.totals.min()
            if lowest.sum() == 1:
                state.terminal = True
                if self.reward == "win":
                    rewards = np.where(lowest, 1.0, -1.0)
                return rewards
            state.target += self.target_raise  # a tie for lowest: play on to a higher target
        self._start_next_round(state)
        return rewards

    def _start_next_round(self, state: NumpyState) -> None:
        state.dealer = (state.dealer + 1) % self.num_players
        state.round += 1
        self._deal(state, self._shuffled_colours(state.rng))

    # --- what a player sees ---------------------------------------------------------------

    def observe(self, state: NumpyState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        # One gather of the state's table fills every field but play_from and the scalars.
        seen = state.table.take(self._observed[player])
        if out is None:
            out = seen.astype(np.float32)
        else:
            out[...] = seen  # [...] assigns faster than [:]
        out[self._obs_play_from] = self._play_from[self.play_source(state, player)]
        out[self._obs_limit] = state.limit
        out[self._obs_pile_size] = state.pile_size
        out[self._obs_target] = state.target
        return out
