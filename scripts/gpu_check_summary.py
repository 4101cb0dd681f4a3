"""The markdown summary of scripts/gpu_check.sh's CPU-side measurements on a lent machine:
the vector engine's scaling, the isolated executor against in-process, ProGraML and inst2vec
batches on CUDA against the CPU, PPO training's steps/s, the GNN agent beside the MLP one, the
loop_tool search's schedules/s and share of the copy peak, and both agents' training steps/s
beside the engine's at 256 to 4,096 envs, then the targets met or not, from the JSON files
the steps wrote into the output folder. A step that wrote nothing shows as not measured, with
its status line from steps.txt (SKIP and its reason, or FAIL and its log).

    python3 scripts/gpu_check_summary.py OUT_DIR --card "NVIDIA H100 80GB HBM3"
        (prints the tables and writes OUT_DIR/summary.md)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
from pathlib import Path
from typing import Any, Optional

# Each measuring step (gpu_check.sh's names): its JSON file and what it measures.
FILES = {
    "bench_scaling": ("scaling.json", "Vector engine scaling"),
    "bench_isolation": ("isolation.json", "Isolated executor against in-process"),
    "bench_representations": ("representations.json", "Batched observations on CUDA and CPU"),
    "bench_ppo": ("ppo.json", "PPO training"),
    "bench_gnn": ("gnn.json", "GNN and MLP agents"),
    "bench_loop_tool": ("loop_tool_search.json", "loop_tool search"),
    "bench_training": ("training.json", "Training throughput at scale"),
}
# Issue 35's and issue 50's targets on the lent machine: (what, threshold).
TARGETS = {
    "scaling": ("sync step efficiency at the most threads, 1,024+ envs", 0.9),
    "isolation": ("isolated / in-process steps/s", 0.9),
    "gnn_training": ("GNN training / env steps/s at 1,024 envs", 0.7),
    "gnn_graphs": ("GNN forward graphs/s", 20000.0),
}


def _int(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _ratio(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


def _ms(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f}"


def _missing(step: str, statuses: dict[str, str]) -> str:
    return f"{FILES[step][1]}: not measured, {statuses.get(step, 'the step did not run')}.\n"


def _scaling(data: dict) -> str:
    threads = sorted({r["threads"] for r in data["rows"]})
    envs = sorted({r["num_envs"] for r in data["rows"]})
    cell = {(r["num_envs"], r["threads"]): r for r in data["rows"]}
    lines = [
        f"Vector engine (`make_vec`, sync step), `{data['env']}`, env steps/s and parallel "
        "efficiency rate(t) / (t x rate(1)) (target: 0.9 at 16 threads with 1,024+ envs):",
        "",
        "| envs | steps/env | " + " | ".join(f"{t} thr" for t in threads) + " |",
        "|---:|---:|" + "---:|" * len(threads),
    ]
    for n in envs:
        row = [f"{n:,}", str(next(cell[n, t]["steps_per_env"] for t in threads if (n, t) in cell))]
        for t in threads:
            r = cell.get((n, t))
            if r is None:
                row.append("-")
            elif r.get("efficiency") is None:
                row.append(_int(r["steps_per_s"]))
            else:
                row.append(f"{_int(r['steps_per_s'])} ({_ratio(r['efficiency'])})")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def _isolation(data: dict) -> str:
    lines = [
        'Isolated executor (`isolation="process"`, a worker process per env) against '
        "in-process, same steps (target: 0.9):",
        "",
        "| envs | threads | in-process steps/s | isolated steps/s | isolated / in-process |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        lines.append(
            f"| {r['num_envs']:,} | {r['threads']} | {_int(r['steps_per_s'])} | "
            f"{_int(r.get('isolated_steps_per_s'))} | {_ratio(r.get('isolated_ratio'))} |"
        )
    return "\n".join(lines) + "\n"


def _representations(data: dict, statuses: dict[str, str]) -> str:
    rows = {(r["space"], r["device"]): r for r in data["rows"]}
    spaces = list(dict.fromkeys(r["space"] for r in data["rows"]))
    lines = [
        f"Batched observations, {data['envs']:,} envs reset into tensors on the device "
        f"(observations/s; the same reset with `IrInstructionCount`: "
        f"{data['baseline_reset_s'] * 1000:.1f} ms):",
        "",
        "| space | CPU obs/s | CUDA obs/s | CUDA / CPU | handoff CPU ms | handoff CUDA ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for space in spaces:
        cpu, cuda = rows.get((space, "cpu"), {}), rows.get((space, "cuda"), {})
        lines.append(
            f"| {space} | {_int(cpu.get('obs_per_s'))} | "
            f"{_int(cuda['obs_per_s']) if cuda else 'not measured'} | "
            f"{_ratio(cuda.get('vs_cpu'))} | {_ms(cpu.get('handoff_s'))} | "
            f"{_ms(cuda.get('handoff_s'))} |"
        )
    if not any(device == "cuda" for _, device in rows):
        lines += ["", f"CUDA: {statuses.get('representations_cuda', 'not measured')}."]
    return "\n".join(lines) + "\n"


def _ppo(data: dict) -> str:
    return (
        "\n".join(
            [
                "PPO training (`benchmarks/leaderboard/ppo/train.py`, Stable-Baselines3, worker "
                "processes; updates included):",
                "",
                "| envs x threads | programs | seconds | timesteps | steps/s |",
                "|---|---:|---:|---:|---:|",
                f"| {data['num_envs']} x {data['num_threads']} | {data['programs']} | "
                f"{data['seconds']:.0f} | {data['timesteps']:,} | {_int(data['steps_per_s'])} |",
            ]
        )
        + "\n"
    )


def _gnn(data: dict) -> str:
    flags, mlp, gnn = data["flags"], data["mlp"], data["gnn"]
    lines = [
        f"GNN (ProGraML, PyTorch Geometric) and MLP (Autophase) agents "
        f"(`benchmarks/gnn_agent.py`), {flags['num_envs']} envs, device {flags['device']}, "
        f"{flags['seconds']:.0f} s of PPO training each:",
        "",
        "| agent | env steps/s | policy obs/s | PPO training steps/s |",
        "|---|---:|---:|---:|",
    ]
    for name, r in (("Autophase MLP", mlp), ("ProGraML GNN", gnn)):
        lines.append(
            f"| {name} | {_int(r['env_steps_per_s'])} | {_int(r['policy_obs_per_s'])} | "
            f"{r['train_steps_per_s']:,.1f} |"
        )
    return "\n".join(lines) + "\n"


def _loop_tool(data: dict) -> str:
    lines = [
        "loop_tool search (`benchmarks/loop_tool_search.py`, the add of N float32; targets on "
        "the GPU at 2^26: 1,000 schedules in under 60 s, 50 schedules/s, 95% of the copy peak):",
        "",
        "| device | N | schedules | seconds | schedules/s | best GB/s | copy peak GB/s | share of "
        "peak | ms per schedule: compile (driver JIT), check, timing |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for device, r in data.items():
        split = r.get("split_ms_per_schedule", {})
        parts = (
            f"{split['compile']:.1f} ({split['module_load']:.1f}), {split['check']:.1f}, "
            f"{split['timing']:.1f}"
            if split
            else "-"
        )
        settings = (
            [f"{r['timing_budget_s'] * 1000:g} ms timing"] if r.get("timing_budget_s") else []
        )
        settings += ["ptxas"] if r.get("ptxas") else []
        label = f"{device} ({', '.join(settings)})" if settings else device
        lines.append(
            f"| {label} | 2^{r.get('log2_size', '?')} | {r['measured']:,} | {r['seconds']:.1f} | "
            f"{_ratio(r.get('schedules_per_s'))} | {r['best_bandwidth_gbps']:.1f} | "
            f"{r['copy_peak_gbps']:.1f} | {100 * r['share_of_peak']:.1f}% | {parts} |"
        )
    return "\n".join(lines) + "\n"


def _training(data: dict) -> str:
    lines = [
        "Training throughput (`benchmarks/training_throughput.py`): each agent's PPO training "
        "steps/s beside its envs' steps/s with random actions, side by side in one run "
        "(target: the GNN at 0.7x the engine at 1,024 envs):",
        "",
        "| agent | envs | threads | device | env steps/s | training steps/s | training / env |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for r in sorted(data["rows"], key=lambda r: (r["num_envs"], r["agent"])):
        env, train = r.get("env_steps_per_s"), r.get("train_steps_per_s")
        lines.append(
            f"| {r['agent']} | {r['num_envs']:,} | {r['threads']} | {r['device']} | "
            f"{_int(env)} | {_int(train)} | {_ratio(train / env if env and train else None)} |"
        )
    return "\n".join(lines) + "\n"


def targets(results: dict[str, Optional[dict[str, Any]]]) -> list[tuple[str, Optional[float]]]:
    """Each target of :data:`TARGETS` with the value measured (None: not measured): the
    lowest over the points the target covers."""
    measured: dict[str, Optional[float]] = dict.fromkeys(TARGETS)
    scaling = results.get("bench_scaling")
    if scaling:
        most = max(r["threads"] for r in scaling["rows"])
        values = [
            r["efficiency"]
            for r in scaling["rows"]
            if r["threads"] == most and r["num_envs"] >= 1024 and r.get("efficiency") is not None
        ]
        measured["scaling"] = min(values, default=None)
    isolation = results.get("bench_isolation")
    if isolation:
        values = [r["isolated_ratio"] for r in isolation["rows"] if r.get("isolated_ratio")]
        measured["isolation"] = min(values, default=None)
    training = results.get("bench_training")
    if training:
        values = [
            r["train_steps_per_s"] / r["env_steps_per_s"]
            for r in training["rows"]
            if r["agent"] == "gnn" and r["num_envs"] == 1024 and r.get("env_steps_per_s")
        ]
        measured["gnn_training"] = min(values, default=None)
    gnn = results.get("bench_gnn")
    if gnn and gnn.get("gnn", {}).get("policy_obs_per_s") is not None:
        measured["gnn_graphs"] = gnn["gnn"]["policy_obs_per_s"]
    return [(name, measured[name]) for name in TARGETS]


def _targets(results: dict[str, Optional[dict[str, Any]]]) -> str:
    lines = ["Targets:", "", "| target | threshold | measured | met |", "|---|---:|---:|---|"]
    for name, value in targets(results):
        what, threshold = TARGETS[name]
        met = "not measured" if value is None else ("yes" if value >= threshold else "NO")
        shown = "-" if value is None else (_int(value) if threshold > 10 else _ratio(value))
        limit = _int(threshold) if threshold > 10 else _ratio(threshold)
        lines.append(f"| {what} | {limit} | {shown} | {met} |")
    return "\n".join(lines) + "\n"


def read_training(out_dir: Path) -> Optional[dict]:
    """The rows of every ``training_<envs>.json`` the training steps wrote, as one result."""
    rows = []
    for path in sorted(out_dir.glob("training_*.json")):
        try:
            rows += json.loads(path.read_text())
        except (OSError, ValueError):
            continue
    return {"rows": rows} if rows else None


def render(
    results: dict[str, Optional[dict[str, Any]]],
    statuses: dict[str, str],
    card: str,
    cores: int,
    date: str,
) -> str:
    """The summary in markdown. ``results``: each step's JSON (None: none written);
    ``statuses``: each step's status line (``PASS``, ``SKIP: why``, ...)."""
    parts = [f"### {card}, {cores} cores (`scripts/gpu_check.sh`, {date})\n"]
    for step, section in (
        ("bench_scaling", _scaling),
        ("bench_isolation", _isolation),
        ("bench_representations", lambda d: _representations(d, statuses)),
        ("bench_ppo", _ppo),
        ("bench_gnn", _gnn),
        ("bench_loop_tool", _loop_tool),
        ("bench_training", _training),
    ):
        data = results.get(step)
        parts.append(section(data) if data else _missing(step, statuses))
    parts.append(_targets(results))
    problems = [f"{k}: {v}" for k, v in statuses.items() if not v.startswith("PASS")]
    if problems:
        parts.append("Skipped or failed: " + "; ".join(problems) + ".\n")
    return "\n".join(parts)


def read_statuses(path: Path) -> dict[str, str]:
    """gpu_check.sh's steps.txt: lines ``STATUS  NAME ...`` -> {NAME: "STATUS ..."}."""
    statuses = {}
    if path.exists():
        for line in path.read_text().splitlines():
            status, _, rest = line.partition("  ")
            name, _, detail = rest.partition(" ")
            if name:
                statuses[name.rstrip(":")] = f"{status} {detail}".strip()
    return statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--card", default="no GPU")
    args = parser.parse_args()
    results = {"bench_training": read_training(args.out_dir)}
    for step, (name, _) in FILES.items():
        if step in results:
            continue
        path = args.out_dir / name
        try:
            results[step] = json.loads(path.read_text())
        except (OSError, ValueError):
            results[step] = None
    cores = next((r["cores"] for r in results.values() if r and "cores" in r), os.cpu_count())
    text = render(
        results,
        read_statuses(args.out_dir / "steps.txt"),
        args.card,
        cores or 0,
        datetime.date.today().isoformat(),
    )
    (args.out_dir / "summary.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
