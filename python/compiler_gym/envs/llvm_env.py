"""LlvmEnv: LLVM 19 phase ordering."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from compiler_gym.datasets import BuiltinDataset, Datasets
from compiler_gym.datasets.csmith import CsmithDataset
from compiler_gym.datasets.llvm_stress import LlvmStressDataset
from compiler_gym.datasets.make_benchmark import make_benchmark, make_benchmark_from_source
from compiler_gym.envs.compiler_env import CompilerEnv


def llvm_datasets() -> Datasets:
    """The datasets every LLVM environment knows."""
    return Datasets([BuiltinDataset(), LlvmStressDataset(), CsmithDataset()])


class LlvmEnv(CompilerEnv):
    """LLVM phase ordering: each action runs one LLVM 19 pass on the module."""

    def __init__(self, env_id: str = "llvm-v0", datasets: Optional[Datasets] = None, **kwargs):
        super().__init__(env_id, datasets=datasets or llvm_datasets(), **kwargs)

    make_benchmark = staticmethod(make_benchmark)
    make_benchmark_from_source = staticmethod(make_benchmark_from_source)

    @property
    def ir(self) -> str:
        """The current module as text IR."""
        return self.observation["Ir"]

    @property
    def ir_sha1(self) -> str:
        return self.observation["IrSha1"]

    def write_ir(self, path: str) -> Path:
        """Writes the current module as text IR to ``path``."""
        path = Path(path).expanduser()
        path.write_text(self.observation["Ir"])
        return path

    def write_bitcode(self, path: str) -> Path:
        """Writes the current module as bitcode to ``path``."""
        path = Path(path).expanduser()
        path.write_bytes(self.observation["Bitcode"])
        return path
