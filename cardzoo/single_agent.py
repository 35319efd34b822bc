"""One learning seat as a single-agent Gymnasium environment; the other seats are played by agents.

Every game is registered as ``cardzoo/<GameName>-vN`` (``import cardzoo`` first)::

    import gymnasium, cardzoo
    env = gymnasium.make("cardzoo/NobodyWantsIt-v0", opponents="random", num_players=4)

The observation is the game's float32 vector; the legal actions are in ``info["action_mask"]``
(int8) and in the environment's ``action_masks()`` method, where sb3-contrib's
``MaskablePPO`` looks for them (it reaches the method through Gymnasium's wrappers with
``get_wrapper_attr``; on what ``gymnasium.make`` returns, call ``env.unwrapped.action_masks()``).
The reward of a step is everything the learner's seat earned from its action up to its next
decision (the opponents' moves in between included).

**Actions.** An action is a Python ``int`` or a numpy integer (a scalar or a 0-d array, as
Stable-Baselines3 passes them). Anything else (``3.9``, ``"5"``, ``True``, ``None``, numpy floats)
and an action outside ``0..num_actions-1`` raise ``ValueError`` naming the action. A legal-range
action the mask forbids ends the episode with −1 for the learner (PettingZoo's classic convention;
``illegal_action="raise"`` raises ``ValueError`` instead), so random exploration and
``gymnasium.utils.env_checker.check_env`` are safe. **Decision (step after the end):**
``step()`` after the episode has ended raises ``RuntimeError`` saying to call ``reset()``
(Gymnasium leaves it undefined; playing on would score moves of a finished game), and so do
``step()``, ``action_masks()`` and ``render()`` (with a render mode) before the first ``reset()``.

**Reset options.** ``reset(options=...)`` takes the game's own options (they fix the cards; see
the game's docs). One rule, the same as the PettingZoo forms': an unknown key is reported with a
``UserWarning`` naming it and ignored (wrappers and test harnesses pass options of their own); a
bad value of a known key raises ``ValueError``; options that are not a dict raise ``ValueError``.
A seed is None or an integer >= 0 (``True`` is refused). A reset that raises changes nothing:
the episode in progress (if any) goes on, and the environment's generator is left as it was, so
the next unseeded reset deals what it would have.

**Decision (max_cycles counts decisions):** ``max_cycles`` counts the agent steps of all seats,
as the turn-based games' PettingZoo forms do, in Foxy too (whose PettingZoo forms count cards):
the view is one seat's sequence of decisions, and the default, the game's
``default_max_cycles``, lets every game end first.

**Rendering.** Everything is drawn from the learner's seat (what that seat could not see is
hidden, as in ``render_seat``). ``render_mode="rgb_array"``: ``render()`` returns the picture of
the table, an ``(H, W, 3)`` uint8 array of one size for the whole game (``Game.picture``), so
Gymnasium's ``RecordVideo`` and ``RenderCollection`` record episodes and Stable-Baselines3's
``make_vec_env``, which asks for ``"rgb_array"`` by default, renders without a warning.
``render_mode="ansi"``: ``render()`` returns the table as text. ``"human"``: the text is printed
after every ``reset()`` and ``step()``, and ``render()`` prints it and returns None. Without a
render mode, ``render()`` warns and returns None, as Gymnasium's environments do.

**Decision (no last action in the picture):** the picture's header names no last action. Between
two decisions of the learner the opponents move, and several of their moves are secret at a real
table (Foxy's numbers, Nobody Wants It's horse gifts); the table drawn shows what the learner
could see of them, as terminal play does.

**Decision (unoffered render mode):** a render mode the environment does not offer (say
``"rgb_array_list"``) is reported with a ``UserWarning`` and rendering is off (``render_mode`` is
None), as Gymnasium's own environments only warn about such modes (wrap the environment in
``gymnasium.wrappers.RenderCollection`` for a list of frames); a ``render_mode`` that is not a
string at all raises ``ValueError``.

**Decision (deal again):** when a deal ends before the learner is ever asked to decide (a seat can
be out early in some games, or the opponents may use up a small ``max_cycles``), the environment
deals again from its own generator: an episode always starts with a decision of the learner. After
:data:`MAX_DEALS` (1000) such deals in a row, ``reset()`` raises ``ValueError`` naming
``max_cycles`` and ``learner_seat`` instead of dealing for ever: a ``max_cycles`` smaller than the
agent steps the other seats always take before the learner's can never give the learner a decision
(Foxy, Minus Two, Nobody Wants It and Believe It or Not start with ``player_0``, so seat ``s`` needs
``max_cycles > s``; Henhouse starts with whoever holds the fox). Which seat acts first depends on
the game and, in Henhouse, on the deal, so the view does not refuse such a ``max_cycles`` at
construction; the error comes from the first ``reset()``, in well under a second. A deal fixed by
reset options is never dealt again: if it does not reach the learner, ``reset()`` raises
``ValueError`` at once.
"""

from __future__ import annotations

__all__ = ["SingleAgentEnv"]

import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

import gymnasium
import numpy as np

from cardzoo.agents import Agent, AgentSpec, build_agent, check_agent_name, make_agent
from cardzoo.envs import load_game
from cardzoo.envs.helpers import (
    check_choice,
    check_int,
    check_max_cycles,
    check_seed,
    known_options,
    spawn_game_rng,
)
from cardzoo.envs.registry import gym_id  # noqa: F401  (the ids' spelling, documented here)
from cardzoo.envs.rendering import RENDER_FPS
from cardzoo.errors import InputError
from cardzoo.table import Table

#: deals in a row that may end before the learner decides before ``reset()`` gives up
MAX_DEALS = 1000


class SingleAgentEnv(gymnasium.Env):
    """``game`` with the learner in ``learner_seat`` (None: a random seat every episode) and
    ``opponents`` in the other seats: one agent name or factory for all, or one per other seat.
    ``max_cycles`` counts the decisions of all seats (see the module docstring)."""

    # render_fps: what RecordVideo plays a recording at (the AEC forms' rate)
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": RENDER_FPS}

    def __init__(
        self,
        game: str,
        opponents: AgentSpec | Sequence[AgentSpec] = "random",
        learner_seat: int | None = None,
        max_cycles: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        **params: Any,
    ):
        check_choice("illegal_action", illegal_action, ["terminate", "raise"])
        self.render_mode = _offered_render_mode(render_mode, self.metadata["render_modes"])
        self.game_name = game
        self.game = load_game(game, **params)
        n = self.game.num_players
        if learner_seat is not None:
            check_int("learner_seat", learner_seat, 0, n - 1)
        self.learner_seat = learner_seat
        self.max_cycles = check_max_cycles(max_cycles, self.game.default_max_cycles)
        self.illegal_action = illegal_action
        self._opponent_specs = self._checked_opponents(opponents)
        low, high = self.game.observation_bounds()
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self._env_rng: np.random.Generator | None = None
        self.table: Table | None = None  # the game in progress, the learner's seat left empty
        self.seat = 0
        self._mask: np.ndarray | None = None  # the learner's legal actions now
        self._done = True  # no episode to step: before the first reset, or after the end

    def _checked_opponents(self, opponents: Any) -> list[AgentSpec]:
        n = self.game.num_players
        if isinstance(opponents, str) or callable(opponents):
            opponents = [opponents] * (n - 1)
        if not isinstance(opponents, Sequence):
            raise ValueError(
                f"opponents must be an agent name, a factory (game, seed) -> Agent, or a list "
                f"of them; got {opponents!r}"
            )
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: need {n - 1} agents for {n} seats, got {len(opponents)}")
        for spec in opponents:
            if callable(spec):
                continue
            if not isinstance(spec, str):
                raise ValueError(
                    f"opponents: {spec!r} is neither an agent name nor a factory (game, seed) "
                    "-> Agent"
                )
            try:
                check_agent_name(self.game_name, spec)
            except ValueError as error:
                raise ValueError(
                    f"opponents: {error}, or a factory (game, seed) -> Agent"
                ) from None
        for spec in dict.fromkeys(s for s in opponents if not callable(s)):
            try:  # built once now: a missing policy file or one of another player count is
                make_agent(self.game_name, spec, self.game, seed=0)  # refused here, not at reset
            except ValueError as error:
                raise InputError(f"opponents: {error}") from None
        return list(opponents)

    # --- gymnasium API --------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = check_seed(seed)
        options = known_options(self.game, options)  # warns about and drops unknown keys
        rng = self._env_rng
        if seed is not None or rng is None:
            rng = np.random.default_rng(seed)
        rng_state, episode = rng.bit_generator.state, self._episode()
        try:
            self._deal(rng, options)
        except BaseException:
            # A failed reset changes nothing: the episode in progress goes on, and the
            # generator deals next what it would have dealt.
            rng.bit_generator.state = rng_state
            self._restore_episode(episode)
            raise
        self._env_rng = rng
        super().reset(seed=seed)
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            self._refuse("step()")
        if type(action) is not int:  # the common case costs this one check
            action = self._integer_action(action)
        mask, table = self._mask, self.table
        assert mask is not None and table is not None  # set by reset(); _done is True before it
        if not 0 <= action < mask.shape[0]:
            raise self.game.action_error(self.state, action, mask)
        if not mask[action]:
            if self.illegal_action == "raise":
                raise self.game.action_error(self.state, action, mask)
            self._done = True
            info = {**self._info(), "illegal_action": True}
            return self._observation(), -1.0, True, False, info
        reward = self._reward_of(table.step(action))
        reward += self._play_opponents()
        terminated = bool(self.state.terminal)
        truncated = table.truncated
        self._done = terminated or truncated
        self._update_mask()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as booleans (sb3-contrib's ``MaskablePPO`` reads this)."""
        if self.state is None or self._mask is None:  # both are set by reset()
            self._refuse("action_masks()")
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat: a picture (``"rgb_array"``) or text."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='rgb_array', 'ansi' "
                "or 'human'"
            )
            return None
        if self.state is None:
            self._refuse("render()")
        if self.render_mode == "rgb_array":
            return self.game.picture(self.state, self.seat)
        text = self.game.render(self.state, self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # --- inside ---------------------------------------------------------------------------

    def _deal(self, rng: np.random.Generator, options: dict) -> None:
        """Deal until the learner has a decision (at most :data:`MAX_DEALS` deals)."""
        n = self.game.num_players
        for _ in range(MAX_DEALS):
            state = self.game.new_state(spawn_game_rng(rng), options)
            self.seat = int(rng.integers(n)) if self.learner_seat is None else self.learner_seat
            agents = self._seat_opponents(int(rng.integers(2**31)))
            self.table = Table(self.game, state, agents, self.max_cycles)
            self._play_opponents()
            if not self.table.over:
                self._done = False
                self._update_mask()
                return
            if options:  # a fixed deal that never reaches the learner cannot be dealt again
                raise ValueError(
                    f"{self.game_name}: this deal (fixed by the reset options) ends before the "
                    f"learner's seat {self.seat} ever decides (max_cycles={self.max_cycles})"
                )
        seat = "a random seat" if self.learner_seat is None else f"seat {self.learner_seat}"
        raise ValueError(
            f"{self.game_name}: in {MAX_DEALS} deals in a row the game ended or reached "
            f"max_cycles={self.max_cycles} before the learner ({seat}, learner_seat="
            f"{self.learner_seat}) had a decision; raise max_cycles"
        )

    @property
    def state(self):
        """The engine's state of the game in progress (None before the first ``reset()``)."""
        return None if self.table is None else self.table.state

    def _episode(self) -> tuple:
        """Everything ``reset()`` replaces (kept to put back if it fails)."""
        return self.table, self.seat, self._mask, self._done

    def _restore_episode(self, episode: tuple) -> None:
        self.table, self.seat, self._mask, self._done = episode

    def _seat_opponents(self, seed: int) -> list[Agent | None]:
        """An agent for every seat but the learner's (None), built for this episode."""
        others = [p for p in range(self.game.num_players) if p != self.seat]
        agents: list[Agent | None] = [None] * self.game.num_players
        for index, (player, spec) in enumerate(zip(others, self._opponent_specs)):
            agent = build_agent(self.game_name, spec, self.game, seed + index)
            agent.reset()
            agents[player] = agent
        return agents

    def _play_opponents(self) -> float:
        """Let the other seats act until the learner must decide or the game ends; return the
        learner's rewards meanwhile."""
        assert self.table is not None  # called in an episode only
        return float(self.table.play(until=self.seat)[self.seat])

    def _reward_of(self, step_rewards: np.ndarray | None) -> float:
        return 0.0 if step_rewards is None else float(step_rewards[self.seat])

    def _update_mask(self) -> None:
        self._mask = self.game.legal_mask(self.state, self.seat)

    def _integer_action(self, action: Any) -> int:
        """``action`` as a Python int if it is a numpy integer (scalar or 0-d array); anything
        else is refused: converting with ``int()`` would play 3 for 3.9 and 1 for True."""
        if isinstance(action, np.integer) or (
            isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
        ):
            return int(action)
        raise ValueError(
            f"{self.game_name}: action must be an integer in 0..{self.game.num_actions - 1}, "
            f"got {action!r} ({type(action).__name__})"
        )

    def _refuse(self, call: str) -> NoReturn:
        if self.state is None:
            raise RuntimeError(f"{call} called before reset(); call reset() first")
        raise RuntimeError(f"{call} called after the episode ended; call reset()")

    def _observation(self) -> np.ndarray:
        return self.game.observe(self.state, self.seat)

    def _info(self) -> dict:
        # A copy: step() checks actions against self._mask, and users keep what they are given.
        assert self._mask is not None  # called in an episode only
        return {"action_mask": self._mask.copy(), "seat": self.seat}


def _offered_render_mode(render_mode: Any, offered: list[str]) -> str | None:
    """``render_mode`` if offered; None (with a warning) for another string (see the module's
    Decision); ``ValueError`` for anything else."""
    if render_mode is None or render_mode in offered:
        return render_mode
    if not isinstance(render_mode, str):
        raise ValueError(f"render_mode must be None or one of {offered}, got {render_mode!r}")
    warnings.warn(
        f"render_mode={render_mode!r} is not offered by cardzoo (it offers {offered}); "
        "rendering is off",
        UserWarning,
        stacklevel=3,
    )
    return None
