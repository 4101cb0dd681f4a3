"""Cost of the program representations: ProGraML and inst2vec per observation, and ProGraML
batched for many envs, beside CompilerGym's published figures.

    python benchmarks/representations.py [--per-dataset 100] [--csmith 50] [--batch-envs 1024]
    python benchmarks/representations.py --batch-only --devices cpu cuda [--batch-envs 1024]
        [--spaces Programl Inst2vec] [--benchmarks URI ...] [--json OUT.json]

Corpus (as CompilerGym's): builtin-v0, the first --csmith csmith-v0 seeds, and up to
--per-dataset programs each of gcc-torture-v0 and pypi-c-v0 (every k-th, in URI order). For each
program the env is reset (an empty observation cache) and one observation is computed:

* engine: the C++ observation (ProGraML: graph + vocabulary ids; inst2vec: statements,
  vocabulary lookup and the [n, 200] embeddings), as the engine hands it to Python;
* networkx: the Programl observation as users get it (engine + networkx MultiDiGraph).

Batched: --batch-envs envs of the built-in programs reset with observation_space="Programl"
versus "IrInstructionCount"; the difference is the graphs' cost inside the engine (built in
parallel on the workers) plus the handoff (collation into one PyG batch and DLPack export),
which the engine reports separately as vec.handoff_seconds.

Devices (--devices, with --batch-only alone): for each of --spaces and each device, the
median reset of --batch-envs envs into tensors on that device (device="cuda": batches
assembled by the CUDA kernels, timed to the device's end of work), as observations per
second, with the handoff's share; beside it the same reset with IrInstructionCount on the
CPU, the cost that is not the representation's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np
from tqdm import tqdm

import compiler_gym

# CompilerGym (Cummins et al., CGO 2022, Table III): observation compute times.
PUBLISHED = {"Programl": (104.5, 821.5), "Inst2vec": (15.8, 738.0)}  # p50, mean in ms


def corpus(env, per_dataset: int, csmith: int) -> list[str]:
    uris = sorted({u.split("?")[0] for u in env.datasets["builtin-v0"].benchmark_uris()})
    for name in ("gcc-torture-v0", "pypi-c-v0"):
        dataset = env.datasets[name]
        if not dataset.installed:
            dataset.install()
        all_uris = sorted(dataset.benchmark_uris())
        step = max(1, len(all_uris) // per_dataset)
        uris += all_uris[::step][:per_dataset]
    uris += [f"generator://csmith-v0/{seed}" for seed in range(csmith)]
    return uris


def time_observation(env, uri: str, space: str, raw: bool) -> float:
    env.reset(benchmark=uri)
    spec = env.observation.spaces[space]
    start = time.perf_counter()
    if raw:
        env._env.observe(spec.index)  # the engine's value, before Python-side conversion
    else:
        env.observation[space]
    return (time.perf_counter() - start) * 1000


def summary(ms: list[float]) -> tuple[float, float, float]:
    return statistics.median(ms), float(np.mean(ms)), float(np.percentile(ms, 99))


def _synchronize(device: str) -> None:
    """Waits for the device's work (batches on a GPU are assembled asynchronously)."""
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def reset_times(
    num_envs: int, trials: int, space: str, device: str = "cpu", uris: list[str] | None = None
) -> tuple[float, float, object]:
    """Median seconds of a reset of ``num_envs`` envs with ``space`` on ``device``, the median
    handoff in it, and the last batch."""
    if uris is None:
        with compiler_gym.make("llvm-v0") as env:
            uris = sorted({u.split("?")[0] for u in env.datasets["builtin-v0"].benchmark_uris()})
    vec = compiler_gym.make_vec(
        "llvm-v0",
        num_envs=num_envs,
        benchmarks=uris,
        observation_space=space,
        reward_space=None,
        device=device,
    )
    for _ in range(3):  # warm the module cache and let the heap grow to its working size
        vec.reset()
    _synchronize(device)
    samples, handoff = [], []
    for _ in range(trials):
        start = time.perf_counter()
        obs, _ = vec.reset()
        _synchronize(device)
        samples.append(time.perf_counter() - start)
        handoff.append(vec.handoff_seconds)
    vec.close()
    return statistics.median(samples), statistics.median(handoff), obs


def batched(num_envs: int, trials: int, uris: list[str] | None = None) -> dict:
    base, _, _ = reset_times(num_envs, trials, "IrInstructionCount", uris=uris)
    total, h, obs = reset_times(num_envs, trials, "Programl", uris=uris)
    build = total - base - h
    return {
        "envs": num_envs,
        "nodes": obs.num_nodes,
        "edges": obs.edge_index.shape[1],
        "graphs_s": build,
        "handoff_s": h,
        "ratio": (build + h) / build,
    }


def by_device(
    num_envs: int, trials: int, spaces: list[str], devices: list[str], uris: list[str] | None
) -> dict:
    """Resets into each device's tensors, per space; see the module's docstring."""
    base, _, _ = reset_times(num_envs, trials, "IrInstructionCount", uris=uris)
    print(f"{num_envs} envs, {os.cpu_count()} cores; IrInstructionCount reset {base * 1000:.1f} ms")
    print(
        f"{'space':<10} {'device':<6} {'reset ms':>9} {'handoff ms':>11} {'obs/s':>9} {'x cpu':>6}"
    )
    rows = []
    for space in spaces:
        cpu_rate = None
        for device in devices:
            total, h, _ = reset_times(num_envs, trials, space, device, uris)
            rate = num_envs / total
            cpu_rate = rate if device == "cpu" else cpu_rate
            rows.append(
                {
                    "space": space,
                    "device": device,
                    "reset_s": total,
                    "handoff_s": h,
                    "obs_per_s": rate,
                    "vs_cpu": rate / cpu_rate if cpu_rate else None,
                }
            )
            vs = f"{rate / cpu_rate:6.2f}" if cpu_rate else f"{'':6}"
            print(
                f"{space:<10} {device:<6} {total * 1000:9.1f} {h * 1000:11.1f} {rate:9.0f} {vs}",
                flush=True,
            )
    return {"envs": num_envs, "cores": os.cpu_count(), "baseline_reset_s": base, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=100)
    parser.add_argument("--csmith", type=int, default=50)
    parser.add_argument("--batch-envs", type=int, default=1024)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--batch-only", action="store_true", help="only the batched part")
    parser.add_argument("--devices", nargs="+", default=[], help="cpu, cuda: see above")
    parser.add_argument("--spaces", nargs="+", default=["Programl", "Inst2vec"])
    parser.add_argument(
        "--benchmarks", nargs="+", help="the batch's programs (default: builtin-v0's)"
    )
    parser.add_argument("--json", default="", help="also write the batched figures here")
    args = parser.parse_args()

    if args.batch_only and args.devices:
        out = by_device(args.batch_envs, args.trials, args.spaces, args.devices, args.benchmarks)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
        return
    if not args.batch_only:
        per_program(args)
    b = batched(args.batch_envs, args.trials, args.benchmarks)
    print(
        f"\nBatched Programl, {b['envs']} envs ({b['nodes']} nodes, {b['edges']} edges): "
        f"graphs {b['graphs_s'] * 1000:.1f} ms, handoff to PyTorch {b['handoff_s'] * 1000:.1f} ms, "
        f"total / graphs alone = {b['ratio']:.2f}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(b, f, indent=1)


def per_program(args) -> None:
    """One observation per program of the corpus, beside CompilerGym's published times."""
    with compiler_gym.make("llvm-v0") as env:
        uris = corpus(env, args.per_dataset, args.csmith)
        rows = {
            ("Programl", "engine"): [],
            ("Programl", "networkx"): [],
            ("Inst2vec", "engine"): [],
        }
        for uri in tqdm(uris, desc="programs"):
            try:
                rows["Programl", "engine"].append(time_observation(env, uri, "Programl", True))
                rows["Programl", "networkx"].append(time_observation(env, uri, "Programl", False))
                rows["Inst2vec", "engine"].append(time_observation(env, uri, "Inst2vec", True))
            except Exception as e:  # a program that does not load is not part of the corpus
                print(f"skipped {uri}: {type(e).__name__}")
    print(f"\n{len(rows['Programl', 'engine'])} programs")
    print(
        f"{'observation':<22} {'p50 ms':>8} {'mean ms':>8} {'p99 ms':>8} "
        f"{'CG p50':>7} {'CG mean':>8} {'x p50':>6} {'x mean':>7}"
    )
    for (space, form), ms in rows.items():
        p50, mean, p99 = summary(ms)
        cg50, cgmean = PUBLISHED[space]
        print(
            f"{space + ' (' + form + ')':<22} {p50:8.2f} {mean:8.2f} {p99:8.2f} "
            f"{cg50:7.1f} {cgmean:8.1f} {cg50 / p50:6.1f} {cgmean / mean:7.1f}"
        )


if __name__ == "__main__":
    main()
