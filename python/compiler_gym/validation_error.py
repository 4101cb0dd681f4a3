"""ValidationError: one problem that a benchmark's validation callback found."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ValidationError:
    """One problem a benchmark's validation callback found (CompilerGym's): a short ``type``
    and the ``data`` that shows it."""

    type: str
    data: dict = field(default_factory=dict, hash=False, compare=True)

    def __str__(self) -> str:
        return f"{self.type}: {json.dumps(self.data, default=str)}" if self.data else self.type
