"""Timing a block of code, and durations for people to read."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Optional


def humanize_duration(seconds: float) -> str:
    """A duration with a unit that suits it: ``850.0us``, ``12.3ms``, ``4.5s``, ``3m 20s``,
    ``2h 05m``."""
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    if seconds < 1e-3:
        text = f"{seconds * 1e6:.1f}us"
    elif seconds < 1:
        text = f"{seconds * 1e3:.1f}ms"
    elif seconds < 60:
        text = f"{seconds:.1f}s"
    elif seconds < 3600:
        text = f"{int(seconds // 60)}m {int(seconds % 60):02d}s"
    else:
        text = f"{int(seconds // 3600)}h {int(seconds % 3600 // 60):02d}m"
    return sign + text


def humanize_duration_hms(seconds: float) -> str:
    """A duration as ``H:MM:SS``."""
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Timer:
    """Times a ``with`` block: ``with Timer("compile") as t: ...`` prints ``compile in
    1.2s`` at the end (through ``print_fn``) when given a label; ``t.time`` holds the seconds."""

    def __init__(
        self,
        label: Optional[str] = None,
        print_fn: Callable[[str], None] = print,
        hms: bool = False,
    ):
        self.label = label
        self.print_fn = print_fn
        self.hms = hms
        self.time: Optional[float] = None
        self._start: Optional[float] = None

    def reset(self) -> Timer:
        """Starts timing again."""
        self.time = None
        self._start = time.perf_counter()
        return self

    def __enter__(self) -> Timer:
        return self.reset()

    def __exit__(self, *args) -> None:
        self.time = time.perf_counter() - self._start
        if self.label:
            self.print_fn(f"{self.label} in {self}")

    def __str__(self) -> str:
        if self.time is None:
            return "(running)"
        return humanize_duration_hms(self.time) if self.hms else humanize_duration(self.time)
