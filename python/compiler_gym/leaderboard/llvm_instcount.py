"""The LLVM instruction count leaderboard (CompilerGym's ``llvm_instcount``).

A policy takes an ``llvm-ic-v0`` env, reset to a benchmark, and steps it to maximize the
episode's ``IrInstructionCountOz`` reward (instructions removed, over what -Oz removes). The
score is the geomean of the episode rewards over the test suite (builtin-v0 unless
``--test_dataset`` names another; 0 when any reward is 0 or less, as CompilerGym scores),
beside the mean wall time per benchmark. Results are a CSV of states that
``compiler_gym.bin.validate --env llvm-ic-v0`` replays, and are replayed at the end unless
``--novalidate``.

    # my_policy.py
    from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy

    def my_policy(env) -> None:
        for _ in range(10):
            _, _, done, _ = env.step(env.action_space.sample())
            if done:
                break

    if __name__ == "__main__":
        eval_llvm_instcount_policy(my_policy)

    $ python my_policy.py --n=5 --leaderboard_results=my_policy.csv
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, Optional

from absl import app
from absl import flags as absl_flags

import compiler_gym
from compiler_gym.compiler_env_state import (
    CompilerEnvState,
    CompilerEnvStateReader,
    CompilerEnvStateWriter,
)
from compiler_gym.envs.llvm_env import LlvmEnv
from compiler_gym.util import cli
from compiler_gym.util.flags import nproc  # noqa: F401 (--nproc, which CompilerGym's entries read)
from compiler_gym.util.statistics import geometric_mean

Policy = Callable[[LlvmEnv], None]

ENV_ID = "llvm-ic-v0"
REWARD = "IrInstructionCountOz"


@dataclass
class LeaderboardResult:
    """The states of an evaluation and its score: the geomean of the episode rewards, and
    the mean wall time of the policy per benchmark."""

    states: list[CompilerEnvState]
    geomean_reward: float
    mean_walltime: float
    validated: Optional[bool]  # None when validation was not run


# CompilerGym's harness flags, defined with absl as CompilerGym defined them, so that a policy
# script's own absl flags (and --nproc, which CompilerGym's entries read) parse beside them.
absl_flags.DEFINE_string(
    "leaderboard_results", "llvm_instcount-results.csv", "The CSV file the states go to."
)
absl_flags.DEFINE_string(
    "leaderboard_logfile", "llvm_instcount-results.log", "A log of each run's reward and time."
)
absl_flags.DEFINE_integer(
    "max_benchmarks", 0, "Evaluate only the first N benchmarks in sorted order (0: all).", 0
)
# No lower bound: as in CompilerGym, the harness checks --n itself (AssertionError), so that
# setting it with FLAGS([...]) parses.
absl_flags.DEFINE_integer("n", 10, "Runs of the policy per benchmark (at least 1).")
absl_flags.DEFINE_string("test_dataset", "builtin-v0", "The dataset of the test suite.")
absl_flags.DEFINE_boolean("validate", True, "Replay the results at the end.")
absl_flags.DEFINE_boolean(
    "resume", False, "Keep the results already in --leaderboard_results and run the rest."
)
FLAGS = absl_flags.FLAGS


def _parse_flags(argv: Sequence[str]) -> None:
    """Parses ``argv`` (without the program name) into :data:`FLAGS` from their defaults; a
    bad flag is one ``error:`` line and exit status 2, as the tools report them."""
    app.define_help_flags()  # --help / --helpfull, as absl's app.run gives them
    FLAGS.unparse_flags()
    try:
        FLAGS([sys.argv[0] if sys.argv else "llvm_instcount", *argv])
    except absl_flags.Error as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def eval_llvm_instcount_policy(policy: Policy, argv: Optional[Sequence[str]] = None) -> NoReturn:
    """CompilerGym's entry point of a leaderboard script: :func:`evaluate_llvm_instcount_policy`,
    then the end of the program, as absl's ``app.run`` ends it in CompilerGym: ``SystemExit``
    with status 0, or 1 when a state failed validation. ``AssertionError`` when ``--n`` is
    less than 1, as CompilerGym's; a bad flag is exit status 2."""
    result = evaluate_llvm_instcount_policy(policy, argv)
    raise SystemExit(1 if result.validated is False else 0)


def evaluate_llvm_instcount_policy(
    policy: Policy, argv: Optional[Sequence[str]] = None
) -> LeaderboardResult:
    """Evaluates ``policy`` on the test suite, ``--n`` times per benchmark, writing each
    state to ``--leaderboard_results`` as it finishes (a progress bar on a terminal, with the
    geomean so far); then prints the score and validates the results, and returns them. Flags
    as CompilerGym's (``--n``, ``--leaderboard_results``, ``--leaderboard_logfile``,
    ``--max_benchmarks``, ``--test_dataset``, ``--[no]validate``, ``--[no]resume``, and
    ``--nproc``), absl flags as CompilerGym defined them, so the policy script's own absl flags
    parse beside them; read from ``argv`` (without the program name; default: the command
    line). The policy may set an observation space but not change the benchmark or the reward
    space."""
    _parse_flags(sys.argv[1:] if argv is None else argv)
    if FLAGS.n < 1:  # CompilerGym's check and exception
        raise AssertionError(f"n must be > 0, not {FLAGS.n}")
    results = Path(FLAGS.leaderboard_results)
    with compiler_gym.make(ENV_ID) as env:
        benchmarks = sorted(env.datasets[FLAGS.test_dataset].benchmark_uris())
    if FLAGS.max_benchmarks:
        benchmarks = benchmarks[: FLAGS.max_benchmarks]
    todo = sorted(benchmarks * FLAGS.n)
    states: list[CompilerEnvState] = []
    if FLAGS.resume and results.is_file():
        states = list(CompilerEnvStateReader.read_paths([str(results)]))
        for state in states:
            if state.benchmark in todo:
                todo.remove(state.benchmark)
    kept = len(states)
    print(f"Writing results to {results}; {len(todo)} runs of the policy to go")
    with (
        open(results, "a" if states else "w") as out,
        open(FLAGS.leaderboard_logfile, "a") as log,
        compiler_gym.make(ENV_ID) as env,
    ):
        writer = CompilerEnvStateWriter(out, header=not states)
        progress = cli.progress(todo, desc=FLAGS.test_dataset, unit="run")
        for benchmark in progress:
            env.reset(benchmark=benchmark)
            start = time.perf_counter()
            policy(env)
            walltime = time.perf_counter() - start
            # The policy must leave the setup as it was: otherwise the score means nothing.
            if not env.in_episode or str(env.benchmark.uri) != benchmark:
                raise RuntimeError(f"the policy changed the benchmark ({benchmark})")
            if env.reward_space is None or env.reward_space.name != REWARD:
                raise RuntimeError(f"the policy changed the reward space ({benchmark})")
            state = CompilerEnvState(
                benchmark=benchmark,
                commandline=env.state.commandline,
                walltime=walltime,
                reward=env.episode_reward,
            )
            writer.write_state(state, flush=True)
            print(f"{benchmark},{state.reward},{walltime:.3f}", file=log, flush=True)
            states.append(state)
            geomean = geometric_mean([s.reward for s in states])
            progress.set_postfix(geomean=f"{geomean:.4f}", refresh=False)  # with the count
    if kept and todo:
        # A resumed run appended its rows: the file goes back to the suite's order (stable, so
        # a benchmark's runs keep theirs), which the tests and the replays read.
        states.sort(key=lambda state: state.benchmark)
        sorted_results = results.with_name(results.name + ".sorting")
        with open(sorted_results, "w") as out:
            writer = CompilerEnvStateWriter(out)
            for state in states:
                writer.write_state(state)
        sorted_results.replace(results)
    result = LeaderboardResult(
        states=states,
        geomean_reward=geometric_mean([s.reward for s in states]),
        mean_walltime=sum(s.walltime for s in states) / max(len(states), 1),
        validated=None,
    )
    print(
        f"geomean {REWARD} reward {result.geomean_reward:.4f} over {len(states)} runs; "
        f"mean walltime {result.mean_walltime:.3f} s per benchmark"
    )
    if FLAGS.validate:
        from compiler_gym.bin.validate import main as validate

        result.validated = validate(["--env", ENV_ID, str(results)]) == 0
    return result
