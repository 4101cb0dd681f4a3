"""Errors of the compiler engine and of environments used out of order."""


class ServiceError(Exception):
    """An error inside the compiler service (a crashing pass, a failed codegen, ...)."""


class SessionNotFound(ServiceError):
    """The call needs an episode in progress: call ``reset()`` first."""


class ServiceIsClosed(ServiceError):
    """The environment was closed: make another."""


class EnvironmentNotSupported(ServiceError):
    """This machine cannot run the environment (e.g. a CUDA benchmark without a GPU)."""
