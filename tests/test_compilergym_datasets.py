"""CompilerGym's LLVM datasets by their URIs (issue 37, section 1), installed from a mirror.

Nothing here touches the network: the tests make archives in CompilerGym's layout from
programs written here (compiled with clang-19), serve them from a loopback HTTP server or a
directory named by ``$COMPILER_GYM_DATASET_MIRROR``, and give the dataset definitions the
test archives' sha256 sums.
"""

from __future__ import annotations

import bz2
import dataclasses
import fcntl
import functools
import hashlib
import http.server
import io
import os
import pty
import select
import shutil
import socket
import struct
import subprocess
import sys
import tarfile
import termios
import textwrap
import threading
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets import compilergym_llvm as cg
from compiler_gym.errors import DatasetInitError, DownloadFailed

# CompilerGym's cBench programs (its benchmarks.txt).
CBENCH_NAMES = (
    "adpcm bitcount blowfish bzip2 crc32 dijkstra ghostscript gsm ispell jpeg-c jpeg-d lame "
    "patricia qsort rijndael sha stringsearch stringsearch2 susan tiff2bw tiff2rgba tiffdither "
    "tiffmedian"
).split()

# Programs in cBench's manner: each reads _finfo_dataset (how many times to repeat its work)
# from its working directory and fails without it, as cBench's programs do.
REPEAT = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static long repeat_count(void) {
  long repeat = 0;
  FILE* info = fopen("_finfo_dataset", "r");
  if (info == NULL || fscanf(info, "%ld", &repeat) != 1) {
    fprintf(stderr, "Error: Can't find dataset!\n");
    exit(1);
  }
  fclose(info);
  return repeat;
}
"""

CRC32 = (
    REPEAT
    + r"""
int main(int argc, char** argv) {
  unsigned long table[256], crc = 0;
  long length = 0, repeat = repeat_count();
  if (argc != 2) return 2;
  for (unsigned long n = 0; n < 256; ++n) {
    unsigned long c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320UL ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  for (long r = 0; r < repeat; ++r) {
    FILE* in = fopen(argv[1], "rb");
    int c;
    if (in == NULL) return 3;
    crc = 0xFFFFFFFFUL;
    length = 0;
    while ((c = getc(in)) != EOF) {
      crc = table[(crc ^ (unsigned long)c) & 0xff] ^ (crc >> 8);
      ++length;
    }
    fclose(in);
    crc ^= 0xFFFFFFFFUL;
  }
  printf("%08lX %ld\n", crc, length);
  return 0;
}
"""
)

# Sorts the numbers of its input into sorted_output.dat, as cBench's qsort does.
QSORT = (
    REPEAT
    + r"""
static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}
int main(int argc, char** argv) {
  double values[1000];
  int n = 0;
  long repeat = repeat_count();
  FILE* in = argc == 2 ? fopen(argv[1], "r") : NULL;
  if (in == NULL) return 3;
  while (n < 1000 && fscanf(in, "%lf", &values[n]) == 1) ++n;
  fclose(in);
  for (long r = 0; r < repeat; ++r) qsort(values, n, sizeof(values[0]), compare);
  FILE* out = fopen("sorted_output.dat", "w");
  for (int i = 0; i < n; ++i) fprintf(out, "%g\n", values[i]);
  fclose(out);
  printf("sorted %d numbers\n", n);
  return 0;
}
"""
)

# Prints the same thing each run but writes its process id into a file: a program whose
# written files differ between two runs.
DIJKSTRA = (
    REPEAT
    + r"""
int main(void) {
  repeat_count();
  FILE* out = fopen("output.dat", "w");
  fprintf(out, "%ld\n", (long)getpid());
  fclose(out);
  printf("done\n");
  return 0;
}
"""
)


# -------------------------------------------------------------------------------------------
# Making archives in CompilerGym's layout.


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_tar(path: Path, files: dict[str, bytes]) -> None:
    """A tar archive of ``files`` (name: contents), gzip'd for a ``.gz`` name, else bzip2'd."""
    mode = "w:gz" if path.name.endswith(".gz") else "w:bz2"
    with tarfile.open(path, mode) as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def write_manifest(path: Path, names: list[str]) -> Path:
    path.write_bytes(bz2.compress("\n".join(names).encode() + b"\n"))
    return path


def compile_bitcode(source: str, workdir: Path, name: str) -> bytes:
    from compiler_gym.envs.llvm_env import clang_path

    c_file = workdir / f"{name}.c"
    c_file.write_text(source)
    out = workdir / f"{name}.bc"
    args = ["-c", "-emit-llvm", "-O1", "-Xclang", "-disable-llvm-passes", str(c_file)]
    subprocess.run([clang_path(), *args, "-o", str(out)], check=True)
    return out.read_bytes()


@dataclasses.dataclass
class Archives:
    """Test archives under CompilerGym's file names, and definitions that expect them."""

    folder: Path
    cbench: cg.Definition
    runtime_data: cg.Archive
    blas: cg.Definition


def expecting(definition: cg.Definition, folder: Path, **changes) -> cg.Definition:
    """``definition`` with the sha256 sums of the files of the same names in ``folder``."""

    def local(archive: cg.Archive) -> cg.Archive:
        return dataclasses.replace(archive, sha256=sha256(folder / archive.filename))

    manifest = local(definition.manifest) if definition.manifest else None
    extras = tuple(local(e) for e in definition.extras)
    return dataclasses.replace(
        definition, archive=local(definition.archive), manifest=manifest, extras=extras, **changes
    )


@pytest.fixture(scope="module")
def archives(tmp_path_factory) -> Archives:
    """cBench (crc32, qsort, dijkstra: our programs), its runtime data and blas-v0 (one
    program), as CompilerGym names and lays out its files."""
    work = tmp_path_factory.mktemp("programs")
    folder = tmp_path_factory.mktemp("archives")
    cbench = cg.DEFINITIONS["benchmark://cbench-v1"]
    programs = {"crc32": CRC32, "qsort": QSORT, "dijkstra": DIJKSTRA}
    write_tar(
        folder / cbench.archive.filename,
        {f"cBench-v1/{n}.bc": compile_bitcode(s, work, n) for n, s in programs.items()},
    )
    write_manifest(folder / cbench.manifest.filename, sorted(programs))
    runtime = {
        "runtime_data/telecom_data/1.pcm": bytes(range(256)) * 40,
        "runtime_data/telecom_data/2.pcm": b"another input set" * 100,
        "runtime_data/automotive_qsort_data/1.dat": b"3 1.5 -2 8 0 42 7\n",
        "runtime_data/network_dijkstra_data/1.dat": b"0 1 2\n",
    }
    write_tar(folder / cg.CBENCH_RUNTIME_DATA.filename, runtime)
    blas = cg.DEFINITIONS["benchmark://blas-v0"]
    write_tar(
        folder / blas.archive.filename,
        {"blas-v0/ddot.bc": compile_bitcode("double f(double x) { return 2 * x; }", work, "f")},
    )
    write_manifest(folder / blas.manifest.filename, ["ddot"])
    return Archives(
        folder=folder,
        cbench=expecting(cbench, folder),
        runtime_data=dataclasses.replace(
            cg.CBENCH_RUNTIME_DATA, sha256=sha256(folder / cg.CBENCH_RUNTIME_DATA.filename)
        ),
        blas=expecting(blas, folder),
    )


class _MirrorHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder, counts the requests per path, and cuts short the files named in
    ``truncated`` (it promises more bytes than it sends, then closes)."""

    requests: dict[str, int]
    truncated: set[str]

    def do_GET(self):
        name = self.path.lstrip("/")
        self.requests[name] = self.requests.get(name, 0) + 1
        if name in self.truncated:
            data = (Path(self.directory) / name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data) + 1000))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@dataclasses.dataclass
class Mirror:
    folder: Path
    url: str
    requests: dict[str, int]
    truncated: set[str]


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    """A fresh site data and cache folder, and no mirror set."""
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("COMPILER_GYM_DATASET_MIRROR", raising=False)
    monkeypatch.delenv("COMPILER_GYM_QUIET", raising=False)
    return tmp_path / "site"


@pytest.fixture
def mirror(tmp_path, archives, site, monkeypatch) -> Mirror:
    """The test archives served over loopback HTTP, set as the mirror."""
    folder = tmp_path / "mirror"
    shutil.copytree(archives.folder, folder)
    requests: dict[str, int] = {}
    truncated: set[str] = set()
    handler = type("Handler", (_MirrorHandler,), {"requests": requests, "truncated": truncated})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", url)
    yield Mirror(folder, url, requests, truncated)
    server.shutdown()
    server.server_close()


def leftovers(root: Path) -> list[str]:
    """The files under ``root`` other than lock files."""
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.name.endswith(("lock", ".lock"))
    )


# -------------------------------------------------------------------------------------------
# The table.


def test_each_definition_builds_a_dataset_of_its_name():
    datasets = cg.compilergym_llvm_datasets()
    assert [d.name for d in datasets] == list(cg.DEFINITIONS)
    for dataset in datasets:
        assert cg.DEFINITIONS[dataset.name].name == dataset.name
        assert dataset.size == 0  # nothing downloaded to answer
        assert not dataset.installed  # nothing downloaded to answer
    names = {d.name.split("://")[1] for d in datasets}
    assert {
        "cbench-v1",
        "chstone-v0",
        "npb-v0",
        "mibench-v1",
        "blas-v0",
        "opencv-v0",
        "tensorflow-v0",
        "github-v0",
        "linux-v0",
        "poj104-v1",
        "anghabench-v1",
        "clgen-v0",
        "jotaibench-v0",
    } <= names
    deprecated = {d.name for d in datasets if d.deprecated}
    assert deprecated == {
        "benchmark://anghabench-v0",
        "benchmark://cBench-v1",
        "benchmark://cBench-v0",
        "benchmark://mibench-v0",
        "benchmark://poj104-v0",
    }


def test_compilergym_s_classes_make_their_datasets(tmp_path):
    """As in CompilerGym, ``CBenchDataset(site_data_base)`` and the like; each named class is
    the kind of its row."""
    from compiler_gym.envs.llvm import datasets as llvm_datasets

    kinds = {cg.dataset_class(row) for row in cg.DEFINITIONS.values()}
    named = {kind for kind in kinds if kind.default_name}
    assert len(named) == 13
    for kind in named:
        assert getattr(llvm_datasets, kind.__name__) is kind
        dataset = kind(tmp_path)
        assert dataset.name == kind.default_name
        assert cg.dataset_class(cg.DEFINITIONS[kind.default_name]) is kind
        assert dataset.root == tmp_path / "benchmark" / kind.default_name.split("://")[1]
    with pytest.raises(TypeError, match="needs a definition"):
        cg.CompilerGymDataset(tmp_path)


def test_each_row_of_the_table_names_a_class_that_makes_its_dataset(tmp_path):
    """The table (plain data, in its own module) names each row's class; every row builds a
    dataset that reports the row's name."""
    from compiler_gym.datasets import compilergym_llvm_table as table

    assert cg.DEFINITIONS is table.DEFINITIONS
    assert set(cg.DATASET_CLASSES.values()) >= {
        cg.dataset_class(r) for r in table.DEFINITIONS.values()
    }
    for name, row in table.DEFINITIONS.items():
        assert isinstance(row.kind, str) and row.kind in cg.DATASET_CLASSES, name
        assert cg.dataset_class(row)(tmp_path, definition=row).name == name
    datasets = cg.compilergym_llvm_datasets(tmp_path)
    assert [d.name for d in datasets] == list(table.DEFINITIONS)


def test_a_file_name_in_a_mirror_is_one_file():
    """A mirror holds each file under the name its URL ends with: one name, one sha256."""
    sums: dict[str, str] = {}
    for definition in cg.DEFINITIONS.values():
        for archive in cg.definition_archives(definition):
            assert len(archive.sha256) == 64 and int(archive.sha256, 16) >= 0
            assert sums.setdefault(archive.filename, archive.sha256) == archive.sha256
    assert cg.CBENCH_RUNTIME_DATA.filename == "cBench-v0-runtime-data.tar.bz2"
    assert sums["llvm_bitcodes-10.0.0-cBench-v1-linux.tar.bz2"] == (
        "601fff3944c866f6617e653b6eb5c1521382c935f56ca1f36a9f5cf1a49f3de5"
    )


def test_cbench_run_commands_are_compilergym_s():
    assert set(cg.CBENCH_RUNS) < set(CBENCH_NAMES)
    assert set(CBENCH_NAMES) - set(cg.CBENCH_RUNS) == {
        "adpcm",
        "ghostscript",
        "ispell",
        "lame",
        "rijndael",
    }
    assert cg.cbench_commands("bitcount") == ["1125000", "512"]
    crc32 = cg.cbench_commands("crc32")
    assert len(crc32) == 20 and crc32[0] == "$D/telecom_data/1.pcm"
    assert crc32[19] == "$D/telecom_data/20.pcm"
    assert len(cg.cbench_commands("stringsearch2")) == 1
    assert cg.cbench_commands("adpcm") == []


def test_the_env_knows_compilergym_s_uris_without_downloading(site):
    with compiler_gym.make("llvm-v0") as env:
        for name in ("cbench-v1", "benchmark://anghabench-v1", "poj104-v1", "cBench-v1"):
            assert name in env.datasets
        listed = [d.name for d in env.datasets]
        assert "benchmark://cbench-v1" in listed and "benchmark://cBench-v1" not in listed
        assert env.datasets["cbench-v1"].validatable == "Partially"
    assert not site.exists() or leftovers(site) == []


# -------------------------------------------------------------------------------------------
# Installing.


def test_an_archive_whose_sum_differs_is_refused(mirror, archives, monkeypatch):
    # The mirror's archive is ours; the definition expects CompilerGym's sum.
    real = dataclasses.replace(archives.blas, archive=cg.DEFINITIONS["benchmark://blas-v0"].archive)
    dataset = cg.CompilerGymDataset(definition=real)
    with pytest.raises(DownloadFailed, match="sha256 mismatch") as e:
        dataset.install()
    assert real.archive.sha256 in str(e.value)
    assert str(dataset.placed_path(real.archive)) in str(e.value)
    assert not dataset.installed
    assert not (dataset.root / "contents").exists()
    manifest = f"manifest-{archives.blas.manifest.sha256}.txt"  # checked, and kept
    assert leftovers(dataset.root) == [manifest]
    # The manifest is checked the same way.
    wrong = dataclasses.replace(
        archives.blas, manifest=dataclasses.replace(archives.blas.manifest, sha256="0" * 64)
    )
    (dataset.root / manifest).unlink()
    with pytest.raises(DownloadFailed, match="sha256 mismatch"):
        list(cg.CompilerGymDataset(definition=wrong).benchmark_uris())
    assert leftovers(dataset.root) == []


def test_an_aborted_download_leaves_no_file(mirror, archives):
    mirror.truncated.add(archives.blas.archive.filename)
    dataset = cg.CompilerGymDataset(definition=archives.blas)
    with pytest.raises(DownloadFailed, match="Cannot download") as e:
        dataset.install()
    assert mirror.url in str(e.value)
    assert mirror.requests[archives.blas.archive.filename] == 1
    manifest = f"manifest-{archives.blas.manifest.sha256}.txt"
    assert not dataset.installed and leftovers(dataset.root) == [manifest]
    assert sorted(p.name for p in dataset.root.iterdir() if not p.name.endswith("lock")) == [
        manifest
    ]
    # Once the mirror serves the whole file, the install goes through.
    mirror.truncated.clear()
    dataset.install()
    assert dataset.installed
    assert (dataset.dataset_root / "ddot.bc").is_file()


def test_concurrent_installs_give_one_install(mirror, archives, tmp_path):
    datasets = [cg.CompilerGymDataset(definition=archives.blas) for _ in range(4)]
    errors = []

    def install(dataset):
        try:
            dataset.install()
            list(dataset.benchmark_uris())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=install, args=(d,)) for d in datasets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert mirror.requests == {
        archives.blas.archive.filename: 1,
        archives.blas.manifest.filename: 1,
    }
    root = datasets[0].root
    assert leftovers(root) == [
        ".extracted",
        "contents/blas-v0/ddot.bc",
        f"manifest-{archives.blas.manifest.sha256}.txt",
    ]
    assert [d.size for d in datasets] == [1, 1, 1, 1]
    assert list(datasets[0].benchmark_uris()) == ["benchmark://blas-v0/ddot"]


def test_concurrent_installs_in_processes(mirror, archives, tmp_path):
    script = textwrap.dedent(
        f"""
        import dataclasses, sys
        from compiler_gym.datasets import compilergym_llvm as cg
        row = dataclasses.replace(
            cg.DEFINITIONS["benchmark://blas-v0"],
            archive=cg.Archive({archives.blas.archive.urls!r}, {archives.blas.archive.sha256!r}),
            manifest=cg.Archive({archives.blas.manifest.urls!r}, {archives.blas.manifest.sha256!r}),
        )
        dataset = cg.CompilerGymDataset(definition=row)
        print(dataset.benchmark(next(dataset.benchmark_uris())).files[0])
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    dataset = cg.CompilerGymDataset(definition=archives.blas)
    assert outputs == [str(dataset.dataset_root / "ddot.bc")] * 3
    assert mirror.requests[archives.blas.archive.filename] == 1


def test_offline_without_a_mirror_names_the_url_and_the_place_for_the_file(
    site, archives, monkeypatch
):
    with socket.socket() as s:  # a loopback port nothing listens on: like no network
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def offline(archive: cg.Archive) -> cg.Archive:
        url = f"http://127.0.0.1:{port}/compiler_gym/{archive.filename}"
        return dataclasses.replace(archive, urls=(url,))

    row = dataclasses.replace(
        archives.blas,
        archive=offline(archives.blas.archive),
        manifest=offline(archives.blas.manifest),
    )
    dataset = cg.CompilerGymDataset(definition=row)
    folder = site / "llvm-v0" / "benchmark" / "blas-v0"
    # The manifest first, then the archive: each error names the file's URL and place.
    for archive in (row.manifest, row.archive):
        placed = folder / archive.filename
        assert dataset.placed_path(archive) == placed
        with pytest.raises(DownloadFailed) as e:
            dataset.install()
        assert isinstance(e.value, DatasetInitError) and isinstance(e.value, OSError)
        message = str(e.value)
        assert f"Cannot download {archive.urls[0]}" in message
        assert f"place it at {placed}" in message
        assert f"(sha256 {archive.sha256})" in message
        assert "COMPILER_GYM_DATASET_MIRROR" in message
        assert not dataset.installed
        # The file placed by hand is used, and kept.
        shutil.copyfile(archives.folder / archive.filename, placed)
    dataset.install()
    assert dataset.installed and (folder / row.archive.filename).is_file()
    assert (dataset.dataset_root / "ddot.bc").is_file()
    assert list(dataset.benchmark_uris()) == ["benchmark://blas-v0/ddot"]

    # A file placed by hand that is not the published one is refused, and left alone.
    other = cg.CompilerGymDataset(definition=dataclasses.replace(row, name="benchmark://blas-v9"))
    other.root.mkdir(parents=True)
    shutil.copyfile(archives.folder / row.manifest.filename, other.placed_path(row.manifest))
    other.placed_path(row.archive).write_bytes(b"not the archive")
    with pytest.raises(DownloadFailed, match="placed by hand"):
        other.install()
    assert other.placed_path(row.archive).read_bytes() == b"not the archive"


def test_a_mirror_directory_serves_the_files(site, archives, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", str(archives.folder))
    dataset = cg.CompilerGymDataset(site / "elsewhere", definition=archives.blas)
    assert list(dataset.benchmark_uris()) == ["benchmark://blas-v0/ddot"]
    benchmark = dataset.benchmark("benchmark://blas-v0/ddot")
    expected = site / "elsewhere" / "benchmark" / "blas-v0" / "contents" / "blas-v0" / "ddot.bc"
    assert benchmark.files == [str(expected)]
    with pytest.raises(LookupError, match="Benchmark not found"):
        dataset.benchmark("benchmark://blas-v0/nope")
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", str(site / "empty"))
    missing = cg.CompilerGymDataset(definition=archives.cbench)
    with pytest.raises(DownloadFailed, match="has no good copy"):
        missing.install()


# -------------------------------------------------------------------------------------------
# cBench from a mirror: reset, step, run, validate.


@pytest.fixture
def cbench_mirror(mirror, archives, monkeypatch) -> Mirror:
    monkeypatch.setitem(cg.DEFINITIONS, "benchmark://cbench-v1", archives.cbench)
    monkeypatch.setattr(cg, "CBENCH_RUNTIME_DATA", archives.runtime_data)
    return mirror


def test_cbench_crc32_resets_steps_runs_and_validates(cbench_mirror, site):
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark="cbench-v1/crc32")
        assert str(env.benchmark.uri) == "benchmark://cbench-v1/crc32"
        assert env.observation["IsRunnable"] and env.observation["IsBuildable"]
        runtimes = env.observation["Runtime"]
        assert len(runtimes) == 1 and runtimes[0] > 0
        env.step(env.action_space.flags.index("-mem2reg"))
        env.step(env.action_space.flags.index("-simplifycfg"))
        assert env.observation["Runtime"][0] > 0
        result = env.validate()
        assert result.okay(), result.error_details
        assert result.benchmark_semantics_validated

        env.reset(benchmark="benchmark://cbench-v1/crc32?dataset=1")  # 2.pcm
        assert env.observation["Runtime"][0] > 0
        with pytest.raises(ValueError, match="Invalid dataset: 20"):
            env.reset(benchmark="cbench-v1/crc32?dataset=20")
    runtime_data = site / "llvm-v0" / "cbench-v1-runtime-data" / "runtime_data"
    assert (runtime_data / "unpacked").is_file()
    assert (runtime_data / "telecom_data" / "1.pcm").is_file()
    assert cbench_mirror.requests[cg.CBENCH_RUNTIME_DATA.filename] == 1
    dataset = cg.CBenchDataset()
    assert dataset.installed and dataset.size == 3
    assert dataset.benchmark("crc32").uri == "benchmark://cbench-v1/crc32"
    dataset.uninstall()
    assert not dataset.installed and not runtime_data.exists()
    assert not (site / "llvm-v0" / "benchmark" / "cbench-v1").exists()


def test_cbench_programs_outputs_include_the_files_they_write(cbench_mirror):
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark="cbench-v1/qsort")
        benchmark = env.datasets.benchmark("cbench-v1/qsort")
        assert benchmark.link_args[1:] == ["-lm"]
        assert benchmark.run_args[0].endswith("runtime_data/automotive_qsort_data/1.dat")
        env.step(env.action_space.flags.index("-sroa"))
        result = env.validate()
        assert result.okay(), result.error_details
        # Same standard output each run, another file: the runs differ.
        env.reset(benchmark="cbench-v1/dijkstra")
        result = env.validate()
        assert not result.okay()
        assert "output file output.dat" in result.error_details


def test_a_cbench_program_compilergym_does_not_run_is_not_runnable(cbench_mirror, archives):
    dataset = cg.CBenchDataset(definition=archives.cbench)
    dataset.install()
    # Our archive has no adpcm: put one in, as CompilerGym's archive has.
    shutil.copyfile(dataset.dataset_root / "crc32.bc", dataset.dataset_root / "adpcm.bc")
    adpcm = dataset.benchmark("cbench-v1/adpcm?dataset=7")
    assert not adpcm.runnable and not adpcm.buildable and adpcm.run_args == []


# -------------------------------------------------------------------------------------------
# Progress.

PROGRESS_SCRIPT = """
import dataclasses, sys
from compiler_gym.datasets import compilergym_llvm as cg
row = dataclasses.replace(
    cg.DEFINITIONS["benchmark://blas-v0"],
    archive=cg.Archive({urls!r}, {sha256!r}),
    manifest=cg.Archive({manifest_urls!r}, {manifest_sha256!r}),
)
cg.CompilerGymDataset(definition=row).install()
print("installed")
"""


def run_on_a_terminal(args: list[str], env: dict) -> str:
    """What a command writes to a pseudo-terminal (its standard error and output)."""
    main, child = pty.openpty()
    # A terminal of 24 lines of 120 columns (a new pseudo-terminal has none: no room for bars).
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=child, stderr=child, env=env)
    os.close(child)
    output = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(main)
    assert proc.wait(timeout=60) == 0, output
    return output.decode(errors="replace")


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_shows_on_a_terminal_and_not_when_piped(site, archives, tmp_path, quiet):
    """A local install (a mirror directory) draws bars of bytes and files on a terminal,
    nothing when its output is piped or under COMPILER_GYM_QUIET."""
    archive, manifest = archives.blas.archive, archives.blas.manifest
    script = PROGRESS_SCRIPT.format(
        urls=archive.urls,
        sha256=archive.sha256,
        manifest_urls=manifest.urls,
        manifest_sha256=manifest.sha256,
    )
    env = {
        **os.environ,
        "COMPILER_GYM_DATASET_MIRROR": str(archives.folder),
        "COMPILER_GYM_SITE_DATA": str(tmp_path / "tty"),
        "COMPILER_GYM_QUIET": "1" if quiet else "",
    }
    shown = run_on_a_terminal([sys.executable, "-c", script], env)
    assert "installed" in shown
    if quiet:
        assert "Downloading" not in shown and "Unpacking" not in shown
    else:
        assert f"Downloading {archives.blas.archive.filename}" in shown
        assert "B/s" in shown or "B [" in shown
        assert "Unpacking benchmark://blas-v0" in shown and "files" in shown

    env["COMPILER_GYM_SITE_DATA"] = str(tmp_path / "piped")
    env["COMPILER_GYM_QUIET"] = ""
    piped = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert piped.returncode == 0, piped.stderr
    assert (piped.stdout, piped.stderr) == ("installed\n", "")


# -------------------------------------------------------------------------------------------
# Each kind of file CompilerGym's datasets hold, read by LLVM 19.


def test_each_kind_of_benchmark_file_loads_and_steps(site, tmp_path, monkeypatch):
    """AnghaBench's C (in the C that clang-10 accepted), POJ-104's C++ solutions (as they
    were written: ``void main``, no includes), CHStone's folders and CLgen's OpenCL kernels."""
    folder = tmp_path / "mirror"
    folder.mkdir()
    rows = {n: cg.DEFINITIONS[f"benchmark://{n}"] for n in ("anghabench-v1", "poj104-v1")}
    rows.update({n: cg.DEFINITIONS[f"benchmark://{n}"] for n in ("chstone-v0", "clgen-v0")})
    files = {
        "anghabench-v1": {"ext/a/b/extr_f.c": b"int f(int x) { return g(x) + 1; }\n"},
        "poj104-v1": {"1/10.txt": b"void main()\n{\n  int n; cin >> n; cout << 2 * n;\n}\n"},
        "chstone-v0": {"blowfish/bf.c": b"int main(void) { return 0; }\n"},
        "clgen-v0": {"abc.cl": b"kernel void A(global float* a) { a[0] *= 2.0f; }\n"},
    }
    for name, row in rows.items():
        contents = {f"{row.strip_prefix}/{path}": data for path, data in files[name].items()}
        write_tar(folder / row.archive.filename, contents)
        if row.manifest:
            stems = [p.rsplit(".", 1)[0] for p in files[name]]
            write_manifest(folder / row.manifest.filename, stems)
    libclc, opencl_h = rows["clgen-v0"].extras
    write_tar(folder / libclc.filename, {"generic/include/clc.h": b"/* libclc */\n"})
    (folder / opencl_h.filename).write_bytes(b"#define CLGEN 1\n")
    for row in rows.values():
        monkeypatch.setitem(cg.DEFINITIONS, row.name, expecting(row, folder))
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", str(folder))

    with compiler_gym.make("llvm-v0") as env:
        assert list(env.datasets["poj104-v1"].benchmark_uris()) == ["benchmark://poj104-v1/1/10"]
        for uri in (
            "anghabench-v1/ext/a/b/extr_f",
            "poj104-v1/1/10",
            "chstone-v0/blowfish",
            "clgen-v0/abc",
        ):
            env.reset(benchmark=uri)
            assert env.observation["IrInstructionCount"] > 0, uri
            env.step(env.action_space.flags.index("-mem2reg"))
        with pytest.raises(LookupError, match="Benchmark not found"):
            env.reset(benchmark="chstone-v0/nope")
    root = site / "llvm-v0" / "benchmark"
    prepared = (root / "poj104-v1" / "contents" / "ProgramData" / "1" / "10.cc").read_text()
    assert prepared.startswith("#include <bits/stdc++.h>\nusing namespace std;\n")
    assert "int main()" in prepared and "void main" not in prepared
    assert (root / "clgen-v0" / "contents" / "clgen-1000" / "kernels" / "abc.bc").is_file()
    assert (root / "clgen-v0" / "libclc" / "generic" / "include" / "clc.h").is_file()


def test_a_deprecated_dataset_warns_when_it_installs(mirror, archives):
    row = dataclasses.replace(archives.blas, deprecated="Please use blas-v1")
    with pytest.warns(DeprecationWarning, match="Please use blas-v1"):
        cg.CompilerGymDataset(definition=row).install()


def test_compilergym_s_deprecated_datasets_warn_on_each_install(tmp_path):
    """cBench-v0 and CompilerGym's other deprecated datasets, each by its own class, warn
    (``Dataset.install()``'s DeprecationWarning) when installed, already installed or not."""
    deprecated = [d for d in cg.compilergym_llvm_datasets(tmp_path) if d.deprecated]
    assert "benchmark://cBench-v0" in {d.name for d in deprecated}
    for dataset in deprecated:
        # Installed as far as each class checks: nothing to download.
        dataset.root.mkdir(parents=True, exist_ok=True)
        (dataset.root / ".extracted").touch()
        (dataset.root / ".opencl-installed").touch()
        if isinstance(dataset, cg.CBenchDataset):
            dataset.runtime_data.mkdir(parents=True, exist_ok=True)
            (dataset.runtime_data / "unpacked").touch()
        assert dataset.installed, dataset.name
        for _ in range(2):
            with pytest.warns(
                DeprecationWarning, match=f"'{dataset.name}' is marked as deprecated"
            ):
                dataset.install()
