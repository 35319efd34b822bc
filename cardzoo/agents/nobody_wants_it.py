"""Heuristic agents for Nobody Wants It (``nobody_wants_it_v0``).

Both are written once, as functions of the game's kernel
(:func:`~cardzoo.envs.nobody_wants_it.kernel.hand_shedder_action`,
:func:`~cardzoo.envs.nobody_wants_it.kernel.nwi_dodger_action`) that read only the seat's
observation vector and its legal actions: the agents call them
(:class:`~cardzoo.agents.kernel_heuristic.KernelHeuristic`), and the vector environments play
them compiled as opponents.

- :class:`HandShedder` (``hand_shedder``): empties its hand as fast as it can. Pairs first (two
  cards gone), then a single card that keeps its other pairs whole (a pig before a horse before a
  sheep: the pig also hands the left neighbour a card), a cow only when nothing else sheds, and it
  never passes when it can play. Pig answers: takes the pig when it completes a pair. Horse gifts:
  gives away a card without a partner (cows first, pigs last), else a cow, sheep, horse, pig.
- :class:`NwiDodger` (``nwi_dodger``): scores every legal action by cards shed plus what the "Nobody
  wants it" card it moves is expected to cost it. Among its pairs it first passes on an NWI card
  it holds, then releases cards onto players unlikely to pass them back (few cards, species
  already spent, far from its seat going left), and last a pair that brings an NWI card to itself
  (still better than a single card: shedding speed matters most, as matches show). It keeps its
  pigs to attack a left neighbour close to going out, and never feeds its left neighbour a pig in
  a horse exchange (cows go first). Pig answers: takes the pig when it completes a pair.
"""

from __future__ import annotations

__all__ = ["HandShedder", "NwiDodger"]

from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.envs.kernels import plain_copy

KERNEL = "cardzoo.envs.nobody_wants_it.kernel"
_kernel = plain_copy(KERNEL)  # for its constants (numba stays unloaded)


class HandShedder(KernelHeuristic):
    """Minimises its hand: pairs, then singles that keep pairs, never a pass it can avoid."""

    name = "hand_shedder"
    kernel_module = KERNEL
    decision = "hand_shedder_action"
    kernel_policy = _kernel.HAND_SHEDDER


class NwiDodger(KernelHeuristic):
    """Sheds like :class:`HandShedder` but chooses its pairs by where their NWI cards land, and
    keeps its pigs to attack a left neighbour close to going out."""

    name = "nwi_dodger"
    kernel_module = KERNEL
    decision = "nwi_dodger_action"
    kernel_policy = _kernel.NWI_DODGER


AGENTS = {agent.name: agent for agent in (HandShedder, NwiDodger)}
