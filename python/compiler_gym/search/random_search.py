"""Random search, as CompilerGym's: random episodes that end after ``patience`` steps
without improvement, the best prefix of any episode kept; here the episodes run side by side
in one ``make_vec`` engine."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.datasets import Benchmark

if TYPE_CHECKING:
    from compiler_gym.vector import CompilerVecEnv


# guide(observations, episode actions per env) -> action probabilities per env
Guide = Callable[[np.ndarray, list[list[int]]], np.ndarray]


@dataclass
class SearchProgress:
    """Where a search stands: episodes finished, seconds spent, the best reward so far and
    when each improvement came (``history``: (seconds, episodes, best reward))."""

    episodes: int = 0
    seconds: float = 0.0
    best_reward: float = -np.inf
    history: list[tuple[float, int, float]] = field(default_factory=list)


def search_vec(
    search: str,
    env_id: str,
    benchmark: Union[str, Benchmark],
    reward_space: Optional[str],
    num_envs: int,
    num_threads: int,
    seed: int,
    actions_per_step: int = 1,
    observation_space: Optional[str] = None,
) -> tuple[CompilerVecEnv, Benchmark]:
    """The vector engine a search runs its trials in, all on one benchmark (resolved by the
    env's datasets), with ``observation_space`` (none by default) and ``reward_space`` or the
    env's own, which it must then have; and the benchmark."""
    from compiler_gym.registration import make
    from compiler_gym.vector import make_vec

    with make(env_id) as env:
        if not isinstance(benchmark, Benchmark):
            benchmark = env.datasets.benchmark(str(benchmark))
        reward_space = reward_space or (env.reward_space.name if env.reward_space else None)
    if reward_space is None:
        raise ValueError(f"{search}() needs a reward space: {env_id} has none")
    vec = make_vec(
        env_id,
        num_envs=num_envs,
        num_threads=num_threads,
        benchmarks=[benchmark],
        observation_space=observation_space,
        reward_space=reward_space,
        actions_per_step=actions_per_step,
        seed=seed,
    )
    return vec, benchmark


def random_search(
    env_id: str,
    benchmark: Union[str, Benchmark],
    reward_space: Optional[str] = None,
    patience: int = 25,
    episodes: Optional[int] = 100,
    runtime: Optional[float] = None,
    num_envs: int = 8,
    num_threads: int = 0,
    seed: int = 0,
    callback: Optional[Callable[[SearchProgress], None]] = None,
    guide: Optional[Guide] = None,
    observation_space: Optional[str] = None,
    first_episode: Sequence[int] = (),
) -> tuple[CompilerEnvState, SearchProgress]:
    """Runs random episodes on ``benchmark`` and returns the best state found, with the
    search's progress.

    Each episode takes uniformly random actions until ``patience`` steps pass without a new
    best cumulative reward in that episode (or the compiler fails, which ends it); its best
    prefix is its result. ``num_envs`` episodes run at once in one vector engine. The search
    stops after ``episodes`` episodes or ``runtime`` seconds, whichever comes first (at least
    one must be given). With a fixed seed and an ``episodes`` budget the result is exactly
    reproducible; ``callback`` sees the progress after each episode.

    A ``guide`` replaces the uniform choice (a policy guiding the search):
    ``guide(observations, episodes)`` gets each env's ``observation_space`` observation (a
    NumPy array, one row per env) and the actions of its episode so far, and returns the
    probability of each action per env. ``first_episode`` is taken as given (padded with
    sampled actions) by the first env, so the search is never worse than that sequence.
    """
    if episodes is None and runtime is None:
        raise ValueError("random_search() needs an episodes or a runtime budget")
    rng = np.random.default_rng(seed)
    progress = SearchProgress()
    best_actions: list[int] = []
    start = time.perf_counter()
    vec, benchmark = search_vec(
        "random_search",
        env_id,
        benchmark,
        reward_space,
        num_envs,
        num_threads,
        seed,
        observation_space=observation_space,
    )
    with vec:
        observations, _ = vec.reset()
        observations = None if observation_space is None else observations.numpy().copy()
        n = vec.single_action_space.n
        given = [int(a) for a in first_episode]  # env 0's first episode follows it
        actions = [[] for _ in range(num_envs)]  # the current episode of each env
        total = np.zeros(num_envs)
        best = np.zeros(num_envs)  # an empty prefix is worth 0
        best_length = np.zeros(num_envs, dtype=int)

        def finish(i: int) -> None:
            nonlocal best_actions
            progress.episodes += 1
            if best[i] > progress.best_reward:
                progress.best_reward = float(best[i])
                best_actions = actions[i][: best_length[i]]
                progress.history.append(
                    (time.perf_counter() - start, progress.episodes, progress.best_reward)
                )
            actions[i], total[i], best[i], best_length[i] = [], 0.0, 0.0, 0

        def done() -> bool:
            progress.seconds = time.perf_counter() - start
            return (episodes is not None and progress.episodes >= episodes) or (
                runtime is not None and progress.seconds >= runtime
            )

        while not done():
            if guide is None:
                step = rng.integers(n, size=num_envs)
            else:
                probabilities = np.asarray(guide(observations, actions), np.float64)
                cumulative = np.cumsum(probabilities, axis=1)
                draws = rng.random(num_envs) * cumulative[:, -1]
                step = np.minimum((cumulative < draws[:, None]).sum(axis=1), n - 1)
            if given and len(actions[0]) < len(given):
                step[0] = given[len(actions[0])]
            obs, rewards, terminated, _, _ = vec.step(step)
            if observations is not None:  # a copy: the engine reuses its slabs
                observations = obs.numpy().copy()
            rewards = np.asarray(rewards, dtype=np.float64)
            ended = np.zeros(num_envs, dtype=bool)
            for i in range(num_envs):
                if terminated[i]:  # a failed step is worth nothing: the episode ends before it
                    ended[i] = True
                    continue
                actions[i].append(int(step[i]))
                total[i] += rewards[i]
                if total[i] > best[i]:
                    best[i], best_length[i] = total[i], len(actions[i])
                ended[i] = len(actions[i]) - best_length[i] >= patience
            if given and not terminated[0]:
                ended[0] = ended[0] and len(actions[0]) >= len(given)
            for i in np.flatnonzero(ended):
                if done():
                    break
                if i == 0:
                    given = []
                finish(int(i))
                if callback:
                    callback(progress)
            if ended.any():
                obs, _ = vec.reset(options={"reset_mask": ended})
                if observations is not None:  # the rows of the envs reset, in order
                    observations[ended] = obs.numpy()
        action_space = vec.single_action_space
    state = CompilerEnvState(
        benchmark=str(benchmark.uri),
        commandline=action_space.to_string(best_actions),
        walltime=progress.seconds,
        reward=max(progress.best_reward, 0.0),
    )
    return state, progress
