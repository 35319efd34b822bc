"""The wrapper of every game's ``env()`` (:func:`wrap`): PettingZoo's order checks, with the
attributes the AEC loop reads at every step forwarded directly.

**Decision:** :class:`OrderEnforcingWrapper` does what PettingZoo's ``OrderEnforcingWrapper``
does, but is not that class: it derives from PettingZoo's public ``BaseWrapper`` and keeps its own
record of whether a game is set up and whether the agent loop may move on. Deriving from
PettingZoo's class meant reading and writing its private attributes (``_has_reset``,
``_has_updated``, and ``iters_til_term`` of its iterator), which PettingZoo may change in any
release, and ``pyproject.toml`` puts no upper bound on PettingZoo. Its errors and warnings are
PettingZoo's own (``EnvLogger``), and a test plays every call out of order through both wrappers
side by side, so a change of PettingZoo's behaviour shows as a failing test, not as a silent
difference.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.env_logger import EnvLogger

if TYPE_CHECKING:
    from cardzoo.envs.aec import CardGameEnv

#: what PettingZoo's ``OrderEnforcingWrapper`` refuses to read before a reset
NEEDS_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
)


#: what the AEC loop reads at every step: forwarded straight to the wrapped environment
FORWARDED = (
    "agent_selection",
    "agents",
    "terminations",
    "truncations",
    "infos",
    "rewards",
    "_cumulative_rewards",
)


def _forward(name: str) -> property:
    def get(self):
        if not self._game_set_up and not self._learn_of_new_game() and name in NEEDS_RESET:
            raise AttributeError(name)  # Python then calls __getattr__, which says why
        return getattr(self.env, name)

    return property(get, doc=f"the wrapped environment's ``{name}``")


def _forwarding(*names: str):
    """A class decorator: each of ``names`` read straight from the wrapped environment."""

    def decorate(cls: type) -> type:
        for name in names:
            setattr(cls, name, _forward(name))
        return cls

    return decorate


@_forwarding(*FORWARDED)
class OrderEnforcingWrapper(BaseWrapper):
    """The order checks of PettingZoo's ``OrderEnforcingWrapper`` over a
    :class:`~cardzoo.envs.aec.CardGameEnv`: before a game is set up, reading ``agents``,
    ``agent_selection``, ``rewards`` & co. raises ``AttributeError`` and ``step``, ``observe``,
    ``render``, ``state`` and ``agent_iter`` raise PettingZoo's errors; a ``step`` after every
    agent has stepped out warns and does nothing; an ``agent_iter`` loop without a ``step`` in
    between raises ``AssertionError``.

    The attributes the AEC loop reads at every step are forwarded directly: a wrapper reaching
    them through ``__getattr__``, which Python calls only after a normal lookup has failed, made
    eight such lookups per step the largest single cost of a wrapped step (measured by
    benchmarks/throughput.py --profile).

    Also: the wrapper counts as reset only once a ``reset`` has succeeded (PettingZoo's sets its
    flag first, so after a first reset that raised, ``step`` failed inside the environment
    instead of saying "reset first"); a successful ``restore``, of the wrapper or of
    ``env.unwrapped``, counts as a reset. The wrapper learns of a game set up on the unwrapped
    environment from its counter ``games_set_up``, checked only where a call would be refused
    (never on the path of a normal step).
    """

    def __init__(self, env: CardGameEnv):
        #: whether a game is set up (a reset or a restore has succeeded)
        self._game_set_up = False
        #: whether the agent loop may move on: a step or a new game since it last did
        self._stepped = False
        self._games_seen = env.games_set_up
        super().__init__(env)

    def _learn_of_new_game(self) -> bool:
        """Whether a game is set up, counting resets and restores made on ``env.unwrapped``
        since the wrapper last looked (each counts as a reset for the order checks)."""
        if self.env.games_set_up != self._games_seen:
            self._games_seen = self.env.games_set_up
            self._game_set_up = self._stepped = True
        return self._game_set_up

    def __getattr__(self, name: str) -> Any:
        if name in NEEDS_RESET and "env" in self.__dict__ and not self._learn_of_new_game():
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._learn_of_new_game()

    def restore(self, snapshot: Mapping | str | bytes) -> None:
        """:meth:`CardGameEnv.restore <cardzoo.envs.aec.CardGameEnv.restore>`; the environment
        then counts as reset."""
        self.env.restore(snapshot)
        self._learn_of_new_game()

    # The three calls of every step of the AEC loop go straight to the wrapped environment.
    def last(self, observe: bool = True):
        if not self._game_set_up and not self._learn_of_new_game():
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._game_set_up and not self._learn_of_new_game():
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._stepped = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._stepped = True
            self.env.step(action)

    def observe(self, agent: str):
        if not self._learn_of_new_game():
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def state(self):
        if not self._learn_of_new_game():
            EnvLogger.error_state_before_reset()
        return self.env.state()

    def render(self):
        if not self._learn_of_new_game():
            EnvLogger.error_render_before_reset()
        return self.env.render()

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._game_set_up and not self._learn_of_new_game():
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)


class _AgentIterable:
    """What ``agent_iter`` returns: a new :class:`_AgentIterator` at every ``iter()``."""

    def __init__(self, env: OrderEnforcingWrapper, max_iter: int):
        self.env, self.max_iter = env, max_iter

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(Iterator[str]):
    """PettingZoo's order-enforcing agent iterator: the agent to act, while any is left and at
    most ``max_iter`` times, each time only after a ``step`` (or a new game); it reads the
    wrapped environment directly."""

    def __init__(self, env: OrderEnforcingWrapper, max_iter: int):
        self.env, self.left = env, max_iter

    def __next__(self) -> str:
        raw = self.env.env
        if not raw.agents or self.left <= 0:
            raise StopIteration
        if not self.env._stepped:
            self.env._learn_of_new_game()  # a reset or restore on env.unwrapped is an update too
        assert self.env._stepped, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._stepped = False
        self.left -= 1
        return raw.agent_selection


def wrap(raw: CardGameEnv) -> AECEnv:
    """The user-facing environment, with PettingZoo's classic conventions:

    - an illegal action (in range, masked out) ends the game exactly as PettingZoo's
      ``TerminateIllegalWrapper(env, illegal_reward=-1)`` does: −1 for the offender, 0 for
      everybody else, every agent terminated *and* truncated, the agents then stepping out with
      ``None`` (``raw.illegal_action_by`` names the offender);
    - an out-of-range action or a non-integer raises ``ValueError``;
    - calls out of order are errors, as PettingZoo's ``OrderEnforcingWrapper`` makes them
      (:class:`OrderEnforcingWrapper`).

    The first two are done by the base class itself rather than by PettingZoo's
    ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``: each wrapper layer costs an
    attribute lookup chain on every access, which made the wrapped environment four times slower
    than PettingZoo's own rock-paper-scissors (measured, see benchmarks/). The behaviour is the
    same (a test plays both side by side), with two **Decisions**: an out-of-range action is a
    ``ValueError`` even under ``python -O``; and once the game is over every agent's action mask
    is all zero, as at every end of a cardzoo game (the wrapper would leave the offender's last
    mask in its observation)."""
    raw.illegal_action = "terminate"
    return OrderEnforcingWrapper(raw)
