"""Nobody Wants It — the rules engine (``nobody_wants_it_v0``).

A farm-animal shedding game: empty your hand first, and do not be caught holding the "Nobody wants
it" (NWI) cards that pairs send around the table. The original is the Italian family card game
"Nessuno lo vuole", with cards of its own; it is not a traditional game under another name. Its
traditional ancestor is Old Maid (Italian "Uomo nero", German "Schwarzer Peter"): pairs are
discarded, and the card nobody wants must not be yours when the hand ends.

This docstring states the rules as implemented, completely; every point the original leaves open
is settled by a named, bold decision with its reason. User guide: ``docs/nobody_wants_it.md``.
The rules themselves are written once, in the game's kernel
(:mod:`cardzoo.envs.nobody_wants_it.kernel`): :class:`NobodyWantsIt` runs it on one game at a
time (:mod:`cardzoo.envs.packed`), the vector games and the search playouts on many.

Components
    72 animal cards, 18 of each species: ``sheep``, ``pig``, ``horse``, ``cow`` (species 0..3 in
    that order). 12 NWI cards, one per (species, round); the round-r NWI card is worth r points.
    Penalty cards worth 2 and 4 points. **Decision (penalty supply):** the supply of penalty cards
    is unlimited: the original has 15 in two piles without saying how many of each, and a game
    that ran out of them would need a rule the original does not have.

Players
    ``num_players`` 2..7 (default 4), agents ``player_0`` .. ``player_{n-1}``. Play goes left: the
    left neighbour of player i is player (i+1) mod n.

Setup of a round
    **Decision (first dealer):** the original's first dealer is the oldest player; seats have no
    age, so round 1's dealer is ``player_{n-1}`` and ``player_0`` starts. The dealer of rounds 2
    and 3 is the player who closed the previous round. All 72 animal cards are shuffled (with the
    game's generator) and dealt one at a time, starting with the dealer's left neighbour and going
    left, until everybody holds 9. The rest, in order, is the face-down draw pile: the first
    undealt card is its top card. The discard pile (face up) is empty. The four NWI cards of the
    round wait on their piles. The dealer's left neighbour plays first; turns go left.

    ``reset(options={"deck": [72 species names]})`` fixes the deal of round 1 in deal order: card k
    (k = 0, 1, ...) goes to the seat (dealer + 1 + k) mod n while k < 9n, and card 9n is the top of
    the draw pile. ``reset(options={"decks": [d1, d2, d3]})`` gives one deck per round and wins
    over ``"deck"``; the list may be shorter than ``num_rounds`` and may hold ``None``: such rounds
    are shuffled. A deck must hold each species exactly 18 times. Malformed decks and more decks
    than rounds raise ``ValueError``; other option keys follow the common rule of
    :mod:`cardzoo.envs.core` ("Reset options").

A turn: the active player does exactly one of
    1. **Play one card** onto the discard pile and resolve its species:
       ``sheep`` nothing; ``pig`` the left neighbour chooses (its own decision, actions 10/11): take
       the top card of the draw pile, or take that pig back from the discard pile; ``horse`` unless
       it was the player's last card, every player, beginning with the active player and going left,
       chooses one card of their hand (actions 12..15) and sets it aside face down; when all have
       chosen, each gives their card to their left neighbour at the same time (a horse played as the
       last card exchanges nothing); ``cow`` the active player draws the top card of the draw pile.
    2. **Play a pair** (two cards of one species) onto the discard pile: no species action. The NWI
       card of that species of the current round moves: still on its pile, it goes to the active
       player's left neighbour; held by a player H, H passes it to H's left neighbour (to the active
       player themself if H sits on their right).
    3. **Pass** and take the top card of the draw pile, or the top card of the discard pile (only
       when that pile is not empty).

Drawing
    **Decision (empty draw pile):** the original reshuffles the discard pile when the draw pile
    runs out, without saying when or what happens if both piles are empty; this keeps every draw
    defined. Whenever a card must be drawn and the draw pile is empty, the whole discard pile
    (after a pig, that pig included; after a cow, that cow included) is shuffled with the game's
    generator and becomes the draw pile; then the card is drawn. If both piles are empty nothing
    is drawn and the action is still legal.

End of a round
    The round ends at the end of the active player's turn (after the pig answer or horse exchange
    that the turn caused) if that player holds no animal card. It cannot end otherwise: other
    players never lose cards outside their own turn (a horse exchange gives back what it takes).
    Penalty cards, from the other players' hand sizes: if exactly one player has the most cards
    they take a 4 and each player with the second-highest count takes a 2; if several tie for the
    most, each of them takes a 2, nobody takes a 4 and the second-highest count takes nothing. The
    closer never takes a penalty card. NWI cards held stay with their holders and score their
    round's value; NWI cards of that round still on their piles leave the game. The closer deals
    the next round.

End of the game
    After ``num_rounds`` rounds (default 3, allowed 1..3) each player's score is the sum of their
    NWI cards' values and penalty cards. The lowest score wins; every player tied for lowest is a
    winner.

Points the original leaves open in its scoring and in the interface
    - **Decision (horse card set aside):** a card chosen for a horse exchange leaves its chooser's
      hand at once (it lies face down in front of them until the exchange): the ``hand`` and
      ``hand_sizes`` observation fields do not count it. Everybody gives exactly one card, so hand
      sizes reveal nothing about what was chosen, and a chooser cannot give the same card twice.
    - **Decision (scores of finished rounds):** ``scores(state)`` and the ``scores`` observation
      field are the points of finished rounds (penalty cards plus NWI cards kept); the current
      round's NWI cards count once the round ends, and until then are shown by
      ``nwi_position``. At the end of the game they are the final scores. An NWI card can still
      move until its round ends, so counting it earlier would count points nobody has yet.
    - **Decision (NWI points at round end):** in ``reward="points"`` the NWI cards of a round are
      "gained" at that round's end, together with the penalty cards, so the rewards of a whole
      game add up to minus the final score.
    - **Decision (everybody tied):** with ``reward="win"`` and every player tied, every player is
      a winner and gets +1, as the original's "all tied for lowest win" says literally.

Reinforcement-learning interface
    Actions ``Discrete(16)``:

    ======  =====================================  ============================================
    id      meaning                                legal when
    ======  =====================================  ============================================
    0..3    play one sheep / pig / horse / cow     own turn, holds >= 1 of that species
    4..7    play a pair of sheep / pig / horse /   own turn, holds >= 2 of that species
            cow
    8       pass, take the top of the draw pile    own turn
    9       pass, take the top of the discard pile own turn, discard pile not empty
    10      pig answer: take the top of the draw   left neighbour of the pig's player
            pile
    11      pig answer: take the pig back          left neighbour of the pig's player
    12..15  horse: give one sheep / pig / horse /  every player in turn during a horse exchange,
            cow                                    holds >= 1 of that species
    ======  =====================================  ============================================

    Observation (float32; players seat-relative: index 0 is the observer, then leftwards):

    ==================  =========  ====================================================
    field               size       meaning
    ==================  =========  ====================================================
    ``hand``            4          own cards per species (without a card set aside for a
                                   horse exchange)
    ``hand_sizes``      n          cards in each player's hand
    ``discard_top``     4          one-hot species of the discard pile's top card (all 0
                                   when the pile is empty)
    ``discard_counts``  4          cards per species in the (face-up) discard pile
    ``draw_size``       1          cards in the draw pile
    ``nwi_position``    4 x (n+1)  per species, one-hot: [on its pile, seat 0, seat 1,
                                   ...] — where the current round's NWI card is (after
                                   the last round, an unclaimed card shows "on its pile")
    ``scores``          n          each player's points from finished rounds
    ``round``           3          one-hot round number (1, 2, 3)
    ``decision``        3          one-hot decision being asked: turn, pig answer, horse
                                   gift
    ``active``          n          one-hot seat of the player whose turn it is
    ``to_act``          n          one-hot seat of the player who must decide now
    ==================  =========  ====================================================

    Rewards: ``reward="win"`` (default): at the end of the game +1 to every winner, -1 to every
    other player. ``reward="points"``: at each round end, every player receives minus the points
    (penalty card and NWI cards) they gained in that round.

Parameters: ``num_players`` (2..7, default 4), ``num_rounds`` (1..3, default 3), ``reward``
(``"win"`` or ``"points"``); the environment adds ``max_cycles`` (agent steps, pig answers and
horse gifts included; a truncated game gives every player 0) and ``render_mode``.
**Decision (default max_cycles):** 500 agent steps per player (:data:`MAX_CYCLES_PER_PLAYER`;
2,000 at 4 players). Play can cycle for ever, and a deterministic policy sometimes does (one of
10 games of PettingZoo's SB3 action-masking tutorial ran to the former default of 10,000 steps);
the longest of 2,000 random games took 537 to 997 steps at 2..7 players (heuristics: at most
220), so the default truncates none of them.
Version: ``nobody_wants_it_v0``.
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
    require,
)
from cardzoo.envs.kernels import plain_copy
from cardzoo.envs.nobody_wants_it.cards import (  # noqa: F401  (the deck, as agents read it here)
    CARDS_PER_SPECIES,
    COW,
    HORSE,
    NUM_CARDS,
    NUM_SPECIES,
    PIG,
    SHEEP,
    SPECIES,
)
from cardzoo.envs.packed import KernelGame, PackedState, Part, RowLayout, Scalar

#: the game's kernel as plain Python, read without loading numba: the rules' numbers, and the rules
#: themselves where a number is asked outside a game (:meth:`NobodyWantsIt.penalty_points`)
_kernel = plain_copy("cardzoo.envs.nobody_wants_it.kernel")
# The rules' numbers, as the agents and the tests read them here.
MAX_ROUNDS, HAND_SIZE = _kernel.MAX_ROUNDS, _kernel.HAND_SIZE
SMALL_PENALTY, BIG_PENALTY = _kernel.SMALL_PENALTY, _kernel.BIG_PENALTY
PLAY_ONE, PLAY_PAIR = _kernel.PLAY_ONE, _kernel.PLAY_PAIR
PASS_TAKE_DRAW, PASS_TAKE_DISCARD = _kernel.PASS_TAKE_DRAW, _kernel.PASS_TAKE_DISCARD
PIG_TAKE_DRAW, PIG_TAKE_PIG = _kernel.PIG_TAKE_DRAW, _kernel.PIG_TAKE_PIG
HORSE_GIVE, NUM_ACTIONS = _kernel.HORSE_GIVE, _kernel.NUM_ACTIONS
TURN, PIG_ANSWER, HORSE_GIFT = _kernel.TURN, _kernel.PIG_ANSWER, _kernel.HORSE_GIFT
ON_PILE, OUT_OF_GAME, NO_GIFT = _kernel.ON_PILE, _kernel.OUT_OF_GAME, _kernel.NO_GIFT
DECISION_NAMES = ("turn", "pig answer", "horse gift")
REWARD_MODES = ("win", "points")


class NobodyWantsItState(PackedState):
    """All of one game, as the kernel's row: the round, whose turn and decision it is, hands,
    piles, NWI cards, horse gifts set aside, penalty cards and points. Every field reads and
    writes the row (numbers as Python ints, arrays as numpy views)."""

    current_player = Scalar(_kernel.CURRENT)  # who decides now
    terminal = Scalar(_kernel.TERMINAL, bool)
    round_number = Scalar(_kernel.ROUND)  # 1-based
    dealer = Scalar(_kernel.DEALER)
    active_player = Scalar(_kernel.ACTIVE)  # whose turn it is
    decision = Scalar(_kernel.DECISION)  # TURN, PIG_ANSWER or HORSE_GIFT
    hands = Part()  # (n, 4) cards per species
    hand_sizes = Part()  # (n,) always hands.sum(axis=1)
    # Piles are stacks, bottom card first: the top card is at index size - 1.
    draw_pile = Part(np.int8)  # (72,) species
    draw_size = Scalar(_kernel.DRAW_SIZE)
    discard_pile = Part(np.int8)  # (72,) species
    discard_size = Scalar(_kernel.DISCARD_SIZE)
    discard_counts = Part()  # (4,) always the species counts of the discard pile
    nwi_holder = Part(np.int8)  # (num_rounds, 4): holder seat, ON_PILE or OUT_OF_GAME
    horse_gifts = Part(np.int8)  # (n,) species set aside for a horse exchange, or NO_GIFT
    penalty_cards = Part()  # (n, 2): how many 2-point and 4-point cards taken
    points = Part()  # (n,) points of finished rounds
    fixed_decks = Part(np.int8)  # (num_rounds, 72) decks from reset options; -1 = shuffle


#: the default ``max_cycles`` per player (see the module docstring: Decision (default max_cycles))
MAX_CYCLES_PER_PLAYER = 500


class NobodyWantsIt(KernelGame):
    """Nobody Wants It, a shedding game with farm animals: shed your hand, and pairs pass the
    penalty cards to the left; the lowest score after the last round wins
    (``docs/nobody_wants_it.md``).

    Args:
        num_players: 2..7 (default 4).
        num_rounds: 1..3 (default 3).
        reward: ``"win"`` (default: +1 to every player with the lowest final score, -1 to the
            others) or ``"points"`` (at every round's end, minus the points gained in it).

    A bad value raises ``ValueError`` naming the parameter. The environments add ``max_cycles``
    (default 500 agent steps per player) and ``render_mode``.
    """

    name = "nobody_wants_it"
    description = "farm animals: shed your hand, pairs pass the penalty cards to the left"
    state_class = NobodyWantsItState
    min_players = 2
    max_players = 7
    num_actions = NUM_ACTIONS
    reset_options = ("deck", "decks")
    #: rollout policies of :meth:`random_playouts`, the search agents' default first
    playout_policies = ("dodger", "shedder", "random")
    #: how far :meth:`random_playouts` plays: the game, or the current round
    playout_horizons = ("game", "round")
    has_points_reward = True
    kernel_module = "cardzoo.envs.nobody_wants_it.kernel"

    def __init__(self, num_players: int = 4, num_rounds: int = 3, reward: str = "win"):
        self.num_players = check_int("num_players", num_players, self.min_players, self.max_players)
        self.default_max_cycles = MAX_CYCLES_PER_PLAYER * self.num_players
        self.num_rounds = check_int("num_rounds", num_rounds, 1, MAX_ROUNDS)
        check_choice("reward", reward, REWARD_MODES)
        self.reward = reward
        n = self.num_players
        self.observation_layout = layout_from_sizes(_kernel.observation_sizes(n))
        parts = _kernel.parts(n, self.num_rounds)
        size = _kernel.row_size(n, self.num_rounds, 0)  # the plain copy: numba stays unloaded
        self._set_up_kernel(RowLayout(parts, size))
        self._species_ids = np.arange(NUM_SPECIES, dtype=np.int8)
        self._others = [[other for other in range(n) if other != seat] for seat in range(n)]

    def params(self) -> dict:
        return {
            "num_players": self.num_players,
            "num_rounds": self.num_rounds,
            "reward": self.reward,
        }

    def kernel_parameters(self) -> tuple[int, ...]:
        return (self.num_players, self.num_rounds, int(self.reward == "points"))

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        layout = self.observation_layout
        low = np.zeros(self.observation_size, np.float32)
        high = np.ones(self.observation_size, np.float32)
        high[layout["hand"]] = CARDS_PER_SPECIES
        high[layout["hand_sizes"]] = NUM_CARDS
        high[layout["discard_counts"]] = CARDS_PER_SPECIES
        high[layout["draw_size"]] = NUM_CARDS
        # Per round: all four NWI cards (r points each) and a 4-point penalty card.
        rounds = np.arange(1, self.num_rounds + 1)
        high[layout["scores"]] = (NUM_SPECIES * rounds + BIG_PENALTY).sum()
        return low, high

    def reward_bound(self) -> float:
        """``reward="points"``: the most penalty points a whole game can give a player (every
        round's NWI cards and a 4-point penalty card), so no reward, nor any sum of them,
        exceeds it."""
        if self.reward == "win":
            return 1.0
        rounds = np.arange(1, self.num_rounds + 1)
        return float((NUM_SPECIES * rounds + BIG_PENALTY).sum())

    def action_name(self, action: int) -> str:
        if PLAY_ONE <= action < PLAY_PAIR:
            return f"play {SPECIES[action - PLAY_ONE]}"
        if PLAY_PAIR <= action < PASS_TAKE_DRAW:
            return f"play pair of {SPECIES[action - PLAY_PAIR]}"
        if HORSE_GIVE <= action < NUM_ACTIONS:
            return f"horse: give {SPECIES[action - HORSE_GIVE]}"
        named = {
            PASS_TAKE_DRAW: "pass, take top of draw pile",
            PASS_TAKE_DISCARD: "pass, take top of discard pile",
            PIG_TAKE_DRAW: "pig answer: take top of draw pile",
            PIG_TAKE_PIG: "pig answer: take the pig",
        }
        return named.get(action, f"invalid action {action}")

    # --- new game and deals -----------------------------------------------------------------

    def new_state(
        self, rng: np.random.Generator | int | None, options: dict | None = None
    ) -> NobodyWantsItState:
        rng = game_generator(rng)
        state = self._new_packed_state(rng, {"fixed_decks": self._parse_options(options)})
        assert isinstance(state, NobodyWantsItState)
        return state

    def _parse_options(self, options: dict | None) -> np.ndarray:
        """The decks fixed by ``reset`` options, one row per round (-1 rows: shuffle)."""
        fixed = np.full((self.num_rounds, NUM_CARDS), -1, np.int8)
        options = known_options(self, options)
        if "deck" in options:  # checked even where decks wins over it: no bad value is ignored
            fixed[0] = self._parse_deck(options["deck"], "deck")
        if "decks" in options:
            fixed[0] = -1
            decks = options["decks"]
            if not isinstance(decks, (list, tuple)) or len(decks) > self.num_rounds:
                raise ValueError(
                    f"decks option must be a list of at most num_rounds={self.num_rounds} decks "
                    f"(None for a shuffled round), got {decks!r:.80}"
                )
            for index, deck in enumerate(decks):
                if deck is not None:
                    fixed[index] = self._parse_deck(deck, f"decks[{index}]")
        return fixed

    def _parse_deck(self, names, option: str) -> np.ndarray:
        deck = card_types(f"{option} option", names, SPECIES, "species name").astype(np.int8)
        expected = np.full(NUM_SPECIES, CARDS_PER_SPECIES)
        description = f"{NUM_CARDS} cards, {CARDS_PER_SPECIES} of each species"
        check_card_counts(option, deck, expected, SPECIES, description)
        return deck

    # --- round and game end -----------------------------------------------------------------

    def penalty_points(self, hand_sizes: np.ndarray, closer: int) -> np.ndarray:
        """Penalty card (0, 2 or 4 points) of each player when ``closer`` ends the round."""
        sizes = np.asarray(hand_sizes).tolist()
        penalty, n = _kernel.penalty, self.num_players
        return np.array([penalty(sizes, 0, n, closer, player) for player in range(n)], np.int64)

    def winners(self, state: NobodyWantsItState) -> np.ndarray:
        self.check_state(state)
        if not state.terminal:
            return np.zeros(self.num_players, bool)
        return state.points == state.points.min()

    # --- sampled worlds for search -------------------------------------------------------------

    def resample(
        self, state: NobodyWantsItState, player: int, rng: np.random.Generator
    ) -> NobodyWantsItState:
        """A world ``player`` cannot tell from ``state`` (see :meth:`Game.resample`).

        ``player`` knows: their own hand and the card they set aside for a horse exchange; the
        discard pile, card by card (it is face up); every hand size, who has set a card aside,
        the draw pile's size; where the NWI cards are; scores, round, dealer, whose turn and
        which decision. Everything else is redrawn: the animal cards ``player`` has not seen
        (each species' 18 minus their own and the discard pile's) are shuffled with ``rng`` and
        dealt into the other hands (their sizes kept), the other players' set-aside horse
        gifts, and the draw pile, in a new order. **Decision:** a round's deck fixed by reset
        options is forgotten (later rounds are shuffled): nobody at the table knows it.
        **Decision:** cards a player could place by remembering the play (a discard-pile card
        another player took, a pig taken back, the horse gift they handed on) are redrawn like
        every unseen card: the state holds no record of who took what, and the search agents
        do not remember either."""
        player = check_int("player", player, 0, self.num_players - 1)
        if state.terminal:
            raise ValueError("resample: the game is over; there is nothing left to resample")
        world = self.copy_state(state, rng=rng)
        world.fixed_decks[:] = -1
        gifts = state.horse_gifts
        seen = state.hands[player] + state.discard_counts
        if gifts[player] != NO_GIFT:
            seen[gifts[player]] += 1
        unseen = self._species_ids.repeat(CARDS_PER_SPECIES - seen)
        rng.shuffle(unseen)
        # Deal the unseen cards: each other hand (and gift), then the draw pile the rest.
        dealt = 0
        for other in self._others[player]:
            size = int(state.hand_sizes[other])
            world.hands[other] = np.bincount(unseen[dealt : dealt + size], minlength=NUM_SPECIES)
            dealt += size
            if gifts[other] != NO_GIFT:
                world.horse_gifts[other] = unseen[dealt]
                dealt += 1
        world.draw_pile[: unseen.size - dealt] = unseen[dealt:]
        return self._without_views(world)

    def random_playouts(
        self,
        states: list[NobodyWantsItState],
        rng: np.random.Generator,
        first_actions: np.ndarray | None = None,
        policy: str = "random",
        seed_groups: int = 1,
        horizon: str = "game",
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each state played on by a rollout ``policy`` (:attr:`playout_policies`: uniformly
        random legal actions, or mostly the hand_shedder heuristic), after ``first_actions[i]``
        where given and >= 0, without changing ``states``, to the end of the game (``horizon``
        ``"game"``) or of its round (``"round"``). Returns the winners, as if the game ended
        there (bool, ``(len(states), n)``; none for a playout cut at ``max_cycles`` steps), and
        the scores. ``seed_groups`` consecutive states share their random numbers. The fast
        rollouts of search (:mod:`cardzoo.envs.nobody_wants_it.playout`)."""
        # Imported at first use: it loads numba, which users of the environment do not need.
        from cardzoo.envs.kernels import playouts_to_lowest_score
        from cardzoo.envs.nobody_wants_it import playout

        return playouts_to_lowest_score(
            self,
            playout,
            playout.final_points,
            states,
            rng,
            first_actions,
            policy,
            seed_groups,
            horizon,
        )

    # --- what a player sees -----------------------------------------------------------------

    def render(self, state: NobodyWantsItState, player: int | None = None) -> str:
        self.check_state(state)
        player = None if player is None else self.check_player(player)
        n = self.num_players
        if state.terminal:
            winners = ", ".join(f"player_{p}" for p in np.flatnonzero(self.winners(state)))
            status = f"game over; winner(s): {winners}"
        else:
            status = f"player_{state.active_player}'s turn"
            if state.decision != TURN:
                status += f", {DECISION_NAMES[state.decision]} by player_{state.current_player}"
        view = "" if player is None else f", seen by player_{player}"
        lines = [
            f"Nobody Wants It, round {state.round_number} of {self.num_rounds}, "
            f"dealer player_{state.dealer}{view}: {status}",
            f"  {'seat':<10} {'cards':>5}  {'hand':<34} {'points':>6}  penalty cards",
        ]
        for seat in range(n):
            lines.append(self._render_seat(state, seat, player))
        top = SPECIES[state.discard_pile[state.discard_size - 1]] if state.discard_size else "-"
        discard = ", ".join(f"{s} {c}" for s, c in zip(SPECIES, state.discard_counts.tolist()))
        lines.append("  (* whose turn, > must decide now; points of finished rounds)")
        lines.append(f"  draw pile: {state.draw_size} cards")
        lines.append(f"  discard pile: {state.discard_size} cards, top {top} ({discard})")
        for round_index in range(state.round_number):
            places = [
                f"{species} {self._nwi_place(holder)}"
                for species, holder in zip(SPECIES, state.nwi_holder[round_index].tolist())
            ]
            lines.append(f"  NWI cards of round {round_index + 1}: {', '.join(places)}")
        return "\n".join(lines)

    def _render_seat(self, state: NobodyWantsItState, seat: int, viewer: int | None) -> str:
        marks = ""
        if not state.terminal:
            marks = "*" if seat == state.active_player else ""
            marks += ">" if seat == state.current_player and state.decision != TURN else ""
        if viewer is None or viewer == seat:
            hand = " ".join(f"{s} {c}" for s, c in zip(SPECIES, state.hands[seat].tolist()))
            gift = state.horse_gifts[seat]
            if gift != NO_GIFT:
                hand += f" (gives {SPECIES[gift]})"
        else:
            hand = "hidden" + (" (chose a gift)" if state.horse_gifts[seat] != NO_GIFT else "")
        twos, fours = state.penalty_cards[seat].tolist()
        name = f"player_{seat}{marks}"
        return (
            f"  {name:<10} {state.hand_sizes[seat]:>5}  {hand:<34} {state.points[seat]:>6}  "
            f"{twos} x 2, {fours} x 4"
        )

    @staticmethod
    def _nwi_place(holder: int) -> str:
        if holder == ON_PILE:
            return "on its pile"
        if holder == OUT_OF_GAME:
            return "out of the game"
        return f"held by player_{holder}"

    # --- consistency ------------------------------------------------------------------------

    def check_invariants(self, state: NobodyWantsItState) -> None:
        self._check_ranges(state)
        n = self.num_players
        hands, gifts = state.hands, state.horse_gifts
        require(np.array_equal(state.hand_sizes, hands.sum(axis=1)), "hand_sizes out of date")
        draw = state.draw_pile[: state.draw_size]
        discard = state.discard_pile[: state.discard_size]
        require(
            np.array_equal(state.discard_counts, np.bincount(discard, minlength=NUM_SPECIES)),
            "discard_counts out of date",
        )
        total = hands.sum(axis=0) + state.discard_counts + np.bincount(draw, minlength=NUM_SPECIES)
        total += np.bincount(gifts[gifts != NO_GIFT], minlength=NUM_SPECIES)
        require((total == CARDS_PER_SPECIES).all(), f"animal cards per species {total.tolist()}")
        self._check_nwi_and_points(state)
        if state.terminal:
            require(state.round_number == self.num_rounds, "the game ends after the last round")
            require(self.winners(state).any(), "a finished game has winners")
            return
        active, actor = state.active_player, state.current_player
        others = np.arange(n) != active
        require(
            (state.hand_sizes[others] + (gifts[others] != NO_GIFT) > 0).all(),
            "only the active player can run out of cards during a round",
        )
        if state.decision == TURN:
            require(actor == active, "on a turn the active player decides")
            require(state.hand_sizes[actor] > 0, "the active player has no card")
            require((gifts == NO_GIFT).all(), "horse gifts outside a horse exchange")
        elif state.decision == PIG_ANSWER:
            require(discard.size > 0, "a pig answer without a pig on the discard pile")
            require(actor == (active + 1) % n, "the pig is answered by the left neighbour")
            require(discard[-1] == PIG, "a pig answer without a pig on the discard pile")
        else:
            chosen = (np.arange(n) - active) % n < (actor - active) % n
            require(np.array_equal(gifts != NO_GIFT, chosen), "horse gifts out of turn")
            require(discard.size > 0, "a horse exchange without a horse on the discard pile")
            require(discard[-1] == HORSE, "a horse exchange without a horse on the discard pile")
            require(state.hand_sizes[actor] > 0, "a horse gift from an empty hand")
        require(self.legal_mask(state, actor).any(), f"player_{actor} has no legal action")

    def _check_ranges(self, state: NobodyWantsItState) -> None:
        """Every number within the range the rules allow, before anything is indexed by it.
        (Pile slots beyond a pile's size keep old, valid values.)"""
        n = self.num_players
        require(in_range(state.round_number, 1, self.num_rounds), "round_number out of range")
        require(in_range(state.dealer, 0, n - 1), "the dealer is no player")
        require(in_range(state.active_player, 0, n - 1), "active_player is no player")
        require(in_range(state.decision, 0, len(DECISION_NAMES) - 1), "unknown decision")
        require(in_range(state.hands, 0, CARDS_PER_SPECIES), "hand counts out of range")
        require(in_range(state.draw_size, 0, NUM_CARDS), "draw_size out of range")
        require(in_range(state.discard_size, 0, NUM_CARDS), "discard_size out of range")
        require(in_range(state.draw_pile, 0, NUM_SPECIES - 1), "unknown species in the draw pile")
        require(in_range(state.discard_pile, 0, NUM_SPECIES - 1), "unknown discarded species")
        require(in_range(state.discard_counts, 0, CARDS_PER_SPECIES), "discard counts")
        require(in_range(state.horse_gifts, NO_GIFT, NUM_SPECIES - 1), "unknown horse gift")
        require(in_range(state.penalty_cards, 0, self.num_rounds), "penalty cards out of range")
        for deck in state.fixed_decks:
            # A round's fixed deck is all -1 (shuffle) or a whole deck.
            shuffled = bool((deck == -1).all())
            whole = (
                in_range(deck, 0, NUM_SPECIES - 1)
                and (np.bincount(deck, minlength=NUM_SPECIES) == CARDS_PER_SPECIES).all()
            )
            require(shuffled or whole, "a fixed deck is neither -1 nor a whole deck")

    def _check_nwi_and_points(self, state: NobodyWantsItState) -> None:
        current = state.round_number - 1
        finished = state.round_number - 1 + int(state.terminal)
        holders = state.nwi_holder
        require(in_range(holders, OUT_OF_GAME, self.num_players - 1), "unknown NWI card holder")
        require((holders[:finished] != ON_PILE).all(), "finished rounds' NWI cards are settled")
        require((holders[current + 1 :] == ON_PILE).all(), "later rounds' NWI cards wait")
        if not state.terminal:
            require((holders[current] != OUT_OF_GAME).all(), "this round's NWI cards are in play")
        expected = state.penalty_cards @ np.array([SMALL_PENALTY, BIG_PENALTY])
        for round_index in range(finished):
            kept = holders[round_index][holders[round_index] >= 0]
            expected += np.bincount(kept, minlength=self.num_players) * (round_index + 1)
        require(np.array_equal(state.points, expected), "points differ from the cards held")
        require(
            state.penalty_cards.sum() <= finished * (self.num_players - 1),
            "more penalty cards than finished rounds gave",
        )
