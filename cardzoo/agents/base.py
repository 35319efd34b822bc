"""The agent interface: an observation dict (with its action mask) in, an action out.

An agent sees only what its seat could see at the table: the observation vector, the action mask,
and the game's public parameters (``game``, for the observation layout and the player count). It
may remember earlier observations of the same game; :meth:`Agent.reset` starts a new game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import check_seed, split_observation
from cardzoo.errors import InputError


class Agent:
    """Base class of every agent. Subclasses implement :meth:`act`."""

    #: registry name, e.g. "random" or "nwi_dodger"
    name = "agent"
    #: a seed given in the agent's name (``ismcts:seed=3``), or None: a match mixes it into the
    #: seed it gives the agent for every game, so another seed in the name plays other games
    named_seed: int | None = None
    #: False for agents that decide from the action mask alone: :func:`take_turn` then skips
    #: building the observation vector (a large share of a random opponent's cost in training)
    uses_observation = True
    #: True for search agents: :func:`take_turn` then also passes the true game state as
    #: ``observation["state"]``, which such an agent may read only through the game's resampler
    #: (:meth:`~cardzoo.envs.core.Game.resample`, from its own seat's view)
    uses_state = False

    def __init__(self, game: Game, seed: int | np.random.Generator | None = None):
        """``seed``: None (fresh entropy), an integer >= 0, or a ``numpy.random.Generator``
        the agent draws from itself; anything else raises
        :class:`~cardzoo.errors.InputError` naming ``seed``."""
        self.game = game
        self._seed: int | None = None
        self._rng: np.random.Generator | None = None
        if isinstance(seed, np.random.Generator):
            self._rng = seed
        else:
            self._seed = check_seed(seed)

    @property
    def rng(self) -> np.random.Generator:
        """The agent's generator, ``default_rng(seed)``. Made at its first use: building one
        costs more than a heuristic's whole decision, and most heuristics never draw."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        self._rng = generator

    def unmade_seed(self) -> int | None:
        """The seed its generator will be made from (``default_rng(seed)``) while it is not made
        yet and the seed is an integer in 0 .. 2**63 - 1; else None. A driver that copies the
        agent's generator (the vector games' kernel) seeds its copy from it instead: the same
        draws, without building a generator the agent may never use."""
        seed = self._seed
        if self._rng is not None or seed is None:
            return None
        return seed if seed < 2**63 else None

    def reset(self) -> None:
        """Forget everything about the previous game. Call it (or :meth:`reseed`) at every new
        game in a loop of your own: an agent with a memory of the game (a recurrent policy, a
        frame stack, counts) cannot tell a new game from its observation, and cardzoo's drivers
        (:func:`~cardzoo.evaluation.play_match`, the tables, training) call it for you."""

    def reseed(self, seed: int | None) -> None:
        """A new game with a new generator: afterwards the agent plays exactly as one built
        with ``seed`` would, so one agent object can serve game after game (the table drivers
        build agents once per seat and reseed them for every game)."""
        self._seed, self._rng = check_seed(seed), None  # made at its first use, as in __init__
        self.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The action to take, an index into the game's action table, chosen from what the
        acting seat may see: ``observation["observation"]``, the seat's observation vector (as the
        environment gives it; :meth:`fields` splits it into its named fields), and
        ``observation["action_mask"]``, 1 for each legal action. An agent whose
        :attr:`uses_state` is True also gets ``observation["state"]``, the true state, to read
        only through the game's resampler. It must return a legal action; draw any randomness
        from :attr:`rng`, so that the same seed plays the same game. Subclasses implement it."""
        raise NotImplementedError

    def fields(self, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The observation vector split into its named fields."""
        return split_observation(self.game.observation_layout, observation["observation"])

    def __call__(self, observation: dict[str, Any]) -> int:
        return self.act(observation)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.name})"


def agent_action(game: Game, state: State, agent: Agent) -> tuple[int, np.ndarray]:
    """The action ``agent`` chooses for ``state.current_player`` from what that seat may see
    (its observation, its legal actions, and for search agents the state they may only
    resample), with those legal actions."""
    player = state.current_player
    mask = game.legal_mask(state, player)
    mask.flags.writeable = False  # the agent's copy is the one the action is checked against
    observation = {"action_mask": mask}
    if agent.uses_observation:
        observation["observation"] = game.observe(state, player)
    if agent.uses_state:
        observation["state"] = state
    return agent.act(observation), mask


def take_turn(game: Game, state: State, agent: Agent) -> np.ndarray | None:
    """``agent`` decides for ``state.current_player`` (:func:`agent_action`); the action is
    checked and applied. Returns the step's rewards, as :meth:`Game.step` does."""
    action, mask = agent_action(game, state, agent)
    return game.step(state, action, mask)


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    name = "random"
    uses_observation = False

    def act(self, observation: dict[str, np.ndarray]) -> int:
        # np.flatnonzero without its Python wrapper: a third of a random decision's cost
        legal = np.asarray(observation["action_mask"]).reshape(-1).nonzero()[0]
        if legal.size == 0:
            raise ValueError(f"{self!r} was asked to act with no legal action")
        return int(legal[self.rng.integers(legal.size)])


def parse_params(agent_name: str, pairs_text: str, allowed: dict[str, type]) -> dict[str, Any]:
    """The one grammar of an agent's parameters in its name ``NAME:KEY=VALUE[:KEY=VALUE...]``:
    ``pairs_text`` is what follows ``NAME:``, e.g. ``"simulations=400:seed=3"`` ->
    ``{"simulations": 400, "seed": 3}``, each value converted to the type ``allowed`` (the
    agent's ``PARAMS``, name -> type) gives it. Anything else (a key given twice too) is an
    :class:`~cardzoo.errors.InputError` naming the agent, the bad item and what is allowed."""
    if not allowed:
        raise InputError(f"agent {agent_name!r} takes no parameters, got {pairs_text!r}")
    grammar = f"write KEY=VALUE with KEY one of {', '.join(allowed)}"
    params: dict[str, Any] = {}
    for item in pairs_text.split(":"):
        if not item:
            raise InputError(
                f"agent {agent_name!r}: empty parameter in {pairs_text!r} "
                f"(':' twice in a row or at the end); {grammar}"
            )
        key, equals, value = item.partition("=")
        if not equals:
            raise InputError(f"agent {agent_name!r}: {item!r} is not KEY=VALUE; {grammar}")
        if key not in allowed:
            raise InputError(f"agent {agent_name!r}: unknown parameter {key!r}; {grammar}")
        if key in params:  # Decision: refused, not last-one-wins (as --param does)
            raise InputError(f"agent {agent_name!r}: parameter {key} given twice in {pairs_text!r}")
        try:
            params[key] = allowed[key](value)
        except ValueError:
            raise InputError(
                f"agent {agent_name!r}: parameter {key} must be {allowed[key].__name__}, "
                f"got {value!r}"
            ) from None
    return params
