"""The Believe It or Not heuristic agents as they were written before their decisions moved into
the game's kernel (:mod:`cardzoo.envs.believe_it_or_not.kernel`), kept as the reference the agents
are held to: ``tests/test_believe_it_or_not_heuristics_kernel.py`` plays them side by side with
:mod:`cardzoo.agents.believe_it_or_not` and the kernel and asserts the same action at every
decision (their random draws included).

What they do is described in :mod:`cardzoo.agents.believe_it_or_not`.
"""

from __future__ import annotations

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    BELIEVE,
    BUILD,
    CHOOSE_PEEK,
    CHOOSE_TURN,
    DECLARE,
    DOUBT,
    ELEPHANT,
    FINISH,
    LEAD,
    MAX_PLACEMENT,
    PEEK,
    PEEK_AT,
    PLAY_PEEK,
    PLAY_SKIP,
    SET_SIZE,
    SKIP,
    TURN_CARD,
)

#: the observation fields the agents read
_FIELDS_READ = (
    "decision",
    "declared",
    "last_size",
    "hand",
    "own_table_cards",
    "building",
    "out_of_game",
    "peeked_position",
    "peeked_card",
)


def _first_max(values: list[float]) -> int:
    """Index of the first largest value (``np.argmax`` of a short list, without numpy)."""
    return values.index(max(values))


def _draw(rng: np.random.Generator, values: list[int]) -> int:
    """``int(rng.choice(values))`` for a list: the same single draw, ``rng.integers(0, n)``,
    without choice()'s argument handling (a test checks that both give the same values)."""
    return values[int(rng.integers(len(values)))]


class BelieveItOrNotAgent(Agent):
    """Shared reading of the observation and the step-by-step building of a planned placement.
    Subclasses choose the lead, the response and the cards of a placement.

    The fields are read into lists of Python numbers once per decision (``view``): on arrays
    this short numpy's per-call cost dwarfs the work, and the values are small counts and
    one-hot flags, exact as floats."""

    #: the weight of "P tells the truth" in the estimate of a claim
    honesty = 0.5
    #: holding the declared species (believing is safe), doubt only a claim this unlikely
    doubt_below_holding = 0.3

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed)
        self.loses_with_elephant = game.variant == "standard"
        self.num_species = game.num_species
        self.composition = game.composition
        self._num_cards = game.num_cards
        layout = game.observation_layout
        self._parts = [(name, layout[name]) for name in _FIELDS_READ]
        self._decision, self._building = layout["decision"], layout["building"]
        self._plan: list[int] = []

    def reset(self) -> None:
        self._plan = []

    def act(self, observation: dict[str, np.ndarray]) -> int:
        values = observation["observation"].tolist()
        mask = observation["action_mask"]
        decision = _first_max(values[self._decision])
        if decision == BUILD:  # the most frequent decision needs one field
            action = self._next_card(values[self._building], mask)
        else:
            action = self._decide(
                decision, {name: values[part] for name, part in self._parts}, mask
            )
        if not mask[action]:  # a plan that no longer fits: any legal move rather than an error
            action = int(np.flatnonzero(mask)[0])
        return action

    def _decide(self, decision: int, view: dict[str, list[float]], mask) -> int:
        """The action of every decision but adding a card to a placement."""
        if decision == LEAD:
            species, plan = self.plan_lead(view)
            self._plan = self._shuffled(plan)
            return DECLARE + species
        if decision == CHOOSE_TURN:
            return TURN_CARD + self.card_to_turn(view)
        if decision == CHOOSE_PEEK:
            return PEEK_AT + int(self.rng.integers(int(view["last_size"][0])))
        action = self.respond(view, mask)
        if action == BELIEVE:
            self._plan = self._shuffled(self.plan_believe(view))
        return action

    # --- what the agent knows --------------------------------------------------------------

    def declared(self, view) -> int:
        return _first_max(view["declared"])

    def unseen_copies(self, view, species: int) -> int:
        """Copies of ``species`` the agent cannot see (in other hands or face down)."""
        known = view["hand"][species] + view["own_table_cards"][species]
        known += view["building"][species] + view["out_of_game"][species]
        return max(0, SET_SIZE - int(known))

    def unseen_cards(self, view) -> int:
        known = sum(view["hand"]) + sum(view["own_table_cards"]) + sum(view["out_of_game"])
        return max(1, int(self._num_cards - known - sum(view["building"])))

    def peeked(self, view) -> tuple[int, int] | None:
        """(position, card type) of the peeked card of P's last placement, if any."""
        if not any(view["peeked_position"]):
            return None
        return _first_max(view["peeked_position"]), _first_max(view["peeked_card"])

    def chance_claim_true(self, view) -> float:
        """Estimated chance that the card the agent would turn shows the declared species."""
        species = self.declared(view)
        peeked = self.peeked(view)
        if peeked is not None and peeked[1] != species:
            return 0.0  # a known lie
        size = int(view["last_size"][0])
        unseen = self.unseen_copies(view, species)
        if peeked is not None:  # the peeked card is true; the turned card is another one
            size, unseen = size - 1, unseen - 1
            if size == 0:
                return 1.0
        honest = min(1.0, unseen / size)
        random = unseen / self.unseen_cards(view)
        return self.honesty * honest + (1 - self.honesty) * random

    def card_to_turn(self, view) -> int:
        """The peeked card if it was a lie, else any other card at random."""
        positions = list(range(int(view["last_size"][0])))
        peeked = self.peeked(view)
        if peeked is not None:
            position, card = peeked
            if card != self.declared(view) or len(positions) == 1:
                return position
            positions.remove(position)
        return _draw(self.rng, positions)

    def _shuffled(self, cards: list[int]) -> list[int]:
        """Cards in a random order: where a bluff lies in a placement tells nothing."""
        if len(cards) < 2:
            return list(cards)  # as permutation() returns it, and it draws nothing then
        return [cards[i] for i in self.rng.permutation(len(cards))]

    # --- building a placement ---------------------------------------------------------------

    def _next_card(self, building: list[float], mask) -> int:
        """The next planned card that may be added (``building``: the placement so far)."""
        chosen = int(sum(building))
        while self._plan and chosen < MAX_PLACEMENT:
            card = self._plan.pop(0)
            if mask[ADD_CARD + card]:
                return ADD_CARD + card
        if chosen == 0:  # nothing planned (or nothing left of the plan): any one card
            return int(np.flatnonzero(mask[ADD_CARD:FINISH])[0])
        return FINISH

    def true_cards(self, view, species: int) -> list[int]:
        return [species] * min(MAX_PLACEMENT, int(view["hand"][species]))

    def spare_cards(self, view, keep: int) -> list[int]:
        """The cards the agent needs least, best to get rid of first: the elephant, then single
        cards of species whose other copies it cannot hope to collect, then other singles; never
        the ``keep`` species and never a special card (too useful)."""
        hand = view["hand"]
        spares = [ELEPHANT] * int(hand[ELEPHANT])
        singles = [s for s in range(self.num_species) if s != keep and hand[s] == 1]
        singles.sort(key=lambda s: -int(view["out_of_game"][s] + view["own_table_cards"][s]))
        spares += singles
        pairs = [s for s in range(self.num_species) if s != keep and hand[s] == 2]
        spares += [s for s in pairs for _ in range(2)]
        return spares

    def most_held_species(self, view) -> int:
        hand = view["hand"][: self.num_species]
        most = max(hand)
        if most > 0:
            best = [s for s, count in enumerate(hand) if count == most]
        else:  # no animal in hand: claim the species with the most copies still around
            unseen = [self.unseen_copies(view, s) for s in range(self.num_species)]
            best = [s for s, count in enumerate(unseen) if count == max(unseen)]
        return _draw(self.rng, best)

    def any_card(self, view) -> list[int]:
        """One card to part with when nothing better is at hand."""
        spares = self.spare_cards(view, keep=-1)
        if spares:
            return spares[:1]
        hand = view["hand"]
        for card in (*range(self.num_species), SKIP, PEEK):
            if hand[card]:
                return [card]
        return []

    # --- policies (subclasses) ---------------------------------------------------------------

    def plan_lead(self, view) -> tuple[int, list[int]]:
        raise NotImplementedError

    def plan_believe(self, view) -> list[int]:
        raise NotImplementedError

    def respond(self, view, mask) -> int:
        raise NotImplementedError


class HonestAgent(BelieveItOrNotAgent):
    """Tells the truth whenever it can; doubts what looks unlikely; bluffs only when it must."""

    name = "honest"
    honesty = 0.5

    def plan_lead(self, view) -> tuple[int, list[int]]:
        species = self.most_held_species(view)
        cards = self.true_cards(view, species)
        return species, self._with_elephant(view, cards) or self.any_card(view)

    def plan_believe(self, view) -> list[int]:
        cards = self.true_cards(view, self.declared(view))
        return self._with_elephant(view, cards) or self.any_card(view)[:1]

    def _with_elephant(self, view, true_cards: list[int]) -> list[int]:
        """In the standard game the elephant holder loses: it goes along with two true cards or
        more (its one lie)."""
        if self.loses_with_elephant and view["hand"][ELEPHANT] and 2 <= len(true_cards) < 5:
            return [*true_cards, ELEPHANT]
        return true_cards

    def respond(self, view, mask) -> int:
        chance = self.chance_claim_true(view)
        if view["hand"][self.declared(view)]:  # it can believe with true cards, at no risk
            return DOUBT if chance < self.doubt_below_holding or not mask[BELIEVE] else BELIEVE
        if mask[PLAY_PEEK] and 0.2 < chance < 0.8 and self.peeked(view) is None:
            return PLAY_PEEK
        if chance < 0.5 or not mask[BELIEVE]:
            return DOUBT
        return PLAY_SKIP if mask[PLAY_SKIP] else BELIEVE


class BlufferAgent(BelieveItOrNotAgent):
    """Slips its least useful cards under true ones; doubts by an estimate of the claim."""

    name = "bluffer"
    honesty = 0.35
    extra_cards = 2  # bluff cards added to a placement at most

    def plan_lead(self, view) -> tuple[int, list[int]]:
        species = self.most_held_species(view)
        return species, self._with_extras(view, self.true_cards(view, species), species)

    def plan_believe(self, view) -> list[int]:
        species = self.declared(view)
        return self._with_extras(view, self.true_cards(view, species), species)

    def _with_extras(self, view, true_cards: list[int], species: int) -> list[int]:
        room = MAX_PLACEMENT - len(true_cards)
        extras = self.spare_cards(view, keep=species)[: min(room, self.extra_cards)]
        if not true_cards:  # all bluff: one card is less likely to be caught than two
            extras = extras[:1] or self.any_card(view)
        return true_cards + extras

    def respond(self, view, mask) -> int:
        chance = self.chance_claim_true(view)
        holds_declared = bool(view["hand"][self.declared(view)])
        if mask[PLAY_PEEK] and 0.3 < chance < 0.7 and self.peeked(view) is None:
            return PLAY_PEEK
        threshold = self.doubt_below_holding if holds_declared else 0.5
        if chance < threshold or not mask[BELIEVE]:
            return DOUBT
        if not holds_declared and mask[PLAY_SKIP]:
            return PLAY_SKIP
        return BELIEVE


AGENTS = {agent.name: agent for agent in (HonestAgent, BlufferAgent)}
