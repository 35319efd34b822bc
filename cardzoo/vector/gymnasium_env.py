"""One learning seat per game, N games stepped in one call: a Gymnasium ``VectorEnv``.

Registered for the games with a vector form, so that ::

    gymnasium.make_vec(
        "cardzoo/NobodyWantsIt-v0", num_envs=64, vectorization_mode="vector_entry_point"
    )

gives a :class:`VectorEnv` (``import cardzoo`` first; without ``vectorization_mode``, Gymnasium
picks the vector entry point too). It takes the keyword arguments of the single-agent view
(:class:`cardzoo.single_agent.SingleAgentEnv`): ``opponents``, ``learner_seat``,
``max_cycles`` and the game's parameters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from cardzoo.agents import Agent, AgentSpec, agent_classes, build_agent, check_agent_name
from cardzoo.envs.batch import MAX_DEALS, OVER, RUNNING, TRUNCATED, GameBatch, opponent_seeds
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_int, known_options
from cardzoo.errors import InputError
from cardzoo.vector.multi_agent import (
    MultiAgentVectorEnv,
    checked_actions,
    checked_seeds,
    seeds_to_deal,
)
from cardzoo.vector.seated import decide, kernel_policy

__all__ = ["VectorEnv"]

AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game`` with a learner in seat ``learner_seat`` of each (None: a
    seat drawn for every episode) and ``opponents`` in the other seats, stepped together.

    Observations are ``(num_envs, observation_size)`` float32, actions one integer per game,
    rewards what the learner's seat earned from its action up to its next decision (the
    opponents' moves included), as in the single-agent view. The legal actions are in
    ``infos["action_mask"]`` (int8, one row per game) and :meth:`action_masks` (bool), where
    sb3-contrib's ``MaskablePPO`` looks for them (through :class:`cardzoo.vector.sb3.SB3VecEnv`);
    ``infos["seat"]`` is each game's learner seat.

    ``opponents``: an agent name or factory ``(game, seed) -> Agent``, or a list of one per
    other seat, as the single-agent view takes them. ``"random"`` (uniformly random legal play)
    and the game's heuristics written in its kernel (Nobody Wants It's ``hand_shedder`` and
    ``nwi_dodger``, Minus Two's ``high_cards`` and ``attacker``, Believe It or Not's ``honest``
    and ``bluffer``: :class:`~cardzoo.agents.kernel_heuristic.KernelHeuristic`) are played
    inside the compiled kernel, with no Python per decision: the fast path, taken when every
    opponent is one of them. Any other opponent (a factory, a policy, a heuristic of Python)
    puts every seat on the Python path: agents called for each decision (policy agents in one
    batched forward pass over all games). A heuristic plays the same actions on both paths.

    ``autoreset_mode``: Gymnasium's ``NEXT_STEP`` (default) or ``SAME_STEP``. **Decision (mask
    after the end):** in ``NEXT_STEP`` the step after an episode's end only resets that game and
    ignores its action; the mask given with the final observation allows every action, so that
    a masked sampler can draw the action that will be ignored. ``SAME_STEP`` gives the new
    episode's observation and mask at once, the final ones in ``infos["final_obs"]`` and
    ``infos["final_info"]`` (what Stable-Baselines3 expects).

    Seeds: ``reset(seed=s)`` seeds game i with ``s + i`` (or takes one seed per game): it deals
    the game ``SingleAgentEnv``'s AEC environment ``env.reset(seed=s + i)`` deals, and every
    later episode of game i the game that environment's next ``reset()`` deals. The learner's
    seat (when drawn) and random opponents played in the kernel use a second generator per
    game, seeded from the same seed (a ``RandomAgent`` called from Python draws from its own).
    A heuristic that draws (Minus Two's, Believe It or Not's) draws in the kernel as the agent the
    Python path builds for its seat (:func:`~cardzoo.envs.batch.opponent_seeds`), so both paths
    play the same games.

    Bad input raises :class:`~cardzoo.errors.InputError`: an action the mask forbids (vector
    learners mask their actions; **Decision:** no "terminate" mode as in the single-agent view),
    actions of the wrong shape or dtype, ``num_envs < 1``, reset options (the vector form deals
    from seeds only; fixed decks are for the single environments), opponents that search from
    the engine's state (``pimc``, ``ismcts``: the games are packed rows here). ``compiled`` as in
    :class:`~cardzoo.vector.multi_agent.MultiAgentVectorEnv`."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        opponents: AgentSpec | Sequence[AgentSpec] = "random",
        learner_seat: int | None = None,
        max_cycles: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        compiled: bool | None = None,
        render_mode: str | None = None,
        **params: Any,
    ):
        if render_mode is not None:
            raise InputError(
                f"render_mode={render_mode!r}: the vector environments do not render; render "
                "one game with the single-agent view or the AEC environment"
            )
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in AUTORESET_MODES:
            allowed = ", ".join(repr(allowed.value) for allowed in AUTORESET_MODES)
            raise InputError(
                f"autoreset_mode={autoreset_mode!r:.80} is not allowed; choose one of {allowed} "
                "(gymnasium.vector.AutoresetMode's members or their values)"
            )
        self.games = MultiAgentVectorEnv(
            game, num_envs, max_cycles, True, compiled, seats_in_kernel=True, **params
        )
        self.game_name, self.game = game, self.games.game
        self.batch = self.games.batch
        self.num_envs = self.games.num_envs
        self.max_cycles, self.compiled = self.games.max_cycles, self.games.compiled
        n = self.game.num_players
        self.learner_seat = learner_seat
        self._opponent_specs = _checked_opponents(game, opponents, n)
        self._policies = _kernel_policies(game, self.game, self._opponent_specs, self.batch)
        self._compiled_opponents = self._policies is not None
        if not self._compiled_opponents:
            self._check_opponent_agents()
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.render_mode = None
        self.single_observation_space = self.games.single_observation_space
        self.single_action_space = self.games.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        count = self.num_envs
        self._seats = np.zeros(count, np.int64)
        self._observations = np.zeros((count, self.game.observation_size), np.float32)
        self._masks = np.zeros((count, self.game.num_actions), np.int8)
        self._rewards = np.zeros(count)
        self._ends = np.zeros(count, np.int64)
        self._autoreset = np.zeros(count, bool)  # NEXT_STEP: reset these at the next step
        self._agents: list[list[Agent]] = []
        self._game_seeds: list[int | None] = [None] * count
        self._dealt = False

    # --- Gymnasium's API -----------------------------------------------------------------------

    @property
    def learner_seat(self) -> int | None:
        """The learner's seat in every game, None: drawn at each deal. Set it (as SB3's
        ``set_attr`` does) and each game takes the new seat at its next deal."""
        return self._learner_seat

    @learner_seat.setter
    def learner_seat(self, seat: int | None) -> None:
        if seat is not None:
            check_int("learner_seat", seat, 0, self.game.num_players - 1)
        self._learner_seat = None if seat is None else int(seat)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode in every game (see the class docstring for ``seed``), or, with
        Gymnasium's ``options={"reset_mask": mask}`` (bool, one per game), in the games where
        ``mask`` is true only (seeded from ``seed``'s entries for them; the other games go on as
        they were)."""
        self.games._check_open("reset")
        seeds = checked_seeds(seed, self.num_envs)
        games = self._reset_mask(options)
        if isinstance(options, Mapping) and "reset_mask" in options:
            options = {key: value for key, value in options.items() if key != "reset_mask"}
        if known_options(self.game, options):
            raise InputError(
                f"{self.game_name}: the vector environments deal from seeds only; reset options "
                "(fixed decks) are for the single-agent view and the AEC environment"
            )
        seeds = seeds_to_deal(seeds, self.num_envs, self._dealt)
        if seeds is not None:
            if games is not None:  # the games left alone keep their generators
                seeds = [own if chosen else None for own, chosen in zip(seeds, games.tolist())]
            self._seed(seeds)
        if games is None:
            games = np.ones(self.num_envs, bool)
        self._play(np.where(games, -1, -2))
        self._dealt = True
        self._autoreset[games] = False
        self._observe()
        self._masks[self._autoreset] = 1  # NEXT_STEP's Decision, for games still to reset
        return self._observations.copy(), self._infos()

    def _reset_mask(self, options: Any) -> np.ndarray | None:
        """``options["reset_mask"]`` checked as Gymnasium checks it (a bool numpy array, one per
        game, at least one true), or None where there is none; the first reset deals every game."""
        if not isinstance(options, Mapping) or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
            raise InputError(f"options['reset_mask'] must be a numpy bool array, got {mask!r:.80}")
        if mask.shape != (self.num_envs,) or not mask.any():
            raise InputError(
                f"options['reset_mask'] must have shape ({self.num_envs},) with at least one "
                f"True, got shape {mask.shape} with {int(mask.sum())} True"
            )
        if not self._dealt and not mask.all():
            raise InputError("options['reset_mask']: the first reset deals every game")
        return mask.copy()

    @property
    def np_random_seed(self) -> tuple[int | None, ...]:
        """Each game's seed from its last seeded reset (from fresh entropy where a reset gave it
        none the first time; None before the first reset), as Gymnasium's ``SyncVectorEnv``
        gives its environments' seeds."""
        return tuple(self._game_seeds)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per game for its learner's seat (ignored, with any value, for a game
        that ``NEXT_STEP`` resets now)."""
        self.games._check_open("step")
        if not self._dealt:
            raise RuntimeError("step() called before reset(); call reset() first")
        checked = checked_actions(self.batch, actions, self._masks, self._seats, self._autoreset)
        checked[self._autoreset] = -1  # a new episode
        self._play(checked)
        rewards = self._rewards.copy()
        terminated, truncated = self._ends == OVER, self._ends == TRUNCATED
        ended = terminated | truncated
        self._observe()
        infos: dict[str, Any] = {}
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._masks[ended] = 1  # any action: it is ignored (the class docstring's Decision)
            self._autoreset = ended
        elif ended.any():  # SAME_STEP: the new episodes at once
            infos = self._final_infos(ended)
            self._play(np.where(ended, -1, -2))
            self._observe()
        return self._observations.copy(), rewards, terminated, truncated, {**infos, **self._infos()}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions)`` bool
        (sb3-contrib's ``MaskablePPO`` reads this)."""
        if not self._dealt:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        return self._masks.astype(bool)

    @property
    def observation_layout(self) -> dict[str, slice]:
        """Field name -> slice of an observation vector (the game's layout)."""
        return self.game.observation_layout

    def close_extras(self, **kwargs: Any) -> None:
        """Gymnasium's ``close()`` calls this once: the games are let go, and ``reset`` and
        ``step`` refuse to run after it."""
        self.games.close()

    # --- inside ------------------------------------------------------------------------------

    def _seed(self, seeds: list[int | None]) -> None:
        """The games' generators from ``seeds`` (a second generator per game for the learner's
        seat and random opponents among them: the batch's policy generator), and the seeds of
        opponent agents, from the same seed; a game whose seed is None keeps its own."""
        if not self._compiled_opponents:
            kept = self._agents or [[] for _ in seeds]
            self._agents = [
                kept[b] if seed is None else self._seat_agents(seed) for b, seed in enumerate(seeds)
            ]
        self.batch.seed(seeds)
        for b, seed in enumerate(seeds):
            if seed is not None:
                self._game_seeds[b] = seed

    def _check_opponent_agents(self) -> None:
        """The opponents played from Python, built once when the environment is made: a saved
        policy that cannot play refuses here, and so does an agent that searches from the
        engine's state (``uses_state``): the vector forms keep their games as packed rows."""
        for agent in self._seat_agents(0):
            if agent.uses_state:
                raise InputError(
                    f"{self.game_name}: opponent {agent.name!r} searches from the game's state, "
                    "which the vector environments do not keep; play it in the single-agent "
                    "view (cardzoo.single_agent.SingleAgentEnv)"
                )

    def _seat_agents(self, seed: int) -> list[Agent]:
        """One agent per other seat of one game (in seat order, the learner's left out), seeded
        as the kernel seeds the generators of the heuristics it plays."""
        seeds = opponent_seeds(seed, len(self._opponent_specs))
        return [
            build_agent(self.game_name, spec, self.game, agent_seed)
            for spec, agent_seed in zip(self._opponent_specs, seeds, strict=True)
        ]

    def _play(self, actions: np.ndarray) -> None:
        """The learner's ``actions`` (-1: a new episode, < -1: leave the game alone), then the
        opponents up to the learner's next decision."""
        if self._compiled_opponents:
            self.batch.step_seats(
                self._seats,
                actions,
                -1 if self.learner_seat is None else self.learner_seat,
                self._rewards,
                self._ends,
                self._policies,
            )
        else:
            self._play_agents(actions)

    def _play_agents(self, actions: np.ndarray) -> None:
        """:meth:`_play` with opponents called from Python (batched where they can be)."""
        count, n = self.num_envs, self.game.num_players
        everyone = np.arange(count)
        all_rewards = np.zeros((count, n))
        ends = np.zeros(count, np.int64)
        self.batch.step(np.where(actions >= 0, actions, -1), all_rewards, ends)
        self._rewards[:] = all_rewards[everyone, self._seats]
        self._ends[:] = np.where(actions >= 0, ends, RUNNING)
        new = actions == -1
        deals = np.zeros(count, np.int64)
        to_deal = new.copy()
        players = np.zeros(count, np.int64)
        while True:
            if to_deal.any():
                self._deal(to_deal, deals)
            waiting = (self._ends == RUNNING) & (self.batch.current_players(players) != self._seats)
            if not waiting.any():
                return
            self.batch.observe(np.where(waiting, -1, -2), self._observations, self._masks)
            opponent_actions = self._opponent_actions(np.flatnonzero(waiting), players)
            self.batch.step(opponent_actions, all_rewards, ends)
            self._rewards[waiting] += all_rewards[waiting, self._seats[waiting]]
            self._ends[waiting] = ends[waiting]
            to_deal = new & (self._ends != RUNNING)  # ended before the learner decided

    def _deal(self, games: np.ndarray, deals: np.ndarray) -> None:
        deals[games] += 1
        if (deals > MAX_DEALS).any():
            raise InputError(
                f"{self.game_name}: in {MAX_DEALS} deals in a row a game ended or reached "
                f"max_cycles={self.max_cycles} before the learner had a decision; raise "
                "max_cycles"
            )
        self.batch.start(games)
        self._rewards[games] = 0.0
        self._ends[games] = RUNNING
        for b in np.flatnonzero(games).tolist():
            seat = self.learner_seat
            if seat is None:
                seat = self.batch.draw(b, self.game.num_players)
            self._seats[b] = seat
            for agent in self._agents[b]:
                agent.reset()

    def _opponent_actions(self, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """The actions of the opponents to decide in ``games`` (-1 in the other games)."""
        actions = np.full(self.num_envs, -1, np.int64)
        seats = []
        for b in games.tolist():
            player, seat = int(players[b]), int(self._seats[b])
            seats.append((b, self._agents[b][player - (player > seat)]))
        decide(seats, self._observations, self._masks, actions)
        return actions

    def _observe(self) -> None:
        self.batch.observe(self._seats, self._observations, self._masks)

    def _infos(self, games: np.ndarray | None = None) -> dict[str, Any]:
        """The infos of every game, or of ``games`` (bool) only: Gymnasium's vector layout, a
        value per game and its ``_`` flag, the rows of the other games 0 and unflagged."""
        shown = np.ones(self.num_envs, bool) if games is None else games
        return {
            "action_mask": np.where(shown[:, None], self._masks, 0).astype(np.int8),
            "_action_mask": shown.copy(),
            "seat": np.where(shown, self._seats, 0),
            "_seat": shown.copy(),
        }

    def _final_infos(self, ended: np.ndarray) -> dict[str, Any]:
        """SAME_STEP: the final observation (an object array, as Gymnasium's vector
        environments give it) and infos of the games that ended."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for b in np.flatnonzero(ended).tolist():
            final_obs[b] = self._observations[b].copy()
        return {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": self._infos(ended),
            "_final_info": ended.copy(),
        }


def _checked_opponents(game: str, opponents: Any, num_players: int) -> list[AgentSpec]:
    """One agent spec per other seat (as the single-agent view checks them)."""
    if isinstance(opponents, str) or callable(opponents):
        opponents = [opponents] * (num_players - 1)
    if not isinstance(opponents, Sequence) or len(opponents) != num_players - 1:
        raise InputError(
            f"opponents: an agent name, a factory (game, seed) -> Agent, or a list of "
            f"{num_players - 1} of them; got {opponents!r:.80}"
        )
    for spec in opponents:
        if isinstance(spec, str):
            check_agent_name(game, spec)
        elif not callable(spec):
            raise InputError(f"opponents: {spec!r} is neither an agent name nor a factory")
    return list(opponents)


def _kernel_policies(
    game_name: str, game: Game, specs: list[AgentSpec], batch: GameBatch
) -> np.ndarray | None:
    """Each opponent's code among the policies the game's kernel plays (random, and the
    heuristics written in it: :func:`~cardzoo.vector.seated.kernel_policy`), or None if one of
    them is not played there (a factory, a policy, a heuristic of Python)."""
    classes = agent_classes(game_name)
    codes = []
    for spec in specs:
        agent_class = classes.get(spec) if isinstance(spec, str) else None
        code = None if agent_class is None else kernel_policy(batch, agent_class)
        if code is None:
            return None
        codes.append(code)
    return np.array(codes, np.int64)
