"""loop_tool-v0 through the public API: CompilerGym's semantics, the kernels against NumPy, PTX
checked by ptxas, the vector engine, validation, and the errors."""

import fcntl
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import compiler_gym
from compiler_gym.envs.loop_tool import copy_bandwidth, devices
from compiler_gym.errors import BenchmarkInitError, EnvironmentNotSupported

HAS_GPU = devices()["cuda"] == ""
PROGRAMS = ["add/1000", "matmul/17x9x13", "reduce/7x45", "softmax/6x33"]
TOGGLE_MODE, UP, DOWN, TOGGLE_THREAD, SPLIT = range(5)


@pytest.fixture
def env():
    with compiler_gym.make("loop_tool-v0") as env:
        env.send_param("timing_repetitions", "3")
        yield env


def order(env):
    return [(loop["size"], loop["tail"]) for loop in env.schedule["loops"]]


def test_compilergym_defaults(env):
    assert env.benchmark.uri == "benchmark://loop_tool-cpu-v0/1024"
    assert env.reset(action_space="simple").tolist() == [0, 1024, 0]
    assert env.action_space.names == ["toggle_mode", "up", "down", "toggle_thread"]
    assert order(env) == [(1024, 0), (1, 0), (1, 0)]
    assert [loop["thread"] for loop in env.schedule["loops"]] == [True, False, False]
    assert env.schedule["mode"] == "size"
    assert env.reward_space.name == "flops"
    assert env.compiler_version.startswith("LLVM 19.")
    assert set(env.observation.spaces) == {
        "action_state",
        "loop_tree",
        "flops",
        "bandwidth",
        "runtime",
    }


def test_worked_example_through_steps(env):
    """CompilerGym's resize example, driven by actions (select mode moves the cursor)."""
    env.reset(action_space="simple")
    env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE])  # cursor 1, size mode
    env.step(UP)
    assert order(env) == [(512, 0), (2, 0), (1, 0)]
    env.step(UP)
    assert order(env) == [(341, 1), (3, 0), (1, 0)]
    observation, _, _, info = env.step(UP)
    assert observation.tolist() == [1, 4, 0]
    assert not info["action_had_no_effect"]
    env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP])
    assert order(env) == [(256, 0), (1, 1), (3, 0)]
    env.multistep([TOGGLE_MODE, DOWN, TOGGLE_MODE, DOWN])
    assert order(env) == [(341, 1), (1, 0), (3, 0)]
    assert env.observation["loop_tree"] == (
        "for a in 341 r 1 : L0 cpu_parallel [thread]\n"
        " for a' in 1 : L1\n"
        "  for a'' in 3 : L2\n"
        "   %0[a] <- read()\n"
        "  for a'' in 3 : L4\n"
        "   %1[a] <- read()\n"
        "  for a'' in 3 : L6\n"
        "   %2[a] <- add(%0, %1)\n"
        "  for a'' in 3 : L8\n"
        "   %3[a] <- write(%2)\n"
    )
    # Shrinking a unit loop changes nothing.
    _, _, _, info = env.step(DOWN)
    assert info["action_had_no_effect"]


NODES = ["read()", "read()", "add(%0, %1)", "write(%2)"]


def add_tree(outer, inner):
    """The loop_tree text CompilerGym expects for add: two outer loops, then each node in its
    own copy of the innermost loop (labels L2, L4, ... count the node lines)."""
    lines = [f"{' ' * i}for {name} in {rest}" for i, (name, rest) in enumerate(outer)]
    for i, node in enumerate(NODES):
        lines += [f"  for a'' in {inner} : L{2 + 2 * i}", f"   %{i}[a] <- {node}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize(
    "actions, outer",
    [
        # CompilerGym's induced remainder: the cursor on L1, grown to 3, leaves 341 r 1 above.
        ([TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP], [("a", "341 r 1 : L0 T"), ("a'", "3 : L1")]),
        ([TOGGLE_THREAD], [("a", "1024 : L0"), ("a'", "1 : L1")]),  # thread removal
        ([TOGGLE_MODE, UP, TOGGLE_THREAD], [("a", "1024 : L0 T"), ("a'", "1 : L1 T")]),
    ],
)
def test_loop_tree_is_compilergyms_text(device, actions, outer):
    if device == "cuda" and not HAS_GPU:
        pytest.skip(f"no CUDA GPU here: {devices()['cuda']}")
    # Threaded loops say cpu_parallel on the CPU backend only, as loop_tool prints them.
    thread = "cpu_parallel [thread]" if device == "cpu" else "[thread]"
    outer = [(name, rest.replace(" T", " " + thread)) for name, rest in outer]
    with compiler_gym.make("loop_tool-v0", observation_space="loop_tree") as env:
        env.send_param("timing_repetitions", "3")
        env.reset(benchmark=f"benchmark://loop_tool-{device}-v0/1024", action_space="simple")
        for action in actions:
            observation, _, _, _ = env.step(action)
        assert observation == add_tree(outer, 1)


def test_flops_reward_is_the_gain(env):
    env.reset(benchmark="loop_tool-cpu-v0/4096")
    flops = env.observation["flops"]
    assert flops > 0
    runtime = env.observation["runtime"]
    assert flops == pytest.approx(4096 / runtime / 1e9)
    assert env.observation["bandwidth"] == pytest.approx(3 * 4096 * 4 / runtime / 1e9)
    # reset() fixes the starting point: a step's reward is the GFLOP/s gained since the last.
    _, reward, _, _ = env.step(TOGGLE_MODE)
    assert reward == 0.0  # the loop tree did not change: no new measurement
    env.multistep([UP, TOGGLE_MODE])  # cursor to loop 1, size mode
    _, reward, _, _ = env.step(UP)
    now = env.observation["flops"]
    assert now != flops
    assert reward == pytest.approx(now - flops)
    assert env.episode_reward == pytest.approx(now - flops)


def thread_every_loop(env):
    """Actions that set the thread flag of every loop (select mode, the cursor walking them)."""
    actions = [TOGGLE_MODE]  # select mode: up moves the cursor to the next loop
    for cursor, loop in enumerate(env.schedule["loops"]):
        actions += ([UP] if cursor else []) + ([] if loop["thread"] else [TOGGLE_THREAD])
    env.multistep(actions + [TOGGLE_MODE])
    assert all(loop["thread"] for loop in env.schedule["loops"])


def numpy_reference(program, inputs):
    kind, dims = program.split("/")
    sizes = [int(d) for d in dims.split("x")]
    if kind == "add":
        return inputs[0] + inputs[1]
    if kind == "matmul":
        m, n, k = sizes
        a, b = inputs[0].reshape(m, k).astype(np.float64), inputs[1].reshape(k, n)
        return (a @ b).ravel()
    x = inputs[0].reshape(sizes).astype(np.float64)
    if kind == "reduce":
        return x.sum(axis=1)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).ravel()


@pytest.mark.parametrize("program", PROGRAMS)
def test_cpu_kernels_match_numpy(env, program):
    """Each program's lowering, under schedules that random actions reach (tails, splits,
    threaded reduced loops), computes what NumPy does."""
    rng = random.Random(program)
    env.reset(benchmark=f"loop_tool-cpu-v0/{program}", action_space="split")
    expected = numpy_reference(program, env.program_inputs())
    for _ in range(6):
        env.multistep(
            [rng.choice([TOGGLE_MODE, UP, UP, DOWN, TOGGLE_THREAD, SPLIT]) for _ in range(12)]
        )
        np.testing.assert_allclose(env.run_kernel(), expected, rtol=1e-4, atol=1e-5)
    assert env.observation["flops"] > 0  # the checked, timed path agrees
    # Every loop threaded (reduced ones too, so atomics), and loop 1 grown to 3, which leaves a
    # tail on loop 0 where the extent is not a multiple of 3.
    env.reset()
    thread_every_loop(env)
    env.multistep([TOGGLE_MODE, UP, UP, TOGGLE_MODE, UP, UP])
    assert env.schedule["loops"][1]["size"] == 3
    np.testing.assert_allclose(env.run_kernel(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (the CUDA toolkit) not found")
@pytest.mark.parametrize("program", PROGRAMS)
def test_ptx_assembles(env, program, tmp_path):
    """The NVPTX lowering of every program, with and without threads, assembles with ptxas."""

    def assemble(name: str) -> str:
        ptx = env.ptx("sm_80")
        assert ".entry phase0" in ptx
        (tmp_path / f"{name}.ptx").write_text(ptx)
        command = ["ptxas", "-arch=sm_80", str(tmp_path / f"{name}.ptx")]
        result = subprocess.run(
            command + ["-o", str(tmp_path / f"{name}.cubin")], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr + ptx
        return ptx

    rng = random.Random(program)
    env.reset(benchmark=f"loop_tool-cpu-v0/{program}", action_space="split")
    for i in range(4):
        assemble(str(i))
        env.multistep(
            [rng.choice([TOGGLE_MODE, UP, DOWN, TOGGLE_THREAD, SPLIT]) for _ in range(10)]
        )
    # Every loop threaded: reductions over threaded loops accumulate atomically (add, max).
    env.reset()
    thread_every_loop(env)
    ptx = assemble("threads")
    if not program.startswith("add"):
        assert "atom." in ptx or "red." in ptx


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (the CUDA toolkit) not found")
@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90"])
def test_the_gpu_output_check_assembles(arch, tmp_path):
    """The CUDA backend's output check (hand-written PTX under NVPTX's header for the arch)
    assembles with ptxas, with the atomic min that marks the first wrong element."""
    from compiler_gym.envs.loop_tool_env import family_call

    ptx = family_call("output_check_ptx", arch)
    assert f".target {arch}" in ptx and "atom.global.min.u64" in ptx
    (tmp_path / "check.ptx").write_text(ptx)
    command = ["ptxas", f"-arch={arch}", str(tmp_path / "check.ptx")]
    result = subprocess.run(
        command + ["-o", str(tmp_path / "check.cubin")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr + ptx


def test_ptx_vectorizes_a_threads_consecutive_elements(env):
    """A thread that adds 4 consecutive elements loads and stores them 128 bits at a time (the
    buffers come from cuMemAlloc, 256-byte aligned); one element per thread stays scalar."""
    env.reset(benchmark="loop_tool-cpu-v0/add/4096", action_space="simple")
    ptx = env.ptx("sm_90")
    assert "ld.global.nc.f32" in ptx and ".v4." not in ptx
    env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP, UP])
    assert order(env) == [(1024, 0), (4, 0), (1, 0)]
    ptx = env.ptx("sm_90")
    assert ptx.count("ld.global.nc.v4.f32") == 2 and ptx.count("st.global.v4.f32") == 1
    assert "ld.global.nc.f32" not in ptx


def test_a_kernel_that_unrolls_too_far_keeps_its_loops(env):
    """Serial loops of 15 x 273, unrolled fully, took LLVM over a second to compile (its
    instruction scheduler on one huge block): past 4,000 instructions a kernel is optimized
    again without unrolling, while matmul's small loops stay unrolled. How far a loop unrolls
    follows the host's vector width: with AVX2 this kernel passes the limit and keeps its
    loops (at most 16 loads), with AVX-512 it unrolls to about 2,000 instructions and stays
    unrolled; on every host it ends within the limit."""
    env.reset(benchmark="loop_tool-cpu-v0/add/4096", action_space="simple")
    env.multistep([TOGGLE_THREAD, TOGGLE_MODE, UP, TOGGLE_MODE] + [UP] * 272)
    assert order(env) == [(15, 1), (273, 0), (1, 0)]
    assert not any(loop["thread"] for loop in env.schedule["loops"])
    ir = env.llvm_ir()
    assert "define void @phase0" in ir
    instructions = sum(
        line.startswith("  ") and not line.lstrip().startswith(";") for line in ir.splitlines()
    )
    assert 1 <= instructions <= 4000, instructions
    a, b, c = (np.asarray(x) for x in (*env.program_inputs(), env.run_kernel()))
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    env.reset(benchmark="loop_tool-cpu-v0/matmul/128x128x128")
    # Unrolled: about 200 loads with AVX2, 55 with AVX-512; its loops alone have a few.
    assert env.llvm_ir().count(" = load ") > 16


@pytest.mark.skipif(not HAS_GPU, reason=f"no CUDA GPU here: {devices()['cuda']}")
@pytest.mark.parametrize("program", PROGRAMS)
def test_cuda_kernels_match_cpu(program):
    with compiler_gym.make("loop_tool-v0", benchmark=f"loop_tool-cuda-v0/{program}") as gpu:
        gpu.reset(action_space="split")
        expected = numpy_reference(program, gpu.program_inputs())
        rng = random.Random(program)
        for _ in range(6):
            gpu.multistep([rng.choice(range(5)) for _ in range(12)])
            np.testing.assert_allclose(gpu.run_kernel(), expected, rtol=1e-4, atol=1e-5)
            assert gpu.observation["flops"] > 0


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU")
def test_cuda_without_gpu_is_environment_not_supported(env):
    with pytest.raises(EnvironmentNotSupported, match="CUDA"):
        env.reset(benchmark="loop_tool-cuda-v0/1024")


@pytest.mark.parametrize(
    "uri", ["loop_tool-cpu-v0/0", "loop_tool-cpu-v0/-4", "loop_tool-cpu-v0/conv/3"]
)
def test_bad_benchmarks(env, uri):
    with pytest.raises(BenchmarkInitError):
        env.reset(benchmark=uri)


def test_copy_bandwidth_takes_a_known_device_and_an_integer():
    assert copy_bandwidth("cpu", 1 << 16) > 0
    with pytest.raises(ValueError, match="cpu"):
        copy_bandwidth("gpu", 1024)  # measured the CPU, silently, before
    with pytest.raises(ValueError, match="integer"):
        copy_bandwidth("cpu", "1024")
    if not HAS_GPU:
        with pytest.raises(EnvironmentNotSupported):
            copy_bandwidth("cuda", 1024)


def test_a_programs_data_follows_its_sizes_not_their_spelling(env):
    """add/016 is add/16: the same inputs, so the same output."""
    outputs = []
    for uri in ("loop_tool-cpu-v0/add/16", "loop_tool-cpu-v0/add/016"):
        env.reset(benchmark=uri)
        outputs.append(env.run_kernel())
    np.testing.assert_array_equal(outputs[0], outputs[1])


def test_bad_actions(env):
    env.reset()
    with pytest.raises(ValueError, match="out of range"):
        env.step(4)  # split is not in the simple space
    with pytest.raises(ValueError):
        env.step(1.5)
    assert env.actions == []


def test_fork_state_and_validate(env):
    env.reset(benchmark="loop_tool-cpu-v0/add/300", action_space="split")
    env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP, SPLIT, TOGGLE_THREAD])
    fork = env.fork()
    try:
        assert fork.observation["loop_tree"] == env.observation["loop_tree"]
        fork.step(DOWN)
        assert fork.observation["loop_tree"] != env.observation["loop_tree"]
    finally:
        fork.close()
    result = env.validate()
    assert result.okay(), result.error_details
    state = env.state
    with compiler_gym.make("loop_tool-v0", action_space="split") as other:
        other.apply(state)
        assert other.observation["loop_tree"] == env.observation["loop_tree"]
    # A fresh env in the simple space reads the split state in the split space.
    with compiler_gym.make("loop_tool-v0") as fresh:
        assert fresh.validate(state).okay()
        fresh.apply(state)
        assert fresh.action_space.name == "split"
        assert fresh.observation["loop_tree"] == env.observation["loop_tree"]


def test_no_reward_space_measures_nothing_and_names_are_checked():
    """make(reward_space=None) means none, as in CompilerGym (the id's default is left out);
    an unknown PTX architecture is a ValueError; devices() by attribute."""
    with compiler_gym.make("loop_tool-v0", reward_space=None) as env:
        assert env.reward_space is None
        env.reset()
        with pytest.raises(ValueError, match="unknown NVPTX architecture"):
            env.ptx("garbage")
    assert compiler_gym.envs.loop_tool.devices()["cpu"] == ""


def test_cache_stats_account_for_each_new_kernel(env):
    """A new loop tree compiles, is checked and is timed once; observing it again, or going
    back to a tree measured before (its kernel cached, its output checked), adds a timing
    only where the measurement was dropped."""
    from compiler_gym.envs.loop_tool import cache_stats

    env.reset(benchmark="loop_tool-cpu-v0/3001")  # a size no other test uses
    env.observation["runtime"]
    before = cache_stats()
    env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE, UP])  # a new tree: [1501 r1, 2, 1]
    env.observation["runtime"]
    env.observation["flops"]  # the same measurement
    after = cache_stats()
    assert {k: after[k] - before[k] for k in ("compiles", "checks", "timings", "hits")} == {
        "compiles": 1,
        "checks": 1,
        "timings": 1,
        "hits": 0,
    }
    assert after["compile_seconds"] > before["compile_seconds"]
    # Loading into the GPU driver is part of a CUDA compile only.
    assert after["module_load_seconds"] == before["module_load_seconds"]
    assert after["timing_seconds"] > before["timing_seconds"]
    env.step(DOWN)  # back to the first tree: a cache hit, timed again, not checked again
    env.observation["runtime"]
    last = cache_stats()
    assert (last["compiles"], last["checks"], last["timings"], last["hits"]) == (
        after["compiles"],
        after["checks"],
        after["timings"] + 1,
        after["hits"] + 1,
    )


# Prints what a fresh process compiles for a loop tree: its kernel's code hash, a hash of its
# output's bytes, and the process's compile count.
FRESH_KERNEL = """
import hashlib, json, sys
import compiler_gym
from compiler_gym.envs.loop_tool import cache_stats
with compiler_gym.make("loop_tool-v0", benchmark=sys.argv[1], reward_space=None) as env:
    env.reset(action_space="split")
    env.multistep(json.loads(sys.argv[2]))
    code = env.kernel_hash()
    output = hashlib.sha256(env.run_kernel().tobytes()).hexdigest()
    print(json.dumps({"code": code, "output": output, "compiles": cache_stats()["compiles"]}))
"""


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_a_cached_kernel_is_the_kernel_a_fresh_process_compiles(device):
    """A compile-cache hit gives the kernel a fresh compile gives: the same code (the object
    file or PTX, by hash) and the same output, bit for bit."""
    if device == "cuda" and not HAS_GPU:
        pytest.skip(f"no CUDA GPU here: {devices()['cuda']}")
    from compiler_gym.envs.loop_tool import cache_stats

    benchmark = f"loop_tool-{device}-v0/matmul/21x9x13"  # a program no other test compiles
    moves = [TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP, SPLIT, UP, TOGGLE_THREAD]
    with compiler_gym.make("loop_tool-v0", benchmark=benchmark, reward_space=None) as env:
        env.reset(action_space="split")
        env.multistep(moves)
        before = cache_stats()
        code = env.kernel_hash()  # compiled now
        fork = env.fork()
        assert fork.kernel_hash() == code  # a hit
        output = fork.run_kernel()  # a hit
        fork.close()
        after = cache_stats()
        env.reset()
        assert env.kernel_hash() != code  # another tree, other code
    assert (after["compiles"] - before["compiles"], after["hits"] - before["hits"]) == (1, 2)
    fresh = subprocess.run(
        [sys.executable, "-c", FRESH_KERNEL, benchmark, json.dumps(moves)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(fresh.stdout.splitlines()[-1]) == {
        "code": code,
        "output": hashlib.sha256(output.tobytes()).hexdigest(),
        "compiles": 1,
    }


def test_make_vec_rows_equal_single_envs():
    """Each env of a vector env steps as a single env on the same actions, step by step."""
    sequences = [  # one per env
        [TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP, TOGGLE_THREAD],
        [UP, TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP],
        [TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP, DOWN],
    ]
    benchmarks = ["loop_tool-cpu-v0/64", "loop_tool-cpu-v0/reduce/8x8", "loop_tool-cpu-v0/100"]
    with compiler_gym.make_vec(
        "loop_tool-v0", num_envs=3, benchmarks=benchmarks, observation_space="action_state"
    ) as vec:
        vec.reset()
        steps = zip(*sequences, strict=True)
        rows = [np.asarray(vec.step(np.array(step))[0]).tolist() for step in steps]
    for i, benchmark in enumerate(benchmarks):
        with compiler_gym.make("loop_tool-v0", benchmark=benchmark) as single:
            single.reset()
            expected = [single.step(action)[0].tolist() for action in sequences[i]]
        assert [row[i] for row in rows] == expected, benchmark
    # [cursor, size, tail] after each env's last action: 64 = (21, 1) x 3; 8 = (2, 2) x 3;
    # 100 = (33, 1) x 3, then down to (50, 0) x 2.
    assert rows[-1] == [[1, 3, 0], [1, 3, 0], [1, 2, 0]]


def test_gymnasium_check_env():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("compiler_gym/loop_tool-v0")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_in_a_worker_process():
    """isolation="process": the env runs in a worker, its timings queue with this process's."""
    with compiler_gym.make(
        "loop_tool-v0", isolation="process", benchmark="loop_tool-cpu-v0/matmul/16x16x16"
    ) as env:
        env.reset(action_space="split")
        env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE, UP, SPLIT])
        assert order(env) == [(8, 0), (2, 0), (1, 0), (1, 0)] + [(16, 0), (1, 0), (1, 0)] * 2
        assert env.observation["flops"] > 0
        assert env.validate().okay()


def _threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def _workers():
    with open(f"/proc/{os.getpid()}/task/{os.getpid()}/children") as f:
        children = {int(p) for p in f.read().split()}
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/children") as f:
            children |= {int(p) for p in f.read().split()}
    return children


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: no kernel threads to lose")
def test_a_fork_in_a_worker_keeps_its_kernel_threads():
    """A worker that has run threaded kernels has a thread pool, which a clone of the process
    would not have (its kernels then ran on one thread: half the GFLOP/s on 2 cores): its
    fork is a new worker that replays the episode."""
    others = _workers()  # other tests' processes
    with compiler_gym.make(
        "loop_tool-v0", isolation="process", benchmark="loop_tool-cpu-v0/add/65536"
    ) as env:
        env.send_param("timing_repetitions", "1")
        env.reset()
        env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE, UP])
        assert env.observation["flops"] > 0
        (original,) = _workers() - others
        assert _threads(original) > 2  # main, the watchdog, the kernels' pool
        with env.fork() as fork:
            (child,) = _workers() - others - {original}
            assert fork.actions == env.actions
            assert fork.observation["loop_tree"] == env.observation["loop_tree"]
            assert fork.observation["flops"] > 0
            assert _threads(child) > 2
            for e in (env, fork):
                e.step(UP)
            assert fork.observation["action_state"].tolist() == [1, 3, 0]
            assert env.observation["action_state"].tolist() == [1, 3, 0]


def test_a_worker_waits_for_the_device_queue_another_process_holds(tmp_path, monkeypatch):
    """The device queue holds across processes: while this process holds the CPU queue's file
    lock, a step in a worker (which measures its new loop tree) waits, and goes on once the
    lock is released."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the worker inherits it: a queue of our own
    lock_path = tmp_path / f"compiler_gym-loop_tool-cpu-{os.getuid()}.lock"
    with compiler_gym.make(
        "loop_tool-v0", isolation="process", benchmark="loop_tool-cpu-v0/add/4096"
    ) as env:
        env.send_param("timing_repetitions", "1")
        env.reset(action_space="simple")
        env.multistep([TOGGLE_MODE, UP, TOGGLE_MODE])  # cursor 1, size mode
        result = {}
        stepper = threading.Thread(target=lambda: result.update(step=env.step(UP)))
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            stepper.start()
            # Unqueued, the step (one 4096-element add) finishes in milliseconds.
            stepper.join(timeout=3)
            assert stepper.is_alive(), "the worker measured while another process held the queue"
            fcntl.flock(lock, fcntl.LOCK_UN)
        stepper.join(timeout=120)
        assert not stepper.is_alive()
        _, reward, done, info = result["step"]
        assert not done, info
        assert order(env) == [(2048, 0), (2, 0), (1, 0)]


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_make_vec_with_the_split_space(isolation):
    """make_vec(action_space="split"): every env, in process or in a worker, indexes split's
    actions, as a single env does."""
    actions = [SPLIT, TOGGLE_MODE, UP, TOGGLE_MODE, UP, UP]
    with compiler_gym.make_vec(
        "loop_tool-v0",
        num_envs=2,
        benchmarks=["loop_tool-cpu-v0/64", "loop_tool-cpu-v0/90"],
        observation_space="action_state",
        reward_space=None,
        action_space="split",
        isolation=isolation,
    ) as vec:
        assert vec.single_action_space.n == 5
        vec.reset()
        for action in actions:
            observations, *_ = vec.step(np.array([action, action]))
        rows = np.asarray(observations).tolist()
    expected = []
    for n in (64, 90):
        with compiler_gym.make(
            "loop_tool-v0", benchmark=f"loop_tool-cpu-v0/{n}", action_space="split"
        ) as single:
            single.reset()
            observation, *_ = single.multistep(actions)
            expected.append(observation.tolist())
    assert rows == expected == [[1, 3, 0], [1, 3, 0]]
    with pytest.raises(ValueError, match="unknown action space"):
        compiler_gym.make_vec("loop_tool-v0", num_envs=1, action_space="nope")
