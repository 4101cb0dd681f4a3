"""CompilerGym's ``greedy`` tool: ``compiler_gym.bin.search --search greedy``;
its flags are that tool's.

    python -m compiler_gym.bin.greedy --benchmark builtin-v0/qsort --output results.csv
"""

from __future__ import annotations

import sys

from compiler_gym.bin.search import main as search_main


def main(argv=None) -> int:
    """Runs the search tool with ``--search greedy``."""
    return search_main(["--search", "greedy", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
