"""Spaces of compiler_gym environments, built from the tables the C++ engine exports.

Nothing here lists a pass, an observation or a reward by name: the names, shapes and bounds come
from ``compiler_gym._C``. The observation space specs live in :mod:`compiler_gym.views`, as
CompilerGym's ``ObservationSpaceSpec`` did; they are importable from here too.
"""

from __future__ import annotations

import importlib
import numbers
import re
import shlex
from collections.abc import Iterable
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Optional

import gymnasium
import numpy as np

from compiler_gym.engine_rows import EngineRow, from_row
from compiler_gym.util.names import did_you_mean

# CompilerGym's spaces was a package with a module per space: an empty package path lets its
# module paths (compiler_gym.spaces.reward) be compiler_gym.compat's aliases of this module.
__path__: list[str] = []

# Defined in compiler_gym.views, which imports this module: found there when first asked for.
_IN_VIEWS = ("ObservationSpaceSpec", "DerivedObservationSpaceSpec", "space_from_row")


def __getattr__(name: str) -> Any:
    """The observation space specs of :mod:`compiler_gym.views`, under their old names here."""
    if name in _IN_VIEWS:
        return getattr(importlib.import_module("compiler_gym.views"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnknownName(LookupError, ValueError):
    """A name that a space does not have: a ``LookupError``, as this package raises, and a
    ``ValueError``, as CompilerGym's spaces raised (their lookup was ``list.index``)."""


class Scalar(gymnasium.spaces.Space):
    """One number between ``min`` and ``max`` (None: unbounded) of ``dtype``: CompilerGym's
    ``Scalar``. A ``bool`` scalar holds ``True`` and ``False``; other dtypes refuse them.
    ``sample()`` gives a value of ``dtype`` as given: a Python ``int`` for ``dtype=int``."""

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
        # self.dtype is NumPy's; a sample of a Python type is of that type (CompilerGym's).
        self._sample_type = dtype if dtype in (int, float, bool) else self.dtype.type

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
            return self._sample_type(self.np_random.integers(low, high, endpoint=True))
        return self._sample_type(self.np_random.uniform(low, high))

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
        """Boxes of the same name, shape and bounds, whatever their dtypes: CompilerGym's,
        whose gym compared no dtype."""
        return (
            isinstance(other, Box)
            and (self.name, self.shape) == (other.name, other.shape)
            and np.array_equal(self.low, other.low)
            and np.array_equal(self.high, other.high)
        )


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


def _element_fits(value: Any, dtype: Any) -> bool:
    """Whether one element of a list is of a sequence's element ``dtype``, as CompilerGym
    checks each: a float sequence refuses an ``int`` (``[0.0, 0]``), an integer one a float."""
    kind = np.dtype(dtype).kind
    if kind == "f":
        return isinstance(value, (float, np.floating))
    if kind in "iu":
        return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    if kind == "b":
        return isinstance(value, (bool, np.bool_))
    return True


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
        if not isinstance(x, np.ndarray) and not all(_element_fits(v, self.dtype) for v in x):
            return False
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
        if not np.issubdtype(scalar_range.dtype, np.integer):
            # CompilerGym's message, which its callers match.
            raise TypeError("Permutation space can have integral scalar range only.")
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

    def __eq__(self, other: Any) -> bool:
        """Equal spaces of the same name (CompilerGym's)."""
        return isinstance(other, Discrete) and self.name == other.name and super().__eq__(other)


class Tuple(gymnasium.spaces.Tuple):
    """Spaces in order under one name: CompilerGym's ``Tuple(spaces, name)``."""

    def __init__(self, spaces: Iterable[gymnasium.spaces.Space], name: str):
        super().__init__(tuple(spaces))
        self.name = name

    def __eq__(self, other: Any) -> bool:
        """Equal spaces under the same name (CompilerGym's)."""
        return isinstance(other, Tuple) and self.name == other.name and super().__eq__(other)


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
    ``space["name"]`` is the index of a name; an unknown one raises :class:`UnknownName`,
    naming the closest. It has at least one name."""

    def __init__(self, items: Iterable[str], name: str):
        self.names: list[str] = [str(item) for item in items]
        if not self.names:
            raise ValueError("No values for discrete space")  # CompilerGym's message
        super().__init__(len(self.names))
        self.name = name
        self._name_index: dict[str, int] = {}
        for i, n in enumerate(self.names):
            self._name_index.setdefault(n, i)  # a name listed twice is known by its first index

    def __getitem__(self, name: str) -> int:
        if name not in self._name_index:
            hint = did_you_mean(name, self.names)
            raise UnknownName(f"Unknown name {name!r} in {self.name}{hint}")
        return self._name_index[name]

    def to_string(self, values: Any) -> str:
        """The names of ``values`` (a value or an iterable of them), separated by spaces."""
        return " ".join(self.names[v] for v in _as_values(values))

    def from_string(self, text: str) -> list[int]:
        """The values of space-separated names."""
        return [self[name] for name in text.split()]

    def __repr__(self) -> str:
        """The names, as CompilerGym prints the space: ``NamedDiscrete([a, b])``."""
        return f"NamedDiscrete([{', '.join(self.names)}])"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NamedDiscrete) and (other.name, other.names) == (
            self.name,
            self.names,
        )


def _as_values(values: Any) -> list[int]:
    """The indices in ``values``: one index (an integer) or an iterable of them."""
    if isinstance(values, numbers.Integral) or (
        isinstance(values, np.ndarray) and values.ndim == 0
    ):
        return [int(values)]
    return [int(v) for v in values]


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

    Made as CompilerGym's, ``Commandline(items, name)`` with ``items`` its
    :class:`CommandlineFlag` rows (or flag strings), or in this package's order,
    ``Commandline(name, flags, prefix, suffix)``: a ``str`` first is the name.

    >>> space.to_string([0, 3])
    'opt -add-discriminators -alignment-from-assumptions input.bc -o output.bc'
    """

    def __init__(self, items: Any, name: Any, prefix: str = "", suffix: str = ""):
        if isinstance(items, str):  # this package's order: (name, flags)
            items, name = name, items
        rows = [
            item if isinstance(item, CommandlineFlag) else CommandlineFlag(str(item), str(item), "")
            for item in items
        ]
        self.flags: list[str] = [row.flag for row in rows]
        self.descriptions: list[str] = [row.description for row in rows]
        super().__init__(self.flags, name)
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
                raise UnknownName(
                    f"Action {flag!r} is not in {self.name}: it is in the opt-in action space "
                    f"{opt_in} (make(..., action_space={opt_in!r}), or for every env made "
                    f"without one, COMPILER_GYM_ACTION_SPACE={opt_in})"
                )
            hint = did_you_mean(flag, self.flags)
            raise UnknownName(f"Unknown action {flag!r} in {self.name}{hint}")
        return index

    def derived(self, name: str, flags: SequenceOf[str]) -> Commandline:
        """A space of other ``flags`` with this one's command around them (wrappers'
        spaces: a subset, an added action). A flag of this space keeps its description."""
        known = dict(zip(self.flags, self.descriptions, strict=True))
        rows = [CommandlineFlag(f, f, known.get(f, "")) for f in flags]
        return Commandline(rows, name, self._prefix, self._suffix)

    def to_string(self, actions: Any) -> str:
        """Returns the command line that applies ``actions`` (an action or an iterable of
        them) in order. The flags sit between the prefix and suffix with a space either
        side, as CompilerGym's: no actions leave two spaces (``opt  input.bc -o output.bc``)."""
        text = " ".join(self.flags[a] for a in _as_values(actions))
        if self._prefix:
            text = f"{self._prefix} {text}"
        if self._suffix:
            text = f"{text} {self._suffix}"
        return text

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
                raise UnknownName(f"Unknown flag in command line: {token!r}")
            actions.append(self._name_index[token])
        return actions

    def __repr__(self) -> str:
        return f"Commandline({self.name}, n={self.n})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Commandline) and self.flags == other.flags


class ActionSpace(gymnasium.spaces.Space):
    """CompilerGym's wrapper that gives any action space the action-space methods: its
    attributes, ``sample``, ``seed``, membership and equality are the ``wrapped`` space's;
    ``to_string`` and ``from_string`` are too where it has them, else actions are written as
    comma-separated values (``"0,1,0"``)."""

    def __init__(self, space: Any):
        # No Space.__init__: shape, dtype and the rest are the wrapped space's (__getattr__).
        self.wrapped = space

    def __getattr__(self, name: str) -> Any:
        # Dunders (copy's, pickle's) and ``wrapped`` itself are this object's, never forwarded.
        if name == "wrapped" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    def __getitem__(self, name: Any) -> Any:
        return self.wrapped[name]

    @property
    def is_np_flattenable(self) -> bool:
        """The wrapped space's (Space's own property raises rather than forwarding)."""
        return self.wrapped.is_np_flattenable

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        """A sample of the wrapped space (with ``mask`` or ``probability`` when given)."""
        kwargs = {k: v for k, v in (("mask", mask), ("probability", probability)) if v is not None}
        return self.wrapped.sample(**kwargs)

    def seed(self, seed: Optional[int] = None) -> Any:
        """Seeds the wrapped space."""
        return self.wrapped.seed(seed)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is in the wrapped space."""
        return self.wrapped.contains(x)

    def __eq__(self, other: Any) -> bool:
        return self.wrapped == (other.wrapped if isinstance(other, ActionSpace) else other)

    def to_string(self, actions: Any) -> str:
        """The text of ``actions``: the wrapped space's ``to_string``, else the values
        separated by commas. :meth:`from_string` reads it back."""
        if hasattr(self.wrapped, "to_string"):
            return self.wrapped.to_string(actions)
        return ",".join(str(a) for a in actions)

    def from_string(self, text: str) -> list:
        """The actions of a text made by :meth:`to_string`."""
        if hasattr(self.wrapped, "from_string"):
            return self.wrapped.from_string(text)
        return [np.dtype(self.wrapped.dtype).type(v) for v in text.split(",")]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.wrapped})"


class _NamedSpace:
    """Observation and reward spaces are known by name: one equals its name, as in CompilerGym
    (``env.reward_space == "IrInstructionCount"``), and any space of the same name."""

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, str):
            return self.name == other
        return isinstance(other, _NamedSpace) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


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
