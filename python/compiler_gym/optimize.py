"""Optimize a user's program with a policy shipped in the package: the pass pipeline it
chooses, the program's size against LLVM's ``-Oz``, whether it still runs correctly, and the
optimized bitcode.

    >>> from compiler_gym.optimize import optimize
    >>> result = optimize("prog.c", output="prog.bc")
    >>> print(result.pipeline, result.value, result.oz)

``python -m compiler_gym.bin.optimize prog.c -o prog.bc`` is the command of the same. A policy
is a library of pass sequences (:mod:`compiler_gym.search.sequence_library`, the Coreset idea)
learned on programs of csmith-v0, llvm-stress-v0, gcc-torture-v0 and pypi-c-v0, never on
builtin-v0, a held-out group of the corpus nor a user's program; the default, ``mixed-v0``,
holds sequences of both LLVM action spaces (single passes, and pipelines with options). Every
sequence is tried on the program with ``try_actions`` in its space, optionally the best is
refined by a local search for ``search_seconds``, and the best candidate whose program still
runs like the unoptimized build is taken.
``default<Oz>`` is always one of the candidates, so the result is never larger than ``-Oz``'s
by the metric.
"""

from __future__ import annotations

import math
import shlex
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional, Union

from compiler_gym.errors import ValidationUnavailableWarning

POLICY_DIR = Path(__file__).resolve().parent / "data" / "policies"
DEFAULT_POLICY = "mixed-v0"
DEFAULT_METRIC = "IrInstructionCount"
# Where the metric's -Oz and -O0 figures come from: the observation named by the metric's stem
# and the level (IrInstructionCount -> IrInstructionCountOz, ObjectTextSizeBytes ->
# ObjectTextSizeOz); the reward of the same name scores a candidate.
_UNIT_SUFFIXES = ("Bytes",)
# What always stays a candidate: a user expects no worse than LLVM's own size pipeline.
_OZ = ("default<Oz>",)
_OZ_SPACE = "PassesParameterized"


def policies() -> list[str]:
    """The names of the policies shipped in the package (the ``policy`` of :func:`optimize`)."""
    return sorted(p.stem for p in POLICY_DIR.glob("*.txt"))


def metrics(env: Any) -> list[str]:
    """The metrics :func:`optimize` accepts for ``env``'s observations: each observation
    ``X`` (or ``XBytes``) with ``XOz`` and ``XO0`` observations and an ``XOz`` reward."""
    names = set(env.observation.spaces)
    rewards = set(env.reward.spaces)
    return [m for m in env.observation.spaces if _baseline_names(m, names, rewards)]


def _baseline_names(metric: str, observations: set, rewards: set) -> Optional[tuple[str, str]]:
    stem = metric
    for suffix in _UNIT_SUFFIXES:
        stem = stem.removesuffix(suffix)
    oz, o0 = f"{stem}Oz", f"{stem}O0"
    if metric != oz and oz in observations and o0 in observations and oz in rewards:
        return oz, o0
    return None


def load_policy(policy: Union[str, Path]) -> Any:
    """The :class:`~compiler_gym.search.sequence_library.SequenceLibrary` of ``policy``: the
    name of a shipped policy (:func:`policies`) or the path of a library file."""
    from compiler_gym.search.sequence_library import SequenceLibrary

    path = POLICY_DIR / f"{policy}.txt"
    if not path.is_file():
        path = Path(policy).expanduser()
        if not path.is_file():
            raise LookupError(
                f"Unknown policy {str(policy)!r}: neither a shipped policy "
                f"({', '.join(policies())}) nor a library file"
            )
    return SequenceLibrary.load(path)


@dataclass
class OptimizationResult:
    """What :func:`optimize` did to a program.

    ``pipeline`` is the ``opt -passes=`` argument that gives the optimized module from the
    unoptimized one (``commandline``: the whole ``opt`` command; an empty pipeline: nothing
    beat the unoptimized program). ``value``, ``oz`` and ``o0`` are the metric's figures for
    the result, ``-Oz`` and ``-O0``; ``instructions``, ``instructions_oz`` and
    ``instructions_o0`` the IR instruction counts. ``reward`` is the metric's improvement over
    the unoptimized program relative to ``-Oz``'s, ``(o0 - value) / (o0 - oz)``: above 1 is
    better than ``-Oz``. ``runs`` is True when the optimized program was run and behaved like
    the unoptimized build, False when no candidate did, None when the program could not be
    checked (``validation`` says why: ``"on"``, ``"off"``, ``"unavailable: ..."``)."""

    program: str
    benchmark: str
    policy: str
    metric: str
    pipeline: str
    commandline: str
    value: float
    oz: float
    o0: float
    reward: float
    instructions: int
    instructions_oz: int
    instructions_o0: int
    runs: Optional[bool]
    validation: str
    candidates: int
    seconds: float
    output: Optional[str] = None

    @property
    def vs_oz(self) -> float:
        """``oz / value``: how many times smaller than ``-Oz``'s the result is (above 1:
        smaller)."""
        return self.oz / self.value if self.value else math.inf

    def to_dict(self) -> dict:
        """The result as a JSON-ready dict."""
        return asdict(self)


def optimize(
    program: Union[str, Path],
    output: Union[str, Path, None] = None,
    *,
    policy: Union[str, Path] = DEFAULT_POLICY,
    metric: str = DEFAULT_METRIC,
    search_seconds: float = 0.0,
    max_seconds: Optional[float] = None,
    validate: Optional[bool] = None,
    copt: Optional[list[str]] = None,
    seed: int = 0,
) -> OptimizationResult:
    """Optimizes ``program`` (a C or C++ source, compiled with clang-19 at ``-O0`` with
    ``copt``, or a ``.ll``/``.bc`` file) with ``policy`` for ``metric`` and, with ``output``,
    writes the optimized module there (text IR for a ``.ll`` name, bitcode otherwise).

    ``search_seconds`` refines the best pipeline by a local search until that many seconds
    from the start; ``max_seconds`` bounds the whole (None: the library is tried whole).
    ``validate`` (None: when the program can be run) runs each candidate taken against the
    unoptimized build and takes the best that behaves like it; a program that cannot be run
    (no ``main``, or failing on its own in the sandbox) is optimized unchecked, and the
    result says so. A program that does not compile is a
    :class:`~compiler_gym.errors.BenchmarkInitError`; an unknown policy or metric a
    ``LookupError``."""
    import compiler_gym
    from compiler_gym.search.random_search import SearchProgress
    from compiler_gym.search.sequence_library import SequenceLibrary, library_policy

    library = load_policy(policy)
    oz = [i for i, s in enumerate(library.sequences) if s == _OZ]
    if not any(library.space(i) == _OZ_SPACE for i in oz):
        spaces = tuple(library.space(i) for i in range(len(library.sequences)))
        mixed = library.spaces or library.action_space != _OZ_SPACE
        library = SequenceLibrary(
            (*library.sequences, _OZ),
            library.action_space,
            (*spaces, _OZ_SPACE) if mixed else (),
        )
    start = time.perf_counter()
    with compiler_gym.make("llvm-v0") as env:
        baselines = _baseline_names(metric, set(env.observation.spaces), set(env.reward.spaces))
        if baselines is None:
            raise LookupError(f"Unknown metric {metric!r}: one of {', '.join(metrics(env))}")
        env.reward_space = baselines[0]
        benchmark = env.make_benchmark(Path(program), copt=copt)
        env.reset(benchmark=benchmark, action_space=library.space(0))
        progress = SearchProgress()
        remaining = None if max_seconds is None else max_seconds - (time.perf_counter() - start)
        with warnings.catch_warnings():
            # The result says it (``validation``); the command prints it once.
            warnings.simplefilter("ignore", ValidationUnavailableWarning)
            library_policy(
                env,
                library,
                refine_seconds=search_seconds,
                seed=seed,
                validate=validate,
                runtime=remaining,
                progress=progress,
            )
        observed = env.observation
        value, oz, o0 = (float(observed[name]) for name in (metric, *baselines))
        result = OptimizationResult(
            program=str(program),
            benchmark=str(env.benchmark),
            policy=str(policy),
            metric=metric,
            pipeline=shlex.split(env.opt_commandline())[1].removeprefix("-passes="),
            commandline=env.commandline(),
            value=value,
            oz=oz,
            o0=o0,
            reward=(o0 - value) / (o0 - oz) if o0 != oz else 0.0,
            instructions=int(observed["IrInstructionCount"]),
            instructions_oz=int(observed["IrInstructionCountOz"]),
            instructions_o0=int(observed["IrInstructionCountO0"]),
            runs=_runs(progress, bool(env.actions)),
            validation=_validation(progress.validation, validate),
            candidates=progress.episodes,
            seconds=0.0,
        )
        if output is not None:
            result.output = str(_write(env, Path(output)))
    result.seconds = time.perf_counter() - start
    return result


def _runs(progress: Any, optimized: bool) -> Optional[bool]:
    """Whether the result was checked to behave like the unoptimized build (None: not
    checked). A validating policy takes only candidates that pass; when every candidate was
    refused it returns the unoptimized program, which did not need a check."""
    if progress.validation != "on":
        return None
    if optimized:
        return True
    return False if progress.refused else None


def _validation(status: str, requested: Optional[bool]) -> str:
    """The policy's validation status, where it was off because the program cannot be run
    (not because the caller turned it off) said as unavailable."""
    if status == "off" and requested is None:
        return "unavailable: the program cannot be run (it has no main function)"
    return status


def _write(env: Any, path: Path) -> Path:
    path = path.expanduser()
    if path.suffix == ".ll":
        path.write_text(env.ir)
        return path
    return env.write_bitcode(str(path))


def describe(result: OptimizationResult) -> str:
    """The lines the command prints for ``result``."""
    count = f"{result.instructions:,} IR instructions"
    count += f" (-Oz: {result.instructions_oz:,}, -O0: {result.instructions_o0:,})"
    if result.metric == "IrInstructionCount":
        against = f"{result.vs_oz:.3f}x smaller than -Oz"
    else:
        against = (
            f"{result.metric} {result.value:,.0f} (-Oz: {result.oz:,.0f}, -O0: "
            f"{result.o0:,.0f}): {result.vs_oz:.3f}x smaller than -Oz"
        )
    if result.runs:
        runs = "yes: it behaves like the unoptimized build"
    elif result.runs is False:
        runs = "every candidate was refused: the unoptimized program is kept"
    elif result.validation.startswith("unavailable"):
        runs = f"not checked: {result.validation.removeprefix('unavailable: ')}"
    else:
        runs = "not checked: validation off"
    pipeline = shlex.quote(f"-passes={result.pipeline}") if result.pipeline else "(no passes)"
    lines = [
        f"program:  {result.program} ({result.benchmark})",
        f"policy:   {result.policy}, {result.candidates} candidates in {result.seconds:.2f} s",
        f"pipeline: opt {pipeline}",
        f"size:     {count}",
        f"          reward {result.reward:.4f} ({against})",
        f"runs:     {runs}",
    ]
    if result.output:
        lines.append(f"wrote:    {result.output}")
    return "\n".join(lines)


__all__ = ["OptimizationResult", "describe", "load_policy", "metrics", "optimize", "policies"]
