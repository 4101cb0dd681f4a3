"""Benchmarks from user code: files (sources, IR, bitcode), clang invocations or a source
string."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, Union

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark
from compiler_gym.errors import BenchmarkInitError
from compiler_gym.util.runfiles import cache_path, write_atomically

_SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".C", ".i", ".ii"}
_CXX_SUFFIXES = {".cc", ".cpp", ".cxx", ".C", ".ii"}
# Without the system's include directories (clang's own headers, stddef.h and the like, stay).
_NO_SYSTEM_INCLUDES = "-nostdlibinc"


class ClangInvocation:
    """CompilerGym's description of a clang-19 run that compiles C/C++ sources to bitcode, for
    :func:`make_benchmark`: ``args`` are the sources and their flags (optimization levels,
    ``-c``, ``-o`` and the like are the environment's business and are dropped);
    ``system_includes=False`` compiles without the system's include directories; ``timeout``
    bounds the compile in seconds.

    >>> make_benchmark(ClangInvocation.from_c_file("a.c", copt=["-DN=10"]))
    """

    def __init__(self, args: Sequence[str], system_includes: bool = True, timeout: float = 600):
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.args = [str(a) for a in args]
        self.system_includes = bool(system_includes)
        self.timeout = float(timeout)

    @classmethod
    def from_c_file(
        cls,
        path: Union[str, Path],
        copt: Optional[list[str]] = None,
        system_includes: bool = True,
        timeout: float = 600,
    ) -> ClangInvocation:
        """The invocation that compiles one C (or C++) file with the flags ``copt``."""
        return cls([*(copt or []), str(path)], system_includes, timeout)

    def command(self, outpath: Union[str, Path]) -> list[str]:
        """The clang-19 command line that writes this invocation's bitcode to ``outpath``, as
        the environment compiles it."""
        frontend = json.loads(_C.family_call("llvm", "clang_frontend_flags"))
        includes = [] if self.system_includes else [_NO_SYSTEM_INCLUDES]
        return [
            _C.family_call("llvm", "clang_path"),
            *frontend,
            "-c",
            "-o",
            str(outpath),
            *includes,
            *self.args,
        ]

    def __repr__(self) -> str:
        return f"ClangInvocation({shlex.join(self.args)})"


def make_benchmark(
    inputs: Union[str, Path, ClangInvocation, Sequence[Union[str, Path, ClangInvocation]]],
    copt: Optional[list[str]] = None,
    system_includes: bool = True,
    timeout: float = 600,
    link_args: Optional[list[str]] = None,
    runnable: Optional[bool] = None,
    uri: Optional[str] = None,
) -> Benchmark:
    """Makes a benchmark from one or more files: C/C++ sources (compiled with clang-19),
    ``.ll`` text IR, or ``.bc`` bitcode, or :class:`ClangInvocation`\\ s. The arguments are
    CompilerGym's: ``copt`` are flags for the sources, ``system_includes=False`` compiles them
    without the system's include directories, ``timeout`` bounds each compile in seconds.
    Every source of a benchmark is compiled with the same flags and time limit: invocations
    whose flags differ raise ``ValueError``, and given invocations, the longest of their
    timeouts is the benchmark's.

    As in CompilerGym, the files are read and the sources compiled now, in the current
    directory (relative include flags work), and the program is held in memory: the files
    may change or go afterwards. Several files are linked into one module. A source that does
    not compile raises :class:`~compiler_gym.errors.BenchmarkInitError` with clang's message
    (as does a link of several files that fails); a missing file ``FileNotFoundError``.

    ``runnable`` (ours; CompilerGym had no such argument) says whether the program runs and
    checks itself, so that validation runs it against the unoptimized build and the Runtime
    observations apply. By default (None) a program from sources is runnable when it links
    into an executable (it defines ``main``, and ``link_args`` resolve every other symbol);
    ``False`` opts out, ``True`` opts in without the link check. IR and bitcode inputs are
    never runnable. A C++ source links with ``-lstdc++ -lm`` unless ``link_args`` says
    otherwise (the link is clang's, which does not add C++'s libraries itself).

    The URI defaults to ``benchmark://user-v0/<hash>`` of the file contents and flags, so the
    same inputs give the same benchmark.
    """
    items = [inputs] if isinstance(inputs, (str, Path, ClangInvocation)) else list(inputs)
    if not items:
        raise ValueError("No inputs")
    paths = [Path(i) for i in items if not isinstance(i, ClangInvocation)]
    invocations = [i for i in items if isinstance(i, ClangInvocation)]
    copt = list(copt or [])
    link_args = None if link_args is None else list(link_args)
    if invocations:
        parsed = [_parse_compiler_arguments(i.args, Path.cwd(), str(i)) for i in invocations]
        flags = {tuple(p[1]) for p in parsed}
        if len(flags) > 1:
            raise ValueError(
                "The sources of one benchmark compile with one set of flags; these invocations "
                f"differ: {', '.join(map(repr, invocations))}"
            )
        paths += [Path(f) for p in parsed for f in p[0]]
        copt += list(flags.pop())
        if any(p[2] for p in parsed):
            link_args = (link_args or []) + [a for p in parsed for a in p[2]]
        system_includes = system_includes and all(i.system_includes for i in invocations)
        timeout = max(i.timeout for i in invocations)
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if not system_includes and _NO_SYSTEM_INCLUDES not in copt:
        copt.append(_NO_SYSTEM_INCLUDES)
    contents = []
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"File not found: {p}")
        contents.append(p.read_bytes())
    digest = hashlib.sha256()
    for data in contents:
        digest.update(data)
    for flag in copt:
        digest.update(flag.encode())
    uri = uri or f"benchmark://user-v0/{digest.hexdigest()[:16]}"
    has_sources = any(p.suffix in _SOURCE_SUFFIXES for p in paths)
    if link_args is None and any(p.suffix in _CXX_SUFFIXES for p in paths):
        link_args = ["-lstdc++", "-lm"]
    link_args = list(link_args or [])
    with tempfile.TemporaryDirectory(prefix="compiler_gym-make_benchmark-") as scratch:
        scratch = Path(scratch)
        program, headers = _build_module(uri, paths, contents, copt, timeout, scratch)
        if runnable is None:
            runnable = has_sources and _links(program, link_args, timeout, scratch)
    benchmark = Benchmark(
        uri,
        data=program,
        compile_args=copt,
        link_args=link_args,
        buildable=has_sources,
        runnable=bool(runnable) and has_sources,
        build_timeout_seconds=timeout,
    )
    # The files the program was made from, for FilesDataset to tell when it is out of date.
    benchmark._inputs = tuple(dict.fromkeys([*(str(p.absolute()) for p in paths), *headers]))
    return benchmark


def _build_module(
    uri: str,
    paths: list[Path],
    contents: list[bytes],
    copt: list[str],
    timeout: float,
    scratch: Path,
) -> tuple[bytes, list[str]]:
    """The program of ``paths`` as one module: the sources compiled to bitcode (in parallel,
    in the current directory), IR and bitcode as read, and several modules linked with
    llvm-link; and the headers outside the system's that the sources included (absolute
    paths). BenchmarkInitError with the tool's message when a compile or the link fails."""
    sources = [i for i, p in enumerate(paths) if p.suffix in _SOURCE_SUFFIXES]
    cwd = os.getcwd()

    def compile_source(i: int) -> tuple[bytes, list[str]]:
        output, depfile = scratch / f"{i}.bc", scratch / f"{i}.d"
        args = [*copt, "-MMD", "-MF", str(depfile), str(paths[i])]
        command = ClangInvocation(args, timeout=timeout).command(output)
        result = _C.run_sandboxed(command, timeout_seconds=timeout, workdir=cwd)
        if not result["ok"]:
            stderr = result["stderr"].decode(errors="replace")[:4000]
            raise BenchmarkInitError(
                f"cannot compile {paths[i]}: clang-19 {result['description']}\n{stderr}"
            )
        return output.read_bytes(), _dependencies(depfile, cwd)[1:]  # [0]: the source

    modules, headers = list(contents), []
    with ThreadPoolExecutor(max_workers=min(len(sources), os.cpu_count() or 1) or 1) as pool:
        for i, (bitcode, used) in zip(sources, pool.map(compile_source, sources), strict=True):
            modules[i] = bitcode
            headers += used
    if len(modules) == 1:
        return modules[0], headers
    from compiler_gym.third_party.llvm import llvm_link_path  # it imports the LLVM env

    names = []
    for i, module in enumerate(modules):
        names.append(f"input-{i}")
        (scratch / names[-1]).write_bytes(module)
    command = [str(llvm_link_path()), *names, "-o", "linked.bc"]
    result = _C.run_sandboxed(command, timeout_seconds=timeout, workdir=str(scratch))
    if not result["ok"]:
        stderr = result["stderr"].decode(errors="replace")[:4000]
        raise BenchmarkInitError(
            f"cannot link the files of {uri}: llvm-link {result['description']}\n{stderr}"
        )
    return (scratch / "linked.bc").read_bytes(), headers


def _dependencies(depfile: Path, cwd: str) -> list[str]:
    """The prerequisites of the make rule clang's ``-MMD -MF depfile`` wrote, as absolute
    paths (relative ones are the compile's directory's), the source first."""
    text = depfile.read_text().replace("\\\n", " ")
    _, _, prerequisites = text.partition(": ")
    # Make's escapes: a space in a name is "\ ", a "$" is "$$".
    names = re.split(r"(?<!\\)\s+", prerequisites.strip())
    names = [n.replace("\\ ", " ").replace("$$", "$") for n in names if n]
    return [os.path.normpath(os.path.join(cwd, n)) for n in names]


def _links(program: bytes, link_args: list[str], timeout: float, scratch: Path) -> bool:
    """Whether clang-19 links the module ``program`` into an executable with ``link_args``,
    as the environment builds one to run it."""
    (scratch / "module.bc").write_bytes(program)
    command = [_C.family_call("llvm", "clang_path"), "module.bc", "-o", "a.out", *link_args]
    return bool(_C.run_sandboxed(command, timeout_seconds=timeout, workdir=str(scratch))["ok"])


def make_benchmark_from_source(
    source: str, copt: Optional[list[str]] = None, lang: str = "c", runnable: Optional[bool] = None
) -> Benchmark:
    """Makes a benchmark from a C (``lang="c"``) or C++ (``"c++"``) source string, compiled
    now (see :func:`make_benchmark`, also for ``runnable``)."""
    suffix = {"c": ".c", "c++": ".cc", "cpp": ".cc"}.get(lang)
    if suffix is None:
        raise ValueError(f"Unknown language {lang!r}")
    digest = hashlib.sha256(source.encode() + "\0".join(copt or []).encode()).hexdigest()[:16]
    path = cache_path("user-v0", f"{digest}{suffix}")
    if not path.is_file():
        write_atomically(path, source.encode())
    return make_benchmark(path, copt=copt, runnable=runnable, uri=f"benchmark://user-v0/{digest}")


# Flags that only concern how the compiler driver is run, not what the program means: dropped.
_DRIVER_ONLY = {
    "-c",
    "-S",
    "-E",
    "-emit-llvm",
    "-g",
    "-v",
    "-pipe",
    "-MD",
    "-MMD",
    "-MP",
    "-save-temps",
}
# Flags whose value is the next argument.
_WITH_VALUE = {
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-isystem",
    "-iquote",
    "-L",
    "-l",
    "-x",
    "-MF",
    "-MT",
    "-MQ",
    "-Xlinker",
    "-std",
    "-idirafter",
}


def make_benchmark_from_command_line(
    cmd: Union[str, Sequence[str]],
    cwd: Optional[Union[str, Path]] = None,
    runnable: Optional[bool] = None,
    run_args: Optional[list[str]] = None,
) -> Benchmark:
    """Makes a benchmark from the command line that builds a program, e.g.
    ``"gcc -O2 -DN=10 -Iinclude main.c util.c -o prog -lm"``.

    The first word is the compiler (any: the sources are compiled with clang-19). Source,
    ``.ll`` and ``.bc`` files become the benchmark's files (relative paths are taken from
    ``cwd``, default the current directory); preprocessor, language and code flags
    (``-D -U -I -include -isystem -std= -f... -m...``) are kept for compilation, linker flags
    (``-l -L -Wl, -pthread -Xlinker``) for linking; optimization levels, ``-o``, ``-c``,
    ``-g`` and dependency-file flags are dropped, since optimizing is the environment's job.
    The program is compiled now, and ``runnable`` is :func:`make_benchmark`'s (by default,
    runnable when it links); ``run_args`` are the arguments it runs with.
    """
    words = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    if len(words) < 2:
        raise ValueError(f"Not a compiler command line: {cmd!r}")
    base = Path(cwd).expanduser() if cwd is not None else Path.cwd()
    files, copt, link_args = _parse_compiler_arguments(words[1:], base, repr(cmd))
    if not files:
        raise ValueError(f"No source files in {cmd!r}")
    benchmark = make_benchmark(files, copt=copt, link_args=link_args, runnable=runnable)
    benchmark.run_args = list(run_args or [])
    return benchmark


def _parse_compiler_arguments(
    words: Sequence[str], base: Path, where: str
) -> tuple[list[str], list[str], list[str]]:
    """A compiler's arguments (without the compiler) as (files, compile flags, link flags),
    relative paths taken from ``base``; what :func:`make_benchmark_from_command_line`
    describes."""

    def resolve(path: str) -> str:
        return str(path if Path(path).is_absolute() else base / path)

    files, copt, link_args = [], [], []
    args = iter(words)
    for arg in args:
        flag = arg
        value = None
        if arg in _WITH_VALUE:
            value = next(args, None)
            if value is None:
                raise ValueError(f"{arg} needs a value in {where}")
        if flag == "-o" or flag in ("-MF", "-MT", "-MQ"):
            continue
        if flag in _DRIVER_ONLY or flag.startswith(("-O", "-g", "-Wp,")):
            continue
        if flag in ("-I", "-isystem", "-iquote", "-idirafter", "-include"):
            copt += [flag, resolve(value)]
        elif flag.startswith(("-I", "-isystem")) and len(flag) > 2:
            prefix = "-isystem" if flag.startswith("-isystem") else "-I"
            copt.append(prefix + resolve(flag[len(prefix) :]))
        elif flag in ("-D", "-U", "-x", "-std"):
            copt += [flag, value]
        elif flag in ("-l", "-L", "-Xlinker"):
            link_args += [flag, resolve(value) if flag == "-L" else value]
        elif flag.startswith(("-l", "-Wl,")) or flag in ("-pthread", "-static"):
            link_args.append(flag)
        elif flag.startswith("-L"):
            link_args.append("-L" + resolve(flag[2:]))
        elif flag.startswith("-"):
            copt.append(flag)  # -D.., -U.., -std=.., -f.., -m.., -W.. and the like
        elif Path(flag).suffix in _SOURCE_SUFFIXES | {".ll", ".bc"}:
            files.append(resolve(flag))
        else:
            raise ValueError(f"Cannot use {flag!r} from {where}: not a source file or flag")
    if "-pthread" in link_args:
        copt.append("-pthread")
    return files, copt, link_args
