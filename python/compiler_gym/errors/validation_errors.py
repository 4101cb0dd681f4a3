"""CompilerGym's ``compiler_gym.errors.validation_errors``: :class:`ValidationError`, one
problem that validation found (not an exception: a record in a ``ValidationResult``)."""

from compiler_gym.validation_error import ValidationError

__all__ = ["ValidationError"]
