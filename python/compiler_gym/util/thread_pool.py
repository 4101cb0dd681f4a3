"""CompilerGym's ``compiler_gym.util.thread_pool``: one thread pool for the process's parallel
work in Python (installing datasets probes benchmarks on it). The engine's own parallelism is
oneTBB's, in C++; these threads mostly wait on it with the GIL released."""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor


@functools.cache
def get_thread_pool_executor() -> ThreadPoolExecutor:
    """The process's thread pool, one thread per CPU, made on first use and shared."""
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="compiler_gym")
