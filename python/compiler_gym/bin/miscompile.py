"""Hunts miscompiles in the LLVM action table: random action sequences applied to programs that
have no undefined behaviour, each optimized program run against its unoptimized build.

    python -m compiler_gym.bin.miscompile --cases 2000 --jobs 2 --seed 1 --out report.json

Programs: csmith-v0 seeds (UB-free by construction; each prints a checksum) and the runnable
builtin-v0 programs that run clean under ASan and UBSan at -O0 (checked first; the others are
reported and left out). A case is one random sequence on one program, then one run of the
optimized program against the unoptimized one (sandboxed, timed out: the env's
``check_semantics``). Every mismatch is minimized to a 1-minimal sequence
(:func:`minimize_trajectory_iteratively`), then replayed with ``opt-19`` on the same bitcode:
when opt-19's program goes wrong too, the bug is LLVM's; when it does not, ours. The report
counts, per pass, the sequences that ran it and the minimized mismatches that contain it.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from compiler_gym.envs.llvm_env import pass_table
from compiler_gym.search.checking import program_problems
from compiler_gym.util.cli import argument_parser, check_dataset, parse_args, user_errors
from compiler_gym.util.minimize_trajectory import minimize_trajectory_iteratively

DEFAULT_PROGRAMS = ["generator://csmith-v0", "benchmark://builtin-v0"]
PLURAL = {"mismatch": "mismatches", "timeout": "timeouts"}


@dataclass
class Case:
    """One random sequence on one program, and what its run showed."""

    index: int
    benchmark: str
    actions: list[int]
    outcome: str = "ok"  # ok | mismatch | timeout | crash (the compiler) | error (the harness)
    problems: list[str] = field(default_factory=list)
    minimized: Optional[list[int]] = None
    verdict: Optional[str] = None  # llvm | ours | unknown: who miscompiles (opt-19 replay)
    runs: int = 1  # program runs this case took, its minimization's included


def classify(problems: list[str]) -> str:
    """A mismatch, or a run that timed out (a loop the optimization made endless, or slow)."""
    return "timeout" if any("timed out" in p for p in problems) else "mismatch"


def clean_program(env: Any, uri: str) -> list[str]:
    """Why the program at ``uri`` cannot take part ([] when it can): it is not runnable, or
    its unoptimized build shows a problem under ASan and UBSan."""
    try:
        env.reset(benchmark=uri)
        if not env.benchmark.runnable:
            return ["not runnable"]
        return program_problems(env, ("address", "undefined"))
    except Exception as e:  # noqa: BLE001 - a program that fails to load is left out
        return [f"{type(e).__name__}: {e}"]


def program_uris(env: Any, datasets: list[str], csmith_programs: int, seed: int) -> list[str]:
    """The candidate programs: each dataset's runnable benchmarks, ``csmith_programs`` seeds of
    a generator (from ``seed * 10**6``, so campaigns of different seeds differ)."""
    uris = []
    for name in datasets:
        dataset = check_dataset(env, name)
        if name.startswith("generator://"):
            uris += [f"{name}/{seed * 10**6 + i}" for i in range(csmith_programs)]
        else:
            uris += [str(uri) for uri in dataset.benchmark_uris()]
    return uris


def plan(seed: int, count: int, programs: list[str], length: int, actions: int) -> list[Case]:
    """``count`` cases: programs in turn, each with a random sequence; the same for a seed."""
    cases = []
    for index in range(count):
        rng = random.Random(f"{seed}:{index}")
        sequence = [rng.randrange(actions) for _ in range(length)]
        cases.append(Case(index, programs[index % len(programs)], sequence))
    return cases


def run_case(env: Any, case: Case) -> Case:
    """Applies the case's sequence and runs the program against its unoptimized build."""
    try:
        env.reset(benchmark=case.benchmark)
        _, _, done, info = env.multistep(case.actions)
        if done:
            # The sequence up to the action that failed is what reproduces the error.
            case.outcome, case.problems = "crash", [str(info.get("error_details"))]
            case.actions, case.runs = list(env.actions), 0
            return case
        case.problems = program_problems(env)
        if case.problems:
            case.outcome = classify(case.problems)
    except Exception as e:  # noqa: BLE001 - the harness reports, and the campaign goes on
        case.outcome, case.problems = "error", [f"{type(e).__name__}: {e}"]
    return case


def minimize(env: Any, case: Case) -> list[int]:
    """The case's sequence with every action dropped that its finding (a mismatch, a
    timeout, an error of the compiler) does not need."""
    runs = 0

    def fails(e: Any) -> bool:
        nonlocal runs
        if case.outcome == "crash":  # the compiler's error ends the episode again
            return bool(e.unwrapped._env.episode_over)
        runs += 1
        problems = program_problems(e)
        return bool(problems) and classify(problems) == case.outcome

    env.reset(benchmark=case.benchmark)
    env.multistep(case.actions)
    for _ in minimize_trajectory_iteratively(env, fails):  # a generator: run it out
        pass
    case.runs += runs
    return list(env.actions)


def _run(argv: list[str], timeout: float) -> Any:
    return subprocess.run(argv, capture_output=True, timeout=timeout, check=False)


def opt_verdict(env: Any, case: Case, opt: str, clang: str, timeout: float) -> str:
    """Replays the minimized sequence with opt-19 on the program's bitcode and runs the
    result: ``"llvm"`` when it too behaves unlike the unoptimized build (for an error of the
    compiler: when opt-19 fails too, its verifier included), ``"ours"`` when it does not,
    ``"unknown"`` when opt-19 or the build fails otherwise."""
    env.reset(benchmark=case.benchmark)
    benchmark = env.benchmark
    table = pass_table(env.action_space.name)
    pipeline = ",".join(table[a][1] for a in case.minimized or [])
    with tempfile.TemporaryDirectory(prefix="compiler_gym-miscompile-") as scratch:
        source, optimized = Path(scratch, "in.bc"), Path(scratch, "out.bc")
        source.write_bytes(env.observation["Bitcode"])
        try:
            failed = _run(
                [opt, f"-passes={pipeline}", str(source), "-o", str(optimized)], 300
            ).returncode
            if case.outcome == "crash":
                return "llvm" if failed else "ours"
            if failed:
                return "unknown"
            outputs = []
            for name, bitcode in (("reference", source), ("optimized", optimized)):
                exe = Path(scratch, name)
                build = _run(
                    [clang, "-O0", "-w", str(bitcode), "-o", str(exe), *benchmark.link_args], 300
                )
                if build.returncode:
                    return "unknown"
                run = _run([str(exe), *benchmark.run_args], timeout)
                outputs.append((run.returncode, run.stdout))
        except subprocess.TimeoutExpired:
            return "llvm" if case.outcome == "timeout" else "unknown"
    return "llvm" if outputs[0] != outputs[1] else "ours"


def write_reproducer(env: Any, case: Case, directory: Path) -> Path:
    """The program as text IR and the opt-19 command that miscompiles it, for a bug report."""
    directory.mkdir(parents=True, exist_ok=True)
    env.reset(benchmark=case.benchmark)
    stem = f"case{case.index}"
    ir = directory / f"{stem}.ll"
    ir.write_text(env.observation["Ir"])
    table = pass_table(env.action_space.name)
    pipeline = ",".join(table[a][1] for a in case.minimized or case.actions)
    (directory / f"{stem}.txt").write_text(
        f"benchmark: {case.benchmark}\nactions: {' '.join(table[a][0] for a in case.minimized)}\n"
        f"verdict: {case.verdict}\nproblems: {case.problems}\n"
        f"reproduce: opt-19 -passes='{pipeline}' {ir.name} -o out.bc\n"
        "           clang-19 out.bc && ./a.out (against clang-19 -O0 of the .ll)\n"
    )
    return ir


@dataclass
class Report:
    """A campaign's totals, per pass and per finding."""

    programs: int = 0
    left_out: dict = field(default_factory=dict)
    cases: int = 0
    runs: int = 0
    outcomes: dict = field(default_factory=dict)
    per_pass: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    seconds: float = 0.0


def summarize(cases: list[Case], flags: list[str]) -> dict:
    """Per pass: sequences that ran it, the minimized mismatches and timeouts that contain
    it, and the errors of the compiler in its step (the last action a crash applied)."""
    per_pass: dict[str, Counter] = {flag: Counter() for flag in flags}
    for case in cases:
        for action in set(case.actions):
            per_pass[flags[action]]["sequences"] += 1
        if case.outcome in ("mismatch", "timeout") and case.minimized:
            for action in set(case.minimized):
                per_pass[flags[action]][PLURAL[case.outcome]] += 1
        elif case.outcome == "crash":
            per_pass[flags[case.actions[-1]]]["crashes"] += 1
    return {flag: dict(counts) for flag, counts in per_pass.items() if counts}


def campaign(
    make_env: Callable[[], Any],
    args: argparse.Namespace,
    say: Callable[[str], None] = print,
) -> Report:
    """Runs the campaign ``args`` describe on envs from ``make_env``: cases side by side on
    ``args.jobs`` threads (the engine releases the GIL), then the findings minimized."""
    start = time.time()
    report = Report()
    local = threading.local()
    envs: list[Any] = []

    def env() -> Any:
        if not hasattr(local, "env"):
            local.env = make_env()
            local.env.send_param("runtime_timeout_seconds", str(args.timeout))
            envs.append(local.env)
        return local.env

    try:
        probe = env()
        uris = program_uris(probe, args.programs, args.csmith_programs, args.seed)
        say(f"checking {len(uris)} programs under ASan and UBSan")
        with ThreadPoolExecutor(args.jobs) as pool:
            verdicts = list(pool.map(lambda uri: clean_program(env(), uri), uris))
        programs = [uri for uri, why in zip(uris, verdicts, strict=True) if not why]
        report.left_out = {uri: why for uri, why in zip(uris, verdicts, strict=True) if why}
        report.programs = len(programs)
        say(f"{len(programs)} programs ({len(report.left_out)} left out), {args.cases} cases")
        if not programs:
            raise ValueError("no program to run: every candidate was left out")
        flags = probe.action_space.flags
        cases = plan(args.seed, args.cases, programs, args.length, len(flags))
        deadline = start + args.max_seconds if args.max_seconds else None

        def run(case: Case) -> Optional[Case]:
            # Past the time budget a case is not started; the report counts those that ran.
            if deadline is not None and time.time() > deadline:
                return None
            return run_case(env(), case)

        ran = []
        with ThreadPoolExecutor(args.jobs) as pool:
            for case in pool.map(run, cases):
                if case is None:
                    continue
                ran.append(case)
                if case.outcome != "ok":
                    say(
                        f"case {case.index} {case.benchmark}: {case.outcome}: "
                        f"{case.problems[0][:120]}"
                    )
                if len(ran) % 100 == 0:
                    say(f"{len(ran)}/{len(cases)} cases, {time.time() - start:.0f} s")
        cases = ran
        findings = [c for c in cases if c.outcome in ("mismatch", "timeout", "crash")]
        for case in findings[: args.minimize]:
            case.minimized = minimize(probe, case)
            case.verdict = opt_verdict(probe, case, args.opt, args.clang, args.timeout)
            names = " ".join(flags[a] for a in case.minimized)
            say(f"case {case.index}: {case.outcome} with {names} ({case.verdict}'s)")
            if args.reproducers:
                write_reproducer(probe, case, Path(args.reproducers))
        report.cases = len(cases)
        report.runs = sum(c.runs for c in cases)
        report.outcomes = dict(Counter(c.outcome for c in cases))
        report.per_pass = summarize(cases, flags)
        report.findings = [asdict(c) for c in cases if c.outcome != "ok"]
    finally:
        for e in envs:
            e.close()
    report.seconds = round(time.time() - start, 1)
    return report


def make_parser() -> argparse.ArgumentParser:
    """The command line's options (also what :func:`campaign` reads)."""
    parser = argument_parser("compiler_gym.bin.miscompile", __doc__)
    parser.add_argument(
        "--cases", type=int, default=1000, help="random sequences, one program run each"
    )
    parser.add_argument("--length", type=int, default=20, help="actions per sequence")
    parser.add_argument("--seed", type=int, default=0, help="the campaign's sequences and programs")
    parser.add_argument("--jobs", type=int, default=2, help="cases run side by side")
    parser.add_argument(
        "--programs", nargs="+", default=DEFAULT_PROGRAMS, help="datasets the programs come from"
    )
    parser.add_argument(
        "--csmith-programs", type=int, default=50, help="seeds taken from each generator"
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds a program run may take"
    )
    parser.add_argument(
        "--minimize", type=int, default=20, help="findings minimized and replayed with opt-19"
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=0,
        help="start no case after this many seconds (0: run them all); the report counts "
        "the cases that ran",
    )
    parser.add_argument(
        "--action-space",
        default="PassesAll",
        help="the actions the sequences draw from (PassesAllUnsound: with the passes of "
        "confirmed miscompiles)",
    )
    parser.add_argument("--out", help="write the report here as JSON")
    parser.add_argument("--reproducers", help="write each minimized finding's .ll file here")
    parser.add_argument("--opt", default="opt-19", help="the opt that replays findings")
    parser.add_argument("--clang", default="clang-19", help="the clang that builds them")
    return parser


@user_errors
def main(argv: Optional[list[str]] = None) -> int:
    """The command line: runs a campaign, prints its totals and writes the report."""
    args = parse_args(make_parser(), argv)
    import compiler_gym

    report = campaign(lambda: compiler_gym.make("llvm-v0", action_space=args.action_space), args)
    print(
        f"{report.cases} cases on {report.programs} programs, {report.runs} program runs in "
        f"{report.seconds} s: {report.outcomes}"
    )
    for finding in report.findings:
        if finding["minimized"] is not None:
            print(f"  {finding['benchmark']}: {finding['outcome']}, {finding['verdict']}'s bug")
    if args.out:
        Path(args.out).write_text(json.dumps(asdict(report), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
