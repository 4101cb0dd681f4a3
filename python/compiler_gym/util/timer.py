"""Timing a block of code, and durations for people to read (CompilerGym's
``compiler_gym.util.timer``, with its formats)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Optional


def humanize_duration(seconds: float) -> str:
    """A duration with the unit that suits it, as CompilerGym writes it: ``500.0ns``,
    ``11.9us``, ``5.5ms``, ``5.000s`` under a minute, ``500.1s`` from a minute up."""
    value = abs(seconds)
    sign = "-" if seconds < 0 else ""
    if value < 1e-6:
        return f"{sign}{value * 1e9:.1f}ns"
    if value < 1e-3:
        return f"{sign}{value * 1e6:.1f}us"
    if value < 1:
        return f"{sign}{value * 1e3:.1f}ms"
    if value < 60:
        return f"{sign}{value:.3f}s"
    return f"{sign}{value:.1f}s"


def humanize_duration_hms(seconds: float) -> str:
    """A duration as ``H:MM:SS``, whole seconds (a fraction is dropped, as in CompilerGym)."""
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Timer:
    """Times a ``with`` block: ``with Timer("compile") as t: ...`` prints ``compile in
    1.200s`` at the end (through ``print_fn``) when given a label.

    ``t.time`` is the seconds elapsed: 0 before the timer starts, the running time inside
    the block, and the block's duration, fixed, after it.
    """

    def __init__(
        self,
        label: Optional[str] = None,
        print_fn: Callable[[str], None] = print,
    ):
        self.label = label
        self.print_fn = print_fn
        self._start: Optional[float] = None
        self._elapsed: Optional[float] = None

    @property
    def time(self) -> float:
        """Seconds elapsed (see the class)."""
        if self._elapsed is not None:
            return self._elapsed
        if self._start is not None:
            return time.perf_counter() - self._start
        return 0

    def reset(self) -> Timer:
        """Starts timing again."""
        self._elapsed = None
        self._start = time.perf_counter()
        return self

    def __enter__(self) -> Timer:
        return self.reset()

    def __exit__(self, *args) -> None:
        self._elapsed = time.perf_counter() - self._start
        if self.label:
            self.print_fn(f"{self.label} in {self}")

    def __str__(self) -> str:
        return humanize_duration(self.time)
