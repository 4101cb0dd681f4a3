"""CompilerGym's environment wrappers, over the CompilerGym-API env (``step`` returns
``(observation, reward, done, info)``).

A wrapper forwards everything it does not change to the env it wraps (``wrapper.env``), so
``wrapper.state``, ``wrapper.validate()``, ``wrapper.observation["Ir"]`` are the env's. Wrappers
that change actions override :meth:`CompilerEnvWrapper.multistep`, which ``step`` calls.
"""

from __future__ import annotations

import copy
import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Optional

import numpy as np

from compiler_gym.envs.compiler_env import CompilerEnv, timeout_kwargs
from compiler_gym.spaces import Commandline


def _is_sequence(action: Any) -> bool:
    return isinstance(action, (list, tuple)) or getattr(action, "ndim", 0) >= 1


class CompilerEnvWrapper:
    """The base wrapper: every call and attribute goes to ``self.env``."""

    def __init__(self, env: Any):
        self.env = env

    def reset(self, *args, **kwargs):
        """Starts an episode (the env's ``reset``)."""
        return self.env.reset(*args, **kwargs)

    def step(
        self,
        action: Any,
        observation_spaces=None,
        reward_spaces=None,
        observations=None,
        rewards=None,
        timeout: Optional[float] = None,
    ):
        """One action (or a sequence of them), through :meth:`multistep`, by keyword as
        CompilerGym calls it (so a wrapper's ``multistep(self, actions, **kwargs)`` works;
        ``timeout`` is passed only when given, for wrappers written without it)."""
        actions = list(action) if _is_sequence(action) else [action]
        return self.multistep(
            actions=actions,
            observation_spaces=observation_spaces,
            reward_spaces=reward_spaces,
            observations=observations,
            rewards=rewards,
            **timeout_kwargs(timeout),
        )

    def multistep(
        self,
        actions: Iterable[Any],
        observation_spaces=None,
        reward_spaces=None,
        observations=None,
        rewards=None,
        timeout: Optional[float] = None,
    ):
        """Applies actions (the env's ``multistep``); wrappers that change actions override
        this, which ``step`` calls."""
        return self.env.multistep(
            list(actions),
            observation_spaces=observation_spaces,
            reward_spaces=reward_spaces,
            observations=observations,
            rewards=rewards,
            **timeout_kwargs(timeout),
        )

    def try_actions(self, actions, reward_space=None, observation_space=None):
        """The env's :meth:`~compiler_gym.envs.CompilerEnv.try_actions`, for wrappers that
        change neither actions, rewards nor observations; the others convert the candidates
        (action wrappers) or refuse (``NotImplementedError``), never answer for other actions."""
        return self.env.try_actions(actions, reward_space, observation_space)

    def _cannot_try(self, what: str) -> NotImplementedError:
        """The refusal of a wrapper whose conversion try_actions would bypass."""
        return NotImplementedError(
            f"{type(self).__name__} converts {what}: try_actions() cannot; use fork()"
        )

    def _candidates(self, actions, convert) -> list[list[Any]]:
        """Each candidate (an action or a sequence of them) as a list of env actions."""
        return [[convert(a) for a in (c if _is_sequence(c) else [c])] for c in actions]

    def fork(self) -> CompilerEnvWrapper:
        """A copy of this wrapper over a fork of the env."""
        new = copy.copy(self)
        new.env = self.env.fork()
        return new

    def close(self) -> None:
        """Closes the env."""
        self.env.close()

    @property
    def unwrapped(self) -> CompilerEnv:
        """The innermost env."""
        return self.env.unwrapped

    # The spaces are set on the env, not shadowed on the wrapper.
    @property
    def action_space(self) -> Commandline:
        """The env's action space; setting it sets the env's."""
        return self.env.action_space

    @action_space.setter
    def action_space(self, value: Any) -> None:
        self.env.action_space = value

    @property
    def observation_space(self):
        """The env's observation space; setting it sets the env's."""
        return self.env.observation_space

    @observation_space.setter
    def observation_space(self, value: Any) -> None:
        self.env.observation_space = value

    @property
    def reward_space(self):
        """The env's reward space; setting it sets the env's."""
        return self.env.reward_space

    @reward_space.setter
    def reward_space(self, value: Any) -> None:
        self.env.reward_space = value

    @property
    def episode_reward(self) -> Optional[float]:
        """The env's episode reward; setting it sets the env's (CompilerGym's)."""
        return self.env.episode_reward

    @episode_reward.setter
    def episode_reward(self, value: float) -> None:
        self.env.episode_reward = value

    @property
    def benchmark(self):
        """The env's benchmark; setting it sets the env's (used from its next ``reset``)."""
        return self.env.benchmark

    @benchmark.setter
    def benchmark(self, value: Any) -> None:
        self.env.benchmark = value

    def __getattr__(self, name: str) -> Any:
        if name == "env":  # not set yet (copying): no recursion
            raise AttributeError(name)
        return getattr(self.env, name)

    def __enter__(self):
        return self

    def __exit__(self, *args) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"


class ActionWrapper(CompilerEnvWrapper):
    """Maps each action through :meth:`action` before the env sees it."""

    def multistep(self, actions, *args, **kwargs):
        return self.env.multistep([self.action(a) for a in actions], *args, **kwargs)

    def action(self, action: Any) -> Any:
        """The env's action for the wrapper's ``action``."""
        raise NotImplementedError

    def try_actions(self, actions, reward_space=None, observation_space=None):
        """The env's ``try_actions`` on the candidates mapped through :meth:`action`."""
        return self.env.try_actions(
            self._candidates(actions, self.action), reward_space, observation_space
        )

    def reverse_action(self, action: Any) -> Any:
        """The wrapper's action for the env's ``action``."""
        raise NotImplementedError


class ObservationWrapper(CompilerEnvWrapper, ABC):
    """Maps the observation of ``reset`` and ``step`` through :meth:`convert_observation`
    (abstract, as CompilerGym's: a subclass without it cannot be made)."""

    def reset(self, *args, **kwargs):
        return self.convert_observation(self.env.reset(*args, **kwargs))

    def multistep(self, actions, *args, **kwargs):
        observation, reward, done, info = self.env.multistep(list(actions), *args, **kwargs)
        return self.convert_observation(observation), reward, done, info

    @abstractmethod
    def convert_observation(self, observation: Any) -> Any:
        """The wrapper's observation for the env's ``observation``."""

    def try_actions(self, actions, reward_space=None, observation_space=None):
        """Refused: the candidates' observations would bypass :meth:`convert_observation`."""
        if observation_space is None:
            return self.env.try_actions(actions, reward_space)
        raise self._cannot_try("observations")


class RewardWrapper(CompilerEnvWrapper, ABC):
    """Maps the reward of ``step`` through :meth:`convert_reward` (abstract, as CompilerGym's).
    The converted reward is what counts in ``episode_reward`` (and so in ``state.reward``):
    the env's sum has the step's reward taken out and the converted one put in."""

    def multistep(self, actions, *args, **kwargs):
        observation, reward, done, info = self.env.multistep(list(actions), *args, **kwargs)
        converted = self.convert_reward(reward)
        counted = isinstance(reward, (int, float, np.number)) and isinstance(
            converted, (int, float, np.number)
        )
        if counted and self.episode_reward is not None:
            self.unwrapped.episode_reward += float(converted) - float(reward)
        return observation, converted, done, info

    def try_actions(self, actions, reward_space=None, observation_space=None):
        """Refused: the candidates' rewards would bypass :meth:`convert_reward`."""
        raise self._cannot_try("rewards")

    @abstractmethod
    def convert_reward(self, reward: Any) -> Any:
        """The wrapper's reward for the env's ``reward``."""


class ConversionWrapperEnv(CompilerEnvWrapper):
    """A wrapper that converts the observation and/or action spaces: subclasses set
    ``self.observation_space`` / ``self.action_space`` on the wrapper (they do not reach the
    env) and convert values with :meth:`convert_observation` / :meth:`convert_action`."""

    def __init__(self, env: Any):
        super().__init__(env)
        self._action_space: Optional[Any] = None
        self._observation_space: Optional[Any] = None

    @property
    def action_space(self):
        """The wrapper's converted action space once a subclass sets it, else the env's; setting it
        sets the wrapper's only."""
        return self._action_space if self._action_space is not None else self.env.action_space

    @action_space.setter
    def action_space(self, value: Any) -> None:
        self._action_space = value

    @property
    def observation_space(self):
        """The wrapper's converted observation space once a subclass sets it, else the env's;
        setting it sets the wrapper's only."""
        if self._observation_space is not None:
            return self._observation_space
        return self.env.observation_space

    @observation_space.setter
    def observation_space(self, value: Any) -> None:
        self._observation_space = value

    def reset(self, *args, **kwargs):
        return self.convert_observation(self.env.reset(*args, **kwargs))

    def multistep(self, actions, *args, **kwargs):
        actions = [self.convert_action(a) for a in actions]
        observation, reward, done, info = self.env.multistep(actions, *args, **kwargs)
        return self.convert_observation(observation), reward, done, info

    def convert_action(self, action: Any) -> Any:
        """The env's action for the wrapper's ``action``; the default returns it as is."""
        return action

    def try_actions(self, actions, reward_space=None, observation_space=None):
        """The env's ``try_actions`` on the candidates mapped through :meth:`convert_action`;
        refused with an observation space (it would bypass :meth:`convert_observation`)."""
        if observation_space is not None:
            raise self._cannot_try("observations")
        return self.env.try_actions(self._candidates(actions, self.convert_action), reward_space)

    def convert_observation(self, observation: Any) -> Any:
        """The wrapper's observation for the env's ``observation``; the default returns it as is."""
        return observation


class TimeLimit(CompilerEnvWrapper):
    """Ends an episode after ``max_episode_steps`` actions: ``done`` is then true and
    ``info["TimeLimit.truncated"]`` says whether the limit (rather than the env) ended it."""

    def __init__(self, env: Any, max_episode_steps: Optional[int] = None):
        super().__init__(env)
        if max_episode_steps is not None and max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be at least 1, got {max_episode_steps}")
        self._max_episode_steps = max_episode_steps
        self._elapsed_steps = len(env.actions) if env.in_episode else 0

    def reset(self, *args, **kwargs):
        self._elapsed_steps = 0
        return self.env.reset(*args, **kwargs)

    def multistep(self, actions, *args, **kwargs):
        actions = list(actions)
        observation, reward, done, info = self.env.multistep(actions, *args, **kwargs)
        self._elapsed_steps += len(actions)
        if self._max_episode_steps is not None and self._elapsed_steps >= self._max_episode_steps:
            info["TimeLimit.truncated"] = not done
            done = True
        return observation, reward, done, info


class CommandlineWithTerminalAction(CompilerEnvWrapper):
    """Adds a last action to the command line action space that ends the episode (the agent
    decides when to stop); it changes nothing in the program."""

    def __init__(self, env: Any, terminal_flag: str = "# end-of-episode"):
        super().__init__(env)
        self._terminal = env.action_space.n
        inner: Commandline = env.action_space
        self._space = inner.derived(f"{inner.name}/terminal", [*inner.flags, terminal_flag])

    @property
    def action_space(self) -> Commandline:
        """The env's command line space with the terminal flag added as the last action
        (read-only)."""
        return self._space

    def multistep(self, actions, *args, **kwargs):
        actions = [self._space[a] if isinstance(a, str) else a for a in actions]
        for a in actions:  # checked against this space: the env's is one action shorter
            if (
                isinstance(a, (int, np.integer))
                and not isinstance(a, bool)
                and not 0 <= a < self._space.n
            ):
                raise ValueError(
                    f"Out-of-range action: action {a} is out of range [0, {self._space.n})"
                )
        ends = self._terminal in actions
        if ends:
            actions = actions[: actions.index(self._terminal)]
        observation, reward, done, info = self.env.multistep(actions, *args, **kwargs)
        if ends:
            info["terminal_action"] = True
        return observation, reward, done or ends, info

    def try_actions(self, actions, reward_space=None, observation_space=None):
        """The env's ``try_actions``; a candidate stops at the terminal action, which changes
        nothing (alone, it is worth 0)."""

        def until_terminal(candidate: list[Any]) -> list[Any]:
            return (
                candidate[: candidate.index(self._terminal)]
                if self._terminal in candidate
                else candidate
            )

        candidates = [
            until_terminal(c)
            for c in self._candidates(
                actions, lambda a: self._space[a] if isinstance(a, str) else a
            )
        ]
        return self.env.try_actions(candidates, reward_space, observation_space)


class ConstrainedCommandline(ActionWrapper):
    """Restricts the command line action space to ``flags`` (in that order): action ``i`` of
    the wrapper is ``flags[i]`` of the env."""

    def __init__(self, env: Any, flags: Sequence[str], name: Optional[str] = None):
        super().__init__(env)
        if not flags:
            raise ValueError("ConstrainedCommandline needs at least one flag")
        inner: Commandline = env.action_space
        self._forward = [inner[flag] for flag in flags]  # LookupError for an unknown flag
        # A flag listed twice (CompilerGym's examples do) is two actions; the env's action
        # maps back to the first.
        self._reverse: dict[int, int] = {}
        for i, a in enumerate(self._forward):
            self._reverse.setdefault(a, i)
        subset = [inner.flags[a] for a in self._forward]
        self._space = inner.derived(name or f"{inner.name}/subset", subset)

    @property
    def action_space(self) -> Commandline:
        """The constrained space: ``flags`` in the given order (read-only)."""
        return self._space

    def action(self, action: Any) -> Any:
        """The env's action for one of this space's (an index or a flag), or the env's actions
        for a list of them (CompilerGym's)."""
        if _is_sequence(action):
            return [self.action(a) for a in action]
        index = self._space[action] if isinstance(action, str) else action
        if not isinstance(index, (int, np.integer)) or isinstance(index, (bool, np.bool_)):
            raise ValueError(f"an action must be an integer, got {action!r}")
        if not 0 <= index < self._space.n:
            raise ValueError(
                f"Out-of-range action: action {index} is out of range [0, {self._space.n})"
            )
        return self._forward[int(index)]

    def reverse_action(self, action: Any) -> Any:
        """This space's action for one of the env's, or for each of a list of them."""
        if _is_sequence(action):
            return [self.reverse_action(a) for a in action]
        return self._reverse[int(action)]

    @property
    def actions(self) -> list[int]:
        """The episode's actions, as indices of the constrained space."""
        return [self.reverse_action(a) for a in self.env.actions]


class IterateOverBenchmarks(CompilerEnvWrapper):
    """Each ``reset()`` takes the next benchmark of ``benchmarks``; ``StopIteration`` when
    they run out. A fork shares the iterator with ``fork_shares_iterator=True``; otherwise
    it goes on through a copy of it, from where the original is (as CompilerGym's does)."""

    def __init__(self, env: Any, benchmarks: Iterable[Any], fork_shares_iterator: bool = False):
        super().__init__(env)
        self.benchmarks = iter(benchmarks)
        self.fork_shares_iterator = fork_shares_iterator

    def reset(self, benchmark: Any = None, **kwargs):
        if benchmark is not None:
            raise TypeError(f"{type(self).__name__} chooses the benchmark: reset() takes none")
        return self.env.reset(benchmark=self._next_benchmark(), **kwargs)

    def _next_benchmark(self) -> Any:
        return next(self.benchmarks)

    def fork(self) -> IterateOverBenchmarks:
        new = super().fork()
        if not self.fork_shares_iterator:
            self.benchmarks, new.benchmarks = itertools.tee(self.benchmarks)
        return new


class CycleOverBenchmarks(IterateOverBenchmarks):
    """Each ``reset()`` takes the next benchmark of ``benchmarks``, forever, in order."""

    def __init__(self, env: Any, benchmarks: Iterable[Any], fork_shares_iterator: bool = False):
        super().__init__(env, itertools.cycle(benchmarks), fork_shares_iterator)


class CycleOverBenchmarksIterator(IterateOverBenchmarks):
    """Like :class:`CycleOverBenchmarks`, with a new iterator from
    ``make_benchmark_iterator()`` each time the last one runs out (for iterables too large
    to hold, such as a generator's benchmarks). A fork starts over with an iterator of its
    own, as CompilerGym's does (with ``fork_shares_iterator=True`` it shares this one)."""

    def __init__(
        self,
        env: Any,
        make_benchmark_iterator: Callable[[], Iterable[Any]],
        fork_shares_iterator: bool = False,
    ):
        super().__init__(env, make_benchmark_iterator(), fork_shares_iterator)
        self.make_benchmark_iterator = make_benchmark_iterator

    def _next_benchmark(self) -> Any:
        try:
            return next(self.benchmarks)
        except StopIteration:
            self.benchmarks = iter(self.make_benchmark_iterator())
            return next(self.benchmarks)

    def fork(self) -> CycleOverBenchmarksIterator:
        """A copy over a fork of the env, cycling from a new ``make_benchmark_iterator()``."""
        new = CompilerEnvWrapper.fork(self)
        if not self.fork_shares_iterator:
            new.benchmarks = iter(self.make_benchmark_iterator())
        return new


class RandomOrderBenchmarks(IterateOverBenchmarks):
    """Each ``reset()`` takes a benchmark of ``benchmarks`` chosen uniformly at random
    (with replacement) by ``rng`` (a ``numpy.random.Generator``)."""

    def __init__(
        self,
        env: Any,
        benchmarks: Iterable[Any],
        rng: Optional[np.random.Generator] = None,
    ):
        self._benchmarks = list(benchmarks)
        if not self._benchmarks:
            raise ValueError("RandomOrderBenchmarks needs at least one benchmark")
        self.rng = rng if rng is not None else np.random.default_rng()
        super().__init__(env, iter(()), fork_shares_iterator=True)

    def _next_benchmark(self) -> Any:
        return self._benchmarks[int(self.rng.integers(len(self._benchmarks)))]


class Counter(CompilerEnvWrapper):
    """Counts the calls of ``reset``, ``step`` (one per ``step`` or ``multistep`` call),
    ``fork`` and ``close`` in ``counters``. A fork counts afresh."""

    def __init__(self, env: Any):
        super().__init__(env)
        self.counters = {"close": 0, "fork": 0, "reset": 0, "step": 0}

    def reset(self, *args, **kwargs):
        self.counters["reset"] += 1
        return self.env.reset(*args, **kwargs)

    def multistep(self, actions, *args, **kwargs):
        self.counters["step"] += 1
        return self.env.multistep(list(actions), *args, **kwargs)

    def fork(self) -> Counter:
        self.counters["fork"] += 1
        return Counter(self.env.fork())

    def close(self) -> None:
        self.counters["close"] += 1
        self.env.close()


class ForkOnStep(CompilerEnvWrapper):
    """Forks the env before each step and keeps the forks in ``stack``, so :meth:`undo`
    goes back one step."""

    def __init__(self, env: Any):
        super().__init__(env)
        self.stack: list[Any] = []

    def undo(self) -> Any:
        """Returns to the state before the last step (nothing happens at the episode's
        start) and returns the env."""
        if self.stack:
            self.env.close()
            self.env = self.stack.pop()
        return self.env

    def reset(self, *args, **kwargs):
        self._close_stack()
        return self.env.reset(*args, **kwargs)

    def multistep(self, actions, *args, **kwargs):
        self.stack.append(self.env.fork())
        return self.env.multistep(list(actions), *args, **kwargs)

    def fork(self) -> ForkOnStep:
        return ForkOnStep(self.env.fork())

    def close(self) -> None:
        self._close_stack()
        self.env.close()

    def _close_stack(self) -> None:
        for env in self.stack:
            env.close()
        self.stack = []


class ValidateBenchmarkAfterEveryStep(CompilerEnvWrapper):
    """Checks the program after every step with the benchmark's ``ivalidate(env)`` (its
    behaviour for a runnable benchmark, and its validation callbacks), as CompilerGym's
    wrapper does; the first error ends the episode with ``reward_penalty``, the
    :class:`~compiler_gym.ValidationError` in ``info["error_details"]``."""

    def __init__(self, env: Any, reward_penalty: float = -1e3):
        super().__init__(env)
        self.reward_penalty = reward_penalty

    def multistep(self, actions, *args, **kwargs):
        observation, reward, done, info = self.env.multistep(list(actions), *args, **kwargs)
        if done:
            return observation, reward, done, info
        # The benchmark's own checks, as CompilerGym's wrapper runs them: the first error
        # found ends the episode.
        error = next(iter(self.env.benchmark.ivalidate(self.env)), None)
        if error is not None:
            info["error_details"] = error
            if isinstance(reward, list):
                reward = [self.reward_penalty for _ in reward]
            else:
                reward = self.reward_penalty
            done = True
        return observation, reward, done, info
