"""What the games' playout kernels share: one source, compiled by numba or run as plain Python.

Each game with fast playouts keeps its rules as small integer functions in ``<game>/kernel.py``
(no numpy calls), so that the same source runs compiled by numba when the ``search`` extra is
installed (with numba's on-disk cache) and as plain Python on lists otherwise, with identical
results. ``<game>/playout.py`` loads the kernel twice: as itself, compiled where numba is, and as
``<kernel>_plain``, never compiled (the tests compare the two).

A kernel starts with ``PLAIN, jit = kernel_jit(__name__)`` and decorates its functions with
``jit``. Its random numbers (a xorshift32 generator) stay in each kernel's own source: numba's
cache does not notice a change in a jitted function of another module that a cached function
calls, so a shared generator could leave stale compiled kernels behind.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from types import ModuleType

import numpy as np

try:  # optional: the ``search`` extra
    import numba
except ImportError:  # pragma: no cover - depends on the installation
    numba = None


def kernel_jit(module_name: str) -> tuple[bool, Callable]:
    """``(plain, jit)`` for the kernel module ``module_name``: plain in the copy loaded as plain
    Python or without numba, and then ``jit`` leaves functions as they are; else ``jit`` is
    numba's ``njit`` with its on-disk cache."""
    plain = module_name.endswith("_plain") or numba is None
    return plain, (_as_written if plain else numba.njit(cache=True))


def _as_written(function: Callable) -> Callable:
    return function


def plain_and_compiled(kernel: ModuleType) -> tuple[ModuleType, ModuleType | None]:
    """The kernel as plain Python, and compiled (None without numba)."""
    if kernel.PLAIN:
        return kernel, None
    spec = importlib.util.spec_from_file_location(kernel.__name__ + "_plain", kernel.__file__)
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    return plain, kernel


def use_compiled(compiled: bool | None, available: ModuleType | None) -> bool:
    """Whether to run the compiled kernel: ``compiled`` None means where numba is installed;
    True without numba is a clear error."""
    if compiled and available is None:
        raise ValueError("compiled=True needs numba: pip install 'cardzoo[search]'")
    return available is not None if compiled is None else bool(compiled)


def playout_inputs(
    rows: np.ndarray, rng: np.random.Generator, first_actions: np.ndarray | None, seed_groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch of playouts as the kernels take it: the packed rows as contiguous int64, the
    first actions (-1 where none is given), and a seed from ``rng`` per ``seed_groups``
    consecutive rows (rows that share a seed play with the same random numbers)."""
    rows = np.ascontiguousarray(rows, np.int64)
    count = len(rows)
    if first_actions is None:
        first_actions = np.full(count, -1, np.int64)
    groups = -(-count // seed_groups)
    seeds = rng.integers(1, 2**32, size=groups, dtype=np.int64).repeat(seed_groups)[:count]
    return rows, first_actions, seeds
