"""LoopToolEnv: loop nests compiled for an NVIDIA GPU or the CPU (``loop_tool-v0``).

CompilerGym's loop_tool environment over the C++ engine (``envs/loop_tool/``): the program
``C[a] = A[a] + B[a]`` of length N (``benchmark://loop_tool-cuda-v0/N`` on the GPU,
``benchmark://loop_tool-cpu-v0/N`` on the CPU), a loop order that starts as
``[(N, 0), (1, 0), (1, 0)]`` with the outer loop threaded, and a cursor that the actions move
and resize with. Every new loop tree is lowered to LLVM IR, compiled (PTX through NVPTX and the
CUDA driver, or the ORC JIT), checked against a reference on its first run, and timed; the
reward ``flops`` is the GFLOP/s gained.

>>> env = compiler_gym.make("loop_tool-v0", benchmark="loop_tool-cpu-v0/1024")
>>> env.reset(action_space="simple")
array([   0, 1024,    0])
>>> env.step(env.action_space["toggle_mode"])   # select mode: up / down move the cursor
>>> env.observation["loop_tree"]

Beyond CompilerGym: the ``split`` action space splits for real, and the programs
``matmul/MxNxK``, ``reduce/RxC`` (each row summed) and ``softmax/RxC`` (each row), with the
observations ``bandwidth`` (GB/s) and ``runtime`` (seconds) beside ``flops``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Optional

import numpy as np

from compiler_gym._engine import _C
from compiler_gym.datasets import Benchmark, Dataset, Datasets
from compiler_gym.datasets.benchmark import BenchmarkUri
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.state_summary import StateSummary

# The programs each dataset lists (any other valid program path works too): the pointwise add
# at powers of two, then the larger kernels at sizes that fill a GPU.
LISTED_PROGRAMS = (
    [str(1 << k) for k in range(4, 27)]
    + [f"matmul/{n}x{n}x{n}" for n in (64, 128, 256, 512, 1024)]
    + ["reduce/1024x1024", "reduce/4096x4096", "reduce/128x65536"]
    + ["softmax/1024x1024", "softmax/4096x1024", "softmax/128x32768"]
)


def family_call(method: str, argument: str = "") -> str:
    """The loop_tool family's operations that need no env (``devices``, ``cuda_arch``,
    ``copy_bandwidth``, ``cache_stats``)."""
    return _C.family_call(LoopToolEnv.family, method, argument)


def devices() -> dict[str, str]:
    """Which devices run kernels on this machine: ``{"cpu": "", "cuda": "<why not>"}``, an
    empty string where the device works."""
    return json.loads(family_call("devices"))


def cache_stats() -> dict[str, float]:
    """This process's kernel-cache counters (``hits``, ``compiles``) and where measurements
    spent their wall time: ``compile_seconds`` (of which ``module_load_seconds`` loading
    kernels into the GPU driver), ``reference_seconds`` (the programs' reference
    outputs), ``check_seconds`` over ``checks`` new kernels (a run, the copy back, the
    comparison) and ``timing_seconds`` over ``timings`` timed measurements."""
    return json.loads(family_call("cache_stats"))


def copy_bandwidth(device: str, num_bytes: int) -> float:
    """The device's copy bandwidth in GB/s (bytes read plus written, median of timed copies of
    ``num_bytes``): the peak a kernel's ``bandwidth`` is compared with."""
    return float(family_call("copy_bandwidth", json.dumps({"device": device, "bytes": num_bytes})))


class LoopToolDataset(Dataset):
    """``benchmark://loop_tool-<device>-v0/<program>``: the program paths ``N`` (the add of
    length N, CompilerGym's), ``add/N``, ``matmul/MxNxK``, ``reduce/RxC``, ``softmax/RxC``,
    every size 1 to 2^30. It lists :data:`LISTED_PROGRAMS`; the C++ env parses the path, and
    a bad one raises ``BenchmarkInitError`` at reset."""

    def __init__(self, device: str):
        super().__init__(
            name=f"benchmark://loop_tool-{device}-v0",
            description=f"Loop nests timed on the {'GPU' if device == 'cuda' else 'CPU'}",
            license="MIT",
            size=len(LISTED_PROGRAMS),
        )
        self.device = device

    def benchmark_uris(self) -> Iterator[str]:
        for path in LISTED_PROGRAMS:
            yield f"{self.name}/{path}"

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        return Benchmark(str(uri))


def loop_tool_datasets() -> Datasets:
    """The two datasets of ``loop_tool-v0``: CUDA and CPU."""
    return Datasets([LoopToolDataset("cuda"), LoopToolDataset("cpu")])


class LoopToolEnv(CompilerEnv):
    """loop_tool: reshape a loop nest; the reward is the measured GFLOP/s gained.

    Action spaces ``simple`` (``toggle_mode``, ``up``, ``down``, ``toggle_thread``) and
    ``split`` (those and ``split``). In size mode ``up``/``down`` grow or shrink the loop at the
    cursor against its parent loop of the same variable; in select mode they move the cursor.
    Observations ``action_state`` (``[cursor, size, tail]``), ``loop_tree`` (text), ``flops``
    (GFLOP/s), ``bandwidth`` (GB/s), ``runtime`` (seconds); reward ``flops``. A CUDA benchmark
    on a machine without an NVIDIA GPU raises ``EnvironmentNotSupported`` at reset. Settings
    (``send_param``): ``warmup_runs`` (3), ``timing_repetitions`` (20),
    ``timing_budget_seconds`` (1: runs past it are dropped, one always stays; changing any of
    the three measures the loop tree afresh), ``cuda_ptxas`` (a ptxas to assemble CUDA kernels
    with before the driver loads them; ``""``: the driver's JIT).
    """

    family = "loop_tool"  # the engine's family: what make() finds this class by
    gymnasium_observation = "action_state"
    gymnasium_reward = "flops"
    render_observation = "loop_tree"
    state_summary = StateSummary(
        identity=("loop_tree", "action_state"),
        headline=("flops", "GFLOP/s", "flops"),
        text=("loop_tree", "Loop tree"),
        # No observation shows the mode, yet it decides what up and down do next.
        unobserved_identity=lambda env: env.schedule["mode"],
    )

    def __init__(self, env_id: str = "loop_tool-v0", datasets: Optional[Datasets] = None, **kwargs):
        super().__init__(env_id, datasets=datasets or loop_tool_datasets(), **kwargs)

    @property
    def schedule(self) -> dict:
        """The loop tree as data: ``loops`` (var, size, tail, thread), ``cursor``, ``mode``,
        ``device``, ``program``, ``flops_per_run``, ``bytes_per_run``."""
        return json.loads(self._env.call("schedule"))

    def ptx(self, arch: str = "sm_80") -> str:
        """The PTX of the current loop tree for ``arch`` (made without a GPU)."""
        return self._env.call("ptx", arch)

    def llvm_ir(self) -> str:
        """The optimized LLVM IR of the current loop tree's CPU kernel, as the JIT compiles
        it for this host."""
        return self._env.call("llvm_ir")

    def kernel_hash(self) -> str:
        """A hash (16 hex digits) of the code the current loop tree's kernel runs: the object
        file the CPU's JIT linked, or the PTX loaded into the GPU driver. The kernel comes from
        the process's compile cache, or is compiled now; either way the hash is the same."""
        return self._env.call("kernel_hash")

    def program_inputs(self) -> list[np.ndarray]:
        """The program's input tensors (float32, row-major over their variables), as every
        kernel of this benchmark reads them."""
        return [np.asarray(t, dtype=np.float32) for t in json.loads(self._env.call("inputs"))]

    def run_kernel(self) -> np.ndarray:
        """Runs the current loop tree's kernel once and returns the program's output (float32,
        flat), without checking it: what tests compare with NumPy."""
        return np.asarray(json.loads(self._env.call("run")), dtype=np.float32)

    def _replay_errors(self, replay: CompilerEnv) -> list[str]:
        # The loop tree is the state; the replay must rebuild it exactly.
        mine, theirs = self.observation["loop_tree"], replay.observation["loop_tree"]
        return [] if mine == theirs else [f"replay gave loop tree\n{theirs}\nnot\n{mine}"]

    def _semantic_validation_errors(self, sanitizers: set[str]) -> Optional[list[str]]:
        # Measuring runs the kernel, whose first run is checked against the reference output.
        try:
            self.observation["runtime"]
        except Exception as e:  # a wrong result or a failing compile
            return [str(e)]
        return []
