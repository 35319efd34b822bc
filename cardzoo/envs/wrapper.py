"""The wrapper of every game's ``env()``: PettingZoo's order checks, and the attributes the AEC
loop reads at every step forwarded directly (:func:`wrap`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

if TYPE_CHECKING:
    from cardzoo.envs.aec import CardGameEnv


def _forward(name: str) -> property:
    def get(self):
        if not self._has_reset and not self._learn_of_new_game() and name != "_cumulative_rewards":
            raise AttributeError(name)  # Python then calls __getattr__: PettingZoo's own error
        return getattr(self.env, name)

    return property(get, doc=f"the wrapped environment's ``{name}``")


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the attributes the AEC loop reads at every
    step forwarded directly. The parent reaches them through ``__getattr__``, which Python calls
    only after a normal lookup has failed: eight such lookups per step were the largest single
    cost of a wrapped step (measured by benchmarks/throughput.py --profile).

    Also: the wrapper counts as reset only once a ``reset`` has succeeded (PettingZoo's sets its
    flag first, so after a first reset that raised, ``step`` failed inside the environment
    instead of saying "reset first"); a successful ``restore``, of the wrapper or of
    ``env.unwrapped``, counts as a reset. The wrapper learns of a game set up on the unwrapped
    environment from its counter ``games_set_up``, checked only where the parent would refuse
    a call (never on the path of a normal step).
    """

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    rewards = _forward("rewards")
    _cumulative_rewards = _forward("_cumulative_rewards")

    def __init__(self, env: CardGameEnv):
        self._games_seen = env.games_set_up
        super().__init__(env)

    def _learn_of_new_game(self) -> bool:
        """Whether a game is set up, counting resets and restores made on ``env.unwrapped``
        since the wrapper last looked (each counts as a reset for the order checks)."""
        if self.env.games_set_up != self._games_seen:
            self._games_seen = self.env.games_set_up
            self._has_reset = self._has_updated = True
        return self._has_reset

    def __getattr__(self, name: str) -> Any:
        if "env" in self.__dict__ and not self.__dict__.get("_has_reset", True):
            self._learn_of_new_game()  # before the parent refuses ``num_agents`` & co.
        return super().__getattr__(name)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._learn_of_new_game()

    def restore(self, snapshot: Mapping | str | bytes) -> None:
        """:meth:`CardGameEnv.restore`; the environment then counts as reset."""
        self.env.restore(snapshot)
        self._learn_of_new_game()

    # The three calls of every step of the AEC loop go straight to the wrapped environment,
    # with the parent's checks and messages.
    def last(self, observe: bool = True):
        if not self._has_reset and not self._learn_of_new_game():
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset and not self._learn_of_new_game():
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def observe(self, agent: str):
        self._learn_of_new_game()
        return super().observe(agent)

    def render(self):
        self._learn_of_new_game()
        return super().render()

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset and not self._learn_of_new_game():
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the wrapped environment directly."""

    def __next__(self) -> str:
        raw = self.env.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        if not self.env._has_updated:
            self.env._learn_of_new_game()  # a reset or restore on env.unwrapped is an update too
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        self.iters_til_term -= 1
        return raw.agent_selection


def wrap(raw: CardGameEnv) -> AECEnv:
    """The user-facing environment, with PettingZoo's classic conventions:

    - an illegal action (in range, masked out) ends the game exactly as PettingZoo's
      ``TerminateIllegalWrapper(env, illegal_reward=-1)`` does: −1 for the offender, 0 for
      everybody else, every agent terminated *and* truncated, the agents then stepping out with
      ``None`` (``raw.illegal_action_by`` names the offender);
    - an out-of-range action or a non-integer raises ``ValueError``;
    - calls out of order are errors (PettingZoo's ``OrderEnforcingWrapper``).

    The first two are done by the base class itself rather than by PettingZoo's
    ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``: each wrapper layer costs an
    attribute lookup chain on every access, which made the wrapped environment four times slower
    than PettingZoo's own rock-paper-scissors (measured, see benchmarks/). The behaviour is the
    same (a test plays both side by side), with two **Decisions**: an out-of-range action is a
    ``ValueError`` even under ``python -O``; and once the game is over every agent's action mask
    is all zero, as at every end of a cardzoo game (the wrapper would leave the offender's last
    mask in its observation)."""
    raw.illegal_action = "terminate"
    return _OrderEnforcingWrapper(raw)
