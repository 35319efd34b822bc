"""Heuristic agents for Believe It or Not: an honest player and a bluffer.

Both are written once, as functions of the game's kernel
(:func:`~cardzoo.envs.believe_it_or_not.kernel.honest_action`,
:func:`~cardzoo.envs.believe_it_or_not.kernel.bluffer_action`) that read only the seat's
observation vector, its legal actions and the public parameters of the game (the deck's
composition, the variant), and keep the placement they planned and their own generator: the
agents call them (:class:`~cardzoo.agents.kernel_heuristic.KernelHeuristic`), and the vector
environments play them compiled as opponents. A turn is several small decisions; an agent plans
its whole placement when it declares or believes, and then adds the planned cards one step at a
time.

What they know about a claim. Of the declared species d, the copies the agent cannot see are
``4 − own hand − own cards on the table − discarded``; the cards it cannot see at all are the deck
minus its hand, its table cards and the cards out of the game. P claims all ``k`` cards of its
last placement are d. The agents estimate the chance that the card they would turn is d by
mixing two pictures of P: an honest P (the claim is true as far as the unseen copies allow,
``min(1, unseen d / k)``) and a random P (each card is d with probability ``unseen d / unseen
cards``), weighted by ``honesty``. A peeked card settles its own position. A claim of more cards
than there are unseen copies is partly false for sure, and the estimate says so.

- ``honest`` — leads with the species it holds most and places all its copies (up to 5); holding
  the declared species it believes with all of them, unless the claim looks clearly false
  (chance below 0.3: then it doubts). Without one it doubts unless the claim looks likely, peeks
  first when unsure, skips rather than bluff, and bluffs only when it must, with a single card it
  does not need (the elephant first). Its one deliberate lie: in the standard game, where the
  elephant's holder loses, the elephant goes along with two true cards or more.
- ``bluffer`` — leads with its most held species and adds up to two of its least useful cards
  (the elephant, then single cards of species it cannot complete, then pairs; never a special
  card); believes the same way; doubts by the same estimate with a lower opinion of the others'
  honesty (0.35 instead of 0.5).

Both shuffle the cards of a placement (where a lie sits tells nothing) and turn the peeked card
when it was a lie, never a peeked true card, and otherwise a card at random. Their draws are
their generator's ``integers`` and ``permutation``, so that an agent of a given seed plays as it
always has.
"""

from __future__ import annotations

__all__ = ["BlufferAgent", "HonestAgent"]

import numpy as np

from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    BUILD,
    CHOOSE_PEEK,
    CHOOSE_TURN,
    FINISH,
    MAX_PLACEMENT,
)
from cardzoo.envs.kernels import plain_copy

KERNEL = "cardzoo.envs.believe_it_or_not.kernel"
_kernel = plain_copy(KERNEL)  # for its constants (numba stays unloaded)


class HonestAgent(KernelHeuristic):
    """Tells the truth whenever it can; doubts what looks unlikely; bluffs only when it must."""

    name = "honest"
    kernel_module = KERNEL
    decision = "honest_action"
    kernel_policy = _kernel.HONEST


class BlufferAgent(KernelHeuristic):
    """Slips its least useful cards under true ones; doubts by an estimate of the claim."""

    name = "bluffer"
    kernel_module = KERNEL
    decision = "bluffer_action"
    kernel_policy = _kernel.BLUFFER


AGENTS = {agent.name: agent for agent in (HonestAgent, BlufferAgent)}


class BlindPositions:
    """How a learned policy plays the positions of face-down cards when it plays them blind
    (a policy's ``positions="blind"``; see :class:`~cardzoo.agents.policy.PolicyAgent`).

    A placement's cards lie in the order they were added, and a doubter turns one of them by its
    position: a player's habits about positions are information its opponents can learn, and
    nothing else in the game rewards them. A learned policy picks positions by habit (one turned
    card 0 or 4 of five in 98% of its doubts; a best response learnt where to put its lies). So,
    as the heuristics do (the rule is theirs: :class:`BlufferAgent` answers these decisions), a
    policy playing blind turns the card it peeked when that card was a lie, never a peeked true
    card, and otherwise a card at random; it peeks at a card at random; and it lays the cards of
    a placement in a random order: the cards are those the policy itself chooses, planned at the
    placement's first card by asking it for one card after another on the observations it would
    then see, until it finishes.

    :meth:`choose` answers the decisions it takes (None for the others, which the policy takes);
    it draws from the generator it is given (the agent's own)."""

    def __init__(self, game, seed: int | None = None):
        self._rule = BlufferAgent(game, seed)
        layout = game.observation_layout
        self._decision, self._building = layout["decision"], layout["building"]
        self._hand, self._own_size = layout["hand"], layout["hand_sizes"].start  # own size first
        self._plan: list[int] = []

    def reset(self) -> None:
        self._plan = []
        self._rule.reset()

    def choose(self, observation: dict[str, np.ndarray], decide, rng: np.random.Generator):
        """The action for ``observation`` when it is about positions, else None. ``decide``
        (observation dict -> action) is the policy's own choice, used to plan a placement."""
        vector, mask = observation["observation"], observation["action_mask"]
        decision = int(np.argmax(vector[self._decision]))
        if decision in (CHOOSE_TURN, CHOOSE_PEEK):
            self._rule.rng = rng
            return self._rule.act(observation)
        if decision != BUILD:
            return None
        if not vector[self._building].any():
            cards = self.planned(observation, decide)
            order = rng.permutation(len(cards)) if len(cards) > 1 else range(len(cards))
            self._plan = [cards[index] for index in order]
        while self._plan:
            card = self._plan.pop(0)
            if mask[ADD_CARD + card]:
                return ADD_CARD + card
        return FINISH if mask[FINISH] else None

    def planned(self, observation: dict[str, np.ndarray], decide) -> list[int]:
        """The cards ``decide`` adds to an empty placement, one after another, given the
        observations and legal actions the game would show after each of them (the card leaves
        the hand and joins the placement; a card of a type still held may be added while fewer
        than five are chosen; the placement may end once it holds one)."""
        vector = observation["observation"].copy()
        hand, building = self._hand, self._building
        cards: list[int] = []
        while True:
            mask = np.zeros_like(observation["action_mask"])
            if len(cards) < MAX_PLACEMENT:
                mask[ADD_CARD : ADD_CARD + hand.stop - hand.start] = vector[hand] > 0
            mask[FINISH] = bool(cards)
            action = int(decide({"observation": vector, "action_mask": mask}))
            if action == FINISH:
                return cards
            card = action - ADD_CARD
            cards.append(card)
            vector = vector.copy()
            vector[hand.start + card] -= 1
            vector[self._own_size] -= 1
            vector[building.start + card] += 1
