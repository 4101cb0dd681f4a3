"""Fuzzes the LLVM environments through the public API: crashes, nondeterminism, stale state.

    python -m compiler_gym.bin.fuzz [--steps 1000000] [--jobs 2] [--seed 0] [--length 16]
        [--programs llvm-stress-v0 csmith-v0 builtin-v0] [--env llvm-v0] [--out report.json]
        [--isolation none|process]

Each case is a program and a random action sequence. A worker process checks every case:

- **stepwise**: the actions one ``step`` at a time; after each, the cached ``IrSha1`` must be the
  SHA-1 of the module as it is now (``BitcodeFile`` is never cached), and
  ``action_had_no_effect`` must be true exactly when the module did not change;
- **episodes**: a second episode of the same env replays the actions with ``multistep`` and must
  reach the same hash (or the same error);
- **forks**: a third episode forks at a random point; the fork and the original each finish the
  sequence and must both reach that hash;
- **fresh env**: a new env replays the sequence and must reach it too;
- **repeats**: the action at a random point, applied ``--repeats`` times to forks of the same
  state in one process, must give one outcome (a pass whose result follows the heap layout
  shows here: LLVM 19's NewGVN did);
- **threads**: every batch of cases runs again on the vector engine (``make_vec``) with one
  thread and with ``--jobs`` threads; every row must reach its case's hash;
- **processes**: one case in ``--process-every`` runs again in another worker process.

Workers run in their own processes: a worker that dies (a crash the engine did not contain), or
that reports nothing for ``--case-timeout`` seconds (a hang: killed), is counted with the case
it was on, and replaced. ``--isolation process`` runs every env of the
campaign in worker processes of its own (the process-isolated executor). The report counts
steps, episodes, errors by type, and every disagreement, with what reproduces it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from compiler_gym.util import cli
from compiler_gym.util.cli import argument_parser, parse_args, user_errors

DEFAULT_PROGRAMS = ["llvm-stress-v0", "csmith-v0", "builtin-v0"]


def plan_cases(seed: int, count: int, programs: list[str], length: int, first: int = 0) -> list:
    """The cases ``first`` .. ``first + count - 1`` of a campaign: ``(uri, actions)`` pairs.

    Case i depends only on (seed, i), so any process can rebuild any case."""
    import compiler_gym

    with compiler_gym.make("llvm-v0") as env:
        n = env.action_space.n
        builtin = [str(u) for u in env.datasets.dataset("builtin-v0").benchmark_uris()]
    cases = []
    for i in range(first, first + count):
        rng = np.random.default_rng([seed, i])
        program = programs[i % len(programs)]
        if program == "builtin-v0":
            uri = builtin[int(rng.integers(len(builtin)))]
        else:
            uri = f"generator://{program}/{int(rng.integers(1 << 31))}"
        cases.append((uri, [int(a) for a in rng.integers(n, size=length)]))
    return cases


@dataclass
class CaseResult:
    """What one case gave: its final hash (or error) and every problem found."""

    index: int
    uri: str
    actions: list[int]
    final: str = ""  # IrSha1 after the last action, or "error:<type>@<step>"
    steps: int = 0
    episodes: int = 0
    errors: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The result as a JSON-serializable dict (``errors`` a plain dict), as workers emit it."""
        return {**self.__dict__, "errors": dict(self.errors)}


def _fresh_sha1(env) -> str:
    """SHA-1 of the module as it is now, bypassing every cache."""
    with open(env.observation["BitcodeFile"], "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def _outcome(env, done: bool, info: dict, step: int) -> str:
    if done:
        return f"error:{info['error_type']}@{step}"
    return env.observation["IrSha1"]


def _replay(env, actions: list[int], split: Optional[int] = None) -> tuple[str, str]:
    """Runs ``actions`` with multistep from the reset state; with ``split``, forks after the
    first ``split`` actions and finishes both. Returns (outcome, fork's outcome)."""
    head = actions if split is None else actions[:split]
    _, _, done, info = env.multistep(head) if head else (None, None, False, {})
    if done or split is None:
        outcome = _outcome(env, done, info, len(env.actions))
        return outcome, outcome
    fork = env.fork()
    try:
        tail = actions[split:]
        _, _, fdone, finfo = fork.multistep(tail) if tail else (None, None, False, {})
        forked = _outcome(fork, fdone, finfo, len(fork.actions))
    finally:
        fork.close()
    _, _, done, info = (
        env.multistep(actions[split:]) if actions[split:] else (None, None, False, {})
    )
    return _outcome(env, done, info, len(env.actions)), forked


def _same(a: str, b: str) -> bool:
    """Outcomes agree: the same hash, or the same kind of error (multistep reports the error
    at the end of its batch, so the step index after "@" is not compared)."""
    if a.startswith("error:") and b.startswith("error:"):
        return a.split("@", 1)[0] == b.split("@", 1)[0]
    return a == b


def check_repeats(env, action: int, repeats: int) -> Optional[str]:
    """Applies ``action`` to ``repeats`` forks of ``env``'s state, one after another in this
    process; returns a problem when they disagree, else None."""
    outcomes = []
    for _ in range(repeats):
        fork = env.fork()
        try:
            _, _, done, info = fork.step(action)
            outcomes.append(_outcome(fork, done, info, 1))
        finally:
            fork.close()
    if any(not _same(o, outcomes[0]) for o in outcomes):
        distinct = sorted(set(outcomes))
        return (
            f"repeats: action {action} from one state gave {len(distinct)} outcomes in "
            f"{repeats} runs: {', '.join(distinct)}"
        )
    return None


def check_case(env, index: int, uri: str, actions: list[int], rng, repeats: int = 0) -> CaseResult:
    """Runs every single-env check of one case on ``env`` (a reusable llvm env); ``repeats``:
    forks that apply the action at a random point (none with 0)."""
    import compiler_gym
    from compiler_gym.errors import BenchmarkInitError

    result = CaseResult(index, uri, actions)
    try:
        env.reset(benchmark=uri)
    except (BenchmarkInitError, ValueError, LookupError) as e:
        result.final = f"init:{type(e).__name__}"
        result.errors[f"init:{type(e).__name__}"] += 1
        return result

    # Stepwise, checking every cached hash against the module itself.
    previous = _fresh_sha1(env)
    final = ""
    for step, action in enumerate(actions, 1):
        _, _, done, info = env.step(action)
        result.steps += 1
        if done:
            result.errors[info["error_type"]] += 1
            final = f"error:{info['error_type']}@{step}"
            break
        cached, fresh = env.observation["IrSha1"], _fresh_sha1(env)
        if cached != fresh:
            result.problems.append(
                f"stale IrSha1 after action {step} ({env.action_space.names[action]})"
            )
        changed = fresh != previous
        if info["action_had_no_effect"] and changed:
            result.problems.append(
                f"action {step} ({env.action_space.names[action]}) changed the module but "
                "reported no effect"
            )
        previous = fresh
    result.final = final or env.observation["IrSha1"]
    result.episodes += 1

    env.reset(benchmark=uri)
    replayed, _ = _replay(env, actions)
    result.episodes += 1
    if not _same(replayed, result.final):
        result.problems.append(
            f"episode: multistep replay gave {replayed}, stepwise {result.final}"
        )

    split = int(rng.integers(len(actions) + 1))
    env.reset(benchmark=uri)
    original, forked = _replay(env, actions, split)
    result.episodes += 2
    for what, got in (("forked original", original), (f"fork at {split}", forked)):
        if not _same(got, result.final):
            result.problems.append(f"{what} gave {got}, stepwise {result.final}")

    with compiler_gym.make(env.env_id, benchmark=uri) as fresh_env:
        fresh_env.reset()
        fresh, _ = _replay(fresh_env, actions)
    result.episodes += 1
    if not _same(fresh, result.final):
        result.problems.append(f"fresh env gave {fresh}, stepwise {result.final}")
    result.steps += 3 * len(actions)

    if repeats >= 2 and actions:
        point = int(rng.integers(len(actions)))
        env.reset(benchmark=uri)
        _, _, done, _ = env.multistep(actions[:point]) if point else (None, None, False, {})
        result.steps += point
        if not done:
            problem = check_repeats(env, actions[point], repeats)
            result.steps += repeats
            if problem:
                result.problems.append(f"{problem} (after {point} actions)")
    return result


def check_threads(env_id: str, results: list[CaseResult], threads: int) -> list[str]:
    """Replays cases of one length on the vector engine with 1 and ``threads`` threads."""
    import compiler_gym

    cases = [r for r in results if not r.final.startswith(("error:", "init:"))]
    if not cases:
        return []
    problems = []
    length = len(cases[0].actions)
    cases = [r for r in cases if len(r.actions) == length]
    for num_threads in sorted({1, threads}):
        vec = compiler_gym.make_vec(
            env_id,
            num_envs=len(cases),
            num_threads=num_threads,
            benchmarks=[r.uri for r in cases],
            observation_space="IrSha1",
            reward_space=None,
            actions_per_step=length,
        )
        try:
            vec.reset()
            obs, _, terminated, _, info = vec.step(np.array([r.actions for r in cases]))
            for row, r in enumerate(cases):
                if terminated[row]:
                    got = f"error:{info['error_type'][row]}"
                else:
                    got = obs[row] if isinstance(obs[row], str) else bytes(obs[row]).decode()
                if not _same(got, r.final):
                    problems.append(
                        f"case {r.index}: make_vec with {num_threads} thread(s) gave {got}, "
                        f"stepwise {r.final}"
                    )
        finally:
            vec.close()
    return problems


# ---------------------------------------------------------------------------------------------
# Worker: runs a range of cases, one JSON line per event on stdout.


def worker(args) -> int:
    """Worker mode: checks the cases ``args.first`` .. ``args.first + args.count - 1`` on one env,
    printing one JSON line per event (``start`` and ``case`` per case, ``threads`` per batch of
    ``make_vec`` checks); returns 0."""
    import compiler_gym

    cases = plan_cases(args.seed, args.count, args.programs, args.length, args.first)
    rng = np.random.default_rng([args.seed, args.first, 7])
    env = compiler_gym.make(args.env)
    batch: list[CaseResult] = []

    def emit(event: dict) -> None:
        print(json.dumps(event), flush=True)

    for offset, (uri, actions) in enumerate(cases):
        index = args.first + offset
        emit({"event": "start", "case": index})
        result = check_case(env, index, uri, actions, rng, args.repeats)
        emit({"event": "case", **result.to_json()})
        batch.append(result)
        if args.threads and len(batch) == args.batch:
            emit({"event": "threads", "problems": check_threads(args.env, batch, args.threads)})
            batch = []
    if args.threads and batch:
        emit({"event": "threads", "problems": check_threads(args.env, batch, args.threads)})
    env.close()
    return 0


# ---------------------------------------------------------------------------------------------
# Campaign: workers in processes, crashes counted and survived.


@dataclass
class Report:
    """A campaign's totals: cases, steps, episodes, errors by type, and every problem and
    process crash with what reproduces it."""

    cases: int = 0
    steps: int = 0
    episodes: int = 0
    process_crashes: list = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    problems: list = field(default_factory=list)
    finals: dict = field(default_factory=dict)
    process_checks: int = 0

    def add(self, event: dict) -> None:
        """Counts a worker's ``case`` event: its steps, episodes, errors and final outcome, and each
        of its problems with the program and actions that reproduce it."""
        self.cases += 1
        self.steps += event["steps"]
        self.episodes += event["episodes"]
        self.errors.update(event["errors"])
        self.finals[event["index"]] = event["final"]
        for problem in event["problems"]:
            self.problems.append(
                {
                    "case": event["index"],
                    "uri": event["uri"],
                    "actions": event["actions"],
                    "problem": problem,
                }
            )


def _worker_command(args, first: int, count: int, threads: int) -> list[str]:
    return [
        sys.executable, "-m", "compiler_gym.bin.fuzz", "--worker",
        "--seed", str(args.seed), "--first", str(first), "--count", str(count),
        "--length", str(args.length), "--env", args.env, "--batch", str(args.batch),
        "--threads", str(threads), "--repeats", str(args.repeats), "--programs", *args.programs,
    ]  # fmt: skip


def _watch(proc: subprocess.Popen, timeout: float, last_event: list, hung: threading.Event):
    """Kills ``proc`` when it has reported nothing for ``timeout`` seconds: a worker that hangs
    (a pass looping, a lock a recovered crash left held) is a finding, and the campaign goes on."""
    while proc.poll() is None:
        if time.monotonic() - last_event[0] > timeout:
            hung.set()
            proc.kill()
            return
        time.sleep(0.5)


def run_range(args, first: int, count: int, threads: int, on_event) -> list[dict]:
    """Runs cases [first, first + count) in worker processes, restarting after a crash or a
    hang (nothing reported for ``args.case_timeout`` seconds)."""
    crashes = []
    while count > 0:
        proc = subprocess.Popen(
            _worker_command(args, first, count, threads),
            stdout=subprocess.PIPE,
            text=True,
        )
        last_event, hung = [time.monotonic()], threading.Event()
        watchdog = threading.Thread(
            target=_watch, args=(proc, args.case_timeout, last_event, hung), daemon=True
        )
        watchdog.start()
        current = None
        done_cases = 0
        for line in proc.stdout:
            last_event[0] = time.monotonic()
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            if event["event"] == "start":
                current = event["case"]
            elif event["event"] == "case":
                done_cases += 1
                current = None
            on_event(event)
        code = proc.wait()
        watchdog.join()
        if code == 0:
            break
        crash_case = current if current is not None else first + done_cases
        crashes.append({"case": crash_case, "exit_code": code, "hung": hung.is_set()})
        # Go on after the case that killed the worker.
        skip = crash_case - first + 1
        first, count = first + skip, count - skip
    return crashes


def campaign(args) -> Report:
    """Runs a whole campaign: ``args.steps`` worth of cases split over ``args.jobs`` worker
    processes, then every ``args.process_every``-th case again in a new process; returns the
    report."""

    report = Report()
    # A case's steps: stepwise, replay, fork and fresh env (4 x length), then the repeats
    # check's prefix (length / 2 on average) and its forks.
    cases_total = max(1, args.steps // (4 * args.length + args.length // 2 + args.repeats))
    chunk = max(1, -(-cases_total // args.jobs))
    progress = cli.progress(total=cases_total, unit="case", quiet=args.quiet)

    def on_event(event):
        if event["event"] == "case":
            report.add(event)
            progress.update(1)
        elif event["event"] == "threads":
            report.problems += [{"problem": p} for p in event["problems"]]

    start = time.perf_counter()
    ranges = [(j * chunk, min(chunk, cases_total - j * chunk)) for j in range(args.jobs)]
    ranges = [r for r in ranges if r[1] > 0]
    with ThreadPoolExecutor(max_workers=len(ranges)) as pool:
        futures = [
            pool.submit(run_range, args, first, count, args.jobs, on_event)
            for first, count in ranges
        ]
        for future in futures:
            report.process_crashes += future.result()
    progress.close()

    # Two processes agree: replay every process_every-th case in a new worker, single envs only.
    if args.process_every:
        replayed: dict[int, str] = {}

        def on_replay(event):
            if event["event"] == "case":
                replayed[event["index"]] = event["final"]

        for first in range(0, cases_total, args.process_every):
            report.process_crashes += run_range(args, first, 1, 0, on_replay)
        for index, final in sorted(replayed.items()):
            report.process_checks += 1
            if index in report.finals and not _same(final, report.finals[index]):
                report.problems.append(
                    {
                        "case": index,
                        "problem": f"second process gave {final}, first {report.finals[index]}",
                    }
                )
    report.seconds = time.perf_counter() - start
    return report


@user_errors
def main(argv=None) -> int:
    """Runs the fuzzer on ``argv`` (default: the command line), or one worker with ``--worker``;
    prints a summary and returns 1 when it found problems or process crashes, else 0."""
    parser = argument_parser("compiler_gym.bin.fuzz", __doc__)
    parser.add_argument(
        "--steps", type=int, default=20_000, help="env steps of the campaign in all (default 20000)"
    )
    parser.add_argument("--length", type=int, default=16, help="actions per case (default 16)")
    parser.add_argument(
        "--programs",
        nargs="+",
        default=DEFAULT_PROGRAMS,
        help=f"the datasets the programs come from (default {' '.join(DEFAULT_PROGRAMS)})",
    )
    parser.add_argument("--env", default="llvm-v0", help="environment id (default llvm-v0)")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the programs and actions (default 0)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes, and the threads of the vector engine check (default: the cores)",
    )
    parser.add_argument(
        "--batch", type=int, default=16, help="cases per make_vec check (default 16)"
    )
    parser.add_argument(
        "--process-every",
        type=int,
        default=25,
        help="run one case in this many again in another worker process (default 25)",
    )
    parser.add_argument(
        "--repeats", type=int, default=4, help="forks that repeat one action per case [4]"
    )
    parser.add_argument(
        "--case-timeout",
        type=float,
        default=600,
        help="seconds a worker may report nothing before it is killed as hung",
    )
    parser.add_argument("--out", help="write the report as JSON here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--isolation", choices=["none", "process"], help="where the envs run (default: in process)"
    )
    # Worker mode (internal).
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=0, help=argparse.SUPPRESS)
    args = parse_args(parser, argv)
    for name in ("steps", "length", "jobs", "batch", "process_every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.repeats < 0 or args.case_timeout <= 0:
        parser.error("--repeats must be >= 0 and --case-timeout > 0")
    if args.out and not Path(args.out).resolve().parent.is_dir():
        parser.error(f"--out: no directory {Path(args.out).resolve().parent}")
    if not args.worker:
        import compiler_gym

        with compiler_gym.make(args.env) as env:  # an unknown id or dataset before any worker
            for name in args.programs:
                cli.check_dataset(env, name)
    if args.isolation:
        # Every env of the campaign, in its worker processes too, which inherit the setting.
        os.environ["COMPILER_GYM_ISOLATION"] = args.isolation
    if args.worker:
        return worker(args)

    report = campaign(args)
    summary: dict[str, Any] = {
        "cases": report.cases,
        "steps": report.steps,
        "episodes": report.episodes,
        "seconds": round(report.seconds, 1),
        "process_crashes": report.process_crashes,
        "errors": dict(report.errors),
        "process_checks": report.process_checks,
        "problems": report.problems,
    }
    text = json.dumps(summary, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(
        f"{report.cases} cases, {report.steps} steps, {report.episodes} episodes in "
        f"{report.seconds:.0f} s; process crashes: {len(report.process_crashes)} "
        f"({sum(c['hung'] for c in report.process_crashes)} hung); "
        f"errors: {dict(report.errors)}; problems: {len(report.problems)}"
    )
    for problem in report.problems[:20]:
        print("  ", json.dumps(problem))
    for crash in report.process_crashes[:20]:
        print("  ", json.dumps(crash))
    return 1 if report.problems or report.process_crashes else 0


if __name__ == "__main__":
    sys.exit(main())
