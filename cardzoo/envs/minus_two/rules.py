"""Minus Two — the rules engine (``minus_two_v0``).

A shedding game with ``-2`` and ``>>>`` cards: get rid of your cards, play no higher than the pile
allows, and keep your running total low. It is the traditional shedding game Shithead (also
called Palace or Karma) with a deck of its own, from a Romanian rules sheet: each player has a
face-down row, a face-up row on it and a hand, the face-down cards are played blind, and ``>>>``
burns the pile as the 10 does in Shithead. Here the cards go down instead of up (no higher than
the limit), ``-2`` lowers the limit, and rounds are scored until someone's total reaches 300.

This docstring states the rules as implemented, completely; every point the original leaves open
is settled by a named, bold decision with its reason. User guide: ``docs/minus_two.md``.
The rules themselves are written once, in the game's kernel (:mod:`cardzoo.envs.minus_two.kernel`):
:class:`MinusTwo` runs it on one game at a time (:mod:`cardzoo.envs.packed`), the vector games and
the search playouts on many.

Cards
    **Decision (colour of 13 cards):** the original lists no cards; each player has a colour of 13
    cards, exactly what one player needs (4 face-down + 4 face-up + 5 in hand): number cards
    ``1`` .. ``10`` (one each), two ``-2`` and one ``>>>``. Card types: 0..9 = values 1..10,
    10 = ``-2``, 11 = ``>>>``. Colours only tell whose card is whose; play and scoring use the
    type alone, so the engine counts types.

Players and seating
    ``num_players`` 2..6 (default 4), agents ``player_0`` .. ``player_{n-1}``. Play goes left:
    after player i comes player (i + 1) mod n.

Setup of a round
    Each player's 13 cards are shuffled: 4 face down in a row (positions 0..3), one face-up card on
    each of them, 5 cards in hand. The pile starts empty. The dealer's left neighbour starts.

    - **Decision (first dealer):** the original does not say who deals first; round 1's dealer
      is ``player_{n-1}``, so ``player_0`` starts, as in the other cardzoo games.
    - **Decision (dealer rotation):** the original does not say who deals later rounds; the
      dealer moves one seat left every round, so every seat starts in turn.

    ``reset(options={"deals": [[13 card names] per player]})`` fixes round 1: per player the
    first 4 names are the face-down row (positions 0..3), the next 4 the face-up row, the last 5
    the hand. Names: ``"1"`` .. ``"10"``, ``"-2"``, ``">>>"``. Later rounds are dealt with the
    game's seeded generator. Other option keys follow the common rule of :mod:`cardzoo.envs.core`
    ("Reset options").

    **Decision (deals option):** a fixed deal may give any player any cards, as long as all the
    players together hold exactly ``num_players`` colours (n of each number, 2n ``-2``, n ``>>>``).
    Every card stays accounted for, and tests and studies can set up any hand.

The pile and its limit
    Empty pile: no limit (shown as 0). After number cards of value v: v. After k ``-2`` played
    together on limit L: L - 2k.

A turn: the active player plays one or more cards of one type onto the pile
    - **Where from:** from the hand while it has cards; with the hand empty, from the face-up row;
      with both empty, one face-down card, chosen by position and turned over blind. Several
      cards played together come all from the hand or all from the face-up row; face-down cards
      go one at a time.
    - **Number cards:** any value on an empty pile, otherwise value <= limit. Several equal
      numbers together set the limit to their value.
    - **-2:** never on an empty pile. k of them together on limit L make it L - 2k; below 1, the
      player who played them takes the whole pile into hand. **Decision (-2 taken with the
      pile):** "the whole pile" includes those ``-2``: they were played onto it.
    - **>>>:** playable on any pile, the empty one included. The whole pile leaves the game for
      the round and is never scored, and the same player leads again on the empty pile.
      **Decision (>>> leads again):** the original's "may start the next round" is read as
      leading the new pile, since the round itself goes on. **Decision (>>> leaves with the
      pile):** the ``>>>`` leaves with the pile (it lies on it), and several ``>>>`` may go
      together like any equal cards.
    - **Blind card:** if the turned card may be played, it is played (a ``-2`` on a non-empty
      pile may be, and may then make its player take the pile). If not (a number above the
      limit), the player takes the pile and that card into hand. Exception: a ``-2`` turned on an
      empty pile goes into the hand and the same player turns another face-down card; if it was
      their last face-down card, they hold only ``-2`` cards and play them all as their last cards.
      **Decision (last blind -2):** that last play happens at once (it is the only thing the
      player could do), so turning the last face-down card as a ``-2`` on an empty pile ends the
      round in the player's favour, with the ``-2`` bonus.
    - **Last cards:** a player without face-down cards whose every card (hand and face-up row
      together) is a ``-2`` may play them all at once on any pile, even an empty one: the action
      "play ``count`` ``-2`` from the hand" (from the face-up row when the hand is empty), with
      ``count`` the number of all their cards, so hand and face-up ``-2`` go together here only.
      On a non-empty pile they may instead play some ``-2`` from where they must play as usual.
    - **Empty pile, only -2 where you must play from.** **Decision (only -2 on an empty pile):**
      a ``-2`` cannot lead and the original does not say what then; the player plays from the
      first place, in the order hand -> face-up row -> face-down row, that holds another card
      (face-down cards always count, being unseen), so play never stalls. **Decision (any
      face-down position):** in that case any face-down position still holding a card may be
      turned, even one under a face-up ``-2``; the positions are unseen and so equivalent.
    - **No legal play** on a non-empty pile: the player takes the whole pile into hand.
      **Decision (no taking with a legal play):** a player may not take the pile while they have
      a legal play (a ``-2`` is always a legal play on a non-empty pile, even when it makes its
      player take the pile); the original says nothing of a player who cannot play, and here, as
      in Shithead, taking the pile is the way out when nothing can be played, not a move of its
      own. Blind cards never allow taking: turning one is always the play.
    - After a play (and any pile taking) the turn passes to the next player, except after ``>>>``
      and the blind ``-2`` exception, where the same player goes on.

End of a round and scoring
    A player who holds no card (hand, face-up and face-down empty) wins the round at once; a
    ``-2`` that was their last card (or last cards) ends it in their favour whatever the pile
    (its limit is not applied). Every player adds the cards they still hold: numbers their value,
    ``-2`` 20, ``>>>`` 50. The winner adds -10, or -80 if their last card played was a ``-2``.
    ``scoring="count"`` (the children's variant): every card held counts 1, no bonus.
    **Decision (count scoring):** the original's children's variant counts the cards left (its
    other form, a stick per round won, is not implemented) and names no target; the default
    target is 30, raised by 10 on a tie: face scoring's 300 and 100 scaled to card counts (a
    colour's 13 cards are worth 145 points at face value).

End of the game
    ``target_score`` is 1..1,000,000. **Decision (target score bounded):** a state is a row of
    32-bit integers holding the target and the totals; the original plays to 300.
    After a round in which some total reaches ``target`` (>=), the lowest total wins. If several
    players tie for lowest, the target rises by 100 (10 for count scoring) and play goes on with
    at least one more round before the end is checked again (against the new target). The next
    round is dealt as soon as a round ends, in the same step; a finished game keeps its last
    table (the winner's last cards on the pile).

    Play can cycle for ever (cards go from hand to pile and back when players keep taking the
    pile); ``max_cycles`` (default 20 000 agent steps) truncates such a game: nobody wins, reward
    0. Random players end a 4-player game to 300 in about 380 steps.

Actions, ``Discrete(293)``
    ======================================  ==================================================
    id                                      meaning
    ======================================  ==================================================
    ``0*144 + type*12 + (count-1)``         play ``count`` (1..12) cards of ``type`` from hand
    ``1*144 + type*12 + (count-1)``         the same from the face-up row
    ``288 + position``                      turn face-down card ``position`` (0..3) blind
    ``292``                                 take the pile (only without a legal play)
    ======================================  ==================================================

    :func:`play_action`, :data:`BLIND_ACTIONS` and :data:`TAKE_PILE` build the ids;
    ``MinusTwo.action_name`` names them.

Observation (float32, seat-relative: per-player fields list the observer first, then leftwards)
    ======================  ======  ==========================================================
    field                   size    meaning
    ======================  ======  ==========================================================
    ``hand``                12      the observer's hand, cards per type
    ``face_up``             n*12    every player's face-up row, cards per type
    ``face_down``           4       1 where the observer's face-down position still holds a card
    ``play_from``           3       one-hot: where the observer must play from now (hand,
                                    face-up, face-down), as if it were their turn
    ``hand_sizes``          n       cards in every player's hand
    ``face_up_sizes``       n       cards in every player's face-up row
    ``face_down_sizes``     n       face-down cards of every player
    ``totals``              n       running totals (may be negative)
    ``pile_limit``          1       the pile's limit, 0 for an empty pile
    ``pile_size``           1       cards on the pile
    ``pile``                12      the pile by type (played cards are face up)
    ``removed``             12      cards removed by ``>>>`` this round, by type
    ``target``              1       the current target score
    ======================  ======  ==========================================================

Resampling (what a seat knows, for determinized search)
    ``MinusTwo.resample(state, player, rng)`` deals again every card ``player`` cannot see and
    returns a new state that gives the seat the same observation, legal actions and memory of the
    game; the cards are drawn uniformly at random among the deals the seat cannot rule out.
    Everything played is face up, so what a seat cannot see is: other players' hand cards from
    their deal that have not been played, every face-down card, and the order of later deals (the
    new state's generator is the ``rng`` passed in, not the true one).

    - **Decision (own face-down row known):** a seat knows which cards its face-down row holds
      (its colour less the nine cards it saw at the deal, less those it turned), not their order;
      the resampler only shuffles their positions.
    - **Decision (unseen cards stay with their seat):** another seat's face-down cards and unseen
      hand cards all come from its own deal, so the resampler redeals them among that seat's
      places only: the multiset is its colour less its face-up row at the deal and every card of
      its deal seen since, which the whole table can follow. A fixed ``deals`` option that is not
      one colour per player is treated the same way (its split is as good as known).
    - **Decision (public memory of hands):** the state records what the whole table can remember
      about each hand, which the observation does not carry: ``hidden_hand``, the hand cards from
      the deal nobody else has seen (cards taken with the pile or turned blind are seen), and
      ``hand_excludes``, the types those cards cannot be: taking the pile shows that none could be
      played (no number up to the limit, no ``-2``, no ``>>>``), and playing from the face-up or
      face-down row while holding hand cards shows they are all ``-2``. The engine counts types,
      not colours, so a card played from the hand is taken as the publicly known one when the
      hand holds one of that type (the resampler then stays a little less sure than a player who
      follows colours). Both fields are in snapshots.

Rewards
    ``reward="win"`` (default): at the end of the game the winner gets +1, every other player -1.
    ``reward="points"``: at each round's end, minus the points each player added to their total
    that round (the winner's bonus is a positive reward).

Parameters
    ``num_players`` (2..6, default 4), ``target_score`` (>= 1; default 300, or 30 for count
    scoring), ``scoring`` (``"face"`` or ``"count"``), ``reward`` (``"win"`` or ``"points"``); the
    environment adds ``max_cycles`` and ``render_mode``. Version: ``minus_two_v0``.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.helpers import (
    card_types,
    check_card_counts,
    check_choice,
    check_int,
    game_generator,
    in_range,
    known_options,
    layout_from_sizes,
    named_counts,
    require,
)
from cardzoo.envs.kernels import plain_copy
from cardzoo.envs.packed import KernelGame, PackedState, Part, RowLayout, Scalar

#: the game's kernel as plain Python, read without loading numba: the rules' numbers, and the
#: rules themselves where a state is asked outside a step (:meth:`MinusTwo.play_source`)
_kernel = plain_copy("cardzoo.envs.minus_two.kernel")

# --- cards -----------------------------------------------------------------------------------

CARD_NAMES = tuple(str(value) for value in range(1, 11)) + ("-2", ">>>")
NUM_TYPES, MINUS_TWO = _kernel.NUM_TYPES, _kernel.MINUS_TWO
CLEAR = _kernel.CLEAR  # the ">>>" card: clears the pile out of the game
COLOUR = np.array([1] * 10 + [2, 1])  # copies of each type in one player's colour
CARDS_PER_COLOUR = _kernel.CARDS_PER_COLOUR
ROW = _kernel.ROW  # face-down positions (and face-up cards dealt)
HAND_DEAL = _kernel.HAND_DEAL
NO_CARD = -1  # an empty face-down position
FACE_POINTS = np.array(list(range(1, 11)) + [20, 50])
#: the highest ``target_score`` (see docs/minus_two.md, Decision "target score bounded")
MAX_TARGET_SCORE = 1_000_000
WIN_BONUS, MINUS_TWO_BONUS = _kernel.WIN_BONUS, _kernel.MINUS_TWO_BONUS

# --- where a player plays from ---------------------------------------------------------------

HAND, FACE_UP, FACE_DOWN = _kernel.HAND, _kernel.FACE_UP, _kernel.FACE_DOWN
SOURCE_NAMES = ("hand", "face_up", "face_down")

# --- actions ---------------------------------------------------------------------------------

ACTIONS_PER_SOURCE = _kernel.ACTIONS_PER_SOURCE  # type * 12 + (count - 1), counts 1..12
BLIND = _kernel.BLIND  # 288: turn face-down position 0
BLIND_ACTIONS = tuple(range(BLIND, BLIND + ROW))
TAKE_PILE = _kernel.TAKE_PILE  # 292
NUM_ACTIONS = _kernel.NUM_ACTIONS


def play_action(source: str, card: str, count: int = 1) -> int:
    """The action id of playing ``count`` cards named ``card`` from ``source`` ("hand" or
    "face_up"), e.g. ``play_action("hand", "7", 2)``."""
    check_choice("source", source, SOURCE_NAMES[:2])
    check_choice("card", card, CARD_NAMES)
    check_int("count", count, 1, 12)
    return SOURCE_NAMES.index(source) * ACTIONS_PER_SOURCE + CARD_NAMES.index(card) * 12 + count - 1


def card_names(types) -> list[str]:
    """Card type ids to names."""
    return [CARD_NAMES[t] for t in types]


class MinusTwoState(PackedState):
    """All of one game, as the kernel's row: whose turn it is, every hand, face-up and face-down
    row, the pile, totals and the table's memory of the hands. Every field reads and writes the
    row (numbers as Python ints, arrays as numpy views).

    The counts an observation shows lie one after another in the row: ``table`` is all of them
    (the snapshot holds it), and ``cards``, ``face_down_held``, ``sizes``, ``totals``,
    ``pile_counts`` and ``removed`` name its parts (views that snapshots do not list)."""

    current_player = Scalar(_kernel.CURRENT)
    terminal = Scalar(_kernel.TERMINAL, bool)
    table = Part()
    face_down = Part()  # (n, 4) card type at each face-down position, NO_CARD if gone
    pile = Part()  # (13 n,) card types in play order; the first pile_size count
    pile_size = Scalar(_kernel.PILE_SIZE)
    limit = Scalar(_kernel.LIMIT)  # 0 = empty pile, no limit
    target = Scalar(_kernel.TARGET)  # current target score (rises on a tie for lowest)
    dealer = Scalar(_kernel.DEALER)
    round = Scalar(_kernel.ROUND)
    round_points = Part()  # (n,) points added at the last round's end
    round_winner = Scalar(_kernel.ROUND_WINNER)  # who went out in the last finished round
    # What the whole table knows about the hands (see "Decision (public memory of hands)"):
    hidden_hand = Part()  # (n, 12) hand cards from the deal nobody else has seen
    hand_excludes = Part(np.bool_)  # (n, 12) 1: a type those hidden cards cannot be
    # The parts of the table:
    cards = Part(snapshot=False)  # (2, n, 12) cards per type in every hand and face-up row
    face_down_held = Part(snapshot=False)  # (n, 4) 1 where a face-down position holds a card
    sizes = Part(snapshot=False)  # (3, n) cards in each place: sizes[HAND], [FACE_UP], ...
    totals = Part(snapshot=False)  # (n,) running totals
    pile_counts = Part(snapshot=False)  # (12,) the pile by type
    removed = Part(snapshot=False)  # (12,) cards removed by >>> this round
    # Round 1's deal fixed by reset options, card type + 1 (0: shuffled); emptied by the deal.
    fixed_deal = Part(snapshot=False)


def row_layout(num_players: int) -> RowLayout:
    """The kernel's row for ``num_players``: its parts, and the table they begin with."""
    parts = _kernel.parts(num_players)
    table_start = parts["cards"][0]
    table_size = parts["face_down"][0] - table_start
    parts["table"] = (table_start, (table_size,))
    size = _kernel.row_size(num_players, 0, 0, 0, 0)
    return RowLayout(parts, size)


class MinusTwo(KernelGame):
    """Minus Two, a shedding game with ``-2`` and ``>>>`` cards: whoever sheds every card wins
    the round, the others score what they still hold, and when a total reaches the target
    score the lowest total wins the game (``docs/minus_two.md``).

    Args:
        num_players: 2..6 (default 4).
        target_score: 1..1,000,000 (default ``None``: 300 with ``"face"`` scoring, 30 with
            ``"count"``).
        scoring: ``"face"`` (default: numbers count their value, ``-2`` 20, ``>>>`` 50, and a
            winner's bonus) or ``"count"`` (every card counts 1, no bonus).
        reward: ``"win"`` (default: +1 to the winner, -1 to the others) or ``"points"`` (at
            every round's end, minus the points added to the player's total).

    A bad value raises ``ValueError`` naming the parameter. The environments add ``max_cycles``
    (default 20,000 agent steps) and ``render_mode``.
    """

    name = "minus_two"
    description = "shedding game with -2 and >>> cards; first to the target score loses"
    state_class = MinusTwoState
    min_players = 2
    max_players = 6
    default_max_cycles = 20_000
    num_actions = NUM_ACTIONS
    reset_options = ("deals",)
    has_points_reward = True
    #: rollout policies of :meth:`random_playouts`, the search agents' default first
    playout_policies = ("attacker", "high_cards", "random")
    #: how far :meth:`random_playouts` plays: the game, or the current round
    playout_horizons = ("game", "round")
    kernel_module = "cardzoo.envs.minus_two.kernel"

    def __init__(
        self,
        num_players: int = 4,
        target_score: int | None = None,
        scoring: str = "face",
        reward: str = "win",
    ):
        self.num_players = check_int("num_players", num_players, self.min_players, self.max_players)
        check_choice("scoring", scoring, ("face", "count"))
        check_choice("reward", reward, ("win", "points"))
        self.scoring, self.reward = scoring, reward
        default_target, self.target_raise = (300, 100) if scoring == "face" else (30, 10)
        target = default_target if target_score is None else target_score
        self.target_score = check_int("target_score", target, 1, MAX_TARGET_SCORE)
        n = self.num_players
        self.composition = COLOUR * n  # every card of the game, by type
        self.num_cards = CARDS_PER_COLOUR * n
        # Points of a card type; index -1 (an empty face-down position) is worth nothing.
        points = FACE_POINTS if scoring == "face" else np.ones(NUM_TYPES, np.int64)
        self._points_or_nothing = np.append(points, 0)
        self._types = np.arange(NUM_TYPES)
        self.observation_layout = layout_from_sizes(_kernel.observation_sizes(n))
        self._set_up_kernel(row_layout(n))

    def params(self) -> dict:
        return {
            "num_players": self.num_players,
            "target_score": self.target_score,
            "scoring": self.scoring,
            "reward": self.reward,
        }

    def kernel_parameters(self) -> tuple[int, ...]:
        return (
            self.num_players,
            int(self.scoring == "count"),
            self.target_raise,
            self.target_score,
            int(self.reward == "points"),
        )

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n, layout = self.num_players, self.observation_layout
        low = np.zeros(self.observation_size, np.float32)
        high = np.ones(self.observation_size, np.float32)
        copies = self.composition.astype(np.float32)
        high[layout["hand"]] = copies
        high[layout["face_up"]] = np.tile(np.minimum(copies, ROW), n)
        high[layout["hand_sizes"]] = self.num_cards
        high[layout["face_up_sizes"]] = ROW
        high[layout["face_down_sizes"]] = ROW
        low[layout["totals"]] = -np.inf  # a round won with -2 lowers a total by 80
        high[layout["totals"]] = np.inf
        high[layout["pile_limit"]] = 10
        high[layout["pile_size"]] = self.num_cards
        high[layout["pile"]] = copies
        high[layout["removed"]] = copies
        high[layout["target"]] = np.inf
        return low, high

    def reward_bound(self) -> float:
        """``reward="points"``: twice the most a round can change a total (every card's points,
        or the -2 bonus). A reward comes once a round and every player acts in every round, so
        a cumulative reward holds one round's; the margin only keeps the bound from being
        tight where it need not be."""
        if self.reward == "win":
            return 1.0
        most = int(self.composition @ self._points_or_nothing[:NUM_TYPES])
        return 2.0 * max(most, MINUS_TWO_BONUS)

    def action_name(self, action: int) -> str:
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            return f"invalid action {action}"
        if action == TAKE_PILE:
            return "take the pile"
        if action >= BLIND:
            return f"turn face-down card {action - BLIND}"
        source, rest = divmod(action, ACTIONS_PER_SOURCE)
        card, count = divmod(rest, 12)
        where = "hand" if source == HAND else "face-up row"
        return f"play {count + 1} x {CARD_NAMES[card]} from {where}"

    # --- deal -----------------------------------------------------------------------------

    def new_state(
        self, rng: np.random.Generator | int | None, options: dict | None = None
    ) -> MinusTwoState:
        rng = game_generator(rng)
        options = known_options(self, options)
        fixed = {}
        if "deals" in options:
            fixed["fixed_deal"] = self._parse_deals(options["deals"]) + 1
        state = self._new_packed_state(rng, fixed)
        assert isinstance(state, MinusTwoState)
        return state

    def _parse_deals(self, deals) -> np.ndarray:
        n = self.num_players
        if not isinstance(deals, (list, tuple)) or len(deals) != n:
            raise ValueError(f"deals option: give a list of {n} deals (one per player)")
        cards = np.zeros((n, CARDS_PER_COLOUR), np.int64)
        for player, deal in enumerate(deals):
            if not isinstance(deal, (list, tuple)) or len(deal) != CARDS_PER_COLOUR:
                raise ValueError(
                    f"deals option: player_{player} needs a list of {CARDS_PER_COLOUR} card names "
                    f"(4 face-down, 4 face-up, 5 in hand), got {deal!r}"
                )
            cards[player] = card_types(f"deals option (player_{player})", deal, CARD_NAMES)
        colours = f"{n} colours, {named_counts(self.composition, CARD_NAMES)}"
        check_card_counts("deals", cards, self.composition, CARD_NAMES, colours)
        return cards

    # --- where to play from -----------------------------------------------------------------

    def play_source(self, state: MinusTwoState, player: int) -> int:
        """Where ``player`` must play from now: HAND, FACE_UP or FACE_DOWN."""
        return int(_kernel.play_source(state.row, self.num_players, player))

    # --- results --------------------------------------------------------------------------

    def winners(self, state: MinusTwoState) -> np.ndarray:
        self.check_state(state)
        if not state.terminal:
            return np.zeros(self.num_players, bool)
        return state.totals == state.totals.min()

    # --- a seat's view of the unseen cards (determinized search) ----------------------------

    def resample(
        self, state: MinusTwoState, player: int, rng: np.random.Generator
    ) -> MinusTwoState:
        """A new state that ``player`` cannot tell from ``state``: the cards they cannot see are
        dealt again at random, within what the table knows (see "Resampling" in the module
        docstring). ``state`` is not changed; the new state's generator is ``rng`` itself (the
        true one would foretell later rounds' deals)."""
        check_int("player", player, 0, self.num_players - 1)
        if state.terminal:
            raise ValueError("resample: the game is over; there is nothing left to resample")
        world = self.copy_state(state, rng=rng)
        for seat in range(self.num_players):
            if seat == player:
                self._shuffle_own_face_down(world, seat, rng)
            else:
                self._redeal_unseen(world, seat, rng)
        return self._without_views(world)

    def random_playouts(
        self,
        states: list[MinusTwoState],
        rng: np.random.Generator,
        first_actions: np.ndarray | None = None,
        policy: str = "attacker",
        seed_groups: int = 1,
        horizon: str = "game",
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each state played on by a rollout ``policy`` (:attr:`playout_policies`: mostly the
        attacker or high_cards heuristic, or uniformly random legal actions), after
        ``first_actions[i]`` where given and >= 0, without changing ``states``, to the end of
        the game (``horizon`` ``"game"``) or of its round (``"round"``: the totals as they stand
        after it). Returns the winners, as if the game ended there (the lowest total; bool,
        ``(len(states), n)``; none for a playout cut at ``max_cycles`` steps), and the totals.
        ``seed_groups`` consecutive states share their random numbers. The fast rollouts of
        search (:mod:`cardzoo.envs.minus_two.playout`)."""
        # Imported at first use: it loads numba, which users of the environment do not need.
        from cardzoo.envs.kernels import playouts_to_lowest_score
        from cardzoo.envs.minus_two import playout

        return playouts_to_lowest_score(
            self,
            playout,
            playout.final_totals,
            states,
            rng,
            first_actions,
            policy,
            seed_groups,
            horizon,
        )

    @staticmethod
    def _shuffle_own_face_down(world: MinusTwoState, seat: int, rng: np.random.Generator) -> None:
        """A seat knows which cards its face-down row holds (its colour less the nine it saw at
        the deal and those it turned), not in which order."""
        held = np.flatnonzero(world.face_down[seat] != NO_CARD)
        world.face_down[seat, held] = rng.permutation(np.sort(world.face_down[seat, held]))

    def _redeal_unseen(self, world: MinusTwoState, seat: int, rng: np.random.Generator) -> None:
        """Another seat's unseen cards (its face-down row and the hand cards from its deal that
        nobody has seen) are its own deal's cards less every one seen so far, a multiset the
        whole table knows; they are split again at random between hand and face-down row, the
        hand taking none of the types its moves ruled out."""
        held = np.flatnonzero(world.face_down[seat] != NO_CARD)
        hidden = world.hidden_hand[seat].copy()
        unseen = hidden + np.bincount(world.face_down[seat, held], minlength=NUM_TYPES)
        # The unseen cards in a random order (from their sorted list: no trace of where they
        # were); the hand takes the first ones it may hold, the face-down row the rest, shuffled
        # again (the cards the hand left over come late in the first order).
        cards = rng.permutation(np.repeat(self._types, unseen))
        to_hand = np.zeros(cards.size, bool)
        to_hand[np.flatnonzero(world.hand_excludes[seat, cards] == 0)[: hidden.sum()]] = True
        new_hidden = np.bincount(cards[to_hand], minlength=NUM_TYPES)
        world.cards[HAND, seat] += new_hidden - hidden
        world.hidden_hand[seat] = new_hidden
        world.face_down[seat, held] = rng.permutation(cards[~to_hand])

    # --- reading the table (tests, debugging, rendering) -----------------------------------

    def hand_cards(self, state: MinusTwoState, player: int) -> list[str]:
        return card_names(np.repeat(np.arange(NUM_TYPES), state.cards[HAND, player]))

    def face_up_cards(self, state: MinusTwoState, player: int) -> list[str]:
        return card_names(np.repeat(np.arange(NUM_TYPES), state.cards[FACE_UP, player]))

    def face_down_cards(self, state: MinusTwoState, player: int) -> list[str | None]:
        """The face-down row by position, None where the card is gone."""
        return [None if t == NO_CARD else CARD_NAMES[t] for t in state.face_down[player]]

    def pile_cards(self, state: MinusTwoState) -> list[str]:
        """The pile, first played first."""
        return card_names(state.pile[: state.pile_size])

    def render(self, state: MinusTwoState, player: int | None = None) -> str:
        self.check_state(state)
        player = None if player is None else self.check_player(player)
        n = self.num_players
        seen_from = "" if player is None else f", seen by player_{player}"
        lines = [
            f"Minus Two, round {state.round}, dealer player_{state.dealer}, "
            f"target {state.target}{seen_from}"
        ]
        limit = f", limit {state.limit}" if state.pile_size else ""
        pile = " ".join(self.pile_cards(state)) or "-"
        lines.append(f"  pile ({state.pile_size} cards{limit}): {pile}")
        if state.removed.any():
            removed = card_names(np.repeat(np.arange(NUM_TYPES), state.removed))
            lines.append(f"  removed by >>>: {' '.join(removed)}")
        for seat in range(n):
            lines.append(self._render_seat(state, seat, player))
        if state.round > 1 or state.terminal:
            points = " ".join(f"{p:+d}" for p in state.round_points)
            lines.append(f"  last round: player_{state.round_winner} went out; points {points}")
        if state.terminal:
            winner = int(np.flatnonzero(self.winners(state))[0])
            lines.append(f"  game over: player_{winner} wins with {state.totals[winner]} points")
        return "\n".join(lines)

    def _render_seat(self, state: MinusTwoState, seat: int, viewer: int | None) -> str:
        if viewer is None or viewer == seat:
            hand = " ".join(self.hand_cards(state, seat)) or "-"
        else:
            hand = f"{state.sizes[HAND, seat]} cards"
        face_down = [
            "." if name is None else ("#" if viewer is not None else f"[{name}]")
            for name in self.face_down_cards(state, seat)
        ]
        face_up = " ".join(self.face_up_cards(state, seat)) or "-"
        turn = "  <- to play" if not state.terminal and seat == state.current_player else ""
        return (
            f"  player_{seat} total {state.totals[seat]:4d} | hand: {hand} | face-up: {face_up}"
            f" | face-down: {' '.join(face_down)}{turn}"
        )

    # --- consistency (the test suite calls this after every step) --------------------------

    def check_invariants(self, state: MinusTwoState) -> None:
        self._check_ranges(state)
        face_down = state.face_down
        everywhere = (
            state.cards.sum(axis=(0, 1))
            + np.bincount(face_down[face_down != NO_CARD], minlength=NUM_TYPES)
            + state.pile_counts
            + state.removed
        )
        require(np.array_equal(everywhere, self.composition), f"cards {everywhere}")
        require(np.array_equal(state.sizes[:FACE_DOWN], state.cards.sum(axis=2)), "place sizes")
        require(np.array_equal(state.face_down_held, face_down != NO_CARD), "face-down held")
        require(
            np.array_equal(state.sizes[FACE_DOWN], (face_down != NO_CARD).sum(axis=1)),
            "face-down sizes",
        )
        require((state.sizes[FACE_UP] <= ROW).all(), f"more than {ROW} face-up cards")
        pile = state.pile[: state.pile_size]
        require(
            np.array_equal(state.pile_counts, np.bincount(pile, minlength=NUM_TYPES)),
            "pile counts disagree with the pile",
        )
        self._check_public_memory(state)
        if state.terminal:  # the winner's last cards lie on the pile, their effect not applied
            require(self.winners(state).sum() == 1, "a finished game has one winner")
            require(state.totals.max() >= state.target, "the game ended below the target")
            require(
                not state.sizes[:, state.round_winner].any(), "the last round's winner holds cards"
            )
            return
        require(state.limit == self._limit_of(pile), f"limit {state.limit} of pile {pile}")
        actor = state.current_player
        require(state.sizes[:, actor].any(), "the player to act holds no card")
        require(self.legal_mask(state, actor).any(), "the player to act has no legal action")

    def _check_public_memory(self, state: MinusTwoState) -> None:
        hidden = state.hidden_hand
        require(in_range(hidden, 0, HAND_DEAL), "hidden hand counts out of range")
        require((hidden <= state.cards[HAND]).all(), "more hidden hand cards than hand cards")
        require(hidden.sum(axis=1).max() <= HAND_DEAL, "more hidden hand cards than were dealt")
        require(not (state.hand_excludes & (hidden > 0)).any(), "a hidden card of an excluded type")

    def _check_ranges(self, state: MinusTwoState) -> None:
        """Every number within the range the rules allow, before anything is indexed by it.
        (Pile slots beyond the pile's size keep old, valid values.)"""
        n = self.num_players
        require(in_range(state.face_down, NO_CARD, NUM_TYPES - 1), "unknown face-down card")
        require(in_range(state.pile, 0, NUM_TYPES - 1), "unknown card on the pile")
        require(in_range(state.pile_size, 0, self.num_cards), "pile_size out of range")
        require(in_range(state.cards, 0, self.num_cards), "card counts out of range")
        require(in_range(state.face_down_held, 0, 1), "face_down_held is 0 or 1")
        require(in_range(state.sizes, 0, self.num_cards), "place sizes out of range")
        require(in_range(state.pile_counts, 0, self.num_cards), "pile counts out of range")
        require(in_range(state.removed, 0, self.num_cards), "removed counts out of range")
        require(in_range(state.limit, 0, 10), f"limit={state.limit} out of range")
        raised = state.target - self.target_score
        require(raised >= 0 and raised % self.target_raise == 0, f"target={state.target}")
        require(in_range(state.dealer, 0, n - 1), "the dealer is no player")
        require(state.round >= 1, f"round={state.round}")
        require(in_range(state.round_winner, -1, n - 1), "round_winner is no player")
        # A round winner (and round points) exactly once a round has ended.
        no_round_over = state.round == 1 and not state.terminal
        require((state.round_winner == -1) == no_round_over, "round_winner before a round ended")
        require(not (no_round_over and state.round_points.any()), "points before a round ended")
        # A round adds at most every card's points to a player, or takes the -2 bonus off.
        most = int(self.composition @ self._points_or_nothing[:NUM_TYPES])
        require(in_range(state.round_points, -MINUS_TWO_BONUS, most), "round points out of range")

    @staticmethod
    def _limit_of(pile: np.ndarray) -> int:
        """The limit a pile sets, recomputed card by card (0 when empty)."""
        limit = 0
        for card in pile:
            require(card != CLEAR, ">>> never stays on the pile")
            if card == MINUS_TWO:
                require(limit >= 1, "-2 played on an empty pile")
                limit -= 2
            else:
                limit = card + 1
        require(pile.size == 0 or limit >= 1, "a pile's limit is never below 1")
        return limit
