"""GccEnv: GCC flag tuning (``gcc-v0``), CompilerGym's GCC environment over the C++ engine.

>>> env = compiler_gym.make("gcc-v0", gcc_bin="gcc-12", reward_space="obj_size")
>>> env.reset(benchmark="builtin-v0/adpcm")
>>> env.step(env.action_space.flags.index("-Os"))
>>> env.obj_size, env.command_line
(6312, 'gcc-12 -Os -w -c src.c -o obj.o')
>>> env.choices = [-1] * len(env.gcc_spec.options)   # the whole state at once
"""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass, field
from typing import Any, Optional

from compiler_gym.datasets import BuiltinDataset, Datasets
from compiler_gym.datasets.csmith import CsmithDataset
from compiler_gym.datasets.gcc_torture import GccTortureDataset
from compiler_gym.datasets.pypi_c import PypiCDataset
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.spaces import EngineReward

DEFAULT_GCC = "gcc"


def gcc_datasets() -> Datasets:
    """The C datasets GCC compiles (a benchmark of several translation units, such as a whole
    pypi-c library, is refused with ``BenchmarkInitError``)."""
    return Datasets([BuiltinDataset(), CsmithDataset(), GccTortureDataset(), PypiCDataset()])


@dataclass(frozen=True)
class Option:
    """One tunable option of a GCC: ``len(option)`` values, ``option[i]`` the argument of
    choice ``i`` (choice -1 leaves the option off the command line)."""

    name: str  # "-O", "-ftree-pre", "--param=max-inline-insns-auto"
    kind: str  # "olevel", "flag", "enum" or "int"
    args: tuple[str, ...]  # every argument, except for "int" options: ``name=value``
    min: int  # "int": the inclusive range
    max: int
    num_values: int
    is_param: bool
    default: str  # what -Q reports at -O0

    def __len__(self) -> int:
        return self.num_values

    def __getitem__(self, choice: int) -> str:
        if not 0 <= choice < self.num_values:
            raise IndexError(f"{self.name} has {self.num_values} values, not choice {choice}")
        return self.args[choice] if self.args else f"{self.name}={self.min + choice}"


@dataclass(frozen=True)
class GccSpec:
    """What a GCC binary lets us tune: its path, version line and options, in choice order."""

    gcc: str
    gcc_bin: str
    version: str
    options: tuple[Option, ...] = field(repr=False)

    @property
    def size(self) -> int:
        """The number of states: the product of (values + 1) over the options."""
        n = 1
        for option in self.options:
            n *= len(option) + 1
        return n


class GccEnv(CompilerEnv):
    """GCC flag tuning: each action sets one option of the compiler (or moves an integer
    option by a step); compiles run when an observation or reward needs one.

    ``gcc_bin`` is any local GCC 5 or newer, a path or a command (default ``gcc``). A flag
    combination that GCC refuses, or a compile past ``timeout`` seconds, ends the episode with
    ``info["error_type"]`` (``ABORTED``, ``DEADLINE_EXCEEDED``); reset to go on.
    """

    family = "gcc"
    gymnasium_observation = "choices"
    gymnasium_reward = "obj_size"
    render_observation = "asm"

    def __init__(
        self,
        env_id: str = "gcc-v0",
        gcc_bin: Optional[str] = None,
        datasets: Optional[Datasets] = None,
        timeout: Optional[float] = None,
        parameters: Optional[dict[str, Any]] = None,
        **kwargs,
    ):
        parameters = dict(parameters or {})
        parameters.setdefault("gcc_bin", gcc_bin or DEFAULT_GCC)
        if timeout is not None:
            parameters["compile_timeout_seconds"] = timeout
        super().__init__(
            env_id, datasets=datasets or gcc_datasets(), parameters=parameters, **kwargs
        )
        self._gcc_spec: Optional[GccSpec] = None

    @property
    def gcc_spec(self) -> GccSpec:
        """The compiler's options, their values and its version."""
        if self._gcc_spec is None:
            raw = json.loads(self._env.call("gcc_spec"))
            options = tuple(
                Option(
                    name=o["name"],
                    kind=o["kind"],
                    args=tuple(o["args"]),
                    min=o["min"],
                    max=o["max"],
                    num_values=o["num_values"],
                    is_param=o["is_param"],
                    default=o["default"],
                )
                for o in raw["options"]
            )
            self._gcc_spec = GccSpec(raw["gcc"], raw["gcc_bin"], raw["version"], options)
        return self._gcc_spec

    @property
    def timeout(self) -> float:
        """Seconds a compile may take (default 60)."""
        return float(self.get_param("compile_timeout_seconds"))

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self.send_param("compile_timeout_seconds", repr(float(seconds)))

    @property
    def choices(self) -> list[int]:
        """One choice per option of :attr:`gcc_spec`: -1 = not on the command line."""
        return [int(c) for c in self.observation["choices"]]

    @choices.setter
    def choices(self, choices: list[int]) -> None:
        """Sets the whole state at once; ValueError for a wrong length or a value out of
        range, TypeError for a value that is not an integer. The change counts towards
        ``episode_reward`` as an action's would, so the state stays valid."""
        self._env.call("set_choices", json.dumps([operator.index(c) for c in choices]))
        if isinstance(self.reward_space, EngineReward) and self.episode_reward is not None:
            self.episode_reward += self._env.reward(self.reward_space.index)

    def commandline(self) -> str:
        """The compile of the current state: ``gcc OPTIONS -w -c src.c -o obj.o``, which is
        what a state records and what :meth:`apply` replays."""
        return self.observation["command_line"]

    def commandline_to_choices(self, commandline: str) -> list[int]:
        """The choices of a command line made by :meth:`commandline`; ValueError for an
        argument that is not one of this compiler's option values."""
        return json.loads(self._env.call("parse_command_line", commandline))

    def apply(self, state) -> None:
        """Resets to the state's benchmark and sets the choices of its command line."""
        self.reset(benchmark=state.benchmark)
        self.choices = self.commandline_to_choices(state.commandline)

    # CompilerGym's GccEnv properties: the observations of the current state.
    @property
    def source(self) -> str:
        """The preprocessed source."""
        return self.observation["source"]

    @property
    def rtl(self) -> str:
        """GCC's RTL dump."""
        return self.observation["rtl"]

    @property
    def asm(self) -> str:
        """The assembly."""
        return self.observation["asm"]

    @property
    def asm_size(self) -> int:
        """The assembly's size in bytes."""
        return self.observation["asm_size"]

    @property
    def asm_hash(self) -> str:
        """A hash of the assembly."""
        return self.observation["asm_hash"]

    @property
    def instruction_counts(self) -> dict[str, int]:
        """Counts of each assembly instruction."""
        return self.observation["instruction_counts"]

    @property
    def obj(self) -> bytes:
        """The object file."""
        return self.observation["obj"]

    @property
    def obj_size(self) -> int:
        """The object file's size in bytes."""
        return self.observation["obj_size"]

    @property
    def obj_hash(self) -> str:
        """A hash of the object file."""
        return self.observation["obj_hash"]

    @property
    def command_line(self) -> str:
        """The compile command of the current state."""
        return self.observation["command_line"]
