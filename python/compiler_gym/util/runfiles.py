"""Where compiler_gym keeps its files (package data, site data, caches), and how it writes
them."""

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Union

import platformdirs

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def package_data_path(*parts: str) -> Path:
    """Returns a path inside the package's shipped data directory."""
    return _PACKAGE_DIR.joinpath("data", *parts)


def site_data_path(*parts: str) -> Path:
    """Returns a path in ``$COMPILER_GYM_SITE_DATA`` (default: the user data directory that
    ``platformdirs`` gives, ``~/.local/share/compiler_gym`` on Linux, or under
    ``$XDG_DATA_HOME``)."""
    root = os.environ.get("COMPILER_GYM_SITE_DATA") or platformdirs.user_data_path("compiler_gym")
    return Path(root).joinpath(*parts)


@contextlib.contextmanager
def atomic_file_write(
    path: Path, fileobj: bool = False, mode: str = "wb"
) -> Iterator[Union[Path, IO]]:
    """Writes ``path`` atomically: the ``with`` block writes a temporary file beside it, which
    replaces ``path`` in one rename when the block ends, so readers see the old file or the
    whole new one, never a part. Yields the temporary file's path, or with ``fileobj`` the file
    opened in ``mode``. On an exception the temporary file is removed and ``path`` is left as
    it was. Concurrent writers do not wait for each other: the last rename wins. The new file
    is readable by its owner only, as :mod:`tempfile` makes it."""
    path = Path(path)
    with tempfile.NamedTemporaryFile(
        mode=mode, dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    ) as tmp:
        tmp_path = Path(tmp.name)
        try:
            if fileobj:
                yield tmp
            else:
                tmp.close()  # the caller writes the path, maybe with another program
                yield tmp_path
        except BaseException:
            tmp.close()
            tmp_path.unlink(missing_ok=True)
            raise
    if tmp_path.is_file():  # not when the caller moved it away
        os.replace(tmp_path, path)


def write_atomically(path: Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` (its folder made if missing) so that readers see the whole
    file or none of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file_write(path, fileobj=True) as f:
        f.write(data)


def cache_path(*parts: str) -> Path:
    """Returns a path in ``$COMPILER_GYM_CACHE`` (default: the user cache directory that
    ``platformdirs`` gives, ``~/.cache/compiler_gym`` on Linux, or under ``$XDG_CACHE_HOME``)."""
    root = os.environ.get("COMPILER_GYM_CACHE") or platformdirs.user_cache_path("compiler_gym")
    return Path(root).joinpath(*parts)


def runfiles_path(relpath: str) -> Path:
    """A path of the installed package given relative to its parent directory, as
    CompilerGym's ``runfiles_path("compiler_gym/...")`` names them."""
    return _PACKAGE_DIR.parent / relpath


def transient_cache_path(*parts: str) -> Path:
    """Returns a path in ``$COMPILER_GYM_TRANSIENT_CACHE`` (default: a per-user folder in
    ``/dev/shm`` where it exists, else in the temporary directory): scratch space that need
    not survive a reboot. The cache folder and the path's parent exist on return, so
    ``transient_cache_path(".")`` can be ``tempfile.TemporaryDirectory``'s ``dir`` (as
    CompilerGym scripts use it)."""
    root = os.environ.get("COMPILER_GYM_TRANSIENT_CACHE")
    if not root:
        shm = Path("/dev/shm")
        base = shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
        root = base / f"compiler_gym_{os.getuid()}"
    # Per-user scratch space: only its owner reads it (as tempfile's own directories).
    Path(root).mkdir(mode=0o700, parents=True, exist_ok=True)
    path = Path(root).joinpath(*parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
