"""The ``--output_dir`` flag: the directory a script reads and writes its files in (no
default)."""

from absl import flags

flags.DEFINE_string("output_dir", None, "The directory to read and write files to.")
