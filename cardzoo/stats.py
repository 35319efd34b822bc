"""Confidence intervals for the figures cardzoo reports (ground floor: imports only cardzoo.errors).

- :func:`wilson_interval`: a proportion (a win rate) with its 95% Wilson score interval;
- :func:`mean_interval`: a mean with its 95% normal-approximation interval.
"""

from __future__ import annotations

__all__ = ["mean_interval", "wilson_interval"]

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

Z_95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """95% Wilson score interval of the proportion ``successes / trials`` (sensible at 0% and
    100% too).

    ``trials`` is a count: an integer >= 0 (Python's or numpy's, not a bool). ``successes`` is a
    number from 0 to ``trials``; it may be fractional, because a tournament counts a draw as
    half a win (so a sum of such shares a rounding error outside, at most 1e-9 of ``trials``,
    counts as the end it lies next to). No trials tell nothing: ``(0.0, 1.0)``, the whole
    range (``successes`` must then be 0). ``z`` is a finite number > 0 (1.96: 95%).

    Anything else is an :class:`~cardzoo.errors.InputError` naming what was given: a count
    that cannot be would otherwise give a math error, or worse, an interval that looks
    plausible."""
    from cardzoo.errors import InputError  # ground floor too: the one error for bad input

    def real(value: Any) -> bool:  # a finite int or float, Python's or numpy's; no bool
        number = isinstance(value, (int, float, np.integer, np.floating))
        return number and not isinstance(value, (bool, np.bool_)) and math.isfinite(value)

    if not (real(trials) and isinstance(trials, (int, np.integer)) and trials >= 0):
        raise InputError(f"trials must be an integer >= 0 (a count), got {trials!r}")
    slack = 1e-9 * trials
    if not (real(successes) and -slack <= successes <= trials + slack):
        raise InputError(
            f"successes must be a number from 0 to trials ({trials}), got {successes!r}: a "
            "proportion lies between 0 and 1"
        )
    if not (real(z) and z > 0):
        raise InputError(f"z must be a finite number > 0 (1.96 for 95%), got {z!r}")
    if trials == 0:
        return (0.0, 1.0)
    successes = min(max(successes, 0), trials)
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
    """Mean and its 95% normal-approximation interval. No values give NaN for all three; one
    value its mean with NaN bounds (one value shows no spread: an interval of no width would
    claim a certainty it does not have). Values that are all equal give an interval of no
    width: the sample showed no spread, which is not to say there is none."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(array.mean())
    if array.size == 1:
        return (mean, math.nan, math.nan)
    half = z * float(array.std(ddof=1)) / math.sqrt(array.size)
    return (mean, mean - half, mean + half)
