"""ValidationError: one problem that a benchmark's validation callback found."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ValidationError:
    """One problem a benchmark's validation callback found (CompilerGym's): a short ``type``
    (e.g. ``"Runtime crash"``) and the JSON-serializable ``data`` that shows it. Errors sort
    by type, then data, so that results can be compared regardless of their order."""

    type: str
    data: dict = field(default_factory=dict, hash=False, compare=True)

    def dict(self) -> dict:
        """The error as a dict: ``{"type": ..., "data": {...}}``."""
        return {"type": self.type, "data": dict(self.data)}

    def json(self) -> str:
        """The error as a JSON object (CompilerGym's form); data that JSON cannot hold is
        written as its string."""
        return json.dumps(self.dict(), default=str)

    def __lt__(self, other) -> bool:
        if not isinstance(other, ValidationError):
            return NotImplemented
        return (self.type, _sort_key(self.data)) < (other.type, _sort_key(other.data))

    def __str__(self) -> str:
        return f"{self.type}: {json.dumps(self.data, default=str)}" if self.data else self.type


def _sort_key(data: dict) -> str:
    return json.dumps(data, sort_keys=True, default=str)
