"""Rewards for the LLVM environments that are computed in Python."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Optional

import numpy as np

from compiler_gym.errors import BenchmarkInitError, ServiceError
from compiler_gym.spaces import Reward


class RuntimePointEstimateReward(Reward):
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
            name="runtime",
            observation_spaces=["Runtime"],
            deterministic=False,
            platform_dependent=True,
            default_negates_returns=True,
            doc="previous runtime estimate - current runtime estimate, in seconds",
        )
        if runtime_count < 1 or warmup_count < 0:
            raise ValueError("runtime_count must be >= 1 and warmup_count >= 0")
        self.runtime_count = runtime_count
        self.warmup_count = warmup_count
        self.estimator = estimator
        self.starting_runtime: Optional[float] = None
        self.previous_runtime: Optional[float] = None
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
            self.starting_runtime = None
        if self.starting_runtime is None:
            self.starting_runtime = float(self.estimator(observation_view["Runtime"]))
        self.previous_runtime = self.starting_runtime

    def update(self, actions: list[int], observations: list[Any], observation_view: Any) -> float:
        runtimes = observations[0]
        if len(runtimes) != self.runtime_count:
            raise ServiceError(
                f"Expected {self.runtime_count} runtimes but received {len(runtimes)}"
            )
        runtime = float(self.estimator(runtimes))
        reward = self.previous_runtime - runtime
        self.previous_runtime = runtime
        return reward
