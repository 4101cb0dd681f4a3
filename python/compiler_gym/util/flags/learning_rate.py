"""The ``--learning_rate`` flag: the learning rate of training (default 0.008)."""

from absl import flags

flags.DEFINE_float("learning_rate", 0.008, "The learning rate for training.")
