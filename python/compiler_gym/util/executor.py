"""CompilerGym's ``compiler_gym.util.executor``: where a script's jobs run, chosen by one
setting (the local machine, this process for debugging, nowhere, or a SLURM cluster).

    >>> executor = Executor(type="local", cpus=4)
    >>> with executor.get_executor(logs_dir=create_user_logs_dir("sweep")) as ex:
    ...     jobs = [ex.submit(tune, benchmark) for benchmark in benchmarks]
    >>> [job.result() for job in jobs]  # the block waited for them all

:class:`Executor` is a pydantic model, as CompilerGym's is (a pydantic 1 model where pydantic
1 is installed, as CompilerGym's examples need it), so that a configuration (a
Hydra/YAML ``executor:`` section, a field of the caller's own pydantic model) builds it:
``Executor(**config)``, ``Executor.model_validate(config)`` or ``Executor.parse_obj(config)``,
and back with ``model_dump()`` / ``dict()`` and ``model_dump_json()`` / ``json()``. A bad
setting raises pydantic's ``ValidationError`` (a ``ValueError``).

``local`` runs jobs in a pool of fresh (spawned) processes, so a job's function and its
arguments must be picklable: a function defined at the top level of an importable module or
of a script guarded by ``if __name__ == "__main__"``. A fresh process is used rather than a
fork because the engine runs threads of its own in this one. A fresh process has absl's
flags unparsed, where CompilerGym's forked workers inherited them, so each job of a ``local``
(or ``slurm``) executor carries this process's parsed flag values and sets them before it
runs: a job may read ``FLAGS.x`` as the script's own functions do. ``slurm`` needs the
optional ``submitit`` package.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import multiprocessing
import os
import pickle
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from enum import Enum
from pathlib import Path
from typing import Any, Optional, Union

import pydantic
from pydantic import BaseModel

# CompilerGym's examples define their configurations with pydantic 1 (``root_validator``
# without arguments fails under pydantic 2), so the model below is defined for either.
PYDANTIC_V2 = int(pydantic.VERSION.split(".")[0]) >= 2
if PYDANTIC_V2:
    from pydantic import ConfigDict, Field, ValidationInfo, field_validator
else:  # pragma: no cover - exercised with pydantic 1 on the path (tests install it)
    from pydantic import validator

logger = logging.getLogger(__name__)

_default_executor: Optional[Executor] = None
_default_executor_lock = threading.Lock()
# wait_on_jobs names at most this many job ids in its log line.
_JOB_IDS_SHOWN = 8


class FrozenExecutorError(dataclasses.FrozenInstanceError, TypeError):
    """Assigning a field of an :class:`Executor`: an ``AttributeError`` as a frozen
    dataclass raises, and a ``TypeError`` as CompilerGym's (``allow_mutation=False``) did."""


class _ExecutorType(str, Enum):
    """Where jobs run."""

    SLURM = "slurm"
    """Submitted to a SLURM cluster through ``submitit``."""
    LOCAL = "local"
    """In parallel, in a pool of processes on this machine."""
    DEBUG = "debug"
    """One at a time in this process, when their result is asked for."""
    NOOP = "noop"
    """Not at all: every result is None (to check a script's setup without the work)."""


# Named, printed and pickled as the Executor's attribute it is published as.
_ExecutorType.__name__ = "Type"
_ExecutorType.__qualname__ = "Executor.Type"

# The field checks, shared by the pydantic v2 and v1 models below. ``kind`` is the validated
# ``type`` (None when it was itself invalid): fields are validated in order, ``type`` first.


def _check_type(value: Any) -> _ExecutorType:
    try:
        return _ExecutorType(value)
    except ValueError:
        names = ", ".join(t.value for t in _ExecutorType)
        raise ValueError(f"unknown executor type {value!r}; one of: {names}") from None


def _check_partition(value: Optional[str], kind: Optional[_ExecutorType]) -> Optional[str]:
    if kind == _ExecutorType.SLURM and not value:
        raise ValueError("a slurm executor needs a slurm_partition")
    return value


def _check_not_bool(value: Any, name: str) -> Any:
    # pydantic takes True for 1; a count given as a bool is a mistake in a config.
    if isinstance(value, bool):
        raise ValueError(f"{name} is an integer, not {value!r}")
    return value


def _check_cpus(value: int, kind: Optional[_ExecutorType]) -> int:
    if value < -1 or value == 0:
        raise ValueError(f"cpus is a positive integer or -1 (every CPU), not {value!r}")
    if value == -1 and kind == _ExecutorType.LOCAL:
        return os.cpu_count() or 1
    return value


def _check_gpus(value: int) -> int:
    if value < 0:
        raise ValueError(f"gpus is an integer >= 0, not {value!r}")
    return value


def _check_timeout(value: float) -> float:
    if not value > 0:
        raise ValueError(f"timeout_hours must be positive, not {value!r}")
    return value


def _check_block(value: bool, kind: Optional[_ExecutorType]) -> bool:
    return value or kind in (_ExecutorType.LOCAL, _ExecutorType.NOOP)


class _ExecutorBase:
    """What an :class:`Executor` does, whichever pydantic major version defines its fields."""

    Type = _ExecutorType

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenExecutorError(f"cannot assign to field {name!r}: an Executor is fixed")

    def __delattr__(self, name: str) -> None:
        raise FrozenExecutorError(f"cannot delete field {name!r}: an Executor is fixed")

    @contextlib.contextmanager
    def get_executor(
        self,
        logs_dir: Union[str, Path],
        timeout_hours: Optional[float] = None,
        cpus: Optional[int] = None,
    ) -> Iterator[WrappedExecutor]:
        """A ``with`` block in which ``executor.submit(fn, *args, **kwargs)`` starts a job and
        returns it (``job.job_id``, ``job.result()``, ``job.cancel()``, ``job.done()``).
        ``timeout_hours`` and ``cpus`` override the executor's own; ``logs_dir`` holds a
        ``slurm`` executor's logs. When the block ends it waits for the jobs (``local``,
        ``noop``, ``debug`` and ``block=True``), so a job's exception is raised there, and
        frees the executor's processes. ``OSError`` for ``slurm`` without ``submitit``."""
        cpus = cpus or self.cpus
        if cpus == -1:
            cpus = os.cpu_count() or 1
        timeout_hours = timeout_hours or self.timeout_hours
        if self.type == Executor.Type.SLURM:
            try:
                from submitit import AutoExecutor
            except ImportError as e:
                raise OSError(
                    "the slurm executor needs the submitit package: python -m pip install submitit"
                ) from e
            backend = AutoExecutor(folder=logs_dir)
            backend.update_parameters(
                timeout_min=int(round(timeout_hours * 60)),
                nodes=1,
                cpus_per_task=cpus,
                gpus_per_node=self.gpus,
                slurm_partition=self.slurm_partition,
            )
            name = self.slurm_partition
        elif self.type == Executor.Type.LOCAL:
            backend = LocalParallelExecutor(cpus, int(round(timeout_hours * 3600)))
            name = "local"
        elif self.type == Executor.Type.DEBUG:
            backend, name = LocalSynchronousExecutor(), "local"
        else:
            backend, name = DummyExecutor(), "noop"

        # Jobs of another process take this one's absl flags with them (an in-process job
        # reads them directly).
        in_other_process = self.type in (Executor.Type.LOCAL, Executor.Type.SLURM)
        executor = WrappedExecutor(backend, name=name, carry_flags=in_other_process)
        finished = False
        try:
            yield executor
            if self.type == Executor.Type.DEBUG or self.block:
                wait_on_jobs(
                    executor.jobs,
                    executor_name=str(executor),
                    cancel_on_error=self.type == Executor.Type.SLURM,
                )
            finished = True
        finally:
            if hasattr(backend, "close"):
                backend.close(cancel=not finished)

    @staticmethod
    def get_default_local_executor() -> Executor:
        """The process's shared ``local`` executor, one job per CPU."""
        global _default_executor
        with _default_executor_lock:
            if _default_executor is None:
                _default_executor = Executor(type=Executor.Type.LOCAL, cpus=-1)
            return _default_executor


if PYDANTIC_V2:

    class Executor(_ExecutorBase, BaseModel):
        """How and where jobs run: ``Executor(type="local", cpus=8)``, then submit functions
        to the executor that :meth:`get_executor` yields. Fields (fixed once made):

        - ``type``: an :class:`Executor.Type` or its name (``"local"``, ``"debug"``,
          ``"noop"``, ``"slurm"``).
        - ``slurm_partition``: the SLURM partition to submit to (required for ``slurm``).
        - ``cpus``: for ``local`` the number of jobs run at once (-1: every CPU), for
          ``slurm`` the CPUs of each job; ignored by ``debug`` and ``noop``.
        - ``gpus``: the GPUs of each ``slurm`` job.
        - ``timeout_hours``: how long a job may run (``local``: how long a result is waited
          for).
        - ``block``: whether leaving the ``get_executor`` block waits for every job; always
          true for ``local`` and ``noop``, and ``debug`` runs its jobs then in any case.

        Unknown keys of a configuration are ignored, as CompilerGym's pydantic v1 model did.
        """

        # Frozen: hashable, and assignment refused (by _ExecutorBase, with CompilerGym's
        # exception types rather than pydantic v2's ValidationError).
        model_config = ConfigDict(frozen=True, extra="ignore")

        type: _ExecutorType
        slurm_partition: Optional[str] = Field(default=None, validate_default=True)
        cpus: int = Field(default=1, validate_default=True)
        gpus: int = 0
        timeout_hours: float = 12.0
        block: bool = Field(default=False, validate_default=True)

        @field_validator("type", mode="before")
        @classmethod
        def _known_type(cls, value: Any) -> _ExecutorType:
            return _check_type(value)

        @field_validator("slurm_partition")
        @classmethod
        def _slurm_needs_a_partition(cls, value: Optional[str], info: ValidationInfo):
            return _check_partition(value, info.data.get("type"))

        @field_validator("cpus", "gpus", mode="before")
        @classmethod
        def _not_a_bool(cls, value: Any, info: ValidationInfo) -> Any:
            return _check_not_bool(value, info.field_name)

        @field_validator("cpus")
        @classmethod
        def _cpu_count(cls, value: int, info: ValidationInfo) -> int:
            return _check_cpus(value, info.data.get("type"))

        @field_validator("gpus")
        @classmethod
        def _gpu_count(cls, value: int) -> int:
            return _check_gpus(value)

        @field_validator("timeout_hours")
        @classmethod
        def _positive_timeout(cls, value: float) -> float:
            return _check_timeout(value)

        @field_validator("block")
        @classmethod
        def _local_always_blocks(cls, value: bool, info: ValidationInfo) -> bool:
            return _check_block(value, info.data.get("type"))

        # CompilerGym's (pydantic v1) names, without pydantic v2's deprecation warnings.

        @classmethod
        def parse_obj(cls, obj: Any) -> Executor:
            """An executor from a mapping of its fields (``model_validate``)."""
            return cls.model_validate(obj)

        @classmethod
        def parse_raw(cls, data: Union[str, bytes]) -> Executor:
            """An executor from JSON text (``model_validate_json``)."""
            return cls.model_validate_json(data)

        def dict(self, **kwargs: Any) -> dict[str, Any]:
            """The fields as a dict (``model_dump``; ``type`` stays an
            :class:`Executor.Type`, which equals its name)."""
            return self.model_dump(**kwargs)

        def json(self, **kwargs: Any) -> str:
            """The fields as JSON text (``model_dump_json``)."""
            return self.model_dump_json(**kwargs)

else:  # pydantic v1, which CompilerGym and its examples' models were written for

    class Executor(_ExecutorBase, BaseModel):  # type: ignore[no-redef]
        """How and where jobs run (the same fields, checks and methods as with pydantic 2;
        see the pydantic 2 definition's docstring). Unknown configuration keys are ignored."""

        class Config:
            frozen = True  # hashable by value; assignment is refused by _ExecutorBase
            extra = "ignore"

        type: _ExecutorType
        slurm_partition: Optional[str] = None
        cpus: int = 1
        gpus: int = 0
        timeout_hours: float = 12.0
        block: bool = False

        @validator("type", pre=True)
        def _known_type(cls, value: Any) -> _ExecutorType:
            return _check_type(value)

        @validator("slurm_partition", always=True)
        def _slurm_needs_a_partition(cls, value: Optional[str], values: dict[str, Any]):
            return _check_partition(value, values.get("type"))

        @validator("cpus", "gpus", pre=True, always=True)
        def _not_a_bool(cls, value: Any, field: Any) -> Any:
            return _check_not_bool(value, field.name)

        @validator("cpus", always=True)
        def _cpu_count(cls, value: int, values: dict[str, Any]) -> int:
            return _check_cpus(value, values.get("type"))

        @validator("gpus")
        def _gpu_count(cls, value: int) -> int:
            return _check_gpus(value)

        @validator("timeout_hours")
        def _positive_timeout(cls, value: float) -> float:
            return _check_timeout(value)

        @validator("block", always=True)
        def _local_always_blocks(cls, value: bool, values: dict[str, Any]) -> bool:
            return _check_block(value, values.get("type"))

        # pydantic 2's names, so that code written for either runs on both.

        @classmethod
        def model_validate(cls, obj: Any) -> Executor:
            """An executor from a mapping of its fields (``parse_obj``)."""
            return cls.parse_obj(obj)

        @classmethod
        def model_validate_json(cls, data: Union[str, bytes]) -> Executor:
            """An executor from JSON text (``parse_raw``)."""
            return cls.parse_raw(data)

        def model_dump(self, **kwargs: Any) -> dict[str, Any]:
            """The fields as a dict (``dict``)."""
            return self.dict(**kwargs)

        def model_dump_json(self, **kwargs: Any) -> str:
            """The fields as JSON text (``json``)."""
            return self.json(**kwargs)


# -------------------------------------------------------------------------------------------
# absl flags in jobs of other processes.

# A flag's state as a job carries it: (value, present, using_default_value).
_FlagState = tuple[Any, int, bool]


def parsed_flag_values() -> Optional[dict[str, _FlagState]]:
    """This process's absl flags, by name, when they have been parsed (None when absl is
    not in use or its flags are not parsed: a job then finds them as a fresh process does).
    A flag whose value cannot be pickled is left out (with a warning): the job sees its
    default."""
    absl_flags = sys.modules.get("absl.flags")
    if absl_flags is None or not absl_flags.FLAGS.is_parsed():
        return None
    FLAGS = absl_flags.FLAGS
    states: dict[str, _FlagState] = {}
    for name in FLAGS:
        flag = FLAGS[name]
        if flag.name != name or name in states:  # a short name of a flag
            continue
        try:
            pickle.dumps(flag.value)
        except Exception as e:
            logger.warning(
                "flag --%s is not passed to jobs: its value cannot be pickled: %s", name, e
            )
            continue
        states[name] = (flag.value, flag.present, flag.using_default_value)
    return states


def apply_flag_values(states: dict[str, _FlagState]) -> None:
    """Sets this process's absl flags to ``states`` (from :func:`parsed_flag_values` in
    another process) and marks them parsed. Flags not in ``states`` go back to their defaults;
    flags this process has not defined are skipped. Validators do not run again: the values
    passed them where they were parsed."""
    from absl import flags as absl_flags

    FLAGS = absl_flags.FLAGS
    FLAGS.unparse_flags()  # a pool process runs many jobs: start each from the defaults
    for name, (value, present, using_default) in states.items():
        if name in FLAGS:
            flag = FLAGS[name]
            flag.value = value
            flag.present = present
            flag.using_default_value = using_default
    FLAGS.mark_as_parsed()


class WithFlags:
    """A job that first sets its process's absl flags to those of the process that
    submitted it, then calls ``fn`` (picklable when ``fn`` is)."""

    def __init__(self, fn: Callable[..., Any], flag_values: dict[str, _FlagState]):
        self.fn = fn
        self.flag_values = flag_values

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Sets the flags, then returns ``fn(*args, **kwargs)``."""
        apply_flag_values(self.flag_values)
        return self.fn(*args, **kwargs)


class WrappedExecutor:
    """The executor of a :meth:`Executor.get_executor` block: submits jobs to ``unwrapped``
    (the backend) and keeps them, in order, in ``jobs``. With ``carry_flags`` each job takes
    the absl flags parsed in this process at submission (:class:`WithFlags`)."""

    def __init__(self, executor: Any, name: str, carry_flags: bool = False):
        self.unwrapped = executor
        self.jobs: list[Any] = []
        self.name = name
        self.carry_flags = carry_flags

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Starts ``fn(*args, **kwargs)`` as a job and returns the job."""
        if self.carry_flags:
            flag_values = parsed_flag_values()
            if flag_values is not None:
                fn = WithFlags(fn, flag_values)
        job = self.unwrapped.submit(fn, *args, **kwargs)
        logger.info("Submitting job %s to %s ...", job.job_id, self)
        self.jobs.append(job)
        return job

    def __repr__(self) -> str:
        return self.name


def wait_on_jobs(
    jobs: Iterable[Any], executor_name: str = "executor", cancel_on_error: bool = True
) -> None:
    """Waits for each job's result, in order. A job that fails raises its exception, or with
    ``cancel_on_error`` is logged and the jobs not yet finished are cancelled instead."""
    pending = deque(jobs)
    total = len(pending)
    ids = ", ".join(str(job.job_id) for job in list(pending)[:_JOB_IDS_SHOWN])
    more = " ..." if total > _JOB_IDS_SHOWN else ""
    logger.info(
        "Waiting for %d %s jobs to complete with job IDs: %s%s", total, executor_name, ids, more
    )
    completed = 0
    while pending:
        job = pending[0]
        try:
            job.result()
        except Exception as e:
            if not cancel_on_error:
                raise
            logger.error("Caught: %s: %s", type(e).__name__, e)
            logger.info("Cancelling %d %s jobs", len(pending), executor_name)
            for unfinished in pending:
                with contextlib.suppress(Exception):
                    unfinished.cancel()
            return
        pending.popleft()
        completed += 1
        logger.info("Jobs completed = %d of %d ...", completed, total)
    logger.info("All done.")


class LocalParallelExecutor:
    """The ``local`` backend: a pool of ``cpus`` spawned processes; each job's result waits
    at most ``timeout_seconds``."""

    class LocalJob:
        """A job in the pool."""

        def __init__(self, job_id: int, future: Future, timeout_seconds: float):
            self.job_id = job_id
            self.timeout_seconds = timeout_seconds
            self._future = future

        def result(self) -> Any:
            """The job's return value (raises its exception, or ``TimeoutError``)."""
            return self._future.result(timeout=self.timeout_seconds)

        def done(self) -> bool:
            """Whether the job has finished."""
            return self._future.done()

        def cancel(self) -> bool:
            """Cancels the job if it has not started; whether it was."""
            return self._future.cancel()

    def __init__(self, cpus: int, timeout_seconds: float):
        self.timeout_seconds = timeout_seconds
        self.last_job_id = 0
        self._pool = ProcessPoolExecutor(
            max_workers=cpus, mp_context=multiprocessing.get_context("spawn")
        )

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> LocalJob:
        """Queues ``fn(*args, **kwargs)`` in the pool."""
        self.last_job_id += 1
        future = self._pool.submit(fn, *args, **kwargs)
        return self.LocalJob(self.last_job_id, future, self.timeout_seconds)

    def close(self, cancel: bool = False) -> None:
        """Stops the pool's processes once their jobs end (with ``cancel``, after dropping
        the jobs not yet started)."""
        self._pool.shutdown(wait=True, cancel_futures=cancel)


class LocalSynchronousExecutor:
    """The ``debug`` backend: a job runs in this process the first time its result is asked
    for, so a debugger or a traceback sees it directly."""

    class LocalJob:
        """A job that has not run yet, or its outcome."""

        def __init__(self, job_id: int, fn: Callable[..., Any], *args: Any, **kwargs: Any):
            self.job_id = job_id
            self._call = (fn, args, kwargs)
            self._outcome: Optional[tuple[bool, Any]] = None

        def result(self) -> Any:
            """Runs the job if it has not run, then returns its value (or raises its
            exception, every time it is asked)."""
            if self._outcome is None:
                fn, args, kwargs = self._call
                try:
                    self._outcome = (True, fn(*args, **kwargs))
                except Exception as e:
                    self._outcome = (False, e)
            ok, value = self._outcome
            if not ok:
                raise value
            return value

        def done(self) -> bool:
            """Whether the job has run."""
            return self._outcome is not None

        def cancel(self) -> bool:
            """A job runs only when asked for: nothing to cancel."""
            return False

    def __init__(self) -> None:
        self.last_job_id = 0

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> LocalJob:
        """Records ``fn(*args, **kwargs)`` to run when its result is asked for."""
        self.last_job_id += 1
        return self.LocalJob(self.last_job_id, fn, *args, **kwargs)


class DummyExecutor:
    """The ``noop`` backend: jobs do not run and their result is None."""

    class DummyJob:
        """A job that never runs."""

        def __init__(self, job_id: int):
            self.job_id = job_id

        def result(self) -> None:
            """None: the job did not run."""
            return None

        def done(self) -> bool:
            """Always true."""
            return True

        def cancel(self) -> bool:
            """Nothing to cancel."""
            return False

    def __init__(self) -> None:
        self.last_job_id = 0

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> DummyJob:
        """Returns a job that does not run ``fn``."""
        del fn, args, kwargs
        self.last_job_id += 1
        return self.DummyJob(self.last_job_id)


__all__ = [
    "DummyExecutor",
    "Executor",
    "FrozenExecutorError",
    "LocalParallelExecutor",
    "LocalSynchronousExecutor",
    "WithFlags",
    "WrappedExecutor",
    "apply_flag_values",
    "parsed_flag_values",
    "wait_on_jobs",
]
