"""Installing datasets safely: one installer at a time per dataset (a file lock shared by
processes), built in a scratch directory and renamed into place, so that readers see a whole
install or none, and a failure leaves nothing behind."""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

import filelock
from tqdm import tqdm

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.errors import DatasetInitError
from compiler_gym.util.download import progress_disabled
from compiler_gym.util.names import did_you_mean
from compiler_gym.util.runfiles import site_data_path
from compiler_gym.util.thread_pool import get_thread_pool_executor

logger = logging.getLogger(__name__)


@contextmanager
def file_lock(path: Path):
    """Holds an exclusive lock on ``path`` (created if needed) for the ``with`` block,
    across threads and processes (``filelock``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(path)):
        yield


@contextmanager
def downloads_directory(scratch: Path):
    """A directory for an install's downloads inside its ``scratch`` directory, removed after
    the ``with`` block. Not in the system's temporary directory: an install killed mid-way
    leaves its downloads in its scratch directory, which the next install removes."""
    downloads = scratch / ".downloads"
    downloads.mkdir()
    try:
        yield downloads
    finally:
        shutil.rmtree(downloads, ignore_errors=True)


def install_directory(destination: Path, build: Callable[[Path], None]) -> Path:
    """Makes ``destination`` by calling ``build(scratch)`` once, whoever calls first.

    ``build`` fills an empty scratch directory beside ``destination``; on success the scratch
    directory becomes ``destination`` in one rename. Concurrent callers wait for the lock and
    then find the directory made. Any exception from ``build`` leaves no trace and surfaces as
    ``DatasetInitError``.
    """
    if destination.is_dir():
        return destination
    with file_lock(destination.parent / f".{destination.name}.lock"):
        if destination.is_dir():  # made while we waited
            return destination
        # Scratch directories of installs that died without cleaning up (killed processes):
        # nobody else can be using them while we hold the lock.
        for stale in destination.parent.glob(f".{destination.name}-*"):
            shutil.rmtree(stale, ignore_errors=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{destination.name}-", dir=destination.parent))
        logger.info("installing %s", destination)
        try:
            build(scratch)
            scratch.rename(destination)
        except DatasetInitError:
            raise
        except Exception as e:
            raise DatasetInitError(f"Cannot install {destination.name}: {e}") from e
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return destination


class InstalledDataset(Dataset):
    """A dataset built once into ``$COMPILER_GYM_SITE_DATA/<site_name>`` by :meth:`_build`,
    which fills a scratch directory and writes ``manifest.json`` there with a ``benchmarks``
    map (benchmark name → entry). Installing happens on first use; subclasses turn an entry
    into a Benchmark with :meth:`_benchmark`, and name the environment family whose envs
    decide, by loading (and running) each program, which ones it keeps (``probe_family``)."""

    probe_family: str
    probe_timeout_seconds = 10

    def __init__(self, site_name: str, **kwargs):
        super().__init__(**kwargs)
        self.site_name = site_name

    @property
    def root(self) -> Path:
        """The install directory, ``$COMPILER_GYM_SITE_DATA/<site_name>`` (or the dataset's
        :attr:`site_data_path` when it has a ``site_data_base``); it exists once the dataset
        is installed."""
        return self.site_data_path if self.has_site_data else site_data_path(self.site_name)

    @property
    def installed(self) -> bool:
        return (self.root / "manifest.json").is_file()

    @property
    def size(self) -> int:
        return len(self._manifest["benchmarks"]) if self.installed else 0

    @cached_property
    def _manifest(self) -> dict:
        self.install()
        with open(self.root / "manifest.json") as f:
            return json.load(f)

    def install(self) -> None:
        super().install()  # a deprecated dataset warns
        install_directory(self.root, self._build)

    def uninstall(self) -> None:
        """Removes the install directory (and :meth:`Dataset.uninstall`'s folders)."""
        shutil.rmtree(self.root, ignore_errors=True)
        self.__dict__.pop("_manifest", None)
        super().uninstall()

    def benchmark_uris(self) -> Iterator[str]:
        for name in self._manifest["benchmarks"]:
            yield f"{self.name}/{name}"

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        entry = self._manifest["benchmarks"].get(uri.name)
        if entry is None:
            hint = did_you_mean(uri.name, self._manifest["benchmarks"])
            raise LookupError(f"Benchmark not found: {uri}{hint}")
        return self._benchmark(str(uri), self.root, entry)

    def _benchmark(self, uri: str, root: Path, entry: dict) -> Benchmark:
        raise NotImplementedError

    def _build(self, scratch: Path) -> None:
        raise NotImplementedError

    def probe_all(self, benchmarks: dict[str, Benchmark]) -> dict[str, dict]:
        """Loads (and, if runnable, builds and runs) each benchmark as an env of the family
        ``probe_family`` would, in parallel with a progress bar; returns
        ``_C.probe_benchmark``'s verdict per name."""

        def probe(name: str) -> dict:
            return _C.probe_benchmark(
                self.probe_family, benchmarks[name].to_engine(), self.probe_timeout_seconds
            )

        names = list(benchmarks)
        verdicts = list(
            tqdm(
                get_thread_pool_executor().map(probe, names),
                total=len(names),
                desc=f"Installing {self.name}",
                unit="benchmark",
                disable=progress_disabled(),  # none under $COMPILER_GYM_QUIET or off a terminal
            )
        )
        return dict(zip(names, verdicts, strict=True))
