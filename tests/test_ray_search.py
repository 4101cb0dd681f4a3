"""Distributed search on a three-node Ray cluster (all on this machine): the same best
states as the local search on a fixed seed, with workers and nodes killed mid-search."""

from __future__ import annotations

import argparse
import csv
import functools
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from ray_cluster import NODE, node_of, ray_cluster, ray_workers  # noqa: E402

import compiler_gym  # noqa: E402
from compiler_gym.search import distributed, greedy_search, random_search  # noqa: E402

# Bounded: a cluster that does not come up fails here instead of hanging the suite.
pytestmark = pytest.mark.timeout(240)

ENV = "llvm-ic-v0"
with compiler_gym.make(ENV) as _env:
    SPACE = _env.action_space
    NUM_ACTIONS = SPACE.n

# This test's process: what the functions that end their process must never end.
DRIVER = os.getpid()


@pytest.fixture(scope="module")
def cluster():
    with ray_cluster(num_nodes=3) as c:
        yield c


def test_a_prepared_benchmark_is_its_bitcode_and_baselines_and_needs_no_file(cluster, tmp_path):
    # A user's program that exists only on this machine, and only until it is prepared.
    source = tmp_path / "qsort.c"
    source.write_bytes(
        (Path(compiler_gym.__file__).parent / "data/builtin-v0/src/qsort.c").read_bytes()
    )
    benchmark = compiler_gym.Benchmark.from_file("benchmark://user-v0/qsort", source)
    with compiler_gym.make(ENV, benchmark=benchmark) as env:
        env.reset()
        bitcode, sha1 = env.observation["Bitcode"].tobytes(), env.observation["IrSha1"]
        baselines = {name: env.observation[name] for name in distributed.BASELINES}
        local = greedy_search(env, max_steps=6)

    ref = distributed.put_benchmark(ENV, benchmark)
    source.unlink()
    prepared = ray.get(ref)
    assert prepared.uri == "benchmark://user-v0/qsort"
    assert prepared.benchmark.files == [] and prepared.benchmark.data == bitcode
    assert prepared.ir_sha1 == sha1 and prepared.baselines == baselines
    # The baselines travel as known costs, which the nodes' engines take as they are.
    assert prepared.benchmark.known_costs == {
        "O0/IrInstructionCount": baselines["IrInstructionCountO0"],
        "O3/IrInstructionCount": baselines["IrInstructionCountO3"],
        "Oz/IrInstructionCount": baselines["IrInstructionCountOz"],
    }

    # Workers on other nodes search the program from the object store alone.
    with distributed.RayTryActions(ENV, ref, num_workers=2) as try_actions:
        with compiler_gym.make(ENV, benchmark=prepared.load()) as env:
            env.reset()
            remote = greedy_search(env, max_steps=6, try_actions=try_actions)
    assert (remote.commandline, remote.reward) == (local.commandline, local.reward)


def test_distributed_greedy_equals_local_and_survives_a_killed_worker(cluster):
    with compiler_gym.make(ENV, benchmark="builtin-v0/crc32") as env:
        env.reset()
        local_rewards = env.try_actions(range(env.action_space.n))
        local = greedy_search(env)

    with distributed.RayTryActions(ENV, "builtin-v0/crc32", num_workers=2) as try_actions:
        with compiler_gym.make(ENV, benchmark="builtin-v0/crc32") as env:
            env.reset()
            # The same rewards as the engine's own try_actions, NaNs included.
            np.testing.assert_array_equal(
                try_actions(env, range(env.action_space.n)), local_rewards
            )
            before = try_actions.pids()
            steps = []

            def kill_after_two_steps(env) -> None:
                steps.append(env.actions[-1])
                if len(steps) == 2:
                    os.kill(before[1], signal.SIGKILL)

            remote = greedy_search(env, callback=kill_after_two_steps, try_actions=try_actions)
            after = try_actions.pids()
    assert len(steps) > 3, "the search ended before it went on without the killed worker"
    assert after[0] == before[0] and after[1] != before[1], "the killed worker was not restarted"
    assert (remote.commandline, remote.reward) == (local.commandline, local.reward)


# Workers cannot import this test module: its functions (the guide) travel by value.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _row_guide(observations, episodes):
    """Prefers one action per episode length and row: each row scored alone."""
    probabilities = np.ones((len(episodes), NUM_ACTIONS))
    for row, actions in enumerate(episodes):
        probabilities[row, (len(actions) * 7 + int(observations[row, 0])) % NUM_ACTIONS] += 40
    return probabilities


def _history(progress):
    return [(episodes, reward) for _, episodes, reward in progress.history]


def test_distributed_random_search_equals_local_with_a_guide_and_a_killed_worker(cluster):
    kwargs = dict(
        episodes=24,
        num_envs=5,
        patience=5,
        seed=7,
        guide=_row_guide,
        observation_space="Autophase",
        first_episode=[3, 17, 40, 2],
    )
    local, local_progress = random_search(ENV, "builtin-v0/qsort", **kwargs)

    killed = []

    def kill_one_worker(progress) -> None:
        if progress.episodes == 6 and not killed:
            victim = ray_workers("ray::_RandomWorker")[0]
            killed.append(victim.pid)
            victim.kill()

    remote, remote_progress = distributed.ray_random_search(
        ENV,
        "builtin-v0/qsort",
        num_workers=2,
        steps_per_round=4,
        callback=kill_one_worker,
        **kwargs,
    )
    assert killed
    assert (remote.commandline, remote.reward) == (local.commandline, local.reward)
    assert remote_progress.episodes == local_progress.episodes == 24
    assert _history(remote_progress) == _history(local_progress)


def test_a_random_worker_restored_from_its_checkpoint_goes_on_as_if_never_stopped(cluster):
    from compiler_gym.search.distributed import _RandomWorker

    # Slot 0's given episode: at the checkpoint it is inside it, with a reward so far.
    passes = (
        "-mem2reg",
        "-sroa",
        "-instcombine",
        "-gvn",
        "-simplifycfg",
        "-dce",
        "-licm",
        "-early-cse",
    )

    ref = distributed.put_benchmark(ENV, "builtin-v0/qsort")
    config = {
        "env_id": ENV,
        "reward_space": "IrInstructionCountOz",
        "observation_space": "Autophase",
        "num_envs": 4,
        "slots": [0, 2],
        "patience": 4,
        "first": [SPACE[f] for f in passes],
        "seed": 5,
        "num_threads": 1,
        "guide": _row_guide,
        "parameters": None,
    }
    straight = _RandomWorker(config)
    _, checkpoint = straight.run([ref], None, 6)
    assert checkpoint["given"] and any(checkpoint["total"]) and any(checkpoint["actions"])
    observations = straight.episodes.observations.copy()

    restart = _RandomWorker(config)  # what Ray's restart of the actor starts from
    restart.run([ref], checkpoint, 0)
    # The engine replayed to where the straight one is: the guide sees the same observations.
    np.testing.assert_array_equal(restart.episodes.observations, observations)
    rest = straight.run([ref], checkpoint, 14)
    assert rest[0], "no episode ended: nothing compared"
    assert restart.run([ref], checkpoint, 14) == rest
    later = rest[1]  # slot 0's given episode has ended by now: it must not come back
    assert not later["given"]
    after = straight.run([ref], later, 10)
    assert after[0], "no episode ended: nothing compared"
    assert _RandomWorker(config).run([ref], later, 10) == after


def test_distributed_random_search_equals_local_after_losing_a_node(cluster):
    kwargs = dict(reward_space="IrInstructionCount", episodes=30, num_envs=4, patience=6, seed=3)
    local, local_progress = random_search(ENV, "builtin-v0/crc32", **kwargs)
    removed = []

    def lose_a_workers_node(progress) -> None:
        if progress.episodes == 5 and not removed:
            workers = ray_workers("ray::_RandomWorker")
            victim = next(w for w in workers if node_of(cluster, w) is not cluster.head_node)
            node = node_of(cluster, victim)
            removed.append(node)
            # As a machine that fails: its raylet and its workers at once (a worker whose
            # raylet is gone would otherwise go on answering its actor's calls).
            on_node = [w for w in ray_workers("ray::") if node_of(cluster, w) is node]
            cluster.remove_node(node, allow_graceful=False)
            for worker in on_node:
                worker.kill()

    try:
        remote, remote_progress = distributed.ray_random_search(
            ENV,
            "builtin-v0/crc32",
            num_workers=2,
            steps_per_round=3,
            callback=lose_a_workers_node,
            **kwargs,
        )
    finally:
        if removed:  # the next tests get their three nodes back
            cluster.add_node(**NODE)
    assert removed
    assert (remote.commandline, remote.reward) == (local.commandline, local.reward)
    assert _history(remote_progress) == _history(local_progress)


def test_a_runtime_budget_counts_the_episodes_under_way_and_surplus_workers_never_start(cluster):
    # Time runs out in the first step: the best of the unfinished episodes is the result (seed
    # 1's first actions on the 121-action table: one of them, -loop-instsimplify, gains 19).
    kwargs = dict(
        reward_space="IrInstructionCount", episodes=None, runtime=1e-9, patience=0, seed=1
    )
    local, _ = random_search(ENV, "builtin-v0/crc32", num_envs=2, **kwargs)
    # Ten workers asked for two slots: two start, which the cluster's three CPUs hold.
    remote, progress = distributed.ray_random_search(
        ENV, "builtin-v0/crc32", num_envs=2, num_workers=10, steps_per_round=1, **kwargs
    )
    assert progress.episodes == 0 and local.reward > 0
    assert (remote.commandline, remote.reward) == (local.commandline, local.reward)
    # patience=0 (as many steps as actions) makes rounds of that many steps, not of none.
    longer, _ = distributed.ray_random_search(ENV, "builtin-v0/crc32", num_envs=2, **kwargs)
    assert longer.reward >= local.reward and len(longer.commandline.split()) > 4
    with pytest.raises(ValueError, match="do not fit"):
        distributed.ray_random_search(ENV, "builtin-v0/crc32", num_workers=4, num_envs=8)


def _crashing_guide(log: str, observations, episodes):
    """Ends the process that calls it, as a crash in the engine would, after a line in
    ``log``."""
    assert os.getpid() != DRIVER, "the guide ran in the test's process"
    with open(log, "a") as f:
        f.write(f"{os.getpid()}\n")
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_call_that_crashes_its_worker_each_time_fails_after_a_few_tries(cluster, tmp_path):
    log = tmp_path / "crashes"
    with pytest.raises(distributed.WorkerCrashError, match="3 tries") as error:
        distributed.ray_random_search(
            ENV,
            "builtin-v0/crc32",
            episodes=4,
            num_envs=2,
            num_workers=1,
            guide=functools.partial(_crashing_guide, str(log)),
            observation_space="Autophase",
        )
    assert isinstance(error.value.__cause__, ray.exceptions.RayActorError)
    pids = log.read_text().split()
    assert len(pids) == distributed.CALL_ATTEMPTS == len(set(pids)), "one try per restart"


def _sleep_unless(failing: str, benchmark):
    """A task that fails at once on ``failing`` and takes five minutes on the others: far
    longer than the wait for their cancellation, even on a loaded machine."""
    if str(benchmark.uri).endswith(failing):
        raise ValueError(f"{failing} fails")
    time.sleep(300)
    return str(benchmark.uri)


def test_map_benchmarks_prepares_as_the_cluster_takes_them_and_cancels_the_rest(cluster):
    programs = ["crc32", "qsort", "bitcount", "dijkstra", "sha256", "md5"]
    taken = []

    def benchmarks():
        for program in programs:
            taken.append(program)
            yield f"builtin-v0/{program}"

    tasks = distributed.map_benchmarks(
        functools.partial(_sleep_unless, "/bitcount"), ENV, benchmarks()
    )
    with pytest.raises(ValueError, match="bitcount fails"):
        next(tasks)
    # The cluster runs three tasks at once: one more was prepared, not every benchmark.
    assert len(taken) == 4
    # The tasks still sleeping were cancelled: their CPUs are free now, not in five minutes.
    # (A cancelled worker can take tens of seconds to go on a loaded 2-core machine.)
    total = ray.cluster_resources()["CPU"]
    deadline = time.monotonic() + 90
    while ray.available_resources().get("CPU", 0) < total and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray.available_resources().get("CPU", 0) == total


def _no_greedy(args, benchmark, try_actions):
    return f"state of {benchmark}", [], try_actions.pids()


def test_the_search_tool_ends_a_searchs_workers_before_it_hands_over_the_result(
    cluster, monkeypatch
):
    from compiler_gym.bin import search

    monkeypatch.setattr(search, "_greedy", _no_greedy)
    args = argparse.Namespace(
        ray_address=cluster.address,
        ray_split="search",
        search="greedy",
        env=ENV,
        reward=None,
        ray_workers=2,
        ray_cpus=1,
        num_threads=0,
    )
    results = search._ray_results(args, ["benchmark://builtin-v0/crc32"], search._greedy)
    benchmark, state, _, pids = next(results)  # the caller holds the result: no worker
    assert state == "state of benchmark://builtin-v0/crc32" and len(pids) == 2
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(
        p.pid in pids for p in ray_workers("ray::_GreedyWorker")
    ):
        time.sleep(0.2)
    assert not [p for p in ray_workers("ray::_GreedyWorker") if p.pid in pids]
    results.close()


def _rows(path: Path) -> list[tuple[str, str, str]]:
    with open(path) as f:
        return [(r["benchmark"], r["commandline"], r["reward"]) for r in csv.DictReader(f)]


def _crash_first_try(marker: str, args, benchmark, try_actions=None):
    """The tool's greedy search in a Ray task, whose first try on qsort (the one that creates
    ``marker``) ends its process, as a lost worker would."""
    from compiler_gym.bin import search  # in the task's process: the tool's own _greedy

    assert os.getpid() != DRIVER, "the task ran in the test's process"
    if str(benchmark.uri).endswith("/qsort"):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            pass  # a later try
        else:
            os.kill(os.getpid(), signal.SIGKILL)
    return search._greedy(args, benchmark, try_actions=try_actions)


def test_the_search_tool_on_ray_gives_the_local_results_through_a_killed_task(
    cluster, tmp_path, monkeypatch
):
    from compiler_gym.bin import search

    programs = ["crc32", "qsort", "bitcount", "dijkstra"]
    argv = ["--search", "greedy"] + [f"--benchmark=builtin-v0/{p}" for p in programs]
    assert search.main([*argv, "--output", str(tmp_path / "local.csv")]) == 0

    # The tasks run this greedy: qsort's first try dies, so its result is a retry's.
    marker = tmp_path / "qsort-crashed"
    monkeypatch.setattr(search, "_greedy", functools.partial(_crash_first_try, str(marker)))
    address = ["--ray-address", cluster.address, "--output", str(tmp_path / "ray.csv")]
    assert search.main([*argv, *address]) == 0
    assert marker.exists(), "qsort's task did not crash"
    assert _rows(tmp_path / "ray.csv") == _rows(tmp_path / "local.csv")
    monkeypatch.undo()

    # One benchmark: the random search's episodes split over actors, through the greedy tool's
    # sibling, with the same state as the local tool's.
    from compiler_gym.bin import random_search as random_tool

    argv = ["--benchmark=builtin-v0/crc32", "--episodes=12", "--num-envs=3", "--patience=5"]
    assert random_tool.main([*argv, "--output", str(tmp_path / "local_random.csv")]) == 0
    assert (
        random_tool.main(
            [*argv, "--ray-address", cluster.address, "--output", str(tmp_path / "ray_random.csv")]
        )
        == 0
    )
    assert _rows(tmp_path / "ray_random.csv") == _rows(tmp_path / "local_random.csv")
