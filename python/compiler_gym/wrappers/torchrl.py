"""TorchRL: the vector engine as a batched TorchRL ``EnvBase``.

    from compiler_gym.wrappers.torchrl import CompilerTorchRLEnv

    env = CompilerTorchRLEnv("llvm-autophase-ic-v0", num_envs=8, max_episode_steps=32)
    rollout = env.rollout(100, break_when_any_done=False)   # a TensorDict [8, 100]

Batch size is ``[num_envs]``. TorchRL resets finished envs itself (the ``_reset`` mask), which
the engine does as a partial reset; the other envs keep their state. Requires ``torchrl``
(not a dependency of compiler_gym).
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from compiler_gym.vector import make_vec


class CompilerTorchRLEnv(EnvBase):
    """``num_envs`` engine environments of ``id`` as one batched TorchRL environment. The
    observation must be a fixed-size vector space (e.g. ``Autophase``, ``InstCount``)."""

    def __init__(
        self,
        id: str,
        num_envs: int,
        max_episode_steps: Optional[int] = None,
        num_threads: int = 0,
        **make_vec_kwargs,
    ):
        super().__init__(device="cpu", batch_size=torch.Size([num_envs]))
        self.venv = make_vec(
            id,
            num_envs,
            num_threads=num_threads,
            max_episode_steps=max_episode_steps,
            **make_vec_kwargs,
        )
        space = self.venv.single_observation_space
        if not hasattr(space, "shape") or space.shape is None or -1 in space.shape:
            raise ValueError(f"TorchRL needs a fixed-size observation, not {space}")
        dtype = torch.from_numpy(np.zeros(0, space.dtype)).dtype
        self.observation_spec = Composite(
            observation=Bounded(
                low=torch.as_tensor(space.low).expand(num_envs, *space.shape).to(dtype),
                high=torch.as_tensor(space.high).expand(num_envs, *space.shape).to(dtype),
                shape=(num_envs, *space.shape),
                dtype=dtype,
            ),
            shape=(num_envs,),
        )
        self.action_spec = Categorical(self.venv.single_action_space.n, shape=(num_envs,))
        self.reward_spec = Unbounded(shape=(num_envs, 1), dtype=torch.float32)
        self.done_spec = Composite(
            done=Categorical(2, shape=(num_envs, 1), dtype=torch.bool),
            terminated=Categorical(2, shape=(num_envs, 1), dtype=torch.bool),
            truncated=Categorical(2, shape=(num_envs, 1), dtype=torch.bool),
            shape=(num_envs,),
        )
        self._observation: Optional[torch.Tensor] = None

    def _done(self, terminated: torch.Tensor, truncated: torch.Tensor) -> dict:
        terminated = terminated.reshape(-1, 1).bool()
        truncated = truncated.reshape(-1, 1).bool()
        return {"done": terminated | truncated, "terminated": terminated, "truncated": truncated}

    def _reset(self, tensordict: Optional[TensorDictBase] = None, **kwargs) -> TensorDictBase:
        mask = None
        if tensordict is not None and "_reset" in tensordict.keys():
            mask = tensordict.get("_reset").reshape(-1).bool()
        if mask is None or self._observation is None or bool(mask.all()):
            obs, _ = self.venv.reset()
        else:  # every row comes back, the others with their last observation
            obs, _ = self.venv.reset(options={"reset_mask": mask.numpy()})
        self._observation = obs.clone()
        zeros = torch.zeros(self.batch_size[0], dtype=torch.bool)
        return TensorDict(
            {"observation": self._observation.clone(), **self._done(zeros, zeros)},
            batch_size=self.batch_size,
        )

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        actions = tensordict.get("action").reshape(-1)
        obs, rewards, terminated, truncated, _ = self.venv.step(actions)
        self._observation = obs.clone()
        return TensorDict(
            {
                "observation": self._observation.clone(),
                "reward": rewards.to(torch.float32).reshape(-1, 1),
                **self._done(terminated, truncated),
            },
            batch_size=self.batch_size,
        )

    def _set_seed(self, seed: Optional[int]) -> None:
        # As TorchRL's gym envs do: a reset with the seed (env i's benchmark choice from
        # seed + i); the environments themselves are deterministic.
        if seed is not None:
            obs, _ = self.venv.reset(seed=seed)
            self._observation = obs.clone()

    def close(self, *, raise_if_closed: bool = True) -> None:
        """Closes the vector of envs; closing again does nothing."""
        if self.venv is not None:
            self.venv.close()
            self.venv = None
        super().close(raise_if_closed=False)
