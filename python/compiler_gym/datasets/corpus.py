"""The training corpus: one table of program groups, each on the ``train`` or ``held-out`` side.

The split is by dataset or package, never by seed: every program of a held-out group comes from
a dataset or library that no training group draws from, so a policy is judged on code whose
like it never saw (not on another seed of the same generator). builtin-v0, the leaderboard's
suite, is held out; so are whole pypi-c-v0 libraries. CompilerGym's datasets (cbench-v1 and
the others papers report on) are in no group: they are neither trained nor tuned on.

    >>> from compiler_gym.datasets.corpus import corpus_uris, group_of
    >>> next(corpus_uris("train"))
    'generator://csmith-v0/0'
    >>> group_of("benchmark://pypi-c-v0/sqlite").split
    'held-out'

:func:`corpus_uris` enumerates a split in a fixed order (groups in table order, each group's
programs in name or seed order), optionally keeping only programs whose unoptimized IR has a
given number of instructions: the engine loads each program to count them, and the counts are
cached by the program's content (``$COMPILER_GYM_CACHE/corpus``), so a second call is quick.
``python -m compiler_gym.bin.corpus`` lists a split and measures its groups.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.errors import ServiceError
from compiler_gym.util.names import did_you_mean
from compiler_gym.util.runfiles import cache_path

logger = logging.getLogger(__name__)

TRAIN = "train"
HELD_OUT = "held-out"
SPLITS = (TRAIN, HELD_OUT)


@dataclass(frozen=True)
class Group:
    """A group of corpus programs: which dataset, which of its programs, which side.

    ``seeds`` selects a generator's seeds; ``package`` a library of a dataset whose benchmark
    names start with it (pypi-c-v0: ``sqlite`` and ``sqlite/...``); neither: every benchmark
    of the dataset, or every ``every``-th in name order.
    """

    name: str
    dataset: str  # the dataset's URI, e.g. generator://csmith-v0
    split: str  # TRAIN or HELD_OUT
    seeds: Optional[range] = None
    package: Optional[str] = None
    every: int = 1
    note: str = ""

    @property
    def rule(self) -> str:
        """The selection rule in words, as the docs and ``stats`` show it."""
        if self.seeds is not None:
            return f"seeds {self.seeds.start}-{self.seeds.stop - 1}"
        if self.package is not None:
            return f"library {self.package} (whole package)"
        return "all" if self.every == 1 else f"every {self.every}th in name order"

    def _dataset_of(self, parsed: BenchmarkUri) -> bool:
        return parsed.dataset_uri == self.dataset

    def _in_package(self, name: str) -> bool:
        """Whether a benchmark name of this group's dataset belongs to its package (all do
        when the group takes the whole dataset)."""
        return self.package is None or name == self.package or name.startswith(self.package + "/")

    def contains(self, uri: str) -> bool:
        """Whether ``uri`` is one of this group's programs. For a dataset with an install
        (gcc-torture-v0 with ``every`` > 1) the position is only known from its listing:
        such a group says whether the URI belongs to its dataset and package."""
        parsed = BenchmarkUri.from_string(uri)
        if not self._dataset_of(parsed):  # parameters (builtin-v0's ?dataset=N) keep the program
            return False
        if self.seeds is not None:
            try:
                return int(parsed.name) in self.seeds
            except ValueError:
                return False
        return bool(parsed.name) and self._in_package(parsed.name)

    def uris(self, datasets: Any) -> Iterator[str]:
        """This group's benchmark URIs in a fixed order: seeds ascending, else the dataset's
        names sorted (installing the dataset if it is not yet)."""
        if self.seeds is not None:
            for seed in self.seeds:
                yield f"{self.dataset}/{seed}"
            return
        listed = sorted(
            uri
            for uri in datasets.dataset(self.dataset).benchmark_uris()
            if self._in_package(BenchmarkUri.from_string(uri).name)
        )
        yield from listed[:: self.every]


# The corpus. Groups of one dataset never overlap (tests check it); a pypi-c-v0 library that
# joins pypi_c.LIBRARIES must be given a group here, on one side (tests check that too).
# Held out: builtin-v0 (the leaderboard's suite, never training data) and four whole
# libraries of different kinds: a markdown parser, two compressors and a database engine.
# Their likes in training are other libraries (brotli compresses too, but is neither zopfli's
# nor zlib's code). A debian-c-v0 library joins the corpus the same way, with a group here.
GROUPS: tuple[Group, ...] = (
    Group("csmith-v0", "generator://csmith-v0", TRAIN, seeds=range(10000),
          note="random C programs that print a checksum; runnable when they end in 10 s"),
    Group("llvm-stress-v0", "generator://llvm-stress-v0", TRAIN, seeds=range(2000),
          note="random IR, about 200 instructions a function; not runnable"),
    Group("gcc-torture-v0", "benchmark://gcc-torture-v0", TRAIN,
          note="GCC 12's C torture execution tests, self-checking"),
    Group("pypi-c-v0/pycryptodome", "benchmark://pypi-c-v0", TRAIN, package="pycryptodome",
          note="ciphers and hashes, one program per file"),
    Group("pypi-c-v0/brotli", "benchmark://pypi-c-v0", TRAIN, package="brotli",
          note="compression: the linked library and each file"),
    Group("pypi-c-v0/lz4", "benchmark://pypi-c-v0", TRAIN, package="lz4",
          note="compression: the linked library and each file"),
    Group("pypi-c-v0/zstd", "benchmark://pypi-c-v0", TRAIN, package="zstd",
          note="compression: the amalgamated library"),
    Group("pypi-c-v0/xxhash", "benchmark://pypi-c-v0", TRAIN, package="xxhash",
          note="a hash function"),
    Group("pypi-c-v0/crc32c", "benchmark://pypi-c-v0", TRAIN, package="crc32c",
          note="a checksum: the linked library and each file"),
    Group("pypi-c-v0/cmark-gfm", "benchmark://pypi-c-v0", HELD_OUT, package="cmark-gfm",
          note="a markdown parser: the linked library and each file"),
    Group("pypi-c-v0/zopfli", "benchmark://pypi-c-v0", HELD_OUT, package="zopfli",
          note="a deflate compressor: the linked library and each file"),
    Group("pypi-c-v0/sqlite", "benchmark://pypi-c-v0", HELD_OUT, package="sqlite",
          note="a database engine: the amalgamation"),
    Group("debian-c-v0/zlib", "benchmark://debian-c-v0", HELD_OUT, package="zlib",
          note="compression, from Debian's gcc-12-source: the library, each file, its tests"),
    Group("builtin-v0", "benchmark://builtin-v0", HELD_OUT,
          note="the leaderboard's suite: never training data"),
)  # fmt: skip


def _check_split(split: str) -> str:
    if split not in SPLITS:
        raise LookupError(f"Unknown split {split!r}{did_you_mean(split, SPLITS)}")
    return split


def group(name: str) -> Group:
    """The group named ``name``; LookupError (with the closest names) when there is none."""
    for g in GROUPS:
        if g.name == name:
            return g
    names = [g.name for g in GROUPS]
    hint = did_you_mean(name, names) or f"; the groups are {', '.join(names)}"
    raise LookupError(f"Unknown corpus group {name!r}{hint}")


def groups(split: Optional[str] = None, names: Optional[Iterable[str]] = None) -> list[Group]:
    """The groups of ``split`` (both splits when None), in table order; ``names`` picks some
    by name (each must be of ``split``)."""
    if split is not None:
        _check_split(split)
    if names is None:
        return [g for g in GROUPS if split is None or g.split == split]
    chosen = [group(n) for n in names]
    for g in chosen:
        if split is not None and g.split != split:
            raise LookupError(f"Group {g.name!r} is in the {g.split!r} split, not {split!r}")
    return chosen


def group_of(uri: str) -> Group:
    """The group of a benchmark URI. LookupError when it is in none: a dataset outside the
    corpus (CompilerGym's datasets), a seed outside its group's range."""
    for g in GROUPS:
        if g.contains(uri):
            return g
    parsed = BenchmarkUri.from_string(uri)
    datasets = [g.dataset for g in GROUPS]
    if parsed.dataset_uri in datasets:
        raise LookupError(f"{uri} is in no corpus group of {parsed.dataset_uri}")
    hint = did_you_mean(parsed.dataset_uri, dict.fromkeys(datasets))
    raise LookupError(f"{uri}: {parsed.dataset_uri} is not in the corpus{hint}")


def _datasets() -> Any:
    from compiler_gym.envs.llvm_env import llvm_datasets  # the env imports the datasets

    return llvm_datasets()


def available(g: Group, datasets: Any = None) -> bool:
    """Whether ``g``'s programs can be listed without installing anything: its dataset is
    installed (generators list their seeds without their binary)."""
    dataset = (_datasets() if datasets is None else datasets).dataset(g.dataset)
    return g.seeds is not None or dataset.installed


def corpus_uris(
    split: str,
    max_instructions: Optional[int] = None,
    min_instructions: int = 0,
    group_names: Optional[Iterable[str]] = None,
    install: bool = True,
    env: Any = None,
    progress: bool = False,
) -> Iterator[str]:
    """The benchmark URIs of ``split`` (``"train"`` or ``"held-out"``), groups in table order.

    With ``max_instructions`` (or a ``min_instructions`` above 0), only the programs that load
    and whose unoptimized IR has that many instructions: each is loaded in ``env`` (an
    ``llvm-v0`` env made for the call when None) unless its count is cached. ``install=False``
    skips the groups whose dataset is not installed instead of installing it (gcc-torture-v0
    and pypi-c-v0 download on first use). ``progress`` shows a bar per group while counting.
    """
    chosen = groups(split, group_names)  # unknown names fail here, not at the first URI
    datasets = _datasets()
    chosen = [g for g in chosen if install or available(g, datasets)]
    if max_instructions is None and min_instructions <= 0:
        return (uri for g in chosen for uri in g.uris(datasets))
    upper = max_instructions if max_instructions is not None else float("inf")
    return _sized(chosen, datasets, min_instructions, upper, env, progress)


def _sized(
    chosen: list[Group], datasets: Any, lower: int, upper: float, env: Any, progress: bool
) -> Iterator[str]:
    """The URIs of ``chosen`` whose programs load with ``lower`` to ``upper`` instructions."""
    with InstructionCounter(env) as counter:
        for g in chosen:
            failed = []
            for uri in _bar(list(g.uris(datasets)), progress, g.name):
                count = counter.count(uri, datasets)
                if count is None:
                    failed.append(uri)
                elif lower <= count <= upper:
                    yield uri
            if failed:  # left out: say so, a missing generator would empty a group silently
                logger.warning(
                    "%s: %d programs did not load and are left out (%s first)",
                    g.name,
                    len(failed),
                    failed[0],
                )


def _one_line(e: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    lines = str(e).splitlines()
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def _bar(items: list, show: bool, desc: str):
    from compiler_gym.util.cli import progress

    return progress(items, quiet=not show, desc=desc, unit="program")


def _content_key(benchmark: Benchmark) -> str:
    """A hash of what decides a program's IR: its URI, files, bytes and compile arguments
    (a reinstalled dataset with other files gets other keys)."""
    h = hashlib.sha256()
    for part in (str(benchmark.uri), *benchmark.compile_args, "\0"):
        h.update(part.encode() + b"\0")
    for f in benchmark.files:
        h.update(Path(f).read_bytes() + b"\0")
    h.update(benchmark.data)
    return h.hexdigest()


class InstructionCounter:
    """Counts the unoptimized IR instructions of corpus programs with the engine, caching each
    count (None: the program did not load) by the program's content in a JSON-lines file under
    ``$COMPILER_GYM_CACHE/corpus``. A context manager: it closes the env it made."""

    def __init__(self, env: Any = None, cache: Optional[Path] = None):
        self._env = env
        self._own_env = env is None
        self.path = cache or cache_path("corpus", "instruction-counts-v1.jsonl")
        self._cache: dict[str, Optional[int]] = {}
        if self.path.is_file():
            for line in self.path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                    self._cache[entry["key"]] = entry["instructions"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by a killed writer

    def __enter__(self) -> InstructionCounter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes the env this counter made (not one it was given)."""
        if self._own_env and self._env is not None:
            self._env.close()
            self._env = None

    @property
    def env(self) -> Any:
        """The env that loads programs (made on first use when none was given)."""
        if self._env is None:
            import compiler_gym

            self._env = compiler_gym.make("llvm-v0")
        return self._env

    def measure(self, uri: str, datasets: Any) -> dict:
        """Loads ``uri`` now, whatever the cache holds: ``instructions`` (None when it does not
        load, ``error`` then says why), ``benchmark_seconds`` (making the benchmark: a
        generator's first run, a csmith program's probe) and ``load_seconds`` (the engine
        compiling and counting). The count is cached."""
        started = time.perf_counter()
        result: dict[str, Any] = {"uri": uri, "instructions": None, "error": None}
        try:
            benchmark = datasets.benchmark(uri)
        except (OSError, ValueError, LookupError, ServiceError) as e:
            benchmark = None
            result["error"] = _one_line(e)
        result["benchmark_seconds"] = time.perf_counter() - started
        started = time.perf_counter()
        if benchmark is not None:
            try:
                self.env.reset(benchmark=benchmark)
                result["instructions"] = int(self.env.observation["IrInstructionCount"])
            except (OSError, ValueError, ServiceError) as e:
                result["error"] = _one_line(e)
            self._store(_content_key(benchmark), result["instructions"])
        result["load_seconds"] = time.perf_counter() - started
        return result

    def count(self, uri: str, datasets: Any) -> Optional[int]:
        """The instruction count of ``uri`` (None: it does not load), from the cache when the
        program's content is known there, else :meth:`measure`'s."""
        try:
            key = _content_key(datasets.benchmark(uri))
        except (OSError, ValueError, LookupError, ServiceError):
            return None
        if key in self._cache:
            return self._cache[key]
        return self.measure(uri, datasets)["instructions"]

    def _store(self, key: str, instructions: Optional[int]) -> None:
        self._cache[key] = instructions
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One short line per write, appended: concurrent writers do not interleave within it.
        line = json.dumps({"key": key, "instructions": instructions}) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)


def sample(items: list, at_most: Optional[int]) -> list:
    """At most ``at_most`` of ``items``, evenly spaced and starting with the first (all when
    None or when there are no more): a fixed sample for estimates."""
    if at_most is None or len(items) <= at_most:
        return list(items)
    if at_most <= 0:
        return []
    return [items[i * len(items) // at_most] for i in range(at_most)]


def group_stats(
    g: Group,
    counter: InstructionCounter,
    datasets: Any = None,
    at_most: Optional[int] = None,
    progress: bool = False,
) -> dict:
    """Measures a group: ``programs`` (all of it), ``measured`` (a :func:`sample` of at most
    ``at_most``), of those ``loaded``, their ``instructions`` (in all, the median and the
    largest program's) and the ``seconds`` it took
    (making the benchmarks and loading them); ``estimated_instructions`` and
    ``estimated_seconds`` scale the sample's figures to the whole group."""
    datasets = _datasets() if datasets is None else datasets
    uris = list(g.uris(datasets))
    chosen = sample(uris, at_most)
    sizes: list[int] = []
    benchmark_seconds = load_seconds = 0.0
    errors: dict[str, str] = {}
    for uri in _bar(chosen, progress, g.name):
        m = counter.measure(uri, datasets)
        benchmark_seconds += m["benchmark_seconds"]
        load_seconds += m["load_seconds"]
        if m["instructions"] is None:
            errors[uri] = m["error"]
        else:
            sizes.append(m["instructions"])
    loaded, instructions = len(sizes), sum(sizes)
    sizes.sort()
    scale = len(uris) / len(chosen) if chosen else 0.0
    seconds = benchmark_seconds + load_seconds
    return {
        "group": g.name,
        "split": g.split,
        "dataset": g.dataset,
        "rule": g.rule,
        "programs": len(uris),
        "measured": len(chosen),
        "loaded": loaded,
        "instructions": instructions,
        "median_instructions": sizes[len(sizes) // 2] if sizes else None,
        "max_instructions": sizes[-1] if sizes else None,
        "benchmark_seconds": round(benchmark_seconds, 2),
        "load_seconds": round(load_seconds, 2),
        "seconds": round(seconds, 2),
        "estimated_loaded": round(loaded * scale),
        "estimated_instructions": round(instructions * scale),
        "estimated_seconds": round(seconds * scale, 1),
        "errors": errors,
    }
