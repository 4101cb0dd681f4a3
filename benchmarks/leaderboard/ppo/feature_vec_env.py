"""The SB3 wrapper that computes the PPO agent's features during training (``train.py``): apart
from ``agent.py``, so that the agent, and the GNN agent that shares it, load without
Stable-Baselines3's VecEnv classes."""

from __future__ import annotations

import numpy as np
from agent import Features
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper


class FeatureVecEnv(VecEnvWrapper):
    """An SB3 VecEnv of Autophase observations seen through :class:`Features`."""

    def __init__(self, venv: VecEnv, episode_length: int):
        self.features = Features(venv.action_space.n, episode_length)
        super().__init__(venv, observation_space=self.features.space)
        self.episodes: list[list[int]] = [[] for _ in range(venv.num_envs)]

    def reset(self) -> np.ndarray:
        self.episodes = [[] for _ in range(self.num_envs)]
        return self.features(self.venv.reset(), self.episodes)

    def step_async(self, actions: np.ndarray) -> None:
        for episode, action in zip(self.episodes, actions, strict=True):
            episode.append(int(action))
        self.venv.step_async(actions)

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for i in np.flatnonzero(dones):
            final = infos[i].get("terminal_observation")
            if final is not None:
                infos[i]["terminal_observation"] = self.features(final, [self.episodes[i]])[0]
            self.episodes[i] = []
        return self.features(obs, self.episodes), rewards, dones, infos
