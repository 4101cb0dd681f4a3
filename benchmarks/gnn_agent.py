"""The GNN agent (ProGraML graphs) beside the Autophase MLP agent: training steps/s and
observations/s through each policy network, measured the same way in one run.

    python benchmarks/gnn_agent.py [--seconds 60] [--device cpu|cuda] [--num-envs 16]
        [--batch-size B] [--torch-threads 1] [--programs URI ...]
        [--agents mlp,gnn,mlp-sb3,mlp-torchrl] [--json OUT]

Both agents train with the package's PPO (:mod:`compiler_gym.train`) on the MLP agent's
training programs (``leaderboard/ppo/training_programs.txt``) with their committed settings
(``leaderboard/ppo/config.json``: Autophase features; ``leaderboard/ppo_gnn/config.json``:
``make_vec(..., observation_space="Programl", device=...)`` batches), except that both use
``--num-envs`` envs (``--batch-size`` < that: asynchronous collection) and ``--torch-threads``
PyTorch threads. ``mlp-sb3`` and ``mlp-torchrl`` train the MLP agent with Stable-Baselines3's
PPO (as the leaderboard entry was trained) and TorchRL's, for the choice of a library
(docs/training.md). ``--programs`` trains on those URIs instead (``file:///path/prog.bc`` too: a
machine without csmith and clang-19, a lent GPU one). Each agent runs in a process of its own,
one after the other:

* env steps/s: the engine alone with uniformly random actions, for ``--seconds`` / 4, with the
  agent's observation (Autophase rows, or ProGraML graph batches on the device);
* policy forward obs/s (``mlp`` and ``gnn``): the policy network's forward pass (logits and
  values; for the GNN the graph embedding too) on the batches of ``--num-envs`` observations
  that those steps recorded; for the GNN, graphs per second from the engine's graphs (its plan
  built each time) and from plans built before (as updates reuse them);
* training steps/s: PPO training (rollouts and updates) from a fresh network for ``--seconds``,
  env steps per second; for the package's trainer the seconds of each part of the run
  (``train_parts``: env steps, states from batches, rollout and update encoder passes, heads),
  and for the GNN the graphs embedded per second of GNN time.

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


def _mlp_config(flags: dict):
    """The package trainer's settings of the MLP agent: the leaderboard entry's
    (``leaderboard/ppo/config.json``, trained there with SB3), with the flags' envs and
    threads."""
    from compiler_gym.train.config import MlpConfig, PpoConfig, TrainConfig

    config = json.loads((PPO / "config.json").read_text())
    ppo = dict(config["ppo"])
    ppo["minibatch_size"] = ppo.pop("batch_size")
    return config, TrainConfig(
        agent="mlp",
        env=config["env"],
        reward=config["reward"],
        programs=flags["programs"] or PROGRAMS.read_text().split(),
        episode_length=config["episode_length"],
        num_envs=flags["num_envs"],
        batch_size=flags.get("batch_size"),
        num_threads=flags.get("threads") or config["num_threads"],
        step_timeout_seconds=config["step_timeout_seconds"],
        device=flags["device"],
        torch_threads=flags["torch_threads"],
        seed=config["seed"],
        overlap=flags.get("overlap", False),
        ppo=PpoConfig(**ppo),
        mlp=MlpConfig(head=config["net_arch"]),
    )


def _mlp_vec_kwargs(config: dict, train) -> dict:
    return dict(
        num_envs=train.num_envs,
        num_threads=train.num_threads,
        benchmarks=train.programs,
        random_benchmarks=True,
        max_episode_steps=config["episode_length"],
        seed=config["seed"],
        isolation="process",
        parameters={"worker.step_timeout_seconds": config["step_timeout_seconds"]},
    )


def _mlp_env_figures(config: dict, train, out: dict) -> list:
    """The engine alone with random actions (``env_steps_per_s``); the Autophase batches."""
    import numpy as np

    import compiler_gym

    with compiler_gym.make_vec(
        config["env"],
        observation_space="Autophase",
        reward_space=config["reward"],
        **_mlp_vec_kwargs(config, train),
    ) as vec:
        steps, seconds, kept = _random_steps(
            vec, train.max_seconds / 4, lambda obs: np.array(obs, copy=True)
        )
        out["env_steps_per_s"] = steps / seconds
    return kept


def measure_mlp(flags: dict) -> dict:
    """The Autophase MLP agent's figures with the package's PPO (run in a process of its
    own)."""
    import torch

    from compiler_gym.agents.mlp import MlpPolicy
    from compiler_gym.train.trainer import Trainer

    torch.set_num_threads(flags["torch_threads"])
    config, train = _mlp_config(flags)
    train = train.replace(max_seconds=flags["seconds"])
    out = {}
    kept = _mlp_env_figures(config, train, out)
    policy = MlpPolicy(len(_actions(config["env"])), config["net_arch"]).to(flags["device"])
    rows = [policy.observe(torch.as_tensor(b, device=flags["device"])) for b in kept]
    history = torch.zeros(flags["num_envs"], policy.num_actions, device=flags["device"])

    def forward(batch):
        with torch.no_grad():
            policy(batch, history[: len(batch)])

    seconds = _timed(forward, rows, flags["device"])
    out["policy_obs_per_s"] = sum(len(r) for r in rows) / seconds
    with Trainer(train) as trainer:
        seconds = trainer.train(max_seconds=flags["seconds"])
        out["train_steps"] = trainer.timesteps
        out["train_seconds"] = seconds
        out["train_steps_per_s"] = trainer.timesteps / seconds
        out["train_parts"] = {**trainer.clock.seconds}
    return out


def _actions(env_id: str) -> list:
    import compiler_gym

    with compiler_gym.make(env_id) as env:
        return list(env.action_space.flags)


def measure_mlp_sb3(flags: dict) -> dict:
    """The Autophase MLP agent's figures with Stable-Baselines3's PPO, as the leaderboard entry
    trains (run in a process of its own)."""
    import torch

    sys.path.insert(0, str(PPO))
    from agent import FeatureVecEnv
    from stable_baselines3 import PPO as SB3PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    from compiler_gym.wrappers.sb3 import make_sb3_vec_env

    torch.set_num_threads(flags["torch_threads"])
    config, train = _mlp_config(flags)
    train = train.replace(max_seconds=flags["seconds"])
    out = {}
    _mlp_env_figures(config, train, out)
    venv = make_sb3_vec_env(
        config["env"],
        observation_space="Autophase",
        reward_space=config["reward"],
        **_mlp_vec_kwargs(config, train),
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


def measure_mlp_torchrl(flags: dict) -> dict:
    """The Autophase MLP agent's figures with TorchRL's PPO (its collector, GAE and
    ClipPPOLoss over :mod:`compiler_gym.wrappers.torchrl`, the leaderboard entry's settings;
    the features without the action history, which TorchRL would need a transform of its
    own for: a little less work than the other two). Run in a process of its own."""
    import torch
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
    from torchrl.modules import ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from compiler_gym.agents.mlp import autophase_features, tanh_mlp
    from compiler_gym.wrappers.torchrl import CompilerTorchRLEnv

    torch.set_num_threads(flags["torch_threads"])
    torch.manual_seed(0)
    config, train = _mlp_config(flags)
    train = train.replace(max_seconds=flags["seconds"])
    out = {}
    _mlp_env_figures(config, train, out)
    kwargs = _mlp_vec_kwargs(config, train)
    env = CompilerTorchRLEnv(
        config["env"],
        kwargs.pop("num_envs"),
        kwargs.pop("max_episode_steps"),
        kwargs.pop("num_threads"),
        observation_space="Autophase",
        reward_space=config["reward"],
        **kwargs,
    )

    class Net(nn.Module):
        def __init__(self, outputs: int, gain: float):
            super().__init__()
            self.mlp = tanh_mlp(57, config["net_arch"], outputs, gain)

        def forward(self, observation):
            return self.mlp(autophase_features(observation))

    actions = env.action_spec.space.n
    actor = ProbabilisticActor(
        TensorDictModule(Net(actions, 0.01), ["observation"], ["logits"]),
        in_keys=["logits"],
        distribution_class=torch.distributions.Categorical,
        return_log_prob=True,
        spec=env.action_spec,
    )
    critic = ValueOperator(Net(1, 1.0), in_keys=["observation"])
    ppo = train.ppo
    frames = ppo.n_steps * train.num_envs
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=-1)
    advantage = GAE(gamma=ppo.gamma, lmbda=ppo.gae_lambda, value_network=critic)
    loss = ClipPPOLoss(
        actor, critic, clip_epsilon=ppo.clip_range, entropy_coeff=ppo.ent_coef,
        critic_coeff=ppo.vf_coef, normalize_advantage=True,
    )  # fmt: skip
    optimizer = torch.optim.Adam(loss.parameters(), lr=ppo.learning_rate, eps=1e-5)
    buffer = ReplayBuffer(
        storage=LazyTensorStorage(frames),
        sampler=SamplerWithoutReplacement(),
        batch_size=ppo.minibatch_size,
    )
    steps, start = 0, time.perf_counter()
    for data in collector:
        for _ in range(ppo.n_epochs):
            with torch.no_grad():
                advantage(data)
            buffer.extend(data.reshape(-1))
            for _ in range(frames // ppo.minibatch_size):
                losses = loss(buffer.sample())
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), ppo.max_grad_norm)
                optimizer.step()
        collector.update_policy_weights_()
        steps += data.numel()
        if time.perf_counter() - start >= flags["seconds"]:
            break
    seconds = time.perf_counter() - start
    collector.shutdown()
    env.close()
    out["train_steps"] = steps
    out["train_seconds"] = seconds
    out["train_steps_per_s"] = steps / seconds
    return out


def measure_gnn(flags: dict) -> dict:
    """The GNN agent's figures (run in a process of its own)."""
    import torch

    import compiler_gym
    from compiler_gym.agents.gnn import Graphs, histograms
    from compiler_gym.train.config import TrainConfig
    from compiler_gym.train.trainer import Trainer, keep_freed_memory, make_policy

    config = TrainConfig.load(PPO_GNN / "config.json").replace(
        agent="gnn",
        programs=flags["programs"],
        device=flags["device"],
        num_envs=flags["num_envs"],
        batch_size=flags.get("batch_size"),
        num_threads=flags.get("threads"),
        torch_threads=flags["torch_threads"],
        overlap=flags.get("overlap"),
    )
    torch.set_num_threads(flags["torch_threads"])
    if flags["device"] == "cpu":
        keep_freed_memory()  # as the Trainer does, for the forward figures too
    torch.manual_seed(config.seed)
    out = {}
    with compiler_gym.make_vec(
        config.env,
        num_envs=config.num_envs,
        num_threads=config.num_threads,
        device=config.device,
        benchmarks=config.programs,
        random_benchmarks=True,
        observation_space="Programl",
        reward_space=config.reward,
        max_episode_steps=config.episode_length,
        seed=config.seed,
        isolation="process",
        parameters={"worker.step_timeout_seconds": config.step_timeout_seconds},
    ) as vec:
        steps, seconds, kept = _random_steps(
            vec, flags["seconds"] / 4, lambda obs: Graphs.from_batch(obs, copy=True)
        )
        out["env_steps_per_s"] = steps / seconds
        num_actions = vec.single_action_space.n
    policy = make_policy(config, num_actions).to(flags["device"])
    history = histograms(
        [[]] * flags["num_envs"], num_actions, config.episode_length, flags["device"]
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

    with Trainer(config) as trainer:
        seconds = trainer.train(max_seconds=flags["seconds"])
        out["train_steps"] = trainer.timesteps
        out["train_seconds"] = seconds
        out["train_steps_per_s"] = trainer.timesteps / seconds
        out["train_graphs_per_gnn_s"] = trainer.embedded / trainer.embed_seconds
        out["train_gnn_share"] = trainer.embed_seconds / seconds
        out["train_parts"] = {**trainer.clock.seconds}
        out["train_parts"]["other"] = seconds - sum(trainer.clock.seconds.values())
    return out


MEASURES = {
    "mlp": measure_mlp,
    "gnn": measure_gnn,
    "mlp-sb3": measure_mlp_sb3,
    "mlp-torchrl": measure_mlp_torchrl,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time per agent")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--batch-size", type=int, help="envs per recv (< num-envs: async)")
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--programs", nargs="+", help="train on these URIs (default: the MLP's)")
    parser.add_argument("--agents", default="mlp,gnn", help="which, comma-separated")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    flags = {
        "seconds": args.seconds,
        "device": args.device,
        "num_envs": args.num_envs,
        "batch_size": args.batch_size,
        "torch_threads": args.torch_threads,
        "programs": args.programs,
    }
    agents = args.agents.split(",")
    if not agents or set(agents) - set(MEASURES):
        parser.error(f"--agents: some of {', '.join(MEASURES)}, not {args.agents!r}")
    context = multiprocessing.get_context("spawn")
    results = {}
    for name in agents:
        with context.Pool(1) as pool:
            results[name] = pool.apply(MEASURES[name], (flags,))
    if args.json:
        args.json.write_text(json.dumps({"flags": flags, **results}, indent=1) + "\n")
    if "gnn" in results:
        _print_gnn(results["gnn"])
    if not {"mlp", "gnn"} <= set(results):
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
