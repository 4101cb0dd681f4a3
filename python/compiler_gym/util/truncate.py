"""Shortening text for display."""

from __future__ import annotations

from collections.abc import Iterable


def truncate_lines(
    lines: Iterable[str], max_line_len: int = 60, max_lines: int = 1, tail: bool = False
) -> list[str]:
    """At most ``max_lines`` lines (the last ones with ``tail``), each cut to
    ``max_line_len`` characters; ``...`` marks what was cut."""
    if max_line_len < 4 or max_lines < 1:
        raise ValueError("max_line_len must be at least 4 and max_lines at least 1")
    lines = list(lines)
    cut = len(lines) > max_lines
    lines = lines[-max_lines:] if tail else lines[:max_lines]
    out = [
        line if len(line) <= max_line_len else line[: max_line_len - 3] + "..." for line in lines
    ]
    if cut and tail:  # the first kept line says lines came before it
        first = lines[0]
        out[0] = "..." + (first if len(first) <= max_line_len - 3 else first[3 - max_line_len :])
    elif cut:  # the last kept line says lines come after it
        last = lines[-1]
        out[-1] = (last if len(last) <= max_line_len - 3 else last[: max_line_len - 3]) + "..."
    return out


def truncate(string: str, max_line_len: int = 60, max_lines: int = 1, tail: bool = False) -> str:
    """``string`` cut to ``max_lines`` lines of at most ``max_line_len`` characters."""
    return "\n".join(truncate_lines(str(string).split("\n"), max_line_len, max_lines, tail))
