"""Many games with an agent in every seat, on one :class:`~cardzoo.envs.batch.GameBatch`.

:class:`SeatedGames` holds N games of one game and the agent of each seat of each game. Seats
played by uniformly random agents or by heuristics written in the game's kernel
(:class:`~cardzoo.agents.kernel_heuristic.KernelHeuristic`) play inside the compiled kernel
(:meth:`~cardzoo.envs.batch.GameBatch.play_codes`); every other agent is called from Python,
agents that decide in batches (a ``batch_key`` and ``act_batch``, such as policies) for all the
seats they play across the games in one call. Each game stops where its *stop seat* must decide
(a learner's, decided by the caller) or where it ends.

A heuristic the kernel plays decides as its agent would: the same function, the same memory
(cleared at every new game, as the agent's ``reset``) and the same draws, from a copy of the
agent's generator taken when it sits down (:meth:`~cardzoo.envs.batch.GameBatch.load_generator`,
or, while the agent has not made its generator yet, one seeded as it would be:
``Agent.unmade_seed``; the agent's own generator is not advanced: the sampler reseeds its agents
for every game). A seat played at random in the kernel draws from the game's policy generator
(:attr:`~cardzoo.envs.batch.GameBatch.policy_rngs`), not from its agent's: the games are those
of the agents, not the very games a :class:`~cardzoo.table.Table` plays with the same agents
and seeds. With ``random_in_kernel``
False, random seats are called from Python instead, drawing from their agents' own generators:
then every game is the very game a Table plays with the same agents, seeds and ``max_cycles``
(the match runner's batch path, :func:`cardzoo.evaluation.play_match`). Agents that read the
engine's state (``uses_state``: the search agents) cannot sit here: the games are packed rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardzoo.agents import Agent
from cardzoo.agents.base import RandomAgent
from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.envs.batch import EXTERNAL_POLICY, RANDOM_POLICY, GameBatch
from cardzoo.envs.core import Game, State
from cardzoo.envs.packed import KernelGame
from cardzoo.errors import InputError


def kernel_policy(
    batch: GameBatch, agent: Agent | type[Agent], random_in_kernel: bool = True
) -> int | None:
    """The code by which ``batch``'s kernel plays ``agent`` (an agent or its class):
    :data:`~cardzoo.envs.batch.RANDOM_POLICY` for the uniformly random agent, a heuristic's
    ``kernel_policy`` where the kernel holds it; None for an agent the kernel does not play (the
    random agent too, unless ``random_in_kernel``)."""
    agent_class = agent if isinstance(agent, type) else type(agent)
    if agent_class is RandomAgent:
        return RANDOM_POLICY if random_in_kernel else None
    if (
        batch.plays_heuristics
        and issubclass(agent_class, KernelHeuristic)
        and agent_class.kernel_module == batch.game.kernel_module
    ):
        return int(agent_class.kernel_policy)
    return None


def decide(
    seats: Sequence[tuple[int, Agent]],
    observations: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
) -> None:
    """``actions[b]`` for each (game b, agent) of ``seats``, from ``observations[b]`` and
    ``masks[b]``: the agents that share a ``batch_key`` in one ``act_batch`` call, the others
    one ``act`` each."""
    groups: dict[object, tuple[list[int], list[Agent]]] = {}
    for b, agent in seats:
        key = getattr(agent, "batch_key", None)
        if key is None:
            actions[b] = agent.act({"observation": observations[b], "action_mask": masks[b]})
        elif key in groups:
            groups[key][0].append(b)
            groups[key][1].append(agent)
        else:
            groups[key] = ([b], [agent])
    for games, agents in groups.values():
        rows = np.array(games, np.intp)  # made once for the three indexings
        act_batch = type(agents[0]).act_batch  # type: ignore[attr-defined]
        actions[rows] = act_batch(agents, observations[rows], masks[rows])


class SeatedGames:
    """``num_games`` games of ``game`` (with a kernel), an agent in every seat but each game's
    stop seat (see the module docstring), each cut at ``max_cycles`` agent steps (default: the
    game's); ``compiled`` as :class:`~cardzoo.envs.batch.GameBatch` takes it; random agents in
    the kernel or, ``random_in_kernel`` False, from Python (see the module docstring).
    :meth:`seed` seeds the games, :meth:`sit` seats a game's agents, :meth:`start` deals,
    :meth:`step` takes the stop seats' actions and :meth:`advance` plays the agents."""

    def __init__(
        self,
        game: Game,
        num_games: int,
        compiled: bool | None = None,
        max_cycles: int | None = None,
        random_in_kernel: bool = True,
    ):
        self.game = game
        self.batch = GameBatch(game, num_games, max_cycles=max_cycles, compiled=compiled)
        self.random_in_kernel = random_in_kernel
        count, n = self.batch.num_games, game.num_players
        self.num_games = count
        #: each game's stop seat, and each seat's agent (None at the stop seat) and kernel code
        self.stops = np.zeros(count, np.int64)
        self.agents: list[list[Agent | None]] = [[None] * n for _ in range(count)]
        self.codes = np.full((count, n), EXTERNAL_POLICY, np.int64)
        self.observations = np.zeros((count, game.observation_size), np.float32)
        self.masks = np.zeros((count, game.num_actions), np.int8)
        self._players = np.zeros(count, np.int64)
        self._actions = np.zeros(count, np.int64)
        self._deciding = np.zeros(count, np.int8)
        self._idle = np.zeros(count, bool)

    def seed(self, seeds: np.ndarray) -> None:
        """Each game's generators from ``seeds`` (one per game, 0 .. 2**63 - 1): its deals as
        the environment's ``reset(seed)``, and its kernel-played seats' random actions from the
        game's policy generator, seeded from the same seed
        (:meth:`~cardzoo.envs.batch.GameBatch.seed`)."""
        self.batch.seed(seeds)

    def state(self, b: int) -> State:
        """Game b as a state of the game, over a copy of its row (for reading its scores and
        winners: no generator of its own)."""
        game = self.game
        assert isinstance(game, KernelGame)  # has_batch: the games with a kernel are
        return game.state_class(game.row_layout, self.batch.row(b), None)  # type: ignore[arg-type]

    def sit(self, b: int, stop: int, agents: Sequence[Agent | None]) -> None:
        """Game b's stop seat and the agent of every seat (``agents[stop]`` is ignored; ``stop``
        the number of players: no stop seat, every seat played by its agent); a heuristic the
        kernel plays draws from a copy of its agent's generator as it stands now (its memory is
        cleared by :meth:`start`, as the agent's by ``reset``)."""
        self.stops[b] = stop
        for seat, agent in enumerate(agents):
            code = (
                None
                if seat == stop or agent is None
                else kernel_policy(self.batch, agent, self.random_in_kernel)
            )
            if seat != stop and agent is None:
                raise InputError(f"{self.game.name}: seat {seat} of game {b} has no agent")
            if agent is not None and agent.uses_state:
                raise InputError(
                    f"{self.game.name}: agent {agent.name!r} searches from the game's state, "
                    "which games played many at once (packed rows) do not keep"
                )
            self.agents[b][seat] = None if seat == stop else agent
            self.codes[b, seat] = EXTERNAL_POLICY if code is None else code
            if code is not None and code != RANDOM_POLICY and self.batch.remembers:
                assert agent is not None  # only agents have codes
                other, seed = seat - (seat > stop), agent.unmade_seed()
                if seed is None:
                    self.batch.load_generator(b, other, agent.rng)
                else:  # the generator it would make, without making it
                    self.batch.seed_generator(b, other, seed)

    def start(self, games: np.ndarray) -> None:
        """A new game wherever ``games`` (bool) is true (nothing played yet)."""
        self.batch.start(games)

    def step(self, actions: np.ndarray, earned: np.ndarray, ends: np.ndarray) -> None:
        """Each game with ``actions[b] >= 0`` takes it for its stop seat (which must decide):
        ``earned[b, seat]`` is what each seat earned by it, ``ends[b]`` how the game stands;
        other games are left alone (``earned`` 0, ``ends`` running)."""
        self.batch.step(actions, earned, ends)

    def advance(
        self,
        games: np.ndarray,
        earned: np.ndarray,
        ends: np.ndarray,
        actions: np.ndarray | None = None,
    ) -> None:
        """Play every game with ``games[b]`` (bool) until its stop seat must decide or it ends:
        the kernel's seats inside the kernel, the others decided from Python in batches. With
        ``actions``, each of those games first takes ``actions[b]`` for its stop seat where it
        is >= 0 (as :meth:`step`; the stop seat must decide). Adds what each seat earned
        meanwhile to ``earned[b, seat]`` (float64, one per seat); ``ends[b]`` says how each game
        stands. One kernel call a round: it takes the round's outside decisions, plays the
        kernel's seats and writes the views of the seats to decide next."""
        active = games.copy()
        deciding = self._deciding
        taken = self._actions
        taken[:] = -1
        if actions is not None:
            taken[active] = actions[active]
        while self.batch.play_codes(
            self.stops, self.codes, active, earned, ends, self._players, taken, deciding,
            self.observations, self.masks,
        ):  # fmt: skip
            chosen = np.flatnonzero(deciding)
            players = self._players[chosen].tolist()
            seats = [(b, self.agents[b][p]) for b, p in zip(chosen.tolist(), players)]
            decide(seats, self.observations, self.masks, taken)
            np.equal(deciding, 0, out=self._idle)
            b = self.batch.first_illegal(self.masks, taken, self._idle)  # one compiled loop
            if b >= 0:
                raise RuntimeError(
                    f"{self.agents[b][self._players[b]]!r} chose action {taken[b]}, which is not "
                    f"legal in game {b}"
                )
            np.not_equal(deciding, 0, out=active)
