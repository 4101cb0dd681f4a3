"""CompilerGym's ``compiler_gym.random_replay``: replay a search's best actions in an env and
log each step, as CompilerGym's random search leaves them in its output directory."""

from __future__ import annotations

import csv
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Union


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
    with open(outdir / "random_search_best_actions_progress.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["reward", "cumulative reward", "runtime", "action"])
        writer.writerows(rows)
    (outdir / "random_search_best_actions.txt").write_text("".join(f"{n}\n" for n in action_names))
    (outdir / "random_search_best_actions_commandline.txt").write_text(env.commandline() + "\n")
    if hasattr(env, "write_bitcode"):
        env.write_bitcode(outdir / "optimized.bc")
    return float(env.episode_reward or 0.0)


__all__ = ["replay_actions"]
