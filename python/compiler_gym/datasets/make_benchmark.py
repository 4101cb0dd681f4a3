"""Benchmarks from user code: files (sources, IR, bitcode), clang invocations or a source
string.

What reaches clang is checked first: a command line, ``copt`` and ``link_args`` may hold only
sources and the arguments of the allow-list :data:`_ARGUMENTS` (anything else is a
:class:`RefusedCompilerArgument`, before any program runs), a path given on them must be a
regular file or a directory, and each compile runs in a scratch folder of its own with the
memory and time limits of every child process."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import stat
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, Optional, Union

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark
from compiler_gym.datasets.host_compiler import get_system_library_flags
from compiler_gym.errors import BenchmarkInitError, CompileTimeout, RefusedCompilerArgument
from compiler_gym.util.runfiles import cache_path, write_atomically

_SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".C", ".i", ".ii"}
_IR_SUFFIXES = {".ll", ".bc"}
_CXX_SUFFIXES = {".cc", ".cpp", ".cxx", ".C", ".ii"}
# Without the system's include directories (clang's own headers, stddef.h and the like, stay).
_NO_SYSTEM_INCLUDES = "-nostdlibinc"
_NO_INCLUDE_FLAGS = {"-nostdinc", _NO_SYSTEM_INCLUDES, "-nostdinc++"}
# The engine's address-space limit for every child process (kDefaultChildMemoryBytes).
_CHILD_MEMORY_BYTES = 8 << 30
# Preprocessing reads every included file. An #include of a FIFO or a device cannot be seen on
# the command line, and blocks (or never ends) until the time limit: preprocessing runs first,
# on its own, with a short limit, so that such a read fails in seconds rather than after the
# compile's full timeout (600 s by default). It takes a few percent of a compile's time, and
# 30 s is far more than any real translation unit needs, even on a loaded machine.
PREPROCESS_TIMEOUT_VARIABLE = "COMPILER_GYM_PREPROCESS_TIMEOUT"
_DEFAULT_PREPROCESS_TIMEOUT = 30.0


class ClangInvocation:
    """CompilerGym's description of a clang-19 run that compiles C/C++ sources to bitcode, for
    :func:`make_benchmark`: ``args`` are the sources and their flags, held by make_benchmark
    to :func:`make_benchmark_from_command_line`'s allow-list (optimization levels, ``-c``,
    ``-o`` and the like are the environment's business and are dropped);
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
        # CompilerGym's command names the system's include directories (-isystem): clang's
        # own search path for the language, in its order, so the compile is unchanged. A
        # -nostdinc-like flag in the arguments keeps clang's defaults, which it trims.
        if self.system_includes and not _NO_INCLUDE_FLAGS.intersection(self.args):
            includes = get_system_library_flags(language=self._language())
        return [
            _C.family_call("llvm", "clang_path"),
            *frontend,
            "-c",
            "-o",
            str(outpath),
            *includes,
            *self.args,
        ]

    def _language(self) -> str:
        """ "c++" when the last ``-x`` says so, or (without one) when a source is C++."""
        languages = [
            v if a == "-x" else a[2:]
            for a, v in zip(self.args, [*self.args[1:], ""], strict=True)
            if a.startswith("-x")
        ]
        if languages:
            return "c++" if languages[-1].startswith("c++") else "c"
        return "c++" if any(Path(a).suffix in _CXX_SUFFIXES for a in self.args) else "c"

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

    As in CompilerGym, the files are read and the sources compiled now, and the program is
    held in memory: the files may change or go afterwards. Several files are linked into one
    module. A source that does not compile raises
    :class:`~compiler_gym.errors.BenchmarkInitError` with clang's message (as does a link of
    several files that fails), one that takes too long :class:`CompileTimeout`; a missing file
    ``FileNotFoundError``.

    ``copt`` and ``link_args`` hold only what :func:`make_benchmark_from_command_line` accepts
    (flags that choose outputs, load plugins or read option files are refused with
    :class:`RefusedCompilerArgument`; optimization and debug levels, ``-c`` and ``-o`` are
    dropped), and their relative paths are the current directory's. Each compile runs in a
    scratch folder of its own, with the memory limit of every child process (8 GiB) and no
    writes outside that folder; preprocessing first, within
    ``min(timeout, $COMPILER_GYM_PREPROCESS_TIMEOUT)`` (default 30 s), so that a source that
    includes a FIFO or a device fails quickly, and an included file that is not a regular file
    is refused.

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
    cwd = Path.cwd()
    copt = _flags(copt or [], {"compile", "both", "drop"}, cwd, "copt")
    link_args = None if link_args is None else _flags(link_args, {"link", "both"}, cwd, "link_args")
    if invocations:
        parsed = [_parse_compiler_arguments(i.args, cwd, repr(i)) for i in invocations]
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
        if p.suffix not in _SOURCE_SUFFIXES | _IR_SUFFIXES:
            raise ValueError(f"Unrecognized file type: {p.name} (a source, .ll or .bc file)")
        _check_path(str(p), _SOURCE, str(p), "the inputs")
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
    """The program of ``paths`` as one module: the sources compiled to bitcode (in parallel, in
    ``scratch``), IR and bitcode as read, and several modules linked with llvm-link; and the
    headers outside the system's that the sources included (absolute paths).
    BenchmarkInitError with the tool's message when a compile or the link fails."""
    sources = [i for i, p in enumerate(paths) if p.suffix in _SOURCE_SUFFIXES]
    preprocess_timeout = min(timeout, _preprocess_timeout())

    def compile_source(i: int) -> tuple[bytes, list[str]]:
        # Absolute: the compile runs in the scratch folder.
        source, output = str(paths[i].absolute()), scratch / f"{i}.bc"
        read = _preprocess(source, copt, preprocess_timeout, scratch / f"{i}.all.d", scratch)
        # The headers outside the system's, for FilesDataset to tell when it is out of date.
        depfile = scratch / f"{i}.d"
        args = [*copt, "-MMD", "-MF", str(depfile), source]
        command = ClangInvocation(args, timeout=timeout).command(output)
        result = _run_tool(command, timeout, scratch)
        if not result["ok"]:
            error = CompileTimeout if result["timed_out"] else BenchmarkInitError
            hint = "; a larger timeout= allows more" if result["timed_out"] else ""
            stderr = result["stderr"].decode(errors="replace")[:4000]
            raise error(
                f"cannot compile {paths[i]}: clang-19 {result['description']}{hint}\n{stderr}"
            )
        # A preprocessed source (.i) has no dependency file: the files preprocessing read.
        used = _dependencies(depfile, str(scratch)) if depfile.exists() else read
        return output.read_bytes(), used[1:]  # [0]: the source

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
    result = _run_tool(command, timeout, scratch)
    if not result["ok"]:
        stderr = result["stderr"].decode(errors="replace")[:4000]
        raise BenchmarkInitError(
            f"cannot link the files of {uri}: llvm-link {result['description']}\n{stderr}"
        )
    return (scratch / "linked.bc").read_bytes(), headers


def _run_tool(command: list[str], timeout: float, scratch: Path) -> dict:
    """Runs clang-19 or llvm-link on the benchmark's files: in ``scratch``, with the memory
    limit of every child, within ``timeout`` seconds, and (where the kernel allows) with no
    network and no writes outside ``scratch``, its temporary files included."""
    return _C.run_sandboxed(
        command,
        timeout_seconds=timeout,
        memory_bytes=_CHILD_MEMORY_BYTES,
        workdir=str(scratch),
        extra_env=[f"TMPDIR={scratch}"],
        isolated=True,
    )


def _preprocess_timeout() -> float:
    """The preprocessing time limit in seconds: ``$COMPILER_GYM_PREPROCESS_TIMEOUT``, default
    30."""
    text = os.environ.get(PREPROCESS_TIMEOUT_VARIABLE, "").strip()
    if not text:
        return _DEFAULT_PREPROCESS_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0:
        raise ValueError(
            f"{PREPROCESS_TIMEOUT_VARIABLE} must be a positive number of seconds, not {text!r}"
        )
    return seconds


def _preprocess(
    source: str, copt: list[str], timeout: float, depfile: Path, scratch: Path
) -> list[str]:
    """Preprocesses ``source`` as it will be compiled, within ``timeout`` seconds, and returns
    the files it read (absolute paths, the source first). CompileTimeout when it takes too long
    (an included FIFO or device blocks, or never ends); BenchmarkInitError when clang fails or a
    file it read is not a regular file (the compile would read it again)."""
    # A preprocessed input (.i, .ii) is not preprocessed under -M, but its directives are still
    # followed when it compiles: read it as C or C++ source here, unless -x already says so.
    languages = [copt[i + 1] if a == "-x" else a[2:] for i, a in enumerate(copt) if a[:2] == "-x"]
    language = {".i": ["-x", "c"], ".ii": ["-x", "c++"]}.get(Path(source).suffix, [])
    if languages and languages[-1] in ("c", "c++"):
        language = []
    frontend = json.loads(_C.family_call("llvm", "clang_frontend_flags"))
    command = [
        _C.family_call("llvm", "clang_path"),
        *frontend,
        *copt,
        "-M",  # preprocess, and write only the files read
        "-MT",
        "x",
        "-MF",
        str(depfile),
        *language,
        source,
    ]
    result = _run_tool(command, timeout, scratch)
    if not result["ok"]:
        stderr = result["stderr"].decode(errors="replace")[:4000]
        if result["timed_out"]:
            raise CompileTimeout(
                f"cannot compile {source}: preprocessing with clang-19 {result['description']}: "
                "a file it includes may be a FIFO or a device that never ends (preprocessing "
                f"has min(timeout, ${PREPROCESS_TIMEOUT_VARIABLE}) seconds: "
                f"{PREPROCESS_TIMEOUT_VARIABLE}=<seconds> allows more)\n{stderr}"
            )
        raise BenchmarkInitError(
            f"cannot compile {source}: clang-19 {result['description']}\n{stderr}"
        )
    used = _dependencies(depfile, str(scratch))
    for path in used:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue  # gone since: the compile reports it
        if not stat.S_ISREG(mode):
            raise BenchmarkInitError(
                f"cannot compile {source}: it includes {path}, which is not a regular file "
                "(a FIFO or a device): refused"
            )
    return used


def _dependencies(depfile: Path, cwd: str) -> list[str]:
    """The prerequisites of the make rule clang's ``-M`` or ``-MMD`` with ``-MF depfile``
    wrote, as absolute paths (relative ones are the compile's directory's), the source
    first."""
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
    return bool(_run_tool(command, timeout, scratch)["ok"])


def make_benchmark_from_source(
    source: str,
    copt: Optional[list[str]] = None,
    lang: str = "c",
    runnable: Optional[bool] = None,
    system_includes: bool = True,
    timeout: float = 600,
) -> Benchmark:
    """Makes a benchmark from a C (``lang="c"``) or C++ (``"c++"``) source string, compiled
    now (see :func:`make_benchmark`, also for ``copt``, ``system_includes``, ``timeout`` and
    ``runnable``). As in CompilerGym, a source that does not compile, or a ``copt`` that is
    refused, raises :class:`~compiler_gym.errors.BenchmarkInitError` (its subclass
    :class:`RefusedCompilerArgument` for a refusal) whose message starts ``Failed to make
    benchmark with compiler error:``."""
    suffix = {"c": ".c", "c++": ".cc", "cpp": ".cc"}.get(lang)
    if suffix is None:
        raise ValueError(f"Unknown language {lang!r}")
    flags = [*(copt or []), *([] if system_includes else [_NO_SYSTEM_INCLUDES])]
    digest = hashlib.sha256(source.encode() + "\0".join(flags).encode()).hexdigest()[:16]
    path = cache_path("user-v0", f"{digest}{suffix}")
    if not path.is_file():
        write_atomically(path, source.encode())
    try:
        return make_benchmark(
            path,
            copt=copt,
            system_includes=system_includes,
            timeout=timeout,
            runnable=runnable,
            uri=f"benchmark://user-v0/{digest}",
        )
    except BenchmarkInitError as e:
        # CompilerGym's prefix, on the exception raised (its type and fields kept).
        e.args = (f"Failed to make benchmark with compiler error: {e}",)
        raise


_DIR, _FILE, _SOURCE = "<directory>", "<file>", "<source>"  # values that are paths
_LINKER = "<linker arguments>"  # -Wl,'s value: comma-separated arguments of the "ld" rows
_NAME = r"[\w.+][\w.+-]*"  # a name that cannot be read as a flag


class _Arg(NamedTuple):
    """One row of :data:`_ARGUMENTS`: an argument make_benchmark passes on (or drops)."""

    spelling: str  # as written; for form "pattern", a regex that the whole word matches
    # "flag": the spelling alone; "separate": ``-o FILE``; "joined": ``-std=c11``; "value":
    # either of the last two (``-I dir``, ``-Idir``); "pattern": see spelling.
    form: str
    # Where it goes: "compile" (copt), "link" (link_args), "both", "drop" (the environment's
    # business, never passed on), or "ld" (only inside -Wl,).
    use: str
    value: str = ""  # a regex the value matches, or _DIR, _FILE, _LINKER


# An object file of the command line: an input of the link only.
_OBJECT = _Arg("<object file>", "flag", "link")

# -f flags that change only code generation, language rules or diagnostics, each also as
# -fno-<name>; then those clang knows only in the positive.
_F_FLAGS = (
    "PIC pic PIE pie common builtin strict-aliasing strict-overflow wrapv "
    "omit-frame-pointer fast-math finite-math-only math-errno signed-zeros trapping-math "
    "associative-math reciprocal-math rounding-math honor-nans honor-infinities unroll-loops "
    "vectorize slp-vectorize exceptions cxx-exceptions rtti signed-char unsigned-char "
    "short-enums short-wchar stack-protector stack-clash-protection data-sections "
    "function-sections gnu89-inline inline inline-functions delete-null-pointer-checks "
    "asynchronous-unwind-tables unwind-tables plt semantic-interposition ms-extensions declspec "
    "blocks threadsafe-statics jump-tables zero-initialized-in-bss ident asm gnu-keywords "
    "dollars-in-identifiers elide-constructors operator-names trigraphs strict-enums "
    "merge-all-constants sized-deallocation aligned-allocation char8_t coroutines "
    "access-control gnu-inline-asm keep-static-consts strict-float-cast-overflow "
    "strict-vtable-pointers protect-parens visibility-inlines-hidden lax-vector-conversions "
    "color-diagnostics diagnostics-color show-column caret-diagnostics "
    "diagnostics-show-option spell-checking"
).split()
_F_POSITIVE_FLAGS = "trapv freestanding stack-protector-strong stack-protector-all cf-protection"
_F_POSITIVE_FLAGS = _F_POSITIVE_FLAGS.split()
# x86 features and ABI switches of -m (and -mno-).
_M_FLAGS = (
    r"32 64 sse sse2 sse3 ssse3 sse4 sse4\.1 sse4\.2 sse4a avx avx2 avx512\w+ avxvnni fma fma4 "
    r"f16c bmi bmi2 lzcnt popcnt aes vaes pclmul vpclmulqdq movbe rdrnd rdseed adx sha gfni "
    r"mmx xsave xsaveopt crc32 cx16 sahf prfchw x87 80387 red-zone omit-leaf-frame-pointer "
    r"stackrealign soft-float fp-ret-in-387 ieee-fp align-double tls-direct-seg-refs"
).split()

# The allow-list: all that a compile or link command line (or copt, link_args) may hold
# besides its source files; an argument no row accepts is refused before anything runs. No row
# names an output, a plugin, an option file or a program to run, so -o elsewhere, -MJ,
# -ftime-trace, -fplugin, -fpass-plugin, -Xclang, -mllvm, --config, @FILE, -B, --sysroot (the
# linker and the GCC installation are looked up under it), -save-temps, -Xlinker and -Wl,
# with anything but the linker rows below are all refused.
_ARGUMENTS: tuple[_Arg, ...] = (
    # The environment's business, dropped: it compiles to bitcode in a scratch folder, and
    # optimizing is its job. -o FILE names the build's output, which is never written.
    _Arg("-o", "separate", "drop", r"(?s).+"),
    *(_Arg(s, "separate", "drop", r"(?s).+") for s in ("-MF", "-MT", "-MQ")),
    *(_Arg(s, "flag", "drop") for s in "-c -S -E -emit-llvm -v -pipe -MD -MMD -MP".split()),
    _Arg(r"-O(?:[0-4sgz]|fast)?", "pattern", "drop"),
    _Arg(
        r"-g(?:[0-3]|gdb[0-3]?|dwarf(?:-[2-5])?|line-tables-only|(?:no-)?column-info)?",
        "pattern",
        "drop",
    ),
    # Preprocessor: include paths (relative ones are taken from the command's directory),
    # macros.
    *(_Arg(s, "value", "compile", _DIR) for s in ("-I", "-isystem", "-iquote", "-idirafter")),
    _Arg("-include", "separate", "compile", _FILE),
    _Arg("-D", "value", "compile", r"(?s)[^-].*"),
    _Arg("-U", "value", "compile", _NAME),
    *(_Arg(s, "flag", "compile") for s in ("-nostdinc", "-nostdlibinc", "-nostdinc++")),
    # Language.
    _Arg("-std=", "joined", "compile", r"[\w+]+"),
    _Arg("-x", "value", "compile", r"c|c\+\+|none"),
    _Arg("-ansi", "flag", "compile"),
    # Diagnostics: every clang option that starts with -W and has no comma (-Wl, -Wp, and -Wa,
    # pass options to other tools).
    _Arg(r"-W[\w=+#-]*", "pattern", "compile"),
    *(_Arg(s, "flag", "compile") for s in ("-w", "-pedantic", "-pedantic-errors")),
    # Code generation.
    _Arg(rf"-f(?:no-)?(?:{'|'.join(map(re.escape, _F_FLAGS))})", "pattern", "compile"),
    _Arg(rf"-f(?:{'|'.join(map(re.escape, _F_POSITIVE_FLAGS))})", "pattern", "compile"),
    _Arg(r"-fno-builtin-\w+", "pattern", "compile"),
    _Arg("-fvisibility=", "joined", "compile", "default|hidden|protected|internal"),
    _Arg("-ffp-contract=", "joined", "compile", "on|off|fast|fast-honor-pragmas"),
    _Arg("-ffp-model=", "joined", "compile", "precise|strict|fast"),
    _Arg("-ftrivial-auto-var-init=", "joined", "compile", "uninitialized|zero|pattern"),
    _Arg("-fcf-protection=", "joined", "compile", "none|branch|return|full"),
    _Arg("-fdiagnostics-color=", "joined", "compile", "auto|always|never"),
    _Arg("-flax-vector-conversions=", "joined", "compile", "none|integer|all"),
    *(_Arg(s, "joined", "compile", r"[\w-]+") for s in ("-finput-charset=", "-fexec-charset=")),
    *(
        _Arg(f"-f{s}=", "joined", "compile", r"\d+")
        for s in (
            "message-length error-limit template-depth constexpr-depth constexpr-steps "
            "bracket-depth macro-backtrace-limit template-backtrace-limit pack-struct "
            "max-type-align"
        ).split()
    ),
    _Arg(rf"-m(?:no-)?(?:{'|'.join(_M_FLAGS)})", "pattern", "compile"),
    *(_Arg(s, "joined", "compile", _NAME) for s in ("-march=", "-mtune=")),
    _Arg("-mfpmath=", "joined", "compile", "sse|387|sse,387|both"),
    _Arg("-mcmodel=", "joined", "compile", "tiny|small|kernel|medium|large"),
    _Arg("-mprefer-vector-width=", "joined", "compile", r"\d+|none"),
    *(_Arg(s, "joined", "compile", r"\d+") for s in ("-mstack-alignment=", "-mregparm=")),
    # Linking: libraries (-l:libx.a names a file in the search path), search paths, and how
    # the libraries are linked.
    # (not -lazy_library, -lazy_framework: clang reads those as options of their own).
    _Arg("-l", "value", "link", r"(?!azy_)[\w.+:][\w.+:-]*"),
    _Arg("-L", "value", "link", _DIR),
    _Arg("-pthread", "flag", "both"),
    *(
        _Arg(s, "flag", "link")
        for s in "-static -static-libgcc -static-libstdc++ -rdynamic -no-pie".split()
    ),
    _Arg("-Wl,", "joined", "link", _LINKER),
    # The linker's own arguments, only inside -Wl, (-Wl,-lm,--as-needed): the same libraries
    # and search paths, and switches of how they are linked. No output, script, plugin or
    # option file.
    _Arg("-l", "value", "ld", r"(?!azy_)[\w.+:][\w.+:-]*"),
    _Arg("-L", "value", "ld", _DIR),
    *(
        _Arg(s, "flag", "ld")
        for s in (
            "--as-needed --no-as-needed --start-group --end-group -Bstatic -Bdynamic "
            "--gc-sections --no-gc-sections --no-undefined --export-dynamic -E "
            "--whole-archive --no-whole-archive -s --strip-all --build-id"
        ).split()
    ),
    _Arg(r"-O[0-3]", "pattern", "ld"),
    _Arg("-z", "separate", "ld", "relro|norelro|now|lazy|noexecstack|defs"),
    _Arg("--hash-style=", "joined", "ld", "gnu|sysv|both"),
)


class _Lookup(NamedTuple):
    """:data:`_ARGUMENTS` indexed for one context ("driver" or "ld")."""

    exact: dict[str, _Arg]  # flag, separate and value rows by spelling
    joined: list[_Arg]  # joined and value rows, longest spelling first
    patterns: list[tuple[re.Pattern, _Arg]]


def _index(rows: Sequence[_Arg]) -> _Lookup:
    exact = {r.spelling: r for r in rows if r.form in ("flag", "separate", "value")}
    joined = sorted(
        (r for r in rows if r.form in ("joined", "value")), key=lambda r: -len(r.spelling)
    )
    patterns = [(re.compile(r.spelling), r) for r in rows if r.form == "pattern"]
    return _Lookup(exact, joined, patterns)


_LOOKUP = {
    "driver": _index([r for r in _ARGUMENTS if r.use != "ld"]),
    "ld": _index([r for r in _ARGUMENTS if r.use == "ld"]),
}
_ACCEPTED = (
    "sources (.c .cc .cpp .cxx .C .i .ii .ll .bc), -I -isystem -iquote -idirafter -include, "
    "-D -U, -std= -x -ansi, -W... -w -pedantic, listed code-generation -f and -m flags, -O and "
    "-g levels (dropped), -c -o FILE -MD -MF FILE (dropped), -l -L -pthread -static "
    "-rdynamic -no-pie, and -Wl, with libraries, search paths and link switches"
)


def make_benchmark_from_command_line(
    cmd: Union[str, Sequence[str]],
    cwd: Optional[Union[str, Path]] = None,
    runnable: Optional[bool] = None,
    run_args: Optional[list[str]] = None,
    system_includes: bool = True,
    timeout: float = 600,
) -> Benchmark:
    """Makes a benchmark from the command line that builds a program, e.g.
    ``"gcc -O2 -DN=10 -Iinclude main.c util.c -o prog -lm"``.

    The first word is the compiler (any: the sources are compiled with clang-19). Source,
    ``.ll`` and ``.bc`` files become the benchmark's files (relative paths are taken from
    ``cwd``, default the current directory); preprocessor, language, diagnostic and
    code-generation flags (``-D -U -I -include -isystem -std= -x -W...``, listed ``-f`` and
    ``-m`` flags) are kept for compilation, library flags (``-l -L -pthread``, ``-Wl,`` with
    libraries, search paths and link switches) for linking; optimization and debug levels,
    ``-c``, ``-o FILE`` and dependency-file flags are dropped, since optimizing is the
    environment's job. Any other argument (an output elsewhere such as ``-o/x`` or
    ``--output=``, ``-MJ``, ``-ftime-trace``, plugins, ``-Xclang``, ``-mllvm``, ``--config``,
    ``@file``, ``-Xlinker``, ``-Wl,-plugin``...) raises :class:`RefusedCompilerArgument`
    naming it, as does a source or include path that is not a regular file or directory,
    before anything runs: the allow-list is :data:`_ARGUMENTS`. The program is compiled now,
    as :func:`make_benchmark` compiles (``system_includes`` and ``timeout`` are its), and
    ``runnable`` is its (by default, runnable when it links); ``run_args`` are the arguments it
    runs with. An object file (``.o``, ELF only: anything else the linker would read as a
    script) is an input of the link, as in CompilerGym; ``-`` (stdin) is refused, as is a
    command line without a source.
    """
    words = shlex.split(cmd) if isinstance(cmd, str) else [str(w) for w in cmd]
    # CompilerGym's messages.
    if not words:
        raise ValueError("Input command line is empty")
    if len(words) < 2:
        raise ValueError(f"Input command line '{shlex.join(words)}' is too short")
    base = Path(cwd).expanduser() if cwd is not None else Path.cwd()
    files, copt, link_args = _parse_compiler_arguments(words[1:], base, repr(cmd))
    if not files:
        raise ValueError(
            f"Input command line has no source file inputs: No source files in {cmd!r} "
            "(C or C++ sources, .ll or .bc; object files are only linked)"
        )
    benchmark = make_benchmark(
        files,
        copt=copt,
        link_args=link_args,
        runnable=runnable,
        system_includes=system_includes,
        timeout=timeout,
    )
    benchmark.run_args = list(run_args or [])
    return benchmark


_refused = RefusedCompilerArgument


def _not_allowed(argument: str, where: str) -> RefusedCompilerArgument:
    return _refused(
        argument,
        where,
        "not on the allow-list of compile and link arguments; arguments that choose an output, "
        "load a plugin or read options from a file never reach clang. Accepted: "
        f"{_ACCEPTED}. To build with other flags, compile to bitcode yourself and give the "
        ".bc file",
    )


def _check_path(path: str, kind: str, argument: str, where: str) -> None:
    """Refuses ``path`` (of ``argument``) unless it is a directory (``kind`` _DIR) or a regular
    file (_FILE, _SOURCE), without opening it: a FIFO or a device would block the compile, or
    never end. A missing path is left to clang, which skips a missing directory and reports a
    missing file."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if kind == _DIR and not stat.S_ISDIR(mode):
        raise _refused(argument, where, f"{path} is not a directory")
    if kind != _DIR and not stat.S_ISREG(mode):
        raise _refused(argument, where, f"{path} is not a regular file (a FIFO or a device?)")


def _arguments(
    words: Sequence[str], context: str, base: Path, where: str
) -> Iterator[tuple[Optional[_Arg], list[str]]]:
    """Each argument of ``words`` as (its row of :data:`_ARGUMENTS`, the words to pass on),
    checked, paths taken from ``base``; a source file as (None, [its path]).
    RefusedCompilerArgument for anything else."""
    lookup = _LOOKUP[context]
    args = iter(words)
    for word in args:
        row, value, joined = lookup.exact.get(word), None, False
        if row is None:
            row = next((r for r in lookup.joined if word.startswith(r.spelling)), None)
            if row is not None:
                value, joined = word[len(row.spelling) :], True
        if row is None:
            row = next((r for p, r in lookup.patterns if p.fullmatch(word)), None)
        if row is None:
            if context == "driver" and word == "-":
                raise _refused(word, where, "Input command line reads from stdin: give a file")
            if context == "driver" and Path(word).suffix == ".o" and word[0] not in "-@":
                yield _OBJECT, [_object_file(word, base, where)]
                continue
            if context == "driver" and not word.startswith(("-", "@")):
                if Path(word).suffix not in _SOURCE_SUFFIXES | _IR_SUFFIXES:
                    raise _refused(word, where, "not a source file or flag")
                path = _resolve(word, base)
                _check_path(path, _SOURCE, word, where)
                yield None, [path]
                continue
            raise _not_allowed(word, where)
        if row.form in ("separate", "value") and not joined:
            value = next(args, None)
            if value is None:
                raise _refused(word, where, f"{word} needs a value")
        if value is None:
            yield row, [word]
            continue
        if row.value in (_DIR, _FILE):
            value = _resolve(value, base)
            _check_path(value, row.value, word if joined else f"{word} {value}", where)
        elif row.value == _LINKER:
            value = _linker_arguments(value, base, where)
        elif not re.fullmatch(row.value, value):
            raise _refused(
                word if joined else f"{word} {value}",
                where,
                f"{value!r} is not a value of {row.spelling}",
            )
        yield row, [row.spelling + value] if joined else [row.spelling, value]


def _object_file(word: str, base: Path, where: str) -> str:
    """The path of the object file ``word`` (from ``base``), for the link: a regular ELF
    file, checked without blocking; anything else the linker would read as a linker script
    (which can name outputs and other inputs), so it is refused."""
    path = _resolve(word, base)
    _check_path(path, _SOURCE, word, where)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise FileNotFoundError(f"File not found: {path}") from None
    try:
        regular, magic = stat.S_ISREG(os.fstat(fd).st_mode), os.read(fd, 4)
    finally:
        os.close(fd)
    if not regular:
        raise _refused(word, where, f"{path} is not a regular file (a FIFO or a device?)")
    if magic != b"\x7fELF":
        raise _refused(word, where, f"{path} is not an ELF object file")
    return path


def _linker_arguments(value: str, base: Path, where: str) -> str:
    """-Wl,'s comma-separated ``value``, checked against the "ld" rows, paths from ``base``."""
    out = []
    try:
        for _, words in _arguments(value.split(","), "ld", base, where):
            out += words
    except RefusedCompilerArgument as e:
        raise _refused(f"-Wl,{value}", where, f"its {e.argument!r}: {e.reason}") from None
    if any("," in w for w in out):  # a path with a comma would split into more arguments
        raise _refused(f"-Wl,{value}", where, "a path in it holds a comma")
    return ",".join(out)


def _resolve(path: str, base: Path) -> str:
    return str(path if Path(path).is_absolute() else base / path)


def _parse_compiler_arguments(
    words: Sequence[str], base: Path, where: str
) -> tuple[list[str], list[str], list[str]]:
    """A compiler's arguments (without the compiler) as (files, compile flags, link flags),
    relative paths taken from ``base``; what :func:`make_benchmark_from_command_line`
    describes. RefusedCompilerArgument for an argument not on :data:`_ARGUMENTS`."""
    files, copt, link_args = [], [], []
    for row, out in _arguments(words, "driver", base, where):
        if row is None:
            files += out
        if row is not None and row.use in ("compile", "both"):
            copt += out
        if row is not None and row.use in ("link", "both"):
            link_args += out
    return files, copt, link_args


def _flags(words: Sequence[str], uses: set[str], base: Path, where: str) -> list[str]:
    """``words`` (make_benchmark's ``copt`` or ``link_args``) checked: only flags of
    :data:`_ARGUMENTS` whose use is in ``uses``, the dropped ones dropped, paths from
    ``base``."""
    kinds = {None: "a file", "compile": "a compile flag", "link": "a link flag"}
    kinds.update(drop="a flag the environment sets itself")
    out = []
    for row, passed in _arguments([str(w) for w in words], "driver", base, where):
        use = None if row is None else row.use
        if use not in uses:
            raise _refused(passed[0], where, f"{kinds[use]}, which does not belong in {where}")
        if row.use != "drop":
            out += passed
    return out
