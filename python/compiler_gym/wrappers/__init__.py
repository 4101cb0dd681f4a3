"""CompilerGym's environment wrappers (:mod:`compiler_gym.wrappers.core`), and adapters to
other RL libraries' interfaces (``compiler_gym.wrappers.sb3``, ``.torchrl``: imported on
their own, as they import those libraries)."""

from compiler_gym.wrappers.core import (
    ActionWrapper,
    CommandlineWithTerminalAction,
    CompilerEnvWrapper,
    ConstrainedCommandline,
    ConversionWrapperEnv,
    Counter,
    CycleOverBenchmarks,
    CycleOverBenchmarksIterator,
    ForkOnStep,
    IterateOverBenchmarks,
    ObservationWrapper,
    RandomOrderBenchmarks,
    RewardWrapper,
    TimeLimit,
    ValidateBenchmarkAfterEveryStep,
)
from compiler_gym.wrappers.llvm import RuntimePointEstimateReward, RuntimeSeriesEstimateReward
from compiler_gym.wrappers.sqlite_logger import (
    SqliteLoggedVecEnv,
    SqliteWriter,
    SynchronousSqliteLogger,
    make_logged_vec,
)

__all__ = [
    "ActionWrapper",
    "CommandlineWithTerminalAction",
    "CompilerEnvWrapper",
    "ConstrainedCommandline",
    "ConversionWrapperEnv",
    "Counter",
    "CycleOverBenchmarks",
    "CycleOverBenchmarksIterator",
    "ForkOnStep",
    "IterateOverBenchmarks",
    "ObservationWrapper",
    "RandomOrderBenchmarks",
    "RewardWrapper",
    "RuntimePointEstimateReward",
    "RuntimeSeriesEstimateReward",
    "SqliteLoggedVecEnv",
    "SqliteWriter",
    "SynchronousSqliteLogger",
    "TimeLimit",
    "ValidateBenchmarkAfterEveryStep",
    "make_logged_vec",
]
