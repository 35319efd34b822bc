"""Believe It or Not plays, observes and rewards exactly as it did before its engine and
environment were optimised for speed (issue 18, throughput margins).

Each digest below is the sha256 of the full trace of seeded random games, recorded with the
unoptimised code: at every decision the player to act, their legal-action mask, every seat's
observation (fresh and written into a reused buffer holding the previous one), the action and the
rewards ``apply`` returns; at the end the scores and the winners. The environment's digest covers
what a user of ``env()`` sees at every step of ``agent_iter``: the agent, its observation, mask,
reward, termination and truncation. A case that fails means some game, observation, mask or
reward changed: a speed-up must change none. (Regenerate only for an intended change of the
rules or the observation, and say so: ``python tests/test_believe_it_or_not_trace.py``. Done
once: ``believe_it_or_not_v1`` shows the species declared at a lead while its placement is
built, where ``_v0`` showed none until the placement was on the table.)

The parameter sets cover both variants, every table size class, the small decks and the default
game of the throughput benchmark; the games reach every kind of decision (peek, skip, doubts
either way, players going out, sets discarded, the end without animals, truncation).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cardzoo.envs import believe_it_or_not_v1
from cardzoo.envs.believe_it_or_not.rules import BelieveItOrNot

#: seeded games per parameter set
NUM_GAMES = 40

PARAMS = {
    "default": {},
    "quick-2": {"num_players": 2, "variant": "quick"},
    "small-3": {"num_players": 3, "num_species": 4, "special_cards": False},
    "quick-6": {"num_players": 6, "variant": "quick", "num_species": 6},
    "specials-5": {"num_players": 5, "num_species": 5},
}

# parameter set: (sha256 of the engine trace, decisions), recorded before the optimisation and
# recorded again for the declaration seen while the lead is built (believe_it_or_not_v1)
ENGINE_DIGESTS = {
    "default": (
        "0a1f7983799361d7274ab4c8b2d4962bc94f0ed2d93d9be61ef8a753025e53c8",
        18151,
    ),
    "quick-2": (
        "e480dac8c1869ee18d1e4eafba6f10d5df9a3ba91e59c33e519dd606a6343244",
        6326,
    ),
    "small-3": (
        "7d1e758b76312d3cec99db947bdbd58cbee2588aef7fd4dab1c8e8bfd9b2a039",
        4813,
    ),
    "quick-6": (
        "7b2f211ebe61abb55446381b6a003becc7d603dfa2469e5faf9ced01814fc843",
        4842,
    ),
    "specials-5": (
        "32b0b4447ce5ba4724264920ef05f80a1ac6f4273ae3fae8e96ac5cf0a985247",
        13659,
    ),
}

# parameter set: (sha256 of the environment trace, agent steps), recorded as the above
ENV_DIGESTS = {
    "default": (
        "a14adf928078c9e4e93b12ddebd6e128bd4b68a605ebadc70f9ef68c0e34597c",
        14729,
    ),
    "quick-2": (
        "790302f24ae307e7483598bbb390ce07aad0788bc004822c74d0d738ea989496",
        6683,
    ),
    "small-3": (
        "c58c6367c1496f2d810f2fc67f5862c880e75ac18a4abb78ffbf6e60294b9067",
        4666,
    ),
    "quick-6": (
        "fb7c8d471fded080174c232b2b6654f64a8c5c11e82055577064b51082af8d07",
        5108,
    ),
    "specials-5": (
        "291287ee65355c72049440a184bdc13867260fa21ef112a2886f043318e413ec",
        12552,
    ),
}

#: a short max_cycles for the environment traces, so that some games are truncated
ENV_MAX_CYCLES = 400


def _bytes(array: np.ndarray) -> bytes:
    """Little-endian bytes of an array: the same digest on every machine."""
    return np.ascontiguousarray(array, array.dtype.newbyteorder("<")).tobytes()


def engine_trace(params: dict, num_games: int = NUM_GAMES) -> tuple[str, int]:
    """The digest of ``num_games`` random games on the engine (game g dealt with seed g, the
    random choices from seed 10_000 + g) and how many decisions they took."""
    game = BelieveItOrNot(**params)
    digest = hashlib.sha256()
    buffer = np.full(game.observation_size, 7.0, np.float32)  # stale content must not leak
    decisions = 0
    for seed in range(num_games):
        state = game.new_state(np.random.default_rng(seed))
        chooser = np.random.default_rng(10_000 + seed)
        for _ in range(game.default_max_cycles):
            if state.terminal:
                break
            player = state.current_player
            mask = game.legal_mask(state, player)
            digest.update(bytes([player]) + _bytes(mask))
            for seat in range(game.num_players):
                observation = game.observe(state, seat)
                game.observe(state, seat, out=buffer)
                assert np.array_equal(buffer, observation)
                digest.update(_bytes(observation))
                if seat != player:
                    digest.update(_bytes(game.legal_mask(state, seat)))
            legal = np.flatnonzero(mask)
            action = int(legal[chooser.integers(len(legal))])
            rewards = game.apply(state, action)
            digest.update(bytes([action]))
            if rewards is not None:
                digest.update(_bytes(np.asarray(rewards, np.float64)))
            decisions += 1
        digest.update(_bytes(game.scores(state).astype(np.int64)))
        digest.update(_bytes(game.winners(state)))
    return digest.hexdigest(), decisions


def env_trace(params: dict, num_games: int = NUM_GAMES) -> tuple[str, int]:
    """The digest of ``num_games`` random games through ``env()`` and ``agent_iter`` (game g
    reset with seed g, the random choices from seed 20_000 + g), and the agent steps taken."""
    env = believe_it_or_not_v1.env(max_cycles=ENV_MAX_CYCLES, **params)
    digest = hashlib.sha256()
    steps = 0
    for seed in range(num_games):
        env.reset(seed=seed)
        chooser = np.random.default_rng(20_000 + seed)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            mask = observation["action_mask"]
            assert np.array_equal(info["action_mask"], mask)
            digest.update(agent.encode() + _bytes(observation["observation"]) + _bytes(mask))
            digest.update(_bytes(np.array([reward, terminated, truncated], np.float64)))
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(mask)
                action = int(legal[chooser.integers(len(legal))])
                digest.update(bytes([action]))
            env.step(action)
            steps += 1
    return digest.hexdigest(), steps


@pytest.mark.parametrize("name", list(PARAMS))
def test_engine_trace_unchanged_games_observations_masks_rewards(name):
    assert engine_trace(PARAMS[name]) == ENGINE_DIGESTS[name]


@pytest.mark.parametrize("name", list(PARAMS))
def test_env_trace_unchanged_observations_masks_rewards_terminations(name):
    assert env_trace(PARAMS[name]) == ENV_DIGESTS[name]


if __name__ == "__main__":  # print the digests of the code as it is now
    for label, trace in (("ENGINE", engine_trace), ("ENV", env_trace)):
        print(f"{label}_DIGESTS = {{")
        for name, params in PARAMS.items():
            print(f'    "{name}": {trace(params)!r},')
        print("}")
