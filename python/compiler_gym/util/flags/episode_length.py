"""The ``--episode_length`` flag: the number of steps in each episode (default 5)."""

from absl import flags

flags.DEFINE_integer("episode_length", 5, "The number of steps in each episode.", lower_bound=1)
