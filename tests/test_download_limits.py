"""Bounded downloads (issue 51, finding 3): a server that never ends its answer, trickles it,
or stalls in its headers, and a mirror folder whose file is a device or a FIFO, are stopped
with an error that names the limit and its environment variable, and leave no partial file.

Each server is on loopback and gives up by itself after ``GIVE_UP_SECONDS`` (or 96 MiB), so
that code without the bounds fails these tests instead of hanging.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import threading
import time
from pathlib import Path

import pytest

from compiler_gym.compiler_env_state import CompilerEnvStateReader
from compiler_gym.datasets import ManifestDataset, TarDataset
from compiler_gym.datasets import compilergym_llvm as cg
from compiler_gym.datasets.pypi_c import Library, PypiCDataset
from compiler_gym.errors import DatasetInitError, DownloadFailed
from compiler_gym.util.download import fetch_published_file

pytestmark = pytest.mark.timeout(120)

GIVE_UP_SECONDS = 20
ENDLESS_BYTES = 96 << 20
VARIABLES = (
    "COMPILER_GYM_MAX_DOWNLOAD_BYTES",
    "COMPILER_GYM_MAX_MANIFEST_BYTES",
    "COMPILER_GYM_DOWNLOAD_STALL_SECONDS",
    "COMPILER_GYM_DOWNLOAD_DEADLINE_SECONDS",
    "COMPILER_GYM_MAX_UNPACKED_MEMBERS",
    "COMPILER_GYM_DATASET_MIRROR",
)


class _Hostile(http.server.BaseHTTPRequestHandler):
    """``/endless/...``: 200 without a length, then zeros without end; ``/trickle/...``: a
    length of 10 MB, then one byte each 50 ms; ``/slow-headers/...``: the status line, then a
    header one byte each 50 ms; ``/steady/...``: 4 KiB each 50 ms (80 KiB/s, no stall);
    ``/to-ftp/...``: a redirect to an ftp URL. Each gives up after GIVE_UP_SECONDS."""

    stop: threading.Event
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        kind = self.path.strip("/").split("/")[0]
        end = time.monotonic() + GIVE_UP_SECONDS
        try:
            if kind == "to-ftp":
                self.send_response(302)
                self.send_header("Location", "ftp://127.0.0.1:9/x.tar")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if kind == "slow-headers":
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                while time.monotonic() < end and not self.stop.wait(0.05):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                return
            self.send_response(200)
            if kind == "trickle":
                self.send_header("Content-Length", str(10_000_000))
            self.send_header("Connection", "close")
            self.end_headers()
            sent = 0
            while time.monotonic() < end and sent < ENDLESS_BYTES and not self.stop.is_set():
                if kind == "endless":
                    self.wfile.write(bytes(1 << 20))
                    sent += 1 << 20
                else:
                    self.stop.wait(0.05)
                    self.wfile.write(b"x" if kind == "trickle" else bytes(4096))
                    self.wfile.flush()
        except OSError:
            pass  # the client hung up: what the bounds are for
        finally:
            self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def hostile():
    """The base URL of a server of hostile answers (see _Hostile)."""
    stop = threading.Event()
    handler = type("Handler", (_Hostile,), {"stop": stop})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    stop.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    """Fresh site data and cache folders, and every limit at its default."""
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return tmp_path / "site"


def files_under(root: Path) -> list[str]:
    """The files under ``root`` other than lock files: a partial download would be one."""
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if not p.is_dir() and not p.name.endswith("lock")
    )


def blas(site: Path) -> cg.CompilerGymDataset:
    definition = cg.DEFINITIONS["benchmark://blas-v0"]
    return cg.dataset_class(definition)(site / "llvm-v0", definition=definition)


# -------------------------------------------------------------------------------------------
# Size.


def test_a_mirror_answer_that_never_ends_stops_at_the_manifest_bound(hostile, site, monkeypatch):
    """The probe: a mirror answers a 45-byte manifest with zeros without end (it wrote 3 GiB).
    Now the download stops at $COMPILER_GYM_MAX_MANIFEST_BYTES (64 MiB by default), says so,
    and leaves nothing."""
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", f"{hostile}/endless/")
    dataset = blas(site)
    with pytest.raises(DownloadFailed, match=r"\$COMPILER_GYM_MAX_MANIFEST_BYTES=67108864; set"):
        list(dataset.benchmark_uris())
    assert files_under(site) == []


def test_a_tarball_over_the_download_cap_is_refused(hostile, http_dir, site, monkeypatch):
    """A file of unknown size may have $COMPILER_GYM_MAX_DOWNLOAD_BYTES: one that announces
    more is refused before it is read, one that sends more is stopped there."""
    monkeypatch.setenv("COMPILER_GYM_MAX_DOWNLOAD_BYTES", "1000000")
    www, url = http_dir
    (www / "big.tar").write_bytes(bytes(2_000_000))
    cases = [
        (f"{url}/big.tar", "it announces 2000000 bytes, more than 1000000 bytes"),
        (f"{hostile}/endless/x.tar", "it is larger than 1000000 bytes"),
    ]
    for source, message in cases:
        dataset = TarDataset("benchmark://big-v0", source, sha256="0" * 64)
        variable = r"\$COMPILER_GYM_MAX_DOWNLOAD_BYTES=1000000; set it higher"
        with pytest.raises(DownloadFailed, match=f"{message}.*{variable}"):
            dataset.install()
        assert files_under(site) == []


def test_a_size_from_the_table_is_the_only_size_accepted(http_dir, site):
    """pypi-c's table gives each sdist's size: a file of another size is refused (whether the
    server announces it or not), and nothing is installed."""
    www, url = http_dir
    data = b"not really an sdist" * 100
    (www / "demo").mkdir()
    (www / "demo" / "index.html").write_text('<a href="../demo-1.0.tar.gz">demo-1.0.tar.gz</a>')
    (www / "demo-1.0.tar.gz").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    cases = [
        (len(data) - 1, f"it announces {len(data)} bytes, more than the {len(data) - 1} bytes"),
        (len(data) + 1, f"got {len(data)} bytes, not the {len(data) + 1} it is known to have"),
    ]
    for size, message in cases:
        library = Library("demo", "demo", "demo-1.0.tar.gz", digest, "MIT", ("*.c",), size=size)
        with pytest.raises(DownloadFailed, match=message):
            PypiCDataset((library,), index=f"{url}/").install()
        assert not (site / "pypi-c-v0").exists()
        assert files_under(site) == []


def test_a_state_file_at_a_url_is_bounded_as_a_manifest(hostile, monkeypatch, site):
    monkeypatch.setenv("COMPILER_GYM_MAX_MANIFEST_BYTES", "100000")
    with pytest.raises(OSError, match=r"could not be obtained: .*MANIFEST_BYTES=100000; set"):
        list(CompilerEnvStateReader.read_paths([f"{hostile}/endless/states.csv"]))


def test_a_manifest_of_too_many_programs_is_refused_before_downloading(site, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_MAX_UNPACKED_MEMBERS", "2")
    entries = [{"name": f"p{i}.c", "url": "http://127.0.0.1:9/x", "sha256": "0"} for i in range(3)]
    dataset = ManifestDataset("benchmark://many-v0", {"benchmarks": entries})
    with pytest.raises(DatasetInitError, match=r"lists more than 2 members.*UNPACKED_MEMBERS=2;"):
        dataset.install()
    assert files_under(site) == []


# -------------------------------------------------------------------------------------------
# Time.


@pytest.mark.parametrize(
    "path, variables, message",
    [
        (
            "trickle",
            {"COMPILER_GYM_DOWNLOAD_STALL_SECONDS": "1"},
            r"less than 1024 bytes arrived for longer than 1 seconds: the limit is "
            r"\$COMPILER_GYM_DOWNLOAD_STALL_SECONDS=1; set it higher",
        ),
        (
            "slow-headers",
            {"COMPILER_GYM_DOWNLOAD_STALL_SECONDS": "1"},
            r"less than 1024 bytes arrived .*\$COMPILER_GYM_DOWNLOAD_STALL_SECONDS=1;",
        ),
        (
            "steady",
            {
                "COMPILER_GYM_DOWNLOAD_STALL_SECONDS": "30",
                "COMPILER_GYM_DOWNLOAD_DEADLINE_SECONDS": "1.5",
            },
            r"the download took longer than 1\.5 seconds: the limit is "
            r"\$COMPILER_GYM_DOWNLOAD_DEADLINE_SECONDS=1\.5; set it higher",
        ),
    ],
)
def test_a_trickle_a_stall_and_a_slow_download_are_stopped(
    path, variables, message, hostile, site, monkeypatch
):
    """A trickle (one byte each 50 ms), headers that never end, and a steady but endless
    download are stopped by the watchdog (its message says which limit), even while
    http.client is blocked reading; the partial file is gone at once."""
    for variable, value in variables.items():
        monkeypatch.setenv(variable, value)
    dataset = TarDataset("benchmark://slow-v0", f"{hostile}/{path}/x.tar", sha256="0" * 64)
    with pytest.raises(DownloadFailed, match=message):
        dataset.install()
    assert files_under(site) == []


def test_a_redirect_to_another_scheme_is_refused(hostile, site):
    dataset = TarDataset("benchmark://away-v0", f"{hostile}/to-ftp/x.tar")
    with pytest.raises(DownloadFailed, match="redirect to ftp://127.0.0.1:9/x.tar refused"):
        dataset.install()
    assert files_under(site) == []


# -------------------------------------------------------------------------------------------
# Only regular files from a folder or a path.


def _feed_a_reader(fifo: Path, stop: threading.Event) -> None:
    """Writes junk into ``fifo`` once something opens it for reading (code that reads FIFOs
    then sees a file that is not the one it wants, instead of waiting forever)."""
    while not stop.wait(0.05):
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader yet
            continue
        try:
            os.write(fd, b"junk")
        finally:
            os.close(fd)
        return


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_mirror_folders_file_that_is_not_a_regular_file_is_refused_unread(
    kind, tmp_path, site, monkeypatch
):
    """A mirror folder whose manifest is a link to a device (the probe's /dev/zero wrote
    3.25 GB; /dev/null here), a FIFO, or a folder: refused without reading, naming what it
    is."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    name = cg.DEFINITIONS["benchmark://blas-v0"].manifest.filename
    stop = threading.Event()
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        (mirror / name).symlink_to(tmp_path / "fifo")
        threading.Thread(target=_feed_a_reader, args=(tmp_path / "fifo", stop)).start()
    elif kind == "device":
        (mirror / name).symlink_to("/dev/null")
    else:
        (mirror / name).mkdir()
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", str(mirror))
    expected = {"fifo": "a FIFO", "device": "a character device", "folder": "a directory"}[kind]
    try:
        with pytest.raises(DownloadFailed, match=f"is {expected}; only regular files are read"):
            list(blas(site).benchmark_uris())
    finally:
        stop.set()
    assert files_under(site) == []


def test_a_tarball_path_that_links_to_a_device_is_refused(tmp_path, site):
    (tmp_path / "programs.tar").symlink_to("/dev/null")
    dataset = TarDataset("benchmark://dev-v0", str(tmp_path / "programs.tar"))
    with pytest.raises(DownloadFailed, match="is a character device; only regular files"):
        dataset.install()
    assert files_under(site) == []


def test_a_bad_limit_value_names_its_variable(site, monkeypatch, http_dir):
    www, url = http_dir
    (www / "a.tar").write_bytes(b"x")
    monkeypatch.setenv("COMPILER_GYM_DOWNLOAD_STALL_SECONDS", "soon")
    with pytest.raises(ValueError, match=r"\$COMPILER_GYM_DOWNLOAD_STALL_SECONDS must be a"):
        fetch_published_file([f"{url}/a.tar"], "0" * 64, site / "a.tar", site / "b.tar")
