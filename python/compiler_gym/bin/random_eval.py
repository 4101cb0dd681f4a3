"""Summarize the logs of random searches: one table row per search, and the geomean.

    python -m compiler_gym.bin.random_eval --output_dir=/path/to/logs [more dirs ...]

Each ``--output_dir`` is a random search's output directory (``random_search.json`` and
``random_search_progress.csv``, as ``compiler_gym.random_search.random_search`` or CompilerGym
wrote them), or a directory whose subdirectories are, one per benchmark. A row says the
search's best reward, when it was found, in how many episodes and with how many actions;
the last rows are the geomean and mean over the searches. The exit status is 2 on bad input.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Optional

from compiler_gym.random_replay import (
    BEST_ACTIONS_FILE,
    METADATA_FILE,
    PROGRESS_FILE,
    read_metadata,
)
from compiler_gym.util.cli import argument_parser, parse_args, user_errors
from compiler_gym.util.statistics import arithmetic_mean, geometric_mean
from compiler_gym.util.tabulate import tabulate
from compiler_gym.util.timer import humanize_duration

_HEADERS = ("Benchmark", "Reward space", "Best reward", "Found after", "Episodes", "#. actions")


def _search_dirs(output_dir: Path) -> list[Path]:
    """``output_dir`` when a search wrote it, else its subdirectories that a search wrote;
    ValueError when there are none."""
    if not output_dir.is_dir():
        raise ValueError(f"Directory not found: {output_dir}")
    if (output_dir / METADATA_FILE).is_file():
        return [output_dir]
    dirs = sorted(d for d in output_dir.iterdir() if (d / METADATA_FILE).is_file())
    if not dirs:
        raise ValueError(f"no random search logs in {output_dir} (no {METADATA_FILE})")
    return dirs


def _read_search(search_dir: Path) -> dict:
    """A search's row: its metadata, joined with the last row of its progress log (the final
    improvement). This package's logs say the episodes and the best reward in the metadata,
    CompilerGym's in the progress log; the actions are counted when the log lacks them."""
    metadata, progress_path = read_metadata(search_dir), search_dir / PROGRESS_FILE
    if not progress_path.is_file():
        raise ValueError(f"{search_dir}: no {PROGRESS_FILE}")
    with open(progress_path, newline="") as f:
        rows = list(csv.DictReader(f))
    last = rows[-1] if rows else {}
    try:
        best = metadata.get("best_reward", last.get("reward"))
        seconds = last.get("runtime_seconds")
        episodes = metadata.get("episodes", last.get("total_episode_count"))
        actions = last.get("num_passes")
        if actions is None and (search_dir / BEST_ACTIONS_FILE).is_file():
            actions = len((search_dir / BEST_ACTIONS_FILE).read_text().split())
        return {
            "benchmark": str(metadata.get("benchmark") or search_dir.name),
            "reward": metadata.get("reward") or "-",
            "best": None if best in (None, "") else float(best),
            "seconds": None if seconds in (None, "") else float(seconds),
            "episodes": None if episodes in (None, "") else int(episodes),
            "actions": None if actions in (None, "") else int(actions),
        }
    except (TypeError, ValueError) as e:
        raise ValueError(f"{search_dir}: unreadable search logs ({e})") from None


def _text(value: Optional[float], format: str = "{}") -> str:
    return "-" if value is None else format.format(value)


def summarize(output_dirs: list[Path]) -> str:
    """The table of the searches in ``output_dirs`` (see the module's docstring)."""
    searches = [_read_search(d) for output_dir in output_dirs for d in _search_dirs(output_dir)]
    rows = [
        (
            s["benchmark"],
            s["reward"],
            _text(s["best"], "{:.4f}"),
            "-" if s["seconds"] is None else humanize_duration(s["seconds"]),
            _text(s["episodes"], "{:,}"),
            _text(s["actions"], "{:,}"),
        )
        for s in searches
    ]
    bests = [s["best"] for s in searches if s["best"] is not None]
    rows.append(("Geomean", "", f"{geometric_mean(bests):.4f}", "", "", ""))
    rows.append(("Average", "", f"{arithmetic_mean(bests):.4f}", "", "", ""))
    return tabulate(rows, headers=_HEADERS, disable_numparse=True)  # the cells are formatted


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns 0, or 2 on bad input."""
    parser = argument_parser("compiler_gym.bin.random_eval", __doc__)
    parser.add_argument(
        "--output_dir",
        required=True,
        nargs="+",
        action="extend",
        help="random search output directories, or directories of them",
    )
    args = parse_args(parser, argv)
    print(summarize([Path(d).expanduser().resolve() for d in args.output_dir]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
