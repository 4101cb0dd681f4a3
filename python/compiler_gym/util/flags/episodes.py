"""The ``--episodes`` flag: the number of episodes to run (default 2000)."""

from absl import flags

flags.DEFINE_integer("episodes", 2000, "The number of episodes to run.", lower_bound=0)
