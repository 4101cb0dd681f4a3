"""The ``--nproc`` flag: the number of processes to run in parallel (default: the CPU
count)."""

import os

from absl import flags

flags.DEFINE_integer(
    "nproc", os.cpu_count() or 1, "The number of parallel processes to run.", lower_bound=1
)
