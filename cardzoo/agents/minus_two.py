"""Heuristic agents for Minus Two (``minus_two_v0``).

Both read only the observation dict (through the named layout) and the action mask, and both
play the same way when nothing special happens: go out when a play empties their hands, else the
highest number that fits, every copy of it (high cards are the hardest to get rid of later, and
cost the most points), keeping the low ones for when the limit has fallen. When no number fits:
one ``-2`` if the limit stays at 1 or more, else ``>>>``, else take the pile. Face-down cards are
unseen, so any position is turned.

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

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.minus_two.rules import (
    ACTIONS_PER_SOURCE,
    BLIND,
    CLEAR,
    MINUS_TWO,
    TAKE_PILE,
)


class _Choices:
    """The legal actions of one decision, sorted into kinds, and the table as this seat sees it
    (seats relative: 0 is me, 1 my left neighbour, who plays after me)."""

    def __init__(self, fields: dict[str, np.ndarray], mask: np.ndarray):
        legal = np.flatnonzero(mask)
        plays = legal[legal < BLIND]
        self.cards = (plays % ACTIONS_PER_SOURCE) // 12
        self.counts = plays % 12 + 1
        self.plays = plays
        self.blind = legal[(legal >= BLIND) & (legal < TAKE_PILE)]
        self.can_take = bool(mask[TAKE_PILE])
        self.limit = int(fields["pile_limit"][0])
        self.pile_size = int(fields["pile_size"][0])
        held = fields["hand_sizes"] + fields["face_up_sizes"] + fields["face_down_sizes"]
        self.held = held.astype(int)  # cards each seat holds in all

    def first(self, which: np.ndarray) -> int | None:
        return int(self.plays[which][0]) if which.any() else None

    def going_out(self) -> int | None:
        """A play of every card I hold (numbers, >>> or my last -2), if legal."""
        return self.first(self.counts == self.held[0])

    def highest_number(self) -> int | None:
        """The highest number that fits, every copy of it."""
        numbers = self.cards < MINUS_TWO
        if not numbers.any():
            return None
        best = self.cards[numbers].max()
        which = numbers & (self.cards == best)
        return int(self.plays[which][np.argmax(self.counts[which])])

    def safe_minus_two(self) -> int | None:
        """One -2, if it leaves the limit at 1 or more (so the pile stays off my hand)."""
        if not self.pile_size or self.limit < 3:
            return None
        return self.first((self.cards == MINUS_TWO) & (self.counts == 1))

    def lowest_limit_minus_two(self) -> int | None:
        """As many -2 as keep the limit at 1 or more: the lowest limit I can leave."""
        if not self.pile_size:
            return None
        which = (self.cards == MINUS_TWO) & (self.limit - 2 * self.counts >= 1)
        if not which.any():
            return None
        return int(self.plays[which][np.argmax(self.counts[which])])

    def clear(self) -> int | None:
        """One >>>, if legal."""
        return self.first((self.cards == CLEAR) & (self.counts == 1))

    def when_no_number_fits(self) -> int:
        """A -2 that keeps the pile off my hand; else >>> (it clears the pile, or leads when I
        hold nothing else that may); else take the pile, or a -2 that takes it anyway."""
        for choice in (self.safe_minus_two(), self.clear()):
            if choice is not None:
                return choice
        if self.can_take:
            return TAKE_PILE
        return int(self.plays[np.argmin(self.counts)])


class _LoopBreaker(Agent):
    """Minus Two can cycle: cards wander from hand to pile to hand, and players who always choose
    the same way in the same position may repeat a sequence of turns for ever. So when a position
    comes back exactly as it was at one of its earlier turns this game, the agent plays a random
    legal action instead of its usual choice. Call :meth:`reset` between games."""

    max_remembered = 50_000  # positions kept; more are forgotten (a safety net for memory)

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed)
        self._seen: set[bytes] = set()

    def reset(self) -> None:
        self._seen.clear()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        key = observation["observation"].tobytes()
        if key in self._seen:
            legal = np.flatnonzero(mask)
            return int(legal[self.rng.integers(legal.size)])
        if len(self._seen) >= self.max_remembered:
            self._seen.clear()
        self._seen.add(key)
        return self.choose(_Choices(self.fields(observation), mask))

    def choose(self, choices: _Choices) -> int:
        raise NotImplementedError


class HighCards(_LoopBreaker):
    """Sheds its most expensive cards first and keeps the low ones for low limits."""

    name = "high_cards"

    def choose(self, choices: _Choices) -> int:
        if choices.blind.size:
            return int(choices.blind[0])  # unseen cards: any position is as good
        out = choices.going_out()
        if out is not None:
            return out
        if not choices.pile_size and choices.clear() is not None:
            return choices.clear()  # 50 points gone for nothing, and I lead again
        choice = choices.highest_number()
        if choice is not None:
            return choice
        return choices.when_no_number_fits()


class Attacker(_LoopBreaker):
    """Plays high cards, but plays -2 to starve a left neighbour close to going out of a playable
    limit, and saves >>> for the moments it would otherwise take the pile."""

    name = "attacker"
    threat = 3  # cards or fewer left to the neighbour: attack

    def choose(self, choices: _Choices) -> int:
        if choices.blind.size:
            return int(choices.blind[0])
        out = choices.going_out()
        if out is not None:
            return out
        if choices.pile_size and choices.held[1 % choices.held.size] <= self.threat:
            attack = choices.lowest_limit_minus_two()
            if attack is not None:
                return attack
        choice = choices.highest_number()
        if choice is not None:
            return choice
        return choices.when_no_number_fits()


AGENTS = {agent.name: agent for agent in (HighCards, Attacker)}
