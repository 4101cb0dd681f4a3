"""CompilerGym's ``compiler_gym.errors.validation_errors``: :class:`ValidationError`, one
problem that validation found (not an exception: a record in a ``ValidationResult``); and what
a search that validates in the loop says when its program cannot be checked."""

from compiler_gym.validation_error import ValidationError


class ValidationUnavailableWarning(UserWarning):
    """A search that validates in the loop found that its program cannot be checked (its
    unoptimized build fails in the sandbox, or its start state behaves unlike it): it searches
    without validation, and its ``progress.validation`` says why."""


class ValidationUnavailableError(ValueError):
    """A search with ``on_unrunnable="raise"`` found that its program cannot be checked (see
    :class:`ValidationUnavailableWarning`): it stopped before searching."""


__all__ = ["ValidationError", "ValidationUnavailableError", "ValidationUnavailableWarning"]
