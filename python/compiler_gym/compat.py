"""CompilerGym's module paths that this package keeps as aliases, in one table.

CompilerGym users import names from modules that this package implements elsewhere: ``from
compiler_gym.wrappers.counter import Counter`` names :class:`compiler_gym.wrappers.core.Counter`.
Rather than a file of re-exports per such path, :data:`ALIASES` lists them, one row per
CompilerGym module path, and an import hook (installed by ``compiler_gym/__init__.py`` before
anything else) makes each row a module when it is first imported: its ``__all__`` is the row's
names, each the very object of the implementation, and its ``__doc__`` says what CompilerGym's
module was. ``import``, ``importlib.import_module``, ``importlib.util.find_spec`` and pickles that
name these paths work as they did with files.

To add a row: append ``Alias(path, implementation, names, note)`` to :data:`ALIASES`, where

- ``path`` is CompilerGym's module path, which must not also exist as a file or folder;
- ``implementation`` is the module that implements it;
- ``names`` are the names the path keeps (its ``__all__``, in that order); a name that lives in
  another module is written ``"module:Name"``;
- ``note`` says what CompilerGym's module held (the alias's docstring is made from it);
- ``package=True`` when CompilerGym's path was a package: rows whose paths lie below it then
  import as its submodules.

A parent of an alias is either a real package, an alias row with ``package=True``, or a real
module with an empty ``__path__`` (``compiler_gym.spaces``) so that it can have alias
submodules.
tests/test_package_structure.py imports every row and checks each name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Optional


@dataclass(frozen=True)
class Alias:
    """One row of the table: CompilerGym's module ``path``, served with ``names`` from
    ``implementation`` (a ``"module:Name"`` name from that other module); ``note`` says what
    CompilerGym's module held; ``package``: the path is a package, with alias submodules."""

    path: str
    implementation: str
    names: tuple[str, ...]
    note: str
    package: bool = False

    def sources(self) -> Iterator[tuple[str, str]]:
        """(name, module that defines it) for each of the row's names, in order."""
        for name in self.names:
            module, _, attr = name.rpartition(":")
            yield attr, module or self.implementation

    @property
    def exported(self) -> list[str]:
        """The alias module's ``__all__``: the row's names without their modules."""
        return [name for name, _ in self.sources()]

    @property
    def doc(self) -> str:
        """The alias module's docstring."""
        return (
            f"CompilerGym's ``{self.path}``: {self.note}. Re-exported from "
            f":mod:`{self.implementation}` (an alias of :mod:`compiler_gym.compat`)."
        )


_CORE = "compiler_gym.wrappers.core"
_GCC = "compiler_gym.envs.gcc_env"
_MAKE_BENCHMARK = "compiler_gym.datasets.make_benchmark"

ALIASES: tuple[Alias, ...] = (
    # compiler_gym.datasets: CompilerGym's module per class.
    Alias(
        "compiler_gym.datasets.datasets",
        "compiler_gym.datasets.dataset",
        ("Datasets", "round_robin_iterables"),
        "the collection of an env's datasets",
    ),
    Alias(
        "compiler_gym.datasets.files_dataset",
        "compiler_gym.datasets.user",
        ("FilesDataset",),
        "a dataset of a folder's files",
    ),
    Alias(
        "compiler_gym.datasets.tar_dataset",
        "compiler_gym.datasets.user",
        ("TarDataset",),
        "a dataset of a tarball's files",
    ),
    Alias(
        "compiler_gym.datasets.uri",
        "compiler_gym.datasets.benchmark",
        ("BenchmarkUri",),
        "benchmark URIs",
    ),
    # compiler_gym.envs.gcc: CompilerGym's GCC package.
    Alias(
        "compiler_gym.envs.gcc",
        _GCC,
        ("DEFAULT_GCC", "Gcc", "GccEnv", "GccSpec", "Option", "gcc_datasets"),
        "the GCC environment, its compiler and its datasets",
        package=True,
    ),
    Alias(
        "compiler_gym.envs.gcc.datasets",
        _GCC,
        (
            "compiler_gym.datasets.compilergym_gcc:AnghaBenchDataset",
            "compiler_gym.datasets.compilergym_gcc:CHStoneDataset",
            "compiler_gym.datasets.csmith:CsmithBenchmark",
            "compiler_gym.datasets.csmith:CsmithDataset",
            "compiler_gym.datasets.gcc_torture:GccTortureDataset",
            "get_gcc_datasets",
        ),
        "the GCC environment's datasets (CompilerGym's CHStone and AnghaBench are installed "
        "from its archives on first use)",
    ),
    Alias(
        "compiler_gym.envs.gcc.gcc",
        _GCC,
        ("Gcc", "GccSpec", "Option"),
        "the compiler and its options",
    ),
    Alias(
        "compiler_gym.envs.gcc.gcc_env",
        _GCC,
        ("DEFAULT_GCC", "GccEnv"),
        "the environment class",
    ),
    # compiler_gym.envs.llvm: a real package (its helpers); these two submodules are aliases.
    Alias(
        "compiler_gym.envs.llvm.llvm_benchmark",
        "compiler_gym.envs.llvm",
        (
            f"{_MAKE_BENCHMARK}:ClangInvocation",
            "HostCompilerFailure",
            "UnableToParseHostCompilerOutput",
            "get_system_library_flags",
            f"{_MAKE_BENCHMARK}:make_benchmark",
            f"{_MAKE_BENCHMARK}:make_benchmark_from_command_line",
            f"{_MAKE_BENCHMARK}:make_benchmark_from_source",
            "merge_benchmarks",
            "split_benchmark_by_function",
        ),
        "making LLVM benchmarks from C, C++ and bitcode, and splitting and merging them",
    ),
    Alias(
        "compiler_gym.envs.llvm.llvm_env",
        "compiler_gym.envs.llvm_env",
        ("LlvmEnv",),
        "the LLVM environment class",
    ),
    # compiler_gym.envs.loop_tool: CompilerGym's loop_tool package.
    Alias(
        "compiler_gym.envs.loop_tool",
        "compiler_gym.envs.loop_tool_env",
        (
            "LoopToolDataset",
            "LoopToolEnv",
            "cache_stats",
            "copy_bandwidth",
            "devices",
            "loop_tool_datasets",
        ),
        "the loop_tool environment, its datasets and its devices",
        package=True,
    ),
    # compiler_gym.spaces: a module here; CompilerGym's package had a module per space.
    Alias(
        "compiler_gym.spaces.reward",
        "compiler_gym.spaces",
        ("Reward", "DefaultRewardFromObservation"),
        "the base class of reward spaces, and a reward that is an observation's change",
    ),
    # compiler_gym.wrappers: CompilerGym's module per kind of wrapper.
    Alias(
        "compiler_gym.wrappers.commandline",
        _CORE,
        ("CommandlineWithTerminalAction", "ConstrainedCommandline"),
        "the command-line action-space wrappers",
    ),
    Alias(
        "compiler_gym.wrappers.counter",
        _CORE,
        ("Counter",),
        "the wrapper that counts an env's calls",
    ),
    Alias(
        "compiler_gym.wrappers.datasets",
        _CORE,
        (
            "CycleOverBenchmarks",
            "CycleOverBenchmarksIterator",
            "IterateOverBenchmarks",
            "RandomOrderBenchmarks",
        ),
        "the wrappers that choose each episode's benchmark",
    ),
    Alias(
        "compiler_gym.wrappers.fork",
        _CORE,
        ("ForkOnStep",),
        "the wrapper that forks the env before each step",
    ),
    Alias(
        "compiler_gym.wrappers.time_limit",
        _CORE,
        ("TimeLimit",),
        "the wrapper that ends an episode after a number of steps",
    ),
    Alias(
        "compiler_gym.wrappers.validation",
        _CORE,
        ("ValidateBenchmarkAfterEveryStep",),
        "the wrapper that validates the state after each step",
    ),
)

_BY_PATH: dict[str, Alias] = {alias.path: alias for alias in ALIASES}


class AliasImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The import hook of :data:`ALIASES`: finds the rows' paths, and fills each module from
    its row when it is imported (the implementation is imported then, not before)."""

    def find_spec(
        self,
        fullname: str,
        path: Optional[Sequence[str]] = None,
        target: Optional[ModuleType] = None,
    ) -> Optional[importlib.machinery.ModuleSpec]:
        """The spec of the alias ``fullname``; None for a module that is not in the table."""
        alias = _BY_PATH.get(fullname)
        if alias is None:
            return None
        # A package's __path__ is empty: its submodules are rows of the table, found above.
        return importlib.machinery.ModuleSpec(
            fullname, self, origin=f"alias of {alias.implementation}", is_package=alias.package
        )

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        """None: the default module object."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Fills the alias module from its row: ``__doc__``, ``__all__`` and the names."""
        alias = _BY_PATH[module.__name__]
        module.__doc__ = alias.doc
        for name, source in alias.sources():
            setattr(module, name, getattr(importlib.import_module(source), name))
        module.__all__ = alias.exported


def install() -> None:
    """Puts the import hook first on ``sys.meta_path`` (once), so that the table's paths win
    over any file that an older install left behind."""
    if not any(isinstance(finder, AliasImporter) for finder in sys.meta_path):
        sys.meta_path.insert(0, AliasImporter())


__all__ = ["ALIASES", "Alias", "AliasImporter", "install"]
