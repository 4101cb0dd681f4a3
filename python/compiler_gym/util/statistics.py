"""Summary statistics of search and leaderboard results."""

from __future__ import annotations

import math
from collections.abc import Iterable


def geometric_mean(values: Iterable[float]) -> float:
    """The geomean of the positive values (a reward of 0 or less has no logarithm); 0 when
    there are none."""
    positive = [v for v in values if v > 0]
    if not positive:
        return 0.0
    return math.exp(sum(math.log(v) for v in positive) / len(positive))
