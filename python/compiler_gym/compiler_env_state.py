"""CompilerEnvState: a replayable record of an episode, and its CSV reader and writer.

CompilerGym's ``CompilerEnvState`` is a pydantic model; this one is a dataclass that validates
its fields the same way, on construction and on assignment, and reports a bad field with
pydantic's message (``StateValidationError``, a ``ValueError`` as pydantic's error is): a
missing field is ``field required``, a negative walltime ``Walltime cannot be negative``, a
value of the wrong type ``value is not a valid float`` or ``str type expected``. Numbers given
as strings are converted, as pydantic does. ``benchmark`` cannot be assigned after
construction; the other fields can.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import sys
import urllib.error
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any, Optional, TextIO

from compiler_gym.errors import DownloadFailed
from compiler_gym.util.download import fetch_text
from compiler_gym.util.truncate import truncate

_FIELDS = ("benchmark", "reward", "walltime", "commandline")
_MISSING: Any = object()


class StateValidationError(ValueError):
    """A :class:`CompilerEnvState` field that is missing or invalid, reported as pydantic
    reports it (CompilerGym's state was a pydantic model): ``str(e)`` is pydantic's message,
    ``e.errors()`` its list of ``{"loc", "msg", "type"}`` dicts."""

    def __init__(self, errors: list[dict]):
        self._errors = errors
        count = len(errors)
        lines = [f"{count} validation error{'s' if count > 1 else ''} for CompilerEnvState"]
        for error in errors:
            lines += [error["loc"][0], f"  {error['msg']} (type={error['type']})"]
        super().__init__("\n".join(lines))

    def errors(self) -> list[dict]:
        """The errors, one dict per field: ``loc`` (the field's name in a tuple), ``msg``
        and ``type``, as pydantic's ``ValidationError.errors()``."""
        return [dict(e) for e in self._errors]


class _FieldError(Exception):
    """One field's error: pydantic's message and error type."""

    def __init__(self, msg: str, type: str):
        super().__init__(msg)
        self.msg, self.type = msg, type


def _required(value: Any) -> Any:
    if value is _MISSING:
        raise _FieldError("field required", "value_error.missing")
    if value is None:
        raise _FieldError("none is not an allowed value", "type_error.none.not_allowed")
    return value


def _string(value: Any) -> str:
    value = _required(value)
    if type(value).__name__ == "BenchmarkUri":  # a parsed URI is kept as its string
        return str(value)
    if not isinstance(value, str):
        raise _FieldError("str type expected", "type_error.str")
    return value


def _float(value: Any) -> float:
    if isinstance(value, float):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        raise _FieldError("value is not a valid float", "type_error.float") from None


def _walltime(value: Any) -> float:
    value = _float(_required(value))
    if not value >= 0:
        raise _FieldError("Walltime cannot be negative", "assertion_error")
    return value


def _reward(value: Any) -> Optional[float]:
    return None if value is None else _float(value)


# Each field's validator: it returns the value to keep, or raises _FieldError.
_VALIDATORS: dict[str, Callable[[Any], Any]] = {
    "benchmark": _string,
    "commandline": _string,
    "walltime": _walltime,
    "reward": _reward,
}


@dataclass(init=False, eq=False)
class CompilerEnvState:
    """The state of an environment: enough to replay it.

    ``benchmark`` is the benchmark's URI, ``commandline`` is
    ``env.action_space.to_string(actions)``, ``walltime`` the episode's seconds (non-negative)
    and ``reward`` the episode reward (None when the env had no reward space). Fields are
    validated as in CompilerGym (see the module's docstring).
    """

    benchmark: str
    commandline: str
    walltime: float
    reward: Optional[float] = None

    def __init__(
        self,
        benchmark: str = _MISSING,
        commandline: str = _MISSING,
        walltime: float = _MISSING,
        reward: Optional[float] = None,
    ):
        given = {
            "benchmark": benchmark,
            "commandline": commandline,
            "walltime": walltime,
            "reward": reward,
        }
        values, errors = {}, []
        for name, value in given.items():
            try:
                values[name] = _VALIDATORS[name](value)
            except _FieldError as e:
                errors.append({"loc": (name,), "msg": e.msg, "type": e.type})
        if errors:
            raise StateValidationError(errors)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        """Assigns a field, validated; ``benchmark`` cannot be assigned (``TypeError``), and
        a name that is not a field is a ``ValueError``, as in CompilerGym."""
        if name == "benchmark":
            raise TypeError('"benchmark" has allow_mutation set to False and cannot be assigned')
        if name not in _VALIDATORS:
            raise ValueError(f'"CompilerEnvState" object has no field "{name}"')
        try:
            value = _VALIDATORS[name](value)
        except _FieldError as e:
            raise StateValidationError([{"loc": (name,), "msg": e.msg, "type": e.type}]) from None
        object.__setattr__(self, name, value)

    @property
    def has_reward(self) -> bool:
        """Whether the state has a reward."""
        return self.reward is not None

    def reward_equals(self, other: CompilerEnvState, rel_tol: float = 1e-5) -> bool:
        """Whether the rewards match to a relative tolerance (None equals None only)."""
        if self.reward is None or other.reward is None:
            return self.reward is other.reward
        return math.isclose(self.reward, other.reward, rel_tol=rel_tol, abs_tol=1e-9)

    def __eq__(self, other) -> bool:
        """Same benchmark and command line, and the same reward when both have one (a
        reward present on one side only does not make states unequal, and walltime is not
        compared, as in CompilerGym). A state is not equal to anything else."""
        if not isinstance(other, CompilerEnvState):
            return False
        return (
            self.benchmark == other.benchmark
            and self.commandline == other.commandline
            and (self.reward is None or other.reward is None or self.reward_equals(other))
        )

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self.benchmark, self.commandline))

    def dict(self) -> dict:
        """The fields as a dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def json(self) -> str:
        """The fields as a JSON object."""
        return json.dumps(self.dict())

    def _csv_row(self) -> list:
        """The fields in _FIELDS order; an empty reward means None."""
        reward = "" if self.reward is None else repr(float(self.reward))
        return [self.benchmark, reward, repr(float(self.walltime)), self.commandline]

    def to_csv(self) -> str:
        """One CSV row (no header)."""
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(self._csv_row())
        return buf.getvalue()

    @classmethod
    def from_csv(cls, row: str) -> CompilerEnvState:
        """Parses one headerless CSV row written by :meth:`to_csv`."""
        return next(iter(CompilerEnvStateReader(io.StringIO(",".join(_FIELDS) + "\n" + row))))


class CompilerEnvStateWriter:
    """Writes states as CSV rows with a header, to any text stream. As a context manager it
    closes the stream on exit, as CompilerGym's does::

        with CompilerEnvStateWriter(open("states.csv", "w")) as writer:
            writer.write_state(env.state)
    """

    def __init__(self, f: TextIO, header: bool = True):
        self.f = f
        self._writer = csv.writer(f, lineterminator="\n")
        self._header = header

    def write_state(self, state: CompilerEnvState, flush: bool = False) -> None:
        """Writes one state (the header first, once); ``flush`` flushes the stream."""
        if self._header:
            self._writer.writerow(_FIELDS)
            self._header = False
        self._writer.writerow(state._csv_row())
        if flush:
            self.f.flush()

    def __enter__(self) -> CompilerEnvStateWriter:
        return self

    def __exit__(self, *args) -> None:
        self.f.close()


class CompilerEnvStateReader:
    """Reads states from CSV: with a header (column names in any order and any case), or
    without one (columns benchmark, reward, walltime, commandline). An empty reward cell is
    None and an empty walltime cell 0, as in CompilerGym; empty input has no states. As a
    context manager it closes the stream on exit."""

    def __init__(self, f: TextIO):
        self.f = f

    def __iter__(self) -> Iterator[CompilerEnvState]:
        rows = csv.reader(self.f)
        first = next(rows, None)
        while first is not None and not any(cell.strip() for cell in first):
            first = next(rows, None)  # blank lines before anything
        if first is None:
            return
        if len(first) != len(_FIELDS):
            raise ValueError(
                f"Expected {len(_FIELDS)} columns in the first row of CSV: {truncate(first)}"
            )
        names = [cell.strip().lower() for cell in first]
        if set(names) == set(_FIELDS):  # a header
            columns, start, data = names, 2, rows
        else:
            columns, start, data = list(_FIELDS), 1, itertools.chain([first], rows)
        for line, cells in enumerate(data, start=start):
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(columns):
                raise ValueError(
                    f"Invalid state on line {line}: {len(cells)} columns, expected {len(columns)}"
                )
            row = dict(zip(columns, cells, strict=True))
            reward, walltime = row["reward"].strip(), row["walltime"].strip()
            try:
                yield CompilerEnvState(
                    benchmark=row["benchmark"],
                    commandline=row["commandline"],
                    walltime=walltime or 0,
                    reward=reward or None,
                )
            except StateValidationError as e:
                raise ValueError(f"Invalid state on line {line}: {e}") from e

    def __enter__(self) -> CompilerEnvStateReader:
        return self

    def __exit__(self, *args) -> None:
        self.f.close()

    @staticmethod
    def read_paths(paths: Iterable[str]) -> Iterator[CompilerEnvState]:
        """Reads states from each CSV in turn: a file path, ``-`` for standard input, or an
        ``http://`` or ``https://`` URL (``OSError`` naming the URL when it cannot be
        fetched)."""
        for path in paths:
            path = str(path)
            if path == "-":
                yield from CompilerEnvStateReader(sys.stdin)
            elif path.startswith(("http://", "https://")):
                yield from CompilerEnvStateReader(io.StringIO(_fetch_text(path)))
            else:
                with open(path, newline="") as f:
                    yield from CompilerEnvStateReader(f)


def _fetch_text(url: str) -> str:
    """The text at ``url``, bounded as a manifest is (``$COMPILER_GYM_MAX_MANIFEST_BYTES``,
    and the stall and deadline of every download: :mod:`compiler_gym.util.download`); OSError
    naming it when the server refuses, cannot be reached or passes a limit."""
    try:
        return fetch_text(url)
    except DownloadFailed as e:
        cause = e.__cause__
        if isinstance(cause, urllib.error.HTTPError):
            raise OSError(f"URL {url} content could not be obtained: HTTP {cause.code}") from None
        raise OSError(f"URL {url} content could not be obtained: {e}") from None


__all__ = [
    "CompilerEnvState",
    "CompilerEnvStateReader",
    "CompilerEnvStateWriter",
    "StateValidationError",
]
