"""Downloading files: CompilerGym's ``compiler_gym.util.download`` (a file's contents from one
of several URLs, checked against its sha256 and cached), and the transfer that every download
of the package goes through.

    >>> data = download(["https://mirror-a/x.tar.bz2", "https://mirror-b/x.tar.bz2"],
    ...                 sha256="6a3c...")

A transfer (:func:`fetch_file`) streams a URL (http, https, file) or a local path to a file,
checks its sha256, shows its progress in bytes on a terminal and leaves no file behind when
it fails, for any reason. It is bounded (:class:`DownloadLimits`, each limit set by an
environment variable that its error names): its size (exactly the size a table gives, else at
most ``$COMPILER_GYM_MAX_DOWNLOAD_BYTES``, or ``$COMPILER_GYM_MAX_MANIFEST_BYTES`` for
manifests and index pages), its pace (``$COMPILER_GYM_DOWNLOAD_STALL_SECONDS`` without 1 KiB
arriving stops it, so a trickle stops too) and its duration
(``$COMPILER_GYM_DOWNLOAD_DEADLINE_SECONDS``; a watchdog thread cuts the connection, even in
the middle of a read). A local path or ``file://`` URL (a mirror folder) must be a regular
file: a FIFO, a device or a link to one is refused without being read.

:func:`fetch_published_file` fetches a file that a dataset names by its URLs and sha256: from
the copy placed by hand when there is one, else from the mirror that
``$COMPILER_GYM_DATASET_MIRROR`` names (a directory, or a URL prefix) when it is set, else from
its URLs. Progress bars are drawn on standard error when it is a terminal, and never when
``$COMPILER_GYM_QUIET`` is set (to anything but ``0`` or the empty string).
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import math
import os
import socket
import stat
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from tqdm import tqdm

from compiler_gym.errors import DownloadFailed
from compiler_gym.util.filesystem import atomic_file_write
from compiler_gym.util.limits import Limit
from compiler_gym.util.runfiles import cache_path, transient_cache_path
from compiler_gym.util.truncate import truncate

logger = logging.getLogger(__name__)

MIRROR_ENVIRONMENT_VARIABLE = "COMPILER_GYM_DATASET_MIRROR"
QUIET_ENVIRONMENT_VARIABLE = "COMPILER_GYM_QUIET"
MAX_DOWNLOAD_BYTES_VARIABLE = "COMPILER_GYM_MAX_DOWNLOAD_BYTES"
MAX_MANIFEST_BYTES_VARIABLE = "COMPILER_GYM_MAX_MANIFEST_BYTES"
STALL_SECONDS_VARIABLE = "COMPILER_GYM_DOWNLOAD_STALL_SECONDS"
DEADLINE_SECONDS_VARIABLE = "COMPILER_GYM_DOWNLOAD_DEADLINE_SECONDS"

# The defaults. CompilerGym's largest archives are a few hundred MB: 4 GiB leaves room for a
# user's corpus. A manifest is a list of names (AnghaBench's million of them are a few MB
# compressed) or an index page. A server that sends under 1 KiB a minute is not serving a
# file; an hour is enough for 4 GiB at 1.2 MB/s, and a download slower than that can be
# given more time, or placed by hand.
_MAX_DOWNLOAD_BYTES = 4 << 30
_MAX_MANIFEST_BYTES = 64 << 20
_STALL_SECONDS = 60
_STALL_BYTES = 1024
_DEADLINE_SECONDS = 3600
_CHUNK_BYTES = 1 << 20

# The wait before retrying a server that answered "429 Too Many Requests", and its growth.
_TOO_MANY_REQUESTS_WAIT_SECONDS = 10
_TOO_MANY_REQUESTS_BACKOFF = 1.5


def progress_disabled() -> Optional[bool]:
    """tqdm's ``disable`` for compiler_gym's progress bars: True under ``$COMPILER_GYM_QUIET``,
    else None (tqdm then draws only when standard error is a terminal)."""
    quiet = os.environ.get(QUIET_ENVIRONMENT_VARIABLE, "")
    return True if quiet not in ("", "0") else None


@dataclass(frozen=True)
class DownloadLimits:
    """The bounds of a download, read from their environment variables when made: at most
    ``max_bytes`` (a file whose size is not known in advance), ``max_manifest_bytes`` (a
    manifest or an index page), no ``stall_seconds`` without 1 KiB arriving, and
    ``deadline_seconds`` in all."""

    max_bytes: Limit
    max_manifest_bytes: Limit
    stall_seconds: Limit
    deadline_seconds: Limit

    @classmethod
    def from_environment(cls) -> DownloadLimits:
        """The limits the environment sets (their defaults where it sets none)."""
        return cls(
            Limit.from_environment(MAX_DOWNLOAD_BYTES_VARIABLE, _MAX_DOWNLOAD_BYTES, "bytes"),
            Limit.from_environment(MAX_MANIFEST_BYTES_VARIABLE, _MAX_MANIFEST_BYTES, "bytes"),
            Limit.from_environment(STALL_SECONDS_VARIABLE, _STALL_SECONDS, "seconds"),
            Limit.from_environment(DEADLINE_SECONDS_VARIABLE, _DEADLINE_SECONDS, "seconds"),
        )


def _cut(sock: socket.socket) -> None:
    """Shuts a socket down, so that a read blocked on it in another thread returns at once."""
    try:
        # socket.socket's own shutdown: an SSLSocket's would also drop its TLS state, which
        # the reading thread is using.
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass  # closed already, or its descriptor moved to the TLS socket that wraps it


class _Watchdog:
    """Watches one download from a thread: when less than 1 KiB arrives in
    ``stall_seconds``, or ``deadline_seconds`` pass, it records why and shuts the download's
    sockets down (a read blocked in http.client returns); :meth:`check` raises it."""

    def __init__(self, source: str, limits: DownloadLimits):
        self._source = source
        self._stall = limits.stall_seconds
        self._deadline = limits.deadline_seconds
        now = time.monotonic()
        self._end = now + self._deadline.value if self._deadline.value else math.inf
        self._mark = now  # the last time 1 KiB had arrived since the mark before
        self._pending = 0
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self.verdict: Optional[str] = None
        self._thread = threading.Thread(
            target=self._run, name="compiler_gym-download-watchdog", daemon=True
        )

    def __enter__(self) -> _Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._done.set()
        self._thread.join()

    def watch(self, sock: socket.socket) -> None:
        """Shuts ``sock`` down too when the download is stopped."""
        with self._lock:
            self._sockets.append(sock)
            if self.verdict is not None:
                _cut(sock)

    def progress(self, count: int) -> None:
        """Notes ``count`` bytes received."""
        with self._lock:
            self._pending += count
            if self._pending >= _STALL_BYTES:
                self._mark = time.monotonic()
                self._pending = 0

    def check(self) -> None:
        """Raises DownloadFailed with the reason when the download was stopped."""
        if self.verdict is not None:
            raise DownloadFailed(f"Cannot download {self._source}: {self.verdict}")

    def _run(self) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                stall_at = self._mark + self._stall.value if self._stall.value else math.inf
                if now >= self._end:
                    self.verdict = self._deadline.exceeded("the download took longer")
                elif now >= stall_at:
                    self.verdict = self._stall.exceeded(
                        f"less than {_STALL_BYTES} bytes arrived for longer"
                    )
                if self.verdict is not None:
                    for sock in self._sockets:
                        _cut(sock)
                    return
                wait = min(self._end, stall_at) - now
            if self._done.wait(None if math.isinf(wait) else wait):
                return


def _watched(connection: type[http.client.HTTPConnection], watchdog: _Watchdog) -> type:
    """``connection`` whose sockets (the TCP one, and the TLS one over it) ``watchdog``
    watches."""

    class Watched(connection):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            create = self._create_connection

            def created(*create_args, **create_kwargs):
                sock = create(*create_args, **create_kwargs)
                watchdog.watch(sock)
                return sock

            self._create_connection = created

        def connect(self):
            super().connect()
            watchdog.watch(self.sock)

    return Watched


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog):
        super().__init__()
        self._watchdog = watchdog

    def http_open(self, req):
        return self.do_open(_watched(http.client.HTTPConnection, self._watchdog), req)


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog):
        super().__init__()
        self._watchdog = watchdog

    def https_open(self, req):
        connection = _watched(http.client.HTTPSConnection, self._watchdog)
        return self.do_open(connection, req, context=self._context)


class _HttpRedirectsOnly(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http and https only (urllib's own also follows ftp, which the
    watchdog does not watch)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urllib.parse.urlparse(newurl).scheme.lower() not in ("http", "https"):
            raise urllib.error.HTTPError(
                newurl, code, f"redirect to {newurl} refused: not http or https", headers, fp
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _open_regular(path: str, source: str) -> tuple[int, int]:
    """An open descriptor of the regular file ``path`` (links followed) and its size.
    Anything else (a FIFO, a device, a link to one) is refused before it is read: it could
    block, or never end."""
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise DownloadFailed(
                f"Cannot download {source}: {path} is {_file_kind(before.st_mode)}; only "
                "regular files are read from a folder or a path"
            )
        # O_NONBLOCK: should it have become a FIFO since, opening it does not wait.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except DownloadFailed:
        raise
    except OSError as e:
        raise DownloadFailed(f"Cannot download {source}: {e}") from e
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise DownloadFailed(
            f"Cannot download {source}: {path} is {_file_kind(info.st_mode)}; only regular "
            "files are read from a folder or a path"
        )
    return fd, info.st_size


def _local_path(source: str) -> Optional[str]:
    """The path a local source names (a path, or a ``file://`` URL); None for a URL of
    another scheme."""
    if "://" not in source:
        return str(Path(source).expanduser())
    parsed = urllib.parse.urlparse(source)
    if parsed.scheme.lower() != "file":
        return None
    if parsed.netloc not in ("", "localhost"):
        raise DownloadFailed(f"Cannot download {source}: a file URL of another host")
    return urllib.request.url2pathname(parsed.path)


def _transfer(
    source: str,
    sink: Callable[[bytes], object],
    digest,
    *,
    limits: DownloadLimits,
    size: Optional[int],
    cap: Optional[Limit],
    desc: Optional[str],
) -> Optional[str]:
    """Streams ``source`` into ``sink`` (and ``digest``) within ``limits``: exactly ``size``
    bytes when given, else at most ``cap`` (``limits.max_bytes`` by default). Returns the
    charset the server declared, if any. Raises DownloadFailed."""
    cap = cap or limits.max_bytes
    name = urllib.parse.unquote(Path(urllib.parse.urlparse(source).path).name) or source
    with _Watchdog(source, limits) as watchdog:
        try:
            return _stream(source, sink, digest, size, cap, limits, watchdog, desc or name)
        except DownloadFailed:
            raise
        except (OSError, ValueError, http.client.HTTPException) as e:
            watchdog.check()  # the watchdog's cut is why the read failed: say why it cut
            raise DownloadFailed(f"Cannot download {source}: {e}") from e


def _stream(source, sink, digest, size, cap, limits, watchdog, desc) -> Optional[str]:
    charset = None
    path = _local_path(source)
    if path is not None:
        fd, total = _open_regular(path, source)
        stream = os.fdopen(fd, "rb", buffering=0)
        read = stream.read
    else:
        scheme = urllib.parse.urlparse(source).scheme.lower()
        if scheme not in ("http", "https"):
            raise DownloadFailed(f"Cannot download {source}: only http, https and file URLs")
        opener = urllib.request.build_opener(
            _WatchedHTTPHandler(watchdog), _WatchedHTTPSHandler(watchdog), _HttpRedirectsOnly()
        )
        stream = opener.open(source, timeout=limits.stall_seconds.value or None)
        length = stream.headers.get("Content-Length") if stream.headers else None
        total = int(length) if length and length.isdigit() else None
        charset = stream.headers.get_content_charset() if stream.headers else None
        read = stream.read1  # returns what has arrived, so the loop sees a trickle
    bound = size if size is not None else cap.value

    def too_large(what: str) -> DownloadFailed:
        if size is not None:
            return DownloadFailed(
                f"Cannot download {source}: {what} than the {size} bytes it is known to have"
            )
        return DownloadFailed(f"Cannot download {source}: {cap.exceeded(what)}")

    with stream:
        if total is not None and bound is not None and total > bound:
            raise too_large(f"it announces {total} bytes, more")
        received = 0
        with tqdm(
            total=total,
            desc=desc,
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            leave=False,
            disable=progress_disabled(),
        ) as bar:
            while True:
                chunk = read(_CHUNK_BYTES)
                watchdog.check()
                if not chunk:
                    break
                received += len(chunk)
                if bound is not None and received > bound:
                    raise too_large("it is larger")
                watchdog.progress(len(chunk))
                if digest is not None:
                    digest.update(chunk)
                sink(chunk)
                bar.update(len(chunk))
    if total is not None and received != total:
        raise DownloadFailed(f"Cannot download {source}: got {received} of {total} bytes")
    if size is not None and received != size:
        raise DownloadFailed(
            f"Cannot download {source}: got {received} bytes, not the {size} it is known to have"
        )
    return charset


def fetch_file(
    source: str,
    destination: Path,
    sha256: Optional[str] = None,
    desc: Optional[str] = None,
    *,
    size: Optional[int] = None,
    max_bytes: Optional[Limit] = None,
) -> None:
    """Copies a URL (http, https, file) or a local path to ``destination``, checking its sha256
    when one is given, with a progress bar in bytes (``desc`` names it; the file name by
    default). ``size`` is its size when known (from a table): any other size is refused;
    else it may have up to ``max_bytes`` (``$COMPILER_GYM_MAX_DOWNLOAD_BYTES`` by default).
    Raises :class:`~compiler_gym.errors.DownloadFailed`, leaving no file at ``destination``,
    when the transfer fails, passes a limit (:class:`DownloadLimits`), is interrupted, ends
    early or fetches something else."""
    destination = Path(destination)
    digest = hashlib.sha256()
    limits = DownloadLimits.from_environment()  # before a file is made: ValueError if malformed
    try:
        with open(destination, "wb") as out:
            _transfer(source, out.write, digest, limits=limits, size=size, cap=max_bytes, desc=desc)
    except DownloadFailed:
        destination.unlink(missing_ok=True)
        raise
    except OSError as e:  # writing the file
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


def fetch_bytes(source: str, *, max_bytes: Optional[Limit] = None) -> bytes:
    """The contents of a manifest or an index page (a URL or a path) of at most ``max_bytes``
    (``$COMPILER_GYM_MAX_MANIFEST_BYTES`` by default), within the limits of
    :func:`fetch_file`; DownloadFailed otherwise."""
    return _fetch(source, max_bytes)[0]


def fetch_text(source: str, *, max_bytes: Optional[Limit] = None) -> str:
    """:func:`fetch_bytes` decoded with the charset the server declares (UTF-8 when none);
    UnicodeDecodeError for text that is not in it."""
    data, charset = _fetch(source, max_bytes)
    return data.decode(charset or "utf-8")


def _fetch(source: str, max_bytes: Optional[Limit]) -> tuple[bytes, Optional[str]]:
    chunks: list[bytes] = []
    limits = DownloadLimits.from_environment()
    cap = max_bytes or limits.max_manifest_bytes
    charset = _transfer(source, chunks.append, None, limits=limits, size=None, cap=cap, desc=None)
    return b"".join(chunks), charset


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


def fetch_published_file(
    urls: Sequence[str],
    sha256: str,
    destination: Path,
    placed: Path,
    *,
    size: Optional[int] = None,
    max_bytes: Optional[Limit] = None,
) -> Path:
    """The path of a checked copy of a published file (its ``urls``, tried in order, its
    ``sha256``, and its ``size`` when known, else at most ``max_bytes``: see
    :func:`fetch_file`).

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
            fetch_file(
                source,
                destination,
                sha256,
                desc=f"Downloading {filename}",
                size=size,
                max_bytes=max_bytes,
            )
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

    # Not at the top: compiler_gym.datasets imports this module.
    from compiler_gym.datasets.install import file_lock

    sha256 = sha256.lower()
    cached = cache_path("downloads", sha256)
    with file_lock(cache_path("downloads", f".{sha256}.lock")):
        if not cached.is_file():  # else a complete, checked download: it was written whole
            with atomic_file_write(cached) as path:
                _download(urls, sha256, max_retries, path)
        return cached.read_bytes()


__all__ = [
    "DEADLINE_SECONDS_VARIABLE",
    "DownloadFailed",
    "DownloadLimits",
    "MAX_DOWNLOAD_BYTES_VARIABLE",
    "MAX_MANIFEST_BYTES_VARIABLE",
    "STALL_SECONDS_VARIABLE",
    "download",
    "fetch_bytes",
    "fetch_file",
    "fetch_published_file",
    "fetch_text",
    "file_sha256",
    "mirror_source",
    "progress_disabled",
    "url_filename",
]
