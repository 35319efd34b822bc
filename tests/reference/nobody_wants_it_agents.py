"""The Nobody Wants It heuristic agents as they were written before their decisions moved into
the game's kernel (:mod:`cardzoo.envs.nobody_wants_it.kernel`), kept as the reference the agents
are held to, and at the end the search playouts' heuristic as the kernel had it:
``tests/test_nobody_wants_it_heuristics_kernel.py`` plays them side by side with
:mod:`cardzoo.agents.nobody_wants_it` and the kernel and asserts the same action at every
decision.

What they do is described in :mod:`cardzoo.agents.nobody_wants_it`.
"""

from __future__ import annotations

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.kernels import plain_copy
from cardzoo.envs.nobody_wants_it.rules import (
    CARDS_PER_SPECIES,
    COW,
    HORSE,
    HORSE_GIVE,
    NUM_CARDS,
    NUM_SPECIES,
    PASS_TAKE_DISCARD,
    PASS_TAKE_DRAW,
    PIG,
    PIG_TAKE_DRAW,
    PIG_TAKE_PIG,
    PLAY_ONE,
    PLAY_PAIR,
    SHEEP,
    TURN,
)

_kernel = plain_copy("cardzoo.envs.nobody_wants_it.kernel")


class _Layout:
    """Where each field the agents read starts in the observation vector of one table size
    (built once per agent, so a decision only slices a list)."""

    def __init__(self, layout: dict[str, slice], num_players: int):
        self.num_players = num_players
        self.hand = layout["hand"]
        self.hand_sizes = layout["hand_sizes"]
        self.discard_top = layout["discard_top"]
        self.discard_counts = layout["discard_counts"]
        self.round = layout["round"]
        self.decision = layout["decision"]
        start = layout["nwi_position"].start
        # nwi_blocks[s]: the one-hot block of species s (index 0: on its pile, 1 + seat: held).
        self.nwi_blocks = [
            slice(start + s * (num_players + 1), start + (s + 1) * (num_players + 1))
            for s in range(NUM_SPECIES)
        ]


def _first_max(values: list[float]) -> int:
    """Index of the first largest value (``np.argmax`` of a short list, without numpy)."""
    return values.index(max(values))


class _Table:
    """The observation of one decision, read into named values (seats relative: 0 is me).

    The vector is read once into Python numbers: on arrays this short, numpy's per-call cost
    dwarfs the arithmetic (the values are small integer counts and one-hot flags, exact as
    floats, so the decisions are those of reading them with numpy). Fields only some decisions
    need are read when asked for."""

    def __init__(self, layout: _Layout, vector: np.ndarray, mask: np.ndarray):
        self._layout = layout
        self._values = values = vector.tolist()
        self.mask = mask.tolist()
        self.hand = [int(v) for v in values[layout.hand]]
        self.size = sum(self.hand)  # cards in my hand
        self.num_players = layout.num_players
        self.decision = _first_max(values[layout.decision])

    def hand_size(self, seat: int) -> int:
        return int(self._values[self._layout.hand_sizes.start + seat])

    def discard_top(self) -> int:
        """The species on top of the discard pile, -1 if it is empty."""
        top = self._values[self._layout.discard_top]
        return _first_max(top) if any(top) else -1

    def round_number(self) -> int:
        return _first_max(self._values[self._layout.round]) + 1

    def nwi_seat(self, species: int) -> int:
        """Relative seat holding the NWI card of ``species``, or -1 while on its pile."""
        return _first_max(self._values[self._layout.nwi_blocks[species]]) - 1

    def nwi_destination(self, holder: int) -> int:
        """Where a pair played by me sends its NWI card, now at ``holder`` (relative seat)."""
        return 1 % self.num_players if holder < 0 else (holder + 1) % self.num_players

    def chance_of_a_pair(self, seat: int, species: int, extra_seen: int = 0) -> float:
        """Rough chance that the player at ``seat`` holds two or more of ``species``: their cards
        are drawn from everything I have not seen (the draw pile and the other hands)."""
        discard_counts = [int(v) for v in self._values[self._layout.discard_counts]]
        unseen_total = NUM_CARDS - sum(discard_counts) - self.size
        unseen = CARDS_PER_SPECIES - discard_counts[species] - self.hand[species] - extra_seen
        if unseen_total <= 0 or unseen <= 1:
            return 0.0
        share = min(1.0, unseen / unseen_total)
        cards = self.hand_size(seat)
        none = (1 - share) ** cards
        one = cards * share * (1 - share) ** (cards - 1)
        return max(0.0, 1.0 - none - one)


def _legal(mask: list[int], action: int) -> bool:
    return bool(mask[action])


class _NobodyWantsItAgent(Agent):
    """Reads each observation through the layout of its table size."""

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed)
        self._layout = _Layout(game.observation_layout, game.num_players)

    def table(self, observation: dict[str, np.ndarray]) -> _Table:
        return _Table(self._layout, observation["observation"], observation["action_mask"])


class HandShedder(_NobodyWantsItAgent):
    """Minimises its hand: pairs, then singles that keep pairs, never a pass it can avoid."""

    name = "hand_shedder"
    # Among single cards: which to shed first (the pig also gives the left neighbour a card).
    SINGLE_ORDER = (PIG, HORSE, SHEEP)
    GIFT_ORDER = (COW, SHEEP, HORSE, PIG)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        table = self.table(observation)
        if table.decision == TURN:
            return self._turn(table)
        if _legal(table.mask, PIG_TAKE_PIG):
            return PIG_TAKE_PIG if table.hand[PIG] % 2 == 1 else PIG_TAKE_DRAW
        return HORSE_GIVE + _least_useful(table.hand, self.GIFT_ORDER)

    def _turn(self, table: _Table) -> int:
        hand = table.hand
        pairs = [s for s in range(NUM_SPECIES) if hand[s] >= 2]
        if pairs:
            return PLAY_PAIR + max(pairs, key=lambda s: (hand[s], -s))
        singles = [s for s in self.SINGLE_ORDER if hand[s] >= 1]
        if singles:
            return PLAY_ONE + singles[0]  # no pairs left: every count is 0 or 1
        if hand[COW]:
            return PLAY_ONE + COW  # a cow sheds one and draws one: better than a pass
        return PASS_TAKE_DRAW


def _least_useful(hand: list[int], order: tuple[int, ...]) -> int:
    """The species to give away: a card without a partner first, in ``order``; else any."""
    for species in order:
        if hand[species] % 2 == 1:
            return species
    return next(species for species in order if hand[species] > 0)


class NwiDodger(_NobodyWantsItAgent):
    """Sheds like :class:`HandShedder` but chooses its pairs by where their NWI cards land, and
    keeps its pigs to attack a left neighbour close to going out."""

    name = "nwi_dodger"
    CLOSING_BONUS = 20.0
    #: chance that an NWI card moves one further seat before the round ends (beyond the first)
    PASS_ON_CHANCE = 0.35
    #: cost, in cards per NWI point, of a pair that brings its NWI card to me: it stays the last
    #: choice among pairs but still beats a single card (shedding speed matters most)
    SELF_LANDING_COST = 0.3
    #: cost, in cards per NWI point, of the chance that a released card travels back to me
    RETURN_RISK_COST = 0.3

    def act(self, observation: dict[str, np.ndarray]) -> int:
        table = self.table(observation)
        if table.decision == TURN:
            legal = [action for action, allowed in enumerate(table.mask) if allowed]
            return max(legal, key=lambda action: (self._value(table, action), -action))
        if _legal(table.mask, PIG_TAKE_PIG):
            return PIG_TAKE_PIG if table.hand[PIG] % 2 == 1 else PIG_TAKE_DRAW
        return HORSE_GIVE + self._gift(table)

    def _value(self, table: _Table, action: int) -> float:
        """How good ``action`` is, in cards shed (a pair 2, a single 1, a pass -1) plus bonuses."""
        hand, size = table.hand, table.size
        if PLAY_PAIR <= action < PASS_TAKE_DRAW:
            return self._pair_value(table, action - PLAY_PAIR, closes=size == 2)
        if action == PASS_TAKE_DRAW:
            return -1.0
        if action == PASS_TAKE_DISCARD:
            top = table.discard_top()
            return -1.0 + (0.3 if hand[top] % 2 == 1 and top != COW else -0.1)
        species = action - PLAY_ONE
        if species == COW:
            return 0.0  # sheds one card, draws one
        value = 1.0 + (self.CLOSING_BONUS if size == 1 else 0.0)
        if hand[species] % 2 == 0:
            value -= 0.5  # breaks a pair
        if species == PIG:
            left_size = table.hand_size(1 % table.num_players)
            value += 0.6 if left_size <= 3 else -0.2  # save pigs for a neighbour about to go out
        return value

    def _pair_value(self, table: _Table, species: int, closes: bool) -> float:
        value = 2.0 + (self.CLOSING_BONUS if closes else 0.0)
        points = table.round_number()
        holder = table.nwi_seat(species)
        if holder == 0:
            value += 2.0 * points  # passes on an NWI card I hold
        destination = table.nwi_destination(holder)
        if destination == 0:
            return value - (0.0 if closes else self.SELF_LANDING_COST * points)
        # The released card comes back only if it travels, seat by seat, all the way to me: the
        # first holder needs a pair of that species (few cards, species spent: unlikely).
        steps_to_me = (table.num_players - destination) % table.num_players
        first = table.chance_of_a_pair(destination, species, extra_seen=2)
        risk = first * self.PASS_ON_CHANCE ** (steps_to_me - 1)
        return value - self.RETURN_RISK_COST * points * risk

    def _gift(self, table: _Table) -> int:
        """A cow if any, else a card without a partner; a pig only when nothing else is left."""
        hand = table.hand
        if hand[COW]:
            return COW
        for species in (SHEEP, HORSE):
            if hand[species] % 2 == 1:
                return species
        return next(species for species in (SHEEP, HORSE, PIG) if hand[species] > 0)


AGENTS = {agent.name: agent for agent in (HandShedder, NwiDodger)}


# The search playouts' heuristic as the kernel had it before it shared hand_shedder's choice
# (``cardzoo.envs.nobody_wants_it.kernel.shedding_action``), on a packed row.
HANDS = _kernel.HANDS
CURRENT, DECISION, NWI, ROUND = _kernel.CURRENT, _kernel.DECISION, _kernel.NWI, _kernel.ROUND
PIG_ANSWER, HORSE_GIFT, ON_PILE = _kernel.PIG_ANSWER, _kernel.HORSE_GIFT, _kernel.ON_PILE


def shedding_action(row, n, rounds, nwi_aware):
    """The search playouts' heuristic on a packed row, as the kernel had it (Python)."""
    # The hand_shedder heuristic: the largest pair; else a pig, horse, sheep; else a cow;
    # pig answers take a pig that completes a pair; horse gifts give a card without partner.
    # nwi_aware: among pairs, first one that passes on an NWI card I hold, last one that
    # brings an NWI card to me (nwi_dodger's first and last choices).
    player = row[CURRENT]
    hand = HANDS + 4 * player
    decision = row[DECISION]
    if decision == PIG_ANSWER:
        return PIG_TAKE_PIG if row[hand + PIG] % 2 == 1 else PIG_TAKE_DRAW
    if decision == HORSE_GIFT:
        for species in (COW, SHEEP, HORSE, PIG):
            if row[hand + species] % 2 == 1:
                return HORSE_GIVE + species
        for species in (COW, SHEEP, HORSE, PIG):
            if row[hand + species] > 0:
                return HORSE_GIVE + species
    best, best_value = -1, -1000
    for species in range(4):
        count = row[hand + species]
        if count < 2:
            continue
        value = count
        if nwi_aware:
            holder = row[NWI + 4 * (row[ROUND] - 1) + species]
            lands_on = (player + 1) % n if holder == ON_PILE else (holder + 1) % n
            if holder == player:
                value += 100
            elif lands_on == player:
                value -= 50
        if value > best_value:
            best, best_value = species, value
    if best >= 0:
        return PLAY_PAIR + best
    for species in (PIG, HORSE, SHEEP, COW):
        if row[hand + species] > 0:
            return PLAY_ONE + species
    return PASS_TAKE_DRAW
