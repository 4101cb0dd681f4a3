"""Scaling out on Ray: env steps/s with 1, 2 and 4 RLlib env runners, Ray's own cost per call,
and a model of a 16 x 64-core cluster built from those measurements.

    python benchmarks/ray_scaling.py [--runners 1 2 4] [--output benchmarks/ray_scaling.json]

Measured on this machine, in one run:

1. The engine alone: env steps/s of one ``make_vec`` engine of ``--envs`` envs on one thread,
   random actions, random builtin-v0 programs, episodes of ``--episode-length`` steps. Its
   inverse is the cost of one env step, ``t_step``.
2. RLlib: K env runners (K in ``--runners``), one CPU and one ``--envs``-env engine each,
   sampling ``--fragment`` steps per env per call with the PPO module choosing the actions;
   env steps/s over all runners (sampling only), and of whole PPO iterations (sampling,
   shipping the episodes to the learner on the driver and the update; the same batch for
   every K).
3. Greedy's cost per candidate (one action tried from a program's start, one thread).
4. Ray's cost per call: the round trip of a call to an actor that does no work but returns
   what a batch of B env steps returns (float32 Autophase rows, rewards, flags), serially
   (latency) and with many calls in flight to four actors (what the driver pays per call).

The model: a call that carries B env steps costs ``t_call(B)`` (least-squares line through
the measured round trips) on top of ``B * t_step`` of work, so Ray's share is
``t_call(B) / (B * t_step)``, under 5% from ``B* = a / (0.05 t_step - b)``. On 16 machines x 64
cores, 1024 workers each send a call per ``B * t_step`` seconds; the driver, paying
``c_driver`` per call, keeps up while ``1024 c_driver <= B t_step``. Calls between machines
also pay the network's round trip, which this one machine cannot measure: it is a parameter
(``--network-rtt``, default 0, i.e. the loopback figures).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
ENV = "llvm-autophase-ic-v0"


def engine_rate(uris, envs: int, episode_length: int, seconds: float) -> float:
    """Env steps/s of one engine on one thread."""
    import compiler_gym

    vec = compiler_gym.make_vec(
        ENV,
        envs,
        num_threads=1,
        benchmarks=uris,
        random_benchmarks=True,
        max_episode_steps=episode_length,
    )
    vec.reset()
    rng = np.random.default_rng(0)
    n = vec.single_action_space.n
    for _ in range(episode_length):  # warm: every program loaded and its baselines computed
        vec.step(rng.integers(n, size=envs))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        vec.step(rng.integers(n, size=envs))
        steps += envs
    rate = steps / (time.perf_counter() - start)
    vec.close()
    return rate


def candidate_seconds(uris, repeats: int = 3) -> float:
    """Seconds per greedy candidate (one action tried from a program's start) on one thread,
    over the programs: what RayTryActions spreads over its workers."""
    import compiler_gym

    total, count = 0.0, 0
    for uri in uris:
        with compiler_gym.make_vec("llvm-ic-v0", 1, num_threads=1, benchmarks=[uri]) as vec:
            n = vec.single_action_space.n
            vec.reset()
            vec.try_actions([list(range(n))])  # warm: baselines
            start = time.perf_counter()
            for _ in range(repeats):
                vec.try_actions([list(range(n))])
            total += time.perf_counter() - start
            count += repeats * n
    return total / count


def rllib_rates(programs, runners: int, envs: int, episode_length: int, fragment: int, calls: int):
    """(sampling env steps/s, PPO iteration env steps/s) with ``runners`` env runners; the PPO
    batch is the same for every K (``runners * envs * fragment`` for K = 4), so the update's
    cost per step does not change with K."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from compiler_gym.wrappers.rllib import configure_rllib

    batch = 4 * envs * fragment
    config = configure_rllib(
        PPOConfig(),
        ENV,
        num_envs_per_env_runner=envs,
        max_episode_steps=episode_length,
        benchmarks=programs,
        random_benchmarks=True,
        num_threads=1,
    )
    config = (
        config.env_runners(num_env_runners=runners, rollout_fragment_length="auto")
        .training(train_batch_size_per_learner=batch, minibatch_size=min(256, batch), num_epochs=1)
        .learners(num_learners=0)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        group = algo.env_runner_group

        def sample(runner) -> int:
            return sum(len(e) for e in runner.sample(num_timesteps=envs * fragment))

        group.foreach_env_runner(sample, local_env_runner=False)  # warm (programs, module)
        start, steps = time.perf_counter(), 0
        for _ in range(calls):
            steps += sum(group.foreach_env_runner(sample, local_env_runner=False))
        sampling = steps / (time.perf_counter() - start)
        algo.train()  # warm
        before = algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
        start = time.perf_counter()
        for _ in range(calls):
            after = algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
        training = (after - before) / (time.perf_counter() - start)
    finally:
        algo.stop()
    return sampling, training


class _Echo:
    """An actor that does no work: returns what B env steps would."""

    def batch(self, actions: np.ndarray):
        b = len(actions)
        return np.zeros((b, 56), np.float32), np.zeros(b), np.zeros(b, bool), np.zeros(b, bool)


def ray_call_costs(sizes, repeats: int) -> dict:
    """Round-trip seconds per call by batch size (serial), and the driver's seconds per call
    with many in flight over four actors."""
    import ray

    echoes = [ray.remote(_Echo).options(num_cpus=0).remote() for _ in range(4)]
    echo = echoes[0]
    ray.get(echo.batch.remote(np.zeros(1, np.int64)))
    latency = {}
    for b in sizes:
        actions = np.zeros(b, np.int64)
        for _ in range(5):
            ray.get(echo.batch.remote(actions))
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            ray.get(echo.batch.remote(actions))
            times.append(time.perf_counter() - start)
        latency[b] = float(np.median(times))
    task = ray.remote(lambda: None).options(num_cpus=0)
    ray.get([task.remote() for _ in range(20)])
    start = time.perf_counter()
    for _ in range(repeats):
        ray.get(task.remote())
    task_latency = (time.perf_counter() - start) / repeats
    actions = np.zeros(1, np.int64)
    pipelined = 10 * repeats
    start = time.perf_counter()
    ray.get([echoes[i % 4].batch.remote(actions) for i in range(pipelined)])
    driver = (time.perf_counter() - start) / pipelined
    for e in echoes:
        ray.kill(e)
    return {"actor_call_latency_s": latency, "task_latency_s": task_latency, "driver_s": driver}


def model(t_step: float, costs: dict, rtt: float, machines: int, cores: int) -> dict:
    """Ray's share of a call's time by batch size, the batch where it falls under 5%, and
    the cluster's throughput and driver load there."""
    sizes = np.array(sorted(costs["actor_call_latency_s"]), float)
    seconds = np.array([costs["actor_call_latency_s"][int(b)] for b in sizes]) + rtt
    b_slope, a = np.polyfit(sizes, seconds, 1)  # t_call(B) = a + b B
    share = {int(b): float(s / (b * t_step)) for b, s in zip(sizes, seconds, strict=True)}
    budget = 0.05 * t_step - b_slope
    batch = int(np.ceil(a / budget)) if budget > 0 else None
    workers = machines * cores
    out = {
        "t_step_s": t_step,
        "t_call_fit": {"a_s": float(a), "b_s_per_step": float(b_slope)},
        "network_rtt_s": rtt,
        "ray_share_by_batch": share,
        "batch_for_5_percent": batch,
        "workers": workers,
    }
    if batch:
        driver_batch = int(np.ceil(workers * costs["driver_s"] / t_step))
        b = max(batch, driver_batch)
        call = a + b_slope * b
        out.update(
            {
                "batch_driver_keeps_up": driver_batch,
                "batch": b,
                "cluster_steps_per_s": workers * b / (b * t_step + call),
                "ideal_steps_per_s": workers / t_step,
                "driver_load": workers * costs["driver_s"] / (b * t_step + call),
                "bytes_per_s_to_driver": workers / t_step * (56 * 4 + 8 + 2),
            }
        )
    return out


def main() -> None:
    """Runs the measurements and the model, prints them and writes them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--envs", type=int, default=8, help="engine envs per runner")
    parser.add_argument("--episode-length", type=int, default=16)
    parser.add_argument("--fragment", type=int, default=32, help="steps per env per call")
    parser.add_argument("--calls", type=int, default=5, help="sample calls timed per K")
    parser.add_argument("--engine-seconds", type=float, default=10)
    parser.add_argument("--network-rtt", type=float, default=0.0, help="seconds per call")
    parser.add_argument("--machines", type=int, default=16)
    parser.add_argument("--cores", type=int, default=64)
    parser.add_argument("--output", default=str(HERE / "ray_scaling.json"))
    args = parser.parse_args()

    import ray

    import compiler_gym
    from compiler_gym.search import distributed

    with compiler_gym.make(ENV) as env:
        uris = list(env.datasets["builtin-v0"].benchmark_uris())
    cores = os.cpu_count()
    result = {"machine": {"cores": cores, "load_average_at_start": os.getloadavg()}}
    rate = engine_rate(uris, args.envs, args.episode_length, args.engine_seconds)
    result["engine_steps_per_s_1_thread"] = rate
    print(f"engine alone, 1 thread, {args.envs} envs: {rate:.0f} env steps/s")
    t_candidate = candidate_seconds(uris)
    result["greedy_candidate_s_1_thread"] = t_candidate
    print(f"greedy: {t_candidate * 1e3:.2f} ms per candidate on one thread")

    # Enough logical CPUs for 4 runners of one CPU each, on however many cores there are.
    distributed.init(
        None, num_cpus=max(cores, *args.runners), object_store_memory=200 << 20, log_to_driver=False
    )
    try:
        programs = distributed.put_benchmarks(ENV, uris)
        result["rllib"] = {}
        for k in args.runners:
            sampling, training = rllib_rates(
                programs, k, args.envs, args.episode_length, args.fragment, args.calls
            )
            result["rllib"][k] = {"sampling_steps_per_s": sampling, "ppo_steps_per_s": training}
            print(f"{k} env runners: sampling {sampling:.0f} env steps/s, PPO {training:.0f}/s")
        sizes = [1, 8, 64, 256, 1024, 4096]
        result["ray"] = ray_call_costs(sizes, repeats=200)
        print("ray:", json.dumps(result["ray"], indent=1))
    finally:
        ray.shutdown()
    one = result["rllib"][min(args.runners)]["sampling_steps_per_s"] / min(args.runners)
    result["model"] = {
        "engine": model(1 / rate, result["ray"], args.network_rtt, args.machines, args.cores),
        "rllib_runner": model(1 / one, result["ray"], args.network_rtt, args.machines, args.cores),
    }
    # Greedy on one program: each step's n candidates split over K workers, one call each.
    a, b = (result["model"]["engine"]["t_call_fit"][k] for k in ("a_s", "b_s_per_step"))
    with compiler_gym.make("llvm-ic-v0") as env:
        n = int(env.action_space.n)
    result["model"]["greedy_one_program"] = {
        k: (a + args.network_rtt + b * n / k) / (n / k * t_candidate)
        for k in (1, 2, 4, 8, 16, 32, 64, n)
    }
    print("model:", json.dumps(result["model"], indent=1))
    result["machine"]["load_average_at_end"] = os.getloadavg()
    Path(args.output).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
