"""CompilerGym's ``compiler_gym.wrappers.commandline``: the command-line action-space wrappers.
Re-exported from :mod:`compiler_gym.wrappers.core`."""

from compiler_gym.wrappers.core import CommandlineWithTerminalAction, ConstrainedCommandline

__all__ = ["CommandlineWithTerminalAction", "ConstrainedCommandline"]
