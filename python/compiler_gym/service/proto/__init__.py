"""CompilerGym's ``compiler_gym.service.proto``: the two messages a script uses to hand an
environment a program, ``Benchmark`` and ``File``, as this package's classes.

>>> from compiler_gym.service.proto import Benchmark, File
>>> benchmark = Benchmark(uri="benchmark://user-v0/add", program=File(contents=ir_text))
>>> env.reset(benchmark=benchmark)

:class:`Benchmark` is a :class:`compiler_gym.datasets.Benchmark` whose program is its
``program`` field, so an env takes it wherever it takes a benchmark; :class:`File` holds the
program's bytes (``contents``: bitcode, IR text or source, as the family reads them) or names
its file (``uri``, ``file:///path``). The other messages of CompilerGym's service protocol
travel only between a client and a gRPC service, which this package does not have: importing
one raises :class:`~compiler_gym.service.rpc_only.RpcServiceNotIncluded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import urlparse
from urllib.request import url2pathname

from compiler_gym.datasets.benchmark import Benchmark as _Benchmark
from compiler_gym.service.rpc_only import missing_name, module_getattr

if TYPE_CHECKING:
    from compiler_gym._engine import _C


@dataclass
class File:
    """CompilerGym's ``File`` message: a program, by its bytes (``contents``) or by where it
    lies (``uri``: a ``file:///`` URI, or a path). One of the two, as in CompilerGym, where
    they were a ``oneof``."""

    contents: bytes = b""
    uri: str = ""

    def __post_init__(self):
        self.check()

    def check(self) -> None:
        """Raises ``ValueError`` when both fields are set, or ``uri`` names no local file
        (a scheme other than ``file``; one that is not a URL scheme, such as
        ``invalid_scheme://``, when the program is read, at ``reset``)."""
        if self.contents and self.uri:
            raise ValueError(
                "a File holds its program's contents or its uri, not both: set one of them"
            )
        if urlparse(self.uri).scheme:
            self.path()

    def path(self) -> Optional[str]:
        """The path that ``uri`` names (None without a uri)."""
        if not self.uri:
            return None
        parsed = urlparse(self.uri)
        if parsed.scheme == "file":
            return url2pathname(parsed.path)
        if not parsed.scheme and "://" not in self.uri:  # urlparse: no "_" in a scheme
            return self.uri
        # CompilerGym's message first; a plain path is accepted too.
        raise ValueError(
            f'Invalid benchmark data URI. Only the file:/// scheme is supported: "{self.uri}" '
            "(a program's uri is a file:/// URI or a path, read from this machine; download "
            "other URIs first, or pass the bytes as contents)"
        )


class Benchmark(_Benchmark):
    """CompilerGym's ``Benchmark`` message as a :class:`compiler_gym.datasets.Benchmark`:
    ``uri`` names it and ``program`` (a :class:`File`) is its program. ``files`` and ``data``,
    which an env reads, are ``program``'s: a change to either field of ``program`` is seen at
    the next ``reset``. CompilerGym's ``dynamic_config`` (build and run commands sent to its
    service) raises ``RpcServiceNotIncluded``: a benchmark's commands here are
    ``compile_args``, ``link_args``, ``run_args`` and ``runnable`` of the base class."""

    def __init__(
        self,
        uri: str = "",
        program: Optional[File] = None,
        dynamic_config: Any = None,
    ):
        if dynamic_config is not None:
            raise missing_name(__name__, "BenchmarkDynamicConfig")
        # The base sets files and data, which are program's: program must exist first.
        self._program = File()
        super().__init__(uri)
        self.program = File() if program is None else program

    @property
    def program(self) -> File:
        """The program: its ``contents`` or its ``uri``."""
        return self._program

    @program.setter
    def program(self, program: File) -> None:
        if not isinstance(program, File):
            raise TypeError(
                f"a Benchmark's program is a compiler_gym.service.proto.File: {program!r}"
            )
        program.check()
        self._program = program

    @property
    def files(self) -> list[str]:
        """The program's file, when ``program`` names one by ``uri``."""
        path = self._program.path()
        return [path] if path else []

    @files.setter
    def files(self, files: list[str]) -> None:
        files = [str(f) for f in files]
        if len(files) > 1:
            raise ValueError(
                f"a proto Benchmark's program is one File, not {len(files)}: use "
                "compiler_gym.datasets.Benchmark(uri, files=[...]) for a program of several"
            )
        self._program.uri = Path(files[0]).resolve().as_uri() if files else ""

    @property
    def data(self) -> bytes:
        """The program's ``contents``."""
        return self._program.contents

    @data.setter
    def data(self, data: bytes) -> None:
        self._program.contents = bytes(data)

    def to_engine(self) -> _C.Benchmark:
        """The engine's view of this benchmark, after checking ``program``."""
        self._program.check()
        self._program.path()
        if not self._program.contents and not self._program.uri:
            raise ValueError(f"No program set in Benchmark: {self.uri}")
        return super().to_engine()


__getattr__ = module_getattr(__name__)

__all__ = ["Benchmark", "File"]
