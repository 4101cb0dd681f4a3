"""CompilerGym's ``compiler_gym.util.tabulate``: the ``tabulate`` library's tables, plus
``tsv`` and ``csv`` for output that other programs read.

    >>> print(tabulate([("qsort", 0.9)], headers=("benchmark", "reward"), tablefmt="csv"))
    benchmark,reward
    qsort,0.9
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any, Optional

from tabulate import tabulate as _tabulate

_SEPARATORS = {"csv": ",", "tsv": "\t"}


def tabulate(
    rows: Iterable[Iterable[Any]],
    headers: Iterable[str],
    tablefmt: Optional[str] = "grid",
    disable_numparse: bool = False,
) -> str:
    """``rows`` under ``headers`` as a table in the format ``tablefmt``: ``"csv"`` and
    ``"tsv"`` write one line per row (quoted as the ``csv`` module does, each line ending in
    ``\\n``), any other name is a format of the ``tabulate`` library (``"grid"``, ``"plain"``,
    ``"github"``, ...). The library reads cells that look like numbers as numbers and prints
    them its way (``"0.9530"`` as ``0.953``); ``disable_numparse`` keeps text as written."""
    if tablefmt in _SEPARATORS:
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=_SEPARATORS[tablefmt], lineterminator="\n")
        writer.writerow([str(h) for h in headers])
        writer.writerows([str(value) for value in row] for row in rows)
        return buffer.getvalue()
    return _tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=disable_numparse)


__all__ = ["tabulate"]
