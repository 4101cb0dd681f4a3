"""Per-step latency of the LLVM environment, measured side by side in one run.

    python benchmarks/llvm_step_latency.py [--episodes 3] [--steps 30] [--opt-steps 10]

For random episodes on every builtin-v0 program it reports, per step:
  * env.step:   the full Python call (binding, engine, pass, verification);
  * pass alone: the time inside the pass manager's run() for the same step, same module;
  * opt rerun:  the prior-work style (what CompilerGym compared against): after each step, run
                opt-19 on the original bitcode with the whole sequence so far;
and reset latency from the benchmark cache. It prints p50/p99/mean and the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import compiler_gym
from compiler_gym.envs.llvm_env import pass_table


def pct(values, q):
    return float(np.percentile(np.asarray(values), q))


def summary(name, values_s):
    ms = [v * 1e3 for v in values_s]
    return (
        f"{name:<28} p50 {pct(ms, 50):9.3f} ms   p99 {pct(ms, 99):9.3f} ms   "
        f"mean {statistics.fmean(ms):9.3f} ms   n={len(ms)}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument(
        "--opt-steps",
        type=int,
        default=10,
        help="steps per episode also timed with the opt-19 rerun",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opt", default="opt-19")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    pipelines = [row[1] for row in pass_table()]
    step_s, pass_s, verify_s, effect, opt_s, opt_pairs, reset_s = [], [], [], [], [], [], []
    episodes = []  # (bitcode path, actions, per-step env.step seconds)
    with compiler_gym.make("llvm-v0") as env, tempfile.TemporaryDirectory() as tmp:
        uris = list(env.datasets.dataset("builtin-v0").benchmark_uris())
        # Phase 1: the environment alone, so that nothing else disturbs its timings.
        for i, uri in enumerate(uris):
            env.reset(benchmark=uri)
            bitcode = Path(tmp) / f"{i}.bc"
            env.write_bitcode(bitcode)
            for _ in range(args.episodes):
                t0 = time.perf_counter()
                env.reset()
                reset_s.append(time.perf_counter() - t0)
                actions, times = [], []
                for _ in range(args.steps):
                    a = int(rng.integers(env.action_space.n))
                    t0 = time.perf_counter()
                    _, _, done, info = env.step(a)
                    dt = time.perf_counter() - t0
                    if done:
                        break
                    actions.append(a)
                    times.append(dt)
                    step_s.append(dt)
                    pass_s.append(env._last_compute_seconds)
                    verify_s.append(env._last_verify_seconds)
                    effect.append(not info["action_had_no_effect"])
                episodes.append((bitcode, actions, times))
        # Phase 2: the prior-work style on the same steps: opt-19 reruns the whole sequence.
        for bitcode, actions, times in episodes:
            for k in range(min(args.opt_steps, len(actions))):
                pipeline = ",".join(pipelines[x] for x in actions[: k + 1])
                t0 = time.perf_counter()
                subprocess.run(
                    [
                        args.opt,
                        f"-passes={pipeline}",
                        str(bitcode),
                        "-o",
                        str(Path(tmp) / "out.bc"),
                    ],
                    check=True,
                )
                opt_s.append(time.perf_counter() - t0)
                opt_pairs.append(times[k])

    print(
        f"builtin-v0: {len(uris)} programs x {args.episodes} episodes x {args.steps} random steps\n"
    )
    print(summary("env.step (Python API)", step_s))
    print(summary("pass alone", pass_s))
    print(summary("opt-19 rerun of sequence", opt_s))
    print(summary("env.reset (cached)", reset_s))
    overhead = [s - p for s, p in zip(step_s, pass_s, strict=True)]
    print()
    print(summary("overhead beyond the pass", overhead))
    print(f"p50 step / p50 pass - 1:       {pct(step_s, 50) / pct(pass_s, 50) - 1:+.1%}")
    print(
        f"per-step overhead / pass, p50: "
        f"{statistics.median(o / p for o, p in zip(overhead, pass_s, strict=True) if p > 0):.1%}"
    )
    verify_share = statistics.fmean(verify_s) / statistics.fmean(step_s)
    rest = [o - v for o, v in zip(overhead, verify_s, strict=True)]
    unverified = [t - v for t, v in zip(step_s, verify_s, strict=True)]
    print(
        f"verification of changed IR:    {verify_share:.1%} of mean step time; overhead "
        f"without it p50 {pct(rest, 50) * 1e6:.1f} us, mean {statistics.fmean(rest) * 1e6:.1f} us"
    )
    print(
        f"(overhead - verification) / pass, p50: "
        f"{statistics.median(r / p for r, p in zip(rest, pass_s, strict=True) if p > 0):.1%}; "
        f"p50 (step - verification) / p50 pass - 1: "
        f"{pct(unverified, 50) / pct(pass_s, 50) - 1:+.1%}"
    )
    for label, flag in (("steps that changed the IR", True), ("steps with no effect", False)):
        sel = [i for i, e in enumerate(effect) if e == flag]
        if sel:
            print(
                f"{label + ':':<30} n={len(sel)}  step p50 "
                f"{pct([step_s[i] for i in sel], 50) * 1e3:.3f} ms, pass p50 "
                f"{pct([pass_s[i] for i in sel], 50) * 1e3:.3f} ms, overhead p50 "
                f"{pct([overhead[i] for i in sel], 50) * 1e6:.1f} us"
            )
    print(
        f"speedup over opt-19 rerun:     p50 {pct(opt_s, 50) / pct(opt_pairs, 50):.1f}x   "
        f"mean {statistics.fmean(opt_s) / statistics.fmean(opt_pairs):.1f}x "
        f"(same steps, n={len(opt_s)})"
    )
    print(f"reset p50:                     {pct(reset_s, 50) * 1e3:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
