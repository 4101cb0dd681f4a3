"""ValidationResult: what validate() found about a state."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields

from compiler_gym.compiler_env_state import CompilerEnvState


@dataclass
class ValidationResult:
    """The outcome of replaying a state: ``okay()`` when nothing went wrong."""

    state: CompilerEnvState
    walltime: float
    reward_validated: bool = False
    # The replayed program was run and behaved like the unoptimized one (or errors say how not).
    benchmark_semantics_validated: bool = False
    errors: list[str] = field(default_factory=list)
    # What failed (CompilerGym's fields): the replay itself (a bad command line, a compiler
    # error), the reward, or the program's behaviour.
    actions_replay_failed: bool = False
    reward_validation_failed: bool = False
    benchmark_semantics_validation_failed: bool = False
    # Not one of CompilerGym's: the benchmark's program cannot be built or run, not even
    # unoptimized (errors say why), so its behaviour was not compared. That is the
    # benchmark's fault, not the state's: the replay and the reward are checked all the same.
    benchmark_run_failed: bool = False

    def okay(self) -> bool:
        """True when the replay found nothing wrong (a program that cannot run is not
        okay: its behaviour could not be checked)."""
        return not self.errors

    @property
    def error_details(self) -> str:
        """The errors, one per line."""
        return "\n".join(self.errors)

    def dict(self) -> dict:
        """The result as a dict (the state as :meth:`CompilerEnvState.dict`)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["state"] = self.state.dict()
        return out

    def json(self) -> str:
        """The result as a JSON object."""
        return json.dumps(self.dict())

    def __str__(self) -> str:
        status = "✅" if self.okay() else "❌"
        return f"{status}  {self.state.benchmark}  {self.error_details}".rstrip()
