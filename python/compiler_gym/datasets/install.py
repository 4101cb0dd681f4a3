"""Installing datasets safely: one installer at a time per dataset (a file lock shared by
processes), built in a scratch directory and renamed into place, so that readers see a whole
install or none, and a failure leaves nothing behind."""

from __future__ import annotations

import fcntl
import shutil
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from compiler_gym.errors import DatasetInitError


@contextmanager
def file_lock(path: Path):
    """Holds an exclusive lock on ``path`` (created if needed) for the ``with`` block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


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
