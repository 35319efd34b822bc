"""Heuristic agents written once, in their game's kernel: the agent and its compiled form are
one source.

A game's kernel (:mod:`cardzoo.envs.kernels`) may hold heuristics as small functions
``decide(observation, starts, legal) -> action`` that read only what a seat sees: its
observation vector (``starts``: where each of the kernel's ``OBSERVATION_FIELDS`` begins) and its
legal actions as bits (bit ``a`` set if action ``a`` is legal), or, in a game with more actions
than an int64 has bits (Minus Two's 293), as the kernel's own code of them
(:attr:`KernelHeuristic.legal_as_code`). The vector environments play
them compiled inside the kernel, as opponents (:attr:`KernelHeuristic.kernel_policy` is the
code the kernel's drivers know them by); a :class:`KernelHeuristic` agent calls the same
function for one decision.

**Decision (plain or compiled).** As a game on its kernel does (:mod:`cardzoo.envs.packed`), the
agents run the plain copy of the kernel first (a short use never loads numba) and the compiled
one, where numba is installed, once the agents of that kernel have taken
:data:`~cardzoo.envs.packed.SWITCH_AFTER` decisions in the process (compiled, a decision skips
the conversion of the vector to a list and the interpreter). ``packed.COMPILED``, read when an
agent is built, forces either. The two give the same actions (the tests hold both to the agents as
they were first written).
"""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs import packed
from cardzoo.envs.core import Game
from cardzoo.envs.kernels import kernel_dependency, plain_and_compiled, plain_copy, use_compiled

#: a mask's bytes -> its legal actions as bits (masks of one-byte dtypes; few distinct ones)
_BITS: dict[bytes, int] = {}


def legal_bits(mask: np.ndarray) -> int:
    """The legal actions of an action mask as bits: bit ``a`` set if ``mask[a]`` is nonzero."""
    mask = np.asarray(mask)
    if mask.dtype.itemsize != 1:
        mask = mask != 0
    key = mask.tobytes()
    bits = _BITS.get(key)
    if bits is None:
        bits = _BITS[key] = sum(1 << int(action) for action in np.flatnonzero(mask))
    return bits


#: (kernel module, a mask's bytes) -> its legal actions as the kernel's ``legal_code_of`` codes
_CODES: dict[tuple[str, bytes], int] = {}


def legal_code(kernel_module: str, mask: np.ndarray) -> int:
    """The legal actions of an action mask as the kernel ``kernel_module`` codes them for its
    heuristics (its ``legal_code_of`` of the legal actions in increasing order): for games with
    too many actions for bits in an int64."""
    mask = np.asarray(mask)
    if mask.dtype.itemsize != 1:
        mask = mask != 0
    key = (kernel_module, mask.tobytes())
    code = _CODES.get(key)
    if code is None:
        actions = np.flatnonzero(mask).tolist()
        code = _CODES[key] = plain_copy(kernel_module).legal_code_of(actions, len(actions))
    return code


class KernelDecisions:
    """One kernel's heuristics for every agent of a process that was built with the same
    ``packed.COMPILED``: the plain copy, then the compiled kernel (see the module docstring)."""

    def __init__(self, kernel_module: str, compiled: bool | None):
        self.kernel_module = kernel_module
        self.kernel: ModuleType = plain_copy(kernel_module)
        self.compiled = False
        #: the decisions left before the compiled kernel is taken (-1: never)
        self.switch_in = -1
        if compiled:
            self.compile()
        elif compiled is None and packed.numba_installed():
            self.switch_in = packed.SWITCH_AFTER

    def compile(self) -> None:
        _plain, compiled = plain_and_compiled(kernel_dependency(self.kernel_module, False))
        self.compiled = use_compiled(True, compiled)  # an error without numba
        assert compiled is not None
        self.kernel = compiled

    def count(self) -> None:
        """One more decision on the plain copy."""
        self.switch_in -= 1
        if self.switch_in == 0:
            self.compile()


_DECISIONS: dict[tuple[str, bool | None], KernelDecisions] = {}


def kernel_decisions(key: tuple[str, bool | None]) -> KernelDecisions:
    """The :class:`KernelDecisions` of the kernel module ``key[0]`` for ``packed.COMPILED`` set
    to ``key[1]`` (made at the first call)."""
    decisions = _DECISIONS.get(key)
    if decisions is None:
        decisions = _DECISIONS[key] = KernelDecisions(*key)
    return decisions


class KernelHeuristic(Agent):
    """An agent whose decision is the function :attr:`decision` of the kernel
    :attr:`kernel_module`, given the observation vector and the legal actions."""

    #: the kernel module that holds the decision, and the decision function's name there
    kernel_module: ClassVar[str]
    decision: ClassVar[str]
    #: the code the kernel's vector drivers play this heuristic by (``policy_action``)
    kernel_policy: ClassVar[int]
    #: how the decision takes the legal actions: as bits (:func:`legal_bits`), or as the
    #: kernel's code (:func:`legal_code`), for a game with more actions than an int64 has bits
    legal_as_code: ClassVar[bool] = False

    def __init__(self, game: Game, seed: int | None = None):
        super().__init__(game, seed)
        # The shared decisions by their key, not themselves: an agent copies and pickles as
        # plain data, and its copies share the process's decisions.
        self._decisions_key = (self.kernel_module, packed.COMPILED)
        layout = game.observation_layout
        fields = kernel_decisions(self._decisions_key).kernel.OBSERVATION_FIELDS
        self._starts = [layout[name].start for name in fields]
        self._starts_array = np.array(self._starts, np.int64)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        decisions = _DECISIONS.get(self._decisions_key) or kernel_decisions(self._decisions_key)
        mask = observation["action_mask"]
        legal = legal_code(self.kernel_module, mask) if self.legal_as_code else legal_bits(mask)
        vector = observation["observation"]
        decide = getattr(decisions.kernel, self.decision)
        if decisions.compiled:
            return int(decide(vector, self._starts_array, legal))
        if decisions.switch_in > 0:
            decisions.count()
        return decide(vector.tolist(), self._starts, legal)
