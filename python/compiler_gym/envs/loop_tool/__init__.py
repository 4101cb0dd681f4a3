"""CompilerGym's ``compiler_gym.envs.loop_tool``: the loop_tool environment under the name
CompilerGym users import (the implementation is ``compiler_gym.envs.loop_tool_env``)."""

from compiler_gym.envs.loop_tool_env import (
    LoopToolDataset,
    LoopToolEnv,
    cache_stats,
    copy_bandwidth,
    devices,
    loop_tool_datasets,
)

__all__ = [
    "LoopToolDataset",
    "LoopToolEnv",
    "cache_stats",
    "copy_bandwidth",
    "devices",
    "loop_tool_datasets",
]
