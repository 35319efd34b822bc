"""The one agent factory: an agent's name (or a factory function) -> a new :class:`Agent`.

Names:

- a registry name of the game's agents (:func:`agent_classes`): ``random``, ``nwi_dodger``, ...;
- ``KIND:PATH`` for a saved policy: ``ppo:RUN`` (a run folder of ``cardzoo train`` or its model
  file), ``rllib:RUN`` (a run folder of ``cardzoo train-rllib``, or one of its checkpoints);
- ``NAME:KEY=VALUE[:KEY=VALUE...]`` for an agent that takes parameters (its class lists them in
  ``PARAMS``, name -> type), e.g. ``ismcts:simulations=400:seed=3``;
- ``pretrained``: the trained policy that ships with cardzoo for the game (numpy only);
  ``pretrained:positions=learned`` plays a Believe It or Not policy's positions as it learnt
  them instead of blind (docs/training.md, "Positions").

Everything that seats agents — matches, tournaments, the Gymnasium view, terminal play, training
opponents — builds them through :func:`build_agent`, which also takes a factory
``f(game, seed) -> Agent`` in place of a name.

May import: :mod:`cardzoo.envs`, the agent modules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from cardzoo.agents.base import Agent, RandomAgent, parse_params
from cardzoo.agents.policy import (
    load_ppo_agent,
    load_pretrained_agent,
    load_rllib_agent,
    pretrained_file,
    saved_policy_file,
    saved_policy_record,
)
from cardzoo.agents.profiles import game_agents
from cardzoo.agents.search import AGENTS as SEARCH_AGENTS
from cardzoo.envs.core import Game
from cardzoo.envs.registry import game_spec, load_game
from cardzoo.errors import InputError
from cardzoo.io import file_sha256

#: a seat's agent as the table functions take it: a name or a factory ``f(game, seed)``
AgentSpec = str | Callable[[Game, int], Agent]

#: "KIND:PATH" agent names -> the function that loads such a saved policy as an Agent
POLICY_LOADERS: dict[str, Callable[..., Agent]] = {
    "ppo": load_ppo_agent,
    "rllib": load_rllib_agent,
}


#: the name of the policy that ships with cardzoo for a game
PRETRAINED = "pretrained"
#: what ``pretrained:KEY=VALUE`` may set: ``positions`` (learned or blind), to play the shipped
#: policy's positions otherwise than its file says (Believe It or Not)
PRETRAINED_PARAMS = {"positions": str}


def agent_classes(game_name: str) -> dict[str, type[Agent]]:
    """The game's baseline agents by registry name: ``random`` and its heuristics."""
    return {"random": RandomAgent, **game_agents(game_name).heuristics}


def search_classes(game_name: str) -> dict[str, type[Agent]]:
    """The search agents (``pimc``, ``ismcts``) where the game's engine can resample what a
    seat cannot see; none elsewhere."""
    return SEARCH_AGENTS if game_spec(game_name).game_class().can_resample() else {}


def agent_names(game_name: str) -> list[str]:
    """Every agent name of a game that needs no path: its baselines, its search agents, and
    ``pretrained`` where cardzoo ships a policy for it."""
    shipped = [PRETRAINED] if pretrained_file(game_name) is not None else []
    return [*agent_classes(game_name), *search_classes(game_name), *shipped]


def make_agent(game_name: str, agent_name: str, game: Game, seed: int | None = None) -> Agent:
    """A new agent ``agent_name`` for ``game`` (a :class:`~cardzoo.envs.core.Game`): a registry
    name (:func:`agent_classes`), ``KIND:PATH`` for a saved policy, or ``NAME:KEY=VALUE...`` for
    an agent with parameters. Anything unknown is a ``ValueError`` saying what is allowed, and
    so is a ``game`` that is not a game of ``game_name`` (an agent built for another game's
    engine fails later, in its first move, or plays that game by rules it was not made for)."""
    game_spec(game_name)  # an unknown game is named first
    if not isinstance(game, Game):
        raise InputError(
            f"make_agent: game must be the game's engine, load_game({game_name!r}), "
            f"got {type(game).__name__}"
        )
    if game.name != game_name:
        raise InputError(f"make_agent: game is a {game.name} game, not {game_name}")
    if not isinstance(agent_name, str):
        raise InputError(f"make_agent: agent_name must be an agent's name, got {agent_name!r:.60}")
    kind, colon, rest = agent_name.partition(":")
    if colon and kind in POLICY_LOADERS:
        return POLICY_LOADERS[kind](game_name, rest, game, seed=seed)
    if kind == PRETRAINED:
        settings = parse_params(kind, rest, PRETRAINED_PARAMS) if colon else {}
        label = agent_name if colon else PRETRAINED
        return load_pretrained_agent(game_name, game, seed=seed, label=label, **settings)
    agent_class = _agent_class(game_name, agent_name)
    params = parse_params(kind, rest, getattr(agent_class, "PARAMS", {})) if colon else {}
    # A seed in the name (ismcts:seed=3) is the agent's own; matches still reseed every agent
    # for every game, from the match's seed and this one (Agent.named_seed), so that games can
    # be replayed and another seed in the name plays other games.
    named = params.pop("seed", None)
    agent = agent_class(game, seed=seed if named is None else named, **params)
    agent.named_seed = named
    return agent


def check_agent_name(game_name: str, agent_name: str) -> None:
    """``ValueError`` unless ``agent_name`` names an agent of the game (saved policies are
    checked when they are loaded, parameters when the agent is built)."""
    kind, colon, rest = agent_name.partition(":")
    if kind == PRETRAINED and pretrained_file(game_name) is None:
        raise InputError(f"cardzoo ships no pretrained policy for {game_name}")
    if kind == PRETRAINED and colon:
        parse_params(kind, rest, PRETRAINED_PARAMS)
    if not (colon and kind in POLICY_LOADERS) and kind != PRETRAINED:
        _agent_class(game_name, agent_name)


def policy_file(game_name: str, agent_name: str, game: Game) -> Path | None:
    """The file agent ``agent_name`` plays in ``game``: a saved policy's (``ppo:PATH``,
    ``rllib:PATH``) or the shipped one (``pretrained``); None for an agent that reads no file
    (a heuristic, a search bot). The agent is expected to have been built once (the name is
    checked): a missing file is an :class:`~cardzoo.errors.InputError` here too."""
    kind, colon, rest = agent_name.partition(":")
    if colon and kind in POLICY_LOADERS:
        return saved_policy_file(kind, rest)
    if kind == PRETRAINED:
        return pretrained_file(game_name, game)
    return None


def policy_digests(game_name: str, entries: Mapping[str, object], game: Game) -> dict[str, str]:
    """The sha256 of the file each agent of ``entries`` (label -> agent name, or a factory,
    which reads no file of its own) plays, by label: what a tournament folder and a match's
    results record, and compare to see that a policy did not change."""
    paths = {
        label: policy_file(game_name, entry, game) if isinstance(entry, str) else None
        for label, entry in entries.items()
    }
    return {label: file_sha256(path) for label, path in paths.items() if path is not None}


def check_saved_agent(agent_name: str) -> str:
    """A saved policy's agent name (``ppo:PATH``, ``rllib:PATH``) checked without a game named:
    its file is read and checked, and the policy is built for the game and parameters its
    record names (so a damaged file, or weights that do not fit the game they claim, are
    refused here, e.g. when ``cardzoo serve --agent`` starts). Returns the game's name;
    :class:`~cardzoo.errors.InputError` naming the file otherwise."""
    kind, colon, path = agent_name.partition(":")
    if not colon or kind not in POLICY_LOADERS:
        raise InputError(
            f"{agent_name!r} is not KIND:PATH with KIND one of {sorted(POLICY_LOADERS)}"
        )
    info = saved_policy_record(kind, path)
    params = info.get("params") or {}
    try:
        game = load_game(info["game"], **params)
    except (ValueError, TypeError) as error:  # the record is input too
        raise InputError(
            f"{agent_name}: its record names {info['game']} with {params}, which is not a "
            f"game cardzoo can build ({error})"
        ) from None
    make_agent(info["game"], agent_name, game)
    return info["game"]


def _agent_class(game_name: str, agent_name: str) -> type[Agent]:
    kind, colon, _ = agent_name.partition(":")
    classes = {**agent_classes(game_name), **search_classes(game_name)}
    if kind in classes:
        return classes[kind]
    if colon:
        with_params = [name for name, cls in classes.items() if getattr(cls, "PARAMS", None)]
        raise InputError(
            f"unknown policy kind {kind!r} in agent {agent_name!r}; choose one of "
            f"{[k + ':PATH' for k in POLICY_LOADERS]}"
            + (f" or an agent with parameters {with_params}" if with_params else "")
        )
    raise InputError(
        f"unknown agent {agent_name!r} for {game_name}; choose one of "
        f"{', '.join(agent_names(game_name))}, or ppo:PATH / rllib:PATH for a saved policy"
    )


def build_agent(game_name: str, spec: AgentSpec, game: Game, seed: int | None) -> Agent:
    """The agent ``spec`` describes: a name (:func:`make_agent`) or a factory
    ``f(game, seed) -> Agent``, whose result is checked."""
    if isinstance(spec, str):
        return make_agent(game_name, spec, game, seed=seed)
    agent = spec(game, seed)
    if not isinstance(agent, Agent):
        raise InputError(
            f"agent factory {agent_label(spec)!r} returned {agent!r}, not a cardzoo Agent"
        )
    return check_fits(agent, game, f"agent factory {agent_label(spec)!r}")


def check_fits(agent: Agent, game: Game, label: str) -> Agent:
    """``agent``, if it was built for ``game`` or a game of the same name and parameters (the
    reward aside: it changes nothing an agent sees); else :class:`~cardzoo.errors.InputError`
    naming both. An agent of another player count reads the wrong seats and fails inside its
    rules or plays an action out of range."""
    theirs = agent.game
    if theirs is not game and (theirs.name != game.name or _seated(theirs) != _seated(game)):
        raise InputError(
            f"{label} was built for {theirs.name} {_seated(theirs)}; it cannot play "
            f"{game.name} {_seated(game)}"
        )
    return agent


def _seated(game: Game) -> dict:
    """What an agent is built for: the game's parameters but its reward."""
    return {key: value for key, value in game.params().items() if key != "reward"}


def agent_label(spec: AgentSpec) -> str:
    """How results name a seat's agent: its name, or a factory's ``name`` attribute."""
    return spec if isinstance(spec, str) else getattr(spec, "name", repr(spec))
