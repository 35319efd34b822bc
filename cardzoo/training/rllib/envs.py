"""cardzoo games as RLlib multi-agent environments, and who plays which seat.

RLlib builds an environment on every env runner from a class and a config dict, so the games are
wrapped in two small classes taking ``{"game": name, "params": {...}}``:

- :class:`TurnBasedEnv` — a turn-based game through its AEC form, with RLlib's own PettingZoo
  wrapper: each step is one player's decision; a player's rewards collected while others moved
  reach it with its next observation, and the final rewards reach every player at the end.
- :class:`SimultaneousEnv` — a game with a ``parallel_env`` (Foxy), through RLlib's wrapper of
  PettingZoo's ``ParallelEnv``: every player decides on every card at once.

Decision: the unwrapped environments (``raw_env``) are used, so an illegal action raises instead
of ending the game with −1: the model masks illegal actions, and if one ever got through, the run
should fail loudly rather than learn from a silent penalty.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv

from cardzoo.envs import game_spec
from cardzoo.errors import InputError

SHARED_POLICY = "shared"
POLICY_MODES = ("shared", "per-seat")


def env_config(game_name: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"game": game_name, "params": dict(params)}


def is_simultaneous(game_name: str) -> bool:
    """Whether the game's moves are simultaneous (``Game.simultaneous``): it then has a
    parallel form (all players act at once), which training uses."""
    return game_spec(game_name).game_class().simultaneous


def env_class(game_name: str) -> type:
    return SimultaneousEnv if is_simultaneous(game_name) else TurnBasedEnv


class TurnBasedEnv(PettingZooEnv):
    """A turn-based cardzoo game (AEC form) as an RLlib ``MultiAgentEnv``."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(game_spec(config["game"]).module().raw_env(**config["params"]))


class SimultaneousEnv(ParallelPettingZooEnv):
    """A cardzoo game with simultaneous moves (its ``parallel_env``) as an RLlib
    ``MultiAgentEnv``."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(game_spec(config["game"]).module().parallel_env(**config["params"]))


def module_ids(policy_mode: str, agents: list[str]) -> list[str]:
    """The policies a run trains: one shared by every seat, or one per seat (named after it)."""
    if policy_mode == "shared":
        return [SHARED_POLICY]
    if policy_mode == "per-seat":
        return list(agents)
    raise InputError(f"policy must be one of {list(POLICY_MODES)}, got {policy_mode!r}")


# Module-level functions, not lambdas: RLlib pickles the mapping to every env runner.
def shared_policy_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared policy (self-play with parameter sharing)."""
    return SHARED_POLICY


def per_seat_policy_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Seat ``player_i`` plays its own policy ``player_i``."""
    return agent_id


def policy_mapping(policy_mode: str):
    module_ids(policy_mode, [])  # checks the mode
    return shared_policy_mapping if policy_mode == "shared" else per_seat_policy_mapping
