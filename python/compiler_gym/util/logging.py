"""CompilerGym's ``compiler_gym.util.logging``: one call that makes a script's log messages
appear, as ``init_logging(logging.INFO)`` at the start of ``main``.

(The package's own ``compiler_gym`` logger follows ``$COMPILER_GYM_DEBUG``; see
:mod:`compiler_gym.util.debug_util`.)
"""

from __future__ import annotations

import logging
import sys
from typing import Optional

_FORMAT = "%(asctime)s %(name)s] %(message)s"
_DATE_FORMAT = "%m%d %H:%M:%S"


class _ScriptHandler(logging.StreamHandler):
    """The handler init_logging adds (so that a second call replaces it)."""


def init_logging(level: int = logging.INFO, logger: Optional[logging.Logger] = None) -> None:
    """Sends the messages of ``logger`` (default: the root logger) at ``level`` and above to
    stdout, one line each (``MMDD HH:MM:SS name] message``). Calling it again changes the level
    and does not print every message twice."""
    logger = logger or logging.getLogger()
    logger.setLevel(level)
    for handler in [h for h in logger.handlers if isinstance(h, _ScriptHandler)]:
        logger.removeHandler(handler)
    handler = _ScriptHandler(sys.stdout)
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter(fmt=_FORMAT, datefmt=_DATE_FORMAT))
    logger.addHandler(handler)


__all__ = ["init_logging"]
