"""CompilerGym's ``compiler_gym.util.commands``: subprocesses that do not outlive their caller.

    >>> run_command(["clang", "--version"], timeout=60)   # stdout, or OSError on failure
    >>> with Popen(["opt", ...], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as process:
    ...     stdout, _ = communicate(process, input=ir, timeout=60)

A process that is still running when the ``with`` block ends (or when ``communicate`` times
out) is killed with SIGKILL, together with its process group when it leads one
(``start_new_session=True`` or ``process_group=0``), so that a shell's children go too. A
group whose leader has already exited is left alone: its id may no longer be the caller's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any, Optional

from compiler_gym.util.shell_format import join_cmd

# How long to wait for a killed process to be reaped before giving up on it.
_REAP_TIMEOUT_SECONDS = 60


def _kill(process: subprocess.Popen) -> None:
    """Kills ``process`` (and its process group when it leads one) and reaps it; a process
    that is still not gone after a minute (stuck in the kernel) is left behind."""
    if process.poll() is not None:  # already reaped: its pid may belong to another process
        return
    try:
        if os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:  # reaped by another thread meanwhile
        pass
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_REAP_TIMEOUT_SECONDS)


def communicate(
    process: subprocess.Popen, input: Any = None, timeout: Optional[float] = None
) -> tuple[Any, Any]:
    """``process.communicate(input, timeout)``; on a timeout the process is killed (see the
    module's docstring) before ``subprocess.TimeoutExpired`` is raised."""
    try:
        return process.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        raise


@contextlib.contextmanager
def Popen(*args: Any, **kwargs: Any) -> Iterator[subprocess.Popen]:
    """``subprocess.Popen(*args, **kwargs)`` for a ``with`` block: a process still running
    when the block ends, also on an exception, is killed (see the module's docstring)."""
    with subprocess.Popen(*args, **kwargs) as process:
        try:
            yield process
        finally:
            _kill(process)


def run_command(cmd: Sequence[str], timeout: Optional[float]) -> str:
    """Runs ``cmd`` and returns its stdout as text. ``OSError`` naming the command, its exit
    status (with the signal's name when a signal ended it) and its stderr when it fails;
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds, with the command and whatever it
    started killed (it runs in a session, and so a process group, of its own)."""
    with Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    ) as process:
        stdout, stderr = communicate(process, timeout=timeout)
    if process.returncode:
        status = str(process.returncode)
        if process.returncode < 0:
            with contextlib.suppress(ValueError):
                status += f" ({signal.Signals(-process.returncode).name})"
        raise OSError(
            f"Command failed with returncode {status}\n"
            f"Command: {join_cmd(cmd)}\n"
            f"Stderr: {stderr.strip()}"
        )
    return stdout


__all__ = ["Popen", "communicate", "run_command"]
