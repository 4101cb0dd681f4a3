"""make_vec: many environments stepped in parallel by the C++ vector engine, as torch tensors.

    vec = compiler_gym.make_vec("llvm-autophase-ic-v0", num_envs=8, num_threads=2)
    obs, info = vec.reset()                       # torch.int64 [8, 56], zero-copy
    obs, rewards, terminated, truncated, info = vec.step(torch.randint(0, 121, (8,)))

Async (EnvPool semantics): ``vec.send(actions, env_ids)`` then ``vec.recv()`` returns the first
``batch_size`` envs to finish, with ``info["env_id"]``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Optional, Union

import gymnasium
import numpy as np

from compiler_gym._engine import _C
from compiler_gym.datasets import Benchmark
from compiler_gym.envs.compiler_env import _Closed
from compiler_gym.envs.env_defaults import default_action_space, default_isolation
from compiler_gym.errors import EnvironmentNotSupported
from compiler_gym.registration import make


def _to_torch(value: Any, device: str) -> Any:
    import torch

    if isinstance(value, np.ndarray):
        tensor = torch.from_dlpack(value) if value.dtype != np.bool_ else torch.from_numpy(value)
        return tensor if device == "cpu" else tensor.to(device, non_blocking=True)
    return value


def _as_array(values: Any) -> np.ndarray:
    """A NumPy view of actions or ids given as a list, an array or a (CPU or CUDA) tensor."""
    return np.asarray(values.cpu() if hasattr(values, "cpu") else values)


class CompilerVecEnv(gymnasium.vector.VectorEnv):
    """A batch of environments of one id, stepped in parallel on a oneTBB arena.

    Observations and rewards come back as ``torch.Tensor``s that share memory with the engine's
    output slabs (no copy); with ``array_type="numpy"`` (``device="cpu"`` only) as NumPy arrays
    over the same memory, for gymnasium's NumPy wrappers (``RecordEpisodeStatistics``,
    ``NormalizeReward``, ...); variable-size observations stay the batches of
    :mod:`compiler_gym.batches`. Errors stay in their row: ``terminated[i]`` with
    ``info["error_type"][i]``, while the other envs go on. Info values are arrays over the rows
    (``env_id``, ``episode_index``, ``elapsed_steps``, ...); ``handoff_seconds`` holds the last
    batch's handoff time.

    ``reset(seed=s)`` reseeds env i's benchmark generator with ``s + i`` (a list: one seed per
    env, None leaves that env's alone), as ``seed=`` does when the vector is made;
    ``reset(options={"reset_mask": mask})`` resets the envs where ``mask`` is true and returns
    every env's row, the others with their last observation (gymnasium's partial reset).

    ``isolation="process"`` runs each env in a worker process of its own (see
    :class:`~compiler_gym.envs.CompilerEnv`): a crashing, hanging or memory-hungry compiler
    ends only its row's episode (``CRASH``, ``DEADLINE_EXCEEDED``, ``RESOURCE_EXHAUSTED``).
    ``parameters`` are settings applied to every env (as ``env.send_param``), e.g.
    ``{"worker.step_timeout_seconds": 60}``. ``action_space`` names the action space the
    actions index, for families that have several (loop_tool's ``split``).
    ``extra_observation_spaces`` are computed with every reset and step beside
    ``observation_space``, on the engine's threads, but not returned: for subclasses that record
    more than they return (:class:`~compiler_gym.wrappers.SqliteLoggedVecEnv`).
    """

    def __init__(
        self,
        id: str,
        num_envs: int,
        batch_size: Optional[int] = None,
        num_threads: int = 0,
        device: str = "cpu",
        benchmarks: Optional[Sequence[Union[str, Benchmark]]] = None,
        random_benchmarks: bool = False,
        observation_space: Optional[str] = "default",
        reward_space: Optional[str] = "default",
        max_episode_steps: Optional[int] = None,
        actions_per_step: int = 1,
        autoreset: str = "next_step",
        seed: int = 0,
        isolation: Optional[str] = None,
        parameters: Optional[dict[str, Any]] = None,
        action_space: Optional[str] = None,
        extra_observation_spaces: Sequence[str] = (),
        array_type: str = "torch",
    ):
        if array_type not in ("torch", "numpy"):
            raise ValueError(f"array_type must be 'torch' or 'numpy', not {array_type!r}")
        if array_type == "numpy" and device != "cpu":
            raise ValueError("array_type='numpy' needs device='cpu'")
        if device.startswith("cuda"):
            import torch

            # The batches are handed to PyTorch, so PyTorch must see the GPU too (a CPU wheel
            # does not, on a machine with one).
            if not torch.cuda.is_available():
                raise EnvironmentNotSupported(
                    f"device={device!r} requested but no CUDA device is available to PyTorch; "
                    "use device='cpu'"
                )
        elif device != "cpu":
            raise ValueError(f"Unknown device {device!r}")
        # A single env, in this process, describes the spaces and resolves benchmark names.
        if action_space is not None:  # the engine's parameter: every env, and workers too
            parameters = {**(parameters or {}), "action_space": action_space}
        family_parameters = {
            k: v for k, v in (parameters or {}).items() if not str(k).startswith("worker.")
        }
        with make(id, parameters=family_parameters) as probe:
            if "action_space" not in (parameters or {}):  # $COMPILER_GYM_ACTION_SPACE's
                chosen = default_action_space([s.name for s in probe.action_spaces])
                if chosen is not None:
                    parameters = {**(parameters or {}), "action_space": chosen}
            if observation_space == "default":
                spec = probe.observation_space_spec
                observation_space = spec.id if spec else probe.gymnasium_observation
            if reward_space == "default":
                reward_space = (
                    probe.reward_space.name if probe.reward_space else probe.gymnasium_reward
                )
            # An empty list is the caller's mistake, which the engine reports; None is the
            # default benchmark.
            uris = benchmarks if benchmarks is not None else [str(probe.benchmark.uri)]
            resolved = [
                b if isinstance(b, Benchmark) else probe.datasets.benchmark(str(b)) for b in uris
            ]
            self.single_action_space = probe.action_space
            # One action's space (with its names), also when a step takes several.
            self.env_action_space = probe.action_space
            self._observation_spec = (
                probe.observation.spaces[observation_space] if observation_space else None
            )
        self.num_envs = num_envs
        self.device = device
        self._array_type = array_type
        self.handoff_seconds = 0.0
        self.benchmark_uris = [str(b.uri) for b in resolved]
        # The caller's space first, then the extra ones it does not already name; each extra
        # space's position in the engine's outputs.
        own = [observation_space] if observation_space else []
        spaces = own + [s for s in dict.fromkeys(extra_observation_spaces) if s not in own]
        self._own_spaces = len(own)
        self._space_index = {name: spaces.index(name) for name in extra_observation_spaces}
        self.metadata = {
            "autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP
            if autoreset == "same_step"
            else gymnasium.vector.AutoresetMode.NEXT_STEP
        }
        self._engine = _C.VecEnv(
            id,
            [b.to_engine() for b in resolved],
            random_benchmarks,
            num_envs,
            batch_size or 0,
            num_threads,
            max_episode_steps or 0,
            actions_per_step,
            autoreset,
            seed,
            spaces,
            [reward_space] if reward_space else [],
            "cuda" if device.startswith("cuda") else "cpu",
            isolation or default_isolation(),
            [(str(k), str(v)) for k, v in (parameters or {}).items()],
        )
        self.batch_size = self._engine.batch_size
        if actions_per_step > 1:  # k actions per env and step: [num_envs, k]
            self.single_action_space = gymnasium.spaces.MultiDiscrete(
                [self.single_action_space.n] * actions_per_step
            )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        if self._observation_spec is not None:
            self.single_observation_space = self._observation_spec.space
            try:
                self.observation_space = gymnasium.vector.utils.batch_space(
                    self.single_observation_space, num_envs
                )
            except TypeError:  # text and other variable-size spaces have no batched form
                self.observation_space = self.single_observation_space
        self._has_reward = reward_space is not None
        self._reward_space = reward_space

    def _observation(self, value: Any) -> Any:
        if self._array_type == "numpy" and isinstance(value, np.ndarray):
            return value  # no torch to import
        from compiler_gym import batches  # torch: imported by the first batch, not by the package

        return batches.from_engine(value)

    def _array(self, value: np.ndarray) -> Any:
        """A fixed-size output as the caller asked for it: NumPy, or a tensor on the device."""
        return value if self._array_type == "numpy" else _to_torch(value, self.device)

    def _unpack(self, batch: dict):
        observations = batch["observations"]
        obs = self._observation(observations[0]) if self._own_spaces else None
        rewards = self._array(
            batch["rewards"][:, 0] if self._has_reward else np.zeros(len(batch["env_ids"]))
        )
        terminated = self._array(batch["terminated"])
        truncated = self._array(batch["truncated"])
        errors = np.array([bool(t) for t in batch["error_type"]])
        self.handoff_seconds = batch["handoff_seconds"]
        # Arrays over the rows, as gymnasium's vector infos are; "episode" is left to
        # RecordEpisodeStatistics, which writes its statistics there.
        info = {
            "env_id": np.asarray(batch["env_ids"]),
            "action_had_no_effect": batch["action_had_no_effect"],
            "elapsed_steps": batch["elapsed_steps"],
            "episode_index": batch["episode"],
            "is_reset": batch["is_reset"],
            "error_type": np.array(batch["error_type"], dtype=object),
            "error_details": np.array(batch["error_details"], dtype=object),
            "_error_type": errors,
            "_error_details": errors,
        }
        if "final_observations" in batch and self._own_spaces:
            ended = batch["terminated"] | batch["truncated"]
            info["final_obs"] = self._observation(batch["final_observations"][0])
            info["_final_obs"] = ended
            # SAME_STEP: the row's info is its new episode's; the ended step's goes here.
            info["final_info"] = {
                key: info[key]
                for key in ("elapsed_steps", "episode_index", "error_type", "error_details")
            }
            info["_final_info"] = ended
            restarted = ended & batch["is_reset"].astype(bool)
            info["elapsed_steps"] = np.where(restarted, 0, info["elapsed_steps"])
            info["episode_index"] = info["episode_index"] + restarted
        return obs, rewards, terminated, truncated, info

    def reset(
        self,
        *,
        seed: Optional[Union[int, Sequence[Optional[int]]]] = None,
        options: Optional[dict] = None,
    ):
        """Resets every env, or those where ``options["reset_mask"]`` is true (a row for every
        env all the same); ``seed``: an int s reseeds env i's benchmark choice with s + i, a
        list gives each env's seed (None: unchanged)."""
        mask = None if not options or "reset_mask" not in options else options["reset_mask"]
        seeds = None
        if seed is not None:
            one = isinstance(seed, (int, np.integer))
            seeds = (
                [int(seed) + i for i in range(self.num_envs)]
                if one
                else [None if s is None else operator.index(s) for s in seed]
            )
            if any(s is not None and s < 0 for s in seeds):
                raise ValueError(f"seeds must be non-negative integers, got {seed!r}")
            if one:
                super().reset(seed=int(seed))  # np_random_seed, as gymnasium keeps it
        batch = self._engine.reset(
            None if mask is None else np.asarray(mask, np.uint8).tolist(), seeds
        )
        self._on_batch("reset", batch, None)
        obs, _, _, _, info = self._unpack(batch)
        return obs, info

    def step(self, actions: Any):
        """Steps every env with its action (``[num_envs]`` or ``[num_envs, k]``)."""
        # The engine checks dtype, shape and range: no cast here that could truncate or wrap.
        array = _as_array(actions)
        batch = self._engine.step(array)
        self._on_batch("step", batch, array)
        return self._unpack(batch)

    def send(self, actions: Any, env_ids: Optional[Any] = None) -> None:
        """Queues one step for each listed env (all envs by default) and returns at once."""
        if env_ids is None:
            env_ids = np.arange(self.num_envs)
        self._engine.send(_as_array(actions), _as_array(env_ids))

    def recv(self, timeout: Optional[float] = None):
        """The first ``batch_size`` envs to finish: ``(obs, rewards, terminated, truncated,
        info)`` with ``info["env_id"]``. Raises TimeoutError after ``timeout`` seconds."""
        batch = self._engine.recv(timeout)
        self._on_batch("recv", batch, None)
        return self._unpack(batch)

    def _on_batch(self, kind: str, batch: dict, actions: Optional[np.ndarray]) -> None:
        """Sees each batch from the engine before it is returned (``kind``: reset, step or
        recv; ``actions``: the step's). Subclasses record what they need; the batch's
        observations hold the extra spaces at ``self._space_index``."""

    def try_actions(
        self,
        actions: Sequence[Sequence[Union[int, Sequence[int]]]],
        reward_space: Optional[str] = None,
        observation_space: Optional[str] = None,
    ) -> list[Any]:
        """:meth:`CompilerEnv.try_actions` for every env at once: ``actions[i]`` are env i's
        candidates (actions or action sequences) from its current state. Returns, per env,
        its rewards (float64, NaN where a candidate failed), or ``(rewards, observations)``
        with ``observation_space`` (observations as the engine gives them); None for an env
        given no candidates. Envs and candidates run in parallel on the engine's threads."""
        reward_space = reward_space or self._reward_space
        if reward_space is None:
            raise ValueError("try_actions() needs a reward space: the vector env has none")
        if len(actions) != self.num_envs:
            raise ValueError(f"try_actions() needs candidates for {self.num_envs} envs")
        candidates = [
            [list(c) if isinstance(c, (list, tuple, np.ndarray)) else [c] for c in row]
            for row in actions
        ]
        out = []
        for tried in self._engine.try_actions(candidates, reward_space, observation_space or ""):
            if tried is None or observation_space is None:
                out.append(None if tried is None else tried[0])
            else:
                out.append((tried[0], tried[3]))
        return out

    def close_extras(self, **kwargs) -> None:
        # (A constructor that failed has no engine to close.)
        engine, self._engine = getattr(self, "_engine", None), _Closed("vector env")
        if engine is not None and not isinstance(engine, _Closed):
            engine.close()  # waits for steps in flight without holding the GIL

    def __enter__(self) -> CompilerVecEnv:
        return self

    def __exit__(self, *exc) -> None:
        """``with make_vec(...) as vec:`` closes the engine (and its workers) at the end."""
        self.close()


def make_vec(id: str, num_envs: int, **kwargs) -> CompilerVecEnv:
    """Makes a vector of ``num_envs`` environments of ``id``; see :class:`CompilerVecEnv`."""
    if id.startswith("compiler_gym/"):
        id = id[len("compiler_gym/") :]
    return CompilerVecEnv(id, num_envs, **kwargs)
