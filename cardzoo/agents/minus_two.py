"""Heuristic agents for Minus Two (``minus_two_v0``).

Both are written once, as functions of the game's kernel
(:func:`~cardzoo.envs.minus_two.kernel.high_cards_action`,
:func:`~cardzoo.envs.minus_two.kernel.attacker_action`, both
:func:`~cardzoo.envs.minus_two.kernel.heuristic_choice`) that read only the seat's observation
vector and its legal actions: the agents call them
(:class:`~cardzoo.agents.kernel_heuristic.KernelHeuristic`), the vector environments play them
compiled as opponents, and the search playouts play the same choice on packed rows. Both play the
same way when nothing special happens: go out when a play empties their hands, else the highest
number that fits, every copy of it (high cards are the hardest to get rid of later, and cost the
most points), keeping the low ones for when the limit has fallen. When no number fits: one ``-2``
if the limit stays at 1 or more, else ``>>>``, else take the pile. Face-down cards are unseen, so
any position is turned.

- :class:`HighCards` (``high_cards``): sheds its most expensive cards first; that includes
  leading a ``>>>`` on an empty pile whenever it has one (50 points gone for nothing, and it
  leads again).
- :class:`Attacker` (``attacker``): keeps ``>>>`` for emergencies (a pile it would otherwise
  take, or nothing else to lead with), and when the player on its left holds 3 cards or fewer it
  plays as many ``-2`` as leave the lowest limit of 1 or more, to make them take the pile.

Minus Two can cycle (cards go from hand to pile to hand), so both agents play a random legal
action when a position repeats exactly within a game; see :class:`_LoopBreaker`.
"""

from __future__ import annotations

__all__ = ["Attacker", "HighCards"]

import numpy as np

from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.envs.core import Game
from cardzoo.envs.kernels import plain_copy

KERNEL = "cardzoo.envs.minus_two.kernel"
_kernel = plain_copy(KERNEL)  # for its constants (numba stays unloaded)


class _LoopBreaker(KernelHeuristic):
    """Minus Two can cycle: cards wander from hand to pile to hand, and players who always choose
    the same way in the same position may repeat a sequence of turns for ever. So when a position
    (the observation, compared exactly) comes back as it was at one of its earlier turns this
    game, the agent plays a random legal action (``rng.integers``) instead of its usual choice.
    Call :meth:`reset` between games. (The vector environments' kernel keeps the same memory in
    arrays: :func:`~cardzoo.envs.minus_two.kernel.remember`.)"""

    kernel_module = KERNEL
    legal_as_code = True
    #: positions kept; more are forgotten (a safety net for memory)
    max_remembered = _kernel.MAX_REMEMBERED

    def __init__(self, game: Game, seed: int | None = None):
        super().__init__(game, seed)
        self._seen: set[bytes] = set()

    def reset(self) -> None:
        self._seen.clear()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        key = observation["observation"].tobytes()
        if key in self._seen:
            legal = np.flatnonzero(observation["action_mask"])
            return int(legal[self.rng.integers(legal.size)])
        if len(self._seen) >= self.max_remembered:
            self._seen.clear()
        self._seen.add(key)
        return super().act(observation)


class HighCards(_LoopBreaker):
    """Sheds its most expensive cards first and keeps the low ones for low limits."""

    name = "high_cards"
    decision = "high_cards_action"
    kernel_policy = _kernel.HIGH_CARDS


class Attacker(_LoopBreaker):
    """Plays high cards, but plays -2 to starve a left neighbour close to going out of a playable
    limit, and saves >>> for the moments it would otherwise take the pile."""

    name = "attacker"
    decision = "attacker_action"
    kernel_policy = _kernel.ATTACKER
    threat = _kernel.THREAT  # cards or fewer left to the neighbour: attack


AGENTS = {agent.name: agent for agent in (HighCards, Attacker)}
