"""The process-isolated executor (isolation="process"): the same results as in process, and
faults (crashing, hanging, memory-hungry passes, a killed worker) that end only their own
episode, with their type, in single envs and in batches beside healthy envs."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import compiler_gym
from compiler_gym.errors import ServiceError, SessionNotFound
from conftest import NEXT_STEP_PIPELINE

# A worker with LLVM maps about 200 MiB: 768 leaves the allocating pass half a second of work,
# far from the deadline even on a busy machine.
LIMITS = {"worker.step_timeout_seconds": 5, "worker.memory_limit_mb": 768}


def worker_pids():
    """The worker processes that are children of this process."""
    pids = []
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/children") as f:
            pids += [int(p) for p in f.read().split()]
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().startswith("compiler_gym-wo"):
                    out.append(pid)
        except FileNotFoundError:
            pass
    return out


@pytest.fixture(autouse=True)
def no_worker_outlives_its_env():
    before = set(worker_pids())
    yield
    assert set(worker_pids()) <= before


@pytest.mark.parametrize("uri", ["benchmark://builtin-v0/qsort", "generator://llvm-stress-v0/5"])
def test_isolated_env_gives_what_in_process_gives(uri):
    rng = np.random.default_rng(3)
    kwargs = dict(benchmark=uri, observation_space="Autophase", reward_space="IrInstructionCountOz")
    with (
        compiler_gym.make("llvm-v0", **kwargs) as local,
        compiler_gym.make("llvm-v0", isolation="process", **kwargs) as remote,
    ):
        assert remote.isolation == "process"
        np.testing.assert_array_equal(local.reset(), remote.reset())
        actions = rng.integers(local.action_space.n, size=24).tolist()
        for i, a in enumerate(actions):
            want, got = local.step(a), remote.step(a)
            np.testing.assert_array_equal(want[0], got[0])
            assert want[1:3] == got[1:3]
            assert want[3]["action_had_no_effect"] == got[3]["action_had_no_effect"]
            if i == 12:
                local_fork, remote_fork = local.fork(), remote.fork()
        for env in (local, remote, local_fork, remote_fork):
            env.step(actions[0])
        assert remote.observation["IrSha1"] == local.observation["IrSha1"]
        assert remote_fork.observation["IrSha1"] == local_fork.observation["IrSha1"]
        assert remote_fork.actions == local_fork.actions == actions[:13] + actions[:1]
        graph, want = remote.observation["Programl"], local.observation["Programl"]
        assert list(graph.nodes(data=True)) == list(want.nodes(data=True))
        assert list(graph.edges(data=True)) == list(want.edges(data=True))
        assert remote.observation["Ir"] == local.observation["Ir"]
        assert remote.send_param("runtime_observation_count", 2) == "2"
        with remote.fork() as fork:
            assert fork.get_param("runtime_observation_count") == "2"
        remote_fork.close()
        local_fork.close()


FAULTS = [
    ("compiler-gym-test-segfault", "CRASH", "crashed"),
    ("compiler-gym-test-fatal-error", "CRASH", "crashed"),
    ("compiler-gym-test-hang", "DEADLINE_EXCEEDED", "took longer than 5"),
    ("compiler-gym-test-alloc", "RESOURCE_EXHAUSTED", "out of memory"),
]


@pytest.mark.parametrize("pipeline,error_type,message", FAULTS)
def test_fault_ends_only_its_episode(pipeline, error_type, message):
    with (
        compiler_gym.make("llvm-v0", isolation="process") as victim,
        compiler_gym.make("llvm-v0", isolation="process") as bystander,
    ):
        for name, value in LIMITS.items():
            victim.send_param(name, value)
        victim.reset()
        bystander.reset()
        victim._env.set_parameter(NEXT_STEP_PIPELINE, pipeline)
        _, _, done, info = victim.step(0)
        assert done
        assert info["error_type"] == error_type
        assert message in info["error_details"]
        with pytest.raises(SessionNotFound):
            victim.observation["IrInstructionCount"]
        # The other env never noticed, and the victim starts over in a new worker with its
        # settings.
        _, _, done, _ = bystander.step(bystander.action_space.flags.index("-mem2reg"))
        assert not done
        victim.reset()
        assert victim.get_param("worker.step_timeout_seconds").startswith("5")
        _, _, done, _ = victim.step(victim.action_space.flags.index("-mem2reg"))
        assert not done
        assert victim.observation["IrSha1"] == bystander.observation["IrSha1"]


def test_timeout_argument_bounds_one_call():
    """CompilerGym's ``step(..., timeout=)``: the worker's deadline for that call alone, also
    through a wrapper; the env's own setting is back afterwards."""
    from compiler_gym.wrappers import TimeLimit

    with TimeLimit(compiler_gym.make("llvm-v0", isolation="process"), 10) as env:
        env.reset(timeout=60)
        env._env.set_parameter(NEXT_STEP_PIPELINE, "compiler-gym-test-hang")
        _, _, done, info = env.step(0, timeout=2)
        assert done and info["error_type"] == "DEADLINE_EXCEEDED"
        assert "took longer than 2" in info["error_details"]
        assert env.get_param("worker.step_timeout_seconds").startswith("300")
        env.reset()
        _, _, done, _ = env.multistep([0, 1], timeout=30)
        assert not done and env.actions == [0, 1]
        with pytest.raises(ValueError, match="positive"):
            env.step(0, timeout=0)


def test_timeout_argument_in_process_warns_and_checks():
    from compiler_gym.envs import compiler_env
    from compiler_gym.wrappers import CompilerEnvWrapper

    compiler_env._warn_unbounded_timeout.cache_clear()
    with compiler_gym.make("llvm-v0") as env:
        env.reset()
        with pytest.warns(UserWarning, match="worker process"):
            _, _, done, _ = env.step(0, timeout=300)
        assert not done and env.actions == [0]
        for bad in (-1, True, float("nan")):
            with pytest.raises(ValueError, match="positive"):
                env.step(0, timeout=bad)
        assert env.actions == [0]

        class WrittenWithoutTimeout(CompilerEnvWrapper):
            def multistep(
                self,
                actions,
                observation_spaces=None,
                reward_spaces=None,
                observations=None,
                rewards=None,
            ):
                return self.env.multistep(actions, observation_spaces, reward_spaces)

        WrittenWithoutTimeout(env).step(0)  # step passes no timeout= it was not given
        assert env.actions == [0, 0]


def test_worker_killed_mid_step_is_a_crash():
    with compiler_gym.make("llvm-v0", isolation="process") as env:
        env.reset()
        before = set(worker_pids())
        env._env.set_parameter(NEXT_STEP_PIPELINE, "compiler-gym-test-hang")

        def kill_the_worker():
            time.sleep(1)
            for pid in before:
                os.kill(pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_the_worker)
        killer.start()
        _, _, done, info = env.step(0)
        killer.join()
        assert done
        assert info["error_type"] == "CRASH"
        assert "signal 9" in info["error_details"]
        env.reset()
        assert env.observation["IrInstructionCount"] == env.observation["IrInstructionCountO0"]


def test_make_vec_faults_stay_in_their_rows():
    kwargs = dict(
        num_envs=4,
        num_threads=2,
        benchmarks=["benchmark://builtin-v0/qsort"],
        observation_space="Autophase",
        reward_space="IrInstructionCount",
    )
    local = compiler_gym.make_vec("llvm-v0", **kwargs)
    remote = compiler_gym.make_vec("llvm-v0", isolation="process", parameters=LIMITS, **kwargs)
    local.reset()
    remote.reset()
    for env_id, (pipeline, _, _) in enumerate(FAULTS[1:], start=1):
        remote._engine._set_env_parameter(env_id, NEXT_STEP_PIPELINE, pipeline)
    actions = np.array([3, 3, 3, 3])
    want = local.step(actions)
    got = remote.step(actions)
    assert got[4]["error_type"].tolist() == ["", "CRASH", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"]
    assert got[2].tolist() == [False, True, True, True]
    np.testing.assert_array_equal(got[0][0].numpy(), want[0][0].numpy())
    assert float(got[1][0]) == float(want[1][0])
    # Next step: the failed envs reset (NEXT_STEP autoreset) in new workers; then all go on.
    remote.step(actions)
    local.reset()
    want = local.step(actions)
    got = remote.step(actions)
    assert got[4]["error_type"].tolist() == ["", "", "", ""]
    np.testing.assert_array_equal(got[0][1:].numpy(), want[0][1:].numpy())
    remote.close()
    local.close()


def test_unknown_isolation_is_a_value_error():
    with pytest.raises(ValueError, match="isolation must be"):
        compiler_gym.make("llvm-v0", isolation="thread")
    with pytest.raises(ValueError, match="isolation must be"):
        compiler_gym.make_vec("llvm-v0", num_envs=1, isolation="thread")


def test_fork_outlives_the_original_and_its_files():
    # A fork is a copy of the worker process: it must neither use nor remove the files the
    # original made (its working directory, its linked executable).
    with compiler_gym.make(
        "llvm-v0", benchmark="benchmark://builtin-v0/crc32", isolation="process"
    ) as env:
        env.reset()
        env.step(env.action_space.flags.index("-mem2reg"))
        assert len(env.observation["Runtime"]) == 1
        original_file = env.observation["BitcodeFile"]
        fork = env.fork()
    assert not os.path.exists(original_file)  # removed with the original's worker
    with fork:
        assert len(fork.observation["Runtime"]) == 1
        path = fork.observation["BitcodeFile"]
        assert path != original_file and os.path.exists(path)
        assert fork.observation["IrInstructionCount"] < fork.observation["IrInstructionCountO0"]


def _field(pid: int, name: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith(name + ":")).split()[1])


def test_a_fork_is_in_its_own_process_group_when_fork_returns():
    """Retiring the original worker kills its process group; a fork that had not run yet was
    still in it (14 of 150 forks lost on a loaded machine) until the holder moved it too."""
    with compiler_gym.make("llvm-v0", isolation="process") as env:
        env.reset()
        before = set(worker_pids())
        for _ in range(5):
            with env.fork():
                (child,) = set(worker_pids()) - before
                assert os.getpgid(child) == child


def test_fork_chains_do_not_grow_the_address_space():
    """Forks of forks each keep their parent's (stopped) watchdog's stack: 8 MiB a generation
    before, which a chain of a thousand forks ran out of address space with."""
    env = compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32", isolation="process")
    env.reset()
    env.step(0)
    (first,) = worker_pids()
    start = _field(first, "VmSize")
    for _ in range(30):
        fork = env.fork()
        env.close()
        env = fork
        env.step(1)
    (last,) = worker_pids()
    grown_kib = _field(last, "VmSize") - start
    env.close()
    assert grown_kib < 30 * 1024, grown_kib  # 30 generations under 1 MiB each


def test_huge_program_past_the_memory_limit_is_a_typed_error(tmp_path):
    # 100,000 functions (11 MB of IR) do not fit a 400 MiB worker: the reset fails with its
    # type, and the env and its neighbour go on.
    path = tmp_path / "huge.ll"
    path.write_text(
        "".join(
            f"define i32 @f{i}(i32 %a) {{\n  %b = add i32 %a, {i}\n  %c = mul i32 %b, %a\n"
            f"  %d = xor i32 %c, %b\n  ret i32 %d\n}}\n"
            for i in range(100_000)
        )
    )
    with (
        compiler_gym.make("llvm-v0", isolation="process") as env,
        compiler_gym.make("llvm-v0", isolation="process") as bystander,
    ):
        bystander.reset()
        with pytest.raises(ValueError, match="at most"):  # would overflow into no limit
            env.send_param("worker.memory_limit_mb", "1e30")
        env.send_param("worker.memory_limit_mb", 400)
        with pytest.raises(ServiceError, match="out of memory"):
            env.reset(benchmark=f"file://{path}")
        env.reset(benchmark="benchmark://builtin-v0/qsort")
        bystander.reset(benchmark="benchmark://builtin-v0/qsort")
        assert env.observation["IrSha1"] == bystander.observation["IrSha1"]
