"""ValidationResult: what validate() found about a state."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Union

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.util.truncate import truncate
from compiler_gym.validation_error import ValidationError

# What validate() reports is a message; a result made by hand may hold CompilerGym's records.
Error = Union[str, ValidationError]

# Fields that say what was checked and what failed: compared by ==, or-ed by join().
_FLAGS = (
    "reward_validated",
    "benchmark_semantics_validated",
    "actions_replay_failed",
    "reward_validation_failed",
    "benchmark_semantics_validation_failed",
    "benchmark_run_failed",
)


@dataclass(eq=False)
class ValidationResult:
    """The outcome of replaying a state: ``okay()`` when nothing went wrong.

    Two results are equal when their states, flags and errors are, whatever their walltimes
    and the order of their errors (CompilerGym's equality). ``str(result)`` is CompilerGym's
    one line: ``✅  cbench-v1/crc32  1.0500`` (the URI without ``benchmark://``, the state's
    reward when it has one) or ``❌  cbench-v1/crc32  <the errors, cut to 50 characters>``.
    """

    state: CompilerEnvState
    walltime: float
    reward_validated: bool = False
    # The replayed program was run and behaved like the unoptimized one (or errors say how not).
    benchmark_semantics_validated: bool = False
    errors: list[Error] = field(default_factory=list)
    # What failed (CompilerGym's fields): the replay itself (a bad command line, a compiler
    # error), the reward, or the program's behaviour.
    actions_replay_failed: bool = False
    reward_validation_failed: bool = False
    benchmark_semantics_validation_failed: bool = False
    # Not one of CompilerGym's: the benchmark's program cannot be built or run, not even
    # unoptimized (errors say why), so its behaviour was not compared. That is the
    # benchmark's fault, not the state's: the replay and the reward are checked all the same.
    benchmark_run_failed: bool = False

    def __post_init__(self):
        # What json() wrote reads back, as CompilerGym's pydantic model parsed it:
        # ValidationResult(**json.loads(result.json())) == result.
        if isinstance(self.state, dict):
            self.state = CompilerEnvState(**self.state)
        self.errors = [_error_of(e) for e in self.errors]

    def okay(self) -> bool:
        """True when the replay found nothing wrong (a program that cannot run is not
        okay: its behaviour could not be checked)."""
        return not self.errors

    @property
    def error_details(self) -> str:
        """The errors, one per line."""
        return "\n".join(map(str, self.errors))

    def dict(self) -> dict:
        """The result as a dict (the state as :meth:`CompilerEnvState.dict`, a
        :class:`ValidationError` as ``{"type", "data"}``)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["state"] = self.state.dict()
        out["errors"] = [_error_dict(e) for e in self.errors]
        return out

    def json(self) -> str:
        """The result as a JSON object."""
        return json.dumps(self.dict(), default=str)

    def __eq__(self, other) -> bool:
        if not isinstance(other, ValidationResult):
            return False
        return (
            self.state == other.state
            and all(getattr(self, name) == getattr(other, name) for name in _FLAGS)
            and _sorted_errors(self.errors) == _sorted_errors(other.errors)
        )

    def __ne__(self, other) -> bool:
        return not self == other

    def __str__(self) -> str:
        benchmark = re.sub(r"^benchmark://", "", str(self.state.benchmark))
        if not self.okay():
            message = ", ".join(self.error_details.strip().split("\n"))
            return f"❌  {benchmark}  {truncate(message, max_lines=1, max_line_len=50)}"
        if self.state.reward is None:
            return f"✅  {benchmark}"
        return f"✅  {benchmark}  {self.state.reward:.4f}"

    @classmethod
    def join(cls, results: Iterable[ValidationResult]) -> ValidationResult:
        """One result of several validations of the same state (CompilerGym's): the sum of
        their walltimes, each flag set when any result sets it, and all their errors.
        ``ValueError`` when there are no results or their states differ."""
        results = list(results)
        if not results:
            raise ValueError("No states to join")
        if any(r.state != results[0].state for r in results[1:]):
            raise ValueError("All states must be the same")
        return cls(
            state=results[0].state,
            walltime=sum(r.walltime for r in results),
            errors=[e for r in results for e in r.errors],
            **{name: any(getattr(r, name) for r in results) for name in _FLAGS},
        )


def _error_of(error):
    """A ``{"type", "data"}`` dict (a :class:`ValidationError` as JSON) as the record it was."""
    if isinstance(error, dict) and set(error) == {"type", "data"}:
        return ValidationError(**error)
    return error


def _error_dict(error: Error):
    return error.dict() if isinstance(error, ValidationError) else error


def _sorted_errors(errors: list[Error]) -> list[str]:
    return sorted(json.dumps(_error_dict(e), sort_keys=True, default=str) for e in errors)
