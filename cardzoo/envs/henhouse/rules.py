"""Henhouse — the rules engine (``henhouse_v0``).

Hens, feathers, eggs and a fox: a "take all the cards" game with no choices. Each player holds a
face-down deck and, on their turn, turns its top card onto the common pile. Whoever ends up holding
every card wins. It is the traditional game Beggar-my-neighbour (Italian "Straccia camicia") with
a deck of its own: a feather makes the next player pay one, two or three cards, as the court cards
and aces do in the traditional game; an egg cancels a feather and the fox passes every deck to the
left. The original is an Italian rules sheet.

This docstring states the rules as implemented, completely; every point the original leaves open
is settled by a named, bold decision with its reason. User guide: ``docs/henhouse.md``.

Cards
    40 cards: 23 ``hen``, 4 each of ``feather1``, ``feather2``, ``feather3`` (one, two or three
    feathers), 4 ``egg``, 1 ``fox``. **Decision (deck list):** the original lists no deck; its deal
    table (2 x 20, 4 x 10, 5 x 8, 8 x 5 cards) implies 40 cards, and this mix of hens, feathers,
    eggs and one fox fills it.

Deal
    ``num_players`` 2..8 (default 4). Cards per player: 2 → 20; 3 → 13 (one hen is removed first, so
    39 cards are in play); 4 → 10; 5 → 8; 6 → 6, and the four youngest get one more; 7 → 5, and the
    five youngest get one more; 8 → 5. **Decision (youngest players):** seats have no age, so the
    youngest are the highest seats (``player_{n-1}``, ``player_{n-2}``, ...). The shuffled deck is
    dealt one card at a time from ``player_0`` on, skipping players who have their number; the
    first card a player receives is the top of their deck. ``reset(options={"deck": [names...]})``
    gives the deck in deal order (every card of the game exactly once; 39 cards with 22 hens at 3
    players). The player who received the ``fox`` plays first. Play goes left: after player i
    comes player i+1 (mod n), skipping players who are out.

Play (no debt pending)
    - ``hen``, ``egg``: nothing; the next player plays.
    - ``featherN``: the next player must pay N cards — unless the card just below it on the pile is
      an ``egg``, which cancels it (the next player simply plays).
    - ``fox``: every player still in passes their whole deck to the next player still in, at the
      same time; then the next player plays.

Paying a feather (the payer turns cards one by one onto the pile)
    - ``hen``: one card paid. When all N are paid the owed player (who played the feather) takes the
      whole pile under their deck, the oldest pile card first (so it comes up first), and plays
      next.
    - another feather: the debt moves: its player is now owed, and the next player pays its number.
    - ``egg``: the debt is cancelled; the next player after the payer plays normally. The pile
      stays.
    - ``fox``: one card paid; the decks pass left first; then, if that was the last card owed, the
      owed player collects and plays next; otherwise the payer goes on from the deck they now hold.

Running out
    **Decision (running out):** the original never says what happens when a deck runs out, and
    without a rule play would stall. A player who must turn a card and has none is out at once
    (they are never asked to act). If they were paying, the next player still in pays what is
    still owed; if that would be the owed player, they collect the pile. A player with an empty
    deck who is owed stays in until the debt is settled. The fox passes decks only among players
    still in: the out neither give nor receive; a player in with an empty deck gives nothing and
    receives a deck. When only one player is left in, they take the pile and win.

    **Decision (egg below a feather):** a feather is checked for an egg right below it only in
    normal play; while a debt is being paid the card below a new feather is never an egg, because an
    egg turned during payment ends the payment. (That egg stays on the pile, so a feather the next
    player turns right on it is cancelled.)

End and rewards
    The game ends when one player holds every card: +1 for them, −1 for every other player. Reaching
    ``max_cycles`` (default 20 000 turned cards) first truncates the game: nobody wins, reward 0.
    ``scores`` are the cards each player holds.

Reinforcement-learning interface
    Actions ``Discrete(1)``: 0 = turn your top card (always legal for the player to act).
    Observation (float32, counts, seat-relative: index 0 is the observer, then leftwards):

    ======================  ====  ==========================================================
    field                   size  meaning
    ======================  ====  ==========================================================
    ``deck_sizes``          n     cards in each player's deck
    ``is_out``              n     1 if that player is out
    ``pile_size``           1     cards on the common pile
    ``pile_top``            6     one-hot type of the top pile card (hen, feather1..3, egg, fox)
    ``pile_second``         6     one-hot type of the card below it
    ``debt``                1     cards still to pay (0 when no feather is pending)
    ``owed``                n     one-hot: the player owed the pending feather
    ``payer``               n     one-hot: the player paying it
    ======================  ====  ==========================================================

Parameters: ``num_players`` (2..8, default 4); the environment adds ``max_cycles``, ``render_mode``.
Version: ``henhouse_v0``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import (
    card_types,
    check_card_counts,
    check_int,
    game_generator,
    in_range,
    known_options,
    layout_from_sizes,
    named_counts,
    require,
    seat_order,
)

CARD_NAMES = ("hen", "feather1", "feather2", "feather3", "egg", "fox")
HEN, FEATHER1, FEATHER2, FEATHER3, EGG, FOX = range(6)
NUM_TYPES = len(CARD_NAMES)
FULL_DECK = np.array([23, 4, 4, 4, 4, 1])  # copies of each type
NO_PLAYER = -1

# Cards each player receives, by seat, for 2..8 players (the youngest are the highest seats).
_DEAL_COUNTS = {
    2: [20, 20],
    3: [13, 13, 13],
    4: [10] * 4,
    5: [8] * 5,
    6: [6, 6, 7, 7, 7, 7],
    7: [5, 5, 6, 6, 6, 6, 6],
    8: [5] * 8,
}


def deck_composition(num_players: int) -> np.ndarray:
    """Copies of each card type in play (a hen is removed at 3 players)."""
    counts = FULL_DECK.copy()
    if num_players == 3:
        counts[HEN] -= 1
    return counts


@dataclasses.dataclass
class HenhouseState(State):
    # Each deck is a ring buffer over one row of ``decks``: the top card is at ``deck_top``.
    decks: np.ndarray = None  # (n, capacity) int8 card types
    deck_top: np.ndarray = None  # (n,) index of each deck's top card
    deck_size: np.ndarray = None  # (n,)
    pile: np.ndarray = None  # (capacity,) int8, oldest card first
    pile_size: int = 0
    is_out: np.ndarray = None  # (n,) bool
    debt: int = 0  # cards still owed on the pending feather
    owed: int = NO_PLAYER  # who played the pending feather
    payer: int = NO_PLAYER  # who is paying it


class Henhouse(Game):
    """Henhouse, a "take all the cards" game with no choices: each player turns the top card of
    their deck onto a common pile, feathers make the next player pay cards, and whoever ends up
    with every card wins (``docs/henhouse.md``).

    Args:
        num_players: 2..8 (default 4).

    A bad value raises ``ValueError`` naming the parameter. The environments add ``max_cycles``
    and ``render_mode``.
    """

    name = "henhouse"
    description = (
        "hens, feathers, eggs and a fox: turn your top card, win all the cards (no choices)"
    )
    state_class = HenhouseState
    min_players = 2
    max_players = 8
    default_max_cycles = 20_000
    num_actions = 1
    reset_options = ("deck",)
    has_decisions = False
    score_direction = 1  # the cards in one's deck: all of them wins

    def __init__(self, num_players: int = 4):
        self.num_players = check_int("num_players", num_players, self.min_players, self.max_players)
        self.composition = deck_composition(self.num_players)
        self.num_cards = int(self.composition.sum())
        self.deal_counts = _DEAL_COUNTS[self.num_players]
        n = self.num_players
        self.observation_layout = layout_from_sizes(
            [
                ("deck_sizes", n),
                ("is_out", n),
                ("pile_size", 1),
                ("pile_top", NUM_TYPES),
                ("pile_second", NUM_TYPES),
                ("debt", 1),
                ("owed", n),
                ("payer", n),
            ]
        )
        # Precomputed because asked at every turn or deal: the seats after each player in
        # playing order, each observer's seat order, and where each dealt card lands.
        self._after = [[(p + k) % n for k in range(1, n)] for p in range(n)]
        self._seats = [seat_order(p, n) for p in range(n)]
        self._deal_seat = np.array(self._deal_order())
        self._deal_position = np.zeros(self.num_cards, np.int64)
        for player in range(n):
            dealt_to_player = self._deal_seat == player
            self._deal_position[dealt_to_player] = np.arange(dealt_to_player.sum())
        self._pass_from = np.roll(np.arange(n), 1)  # the fox when nobody is out
        self._mask = np.ones(1, np.int8)
        self._no_mask = np.zeros(1, np.int8)

    def params(self) -> dict:
        return {"num_players": self.num_players}

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.zeros(self.observation_size, np.float32)
        high = np.ones(self.observation_size, np.float32)
        layout = self.observation_layout
        high[layout["deck_sizes"]] = self.num_cards
        high[layout["pile_size"]] = self.num_cards
        high[layout["debt"]] = 3
        return low, high

    def action_name(self, action: int) -> str:
        return "turn top card" if action == 0 else f"invalid action {action}"

    # --- deal -----------------------------------------------------------------------------

    def new_state(
        self, rng: np.random.Generator | int | None, options: dict | None = None
    ) -> HenhouseState:
        rng = game_generator(rng)
        options = known_options(self, options)
        if "deck" in options:
            deck = self._parse_deck(options["deck"])
        else:
            deck = np.repeat(np.arange(NUM_TYPES, dtype=np.int8), self.composition)
            rng.shuffle(deck)
        n, capacity = self.num_players, self.num_cards
        state = HenhouseState(
            rng=rng,
            decks=np.zeros((n, capacity), np.int8),
            deck_top=np.zeros(n, np.int64),
            deck_size=np.zeros(n, np.int64),
            pile=np.zeros(capacity, np.int8),
            is_out=np.zeros(n, bool),
        )
        state.decks[self._deal_seat, self._deal_position] = deck
        state.deck_size[:] = self.deal_counts
        state.current_player = int(self._deal_seat[np.flatnonzero(deck == FOX)[0]])
        state.set_game_key(self.state_key)
        return state

    def _deal_order(self) -> list[int]:
        """The seat receiving each card of the deck in turn."""
        order, received = [], [0] * self.num_players
        while len(order) < self.num_cards:
            for player in range(self.num_players):
                if received[player] < self.deal_counts[player]:
                    order.append(player)
                    received[player] += 1
        return order

    def _parse_deck(self, names) -> np.ndarray:
        deck = card_types("deck option", names, CARD_NAMES).astype(np.int8)
        expected = named_counts(self.composition, CARD_NAMES)
        check_card_counts(
            "deck", deck, self.composition, CARD_NAMES, f"{expected} at {self.num_players} players"
        )
        return deck

    # --- play -----------------------------------------------------------------------------

    def legal_mask(self, state: HenhouseState, player: int) -> np.ndarray:
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        if not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_player(player)
        if state.terminal or player != state.current_player:
            return self._no_mask.copy()
        return self._mask.copy()

    def apply(self, state: HenhouseState, action: int) -> np.ndarray | None:
        player = state.current_player
        card = self._turn_top_card(state, player)
        if state.debt == 0:
            self._play_freely(state, player, card)
        else:
            self._pay(state, player, card)
        return self._rewards_if_over(state)

    def _play_freely(self, state: HenhouseState, player: int, card: int) -> None:
        if FEATHER1 <= card <= FEATHER3:
            if state.pile_size < 2 or state.pile[state.pile_size - 2] != EGG:
                self._start_debt(state, player, card)
                return
        elif card == FOX:
            self._pass_decks_left(state)
        self._give_turn(state, self._next_in(state, player))

    def _pay(self, state: HenhouseState, player: int, card: int) -> None:
        if FEATHER1 <= card <= FEATHER3:
            self._start_debt(state, player, card)
            return
        if card == EGG:
            state.debt, state.owed, state.payer = 0, NO_PLAYER, NO_PLAYER
            self._give_turn(state, self._next_in(state, player))
            return
        if card == FOX:
            self._pass_decks_left(state)
        state.debt -= 1
        if state.debt == 0:
            self._collect_and_play(state, state.owed)
        else:
            self._give_turn(state, player)  # the payer goes on (or is out: the next one pays)

    def _start_debt(self, state: HenhouseState, player: int, feather: int) -> None:
        state.debt = feather - FEATHER1 + 1
        state.owed = player
        self._give_turn(state, self._next_in(state, player))

    def _give_turn(self, state: HenhouseState, candidate: int) -> None:
        """Let ``candidate`` act, or the first player still in after them who can. Players who
        must turn a card and have none drop out; reaching the owed player settles the debt."""
        while not state.terminal:
            if state.debt and candidate == state.owed:
                self._collect_and_play(state, candidate)
                return
            if state.deck_size[candidate] > 0:
                state.current_player = candidate
                if state.debt:
                    state.payer = candidate
                return
            state.is_out[candidate] = True
            still_in = np.flatnonzero(~state.is_out)
            if len(still_in) == 1:
                self._collect_and_play(state, int(still_in[0]))
                return
            candidate = self._next_in(state, candidate)

    def _collect_and_play(self, state: HenhouseState, player: int) -> None:
        """``player`` puts the pile under their deck, oldest card first, and plays next."""
        size = state.pile_size
        capacity = self.num_cards
        slots = (state.deck_top[player] + state.deck_size[player] + np.arange(size)) % capacity
        state.decks[player, slots] = state.pile[:size]
        state.deck_size[player] += size
        state.pile_size = 0
        state.debt, state.owed, state.payer = 0, NO_PLAYER, NO_PLAYER
        state.current_player = player
        if state.deck_size[player] == self.num_cards:
            state.terminal = True

    def _turn_top_card(self, state: HenhouseState, player: int) -> int:
        top = int(state.deck_top[player])
        card = int(state.decks[player, top])
        state.deck_top[player] = top + 1 if top + 1 < self.num_cards else 0
        state.deck_size[player] -= 1
        state.pile[state.pile_size] = card
        state.pile_size += 1
        return card

    def _pass_decks_left(self, state: HenhouseState) -> None:
        if state.is_out.any():
            still_in = np.flatnonzero(~state.is_out)
            givers = np.concatenate((still_in[-1:], still_in[:-1]))
        else:
            still_in, givers = slice(None), self._pass_from
        # still_in[k] receives from givers[k], the previous player still in
        state.decks[still_in] = state.decks[givers]
        state.deck_top[still_in] = state.deck_top[givers]
        state.deck_size[still_in] = state.deck_size[givers]

    def _next_in(self, state: HenhouseState, player: int) -> int:
        """The next player after ``player`` who is still in (``player`` if nobody else is)."""
        for candidate in self._after[player]:
            if not state.is_out[candidate]:
                return candidate
        return player

    def _rewards_if_over(self, state: HenhouseState) -> np.ndarray | None:
        if not state.terminal:
            return None
        return np.where(self.winners(state), 1.0, -1.0)

    # --- results --------------------------------------------------------------------------

    def scores(self, state: HenhouseState) -> np.ndarray:
        self.check_state(state)
        return state.deck_size.copy()

    def winners(self, state: HenhouseState) -> np.ndarray:
        self.check_state(state)
        return (
            state.deck_size == self.num_cards
            if state.terminal
            else np.zeros(self.num_players, bool)
        )

    # --- what a player sees ---------------------------------------------------------------

    def observe(
        self, state: HenhouseState, player: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        if not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_player(player)
        if out is None:
            out = np.empty(self.observation_size, np.float32)
        out.fill(0.0)
        layout = self.observation_layout
        seats = self._seats[player]
        out[layout["deck_sizes"]] = state.deck_size[seats]
        out[layout["is_out"]] = state.is_out[seats]
        out[layout["pile_size"]] = state.pile_size
        if state.pile_size >= 1:
            out[layout["pile_top"].start + state.pile[state.pile_size - 1]] = 1.0
        if state.pile_size >= 2:
            out[layout["pile_second"].start + state.pile[state.pile_size - 2]] = 1.0
        if state.debt:
            n = self.num_players
            out[layout["debt"]] = state.debt
            out[layout["owed"].start + (state.owed - player) % n] = 1.0
            out[layout["payer"].start + (state.payer - player) % n] = 1.0
        return out

    def deck_cards(self, state: HenhouseState, player: int) -> list[str]:
        """The names of ``player``'s deck from the top (for tests and debugging)."""
        top, size = state.deck_top[player], state.deck_size[player]
        slots = (top + np.arange(size)) % self.num_cards
        return [CARD_NAMES[card] for card in state.decks[player, slots]]

    def pile_cards(self, state: HenhouseState) -> list[str]:
        """The names of the pile's cards, oldest first."""
        return [CARD_NAMES[card] for card in state.pile[: state.pile_size]]

    def render(self, state: HenhouseState, player: int | None = None) -> str:
        self.check_state(state)
        player = None if player is None else self.check_player(player)
        lines = [f"Henhouse, {self.num_players} players"]
        for seat in range(self.num_players):
            marks = []
            if state.is_out[seat]:
                marks.append("out")
            if not state.terminal and seat == state.current_player:
                marks.append("to play" if seat != state.payer else "paying")
            if seat == state.owed:
                marks.append(f"owed {state.debt}")
            note = f"  ({', '.join(marks)})" if marks else ""
            lines.append(f"  player_{seat}: {state.deck_size[seat]:2d} cards{note}")
        top = self.pile_cards(state)[-3:][::-1]
        shown = ", ".join(top) + (", ..." if state.pile_size > 3 else "")
        lines.append(f"  pile: {state.pile_size} cards" + (f" (top: {shown})" if top else ""))
        if state.terminal:
            winner = int(np.flatnonzero(self.winners(state))[0])
            lines.append(f"  game over: player_{winner} holds every card")
        return "\n".join(lines)

    def check_invariants(self, state: HenhouseState) -> None:
        self._check_ranges(state)
        held = np.zeros(NUM_TYPES, np.int64)
        for player in range(self.num_players):
            top, size = state.deck_top[player], state.deck_size[player]
            slots = (top + np.arange(size)) % self.num_cards
            held += np.bincount(state.decks[player, slots], minlength=NUM_TYPES)
        held += np.bincount(state.pile[: state.pile_size], minlength=NUM_TYPES)
        require(np.array_equal(held, self.composition), f"cards {held} != {self.composition}")
        require(not state.deck_size[state.is_out].any(), "a player who is out holds cards")
        require((~state.is_out).sum() >= 1, "everybody is out")
        holds_every_card = state.deck_size == self.num_cards
        if state.terminal:
            require(holds_every_card.sum() == 1, "a finished game has one winner")
            require(state.debt == 0 and state.owed == state.payer == NO_PLAYER, "debt at the end")
            return
        require(not holds_every_card.any(), "the game goes on with every card in one deck")
        actor = state.current_player
        require(not state.is_out[actor] and state.deck_size[actor] > 0, "actor cannot turn a card")
        if state.debt:
            require(
                state.payer == actor and state.owed not in (actor, NO_PLAYER),
                f"debt {state.debt}: payer {state.payer}, owed {state.owed}, actor {actor}",
            )
            require(not state.is_out[state.owed], "the owed player is out")
        else:
            require(state.owed == state.payer == NO_PLAYER, "owed or payer without a debt")

    def _check_ranges(self, state: HenhouseState) -> None:
        n, cards = self.num_players, self.num_cards
        require(in_range(state.decks, 0, NUM_TYPES - 1), "unknown card type in a deck")
        require(in_range(state.pile, 0, NUM_TYPES - 1), "unknown card type on the pile")
        require(in_range(state.deck_top, 0, cards - 1), "deck_top out of range")
        require(in_range(state.deck_size, 0, cards), "deck_size out of range")
        require(0 <= state.pile_size <= cards, f"pile_size={state.pile_size} out of range")
        require(0 <= state.debt <= 3, f"debt={state.debt} out of range")
        require(NO_PLAYER <= state.owed < n, f"owed={state.owed} is no player")
        require(NO_PLAYER <= state.payer < n, f"payer={state.payer} is no player")
