"""make_benchmark_from_command_line (and make_benchmark's copt and link_args) against hostile
command lines: each attack of issue 51 item 4 is refused with a RefusedCompilerArgument naming
the argument, before any program runs and with nothing written; a path that is not a regular
file or directory is refused without being opened; an #include of a FIFO fails within the
preprocessing limit; and an ordinary build line still works, compiled in a scratch folder
under the memory limit of every child."""

import contextlib
import importlib
import os
import shlex
import subprocess
import threading
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets.make_benchmark import (
    PREPROCESS_TIMEOUT_VARIABLE,
    ClangInvocation,
    CompileTimeout,
    RefusedCompilerArgument,
    make_benchmark,
    make_benchmark_from_command_line,
)
from compiler_gym.errors import BenchmarkInitError

# The module (compiler_gym.datasets.make_benchmark is also the name of its function there).
mb = importlib.import_module("compiler_gym.datasets.make_benchmark")

pytestmark = pytest.mark.timeout(300)

MAIN = '#include <stdio.h>\nint main(void) { printf("%d\\n", N); return 0; }\n'


class _SandboxSpy:
    """The extension module, with every run_sandboxed call recorded."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def run_sandboxed(self, argv, **kwargs):
        self.calls.append((list(argv), kwargs))
        return self.real.run_sandboxed(argv, **kwargs)


@pytest.fixture
def spy(monkeypatch):
    spy = _SandboxSpy(mb._C)
    monkeypatch.setattr(mb, "_C", spy)
    return spy


@contextlib.contextmanager
def fifo(path: Path):
    """A FIFO at ``path``. A reader left blocked on it (the code before the fix) is released
    after a minute, so that such a test fails instead of hanging for the compile's timeout."""
    os.mkfifo(path)
    done = threading.Event()

    def release():
        if done.wait(60):
            return
        while not done.is_set():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader yet
                done.wait(0.1)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        done.set()
        thread.join()


def test_an_ordinary_build_line_compiles_in_a_scratch_folder_under_the_child_limits(tmp_path, spy):
    (tmp_path / "include").mkdir()
    (tmp_path / "sys").mkdir()
    (tmp_path / "include" / "scale.h").write_text("static int scale(int x) { return S * x; }\n")
    (tmp_path / "util.c").write_text(
        '#include <math.h>\n#include "scale.h"\n'
        "int twice(int x) { return scale(x) + (int)sqrt(0.0); }\n"
    )
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\nint twice(int);\nint main(void) { printf("%d\\n", twice(N)); }\n'
    )
    out = tmp_path / "out"
    command = (
        "gcc -O2 -g -Wall -Wno-unused-function -DN=21 -D S=2 -Iinclude -isystem sys -std=c11 "
        f"-fno-strict-aliasing -march=x86-64 -c main.c util.c -o {out}/prog -lm "
        "-Wl,--as-needed,-L. -pthread -MD -MF prog.d"
    )
    before = sorted(tmp_path.rglob("*"))
    benchmark = make_benchmark_from_command_line(command, cwd=tmp_path)

    assert benchmark.compile_args == [
        "-Wall",
        "-Wno-unused-function",
        "-DN=21",
        "-D",
        "S=2",
        f"-I{tmp_path / 'include'}",
        "-isystem",
        str(tmp_path / "sys"),
        "-std=c11",
        "-fno-strict-aliasing",
        "-march=x86-64",
        "-pthread",
    ]
    assert benchmark.link_args == ["-lm", f"-Wl,--as-needed,-L{tmp_path}", "-pthread"]
    assert benchmark.runnable
    assert sorted(tmp_path.rglob("*")) == before  # no -o output, no dependency file
    # Every tool ran in a scratch folder, not the command's, with the memory limit of every
    # child and no writes outside that folder.
    assert len(spy.calls) == 6  # preprocess and compile each source, llvm-link, the link check
    for argv, kwargs in spy.calls:
        workdir = Path(kwargs["workdir"])
        assert workdir.name.startswith("compiler_gym-make_benchmark-"), argv
        assert not workdir.exists()  # removed afterwards
        assert kwargs["memory_bytes"] == 8 << 30 and kwargs["isolated"] is True
        assert kwargs["extra_env"] == [f"TMPDIR={workdir}"]
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        assert env.observation["IsRunnable"] and env.validate().okay()


# Issue 51, item 4: every argument that writes outside, or loads code into clang or the linker.
# (command-line tail, the argument the error names)
ATTACKS = [
    ("-o{t}/escaped.bc", "-o{t}/escaped.bc"),
    ("--output={t}/escaped.bc", "--output={t}/escaped.bc"),
    ("--output {t}/escaped.bc", "--output"),
    ("-MJ {t}/cdb.json", "-MJ"),
    ("-ftime-trace={t}/trace.json", "-ftime-trace={t}/trace.json"),
    ("-ftime-trace -ftime-trace-granularity=0", "-ftime-trace"),
    ("-fplugin={t}/plugin.so", "-fplugin={t}/plugin.so"),
    ("-fpass-plugin={t}/plugin.so", "-fpass-plugin={t}/plugin.so"),
    ("-Xclang -fpass-plugin={t}/plugin.so", "-Xclang"),
    ("-mllvm -load={t}/plugin.so", "-mllvm"),
    ("--config={t}/evil.cfg", "--config={t}/evil.cfg"),
    ("--config {t}/evil.cfg", "--config"),
    ("@{t}/evil.rsp", "@{t}/evil.rsp"),
    ("-B{t}", "-B{t}"),
    ("--sysroot={t}", "--sysroot={t}"),
    ("-save-temps=cwd", "-save-temps=cwd"),
    ("-fprofile-instr-generate={t}/p.profraw", "-fprofile-instr-generate={t}/p.profraw"),
    ("-fcrash-diagnostics-dir={t}/crash", "-fcrash-diagnostics-dir={t}/crash"),
    ("-fmodules-cache-path={t}/modules", "-fmodules-cache-path={t}/modules"),
    ("-Wp,-MD,{t}/deps.d", "-Wp,-MD,{t}/deps.d"),
    ("-Wl,-plugin,{t}/plugin.so", "-Wl,-plugin,{t}/plugin.so"),
    ("-Wl,@{t}/evil.rsp", "-Wl,@{t}/evil.rsp"),
    ("-Wl,-o,{t}/escaped", "-Wl,-o,{t}/escaped"),
    ("-Xlinker --output={t}/escaped", "-Xlinker"),
    # Not in the issue: an -l that clang reads as another option, which ld passes a file to.
    ("-lazy_library {t}/plugin.so", "-lazy_library"),
]


@pytest.mark.parametrize("tail,argument", ATTACKS, ids=[a[0].split()[0] for a in ATTACKS])
def test_an_argument_that_writes_or_loads_files_is_refused_before_anything_runs(
    tmp_path, monkeypatch, spy, tail, argument
):
    work, target = tmp_path / "work", tmp_path / "target"
    work.mkdir()
    target.mkdir()
    monkeypatch.chdir(work)  # where a relative output (-save-temps=cwd) would land
    (work / "main.c").write_text(MAIN.replace("N", "1"))
    # What an option or response file would say: write an output outside.
    (target / "evil.cfg").write_text(f"-o {target}/escaped.bc\n")
    (target / "evil.rsp").write_text(f"-o {target}/escaped.bc\n")
    command = f"cc main.c {tail.format(t=target)}"
    with pytest.raises(RefusedCompilerArgument) as refused:
        make_benchmark_from_command_line(command, cwd=work)
    assert refused.value.argument == argument.format(t=target)
    assert str(refused.value).startswith(f"Refused {refused.value.argument!r} in {command!r}")
    assert spy.calls == []  # neither clang nor the linker ran
    assert sorted(p.name for p in target.iterdir()) == ["evil.cfg", "evil.rsp"]
    assert [p.name for p in work.iterdir()] == ["main.c"]


def test_make_benchmarks_flags_and_invocations_are_held_to_the_same_allow_list(tmp_path, spy):
    source = tmp_path / "main.c"
    source.write_text(MAIN.replace("N", "1"))
    plugin = str(tmp_path / "plugin.so")
    with pytest.raises(RefusedCompilerArgument, match=r"Refused '-fplugin=.*' in copt"):
        make_benchmark(source, copt=[f"-fplugin={plugin}"])
    with pytest.raises(RefusedCompilerArgument, match=r"Refused '-Wl,-plugin,.*' in link_args"):
        make_benchmark(source, link_args=[f"-Wl,-plugin,{plugin}"])
    with pytest.raises(RefusedCompilerArgument, match=r"Refused '-Xclang' in ClangInvocation"):
        make_benchmark(ClangInvocation.from_c_file(source, copt=["-Xclang", "-load"]))
    # Each list holds its own kind of flag.
    with pytest.raises(RefusedCompilerArgument) as refused:
        make_benchmark(source, copt=["-lm"])
    assert str(refused.value) == "Refused '-lm' in copt: a link flag, which does not belong in copt"
    with pytest.raises(RefusedCompilerArgument, match="'-DX' in link_args: a compile flag, "):
        make_benchmark(source, link_args=["-DX"])
    with pytest.raises(RefusedCompilerArgument, match="'-O2' in link_args: a flag the env"):
        make_benchmark(source, link_args=["-O2"])
    assert spy.calls == []


def test_a_path_that_is_not_a_regular_file_or_directory_is_refused_unopened(tmp_path, spy):
    (tmp_path / "main.c").write_text(MAIN.replace("N", "1"))
    (tmp_path / "zero.c").symlink_to("/dev/zero")
    with fifo(tmp_path / "pipe.c"), fifo(tmp_path / "pipe.h"):
        not_a_file = "is not a regular file (a FIFO or a device?)"
        not_a_directory = "is not a directory"
        for tail, argument, path, why in [
            ("pipe.c", "pipe.c", "pipe.c", not_a_file),
            ("zero.c", "zero.c", "zero.c", not_a_file),
            ("main.c -include pipe.h", f"-include {tmp_path / 'pipe.h'}", "pipe.h", not_a_file),
            ("main.c -Ipipe.h", "-Ipipe.h", "pipe.h", not_a_directory),
            ("main.c -L pipe.h", f"-L {tmp_path / 'pipe.h'}", "pipe.h", not_a_directory),
        ]:
            with pytest.raises(RefusedCompilerArgument) as refused:
                make_benchmark_from_command_line(f"cc {tail}", cwd=tmp_path)
            assert refused.value.argument == argument
            assert refused.value.reason == f"{tmp_path / path} {why}"
        # Given to make_benchmark itself.
        with pytest.raises(RefusedCompilerArgument, match="pipe.c is not a regular file"):
            make_benchmark(tmp_path / "pipe.c")
    assert spy.calls == []


@pytest.mark.parametrize("source", ["main.c", "main.i"])
def test_an_include_of_a_fifo_fails_within_the_preprocessing_limit(tmp_path, monkeypatch, source):
    """Also from a preprocessed source (.i), whose directives clang still follows."""
    (tmp_path / source).write_text('#include "pipe.h"\nint main(void) { return 0; }\n')
    monkeypatch.setenv(PREPROCESS_TIMEOUT_VARIABLE, "1")
    with fifo(tmp_path / "pipe.h"):
        with pytest.raises(CompileTimeout) as timed_out:
            make_benchmark_from_command_line(f"cc {source}", cwd=tmp_path)
    message = str(timed_out.value)
    assert message.startswith(
        f"cannot compile {tmp_path / source}: preprocessing with clang-19 timed out after 1 s: "
        "a file it includes may be a FIFO or a device that never ends"
    )
    assert f"{PREPROCESS_TIMEOUT_VARIABLE}=<seconds> allows more" in message
    assert isinstance(timed_out.value, BenchmarkInitError)
    assert isinstance(timed_out.value, TimeoutError)


def test_an_included_device_is_refused_after_preprocessing(tmp_path):
    (tmp_path / "main.c").write_text('#include "/dev/null"\n' + MAIN.replace("N", "1"))
    with pytest.raises(BenchmarkInitError) as refused:
        make_benchmark_from_command_line("cc main.c", cwd=tmp_path)
    assert str(refused.value) == (
        f"cannot compile {tmp_path / 'main.c'}: it includes /dev/null, which is not a regular "
        "file (a FIFO or a device): refused"
    )


def test_the_preprocessing_limit_must_be_a_positive_number(tmp_path, monkeypatch):
    (tmp_path / "main.c").write_text(MAIN.replace("N", "1"))
    for text in ("0", "-3", "soon", "nan"):
        monkeypatch.setenv(PREPROCESS_TIMEOUT_VARIABLE, text)
        with pytest.raises(ValueError) as error:
            make_benchmark_from_command_line("cc main.c", cwd=tmp_path)
        assert str(error.value) == (
            f"{PREPROCESS_TIMEOUT_VARIABLE} must be a positive number of seconds, not {text!r}"
        )


def test_every_code_generation_flag_of_the_allow_list_is_one_clang_accepts(tmp_path):
    """Walks the -f names of the table: each is accepted by the parser and passed on, and
    clang-19 knows every one (a misspelt name would be an error)."""
    source = tmp_path / "t.c"
    source.write_text("int f(int x) { return x + 1; }\n")
    flags = [f"-f{name}" for name in mb._F_FLAGS + mb._F_POSITIVE_FLAGS]
    flags += [f"-fno-{name}" for name in mb._F_FLAGS]
    files, copt, link_args = mb._parse_compiler_arguments([*flags, "t.c"], tmp_path, "test")
    assert (files, copt, link_args) == ([str(source)], flags, [])
    clang = mb._C.family_call("llvm", "clang_path")
    command = [clang, "-c", "-emit-llvm", "-o", os.devnull, *flags, str(source)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, shlex.join(command) + "\n" + result.stderr
