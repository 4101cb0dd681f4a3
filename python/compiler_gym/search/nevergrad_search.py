"""Black-box search with nevergrad (as CompilerGym's paper, whose best LLVM code-size result
came from nevergrad): a fixed-length action sequence per trial, trials evaluated side by side
in one vector engine."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any, Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.datasets import Benchmark
from compiler_gym.search.budget import CallCost, Deadline, engine_threads
from compiler_gym.search.checking import search_checker
from compiler_gym.search.random_search import (
    SearchProgress,
    SearchRun,
    search_budget,
    search_target,
    search_vec,
)

#: The trials of a search given neither ``budget`` nor ``runtime``.
DEFAULT_TRIALS = 1000


class CategoricalVector:
    """Categorical variables as one real vector, which nevergrad's discrete optimizers
    search quickly where one ``ng.p.Choice`` per variable costs more than the trial (0.35 s
    per ask/tell for 515 GCC options): coordinate i is read as the quantile of a standard
    normal over ``counts[i]`` equally likely values, so a mutation that draws a new normal
    value draws a uniform choice. ``start`` gives the first point's choices."""

    def __init__(self, counts: Sequence[int], start: Optional[Sequence[int]] = None, seed=0):
        import nevergrad as ng

        self.counts = np.asarray(counts, dtype=np.int64)
        start = start if start is not None else [0] * len(self.counts)
        init = [
            NormalDist().inv_cdf((i + 0.5) / n) for i, n in zip(start, self.counts, strict=True)
        ]
        self.parametrization = ng.p.Array(init=init)
        self.parametrization.random_state = np.random.RandomState(seed)
        self._cdf = np.vectorize(lambda x: 0.5 * (1.0 + math.erf(x / math.sqrt(2.0))))

    def decode(self, x: np.ndarray) -> list[int]:
        """The choice of each variable at point ``x``."""
        return np.minimum((self._cdf(x) * self.counts).astype(np.int64), self.counts - 1).tolist()

    def optimizer(self, name: str, budget: Optional[int], num_workers: int = 1) -> Any:
        """A nevergrad optimizer (``name`` in ``nevergrad.optimizers.registry``) over this
        vector, for ``budget`` trials (None: unbounded) with up to ``num_workers`` asks at a
        time."""
        import nevergrad as ng

        return ng.optimizers.registry[name](
            parametrization=self.parametrization, budget=budget, num_workers=num_workers
        )


def nevergrad_search(
    env: Any,
    benchmark: Union[str, Benchmark, None] = None,
    reward_space: Optional[str] = None,
    episode_length: int = 30,
    budget: Optional[int] = None,
    runtime: Optional[float] = None,
    optimizer: str = "DiscreteLenglerOnePlusOne",
    num_envs: int = 8,
    num_threads: int = 0,
    seed: int = 0,
    parameters: Optional[dict[str, Any]] = None,
    validate: Optional[bool] = None,
    sanitizers: Sequence[str] = (),
    on_unrunnable: str = "warn",
) -> tuple[CompilerEnvState, SearchProgress]:
    """Searches sequences of ``episode_length`` actions for the highest episode reward with
    a nevergrad optimizer (any name of ``nevergrad.optimizers.registry``), ``num_envs``
    trials at a time: each batch of asks is one ``make_vec`` step of ``episode_length``
    actions per env. A trial the compiler fails on scores below any other. Returns the best
    state and the search's progress (``episodes`` counts trials).

    ``env`` is an env id (then ``benchmark`` is needed) or an env, whose id, benchmark,
    reward space and ``parameters`` are the search's unless given (the env is not stepped).
    The budget is that of every search: ``budget`` trials and/or ``runtime`` seconds,
    whichever runs out first; a runtime alone is a time budget (trials unbounded), neither
    is 1000 trials. The seconds count as random search's, from the call to its return, but
    for the set-up that comes before the program is loaded (making the engine and the
    optimizer: importing nevergrad takes seconds, once per process): with a runtime, each
    batch of trials is as many as the batches so far say end in time (the first, one per
    engine thread).

    Validation (``validate``, ``sanitizers``, ``on_unrunnable``) as
    :func:`~compiler_gym.search.random_search`'s: a trial becomes the best only once its
    program behaves like the unoptimized one; a trial refused scores for the optimizer as
    one the compiler failed on."""
    env_id, benchmark, reward_space, parameters = search_target(
        "nevergrad_search", env, benchmark, reward_space, parameters
    )
    budget, runtime = search_budget(budget, runtime, DEFAULT_TRIALS)
    vec, benchmark = search_vec(
        "nevergrad_search",
        env_id,
        benchmark,
        reward_space,
        num_envs,
        num_threads,
        seed,
        actions_per_step=episode_length,
        parameters=parameters,
    )
    space = vec.env_action_space
    # Set up before the clock starts, as the envs are: importing nevergrad takes seconds.
    first = np.random.default_rng(seed).integers(space.n, size=episode_length)
    vector = CategoricalVector([space.n] * episode_length, start=first, seed=seed)
    opt = vector.optimizer(optimizer, budget, num_workers=num_envs)
    deadline = Deadline(runtime)
    with vec:
        vec.reset()
        with search_checker(
            env,
            env_id,
            benchmark,
            parameters,
            validate,
            sanitizers,
            num_threads,
            space.name,
            on_unrunnable,
            "nevergrad_search",
            deadline,
        ) as checker:
            run = SearchRun(budget, runtime, checker=checker, unit="trial", deadline=deadline)
            cost = CallCost(min(num_envs, engine_threads(num_threads)))
            while not run.done(cost.predict([episode_length]), episode_length):
                left = num_envs if budget is None else min(num_envs, budget - run.progress.episodes)
                if runtime is not None:
                    # As many trials as the batches so far say end in time, keeping time for a
                    # check; the first batch, one per thread.
                    check = checker.estimate(episode_length) if checker.enabled else 0.0
                    fit = cost.most_that_fit(deadline.left() - check, [episode_length] * left)
                    left = fit if cost.known else min(left, cost.threads)
                    if left == 0:
                        run.done(next_round=math.inf)  # records that time ran out
                        break
                asks = [opt.ask() for _ in range(left)]
                trials = [vector.decode(a.value) for a in asks]
                start = time.perf_counter()
                rewards, terminated = _run_trials(vec, trials, episode_length)
                took = time.perf_counter() - start
                cost.add([episode_length] * len(trials), took)
                # A replay's pace, for checks: an action of the busiest thread.
                checker.action_seconds(took / cost.load([episode_length] * len(trials)))
                scores = [-math.inf if terminated[k] else float(rewards[k]) for k in range(left)]
                refused = run.add_round(list(zip(scores, trials, strict=True)))
                for k, ask in enumerate(asks):
                    # nevergrad minimizes; a failed or refused trial scores below every real one.
                    ok = math.isfinite(scores[k]) and k not in refused
                    opt.tell(ask, -scores[k] if ok else 1e12)
    return run.finish(env_id, benchmark, space.name, parameters, space=space)


def _run_trials(vec: Any, trials: list[list[int]], episode_length: int) -> tuple[Any, Any]:
    """The rewards of ``trials`` (each ``episode_length`` actions), one per env of ``vec``
    from the first, and whether each ended in an error; the envs are reset to the benchmark
    after. All the envs step at once when there is a trial for each, as before budgets cut
    batches; else only those with a trial."""
    n = vec.num_envs
    if len(trials) == n:
        _, rewards, terminated, _, _ = vec.step(np.asarray(trials, dtype=np.int64))
        vec.reset()  # each trial starts from the benchmark
        return rewards, terminated
    rows = np.arange(len(trials))
    vec.send(np.asarray(trials, dtype=np.int64).reshape(len(trials), episode_length), rows)
    _, rewards, terminated, _, info = vec.recv()
    order = np.argsort(np.asarray(info["env_id"]))  # recv gives them as they finish
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    vec.reset(options={"reset_mask": mask})
    return np.asarray(rewards)[order], np.asarray(terminated)[order]
