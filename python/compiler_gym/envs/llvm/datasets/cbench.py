"""CompilerGym's ``compiler_gym.envs.llvm.datasets.cbench``: the cBench datasets, and the
record of a run and the check of ``sha``'s output that CompilerGym's module held. (Validation
here runs each program against its unoptimized build: see
:mod:`compiler_gym.datasets.compilergym_llvm`.)"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional

from compiler_gym.datasets.compilergym_llvm import CBenchDataset


class BenchmarkExecutionResult(NamedTuple):
    """One run of a benchmark: how long it took, the error it met (if any), and what it
    printed."""

    walltime_seconds: float
    error: Optional[Any] = None
    output: Optional[str] = None

    def json(self) -> dict[str, Any]:
        """The fields as a dict."""
        return self._asdict()


# sha prints five digests in hexadecimal, each up to 16 digits (a leading zero is dropped).
# Further lines may follow the first.
_SHA_OUTPUT = re.compile(r"[0-9a-f]{0,16}(?: [0-9a-f]{0,16}){4}(?:\s|$)")


def validate_sha_output(result: BenchmarkExecutionResult) -> Optional[str]:
    """None when ``result.output`` has the shape of ``sha``'s output (five hexadecimal
    words), else what is wrong."""
    output = result.output
    if isinstance(output, bytes):
        try:
            output = output.decode("utf-8")
        except UnicodeDecodeError:
            return "Failed to parse unicode output"
    if output is None or not _SHA_OUTPUT.match(output.rstrip()):
        return "Failed to parse hex output"
    return None


__all__ = ["BenchmarkExecutionResult", "CBenchDataset", "validate_sha_output"]
