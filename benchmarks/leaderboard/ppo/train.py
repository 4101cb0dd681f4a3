"""Trains the PPO agent of the llvm_instcount leaderboard (settings in ``config.json``).

    python benchmarks/leaderboard/ppo/train.py [--config config.json] [--out DIR]
        [--programs URI ...] [--num-envs N] [--num-threads T] [--max-seconds S] [--json OUT]

PPO (Stable-Baselines3) steps one ``make_vec`` engine of ``num_envs`` envs through
:mod:`compiler_gym.wrappers.sb3`, on programs of csmith-v0, gcc-torture-v0 and pypi-c-v0 of at
most ``max_instructions`` IR instructions (a batch steps as slowly as its largest program),
drawn at random at each reset, each env in a worker process whose steps are cut off after
``step_timeout_seconds``; builtin-v0, the leaderboard's suite, is never seen. Writes the
policy's weights, the list of training programs and a CSV of the learning curve (time steps,
seconds, mean episode reward of the last 100 episodes, errors in the rollout) to ``--out``.

The other flags override the config for a measurement of training's speed (steps/s in
``--json``): ``--programs`` trains on those URIs (files too, ``file:///path/prog.bc``)
instead of choosing programs from the datasets, which a machine without them or without
network cannot do.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path

import gymnasium
import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent import ACTIONS, CONFIG, FeatureVecEnv, load_config  # noqa: E402

import compiler_gym  # noqa: E402
from compiler_gym.util.cli import progress as progress_bar  # noqa: E402
from compiler_gym.wrappers.sb3 import make_sb3_vec_env  # noqa: E402


def training_programs(config: dict, quiet: bool = False) -> list[str]:
    """The URIs of the training programs: each dataset's first ``count`` (0: all) that load
    and have at most ``max_instructions`` instructions."""
    chosen = []
    with compiler_gym.make(config["env"]) as env:
        for dataset, count in config["datasets"].items():
            uris = env.datasets[dataset].benchmark_uris()
            taken = 0
            progress = progress_bar(desc=dataset, unit="program", quiet=quiet)
            for uri in uris if count == 0 else itertools.islice(uris, 4 * count):
                progress.update()
                try:
                    env.reset(benchmark=uri)
                    size = env.observation["IrInstructionCount"]
                except Exception as e:  # a program that does not load is not trained on
                    print(f"skipped {uri}: {type(e).__name__}", file=sys.stderr)
                    continue
                if 0 < size <= config["max_instructions"]:
                    chosen.append(str(uri))
                    taken += 1
                    if taken == count:
                        break
            progress.close()
    return chosen


def started_programs(config: dict, programs: list[str], folder: Path) -> list[str]:
    """With the config's ``start_actions`` (by name), each program after them, written as
    bitcode into ``folder``: the programs the policy starts from (``file://`` URIs, in order);
    the programs themselves without."""
    if not config.get("start_actions"):
        return programs
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    with compiler_gym.make(config["env"], action_space=config.get("action_space")) as env:
        start = [env.action_space[name] for name in config["start_actions"]]
        for i, uri in enumerate(progress_bar(programs, desc="start actions", unit="program")):
            env.reset(benchmark=uri)
            env.multistep(start)
            out.append(env.write_bitcode(str(folder / f"{i:05d}.bc")).resolve().as_uri())
    return out


class Curve(BaseCallback):
    """Writes the learning curve (with the episodes that ended in an error, such as a step
    cut off) and stops training after ``max_seconds``; on a terminal, a progress bar of the
    seconds with the time steps and the mean episode reward (none with ``quiet``)."""

    def __init__(self, path: Path, max_seconds: float, quiet: bool = False):
        super().__init__()
        self.path, self.max_seconds = path, max_seconds
        self.bar = progress_bar(
            total=round(max_seconds), unit="s", desc="training", quiet=quiet, leave=False
        )
        self.start = time.perf_counter()
        self.rows: list[tuple] = []
        self.errors: dict[str, int] = {}

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "error_type" in info:
                self.errors[info["error_type"]] = self.errors.get(info["error_type"], 0) + 1
        return time.perf_counter() - self.start < self.max_seconds

    def _on_rollout_end(self) -> None:
        episodes = [e["r"] for e in self.model.ep_info_buffer]
        mean = float(np.mean(episodes)) if episodes else float("nan")
        errors = " ".join(f"{k}:{v}" for k, v in sorted(self.errors.items()))
        seconds = time.perf_counter() - self.start
        self.rows.append((self.num_timesteps, seconds, mean, errors))
        self.bar.set_postfix(steps=self.num_timesteps, reward=f"{mean:.4f}", refresh=False)
        self.bar.update(min(round(seconds), self.bar.total) - self.bar.n)
        self.errors = {}
        with open(self.path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["timesteps", "seconds", "mean_episode_reward", "errors"])
            writer.writerows(self.rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--verbose", action="store_true", help="SB3's table after each update")
    parser.add_argument("--programs", nargs="+", help="train on these URIs (no choosing)")
    parser.add_argument("--num-envs", type=int, help="the config's num_envs otherwise")
    parser.add_argument("--num-threads", type=int, help="the config's num_threads otherwise")
    parser.add_argument("--max-seconds", type=float, help="the config's max_seconds otherwise")
    parser.add_argument("--json", type=Path, help="write the run's steps/s here")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bars (none either off a terminal)"
    )
    flags = parser.parse_args()
    config = load_config(flags.config)
    for name in ("num_envs", "num_threads", "max_seconds"):
        if getattr(flags, name) is not None:
            config[name] = getattr(flags, name)
    flags.out.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    programs = flags.programs or training_programs(config, flags.quiet)
    (flags.out / "training_programs.txt").write_text("\n".join(programs) + "\n")
    print(f"{len(programs)} training programs chosen in {time.perf_counter() - start:.0f} s")

    # Removed when training ends (at exit, or when collected): the files are only its inputs.
    scratch = tempfile.TemporaryDirectory(prefix="ppo-started-")
    started = started_programs(config, programs, Path(scratch.name))
    venv = make_sb3_vec_env(
        config["env"],
        num_envs=config["num_envs"],
        max_episode_steps=config["episode_length"],
        num_threads=config["num_threads"],
        benchmarks=started,
        random_benchmarks=True,
        observation_space="Autophase",
        reward_space=config["reward"],
        action_space=config.get("action_space"),  # None: the env's default
        seed=config["seed"],
        # A batch steps as slowly as its slowest env, and some passes run for seconds on some
        # states (-iroutliner took 15 s on a pypi-c program of 6k instructions): such a step
        # ends its env's episode (DEADLINE_EXCEEDED) in a worker process instead.
        isolation="process",
        parameters={"worker.step_timeout_seconds": config["step_timeout_seconds"]},
    )
    env = VecMonitor(FeatureVecEnv(venv, config["episode_length"]))
    model = PPO(
        "MlpPolicy",
        env,
        policy_kwargs={"net_arch": config["net_arch"]},
        seed=config["seed"],
        device="cpu",
        verbose=int(flags.verbose),
        **config["ppo"],
    )
    curve = Curve(flags.out / "training_curve.csv", config["max_seconds"], flags.quiet)
    model.learn(config["total_timesteps"], callback=curve, progress_bar=False)
    curve.bar.close()
    seconds = time.perf_counter() - curve.start
    # The saved settings hold the action space: a plain Discrete of the table's size, not the
    # env's space object (the names are actions.txt, beside it).
    model.policy.action_space = gymnasium.spaces.Discrete(int(venv.action_space.n))
    model.policy.save(str(flags.out / "ppo-llvm_instcount.zip"))
    (flags.out / ACTIONS).write_text("\n".join(venv.action_space.flags) + "\n")
    env.close()
    print(
        f"trained {model.num_timesteps} steps in {seconds:.0f} s "
        f"({model.num_timesteps / seconds:.0f} steps/s); last mean episode reward "
        f"{curve.rows[-1][2] if curve.rows else float('nan'):.4f}"
    )
    if flags.json:
        run = {
            "num_envs": config["num_envs"],
            "num_threads": config["num_threads"],
            "programs": len(programs),
            "timesteps": model.num_timesteps,
            "seconds": seconds,
            "steps_per_s": model.num_timesteps / seconds,
            "rollouts": len(curve.rows),
        }
        flags.json.write_text(json.dumps(run, indent=1) + "\n")


if __name__ == "__main__":
    main()
