"""The Minus Two heuristic agents as they were written before their decisions moved into the
game's kernel (:mod:`cardzoo.envs.minus_two.kernel`), kept as the reference the agents are held
to, and at the end the search playouts' heuristic as the kernel had it:
``tests/test_minus_two_heuristics_kernel.py`` plays them side by side with
:mod:`cardzoo.agents.minus_two`, the kernel's functions and the vector games' compiled opponents
and asserts the same action at every decision.

What they do is described in :mod:`cardzoo.agents.minus_two`.
"""

from __future__ import annotations

import bisect

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs.kernels import plain_copy
from cardzoo.envs.minus_two.rules import (
    ACTIONS_PER_SOURCE,
    BLIND,
    CLEAR,
    MINUS_TWO,
    TAKE_PILE,
)

_kernel = plain_copy("cardzoo.envs.minus_two.kernel")
CURRENT, LIMIT, PILE_SIZE, held = _kernel.CURRENT, _kernel.LIMIT, _kernel.PILE_SIZE, _kernel.held

# The card type and the number of cards of each play action (two sources: hand, face up).
_CARD_OF_PLAY = [(action % ACTIONS_PER_SOURCE) // 12 for action in range(BLIND)]
_COUNT_OF_PLAY = [action % 12 + 1 for action in range(BLIND)]


class _Layout:
    """Where the fields the agents read lie in the observation vector of one table size: the
    three size fields, then the totals, then the pile's limit and size, read as one slice."""

    def __init__(self, layout: dict[str, slice], num_players: int):
        self.num_players = num_players
        self.table = slice(layout["hand_sizes"].start, layout["pile_size"].stop)
        # offsets inside that slice
        self.limit = layout["pile_limit"].start - self.table.start
        self.pile_size = layout["pile_size"].start - self.table.start
        if layout["face_down_sizes"].stop != layout["hand_sizes"].start + 3 * num_players:
            raise ValueError("minus_two agents: unexpected observation layout")


def _first_max(values: list[int]) -> int:
    """Index of the first largest value (``np.argmax`` without numpy)."""
    return values.index(max(values))


class _Choices:
    """The legal actions of one decision, sorted into kinds, and the table as this seat sees it
    (seats relative: 0 is me, 1 my left neighbour, who plays after me).

    Everything is read into Python numbers once: the legal actions are few, and numpy's
    per-call cost on arrays this short dwarfs the work (the observed values are small integer
    counts, exact as floats)."""

    def __init__(self, layout: _Layout, vector: np.ndarray, mask: np.ndarray):
        legal = mask.nonzero()[0].tolist()
        first_blind = bisect.bisect_left(legal, BLIND)
        self.plays = plays = legal[:first_blind]
        self.cards = [_CARD_OF_PLAY[play] for play in plays]
        self.counts = [_COUNT_OF_PLAY[play] for play in plays]
        self.blind = [action for action in legal[first_blind:] if action < TAKE_PILE]
        self.can_take = bool(mask[TAKE_PILE])
        self._table = table = vector[layout.table].tolist()
        self.limit = int(table[layout.limit])
        self.pile_size = int(table[layout.pile_size])
        self.num_players = layout.num_players

    def held(self, seat: int) -> int:
        """Cards ``seat`` holds in all: hand, face up and face down."""
        table, n = self._table, self.num_players
        return int(table[seat] + table[n + seat] + table[2 * n + seat])

    def first(self, which: list[bool]) -> int | None:
        """The first play for which ``which`` holds, if any."""
        for play, selected in zip(self.plays, which):
            if selected:
                return play
        return None

    def most_copies(self, which: list[bool]) -> int | None:
        """Among the plays for which ``which`` holds, the first with the most cards."""
        candidates = [i for i, selected in enumerate(which) if selected]
        if not candidates:
            return None
        counts = [self.counts[i] for i in candidates]
        return self.plays[candidates[_first_max(counts)]]

    def going_out(self) -> int | None:
        """A play of every card I hold (numbers, >>> or my last -2), if legal."""
        held = self.held(0)
        for play, count in zip(self.plays, self.counts):
            if count == held:
                return play
        return None

    def highest_number(self) -> int | None:
        """The highest number that fits, every copy of it."""
        best = max((card for card in self.cards if card < MINUS_TWO), default=None)
        if best is None:
            return None
        chosen, most = None, 0  # the first play of the most copies of ``best``
        for play, card, count in zip(self.plays, self.cards, self.counts):
            if card == best and count > most:
                chosen, most = play, count
        return chosen

    def safe_minus_two(self) -> int | None:
        """One -2, if it leaves the limit at 1 or more (so the pile stays off my hand)."""
        if not self.pile_size or self.limit < 3:
            return None
        return self.first(
            [card == MINUS_TWO and count == 1 for card, count in zip(self.cards, self.counts)]
        )

    def lowest_limit_minus_two(self) -> int | None:
        """As many -2 as keep the limit at 1 or more: the lowest limit I can leave."""
        if not self.pile_size:
            return None
        limit = self.limit
        return self.most_copies(
            [
                card == MINUS_TWO and limit - 2 * count >= 1
                for card, count in zip(self.cards, self.counts)
            ]
        )

    def clear(self) -> int | None:
        """One >>>, if legal."""
        return self.first(
            [card == CLEAR and count == 1 for card, count in zip(self.cards, self.counts)]
        )

    def when_no_number_fits(self) -> int:
        """A -2 that keeps the pile off my hand; else >>> (it clears the pile, or leads when I
        hold nothing else that may); else take the pile, or a -2 that takes it anyway."""
        for choice in (self.safe_minus_two(), self.clear()):
            if choice is not None:
                return choice
        if self.can_take:
            return TAKE_PILE
        return self.plays[self.counts.index(min(self.counts))]


class _LoopBreaker(Agent):
    """Minus Two can cycle: cards wander from hand to pile to hand, and players who always choose
    the same way in the same position may repeat a sequence of turns for ever. So when a position
    comes back exactly as it was at one of its earlier turns this game, the agent plays a random
    legal action instead of its usual choice. Call :meth:`reset` between games."""

    max_remembered = 50_000  # positions kept; more are forgotten (a safety net for memory)

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed)
        self._layout = _Layout(game.observation_layout, game.num_players)
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
        return self.choose(_Choices(self._layout, observation["observation"], mask))

    def choose(self, choices: _Choices) -> int:
        raise NotImplementedError


class HighCards(_LoopBreaker):
    """Sheds its most expensive cards first and keeps the low ones for low limits."""

    name = "high_cards"

    def choose(self, choices: _Choices) -> int:
        if choices.blind:
            return choices.blind[0]  # unseen cards: any position is as good
        out = choices.going_out()
        if out is not None:
            return out
        clear = choices.clear() if not choices.pile_size else None
        if clear is not None:
            return clear  # 50 points gone for nothing, and I lead again
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
        if choices.blind:
            return choices.blind[0]
        out = choices.going_out()
        if out is not None:
            return out
        if choices.pile_size and choices.held(1 % choices.num_players) <= self.threat:
            attack = choices.lowest_limit_minus_two()
            if attack is not None:
                return attack
        choice = choices.highest_number()
        if choice is not None:
            return choice
        return choices.when_no_number_fits()


AGENTS = {agent.name: agent for agent in (HighCards, Attacker)}


# The search playouts' heuristic as the kernel had it (a row as a list, its legal actions buf[:k]).


def heuristic_action(row, n, buf, k, attacker):
    # The attacker heuristic (attacker true) or high_cards, on the legal actions buf[:k], exactly
    # as cardzoo.agents.minus_two chooses (without its loop breaker: rollouts mix in random
    # actions instead).
    if buf[0] >= BLIND:
        return buf[0]  # face-down cards are unseen: any position
    player = row[CURRENT]
    mine = held(row, n, player)
    plays = k - 1 if buf[k - 1] >= BLIND else k  # the take-pile action comes last
    for i in range(plays):
        if buf[i] % 12 + 1 == mine:
            return buf[i]  # going out
    limit, pile_size = row[LIMIT], row[PILE_SIZE]
    if not attacker and pile_size == 0:
        for i in range(plays):
            if (buf[i] % 144) // 12 == CLEAR and buf[i] % 12 == 0:
                return buf[i]
    if attacker and pile_size > 0 and held(row, n, (player + 1) % n) <= 3:
        best, most = -1, 0  # as many -2 as leave the limit at 1 or more
        for i in range(plays):
            count = buf[i] % 12 + 1
            if (buf[i] % 144) // 12 == MINUS_TWO and limit - 2 * count >= 1 and count > most:
                best, most = buf[i], count
        if best >= 0:
            return best
    top = -1  # the highest number that fits, every copy of it
    for i in range(plays):
        card = (buf[i] % 144) // 12
        if card < MINUS_TWO and card > top:
            top = card
    if top >= 0:
        best, most = -1, 0
        for i in range(plays):
            count = buf[i] % 12 + 1
            if (buf[i] % 144) // 12 == top and count > most:
                best, most = buf[i], count
        return best
    if pile_size > 0 and limit >= 3:  # one -2 that keeps the pile off my hand
        for i in range(plays):
            if (buf[i] % 144) // 12 == MINUS_TWO and buf[i] % 12 == 0:
                return buf[i]
    for i in range(plays):
        if (buf[i] % 144) // 12 == CLEAR and buf[i] % 12 == 0:
            return buf[i]
    if plays < k:
        return TAKE_PILE
    best, fewest = buf[0], 100
    for i in range(plays):
        if buf[i] % 12 + 1 < fewest:
            best, fewest = buf[i], buf[i] % 12 + 1
    return best
