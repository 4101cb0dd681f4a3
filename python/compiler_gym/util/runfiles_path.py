"""CompilerGym's ``compiler_gym.util.runfiles_path`` module: the paths of
:mod:`compiler_gym.util.runfiles`, and timestamped log directories for scripts.

    >>> logs = create_user_logs_dir("my_experiment")  # ~/logs/compiler_gym/my_experiment/...
    >>> with tempfile.TemporaryDirectory(dir=transient_cache_path(".")) as d: ...
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path
from typing import Optional, Union

from compiler_gym.util.runfiles import (
    cache_path,
    runfiles_path,
    site_data_path,
    transient_cache_path,
)

# CompilerGym's variable and default for the root of create_user_logs_dir().
_LOGS_VARIABLE = "COMPILER_GYM_LOGS"
_DEFAULT_LOGS_DIR = "~/logs/compiler_gym"
# One directory per second, as CompilerGym names them.
_TIMESTAMP_FORMAT = "%Y-%m-%d/%H-%M-%S"


def create_user_logs_dir(name: str, dir: Optional[Union[str, Path]] = None) -> Path:
    """Makes a new directory for a run's logs, ``<base>/<name>/YYYY-MM-DD/HH-MM-SS``, and
    points the symlink ``<base>/<name>/latest`` at it. ``<base>`` is ``$COMPILER_GYM_LOGS``,
    else ``dir``, else ``~/logs/compiler_gym``. Directories are unique: a call in a second that
    already has one waits for the next second."""
    if not str(name) or Path(name).is_absolute() or ".." in Path(name).parts:
        raise ValueError(f"a logs directory name is a relative path inside the base, not {name!r}")
    base = Path(os.environ.get(_LOGS_VARIABLE) or dir or _DEFAULT_LOGS_DIR).expanduser()
    group = base / name
    while True:
        stamp = datetime.now().strftime(_TIMESTAMP_FORMAT)
        logs_dir = group / stamp
        try:
            # mkdir is atomic, so threads and processes never share a directory.
            logs_dir.mkdir(parents=True, exist_ok=False)
            break
        except FileExistsError:
            time.sleep(0.1)
    # Replace "latest" in one rename, so a reader never finds it missing.
    latest = group / "latest"
    staging = group / f".latest.{os.getpid()}.{time.monotonic_ns()}"
    os.symlink(stamp, staging)
    os.replace(staging, latest)
    return logs_dir


__all__ = [
    "cache_path",
    "create_user_logs_dir",
    "runfiles_path",
    "site_data_path",
    "transient_cache_path",
]
