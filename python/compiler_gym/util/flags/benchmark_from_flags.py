"""The ``--benchmark`` flag and the benchmark it names (CompilerGym's
``compiler_gym.util.flags.benchmark_from_flags``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from absl import flags

from compiler_gym.datasets import Benchmark

flags.DEFINE_string(
    "benchmark",
    None,
    "The benchmark to use: a URI such as benchmark://builtin-v0/qsort (builtin-v0/qsort: the "
    "benchmark:// scheme is implied), or file:///path/to/program.bc for a file of bitcode, IR "
    "or C source.",
)

FLAGS = flags.FLAGS

_FILE_SCHEME = "file:///"


def benchmark_from_flags() -> Optional[Union[Benchmark, str]]:
    """What ``--benchmark`` names: None when it is not set, a :class:`Benchmark` of the file for
    ``file:///path`` (URI ``benchmark://user-v0/path``; ``FileNotFoundError`` when there is no
    such file), else the URI string, for ``make`` or ``reset`` to look up."""
    if not FLAGS.benchmark:
        return None
    if FLAGS.benchmark.startswith(_FILE_SCHEME):
        relative = FLAGS.benchmark[len(_FILE_SCHEME) :]
        return Benchmark.from_file(uri=f"benchmark://user-v0/{relative}", path=Path("/", relative))
    return FLAGS.benchmark


__all__ = ["benchmark_from_flags"]
