"""Spaces of compiler_gym environments, built from the tables the C++ engine exports.

Nothing here lists a pass, an observation or a reward by name: the names, shapes and bounds come
from ``compiler_gym._C``.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from collections.abc import Callable, Iterable
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, NamedTuple, Optional

import gymnasium
import numpy as np

from compiler_gym.engine_rows import EngineRow, from_row, graph_to_networkx
from compiler_gym.util.names import did_you_mean

_INT64_MAX = np.iinfo(np.int64).max

# CompilerGym's spaces was a package with a module per space: an empty package path lets its
# module paths (compiler_gym.spaces.reward) be compiler_gym.compat's aliases of this module.
__path__: list[str] = []


class Scalar(gymnasium.spaces.Space):
    """One number between ``min`` and ``max`` (None: unbounded) of ``dtype``: CompilerGym's
    ``Scalar``. A ``bool`` scalar holds ``True`` and ``False``; other dtypes refuse them."""

    def __init__(
        self,
        name: Optional[str],
        min: Optional[float] = None,
        max: Optional[float] = None,
        dtype: Any = np.float64,
    ):
        super().__init__(shape=(), dtype=dtype)
        self.name = name
        self.min, self.max = min, max

    def contains(self, x: Any) -> bool:
        if isinstance(x, np.ndarray) and x.shape == ():
            x = x[()]
        is_bool = isinstance(x, (bool, np.bool_))
        if np.issubdtype(self.dtype, np.bool_):
            return is_bool
        if is_bool or not isinstance(x, (int, float, np.number)):
            return False
        if np.issubdtype(self.dtype, np.integer) and not float(x).is_integer():
            return False
        return (self.min is None or x >= self.min) and (self.max is None or x <= self.max)

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        if np.issubdtype(self.dtype, np.bool_):
            return bool(self.np_random.integers(0, 2))
        low = -1e6 if self.min is None else self.min
        high = 1e6 if self.max is None else self.max
        if np.issubdtype(self.dtype, np.integer):
            info = np.iinfo(self.dtype)
            low, high = max(int(low), info.min), min(int(high), info.max)
            return self.dtype.type(self.np_random.integers(low, high, endpoint=True))
        return self.dtype.type(self.np_random.uniform(low, high))

    def __repr__(self) -> str:
        return f"Scalar({self.name}, [{self.min}, {self.max}], {np.dtype(self.dtype).name})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Scalar)
            and (other.name, other.min, other.max) == (self.name, self.min, self.max)
            and np.dtype(other.dtype) == np.dtype(self.dtype)
        )


@gymnasium.vector.utils.batch_space.register(Scalar)
def _batch_scalar(space: Scalar, n: int = 1) -> gymnasium.spaces.Box:
    """``n`` scalars side by side (a vector env's observations): a Box of shape ``(n,)``."""
    if np.issubdtype(space.dtype, np.bool_):
        return gymnasium.spaces.Box(0, 1, shape=(n,), dtype=np.bool_)
    if np.issubdtype(space.dtype, np.integer):
        open_low, open_high = np.iinfo(space.dtype).min, np.iinfo(space.dtype).max
    else:
        open_low, open_high = -np.inf, np.inf
    low = open_low if space.min is None else space.min
    high = open_high if space.max is None else space.max
    return gymnasium.spaces.Box(low, high, shape=(n,), dtype=space.dtype)


class Box(gymnasium.spaces.Box):
    """A box of numbers with a name: CompilerGym's ``Box(low, high, name, shape, dtype)``."""

    def __init__(
        self,
        low: Any,
        high: Any,
        name: str,
        shape: Optional[SequenceOf[int]] = None,
        dtype: Any = np.float32,
        seed: Optional[int] = None,
    ):
        super().__init__(low, high, shape=shape, dtype=dtype, seed=seed)
        self.name = name

    def __eq__(self, other: Any) -> bool:
        """Equal boxes of the same name (CompilerGym's)."""
        return isinstance(other, Box) and self.name == other.name and super().__eq__(other)


class Dict(gymnasium.spaces.Dict):
    """Named spaces under one name: CompilerGym's ``Dict(spaces, name)``."""

    def __init__(self, spaces: dict[str, gymnasium.spaces.Space], name: str):
        super().__init__(spaces)
        self.name = name

    def __eq__(self, other: Any) -> bool:
        """Equal spaces under the same name (CompilerGym's)."""
        return isinstance(other, Dict) and self.name == other.name and super().__eq__(other)


def _same_dtype(a: Any, b: Any) -> bool:
    """Whether two element types are the same (NumPy's view of them where it has one)."""
    if a is b:
        return True
    try:
        return np.dtype(a) == np.dtype(b)
    except TypeError:
        return False


class Sequence(gymnasium.spaces.Space):
    """A sequence of variable length: CompilerGym's ``Sequence(name, size_range, dtype)``.
    ``dtype`` is kept as given, as CompilerGym keeps it: ``str`` or ``bytes`` (the value is one
    string), a ``NamedTuple`` class (a list of records), ``np.ndarray`` (rows of an array),
    else a NumPy type (a 1-d array of it, e.g. ``np.int8`` for bitcode). The length lies in
    ``size_range`` (``(min, max)``, max None: unbounded) and, for numbers, the values in
    ``scalar_range`` (a :class:`Scalar`) when given. It cannot be sampled."""

    def __init__(
        self,
        name: Optional[str],
        size_range: tuple[int, Optional[int]] = (0, None),
        dtype: Any = bytes,
        opaque_data_format: Optional[str] = None,
        scalar_range: Optional[Scalar] = None,
    ):
        super().__init__(shape=None, dtype=None)
        self.name = name
        self.size_range = size_range
        self.dtype = dtype  # as given (CompilerGym's), not a NumPy dtype
        self.opaque_data_format = opaque_data_format
        self.scalar_range = scalar_range

    def contains(self, x: Any) -> bool:
        lo, hi = self.size_range
        try:
            length = len(x)
        except TypeError:
            return False
        if length < lo or (hi is not None and length > hi):
            return False
        if self.dtype in (str, bytes):
            return isinstance(x, self.dtype)
        if self.dtype is np.ndarray:
            return all(isinstance(row, np.ndarray) for row in x)
        if isinstance(self.dtype, type) and issubclass(self.dtype, tuple):
            # Records (NamedTuples, such as LexedIrTuple's tokens): a list of them.
            return isinstance(x, (list, tuple)) and all(isinstance(v, self.dtype) for v in x)
        values = np.asarray(x)
        if values.ndim != 1:
            return False
        if values.size and not np.can_cast(values.dtype, self.dtype, casting="same_kind"):
            return False
        if self.scalar_range is not None and values.size:
            low, high = self.scalar_range.min, self.scalar_range.max
            if (low is not None and values.min() < low) or (
                high is not None and values.max() > high
            ):
                return False
        return True

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        raise NotImplementedError("a Sequence space cannot be sampled")

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Sequence)
            and (self.name, self.size_range, self.opaque_data_format, self.scalar_range)
            == (other.name, other.size_range, other.opaque_data_format, other.scalar_range)
            and _same_dtype(self.dtype, other.dtype)
        )

    def __repr__(self) -> str:
        dtype = getattr(self.dtype, "__name__", self.dtype)
        return f"Sequence({self.name}, size_range={self.size_range}, dtype={dtype})"


class Permutation(Sequence):
    """An ordering of every integer of ``scalar_range`` (``min`` to ``max``, both given), each
    once: CompilerGym's ``Permutation(name, scalar_range)``."""

    def __init__(self, name: str, scalar_range: Scalar):
        if scalar_range.min is None or scalar_range.max is None:
            raise ValueError("a Permutation needs a bounded scalar_range")
        size = int(scalar_range.max) - int(scalar_range.min) + 1
        super().__init__(name, (size, size), np.int64, scalar_range=scalar_range)

    def contains(self, x: Any) -> bool:
        return super().contains(x) and len(set(np.asarray(x).tolist())) == len(x)

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        low, high = int(self.scalar_range.min), int(self.scalar_range.max)
        return self.np_random.permutation(np.arange(low, high + 1, dtype=np.int64))

    def __repr__(self) -> str:
        return f"Permutation({self.name}, {self.scalar_range.min}..{self.scalar_range.max})"


class Discrete(gymnasium.spaces.Discrete):
    """``n`` choices with a name: CompilerGym's ``Discrete(n, name)``."""

    def __init__(self, n: int, name: str):
        super().__init__(n)
        self.name = name


class Tuple(gymnasium.spaces.Tuple):
    """Spaces in order under one name: CompilerGym's ``Tuple(spaces, name)``."""

    def __init__(self, spaces: Iterable[gymnasium.spaces.Space], name: str):
        super().__init__(tuple(spaces))
        self.name = name


class SpaceSequence(gymnasium.spaces.Space):
    """A list of values of one ``space``, its length in ``size_range`` (``(min, max)``, max
    None: unbounded): CompilerGym's ``SpaceSequence(name, space, size_range)``."""

    def __init__(
        self,
        name: str,
        space: gymnasium.spaces.Space,
        size_range: tuple[int, Optional[int]] = (0, None),
    ):
        super().__init__(shape=None, dtype=None)
        self.name = name
        self.space = space
        self.size_range = size_range

    def contains(self, x: Any) -> bool:
        lo, hi = self.size_range
        if not isinstance(x, (list, tuple)) or len(x) < lo or (hi is not None and len(x) > hi):
            return False
        return all(self.space.contains(item) for item in x)

    def sample(self, mask: Any = None, probability: Any = None) -> list:
        """A list of samples of ``space``, of a length drawn from ``size_range`` (at most
        ``min + 100`` when unbounded)."""
        lo, hi = self.size_range
        length = int(self.np_random.integers(lo, (lo + 100 if hi is None else hi) + 1))
        return [self.space.sample() for _ in range(length)]

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SpaceSequence) and (self.name, self.space, self.size_range) == (
            other.name,
            other.space,
            other.size_range,
        )

    def __repr__(self) -> str:
        return f"SpaceSequence({self.name}, {self.space!r}, size_range={self.size_range})"


class NamedDiscrete(gymnasium.spaces.Discrete):
    """A discrete space whose values have names: CompilerGym's ``NamedDiscrete``.
    ``space["name"]`` is the index of a name; an unknown one names the closest."""

    def __init__(self, items: Iterable[str], name: str):
        self.names: list[str] = [str(item) for item in items]
        super().__init__(len(self.names))
        self.name = name
        self._name_index: dict[str, int] = {}
        for i, n in enumerate(self.names):
            self._name_index.setdefault(n, i)  # a name listed twice is known by its first index

    def __getitem__(self, name: str) -> int:
        if name not in self._name_index:
            hint = did_you_mean(name, self.names)
            raise LookupError(f"Unknown name {name!r} in {self.name}{hint}")
        return self._name_index[name]

    def to_string(self, values: Iterable[int]) -> str:
        """The names of ``values``, separated by spaces."""
        return " ".join(self.names[int(v)] for v in values)

    def from_string(self, text: str) -> list[int]:
        """The values of space-separated names."""
        return [self[name] for name in text.split()]

    def __repr__(self) -> str:
        return f"NamedDiscrete({self.name}, n={self.n})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NamedDiscrete) and (other.name, other.names) == (
            self.name,
            self.names,
        )


class CommandlineFlag(NamedTuple):
    """One action of a command-line space (CompilerGym's): its name, flag and description."""

    name: str
    flag: str
    description: str


class Commandline(NamedDiscrete):
    """A discrete action space whose actions are command-line flags (e.g. LLVM passes), with
    the family's command around them (LLVM's: ``opt`` ... ``input.bc -o output.bc``). Its
    ``names`` are the flags, as CompilerGym's are (``names.index("-O3")``); ``space["mem2reg"]``
    also finds a flag without its dashes.

    >>> space.to_string([0, 3])
    'opt -add-discriminators -alignment-from-assumptions input.bc -o output.bc'
    """

    def __init__(self, name: str, flags: SequenceOf[str], prefix: str = "", suffix: str = ""):
        super().__init__(flags, name)
        self.flags: list[str] = list(flags)
        self._prefix = prefix
        self._suffix = suffix
        self._bare_index: dict[str, int] = {}  # flags without their dashes
        # Flags of an opt-in space that this one lacks, and that space's name (set by the env).
        self.opted_out: dict[str, str] = {}
        for i, f in enumerate(self.flags):
            self._bare_index.setdefault(f.lstrip("-"), i)

    def __getitem__(self, flag: str) -> int:
        """The index of an action by its flag or name: ``space["-mem2reg"]``,
        ``space["mem2reg"]``. An unknown one raises ``LookupError`` naming the closest."""
        index = self._name_index.get(flag, self._bare_index.get(flag))
        if index is None:
            opt_in = self.opted_out.get(flag)
            if opt_in is not None:
                raise LookupError(
                    f"Action {flag!r} is not in {self.name}: it is in the opt-in action space "
                    f"{opt_in} (make(..., action_space={opt_in!r}), or for every env made "
                    f"without one, COMPILER_GYM_ACTION_SPACE={opt_in})"
                )
            hint = did_you_mean(flag, self.flags)
            raise LookupError(f"Unknown action {flag!r} in {self.name}{hint}")
        return index

    def derived(self, name: str, flags: SequenceOf[str]) -> Commandline:
        """A space of other ``flags`` with this one's command around them (wrappers'
        spaces: a subset, an added action)."""
        return Commandline(name, flags, self._prefix, self._suffix)

    def to_string(self, actions: Iterable[int]) -> str:
        """Returns the command line that applies ``actions`` in order."""
        parts = [self._prefix] + [self.flags[int(a)] for a in actions] + [self._suffix]
        return " ".join(p for p in parts if p)

    def from_string(self, commandline: str) -> list[int]:
        """Parses a command line made by :meth:`to_string` back into actions."""
        tokens = shlex.split(commandline)
        if (
            self._prefix
            and tokens
            and re.fullmatch(re.escape(self._prefix) + r"(-\d+)?", tokens[0])
        ):
            tokens = tokens[1:]
        suffix = shlex.split(self._suffix)
        if suffix and tokens[-len(suffix) :] == suffix:
            tokens = tokens[: -len(suffix)]
        actions = []
        for token in tokens:
            if token not in self._name_index:
                raise ValueError(f"Unknown flag in command line: {token!r}")
            actions.append(self._name_index[token])
        return actions

    def __repr__(self) -> str:
        return f"Commandline({self.name}, n={self.n})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Commandline) and self.flags == other.flags


class _NamedSpace:
    """Observation and reward spaces are known by name: one equals its name, as in CompilerGym
    (``env.reward_space == "IrInstructionCount"``), and any space of the same name."""

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, str):
            return self.name == other
        return isinstance(other, _NamedSpace) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


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


@dataclass(eq=False)
class EngineReward(_NamedSpace, EngineRow):
    """A reward space: name, range, and the costs it is computed from (in C++)."""

    name: str
    index: int
    cost_observation: str
    initial_observation: str
    baseline_observation: str
    deterministic: bool
    platform_dependent: bool
    reward_range: tuple = (-np.inf, np.inf)
    doc: str = ""
    success_threshold: Optional[float] = None
    row: dict = field(default_factory=dict, repr=False)  # the engine's row: every field

    @classmethod
    def from_dict(cls, index: int, spec: dict) -> EngineReward:
        """The engine's reward space ``index``, from its exported row."""
        return from_row(cls, spec, index=index, reward_range=(spec["low"], spec["high"]))

    @property
    def id(self) -> str:
        """The same as ``name``, so that reward and observation spaces both have an ``id``."""
        return self.name

    @property
    def range(self) -> tuple:
        """(min, max), as CompilerGym names it."""
        return self.reward_range

    @property
    def min(self) -> float:
        """The least reward of one step (CompilerGym's name)."""
        return self.reward_range[0]

    @property
    def max(self) -> float:
        """The greatest reward of one step (CompilerGym's name)."""
        return self.reward_range[1]

    @property
    def observation_spaces(self) -> list[str]:
        """The observations the engine computes this reward from: the cost and, for a reward
        relative to a baseline, the baseline's."""
        return [o for o in (self.cost_observation, self.baseline_observation) if o]

    # CompilerGym's attributes describing the engine's rule (engine/env.h, Transition): a
    # step that ends the episode in an error undoes what the episode earned.
    default_value: ClassVar[float] = 0.0
    default_negates_returns: ClassVar[bool] = True

    def reward_on_error(self, episode_reward: float) -> float:
        """The reward of a step that ended the episode in an error, as the engine computes it
        (CompilerGym's method; steps get it from the engine)."""
        return self.default_value - episode_reward

    def __repr__(self) -> str:
        """The name, as CompilerGym prints a reward space."""
        return self.name


class Reward(_NamedSpace):
    """A reward computed in Python from observations: CompilerGym's ``Reward``, which user
    rewards subclass.

    Subclasses name the observations they need in ``observation_spaces`` and implement
    ``reset`` (called at each episode start) and ``update`` (called when the reward is
    requested, with those observations of the current state). ``configure(env)`` runs when the
    reward is installed as an env's reward space, to set what the reward needs of the env.
    Install one with ``env.reward_space = MyReward()`` or ``env.reward.add_space(MyReward())``;
    then ``env.reward[name]`` and ``step(reward_spaces=[name])`` find it by name.

    A step that ends the episode in an error is worth ``default_value``, minus the episode's
    reward so far when ``default_negates_returns`` (the episode then sums to
    ``default_value``).
    """

    def __init__(
        self,
        name: str,
        observation_spaces: Optional[SequenceOf[str]] = None,
        default_value: float = 0.0,
        min: Optional[float] = None,
        max: Optional[float] = None,
        default_negates_returns: bool = False,
        success_threshold: Optional[float] = None,
        deterministic: bool = False,
        platform_dependent: bool = True,
        doc: str = "",
    ):
        self.name = name
        self.observation_spaces = list(observation_spaces or [])
        self.default_value = default_value
        self.default_negates_returns = default_negates_returns
        self.success_threshold = success_threshold
        self.deterministic = deterministic
        self.platform_dependent = platform_dependent
        self.reward_range = (-np.inf if min is None else min, np.inf if max is None else max)
        self.doc = doc

    @property
    def id(self) -> str:
        """The same as ``name``, so that reward and observation spaces both have an ``id``."""
        return self.name

    @property
    def range(self) -> tuple:
        """(min, max), as CompilerGym names it."""
        return self.reward_range

    def configure(self, env: Any) -> None:
        """Called once when installed on ``env``; the default does nothing."""

    def reset(self, benchmark: Any, observation_view: Any) -> None:
        """Called at the start of each episode."""

    def update(self, actions: list[int], observations: list[Any], observation_view: Any) -> float:
        """The reward for the steps since the last call; ``observations`` follow
        ``observation_spaces``."""
        raise NotImplementedError

    def reward_on_error(self, episode_reward: float) -> float:
        """The reward of a step that ended the episode in an error."""
        return self.default_value - (episode_reward if self.default_negates_returns else 0.0)

    def __repr__(self) -> str:
        """The name, as CompilerGym prints a reward space."""
        return self.name


class DefaultRewardFromObservation(Reward):
    """The reward of a scalar observation: its current value minus its value at the last
    update (at the start of the episode, the value it started from)."""

    def __init__(self, observation_name: str, **kwargs):
        kwargs.setdefault("name", observation_name)
        super().__init__(observation_spaces=[observation_name], **kwargs)
        self.previous_value: Optional[float] = None

    def reset(self, benchmark: Any, observation_view: Any) -> None:
        self.previous_value = float(observation_view[self.observation_spaces[0]])

    def update(self, actions: list[int], observations: list[Any], observation_view: Any) -> float:
        value = float(observations[0])
        reward = value - self.previous_value
        self.previous_value = value
        return reward
