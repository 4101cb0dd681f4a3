"""RLlib PPO on the vector engine: K env runners (Ray actors, on any node of the cluster), each
stepping one make_vec engine; writes the learning curve as CSV and PNG.

    python benchmarks/ray_rllib_ppo.py                      # a Ray of this machine's own
    python benchmarks/ray_rllib_ppo.py --address auto --env-runners 32 --iterations 200

The programs (builtin-v0 by default) are prepared once here and shipped through Ray's object
store, so the nodes need neither the datasets nor clang. Episodes of ``--episode-length``
steps on a random program each; reward ``IrInstructionCountOz`` (the env's), observation
Autophase (symlog). Each row of the curve: iteration, env steps so far, seconds, and RLlib's
episode return statistics for the episodes that ended in that iteration (our engine's
returns: tests/test_ray_rllib.py checks that they are).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    """Trains and writes the curve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", help="a Ray cluster (auto, host:port); default: local")
    parser.add_argument("--env", default="llvm-autophase-ic-v0")
    parser.add_argument("--dataset", default="builtin-v0", help="the training programs")
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--envs-per-runner", type=int, default=8)
    parser.add_argument("--episode-length", type=int, default=16)
    parser.add_argument("--batch", type=int, default=1024, help="env steps per iteration")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default=str(HERE / "ray_rllib_ppo_curve"), help="CSV/PNG stem")
    args = parser.parse_args()

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    import compiler_gym
    from compiler_gym.search import distributed
    from compiler_gym.wrappers.rllib import configure_rllib

    if args.address:
        distributed.init(args.address)
    else:  # the runners' CPUs, even where the machine has fewer cores
        distributed.init(None, num_cpus=max(2, args.env_runners), object_store_memory=200 << 20)
    with compiler_gym.make(args.env) as env:
        uris = list(env.datasets[args.dataset].benchmark_uris())
    start = time.perf_counter()
    programs = distributed.put_benchmarks(args.env, uris)
    print(f"prepared {len(uris)} programs in {time.perf_counter() - start:.1f} s")

    rollout = max(1, args.batch // (args.env_runners * args.envs_per_runner))
    config = configure_rllib(
        PPOConfig(),
        args.env,
        num_envs_per_env_runner=args.envs_per_runner,
        max_episode_steps=args.episode_length,
        benchmarks=programs,
        random_benchmarks=True,
        seed=args.seed,
    )
    config = (
        config.env_runners(num_env_runners=args.env_runners, rollout_fragment_length=rollout)
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(256, args.batch),
            num_epochs=4,
            lr=3e-4,
            gamma=0.9,
            entropy_coeff=0.01,
        )
        .rl_module(model_config={"fcnet_hiddens": [128, 128]})
        .learners(num_learners=0)
        .reporting(metrics_num_episodes_for_smoothing=100_000)  # per iteration, no window
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    rows = []
    start = time.perf_counter()
    try:
        for iteration in range(1, args.iterations + 1):
            stats = algo.train()["env_runners"]
            rows.append(
                {
                    "iteration": iteration,
                    "env_steps": int(stats["num_env_steps_sampled_lifetime"]),
                    "seconds": round(time.perf_counter() - start, 2),
                    "episodes": int(stats.get("num_episodes", 0)),
                    "episode_return_mean": float(stats.get("episode_return_mean", float("nan"))),
                    "episode_return_min": float(stats.get("episode_return_min", float("nan"))),
                    "episode_return_max": float(stats.get("episode_return_max", float("nan"))),
                }
            )
            print(", ".join(f"{k} {v:.4g}" for k, v in rows[-1].items()), flush=True)
    finally:
        algo.stop()
        ray.shutdown()

    with open(f"{args.output}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    _plot(rows, f"{args.output}.png", args)
    steps, seconds = rows[-1]["env_steps"], rows[-1]["seconds"]
    print(f"{steps} env steps in {seconds:.0f} s ({steps / seconds:.0f}/s, PPO updates included)")
    print(f"wrote {args.output}.csv and {args.output}.png")


def _plot(rows: list[dict], path: str, args) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    steps = [r["env_steps"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.fill_between(
        steps,
        [r["episode_return_min"] for r in rows],
        [r["episode_return_max"] for r in rows],
        alpha=0.2,
        label="min to max",
    )
    ax.plot(steps, [r["episode_return_mean"] for r in rows], label="mean")
    ax.set_xlabel("env steps")
    ax.set_ylabel(f"episode return ({args.episode_length} steps)")
    ax.set_title(
        f"RLlib PPO, {args.env_runners} env runners x {args.envs_per_runner} engine envs, "
        f"{args.dataset}",
        fontsize="medium",
    )
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


if __name__ == "__main__":
    main()
