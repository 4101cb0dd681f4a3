"""Cost of the program representations: ProGraML and inst2vec per observation, and ProGraML
batched for many envs, beside CompilerGym's published figures.

    python benchmarks/representations.py [--per-dataset 100] [--csmith 50] [--batch-envs 1024]

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
"""

from __future__ import annotations

import argparse
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


def batched(num_envs: int, trials: int) -> dict:
    with compiler_gym.make("llvm-v0") as env:
        uris = sorted({u.split("?")[0] for u in env.datasets["builtin-v0"].benchmark_uris()})
    times = {}
    handoff = []
    for space in ("IrInstructionCount", "Programl"):
        vec = compiler_gym.make_vec(
            "llvm-v0",
            num_envs=num_envs,
            benchmarks=uris,
            observation_space=space,
            reward_space=None,
        )
        for _ in range(3):  # warm the module cache and let the heap grow to its working size
            vec.reset()
        samples = []
        for _ in range(trials):
            start = time.perf_counter()
            obs, info = vec.reset()
            samples.append(time.perf_counter() - start)
            if space == "Programl":
                handoff.append(vec.handoff_seconds)
                nodes, edges = obs.num_nodes, obs.edge_index.shape[1]
        times[space] = statistics.median(samples)
        vec.close()
    h = statistics.median(handoff)
    build = times["Programl"] - times["IrInstructionCount"] - h
    return {
        "envs": num_envs,
        "nodes": nodes,
        "edges": edges,
        "graphs_s": build,
        "handoff_s": h,
        "ratio": (build + h) / build,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-dataset", type=int, default=100)
    parser.add_argument("--csmith", type=int, default=50)
    parser.add_argument("--batch-envs", type=int, default=1024)
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()

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

    b = batched(args.batch_envs, args.trials)
    print(
        f"\nBatched Programl, {b['envs']} envs ({b['nodes']} nodes, {b['edges']} edges): "
        f"graphs {b['graphs_s'] * 1000:.1f} ms, handoff to PyTorch {b['handoff_s'] * 1000:.1f} ms, "
        f"total / graphs alone = {b['ratio']:.2f}"
    )


if __name__ == "__main__":
    main()
