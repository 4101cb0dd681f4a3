"""CompilerGym's ``compiler_gym.util.capture_output``: what Python code prints, as strings.

    >>> with capture_output() as out:
    ...     print("hello")
    >>> out.stdout
    'hello\\n'

It replaces ``sys.stdout`` and ``sys.stderr`` for the block, so it captures what Python
writes through them (``print``, ``warnings``, a ``logging.StreamHandler`` made inside the
block), not what C++ code or a subprocess writes to file descriptors 1 and 2.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Union


class CapturedOutput:
    """What a :func:`capture_output` block printed: ``stdout`` and ``stderr`` are buffers
    while the block runs and the text written to each once it has ended."""

    def __init__(self) -> None:
        self.stdout: Union[io.StringIO, str] = io.StringIO()
        self.stderr: Union[io.StringIO, str] = io.StringIO()


@contextlib.contextmanager
def capture_output() -> Iterator[CapturedOutput]:
    """Captures ``sys.stdout`` and ``sys.stderr`` for a ``with`` block; yields a
    :class:`CapturedOutput` that holds their text when the block ends (also on an exception),
    and restores both streams."""
    captured = CapturedOutput()
    stdout, stderr = captured.stdout, captured.stderr
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            yield captured
    finally:
        captured.stdout = stdout.getvalue()
        captured.stderr = stderr.getvalue()


__all__ = ["CapturedOutput", "capture_output"]
