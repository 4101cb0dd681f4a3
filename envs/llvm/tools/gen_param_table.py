#!/usr/bin/env python3
"""Generate envs/llvm/pass_params.def, the action table of the LLVM `PassesParameterized`
space: the passes of `PassesAll` with the options each accepts in LLVM 19's pass registry.

Rows, in order:

1. every `PassesAll` action as its pipeline element (``gvn``, ``early-cse<memssa>``,
   ``instcombine<no-verify-fixpoint>``), named by that element (a pass at two levels, by
   its module-level pipeline the second time: ``function(loop(guard-widening))``);
2. for each of those passes that takes options (``opt-19 --print-passes``, sections "... with
   params"), one row per option it accepts, set on top of the row's own options (an option
   replaces the one of its group: ``no-pre`` replaces ``pre``, ``O3`` replaces ``O2``); an
   option ``name=N`` takes the values in NUMERIC; options in SKIPPED are left out;
3. LLVM's default pipelines ``default<O1>`` ... ``default<Oz>`` (module level).

Every row runs through ``opt-19 -passes=<pipeline>`` on the embedded test programs of
gen_pass_table.py (raw clang output and after mem2reg) three times, which must succeed and
give the same output; a failure aborts without writing the table.

Usage:
    python3 envs/llvm/tools/gen_param_table.py              # validate + write pass_params.def
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from gen_pass_table import (
    GENERATOR_COMMAND as PASSES_ALL_COMMAND,
)
from gen_pass_table import (
    OPT,
    Row,
    build_inputs,
    build_rows,
    check_single,
    opt_version,
    parse_print_passes,
    render_def,
    sound_rows,
    split_element,
    validate,
    wrap,
)

SCRIPT_DIR = Path(__file__).resolve().parent
DEFAULT_OUTPUT = SCRIPT_DIR.parent / "pass_params.def"
GENERATOR_COMMAND = "python3 envs/llvm/tools/gen_param_table.py"

# Values of the numeric options; options not listed here are left out.
NUMERIC = {
    "bonus-inst-threshold": (0, 2, 4),
    "max-iterations": (2, 4),
    "full-unroll-max": (8, 64),
}
# Options left out: they abort (an instcombine that verifies its fixpoint stops the process
# when a program needs more iterations), opt-19 lists them but refuses them (GlobalDCE's
# "in-lto-post-link": "invalid GlobalDCE pass parameter"), or their output varies from run to
# run (coro-split<reuse-storage>: two different modules in three runs on the C++ program).
SKIPPED = {"verify-fixpoint", "in-lto-post-link", "reuse-storage"}
# Options that exclude each other beyond the `X` / `no-X` pairs.
GROUPS = ({"O0", "O1", "O2", "O3", "Os", "Oz"}, {"preserve-cfg", "modify-cfg"})
DEFAULT_PIPELINES = ("O1", "O2", "O3", "Os", "Oz")


def group(option: str) -> str:
    """The options that ``option`` replaces share its group."""
    name = option.split("=", 1)[0]
    for members in GROUPS:
        if name in members:
            return "/".join(sorted(members))
    return name.removeprefix("no-")


def option_values(accepted: list[str]) -> list[str]:
    """Every option to try of a pass that accepts ``accepted`` (``name=N`` expanded)."""
    out = []
    for option in accepted:
        if option in SKIPPED:
            continue
        if option.endswith(("=N", "=S", "=GV")):
            out += [f"{option.split('=')[0]}={v}" for v in NUMERIC.get(option.split("=")[0], ())]
        else:
            out.append(option)
    return out


def param_rows(passes, base: list[Row]) -> list[Row]:
    """The table: ``base`` (PassesAll) as elements, each pass's option variants, then the
    default pipelines."""
    rows, names, pipelines = [], set(), set()

    def add(element: str, name: str, level: str) -> None:
        pipeline = wrap(element, name, level)
        if pipeline in pipelines:
            return
        # A pass at two levels (guard-widening) is named by its pipeline the second time.
        action = element if element not in names else pipeline
        names.add(action)
        pipelines.add(pipeline)
        rows.append(Row(action, pipeline, name, level, element, "param"))

    for row in base:
        add(row.element, row.llvm_name, row.level)
    for row in base:
        accepted = passes[row.llvm_name].levels.get(row.level)
        if not accepted:
            continue
        _, own = split_element(row.element)
        for option in option_values(accepted):
            options = [o for o in own if group(o) != group(option)] + [option]
            add(f"{row.llvm_name}<{';'.join(options)}>", row.llvm_name, row.level)
    for level in DEFAULT_PIPELINES:
        add(f"default<{level}>", "default", "Module")
    return rows


def header(version: str) -> list[str]:
    """pass_params.def's leading comment."""
    return [
        "// pass_params.def - action table of the LLVM PassesParameterized action space.",
        "//",
        "// GENERATED FILE, DO NOT EDIT. Regenerate with:",
        f"//   {GENERATOR_COMMAND}",
        f"// (after {PASSES_ALL_COMMAND}) from `{OPT} --version`: {version}",
        "//",
        "// One row per action, in action-index order, as passes.def's rows: the action's name",
        "// (its pipeline element), the pipeline text at module level, the LLVM 19 pass name",
        "// and the level.",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="file to write")
    ap.add_argument("--jobs", type=int, default=2, help="opt runs side by side")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per opt run")
    args = ap.parse_args()
    version = opt_version()
    if " 19." not in version:
        raise SystemExit(f"error: expected LLVM 19, `{OPT} --version` says: {version}")
    passes = parse_print_passes()
    rows = param_rows(passes, sound_rows(build_rows(passes)))
    workdir = Path(tempfile.mkdtemp(prefix="gen_param_table."))
    try:
        inputs = build_inputs(workdir, ["raw", "mem2reg"])
        validate(rows, inputs, workdir, args.jobs, args.timeout)
        report = check_single(rows, inputs, workdir, 3, args.jobs, args.timeout)
        bad = {flag: problems for flag, problems in report.items() if problems}
        if bad:
            for flag, problems in bad.items():
                print(f"FAIL {flag}: {problems[0]}", file=sys.stderr)
            raise SystemExit(f"error: {len(bad)} rows crash or vary; table not written")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    args.output.write_text(render_def(rows, version, header(version)))
    print(f"wrote {args.output} ({len(rows)} actions)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
