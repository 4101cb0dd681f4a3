"""CompilerGym's ``compiler_gym.envs.llvm.compute_observation``: an observation of a bitcode
file, outside an environment."""

from compiler_gym.envs.llvm import compute_observation

__all__ = ["compute_observation"]
