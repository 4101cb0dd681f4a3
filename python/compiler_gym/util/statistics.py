"""Summary statistics of search and leaderboard results."""

from __future__ import annotations

import math
from collections.abc import Iterable


def geometric_mean(values: Iterable[float]) -> float:
    """The geomean, as CompilerGym scores it: 0 when any value is 0 or less (or there are none),
    so a result that made a program worse, or no better, is not left out of the score."""
    values = list(values)
    if not values or any(v <= 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))
