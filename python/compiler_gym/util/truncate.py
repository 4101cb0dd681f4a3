"""Shortening text for display (CompilerGym's ``compiler_gym.util.truncate``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from itertools import islice


def truncate_lines(
    lines: Iterable[str], max_line_len: int = 60, max_lines: int = 1, tail: bool = False
) -> str:
    """The first ``max_lines`` lines (the last ones with ``tail``) joined into one string,
    each cut to ``max_line_len`` characters with ``...``. As in CompilerGym, when lines
    were left off after the kept ones, the last kept line ends with ``...``; ``tail`` leaves
    no such mark. ``lines`` may be any iterable (a generator is read only as far as needed).
    ``ValueError`` when ``max_line_len`` is 3 or less."""
    if max_line_len <= 3:
        raise ValueError("max_line_len must be greater than 3")

    def cut(line: str) -> str:
        return line if len(line) <= max_line_len else line[: max_line_len - 3] + "..."

    lines = iter(lines)
    kept = list(deque(lines, max_lines) if tail else islice(lines, max_lines))
    out = [cut(str(line)) for line in kept]
    if out and next(lines, None) is not None:
        out[-1] = cut(out[-1] + "...")
    return "\n".join(out)


def truncate(string: str, max_line_len: int = 60, max_lines: int = 1, tail: bool = False) -> str:
    """``string`` cut to ``max_lines`` lines of at most ``max_line_len`` characters (see
    :func:`truncate_lines`)."""
    return truncate_lines(str(string).split("\n"), max_line_len, max_lines, tail)
