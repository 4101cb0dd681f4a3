"""CompilerGym's ``compiler_gym.random_search``: the random search of the env that a
``make_env`` callable makes, with CompilerGym's log files. The search itself is
:func:`compiler_gym.search.random_search` (episodes side by side in one vector engine)."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.random_replay import (
    BEST_ACTIONS_FILE,
    COMMANDLINE_FILE,
    METADATA_FILE,
    PROGRESS_FILE,
    read_metadata,
    replay_actions,
)
from compiler_gym.search import random_search as search_random
from compiler_gym.spaces import Reward


def random_search(
    make_env: Callable[[], Any],
    outdir: Optional[Union[str, Path]] = None,
    total_runtime: Optional[float] = 600,
    patience: int = 0,
    nproc: Optional[int] = None,
    skip_done: bool = False,
    validate: Optional[bool] = None,
    sanitizers: Sequence[str] = (),
) -> Any:
    """Searches for ``total_runtime`` seconds (None: 100 episodes, the searches' default budget)
    from the env ``make_env()`` returns (its benchmark and reward space), with ``nproc`` random
    episodes at a time (default: the CPU count) that end after ``patience`` steps without
    improvement (0: the number of actions). Returns that env in the best state found. With
    ``outdir``, writes CompilerGym's logs there (see :func:`write_search_logs`); with
    ``skip_done`` an ``outdir`` that holds a finished search's best command line is replayed
    instead of searched again. ``validate`` and ``sanitizers`` are
    :func:`compiler_gym.search.random_search`'s: by default a runnable benchmark's best state
    is one whose program runs like the unoptimized one."""
    env = make_env()
    try:
        if outdir is not None and skip_done and (Path(outdir) / COMMANDLINE_FILE).is_file():
            commandline = (Path(outdir) / COMMANDLINE_FILE).read_text().strip()
            env.apply(CompilerEnvState(str(env.benchmark.uri), commandline, 0.0))
            return env
        reward = env.reward_space
        if reward is None:
            raise ValueError("random_search() needs an env with a reward space")
        if isinstance(reward, Reward):
            raise TypeError(f"random_search() searches engine rewards; {reward.name} is Python's")
        _, progress = search_random(
            env.env_id,
            env.benchmark,
            reward_space=reward.name,
            patience=patience,
            episodes=None,
            runtime=total_runtime,
            num_envs=nproc or os.cpu_count() or 1,
            parameters=env.parameters,
            record=False,  # the best actions are replayed once, below, in the env returned
            validate=validate,
            sanitizers=sanitizers,
        )
        if outdir is not None:  # the logs replay the best actions in the env
            write_search_logs(
                outdir,
                env,
                progress.best_actions,
                [(seconds, best) for seconds, _, best in progress.history],
                {
                    "patience": patience,
                    "runtime": total_runtime,
                    "episodes": progress.episodes,
                    "validated": progress.validated,
                    "refused": progress.refused,
                },
            )
        else:
            env.reset()
            if progress.best_actions:
                env.multistep(progress.best_actions)
        return env
    except BaseException:
        env.close()
        raise


def write_search_logs(
    outdir: Union[str, Path],
    env: Any,
    actions: Sequence[int],
    history: Sequence[tuple[float, float]],
    settings: Optional[dict] = None,
) -> None:
    """Writes a finished search's logs, as CompilerGym's random search did, replaying its best
    ``actions`` in ``env`` from the start of its benchmark (which leaves ``env`` in the best
    state); ``history`` is (seconds, best reward) at each improvement. Files:
    ``random_search.json`` (env, benchmark, reward space, best reward, ``settings``),
    ``random_search_progress.csv`` and those of :func:`replay_actions`."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    reward = replay_actions(env, [env.action_space.flags[a] for a in actions], outdir)
    metadata = {
        "env": env.env_id,
        "benchmark": str(env.benchmark.uri),
        "reward": env.reward_space.name if env.reward_space is not None else None,
        "best_reward": reward,
        **(settings or {}),
    }
    (outdir / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n")
    with open(outdir / PROGRESS_FILE, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["runtime_seconds", "reward"])
        writer.writerows(history)


def read_search_logs(logdir: Union[str, Path]) -> tuple[dict, list[str]]:
    """A random search's metadata (:data:`~compiler_gym.random_replay.METADATA_FILE`) and
    its best actions (their names, from ``random_search_best_actions.txt``) in ``logdir``;
    ``ValueError`` when the directory is not a random search's."""
    logdir = Path(logdir)
    metadata = read_metadata(logdir)
    actions_path = logdir / BEST_ACTIONS_FILE
    if not actions_path.is_file():
        raise ValueError(
            f"not a random search's output directory: {logdir} (no {actions_path.name})"
        )
    actions = [line.strip() for line in actions_path.read_text().splitlines() if line.strip()]
    return metadata, actions


def replay_actions_from_logs(env: Any, logdir: Union[str, Path], benchmark=None) -> None:
    """CompilerGym's: replays the best actions of the random search logged in ``logdir`` in
    ``env``, with the search's reward space, on ``benchmark`` (default: the search's), and
    writes the replay's logs there (see :func:`~compiler_gym.random_replay.replay_actions`).
    Leaves ``env`` in the best state; ``ValueError`` when ``logdir`` is not a random
    search's."""
    metadata, actions = read_search_logs(logdir)
    if metadata.get("reward") is not None:
        env.reward_space = metadata["reward"]
    env.reset(benchmark=benchmark or metadata["benchmark"])
    replay_actions(env, actions, logdir)


__all__ = ["random_search", "read_search_logs", "replay_actions_from_logs", "write_search_logs"]
