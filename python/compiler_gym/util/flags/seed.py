"""The ``--seed`` flag: the seed of a script's random number generators (default 204, 0xCC,
as CompilerGym)."""

from absl import flags

flags.DEFINE_integer("seed", 0xCC, "The seed of the random number generators.")
