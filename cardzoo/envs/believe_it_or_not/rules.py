"""Believe It or Not — the rules engine (``believe_it_or_not_v1``).

An animal bluffing game. Players put cards face down and claim they are all one animal; the next
player believes (and adds cards under the same claim) or doubts and turns one card over. Whoever
is wrong takes the whole table. It is the traditional game Cheat (also called I Doubt It; in
Russian «Верю — не верю», "I believe, I don't believe"), in an animal edition from a Russian rules
sheet: animals instead of ranks, sets of four leave the game, and one elephant that can never be
got rid of as a set.

This docstring states the rules as implemented, completely; every point the original leaves open
is settled by a named, bold decision with its reason. User guide: ``docs/believe_it_or_not.md``.
The rules themselves are written once, in the game's kernel
(:mod:`cardzoo.envs.believe_it_or_not.kernel`): :class:`BelieveItOrNot` runs it on one game at a
time (:mod:`cardzoo.envs.packed`), the vector games and the search playouts on many.

Cards (types 0..10)
    ``cat dog cow pig sheep horse rabbit duck`` (species 0..7, 4 copies each), ``elephant`` (8, one
    copy), ``peek`` (9, two copies), ``skip`` (10, two copies): 37 cards by default. The elephant
    and the specials can never be declared and never form a set.

    - **Decision (deck list):** the original names animal cards, "special" cards and
      "particular" cards but lists none of them; this deck has enough species for 2 to 6 players
      and one elephant, the card the standard game's loser is left with.
    - **Decision (special cards):** the original says only that a special card is played on
      one's turn, before deciding, while the table holds cards, at most one per turn, and is then
      discarded; what they do is this implementation's: ``peek`` and ``skip`` (below), two of
      each.
    - **Decision (smaller decks):** ``num_species`` (4..8, default 8) keeps the first species of
      the list (with their type numbers); ``special_cards=False`` removes peek and skip: shorter,
      simpler games for studies and curricula, with the same action and observation layout.

Deal
    ``num_players`` 2..6 (default 4). The shuffled deck is dealt one card at a time from
    ``player_0`` on (card i goes to ``player_{i mod n}``), so the first seats may get one card
    more. ``reset(options={"deck": [names...]})`` gives the deck in deal order (every card of the
    game exactly once); it is the only reset option (other keys follow the common rule of
    :mod:`cardzoo.envs.core`, "Reset options"). Then every set of four of one species in a hand
    is discarded face up, out of the game.

    - **Decision (first leader):** the original lets the players choose who starts "in any
      convenient way"; ``player_0`` leads first.
    - **Decision (void deal):** a deal after which some player holds no card is void: the cards
      are shuffled and dealt again, since that player would be out before the game starts.
    - **Decision (deal without animals):** so is a deal that leaves no animal card at all (every
      species discarded at once), a game that would end before its first move (see "no animals
      left").

    An explicit ``deck`` that makes a void deal is a ``ValueError``.

The table
    A face-down stack of placements, each the 1..5 cards one player put down in one go, kept with
    its owner, under one declared species. "Card k" of a placement is the k-th card added while
    building it (0-based). Play goes left: after player i comes i+1 (mod n), skipping players out.

A turn
    - Lead (table empty): declare a species (any of the ``num_species``, even one already
      discarded), then build a placement of 1..5 cards of any kinds (truth or bluff; the elephant
      and specials may be placed). The next player responds.
    - Respond (the last placement belongs to the previous player P):

      1. optionally play one special card (at most one per turn; played specials leave the game
         face up): ``peek`` — look privately at one card of P's last placement, chosen by
         position; ``skip`` — the next player responds to the same placement instead (not allowed
         when that next player would be P);
      2. then, unless skip was played, *believe*: build a placement of 1..5 cards under the same
         declaration (needs a card in hand; not allowed when P has no card left in hand — then
         only doubt is allowed, though a special may still be played first); or *doubt*: turn one
         card of P's last placement, chosen by position. The declared species: the doubter takes
         the whole table into hand. Anything else: P takes it.

      After the table is taken, sets of four in the taker's hand are discarded, and the next player
      after the taker (skipping players out) leads.

Going out
    A player with no card in hand is out when a turn ends (a placement finished, a skip, or the
    table taken), unless they own the last placement of a live table (it can still be doubted and
    bring cards back). A player whose last card was a ``peek`` stays in until the doubt they are
    then forced into is settled; a player whose last card was a ``skip`` goes out at once.
    **Decision (out with cards on the table):** a player can thus go out while older placements
    of theirs are still on the table (their last card was a skip); those cards go to whoever
    takes the table, never back: the original ends a player's game when their hand is empty,
    and nothing brings a player who is out back in.

End and rewards
    - ``variant="quick"``: the first player(s) out win (two at once when a doubter's last cards go
      out as sets while the table's owner had none left): +1 each, −1 every other player.
    - ``variant="standard"`` (default): players out are safe. When only one player still has cards
      the game ends: that player (who holds the elephant) gets −1, every other player +1.
    - **Decision (no animals left):** when every species has been discarded as sets, nothing can be
      declared truthfully any more; the game ends at once. Standard: the player holding the
      elephant (in hand or in a placement of theirs) loses: −1, everybody else +1. Quick: the
      players still in with the fewest cards (hand plus own placements) win: +1, everybody else −1.
    - ``max_cycles`` (environment parameter, every card added counted) truncates the game: every
      player gets 0. **Decision (default max_cycles):** 500 agent steps per player
      (:data:`MAX_CYCLES_PER_PLAYER`; 2,000 at 4 players). Play can cycle for ever (a table
      passed round and round), and a deterministic policy often does: the longest of 2,000
      random games (random play makes the longest games) took 561, 889, 1,477, 1,688 and 1,657
      steps at 2..6 players, so the default truncates almost no game that would end, while a
      cycling one stops five times sooner than at 10,000 steps (what PettingZoo's SB3
      action-masking tutorial needs to finish its evaluation).
    - Rewards come only at the step that ends the game. ``scores``: the cards each player holds
      (hand, cards being placed and own placements on the table; fewer is better).

Actions ``Discrete(34)`` — a turn is a sequence of small decisions by the same agent:

    ======  =======================================  ============================================
    id      meaning                                  legal when
    ======  =======================================  ============================================
    0..10   add one card of type t to the placement  building, holds one more t, fewer than 5
                                                     chosen
    11      finish the placement                     building, 1..5 chosen
    12..19  declare species s                        leading, before building (s < num_species)
    20      believe (then build)                     responding, P has cards, you have cards
    21      doubt (then choose the card to turn)     responding
    22..26  turn card k of P's last placement        after doubt, k < that placement's size
    27      play ``peek`` (then choose the card)     responding, before deciding, holds a peek,
                                                     no special played yet this turn
    28      play ``skip``                            responding, before deciding, holds a skip,
                                                     no special played yet this turn, the next
                                                     player is not P
    29..33  peek at card k of P's last placement     after peek, k < that placement's size
    ======  =======================================  ============================================

    Cards chosen while building leave the hand at once (every player sees the hand shrink as the
    cards go down); the placement joins the table when finished.

Observation (float32; seat-relative: the n-sized fields list the observer first, then leftwards)

    =======================  ====  ==========================================================
    field                    size  meaning
    =======================  ====  ==========================================================
    ``hand``                 11    own hand by card type
    ``hand_sizes``           n     cards in each player's hand
    ``is_out``               n     1 if that player is out
    ``cards_on_table``       n     cards each player has on the table
    ``out_of_game``          11    cards out of the game by type: 4 for a species discarded
                                   as a set, the peek and skip cards played
    ``to_act``               n     one-hot: the player asked to decide now
    ``decision``             5     one-hot: the decision asked at the table — lead (declare),
                                   build, respond, choose the card to turn, choose the card
                                   to peek at
    ``special_played``       1     the responder already played a special this turn
    ``building``             11    own cards chosen so far in the placement being built
    ``declared``             8     one-hot declared species (all 0 when none is declared)
    ``table_size``           1     cards on the table
    ``last_size``            1     size of the last placement
    ``last_owner``           n     one-hot owner of the last placement (P)
    ``owner_has_no_cards``   1     P has no card left in hand (only doubt is allowed)
    ``own_table_cards``      11    the observer's own cards on the table, by type
    ``peeked_position``      5     one-hot: the card of P's last placement the observer peeked
    ``peeked_card``          11    one-hot: what that card is
    ``revealed_card``        11    one-hot: the card turned by the latest doubt
    ``revealed_true``        1     it was the declared species (the doubter took the table)
    ``revealed_taker``       n     one-hot: who took the table after the latest doubt
    =======================  ====  ==========================================================

    **Decision (public doubt outcome):** the outcome of the latest doubt (the card turned face up,
    whether it was the declared species, who took the table) and each player's number of cards on
    the table are public at the table, so they are observed too. A peek is observed only by the
    peeker, and only while the peeked placement is the last one (the peeker must then believe or
    doubt at once). At the end of the game ``to_act`` and ``decision`` are all 0.

    **Decision (declaration seen while the lead is built):** the species declared at a lead is in
    every seat's ``declared`` from the declaration on, while the leader builds the placement and
    the table is still empty: it is spoken aloud, and the leader above all knows it
    (``believe_it_or_not_v0`` showed none until the placement was on the table).

Resampling (what a seat knows, for determinized search)
    ``BelieveItOrNot.resample(state, player, rng)`` deals again every card ``player`` cannot see
    — the other hands, the other players' face-down cards on the table and the cards another
    player is placing — and returns a new state that gives the seat the same observation, legal
    actions and memory of the game. The seat keeps its hand, its own placements card by card,
    the cards it is placing and the card it is peeking at; every count, claim and doubt outcome
    is public and kept. The cards are drawn uniformly at random among the deals the seat cannot
    rule out: nobody holds four of a species in hand and own placements together (they would
    have gone out as a set), and the cards the seat saw go to the latest doubt's taker are still
    the taker's.

    - **Decision (memory of the taken table):** the state records, for each player, the cards
      they saw go to the taker at the latest doubt (their own cards on the table, the card
      turned, the card they peeked at) that must still be the taker's (``taken_known``): no
      table has been taken since, so they are in the taker's hand or placements; specials are
      left out (the taker may have played them since, unseen among the specials played) and so
      are species gone as a set. Cards seen going to earlier takers are not followed (they may
      have moved on with later tables), and in a resampled state the other players remember only
      the card turned (what else they saw is theirs alone).
    - **Decision (peeks remembered while live):** a peek is remembered by the resampler exactly
      as long as the observation shows it: while the peeked placement is the last one, and as
      one of the cards seen going to the taker if the peeker then doubts. After the peeker
      believes, the peeked card is redrawn like any other unseen card.

Fast playouts (search rollouts)
    ``BelieveItOrNot.random_playouts(states, rng, ...)`` plays many states to the end at once by a
    cheap policy (``playout_policies``: ``bluffer``, mostly the bluffer heuristic, the default;
    ``random``), through the game's kernel, a batch of states a call
    (:mod:`cardzoo.envs.believe_it_or_not.playout`; numba when installed, else the same code as
    plain Python with identical results). The search agents roll out through it.

    - **Decision (the rollouts' bluffer is the agent's):** the ``bluffer`` rollout policy is the
      bluffer agent's own kernel function, each seat deciding from its own observation (one
      move in ten at random), not a second bluffer written against the packed row.
    - **Decision (a placement begun outside the bluffer is planned when built):** a seat that
      builds a placement its bluffer did not plan (the rollout starts in it, or the search's
      first action or a random move declared or believed) plans it when it first builds, as
      the agent plans at a declaration: every true card it still holds and up to two spares,
      the cards already placed aside.

Vector form
    The same kernel plays many games in one call (``kernel_module``; :mod:`cardzoo.vector`:
    ``VectorEnv``, ``MultiAgentVectorEnv``, ``SB3VecEnv``), dealing from numpy's own generator
    reproduced bit for bit: game i of a batch seeded ``s`` is the game ``reset(seed=s + i)``
    deals, with the same observations, masks, rewards and ends for the same actions. It deals
    from seeds only (the ``deck`` option is for the single environments).

Parameters: ``num_players`` (2..6, default 4), ``variant`` (``"standard"``, ``"quick"``),
``num_species`` (4..8, default 8), ``special_cards`` (default True); the environment adds
``max_cycles`` (default 500 per player) and ``render_mode``. Version: ``believe_it_or_not_v1``.
"""

from __future__ import annotations

import numpy as np

from cardzoo.envs.helpers import (
    card_types,
    check_bool,
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
from cardzoo.envs.packed import KernelGame, PackedState, Part, RowLayout, Scalar

#: the game's kernel as plain Python, read without loading numba: the rules' numbers, and the
#: rules themselves where they are asked outside a step (the checks of a state's invariants)
_kernel = plain_copy("cardzoo.envs.believe_it_or_not.kernel")

SPECIES = ("cat", "dog", "cow", "pig", "sheep", "horse", "rabbit", "duck")
CARD_NAMES = (*SPECIES, "elephant", "peek", "skip")
MAX_SPECIES = len(SPECIES)
ELEPHANT, PEEK, SKIP = _kernel.ELEPHANT, _kernel.PEEK, _kernel.SKIP
NUM_TYPES = len(CARD_NAMES)
SET_SIZE = _kernel.SET_SIZE  # copies of each species; four in one hand are discarded
MAX_PLACEMENT = _kernel.MAX_PLACEMENT
VARIANTS = ("standard", "quick")
NO_ONE = _kernel.NO_ONE

# Action ids (the table in the module docstring).
ADD_CARD = _kernel.ADD_CARD  # 0..10: add a card of type t
FINISH = _kernel.FINISH
DECLARE = _kernel.DECLARE  # 12..19: declare species s
BELIEVE, DOUBT = _kernel.BELIEVE, _kernel.DOUBT
TURN_CARD = _kernel.TURN_CARD  # 22..26: turn card k
PLAY_PEEK, PLAY_SKIP = _kernel.PLAY_PEEK, _kernel.PLAY_SKIP
PEEK_AT = _kernel.PEEK_AT  # 29..33: peek at card k
NUM_ACTIONS = _kernel.NUM_ACTIONS

# The decision asked at the table.
LEAD, BUILD, RESPOND = _kernel.LEAD, _kernel.BUILD, _kernel.RESPOND
CHOOSE_TURN, CHOOSE_PEEK = _kernel.CHOOSE_TURN, _kernel.CHOOSE_PEEK
DECISION_NAMES = ("lead", "build", "respond", "choose card to turn", "choose card to peek")

# Rows of ``seat_counts``: the public numbers of each seat.
HAND_SIZE, IS_OUT, ON_TABLE = range(3)


class BelieveItOrNotState(PackedState):
    """All of one game, as the kernel's row: hands, the placement being built, the table's
    placements, who is out, the latest peek and doubt, the winners and what each player saw go
    to the latest taker. Every field reads and writes the row (numbers as Python ints, arrays as
    numpy views); snapshots hold the arrays as int8 (the winners as bool)."""

    current_player = Scalar(_kernel.CURRENT)
    terminal = Scalar(_kernel.TERMINAL, bool)
    hands = Part(np.int8)  # (n, 11) cards in hand by type
    seat_counts = Part(np.int8)  # (3, n) rows HAND_SIZE, IS_OUT (0/1), ON_TABLE
    decision = Scalar(_kernel.DECISION)
    special_played = Scalar(_kernel.SPECIAL_PLAYED, bool)  # the responder played one this turn
    building = Part(np.int8)  # (5,) the placement being built, in the order added
    building_size = Scalar(_kernel.BUILDING_SIZE)
    declared = Scalar(_kernel.DECLARED)  # the declared species while the table is live
    table_cards = Part(np.int8)  # (deck size,) the table's cards in the order placed
    table_size = Scalar(_kernel.TABLE_SIZE)
    placement_owners = Part(np.int8)  # (deck size,) oldest placement first
    placement_sizes = Part(np.int8)  # (deck size,)
    num_placements = Scalar(_kernel.NUM_PLACEMENTS)
    table_counts = Part(np.int8)  # (n, 11) cards on the table by owner and type
    out_of_game = Part(np.int8)  # (11,) discarded sets and played specials by type
    peek_player = Scalar(_kernel.PEEK_PLAYER)  # who peeked at the last placement (NO_ONE: nobody)
    peek_position = Scalar(_kernel.PEEK_POSITION)
    revealed_card = Scalar(_kernel.REVEALED_CARD)  # the card turned by the latest doubt
    revealed_true = Scalar(_kernel.REVEALED_TRUE, bool)  # it was the declared species
    revealed_taker = Scalar(_kernel.REVEALED_TAKER)  # who took the table then
    winner_mask = Part(bool)  # (n,) set when the game ends
    # (n, 11): the cards each player saw go to revealed_taker with the table at the latest doubt
    # and knows are still the taker's (see "Decision (memory of the taken table)")
    taken_known = Part(np.int8)


#: the default ``max_cycles`` per player (see "End and rewards": Decision (default max_cycles))
MAX_CYCLES_PER_PLAYER = 500


class BelieveItOrNot(KernelGame):
    """Believe It or Not, an animal bluffing game: claim what you put face down, and the next
    player believes or doubts (``docs/believe_it_or_not.md``).

    Args:
        num_players: 2..6 (default 4).
        variant: ``"standard"`` (default: play goes on until one player still has cards, and
            that player loses) or ``"quick"`` (the first player out of cards wins).
        num_species: 4..8 (default 8): the game keeps the first ``num_species`` species of the
            list, with their type numbers.
        special_cards: ``True`` (default) or ``False``, which removes the ``peek`` and ``skip``
            cards.

    A bad value raises ``ValueError`` naming the parameter. The environments add ``max_cycles``
    (default 500 agent steps per player) and ``render_mode``.
    """

    name = "believe_it_or_not"
    #: v1: the declared species is seen while the lead's placement is built (v0: only once on
    #: the table)
    version = 1
    description = "animal bluffing: claim, believe or doubt; the last with cards loses"
    state_class = BelieveItOrNotState
    min_players = 2
    max_players = 6
    num_actions = NUM_ACTIONS
    reset_options = ("deck",)
    #: rollout policies of :meth:`random_playouts`, the search agents' default first
    playout_policies = ("bluffer", "random")
    #: how far :meth:`random_playouts` plays: to the end of the game
    playout_horizons = ("game",)
    kernel_module = "cardzoo.envs.believe_it_or_not.kernel"

    def __init__(
        self,
        num_players: int = 4,
        variant: str = "standard",
        num_species: int = 8,
        special_cards: bool = True,
    ):
        self.num_players = check_int("num_players", num_players, self.min_players, self.max_players)
        self.default_max_cycles = MAX_CYCLES_PER_PLAYER * self.num_players
        check_choice("variant", variant, VARIANTS)
        self.variant = variant
        self.num_species = check_int("num_species", num_species, 4, MAX_SPECIES)
        self.special_cards = check_bool("special_cards", special_cards)
        self.composition = np.zeros(NUM_TYPES, np.int64)  # copies of each type in the game
        self.composition[: self.num_species] = SET_SIZE
        self.composition[ELEPHANT] = 1
        if self.special_cards:
            self.composition[PEEK] = self.composition[SKIP] = 2
        self.num_cards = int(self.composition.sum())
        n = self.num_players
        self.observation_layout = layout_from_sizes(_kernel.observation_sizes(n))
        parts = _kernel.parts(n, self.num_cards)
        size = _kernel.row_size(n, self.num_cards, self.num_species, 0)  # numba stays unloaded
        self._set_up_kernel(RowLayout(parts, size))

    def params(self) -> dict:
        return {
            "num_players": self.num_players,
            "variant": self.variant,
            "num_species": self.num_species,
            "special_cards": self.special_cards,
        }

    def kernel_parameters(self) -> tuple[int, ...]:
        return (self.num_players, self.num_cards, self.num_species, int(self.variant == "quick"))

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.zeros(self.observation_size, np.float32)
        high = np.ones(self.observation_size, np.float32)
        layout = self.observation_layout
        # A hand never keeps 4 of a species (sets leave at once), and hand plus own cards on the
        # table stay below 4 too: a hand only grows by taking the whole table.
        most_held = np.minimum(self.composition, SET_SIZE - 1)
        for field in ("hand", "building", "own_table_cards"):
            high[layout[field]] = most_held
        for field in ("hand_sizes", "cards_on_table", "table_size"):
            high[layout[field]] = self.num_cards
        high[layout["out_of_game"]] = self.composition  # the elephant never leaves: always 0
        high[layout["last_size"]] = MAX_PLACEMENT
        # Entries that are always 0 (types not in this deck) keep a high of 1: gymnasium warns
        # about zero-width bounds.
        return low, np.maximum(high, 1)

    def action_name(self, action: int) -> str:
        if ADD_CARD <= action < FINISH:
            return f"add {CARD_NAMES[action - ADD_CARD]}"
        if DECLARE <= action < BELIEVE:
            return f"declare {SPECIES[action - DECLARE]}"
        if TURN_CARD <= action < PLAY_PEEK:
            return f"turn card {action - TURN_CARD}"
        if PEEK_AT <= action < NUM_ACTIONS:
            return f"peek at card {action - PEEK_AT}"
        names = {
            FINISH: "finish placement",
            BELIEVE: "believe",
            DOUBT: "doubt",
            PLAY_PEEK: "play peek",
            PLAY_SKIP: "play skip",
        }
        return names.get(action, f"invalid action {action}")

    # --- deal -----------------------------------------------------------------------------

    def new_state(
        self, rng: np.random.Generator | int | None, options: dict | None = None
    ) -> BelieveItOrNotState:
        rng = game_generator(rng)
        deck = self._parse_options(options)
        if deck is None:
            state = self._new_packed_state(rng, {})
        else:
            state = self.state_class(self.row_layout, self.engine.new_row(), rng)
            state._write("table_cards", deck)  # the kernel deals the deck from the table's slots
            if not self.engine.change(state, self.engine.kernel.deal_deck, self._parameters):
                raise ValueError(
                    "deck option makes a void deal: after the sets of four are discarded some "
                    "player has no card, or no animal card is left"
                )
        assert isinstance(state, BelieveItOrNotState)
        return state

    def _parse_options(self, options: dict | None) -> np.ndarray | None:
        options = known_options(self, options)
        if "deck" not in options:
            return None
        deck = card_types("deck option", options["deck"], CARD_NAMES).astype(np.int8)
        check_card_counts("deck", deck, self.composition, CARD_NAMES)
        return deck

    # --- results --------------------------------------------------------------------------

    def winners(self, state: BelieveItOrNotState) -> np.ndarray:
        self.check_state(state)
        return state.winner_mask.astype(bool)

    def _winners_if_over(self, state: BelieveItOrNotState) -> np.ndarray | None:
        """The winners the rules give if the game is over in ``state`` (None if not), asked of
        the kernel on a copy of the row."""
        row = _row_copy(state)
        if not _kernel.set_winners_if_over(row, *self._parameters):
            return None
        start, _ = self.row_layout.parts["winner_mask"]
        return np.array(row[start : start + self.num_players], bool)

    def _no_animals_left(self, state: BelieveItOrNotState) -> bool:
        return bool(_kernel.no_animals_left(_row_copy(state), self.num_species))

    # --- a seat's view of the unseen cards (determinized search) ----------------------------

    def resample(
        self, state: BelieveItOrNotState, player: int, rng: np.random.Generator
    ) -> BelieveItOrNotState:
        """A new state that ``player`` cannot tell from ``state``: the cards they cannot see (the
        other hands, the other players' cards on the table and being placed) are dealt again
        at random among those places, within what the seat knows (see "Resampling" in the
        module docstring). ``state`` is not changed; the new state's generator is ``rng``
        itself."""
        check_int("player", player, 0, self.num_players - 1)
        if state.terminal:
            raise ValueError("resample: the game is over; there is nothing left to resample")
        world = self.copy_state(state, rng=rng)
        slots = _UnseenSlots(self, state, player)
        world_cards = slots.deal(rng)
        slots.write(world, world_cards)
        return self._without_views(world)

    def random_playouts(
        self,
        states: list[BelieveItOrNotState],
        rng: np.random.Generator,
        first_actions: np.ndarray | None = None,
        policy: str = "bluffer",
        seed_groups: int = 1,
        horizon: str = "game",
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each state played on by a rollout ``policy`` (:attr:`playout_policies`: mostly the
        bluffer heuristic, or uniformly random legal actions), after ``first_actions[i]`` where
        given and >= 0, without changing ``states``, to the end of the game. Returns the
        winners (bool, ``(len(states), n)``; none for a playout cut at ``default_max_cycles``
        steps) and the scores. ``seed_groups`` consecutive states share their random numbers.
        The fast rollouts of search (:mod:`cardzoo.envs.believe_it_or_not.playout`)."""
        # Imported at first use: it loads numba, which users of the environment do not need.
        from cardzoo.envs.believe_it_or_not import playout

        check_choice("horizon", horizon, self.playout_horizons)
        rows = playout.playouts(
            self,
            playout.pack(self, states),
            rng,
            first_actions,
            policy=policy,
            seed_groups=seed_groups,
        )
        return playout.winners(self, rows), playout.scores(self, rows)

    # --- reading a state (tests, rendering, debugging) -------------------------------------

    def hand_sizes(self, state: BelieveItOrNotState) -> list[int]:
        return state.seat_counts[HAND_SIZE].tolist()

    def players_out(self, state: BelieveItOrNotState) -> list[int]:
        return np.flatnonzero(state.seat_counts[IS_OUT]).tolist()

    def hand_cards(self, state: BelieveItOrNotState, player: int) -> list[str]:
        """The names of ``player``'s hand, sorted by type."""
        return [CARD_NAMES[t] for t in range(NUM_TYPES) for _ in range(state.hands[player, t])]

    def placements(self, state: BelieveItOrNotState) -> list[tuple[int, list[str]]]:
        """The table's placements, oldest first: ``(owner, card names in the order added)``."""
        result, start = [], 0
        for index in range(state.num_placements):
            size = int(state.placement_sizes[index])
            cards = [CARD_NAMES[c] for c in state.table_cards[start : start + size]]
            result.append((int(state.placement_owners[index]), cards))
            start += size
        return result

    def discarded_species(self, state: BelieveItOrNotState) -> list[str]:
        return [SPECIES[s] for s in np.flatnonzero(state.out_of_game[:MAX_SPECIES] == SET_SIZE)]

    def render(self, state: BelieveItOrNotState, player: int | None = None) -> str:
        self.check_state(state)
        player = None if player is None else self.check_player(player)
        seen_from = "" if player is None else f", seen by player_{player}"
        lines = [
            f"Believe It or Not ({self.variant}, {self.num_players} players, "
            f"{self.num_species} species{seen_from})"
        ]
        lines.extend(self._render_seat(state, seat, player) for seat in range(self.num_players))
        lines.extend(self._render_table(state, player))
        lines.append(f"  discarded sets: {', '.join(self.discarded_species(state)) or 'none'}")
        if self.special_cards:
            lines.append(
                f"  specials played: {state.out_of_game[PEEK]} peek, {state.out_of_game[SKIP]} skip"
            )
        if state.revealed_card != NO_ONE:
            verdict = "true" if state.revealed_true else "a bluff"
            lines.append(
                f"  last doubt: turned {CARD_NAMES[state.revealed_card]} ({verdict}); "
                f"player_{state.revealed_taker} took the table"
            )
        if state.terminal:
            winners = ", ".join(f"player_{p}" for p in np.flatnonzero(state.winner_mask))
            lines.append(f"  game over; winners: {winners}")
        return "\n".join(lines)

    def _render_seat(self, state: BelieveItOrNotState, seat: int, viewer: int | None) -> str:
        line = f"  player_{seat}: {state.seat_counts[HAND_SIZE, seat]:2d} cards"
        if viewer in (None, seat):
            line += f" [{' '.join(self.hand_cards(state, seat))}]"
        if state.seat_counts[IS_OUT, seat]:
            line += " (out)"
        elif not state.terminal and seat == state.current_player:
            line += f" <- to {DECISION_NAMES[state.decision]}"
            if state.building_size:
                chosen = state.building[: state.building_size]
                if viewer in (None, seat):
                    shown = " ".join(CARD_NAMES[c] for c in chosen)
                else:
                    shown = f"{len(chosen)} cards"
                line += f" (placing: {shown})"
        return line

    def _render_table(self, state: BelieveItOrNotState, viewer: int | None) -> list[str]:
        if not state.table_size:
            return ["  table: empty"]
        lines = [f"  table: {state.table_size} cards, declared {SPECIES[state.declared]}"]
        placements = self.placements(state)
        for index, (owner, cards) in enumerate(placements):
            shown = list(cards) if viewer in (None, owner) else ["?"] * len(cards)
            is_last = index == len(placements) - 1
            if is_last and viewer is not None and state.peek_player == viewer:
                shown[state.peek_position] = f"{cards[state.peek_position]} (peeked)"
            lines.append(f"    player_{owner}: {' '.join(shown)}")
        return lines

    # --- consistency (the test suite checks it at every step) -------------------------------

    def check_invariants(self, state: BelieveItOrNotState) -> None:
        self._check_ranges(state)
        self._check_table(state)
        self._check_every_card_once(state)
        self._check_taken_known(state)
        hands, seat_counts = state.hands, state.seat_counts
        require(np.array_equal(seat_counts[HAND_SIZE], hands.sum(axis=1)), "hand sizes")
        # A hand never keeps 4 of a species; hand plus own cards on the table, and the cards the
        # player to act is placing, stay below 4 too.
        species = slice(0, self.num_species)
        held = hands[:, species].astype(np.int64) + state.table_counts[:, species]
        building = np.bincount(state.building[: state.building_size], minlength=NUM_TYPES)
        held[state.current_player] += building[species]
        require((held < SET_SIZE).all(), "four of a species kept")
        is_out = seat_counts[IS_OUT] == 1
        require(not seat_counts[HAND_SIZE, is_out].any(), "a player out holds cards")
        # (A player out may still own older placements: a skip can be their last card.)
        if state.terminal:
            require(state.winner_mask.any(), "a finished game has a winner")
            winners = self._winners_if_over(state)
            require(
                winners is not None and np.array_equal(winners, state.winner_mask),
                "the winners are not the ones the rules give",
            )
        else:
            self._check_turn(state)

    def _check_ranges(self, state: BelieveItOrNotState) -> None:
        """Every number within the range the rules allow, before anything is indexed by it.
        (Slots of the fixed-size arrays beyond their used part keep old, valid values.)"""
        n, cards = self.num_players, self.num_cards
        require(in_range(state.hands, 0, SET_SIZE), "hand counts out of range")
        require(in_range(state.table_counts, 0, SET_SIZE), "table counts out of range")
        require(in_range(state.out_of_game, 0, SET_SIZE), "out-of-game counts out of range")
        require(in_range(state.seat_counts, 0, cards), "seat counts out of range")
        require(in_range(state.seat_counts[IS_OUT], 0, 1), "is_out is 0 or 1")
        require(in_range(state.decision, 0, len(DECISION_NAMES) - 1), "unknown decision")
        require(in_range(state.building_size, 0, MAX_PLACEMENT), "building_size out of range")
        require(in_range(state.building, 0, NUM_TYPES - 1), "unknown card being placed")
        require(in_range(state.declared, NO_ONE, self.num_species - 1), "unknown declared species")
        require(in_range(state.table_size, 0, cards), "table_size out of range")
        require(in_range(state.num_placements, 0, cards), "num_placements out of range")
        require(in_range(state.table_cards, 0, NUM_TYPES - 1), "unknown card on the table")
        require(in_range(state.placement_owners, 0, n - 1), "a placement owner is no player")
        require(in_range(state.placement_sizes, 0, MAX_PLACEMENT), "placement size out of range")
        require(in_range(state.peek_player, NO_ONE, n - 1), "peek_player is no player")
        require(in_range(state.peek_position, NO_ONE, MAX_PLACEMENT - 1), "bad peek_position")
        require(
            (state.peek_player == NO_ONE) == (state.peek_position == NO_ONE),
            "a peek has both a player and a position",
        )
        require(in_range(state.revealed_card, NO_ONE, NUM_TYPES - 1), "unknown revealed card")
        require(in_range(state.revealed_taker, NO_ONE, n - 1), "revealed_taker is no player")
        require(
            (state.revealed_card == NO_ONE) == (state.revealed_taker == NO_ONE),
            "a doubt reveals both a card and who took the table",
        )
        if state.revealed_true:
            require(0 <= state.revealed_card < self.num_species, "a true claim reveals its species")

    def _check_table(self, state: BelieveItOrNotState) -> None:
        placed = np.zeros((self.num_players, NUM_TYPES), np.int64)
        start = 0
        for index in range(state.num_placements):
            owner, size = state.placement_owners[index], state.placement_sizes[index]
            require(1 <= size <= MAX_PLACEMENT, f"placement of {size} cards")
            np.add.at(placed[owner], state.table_cards[start : start + size], 1)
            start += size
        require(start == state.table_size, "placement sizes do not add up to the table")
        require(np.array_equal(placed, state.table_counts), "table counts disagree with the table")
        require(np.array_equal(state.seat_counts[ON_TABLE], placed.sum(axis=1)), "cards on table")
        if state.peek_player != NO_ONE:
            last_size = state.placement_sizes[state.num_placements - 1] if state.table_size else 0
            require(state.peek_position < last_size, "a peek at a card of no placement")

    def _check_every_card_once(self, state: BelieveItOrNotState) -> None:
        held = state.hands.sum(axis=0) + state.table_counts.sum(axis=0) + state.out_of_game
        held = held + np.bincount(state.building[: state.building_size], minlength=NUM_TYPES)
        require(np.array_equal(held, self.composition), f"cards {held} != {self.composition}")
        require(np.isin(state.out_of_game[:MAX_SPECIES], (0, SET_SIZE)).all(), "partial set")

    def _check_taken_known(self, state: BelieveItOrNotState) -> None:
        known, taker = state.taken_known, state.revealed_taker
        require(in_range(known, 0, SET_SIZE), "taken_known counts out of range")
        if taker == NO_ONE:
            require(not known.any(), "cards seen going to a taker before any doubt")
            return
        require(not known[taker].any() and not known[:, PEEK:].any(), "taken_known keeps too much")
        # Since the latest doubt the taker's cards can only have gone onto the table (no table
        # was taken since) or out as specials, which taken_known does not keep.
        theirs = state.hands[taker] + state.table_counts[taker]
        if state.current_player == taker:
            theirs = theirs + np.bincount(
                state.building[: state.building_size], minlength=NUM_TYPES
            )
        require((known <= theirs).all(), "cards seen going to the taker are no longer theirs")

    def _check_turn(self, state: BelieveItOrNotState) -> None:
        actor, decision = state.current_player, state.decision
        is_out = state.seat_counts[IS_OUT] == 1
        require(not is_out[actor], "the player to act is out")
        require(not state.winner_mask.any(), "winners before the end")
        if self.variant == "quick":
            require(not is_out.any(), "a quick game goes on after a player went out")
        else:
            require((~is_out).sum() >= 2, "a standard game goes on with one player in")
        require(not self._no_animals_left(state), "the game goes on without animals")
        if decision == LEAD:
            require(state.table_size == 0 and state.declared == NO_ONE, "a lead on a live table")
        else:
            require(0 <= state.declared < self.num_species, "no declared species")
        if decision in (RESPOND, CHOOSE_TURN, CHOOSE_PEEK):
            require(state.table_size > 0, "responding to an empty table")
            owner = state.placement_owners[state.num_placements - 1]
            require(owner != actor, "responding to one's own placement")
        if decision != BUILD:
            require(state.building_size == 0, "cards chosen outside building")
        require(not (state.special_played and decision == LEAD), "a special played before a lead")
        owner = state.placement_owners[state.num_placements - 1] if state.table_size else NO_ONE
        for player in np.flatnonzero(~is_out):
            # Cards being placed and a peek just played leave the hand before the turn ends.
            mid_turn = player == actor and (state.building_size or state.special_played)
            if player != owner and not mid_turn:
                require(state.seat_counts[HAND_SIZE, player] > 0, f"player_{player} in, no cards")
        require(self.legal_mask(state, actor).any(), "the player to act has no legal action")


def _row_copy(state: BelieveItOrNotState) -> list[int]:
    """The state's row as a new list (the plain kernel's questions must not change the state)."""
    row = state.row
    return row.tolist() if isinstance(row, np.ndarray) else list(row)


#: Rejected deals before :meth:`BelieveItOrNot.resample` gives up: far more than any position
#: of the test games needs (see tests/test_resample_believe_it_or_not.py).
MAX_RESAMPLE_TRIES = 100_000


class _UnseenSlots:
    """The places a seat cannot see, one slot per card, listed from public facts only (so that
    the deal does not depend on where the cards really are), with what the seat knows about
    them."""

    def __init__(self, game: BelieveItOrNot, state: BelieveItOrNotState, seat: int):
        self.game, self.seat = game, seat
        n = game.num_players
        others = [q for q in range(n) if q != seat]
        self.hand_owners = np.repeat(others, state.seat_counts[HAND_SIZE, others])
        owner_at = np.repeat(
            state.placement_owners[: state.num_placements],
            state.placement_sizes[: state.num_placements],
        )
        unseen = owner_at != seat
        known = self._known_on_table(state)  # (position, card) the seat peeked at, or None
        if known is not None:
            unseen[known[0]] = False
        self.table_positions = np.flatnonzero(unseen)
        builder = state.current_player
        self.building_size = state.building_size if builder != seat else 0
        owners = [self.hand_owners, owner_at[unseen], np.full(self.building_size, builder)]
        self.owners = np.concatenate(owners).astype(np.int64)
        self.unseen = self._unseen_counts(state, known)
        require(self.unseen.sum() == self.owners.size, "unseen cards and places disagree")
        self.fixed = np.zeros((n, NUM_TYPES), np.int64)  # seen cards counted in a seat's cap
        if known is not None:
            self.fixed[owner_at[known[0]], known[1]] += 1
        self.taker_slots, self.taker_counts = self._cards_known_with_the_taker(state, known)

    def _known_on_table(self, state: BelieveItOrNotState) -> tuple[int, int] | None:
        if state.peek_player != self.seat or not state.table_size:
            return None
        last_size = state.placement_sizes[state.num_placements - 1]
        position = state.table_size - last_size + state.peek_position
        return int(position), int(state.table_cards[position])

    def _unseen_counts(self, state: BelieveItOrNotState, known: tuple | None) -> np.ndarray:
        seat = self.seat
        seen = state.out_of_game + state.hands[seat] + state.table_counts[seat]
        if state.current_player == seat:
            seen = seen + np.bincount(state.building[: state.building_size], minlength=NUM_TYPES)
        if known is not None:
            seen[known[1]] += 1
        return self.game.composition - seen

    def _cards_known_with_the_taker(
        self, state: BelieveItOrNotState, known: tuple | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The slots of the latest doubt's taker and the cards the seat saw go to them, which
        are in those slots (less one the seat now sees on the table: it may be one of them)."""
        taker = state.revealed_taker
        if taker in (NO_ONE, self.seat):
            return np.zeros(0, np.int64), np.zeros(NUM_TYPES, np.int64)
        counts = state.taken_known[self.seat].astype(np.int64)
        if known is not None and counts[known[1]]:
            counts[known[1]] -= 1
        return np.flatnonzero(self.owners == taker), counts

    def deal(self, rng: np.random.Generator) -> np.ndarray:
        """The unseen cards dealt to the slots uniformly at random among the deals that keep
        every known card with the taker and give no seat four of a species (its hand and own
        table together; rejection sampling)."""
        types = np.arange(NUM_TYPES)
        with_taker = np.repeat(types, self.taker_counts)
        rest = np.repeat(types, self.unseen - self.taker_counts)
        n, species = self.game.num_players, self.game.num_species
        dealt = np.empty(self.owners.size, np.int64)
        free = np.ones(self.owners.size, bool)
        for _ in range(MAX_RESAMPLE_TRIES):
            if with_taker.size:  # into slots of the taker's chosen at random
                free[:] = True
                chosen = rng.permutation(self.taker_slots)[: with_taker.size]
                dealt[chosen] = with_taker
                free[chosen] = False
            dealt[free] = rng.permutation(rest)
            held = np.bincount(self.owners * NUM_TYPES + dealt, minlength=n * NUM_TYPES)
            held = held.reshape(n, NUM_TYPES) + self.fixed
            if (held[:, :species] < SET_SIZE).all():
                return dealt
        raise RuntimeError(
            f"resample: no deal of the unseen cards found in {MAX_RESAMPLE_TRIES} tries"
        )

    def write(self, world: BelieveItOrNotState, dealt: np.ndarray) -> None:
        """Put the dealt cards into their places and recount the table."""
        n = self.game.num_players
        in_hands = self.hand_owners.size
        others = [q for q in range(n) if q != self.seat]
        hands = np.bincount(
            self.hand_owners * NUM_TYPES + dealt[:in_hands], minlength=n * NUM_TYPES
        ).reshape(n, NUM_TYPES)
        world.hands[others] = hands[others]
        on_table = in_hands + self.table_positions.size
        world.table_cards[self.table_positions] = dealt[in_hands:on_table]
        world.building[: self.building_size] = dealt[on_table:]
        owner_at = np.repeat(
            world.placement_owners[: world.num_placements],
            world.placement_sizes[: world.num_placements],
        ).astype(np.int64)
        table = np.bincount(
            owner_at * NUM_TYPES + world.table_cards[: world.table_size],
            minlength=n * NUM_TYPES,
        )
        world.table_counts[:] = table.reshape(n, NUM_TYPES)
        self._forget_what_others_saw(world)

    def _forget_what_others_saw(self, world: BelieveItOrNotState) -> None:
        """What the others saw go to the taker is theirs alone: in the new state they remember
        only the card everybody saw turned (which is still the taker's unless it was a special
        or went out in a set)."""
        taker, card = world.revealed_taker, world.revealed_card
        if taker == NO_ONE:
            return
        others = np.ones(self.game.num_players, bool)
        others[[self.seat, taker]] = False
        world.taken_known[others] = 0
        discarded = card < self.game.num_species and world.out_of_game[card] == SET_SIZE
        if card < PEEK and not discarded:
            world.taken_known[others, card] = 1
