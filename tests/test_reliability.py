"""Bad input gets a typed error and loses nothing; the fuzzer finds no disagreement."""

import random
import subprocess
import sys
import time

import numpy as np
import pytest

import compiler_gym
from compiler_gym.envs.llvm_env import (
    benchmark_cache_stats,
    clear_benchmark_cache,
    set_benchmark_cache_limit,
)
from compiler_gym.errors import BenchmarkInitError

HEALTHY = "benchmark://builtin-v0/crc32"


@pytest.fixture(scope="module")
def crc32_bitcode() -> bytes:
    with compiler_gym.make("llvm-v0", benchmark=HEALTHY) as env:
        env.reset()
        with open(env.observation["BitcodeFile"], "rb") as f:
            return f.read()


def _corruptions(bitcode: bytes, count: int, seed: int):
    """Generated corrupt files: single bit flips anywhere, truncations, and random bytes."""
    rng = random.Random(seed)
    for _ in range(count):
        data = bytearray(bitcode)
        position = rng.randrange(len(data))
        data[position] ^= 1 << rng.randrange(8)
        yield f"flip@{position}", bytes(data)
    for fraction in (0.1, 0.5, 0.9, 0.999):
        yield f"truncated@{fraction}", bitcode[: int(len(bitcode) * fraction)]
    yield "random", bytes(rng.randrange(256) for _ in range(4096))
    yield "empty", b""
    yield "whitespace", b"  \n\t\n"


@pytest.mark.parametrize("isolation,flips", [("none", 0), ("process", 150)])
def test_corrupt_bitcode_is_a_typed_error_and_the_process_survives(
    tmp_path, crc32_bitcode, isolation, flips
):
    # Found by fuzzing: LLVM's bitcode reader segfaults or aborts ("out of memory") on some
    # single-bit corruptions. Every corruption must load (and then step) or raise
    # BenchmarkInitError, with a healthy env beside it unaffected. Bit flips run in a worker
    # process only: in process the reader's crashes are contained, but a crash may first have
    # damaged the heap (this test once segfaulted later on), which only a process boundary
    # rules out. Truncated, random, empty and blank files are read safely in process too.
    with (
        compiler_gym.make("llvm-v0", benchmark=HEALTHY) as bystander,
        compiler_gym.make("llvm-v0", isolation=isolation) as env,
    ):
        bystander.reset()
        expected = bystander.observation["IrSha1"]
        outcomes = {"loaded": 0, "BenchmarkInitError": 0}
        if env.isolation == "process":
            # LLVM's reader can also loop for minutes on a corrupt file, depending on what its
            # heap held before (seen in process too, where nothing bounds it): in a worker,
            # the deadline ends it.
            env.send_param("worker.step_timeout_seconds", 15)
        for k, (name, data) in enumerate(_corruptions(crc32_bitcode, flips, seed=0)):
            path = tmp_path / f"{k}.bc"
            path.write_bytes(data)
            clear_benchmark_cache()
            try:
                env.reset(benchmark=f"file://{path}")
            except BenchmarkInitError as e:
                outcomes["BenchmarkInitError"] += 1
                assert str(e), name
                continue
            except TimeoutError:
                assert env.isolation == "process", name
                outcomes["BenchmarkInitError"] += 1
                continue
            outcomes["loaded"] += 1
            env.step(env.action_space.flags.index("-mem2reg"))
        assert bystander.observation["IrSha1"] == expected
        assert outcomes["BenchmarkInitError"] >= 3  # random, empty, whitespace at least
        assert outcomes["loaded"] + outcomes["BenchmarkInitError"] == flips + 7
        # The env that saw every corruption still works.
        env.reset(benchmark=HEALTHY)
        assert env.observation["IrSha1"] == expected


@pytest.mark.parametrize(
    "content, message",
    [
        # The text parser quotes the line it failed on: bytes that are not UTF-8 must not turn
        # BenchmarkInitError into UnicodeDecodeError.
        (b"\xc5\xff\xfe garbage \x80\x81\n", "Failed to parse LLVM bitcode"),
        # An empty file parses as an empty module, which is no program.
        (b"", "empty"),
    ],
)
def test_unparsable_program_is_a_benchmark_init_error(tmp_path, content, message):
    path = tmp_path / "program.ll"
    path.write_bytes(content)
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(BenchmarkInitError, match=message):
            env.reset(benchmark=f"file://{path}")


def test_corrupt_benchmark_in_make_vec_stays_in_its_row(tmp_path, crc32_bitcode):
    path = tmp_path / "broken.bc"
    path.write_bytes(crc32_bitcode[: len(crc32_bitcode) // 2])
    from compiler_gym.datasets import Benchmark

    with compiler_gym.make("llvm-v0") as probe:
        healthy = probe.datasets.benchmark(HEALTHY)

    vec = compiler_gym.make_vec(
        "llvm-v0",
        num_envs=2,
        num_threads=2,
        benchmarks=[healthy, Benchmark(f"file://{path}", files=[str(path)])],
        observation_space="IrInstructionCount",
        reward_space=None,
    )
    try:
        obs, info = vec.reset()
        assert info["error_type"][0] == ""
        assert info["error_type"][1] == "BENCHMARK_INIT"
        with compiler_gym.make("llvm-v0", benchmark=HEALTHY) as single:
            single.reset()
            assert int(obs[0]) == single.observation["IrInstructionCount"]
    finally:
        vec.close()


@pytest.fixture(scope="module")
def vec():
    v = compiler_gym.make_vec("llvm-v0", num_envs=2, num_threads=1, reward_space=None)
    v.reset()
    yield v
    v.close()


@pytest.mark.parametrize(
    "actions, message",
    [
        (np.array([1.9, 2.0]), "must be integers"),
        (np.array([True, False]), "must be integers"),
        (np.array([2**32 + 1, 0], dtype=np.int64), "out of range"),
        (np.array([2**63, 0], dtype=np.uint64), "out of range"),
        (np.array([-(2**40), 0], dtype=np.int64), "out of range"),
        (np.array([[1], [2], [3]]), "shape"),
        (np.array([[1, 2]]), "shape"),
        (np.array([1, 2, 3]), "shape"),
    ],
)
def test_make_vec_refuses_loose_actions(vec, actions, message):
    with pytest.raises(ValueError, match=message):
        vec.step(actions)
    # Nothing was applied: the envs step normally afterwards.
    vec.step(np.array([0, 1]))


@pytest.mark.parametrize(
    "action, message",
    [
        (1.9, "must be an integer, got 1.9"),
        (2.0, "must be an integer, got 2.0"),
        (True, "must be an integer, got True"),
        (np.True_, "must be an integer"),
        (np.float32(3), "must be an integer"),
        (b"3", "must be an integer"),
        (None, "must be an integer"),
        (2**40, "out of range"),
        (-1, r"out of range \[0, 121\)"),
        ([0, 1, 121], r"^Out-of-range action: action 121 is out of range \[0, 121\)"),
        ([0, 1, 1.5], "must be an integer"),
    ],
)
def test_a_single_env_refuses_loose_actions_before_applying_any(action, message):
    with compiler_gym.make("llvm-v0", benchmark=HEALTHY) as env:
        env.reset()
        env.step(3)
        with pytest.raises(ValueError, match=message):
            env.step(action)
        with pytest.raises(ValueError, match=message):
            env.try_actions([action], reward_space="IrInstructionCount")
        assert env.actions == [3]
        env.step(np.int64(4))
        env.step(np.array([5, 6], dtype=np.uint8))
        assert env.actions == [3, 4, 5, 6]


def test_make_vec_accepts_any_integer_dtype(vec):
    for dtype in (np.int8, np.uint16, np.int32, np.int64, np.uint64):
        vec.step(np.array([3, 4], dtype=dtype))
    vec.step([3, 4])
    vec.step(np.array([[3], [4]]))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"benchmarks": []}, "at least one benchmark"),
        ({"num_threads": -1}, "num_threads"),
        ({"batch_size": -1}, "batch_size"),
        ({"max_episode_steps": -1}, "max_episode_steps"),
        ({"actions_per_step": 0}, "actions_per_step"),
    ],
)
def test_make_vec_refuses_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compiler_gym.make_vec("llvm-v0", num_envs=2, **kwargs)


@pytest.mark.parametrize(
    "isolation,steps,cases,process_checks", [("none", 2700, 45, 4), ("process", 800, 12, 1)]
)
def test_fuzz_campaign_finds_no_disagreement(
    tmp_path, monkeypatch, isolation, steps, cases, process_checks
):
    # A bounded run of the fuzzer (python -m compiler_gym.bin.fuzz): random pass sequences on
    # generated and built-in programs, each checked across step/multistep, episodes, forks,
    # fresh envs, 1 and 2 engine threads and two processes, with every cached hash compared
    # against the module; in process, and with every env in a worker process. Its seed is
    # fixed, so a failure here reproduces with the same command.
    from compiler_gym.bin import fuzz

    monkeypatch.setenv("COMPILER_GYM_ISOLATION", isolation)  # restored after the test
    out = tmp_path / "report.json"
    code = fuzz.main(
        ["--steps", str(steps), "--length", "12", "--jobs", "2", "--seed", "11", "--quiet",
         "--process-every", "10", "--isolation", isolation, "--out", str(out)]
    )  # fmt: skip
    import json

    report = json.loads(out.read_text())
    assert report["problems"] == []
    assert report["process_crashes"] == []
    assert report["cases"] >= cases
    assert report["process_checks"] >= process_checks
    assert code == 0


def test_fuzz_repeats_report_an_action_whose_result_varies():
    # What LLVM 19's NewGVN did (envs/llvm/PASSES.md): the same action from the same state gave
    # one module or another. A stand-in env whose forks alternate between two results.
    from compiler_gym.bin import fuzz

    class Fork:
        def __init__(self, sha1):
            self.observation = {"IrSha1": sha1}

        def step(self, action):
            return None, 0.0, False, {}

        def close(self):
            pass

    class Env:
        forks = 0

        def fork(self):
            Env.forks += 1
            return Fork("aa" if Env.forks % 3 else "bb")

    problem = fuzz.check_repeats(Env(), 7, 4)
    assert problem == "repeats: action 7 from one state gave 2 outcomes in 4 runs: aa, bb"
    assert Env.forks == 4
    # A real pass, repeated from one state: one outcome.
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/qsort") as env:
        env.reset()
        env.step(env.action_space["-mem2reg"])
        assert fuzz.check_repeats(env, env.action_space["-gvn"], 4) is None


INTERRUPT_SCRIPT = r"""
import json, os, signal, threading
import compiler_gym
# Python leaves SIGINT ignored when it starts so (a background job of a shell): as at a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)
env = compiler_gym.make(
    "llvm-v0", benchmark="benchmark://builtin-v0/sha256", reward_space="IrInstructionCount"
)
env.reset()
flags = env.action_space.flags
cycle = [flags.index(f) for f in ("-mem2reg", "-reg2mem", "-instcombine", "-simplifycfg")]
actions = cycle * 2000
threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    env.multistep(actions)
    interrupted = False
except KeyboardInterrupt:
    interrupted = True
applied = env.actions
with compiler_gym.make(
    "llvm-v0", benchmark="benchmark://builtin-v0/sha256", reward_space="IrInstructionCount"
) as replay:
    replay.reset()
    replay.multistep(applied)
    print(json.dumps({
        "interrupted": interrupted, "applied": len(applied), "total": len(actions),
        "prefix": applied == actions[: len(applied)],
        "same": replay.observation["IrSha1"] == env.observation["IrSha1"],
        "reward": env.episode_reward, "replayed_reward": replay.episode_reward,
        "valid": env.validate().okay(),
    }))
"""


def test_interrupted_multistep_records_exactly_the_applied_actions():
    # Found by fuzzing: Ctrl-C in a long multistep raised only when it returned, and then
    # env.actions was empty although every pass had been applied. Now the interrupt stops
    # the multistep between two actions, and the actions recorded are the ones applied: a
    # replay of them reaches the same module.
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", INTERRUPT_SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["interrupted"], result
    assert 0 < result["applied"] < result["total"], result
    assert result["prefix"] and result["same"] and result["valid"], result
    # The episode reward counts the actions that ran (it stayed 0.0 and failed validation).
    assert result["reward"] == result["replayed_reward"], result


def _running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent to reap it does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_sandboxed_program_dies_with_the_process_that_ran_it(tmp_path):
    # Found by fuzzing: csmith probes kept running for 20 minutes after the worker process
    # that started them crashed. A sandboxed program must not outlive its parent.
    import os
    import signal
    import subprocess
    import sys
    import time

    pidfile = tmp_path / "pid"
    script = (
        "import compiler_gym\n"
        f"compiler_gym._C.run_sandboxed(['/bin/sh', '-c', 'echo $$ > {pidfile}; exec sleep 60'],"
        " timeout_seconds=120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.time() + 60
        while not (pidfile.exists() and pidfile.read_text().strip()):
            assert time.time() < deadline, "the sandboxed program did not start"
            time.sleep(0.05)
        child = int(pidfile.read_text())
        assert _running(child)
        os.kill(parent.pid, signal.SIGKILL)  # as a crash would end it: no clean-up code runs
        parent.wait()
        deadline = time.time() + 10
        while _running(child) and time.time() < deadline:
            time.sleep(0.05)
        assert not _running(child)
    finally:
        parent.kill()


LABEL_TABLE_PROGRAM = r"""
#include <stdio.h>
static int dispatch(int x) {
  static void *table[] = {&&even, &&odd};  /* label addresses in a static initializer */
  goto *table[x & 1];
even: return 10;
odd: return 20;
}
int main(void) { printf("%d\n", dispatch(0) + dispatch(1)); return 0; }
"""


def test_code_generation_of_label_addresses_in_initializers(tmp_path):
    # Found by fuzzing gcc-torture: ObjectTextSizeBytes failed with "Undefined temporary
    # symbol" for programs whose static tables hold label addresses, though llc-19 compiled the
    # same bitcode (the in-process copy for code generation lost the labels).
    source = tmp_path / "labels.c"
    source.write_text(LABEL_TABLE_PROGRAM)
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=compiler_gym.make_benchmark(str(source)))
        assert env.observation["ObjectTextSizeBytes"] > 0
        assert env.observation["TextSizeBytes"] > 0
        env.step(env.action_space.flags.index("-mem2reg"))
        assert env.observation["ObjectTextSizeBytes"] > 0
        assert env.validate().okay()


def test_benchmark_cache_is_bounded_over_an_endless_generator():
    # An endless generator dataset must not grow memory: the cache of loaded programs and
    # baselines drops the least recently used past its bound.
    limit = benchmark_cache_stats()["limit_bytes"]
    clear_benchmark_cache()
    try:
        # The cache of this process: where the envs run.
        with compiler_gym.make("llvm-ic-v0", isolation="none") as env:
            env.reset(benchmark="generator://llvm-stress-v0/0")
            one = benchmark_cache_stats()["bytes"]  # a program with its Oz baseline
            set_benchmark_cache_limit(4 * one)
            for seed in range(1, 25):
                env.reset(benchmark=f"generator://llvm-stress-v0/{seed}")
                env.step(env.action_space.flags.index("-mem2reg"))
            stats = benchmark_cache_stats()
            assert 1 <= stats["entries"] <= 8, stats
            assert stats["bytes"] <= 4 * one + 4 * one, stats  # the bound, plus the newest
            # A dropped program loads again, unchanged.
            env.reset(benchmark="generator://llvm-stress-v0/0")
            first = env.observation["IrSha1"]
            clear_benchmark_cache()
            env.reset(benchmark="generator://llvm-stress-v0/0")
            assert env.observation["IrSha1"] == first
    finally:
        set_benchmark_cache_limit(limit)
        clear_benchmark_cache()


def test_temporary_directories_of_dead_processes_are_swept(tmp_path):
    # Found by fuzzing: workers that crashed left their scratch directories in $TMPDIR for
    # good. A directory's name says which process made it; the next process removes those
    # whose owner is gone, and leaves the others.
    import os
    import subprocess
    import sys

    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs
    ns = os.readlink("/proc/self/ns/pid").split("[")[1].rstrip("]")
    stale = tmp_path / f"compiler_gym-run.pid{dead.pid}.ns{ns}-abc123"
    alive = tmp_path / f"compiler_gym-run.pid{os.getpid()}.ns{ns}-def456"
    # The same pid in another PID namespace (a container sharing /tmp) is another process.
    elsewhere = tmp_path / f"compiler_gym-run.pid{dead.pid}.ns1{ns}-ghi789"
    unrelated = tmp_path / "someone-else.pid1-xyz"
    for d in (stale, alive, elsewhere, unrelated):
        d.mkdir()
        (d / "file").write_text("x")
    program = "import compiler_gym; print(compiler_gym._C.make_temp_dir('compiler_gym-t'))"
    made = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True, text=True, check=True, env={**os.environ, "TMPDIR": str(tmp_path)},
    ).stdout.strip()  # fmt: skip
    assert not stale.exists()
    assert alive.exists() and elsewhere.exists() and unrelated.exists()
    assert made.startswith(str(tmp_path / "compiler_gym-t.pid"))
    assert f".ns{ns}-" in made


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_fork_continues_exactly_like_its_original_after_name_uniquing(isolation):
    # Found by the 100k-step fuzz run (seed 31, case 1444): a fork through bitcode restarted
    # LLVM's private name-uniquing counts, so -partial-inliner named an extracted function
    # "transparent_crc.1.extracted" in the fork and ".2.extracted" in the original. Forks now
    # copy the counts (CopyNameCounters); isolated envs fork the worker process, which copies
    # LLVM's private state too.
    uri = "generator://csmith-v0/1273887016"
    actions = ["-irce", "-float2int", "-iroutliner", "-lcssa", "-loop-idiom", "-inferattrs"]
    actions += ["-gvn-hoist", "-hotcoldsplit", "-loop-instsimplify", "-loweratomic"]
    actions += ["-mldst-motion", "-partial-inliner", "-loop-rotate", "-sink"]
    actions += ["-lower-guard-intrinsic", "-inject-tli-mappings"]
    # -iroutliner has since left the default space (a miscompile): the opt-in space has it.
    opt_in = {"action_space": "PassesAllUnsound"}
    with compiler_gym.make("llvm-v0", benchmark=uri, isolation=isolation, **opt_in) as env:
        env.reset()
        env.multistep(actions[:9])
        with env.fork() as fork:
            fork.multistep(actions[9:])
            env.multistep(actions[9:])
            assert fork.observation["IrSha1"] == env.observation["IrSha1"]


def test_fuzz_kills_a_hung_worker_and_goes_on(monkeypatch):
    # A worker that starts case 3 and then reports nothing (as one did, blocked on malloc's lock
    # after a recovered abort) is killed after --case-timeout and counted with its case.
    import argparse

    from compiler_gym.bin import fuzz

    hang = (
        "import json, time\n"
        "print(json.dumps({'event': 'start', 'case': 3}), flush=True)\n"
        "time.sleep(120)\n"
    )
    monkeypatch.setattr(fuzz, "_worker_command", lambda *a: [sys.executable, "-c", hang])
    started = time.monotonic()
    crashes = fuzz.run_range(argparse.Namespace(case_timeout=1.0), 3, 1, 0, lambda e: None)
    assert crashes == [{"case": 3, "exit_code": -9, "hung": True}]
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_two_threads_on_one_env_take_turns(isolation):
    """Using one env (or one make_vec) from two Python threads is a mistake, but it must not
    crash the process (LLVM's state is not thread-safe) nor, with workers, make one thread act
    on a worker another has retired (which once sent kill(-1)): the calls take turns. Run in a
    subprocess so that a crash fails this test and nothing else."""
    code = f"""
import threading, compiler_gym, numpy as np
env = compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/sha256", isolation="{isolation}")
env.reset()
vec = compiler_gym.make_vec("llvm-ic-v0", num_envs=2, isolation="{isolation}")
vec.reset()
errors = []
def work(seed):
    rng = np.random.default_rng(seed)
    for i in range(60):
        try:
            if i % 3 == 0:
                env.observation["IrSha1"]
            else:
                env.step(int(rng.integers(env.action_space.n)))
            vec.step(rng.integers(vec.env_action_space.n, size=2))
        except compiler_gym.SessionNotFound:
            env.reset()
        except Exception as e:
            errors.append(repr(e))
threads = [threading.Thread(target=work, args=(s,)) for s in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
print("errors", errors)
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "errors []" in result.stdout, result.stdout


def test_a_full_disk_while_writing_bitcode_is_a_typed_error(tmp_path):
    """LLVM's output stream ends the process when an error it saw is never read; the bitcode
    file of a full disk (here /dev/full in its place) is a ServiceError and the env goes on."""
    import os

    from compiler_gym.errors import ServiceError

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        path = env.observation["BitcodeFile"]
        os.remove(path)
        os.symlink("/dev/full", path)
        with pytest.raises(ServiceError, match="No space left on device"):
            env.observation["BitcodeFile"]
        os.remove(path)
        assert env.observation["BitcodeFile"] == path
        assert env.observation["IrInstructionCount"] > 0
