"""What an env is made with when its maker does not say: settings read from the process's
environment variables, shared by ``make`` (CompilerEnv) and ``make_vec`` (the vector engine)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Optional

from compiler_gym.util.names import did_you_mean


def default_isolation() -> str:
    """Where environments run when ``isolation`` is not given: ``$COMPILER_GYM_ISOLATION``,
    else ``"none"`` (in this process)."""
    return os.environ.get("COMPILER_GYM_ISOLATION", "none")


#: The environment variable that names the action space envs start in when made without
#: ``action_space=`` (where they have a space of that name): the explicit choice that runs a
#: script's passes of an opt-in space (LLVM's ``PassesAllUnsound``) by name, unchanged.
ACTION_SPACE_VARIABLE = "COMPILER_GYM_ACTION_SPACE"


def default_action_space(names: Sequence[str]) -> Optional[str]:
    """The action space an env with action spaces ``names`` starts in when none is given:
    ``$COMPILER_GYM_ACTION_SPACE`` where it names one of them, else None (the id's first).
    A name close to one of them but not one is a ``LookupError``, not silently ignored; an
    env with no space near that name (another family's) ignores it."""
    name = os.environ.get(ACTION_SPACE_VARIABLE, "").strip()
    if not name or name in names:
        return name or None
    hint = did_you_mean(name, names)
    if hint:
        raise LookupError(f"Unknown action space ${ACTION_SPACE_VARIABLE}={name!r}{hint}")
    return None
