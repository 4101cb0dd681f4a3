"""CompilerGym's ``compiler_gym.envs.llvm.datasets``: the LLVM environment's dataset classes
under the module name CompilerGym users import them from (they live in
``compiler_gym.datasets``), CompilerGym's downloaded suites (cBench, AnghaBench, ...) among
them: see ``compiler_gym.datasets.compilergym_llvm``. As in CompilerGym, ``cbench`` and
``chstone`` are submodules."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from compiler_gym.datasets import Dataset
from compiler_gym.datasets.builtin import BuiltinDataset
from compiler_gym.datasets.compilergym_llvm import (
    AnghaBenchDataset,
    BlasDataset,
    CBenchDataset,
    CHStoneDataset,
    CLgenDataset,
    CompilerGymDataset,
    GitHubDataset,
    JotaiBenchDataset,
    LinuxDataset,
    MibenchDataset,
    NPBDataset,
    OpenCVDataset,
    POJ104Dataset,
    TensorFlowDataset,
)
from compiler_gym.datasets.csmith import CsmithBenchmark, CsmithDataset
from compiler_gym.datasets.dataset import rebase_site_data
from compiler_gym.datasets.debian_c import DebianCDataset
from compiler_gym.datasets.gcc_torture import GccTortureDataset
from compiler_gym.datasets.llvm_stress import LlvmStressDataset
from compiler_gym.datasets.pypi_c import PypiCDataset
from compiler_gym.envs.llvm_env import llvm_datasets


def get_llvm_datasets(site_data_base: Optional[Union[str, Path]] = None) -> list[Dataset]:
    """The datasets of the LLVM environment (CompilerGym's function); with ``site_data_base``
    the ones that install keep their files under it instead of ``$COMPILER_GYM_SITE_DATA``."""
    return rebase_site_data(list(llvm_datasets()), site_data_base)


__all__ = [
    "AnghaBenchDataset",
    "BlasDataset",
    "BuiltinDataset",
    "CBenchDataset",
    "CHStoneDataset",
    "CLgenDataset",
    "CompilerGymDataset",
    "GitHubDataset",
    "JotaiBenchDataset",
    "LinuxDataset",
    "MibenchDataset",
    "NPBDataset",
    "OpenCVDataset",
    "POJ104Dataset",
    "TensorFlowDataset",
    "CsmithBenchmark",
    "CsmithDataset",
    "DebianCDataset",
    "GccTortureDataset",
    "LlvmStressDataset",
    "PypiCDataset",
    "get_llvm_datasets",
]
