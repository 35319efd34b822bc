"""The PettingZoo environments of Foxy over one engine (:mod:`cardzoo.envs.foxy.rules`).

- :class:`raw_env` / :func:`env`: the AEC form (the common AEC base,
  :class:`cardzoo.envs.aec.CardGameEnv`): the players write one after
  another, in seat order, for every card; nobody's observation shows another's number.
- :class:`parallel_env`: the ``ParallelEnv`` form: every player writes on every card at once; the
  actions are stepped through the same engine in seat order, so both forms play the same game
  (the same seed deals the same stack).

Both forms count ``max_cycles`` in cards (one cycle = every player writes once), as PettingZoo's
simultaneous games do; the default, 20, is the whole stack, so a game always ends first.
User guide: ``docs/foxy.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.env_logger import EnvLogger

from cardzoo.envs.aec import AgentsAndSpaces, CardGameEnv
from cardzoo.envs.foxy.rules import STACK_SIZE, Foxy, FoxyState
from cardzoo.envs.helpers import check_choice, check_max_cycles, deal_for_reset
from cardzoo.envs.rendering import RENDER_FPS, RENDER_MODES, Rendering
from cardzoo.envs.restore import ENV_SNAPSHOT_KEYS, restored_agents
from cardzoo.envs.snapshot import (
    SNAPSHOT_FORMAT,
    check_format,
    check_keys,
    decode_generator,
    decode_int,
    encode_generator,
    invalid,
    snapshot_data,
)
from cardzoo.envs.wrapper import wrap

#: what the parallel env's reset returns: each agent's observation (``observation`` and
#: ``action_mask``) and info
ResetResult: TypeAlias = tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]
#: what its step returns: observations, rewards, terminations, truncations and infos by agent
StepResult: TypeAlias = tuple[
    dict[str, dict[str, np.ndarray]],
    dict[str, float],
    dict[str, bool],
    dict[str, bool],
    dict[str, dict[str, Any]],
]

#: what an illegal action does: see :class:`parallel_env` (``"drop_circle"``: for test kits
#: that play unmasked random actions, such as PettingZoo's ``max_cycles_test``)
ILLEGAL_ACTION_MODES = ("terminate", "raise", "drop_circle")
#: the keys of :meth:`parallel_env.snapshot`
PARALLEL_SNAPSHOT_KEYS = ("format", "engine", "env_rng", "illegal_action_by")


def drop_illegal_circle(game: Foxy, state: FoxyState, player: int, action: Any) -> Any:
    """``illegal_action="drop_circle"``: a circled number that ``player`` may not circle (the
    circle is used, or it is a solo game) is written without its circle; any other action is
    left as it is (and checked as usual)."""
    is_int = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    circled = is_int and game.max_guess < action < game.num_actions
    if circled and not game.choice_mask(state, player)[action]:
        return int(action) - game.max_guess - 1
    return action


def cards_completed(state: FoxyState | None) -> int:
    """Cards every player has written on: the cycles of both environment forms."""
    if state is None:
        return 0
    return STACK_SIZE if state.terminal else state.turned - 1


class raw_env(CardGameEnv):
    """Foxy (AEC) without wrappers: an illegal action raises ``ValueError`` (``env()`` sets
    :attr:`illegal_action` as its parameter says).

    ``max_cycles`` counts cards, as in :class:`parallel_env` (default 20: the whole stack): with
    ``max_cycles=4`` every player writes on four cards, then the game is truncated.
    ``num_steps`` is read from the game (the cards completed), so snapshots, restores and the
    base class's truncation all count cards."""

    game_class = Foxy
    metadata = {**CardGameEnv.metadata, "name": "foxy_v0"}

    def __init__(self, render_mode: str | None = None, max_cycles: int | None = None, **params):
        cards = STACK_SIZE if max_cycles is None else max_cycles
        super().__init__(render_mode=render_mode, max_cycles=cards, **params)

    @property
    def num_steps(self) -> int:
        """The cycles done: cards every player has written on."""
        return cards_completed(self.state_)

    def step(self, action: int) -> None:
        if self.illegal_action == "drop_circle" and self.state_ is not None:
            action = drop_illegal_circle(self.game, self.state_, self.state_.current_player, action)
        super().step(action)

    @num_steps.setter
    def num_steps(self, value: int) -> None:
        # The base class counts agent steps here; Foxy's count follows from the game state.
        pass

    def restore(self, snapshot: Mapping | str | bytes) -> None:
        """:meth:`CardGameEnv.restore`, also refusing a ``num_steps`` that is not the number of
        cards the snapshot's game has completed (it decides truncation)."""
        what = "foxy_v0 environment snapshot"
        data = snapshot_data(snapshot, what)
        if set(data) == set(ENV_SNAPSHOT_KEYS):  # otherwise the base class says what is wrong
            check_format(data, what)
            cards = cards_completed(self.game.restore(data["engine"]))
            num_steps = decode_int(data["num_steps"], f"{what}: num_steps", 0)
            if num_steps != cards:
                raise invalid(
                    what,
                    f"num_steps={num_steps}, but its game has completed {cards} cards "
                    "(Foxy counts cycles in cards)",
                )
        super().restore(data)


def env(illegal_action: str = "terminate", **kwargs: Any) -> AECEnv:
    """Foxy (AEC) with PettingZoo's classic wrappers (see :func:`cardzoo.envs.wrapper.wrap`).
    ``illegal_action`` is as in :class:`parallel_env`: ``"terminate"`` (default, PettingZoo's
    classic convention), ``"raise"`` or ``"drop_circle"``."""
    check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
    raw = raw_env(**kwargs)
    wrapped = wrap(raw)
    raw.illegal_action = illegal_action
    return wrapped


class parallel_env(Rendering, AgentsAndSpaces, ParallelEnv):
    """Foxy as a PettingZoo ``ParallelEnv``: ``step`` takes every live player's action for the
    current card.

    Keyword arguments are the game's parameters plus:

    - ``render_mode``: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (see
      :mod:`cardzoo.envs.rendering`; :meth:`render_seat` draws one player's view);
    - ``max_cycles``: cards before the game is truncated (default 20, the whole stack, so a game
      always ends first); truncation gives every player reward 0;
    - ``illegal_action``: what an illegal action (one the player's ``action_mask`` forbids, such
      as a second circle) does. ``"terminate"`` (default, PettingZoo's classic convention, the
      same as the AEC ``env()``): the game ends at once, no action of that step is applied, every
      offender gets −1 and everybody else 0, all players get ``terminated=True`` and
      ``truncated=True`` (as PettingZoo's ``TerminateIllegalWrapper`` reports it), the offenders'
      infos hold ``"illegal_action": True`` and :attr:`illegal_action_by` lists them; PettingZoo
      logs a warning (``EnvLogger.suppress_output()`` silences it). ``"raise"`` (for debugging):
      ``ValueError`` naming the player, the action and the legal ones, nothing applied.
      ``"drop_circle"``: a circle the player may not make (the second one, or any in solo) is
      dropped and the number written plain; the game goes on. Foxy's only illegal actions are
      such circles, so with it every action in range is played. It exists for test kits that
      play unmasked random actions, above all PettingZoo's ``max_cycles_test``: half of Foxy's
      actions are circled, so under the classic convention random play ends a game at a
      player's second circle, almost always before the test's fourth card, and the test fails.

    Actions for the wrong set of agents, non-integers and out-of-range actions are always a
    ``ValueError`` (a malformed call, not a move), with nothing applied.

    ``observations[agent]`` is ``{"observation", "action_mask"}``, and
    ``infos[agent]["action_mask"]`` repeats the mask, on reset and on every step (all zero once
    the game is over).

    **Decision:** when several players act illegally on the same card, every one of them gets −1:
    they chose at the same time, so no seat order decides who offended first.

    Training with Stable-Baselines3 through SuperSuit's vector pipeline: SB3's ``MlpPolicy``
    wants a ``Box`` observation, so keep only the vector (the mask stays in ``infos``)::

        import supersuit as ss
        env = ss.observation_lambda_v0(
            foxy_v0.parallel_env(),
            lambda observation, space: observation["observation"],
            lambda space: space["observation"],
        )
        env.reset(seed=0)
        venv = ss.pettingzoo_env_to_vec_env_v1(env)
        venv = ss.concat_vec_envs_v1(venv, 4, num_cpus=1, base_class="stable_baselines3")
        model = PPO("MlpPolicy", venv)

    or give the dict observation to ``PPO("MultiInputPolicy", venv)``. Plain PPO does not mask
    actions: its illegal actions end games with −1 (the default ``illegal_action``). SuperSuit's
    vector env has no ``seed()``, so do not pass ``seed=`` to PPO: seed the env's ``reset``
    before vectorising, and torch with ``stable_baselines3.common.utils.set_random_seed``.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS, "name": "foxy_v0"}

    def __init__(
        self,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_action: str = "terminate",
        **params,
    ):
        check_choice("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.game = Foxy.with_params(params, ("render_mode", "max_cycles", "illegal_action"))
        self.max_cycles = check_max_cycles(max_cycles, STACK_SIZE)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self._set_up_agents()
        self._no_actions = np.zeros(self.game.num_actions, np.int8)
        self.agents: list[str] = []
        #: the agents whose illegal action ended the game (``illegal_action="terminate"``)
        self.illegal_action_by: list[str] = []
        self.state_: FoxyState | None = None
        self._rng: np.random.Generator | None = None
        self._last_moves: tuple | None = None

    @property
    def num_steps(self) -> int:
        """The cycles done: cards every player has written on."""
        return cards_completed(self.state_)

    # --- reset and step -------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> ResetResult:
        # As CardGameEnv.reset (one seed deals the same stack in both forms): seed and options
        # are checked and the game dealt before anything changes, so a reset that raises leaves
        # the environment, its generator included, as it was.
        env_rng, state = deal_for_reset(self.game, seed, options, self._rng)
        self._rng, self.state_ = env_rng, state
        self.illegal_action_by = []
        self._last_moves = None
        self.agents = self.possible_agents[:]
        observations = self._observations(self.agents)
        return observations, self._infos(observations)

    def step(self, actions: dict[str, Any]) -> StepResult:
        if self.state_ is None:
            raise RuntimeError("foxy: step() called before reset(); call reset() first")
        if not self.agents:
            raise RuntimeError("foxy: the game is over; call reset() to start a new one")
        self._check_actions(actions)
        if self.illegal_action == "drop_circle":
            actions = {
                agent: drop_illegal_circle(
                    self.game, self.state_, self.agent_name_mapping[agent], action
                )
                for agent, action in actions.items()
            }
        offenders = [agent for agent in self.agents if not self._legal(agent, actions[agent])]
        if offenders and self.illegal_action == "raise":
            agent = offenders[0]
            mask = self.game.choice_mask(self.state_, self.agent_name_mapping[agent])
            raise self._illegal_action_error(agent, actions[agent], mask)
        result = self._end_by_illegal_actions(offenders) if offenders else self._play_card(actions)
        if self.render_mode == "human":
            self.render()
        return result

    def _play_card(self, actions: dict[str, Any]) -> StepResult:
        live = self.agents
        self._last_moves = tuple((agent, actions[agent]) for agent in live)  # for pictures
        rewards = np.zeros(self.game.num_players)
        for agent in live:  # seat order: exactly the AEC order
            step_rewards = self.game.apply(self.state_, int(actions[agent]))
            if step_rewards is not None:
                rewards = step_rewards
        ended = bool(self.state_.terminal)
        truncated = not ended and self.num_steps >= self.max_cycles
        if ended or truncated:
            self.agents = []
        observations = self._observations(live)
        reward_of = {agent: float(rewards[self.agent_name_mapping[agent]]) for agent in live}
        terminations = dict.fromkeys(live, ended)
        truncations = dict.fromkeys(live, truncated)
        return observations, reward_of, terminations, truncations, self._infos(observations)

    def _end_by_illegal_actions(self, offenders: list[str]) -> StepResult:
        """PettingZoo's classic convention: the game ends, −1 for each offender, 0 for the rest."""
        EnvLogger.warn_on_illegal_move()
        live = self.agents
        self.illegal_action_by = offenders
        self.agents = []
        observations = self._observations(live)
        rewards = {agent: -1.0 if agent in offenders else 0.0 for agent in live}
        infos = self._infos(observations)
        for agent in offenders:
            infos[agent]["illegal_action"] = True
        return observations, rewards, dict.fromkeys(live, True), dict.fromkeys(live, True), infos

    def _check_actions(self, actions: dict[str, Any]) -> None:
        """``ValueError`` unless ``actions`` holds one integer in range for each live agent."""
        if not isinstance(actions, dict) or set(actions) != set(self.agents):
            given = sorted(actions) if isinstance(actions, dict) else repr(actions)
            raise ValueError(
                f"foxy: step needs a dict with one action for each of {self.agents}, got {given}"
            )
        for agent in self.agents:
            action = actions[agent]
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise ValueError(f"foxy: action of {agent} must be an integer, got {action!r}")
            if not 0 <= action < self.game.num_actions:
                raise ValueError(
                    f"foxy: action {action} of {agent} is out of range "
                    f"(0..{self.game.num_actions - 1})"
                )

    def _legal(self, agent: str, action: int) -> bool:
        return bool(self.game.choice_mask(self.state_, self.agent_name_mapping[agent])[action])

    def _illegal_action_error(self, agent: str, action: int, mask: np.ndarray) -> ValueError:
        legal = np.flatnonzero(mask)
        return ValueError(
            f"foxy: action {action} ({self.game.action_name(int(action))}) of {agent} is "
            f"illegal; legal actions: {legal[0]}..{legal[-1]}"
            + ("" if len(legal) == self.game.num_actions else " (the circle is used)")
        )

    def _observations(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        """The observations of ``agents``; their masks are all zero once the game is over."""
        state, over = self.state_, not self.agents
        observations = {}
        for agent in agents:
            player = self.agent_name_mapping[agent]
            mask = self._no_actions.copy() if over else self.game.choice_mask(state, player)
            observations[agent] = {
                "observation": self.game.observe(state, player),
                "action_mask": mask,
            }
        return observations

    @staticmethod
    def _infos(observations: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, Any]]:
        # A new dict per agent: vector wrappers (SuperSuit's) add their own keys to infos.
        return {agent: {"action_mask": obs["action_mask"]} for agent, obs in observations.items()}

    # --- snapshot and restore -------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """A JSON-serialisable picture of the game in progress (always at a card boundary), the
        environment's generator and who ended the game by an illegal action, with the snapshot
        format version; :meth:`restore` continues from it."""
        if self.state_ is None:
            raise RuntimeError("foxy: snapshot() called before reset(); call reset() first")
        return {
            "format": SNAPSHOT_FORMAT,
            "engine": self.game.snapshot(self.state_),
            "env_rng": encode_generator(self._rng),
            "illegal_action_by": list(self.illegal_action_by),
        }

    def restore(self, snapshot: Mapping | str | bytes) -> None:
        """Continue from a :meth:`snapshot` (the dict, after a JSON round trip or not, or its
        JSON text) as if the game had been played up to it, in this environment or a new one
        (no ``reset()`` needed first).

        Everything is checked before anything changes: the format version, the engine state
        (see :meth:`cardzoo.envs.core.Game.restore`), that it stops between two cards, the
        generator and the offenders. A bad snapshot raises ``ValueError`` and leaves the
        environment exactly as it was. The agents are not stored but follow from the snapshot:
        none if the game is over by the rules, was ended by an illegal action, or has reached
        *this* environment's ``max_cycles``; otherwise every player."""
        state, env_rng, offenders = self._read_snapshot(snapshot)
        over = bool(state.terminal) or bool(offenders) or cards_completed(state) >= self.max_cycles
        # Everything is valid: from here on nothing can fail.
        self.state_, self._rng, self.illegal_action_by = state, env_rng, offenders
        self._last_moves = None
        self.agents = [] if over else self.possible_agents[:]

    def _read_snapshot(self, snapshot: Any) -> tuple[FoxyState, np.random.Generator, list[str]]:
        """The state, generator and offenders a snapshot of this form describes."""
        what = "foxy_v0 parallel_env snapshot"
        data = snapshot_data(snapshot, what)
        if "engine" not in data and "state" in data:
            raise invalid(what, "this is a game's snapshot (game.snapshot); pass env.snapshot()")
        if set(data) == set(ENV_SNAPSHOT_KEYS):
            raise invalid(what, "this is a snapshot of the AEC form (env(), raw_env())")
        check_keys(data, PARALLEL_SNAPSHOT_KEYS, what)
        check_format(data, what)
        state = self.game.restore(data["engine"])
        if state.current_player != 0 and not state.terminal:
            raise invalid(
                what,
                f"it stops in the middle of a card (player_{state.current_player} to write); "
                "the parallel form steps whole cards",
            )
        env_rng = decode_generator(data["env_rng"], f"{what}: env_rng")
        offenders = restored_agents(
            self.possible_agents, data["illegal_action_by"], f"{what}: illegal_action_by"
        )
        if offenders and state.terminal:
            raise invalid(what, "a game over by the rules was not ended by an illegal action")
        return state, env_rng, offenders
