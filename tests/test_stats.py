"""The confidence intervals of :mod:`cardzoo.stats`: what they accept and what they refuse."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cardzoo.errors import InputError
from cardzoo.stats import mean_interval, wilson_interval


@pytest.mark.parametrize(
    ("successes", "trials", "message"),
    [
        (5, 3, "successes must be a number from 0 to trials (3), got 5"),
        (-1, 10, "successes must be a number from 0 to trials (10), got -1"),
        (3, 0, "successes must be a number from 0 to trials (0), got 3"),
        (math.nan, 10, "successes must be a number from 0 to trials (10), got nan"),
        (True, 10, "got True"),
        ("3", 10, "got '3'"),
        (3, -5, "trials must be an integer >= 0 (a count), got -5"),
        (1, 2.0, "trials must be an integer >= 0 (a count), got 2.0"),
        (1, True, "trials must be an integer >= 0 (a count), got True"),
    ],
)
def test_wilson_interval_refuses_counts_that_cannot_be(successes, trials, message):
    with pytest.raises(InputError) as refused:
        wilson_interval(successes, trials)
    assert message in str(refused.value)


@pytest.mark.parametrize("z", [0, -1.96, math.inf, math.nan, "1.96"])
def test_wilson_interval_refuses_a_z_that_is_no_finite_positive_number(z):
    with pytest.raises(InputError, match="z must be a finite number > 0"):
        wilson_interval(3, 10, z)


def test_wilson_interval_of_no_trials_is_the_whole_range():
    """Decision: nothing is known after no trials, so the interval is all of 0..1."""
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_takes_half_wins_numpy_counts_and_rounding_errors():
    """A tournament counts a draw as half a win; a sum of such shares may be a rounding error
    past ``trials``, which counts as ``trials``."""
    low, high = wilson_interval(4.5, 6)
    assert 0 < low < 4.5 / 6 < high < 1
    assert wilson_interval(np.int64(3), np.int64(5)) == pytest.approx(wilson_interval(3, 5))
    assert wilson_interval(6 * (1 + 1e-15), 6) == wilson_interval(6, 6)
    assert wilson_interval(-1e-15, 6) == wilson_interval(0, 6)


def test_a_mean_of_one_value_has_no_interval():
    mean, low, high = mean_interval([5.0])
    assert mean == 5.0 and math.isnan(low) and math.isnan(high)  # it was (5, 5, 5)
    assert all(math.isnan(x) for x in mean_interval([]))
