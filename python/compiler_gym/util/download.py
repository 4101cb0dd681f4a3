"""CompilerGym's ``compiler_gym.util.download``: a file's contents from one of several URLs,
checked against its sha256 and cached.

    >>> data = download(["https://mirror-a/x.tar.bz2", "https://mirror-b/x.tar.bz2"],
    ...                 sha256="6a3c...")

The transfer is the datasets' own (:func:`compiler_gym.datasets.user.fetch`: http, https,
file URLs and local paths).
"""

from __future__ import annotations

import logging
import tempfile
import time
import urllib.error
from pathlib import Path
from typing import Optional, Union

from compiler_gym.datasets.install import file_lock
from compiler_gym.datasets.user import fetch
from compiler_gym.errors import DownloadFailed
from compiler_gym.util.filesystem import atomic_file_write
from compiler_gym.util.runfiles import cache_path, transient_cache_path
from compiler_gym.util.truncate import truncate

logger = logging.getLogger(__name__)

# The wait before retrying a server that answered "429 Too Many Requests", and its growth.
_TOO_MANY_REQUESTS_WAIT_SECONDS = 10
_TOO_MANY_REQUESTS_BACKOFF = 1.5


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
                fetch(url, path, sha256)
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


__all__ = ["DownloadFailed", "download"]
