"""Game positions for tests: states a seeded random game passes through."""

from __future__ import annotations

import numpy as np


def positions_with_a_choice(game, count, seed=0):
    """Up to ``count`` positions with a real choice (more than one legal action), copied from a
    random game of ``game`` (seeded: about one in five such positions is kept)."""
    state = game.new_state(np.random.default_rng(seed))
    choices = np.random.default_rng(seed)
    found = []
    while not state.terminal and len(found) < count:
        legal = np.flatnonzero(game.legal_mask(state, state.current_player))
        if legal.size > 1 and choices.random() < 0.2:
            found.append(game.copy_state(state))
        game.apply(state, int(choices.choice(legal)))
    return found
