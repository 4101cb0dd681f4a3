"""What the command-line tools share."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from compiler_gym.errors import ServiceError


def user_errors(main: Callable[..., int]) -> Callable[..., int]:
    """Wraps a tool's ``main``: a mistake in its input (an unknown name, a bad value, a file it
    cannot read or write, a missing optional package, a service that failed) is one
    ``error: ...`` line on stderr and exit status 2, not a traceback."""

    @functools.wraps(main)
    def run(*args, **kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except (LookupError, ValueError, OSError, ImportError, ServiceError) as e:
            # A KeyError's str() is its repr: say the message itself.
            message = e.args[0] if isinstance(e, KeyError) and e.args else e
            print(f"error: {message}", file=sys.stderr)
            return 2

    return run
