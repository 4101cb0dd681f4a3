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
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from compiler_gym.datasets import BuiltinDataset, Dataset, Datasets
from compiler_gym.datasets.compilergym_gcc import compilergym_gcc_datasets
from compiler_gym.datasets.csmith import CsmithDataset
from compiler_gym.datasets.dataset import rebase_site_data
from compiler_gym.datasets.debian_c import DebianCDataset
from compiler_gym.datasets.gcc_torture import GccTortureDataset
from compiler_gym.datasets.pypi_c import PypiCDataset
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.state_summary import StateSummary
from compiler_gym.errors import (
    CompilerNotFound,
    CompilerNotSupported,
    EnvironmentNotSupported,
    ServiceError,
)
from compiler_gym.spaces import EngineReward

DEFAULT_GCC = "gcc"


def gcc_datasets(site_data_base: Optional[Union[str, Path]] = None) -> Datasets:
    """The C datasets GCC compiles (a benchmark of several translation units, such as a whole
    pypi-c library, is refused with ``BenchmarkInitError``), CompilerGym's downloaded ones
    (chstone-v0, anghabench-v1) included; with ``site_data_base`` the ones that install keep
    their files under it."""
    datasets = [
        BuiltinDataset(),
        CsmithDataset(),
        GccTortureDataset(),
        PypiCDataset(),
        DebianCDataset(),
    ]
    datasets += compilergym_gcc_datasets()
    return Datasets(rebase_site_data(datasets, site_data_base))


def get_gcc_datasets(
    gcc_bin: Optional[Union[str, Path]] = None,
    site_data_base: Optional[Union[str, Path]] = None,
) -> list[Dataset]:
    """The datasets of the GCC environment, as a list (CompilerGym's function, which
    ``compiler_gym.envs.gcc.datasets`` keeps). Programs are compiled by the env's own
    ``gcc_bin``, so the argument only keeps CompilerGym's signature."""
    del gcc_bin
    return list(gcc_datasets(site_data_base))


class Gcc:
    """A GCC binary, as CompilerGym's ``Gcc``: ``bin`` is what the user gave (a path or a
    command), ``path`` the executable it names; calling it runs GCC with the arguments and
    returns its standard output.

    ``FileNotFoundError`` when ``bin`` names no executable; CompilerGym's ``docker:IMAGE``
    compilers are ``EnvironmentNotSupported`` (GCC runs locally here)."""

    def __init__(
        self, bin: Union[str, Path], spec: Optional[GccSpec] = None, path: Optional[str] = None
    ):
        """``path``: the executable, when the engine has resolved ``bin`` already."""
        self.bin = str(bin)
        if self.bin.startswith("docker:"):
            raise EnvironmentNotSupported(
                f"{self.bin}: docker images are not supported; pass a local GCC as gcc_bin"
            )
        path = path or shutil.which(self.bin)
        if path is None:
            raise FileNotFoundError(f"GCC binary not found: {self.bin}")
        self.path = path
        self._spec = spec

    @property
    def spec(self) -> GccSpec:
        """The compiler's options (read from the compiler once, as an environment reads them)."""
        if self._spec is None:
            with GccEnv(gcc_bin=self.bin) as env:
                self._spec = env.gcc_spec
        return self._spec

    def __call__(
        self, *args: str, timeout: float, cwd: Optional[Union[str, Path]] = None, volumes=None
    ) -> str:
        """Runs GCC with ``args`` in ``cwd``; its standard output. ``TimeoutError`` past
        ``timeout`` seconds, ``ServiceError`` when it fails. ``volumes`` (docker's) is
        accepted and unused."""
        del volumes
        try:
            result = subprocess.run(
                [self.path, *map(str, args)],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as e:
            raise TimeoutError(f"{self.bin} took more than {timeout} s") from e
        if result.returncode != 0:
            raise ServiceError(
                f"{self.bin} exited with {result.returncode}: {result.stderr.strip()[:500]}"
            )
        return result.stdout

    def __repr__(self) -> str:
        return f"Gcc({self.bin!r})"


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

    def __str__(self) -> str:
        return self.name

    def __getitem__(self, choice: int) -> str:
        if not 0 <= choice < self.num_values:
            raise IndexError(f"{self.name} has {self.num_values} values, not choice {choice}")
        return self.args[choice] if self.args else f"{self.name}={self.min + choice}"


@dataclass(frozen=True)
class GccSpec:
    """What a GCC binary lets us tune: the compiler (``gcc.bin`` as given, ``gcc.path`` the
    executable), its version line and options, in choice order."""

    gcc: Gcc
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
    # Actions that leave the object file as it was reach the same state, as in LLVM's IrSha1.
    state_summary = StateSummary(
        identity=("obj_hash",),
        headline=("obj_size", "Object bytes", "obj_size"),
        text=("asm", "Assembly"),
        features=(("instruction_counts", "Instruction counts", "instruction_counts"),),
    )

    def __init__(
        self,
        env_id: str = "gcc-v0",
        gcc_bin: Optional[Union[str, Path]] = None,
        datasets: Optional[Datasets] = None,
        timeout: Optional[float] = None,
        parameters: Optional[dict[str, Any]] = None,
        datasets_site_path: Optional[Union[str, Path]] = None,
        **kwargs,
    ):
        """``datasets_site_path`` (CompilerGym's) is where installed datasets keep files."""
        parameters = dict(parameters or {})
        parameters.setdefault("gcc_bin", str(gcc_bin or DEFAULT_GCC))
        if timeout is not None:
            parameters["compile_timeout_seconds"] = timeout
        try:
            super().__init__(
                env_id,
                datasets=datasets or gcc_datasets(datasets_site_path),
                parameters=parameters,
                **kwargs,
            )
        except FileNotFoundError as e:  # no such compiler
            raise CompilerNotFound(str(e)) from None
        except ValueError as e:  # not a GCC (or a setting it refuses)
            raise CompilerNotSupported(str(e)) from None
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
            gcc = Gcc(raw["gcc_bin"], path=raw["gcc"])
            self._gcc_spec = GccSpec(gcc, raw["gcc_bin"], raw["version"], options)
            gcc._spec = self._gcc_spec  # each names the other
        return self._gcc_spec

    def send_param(self, key: str, value: Any, resend_on_reset: bool = False) -> str:
        """:meth:`CompilerEnv.send_param`, also under CompilerGym's GCC names: ``timeout``
        (seconds a compile may take) and ``choices`` (the whole state, comma-separated)."""
        if key == "timeout":
            self.timeout = float(value)
            return str(self.timeout)
        if key == "choices":
            self.choices = [int(c) for c in str(value).split(",") if c.strip()]
            return ",".join(map(str, self.choices))
        return super().send_param(key, value, resend_on_reset)

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
        if isinstance(self.reward_space, EngineReward) and self.in_episode:
            # A step of no actions: the engine computes the reward and counts it.
            self._env.step([], [], [self.reward_space.index])

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
    def obj(self) -> np.ndarray:
        """The object file's bytes, an int8 array as CompilerGym's (``.tobytes()`` for
        ``bytes``)."""
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
