"""ValidationResult: what validate() found about a state."""

from __future__ import annotations

from dataclasses import dataclass, field

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

    def okay(self) -> bool:
        return not self.errors

    def error_details(self) -> str:
        return "\n".join(self.errors)

    def __str__(self) -> str:
        status = "✅" if self.okay() else "❌"
        return f"{status}  {self.state.benchmark}  {self.error_details()}".rstrip()
