"""The package's debug level (CompilerGym's ``compiler_gym.util.debug_util``).

``$COMPILER_GYM_DEBUG`` sets it, as in CompilerGym: 0 (the default) errors only, 1 warnings,
2 info, 3 and more debug messages of the ``compiler_gym`` logger, on stderr (from level 1 the
package adds its own handler; at 0 errors go wherever the application's logging sends them).
"""

from __future__ import annotations

import logging
import os

_VARIABLE = "COMPILER_GYM_DEBUG"
_LOGGING_LEVELS = (logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG)
_LOGGER = logging.getLogger("compiler_gym")
_handler: logging.Handler | None = None


def get_debug_level() -> int:
    """The debug level: ``$COMPILER_GYM_DEBUG`` as an integer, 0 when unset or not one."""
    try:
        return max(int(os.environ.get(_VARIABLE, "").strip()), 0)
    except ValueError:
        return 0


def get_logging_level() -> int:
    """The :mod:`logging` level of the debug level: ERROR, WARNING, INFO, DEBUG for 0-3+."""
    return _LOGGING_LEVELS[min(get_debug_level(), len(_LOGGING_LEVELS) - 1)]


def set_debug_level(level: int) -> None:
    """Sets the debug level of this process and of the processes it starts (through
    ``$COMPILER_GYM_DEBUG``). As in CompilerGym, any integer is accepted and reads back
    clamped: a negative level is 0, and every level from 3 up logs debug messages.
    ``ValueError`` for a level that is not an integer."""
    if isinstance(level, bool) or int(level) != level:
        raise ValueError(f"a debug level is an integer, not {level!r}")
    os.environ[_VARIABLE] = str(int(level))
    configure_logging()


def configure_logging() -> None:
    """Applies the debug level to the ``compiler_gym`` logger (the package does on import)."""
    global _handler
    level = get_debug_level()
    _LOGGER.setLevel(get_logging_level())
    if level == 0:  # errors reach the application's handlers (or Python's last resort)
        if _handler is not None:
            _LOGGER.removeHandler(_handler)
            _handler = None
    elif _handler is None:
        _handler = logging.StreamHandler()
        _handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        _LOGGER.addHandler(_handler)


__all__ = [
    "configure_logging",
    "get_debug_level",
    "get_logging_level",
    "set_debug_level",
]
