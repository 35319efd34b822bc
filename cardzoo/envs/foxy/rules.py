"""Foxy — the rules engine (``foxy_v0``).

A memory game for 1 to 5 players: cards with animals are turned one by one and, after each, every
player secretly writes how many animals of the species on that card have appeared so far. Nobody
may look back. It is not a traditional game: it is the published memory card game "Foxy" by David
Spada (2022; German edition by Game Factory), implemented from its German rules.

This docstring states the rules as implemented, completely; every point the original leaves open
is settled by a named, bold decision with its reason. User guide: ``docs/foxy.md``.

Species and cards
    Nine species, indexed 0..8: ``rooster``, ``pig`` (farm), ``hare``, ``bear`` (forest),
    ``zebra``, ``giraffe`` (savanna), ``octopus``, ``dolphin`` (ocean), ``cat`` (any landscape).
    48 animal cards, 12 per landscape, with its two species A and B: A ×2, B ×2, A+B ×2, A+cat ×2,
    B+cat ×2, A+B+cat ×1, cat ×1. Plus one Foxy card.

    **Decision (deck list):** the original says only that the 48 cards show landscapes with their
    animals, sometimes several species at once, and the cat in every landscape; it lists no
    cards. This list has 12 cards per landscape and every combination of its two species with
    and without the cat.

    **Decision (cat-only cards):** a card is identified by the species it shows; the four
    cat-only cards (one per landscape) are the same card for every purpose of the game (no
    answer depends on the landscape), so there are 25 kinds of animal card (24 landscape kinds +
    the lone cat, 4 copies) and the Foxy card.

Setup
    19 animal cards drawn at random, plus Foxy, shuffled: a stack of 20 cards, all from the game's
    generator. ``reset(options={"stack": [...]})`` fixes the stack, first card first: 20 entries,
    each a list of species names (any order) or ``"foxy"``. **Decision (stack option):** the
    stack must be one the real deck can deal: exactly one ``"foxy"``, 19 animal cards that exist
    in the deck (a landscape's species and/or the cat), no kind more often than the deck has it;
    otherwise ``ValueError``. Any other stack would ask for answers no real game can have. Other
    option keys follow the common rule of :mod:`cardzoo.envs.core` ("Reset options").

Phase 1: remember
    The cards are turned one by one. After each card every player writes a whole number; the true
    answer is:

    - an animal card: the number of animals of the species shown on it that have appeared so far,
      this card included, summed over those species (pig+cat after 3 pigs and 2 cats → 5);
    - the Foxy card: the number of different species that have appeared so far, the cat included
      (0 if Foxy comes first). Foxy shows no animal and counts for no species.

    Once per game a player may circle the number they have just written (all or nothing): it must
    be decided at once, with the number.

Phase 2: check and score
    A number not circled scores itself if it is ≤ the true answer, else 0. A circled number scores
    twice itself if it equals the true answer, else 0. The highest total wins. **Decision (ties):**
    the original does not settle ties; everybody tied for highest wins (so if all tie, all win),
    since nothing in the game tells them apart.

Solo (``num_players=1``)
    No circling. The player wins if their total is less than 5 points below the best possible score:
    ``total > best − 5``. The best possible score is the sum of the true answers. **Decision (best
    possible below max_guess):** with a ``max_guess`` below some true answer that answer cannot be
    written, so "best possible" counts it as ``max_guess``, the best the player can write (with
    the default 40 this never happens: the largest true answer the deck allows is 27, e.g.
    rooster+pig+cat as the 20th card after all 12 farm cards and 7 other cats).

Order of play (reinforcement-learning interface)
    All players write at the same time. The engine asks them one after another, in seat order
    (``player_0`` first) for every card; a player's observation never shows what the others wrote
    (only their own sheet), so the order reveals nothing. Each card takes ``num_players`` decisions;
    the game ends after the last player writes on the 20th card. ``legal_mask`` is all zero for
    a player who is not to act; :meth:`Foxy.choice_mask` gives any player's choices on the current
    card, which ``parallel_env()`` uses to ask all players at once before stepping their actions
    through this engine in seat order.

Actions: ``Discrete(2 * (G + 1))``, G = ``max_guess`` (default 40)
    ====================  =====================================================
    action a              meaning
    ====================  =====================================================
    0 .. G                write the number a
    G+1 .. 2G+1           write the number a − (G+1) and circle it
    ====================  =====================================================

    Writing is always legal. Circling is legal only while the player's circle is unused, and never
    in solo. **Decision (circling a 0):** circling a 0 is legal (it scores 0 either way): the
    original forbids no number, and the mask stays simple.

Observation (float32, the observer's own view; nothing about other players)
    ==================  ====  ================================================================
    field               size  meaning
    ==================  ====  ================================================================
    ``card``            10    the card just turned: 1 for each species shown (indices as
                              above), index 9 = 1 for the Foxy card
    ``cards_turned``    1     cards turned so far, 1..20 (the current card's number)
    ``sheet``           20    the numbers the observer wrote, by card (0 where not written)
    ``written``         20    1 where the observer has written a number
    ``circled``         20    1 at the card whose number the observer circled
    ``species_counts``  9     only with ``memory="perfect"``: animals of each species
                              appeared so far, the current card included
    ==================  ====  ================================================================

    With ``memory="none"`` (default) the observation holds nothing about earlier cards: remembering
    them is the game. The own sheet is in it (a player may read their own sheet). **Decision
    (nothing revealed at the end):** the observation never reveals other players' numbers or the
    true answers, not even at the end: the rewards and :meth:`Foxy.render` tell the outcome, and
    every field keeps one meaning from the first card to the last.

Rewards (only when the game ends: a reward earlier would tell whether a guess was too high)
    ``reward="win"`` (default): +1 for each winner, −1 for every other player (solo: +1 win, −1
    loss). ``reward="points"``: each player's total score. :meth:`Foxy.scores` counts the numbers
    written so far against the true answers (it is not observable during the game).

Parameters
    ``num_players`` 1..5 (default 2); ``memory`` ``"none"`` | ``"perfect"``; ``reward`` ``"win"`` |
    ``"points"``; ``max_guess`` 1..1000 (default 40; **Decision (max_guess limit):** the upper
    limit keeps the action space sane; no true answer exceeds 27). The environments add
    ``render_mode`` and ``max_cycles``, counted in cards in both the AEC and the parallel form
    (default 20, the whole stack, so a game always ends first); the engine's
    ``default_max_cycles`` (100 = 20 cards x 5 players) counts decisions, for the single-seat
    Gymnasium view. Both environment forms also take ``illegal_action``: ``"terminate"``
    (default, PettingZoo's classic convention: an illegal action ends the game, -1 for the
    offender), ``"raise"`` (``ValueError``) or ``"drop_circle"``. **Decision (drop_circle):** with
    ``"drop_circle"`` a circle the player may not make (a second one, any in solo) is dropped and
    the number written plain, so every action in range is played: PettingZoo's
    ``max_cycles_test`` plays unmasked random actions, half of them circled, and under the
    classic convention a player's second circle ends the game before the test's fourth card.
    Version: ``foxy_v0``.

Rendering
    During the game: the card just turned and who has written on it (from a seat, also that
    player's own sheet, circled number in brackets). **Decision (everyone writes at once):**
    every player who has not written for the card is marked as to act, in both forms: the AEC
    form asks them one after another only because it takes one action a step. At the end: every
    card with its true answer and each player's number checked (``+points``, or ``x`` when
    struck out), the totals, the best possible score and the winners (solo: won or lost).

Helpers (not observable by players)
    :meth:`Foxy.points` (points of every number written), :meth:`Foxy.best_possible_score`
    (exact answers, plus the largest doubled when circling is allowed), :meth:`Foxy.stack_names`,
    :meth:`Foxy.action_for` (the action id of "write x", circled or not), :func:`true_answers`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import (
    check_choice,
    check_int,
    game_generator,
    in_range,
    known_options,
    layout_from_sizes,
    require,
)

SPECIES = (
    "rooster",
    "pig",
    "hare",
    "bear",
    "zebra",
    "giraffe",
    "octopus",
    "dolphin",
    "cat",
)
NUM_SPECIES = len(SPECIES)
CAT = 8
LANDSCAPES = ("farm", "forest", "savanna", "ocean")  # landscape k has species 2k and 2k+1
STACK_SIZE = 20
ANIMAL_CARDS_IN_STACK = 19
SOLO_MARGIN = 5  # solo: the total must be less than this far below the best possible score
MAX_GUESS_LIMIT = 1000
NO_CIRCLE = -1


def _card_kinds() -> tuple[list[frozenset[int]], list[int]]:
    """Every kind of animal card (the species it shows) and its copies in the deck."""
    kinds, copies = [], []
    for landscape in range(len(LANDSCAPES)):
        a, b = 2 * landscape, 2 * landscape + 1
        for shown, count in (
            ({a}, 2),
            ({b}, 2),
            ({a, b}, 2),
            ({a, CAT}, 2),
            ({b, CAT}, 2),
            ({a, b, CAT}, 1),
        ):
            kinds.append(frozenset(shown))
            copies.append(count)
    kinds.append(frozenset({CAT}))  # one cat-only card per landscape
    copies.append(len(LANDSCAPES))
    return kinds, copies


ANIMAL_KINDS, _COPIES = _card_kinds()
FOXY = len(ANIMAL_KINDS)  # card kind id of the Foxy card
NUM_KINDS = FOXY + 1
KIND_COPIES = np.array([*_COPIES, 1], np.int64)  # copies of each kind, Foxy last
KIND_OF_SPECIES = {kind: index for index, kind in enumerate(ANIMAL_KINDS)}
#: the deck of 48 animal cards as kind ids
DECK = np.repeat(np.arange(FOXY, dtype=np.int8), KIND_COPIES[:FOXY])
#: (kind, species) -> 1 if that kind of card shows that species (Foxy's row is all zero)
CARD_SPECIES = np.array(
    [[int(s in kind) for s in range(NUM_SPECIES)] for kind in ANIMAL_KINDS] + [[0] * NUM_SPECIES],
    np.int64,
)
#: the ``card`` observation field of each kind: species shown, then the Foxy flag
CARD_FIELD = np.zeros((NUM_KINDS, NUM_SPECIES + 1), np.float32)
CARD_FIELD[:, :NUM_SPECIES] = CARD_SPECIES
CARD_FIELD[FOXY, NUM_SPECIES] = 1.0
#: most animals of each species a stack can hold (appearances in the deck, at most 19 cards)
MAX_SPECIES_COUNT = np.minimum(
    (CARD_SPECIES[:FOXY] * KIND_COPIES[:FOXY, None]).sum(axis=0), ANIMAL_CARDS_IN_STACK
)


def card_name(kind: int) -> str:
    """``"pig+cat"``, ``"FOXY"``."""
    if kind == FOXY:
        return "FOXY"
    return "+".join(SPECIES[s] for s in sorted(ANIMAL_KINDS[kind]))


@dataclasses.dataclass
class FoxyState(State):
    stack: np.ndarray = None  # (20,) int8 card kinds, first turned first
    # Derived from the stack when the game starts (the stack never changes):
    counts: np.ndarray = None  # (20, 9) int64 animals of each species up to each card, inclusive
    answers: np.ndarray = None  # (20,) int64 the true answer of each card
    turned: int = 1  # cards turned so far; the current card is stack[turned - 1]
    sheets: np.ndarray = None  # (n, 20) int16 numbers written (0 where not yet written)
    circled: np.ndarray = None  # (n,) int8 card index of each player's circled number, or -1


class Foxy(Game):
    """Foxy, a memory game with simultaneous moves: after each of the 20 cards turned, every
    player writes how many animals of the card's species have appeared so far (for the Foxy
    card, how many species), and once a game may circle a number (not in solo); the highest
    total wins (``docs/foxy.md``).

    Args:
        num_players: 1..5 (default 2; 1 is the solo game).
        memory: ``"none"`` (default: the observation holds nothing about earlier cards) or
            ``"perfect"`` (it also holds the animals of each species seen so far).
        reward: ``"win"`` (default: +1 for every player with the highest total, -1 for the
            others) or ``"points"`` (each player's total).
        max_guess: 1..1000 (default 40): the highest number a player can write; the action
            space has ``2 * (max_guess + 1)`` actions.

    A bad value raises ``ValueError`` naming the parameter. The environments add ``max_cycles``
    (default 20 cards), ``render_mode`` and ``illegal_action``.
    """

    name = "foxy"
    description = "memory game: write how many animals have appeared so far (simultaneous moves)"
    state_class = FoxyState
    min_players = 1
    max_players = 5
    default_max_cycles = STACK_SIZE * 5  # every game ends first, even at 5 players
    reset_options = ("stack",)
    score_direction = 1
    has_points_reward = True
    objective = "points"
    simultaneous = True

    def __init__(
        self,
        num_players: int = 2,
        memory: str = "none",
        reward: str = "win",
        max_guess: int = 40,
    ):
        self.num_players = check_int("num_players", num_players, self.min_players, self.max_players)
        check_choice("memory", memory, ("none", "perfect"))
        check_choice("reward", reward, ("win", "points"))
        self.memory, self.reward = memory, reward
        self.max_guess = check_int("max_guess", max_guess, 1, MAX_GUESS_LIMIT)
        self.num_actions = 2 * (self.max_guess + 1)
        self.can_circle = self.num_players > 1
        fields = [
            ("card", NUM_SPECIES + 1),
            ("cards_turned", 1),
            ("sheet", STACK_SIZE),
            ("written", STACK_SIZE),
            ("circled", STACK_SIZE),
        ]
        if memory == "perfect":
            fields.append(("species_counts", NUM_SPECIES))
        self.observation_layout = layout_from_sizes(fields)
        self._size = self.observation_size
        self._build_caches()

    def _build_caches(self) -> None:
        """Masks and observation rows computed once, so a step copies instead of building.
        (Masks are handed out as fresh copies: callers keep them, e.g. in Gymnasium infos.)"""
        self._no_actions = np.zeros(self.num_actions, np.int8)
        self._write_only = self._no_actions.copy()
        self._write_only[: self.max_guess + 1] = 1
        self._write_or_circle = np.ones(self.num_actions, np.int8)
        self._no_circles = np.full(self.num_players, NO_CIRCLE, np.int8)
        # written[k] = the ``written`` field after k numbers; circled[c + 1] = circle at card c.
        self._written_rows = np.tril(np.ones((STACK_SIZE + 1, STACK_SIZE), np.float32), -1)
        self._circled_rows = np.eye(STACK_SIZE + 1, STACK_SIZE, -1, np.float32)
        layout = self.observation_layout
        self._card_slice, self._turned_index = layout["card"], layout["cards_turned"].start
        self._sheet_slice, self._written_slice = layout["sheet"], layout["written"]
        self._circled_slice = layout["circled"]
        self._counts_slice = layout.get("species_counts")

    def params(self) -> dict:
        return {
            "num_players": self.num_players,
            "memory": self.memory,
            "reward": self.reward,
            "max_guess": self.max_guess,
        }

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        layout = self.observation_layout
        # The low bound is 0 everywhere, although ``cards_turned`` is never below 1 in a game:
        # frame stacking and SuperSuit's delay_observations pad with all-zero observations, and
        # those must lie in the space (as in PettingZoo's classic games).
        low = np.zeros(self.observation_size, np.float32)
        high = np.ones(self.observation_size, np.float32)
        high[layout["cards_turned"]] = STACK_SIZE
        high[layout["sheet"]] = self.max_guess
        if self._counts_slice is not None:
            high[self._counts_slice] = MAX_SPECIES_COUNT
        return low, high

    def reward_bound(self) -> float:
        """``reward="points"``: the highest total a sheet can score (every number at most
        ``max_guess``, one of them counted twice for its circle)."""
        return 1.0 if self.reward == "win" else float((STACK_SIZE + 1) * self.max_guess)

    def action_name(self, action: int) -> str:
        if not 0 <= action < self.num_actions:
            return f"invalid action {action}"
        if action > self.max_guess:
            return f"write {action - self.max_guess - 1} circled"
        return f"write {action}"

    def action_numbers(self) -> tuple[np.ndarray, np.ndarray]:
        """Action a writes a mod (G + 1), circled (kind 1) if a > G."""
        actions = np.arange(self.num_actions)
        return actions % (self.max_guess + 1), (actions > self.max_guess).astype(np.int64)

    def action_for(self, number: int, circle: bool = False) -> int:
        """The action id that writes ``number`` (circled if ``circle``)."""
        check_int("number", number, 0, self.max_guess)
        return number + (self.max_guess + 1 if circle else 0)

    # --- the stack ------------------------------------------------------------------------

    def new_state(
        self, rng: np.random.Generator | int | None, options: dict | None = None
    ) -> FoxyState:
        rng = game_generator(rng)
        options = known_options(self, options)
        stack = parse_stack(options["stack"]) if "stack" in options else self._random_stack(rng)
        counts, answers = true_answers(stack)
        state = FoxyState(
            rng=rng,
            stack=stack,
            counts=counts,
            answers=answers,
            sheets=np.zeros((self.num_players, STACK_SIZE), np.int16),
            circled=self._no_circles.copy(),
        )
        state.set_game_key(self.state_key)
        return state

    @staticmethod
    def _random_stack(rng: np.random.Generator) -> np.ndarray:
        """19 of the 48 animal cards in random order, Foxy at a uniformly random place."""
        keys = rng.random(len(DECK) + 1)  # one draw for everything: sort keys, then Foxy's place
        stack = DECK[keys[:-1].argsort()[:STACK_SIZE]]  # 20 animal cards in random order
        foxy_at = int(keys[-1] * STACK_SIZE)
        # Foxy takes its place; the card there moves to the end, over the 20th card drawn.
        stack[STACK_SIZE - 1] = stack[foxy_at]
        stack[foxy_at] = FOXY
        return stack

    # --- play -----------------------------------------------------------------------------

    def choice_mask(self, state: FoxyState, player: int) -> np.ndarray:
        """The actions ``player`` may choose on the current card, whether or not it is their
        turn yet (the parallel environment asks everybody at once)."""
        if state.terminal:
            return self._no_actions.copy()
        if self.can_circle and state.circled[player] == NO_CIRCLE:
            return self._write_or_circle.copy()
        return self._write_only.copy()

    def legal_mask(self, state: FoxyState, player: int) -> np.ndarray:
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        if not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_player(player)
        if player != state.current_player:
            return self._no_actions.copy()
        return self.choice_mask(state, player)

    def apply(self, state: FoxyState, action: int) -> np.ndarray | None:
        player, card = state.current_player, state.turned - 1
        if action > self.max_guess:
            state.sheets[player, card] = action - self.max_guess - 1
            state.circled[player] = card
        else:
            state.sheets[player, card] = action
        if player + 1 < self.num_players:
            state.current_player = player + 1
            return None
        state.current_player = 0
        if state.turned < STACK_SIZE:
            state.turned += 1  # everybody has written: the next card is turned
            return None
        state.terminal = True
        return self.final_rewards(state)

    def final_rewards(self, state: FoxyState) -> np.ndarray:
        if self.reward == "points":
            return self.scores(state).astype(np.float64)
        return np.where(self.winners(state), 1.0, -1.0)

    # --- phase 2: checking ----------------------------------------------------------------

    def points(self, state: FoxyState) -> np.ndarray:
        """(n, 20) the points each written number scores (0 where not yet written)."""
        sheets = state.sheets.astype(np.int64)
        answers = state.answers.astype(np.int64)
        points = np.where(sheets <= answers, sheets, 0)
        for player in np.flatnonzero(state.circled != NO_CIRCLE):
            card = state.circled[player]
            exact = sheets[player, card] == answers[card]
            points[player, card] = 2 * sheets[player, card] if exact else 0
        return points

    def scores(self, state: FoxyState) -> np.ndarray:
        self.check_state(state)
        return self.points(state).sum(axis=1)

    def best_possible_score(self, state: FoxyState) -> int:
        """Exact answers everywhere (capped at ``max_guess``), and with a circle the largest
        writable answer circled: what perfect memory with the best circle scores."""
        writable = np.minimum(state.answers.astype(np.int64), self.max_guess)
        best = int(writable.sum())
        if self.can_circle:
            exact = state.answers[state.answers <= self.max_guess]
            best += int(exact.max()) if exact.size else 0
        return best

    def winners(self, state: FoxyState) -> np.ndarray:
        self.check_state(state)
        if not state.terminal:
            return np.zeros(self.num_players, bool)
        scores = self.scores(state)
        if self.num_players == 1:
            return scores > self.best_possible_score(state) - SOLO_MARGIN
        return scores == scores.max()

    # --- what a player sees ---------------------------------------------------------------

    def numbers_written(self, state: FoxyState, player: int) -> int:
        """How many numbers ``player`` has written (seat order within a card)."""
        if state.terminal:
            return STACK_SIZE
        return state.turned - 1 + (player < state.current_player)

    def observe(self, state: FoxyState, player: int, out: np.ndarray | None = None) -> np.ndarray:
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        if not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_player(player)
        if out is None:
            out = np.empty(self._size, np.float32)
        card = state.turned - 1
        out[self._card_slice] = CARD_FIELD[state.stack[card]]
        out[self._turned_index] = state.turned
        out[self._sheet_slice] = state.sheets[player]
        out[self._written_slice] = self._written_rows[self.numbers_written(state, player)]
        out[self._circled_slice] = self._circled_rows[state.circled[player] + 1]
        if self._counts_slice is not None:
            out[self._counts_slice] = state.counts[card]
        return out

    def stack_names(self, state: FoxyState) -> list[str]:
        """The whole stack by name, first card first (for tests and replays; not observable)."""
        return [card_name(kind) for kind in state.stack]

    def render(self, state: FoxyState, player: int | None = None) -> str:
        self.check_state(state)
        player = None if player is None else self.check_player(player)
        if state.terminal:
            return self._render_sheets(state)
        card = state.turned - 1
        lines = [
            f"Foxy, {self.num_players} player{'s' if self.num_players > 1 else ''}: "
            f"card {state.turned} of {STACK_SIZE}: {card_name(state.stack[card])}"
        ]
        for seat in range(self.num_players):
            done = self.numbers_written(state, seat) > card
            status = "written" if done else "to write (to act)"  # everyone writes at once
            lines.append(f"  player_{seat}: {status}")
        if player is not None:
            numbers = [
                self._cell(state, player, k) for k in range(self.numbers_written(state, player))
            ]
            lines.append(f"  sheet of player_{player}: {' '.join(numbers) or '(empty)'}")
        return "\n".join(lines)

    def _cell(self, state: FoxyState, player: int, card: int) -> str:
        number = int(state.sheets[player, card])
        return f"({number})" if state.circled[player] == card else str(number)

    def _render_sheets(self, state: FoxyState) -> str:
        """Phase 2: every card with its true answer and each player's number, checked."""
        points = self.points(state)
        seats = range(self.num_players)
        width = 10
        header = f"{'#':>3}  {'card':<18}{'answer':>6}  " + "".join(
            f"{f'player_{p}':>{width}}" for p in seats
        )
        lines = ["Foxy: game over, the sheets checked (x = struck out)", header]
        for card in range(STACK_SIZE):
            cells = "".join(f"{self._checked_cell(state, points, p, card):>{width}}" for p in seats)
            name = card_name(state.stack[card])
            lines.append(f"{card + 1:>3}  {name:<18}{state.answers[card]:>6}  {cells}")
        totals = "".join(f"{total:>{width}}" for total in points.sum(axis=1))
        lines.append(f"{'':>3}  {'total':<18}{'':>6}  {totals}")
        winners = [f"player_{p}" for p in np.flatnonzero(self.winners(state))]
        if self.num_players == 1:
            best = self.best_possible_score(state)
            verdict = "won" if winners else "lost"
            lines.append(
                f"best possible {best}; a total above {best - SOLO_MARGIN} wins: {verdict}"
            )
        else:
            lines.append(f"best possible {self.best_possible_score(state)}")
            lines.append("winner" + ("s: " if len(winners) > 1 else ": ") + ", ".join(winners))
        return "\n".join(lines)

    def _checked_cell(self, state: FoxyState, points: np.ndarray, player: int, card: int) -> str:
        written = self._cell(state, player, card)
        scored = points[player, card]
        return (
            f"{written} x" if scored == 0 and state.sheets[player, card] else f"{written} +{scored}"
        )

    # --- consistency ----------------------------------------------------------------------

    def check_invariants(self, state: FoxyState) -> None:
        stack = state.stack
        require(stack.shape == (STACK_SIZE,), f"stack shape {stack.shape}")
        require(in_range(stack, 0, NUM_KINDS - 1), "unknown card kind in the stack")
        kinds = np.bincount(stack, minlength=NUM_KINDS)
        require(kinds[FOXY] == 1, "the stack must hold exactly one Foxy")
        require((kinds <= KIND_COPIES).all(), "a card kind appears more often than the deck has it")
        counts, answers = true_answers(stack)
        require(np.array_equal(counts, state.counts), "species counts do not match the stack")
        require(np.array_equal(answers, state.answers), "true answers do not match the stack")
        require(1 <= state.turned <= STACK_SIZE, f"turned={state.turned}")
        require(0 <= state.current_player < self.num_players, "current_player is no player")
        require(state.sheets.shape == (self.num_players, STACK_SIZE), "sheets shape")
        sheets = state.sheets
        require(in_range(sheets, 0, self.max_guess), "number out of range")
        for player in range(self.num_players):
            written = self.numbers_written(state, player)
            require(not state.sheets[player, written:].any(), "a number on a card not yet reached")
            require(NO_CIRCLE <= state.circled[player] < written, "circle on an unwritten number")
        if not self.can_circle:
            require((state.circled == NO_CIRCLE).all(), "solo players cannot circle")
        if state.terminal:
            require(state.turned == STACK_SIZE, "the game ends after the last card")
            require(state.current_player == 0, "a finished game has player_0 to act")
        else:
            require(self.legal_mask(state, state.current_player).any(), "the actor cannot act")


def true_answers(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running species counts (20, 9) and the true answer of every card of ``stack``."""
    shown = CARD_SPECIES[stack]
    counts = shown.cumsum(axis=0)
    answers = (counts * shown).sum(axis=1)
    foxy_at = stack.argmax()  # Foxy has the largest kind id
    answers[foxy_at] = np.count_nonzero(counts[foxy_at])
    return counts, answers


def parse_stack(cards) -> np.ndarray:
    """The ``stack`` reset option (20 lists of species names or ``"foxy"``) as card kinds;
    ``ValueError`` unless the real deck could deal it."""
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__len__"):
        raise ValueError(f"stack option must be a list of {STACK_SIZE} cards, got {cards!r}")
    if len(cards) != STACK_SIZE:
        raise ValueError(f"stack option must hold {STACK_SIZE} cards, got {len(cards)}")
    stack = np.array([_parse_card(card) for card in cards], np.int8)
    kinds = np.bincount(stack, minlength=NUM_KINDS)
    if kinds[FOXY] != 1:
        raise ValueError(f'stack option must hold "foxy" exactly once, got {kinds[FOXY]}')
    for kind in np.flatnonzero(kinds > KIND_COPIES):
        raise ValueError(
            f"stack option holds {kinds[kind]} cards {card_name(kind)!r} but the deck has "
            f"{KIND_COPIES[kind]}"
        )
    return stack


def _parse_card(card) -> int:
    if isinstance(card, str) and card == "foxy":
        return FOXY
    if isinstance(card, str) or not isinstance(card, (list, tuple)):
        raise ValueError(f'stack option: card {card!r} must be a list of species names or "foxy"')
    unknown = [name for name in card if not isinstance(name, str) or name not in SPECIES]
    if unknown:
        raise ValueError(
            f"stack option: card {card!r} has unknown species {unknown}; "
            f"allowed species: {list(SPECIES)}"
        )
    shown = frozenset(SPECIES.index(name) for name in card)
    if len(shown) != len(card) or shown not in KIND_OF_SPECIES:
        raise ValueError(
            f"stack card {card!r} is not in the deck: a card shows one landscape's species "
            "(rooster/pig, hare/bear, zebra/giraffe, octopus/dolphin) and/or the cat, each once"
        )
    return KIND_OF_SPECIES[shown]
