"""RLlib: each env runner steps one C++ vector engine (``make_vec``), not K Python envs.

    from ray.rllib.algorithms.ppo import PPOConfig
    from compiler_gym.wrappers.rllib import configure_rllib

    config = configure_rllib(
        PPOConfig(), "llvm-autophase-ic-v0", num_envs_per_env_runner=8, max_episode_steps=32
    ).env_runners(num_env_runners=4)
    algo = config.build_algo()
    algo.train()  # 4 env runners, anywhere on the Ray cluster, each with an 8-env engine

RLlib's new API stack builds an env runner's environments with gymnasium's ``make_vec``; with
``gym_env_vectorize_mode="vector_entry_point"`` (which :func:`configure_rllib` sets) it asks the
registered creator for one vector env of ``num_envs_per_env_runner`` envs, and
:func:`make_rllib_env` answers with a :class:`CompilerRLlibVecEnv` over one engine. Episodes
autoreset as gymnasium's NEXT_STEP (the step after an episode ends resets that env), which is
what RLlib's env runner expects. LLVM episodes never end by themselves: give
``max_episode_steps``.

Benchmarks reach the env runners as names (each node resolves them through its own datasets),
as :class:`~compiler_gym.datasets.Benchmark` objects, or as the ``ray.put`` reference that
:func:`compiler_gym.search.distributed.put_benchmarks` returns: programs prepared once (bitcode
and baselines) on the driver, which nodes that lack the dataset then use as they are.
Requires ``ray[rllib]`` (``pip install compiler_gym[ray]``); this module imports Ray only
when it registers the env.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any, Optional

import gymnasium
import numpy as np

from compiler_gym.batches import to_numpy
from compiler_gym.search.distributed import is_object_ref
from compiler_gym.vector import make_vec

#: The name :func:`configure_rllib` registers :func:`make_rllib_env` under with Ray Tune.
RLLIB_ENV_NAME = "compiler_gym_vec"


def _symlog(values: np.ndarray) -> np.ndarray:
    return np.sign(values) * np.log1p(np.abs(values))


def _resolve_benchmarks(benchmarks: Any) -> Optional[list[Any]]:
    """Names, Benchmarks, PreparedBenchmarks or Ray references to any of these (or to a list
    of them), as what ``make_vec`` takes."""
    if benchmarks is None:
        return None
    if is_object_ref(benchmarks):
        import ray

        benchmarks = ray.get(benchmarks)
    if isinstance(benchmarks, (str, bytes)) or not isinstance(benchmarks, Sequence):
        benchmarks = [benchmarks]
    refs = [i for i, b in enumerate(benchmarks) if is_object_ref(b)]
    if refs:
        import ray

        benchmarks = list(benchmarks)
        for i, value in zip(refs, ray.get([benchmarks[i] for i in refs]), strict=True):
            benchmarks[i] = value
    from compiler_gym.search.distributed import load_benchmark

    return [load_benchmark(b) for b in benchmarks]


class CompilerRLlibVecEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` engine environments of ``id`` as the gymnasium ``VectorEnv`` of one RLlib
    env runner.

    Actions are the engine's (a ``Discrete`` space); observations are float32 NumPy vectors,
    ``sign(x) log(1 + |x|)`` of the engine's with ``observation_transform="symlog"`` (the
    default: Autophase, InstCount or loop_tool's counts span orders of magnitude) or the values
    themselves with ``"float"``; rewards are the engine's, unchanged. A failed step ends its
    env's episode (``terminated``, with ``info["error_type"]``). :attr:`episode_returns` keeps
    the return of each episode that ended, as the engine's rewards sum it, which is what
    RLlib's episode statistics must agree with. Other arguments go to :func:`compiler_gym.make_vec`.
    """

    def __init__(
        self,
        id: str,
        num_envs: int,
        max_episode_steps: Optional[int],
        benchmarks: Any = None,
        observation_transform: str = "symlog",
        num_threads: int = 0,
        seed: int = 0,
        **make_vec_kwargs: Any,
    ):
        if observation_transform not in ("symlog", "float"):
            raise ValueError(
                f"observation_transform must be 'symlog' or 'float', not {observation_transform!r}"
            )
        self.venv = make_vec(
            id,
            num_envs,
            max_episode_steps=max_episode_steps,
            benchmarks=_resolve_benchmarks(benchmarks),
            num_threads=num_threads,
            seed=seed,
            autoreset="next_step",
            **make_vec_kwargs,
        )
        space = getattr(self.venv, "single_observation_space", None)
        if not isinstance(space, gymnasium.spaces.Box) or len(space.shape) != 1:
            self.venv.close()
            raise ValueError(
                f"RLlib's models need a fixed-size vector observation, not {space} "
                "(choose observation_space='Autophase', 'InstCount', ...)"
            )
        self.num_envs = num_envs
        self.observation_transform = observation_transform
        transform = _symlog if observation_transform == "symlog" else (lambda x: x)
        bounds = [
            transform(np.asarray(b, np.float64)).astype(np.float32) for b in (space.low, space.high)
        ]
        self.single_observation_space = gymnasium.spaces.Box(*bounds, space.shape, np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(self.venv.single_action_space.n)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self.metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}
        self.episode_returns: deque[float] = deque(maxlen=100_000)
        self._returns = np.zeros(num_envs)

    def _observe(self, obs: Any) -> np.ndarray:
        # A copy: RLlib keeps observations in its episodes, and the engine reuses its slabs.
        values = to_numpy(obs).astype(np.float32)
        return _symlog(values) if self.observation_transform == "symlog" else values

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Starts a new episode in every env (RLlib's first sample, or after a failure)."""
        obs, _ = self.venv.reset(seed=seed, options=options)
        self._returns[:] = 0.0
        return self._observe(obs), {}

    def step(self, actions: Any):
        """Steps every env; an env whose episode ended at the previous step is reset instead,
        its action ignored (NEXT_STEP)."""
        obs, rewards, terminated, truncated, info = self.venv.step(np.asarray(actions))
        rewards = to_numpy(rewards).astype(np.float64)
        terminated = to_numpy(terminated).astype(bool)
        truncated = to_numpy(truncated).astype(bool)
        started = np.asarray(info["is_reset"], dtype=bool)
        self._returns[started] = 0.0
        self._returns[~started] += rewards[~started]
        ended = terminated | truncated
        out: dict[str, Any] = {}
        if ended.any():
            self.episode_returns.extend(float(r) for r in self._returns[ended])
            out["episode_return"] = self._returns.copy()
            out["_episode_return"] = ended
        if info["_error_type"].any():
            out["error_type"] = info["error_type"]
            out["_error_type"] = info["_error_type"]
        return self._observe(obs), rewards, terminated, truncated, out

    def close_extras(self, **kwargs) -> None:
        venv = getattr(self, "venv", None)  # none when __init__ failed before making it
        if venv is not None:
            venv.close()


def _assigned_cpus() -> int:
    """The CPUs Ray gave the calling worker (0, all cores, outside a Ray worker)."""
    try:
        import ray

        if ray.is_initialized():
            cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 0)
            return math.ceil(cpus)  # a share of a CPU is one thread, not 0 (all cores)
    except ImportError:
        pass
    return 0


def make_rllib_env(config: dict) -> CompilerRLlibVecEnv:
    """RLlib's env creator: ``config`` is the env config (RLlib's ``EnvContext``) with ``id``,
    ``num_envs`` (RLlib adds it), ``max_episode_steps`` and any other argument of
    :class:`CompilerRLlibVecEnv`. Env i of the runner with worker index w has the seed
    ``seed + w * num_envs + i`` (an engine's envs are seeded s, s + 1, ...), so no two envs of
    any runners draw the same random benchmarks; the engine's threads default to the CPUs Ray
    gave the runner."""
    kwargs = dict(config)
    id = kwargs.pop("id")
    num_envs = int(kwargs.pop("num_envs", 1))
    max_episode_steps = kwargs.pop("max_episode_steps", None)
    kwargs["seed"] = int(kwargs.get("seed", 0)) + int(getattr(config, "worker_index", 0)) * num_envs
    kwargs.setdefault("num_threads", _assigned_cpus())
    return CompilerRLlibVecEnv(id, num_envs, max_episode_steps, **kwargs)


def register_rllib_env(name: str = RLLIB_ENV_NAME) -> str:
    """Registers :func:`make_rllib_env` with Ray Tune under ``name`` (what an RLlib config's
    ``environment(env=name)`` names); returns the name."""
    from ray.tune.registry import register_env

    register_env(name, make_rllib_env)
    return name


def configure_rllib(
    config: Any,
    id: str,
    num_envs_per_env_runner: int,
    max_episode_steps: Optional[int],
    **env_config: Any,
) -> Any:
    """Points an RLlib ``AlgorithmConfig`` at the engine: each env runner gets one engine of
    ``num_envs_per_env_runner`` envs of ``id`` (``env_config`` goes to
    :class:`CompilerRLlibVecEnv`: ``benchmarks``, ``random_benchmarks``,
    ``observation_space``, ``reward_space``, ``observation_transform``, ...). Returns the
    config, for chaining; set ``num_env_runners`` on it as usual."""
    name = register_rllib_env()
    return config.environment(
        env=name, env_config={"id": id, "max_episode_steps": max_episode_steps, **env_config}
    ).env_runners(
        num_envs_per_env_runner=num_envs_per_env_runner,
        gym_env_vectorize_mode="vector_entry_point",
    )
