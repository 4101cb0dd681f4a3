"""The user's own programs: folders, tarballs and manifests of URLs (served on loopback),
and benchmarks from a compiler command line."""

import hashlib
import json
import os
import tarfile
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets import (
    FilesDataset,
    ManifestDataset,
    TarDataset,
    dataset_from_path,
    make_benchmark_from_command_line,
)
from compiler_gym.errors import BenchmarkInitError, DatasetInitError, DownloadFailed

PROGRAM = '#include <stdio.h>\nint main(void) { printf("%d\\n", 6 * 7); return 0; }\n'
IR = "define i32 @main() {\n  ret i32 0\n}\n"


@pytest.fixture
def site_data(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    return tmp_path / "site"


@pytest.fixture
def programs(tmp_path):
    root = tmp_path / "programs"
    (root / "sub").mkdir(parents=True)
    (root / "answer.c").write_text(PROGRAM)
    (root / "sub" / "tiny.ll").write_text(IR)
    (root / "README.txt").write_text("not a program")
    return root


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_tarball(root, path):
    with tarfile.open(path, "w:gz") as tar:
        tar.add(root, arcname=".")
    return path


def check_dataset(dataset, runnable=False):
    with compiler_gym.make("llvm-v0") as env:
        env.datasets.add(dataset)
        assert sorted(dataset.benchmark_uris()) == [
            f"{dataset.name}/answer",
            f"{dataset.name}/sub/tiny",
        ]
        assert dataset.size == 2
        env.reset(benchmark=f"{dataset.name}/sub/tiny")
        assert env.observation["IrInstructionCount"] == 1
        env.reset(benchmark=f"{dataset.name}/answer")
        assert env.observation["IsRunnable"] is runnable
        with pytest.raises(LookupError):
            env.datasets.benchmark(f"{dataset.name}/README")


def test_folder_dataset(programs):
    dataset = FilesDataset("benchmark://mine-v0", programs, runnable=True)
    check_dataset(dataset, runnable=True)
    with compiler_gym.make("llvm-v0") as env:
        env.datasets.add(dataset)
        env.reset(benchmark="benchmark://mine-v0/answer")
        env.step(env.action_space.flags.index("-mem2reg"))
        assert env.validate().okay()
    assert isinstance(dataset_from_path("benchmark://x-v0", programs), FilesDataset)
    with pytest.raises(FileNotFoundError):
        dataset_from_path("benchmark://x-v0", programs / "missing")


def test_local_tarball_dataset_installs_once(programs, tmp_path, site_data):
    tarball = make_tarball(programs, tmp_path / "programs.tar.gz")
    dataset = dataset_from_path("benchmark://tarred-v0", tarball, sha256=sha256(tarball))
    assert isinstance(dataset, TarDataset) and not dataset.installed
    check_dataset(dataset)
    assert dataset.installed
    marker = site_data / "user" / "tarred-v0" / "answer.c"
    stamp = marker.stat().st_mtime_ns
    TarDataset("benchmark://tarred-v0", str(tarball)).install()
    assert marker.stat().st_mtime_ns == stamp


def test_an_installed_dataset_uninstalls_and_installs_again(
    programs, tmp_path, site_data, monkeypatch
):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    tarball = make_tarball(programs, tmp_path / "programs.tar.gz")
    dataset = TarDataset("benchmark://gone-v0", str(tarball), sha256=sha256(tarball))
    dataset.install()
    assert sorted(dataset.benchmark_uris())  # the listing is memoized
    assert (site_data / "user" / "gone-v0" / "answer.c").is_file()
    dataset.uninstall()
    assert not dataset.installed and not (site_data / "user" / "gone-v0").exists()
    assert len(list(dataset.benchmark_uris())) == 2  # listed again: installs again
    assert dataset.installed
    folder = FilesDataset("benchmark://mine-v0", programs)
    folder.uninstall()  # the user's own folder is not the dataset's to remove
    assert (programs / "answer.c").is_file()


def test_probing_an_install_draws_no_bar_under_compiler_gym_quiet(monkeypatch):
    """``InstalledDataset.probe_all``'s bar follows ``$COMPILER_GYM_QUIET`` as the package's
    other bars do (and tqdm's terminal check without it)."""
    from compiler_gym.datasets import install

    bars = []

    def recording_tqdm(iterable, **kwargs):
        bars.append(kwargs["disable"])
        return iterable

    monkeypatch.setattr(install, "tqdm", recording_tqdm)
    dataset = install.InstalledDataset(
        "probe-v0", name="benchmark://probe-v0", description="", license=""
    )
    monkeypatch.setenv("COMPILER_GYM_QUIET", "1")
    assert dataset.probe_all({}) == {}
    monkeypatch.setenv("COMPILER_GYM_QUIET", "0")
    dataset.probe_all({})
    assert bars == [True, None]


def test_a_source_is_compiled_once_per_uri_while_it_is_unchanged(programs, monkeypatch):
    from compiler_gym.datasets import user

    made, make_benchmark = [], user.make_benchmark

    def counting_make_benchmark(path, **kwargs):
        made.append(path.name)
        return make_benchmark(path, **kwargs)

    monkeypatch.setattr(user, "make_benchmark", counting_make_benchmark)
    dataset = FilesDataset("benchmark://memo-v0", programs, runnable=True)
    first = dataset.benchmark("benchmark://memo-v0/answer")
    first.add_validation_callback(lambda env: [])
    second = dataset.benchmark("benchmark://memo-v0/answer")
    assert made == ["answer.c"]  # clang ran once
    assert second == first and second is not first
    assert second.data == first.data and second.files == first.files
    assert second.runnable and not second.validation_callbacks()  # a copy: not changed by us
    dataset.benchmark("benchmark://memo-v0/sub/tiny")
    assert made == ["answer.c", "tiny.ll"]
    source = programs / "answer.c"
    source.write_text(PROGRAM.replace("6 * 7", "6 * 9"))
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    changed = dataset.benchmark("benchmark://memo-v0/answer")
    assert made == ["answer.c", "tiny.ll", "answer.c"]  # the file changed: compiled again
    assert changed.data != first.data
    with compiler_gym.make("llvm-v0") as env:
        env.datasets.add(dataset)
        env.reset(benchmark="benchmark://memo-v0/answer")
        assert env.observation["IsRunnable"] is True
    assert made == ["answer.c", "tiny.ll", "answer.c"]


def test_a_header_that_changes_makes_the_sources_that_include_it_again(tmp_path):
    """A source is out of date when a header it includes changes (or goes), not only when it
    does; a header that no source includes changes nothing."""
    root = tmp_path / "programs"
    (root / "inc").mkdir(parents=True)
    (root / "inc" / "value.h").write_text("#define VALUE 6 * 7\n")
    (root / "unused.h").write_text("#define UNUSED 1\n")
    (root / "answer.c").write_text(
        '#include <stdio.h>\n#include "inc/value.h"\n'
        'int main(void) { printf("%d\\n", VALUE); return 0; }\n'
    )
    (root / "plain.c").write_text(PROGRAM)
    dataset = FilesDataset("benchmark://headers-v0", root, runnable=True)
    first = dataset.benchmark("benchmark://headers-v0/answer")
    plain = dataset.benchmark("benchmark://headers-v0/plain")
    assert dataset.benchmark("benchmark://headers-v0/answer").data == first.data
    made = dataset._made[("benchmark://headers-v0/answer", (), (), True)]
    assert [Path(stamp[0]).name for stamp in made[1]] == ["answer.c", "value.h"]

    def touch(path, text):
        path.write_text(text)
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))

    touch(root / "unused.h", "#define UNUSED 2\n")
    assert dataset.benchmark("benchmark://headers-v0/answer").data == first.data
    touch(root / "inc" / "value.h", "#define VALUE 6 * 9\n")
    changed = dataset.benchmark("benchmark://headers-v0/answer")
    assert changed.data != first.data
    assert dataset.benchmark("benchmark://headers-v0/plain").data == plain.data
    (root / "inc" / "value.h").unlink()
    with pytest.raises(BenchmarkInitError, match="value.h"):
        dataset.benchmark("benchmark://headers-v0/answer")


def test_tarball_over_http(programs, http_dir, site_data):
    www, url = http_dir
    tarball = make_tarball(programs, www / "programs.tar.xz")
    check_dataset(TarDataset("benchmark://web-v0", f"{url}/programs.tar.xz", sha256(tarball)))


def test_bad_tarballs_leave_nothing(tmp_path, http_dir, site_data):
    www, url = http_dir
    (www / "corrupt.tar.gz").write_bytes(b"\x1f\x8b this is not gzip")
    cases = [
        (f"{url}/corrupt.tar.gz", None, DatasetInitError, "not a readable tarball"),
        (f"{url}/missing.tar.gz", None, DownloadFailed, "Cannot download .*404"),
        (f"{url}/corrupt.tar.gz", "0" * 64, DownloadFailed, "sha256 mismatch"),
    ]
    for source, digest, error, message in cases:
        dataset = TarDataset("benchmark://broken-v0", source, sha256=digest)
        with pytest.raises(error, match=message):
            dataset.install()
        assert not dataset.installed
        assert [p.name for p in (site_data / "user").iterdir()] == [".broken-v0.lock"]


def test_manifest_over_http(programs, http_dir, site_data):
    www, url = http_dir
    (www / "answer.c").write_text(PROGRAM)
    (www / "tiny.ll").write_text(IR)
    entries = [
        {"name": "answer.c", "url": f"{url}/answer.c", "sha256": sha256(www / "answer.c")},
        {"name": "sub/tiny.ll", "url": f"{url}/tiny.ll", "sha256": sha256(www / "tiny.ll")},
    ]
    (www / "manifest.json").write_text(json.dumps({"benchmarks": entries}))
    check_dataset(ManifestDataset("benchmark://listed-v0", f"{url}/manifest.json"))

    # One wrong digest, or an entry that escapes the directory: nothing is installed.
    bad = [dict(entries[0]), dict(entries[1], sha256="f" * 64)]
    dataset = ManifestDataset("benchmark://badsum-v0", {"benchmarks": bad})
    with pytest.raises(DownloadFailed, match="sha256 mismatch .*tiny.ll"):
        dataset.install()
    assert not (site_data / "user" / "badsum-v0").exists()
    escape = [dict(entries[0], name="../../evil.c")]
    with pytest.raises(DatasetInitError, match="leaves the dataset directory"):
        ManifestDataset("benchmark://escape-v0", {"benchmarks": escape}).install()
    with pytest.raises(DownloadFailed, match="Cannot download"):
        ManifestDataset("benchmark://nomanifest-v0", f"{url}/nope.json").install()


def test_benchmark_from_command_line(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "scale.h").write_text("static int scale(int x) { return SCALE * x; }\n")
    (tmp_path / "util.c").write_text(
        '#include <math.h>\n#include "scale.h"\n'
        "int twice(int x) { return scale(x) + (int)sqrt(0.0); }\n"
    )
    (tmp_path / "main.c").write_text(
        "#include <stdio.h>\nint twice(int);\n"
        'int main(void) { printf("%d\\n", twice(21)); return 0; }\n'
    )
    benchmark = make_benchmark_from_command_line(
        "gcc -O2 -g -DSCALE=2 -Iinclude -c -std=c11 main.c util.c -o prog -lm -MD -MF prog.d",
        cwd=tmp_path,
        runnable=True,
    )
    assert benchmark.files == [] and benchmark.data  # compiled and linked when made
    assert benchmark.compile_args == ["-DSCALE=2", f"-I{tmp_path / 'include'}", "-std=c11"]
    assert benchmark.link_args == ["-lm"]
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=benchmark)
        assert env.observation["Runtime"].shape == (1,)
        env.step(env.action_space.flags.index("-inline"))
        assert env.validate().okay()
    with pytest.raises(ValueError, match="No source files"):
        make_benchmark_from_command_line("cc -O2 -o prog")
    with pytest.raises(ValueError, match="not a source file"):
        make_benchmark_from_command_line("cc main.c notes.txt", cwd=tmp_path)


def test_a_dataset_named_without_a_scheme_is_found_by_either_name(tmp_path):
    from compiler_gym.datasets.user import FilesDataset

    (tmp_path / "p.c").write_text("int main(void) { return 0; }\n")
    with compiler_gym.make("llvm-v0") as env:
        env.datasets["mine-v0"] = FilesDataset("mine-v0", tmp_path)
        assert "mine-v0" in env.datasets and "benchmark://mine-v0" in env.datasets
        env.reset(benchmark="mine-v0/p")
        assert env.observation["IrInstructionCount"] > 0
        del env.datasets["mine-v0"]
        assert "mine-v0" not in env.datasets
        with pytest.raises(LookupError):
            del env.datasets["mine-v0"]
