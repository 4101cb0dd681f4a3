"""Downloading files: CompilerGym's ``compiler_gym.util.download`` (a file's contents from one
of several URLs, checked against its sha256 and cached), and the transfer that the datasets
CompilerGym publishes install through.

    >>> data = download(["https://mirror-a/x.tar.bz2", "https://mirror-b/x.tar.bz2"],
    ...                 sha256="6a3c...")

A transfer (:func:`fetch_file`) streams a URL (http, https, file) or a local path to a file,
checks its sha256, shows its progress in bytes on a terminal and leaves no file behind when
it fails. :func:`fetch_published_file` fetches a file that a dataset names by its URLs and
sha256: from the copy placed by hand when there is one, else from the mirror that
``$COMPILER_GYM_DATASET_MIRROR`` names (a directory, or a URL prefix) when it is set, else from
its URLs. Progress bars are drawn on standard error when it is a terminal, and never when
``$COMPILER_GYM_QUIET`` is set (to anything but ``0`` or the empty string).
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

from tqdm import tqdm

from compiler_gym.datasets.install import file_lock
from compiler_gym.errors import DownloadFailed
from compiler_gym.util.filesystem import atomic_file_write
from compiler_gym.util.runfiles import cache_path, transient_cache_path
from compiler_gym.util.truncate import truncate

logger = logging.getLogger(__name__)

MIRROR_ENVIRONMENT_VARIABLE = "COMPILER_GYM_DATASET_MIRROR"
QUIET_ENVIRONMENT_VARIABLE = "COMPILER_GYM_QUIET"
DOWNLOAD_TIMEOUT_SECONDS = 300
_CHUNK_BYTES = 1 << 20

# The wait before retrying a server that answered "429 Too Many Requests", and its growth.
_TOO_MANY_REQUESTS_WAIT_SECONDS = 10
_TOO_MANY_REQUESTS_BACKOFF = 1.5


def progress_disabled() -> Optional[bool]:
    """tqdm's ``disable`` for compiler_gym's progress bars: True under ``$COMPILER_GYM_QUIET``,
    else None (tqdm then draws only when standard error is a terminal)."""
    quiet = os.environ.get(QUIET_ENVIRONMENT_VARIABLE, "")
    return True if quiet not in ("", "0") else None


def fetch_file(
    source: str, destination: Path, sha256: Optional[str] = None, desc: Optional[str] = None
) -> None:
    """Copies a URL (http, https, file) or a local path to ``destination``, checking its sha256
    when one is given, with a progress bar in bytes (``desc`` names it; the file name by
    default). Raises :class:`~compiler_gym.errors.DownloadFailed`, leaving no file at
    ``destination``, when the transfer fails, ends early or fetches something else."""
    destination = Path(destination)
    digest = hashlib.sha256()
    name = urllib.parse.unquote(Path(urllib.parse.urlparse(source).path).name) or source
    try:
        if "://" in source:
            stream = urllib.request.urlopen(source, timeout=DOWNLOAD_TIMEOUT_SECONDS)
            length = stream.headers.get("Content-Length") if stream.headers else None
            total = int(length) if length and length.isdigit() else None
        else:
            path = Path(source).expanduser()
            stream = open(path, "rb")
            total = path.stat().st_size
        with (
            stream,
            open(destination, "wb") as out,
            tqdm(
                total=total,
                desc=desc or name,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                leave=False,
                disable=progress_disabled(),
            ) as bar,
        ):
            while chunk := stream.read(_CHUNK_BYTES):
                digest.update(chunk)
                out.write(chunk)
                bar.update(len(chunk))
        if total is not None and destination.stat().st_size != total:
            raise OSError(f"got {destination.stat().st_size} of {total} bytes")
    except (OSError, ValueError, http.client.HTTPException) as e:
        destination.unlink(missing_ok=True)
        raise DownloadFailed(f"Cannot download {source}: {e}") from e
    except BaseException:  # interrupted: no partial file either
        destination.unlink(missing_ok=True)
        raise
    if sha256 is not None and digest.hexdigest() != sha256.lower():
        destination.unlink(missing_ok=True)
        raise DownloadFailed(
            f"sha256 mismatch for {source}: expected {sha256}, got {digest.hexdigest()}"
        )


def file_sha256(path: Path) -> str:
    """The sha256 of a file, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def mirror_source(filename: str, mirror: Optional[str] = None) -> Optional[str]:
    """Where the mirror keeps ``filename``: ``<prefix>/<filename>`` for a URL prefix, the path
    ``<directory>/<filename>`` for a directory. ``mirror`` defaults to
    ``$COMPILER_GYM_DATASET_MIRROR``; None when no mirror is set."""
    mirror = mirror if mirror is not None else os.environ.get(MIRROR_ENVIRONMENT_VARIABLE, "")
    if not mirror:
        return None
    if "://" in mirror:
        return f"{mirror.rstrip('/')}/{urllib.parse.quote(filename)}"
    return str(Path(mirror).expanduser() / filename)


def url_filename(url: str) -> str:
    """The file name a URL ends with (its path's last part, unquoted): the name of a
    CompilerGym file in a mirror and in the place for a copy made by hand."""
    name = urllib.parse.unquote(Path(urllib.parse.urlparse(url).path).name)
    if not name:
        raise ValueError(f"URL names no file: {url}")
    return name


def fetch_published_file(urls: Sequence[str], sha256: str, destination: Path, placed: Path) -> Path:
    """The path of a checked copy of a published file (its ``urls``, tried in order, and its
    ``sha256``).

    ``placed`` is where a user may put the file by hand: when it exists it is used as it is
    (after its sha256 is checked; it is never removed). Otherwise the file is fetched into
    ``destination`` (whose folder must exist): from the mirror when
    ``$COMPILER_GYM_DATASET_MIRROR`` is set (only from there: an offline machine does not wait
    on unreachable hosts), else from each URL in turn. Raises
    :class:`~compiler_gym.errors.DownloadFailed` naming the URL and ``placed`` when no source
    gives the file.
    """
    if not urls:
        raise ValueError("No URLs to download")
    filename = placed.name
    if placed.is_file():
        actual = file_sha256(placed)
        if actual != sha256.lower():
            raise DownloadFailed(
                f"{placed} (placed by hand) has sha256 {actual}, not {sha256}: replace it with "
                f"the file from {urls[0]}"
            )
        return placed
    mirror = mirror_source(filename)
    sources = [mirror] if mirror is not None else list(urls)
    errors = []
    for source in sources:
        try:
            logger.info("Downloading %s ...", source)
            fetch_file(source, destination, sha256, desc=f"Downloading {filename}")
            return destination
        except DownloadFailed as e:
            logger.info("Download attempt failed: %s", truncate(e))
            errors.append(str(e))
    where = (
        f"the mirror ${MIRROR_ENVIRONMENT_VARIABLE}={os.environ[MIRROR_ENVIRONMENT_VARIABLE]} "
        f"has no good copy of {filename}"
        if mirror is not None
        else f"set ${MIRROR_ENVIRONMENT_VARIABLE} to a directory or URL prefix holding {filename}"
    )
    raise DownloadFailed(
        f"{'; '.join(errors)}. On a machine without internet access, download {urls[0]} "
        f"(sha256 {sha256}) elsewhere and place it at {placed}, or {where}"
    )


def _too_many_requests(error: DownloadFailed) -> bool:
    cause = error.__cause__
    return isinstance(cause, urllib.error.HTTPError) and cause.code == 429


def _download(urls: list[str], sha256: Optional[str], max_retries: int, path: Path) -> None:
    """Fetches the first URL that works into ``path``, trying each in turn for up to
    ``max_retries`` rounds; the last attempt's error if all fail."""
    error: Optional[DownloadFailed] = None
    wait = _TOO_MANY_REQUESTS_WAIT_SECONDS
    for _ in range(max(max_retries, 1)):
        for url in urls:
            try:
                logger.info("Downloading %s ...", url)
                fetch_file(url, path, sha256)
                return
            except DownloadFailed as e:
                logger.info("Download attempt failed: %s", truncate(e))
                error = e
                if _too_many_requests(e):
                    time.sleep(wait)
                    wait *= _TOO_MANY_REQUESTS_BACKOFF
    raise error


def download(
    urls: Union[str, list[str]], sha256: Optional[str] = None, max_retries: int = 5
) -> bytes:
    """The contents of the first of ``urls`` (one URL or a list, tried in order, for up to
    ``max_retries`` rounds) that downloads and matches ``sha256`` when one is given.

    With ``sha256`` the contents are cached in ``$COMPILER_GYM_CACHE/downloads/<sha256>``,
    and a process that wants the same file waits for the one downloading it (a file lock)
    and then reads the cache. Raises :class:`~compiler_gym.errors.DownloadFailed` (an
    ``OSError``) when every attempt fails or fetches something else, and ``ValueError`` for no
    URLs.
    """
    urls = [urls] if isinstance(urls, str) else list(urls)
    if not urls:
        raise ValueError("No URLs to download")
    if not sha256:
        with tempfile.TemporaryDirectory(dir=transient_cache_path(".")) as scratch:
            path = Path(scratch) / "download"
            _download(urls, None, max_retries, path)
            return path.read_bytes()

    sha256 = sha256.lower()
    cached = cache_path("downloads", sha256)
    with file_lock(cache_path("downloads", f".{sha256}.lock")):
        if not cached.is_file():  # else a complete, checked download: it was written whole
            with atomic_file_write(cached) as path:
                _download(urls, sha256, max_retries, path)
        return cached.read_bytes()


__all__ = [
    "DownloadFailed",
    "download",
    "fetch_file",
    "fetch_published_file",
    "file_sha256",
    "mirror_source",
    "progress_disabled",
    "url_filename",
]
