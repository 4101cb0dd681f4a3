"""Helpers that the package's modules and scripts share: files and paths, subprocesses,
logging, timing, tables, statistics, and CompilerGym's ``compiler_gym.util`` modules."""
