"""CompilerGym's ``compiler_gym.third_party.gccinvocation``: a parser of the command lines of
GCC-like compilers (:mod:`.gccinvocation`). CompilerGym vendored a third-party module; this is
this package's own, with the same API."""

from compiler_gym.third_party.gccinvocation.gccinvocation import GccInvocation, cmdline_to_argv

__all__ = ["GccInvocation", "cmdline_to_argv"]
