"""Bounds on what the package downloads and unpacks, each read from an environment variable
so that a user can change it, and named in the error that reports it.

    >>> limit = Limit.from_environment("COMPILER_GYM_MAX_DOWNLOAD_BYTES", 4 << 30)
    >>> limit.value
    4294967296
    >>> limit.exceeded("x.tar.xz is larger")
    'x.tar.xz is larger than 4294967296 bytes (4.0 GiB): the limit is
    $COMPILER_GYM_MAX_DOWNLOAD_BYTES=4294967296; set it higher to allow more'   (one line)

The variables, their defaults and why they are what they are: ``docs/datasets.md`` and the
modules that use them (:mod:`compiler_gym.util.download`, :mod:`compiler_gym.util.archive`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Union

Number = Union[int, float]


@dataclass(frozen=True)
class Limit:
    """A bound: its ``value`` (None: none), the environment ``variable`` that sets it, and its
    ``unit`` (``"bytes"``, ``"seconds"``, ``"members"`` or ``""``), for messages."""

    variable: str
    value: Number | None
    unit: str = ""

    @classmethod
    def from_environment(
        cls, variable: str, default: Number | None, unit: str = "", *, zero_disables=False
    ) -> Limit:
        """The limit ``$variable`` sets, ``default`` when it is unset or empty. A value must be
        a positive number (``0`` turns the bound off when ``zero_disables``); ValueError
        naming the variable otherwise."""
        text = os.environ.get(variable, "").strip()
        if not text:
            return cls(variable, default, unit)
        try:
            counted = unit in ("bytes", "members")
            value = int(text.replace("_", "")) if counted else float(text)
        except ValueError:
            value = None
        if value is None or value < 0 or (value == 0 and not zero_disables):
            allowed = "a non-negative" if zero_disables else "a positive"
            kind = "integer" if unit in ("bytes", "members") else "number"
            raise ValueError(f"${variable} must be {allowed} {kind}, not {text!r}")
        return cls(variable, None if value == 0 else value, unit)

    def describe(self) -> str:
        """The value with its unit, e.g. ``4294967296 bytes (4.0 GiB)``."""
        if self.unit == "bytes":
            return f"{self.value} bytes ({human_bytes(self.value)})"
        return f"{self.text} {self.unit}".rstrip()

    @property
    def text(self) -> str:
        """The value as the variable would be written: ``4294967296``, ``0.5``."""
        value = self.value
        return str(int(value)) if value is not None and float(value).is_integer() else str(value)

    def exceeded(self, what: str) -> str:
        """The message for something over the limit: ``what`` (e.g. ``"x.tar.xz unpacks to
        more"``) followed by the value, the variable and how to change it."""
        return (
            f"{what} than {self.describe()}: the limit is ${self.variable}={self.text}; "
            "set it higher to allow more"
        )


def human_bytes(count: Number) -> str:
    """``count`` bytes in binary units, e.g. ``4.0 GiB``."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if abs(count) < 1024:
            return f"{count:.1f} {unit}" if unit != "bytes" else f"{count} bytes"
        count /= 1024
    return f"{count:.1f} TiB"


__all__ = ["Limit", "human_bytes"]
