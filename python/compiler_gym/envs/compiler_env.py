"""CompilerEnv: the CompilerGym API over one C++ environment."""

from __future__ import annotations

import contextlib
import copy
import functools
import math
import time
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, Optional, Union

import gymnasium
import numpy as np

from compiler_gym._engine import _C
from compiler_gym._version import __version__
from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.datasets import Benchmark, BenchmarkUri, Datasets
from compiler_gym.envs.env_defaults import default_action_space, default_isolation
from compiler_gym.envs.state_summary import StateSummary
from compiler_gym.envs.state_validation import validate_state
from compiler_gym.errors import ServiceIsClosed, SessionNotFound
from compiler_gym.spaces import Commandline, EngineReward, ObservationSpaceSpec, Reward
from compiler_gym.util.names import did_you_mean
from compiler_gym.validation_result import ValidationResult
from compiler_gym.views import ObservationView, RewardView

ObservationSpaceArg = Optional[Union[str, ObservationSpaceSpec]]
RewardSpaceArg = Optional[Union[str, EngineReward, Reward]]


def _space_by_name(space: Any, spec_type: type, table: dict[str, Any], what: str) -> Any:
    """A space given by spec or by name (None stays None); LookupError for unknown names."""
    if space is None or isinstance(space, spec_type):
        return space
    if space not in table:
        # CompilerGym's text, then the closest names.
        hint = did_you_mean(space, table)
        raise LookupError(f"{what.capitalize()} space not found: {space}{hint}")
    return table[space]


@functools.cache
def _warn_unbounded_timeout() -> None:
    warnings.warn(
        "timeout= bounds a step only in a worker process (isolation='process'); "
        "this env runs in this process",
        stacklevel=4,
    )


def timeout_kwargs(timeout: Optional[float]) -> dict:
    """``timeout`` as a keyword argument, passed on only when given: a ``multistep`` written
    without it (a subclass's, a wrapper's) keeps working."""
    return {} if timeout is None else {"timeout": timeout}


def _is_default(space: Any) -> bool:
    """Whether a space argument asks for the id's default (a space object is never that)."""
    return isinstance(space, str) and space == "default"


class _Closed:
    """What a closed env holds instead of its engine env: any use says it is closed."""

    def __init__(self, name: str):
        self._name = name

    def __bool__(self) -> bool:
        return False

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):  # copy and pickle probe for hooks: there are none
            raise AttributeError(attribute)
        raise ServiceIsClosed(f"the {self._name} is closed")


class CompilerEnv:
    """A compiler optimization environment with CompilerGym's API.

    >>> env = compiler_gym.make("llvm-v0", benchmark="builtin-v0/qsort",
    ...                         observation_space="Autophase", reward_space="IrInstructionCount")
    >>> observation = env.reset()
    >>> observation, reward, done, info = env.step(env.action_space.sample())

    A family's subclass, the one in ``compiler_gym.envs.<family>_env`` whose ``family`` names
    the engine's family, says what the generic layers need of it: the spaces Gymnasium uses
    when an id has no default observation or reward (``gymnasium_observation``,
    ``gymnasium_reward``), the text observation ``render()`` shows (``render_observation``)
    and what tools that show states observe of each (``state_summary``).
    """

    family: Optional[str] = None
    # CompilerGym's key ("render.modes") and Gymnasium's ("render_modes"), the same modes.
    metadata = {"render.modes": ["human", "ansi"], "render_modes": ["human", "ansi"]}
    gymnasium_observation: Optional[str] = None
    gymnasium_reward: Optional[str] = None
    render_observation: Optional[str] = None
    state_summary: Optional[StateSummary] = None

    def __init__(
        self,
        env_id: str,
        datasets: Datasets,
        benchmark: Optional[Union[str, Benchmark]] = None,
        observation_space: ObservationSpaceArg = "default",
        reward_space: RewardSpaceArg = "default",
        action_space: Optional[str] = None,
        isolation: Optional[str] = None,
        parameters: Optional[dict[str, Any]] = None,
    ):
        """``isolation="process"`` runs the compiler in a worker process of the env's own:
        a crash, a step past ``worker.step_timeout_seconds`` (default 300) or memory past
        ``worker.memory_limit_mb`` (default 8192) ends the episode with ``info["error_type"]``
        ``CRASH``, ``DEADLINE_EXCEEDED`` or ``RESOURCE_EXHAUSTED``, and the next ``reset()``
        starts a new worker. The default, ``"none"`` (or ``$COMPILER_GYM_ISOLATION``), runs it
        in this process: faster, with crashes contained but no bound on a step's time.

        ``parameters`` are the family's settings (as :meth:`send_param`), applied when the env
        is made; some decide its spaces (GCC's ``gcc_bin``). ``observation_space`` and
        ``reward_space`` default to the id's; None gives none (no reward is computed).
        ``action_space`` defaults to the one ``$COMPILER_GYM_ACTION_SPACE`` names where the
        env has it (:func:`default_action_space`), else the id's.
        """
        entry = next((e for e in _C.env_ids() if e["id"] == env_id), None)
        if entry is None:
            known = [e["id"] for e in _C.env_ids()]
            raise LookupError(f"Unknown environment: {env_id!r}{did_you_mean(env_id, known)}")
        self.env_id = env_id
        self._entry = entry
        self.isolation = isolation or default_isolation()
        self.parameters = {str(k): str(v) for k, v in (parameters or {}).items()}
        self._env = _C.make_env(env_id, self.isolation, list(self.parameters.items()))
        spec = self._env.spec
        self.action_spaces: list[Commandline] = [
            self._make_action_space(a) for a in spec["action_spaces"]
        ]
        # Spaces taken only by name (LLVM's PassesAllUnsound): replays do not fall back to them.
        self._opt_in_spaces = {a["name"] for a in spec["action_spaces"] if a["opt_in"]}
        # An action found only in an opt-in space: the others' LookupError names that space.
        for opt_in in (s for s in self.action_spaces if s.name in self._opt_in_spaces):
            for space in self.action_spaces:
                if space is not opt_in:
                    space.opted_out.update(
                        dict.fromkeys(set(opt_in.names) - set(space.names), opt_in.name)
                    )
        self.observation = ObservationView(
            self,
            {
                s["name"]: ObservationSpaceSpec.from_dict(i, s, default)
                for i, (s, default) in enumerate(
                    zip(spec["observation_spaces"], spec["observation_defaults"], strict=True)
                )
            },
        )
        rewards = spec["reward_spaces"]
        self.reward = RewardView(
            self, {r["name"]: EngineReward.from_dict(i, r) for i, r in enumerate(rewards)}
        )
        self._add_spaces()  # before the spaces are chosen: make() may name a derived one
        self.datasets = datasets
        if action_space is None and "action_space" not in self.parameters:
            action_space = default_action_space([a.name for a in self.action_spaces])
        if action_space is not None:
            self.action_space = self._action_space_by_name(action_space)

        self._benchmark_in_use: Optional[Benchmark] = None
        self._next_benchmark: Optional[Benchmark] = None
        self.benchmark = benchmark or entry["default_benchmark"]
        self._observation_space: Optional[ObservationSpaceSpec] = None
        # The episode's sum of a reward space defined in Python; the engine keeps its own.
        self._python_episode_reward = 0.0
        # What setting episode_reward added to the sum (a RewardWrapper's converted rewards).
        self._episode_reward_offset = 0.0
        self._reward_space: Optional[EngineReward] = None
        self.observation_space = (
            entry["default_observation"] or None
            if _is_default(observation_space)
            else observation_space
        )
        self.reward_space = (
            entry["default_reward"] or None if _is_default(reward_space) else reward_space
        )
        self._episode_start: Optional[float] = None
        self.reward_range: tuple[float, float] = (-math.inf, math.inf)

    def _add_spaces(self) -> None:
        """A family's hook: adds the observation spaces it derives in Python (or refines the
        engine's), called when the env is made, before its spaces are chosen."""

    # ---------------------------------------------------------------------------------------
    # Spaces and benchmark.

    def _make_action_space(self, spec: dict) -> Commandline:
        """The action space of an engine spec (a family may give its command-line form)."""
        return Commandline(spec["name"], spec["action_names"])

    @property
    def action_space(self) -> Commandline:
        """The action space that ``step`` indexes (a family may have several: loop_tool's
        ``simple`` and ``split``); set it here, or by name with ``reset(action_space=...)``."""
        return self.action_spaces[self._env.action_space]

    @action_space.setter
    def action_space(self, space: Union[str, Commandline]) -> None:
        name = self._action_space_by_name(space if isinstance(space, str) else space.name).name
        self._env.action_space = [s.name for s in self.action_spaces].index(name)

    def _action_space_by_name(self, name: str) -> Commandline:
        for space in self.action_spaces:
            if space.name == name:
                return space
        names = [space.name for space in self.action_spaces]
        raise LookupError(f"Unknown action space: {name!r}{did_you_mean(name, names)}")

    @property
    def observation_space_spec(self) -> Optional[ObservationSpaceSpec]:
        """The spec of the default observation (name, space, properties); None when none."""
        return self._observation_space

    @property
    def observation_space(self) -> Optional[gymnasium.spaces.Space]:
        """The gymnasium space of the default observation (None when there is none)."""
        return self._observation_space.space if self._observation_space else None

    @observation_space.setter
    def observation_space(self, space: ObservationSpaceArg) -> None:
        self._observation_space = _space_by_name(
            space, ObservationSpaceSpec, self.observation.spaces, "observation"
        )

    @property
    def reward_space(self) -> Optional[EngineReward]:
        """The default reward space: an engine reward spec, a Python :class:`Reward`, or None."""
        return self._reward_space

    @reward_space.setter
    def reward_space(self, space: RewardSpaceArg) -> None:
        if isinstance(space, Reward):
            # A reward defined in Python: known by name from now on, like the engine's.
            self.reward.spaces[space.name] = space
            space.configure(self)
        self._reward_space = _space_by_name(
            space, (EngineReward, Reward), self.reward.spaces, "reward"
        )
        self.reward_range = (
            self._reward_space.reward_range if self._reward_space else (-math.inf, math.inf)
        )
        if self.in_episode:  # as CompilerGym: the episode's reward counts from here
            if isinstance(self._reward_space, EngineReward):
                self._env.restart_episode_reward(self._reward_space.index)
            self._python_episode_reward = 0.0
            self._episode_reward_offset = 0.0

    @property
    def episode_reward(self) -> Optional[float]:
        """The sum of the reward space's rewards over this episode's steps; None without a
        reward space or an episode. An error that ends the episode brings it back to 0."""
        if not self._env:
            return getattr(self, "_closed_episode_reward", None)
        if self._reward_space is None or not self.in_episode:
            return None
        if isinstance(self._reward_space, EngineReward):
            total = self._env.episode_reward(self._reward_space.index)
        else:
            total = self._python_episode_reward
        return total + self._episode_reward_offset

    @episode_reward.setter
    def episode_reward(self, value: float) -> None:
        """Sets the episode's reward so far, as CompilerGym's attribute is set (a
        :class:`~compiler_gym.wrappers.RewardWrapper` counts its converted rewards so); the
        steps that follow add to it. ``ValueError`` without a reward space or an episode."""
        current = self.episode_reward
        if current is None:
            raise ValueError("episode_reward is set during an episode with a reward space")
        self._episode_reward_offset += float(value) - current

    @property
    def reward_space_spec(self) -> Optional[Union[EngineReward, Reward]]:
        """The default reward space's spec, as CompilerGym named it (the same object as
        :attr:`reward_space`, which here is a spec already); None when none."""
        return self._reward_space

    @property
    def compiler_version(self) -> str:
        """The version of the compiler this env drives, as the family reports it: LLVM's
        (``"19.1.7"``), the first line of ``gcc --version`` for GCC."""
        return self._env.spec["compiler_version"]

    @property
    def version(self) -> str:
        """The version of this compiler_gym package (CompilerGym's ``env.version``)."""
        return __version__

    @property
    def benchmark(self) -> Benchmark:
        """The benchmark of the current episode; setting it takes effect at the next reset."""
        return self._benchmark_in_use or self._next_benchmark

    @benchmark.setter
    def benchmark(self, benchmark: Union[str, Benchmark]) -> None:
        if self.in_episode and isinstance(benchmark, (str, Benchmark, BenchmarkUri)):
            warnings.warn(
                "Changing the benchmark has no effect until reset() is called", stacklevel=2
            )
        self._set_next_benchmark(benchmark)

    def _set_next_benchmark(self, benchmark: Union[str, Benchmark, BenchmarkUri]) -> None:
        """The benchmark of the next episode, without the mid-episode warning (``reset``
        starts that episode at once)."""
        if not isinstance(benchmark, (str, Benchmark, BenchmarkUri)):
            raise TypeError(f"a benchmark is a URI or a Benchmark, not {benchmark!r}")
        if not isinstance(benchmark, Benchmark):
            current = self._next_benchmark or self._benchmark_in_use
            if current is not None and str(current.uri) == str(benchmark):
                # The URI of the benchmark in use: keep it (a user benchmark is in no dataset).
                benchmark = current
            else:
                benchmark = self.datasets.benchmark(str(benchmark))
        self._next_benchmark = benchmark

    @property
    def episode_walltime(self) -> float:
        """Seconds since the episode began (0 before the first reset), read when asked."""
        return 0.0 if self._episode_start is None else time.time() - self._episode_start

    @property
    def in_episode(self) -> bool:
        """Whether ``reset()`` has started an episode (one that an error ended still counts);
        False once the env is closed (``with env.fork() as f:`` leaves ``f`` so)."""
        return bool(self._env) and self._env.in_episode

    @property
    def actions(self) -> list[int]:
        """The actions applied in this episode, in order, as the engine recorded them."""
        return self._env.actions if self._env else []

    # ---------------------------------------------------------------------------------------
    # Episodes.

    def reset(
        self,
        benchmark: Optional[Union[str, Benchmark]] = None,
        action_space: Optional[str] = None,
        observation_space: ObservationSpaceArg = "default",
        reward_space: RewardSpaceArg = "default",
        timeout: Optional[float] = None,
    ) -> Any:
        """Starts an episode; returns the observation of the default space (or None).
        ``timeout`` bounds it in seconds, as :meth:`multistep`'s."""
        with self._deadline(timeout):
            return self._reset(benchmark, action_space, observation_space, reward_space)

    def _reset(self, benchmark, action_space, observation_space, reward_space) -> Any:
        if benchmark is not None:
            self._set_next_benchmark(benchmark)
        if action_space is not None:
            self.action_space = self._action_space_by_name(action_space)
        if observation_space != "default":
            self.observation_space = observation_space
        if reward_space != "default":
            self.reward_space = reward_space
        next_benchmark = self._next_benchmark or self._benchmark_in_use
        self._env.reset(next_benchmark.to_engine())
        self._benchmark_in_use = next_benchmark
        self._next_benchmark = None
        self._python_episode_reward = 0.0
        self._episode_reward_offset = 0.0
        self._episode_start = time.time()
        # Every user reward starts its episode here, whichever of them a step asks for.
        python_rewards = [s for s in self.reward.spaces.values() if isinstance(s, Reward)]
        if isinstance(self._reward_space, Reward) and self._reward_space not in python_rewards:
            python_rewards.append(self._reward_space)
        for space in python_rewards:
            space.reset(self.benchmark, self.observation)
        if isinstance(self._reward_space, EngineReward):
            # Rewards count from the start of the episode; computing it here fixes "prev".
            self._env.reward(self._reward_space.index)
        return self._observe(self._observation_space) if self._observation_space else None

    def _flags_to_indices(self, actions: Iterable[Any]) -> list[Any]:
        """Actions given by flag (``"-mem2reg"``) as indices; the engine checks the rest."""
        return [self.action_space[a] if isinstance(a, str) else a for a in actions]

    def _observe(self, spec: ObservationSpaceSpec) -> Any:
        return spec.translate(self._env.observe(spec.index))

    def _reward(self, reward: Union[EngineReward, Reward]) -> float:
        if isinstance(reward, Reward):
            observations = [self.observation[name] for name in reward.observation_spaces]
            return reward.update(self.actions, observations, self.observation)
        return self._env.reward(reward.index)

    def _resolve_observations(self, spaces) -> list[ObservationSpaceSpec]:
        return [self.observation.spaces[s] if isinstance(s, str) else s for s in spaces]

    def _resolve_rewards(self, spaces) -> list[EngineReward]:
        return [self.reward.spaces[s] if isinstance(s, str) else s for s in spaces]

    def multistep(
        self,
        actions: Iterable[int],
        observation_spaces: Optional[Sequence[ObservationSpaceArg]] = None,
        reward_spaces: Optional[Sequence[RewardSpaceArg]] = None,
        observations=None,
        rewards=None,
        timeout: Optional[float] = None,
    ):
        """Applies the actions in order, then computes observations and rewards once.

        Returns ``(observation, reward, done, info)``; with ``observation_spaces`` or
        ``reward_spaces`` the observation and reward are lists, one per space. ``timeout``
        (seconds, CompilerGym's argument) bounds this call where the env runs in a worker
        process (``isolation="process"``): past it the episode ends with ``info["error_type"]``
        ``DEADLINE_EXCEEDED``. An env in this process cannot cut a compiler off mid-pass, so
        there it only warns, once.
        """
        with self._deadline(timeout):
            return self._multistep(
                actions, observation_spaces, reward_spaces, observations, rewards
            )

    @contextlib.contextmanager
    def _deadline(self, timeout: Optional[float]):
        """The worker's step timeout set to ``timeout`` for one call."""
        if timeout is None:
            yield
            return
        if isinstance(timeout, bool) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if self.isolation != "process":
            _warn_unbounded_timeout()
            yield
            return
        before = self._env.get_parameter(_C.STEP_TIMEOUT_PARAMETER)
        self._env.set_parameter(_C.STEP_TIMEOUT_PARAMETER, str(float(timeout)))
        try:
            yield
        finally:
            self._env.set_parameter(_C.STEP_TIMEOUT_PARAMETER, before)

    def _multistep(self, actions, observation_spaces, reward_spaces, observations, rewards):
        observation_spaces = observation_spaces if observations is None else observations
        reward_spaces = reward_spaces if rewards is None else rewards
        # Flags name actions (env.step("-mem2reg")); the engine checks the rest (integers in
        # range, all of them before the first is applied).
        actions = self._flags_to_indices(actions)
        obs_specs = (
            self._resolve_observations(observation_spaces)
            if observation_spaces is not None
            else ([self._observation_space] if self._observation_space else [])
        )
        reward_specs = (
            self._resolve_rewards(reward_spaces)
            if reward_spaces is not None
            else ([self._reward_space] if self._reward_space else [])
        )

        engine_rewards = [r for r in reward_specs if isinstance(r, EngineReward)]
        # One crossing into the engine (Env::StepAndObserve): the actions, the observations and
        # engine rewards, and the rule of a step whose error ends the episode. It raises
        # SessionNotFound when no episode is in progress, and KeyboardInterrupt between two
        # actions on Ctrl-C (``actions`` then says which ran, and the rewards count them).
        try:
            values, engine_values, done, no_effect, error_type, error_details, compute, verify = (
                self._env.step(
                    actions, [s.index for s in obs_specs], [r.index for r in engine_rewards]
                )
            )
        except KeyboardInterrupt:
            if isinstance(self._reward_space, Reward) and self.in_episode:
                self._python_episode_reward += self._reward(self._reward_space)
            raise
        # Timing of the last step inside the engine, for benchmarks/llvm_step_latency.py.
        self._last_compute_seconds = compute
        self._last_verify_seconds = verify
        info: dict[str, Any] = {"action_had_no_effect": no_effect, "new_action_space": False}
        if done:
            info["error_type"] = error_type
            info["error_details"] = error_details
        observations_out = [s.step_value(v, done) for s, v in zip(obs_specs, values, strict=True)]
        engine_out = iter(engine_values)
        rewards_out = [
            next(engine_out) if isinstance(r, EngineReward) else self._python_reward(r, done)
            for r in reward_specs
        ]
        if isinstance(self._reward_space, Reward):
            if reward_spaces is None:
                self._python_episode_reward += rewards_out[0]
            elif self._reward_space in reward_specs:
                self._python_episode_reward += rewards_out[reward_specs.index(self._reward_space)]
        if observation_spaces is None:
            observation = observations_out[0] if observations_out else None
        else:
            observation = observations_out
        if reward_spaces is None:
            reward = rewards_out[0] if rewards_out else None
        else:
            reward = rewards_out
        return observation, reward, done, info

    def _python_reward(self, reward: Reward, episode_ended: bool) -> float:
        """A step's reward of a space defined in Python (CompilerGym's ``Reward``)."""
        if episode_ended:
            so_far = self._python_episode_reward if reward is self._reward_space else 0.0
            return reward.reward_on_error(so_far)
        return self._reward(reward)

    def step(
        self,
        action: Union[int, Iterable[int]],
        observation_spaces: Optional[Sequence[ObservationSpaceArg]] = None,
        reward_spaces: Optional[Sequence[RewardSpaceArg]] = None,
        observations=None,
        rewards=None,
        timeout: Optional[float] = None,
    ):
        """Applies one action (or a sequence of them, as :meth:`multistep`). Returns
        ``(observation, reward, done, info)``. An action is an integer index (a Python,
        NumPy or torch integer) or a flag (``"-mem2reg"``); anything else (``1.9``, ``True``)
        raises ``ValueError``, and so does an index out of range, before any action is
        applied. ``timeout`` as :meth:`multistep`'s."""
        sequence = isinstance(action, (list, tuple)) or getattr(action, "ndim", 0) >= 1
        actions = action if sequence else [action]
        return self.multistep(
            actions,
            observation_spaces,
            reward_spaces,
            observations,
            rewards,
            **timeout_kwargs(timeout),
        )

    def try_actions(
        self,
        actions: Sequence[Union[int, Sequence[int]]],
        reward_space: RewardSpaceArg = None,
        observation_space: ObservationSpaceArg = None,
    ) -> Union[np.ndarray, tuple[np.ndarray, list[Any]]]:
        """The reward of each candidate from the current state, as if each were stepped on a
        fork of its own (``fork().multistep(candidate)``), without changing this env.

        ``actions`` lists the candidates: actions, or action sequences. Rewards are those of
        ``reward_space`` (default: the env's reward space), as float64, NaN where a candidate
        ended its episode in an error (a crashing pass, a refused compile). With
        ``observation_space``, returns ``(rewards, observations)``, None where one failed.
        The engine evaluates candidates in parallel on its threads, restoring a per-thread
        copy of the state between them (LLVM: no fork per candidate)."""
        if not self.in_episode:
            self.reset()
        reward = _space_by_name(
            reward_space or self._reward_space, (EngineReward, Reward), self.reward.spaces, "reward"
        )
        if reward is None:
            raise ValueError("try_actions() needs a reward space: the env has none")
        if isinstance(reward, Reward):
            raise TypeError(f"try_actions() computes engine rewards; {reward.name} is Python's")
        observation = _space_by_name(
            observation_space, ObservationSpaceSpec, self.observation.spaces, "observation"
        )
        flags = self._flags_to_indices
        candidates = [flags(c) if isinstance(c, (list, tuple)) else flags([c])[0] for c in actions]
        (rewards, _, _, values), seconds = self._env.try_actions(
            candidates, reward.index, observation.index if observation is not None else -1
        )
        # Where the engine's time went (pass, fingerprint, verify, restore, ... in seconds
        # summed over its threads), for benchmarks/try_actions_cost.py.
        self._last_try_seconds = seconds
        if observation is None:
            return rewards
        return rewards, [None if v is None else observation.translate(v) for v in values]

    # ---------------------------------------------------------------------------------------
    # State, replay, validation.

    def commandline(self) -> str:
        """The command line that reproduces this episode's actions."""
        return self.action_space.to_string(self.actions)

    def commandline_to_actions(self, commandline: str) -> list[int]:
        """The actions of a command line made by :meth:`commandline`."""
        return self.action_space.from_string(commandline)

    @property
    def state(self) -> CompilerEnvState:
        """A replayable record of the episode so far."""
        return CompilerEnvState(
            benchmark=str(self.benchmark.uri),
            commandline=self.commandline(),
            walltime=self.episode_walltime,
            reward=self.episode_reward,
        )

    def send_param(self, key: str, value: Any, resend_on_reset: bool = False) -> str:
        """Sets a named setting of the environment (as CompilerGym's ``send_param``), e.g.
        ``"runtime_observation_count"`` for LLVM, or ``"worker.step_timeout_seconds"`` of an
        isolated env; returns its value as the environment reads it back. ValueError for
        unknown names and bad values. Forks copy settings and ``reset()`` keeps them, so
        CompilerGym's ``resend_on_reset`` is accepted and has nothing left to do."""
        del resend_on_reset  # settings outlive episodes here (CompilerGym's restarted)
        self._env.set_parameter(key, str(value))
        return self._env.get_parameter(key)

    def raw_step(
        self,
        actions: Iterable[int],
        observation_spaces: Sequence[ObservationSpaceArg],
        reward_spaces: Sequence[RewardSpaceArg],
        timeout: Optional[float] = None,
    ) -> tuple[list[Any], list[float], bool, dict[str, Any]]:
        """CompilerGym's lower-level step: applies ``actions`` in order and returns
        ``(observations, rewards, done, info)``, one list entry per given space (either list
        may be empty). The same as :meth:`multistep` with both lists given."""
        return self.multistep(
            actions,
            observation_spaces=list(observation_spaces),
            reward_spaces=list(reward_spaces),
            **timeout_kwargs(timeout),
        )

    def seed(self, seed: Optional[int] = None) -> list[Optional[int]]:
        """Seeds the random sampling of the action and observation spaces (the old gym
        ``Env.seed`` that CompilerGym scripts call); returns ``[seed]``. Benchmarks drawn at
        random follow ``env.datasets``' own seeding."""
        self.action_space.seed(seed)
        if self.observation_space is not None:
            self.observation_space.seed(seed)
        return [seed]

    def send_params(self, *params: tuple[str, Any], resend_on_reset: bool = False) -> list[str]:
        """:meth:`send_param` for each ``(key, value)`` pair, in order; their values. As
        CompilerGym's, it needs an episode: ``SessionNotFound`` before :meth:`reset`
        (:meth:`send_param` alone also sets a parameter before the first episode)."""
        if not self.in_episode:
            raise SessionNotFound("Must call reset() before send_params()")
        return [self.send_param(key, value, resend_on_reset) for key, value in params]

    def get_param(self, key: str) -> str:
        """The value of a named setting (see :meth:`send_param`), as text."""
        return self._env.get_parameter(key)

    def fork(self) -> CompilerEnv:
        """An independent deep copy: same program, actions, episode reward and reward
        bookkeeping. ``fork().step(a)`` gives what ``step(a)`` gives."""
        if not self.in_episode:
            self.reset()
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._env = self._env.fork()
        # Its own table: a space derived in the fork is the fork's.
        new.observation = ObservationView(new, dict(self.observation.spaces))
        # Python rewards (the reward space and any added ones) keep per-episode state: the fork
        # continues from copies of them.
        spaces = {
            name: copy.deepcopy(space) if isinstance(space, Reward) else space
            for name, space in self.reward.spaces.items()
        }
        new.reward = RewardView(new, spaces)
        if isinstance(self._reward_space, Reward):
            new._reward_space = spaces.get(self._reward_space.name) or copy.deepcopy(
                self._reward_space
            )
        return new

    def apply(self, state: CompilerEnvState) -> None:
        """Resets to the state's benchmark and replays its command line, in the first of the
        family's action spaces that reads it when the current one does not (a state recorded
        in loop_tool's ``split`` space names a split, which ``simple`` lacks). An opt-in space
        (LLVM's ``PassesAllUnsound``) is never that fallback: such a state replays in an env
        made with that space, and elsewhere is a ``ValueError`` that says so."""
        self.reset(benchmark=state.benchmark)
        try:
            actions = self.commandline_to_actions(state.commandline)
        except ValueError as error:
            opt_in = None  # an opt-in space that reads it, for the error
            for space in self.action_spaces:
                try:
                    actions = space.from_string(state.commandline)
                except ValueError:
                    continue
                if space.name in self._opt_in_spaces:
                    opt_in = opt_in or space.name
                    continue
                self.reset(benchmark=state.benchmark, action_space=space.name)
                break
            else:
                if opt_in:
                    raise ValueError(
                        f"{error}; only the opt-in action space {opt_in!r} reads it: make "
                        f"the env with action_space={opt_in!r} to replay it"
                    ) from error
                raise
        if actions:
            _, _, done, info = self.multistep(actions)
            if done:
                raise ValueError(f"Replay of {state.benchmark} failed: {info.get('error_details')}")

    def validate(
        self, state: Optional[CompilerEnvState] = None, sanitizers: Iterable[str] = ()
    ) -> ValidationResult:
        """Checks a state: the current one by default, or a recorded one.

        The state is replayed in a fresh env, which must reproduce the recorded reward
        (relative tolerance 1e-5; deterministic reward spaces only). For a runnable
        benchmark, the program must also behave like the unoptimized one (same exit code and
        output: a differential test), and with ``sanitizers`` (any of ``"address"``,
        ``"undefined"``) also when built with those sanitizers; then the benchmark's validation
        callbacks (:meth:`Benchmark.add_validation_callback`) must find nothing. The program
        checked is this env's current one when ``state`` is None, else the replay's.
        """
        return validate_state(self, state, sanitizers)

    def _replay_errors(self, replay: CompilerEnv) -> list[str]:
        """How a replay of this env's episode differs from it where rewards do not tell
        (a family's deterministic state); [] when it does not."""
        return []

    def _semantic_validation_errors(self, sanitizers: set[str]) -> Optional[list[str]]:
        """Problems with the program's behaviour; None when it cannot be checked."""
        return None

    def render(self, mode: str = "human") -> Optional[str]:
        """The family's text observation (LLVM's IR), else the current observation space's:
        printed for ``"human"``, returned for ``"ansi"``."""
        if mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render mode must be one of {self.metadata['render_modes']}: {mode!r}"
            )
        name = self.render_observation or (
            self.observation_space_spec.id if self.observation_space_spec else None
        )
        if name is None:
            raise ValueError("render() needs an observation space: this env has none")
        text = str(self.observation[name])
        if mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Releases the environment's resources. Safe to call twice; any other call on a
        closed env raises ``ServiceIsClosed``; ``episode_reward`` keeps its last value."""
        if self._env:
            self._closed_episode_reward = self.episode_reward
        self._env = _Closed(type(self).__name__)

    @property
    def spec(self) -> gymnasium.envs.registration.EnvSpec:
        """The Gymnasium registration of this env's id (``compiler_gym/<id>``)."""
        return gymnasium.spec(f"compiler_gym/{self.env_id}")

    @property
    def unwrapped(self) -> CompilerEnv:
        """This env (the innermost of any wrappers)."""
        return self

    def __repr__(self) -> str:
        if not self._env:
            return f"{type(self).__name__}({self.env_id!r}, closed)"
        observation = self.observation_space_spec
        return (
            f"{type(self).__name__}({self.env_id!r}, benchmark={str(self.benchmark.uri)!r}, "
            f"observation_space={observation.id if observation else None!r}, "
            f"reward_space={self.reward_space.name if self.reward_space else None!r})"
        )

    def __copy__(self):
        # CompilerGym's words first (its env class is ClientServiceCompilerEnv).
        raise TypeError(
            "ClientServiceCompilerEnv instances do not support shallow copies. Use deepcopy() "
            f"or env.fork(): a shallow copy of this {type(self).__name__} would step the same "
            "engine env"
        )

    def __deepcopy__(self, memo) -> CompilerEnv:
        """``copy.deepcopy(env)`` is :meth:`fork`."""
        return self.fork()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()
