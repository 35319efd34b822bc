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

A heuristic may also remember something between decisions (a placement it planned) and draw
random numbers: a kernel whose heuristics do declares ``HEURISTIC_MEMORY`` (the int64s each
keeps), and its decisions are ``decide(observation, starts, legal, memory, rng, *parameters)``
with the game's ``kernel_parameters()``; ``rng`` is the agent's own generator
(:attr:`~cardzoo.agents.base.Agent.rng`), which the compiled kernel draws from as numpy's
PCG64 reproduced (:mod:`cardzoo.envs.kernel_random`), so that the plain and the compiled
decisions draw the same numbers. **Decision (the generator):** loading the agent's generator
into the kernel's form costs more than a decision, and most decisions draw nothing, so the
compiled decision runs first with a generator that is not loaded (as a game on its kernel steps:
:mod:`cardzoo.envs.packed`); if it wanted to draw, its memory is put back and it runs again with
the generator loaded, whose new position is written back.

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
from typing import Any, ClassVar

import numpy as np

from cardzoo.agents.base import Agent
from cardzoo.envs import packed
from cardzoo.envs.core import Game
from cardzoo.envs.kernels import kernel_dependency, plain_and_compiled, plain_copy, use_compiled

#: the generator's layout and numpy's state in and out (plain Python: numba stays unloaded)
_random = plain_copy("cardzoo.envs.kernel_random")

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
        kernel = kernel_decisions(self._decisions_key).kernel
        assert isinstance(game, packed.KernelGame)  # a heuristic of a kernel game
        self._starts = game.observation_starts()
        self._starts_array = np.array(self._starts, np.int64)
        #: what the decision keeps between calls (a list, an array once compiled), if anything
        self._memory: list[int] | np.ndarray | None = None
        if hasattr(kernel, "HEURISTIC_MEMORY"):
            self._memory = [0] * kernel.HEURISTIC_MEMORY
            self._parameters = game.kernel_parameters()
            self._generator = np.zeros(_random.SIZE, np.int64)
            self._generator[_random.KIND] = _random.WAITING

    def reset(self) -> None:
        if self._memory is not None:
            self._memory = [0] * len(self._memory)  # as built (an array again when compiled)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        decisions = _DECISIONS.get(self._decisions_key) or kernel_decisions(self._decisions_key)
        mask = observation["action_mask"]
        legal = legal_code(self.kernel_module, mask) if self.legal_as_code else legal_bits(mask)
        vector = observation["observation"]
        decide = getattr(decisions.kernel, self.decision)
        if self._memory is not None:
            return self._remembering(decisions, decide, vector, legal)
        if decisions.compiled:
            return int(decide(vector, self._starts_array, legal))
        if decisions.switch_in > 0:
            decisions.count()
        return decide(vector.tolist(), self._starts, legal)

    def _remembering(
        self, decisions: KernelDecisions, decide: Any, vector: np.ndarray, legal: int
    ) -> int:
        """:meth:`act` for a heuristic with memory and a generator (see the module
        docstring)."""
        memory = self._memory
        if not decisions.compiled:
            if decisions.switch_in > 0:
                decisions.count()
            return decide(vector.tolist(), self._starts, legal, memory, self.rng, *self._parameters)
        if type(memory) is list:
            memory = self._memory = np.array(memory, np.int64)
        generator = self._generator  # WAITING between calls
        arguments = (self._starts_array, legal, memory, generator, *self._parameters)
        saved = memory.copy()
        action = decide(vector, *arguments)
        if generator[_random.KIND] == _random.MISSED:  # it wanted to draw: again, loaded
            memory[:] = saved
            _random.set_numpy_state(generator, self.rng.bit_generator.state)
            action = decide(vector, *arguments)
            self.rng.bit_generator.state = _random.numpy_state(generator)
            generator.fill(0)  # nothing of the generator stays here between calls
            generator[_random.KIND] = _random.WAITING
        return int(action)
