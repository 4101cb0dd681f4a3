"""CompilerGym's ``compiler_gym.envs.llvm.datasets.chstone``: the CHStone dataset and the
URIs of its twelve programs."""

from __future__ import annotations

from compiler_gym.datasets.compilergym_llvm import CHStoneDataset
from compiler_gym.datasets.compilergym_llvm_table import DEFINITIONS

URIS = [
    f"benchmark://chstone-v0/{name}"
    for name in DEFINITIONS["benchmark://chstone-v0"].benchmarks or ()
]

__all__ = ["URIS", "CHStoneDataset"]
