"""Hints for unknown names (spaces, actions, datasets, benchmarks, environment ids)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'X'?"`` naming the closest of ``known`` (up to three), or an empty
    string when none is close: the tail of an error message about an unknown ``name``."""
    close = difflib.get_close_matches(str(name), list(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
