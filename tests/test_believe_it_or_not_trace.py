"""Believe It or Not plays, observes and rewards exactly as it did before its engine and
environment were optimised for speed (issue 18, throughput margins).

Each digest below is the sha256 of the full trace of seeded random games, recorded with the
unoptimised code: at every decision the player to act, their legal-action mask, every seat's
observation (fresh and written into a reused buffer holding the previous one), the action and the
rewards ``apply`` returns; at the end the scores and the winners. The environment's digest covers
what a user of ``env()`` sees at every step of ``agent_iter``: the agent, its observation, mask,
reward, termination and truncation. A case that fails means some game, observation, mask or
reward changed: a speed-up must change none. (Regenerate only for an intended change of the
rules or the observation, and say so: ``python tests/test_believe_it_or_not_trace.py``.)

The parameter sets cover both variants, every table size class, the small decks and the default
game of the throughput benchmark; the games reach every kind of decision (peek, skip, doubts
either way, players going out, sets discarded, the end without animals, truncation).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cardzoo.envs import believe_it_or_not_v0
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

# parameter set: (sha256 of the engine trace, decisions), recorded before the optimisation
ENGINE_DIGESTS = {
    "default": (
        "96668ee9228932e62a218b268718c472f31cfd150b81797a4e53743438b464ef",
        18151,
    ),
    "quick-2": (
        "765ae8f76cf0b203a730506654a384bf4f7173a4dfa097ec77227920946b229f",
        6326,
    ),
    "small-3": (
        "915a7353daa83173c526ce2c8c60a46ff9ec4414d3c306e08602aba14fc47ffb",
        4813,
    ),
    "quick-6": (
        "c53ef7df86167289b3b13c730d0466b0081ff71fb088e35e1fe56af793105a3f",
        4842,
    ),
    "specials-5": (
        "30ec00f23f58b65ec7cb51eabc8efb434030f66f107ec1437ef99b92ff1ab411",
        13659,
    ),
}

# parameter set: (sha256 of the environment trace, agent steps), recorded before the optimisation
ENV_DIGESTS = {
    "default": (
        "11de728476987ae322c9d39fc82c53f95bb8a0685fb20dfce08fc0419cea4635",
        14729,
    ),
    "quick-2": (
        "cc46f95a3ecda71193471be2a34c70b3462b970844252ff049a2176ff609d9b1",
        6683,
    ),
    "small-3": (
        "a9f62f628413dd5230ed7c5914489074e85bb49de2b1de81d215ff0bcfa17ce6",
        4666,
    ),
    "quick-6": (
        "f5922d56918e11b3ce8cccd559087a84ec009f0bf54e9878f343c0231b7a40a0",
        5108,
    ),
    "specials-5": (
        "71f774600635603024546a1e94de524ab2b6d1889ca2e8fab335eb2598b0181d",
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
    env = believe_it_or_not_v0.env(max_cycles=ENV_MAX_CYCLES, **params)
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
