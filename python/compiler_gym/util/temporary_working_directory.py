"""CompilerGym's ``compiler_gym.util.temporary_working_directory``: run a block of code in
another working directory.

    >>> with temporary_working_directory() as d:  # a new, empty directory
    ...     Path("out.txt").write_text("...")     # d / "out.txt", removed with d
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Optional, Union


@contextlib.contextmanager
def temporary_working_directory(directory: Optional[Union[str, Path]] = None) -> Iterator[Path]:
    """Changes the working directory to ``directory`` for a ``with`` block and yields it; without
    one, to a new temporary directory that is deleted afterwards. The previous working directory
    comes back when the block ends, also on an exception. The working directory belongs to the
    process: other threads see the change too."""
    previous = os.getcwd()
    try:
        if directory:
            os.chdir(directory)
            yield Path(directory)
        else:
            with tempfile.TemporaryDirectory(prefix="compiler_gym-") as d:
                os.chdir(d)
                yield Path(d)
    finally:
        os.chdir(previous)


__all__ = ["temporary_working_directory"]
