"""Learning at the engine's speed: each agent's PPO training steps/s beside its envs' steps/s
with random actions, measured side by side in one run.

    python benchmarks/training_throughput.py [--num-envs 64] [--seconds 60] [--threads 2]
        [--device cpu|cuda] [--torch-threads 1] [--agents mlp,gnn] [--programs URI ...]
        [--json OUT]

Writes (``--json``) a list of rows ``{"agent": "mlp"|"gnn", "num_envs", "threads", "device",
"env_steps_per_s", "train_steps_per_s"}`` and prints them with their ratio. Each agent runs in
a process of its own with ``benchmarks/gnn_agent.py``'s measurements: the engine alone, for
``--seconds`` / 4, with random actions and the agent's observation and settings (Autophase
rows, or ProGraML graph batches on ``--device``), then PPO from a fresh network for
``--seconds`` (the package's trainer, :mod:`compiler_gym.train`; ``--agents mlp-sb3`` and
``mlp-torchrl`` train the MLP with Stable-Baselines3's or TorchRL's PPO instead;
``mlp-overlap`` and ``gnn-overlap`` are the package's trainer with ``overlap``: each rollout
collected while the learner updates on the last one).
``--batch-size`` < ``--num-envs``: asynchronous collection. ``--threads``: the engine's
threads (the agents' configs otherwise); ``--programs``: train on these URIs (default: the MLP
agent's training programs).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gnn_agent  # noqa: E402


def rows(results: dict, flags: dict) -> list[dict]:
    """The rows of the agents' measurements (``gnn_agent.measure_*`` results by agent)."""
    return [
        {
            "agent": agent,
            "num_envs": flags["num_envs"],
            "threads": out["threads"],
            "device": flags["device"],
            "env_steps_per_s": out["env_steps_per_s"],
            "train_steps_per_s": out["train_steps_per_s"],
        }
        for agent, out in results.items()
    ]


OVERLAP = "-overlap"  # an agent's name with it: the package's trainer with overlap


def _agents() -> list[str]:
    return [*gnn_agent.MEASURES, *(a + OVERLAP for a in ("mlp", "gnn"))]


def _measure(agent: str, flags: dict) -> dict:
    """One agent's figures, and the engine threads it used."""
    base = agent.removesuffix(OVERLAP)
    out = gnn_agent.MEASURES[base]({**flags, "overlap": agent != base})
    out["threads"] = flags["threads"] or _config_threads(base)
    return out


def _config_threads(agent: str) -> int:
    folder = gnn_agent.PPO_GNN if agent == "gnn" else gnn_agent.PPO
    return json.loads((folder / "config.json").read_text())["num_threads"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60.0, help="training time per agent")
    parser.add_argument("--threads", type=int, help="the engine's threads (default: configs')")
    parser.add_argument("--batch-size", type=int, help="envs per recv (< num-envs: async)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--agents", default="mlp,gnn", help="which agents, comma-separated")
    parser.add_argument("--programs", nargs="+", help="train on these URIs")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args()
    agents = args.agents.split(",")
    if not agents or set(agents) - set(_agents()):
        parser.error(f"--agents: some of {', '.join(_agents())}, not {args.agents!r}")
    flags = {
        "seconds": args.seconds,
        "device": args.device,
        "num_envs": args.num_envs,
        "threads": args.threads,
        "batch_size": args.batch_size,
        "torch_threads": args.torch_threads,
        "programs": args.programs,
    }
    context = multiprocessing.get_context("spawn")
    results = {}
    for agent in agents:
        with context.Pool(1) as pool:
            results[agent] = pool.apply(_measure, (agent, flags))
    table = rows(results, flags)
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n")
    print("| agent | envs | threads | device | env steps/s | training steps/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for r in table:
        print(
            f"| {r['agent']} | {r['num_envs']} | {r['threads']} | {r['device']} | "
            f"{r['env_steps_per_s']:.1f} | {r['train_steps_per_s']:.1f} | "
            f"{r['train_steps_per_s'] / r['env_steps_per_s']:.2f} |"
        )


if __name__ == "__main__":
    main()
