"""CompilerEnvState: a replayable record of an episode, and its CSV reader and writer."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional, TextIO

_FIELDS = ("benchmark", "reward", "walltime", "commandline")


@dataclass(frozen=True)
class CompilerEnvState:
    """The state of an environment: enough to replay it.

    ``commandline`` is ``env.action_space.to_string(actions)``; ``reward`` is the episode
    reward (None when the env had no reward space).
    """

    benchmark: str
    commandline: str
    walltime: float
    reward: Optional[float] = None

    def __post_init__(self):
        if self.walltime < 0:
            raise ValueError("walltime must be non-negative")

    def reward_equals(self, other: CompilerEnvState, rel_tol: float = 1e-5) -> bool:
        """Whether the rewards match to a relative tolerance (None equals None only)."""
        if self.reward is None or other.reward is None:
            return self.reward is other.reward
        return math.isclose(self.reward, other.reward, rel_tol=rel_tol, abs_tol=1e-9)

    def __eq__(self, other) -> bool:
        """Same benchmark and command line, and the same reward when both have one (a
        reward present on one side only does not make states unequal, as in CompilerGym)."""
        if not isinstance(other, CompilerEnvState):
            return NotImplemented
        return (
            self.benchmark == other.benchmark
            and self.commandline == other.commandline
            and (self.reward is None or other.reward is None or self.reward_equals(other))
        )

    def dict(self) -> dict:
        """The fields as a dict."""
        return {
            "benchmark": self.benchmark,
            "commandline": self.commandline,
            "walltime": self.walltime,
            "reward": self.reward,
        }

    def json(self) -> str:
        """The fields as a JSON object."""
        return json.dumps(self.dict())

    def __hash__(self) -> int:
        return hash((self.benchmark, self.commandline))

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
    """Writes states as CSV rows with a header, to any text stream."""

    def __init__(self, f: TextIO, header: bool = True):
        self._f = f
        self._writer = csv.writer(f, lineterminator="\n")
        self._header = header

    def write_state(self, state: CompilerEnvState, flush: bool = False) -> None:
        """Writes one state (the header first, once); ``flush`` flushes the stream."""
        if self._header:
            self._writer.writerow(_FIELDS)
            self._header = False
        self._writer.writerow(state._csv_row())
        if flush:
            self._f.flush()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass


class CompilerEnvStateReader:
    """Reads states from CSV: with a header whose columns may come in any order, or
    without one (columns benchmark, reward, walltime, commandline). Empty input has no
    states."""

    def __init__(self, f: TextIO):
        self._f = f

    def __iter__(self) -> Iterator[CompilerEnvState]:
        rows = csv.reader(self._f)
        first = next(rows, None)
        while first is not None and not any(cell.strip() for cell in first):
            first = next(rows, None)  # blank lines before anything
        if first is None:
            return
        if set(first) & set(_FIELDS):  # a header
            missing = set(_FIELDS) - set(first)
            if missing:
                raise ValueError(f"CSV header lacks columns: {sorted(missing)}")
            columns, start, data = first, 2, rows
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
            try:
                reward = row["reward"].strip()
                yield CompilerEnvState(
                    benchmark=row["benchmark"],
                    commandline=row["commandline"],
                    walltime=float(row["walltime"]),
                    reward=float(reward) if reward else None,
                )
            except (TypeError, ValueError) as e:
                raise ValueError(f"Invalid state on line {line}: {e}") from e

    @staticmethod
    def read_paths(paths: Iterable[str]) -> Iterator[CompilerEnvState]:
        """Reads states from each CSV file in turn (``-``: standard input)."""
        for path in paths:
            if str(path) == "-":
                yield from CompilerEnvStateReader(sys.stdin)
                continue
            with open(path, newline="") as f:
                yield from CompilerEnvStateReader(f)
