"""Confidence intervals for the figures cardzoo reports (ground floor: imports nothing of cardzoo).

- :func:`wilson_interval`: a proportion (a win rate) with its 95% Wilson score interval;
- :func:`mean_interval`: a mean with its 95% normal-approximation interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z_95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (sensible at 0% and 100% too). ``successes``
    may be fractional: a tournament counts a draw as half a win."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # Exactly 0 (1) when nothing (everything) succeeded, not a rounding error away from it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def mean_interval(
    values: Sequence[float] | np.ndarray, z: float = Z_95
) -> tuple[float, float, float]:
    """Mean and its 95% normal-approximation interval."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(array.mean())
    if array.size == 1:
        return (mean, mean, mean)
    half = z * float(array.std(ddof=1)) / math.sqrt(array.size)
    return (mean, mean - half, mean + half)
