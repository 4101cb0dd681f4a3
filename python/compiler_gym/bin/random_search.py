"""CompilerGym's ``random_search`` tool: ``compiler_gym.bin.search --search random``;
its flags are that tool's.

    python -m compiler_gym.bin.random_search --benchmark builtin-v0/qsort --output results.csv
"""

from __future__ import annotations

import sys

from compiler_gym.bin.search import main as search_main


def main(argv=None) -> int:
    """Runs the search tool with ``--search random``."""
    return search_main(["--search", "random", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
