"""CompilerGym's ``compiler_gym.util.parallelization``: ``itertools.tee`` for iterators that
several threads read at once.

    >>> a, b = thread_safe_tee(benchmarks)   # each thread may advance either copy
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Iterator
from typing import Any


class _ThreadSafeTee(Iterator):
    """One copy of a :func:`thread_safe_tee`: ``next`` holds the lock the copies share, as
    ``itertools.tee``'s copies share a buffer that is not safe to advance concurrently."""

    def __init__(self, tee: Iterator, lock: threading.Lock):
        self._tee = tee
        self._lock = lock

    def __next__(self) -> Any:
        with self._lock:
            return next(self._tee)

    def __copy__(self) -> _ThreadSafeTee:
        with self._lock:
            return _ThreadSafeTee(self._tee.__copy__(), self._lock)


def thread_safe_tee(iterable: Iterable[Any], n: int = 2) -> tuple[Iterator[Any], ...]:
    """``itertools.tee(iterable, n)``: ``n`` independent iterators over ``iterable``'s items,
    except that any thread may advance any of them at any time (one lock serializes them, and
    the source iterator is only ever advanced under it)."""
    lock = threading.Lock()
    return tuple(_ThreadSafeTee(tee, lock) for tee in itertools.tee(iterable, n))


__all__ = ["thread_safe_tee"]
