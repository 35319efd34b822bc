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

from cardzoo.agents.kernel_heuristic import KernelHeuristic
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
