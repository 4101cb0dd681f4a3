"""CompilerGym's ``compiler_gym.envs.gcc.datasets``: the GCC environment's datasets under the
module name CompilerGym users import them from. CompilerGym's downloaded suites (CHStone,
AnghaBench) are not here: every program comes from the built-in set, a generator, or a Debian
or PyPI package."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from compiler_gym.datasets import Dataset
from compiler_gym.datasets.csmith import CsmithBenchmark, CsmithDataset
from compiler_gym.datasets.gcc_torture import GccTortureDataset
from compiler_gym.envs.gcc_env import gcc_datasets


def get_gcc_datasets(
    gcc_bin: Optional[Union[str, Path]] = None,
    site_data_base: Optional[Union[str, Path]] = None,
) -> list[Dataset]:
    """The datasets of the GCC environment (CompilerGym's function). Programs are compiled by
    the env's own ``gcc_bin``, so the argument only keeps CompilerGym's signature."""
    del gcc_bin
    return list(gcc_datasets(site_data_base))


__all__ = ["CsmithBenchmark", "CsmithDataset", "GccTortureDataset", "get_gcc_datasets"]
