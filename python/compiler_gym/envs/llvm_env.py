"""LlvmEnv: LLVM 19 phase ordering."""

from __future__ import annotations

import functools
import json
import shlex
from pathlib import Path
from typing import Any, NamedTuple, Optional

import numpy as np

from compiler_gym._engine import _C
from compiler_gym.datasets import BuiltinDataset, Datasets
from compiler_gym.datasets.compilergym_llvm import compilergym_llvm_datasets
from compiler_gym.datasets.csmith import CsmithDataset
from compiler_gym.datasets.debian_c import DebianCDataset
from compiler_gym.datasets.gcc_torture import GccTortureDataset
from compiler_gym.datasets.llvm_stress import LlvmStressDataset
from compiler_gym.datasets.make_benchmark import (
    make_benchmark,
    make_benchmark_from_command_line,
    make_benchmark_from_source,
)
from compiler_gym.datasets.pypi_c import PypiCDataset
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.llvm_pipeline import PassPipeline
from compiler_gym.envs.state_summary import StateSummary
from compiler_gym.spaces import Commandline, Dict, Scalar, Sequence

# CompilerGym's send_param names for the runtime settings: whether each sets or reads, and the
# setting it is.
_COMPILER_GYM_PARAMS = {
    "llvm.set_runtimes_per_observation_count": (True, "runtime_observation_count"),
    "llvm.get_runtimes_per_observation_count": (False, "runtime_observation_count"),
    "llvm.set_warmup_runs_count_per_runtime_observation": (True, "runtime_warmup_runs_count"),
    "llvm.get_warmup_runs_count_per_runtime_observation": (False, "runtime_warmup_runs_count"),
}


def _call(method: str, argument: str | bytes = "") -> str:
    """The llvm family's operation ``method`` (C++: FamilyCall in envs/llvm/llvm_family.cc)."""
    return _C.family_call(LlvmEnv.family, method, argument)


def pass_table(action_space: str = "PassesAll") -> list[tuple[str, str, str]]:
    """Each action of an action space (``PassesAll``, the default, ``PassesParameterized``,
    or the opt-in ``PassesAllUnsound``: PassesAll and the passes of confirmed miscompiles), in
    order, as (its name, the pass pipeline it runs, LLVM's pass name), e.g. ``("-mem2reg",
    "function(mem2reg)", "mem2reg")``."""
    return [tuple(row) for row in json.loads(_call("pass_table", action_space))]


def inst2vec_statement_graph(bitcode: bytes) -> tuple[list[str], list[tuple[int, int]]]:
    """The normalized inst2vec statements of a module (its bitcode, ``observation["Bitcode"]``)
    and the edges of its contextual flow graph, as indices into the statements: what the
    inst2vec trainer learns from."""
    graph = json.loads(_call("inst2vec_statement_graph", bitcode))
    return graph["statements"], [tuple(edge) for edge in graph["edges"]]


# A count below its least is refused with the text of CompilerGym's service (the engine
# refuses it too, and any other value that is not a count, in its own words).
_COUNTS = {
    "runtime_observation_count": ("runtimes_per_observation_count", 1),
    "runtime_warmup_runs_count": ("warmup_runs_count_per_runtime_observation", 0),
}


def _check_count(name: str, value: Any) -> None:
    compiler_gym_name, least = _COUNTS[name]
    try:
        below = int(value) == float(value) and int(value) < least
    except (TypeError, ValueError):
        return  # not a number: the engine says so
    if below:
        raise ValueError(f"{compiler_gym_name} must be >= {least}. Received: {int(value)}")


class Inst2vec:
    """The inst2vec vocabulary and embeddings of the ``Inst2vec*`` observations (CompilerGym's
    ``env.inst2vec``, its ``Inst2vecEncoder``), read from the package's data (trained by
    :mod:`compiler_gym.bin.train_inst2vec`): ``vocab`` maps a normalized statement (an item
    of ``Inst2vecPreprocessedText``) to its index, ``"!UNK"`` to the index of every unknown
    statement; ``embeddings`` is the ``float32`` table, one row per index."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    @functools.cached_property
    def vocab(self) -> dict[str, int]:
        """Statement -> index, with ``"!UNK"`` (the last index)."""
        text = (self.directory / "vocabulary.txt").read_text(encoding="utf-8")
        statements = text.split("\n")
        if statements and statements[-1] == "":
            statements.pop()
        vocab = {statement: i for i, statement in enumerate(statements)}
        vocab["!UNK"] = len(statements)
        return vocab

    @functools.cached_property
    def embeddings(self) -> np.ndarray:
        """The embedding of each index, ``[len(vocab), dimensions]`` float32 (stored as
        float16)."""
        table = np.fromfile(self.directory / "embeddings.f16", dtype=np.float16)
        return table.reshape(len(self.vocab), -1).astype(np.float32)

    def encode(self, statements: list[str]) -> list[int]:
        """The index of each statement (``Inst2vecEmbeddingIndices`` of
        ``Inst2vecPreprocessedText``)."""
        unknown = self.vocab["!UNK"]
        return [self.vocab.get(s, unknown) for s in statements]

    def embed(self, indices: list[int]) -> np.ndarray:
        """The embeddings of indices (``Inst2vec`` of ``Inst2vecEmbeddingIndices``)."""
        return self.embeddings[np.asarray(indices, dtype=np.int64)]


@functools.cache
def inst2vec() -> Inst2vec:
    """The package's :class:`Inst2vec`, read once per process when first used."""
    return Inst2vec(Path(__file__).resolve().parent.parent / "data" / "inst2vec")


def clang_path() -> str:
    """The clang-19 the engine compiles with (``$COMPILER_GYM_CLANG`` overrides)."""
    return _call("clang_path")


def clear_benchmark_cache() -> None:
    """Drops every loaded benchmark and its baselines from the engine's cache."""
    _call("clear_benchmark_cache")


def set_benchmark_cache_limit(num_bytes: int) -> None:
    """Bounds the cache of loaded benchmarks (least recently used dropped first, at once)."""
    _call("set_benchmark_cache_limit", str(int(num_bytes)))


def benchmark_cache_stats() -> dict[str, int]:
    """The cache of loaded benchmarks: ``entries``, ``bytes`` and ``limit_bytes``."""
    return json.loads(_call("benchmark_cache_stats"))


def llvm_datasets() -> Datasets:
    """The datasets every LLVM environment knows."""
    return Datasets(
        [
            BuiltinDataset(),
            LlvmStressDataset(),
            CsmithDataset(),
            GccTortureDataset(),
            PypiCDataset(),
            DebianCDataset(),
            *compilergym_llvm_datasets(),  # CompilerGym's, by their URIs
        ]
    )


class LexedToken(NamedTuple):
    """One token of LLVM's IR lexer (CompilerGym's ``LexedIrTuple`` element)."""

    ID: int
    kind: str
    category: str
    value: str


def lexed_tokens(lexed_ir: dict[str, list]) -> list[LexedToken]:
    """The tokens of a ``LexedIr`` observation (its four columns), one tuple each."""
    columns = ("token_id", "token_kind", "token_category", "token_value")
    return [LexedToken(*row) for row in zip(*(lexed_ir[c] for c in columns), strict=True)]


@functools.cache
def feature_names() -> dict[str, list[str]]:
    """The names of the features of the ``Autophase`` and ``InstCount`` observations, in the
    order of their values (from the engine's feature tables)."""
    return json.loads(_call("feature_names"))


# Keys of the CpuInfo observation, as CompilerGym's space names them, in its order.
_CPU_INFO_KEYS = (
    "cores_count",
    *(
        f"{cache}_cache_{what}"
        for cache in ("l1i", "l1d", "l2", "l3", "l4")
        for what in ("size", "count")
    ),
)


def _compiler_gym_spaces() -> dict[str, Any]:
    """The spaces CompilerGym's LlvmEnv gives observations whose type the engine's row does
    not tell (the keys of a dict, a path's length): by observation name."""
    names = feature_names()

    def counts(keys: list[str], dtype: Any, name: str) -> Dict:
        return Dict({k: Scalar(k, min=0, max=None, dtype=dtype) for k in keys}, name=name)

    cpu = {"name": Sequence("name", size_range=(0, None), dtype=str)}
    cpu.update({k: Scalar(k, min=None, max=None, dtype=int) for k in _CPU_INFO_KEYS})
    return {
        # 4096: the longest path most file systems allow.
        "BitcodeFile": Sequence("BitcodeFile", size_range=(0, 4096), dtype=str),
        "InstCountDict": counts([f"{n}Count" for n in names["InstCount"]], int, "InstCountDict"),
        # Densities are fractions (CompilerGym declares int, which its values do not fit).
        "InstCountNormDict": counts(
            [f"{n}Density" for n in names["InstCount"][1:]], np.float32, "InstCountNormDict"
        ),
        "AutophaseDict": counts(list(names["Autophase"]), int, "AutophaseDict"),
        "Inst2vecPreprocessedText": Sequence(
            "Inst2vecPreprocessedText", size_range=(0, None), dtype=str
        ),
        "CpuInfo": Dict(cpu, name="CpuInfo"),
    }


def _feature_names() -> dict[str, list[str]]:
    names = feature_names()
    return {
        "AutophaseDict": list(names["Autophase"]),
        # InstCountDict keys each count "<name>Count" (CompilerGym's keys).
        "InstCountDict": [f"{name}Count" for name in names["InstCount"]],
    }


class LlvmEnv(CompilerEnv):
    """LLVM phase ordering: each action runs one LLVM 19 pass on the module."""

    family = "llvm"
    gymnasium_observation = "Autophase"
    gymnasium_reward = "IrInstructionCountOz"
    render_observation = "Ir"
    state_summary = StateSummary(
        identity=("IrSha1",),
        headline=("ir_instruction_count", "Instructions", "IrInstructionCount"),
        text=("ir", "IR"),
        features=(
            ("autophase", "Autophase", "AutophaseDict"),
            ("instcount", "InstCount", "InstCountDict"),
        ),
        feature_names=_feature_names,
    )

    def __init__(self, env_id: str = "llvm-v0", datasets: Optional[Datasets] = None, **kwargs):
        super().__init__(env_id, datasets=datasets or llvm_datasets(), **kwargs)

    def _add_spaces(self) -> None:
        for name, space in _compiler_gym_spaces().items():
            self.observation.spaces[name].space = space
        # CompilerGym's LexedIrTuple: LexedIr's columns as one LexedToken per token.
        self.observation.add_derived_space(
            "LexedIrTuple",
            "LexedIr",
            translate=lexed_tokens,
            space=Sequence(name="LexedToken", size_range=(0, None), dtype=LexedToken),
            default_value=[],
        )

    def _make_action_space(self, spec: dict) -> Commandline:
        if spec["name"] == "PassesParameterized":  # pipeline elements: opt -passes=...
            rows = pass_table(spec["name"])
            names, pipelines = [r[0] for r in rows], [r[1] for r in rows]
            return PassPipeline(spec["name"], names, pipelines, self._pipeline_actions)
        return Commandline(
            spec["name"], spec["action_names"], prefix="opt", suffix="input.bc -o output.bc"
        )

    def _pipeline_actions(self, add: Optional[str] = None) -> list[str]:
        """PassesParameterized's pipeline actions, which the engine keeps per env (the
        parameter ``llvm.pipeline_actions``, checked there); with ``add``, adds it first."""
        key = "llvm.pipeline_actions"
        current = [p for p in self._env.get_parameter(key).split("\n") if p]
        if add is not None and add not in current:
            current.append(add)
            self._env.set_parameter(key, "\n".join(current))
        return current

    def opt_commandline(self) -> str:
        """The ``opt-19`` command that turns the benchmark's start into this episode's module:
        ``opt '-passes=...' input.bc -o output.bc``, the pipeline of each action in order (as
        the engine ran it). :meth:`commandline` keeps CompilerGym's format, the states' (legacy
        pass flags such as ``opt -mem2reg``, which LLVM 19's ``opt`` no longer takes)."""
        space = self.action_space
        if isinstance(space, PassPipeline):
            return space.to_string(self.actions)
        pipelines = [row[1] for row in pass_table(space.name)]
        pipeline = ",".join(pipelines[a] for a in self.actions)
        return f"opt {shlex.quote('-passes=' + pipeline)} input.bc -o output.bc"

    make_benchmark = staticmethod(make_benchmark)
    make_benchmark_from_source = staticmethod(make_benchmark_from_source)
    make_benchmark_from_command_line = staticmethod(make_benchmark_from_command_line)

    def send_param(self, key: str, value: Any, resend_on_reset: bool = False) -> str:
        """:meth:`CompilerEnv.send_param`, also under CompilerGym's LLVM names
        (``llvm.set_runtimes_per_observation_count``, ``llvm.get_...``: a get ignores
        ``value``)."""
        if key in _COMPILER_GYM_PARAMS:
            sets, name = _COMPILER_GYM_PARAMS[key]
            if sets:
                _check_count(name, value)
            return super().send_param(name, value) if sets else self.get_param(name)
        return super().send_param(key, value, resend_on_reset)

    @property
    def runtime_observation_count(self) -> int:
        """How many measured runs a ``Runtime`` observation makes (default 1)."""
        return int(self._env.get_parameter("runtime_observation_count"))

    @runtime_observation_count.setter
    def runtime_observation_count(self, n: int) -> None:
        _check_count("runtime_observation_count", n)
        self._env.set_parameter("runtime_observation_count", str(n))

    @property
    def runtime_warmup_runs_count(self) -> int:
        """How many unmeasured runs precede them (default 0)."""
        return int(self._env.get_parameter("runtime_warmup_runs_count"))

    @runtime_warmup_runs_count.setter
    def runtime_warmup_runs_count(self, n: int) -> None:
        _check_count("runtime_warmup_runs_count", n)
        self._env.set_parameter("runtime_warmup_runs_count", str(n))

    @property
    def inst2vec(self) -> Inst2vec:
        """CompilerGym's ``env.inst2vec``: the vocabulary and embeddings behind the
        ``Inst2vec*`` observations (see :class:`Inst2vec`)."""
        return inst2vec()

    @property
    def runtime_timeout_seconds(self) -> float:
        """Wall-clock limit of each run of the program (default 60)."""
        return float(self._env.get_parameter("runtime_timeout_seconds"))

    @runtime_timeout_seconds.setter
    def runtime_timeout_seconds(self, seconds: float) -> None:
        self._env.set_parameter("runtime_timeout_seconds", repr(float(seconds)))

    def _semantic_validation_errors(self, sanitizers: set[str]) -> Optional[list[str]]:
        if not self.benchmark.runnable:
            return None
        names = " ".join(sorted(sanitizers & {"address", "undefined"}))
        return json.loads(self._env.call("check_semantics", names))

    @property
    def ir(self) -> str:
        """The current module as text IR."""
        return self.observation["Ir"]

    @property
    def ir_sha1(self) -> str:
        """The SHA-1 of the current module (the ``IrSha1`` observation)."""
        return self.observation["IrSha1"]

    def write_ir(self, path: str) -> Path:
        """Writes the current module as text IR to ``path``."""
        path = Path(path).expanduser()
        path.write_text(self.observation["Ir"])
        return path

    def write_bitcode(self, path: str) -> Path:
        """Writes the current module as bitcode to ``path``."""
        path = Path(path).expanduser()
        path.write_bytes(self.observation["Bitcode"].tobytes())
        return path
