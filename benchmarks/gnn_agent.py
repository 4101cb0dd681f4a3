"""The GNN agent (ProGraML graphs, PyTorch Geometric) beside the Autophase MLP agent: training
steps/s and observations/s through each policy network, measured the same way in one run.

    python benchmarks/gnn_agent.py [--seconds 60] [--device cpu|cuda] [--num-envs 16]
        [--torch-threads 1] [--programs URI ...] [--agents mlp,gnn] [--json OUT]

Both agents train on the MLP agent's training programs (``leaderboard/ppo/training_programs.txt``)
with their committed settings (``leaderboard/ppo/config.json``: Stable-Baselines3 PPO on
Autophase features; ``leaderboard/ppo_gnn/config.json``: the GNN agent's PPO on
``make_vec(..., observation_space="Programl", device=...)`` batches), except that both use
``--num-envs`` envs and ``--torch-threads`` PyTorch threads. ``--programs`` trains on those URIs
instead (``file:///path/prog.bc`` too: a machine without csmith and clang-19, a lent GPU one).
Each agent runs in a process of its own (the two agents' modules share names), one after the
other:

* env steps/s: the engine alone with uniformly random actions, for ``--seconds`` / 4, with the
  agent's observation (Autophase rows, or ProGraML graph batches on the device);
* policy forward obs/s: the policy network's forward pass (logits and values; for the GNN the
  graph embedding too) on the batches of ``--num-envs`` observations that those steps recorded:
  Autophase feature rows per second, and graphs per second through the GNN, from the engine's
  graphs (its :class:`Plan` built each time) and from plans built before (as updates reuse
  them);
* training steps/s: PPO training (rollouts and updates) from a fresh network for ``--seconds``,
  env steps per second; for the GNN also the graphs embedded per second of GNN time in the
  run (plans, rollout forwards and update forwards and backwards) and the seconds of each
  part of the run (``train_parts``: env steps, plans, rollout and update GNN passes, heads
  and the rest).

``--agents gnn`` measures the GNN agent alone.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PPO = HERE / "leaderboard" / "ppo"
PPO_GNN = HERE / "leaderboard" / "ppo_gnn"
PROGRAMS = PPO / "training_programs.txt"


def _random_steps(vec, seconds: float, keep) -> tuple[int, float, list]:
    """Steps ``vec`` with random actions for ``seconds``; returns the steps, the time and the
    observation batches ``keep`` made of them."""
    import torch

    generator = torch.Generator().manual_seed(0)
    obs, _ = vec.reset()
    kept, steps, start = [keep(obs)], 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = torch.randint(0, vec.single_action_space.n, (vec.num_envs,), generator=generator)
        obs, *_ = vec.step(actions)
        steps += vec.num_envs
        if len(kept) < 32:
            kept.append(keep(obs))
    return steps, time.perf_counter() - start, kept


def _timed(f, batches: list, device: str) -> float:
    """Seconds ``f`` takes over ``batches`` (after one warm-up call)."""
    import torch

    f(batches[0])
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    for batch in batches:
        f(batch)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start


def measure_mlp(flags: dict) -> dict:
    """The Autophase MLP agent's figures (run in a process of its own)."""
    import numpy as np
    import torch

    sys.path.insert(0, str(PPO))
    from agent import Features, FeatureVecEnv, load_config
    from stable_baselines3 import PPO as SB3PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    import compiler_gym
    from compiler_gym.wrappers.sb3 import make_sb3_vec_env

    torch.set_num_threads(flags["torch_threads"])
    config = load_config()
    programs = flags["programs"] or PROGRAMS.read_text().split()
    common = dict(
        num_envs=flags["num_envs"],
        num_threads=flags.get("threads") or config["num_threads"],
        benchmarks=programs,
        random_benchmarks=True,
        max_episode_steps=config["episode_length"],
        seed=config["seed"],
        isolation="process",
        parameters={"worker.step_timeout_seconds": config["step_timeout_seconds"]},
    )
    out = {}
    with compiler_gym.make_vec(
        config["env"], observation_space="Autophase", reward_space=config["reward"], **common
    ) as vec:
        steps, seconds, kept = _random_steps(
            vec, flags["seconds"] / 4, lambda obs: np.array(obs, copy=True)
        )
        out["env_steps_per_s"] = steps / seconds
        num_actions = vec.single_action_space.n

    venv = make_sb3_vec_env(
        config["env"],
        observation_space="Autophase",
        reward_space=config["reward"],
        **common,
    )
    env = VecMonitor(FeatureVecEnv(venv, config["episode_length"]))
    model = SB3PPO(
        "MlpPolicy",
        env,
        policy_kwargs={"net_arch": config["net_arch"]},
        seed=config["seed"],
        device=flags["device"],
        **config["ppo"],
    )
    features = Features(num_actions, config["episode_length"])
    episodes = [[] for _ in range(flags["num_envs"])]
    rows = [torch.as_tensor(features(b, episodes), device=flags["device"]) for b in kept]
    policy = model.policy

    def forward(batch):
        with torch.no_grad():
            policy.get_distribution(batch).distribution.logits  # noqa: B018
            policy.predict_values(batch)

    seconds = _timed(forward, rows, flags["device"])
    out["policy_obs_per_s"] = sum(len(r) for r in rows) / seconds

    class Stop(BaseCallback):
        def _on_training_start(self) -> None:
            self.start = time.perf_counter()

        def _on_step(self) -> bool:
            return time.perf_counter() - self.start < flags["seconds"]

    stop = Stop()
    model.learn(10**9, callback=stop)
    seconds = time.perf_counter() - stop.start
    out["train_steps"] = model.num_timesteps
    out["train_seconds"] = seconds
    out["train_steps_per_s"] = model.num_timesteps / seconds
    env.close()
    return out


def measure_gnn(flags: dict) -> dict:
    """The GNN agent's figures (run in a process of its own)."""
    import torch

    sys.path.insert(0, str(PPO_GNN))
    from agent import Graphs, histograms, load_config, make_policy
    from train import Trainer, keep_freed_memory

    import compiler_gym

    config = load_config()
    config["torch_threads"] = flags["torch_threads"]
    torch.set_num_threads(flags["torch_threads"])
    if flags["device"] == "cpu":
        keep_freed_memory()  # as the Trainer does, for the forward figures too
    torch.manual_seed(config["seed"])
    programs = flags["programs"] or PROGRAMS.read_text().split()
    out = {}
    with compiler_gym.make_vec(
        config["env"],
        num_envs=flags["num_envs"],
        num_threads=flags.get("threads") or config["num_threads"],
        device=flags["device"],
        benchmarks=programs,
        random_benchmarks=True,
        observation_space="Programl",
        reward_space=config["reward"],
        max_episode_steps=config["episode_length"],
        seed=config["seed"],
        isolation="process",
        parameters={"worker.step_timeout_seconds": config["step_timeout_seconds"]},
    ) as vec:
        steps, seconds, kept = _random_steps(
            vec, flags["seconds"] / 4, lambda obs: Graphs.from_batch(obs, copy=True)
        )
        out["env_steps_per_s"] = steps / seconds
        num_actions = vec.single_action_space.n
    policy = make_policy(config, num_actions).to(flags["device"])
    history = histograms(
        [[]] * flags["num_envs"], num_actions, config["episode_length"], flags["device"]
    )

    def forward(batch):
        with torch.no_grad():
            policy(batch, history)

    seconds = _timed(forward, kept, flags["device"])
    graphs = sum(b.num_graphs for b in kept)
    out["policy_obs_per_s"] = graphs / seconds
    plans = [policy.plan(b) for b in kept]
    out["policy_obs_per_s_planned"] = graphs / _timed(forward, plans, flags["device"])
    out["mean_nodes_per_graph"] = sum(b.num_nodes for b in kept) / graphs
    out["mean_rows_per_graph"] = sum(sum(x.rows for x in p.layers) for p in plans) / graphs

    trainer = Trainer(
        config,
        programs,
        flags["device"],
        num_envs=flags["num_envs"],
        num_threads=flags.get("threads"),
    )
    seconds = trainer.train(flags["seconds"])
    out["train_steps"] = trainer.timesteps
    out["train_seconds"] = seconds
    out["train_steps_per_s"] = trainer.timesteps / seconds
    out["train_graphs_per_gnn_s"] = trainer.graphs_embedded / trainer.gnn_seconds
    out["train_gnn_share"] = trainer.gnn_seconds / seconds
    out["train_parts"] = {**trainer.clock.seconds}
    out["train_parts"]["other"] = seconds - sum(trainer.clock.seconds.values())
    trainer.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time per agent")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--programs", nargs="+", help="train on these URIs (default: the MLP's)")
    parser.add_argument("--agents", default="mlp,gnn", help="which agents, comma-separated")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    flags = {
        "seconds": args.seconds,
        "device": args.device,
        "num_envs": args.num_envs,
        "torch_threads": args.torch_threads,
        "programs": args.programs,
    }
    agents = args.agents.split(",")
    if not agents or set(agents) - {"mlp", "gnn"}:
        parser.error(f"--agents: mlp, gnn or both, not {args.agents!r}")
    context = multiprocessing.get_context("spawn")
    results = {}
    for name, measure in (("mlp", measure_mlp), ("gnn", measure_gnn)):
        if name in agents:
            with context.Pool(1) as pool:
                results[name] = pool.apply(measure, (flags,))
    if args.json:
        args.json.write_text(json.dumps({"flags": flags, **results}, indent=1) + "\n")
    if "gnn" in results:
        _print_gnn(results["gnn"])
    if len(results) < 2:
        return
    mlp, gnn = results["mlp"], results["gnn"]
    print(
        f"\n{args.num_envs} envs, {args.torch_threads} PyTorch thread(s), device {args.device}, "
        f"{args.seconds:.0f} s of training each ({gnn['mean_nodes_per_graph']:.0f} nodes per "
        "recorded graph on average)\n"
    )
    rows = [
        ("env steps/s (random actions)", "env_steps_per_s"),
        ("policy forward, obs/s (GNN: graphs/s)", "policy_obs_per_s"),
        ("PPO training, steps/s", "train_steps_per_s"),
    ]
    print(f"| {'':40s} | Autophase MLP | ProGraML GNN | ratio |")
    print(f"|{'-' * 42}|---------------|--------------|-------|")
    for label, key in rows:
        print(f"| {label:40s} | {mlp[key]:13.1f} | {gnn[key]:12.1f} | {mlp[key] / gnn[key]:5.1f} |")


def _print_gnn(gnn: dict) -> None:
    """The GNN's own figures: its forward passes and where its training run's time went."""
    print(
        f"\nGNN: {gnn['env_steps_per_s']:.1f} env steps/s (random actions), "
        f"{gnn['train_steps_per_s']:.1f} training steps/s "
        f"({gnn['train_steps_per_s'] / gnn['env_steps_per_s']:.2f}x); forward "
        f"{gnn['policy_obs_per_s']:.1f} graphs/s with plans built, "
        f"{gnn['policy_obs_per_s_planned']:.1f} on plans ({gnn['mean_nodes_per_graph']:.0f} nodes, "
        f"{gnn['mean_rows_per_graph']:.0f} distinct rows per graph)"
    )
    print(
        f"GNN during training: {gnn['train_graphs_per_gnn_s']:.0f} graphs/s of GNN time "
        f"(plans, forward, and backward in updates), {100 * gnn['train_gnn_share']:.0f}% of the "
        "run; seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in gnn["train_parts"].items())
    )


if __name__ == "__main__":
    main()
