"""StateSummary: what a tool that shows states (the explorer) observes of each, as a family
says it (each family's ``state_summary``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np


@dataclass(frozen=True)
class StateSummary:
    """What a tool that shows states (the explorer) observes of each, as a family says it:

    - ``identity``: observations whose values identify a state (one is used as the state's
      hash itself; several are hashed together);
    - ``headline``: ``(key, label, observation)``, the number shown for each state;
    - ``text``: ``(key, label)`` of the family's ``render_observation``;
    - ``features``: ``(key, title, observation)`` of dict-valued observations to chart;
    - ``unobserved_identity``: reads, from the env, a part of the state that no observation
      shows (loop_tool's select/size mode, which decides what the next action does); None
      where the identity observations say it all;
    - ``feature_names``: returns, by observation, the keys of the ``features`` observations
      that the family's tables fix (in the order a logged vector follows), read without an
      episode; an observation it leaves out has keys that vary with the state.

    A tool computes the identity observations with the step that reaches a state, then
    :meth:`identify`.
    """

    identity: tuple[str, ...]
    headline: tuple[str, str, str]
    text: tuple[str, str]
    features: tuple[tuple[str, str, str], ...] = ()
    unobserved_identity: Optional[Callable[[Any], Any]] = None
    feature_names: Callable[[], dict[str, list[str]]] = dict

    @property
    def spaces(self) -> list[str]:
        """The observations of every state, in the order :meth:`state_hash` and tools read
        them: the identity, the headline, then the features."""
        return [*self.identity, self.headline[2], *(f[2] for f in self.features)]

    def state_hash(self, identity_values: Sequence[Any]) -> str:
        """The hash of identity values: one is the hash itself, several are hashed together."""
        if len(identity_values) == 1:
            return str(identity_values[0])
        text = json.dumps([np.asarray(v).tolist() for v in identity_values])
        return hashlib.sha1(text.encode()).hexdigest()

    def identify(self, env: Any, identity_values: Sequence[Any]) -> str:
        """The hash of the state ``env`` is in, from its identity observations' values and,
        where the family names one, the part of the state they do not show."""
        if self.unobserved_identity is None:
            return self.state_hash(identity_values)
        return self.state_hash([*identity_values, self.unobserved_identity(env)])
