"""Random search, as CompilerGym's: random episodes that end after ``patience`` steps
without improvement, the best prefix of any episode kept; here the episodes run side by side
in one ``make_vec`` engine."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.datasets import Benchmark
from compiler_gym.search.budget import Deadline, engine_threads
from compiler_gym.search.checking import SemanticsChecker, search_checker
from compiler_gym.spaces import Reward
from compiler_gym.util import cli

if TYPE_CHECKING:
    from compiler_gym.vector import CompilerVecEnv


# guide(observations, episode actions per env) -> action probabilities per env
Guide = Callable[[np.ndarray, list[list[int]]], np.ndarray]


@dataclass
class SearchProgress:
    """Where a search stands: episodes finished, seconds spent, the best reward so far and
    when each improvement came (``history``: (seconds, episodes, best reward)); once it ends,
    ``best_actions``, the actions of its best state.

    Validation in the loop (:mod:`compiler_gym.search.checking`): ``validated`` says whether
    the search checked its candidates, ``refused`` how many failed (their programs behaved
    unlike the unoptimized one), ``checks`` how many programs were run (a verdict cached by
    ``IrSha1`` runs none) and ``check_seconds`` the time spent checking (part of
    ``seconds``). ``validation`` says the same in words: ``"on"``, ``"off"``, or
    ``"unavailable: <why>"`` where the search meant to validate but its program cannot be
    checked (it then searched unvalidated, and warned once).

    ``timed_out`` says that the time budget ended the search, maybe in the middle of a round
    (candidates left unevaluated, or a check not started because it would not have ended in
    time)."""

    episodes: int = 0
    seconds: float = 0.0
    best_reward: float = -np.inf
    history: list[tuple[float, int, float]] = field(default_factory=list)
    best_actions: list[int] = field(default_factory=list)
    validated: bool = False
    refused: int = 0
    checks: int = 0
    check_seconds: float = 0.0
    validation: str = "off"
    timed_out: bool = False

    def count_checks(self, checker: SemanticsChecker) -> None:
        """Takes the validation counts of ``checker`` (the search's)."""
        self.validated = checker.enabled
        self.validation = checker.status
        self.refused, self.checks = checker.refused, checker.checks
        self.check_seconds = checker.seconds

    def add_episode(self, reward: float, seconds: float, finished: bool = True) -> bool:
        """Counts a finished episode whose best prefix earned ``reward`` (one the budget cut
        short, with ``finished=False``, is not counted but can still be the best); returns
        whether it is a new best (strictly: among equals the first finished stays the best)."""
        self.episodes += int(finished)
        if not reward > self.best_reward:
            return False
        self.best_reward = float(reward)
        self.history.append((seconds, self.episodes, self.best_reward))
        return True


#: The episodes of a random search given neither ``episodes`` nor ``runtime``.
DEFAULT_EPISODES = 100


def search_budget(
    episodes: Optional[int], runtime: Optional[float], default: int
) -> tuple[Optional[int], Optional[float]]:
    """The budget model of every search: ``episodes`` (or trials) and ``runtime`` seconds
    as given, the search ending at whichever runs out first; a runtime alone is a time
    budget (episodes unbounded), and neither means ``default`` episodes."""
    if episodes is None and runtime is None:
        return default, None
    return episodes, runtime


def search_target(
    search: str,
    env: Any,
    benchmark: Union[str, Benchmark, None],
    reward_space: Optional[str],
    parameters: Optional[dict[str, Any]] = None,
) -> tuple[str, Union[str, Benchmark], Optional[str], Optional[dict[str, Any]]]:
    """What every search is called on, as (env id, benchmark, reward space, parameters):
    an env id and a ``benchmark``, or an env, whose id, benchmark, engine reward space and
    parameters stand in for those not given (and whose datasets resolve a URI)."""
    if isinstance(env, str):
        if benchmark is None:
            raise ValueError(f"{search}() needs a benchmark with an env id")
        return env, benchmark, reward_space, parameters
    if isinstance(benchmark, str):  # the env's datasets may hold ones the user added
        benchmark = env.datasets.benchmark(benchmark)
    if reward_space is None and env.reward_space is not None:
        if isinstance(env.reward_space, Reward):  # the search's engines compute their rewards
            raise TypeError(
                f"{search}() searches engine rewards; {env.reward_space.name} is Python's"
            )
        reward_space = env.reward_space.name
    return (
        env.env_id,
        env.benchmark if benchmark is None else benchmark,
        reward_space,
        env.parameters if parameters is None else parameters,
    )


def check_budget(
    search: str,
    patience: int,
    episodes: Optional[int],
    runtime: Optional[float],
    max_episode_length: Optional[int] = None,
):
    """ValueError, naming ``search``, unless a random search's budget can end it."""
    if episodes is None and runtime is None:
        raise ValueError(f"{search}() needs an episodes or a runtime budget")
    if (
        patience < 0
        or (episodes is not None and episodes < 1)
        or (runtime is not None and runtime <= 0)
        or (max_episode_length is not None and max_episode_length < 1)
    ):
        raise ValueError(
            f"{search}() needs patience >= 0 (0: the number of actions), episodes >= 1, "
            f"runtime > 0 and max_episode_length >= 1, got {patience}, {episodes}, {runtime}, "
            f"{max_episode_length}"
        )


class SearchRun:
    """A search under way, from its start to its recorded best state: its budget
    (``episodes`` and/or ``runtime`` seconds, None: no limit), its :class:`SearchProgress` and
    the actions of its best result so far. The searches here (local or on Ray) count their
    results through it, so that they count, stop, validate and record alike.

        run = SearchRun(episodes, runtime, callback, checker)
        while not run.done():
            ...
            run.add_round([(reward, actions), ...])
        state, progress = run.finish(env_id, benchmark, action_space)

    With an enabled ``checker`` (:func:`~compiler_gym.search.checking.search_checker`) a
    result becomes the best only once its program behaves like the unoptimized one.

    The budget's clock is ``deadline`` (default: ``runtime`` from now; :meth:`begin` starts it
    again). The run ends before a round or a check that would end past it: :meth:`done`
    takes the next round's expected seconds, and keeps time for one more check (of the
    episodes under way when time runs out); a check that would not fit is not started, and
    its result is not taken.

    On a terminal, a progress bar counts the results (``unit``: episodes, trials) against
    ``episodes`` with the best reward so far, until :meth:`finish` (none under a tool's
    ``--quiet``: :func:`compiler_gym.util.cli.progress`).
    """

    def __init__(
        self,
        episodes: Optional[int],
        runtime: Optional[float],
        callback: Optional[Callable[[SearchProgress], None]] = None,
        checker: Optional[SemanticsChecker] = None,
        unit: str = "episode",
        deadline: Optional[Deadline] = None,
    ):
        self.episodes = episodes
        self.runtime = runtime
        self.callback = callback
        self.deadline = deadline if deadline is not None else Deadline(runtime)
        self.checker = checker if checker is not None and checker.enabled else None
        if self.checker is not None and self.checker.deadline is None:
            self.checker.deadline = self.deadline
        self.progress = SearchProgress()
        if checker is not None:  # an unavailable check has its probe to count
            self.progress.count_checks(checker)
        self.best_actions: list[int] = []
        self.bar = cli.progress(total=episodes, unit=unit, desc="search", leave=False)
        self._timed_out = False

    def begin(self) -> None:
        """Starts the clock again: the search's envs are made and reset, its steps begin (the
        ``runtime`` budget is the search's, not the set-up's)."""
        self.deadline.restart()

    def elapsed(self) -> float:
        """Seconds since the search began."""
        return self.deadline.elapsed()

    def add(self, reward: float, actions: Sequence[int], finished: bool = True) -> None:
        """Counts one result (a finished episode's best prefix, a trial): see
        :meth:`add_round`."""
        self.add_round([(reward, actions)], finished)

    def add_round(
        self, results: Sequence[tuple[float, Sequence[int]]], finished: bool = True
    ) -> set[int]:
        """Counts the results of one round (each ``(reward, actions)``, in the search's
        order), each as :meth:`add` would one by one, and keeps the actions of a new best;
        those past the ``episodes`` budget are dropped (a round can end more episodes than
        the budget has left). ``finished=False``: see :meth:`SearchProgress.add_episode`.
        Returns the indices of the results refused.

        With a checker, a result that would be a new best is checked first, and one that
        fails is refused (it counts as an episode, never as the best). So the outcome does
        not depend on how results are grouped in rounds (a Ray search's are larger), and
        without a refusal it is the unchecked search's. The next results that would be new
        bests too are checked beside it, up to the checker's workers: each of them needs its
        check whatever the first one's verdict."""
        if finished and self.episodes is not None:
            results = results[: max(0, self.episodes - self.progress.episodes)]
        refused: set[int] = set()
        verdicts: dict[int, bool] = {}
        for i, (reward, actions) in enumerate(results):
            checking = self.checker is not None and self.checker.enabled  # may turn off
            if checking and reward > self.progress.best_reward:
                # However short the budget, the first result is checked: a search returns
                # one (the best of the first step's episodes, at least).
                first = not np.isfinite(self.progress.best_reward)
                if i not in verdicts and (first or self.checker.can_check(len(actions))):
                    verdicts.update(self._check_from(results, i))
                    self.progress.count_checks(self.checker)
                if i not in verdicts:  # no time left to check it: not taken
                    self._timed_out = True
                    reward = -np.inf
                elif not verdicts[i]:
                    refused.add(i)
                    reward = -np.inf  # counted as an episode, never the best
            if self.progress.add_episode(reward, self.elapsed(), finished):
                self.best_actions = [int(a) for a in actions]
            if finished and self.callback:
                self.callback(self.progress)
        self.bar.set_postfix(best=f"{self.progress.best_reward:.4g}", refresh=False)
        self.bar.update(self.progress.episodes - self.bar.n)  # redraws at most 10 times a second
        return refused

    def _check_from(
        self, results: Sequence[tuple[float, Sequence[int]]], i: int
    ) -> dict[int, bool]:
        """The verdicts of result ``i`` and of the next ones that beat every result before
        them (new bests whatever the verdicts), up to the checker's workers (one at a time
        under a time budget: each check is then one that fits)."""
        batch, top = [i], results[i][0]
        workers = 1 if self.runtime is not None else self.checker.workers
        for j in range(i + 1, len(results)):
            if len(batch) == workers:
                break
            if results[j][0] > top:
                batch.append(j)
                top = results[j][0]
        passed = self.checker.passes([results[j][1] for j in batch])
        return dict(zip(batch, passed, strict=True))

    def add_unfinished(
        self,
        best: np.ndarray,
        actions: Sequence[Sequence[int]],
        best_length: Sequence[int],
        rows: Optional[Sequence[int]] = None,
    ) -> set[int]:
        """When time ran out mid-episode, the best prefix of the episodes under way (each
        slot's ``best`` reward, episode ``actions`` and ``best_length``, in slot order; only
        those of ``rows`` where given) counts too: a short budget may end before the first
        episode does. With a checker, the next best prefix stands in for one that is refused.
        Returns the slots whose prefix was refused."""
        rows = range(len(best)) if rows is None else rows
        order = sorted(rows, key=lambda i: -best[i])  # the first of equals first
        if self.checker is None:
            order = order[:1]
        refused = self.add_round(
            [(best[i], actions[i][: best_length[i]]) for i in order], finished=False
        )
        return {order[i] for i in refused}

    @property
    def timed_out(self) -> bool:
        """Whether the time budget ended the run: at the last :meth:`done`, or by leaving no
        time for a check."""
        return self._timed_out

    def done(self, next_round: float = 0.0, check_actions: Optional[int] = 0) -> bool:
        """Whether the budget has run out (the seconds are counted up to now), or would
        before a next round of ``next_round`` seconds and one more check (of a state
        ``check_actions`` actions long; None: no check awaited) end."""
        self.progress.seconds = self.elapsed()
        full = self.episodes is not None and self.progress.episodes >= self.episodes
        checking = self.checker is not None and self.checker.enabled
        reserve = next_round
        if checking and check_actions is not None:
            reserve += self.checker.estimate(check_actions)
        if self.runtime is not None and not self.deadline.allows(reserve):
            self._timed_out = True
        return full or self._timed_out

    def resume(self, next_round: float) -> bool:
        """After :meth:`done` ran out of time for a round and a check, and the check was made
        (:meth:`add_unfinished`): whether a round of ``next_round`` seconds still fits, and
        then the run goes on (no longer timed out)."""
        if self.runtime is None or not self.deadline.allows(next_round):
            return False
        self._timed_out = False
        return True

    def finish(
        self,
        env_id: str,
        benchmark: Union[str, Benchmark],
        action_space: Optional[str],
        parameters: Optional[dict[str, Any]] = None,
        record: bool = True,
        space: Any = None,
    ) -> tuple[Optional[CompilerEnvState], SearchProgress]:
        """The best state (:func:`record_state`, in ``space`` where given; None without
        ``record``, for a caller that replays ``progress.best_actions`` itself) and the
        progress, which ends with them."""
        self.bar.close()
        progress = self.progress
        progress.best_actions = list(self.best_actions)
        progress.timed_out = self.timed_out
        if self.checker is not None:
            progress.count_checks(self.checker)
            # A last check (of the episodes under way) comes after the budget's last count.
            progress.seconds = max(progress.seconds, self.elapsed())
        if not record:
            return None, progress
        # No result at all (no time for one) is the benchmark as it is: a reward of 0.
        reward = progress.best_reward if np.isfinite(progress.best_reward) else 0.0
        state = record_state(
            env_id,
            benchmark,
            progress.best_actions,
            progress.seconds,
            reward,
            action_space,
            parameters,
            space,
        )
        return state, progress


class RandomEpisodes:
    """The random search's episodes in some of its env slots (``slots``, of ``num_envs``),
    stepped in one vector engine ``vec`` of ``len(slots)`` envs.

    Each :meth:`step` draws the actions of all ``num_envs`` slots from the search's random
    stream and applies those of its own slots, so a slot's episodes depend only on the seed
    and that slot: the search's slots can be split between engines (and machines) and still
    give exactly the episodes of one engine. Slot 0 first follows ``first_episode``.
    An episode ends after ``patience`` steps without improvement or ``max_episode_length``
    steps (None: twice the number of actions or of ``patience``, whichever is more).
    """

    def __init__(
        self,
        vec: CompilerVecEnv,
        slots: Sequence[int],
        num_envs: int,
        patience: int,
        first_episode: Sequence[int] = (),
        max_episode_length: Optional[int] = None,
    ):
        self.vec = vec
        self.slots = np.asarray(list(slots), dtype=int)
        if len(self.slots) != vec.num_envs:
            raise ValueError(f"{len(self.slots)} slots for an engine of {vec.num_envs} envs")
        self.num_envs = num_envs
        self.num_actions = vec.env_action_space.n
        self.patience = patience or self.num_actions  # 0: as many as there are actions
        # On a large program nearly every pass removes something, so patience alone may
        # never end an episode within a short budget.
        self.max_length = max_episode_length or 2 * max(self.num_actions, self.patience)
        # The given episode belongs to slot 0, wherever that slot runs.
        self.given = [int(a) for a in first_episode] if 0 in self.slots else []
        self.actions: list[list[int]] = [[] for _ in self.slots]  # each slot's episode so far
        self.total = np.zeros(len(self.slots))
        self.best = np.zeros(len(self.slots))  # an empty prefix is worth 0
        self.best_length = np.zeros(len(self.slots), dtype=int)
        # The best prefix length of the episode under way already checked (-1: none) and
        # whether it was refused: a check made before its episode ends is not made again.
        self.checked_length = np.full(len(self.slots), -1)
        self.refused = np.zeros(len(self.slots), dtype=bool)
        self.observations: Optional[np.ndarray] = None
        self.steps = 0  # steps of the search's random stream taken so far

    def awaiting_check(self, best_reward: float) -> np.ndarray:
        """Which slots' best prefix so far would be a new best over ``best_reward`` and has
        not been checked (:meth:`checked`)."""
        return (self.best > best_reward) & (self.checked_length != self.best_length)

    def checked(self, rows: Sequence[int], refused: set[int]) -> None:
        """Notes that the best prefixes of ``rows`` were checked before their episodes
        ended, those of ``refused`` refused: when such an episode ends on that prefix, its
        result is worth nothing rather than checked again."""
        for i in rows:
            self.checked_length[i] = self.best_length[i]
            self.refused[i] = i in refused

    def reset(self, observe: bool = False) -> None:
        """Starts every slot's first episode; with ``observe``, keeps the engine's
        observations for a guide."""
        observations, _ = self.vec.reset()
        self.observations = np.array(observations) if observe else None

    def state(self) -> dict[str, Any]:
        """Where the slots' episodes stand, as plain data (numbers and lists) for
        :meth:`restore`, in this process or another."""
        return {
            "steps": self.steps,
            "given": list(self.given),
            "actions": [list(a) for a in self.actions],
            "total": self.total.tolist(),
            "best": self.best.tolist(),
            "best_length": self.best_length.tolist(),
        }

    def restore(self, state: dict[str, Any], observe: bool = False) -> None:
        """The slots as they were at ``state`` (from :meth:`state` of episodes in the same
        slots): the engine reset and each slot's episode so far replayed in it, so that the
        next :meth:`step` is the one that would have followed. ``observe`` as :meth:`reset`."""
        self.reset(observe)
        self.steps = int(state["steps"])
        self.given = [int(a) for a in state["given"]]
        self.actions = [[int(a) for a in actions] for actions in state["actions"]]
        self.total = np.array(state["total"], dtype=np.float64)
        self.best = np.array(state["best"], dtype=np.float64)
        self.best_length = np.array(state["best_length"], dtype=int)
        self.checked_length[:], self.refused[:] = -1, False
        # Depth by depth, the slots whose episode is that long step together (the others
        # stay where they are: send/recv step only the envs named).
        depth = 0
        while True:
            rows = [i for i, a in enumerate(self.actions) if len(a) > depth]
            if not rows:
                break
            self.vec.send(np.array([self.actions[i][depth] for i in rows]), np.array(rows))
            obs, _, terminated, _, info = self.vec.recv()
            if np.asarray(terminated).any():
                raise RuntimeError("an episode's action failed on replay")
            if self.observations is not None:
                self.observations[np.asarray(info["env_id"])] = obs
            depth += 1

    def step(self, rng: np.random.Generator, guide: Optional[Guide] = None):
        """One step of every slot; returns the episodes it ended, in slot order, as (slot,
        reward of the best prefix, the best prefix), and starts new ones in their slots.

        ``guide`` must score each row on that row alone, so that the split of the slots
        between engines does not change the actions."""
        mine = self.slots
        if guide is None:
            step = rng.integers(self.num_actions, size=self.num_envs)[mine]
        else:
            probabilities = np.asarray(guide(self.observations, self.actions), np.float64)
            cumulative = np.cumsum(probabilities, axis=1)
            draws = rng.random(self.num_envs)[mine] * cumulative[:, -1]
            step = np.minimum((cumulative < draws[:, None]).sum(axis=1), self.num_actions - 1)
        self.steps += 1
        first = 0 if self.given else -1  # the row of slot 0 while it follows the given episode
        if first >= 0:
            first = int(np.flatnonzero(mine == 0)[0])
            if len(self.actions[first]) < len(self.given):
                step[first] = self.given[len(self.actions[first])]
        obs, rewards, terminated, _, _ = self.vec.step(step)
        if self.observations is not None:  # a copy: the engine reuses its slabs
            self.observations = np.array(obs)
        rewards = np.asarray(rewards, dtype=np.float64)
        ended = np.zeros(len(mine), dtype=bool)
        for i in range(len(mine)):
            if terminated[i]:  # a failed step is worth nothing: the episode ends before it
                ended[i] = True
                continue
            self.actions[i].append(int(step[i]))
            self.total[i] += rewards[i]
            if self.total[i] > self.best[i]:
                self.best[i], self.best_length[i] = self.total[i], len(self.actions[i])
            ended[i] = (
                len(self.actions[i]) - self.best_length[i] >= self.patience
                or len(self.actions[i]) >= self.max_length
            )
        if first >= 0 and not terminated[first]:
            ended[first] = ended[first] and len(self.actions[first]) >= len(self.given)
        finished = []
        for i in np.flatnonzero(ended):
            if i == first:
                self.given = []
            refused = self.refused[i] and self.checked_length[i] == self.best_length[i]
            finished.append(
                (
                    int(mine[i]),
                    -np.inf if refused else float(self.best[i]),
                    self.actions[i][: self.best_length[i]],
                )
            )
            self.actions[i], self.total[i], self.best[i], self.best_length[i] = [], 0.0, 0.0, 0
            self.checked_length[i], self.refused[i] = -1, False
        if ended.any():
            obs, _ = self.vec.reset(options={"reset_mask": ended})
            if self.observations is not None:
                self.observations[ended] = np.asarray(obs)[ended]
        return finished


def record_state(
    env_id: str,
    benchmark: Union[str, Benchmark],
    actions: Sequence[int],
    walltime: float,
    reward: float,
    action_space: Optional[str] = None,
    parameters: Optional[dict[str, Any]] = None,
    space: Any = None,
) -> CompilerEnvState:
    """The state ``actions`` reach from ``benchmark``, recorded as the env records its own
    (``env.commandline()``: LLVM's passes, GCC's compile command line) so that ``apply`` and
    ``validate`` replay it: the actions are replayed in an env without a reward space. Given
    ``space``, the action space the actions index, and a family whose command line is that
    space's string of the actions (LLVM's), and a resolved Benchmark, no env is made: on a
    large program, making one and replaying takes a good part of a short search's budget."""
    from compiler_gym._engine import _C
    from compiler_gym.envs.compiler_env import CompilerEnv
    from compiler_gym.registration import family_class, make

    actions = [int(a) for a in actions]
    if space is not None and isinstance(benchmark, Benchmark):
        family = family_class(_C.env_spec(env_id)["family"])
        if family.commandline is CompilerEnv.commandline:
            uri = str(benchmark.uri)
            return CompilerEnvState(uri, space.to_string(actions), walltime, reward)
    with make(env_id, benchmark=benchmark, reward_space=None, parameters=parameters) as env:
        env.reset(action_space=action_space)
        if actions:
            env.multistep(actions)
        return CompilerEnvState(str(env.benchmark.uri), env.commandline(), walltime, reward)


def search_defaults(
    search: str,
    env_id: str,
    reward_space: Optional[str],
    parameters: Optional[dict[str, Any]] = None,
    benchmark: Union[str, Benchmark, None] = None,
) -> tuple[str, Any, Union[Benchmark, None]]:
    """What a search on ``env_id`` resolves in one env made with ``parameters``: its reward
    space (``reward_space`` or the env's, which it must then have), the env's default action
    space, and ``benchmark`` as a Benchmark of the env's datasets (None stays None)."""
    from compiler_gym.registration import make

    with make(env_id, parameters=parameters) as env:
        if benchmark is not None and not isinstance(benchmark, Benchmark):
            benchmark = env.datasets.benchmark(str(benchmark))
        reward_space = reward_space or (env.reward_space.name if env.reward_space else None)
        action_space = env.action_space
    if reward_space is None:
        raise ValueError(f"{search}() needs a reward space: {env_id} has none")
    return reward_space, action_space, benchmark


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
    parameters: Optional[dict[str, Any]] = None,
) -> tuple[CompilerVecEnv, Benchmark]:
    """The vector engine a search runs its trials in, all on one benchmark (resolved by the
    env's datasets), with ``observation_space`` (none by default) and ``reward_space`` or the
    env's own, which it must then have, and the envs' ``parameters`` (GCC's ``gcc_bin``...);
    and the benchmark."""
    from compiler_gym.vector import make_vec

    reward_space, _, benchmark = search_defaults(
        search, env_id, reward_space, parameters, benchmark
    )
    vec = make_vec(
        env_id,
        num_envs=num_envs,
        num_threads=num_threads,
        benchmarks=[benchmark],
        observation_space=observation_space,
        reward_space=reward_space,
        actions_per_step=actions_per_step,
        seed=seed,
        parameters=parameters,
        array_type="numpy",  # the search reads its outputs on the host: no torch to import
    )
    return vec, benchmark


def random_search(
    env: Any,
    benchmark: Union[str, Benchmark, None] = None,
    reward_space: Optional[str] = None,
    patience: int = 25,
    episodes: Optional[int] = None,
    runtime: Optional[float] = None,
    num_envs: int = 8,
    num_threads: int = 0,
    seed: int = 0,
    callback: Optional[Callable[[SearchProgress], None]] = None,
    guide: Optional[Guide] = None,
    observation_space: Optional[str] = None,
    first_episode: Sequence[int] = (),
    parameters: Optional[dict[str, Any]] = None,
    record: bool = True,
    max_episode_length: Optional[int] = None,
    validate: Optional[bool] = None,
    sanitizers: Sequence[str] = (),
    on_unrunnable: str = "warn",
) -> tuple[Optional[CompilerEnvState], SearchProgress]:
    """Runs random episodes on ``benchmark`` and returns the best state found, with the
    search's progress.

    ``env`` is an env id (then ``benchmark`` is needed) or an env, whose id, benchmark
    (unless ``benchmark`` names another), reward space and ``parameters`` (the envs'
    settings, as ``make``'s) are the search's unless given; the env itself is not stepped
    (``env.apply(state)`` puts it in the best state).

    Each episode takes uniformly random actions until ``patience`` steps (0: as many as there
    are actions) pass without a new best cumulative reward in that episode, or after
    ``max_episode_length`` steps (None: twice the number of actions or of ``patience``,
    whichever is more), or when the compiler fails; its best prefix is its result.
    ``num_envs`` episodes run at once in one vector engine.

    The budget: ``episodes`` episodes and/or ``runtime`` seconds, whichever runs out first; a
    runtime alone is a time budget (episodes unbounded), neither is 100 episodes. The seconds
    count from the call to its return, set-up, validation and recording included (and the
    program's load, the first time this process resets an env to it): a step of the episodes
    that would end past the budget is not taken (its time is predicted from the steps so
    far), nor a check, and ``progress.timed_out`` says so. When the time left no longer
    holds a step and the check of a prefix under way that would be a new best, that prefix is
    checked then, and the search goes on with the time left after it. Every env takes at
    least one step, and the best of the first results is checked, however short the budget;
    when time runs out, the best prefix of the episodes under way counts too. With a fixed
    seed and an ``episodes`` budget the result is exactly reproducible; ``callback`` sees the
    progress after each episode.

    A ``guide`` replaces the uniform choice (a policy guiding the search):
    ``guide(observations, episodes)`` gets each env's ``observation_space`` observation (a
    NumPy array, one row per env) and the actions of its episode so far, and returns the
    probability of each action per env. ``first_episode`` is taken as given (padded with
    sampled actions) by the first env, so the search is never worse than that sequence.

    Validation (``validate``; None: on for a runnable benchmark of a family that can check
    one, LLVM's): a result becomes the best only once its program behaves like the
    unoptimized one (built with ``sanitizers`` too, any of ``"address"``, ``"undefined"``).
    Only results that would be a new best are checked, by replaying them (in forks of
    ``env`` when an env is given, so the steps checked are its own), up to ``num_threads``
    side by side (0: the CPU count); the check time is part of the budget, and
    ``progress.refused`` and ``progress.check_seconds`` count it
    (:mod:`compiler_gym.search.checking`). The benchmark's unoptimized build is run first,
    and its start checked at the first refusal: where its program cannot run in the sandbox
    or does not behave like that build, validation is unavailable, and ``on_unrunnable``
    decides: ``"warn"`` (a
    :class:`~compiler_gym.errors.ValidationUnavailableWarning`, and the search goes
    on unvalidated, ``progress.validation`` saying why) or ``"raise"`` (a
    :class:`~compiler_gym.errors.ValidationUnavailableError` before any search).

    The best state is recorded by replaying ``progress.best_actions`` in a new env; with
    ``record=False`` the state is None, for a caller that replays them itself.
    """
    deadline = Deadline()  # set once the budget is known: from the call's start
    env_id, benchmark, reward_space, parameters = search_target(
        "random_search", env, benchmark, reward_space, parameters
    )
    episodes, runtime = search_budget(episodes, runtime, DEFAULT_EPISODES)
    check_budget("random_search", patience, episodes, runtime, max_episode_length)
    deadline.seconds = runtime
    rng = np.random.default_rng(seed)
    vec, benchmark = search_vec(
        "random_search",
        env_id,
        benchmark,
        reward_space,
        num_envs,
        num_threads,
        seed,
        observation_space=observation_space,
        parameters=parameters,
    )
    space = vec.env_action_space
    action_space = space.name
    with vec:
        slots = RandomEpisodes(
            vec, range(num_envs), num_envs, patience, first_episode, max_episode_length
        )
        slots.reset(observe=observation_space is not None)
        with search_checker(
            env,
            env_id,
            benchmark,
            parameters,
            validate,
            sanitizers,
            num_threads,
            action_space,
            on_unrunnable,
            "random_search",
            deadline,
        ) as checker:
            run = SearchRun(episodes, runtime, callback, checker, deadline=deadline)
            step_seconds = 0.0  # the slowest step so far: what the next one may take
            steps, stepping = 0, 0.0  # and their time: a replay's pace, for checks
            waves = -(-num_envs // engine_threads(num_threads))  # of one action each
            while True:  # at least one step, however short the budget
                start = time.perf_counter()
                ended = slots.step(rng, guide)
                took = time.perf_counter() - start
                step_seconds = max(step_seconds, took)
                steps, stepping = steps + 1, stepping + took
                checker.search_pace(stepping / steps / waves)
                run.add_round([(reward, prefix) for _, reward, prefix in ended])
                # Time is kept for a check of the longest prefix under way that would be a
                # new best (the others need none), and when that time runs short the check
                # is made now: the rest of the budget goes on searching, so that a search
                # takes the time it was given rather than stopping to keep time for a check.
                awaiting = np.flatnonzero(slots.awaiting_check(run.progress.best_reward))
                longest = int(slots.best_length[awaiting].max()) if len(awaiting) else None
                if run.done(step_seconds, longest):
                    if not (run.timed_out and len(awaiting) and checker.enabled):
                        break
                    slots.checked(
                        awaiting,
                        run.add_unfinished(
                            slots.best, slots.actions, slots.best_length, rows=awaiting
                        ),
                    )
                    if not run.resume(step_seconds):
                        break
            if run.timed_out:
                rows = np.flatnonzero(slots.checked_length != slots.best_length)
                run.add_unfinished(slots.best, slots.actions, slots.best_length, rows=rows)
    return run.finish(env_id, benchmark, action_space, parameters, record, space)
