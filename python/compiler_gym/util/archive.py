"""Unpacking tar archives without trusting them: the one place where the package unpacks one.

    >>> limits = UnpackLimits.for_user()
    >>> count = unpack_tar(Path("corpus.tar.xz"), Path("out"), limits=limits, label="corpus")

Every archive the package unpacks goes through :func:`unpack_tar`: the user's tarballs
(``TarDataset``), CompilerGym's published archives, PyPI sdists and GCC's test suite inside
Debian's package. It never calls tarfile's ``extract`` or ``extractall`` (a test checks the
package's source for them). Their ``filter="data"`` is meant to keep an archive inside its
folder, but before Python 3.11.13, 3.12.11 and 3.13.4 it does not (CVE-2025-4517): a chain of
long nested directories and symbolic links makes ``os.path.realpath`` stop resolving, so a
link leading out of the folder passes the filter's check, and a file or a hard link is then
written through it. Here tarfile only reads the archive, and this module writes it:

- Only regular files and directories are written. A symbolic or hard link, a device, a FIFO or
  a sparse file that would be written is refused (:class:`DatasetInitError` naming it), so no
  member is ever written through a link made by an earlier one.
- A member's name must be relative and free of ``..``. Each directory is opened relative to the
  one above it with ``O_NOFOLLOW``, and each file is created with ``O_CREAT | O_EXCL |
  O_NOFOLLOW``, so the kernel follows no link on the way and overwrites nothing. After each
  member, its real path (every link resolved, strictly) is checked to be where it should be
  inside the destination.
- Bounds (:class:`UnpackLimits`), each set by an environment variable that its error names: the
  bytes unpacked (the decompressed tar stream, headers included, so that skipped members and
  oversized headers count too), the number of members, and the ratio of unpacked to packed
  bytes (a small archive that unpacks to gigabytes).

The caller owns ``destination``: on an error, what was written so far stays there (the
datasets unpack into a scratch folder that an error removes).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import tarfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Optional, Union

from tqdm import tqdm

from compiler_gym.errors import DatasetInitError
from compiler_gym.util.download import progress_disabled
from compiler_gym.util.limits import Limit, human_bytes
from compiler_gym.util.truncate import truncate

MAX_UNPACKED_BYTES_VARIABLE = "COMPILER_GYM_MAX_UNPACKED_BYTES"
MAX_UNPACKED_MEMBERS_VARIABLE = "COMPILER_GYM_MAX_UNPACKED_MEMBERS"
MAX_UNPACK_RATIO_VARIABLE = "COMPILER_GYM_MAX_UNPACK_RATIO"

# Defaults for the user's own archives. 4 GiB and 60,000 members hold the largest corpora
# CompilerGym publishes short of AnghaBench (POJ-104: 49,816 programs; GitHub: 49,738) and
# refuse what the hardening probes used (a 312 KB archive unpacking to 2 GiB, 100,000 files).
# Source and bitcode compress 3-20 times; 100 leaves room for repetitive generated code, and
# below RATIO_FLOOR_BYTES any ratio is allowed (small archives of small files compress well).
_USER_DEFAULTS = (4 << 30, 60_000, 100)
# Defaults for archives the package pins by sha256 (CompilerGym's, PyPI's sdists, Debian's
# package): their contents are known, so these only catch a wrong table. AnghaBench's GitHub
# tarball holds 1,041,333 programs and their folders; GCC 12's tarball 121,171 members and
# 723 MB; no ratio bound.
_PUBLISHED_DEFAULTS = (32 << 30, 4_000_000, None)
RATIO_FLOOR_BYTES = 64 << 20

# Longer member names than these are refused: PATH_MAX is 4096 and NAME_MAX 255, and no
# program archive comes near (the check after each member needs paths the kernel resolves).
_MAX_NAME_BYTES = 1024
_MAX_COMPONENT_BYTES = 255
# A pax or GNU long-name header larger than this is not a program archive's (tarfile would
# read it into memory whole).
_MAX_HEADER_BYTES = 1 << 20
_CHUNK_BYTES = 1 << 20

# What reading a corrupt or truncated archive raises (lzma's and zlib's are not OSErrors).
_READ_ERRORS = (tarfile.TarError, EOFError, OSError, lzma.LZMAError, zlib.error, ValueError)

_KINDS = {
    tarfile.SYMTYPE: "a symbolic link",
    tarfile.LNKTYPE: "a hard link",
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a FIFO",
}


@dataclass(frozen=True)
class UnpackLimits:
    """How much one archive may unpack to: ``max_bytes`` (the decompressed tar stream),
    ``max_members`` and ``max_ratio`` (unpacked bytes per packed byte, beyond
    :data:`RATIO_FLOOR_BYTES`; its value None for no bound). Each is read from its environment
    variable when made, and the variable, when set, applies to every archive."""

    max_bytes: Limit
    max_members: Limit
    max_ratio: Limit

    @classmethod
    def for_user(cls) -> UnpackLimits:
        """The limits for an archive the user names (``TarDataset``)."""
        return cls._from_environment(*_USER_DEFAULTS)

    @classmethod
    def for_published(cls) -> UnpackLimits:
        """The limits for an archive the package pins by sha256 (CompilerGym's, PyPI's,
        Debian's): large enough for the largest of them."""
        return cls._from_environment(*_PUBLISHED_DEFAULTS)

    @classmethod
    def _from_environment(cls, max_bytes, max_members, max_ratio) -> UnpackLimits:
        return cls(
            Limit.from_environment(MAX_UNPACKED_BYTES_VARIABLE, max_bytes, "bytes"),
            Limit.from_environment(MAX_UNPACKED_MEMBERS_VARIABLE, max_members, "members"),
            Limit.from_environment(MAX_UNPACK_RATIO_VARIABLE, max_ratio, zero_disables=True),
        )


def refuse(label: str, name: str, why: str) -> DatasetInitError:
    """The error for a member that is not unpacked: the archive, the member and why."""
    name = truncate(name, max_line_len=120)  # names may be 1 KiB long
    return DatasetInitError(
        f"{label}: member {name!r} {why}; refused (an archive unpacks to regular files and "
        "folders inside its destination only)"
    )


class _Prefixed:
    """A stream with the bytes already read from its start put back."""

    def __init__(self, head: bytes, raw: BinaryIO):
        self._head = head
        self._raw = raw

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._raw.read(size)
        if size is None or size < 0:
            data, self._head = self._head + self._raw.read(), b""
        else:
            data, self._head = self._head[:size], self._head[size:]
        return data


def _decompressed(raw: BinaryIO, stack: ExitStack) -> BinaryIO:
    """The tar stream inside ``raw``: gzip, bzip2 and xz by their magic bytes, else as is.
    Decompressed here rather than by tarfile so that the decompressed bytes can be counted."""
    head = raw.read(6)
    stream = _Prefixed(head, raw)
    if head.startswith(b"\x1f\x8b"):
        return stack.enter_context(gzip.GzipFile(fileobj=stream, mode="rb"))
    if head.startswith(b"BZh"):
        return stack.enter_context(bz2.BZ2File(stream))
    if head.startswith(b"\xfd7zXZ\x00"):
        return stack.enter_context(lzma.LZMAFile(stream))
    return stream


class _Counted:
    """The decompressed tar stream, counted: reading past ``allowed`` bytes raises."""

    def __init__(self, raw: BinaryIO, limits: UnpackLimits, packed: Optional[int], label: str):
        self._raw = raw
        self._label = label
        self.count = 0
        self.allowed = limits.max_bytes.value if limits.max_bytes.value is not None else 1 << 62
        self._message = limits.max_bytes.exceeded(f"{label} unpacks to more")
        ratio = limits.max_ratio
        if ratio.value is not None and packed is not None:
            by_ratio = max(RATIO_FLOOR_BYTES, int(ratio.value * packed))
            if by_ratio < self.allowed:
                self.allowed = by_ratio
                self._message = (
                    f"{label} unpacks to more than {by_ratio} bytes ({human_bytes(by_ratio)}) "
                    f"from {packed} packed bytes, over {ratio.text} times its size (up to "
                    f"{human_bytes(RATIO_FLOOR_BYTES)}, any ratio is allowed): the limit is "
                    f"${ratio.variable}={ratio.text}; set it higher to allow more"
                )

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.count += len(data)
        if self.count > self.allowed:
            raise DatasetInitError(self._message)
        return data

    def refuse_member(self, name: str, size: int) -> None:
        """Raises before a member is read when its data would pass the bound."""
        if self.count + size > self.allowed:
            raise DatasetInitError(f"{self._message} (member {name!r}: {size} bytes)")


class _OversizedHeader(DatasetInitError):
    """A pax or GNU long-name header over :data:`_MAX_HEADER_BYTES` (the archive is named
    where it is caught)."""


class _BoundedTarInfo(tarfile.TarInfo):
    """tarfile's TarInfo that refuses an oversized pax or GNU long-name header before tarfile
    reads it into memory (``_proc_member`` is tarfile's hook for subclasses)."""

    _META = (
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
    )

    def _proc_member(self, tarfile_):
        if self.type in self._META and self.size > _MAX_HEADER_BYTES:
            raise _OversizedHeader(
                f"a {self.size}-byte extended header (at byte {self.offset}): over "
                f"{human_bytes(_MAX_HEADER_BYTES)}, not a program archive's"
            )
        return super()._proc_member(tarfile_)


def member_parts(name: str, label: str) -> tuple[str, ...]:
    """The path components of a member's name (``()`` for the archive's root, ``.``);
    DatasetInitError for a name that is absolute, climbs out with ``..`` or is too long."""
    if "\0" in name:
        raise refuse(label, name, "has a NUL byte in its name")
    if name.startswith("/"):
        raise refuse(label, name, "has an absolute path")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise refuse(label, name, "climbs out with '..'")
    if len(name.encode()) > _MAX_NAME_BYTES or any(
        len(p.encode()) > _MAX_COMPONENT_BYTES for p in parts
    ):
        raise refuse(label, name, f"has a name over {_MAX_NAME_BYTES} bytes or a part over 255")
    return parts


class TarMembers:
    """The members of an archive opened by :func:`read_tar`, in order: iterating gives each
    ``(member, parts)`` (a ``tarfile.TarInfo`` and :func:`member_parts` of its name), every
    member counted against the limits; :meth:`open` reads the current member's data."""

    def __init__(self, tar: tarfile.TarFile, stream: _Counted, limits: UnpackLimits, label: str):
        self._tar = tar
        self._stream = stream
        self._limits = limits
        self.label = label

    def __iter__(self) -> Iterator[tuple[tarfile.TarInfo, tuple[str, ...]]]:
        count = 0
        max_members = self._limits.max_members
        while True:
            try:
                member = self._tar.next()
            except _OversizedHeader as e:
                raise DatasetInitError(f"{self.label}: {e}") from e
            except DatasetInitError:
                raise
            except _READ_ERRORS as e:
                raise DatasetInitError(f"{self.label} is not a readable tarball: {e}") from e
            if member is None:
                return
            # tarfile keeps every header it has read; an archive of millions would hold GBs.
            self._tar.members.clear()
            count += 1
            if max_members.value is not None and count > max_members.value:
                raise DatasetInitError(max_members.exceeded(f"{self.label} has more"))
            if member.isreg():
                self._stream.refuse_member(member.name, member.size)
            yield member, member_parts(member.name, self.label)

    def open(self, member: tarfile.TarInfo) -> BinaryIO:
        """The data of ``member``, the one the iteration is at (a regular file)."""
        return self._tar.extractfile(member)


@contextmanager
def read_tar(
    source: Union[str, Path, BinaryIO],
    *,
    limits: UnpackLimits,
    label: str,
    packed_size: Optional[int] = None,
) -> Iterator[TarMembers]:
    """Opens a tar archive (a path, or a stream read once from its start; plain, gzip, bzip2 or
    xz) for reading its members in order, within ``limits``: :class:`TarMembers`. ``label``
    names the archive in errors; ``packed_size`` is its size for the ratio bound (a path's
    own size by default)."""
    with ExitStack() as stack:
        if isinstance(source, (str, os.PathLike)):
            raw = stack.enter_context(open(source, "rb"))
            if packed_size is None:
                packed_size = os.fstat(raw.fileno()).st_size
        else:
            raw = source
        try:
            stream = _Counted(_decompressed(raw, stack), limits, packed_size, label)
            tar = stack.enter_context(
                tarfile.open(fileobj=stream, mode="r|", tarinfo=_BoundedTarInfo)
            )
        except _OversizedHeader as e:
            raise DatasetInitError(f"{label}: {e}") from e
        except DatasetInitError:
            raise
        except _READ_ERRORS as e:
            raise DatasetInitError(f"{label} is not a readable tarball: {e}") from e
        yield TarMembers(tar, stream, limits, label)


class _Writer:
    """Writes regular files and folders under ``destination``, following no link."""

    def __init__(self, destination: Path, label: str):
        destination.mkdir(parents=True, exist_ok=True)
        self._label = label
        self._root = os.path.realpath(destination, strict=True)
        self._root_fd = os.open(self._root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._last: tuple[tuple[str, ...], int] = ((), self._root_fd)

    def close(self) -> None:
        """Closes the folders held open."""
        if self._last[1] != self._root_fd:
            os.close(self._last[1])
        os.close(self._root_fd)

    def directory(self, parts: tuple[str, ...], name: str) -> int:
        """A descriptor of the folder ``parts`` (made where missing), reached from the
        destination one folder at a time without following a link; held until the next."""
        if parts == self._last[0]:
            return self._last[1]
        fd = self._root_fd
        try:
            for i, part in enumerate(parts):
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                try:
                    child = os.open(
                        part,
                        os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                        dir_fd=fd,
                    )
                except OSError as e:  # ELOOP (a link), ENOTDIR (a file)
                    where = "/".join(parts[: i + 1])
                    why = f"needs {where!r} as a folder ({e.strerror})"
                    raise refuse(self._label, name, why) from e
                if fd != self._root_fd:
                    os.close(fd)
                fd = child
        except BaseException:
            if fd != self._root_fd:
                os.close(fd)
            raise
        if self._last[1] != self._root_fd:
            os.close(self._last[1])
        self._last = (parts, fd)
        return fd

    def file(self, parts: tuple[str, ...], data: BinaryIO, mode: int, name: str) -> None:
        """Creates the new file ``parts`` with ``data``'s bytes (executable when ``mode``
        has its owner's execute bit)."""
        folder = self.directory(parts[:-1], name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(parts[-1], flags, 0o755 if mode & 0o100 else 0o644, dir_fd=folder)
        except FileExistsError as e:
            why = "is already in the archive, or names a folder"
            raise refuse(self._label, name, why) from e
        except OSError as e:
            raise refuse(self._label, name, f"cannot be created ({e.strerror})") from e
        try:
            while True:
                try:
                    chunk = data.read(_CHUNK_BYTES)
                except DatasetInitError:
                    raise
                except _READ_ERRORS as e:
                    raise DatasetInitError(f"{self._label} is not a readable tarball: {e}") from e
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        self.check(parts, name)

    def check(self, parts: tuple[str, ...], name: str) -> None:
        """Raises unless ``parts`` resolves, every link followed, to itself under the
        destination (after each member: what was written is where it should be)."""
        expected = os.path.join(self._root, *parts)
        try:
            real = os.path.realpath(expected, strict=True)
        except OSError as e:
            raise refuse(self._label, name, f"cannot be resolved ({e.strerror})") from e
        if real != expected:
            raise refuse(self._label, name, f"resolves to {real}, not inside the destination")


def unpack_tar(
    source: Union[str, Path, BinaryIO],
    destination: Path,
    *,
    limits: UnpackLimits,
    label: str,
    select: Optional[Callable[[str], Optional[str]]] = None,
    packed_size: Optional[int] = None,
    desc: Optional[str] = None,
) -> int:
    """Unpacks a tar archive (see :func:`read_tar`) into ``destination`` (made if needed);
    returns the number of files written.

    Without ``select`` every member is unpacked: each must be a regular file or a folder.
    With it, ``select(name)`` (a member's path, e.g. ``pkg-1.0/src/a.c``) says where to write a
    member below ``destination`` (a relative path), or None to skip it; only files are
    selected (folders are made for them), and a selected member must be a regular file.
    DatasetInitError names the member and the reason for anything refused, or the limit and
    its variable for an archive over ``limits``. ``desc`` shows a progress bar of files.
    """
    written = 0
    with ExitStack() as stack:
        members = stack.enter_context(
            read_tar(source, limits=limits, label=label, packed_size=packed_size)
        )
        writer = _Writer(Path(destination), label)
        stack.callback(writer.close)
        bar = stack.enter_context(
            tqdm(
                desc=desc, unit=" files", leave=False, disable=progress_disabled() if desc else True
            )
        )
        for member, parts in members:
            if member.isdir():
                if select is None:
                    writer.directory(parts, member.name)
                    writer.check(parts, member.name)
                continue
            if select is None:
                target = parts
            else:
                chosen = select("/".join(parts))
                if chosen is None:
                    continue
                target = member_parts(chosen, label)
            if member.issparse():
                raise refuse(label, member.name, "is a sparse file")
            if not member.isreg():
                kind = _KINDS.get(member.type, f"of tar type {member.type!r}")
                linked = member.islnk() or member.issym()
                target = truncate(member.linkname, max_line_len=120)
                link = f" to {target!r}" if linked else ""
                raise refuse(label, member.name, f"is {kind}{link}")
            if not target:
                raise refuse(label, member.name, "is a file in place of the destination")
            writer.file(target, members.open(member), member.mode, member.name)
            written += 1
            bar.update()
    return written


__all__ = [
    "MAX_UNPACKED_BYTES_VARIABLE",
    "MAX_UNPACKED_MEMBERS_VARIABLE",
    "MAX_UNPACK_RATIO_VARIABLE",
    "RATIO_FLOOR_BYTES",
    "TarMembers",
    "UnpackLimits",
    "member_parts",
    "read_tar",
    "refuse",
    "unpack_tar",
]
