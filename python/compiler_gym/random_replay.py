"""CompilerGym's ``compiler_gym.random_replay``: replay a search's best actions in an env and
log each step, as CompilerGym's random search leaves them in its output directory."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Union

# The files of a random search's output directory, as CompilerGym names them.
METADATA_FILE = "random_search.json"  # env, benchmark, reward space, best reward, settings
PROGRESS_FILE = "random_search_progress.csv"  # (seconds, best reward) at each improvement
BEST_ACTIONS_FILE = "random_search_best_actions.txt"  # one action name a line
BEST_ACTIONS_PROGRESS_FILE = "random_search_best_actions_progress.csv"  # a row per step
COMMANDLINE_FILE = "random_search_best_actions_commandline.txt"


def read_metadata(outdir: Union[str, Path]) -> dict:
    """The search's metadata (:data:`METADATA_FILE`) in ``outdir``; ``ValueError`` when the
    directory is not a random search's or the file is not a JSON object."""
    path = Path(outdir) / METADATA_FILE
    if not path.is_file():
        raise ValueError(f"not a random search's output directory: {outdir} (no {path.name})")
    try:
        metadata = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    if not isinstance(metadata, dict):
        raise ValueError(f"{path}: not a JSON object")
    return metadata


def replay_actions(env: Any, action_names: Sequence[str], outdir: Union[str, Path]) -> float:
    """Resets ``env`` and steps through ``action_names`` (flags of its action space), writing
    to ``outdir``: ``random_search_best_actions_progress.csv`` (one row per step: reward,
    cumulative reward, seconds, action), ``random_search_best_actions.txt`` (the names, one
    per line), ``random_search_best_actions_commandline.txt`` (``env.commandline()``) and, for
    an env that writes bitcode (LLVM's), ``optimized.bc``. Returns the episode's reward;
    ``ValueError`` if a step ends the episode in an error."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    env.reset()
    rows = []
    start = time.perf_counter()
    for name in action_names:
        _, reward, done, info = env.step(env.action_space[name])
        rows.append((reward, env.episode_reward, time.perf_counter() - start, name))
        if done and info.get("error_type"):
            raise ValueError(f"replaying {name} ended the episode: {info.get('error_details')}")
    with open(outdir / BEST_ACTIONS_PROGRESS_FILE, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["reward", "cumulative reward", "runtime", "action"])
        writer.writerows(rows)
    (outdir / BEST_ACTIONS_FILE).write_text("".join(f"{n}\n" for n in action_names))
    (outdir / COMMANDLINE_FILE).write_text(env.commandline() + "\n")
    if hasattr(env, "write_bitcode"):
        env.write_bitcode(outdir / "optimized.bc")
    return float(env.episode_reward or 0.0)


__all__ = [
    "BEST_ACTIONS_FILE",
    "BEST_ACTIONS_PROGRESS_FILE",
    "COMMANDLINE_FILE",
    "METADATA_FILE",
    "PROGRESS_FILE",
    "read_metadata",
    "replay_actions",
]
