"""Search agents for games of hidden information: determinized Monte Carlo search.

Both agents think by playing the game forward in *sampled worlds*: full game states that the
searching seat cannot tell from the real one, drawn by the game's resampler
(:meth:`~cardzoo.envs.core.Game.resample`: own cards and public information kept, every card the
seat cannot see dealt again at random among the places it cannot see). Worlds are finished by
a cheap default policy (rollouts): the game's :meth:`~cardzoo.envs.core.Game.random_playouts`,
with the policies its ``playout_policies`` name (the default first), which are fast batched
playouts where the game has them and otherwise uniformly random moves through the engine
(``legal_mask`` + ``apply``, the default of ``Game``).

- :class:`PIMCAgent` (``pimc``): perfect-information Monte Carlo, flat: every legal action is
  tried in the same sampled worlds, each followed by one rollout (the rollouts of one world
  share their random numbers: common random numbers); the action with the best mean result is
  played.
- :class:`ISMCTSAgent` (``ismcts``): single-observer information-set MCTS (Cowling, Powley and
  Whitehouse, 2012): one tree over the searching seat's information sets, a new sampled world
  per iteration, every player choosing by UCB1 on their own results, with availability counts
  (an action's exploration term counts the visits in which it was legal), then a rollout.

**It never peeks.** An agent receives the true state (``observation["state"]``, given by
:func:`~cardzoo.agents.base.take_turn` to agents with ``uses_state = True``) and reads it only
through ``game.resample(state, seat, rng)``, besides the seat id and the action mask: every
world it searches is drawn from what the seat knows. The tests check it: the chosen action does
not change when the cards the seat cannot see are dealt differently.

Result of a rollout for a seat. **Decision:** its share of the win, 1/k when it is one of the
k players the game names winners, else 0 (0 for everybody in a rollout cut off at the game's
``max_cycles``). Shares add up to 1, so every player's results in the tree are on one scale.

Budget and determinism: ``simulations`` is the number of rollouts per move (PIMC: spread
evenly over the legal actions, at least one world each; ISMCTS: iterations). With a seed, a
given simulation budget gives the same moves on every machine. ``seconds`` caps the thinking
time per move (it stops at whichever of the two limits comes first); a time limit makes the
number of rollouts, and so the moves, depend on the machine's speed and load: it is not
deterministic. A decision with one legal action is taken without search.

Parameters (``PARAMS``; in an agent name ``ismcts:simulations=400:seconds=0.05:seed=3``, read
by :func:`parse_agent_params`): ``simulations`` (default 200 when no ``seconds`` is given),
``seconds``, ``seed``, ``rollout`` (the rollout policy, one of the game's
``playout_policies``: Nobody Wants It's default ``dodger`` plays mostly like its nwi_dodger
heuristic's pair choice, which measured far stronger than uniformly random rollouts against
the heuristics; Believe It or Not's default ``bluffer`` mostly like its bluffer heuristic, also
far stronger than random), ``horizon`` (``game``, or ``round`` where the game offers it:
rollouts stop at the round's end and score the points as they stand), and for ISMCTS
``exploration`` (UCB1's constant, default 0.7) and ``leaf_rollouts`` (rollouts of each
iteration's world, default 1; their mean is the iteration's result). A budget that keeps a
move under 0.1 s of CPU time in Nobody Wants It: ``pimc:simulations=3000`` or
``ismcts:simulations=450``; in Believe It or Not (both variants): ``pimc:simulations=1000`` or
``ismcts:simulations=200`` (benchmarks/search.md).

Minus Two has fast playouts too (:mod:`cardzoo.envs.minus_two.playout`): its default rollout
policy ``attacker`` plays mostly like its attacker heuristic (uniformly ``random`` rollouts
measured far weaker), to the end of the game or, ``horizon=round``, of the round. A budget that
keeps a move under 0.1 s of CPU time in Minus Two: ``pimc:simulations=600`` or
``ismcts:simulations=200`` (benchmarks/search.md).
"""

from __future__ import annotations

import math
import time
from typing import Any, ClassVar

import numpy as np

from cardzoo.agents.base import Agent, parse_params
from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import check_seed
from cardzoo.errors import InputError


class SearchAgent(Agent):
    """What both search agents share: parameters, sampled worlds and rollouts."""

    uses_state = True
    uses_observation = False
    #: parameter name -> type, for agent names such as ``ismcts:simulations=400``
    PARAMS: ClassVar[dict[str, type]] = {
        "simulations": int,
        "seconds": float,
        "seed": int,
        "rollout": str,
        "horizon": str,
    }
    DEFAULT_SIMULATIONS: ClassVar[int] = 200

    def __init__(self, game: Game, seed: int | None = None, **params: Any):
        unknown = sorted(set(params) - set(self.PARAMS))
        if unknown:
            raise InputError(
                f"{self.name}: unknown parameter(s) {unknown}; allowed: {list(self.PARAMS)}"
            )
        if "seed" in params:
            seed = params.pop("seed")
        seed = check_seed(seed)
        super().__init__(game, seed)
        self.simulations = _positive_int("simulations", params.get("simulations"))
        self.seconds = _positive_seconds(params.get("seconds"))
        if self.simulations is None:
            self.simulations = None if self.seconds is not None else self.DEFAULT_SIMULATIONS
        self._check_resampler(game)
        self.rollout = _option(game, "rollout", "rollout policy", params, game.playout_policies)
        self.horizon = _option(game, "horizon", "rollout horizon", params, game.playout_horizons)

    def _check_resampler(self, game: Game) -> None:
        """A clear error at construction, not at the first move, for a game without one."""
        if not game.can_resample():
            raise InputError(
                f"{self.name} needs the game's resampler (Game.resample), which {game.name} "
                "does not have"
            )

    def act(self, observation: dict[str, Any]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError(f"{self!r} was asked to act with no legal action")
        if legal.size == 1:
            return int(legal[0])
        if "state" not in observation:
            raise ValueError(
                f"{self.name} searches from the game state: pass observation['state'] "
                "(cardzoo.agents.take_turn does this for agents with uses_state)"
            )
        state = observation["state"]
        return self.search(state, int(state.current_player), legal)

    def search(self, state: State, seat: int, legal: np.ndarray) -> int:
        raise NotImplementedError

    def _world(self, state: State, seat: int) -> State:
        """A sampled world: the only way the agent reads the true state."""
        return self.game.resample(state, seat, self.rng)

    def _shares(
        self, worlds: list[State], first_actions: np.ndarray | None, seed_groups: int = 1
    ) -> np.ndarray:
        """Each world's rollout result for every seat: its share of the win."""
        winners, _scores = self.game.random_playouts(
            worlds,
            self.rng,
            first_actions,
            policy=self.rollout,
            seed_groups=seed_groups,
            horizon=self.horizon,
        )
        counts = winners.sum(axis=1, keepdims=True)
        return np.divide(winners, counts, out=np.zeros(winners.shape), where=counts > 0)

    def _out_of_time(self, start: float, done: int) -> bool:
        if self.simulations is not None and done >= self.simulations:
            return True
        return self.seconds is not None and time.perf_counter() - start >= self.seconds

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.game.name}, simulations={self.simulations}, "
            f"seconds={self.seconds}, seed={self._seed}, rollout={self.rollout!r})"
        )


class PIMCAgent(SearchAgent):
    """Flat Monte Carlo over sampled worlds: every legal action in the same worlds."""

    name = "pimc"
    #: worlds sampled per batch when a time limit decides how many
    WORLDS_PER_BATCH = 8

    def search(self, state: State, seat: int, legal: np.ndarray) -> int:
        totals = np.zeros(legal.size)
        start, done = time.perf_counter(), 0
        while not (done and self._out_of_time(start, done)):
            worlds = self._batch_size(legal.size, done)
            sampled = [self._world(state, seat) for _ in range(worlds)]
            # World-major: world w with each legal action in turn.
            repeated = [world for world in sampled for _ in legal]
            # Common random numbers: one world plays on alike after each first action.
            shares = self._shares(repeated, np.tile(legal, worlds), seed_groups=legal.size)
            totals += shares[:, seat].reshape(worlds, legal.size).sum(axis=0)
            done += worlds * legal.size
        return int(legal[np.argmax(totals)])  # equal totals: the lowest action id

    def _batch_size(self, num_legal: int, done: int) -> int:
        if self.simulations is None:
            return self.WORLDS_PER_BATCH
        worlds = max(1, -(-(self.simulations - done) // num_legal))  # rounded up
        return worlds if self.seconds is None else min(worlds, self.WORLDS_PER_BATCH)


class _Node:
    """A tree node: the information set reached by an action; statistics of that action from
    the point of view of the player who chose it."""

    __slots__ = ("player", "children", "visits", "available", "total")

    def __init__(self, player: int):
        self.player = player  # who chose the action leading here
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


class ISMCTSAgent(SearchAgent):
    """Single-observer information-set MCTS with UCB1 and availability counts."""

    name = "ismcts"
    PARAMS: ClassVar[dict[str, type]] = {
        **SearchAgent.PARAMS,
        "exploration": float,
        "leaf_rollouts": int,
    }
    #: UCB1's exploration constant (results are win shares in [0, 1])
    DEFAULT_EXPLORATION = 0.7

    def __init__(self, game: Game, seed: int | None = None, **params: Any):
        exploration = params.pop("exploration", self.DEFAULT_EXPLORATION)
        leaf_rollouts = params.pop("leaf_rollouts", 1)
        super().__init__(game, seed, **params)
        # None is the default, as for simulations (it used to fail at the first move)
        self.leaf_rollouts = _positive_int("leaf_rollouts", leaf_rollouts) or 1
        if isinstance(exploration, bool) or not isinstance(exploration, (int, float)):
            raise InputError(f"exploration must be a number >= 0, got {exploration!r}")
        if not (math.isfinite(exploration) and exploration >= 0):
            raise InputError(f"exploration must be a finite number >= 0, got {exploration!r}")
        self.exploration = float(exploration)

    def search(self, state: State, seat: int, legal: np.ndarray) -> int:
        root = _Node(player=-1)
        start, done = time.perf_counter(), 0
        while not (done and self._out_of_time(start, done)):
            self._iterate(root, self._world(state, seat))
            done += 1
        best = max(
            (action for action in legal.tolist() if action in root.children),
            key=lambda a: (root.children[a].visits, root.children[a].total, -a),
        )
        return int(best)

    def _iterate(self, root: _Node, world: State) -> None:
        """One iteration in one sampled world: select and expand, roll out, update."""
        game, node, path = self.game, root, []
        while not world.terminal:
            player = world.current_player
            legal = np.flatnonzero(game.legal_mask(world, player)).tolist()
            untried = [action for action in legal if action not in node.children]
            for action in legal:
                child = node.children.get(action)
                if child is not None:
                    child.available += 1
            if untried:
                action = untried[int(self.rng.integers(len(untried)))]
                child = node.children[action] = _Node(player)
                child.available = 1
                game.apply(world, action)
                path.append(child)
                break
            action = self._ucb_choice(node, legal)
            node = node.children[action]
            game.apply(world, action)
            path.append(node)
        # Several rollouts of the leaf's world (cheap next to the tree walk): a steadier result.
        shares = self._shares([world] * self.leaf_rollouts, None).mean(axis=0)
        for visited in path:
            visited.visits += 1
            visited.total += shares[visited.player]

    def _ucb_choice(self, node: _Node, legal: list[int]) -> int:
        best, best_value = legal[0], -math.inf
        for action in legal:
            child = node.children[action]
            value = child.total / child.visits + self.exploration * math.sqrt(
                math.log(child.available) / child.visits
            )
            if value > best_value:
                best, best_value = action, value
        return best


def _option(game: Game, name: str, what: str, params: dict, allowed: tuple[str, ...]) -> str:
    """``params[name]``, one of ``allowed`` (default: the first)."""
    value = params.get(name, allowed[0])
    if value not in allowed:
        raise InputError(
            f"{name}={value!r} is not a {what} of {game.name}; choose one of {list(allowed)}"
        )
    return value


#: the largest budgets a move may have: far beyond any sensible search (3,000 rollouts take
#: about 0.1 s), they stop a typo (simulations=99999999999999) from sitting on the first move
#: for days
MAX_SIMULATIONS, MAX_SECONDS = 10_000_000, 3600.0


def _positive_int(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be an integer >= 1, got {value!r}")
    if value > MAX_SIMULATIONS:
        raise InputError(f"{name}={value:,} is out of range; allowed 1..{MAX_SIMULATIONS:,}")
    return int(value)


def _positive_seconds(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise InputError(f"seconds must be a number > 0 (seconds per move), got {value!r}")
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise InputError(
            f"seconds must be a finite number > 0 and <= {MAX_SECONDS:g} (seconds per move), "
            f"got {value!r}"
        )
    return float(value)


AGENTS: dict[str, type[SearchAgent]] = {"pimc": PIMCAgent, "ismcts": ISMCTSAgent}


def parse_agent_params(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:simulations=400:seconds=0.05"`` -> ``("ismcts", {"simulations": 400, ...})``:
    the search agent's name, checked, and its parameters read by
    :func:`~cardzoo.agents.base.parse_params` (the grammar
    :func:`~cardzoo.agents.registry.make_agent` reads too)."""
    name, colon, pairs_text = spec.partition(":")
    if name not in AGENTS:
        raise InputError(f"unknown search agent {name!r}; choose one of {list(AGENTS)}")
    return name, parse_params(name, pairs_text, AGENTS[name].PARAMS) if colon else {}


__all__ = ["AGENTS", "ISMCTSAgent", "PIMCAgent", "SearchAgent", "parse_agent_params"]
