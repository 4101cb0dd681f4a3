"""Summary statistics of search and leaderboard results (CompilerGym's
``compiler_gym.util.statistics``): each is 0 for no values, so a table of results with an
empty row still prints."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np


def geometric_mean(values: Iterable[float]) -> float:
    """The geomean, as CompilerGym scores it: 0 when any value is 0 or less (or there are none),
    so a result that made a program worse, or no better, is not left out of the score."""
    values = list(values)
    if not values or any(v <= 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def arithmetic_mean(values: Iterable[float]) -> float:
    """The mean of ``values``; 0 when there are none."""
    array = np.asarray(list(values), dtype=np.float64)
    return float(array.mean()) if array.size else 0.0


def stdev(values: Iterable[float]) -> float:
    """The population standard deviation of ``values`` (NumPy's ``std``, as CompilerGym); 0
    when there are none."""
    array = np.asarray(list(values), dtype=np.float64)
    return float(array.std()) if array.size else 0.0


__all__ = ["arithmetic_mean", "geometric_mean", "stdev"]
