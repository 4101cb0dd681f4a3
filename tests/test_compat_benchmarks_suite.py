"""CompilerGym's benchmark-making and dataset API, as its own test suite uses it (issue 52):
make_benchmark_from_source(system_includes=), the host compiler's include flags and their
errors, make_benchmark_from_command_line's messages, stdin and object files,
split_benchmark_by_function(maximum_function_count=), proto programs, Benchmark and Dataset
read-only attributes and ordering, Datasets[key], the cbench/chstone modules, CsmithBenchmark
and compiler_gym.third_party.gccinvocation."""

from __future__ import annotations

import subprocess

import pytest

from compiler_gym.datasets import Benchmark, BenchmarkSource, ClangInvocation, Dataset, Datasets
from compiler_gym.datasets.csmith import CsmithBenchmark, CsmithDataset
from compiler_gym.envs.llvm import (
    HostCompilerFailure,
    UnableToParseHostCompilerOutput,
    get_system_library_flags,
    make_benchmark,
    make_benchmark_from_command_line,
    make_benchmark_from_source,
    split_benchmark_by_function,
)
from compiler_gym.errors import BenchmarkInitError, RefusedCompilerArgument
from compiler_gym.service.proto import Benchmark as BenchmarkProto
from compiler_gym.service.proto import File

COMPILER_ERROR = "^Failed to make benchmark with compiler error: "


def _search_list(language: str) -> list[str]:
    """clang-19's default #include <...> directories for ``language``, read here directly."""
    stderr = subprocess.run(
        ["clang-19", f"-x{language}", "-E", "-v", "-", "-o", "/dev/null"],
        input="",
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    listing = stderr.split("#include <...> search starts here:\n")[1]
    return [line.strip() for line in listing.split("\nEnd of search list")[0].splitlines()]


# make_benchmark_from_source


def test_make_benchmark_from_source_system_includes():
    assert make_benchmark_from_source("#include <stdio.h>\nint A(void) { return 0; }").data
    with pytest.raises(
        BenchmarkInitError, match="(?s)" + COMPILER_ERROR + r".*stdio\.h.* not found"
    ):
        make_benchmark_from_source("#include <stdio.h>", system_includes=False)


def test_make_benchmark_from_source_errors_keep_their_type_and_take_compilergyms_prefix():
    with pytest.raises(BenchmarkInitError, match=COMPILER_ERROR + "cannot compile .*\\.c"):
        make_benchmark_from_source("int A() {return a;}")
    with pytest.raises(RefusedCompilerArgument) as refused:
        make_benchmark_from_source("int A() {return 0;}", copt=["-invalid-argument!"])
    assert str(refused.value).startswith(
        "Failed to make benchmark with compiler error: Refused '-invalid-argument!' in copt: "
    )
    assert refused.value.argument == "-invalid-argument!"
    # A refusal is what CompilerGym raised for a flag clang rejects: an OSError too.
    assert isinstance(refused.value, BenchmarkInitError)
    assert isinstance(refused.value, OSError) and isinstance(refused.value, ValueError)


# The host compiler's include search path


def test_get_system_library_flags_is_clangs_search_path_per_language():
    for language in ("c", "c++"):
        flags = get_system_library_flags(language=language)
        assert flags[0::2] == ["-isystem"] * (len(flags) // 2)
        assert flags[1::2] == _search_list(language)
    assert get_system_library_flags() == get_system_library_flags(language="c++")
    with pytest.raises(ValueError, match="language is 'c' or 'c\\+\\+', not 'rust'"):
        get_system_library_flags(language="rust")


def test_get_system_library_flags_errors():
    with pytest.raises(HostCompilerFailure, match="^Failed to invoke 'not-a-real-binary': "):
        get_system_library_flags("not-a-real-binary")
    with pytest.raises(HostCompilerFailure, match="^Failed to invoke 'false': it exited with"):
        get_system_library_flags("false")
    with pytest.raises(
        UnableToParseHostCompilerOutput,
        match="^Failed to parse '#include <...>' search paths from 'echo'$",
    ):
        get_system_library_flags("echo")
    assert issubclass(UnableToParseHostCompilerOutput, HostCompilerFailure)
    assert issubclass(HostCompilerFailure, OSError)
    from compiler_gym.envs.llvm import llvm_benchmark

    assert llvm_benchmark.HostCompilerFailure is HostCompilerFailure


def test_clang_invocation_names_the_system_include_directories(tmp_path):
    c_command = ClangInvocation(["foo.c"]).command("a.out")
    assert c_command[-9:] == [*get_system_library_flags(language="c"), "foo.c"]
    cxx_command = ClangInvocation(["foo.cc"]).command("a.out")
    assert cxx_command[-1 - len(get_system_library_flags()) :] == [
        *get_system_library_flags(),
        "foo.cc",
    ]
    # -x decides the language; a -nostdinc-like flag, or system_includes=False, none.
    assert (
        ClangInvocation(["-x", "c++", "foo.c"]).command("o")[-13:-3]
        == (get_system_library_flags(language="c++")[-10:])
    )
    assert "-isystem" not in ClangInvocation(["-nostdinc", "foo.c"]).command("o")
    no_system = ClangInvocation(["foo.c"], system_includes=False).command("o")
    assert "-isystem" not in no_system and "-nostdlibinc" in no_system
    # The -isystem list is clang's own order: libstdc++'s #include_next still finds the C
    # headers behind <cstdlib> and <cmath>.
    source = tmp_path / "a.cc"
    source.write_text(
        "#include <cmath>\n#include <cstdlib>\n#include <string>\n"
        'int A(int x) { return std::abs(x) + (int)std::sqrt(4.0) + std::string("ab").size(); }\n'
    )
    assert make_benchmark(source).data.startswith(b"BC")


# make_benchmark and make_benchmark_from_command_line


def test_make_benchmark_unrecognized_file_type(tmp_path):
    (tmp_path / "foo.txt").write_text("int A;")
    with pytest.raises(ValueError, match=r"^Unrecognized file type: foo\.txt "):
        make_benchmark(tmp_path / "foo.txt")


def test_command_line_messages_are_compilergyms(tmp_path):
    for empty in ("", []):
        with pytest.raises(ValueError, match="^Input command line is empty$"):
            make_benchmark_from_command_line(empty)
    for short in ("gcc", ["gcc"]):
        with pytest.raises(ValueError, match="^Input command line 'gcc' is too short$"):
            make_benchmark_from_command_line(short)
    with pytest.raises(RefusedCompilerArgument, match="Input command line reads from stdin"):
        make_benchmark_from_command_line(["gcc", "-xc", "-"])


def _object_file(directory, name: str, source: str) -> None:
    (directory / f"{name}.c").write_text(source)
    subprocess.run(["clang-19", "-c", f"{name}.c"], cwd=directory, check=True, timeout=120)


def test_command_line_object_files_are_link_inputs(tmp_path):
    _object_file(tmp_path, "b", "int B(void) { return 5; }\n")
    (tmp_path / "a.c").write_text("int B(void);\nint main(void) { return B(); }\n")
    benchmark = make_benchmark_from_command_line("gcc a.c b.o -o foo", cwd=tmp_path)
    assert benchmark.link_args == [str(tmp_path / "b.o")]
    assert benchmark.runnable  # it links, with the object file
    without = make_benchmark_from_command_line("gcc a.c -o foo", cwd=tmp_path)
    assert not without.runnable  # B is undefined
    with pytest.raises(ValueError, match="^Input command line has no source file inputs: "):
        make_benchmark_from_command_line(["gcc", "b.o", "-c"], cwd=tmp_path)


def test_command_line_object_files_that_are_not_elf_are_refused(tmp_path):
    (tmp_path / "a.c").write_text("int main(void) { return 0; }\n")
    # What ld would read as a linker script, which can name outputs and inputs.
    (tmp_path / "s.o").write_text("OUTPUT(/tmp/elsewhere)\n")
    with pytest.raises(RefusedCompilerArgument) as refused:
        make_benchmark_from_command_line("gcc a.c s.o", cwd=tmp_path)
    assert refused.value.reason == f"{tmp_path / 's.o'} is not an ELF object file"
    with pytest.raises(FileNotFoundError, match="missing.o"):
        make_benchmark_from_command_line("gcc a.c missing.o", cwd=tmp_path)


def test_command_line_system_includes(tmp_path):
    (tmp_path / "in.c").write_text("#include <stdio.h>\nint main(void) { return 0; }\n")
    assert make_benchmark_from_command_line("gcc in.c", cwd=tmp_path).data
    with pytest.raises(BenchmarkInitError, match=r"stdio\.h"):
        make_benchmark_from_command_line("gcc in.c", cwd=tmp_path, system_includes=False)


# split_benchmark_by_function


def test_split_benchmark_by_function_maximum_function_count_and_no_functions():
    benchmark = make_benchmark_from_source(
        "int A(void) { return 0; }\nint B(void) { return A(); }\n"
    )
    uri = str(benchmark.uri)
    assert [str(b.uri) for b in split_benchmark_by_function(benchmark)] == [
        f"{uri}/A",
        f"{uri}/B",
    ]
    parts = split_benchmark_by_function(benchmark, maximum_function_count=1)
    assert [str(b.uri) for b in parts] == [f"{uri}/A"]
    empty = make_benchmark_from_source("")
    with pytest.raises(ValueError, match=f"^No functions found in {empty.uri}: "):
        split_benchmark_by_function(empty)


# Proto programs and Benchmark


def test_a_proto_program_of_another_scheme_fails_when_it_is_read():
    message = 'Invalid benchmark data URI. Only the file:/// scheme is supported: "{}"'
    benchmark = Benchmark(BenchmarkProto(uri="benchmark://new", program=File(uri="x_y://t")))
    with pytest.raises(ValueError, match="^" + message.format("x_y://t").replace(".", r"\.")):
        benchmark.to_engine()
    with pytest.raises(ValueError, match=message.format("https://a/b").replace(".", r"\.")):
        File(uri="https://a/b")
    with pytest.raises(ValueError, match="^No program set in Benchmark: benchmark://new$"):
        Benchmark(BenchmarkProto(uri="benchmark://new")).to_engine()


def test_benchmark_of_a_proto_takes_its_program():
    proto = BenchmarkProto(uri="benchmark://user-v0/x", program=File(contents=b"BC"))
    benchmark = Benchmark(proto)
    assert str(benchmark.uri) == "benchmark://user-v0/x"
    assert benchmark.to_engine().data == b"BC"


def test_benchmark_uri_and_proto_are_read_only():
    benchmark = Benchmark("benchmark://example-v0/foobar")
    with pytest.raises(AttributeError):
        benchmark.uri = "benchmark://example-v0/other"
    with pytest.raises(AttributeError):
        benchmark.proto = None
    assert str(benchmark.uri) == "benchmark://example-v0/foobar"


def test_benchmark_sources(tmp_path):
    benchmark = Benchmark("benchmark://example-v0/foo", sources=[("example.py", b"Hello")])
    benchmark.add_source(BenchmarkSource(filename="foo.py", contents=b"Hi"))
    assert benchmark.sources == [
        BenchmarkSource("example.py", b"Hello"),
        BenchmarkSource("foo.py", b"Hi"),
    ]
    assert benchmark.write_sources_to_directory(tmp_path / "out") == 2
    assert (tmp_path / "out" / "example.py").read_bytes() == b"Hello"
    # Without sources, the program's file (unchanged).
    assert Benchmark("benchmark://example-v0/bar", data=b"IR").sources == [
        BenchmarkSource("benchmark.bc", b"IR")
    ]


def test_benchmarks_order_by_uri():
    a = Benchmark("benchmark://example-v0/a")
    a2 = Benchmark("benchmark://example-v0/a")
    b = Benchmark("benchmark://example-v0/b")
    assert a < b and a <= b and a <= a2 and b > a and b >= a and b >= b
    assert not b < a and not a > b
    assert a < "benchmark://example-v0/b"
    assert sorted([b, a2, a]) == ["benchmark://example-v0/a", "benchmark://example-v0/a", b]


# Datasets


def test_dataset_description_and_license_are_read_only():
    dataset = Dataset("benchmark://test-v0", "A test dataset", "MIT", site_data_base="test")
    for attribute in ("name", "description", "license", "site_data_path"):
        with pytest.raises(AttributeError):
            setattr(dataset, attribute, "x")
    assert (dataset.description, dataset.license) == ("A test dataset", "MIT")


def test_datasets_set_under_another_key_and_lookup_messages():
    datasets = Datasets([])
    hidden = Dataset("benchmark://a", "", "", deprecated=True)
    datasets["benchmark://foo-v0"] = hidden
    assert list(datasets) == []
    assert datasets.dataset("foo-v0") is hidden
    with pytest.raises(LookupError, match=r"^Dataset not found: benchmark://bar-v0$"):
        datasets["benchmark://bar-v0"]
    with pytest.raises(
        LookupError, match=r"^Dataset not found: foo-v1; did you mean 'benchmark://foo-v0'\?$"
    ):
        datasets.dataset("foo-v1")


# CompilerGym's modules


def test_cbench_and_chstone_submodules():
    from compiler_gym.envs.llvm.datasets import CBenchDataset, CHStoneDataset, cbench, chstone

    assert cbench.CBenchDataset is CBenchDataset and chstone.CHStoneDataset is CHStoneDataset
    assert len(chstone.URIS) == 12 and chstone.URIS[0] == "benchmark://chstone-v0/adpcm"
    okay = cbench.BenchmarkExecutionResult(0, output="1234abcd 0 ffff 1234567890abcdef 1\n")
    assert cbench.validate_sha_output(okay) is None
    assert okay.json() == {"walltime_seconds": 0, "error": None, "output": okay.output}
    for bad in ("abcd", "1 2 3 4 xyz", None, b"\xff\xfe"):
        result = cbench.BenchmarkExecutionResult(walltime_seconds=1.5, output=bad)
        assert cbench.validate_sha_output(result) in (
            "Failed to parse hex output",
            "Failed to parse unicode output",
        )


def test_csmith_benchmark_sources_and_retry_budget(tmp_path):
    from compiler_gym.envs.llvm.datasets import CsmithBenchmark as Exported

    assert Exported is CsmithBenchmark
    (tmp_path / "7.c").write_text("int main(void) { return 0; }\n")
    benchmark = CsmithBenchmark("generator://csmith-v0/7", files=[str(tmp_path / "7.c")])
    assert benchmark.sources == [BenchmarkSource("source.c", b"int main(void) { return 0; }\n")]
    benchmark.write_sources_to_directory(tmp_path / "out")
    assert (tmp_path / "out" / "source.c").is_file()
    with pytest.raises(OSError, match="^Csmith failed after 5 attempts with seed 1$"):
        CsmithDataset().benchmark_from_seed(seed=1, max_retries=3, retry_count=5)


def test_gccinvocation():
    from compiler_gym.third_party.gccinvocation.gccinvocation import (
        GccInvocation,
        cmdline_to_argv,
    )

    assert cmdline_to_argv("cc  -DS='a b' -DT=\"x y\" f.c") == [
        "cc",
        "-DS='a b'",
        '-DT="x y"',
        "f.c",
    ]
    gcc = GccInvocation.from_cmdline(
        "/opt/x86_64-linux-gnu-gcc-12 -O2 -D A=1 -DB -I inc -Isrc -x c -include h.h "
        "-MF d.d -c main.c util.o - -o out.o -lm"
    )
    assert (gcc.executable, gcc.progname, gcc.is_driver) == (
        "/opt/x86_64-linux-gnu-gcc-12",
        "x86_64-linux-gnu-gcc-12",
        True,
    )
    assert gcc.sources == ["main.c", "util.o", "-"]
    assert (gcc.defines, gcc.includepaths, gcc.output) == (["A=1", "B"], ["inc", "src"], "out.o")
    assert gcc.otherargs == ["-O2", "-x", "c", "-include", "h.h", "-MF", "d.d", "-c", "-lm"]
    one = gcc.restrict_to_one_source("main.c")
    assert one.argv == [
        "/opt/x86_64-linux-gnu-gcc-12",
        "-DA=1",
        "-DB",
        "-Iinc",
        "-Isrc",
        *gcc.otherargs,
        "main.c",
    ]
    cc1 = GccInvocation("cc1 -quiet -MD x.d a.c -dumpbase a.c -o -".split())
    assert (cc1.is_driver, cc1.sources) == (False, ["a.c"])
    ld = GccInvocation("collect2 -m elf_x86_64 a.o -o a.out".split())
    assert (ld.is_driver, ld.sources, ld.otherargs) == (False, [], ld.argv[1:])
