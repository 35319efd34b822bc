"""The two runs of a kernel the tests hold equal: plain Python, and compiled by numba where it is
installed (skipped elsewhere)."""

from __future__ import annotations

import pytest

from cardzoo.envs import kernels

#: a test that runs compiled code: skipped where numba is not installed
needs_numba = pytest.mark.skipif(kernels.numba is None, reason="numba is not installed")
#: ``compiled`` as a parameter: False (plain Python), True (numba)
KERNELS = [pytest.param(False, id="plain"), pytest.param(True, id="compiled", marks=needs_numba)]
