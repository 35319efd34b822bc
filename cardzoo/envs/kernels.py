"""What the games' kernels share: one source, compiled by numba or run as plain Python.

A game with a kernel keeps its rules as small integer functions in ``<game>/kernel.py`` (no
numpy calls), so that the same source runs compiled by numba when the ``search`` extra is
installed (with numba's on-disk cache) and as plain Python on lists otherwise, with identical
results. The kernel is loaded twice: as itself, compiled where numba is, and as
``<kernel>_plain``, never compiled (the tests compare the two). It plays search playouts
(``<game>/playout.py``), many games a call (:mod:`cardzoo.envs.batch`) and, for a game whose
one engine it is, every single game (:mod:`cardzoo.envs.packed`).

A kernel starts with ``PLAIN, jit = kernel_jit(__name__)`` and decorates its functions with
``jit``. Numba's cache does not notice a change in a jitted function of another module that a
cached function calls, so a kernel keeps its rules, and the drivers that call them, in its own
source. The exceptions are two modules that do not change with the rules, which a kernel takes
through :func:`kernel_dependency` so that its plain copy calls their plain copies:
:mod:`cardzoo.envs.kernel_random` (numpy's generator reproduced, and xorshift32; every kernel
draws from it, none keeps a xorshift32 of its own) and :mod:`cardzoo.envs.kernel_arrays` (the
copies of runs of a row, a loop when compiled and a slice when plain).

numba is imported when a compiled kernel is first wanted (``kernels.numba`` too), never by a
plain copy (:func:`plain_copy`): a game whose engine is its kernel can be imported, and played
plain, without loading numba.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import check_choice
from cardzoo.errors import InputError

_NUMBA: list[ModuleType | None] = []  # numba once looked for (None: not installed)


def _numba() -> ModuleType | None:
    """numba (the optional ``search`` extra), imported at the first call; None if missing, or if
    its debugging switch ``NUMBA_DISABLE_JIT`` is set. **Decision:** with that switch the
    kernels run their plain form, as without numba: their compiled form relies on numba's
    64-bit integers, and run by Python on numpy's small ones it overflowed (a Believe It or Not
    search died with an ``IndexError`` in its legal actions)."""
    if not _NUMBA:
        try:
            import numba
        except ImportError:  # pragma: no cover - depends on the installation
            numba = None
        if numba is not None and numba.config.DISABLE_JIT:
            numba = None
        _NUMBA.append(numba)
    return _NUMBA[0]


def __getattr__(name: str) -> Any:
    """``kernels.numba``: numba if it is installed, else None (imported on first use)."""
    if name == "numba":
        return _numba()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: how numba compiles every kernel function: with its on-disk cache, and without numba's
#: reference counting (``_nrt=False``). **Decision:** a kernel never allocates (no numpy calls),
#: it only reads and writes the arrays its caller holds, so it needs no runtime to free memory.
#: With the runtime on, every view a kernel takes (``rows[b]``, ``out[at:at + count]``) and
#: every array it passes to another compiled function costs an atomic increment and decrement
#: that numba's pruning cannot remove across calls: perf put half of a Nobody Wants It vector
#: step in those two instructions, and turning the runtime off halved the step (numba's own
#: advice for such code, numba issue #2345). A kernel function that allocates now fails to
#: compile instead of running slowly. numba's cache does not key on these options: after a
#: change here clear the cached kernels (``__pycache__/*.nbi``, ``*.nbc``).
COMPILE_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False}

#: the integer type of a packed row, wherever it is an array (a game's state, a compiled batch
#: of games, the playouts' rows). **Decision:** 32 bits. A row holds counts, cards, seats and
#: scores, the largest a score or target of a few hundred (Minus Two's ``target_score`` is
#: bounded for it); a vector step walks through every game's row, and at 64 bits the rows of
#: 1,024 games (2.4-3.4 MB) did not fit in a core's cache. The kernels' arithmetic is done in 64
#: bits whatever the row holds. A number written from Python that does not fit raises numpy's
#: OverflowError, where a compiled kernel's would wrap silently: the parameters' bounds keep
#: every number small. The plain kernel reads Python ints (lists; a plain batch's arrays are
#: int64), since its legal-action bits would overflow numpy's 32-bit scalars.
ROW_DTYPE = np.int32


def kernel_jit(module_name: str) -> tuple[bool, Callable]:
    """``(plain, jit)`` for the kernel module ``module_name``: plain in the copy loaded as plain
    Python or without numba, and then ``jit`` leaves functions as they are; else ``jit`` is
    numba's ``njit`` with :data:`COMPILE_OPTIONS`."""
    numba = None if module_name.endswith("_plain") else _numba()
    if numba is None:
        return True, _as_written
    return False, numba.njit(**COMPILE_OPTIONS)


def _as_written(function: Callable) -> Callable:
    return function


_PLAIN_COPIES: dict[str, ModuleType] = {}


def plain_copy(module_name: str) -> ModuleType:
    """The kernel module ``module_name`` as plain Python, loaded from its file (as
    ``<name>_plain``) without importing the module itself, so without numba; once per process."""
    plain = _PLAIN_COPIES.get(module_name)
    if plain is None:
        found = importlib.util.find_spec(module_name)
        assert found is not None and found.origin is not None, module_name
        spec = importlib.util.spec_from_file_location(module_name + "_plain", found.origin)
        assert spec is not None and spec.loader is not None
        plain = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(plain)
        _PLAIN_COPIES[module_name] = plain
    return plain


def plain_and_compiled(kernel: ModuleType) -> tuple[ModuleType, ModuleType | None]:
    """The kernel as plain Python, and compiled (None without numba). The plain copy is loaded
    once per process."""
    if kernel.PLAIN:
        return kernel, None
    return plain_copy(kernel.__name__), kernel


def kernel_dependency(module_name: str, plain: bool) -> ModuleType:
    """Another kernel module (``module_name``) as a kernel calls it: compiled from a compiled
    kernel, its plain copy from a plain one (a kernel's ``PLAIN`` says which it is)."""
    return plain_copy(module_name) if plain else importlib.import_module(module_name)


def use_compiled(compiled: bool | None, available: ModuleType | None) -> bool:
    """Whether to run the compiled kernel: ``compiled`` None means where numba is installed;
    True without numba is a clear error, and so is anything but None, True or False."""
    if compiled is not None and not isinstance(compiled, (bool, np.bool_)):
        raise InputError(f"compiled must be None, True or False, got {compiled!r:.80}")
    if compiled and available is None:
        raise InputError("compiled=True needs numba: pip install 'cardzoo[search]'")
    return available is not None if compiled is None else bool(compiled)


def playout_inputs(
    rows: np.ndarray, rng: np.random.Generator, first_actions: np.ndarray | None, seed_groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch of playouts as the kernels take it: the packed rows as contiguous
    :data:`ROW_DTYPE`, the first actions (-1 where none is given), and a seed from ``rng`` per
    ``seed_groups`` consecutive rows (rows that share a seed play with the same random numbers)."""
    rows = np.ascontiguousarray(rows, ROW_DTYPE)
    count = len(rows)
    if first_actions is None:
        first_actions = np.full(count, -1, np.int64)
    groups = -(-count // seed_groups)
    seeds = rng.integers(1, 2**32, size=groups, dtype=np.int64).repeat(seed_groups)[:count]
    return rows, first_actions, seeds


def run_playouts(
    plain: ModuleType,
    compiled: ModuleType | None,
    use: bool | None,
    rows: np.ndarray,
    first_actions: np.ndarray,
    seeds: np.ndarray,
    arguments: tuple,
    scratch_sizes: tuple[int | tuple[int, ...], ...],
    options: tuple,
    float_sizes: tuple[int, ...] = (),
) -> np.ndarray:
    """``kernel.playouts(rows, first_actions, seeds, *arguments, *scratch, *options)`` on the
    compiled kernel (numpy arrays) or the plain one (Python lists, copied back into ``rows``),
    as :func:`use_compiled` decides from ``use``; ``scratch`` are zeroed int64 buffers of
    ``scratch_sizes`` (a size, or a shape), then float buffers of ``float_sizes``. An array among
    ``options`` reaches the plain kernel as a list. Returns ``rows``."""
    if use_compiled(use, compiled):
        first = np.ascontiguousarray(first_actions, np.int64)
        scratch = [np.zeros(size, np.int64) for size in scratch_sizes]
        scratch += [np.zeros(size) for size in float_sizes]
        compiled.playouts(rows, first, seeds, *arguments, *scratch, *options)
        return rows
    as_lists = rows.tolist()
    first = np.asarray(first_actions).tolist()
    plain_scratch = [np.zeros(size, np.int64).tolist() for size in scratch_sizes]
    plain_scratch += [[0.0] * size for size in float_sizes]
    plain_options = [o.tolist() if isinstance(o, np.ndarray) else o for o in options]
    plain.playouts(as_lists, first, seeds.tolist(), *arguments, *plain_scratch, *plain_options)
    rows[:] = as_lists
    return rows


def playouts_to_lowest_score(
    game: Game,
    playout: ModuleType,
    final_scores: Callable[[Game, np.ndarray], np.ndarray],
    states: Sequence[State],
    rng: np.random.Generator,
    first_actions: np.ndarray | None,
    policy: str,
    seed_groups: int,
    horizon: str,
) -> tuple[np.ndarray, np.ndarray]:
    """``Game.random_playouts`` of a game played in rounds whose lowest score wins (Nobody Wants
    It, Minus Two), through its ``playout`` module: each state played to the end of the game or,
    ``horizon="round"``, of its round; the winners as if the game ended there (none for a
    playout cut at the step limit) and ``final_scores(game, rows)``."""
    check_choice("horizon", horizon, game.playout_horizons)
    rows = playout.pack(states)
    start_rounds = rows[:, playout.ROUND].copy()
    one_round = horizon == "round"
    playout.playouts(
        game, rows, rng, first_actions, policy=policy, seed_groups=seed_groups, one_round=one_round
    )
    scores = final_scores(game, rows)
    finished = (rows[:, playout.TERMINAL] == 1) | (rows[:, playout.ROUND] != start_rounds)
    winners = (scores == scores.min(axis=1, keepdims=True)) & finished[:, None]
    return winners, scores
