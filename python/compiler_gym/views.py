"""env.observation[...] and env.reward[...]: compute a space on demand."""

from __future__ import annotations

from typing import Any

from compiler_gym.spaces import EngineReward, ObservationSpaceSpec, Reward
from compiler_gym.util.names import did_you_mean


class NamedSpaces(dict):
    """Spaces by name: an unknown name is a ``KeyError`` that says which kind of space was
    asked for and the closest known names, wherever the lookup happens."""

    def __init__(self, kind: str, spaces: dict):
        super().__init__(spaces)
        self.kind = kind

    def __missing__(self, name):
        raise KeyError(f"Unknown {self.kind} space: {name!r}{did_you_mean(name, self)}")


class ObservationView:
    """``env.observation["Autophase"]`` or ``env.observation.Autophase()`` computes the
    observation of the current state; ``spaces`` maps names to specs."""

    def __init__(self, env, spaces: dict[str, ObservationSpaceSpec]):
        self._env = env
        self.spaces = NamedSpaces("observation", spaces)

    def __getitem__(self, name: str) -> Any:
        return self._env._observe(self._spec(name))

    def add_derived_space(self, id: str, base_id: str, **kwargs: Any) -> None:
        """Adds a space computed in Python from another (CompilerGym's), by name from now on:
        ``env.observation[id]``, ``env.observation_space = id`` and ``step(observation_spaces=
        [id])`` compute it. ``kwargs`` are those of
        :meth:`~compiler_gym.spaces.ObservationSpaceSpec.make_derived_space`: ``translate``
        (required: base value -> value), ``space``, ``deterministic``, ``default_value``,
        ``platform_dependent``.

        >>> env.observation.add_derived_space("IrLen", "Ir", translate=len)
        """
        if id in self.spaces:
            raise ValueError(f"Observation space {id!r} exists already")
        self.spaces[id] = self._spec(base_id).make_derived_space(id=id, **kwargs)

    def __repr__(self) -> str:
        return f"ObservationView({len(self.spaces)} spaces: {', '.join(self.spaces)})"

    def _spec(self, name: str) -> ObservationSpaceSpec:
        return self.spaces[name]

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.spaces:
            raise AttributeError(name)
        return lambda: self[name]

    def __dir__(self):
        return list(super().__dir__()) + list(self.spaces)


class RewardView:
    """``env.reward["IrInstructionCount"]`` computes that reward since it was last computed
    in this episode (since reset the first time)."""

    def __init__(self, env, spaces: dict[str, EngineReward]):
        self._env = env
        self.spaces = NamedSpaces("reward", spaces)

    def add_space(self, space: Reward) -> None:
        """Adds a user reward (a :class:`compiler_gym.spaces.Reward`) by its name: then
        ``env.reward[name]``, ``env.reward_space = name`` and ``step(reward_spaces=[name])``
        compute it."""
        if not isinstance(space, Reward):
            raise TypeError(f"add_space() takes a compiler_gym.spaces.Reward, not {space!r}")
        if isinstance(self.spaces.get(space.name), EngineReward):
            raise ValueError(f"{space.name!r} is the environment's own reward space: rename yours")
        self.spaces[space.name] = space

    def __repr__(self) -> str:
        return f"RewardView({len(self.spaces)} spaces: {', '.join(self.spaces)})"

    def __getitem__(self, name: str) -> float:
        return self._env._reward(self.spaces[name])

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.spaces:
            raise AttributeError(name)
        return lambda: self[name]
