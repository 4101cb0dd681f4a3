"""Rewards for the LLVM environments that are computed in Python."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Optional

import numpy as np

from compiler_gym.errors import BenchmarkInitError, ServiceError
from compiler_gym.spaces import Reward


class _RuntimeReward(Reward):
    """What the runtime rewards share: ``runtime_count`` measured runs after ``warmup_count``
    unmeasured ones per computation, a runnable benchmark, and the runs of the episode's start
    measured once per benchmark."""

    def __init__(self, runtime_count: int, warmup_count: int, doc: str, default_value: float = 0):
        super().__init__(
            name="runtime",
            observation_spaces=["Runtime"],
            default_value=default_value,
            deterministic=False,
            platform_dependent=True,
            default_negates_returns=True,
            doc=doc,
        )
        # Checked here, where the mistake is made; CompilerGym's service checked at reset.
        # The messages are its service's, naming the parameters the counts set.
        if runtime_count < 1:
            raise ValueError(
                f"runtimes_per_observation_count must be >= 1. Received: {runtime_count}"
            )
        if warmup_count < 0:
            raise ValueError(
                f"warmup_runs_count_per_runtime_observation must be >= 0. Received: {warmup_count}"
            )
        self.runtime_count = runtime_count
        self.warmup_count = warmup_count
        self.starting_runtimes: Optional[list[float]] = None
        self.previous_runtimes: Optional[list[float]] = None
        self._benchmark: Any = None

    def configure(self, env: Any) -> None:
        env.runtime_observation_count = self.runtime_count
        env.runtime_warmup_runs_count = self.warmup_count

    def reset(self, benchmark: Any, observation_view: Any) -> None:
        # The starting runtime of a benchmark is measured once, not at every episode.
        if str(benchmark) != str(self._benchmark):
            if not observation_view["IsRunnable"]:
                raise BenchmarkInitError(f"Benchmark is not runnable: {benchmark}")
            self._benchmark = benchmark
            self.starting_runtimes = None
        if self.starting_runtimes is None:
            self.starting_runtimes = list(observation_view["Runtime"])
        self.previous_runtimes = self.starting_runtimes

    def update(self, actions: list[int], observations: list[Any], observation_view: Any) -> float:
        runtimes = list(observations[0])
        if len(runtimes) != self.runtime_count:
            raise ServiceError(
                f"Expected {self.runtime_count} runtimes but received {len(runtimes)}"
            )
        reward = self.compare(self.previous_runtimes, runtimes)
        self.previous_runtimes = runtimes
        return reward

    def compare(self, previous: list[float], current: list[float]) -> float:
        """The reward for going from the runs ``previous`` to the runs ``current``."""
        raise NotImplementedError


class RuntimePointEstimateReward(_RuntimeReward):
    """Runtime reward from a point estimate of repeated runs (CompilerGym's class).

    Each time it is computed the program is run ``warmup_count`` times unmeasured and
    ``runtime_count`` times measured; ``estimator`` (the median by default) turns the runs
    into one runtime R. The reward is ``R(previous) - R(now)`` in seconds, so an episode's
    rewards sum to the time saved since reset. The benchmark must be runnable.
    """

    def __init__(
        self,
        runtime_count: int = 1,
        warmup_count: int = 0,
        estimator: Callable[[Iterable[float]], float] = np.median,
    ):
        super().__init__(
            runtime_count,
            warmup_count,
            doc="previous runtime estimate - current runtime estimate, in seconds",
        )
        self.estimator = estimator

    def _estimate(self, runtimes: Optional[list[float]]) -> Optional[float]:
        return None if runtimes is None else float(self.estimator(runtimes))

    @property
    def starting_runtime(self) -> Optional[float]:
        """The estimate of the episode's starting runtime (None before the first reset)."""
        return self._estimate(self.starting_runtimes)

    @property
    def previous_runtime(self) -> Optional[float]:
        """The estimate of the runtime when the reward was last computed (or at reset)."""
        return self._estimate(self.previous_runtimes)

    def compare(self, previous: list[float], current: list[float]) -> float:
        return self._estimate(previous) - self._estimate(current)


class RuntimeSeriesReward(_RuntimeReward):
    """Runtime reward that counts only significant changes (CompilerGym's class): the runs
    before and after are compared with the Kruskal-Wallis H-test (``scipy.stats.kruskal``);
    when their medians differ at p < 0.05 the reward is ``median(previous) - median(now)`` in
    seconds, else 0."""

    def __init__(self, runtime_count: int = 30, warmup_count: int = 0, default_value: float = 0):
        super().__init__(
            runtime_count,
            warmup_count,
            doc="previous - current median runtime when the change is significant, else 0",
            default_value=default_value,
        )

    def compare(self, previous: list[float], current: list[float]) -> float:
        from scipy.stats import kruskal  # scipy is heavy: imported when first used

        if len(set(previous) | set(current)) < 2:  # all equal: no difference to test
            return 0.0
        _, p_value = kruskal(previous, current)
        return float(np.median(previous) - np.median(current)) if p_value < 0.05 else 0.0
