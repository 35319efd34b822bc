"""Heuristic agents for Foxy: a perfect memory and a forgetful one.

Both see only their observations: the card just turned, the number of cards turned and their own
sheet. They remember the cards they have been shown (each player is asked once per card, so it sees
every card once) — the perfect-memory agent all of them, the forgetful agent only the last few.
:meth:`reset` forgets everything between games (a drop in ``cards_turned`` also starts afresh).

What they write. From the cards it remembers, an agent knows part of the true answer exactly;
the cards it has forgotten (or never saw) are, as far as it knows, random cards of the deck
(the public deck list, minus the cards it remembers; Foxy placed uniformly among the unknown
places). That gives a distribution of the true answer T, and the agent writes the number x with
the best expected score, x·P(T ≥ x): a low estimate, since a number above T scores nothing. With
nothing forgotten, T is known and x = T.

When they circle. Circling a number x gains 2x·P(T = x) instead of the best uncircled score; the
circle can be used once, and must be decided at once. The agents circle when the gain reaches
the value of keeping the circle: for a player who knows every answer, the expected best gain
still to come from the next card on, computed once by optimal stopping over random stacks
(``circle_thresholds``). At the last card any positive gain is taken.
"""

from __future__ import annotations

__all__ = ["ForgetfulAgent", "MemoryAgent"]

import functools
import itertools
from collections import deque
from typing import ClassVar

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.foxy.rules import (
    CARD_FIELD,
    CARD_SPECIES,
    FOXY,
    KIND_COPIES,
    NUM_KINDS,
    NUM_SPECIES,
    STACK_SIZE,
    Foxy,
)
from cardzoo.envs.helpers import check_int

_KIND_OF_FIELD = {tuple(row): kind for kind, row in enumerate(CARD_SPECIES.tolist())}
_FOXY_FLAG = NUM_SPECIES  # index of the Foxy flag in the ``card`` field


def kind_of_card_field(card_field: np.ndarray) -> int:
    """The card kind an observation's ``card`` field shows."""
    if card_field[_FOXY_FLAG]:
        return FOXY
    return _KIND_OF_FIELD[tuple(int(v) for v in card_field[:NUM_SPECIES])]


@functools.cache
def circle_thresholds(max_guess: int = 40, num_stacks: int = 10_000) -> np.ndarray:
    """``thresholds[k]`` (k = 0..19, the card's index): the expected gain of circling optimally
    on a later card, for a player who knows every answer (the gain of circling answer a is a;
    answers above ``max_guess`` cannot be circled exactly). Backward induction over random
    stacks drawn with a fixed seed, so the table is the same on every run."""
    game = Foxy(num_players=1, max_guess=max_guess)
    rng = np.random.default_rng(20_240_101)
    answers = np.array([game.new_state(rng).answers for _ in range(num_stacks)])
    gains = np.where(answers <= max_guess, answers, 0)
    thresholds = np.zeros(STACK_SIZE)
    value_of_waiting = 0.0
    for card in range(STACK_SIZE - 1, -1, -1):
        thresholds[card] = value_of_waiting
        value_of_waiting = float(np.maximum(gains[:, card], value_of_waiting).mean())
    return thresholds


class MemoryAgent(Agent):
    """Remembers every card it has seen, writes the exact answer, circles by the threshold rule.

    On ``memory="perfect"`` it reads the running species counts from the observation instead
    (the same numbers; they also cover cards it was not shown).

    Speed: the agent keeps a running count of the card kinds it remembers, and when it knows the
    answer exactly (nothing forgotten) it computes that answer in Python; the choice for a given
    belief is computed once and cached (:func:`_choice_for_answer`, :func:`_choice_when_unsure`),
    so a decision costs a few microseconds and decides exactly as the plain computation
    (:meth:`answer_distribution`) would."""

    name = "perfect_memory"
    #: earlier cards remembered (besides the card on the table); None = all of them
    memory_cards: int | None = None

    def __init__(self, game: Foxy, seed: int | None = None):
        super().__init__(game, seed)
        self.max_guess = game.max_guess
        self.thresholds = circle_thresholds(self.max_guess)
        layout = game.observation_layout
        self._card = layout["card"]
        self._turned = layout["cards_turned"].start
        counts = layout.get("species_counts")
        self._species_counts = counts if self.memory_cards is None else None
        self.reset()

    def reset(self) -> None:
        self.remembered: deque[int] = deque(maxlen=self.memory_cards)  # earlier card kinds
        self._kind_counts = [0] * NUM_KINDS  # of the remembered cards
        self._species_counts_remembered = [0] * NUM_SPECIES  # shown on the remembered cards
        self.card_on_table: int | None = None
        self.cards_turned = 0

    # --- memory ---------------------------------------------------------------------------

    def _see(self, vector: np.ndarray) -> None:
        turned = int(vector[self._turned])
        if turned < self.cards_turned:
            self.reset()  # a new game without reset(): forget the old one
        if turned != self.cards_turned:
            if self.card_on_table is not None:
                self._remember(self.card_on_table)
            self.card_on_table = _KIND_OF_FIELD_VALUES[tuple(vector[self._card].tolist())]
            self.cards_turned = turned

    def _remember(self, kind: int) -> None:
        remembered = self.remembered
        if remembered.maxlen == 0:
            return
        species_counts = self._species_counts_remembered
        if len(remembered) == remembered.maxlen:  # the oldest card is forgotten
            self._kind_counts[remembered[0]] -= 1
            for species in SHOWN[remembered[0]]:
                species_counts[species] -= 1
        remembered.append(kind)
        self._kind_counts[kind] += 1
        for species in SHOWN[kind]:
            species_counts[species] += 1

    def forgotten(self) -> int:
        """Earlier cards this agent does not remember (forgotten or never shown)."""
        return self.cards_turned - 1 - len(self.remembered)

    # --- belief about the true answer -----------------------------------------------------

    def answer_distribution(self, fields: dict[str, np.ndarray]) -> np.ndarray:
        """P(true answer = t) for t = 0, 1, ... as this agent believes it (``fields``: the
        current observation split into its fields)."""
        card = self.card_on_table
        assert card is not None, "no card seen yet"
        if "species_counts" in fields and self.memory_cards is None:
            counts = fields["species_counts"].astype(np.int64)
            known = (
                int(np.count_nonzero(counts)) if card == FOXY else int(counts @ CARD_SPECIES[card])
            )
            return _point_mass(known)
        return _belief(card, np.array([*self.remembered, card], np.int64), self.forgotten())

    def exact_answer(self, vector: np.ndarray) -> int | None:
        """The true answer when this agent knows it (the species counts of ``memory="perfect"``,
        or every earlier card remembered), else None."""
        card = self.card_on_table
        assert card is not None, "no card seen yet"
        if self._species_counts is not None:
            counts = vector[self._species_counts].tolist()
            if card == FOXY:
                return sum(1 for count in counts if count)
            return int(sum(counts[species] for species in SHOWN[card]))
        if self.forgotten():
            return None
        counts = self._species_counts_remembered
        if card == FOXY:
            # The species seen on any remembered card (the belief's other species appear on
            # no forgotten card, with probability 0: the same choice as the full belief).
            return sum(1 for count in counts if count)
        shown = SHOWN[card]  # on the remembered cards and on the table card
        return sum(counts[species] for species in shown) + len(shown)

    # --- decision -------------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray]) -> int:
        vector = observation["observation"]
        self._see(vector)
        answer = self.exact_answer(vector)
        if answer is not None:
            write, circle, gain = _choice_for_answer(answer, self.max_guess)
        else:
            card = self.card_on_table
            assert card is not None  # _see put one on the table
            counts = list(self._kind_counts)
            counts[card] += 1
            write, circle, gain = _choice_when_unsure(
                card, tuple(counts), self.forgotten(), self.max_guess
            )
        if (
            gain > 0
            and gain >= self.thresholds[self.cards_turned - 1]
            and observation["action_mask"][self.max_guess + 1 :].any()
        ):
            return circle + self.max_guess + 1
        return write


class ForgetfulAgent(MemoryAgent):
    """Remembers only the last ``memory_cards`` earlier cards (and the one on the table); the
    rest it treats as random cards of the deck, so it writes a low, expected-score estimate.
    It ignores the ``species_counts`` of ``memory="perfect"``: its memory is its handicap."""

    name = "forgetful"
    memory_cards = 4
    #: what its name may set: ``forgetful:memory_cards=0`` remembers nothing but the table's card
    PARAMS: ClassVar[dict[str, type]] = {"memory_cards": int}

    def __init__(self, game: Foxy, seed: int | None = None, memory_cards: int | None = None):
        if memory_cards is not None:
            self.memory_cards = check_int("memory_cards", memory_cards, 0, STACK_SIZE)
        super().__init__(game, seed)


#: the species each card kind shows
SHOWN = [[species for species, shows in enumerate(row) if shows] for row in CARD_SPECIES.tolist()]
#: the card kind of each value of the ``card`` field, as a tuple of Python numbers
_KIND_OF_FIELD_VALUES = {tuple(row): kind for kind, row in enumerate(CARD_FIELD.tolist())}


def choice(distribution: np.ndarray, max_guess: int) -> tuple[int, int, float]:
    """For a belief ``distribution`` of the true answer T: the number to write (best
    x·P(T >= x)), the number to circle (best 2x·P(T = x)) and the gain of circling it."""
    at_least = distribution[::-1].cumsum()[::-1][: max_guess + 1]  # P(T >= x)
    distribution = distribution[: max_guess + 1]
    numbers = np.arange(len(distribution))
    write = int(np.argmax(numbers * at_least))
    circle = int(np.argmax(2 * numbers * distribution))
    gain = float(2 * circle * distribution[circle] - write * at_least[write])
    return write, circle, gain


@functools.lru_cache(maxsize=4096)
def _choice_for_answer(answer: int, max_guess: int) -> tuple[int, int, float]:
    """:func:`choice` when the true answer is known."""
    return choice(_point_mass(answer), max_guess)


@functools.lru_cache(maxsize=1 << 16)
def _choice_when_unsure(
    card: int, kind_counts: tuple[int, ...], forgotten: int, max_guess: int
) -> tuple[int, int, float]:
    """:func:`choice` for a card kind on the table, the kinds remembered (the table card
    included) and the number of earlier cards forgotten: the belief depends on nothing else,
    and many seats and games share it.

    For an animal card the belief is built as :func:`_belief` builds it, with the elementwise
    steps in Python (the same operations on the same doubles in the same order) and only the
    convolutions in numpy; its choice is :func:`choice` in Python."""
    if card == FOXY:
        remembered = np.repeat(np.arange(NUM_KINDS), kind_counts)
        return _python_choice(_belief(card, remembered, forgotten).tolist(), max_guess)
    overlap = _OVERLAP[card]  # species each kind shares with the card
    known = sum(count * shared for count, shared in zip(kind_counts, overlap))
    per_card = [0.0] * (max(overlap) + 1)  # np.bincount(overlap, weights=odds)
    for kind, odds in enumerate(_unknown_card_odds_list(kind_counts)):
        per_card[overlap[kind]] += odds
    distribution = [0.0] * known + _power(np.array(per_card), forgotten).tolist()
    return _python_choice(distribution, max_guess)


#: _OVERLAP[a][b]: the species card kinds a and b both show
_OVERLAP = (CARD_SPECIES @ CARD_SPECIES.T).tolist()
_KIND_COPIES = KIND_COPIES.tolist()


def _unknown_card_odds_list(kind_counts: tuple[int, ...]) -> list[float]:
    """:func:`_unknown_card_odds` from the counts of the remembered kinds, in Python."""
    left = [copies - count for copies, count in zip(_KIND_COPIES, kind_counts)]
    unknown_places = STACK_SIZE - sum(kind_counts)
    foxy_odds = left[FOXY] / unknown_places if left[FOXY] and unknown_places else 0.0
    animals_left = sum(left[:FOXY])
    return [count / animals_left * (1.0 - foxy_odds) for count in left[:FOXY]] + [foxy_odds]


def _python_choice(distribution: list[float], max_guess: int) -> tuple[int, int, float]:
    """:func:`choice` of a belief given as a list (no NaN), in Python: the running sums are
    taken in numpy's order (``cumsum`` adds one value at a time from the top)."""
    at_least = list(itertools.accumulate(reversed(distribution)))[::-1][: max_guess + 1]
    distribution = distribution[: max_guess + 1]
    scores = [number * chance for number, chance in enumerate(at_least)]
    write = scores.index(max(scores))
    circle_scores = [2 * number * chance for number, chance in enumerate(distribution)]
    circle = circle_scores.index(max(circle_scores))
    return write, circle, 2 * circle * distribution[circle] - write * at_least[write]


def _belief(card: int, remembered: np.ndarray, forgotten: int) -> np.ndarray:
    """P(true answer = t) for the card kind on the table, the card kinds remembered (the table
    card included) and ``forgotten`` earlier cards taken as random unknown cards."""
    if card == FOXY:
        return _distinct_species_distribution(remembered, forgotten)
    shown = CARD_SPECIES[card]
    known = int((CARD_SPECIES[remembered] @ shown).sum())
    per_card = np.bincount(CARD_SPECIES @ shown, weights=_unknown_card_odds(remembered))
    return _shift(_power(per_card, forgotten), known)


def _unknown_card_odds(remembered: np.ndarray) -> np.ndarray:
    """P(an unknown card of the stack is of each kind): the deck minus the remembered cards,
    Foxy (if not remembered) at a uniformly random unknown place."""
    left = KIND_COPIES - np.bincount(remembered, minlength=len(KIND_COPIES))
    odds = np.zeros(len(KIND_COPIES))
    unknown_places = STACK_SIZE - len(remembered)
    foxy_odds = left[FOXY] / unknown_places if left[FOXY] and unknown_places else 0.0
    odds[FOXY] = foxy_odds
    odds[:FOXY] = left[:FOXY] / left[:FOXY].sum() * (1.0 - foxy_odds)
    return odds


def _distinct_species_distribution(remembered: np.ndarray, forgotten: int) -> np.ndarray:
    """Species remembered, plus each other species if it is on a forgotten card (each
    forgotten card independently a random unknown card)."""
    seen = CARD_SPECIES[remembered].any(axis=0)
    odds = _unknown_card_odds(remembered)
    shows = odds @ CARD_SPECIES  # P(a random unknown card shows each species)
    distribution = _point_mass(int(seen.sum()))
    for species in np.flatnonzero(~seen):
        appears = 1.0 - (1.0 - shows[species]) ** forgotten
        distribution = _convolve(distribution, np.array([1.0 - appears, appears]))
    return distribution


def _point_mass(value: int) -> np.ndarray:
    distribution = np.zeros(value + 1)
    distribution[value] = 1.0
    return distribution


def _shift(distribution: np.ndarray, offset: int) -> np.ndarray:
    return np.concatenate([np.zeros(offset), distribution])


_ONE = np.ones(1)  # the distribution of a sum of no draws (never written to)


def _power(per_card: np.ndarray, times: int) -> np.ndarray:
    """Distribution of the sum of ``times`` independent draws from ``per_card``."""
    total = _ONE
    for _ in range(times):
        total = _convolve(total, per_card)
    return total


def _convolve(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``np.convolve(a, v)`` of two non-empty 1-d float arrays, without its argument checks:
    the same computation underneath (the correlation of the longer array with the shorter one
    reversed), so the same numbers, for a third of the call's cost."""
    if len(v) > len(a):
        a, v = v, a
    return np.correlate(a, v[::-1], "full")


AGENTS = {MemoryAgent.name: MemoryAgent, ForgetfulAgent.name: ForgetfulAgent}
