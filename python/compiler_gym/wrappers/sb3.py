"""Stable-Baselines3: the vector engine as an SB3 ``VecEnv``.

    from stable_baselines3 import PPO
    from compiler_gym.wrappers.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env("llvm-autophase-ic-v0", num_envs=8, max_episode_steps=32)
    PPO("MlpPolicy", venv, n_steps=64).learn(10_000)

SB3 resets finished envs itself within ``step`` and reports the last observation of the
finished episode in ``info["terminal_observation"]``: the engine's same-step autoreset does
exactly that. LLVM episodes never end by themselves, so give ``max_episode_steps``.
Requires ``stable-baselines3`` (not a dependency of compiler_gym).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from compiler_gym.batches import to_numpy
from compiler_gym.vector import CompilerVecEnv, make_vec


class CompilerSB3VecEnv(VecEnv):
    """An SB3 VecEnv over a :class:`~compiler_gym.vector.CompilerVecEnv` made with
    ``autoreset="same_step"``. Observations come back as numpy views of the engine's slabs."""

    def __init__(self, venv: CompilerVecEnv):
        if venv.metadata.get("autoreset_mode") != gymnasium.vector.AutoresetMode.SAME_STEP:
            raise ValueError("SB3 needs autoreset='same_step' (it resets finished envs itself)")
        if venv.batch_size != venv.num_envs:
            raise ValueError("SB3 steps every env at once: batch_size must be num_envs")
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: Optional[np.ndarray] = None

    def reset(self) -> np.ndarray:
        seeds = self._seeds if any(s is not None for s in self._seeds) else None
        obs, _ = self.venv.reset(seed=seeds[0] if seeds else None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return to_numpy(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        terminated, truncated = to_numpy(terminated), to_numpy(truncated)
        dones = terminated | truncated
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        final = info.get("final_obs")
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = to_numpy(final[i]) if final is not None else None
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if info["_error_type"][i]:
                infos[i]["error_type"] = info["error_type"][i]
                infos[i]["error_details"] = info["error_details"][i]
        return to_numpy(obs), to_numpy(rewards).astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    # The engine keeps no Python object per env: attributes are the vector's own.
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the engine's envs have no settable attribute {attr_name!r}")

    def env_method(self, method_name: str, *args, indices: Any = None, **kwargs) -> list[Any]:
        raise AttributeError(f"the engine's envs have no Python method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]


def make_sb3_vec_env(id: str, num_envs: int, max_episode_steps: int, **kwargs) -> CompilerSB3VecEnv:
    """An SB3 VecEnv of ``num_envs`` engine envs of ``id`` whose episodes last
    ``max_episode_steps``; other arguments go to :func:`compiler_gym.make_vec`."""
    venv = make_vec(
        id, num_envs, autoreset="same_step", max_episode_steps=max_episode_steps, **kwargs
    )
    return CompilerSB3VecEnv(venv)
