"""Benchmark: one program to compile, and BenchmarkUri: its name."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Optional, Union
from urllib.parse import parse_qs, urlparse, urlunparse

from compiler_gym._engine import _C
from compiler_gym.errors import ServiceError
from compiler_gym.validation_error import ValidationError


@dataclass(frozen=True)
class BenchmarkUri:
    """A parsed benchmark URI, ``scheme://dataset/path?params#fragment``, as CompilerGym parses
    one: a string with neither scheme nor dataset is a ``benchmark://`` one
    (``cbench-v1/qsort`` is ``benchmark://cbench-v1/qsort``), ``path`` keeps its leading
    ``/`` (``"/qsort"``; ``""`` when there is none), and any string parses (``""`` is
    ``benchmark:``, a bare ``generator:`` has an empty dataset), so that an unknown dataset is
    a ``LookupError`` where the URI is looked up.
    """

    scheme: str
    dataset: str
    path: str
    params: dict[str, list[str]] = field(default_factory=dict)
    fragment: str = ""

    @classmethod
    def from_string(cls, uri: str) -> BenchmarkUri:
        """Parses a URI string."""
        uri = str(uri).strip()
        parsed = urlparse(uri)
        if not parsed.scheme and not parsed.netloc:
            parsed = urlparse(f"benchmark://{uri}")
        return cls(
            parsed.scheme, parsed.netloc, parsed.path, parse_qs(parsed.query), parsed.fragment
        )

    @staticmethod
    def canonicalize(uri: str) -> str:
        """The canonical form of a URI string (``builtin-v0/qsort`` ->
        ``benchmark://builtin-v0/qsort``, parameters sorted)."""
        return str(BenchmarkUri.from_string(uri))

    @property
    def name(self) -> str:
        """The path without its leading ``/``: a benchmark's name within its dataset."""
        return self.path[1:] if self.path.startswith("/") else self.path

    def startswith(self, *args) -> bool:
        """``str(uri).startswith(...)``."""
        return str(self).startswith(*args)

    def endswith(self, *args) -> bool:
        """``str(uri).endswith(...)``."""
        return str(self).endswith(*args)

    def __eq__(self, other) -> bool:
        """Equal to another URI or a string of the same canonical form."""
        if isinstance(other, (BenchmarkUri, str)):
            return str(self) == BenchmarkUri.canonicalize(str(other))
        return NotImplemented

    def __lt__(self, other) -> bool:
        """URIs order as their strings (CompilerGym's)."""
        return str(self) < str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    @property
    def dataset_uri(self) -> str:
        """The URI of the benchmark's dataset, ``scheme://dataset``, without path or parameters."""
        return f"{self.scheme}://{self.dataset}"

    def __str__(self) -> str:
        query = "&".join(f"{k}={v}" for k, values in sorted(self.params.items()) for v in values)
        return urlunparse((self.scheme, self.dataset, self.path, "", query, self.fragment))


class BenchmarkSource(NamedTuple):
    """A source file of a benchmark: its name and contents (CompilerGym's)."""

    filename: str
    contents: bytes


class Benchmark:
    """A program for an environment: files or in-memory IR, plus how to build and run it.

    ``known_costs`` are costs of this program computed elsewhere from the same program, which
    the engine uses instead of computing them again (a Ray driver's baselines, see
    :mod:`compiler_gym.search.distributed`); LLVM names them ``"Oz/IrInstructionCount"``
    (``O0``, ``O3``, ``Oz``; ``IrInstructionCount``, ``ObjectTextSize``, ``TextSize``). The
    first env in a process to load the benchmark decides them; they are not part of its
    identity. ``build_timeout_seconds`` bounds each compiler run that builds the program from
    source (LLVM: clang-19, 300 s unless set; 0 is the family's default).

    As in CompilerGym, ``uri`` and ``proto`` are read-only, benchmarks order by URI, the
    first argument may be another benchmark (a :class:`compiler_gym.service.proto.Benchmark`
    message among them) whose program and URI this one takes, and ``sources`` are the
    benchmark's source files as (name, contents) pairs (:meth:`add_source` adds one).
    """

    def __init__(
        self,
        uri: Union[str, BenchmarkUri, Benchmark],
        files: Optional[list[str]] = None,
        data: Union[bytes, Any] = b"",
        compile_args: Optional[list[str]] = None,
        link_args: Optional[list[str]] = None,
        run_args: Optional[list[str]] = None,
        buildable: bool = False,
        runnable: bool = False,
        expected_output: Optional[str] = None,
        known_costs: Optional[dict[str, int]] = None,
        build_timeout_seconds: float = 0,
        validation_callbacks: Optional[list[Callable[[Any], Iterable[Any]]]] = None,
        sources: Optional[Iterable[tuple[str, bytes]]] = None,
    ):
        # CompilerGym's Benchmark(proto): the message's program, which it must have by reset.
        self._needs_program = isinstance(uri, Benchmark)
        self._program_error: Optional[ValueError] = None
        if isinstance(uri, Benchmark):
            try:
                files = files or uri.files
            except ValueError as e:  # a File(uri=) of another scheme: an error at reset
                self._program_error = e
            if isinstance(data, bytes) and not data:
                data = uri.data
            uri = uri.uri
        self._uri = BenchmarkUri.from_string(uri) if not isinstance(uri, BenchmarkUri) else uri
        self.files = [str(f) for f in (files or [])]
        # Bytes, or any buffer of them: observation["Bitcode"] is an int8 array.
        self.data = data if isinstance(data, bytes) else bytes(memoryview(data))
        self.compile_args = list(compile_args or [])
        self.link_args = list(link_args or [])
        self.run_args = list(run_args or [])
        self.buildable = buildable
        self.runnable = runnable
        self.expected_output = expected_output
        self.known_costs = dict(known_costs or {})
        if not build_timeout_seconds >= 0:
            raise ValueError(f"build_timeout_seconds must be >= 0, not {build_timeout_seconds!r}")
        self.build_timeout_seconds = float(build_timeout_seconds)
        self._validation_callbacks: list[Callable[[Any], Iterable[Any]]] = []
        for callback in validation_callbacks or ():
            self.add_validation_callback(callback)
        self._sources = [BenchmarkSource(str(n), bytes(c)) for n, c in (sources or ())]

    @property
    def uri(self) -> BenchmarkUri:
        """The benchmark's name (read-only, as in CompilerGym)."""
        return self._uri

    def add_source(self, source: BenchmarkSource) -> None:
        """Adds a source file to :attr:`sources` (CompilerGym's)."""
        self._sources.append(BenchmarkSource(str(source[0]), bytes(source[1])))

    def add_validation_callback(self, callback: Callable[[Any], Iterable[Any]]) -> None:
        """Adds a check that :meth:`CompilerEnv.validate` runs on an env holding this
        benchmark's optimized program (CompilerGym's): ``callback(env)`` returns or yields
        :class:`~compiler_gym.ValidationError` (or strings) for what is wrong, nothing when
        the program is right. An exception it raises is reported as an error too."""
        if not callable(callback):
            raise TypeError(f"a validation callback is callable, not {callback!r}")
        self._validation_callbacks.append(callback)

    def validation_callbacks(self) -> list[Callable[[Any], Iterable[Any]]]:
        """The callbacks added with :meth:`add_validation_callback`."""
        return list(self._validation_callbacks)

    def is_validatable(self) -> bool:
        """Whether validation checks the program's behaviour: it runs (and is compared with
        the unoptimized program), or it has validation callbacks."""
        return self.runnable or bool(self._validation_callbacks)

    def ivalidate(self, env: Any) -> Iterator[ValidationError]:
        """The errors found in ``env``'s current program, as they come: for a runnable
        benchmark, first how its behaviour differs from the unoptimized program's (the check
        CompilerGym's cBench benchmarks run), then each validation callback's."""
        if self.runnable:
            yield from self._behaviour_errors(env)
        yield from self.callback_errors(env)

    @staticmethod
    def _behaviour_errors(env: Any) -> Iterator[ValidationError]:
        """How the program of ``env`` (a family that can run programs) behaves otherwise
        than the unoptimized one; a program that cannot be built or run is an error too.
        Nothing while ``env`` holds no program (no episode)."""
        target = getattr(env, "unwrapped", env)
        check = getattr(target, "_semantic_validation_errors", None)
        if check is None or not getattr(target, "in_episode", False):
            return
        try:
            errors = check(set())
        except ServiceError as e:
            yield ValidationError(str(e))
            return
        for error in errors or ():
            yield ValidationError(error)

    def callback_errors(self, env: Any) -> Iterator[ValidationError]:
        """The errors of each validation callback on ``env``, as they come."""
        for callback in self._validation_callbacks:
            try:
                for error in callback(env) or ():
                    yield (
                        error if isinstance(error, ValidationError) else ValidationError(str(error))
                    )
            except Exception as e:  # noqa: BLE001 - a failing check is a failed validation
                yield ValidationError(
                    "Validation callback raised an exception",
                    {"callback": getattr(callback, "__name__", repr(callback)), "error": repr(e)},
                )

    def validate(self, env: Any) -> list[ValidationError]:
        """The errors of every validation callback on ``env`` ([] when all pass)."""
        return list(self.ivalidate(env))

    @classmethod
    def from_file(cls, uri: str, path: str) -> Benchmark:
        """A benchmark from a bitcode, IR or source file."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"File not found: {path}")
        return cls(uri, files=[str(path.resolve())])

    @classmethod
    def from_file_contents(cls, uri: str, data: bytes) -> Benchmark:
        """A benchmark from bitcode or text IR held in memory."""
        return cls(uri, data=data)

    def to_engine(self) -> _C.Benchmark:
        """The engine's view of this benchmark."""
        if getattr(self, "_program_error", None) is not None:
            raise self._program_error
        if getattr(self, "_needs_program", False) and not self.files and not self.data:
            raise ValueError(f"No program set in Benchmark: {self.uri}")
        b = _C.Benchmark()
        b.uri = str(self.uri)
        b.files = self.files
        b.data = self.data
        b.compile_args = self.compile_args
        b.link_args = self.link_args
        b.run_args = self.run_args
        b.buildable = self.buildable
        b.runnable = self.runnable
        b.expected_output = self.expected_output or ""
        b.known_costs = sorted(self.known_costs.items())
        b.build_timeout_seconds = self.build_timeout_seconds
        return b

    @property
    def proto(self) -> Any:
        """CompilerGym's ``benchmark.proto``: this benchmark as the service's ``Benchmark``
        message (:class:`compiler_gym.service.proto.Benchmark`), its ``program`` holding the
        program's bytes (the file's, for a benchmark of one file). A benchmark of several
        files is no one message: ``ValueError``."""
        from compiler_gym.service import proto  # it imports this module: imported when used

        if len(self.files) > 1:
            raise ValueError(f"{self.uri} has {len(self.files)} files: a message holds one")
        contents = Path(self.files[0]).read_bytes() if self.files else self.data
        return proto.Benchmark(uri=str(self.uri), program=proto.File(contents=contents))

    @property
    def sources(self) -> list[BenchmarkSource]:
        """The benchmark's source files as :class:`BenchmarkSource`: those given
        (``sources=``, :meth:`add_source`), else its files (or its in-memory IR)."""
        if self._sources:
            return list(self._sources)
        if not self.files:
            return [BenchmarkSource("benchmark.bc", self.data)] if self.data else []
        return [BenchmarkSource(Path(f).name, Path(f).read_bytes()) for f in self.files]

    def write_sources_to_directory(self, directory: Union[str, Path]) -> int:
        """Writes :attr:`sources` into ``directory`` (made if missing); returns how many."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        sources = self.sources
        for source in sources:
            (directory / source.filename).write_bytes(source.contents)
        return len(sources)

    def __eq__(self, other) -> bool:
        if isinstance(other, Benchmark):
            return str(self.uri) == str(other.uri)
        return str(self.uri) == str(other)

    def __lt__(self, other) -> bool:
        return str(self.uri) < str(other.uri if isinstance(other, Benchmark) else other)

    def __le__(self, other) -> bool:
        return self < other or self == other

    def __gt__(self, other) -> bool:
        return str(self.uri) > str(other.uri if isinstance(other, Benchmark) else other)

    def __ge__(self, other) -> bool:
        return self > other or self == other

    def __hash__(self) -> int:
        return hash(str(self.uri))

    def __repr__(self) -> str:
        return str(self.uri)
