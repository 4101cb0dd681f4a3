"""The Gymnasium 1.x face: the same environments under the ``compiler_gym/`` namespace (and
under their bare ids where no other package took them), with
``reset(seed=, options=) -> (obs, info)`` and the 5-tuple ``step``.

Gymnasium needs an observation and a reward on every step, so ids without defaults
(``llvm-v0``) use those their family names (``gymnasium_observation``, ``gymnasium_reward``:
``Autophase`` and ``IrInstructionCountOz`` for LLVM) unless given others.
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium

from compiler_gym._engine import _C
from compiler_gym.util.truncate import truncate


class CompilerGymnasiumEnv(gymnasium.Env):
    """A gymnasium.Env over a CompilerEnv made from ``env_id``, or over ``env``: an env or
    a CompilerGym wrapper of one (``compiler_gym.wrappers``), which then work on this face
    too. ``options={"benchmark": uri}`` in reset picks the benchmark; ``seed`` seeds
    ``np_random`` and the action space. A step that ``TimeLimit`` cut is ``truncated``;
    one that ended the episode otherwise (an error, a terminal action) is ``terminated``."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        env_id: Optional[str] = None,
        render_mode: Optional[str] = None,
        env: Any = None,
        **kwargs,
    ):
        from compiler_gym.registration import make

        if (env_id is None) == (env is None):
            raise TypeError("CompilerGymnasiumEnv needs an env_id or an env, not both")
        kwargs.setdefault("observation_space", None)
        kwargs.setdefault("reward_space", None)
        if env is None:
            env = make(env_id, **{k: v for k, v in kwargs.items() if v is not None})
        self.env = env
        if self.env.observation_space_spec is None:
            self.env.observation_space = self.env.gymnasium_observation
        if self.env.reward_space is None:
            self.env.reward_space = self.env.gymnasium_reward
        self.action_space = self.env.action_space
        self.observation_space = self.env.observation_space
        self.render_mode = render_mode

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        benchmark = (options or {}).get("benchmark")
        observation = self.env.reset(benchmark=benchmark) if benchmark else self.env.reset()
        return observation, {"benchmark": str(self.env.benchmark.uri)}

    def step(self, action: Any):
        observation, reward, done, info = self.env.step(action)  # the engine checks it
        truncated = bool(info.get("TimeLimit.truncated", False))
        return observation, float(reward), bool(done) and not truncated, truncated, info

    def render(self) -> Optional[str]:
        """``"ansi"``: the family's text observation (LLVM's IR) in full. ``"human"``:
        prints the benchmark, the number of actions and the first 20 lines of that text."""
        text = self.env.render("ansi")
        if self.render_mode == "human":
            lines = text.count("\n") + 1
            head = truncate(text, max_line_len=120, max_lines=20)
            more = f"\n[{lines} lines; render_mode='ansi' returns them all]" if lines > 20 else ""
            print(f"{self.env.benchmark.uri} after {len(self.env.actions)} actions\n{head}{more}")
            return None
        return text

    def close(self) -> None:
        self.env.close()


def register_all() -> None:
    """Registers every engine id with gymnasium as ``compiler_gym/<id>``, and as the bare id
    CompilerGym's scripts name (``llvm-v0``) unless another package registered that id first
    (idempotent)."""
    for entry in _C.env_ids():
        for name in (f"compiler_gym/{entry['id']}", entry["id"]):
            if name in gymnasium.registry:
                continue
            gymnasium.register(
                id=name,
                entry_point=CompilerGymnasiumEnv,
                vector_entry_point=_make_vector_env,
                kwargs={"env_id": entry["id"]},
                disable_env_checker=True,
            )


def _make_vector_env(env_id: str, num_envs: int = 1, **kwargs):
    """gymnasium.make_vec(..., vectorization_mode="vector_entry_point") lands here: the C++
    vector engine instead of one Python env per slot, with NumPy outputs as gymnasium's vector
    wrappers expect (``array_type="torch"`` for zero-copy tensors)."""
    from compiler_gym.vector import make_vec

    kwargs.pop("render_mode", None)
    kwargs.setdefault("array_type", "numpy")
    return make_vec(env_id, num_envs=num_envs, **kwargs)
