"""Source code from Debian's packages: ``apt-get download`` of a binary package that carries an
upstream source tarball (``gcc-12-source``, ``binutils-source``, ...), and the files chosen
from that tarball streamed out of it. Both archives are read by
:mod:`compiler_gym.util.archive` (limits on size and count, regular files only, nothing
written outside the destination)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Optional

from compiler_gym._engine import _C
from compiler_gym.errors import DatasetInitError
from compiler_gym.util.archive import UnpackLimits, read_tar, unpack_tar


def apt_download(package: str, directory: Path) -> Path:
    """Downloads the newest ``package`` (a ``.deb``) into ``directory`` with ``apt-get
    download``; returns its path. A failure is a :class:`DatasetInitError` saying why."""
    apt_get = shutil.which("apt-get")
    if apt_get is None:
        raise DatasetInitError(f"apt-get download {package} failed: apt-get not found")
    proc = _C.run_sandboxed(
        [apt_get, "download", package], timeout_seconds=600, workdir=str(directory)
    )
    debs = list(directory.glob(f"{package}_*.deb"))
    if not proc["ok"] or not debs:
        stderr = proc["stderr"].decode(errors="replace").strip()
        raise DatasetInitError(
            f"apt-get download {package} failed ({proc['description']}): {stderr}"
        )
    return debs[0]


def unpack_source(
    deb: Path,
    package: str,
    tarball: str,
    destination: Path,
    select: Callable[[str], Optional[str]],
) -> str:
    """Streams the files that ``select`` names (a member's path inside the source tarball ->
    its path below ``destination``, or None to skip it) out of the first tarball in ``deb``
    whose path matches the regular expression ``tarball`` (``usr/src/gcc-12/gcc-.*\\.tar\\.xz``);
    returns that tarball's file name (its version). Neither archive is written whole."""
    try:
        dpkg = subprocess.Popen(
            ["dpkg-deb", "--fsys-tarfile", str(deb)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as e:
        raise DatasetInitError(f"cannot unpack {deb}: {e}") from e
    pattern = re.compile(tarball)
    version = None
    error: Optional[DatasetInitError] = None
    limits = UnpackLimits.for_published()  # Debian's signed package
    try:
        with read_tar(dpkg.stdout, limits=limits, label=deb.name) as members:
            for member, parts in members:
                name = "/".join(parts)
                if not pattern.fullmatch(name):
                    continue
                version = Path(name).name
                unpack_tar(
                    members.open(member),
                    destination,
                    limits=limits,
                    label=f"{deb.name}: {version}",
                    select=select,
                    packed_size=member.size,
                )
                break
    except DatasetInitError as e:
        error = e
    finally:
        dpkg.stdout.close()
        stderr = dpkg.stderr.read().decode(errors="replace")
        dpkg.stderr.close()
        returncode = dpkg.wait()
    if version is None:  # dpkg-deb failed, or the package is not what it should be
        detail = stderr.strip() or (
            str(error) if error else f"no source tarball in it (exit code {returncode})"
        )
        raise DatasetInitError(f"{deb} is not a readable {package} package: {detail}") from error
    if error is not None:
        raise error
    return version
