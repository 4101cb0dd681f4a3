"""CompilerGym's ``compiler_gym.util.filesystem``: writing files atomically, and questions about
paths.

    >>> with atomic_file_write(Path("results.csv"), fileobj=True, mode="w") as f:
    ...     f.write("benchmark,reward\\n")      # readers see the old file or the whole new one
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Union

from compiler_gym.util.runfiles import (
    atomic_file_write,
    cache_path,
    site_data_path,
    transient_cache_path,
)

# File systems that live in memory (the kernel's names, as /proc/self/mounts gives them).
_IN_MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
# /proc/self/mounts writes a space, tab, newline or backslash in a path as an octal escape.
_MOUNTS_ESCAPE = re.compile(r"\\([0-7]{3})")


def get_storage_paths() -> list[Path]:
    """The directories where compiler_gym stores files, sorted: the cache, the transient cache
    and the site data (see :mod:`compiler_gym.util.runfiles`)."""
    return sorted({cache_path("."), transient_cache_path("."), site_data_path(".")})


def is_within_directory(directory: Union[str, Path], target: Union[str, Path]) -> bool:
    """Whether ``target`` is ``directory`` or lies under it, comparing absolute paths
    lexically (``..`` is resolved, symbolic links are not)."""
    directory, target = os.path.abspath(directory), os.path.abspath(target)
    return os.path.commonpath([directory, target]) == directory


def is_in_memory(path: Union[str, Path]) -> bool:
    """Whether ``path`` (existing or not) is on a file system kept in memory (tmpfs or ramfs,
    such as ``/dev/shm``), by the mount table of this process. Without one to read, whether it
    is under ``/dev/shm``."""
    path = os.path.realpath(path)
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return is_within_directory("/dev/shm", path)
    mountpoint, filesystem = "", ""
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = _MOUNTS_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), fields[1])
        # The longest mount point holding the path; of equal ones the last, mounted on top.
        if len(point) >= len(mountpoint) and is_within_directory(point, path):
            mountpoint, filesystem = point, fields[2]
    return filesystem in _IN_MEMORY_FILESYSTEMS


__all__ = ["atomic_file_write", "get_storage_paths", "is_in_memory", "is_within_directory"]
