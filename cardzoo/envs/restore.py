"""Snapshot checks: a snapshot read against the game and the environment it is restored into.

:mod:`cardzoo.envs.snapshot` reads snapshot data field by field; this module checks what it reads
against what the game and the environment can hold: the game and its parameters, the state's
fields (a fresh state of the game is the template), the game's invariants, the agents still in
the game and their rewards. Everything is checked before anything is changed (the rule
"Snapshots" in the docstring of :mod:`cardzoo.envs.core`): each function either returns what the
snapshot holds or raises ``ValueError`` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from cardzoo.envs.snapshot import (
    check_format,
    check_keys,
    decode_field,
    decode_number,
    describe,
    encode,
    invalid,
    preview,
    same_data,
    snapshot_data,
)

if TYPE_CHECKING:
    from cardzoo.envs.core import Game, State

#: the keys of a game's snapshot (:meth:`~cardzoo.envs.core.Game.snapshot`)
GAME_SNAPSHOT_KEYS = ("format", "game", "params", "state")

#: the keys of an AEC environment's snapshot (:meth:`~cardzoo.envs.aec.CardGameEnv.snapshot`)
ENV_SNAPSHOT_KEYS = (
    "format",
    "engine",
    "num_steps",
    "env_rng",
    "agents",
    "rewards",
    "cumulative_rewards",
    "illegal_action_by",
)


def restored_state(game: Game, snapshot: Mapping | str | bytes) -> State:
    """The state of ``game`` that a game's snapshot describes (see
    :meth:`~cardzoo.envs.core.Game.restore`, which this is)."""
    what = f"{game.name} snapshot"
    data = snapshot_data(snapshot, what)
    check_format(data, what)
    check_keys(data, GAME_SNAPSHOT_KEYS, what)
    if data["game"] != game.name:
        raise invalid(what, f"it is a snapshot of game {describe(data['game'])}")
    if not same_data(data["params"], encode(game.params())):
        raise invalid(
            what,
            f"its parameters {preview(data['params'])} differ from this game's {game.params()}",
        )
    state = _state_from_fields(game, data["state"], what)
    _check_state(game, state, what)
    return state


def _state_from_fields(game: Game, fields: Any, what: str) -> State:
    specs = game._field_specs
    if not isinstance(fields, Mapping):
        raise invalid(what, f"'state' must be a dict of fields, got {describe(fields)}")
    check_keys(fields, tuple(specs), f"{what} state")
    values = {
        name: decode_field(fields[name], spec, f"{what}: field {name!r}")
        for name, spec in specs.items()
    }
    try:
        return game.state_class.from_field_values(game, values)
    except (TypeError, ValueError, IndexError) as error:
        raise invalid(what, str(error)) from None


def _check_state(game: Game, state: State, what: str) -> None:
    if not 0 <= state.current_player < game.num_players:
        raise invalid(
            what,
            f"current_player={state.current_player}; players are 0..{game.num_players - 1}",
        )
    try:
        game.check_invariants(state)
        winners = game.winners(state)
    except Exception as error:  # noqa: BLE001 -- untrusted data: any failure means invalid
        message = str(error) or type(error).__name__
        raise invalid(what, f"inconsistent state ({message})") from None
    if not state.terminal and np.any(winners):
        raise invalid(what, "a game still running has winners")


def restored_agents(possible_agents: list[str], value: Any, what: str) -> list[str]:
    """The agents still in the game, from a snapshot: distinct names of ``possible_agents`` in
    seat order (shared by the AEC and parallel forms)."""
    if not isinstance(value, list) or not all(isinstance(agent, str) for agent in value):
        raise invalid(what, f"agents must be a list of agent names, got {preview(value, 80)}")
    unknown = [agent for agent in value if agent not in possible_agents]
    if unknown:
        raise invalid(what, f"unknown agents {unknown}; agents are {possible_agents}")
    in_seat_order = [agent for agent in possible_agents if agent in value]
    if value != in_seat_order:
        raise invalid(what, f"agents {value} are not distinct names in seat order")
    return in_seat_order  # a new list: the environment must not share the caller's


def restored_rewards(game: Game, value: Any, agents: list[str], what: str) -> dict[str, float]:
    """A reward per agent still in the game, from a snapshot: numbers within the game's
    :meth:`~cardzoo.envs.core.Game.reward_bound`."""
    if not isinstance(value, Mapping) or set(value) != set(agents):
        raise invalid(what, f"expected a number for each of {agents}, got {preview(value, 120)}")
    bound = game.reward_bound()
    return {agent: decode_number(value[agent], f"{what}[{agent!r}]", bound) for agent in agents}
