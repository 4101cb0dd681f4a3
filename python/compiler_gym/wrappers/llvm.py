"""CompilerGym's LLVM wrappers: runtime rewards installed on an LLVM env
(``compiler_gym.wrappers.llvm.RuntimePointEstimateReward``, also exported by
``compiler_gym.wrappers``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from compiler_gym.envs import llvm_rewards
from compiler_gym.wrappers.core import CompilerEnvWrapper


class _RuntimeRewardWrapper(CompilerEnvWrapper):
    """Installs a runtime reward as the env's reward space ``runtime``; a fork keeps it (the
    env's fork copies its reward spaces, measured starting runtime included)."""

    def __init__(self, env: Any, reward: llvm_rewards.Reward):
        super().__init__(env)
        self.env.unwrapped.reward_space = reward  # added by name, and configures the env


class RuntimePointEstimateReward(_RuntimeRewardWrapper):
    """The reward is the change of a point estimate of the program's runtime: the program runs
    ``warmup_count`` times unmeasured, then ``runtime_count`` times measured, and ``estimator``
    (the median by default) makes one runtime of them; each step's reward is the previous
    estimate minus the new one, in seconds. The benchmark must be runnable."""

    def __init__(
        self,
        env: Any,
        runtime_count: int = 30,
        warmup_count: int = 0,
        estimator: Callable[[Iterable[float]], float] = np.median,
    ):
        super().__init__(
            env, llvm_rewards.RuntimePointEstimateReward(runtime_count, warmup_count, estimator)
        )


class RuntimeSeriesEstimateReward(_RuntimeRewardWrapper):
    """As :class:`RuntimePointEstimateReward`, but a step is rewarded only when its runtimes
    differ significantly from the previous step's (Kruskal-Wallis, p < 0.05): then the reward is
    the difference of the medians, else 0."""

    def __init__(self, env: Any, runtime_count: int = 30, warmup_count: int = 0):
        super().__init__(env, llvm_rewards.RuntimeSeriesReward(runtime_count, warmup_count))
