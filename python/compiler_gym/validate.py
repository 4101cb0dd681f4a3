"""compiler_gym.validate_states: many recorded states validated in parallel."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, as_completed, wait
from typing import Optional

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.validation_result import ValidationResult


def validate_states(
    make_env: Callable[[], CompilerEnv],
    states: Iterable[CompilerEnvState],
    nproc: Optional[int] = None,
    inorder: bool = False,
    sanitizers: Iterable[str] = (),
) -> Iterator[ValidationResult]:
    """Validates each state (:meth:`CompilerEnv.validate`) on ``nproc`` threads (default:
    the CPU count), each with an env of its own from ``make_env()``; the engine releases the
    GIL, so replays run in parallel. Yields results as they finish, or in the order of
    ``states`` with ``inorder``."""
    nproc = nproc or os.cpu_count() or 1
    sanitizers = tuple(sanitizers)
    local = threading.local()
    envs: list[CompilerEnv] = []
    lock = threading.Lock()

    def validate(state: CompilerEnvState) -> ValidationResult:
        if not hasattr(local, "env"):
            local.env = make_env()
            with lock:
                envs.append(local.env)
        return local.env.validate(state, sanitizers=sanitizers)

    try:
        with ThreadPoolExecutor(max_workers=nproc) as pool:
            pending = iter(states)
            running: list = []
            # At most 2 * nproc states in flight, so a long (or infinite) input streams.
            for state in pending:
                running.append(pool.submit(validate, state))
                if len(running) >= 2 * nproc:
                    if inorder:
                        yield running.pop(0).result()
                    else:
                        done, _ = wait(running, return_when=FIRST_COMPLETED)
                        for future in [f for f in running if f in done]:
                            running.remove(future)
                            yield future.result()
            for future in running if inorder else as_completed(running):
                yield future.result()
    finally:
        for env in envs:
            env.close()
