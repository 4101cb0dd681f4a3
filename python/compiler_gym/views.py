"""env.observation[...] and env.reward[...]: compute a space on demand; and the specs of
observation spaces (CompilerGym's ``compiler_gym.views.ObservationSpaceSpec``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Optional

import gymnasium
import numpy as np

from compiler_gym.engine_rows import EngineRow, from_row, graph_to_networkx
from compiler_gym.spaces import Box, EngineReward, Reward, Scalar, Sequence, _NamedSpace
from compiler_gym.util.names import did_you_mean

_INT64_MAX = np.iinfo(np.int64).max


# The engine's dtype names. float64 is Python's float, as CompilerGym's double spaces are.
_DTYPES = {"int64": np.int64, "float32": np.float32, "float64": float, "bool": bool}


def _bound(value: float, dtype: Any) -> Any:
    """An engine bound (a double, infinite when open) as a bound of ``dtype``: an open integer
    bound is the type's extreme, as CompilerGym's unset Int64Range bounds are."""
    if dtype is bool:
        return bool(value)
    if np.issubdtype(dtype, np.integer):
        if np.isinf(value):
            return int(np.iinfo(dtype).max if value > 0 else np.iinfo(dtype).min)
        return int(value)
    return float(value)


def space_from_row(row: dict) -> gymnasium.spaces.Space:
    """The :mod:`compiler_gym.spaces` space of an engine observation row, typed as CompilerGym
    types the same kind of observation: a number is a :class:`Scalar`, a fixed-shape array a
    :class:`Box`, and variable-length values a :class:`Sequence`: of ``str`` for text and
    for values sent as JSON text (dicts, graphs; length up to int64's max, as an unbounded
    length reads in CompilerGym), of ``np.int8`` for bytes (the value is an int8 array), of
    the element dtype for a 1-d array of any length, of ``np.ndarray`` for rows of an array.
    A family may set a finer space on the spec (``env.observation.spaces[name].space``), as
    LLVM's does for its dict observations."""
    kind, name, shape = row["kind"], row["name"], tuple(row["shape"])
    dtype = _DTYPES.get(row["dtype"])
    if kind == "scalar":
        return Scalar(name, _bound(row["low"], dtype), _bound(row["high"], dtype), dtype)
    if kind == "vector" and -1 not in shape:
        if dtype is bool:
            return Box(0, 1, name, shape=shape, dtype=np.bool_)
        low, high = _bound(row["low"], dtype), _bound(row["high"], dtype)
        return Box(low, high, name, shape=shape, dtype=dtype)
    if kind == "vector":  # a number per measurement (Runtime): any count
        values = Scalar(None, _bound(row["low"], dtype), _bound(row["high"], dtype), dtype)
        return Sequence(name, (0, _INT64_MAX), dtype, scalar_range=values)
    if kind == "ragged":
        return Sequence(name, (0, None), dtype if len(shape) == 1 else np.ndarray)
    if kind == "bytes":
        return Sequence(name, (0, _INT64_MAX), np.int8)
    if kind == "text" and -1 not in shape:
        return Sequence(name, (shape[0], shape[0]), str)
    return Sequence(name, (0, _INT64_MAX), str)


@dataclass(eq=False)
class ObservationSpaceSpec(_NamedSpace, EngineRow):
    """An observation space: its name (``id``), gymnasium ``space`` and properties."""

    id: str
    index: int
    space: gymnasium.spaces.Space
    kind: str
    dtype: str
    deterministic: bool
    platform_dependent: bool
    doc: str = ""
    scalar_default: float = 0  # the engine's default of a scalar space (gcc's sizes: -1)
    row: dict = field(default_factory=dict, repr=False)  # the engine's row: every field
    # What the engine observes when an error ended the episode, before translate().
    engine_default: Any = field(default=None, repr=False)

    @classmethod
    def from_dict(cls, index: int, spec: dict, engine_default: Any = None) -> ObservationSpaceSpec:
        """The spec of the engine's observation space ``index``, from its exported row."""
        return from_row(
            cls,
            spec,
            id=spec["name"],
            index=index,
            space=space_from_row(spec),
            engine_default=engine_default,
        )

    @property
    def name(self) -> str:
        """The same as ``id``, so that observation and reward spaces both have a ``name``."""
        return self.id

    def translate(self, value: Any) -> Any:
        """Turns a raw value from the engine into the Python value users see."""
        if self.kind == "dict":
            return json.loads(value)
        if self.kind == "ragged":
            return value.reshape((-1,) + tuple(self.row["shape"][1:]))
        if self.kind == "bytes":  # an int8 array, as CompilerGym's byte observations
            return np.frombuffer(value, dtype=np.int8)
        if self.kind == "graph":
            return graph_to_networkx(value)
        if self.kind == "scalar" and self.dtype == "int64":
            return int(value)
        return value

    @property
    def default_value(self) -> Any:
        """The observation returned when an error ended the episode (an attribute, as in
        CompilerGym): the engine's default for the space, translated."""
        return self.translate(copy.deepcopy(self.engine_default))

    def step_value(self, value: Any, episode_ended: bool) -> Any:
        """The Python value of a step's raw observation (the engine's default when an error
        ended the episode)."""
        del episode_ended  # the engine has already put the default in
        return self.translate(value)

    def make_derived_space(
        self,
        id: str,
        translate: Callable[[Any], Any],
        space: Optional[gymnasium.spaces.Space] = None,
        deterministic: Optional[bool] = None,
        default_value: Any = None,
        platform_dependent: Optional[bool] = None,
    ) -> DerivedObservationSpaceSpec:
        """A space computed from this one (CompilerGym's): its value is ``translate`` of this
        space's. Unset properties are this space's; ``default_value`` (what an episode that
        ended in an error observes) defaults to ``translate`` of this space's default."""
        return DerivedObservationSpaceSpec(
            id=id,
            index=self.index,
            space=space if space is not None else self.space,
            kind=self.kind,
            dtype=self.dtype,
            deterministic=self.deterministic if deterministic is None else deterministic,
            platform_dependent=(
                self.platform_dependent if platform_dependent is None else platform_dependent
            ),
            doc=f"{id}: derived from {self.id}",
            base=self,
            derive=translate,
            derived_default=default_value,
        )

    def __repr__(self) -> str:
        return f"ObservationSpaceSpec({self.id})"


@dataclass(eq=False)
class DerivedObservationSpaceSpec(ObservationSpaceSpec):
    """An observation computed in Python from an engine space's value (see
    :meth:`ObservationSpaceSpec.make_derived_space`): the engine computes ``base``, which
    ``derive`` turns into this space's value."""

    base: Optional[ObservationSpaceSpec] = None
    derive: Optional[Callable[[Any], Any]] = None
    derived_default: Any = None

    def translate(self, value: Any) -> Any:
        """The base space's value of the engine's raw ``value``, derived."""
        return self.derive(self.base.translate(value))

    @property
    def default_value(self) -> Any:
        """The given default, else the base space's default derived."""
        if self.derived_default is not None:
            return self.derived_default
        return self.derive(self.base.default_value)

    def step_value(self, value: Any, episode_ended: bool) -> Any:
        """As the base space's, but a derived space given a ``default_value`` observes it
        when an error ended the episode (CompilerGym's)."""
        if episode_ended and self.derived_default is not None:
            return self.derived_default
        return self.translate(value)

    def make_derived_space(self, id: str, translate: Callable[[Any], Any], **kwargs: Any):
        """A space derived from this one: ``translate`` applies to this space's value."""
        derived = super().make_derived_space(id, translate, **kwargs)
        outer, inner = translate, self.derive
        return replace(derived, base=self.base, derive=lambda value: outer(inner(value)))

    def __repr__(self) -> str:
        return f"DerivedObservationSpaceSpec({self.id} <- {self.base.id})"


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
        :meth:`~compiler_gym.views.ObservationSpaceSpec.make_derived_space`: ``translate``
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
    in this episode (since reset the first time).

    An env makes it as ``RewardView(env, spaces)``, with its spaces by name. Made as
    CompilerGym's, ``RewardView(spaces, observation_view)`` (a list of reward spaces and any
    object whose ``[name]`` is an observation), ``view[name]`` is the reward's ``update`` with
    the observations it names, and a view of no spaces raises ``ValueError``."""

    def __init__(self, env: Any = None, spaces: Any = None, observation_view: Any = None):
        if observation_view is None and not isinstance(spaces, dict):
            env, spaces, observation_view = None, env, spaces  # CompilerGym's positional form
        if env is None:
            spaces = {space.name: space for space in spaces or []}
        self._env = env
        self._observation_view = observation_view
        self.spaces = NamedSpaces("reward", spaces)
        self.previous_action = None  # CompilerGym's: the actions that update() is given

    def reset(self, benchmark: Any, observation_view: Any) -> None:
        """Starts an episode (CompilerGym's): each reward space defined in Python resets."""
        self.previous_action = None
        for space in self.spaces.values():
            if isinstance(space, Reward) or self._env is None:
                space.reset(benchmark=benchmark, observation_view=observation_view)

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
        if self._env is not None:
            return self._env._reward(self.spaces[name])
        if not self.spaces:
            raise ValueError("No reward spaces")  # CompilerGym's message
        space = self.spaces[name]
        view = self._observation_view
        observations = [view[observation] for observation in space.observation_spaces]
        return space.update(self.previous_action, observations, view)

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.spaces:
            raise AttributeError(name)
        return lambda: self[name]
