"""Errors of the compiler engine and of environments used out of order."""


class ServiceError(Exception):
    """An error inside the compiler service (a crashing pass, a failed codegen, ...)."""


class ServiceTimeout(ServiceError, TimeoutError):
    """The compiler ran past its time limit (a GCC compile past ``env.timeout``, a step past
    the worker's ``step_timeout_seconds``, a program run past its limit): a ``TimeoutError``,
    and a ``ServiceError`` as every other failure of the compiler, so that code written for
    CompilerGym that retries a failed compile (``except ServiceError``) retries this too."""


class CompilerNotFound(ServiceError, FileNotFoundError):
    """An env's compiler does not exist (GCC's ``gcc_bin``): a ``FileNotFoundError``, and a
    ``ServiceError`` as CompilerGym reported a service that could not start its compiler."""


class CompilerNotSupported(ServiceError, ValueError):
    """An env's compiler exists but is not one the env can use (a ``gcc_bin`` that is not
    GCC), or a setting it was made with is refused: a ``ValueError``, and a ``ServiceError``
    as in CompilerGym."""


class SessionNotFound(ServiceError):
    """The call needs an episode in progress: call ``reset()`` first."""


class ServiceIsClosed(ServiceError):
    """The environment was closed: make another."""


class EnvironmentNotSupported(ServiceError):
    """This machine cannot run the environment (e.g. a CUDA benchmark without a GPU)."""


class ServiceOSError(ServiceError, OSError):
    """CompilerGym's error of a service process that failed with an OS error; no service
    runs here, so nothing raises it."""


class ServiceInitError(ServiceError, OSError):
    """CompilerGym's error of a service that failed to start; no service runs here, so
    nothing raises it."""


class ServiceTransportError(ServiceError, OSError):
    """CompilerGym's error of a failed gRPC call; no call is made here, so nothing raises
    it."""
