"""Trains the GNN agent of the llvm_instcount leaderboard with PPO (settings in
``config.json``).

    python benchmarks/leaderboard/ppo_gnn/train.py [--device cpu|cuda] [--max-seconds S]
        [--config config.json] [--out DIR]

One ``make_vec`` engine of ``num_envs`` envs steps the MLP agent's training programs
(``../ppo/training_programs.txt``: csmith-v0, gcc-torture-v0 and pypi-c-v0 programs of at most
15,000 instructions; builtin-v0, the leaderboard's suite, is never seen), drawn at random at
each reset, each env in a worker process whose steps are cut off after
``step_timeout_seconds``, with ``observation_space="Programl"`` on ``--device``: the batches
arrive as PyTorch Geometric-style graph batches on that device, the network runs there, and
the rollout (its states' plans and embeddings, histories, actions, advantages) stays there;
each state is embedded once per rollout (see :class:`Trainer`). PPO as Stable-Baselines3's
(clipped surrogate, GAE, advantage normalization per minibatch, entropy bonus, gradient
clipping), written here because SB3's rollout buffer holds fixed-size observations only.
Episodes end after ``episode_length`` steps (the histogram input tells the policy how far it
is, so the end is part of the state and is not bootstrapped) or at an error.

Writes the network's ``state_dict`` (``ppo_gnn-llvm_instcount.pt``), the action table it
indexes (``actions.txt``) and the learning curve (``training_curve.csv``: time steps, seconds,
mean episode reward of the last 100 episodes, errors in the rollout) to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent import (  # noqa: E402
    ACTIONS,
    CONFIG,
    WEIGHTS,
    GnnPolicy,
    Graphs,
    Plan,
    load_config,
    make_policy,
)

import compiler_gym  # noqa: E402
from compiler_gym.util.cli import progress  # noqa: E402


def training_programs(config: dict, config_path: Path = CONFIG) -> list[str]:
    """The URIs of ``config["training_programs"]`` (a path relative to the config's folder)."""
    path = (Path(config_path).resolve().parent / config["training_programs"]).resolve()
    return path.read_text().split()


def keep_freed_memory() -> bool:
    """Asks glibc's malloc to keep freed memory for reuse: no trimming of the heap, and the
    heap (not mmap) for blocks up to 32 MiB, its most. Otherwise the GNN's tensors of a few
    to tens of MiB come back from the kernel as fresh pages at each pass: passes on a
    110-graph minibatch took 1.3x to 1.7x as long on the 2-core machine. Process-wide;
    False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    trim_threshold, mmap_threshold = -1, -3  # glibc's M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
    return bool(libc.mallopt(trim_threshold, 1 << 30)) & bool(
        libc.mallopt(mmap_threshold, 32 << 20)
    )


def embed_distinct(policy: GnnPolicy, plan: Plan, states: torch.Tensor) -> torch.Tensor:
    """The embeddings of ``states`` (graphs of ``plan``), each distinct one embedded once: the
    same numbers and gradients as a pass per row, a state's rows sharing its embedding."""
    distinct, inverse = torch.unique(states, return_inverse=True)
    return policy.embed(plan.select(distinct)).index_select(0, inverse)


class Clock:
    """Seconds spent per part of the run (``seconds[name]``), each measured with ``with
    clock(name):``; on a GPU it waits for the device's work so that each part gets its own."""

    def __init__(self, device: str, parts: Sequence[str]):
        self.cuda = device.startswith("cuda")
        self.seconds = dict.fromkeys(parts, 0.0)

    @contextmanager
    def __call__(self, name: str):
        if self.cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.cuda:
                torch.cuda.synchronize()
            self.seconds[name] += time.perf_counter() - start


class Trainer:
    """PPO on one engine of ProGraML graphs on ``device``. :meth:`train` runs rollouts and
    updates; ``timesteps``, ``episode_rewards`` (the last 100), the graphs through the GNN
    (``graphs_embedded``) and the time of each part of the run (``clock.seconds``: ``env``
    steps, ``plan`` building, ``rollout_gnn`` and ``update_gnn`` passes, ``heads`` and the
    rest of the update) count them.

    The GNN's work is cut where it repeats (exactly: the numbers are those of a pass per
    graph). A state is computed once per rollout: an env whose step had no effect
    (``info["action_had_no_effect"]``, read off the module's fingerprint by the engine) and
    did not end is in the state it was in, so its graph, plan and embedding are reused; most
    steps are such (77% of random steps on the training programs). Each new state's
    :class:`~agent.Plan` is built once and serves the rollout and the update, whose GNN
    minibatches embed each distinct state once (gradients flow through the shared
    embedding)."""

    PARTS = ("env", "plan", "rollout_gnn", "update_gnn", "heads")

    def __init__(
        self,
        config: dict,
        programs: list[str],
        device: str = "cpu",
        num_envs: Optional[int] = None,
        num_threads: Optional[int] = None,
    ):
        self.config = config
        self.ppo = config["ppo"]
        if config.get("torch_threads"):
            # On a small machine the engine's threads and workers share the cores: PyTorch's
            # own thread pool then waits on descheduled threads (one thread ran the GNN 2.5x
            # faster than two on 2 busy cores).
            torch.set_num_threads(config["torch_threads"])
        self.device = device
        if device == "cpu":
            keep_freed_memory()
        self.num_envs = num_envs or config["num_envs"]
        self.length = config["episode_length"]
        torch.manual_seed(config["seed"])
        self.vec = compiler_gym.make_vec(
            config["env"],
            num_envs=self.num_envs,
            num_threads=num_threads or config["num_threads"],
            device=device,
            benchmarks=programs,
            random_benchmarks=True,
            observation_space="Programl",
            reward_space=config["reward"],
            max_episode_steps=self.length,
            autoreset="same_step",
            seed=config["seed"],
            # As the MLP agent's training: a pass that runs for seconds on some state ends
            # its env's episode (DEADLINE_EXCEEDED) instead of holding up the batch.
            isolation="process",
            parameters={"worker.step_timeout_seconds": config["step_timeout_seconds"]},
        )
        self.flags = list(self.vec.env_action_space.flags)
        self.num_actions = len(self.flags)
        self.policy = make_policy(config, self.num_actions).to(device)
        self.optimizer = torch.optim.Adam(
            self.policy.parameters(), lr=self.ppo["learning_rate"], eps=1e-5
        )
        self.timesteps = 0
        self.updates = 0
        self.episode_rewards: deque = deque(maxlen=100)
        self.errors: dict[str, int] = {}
        self.graphs_embedded = 0
        self.clock = Clock(device, self.PARTS)
        obs, _ = self.vec.reset()
        self.obs = obs
        # Each env's current state: a graph of ``self.states`` (the last rollout's plans).
        with self.clock("plan"):
            self.states = self.policy.plan(Graphs.from_batch(obs))
        self.current = torch.arange(self.num_envs, device=device)
        self.counts = torch.zeros(self.num_envs, self.num_actions, device=device)
        self.returns = torch.zeros(self.num_envs, device=device)

    @property
    def gnn_seconds(self) -> float:
        """The GNN's time: plans, and its passes in rollouts and updates."""
        return sum(self.clock.seconds[k] for k in ("plan", "rollout_gnn", "update_gnn"))

    def _embed(self, plan: Plan) -> torch.Tensor:
        """The GNN's embeddings of the graphs of ``plan``, counted (``graphs_embedded``: the
        graphs through the GNN, in rollouts and updates)."""
        self.graphs_embedded += plan.num_graphs
        return self.policy.embed(plan)

    def collect(self) -> dict:
        """One rollout of ``n_steps`` steps of every env, with advantages and returns. Its
        states are the graphs of ``rollout["plan"]``, ``rollout["states"]`` the state of each
        transition and ``rollout["embeddings"]`` each state's embedding."""
        n_steps = self.ppo["n_steps"]
        device = self.device
        # The envs' states carried over from the last rollout: plans kept, embeddings anew.
        with self.clock("plan"):
            kept, current = torch.unique(self.current, return_inverse=True)
            plans = [self.states.select(kept)]
        with self.clock("rollout_gnn"), torch.no_grad():
            embeddings = [self._embed(plans[0])]
        known = kept.numel()
        table = torch.cat(embeddings)
        states, histories, actions, log_probs = [], [], [], []
        values, rewards, dones = [], [], []
        for _ in range(n_steps):
            history = self.counts / self.length
            with self.clock("heads"), torch.no_grad():
                logits, value = self.policy.heads(table.index_select(0, current), history)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            with self.clock("env"):
                self.obs, reward, terminated, truncated, info = self.vec.step(action)
            done = (terminated | truncated).to(device)
            # The state is the one the env was in unless the step changed the module, or
            # the episode ended (a new one starts in the same step).
            unchanged = torch.as_tensor(info["action_had_no_effect"], device=device).bool()
            fresh = torch.nonzero(~unchanged | done).flatten()
            states.append(current)
            if fresh.numel():
                with self.clock("plan"):
                    plan = self.policy.plan(Graphs.from_batch(self.obs).select(fresh))
                with self.clock("rollout_gnn"), torch.no_grad():
                    embeddings.append(self._embed(plan))
                plans.append(plan)
                table = torch.cat([table, embeddings[-1]])
                current = current.clone()
                current[fresh] = known + torch.arange(fresh.numel(), device=device)
                known += fresh.numel()
            reward = reward.to(device, torch.float32)
            histories.append(history)
            actions.append(action)
            log_probs.append(dist.log_prob(action))
            values.append(value)
            rewards.append(reward)
            dones.append(done)
            self.counts[torch.arange(self.num_envs, device=device), action] += 1
            self.counts[done] = 0
            self.returns += reward
            for r in self.returns[done].tolist():
                self.episode_rewards.append(r)
            self.returns[done] = 0
            for error in info["error_type"]:
                if error:
                    self.errors[error] = self.errors.get(error, 0) + 1
            self.timesteps += self.num_envs
        with self.clock("heads"), torch.no_grad():
            _, last = self.policy.heads(table.index_select(0, current), self.counts / self.length)
        with self.clock("plan"):
            self.states = Plan.collate(plans)
        self.current = current
        values_t = torch.stack(values)
        rewards_t, dones_t = torch.stack(rewards), torch.stack(dones).float()
        gamma, lam = self.ppo["gamma"], self.ppo["gae_lambda"]
        advantages = torch.zeros_like(rewards_t)
        running = torch.zeros(self.num_envs, device=device)
        for t in reversed(range(len(rewards))):
            next_value = last if t == len(rewards) - 1 else values_t[t + 1]
            alive = 1.0 - dones_t[t]
            delta = rewards_t[t] + gamma * next_value * alive - values_t[t]
            running = delta + gamma * lam * alive * running
            advantages[t] = running
        return {
            "plan": self.states,
            "states": torch.cat(states),  # step-major: row t * num_envs + i is env i at step t
            "embeddings": table,  # the GNN's, as the rollout was collected
            "histories": torch.cat(histories),
            "actions": torch.cat(actions),
            "log_probs": torch.cat(log_probs),
            "advantages": advantages.reshape(-1),
            "returns": (advantages + values_t).reshape(-1),
        }

    def update(self, rollout: dict) -> dict:
        """``n_epochs`` passes of clipped PPO over the rollout in minibatches of
        ``batch_size``; the last minibatch's losses. The last ``gnn_epochs`` passes train the
        GNN with the heads, each distinct state of a minibatch embedded once; the passes
        before them train the heads alone, on the embeddings the rollout computed (exact,
        since the GNN has not changed since then), which saves the GNN's forward and backward
        passes, most of the cost."""
        states = rollout["states"]
        n = states.numel()
        clip = self.ppo["clip_range"]
        epochs = self.ppo["n_epochs"]
        gnn_epochs = self.ppo.get("gnn_epochs", epochs)
        stats = {}
        for epoch in range(epochs):
            joint = epoch >= epochs - gnn_epochs
            order = torch.randperm(n, device=self.device)
            for start in range(0, n, self.ppo["batch_size"]):
                rows = order[start : start + self.ppo["batch_size"]]
                batch = states.index_select(0, rows)
                if joint:
                    with self.clock("update_gnn"):
                        embedding = embed_distinct(self.policy, rollout["plan"], batch)
                    self.graphs_embedded += int(torch.unique(batch).numel())
                else:
                    embedding = rollout["embeddings"].index_select(0, batch)
                with self.clock("heads"):
                    logits, value = self.policy.heads(embedding, rollout["histories"][rows])
                    dist = torch.distributions.Categorical(logits=logits)
                    log_prob = dist.log_prob(rollout["actions"][rows])
                    advantage = rollout["advantages"][rows]
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                    ratio = torch.exp(log_prob - rollout["log_probs"][rows])
                    policy_loss = -torch.min(
                        advantage * ratio, advantage * ratio.clamp(1 - clip, 1 + clip)
                    ).mean()
                    value_loss = (rollout["returns"][rows] - value).pow(2).mean()
                    entropy = dist.entropy().mean()
                    loss = (
                        policy_loss
                        + self.ppo["vf_coef"] * value_loss
                        - self.ppo["ent_coef"] * entropy
                    )
                    self.optimizer.zero_grad()
                # The backward pass through the GNN is the GNN's time.
                with self.clock("update_gnn" if joint else "heads"):
                    loss.backward()
                with self.clock("heads"):
                    torch.nn.utils.clip_grad_norm_(
                        self.policy.parameters(), self.ppo["max_grad_norm"]
                    )
                    self.optimizer.step()
                stats = {
                    "policy_loss": policy_loss.item(),
                    "value_loss": value_loss.item(),
                    "entropy": entropy.item(),
                }
        self.updates += 1
        return stats

    def train(
        self,
        max_seconds: float,
        total_timesteps: Optional[int] = None,
        on_rollout: Optional[Callable[[Trainer, dict], None]] = None,
    ) -> float:
        """Rollouts and updates until ``max_seconds`` (checked after each update) or
        ``total_timesteps``; ``on_rollout`` sees each update's stats. Returns the seconds."""
        start = time.perf_counter()
        while time.perf_counter() - start < max_seconds and (
            total_timesteps is None or self.timesteps < total_timesteps
        ):
            stats = self.update(self.collect())
            stats["seconds"] = time.perf_counter() - start
            if on_rollout is not None:
                on_rollout(self, stats)
            self.errors = {}
        return time.perf_counter() - start

    def mean_episode_reward(self) -> float:
        rewards = list(self.episode_rewards)
        return sum(rewards) / len(rewards) if rewards else float("nan")

    def save(self, out: Path) -> None:
        """The network's weights and the action table they index, into ``out``."""
        state = {k: v.detach().cpu() for k, v in self.policy.state_dict().items()}
        torch.save(state, out / WEIGHTS.name)
        (out / ACTIONS).write_text("\n".join(self.flags) + "\n")

    def close(self) -> None:
        self.vec.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--max-seconds", type=float, help="the config's max_seconds otherwise")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar (none either off a terminal)"
    )
    flags = parser.parse_args()
    config = load_config(flags.config)
    flags.out.mkdir(parents=True, exist_ok=True)
    programs = training_programs(config, flags.config)
    trainer = Trainer(config, programs, flags.device)
    rows = []
    max_seconds = flags.max_seconds or config["max_seconds"]
    bar = progress(total=round(max_seconds), unit="s", desc="training", quiet=flags.quiet)

    def on_rollout(trainer: Trainer, stats: dict) -> None:
        errors = " ".join(f"{k}:{v}" for k, v in sorted(trainer.errors.items()))
        rows.append((trainer.timesteps, stats["seconds"], trainer.mean_episode_reward(), errors))
        with open(flags.out / "training_curve.csv", "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["timesteps", "seconds", "mean_episode_reward", "errors"])
            writer.writerows(rows)
        bar.write(
            f"{trainer.timesteps} steps, {stats['seconds']:.0f} s, mean episode reward "
            f"{trainer.mean_episode_reward():.4f}, entropy {stats['entropy']:.3f}",
        )
        sys.stdout.flush()  # a log file sees each rollout as it ends
        bar.update(min(round(stats["seconds"]), bar.total) - bar.n)
        trainer.save(flags.out)

    seconds = trainer.train(max_seconds, config["total_timesteps"], on_rollout)
    bar.close()
    trainer.save(flags.out)
    trainer.close()
    print(
        f"trained {trainer.timesteps} steps on {len(programs)} programs in {seconds:.0f} s "
        f"({trainer.timesteps / seconds:.1f} steps/s; GNN {trainer.graphs_embedded} graphs in "
        f"{trainer.gnn_seconds:.0f} s, {trainer.graphs_embedded / trainer.gnn_seconds:.0f} "
        f"graphs/s); last mean episode reward {trainer.mean_episode_reward():.4f}"
    )


if __name__ == "__main__":
    main()
