#!/usr/bin/env python3
"""Generate envs/llvm/passes.def, the action table of the LLVM `PassesAll` space.

Each action is one element of a new-pass-manager pipeline that must parse at
module level (``PassBuilder::parsePassPipeline(ModulePassManager&, text)``).
The table starts from CompilerGym's 124 legacy `opt` flags (kept in their
original order, minus the passes that no longer exist in LLVM 19 and the ones
excluded below), followed by a short list of LLVM 19 passes that CompilerGym
did not have.

What the script does:

1. runs ``opt-19 --print-passes`` and parses the per-level lists (module,
   cgscc, function, loop-nest, loop; with and without parameters);
2. resolves every action to an LLVM 19 pass name, checks that the name exists
   at exactly one level (or at the level the table asks for), checks that any
   pass options are ones the pass accepts, and builds the module-level
   pipeline text (``function(X)``, ``function(loop(X))``,
   ``function(loop-mssa(X))``, ``cgscc(X)`` or bare ``X``);
3. compiles a handful of small C/C++ programs (embedded below) with clang-19
   and runs every pipeline through ``opt-19 -passes=...`` on them; any failure
   aborts the script with a non-zero exit status;
4. writes passes.def.

``--check-determinism`` additionally runs every pass several times on every
input (raw clang output, after mem2reg and after default<O1>) and compares the
SHA-256 of the printed IR, then runs random sequences of passes in a single
`opt-19` invocation several times; crashing or diverging sequences are
replayed one pass at a time to find the pass responsible.

Usage:
    python3 envs/llvm/tools/gen_pass_table.py                 # validate + write passes.def
    python3 envs/llvm/tools/gen_pass_table.py --check-determinism --report /tmp/det.json
    python3 envs/llvm/tools/gen_pass_table.py --print-markdown # table for PASSES.md
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

OPT = os.environ.get("OPT", "opt-19")
CLANG = os.environ.get("CLANG", "clang-19")

SCRIPT_DIR = Path(__file__).resolve().parent
DEFAULT_OUTPUT = SCRIPT_DIR.parent / "passes.def"
GENERATOR_COMMAND = "python3 envs/llvm/tools/gen_pass_table.py"

# ---------------------------------------------------------------------------
# The action list.
# ---------------------------------------------------------------------------

# CompilerGym's LLVM action space (124 legacy `opt` flags), in action-index order.
COMPILER_GYM_FLAGS = """
-add-discriminators -adce -aggressive-instcombine -alignment-from-assumptions
-always-inline -argpromotion -attributor -barrier -bdce -break-crit-edges
-simplifycfg -callsite-splitting -called-value-propagation -canonicalize-aliases
-consthoist -constmerge -constprop -coro-cleanup -coro-early -coro-elide
-coro-split -correlated-propagation -cross-dso-cfi -deadargelim -dce -die -dse
-reg2mem -div-rem-pairs -early-cse-memssa -early-cse -elim-avail-extern
-ee-instrument -flattencfg -float2int -forceattrs -inline -insert-gcov-profiling
-gvn-hoist -gvn -globaldce -globalopt -globalsplit -guard-widening -hotcoldsplit
-ipconstprop -ipsccp -indvars -irce -infer-address-spaces -inferattrs
-inject-tli-mappings -instsimplify -instcombine -instnamer -jump-threading -lcssa
-licm -libcalls-shrinkwrap -load-store-vectorizer -loop-data-prefetch
-loop-deletion -loop-distribute -loop-fusion -loop-guard-widening -loop-idiom
-loop-instsimplify -loop-interchange -loop-load-elim -loop-predication
-loop-reroll -loop-rotate -loop-simplifycfg -loop-simplify -loop-sink
-loop-reduce -loop-unroll-and-jam -loop-unroll -loop-unswitch -loop-vectorize
-loop-versioning-licm -loop-versioning -loweratomic -lower-constant-intrinsics
-lower-expect -lower-guard-intrinsic -lowerinvoke -lower-matrix-intrinsics
-lowerswitch -lower-widenable-condition -memcpyopt -mergefunc -mergeicmps
-mldst-motion -sancov -name-anon-globals -nary-reassociate -newgvn -pgo-memop-opt
-partial-inliner -partially-inline-libcalls -post-inline-ee-instrument
-functionattrs -mem2reg -prune-eh -reassociate -redundant-dbg-inst-elim
-rpo-functionattrs -rewrite-statepoints-for-gc -sccp -slp-vectorizer -sroa
-scalarizer -separate-const-offset-from-gep -simple-loop-unswitch -sink
-speculative-execution -slsr -strip-dead-prototypes -strip-debug-declare
-strip-nondebug -strip -tailcallelim -mergereturn
""".split()

# Legacy flag -> LLVM 19 pipeline element (pass name plus options, if any).
RENAMED: dict[str, str] = {
    "-early-cse-memssa": "early-cse<memssa>",
    "-flattencfg": "flatten-cfg",
    "-functionattrs": "function-attrs",
    "-rpo-functionattrs": "rpo-function-attrs",
    "-loweratomic": "lower-atomic",
    "-lowerinvoke": "lower-invoke",
    "-lowerswitch": "lower-switch",
    "-sancov": "sancov-module",
    "-post-inline-ee-instrument": "ee-instrument<post-inline>",
    "-loop-guard-widening": "guard-widening",
    "-loop-unswitch": "simple-loop-unswitch<nontrivial>",
}

# Pass options for passes kept under their own name.  Only options that the
# default pipelines use and that change behaviour w.r.t. the bare name.
OPTIONS: dict[str, str] = {
    # A bare `instcombine` is `instcombine<verify-fixpoint>` in LLVM 19 and
    # aborts ("did not reach a fixpoint") on some inputs; the default
    # pipelines all use no-verify-fixpoint.
    "-instcombine": "<no-verify-fixpoint>",
}

# Passes whose name exists at more than one level: the level to use.
LEVEL_OVERRIDE: dict[str, str] = {
    "-guard-widening": "Function",
    "-loop-guard-widening": "Loop",
}

# Legacy flags with no LLVM 19 counterpart (removed from the table).
DROPPED: dict[str, str] = {
    "-barrier": "legacy-PM-only no-op barrier; there is no such pass in the new pass manager",
    "-constprop": "ConstantPropagation was removed in LLVM 12 (instsimplify/sccp cover it)",
    "-die": "DeadInstElimination was removed in LLVM 12 (dce covers it)",
    "-ipconstprop": "IPConstantPropagation was removed in LLVM 12 (ipsccp covers it)",
    "-loop-reroll": "LoopReroll was removed in LLVM 19",
    "-prune-eh": (
        "PruneEH was removed from the new pass manager (function-attrs/simplifycfg cover it)"
    ),
}

# Flags removed from the table after testing (see --check-determinism and PASSES.md).
EXCLUDED: dict[str, str] = {
    "-dfa-jump-threading": (
        "nondeterministic: leaves a run-dependent use-list order (visible with "
        "-preserve-ll-uselistorder) that changes the IR printed after a following "
        "reg2mem in the same process"
    ),
    "-scalarizer": (
        "memory-unsafe in LLVM 19: reads invalid memory on some llvm-stress programs "
        "(valgrind: invalid read in ScalarizerPass::run; opt-19 crashes), so the same "
        "module and action crash, loop for minutes or give a module depending on the heap, "
        "and can corrupt the heap of the process (found by compiler_gym.bin.fuzz and "
        "benchmarks/env_soak.py)"
    ),
    "-attributor": (
        "memory-unsafe in LLVM 19: a use after free in Attributor::rewriteFunctionSignatures "
        "(valgrind: invalid read of a block freed by Instruction::eraseFromParent) on a module "
        "reached by a random sequence from builtin matmul; the same actions gave different "
        "IrSha1s in multistep and step, then glibc aborted on a corrupted heap and the process "
        "hung on malloc's lock (found by compiler_gym.bin.fuzz --seed 105)"
    ),
}

# Passes with a confirmed miscompile of a program that has no undefined behaviour (PASSES.md,
# "Miscompile hunts"). They leave the default spaces but stay reachable: their rows come last
# in passes.def, written with COMPILER_GYM_LLVM_MISCOMPILING_PASS, which only the opt-in space
# PassesAllUnsound expands, so PassesAll's indices are those of PassesAllUnsound's first rows.
MISCOMPILING: dict[str, str] = {
    "-iroutliner": (
        "miscompiles csmith programs (UB-free by construction) in LLVM 19: after "
        "loop-rotate, early-cse<memssa> and break-crit-edges or dse and reg2mem, the outlined "
        "program prints a different checksum or crashes, with opt-19 too (found by "
        "compiler_gym.bin.miscompile --seed 9; reproducers/iroutliner_miscompile_*.ll)"
    ),
    # Excluded 2026-11-25 for output that follows heap addresses; back since the env runs it in
    # an opt-19 process of its own (passes.cc, RunsInOwnProcess), which gives one result.
    "-newgvn": (
        "miscompiles builtin huffman (UB-free under ASan and UBSan) after gvn and dse: the "
        "program exits with 'invalid code lengths', with opt-19 too (found by "
        "compiler_gym.bin.search's random search, minimized by minimize_trajectory)"
    ),
}

# Passes seen to leave a run-dependent use-list order while printing identical
# IR; kept because no following pass was seen to turn this into different IR
# (the --check-determinism leak check re-tests them every time).
KNOWN_USELIST_NONDETERMINISM: list[str] = []

# Loop passes that must (licm) or, following LLVM's own pipelines, should run
# in a loop pass manager that maintains MemorySSA: `function(loop-mssa(X))`.
# Sources: PassBuilderPipelines.cpp (function simplification LPM1:
# loop-instsimplify, loop-simplifycfg, licm, loop-rotate, simple-loop-unswitch,
# loop-flatten) and CodeGenPassBuilder (loop-reduce with UseMemorySSA=true).
# All other loop passes use `function(loop(X))`, as LLVM's pipelines do
# (indvars, loop-idiom, loop-deletion, loop-interchange, loop-unroll-full,
# loop-unroll-and-jam, loop-versioning-licm) or because they only use
# MemorySSA when it happens to be available (loop-predication, guard-widening).
LOOP_MSSA = {
    "licm",
    "simple-loop-unswitch",
    "loop-instsimplify",
    "loop-simplifycfg",
    "loop-rotate",
    "loop-flatten",
    "loop-reduce",
}

# LLVM 19 passes appended after the CompilerGym ones: (flag, element, why).
APPENDED: list[tuple[str, str, str]] = [
    (
        "-constraint-elimination",
        "constraint-elimination",
        "removes compares/branches implied by dominating conditions; part of the O1+ pipeline",
    ),
    (
        "-dfa-jump-threading",
        "dfa-jump-threading",
        "threads switch-based state machines; part of the O2+ pipeline on by default in clang",
    ),
    (
        "-vector-combine",
        "vector-combine",
        "scalarises/narrows vector ops after vectorisation; O2+ pipeline",
    ),
    ("-loop-flatten", "loop-flatten", "collapses nested counted loops into one; O2+ when enabled"),
    (
        "-infer-alignment",
        "infer-alignment",
        "raises load/store alignment from known bits; replaced instcombine's alignment "
        "inference in LLVM 18",
    ),
    (
        "-jump-table-to-switch",
        "jump-table-to-switch",
        "turns calls through small constant function-pointer tables into switches (enables "
        "inlining); new in LLVM 19",
    ),
    (
        "-loop-unroll-full",
        "loop-unroll-full",
        "full unrolling of small constant-trip loops inside the loop pipeline (O1+ "
        "simplification pipeline)",
    ),
    (
        "-iroutliner",
        "iroutliner",
        "IR-level outliner of similar code regions; a code-size pass with no CompilerGym "
        "counterpart",
    ),
]

# Passes tested by --check-determinism but never put in the table.
EXTRA_CANDIDATES: list[tuple[str, str]] = [
    ("-gvn-sink", "gvn-sink"),  # CompilerGym removed it as nondeterministic
]

LEVELS = ("Module", "Cgscc", "Function", "Loop")

# ---------------------------------------------------------------------------
# `opt --print-passes` parsing.
# ---------------------------------------------------------------------------

SECTION_LEVEL = {
    "Module passes": ("Module", False),
    "Module passes with params": ("Module", True),
    "CGSCC passes": ("Cgscc", False),
    "CGSCC passes with params": ("Cgscc", True),
    "Function passes": ("Function", False),
    "Function passes with params": ("Function", True),
    "LoopNest passes": ("Loop", False),
    "Loop passes": ("Loop", False),
    "Loop passes with params": ("Loop", True),
}


@dataclass
class PassInfo:
    levels: dict[str, Optional[list[str]]] = field(
        default_factory=dict
    )  # level -> params (None: none)
    sections: list[str] = field(default_factory=list)


def opt_version() -> str:
    out = subprocess.run([OPT, "--version"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if "LLVM version" in line:
            return line.strip()
    raise SystemExit(f"error: cannot find an LLVM version in `{OPT} --version`:\n{out}")


def parse_print_passes() -> dict[str, PassInfo]:
    out = subprocess.run([OPT, "--print-passes"], capture_output=True, text=True, check=True).stdout
    passes: dict[str, PassInfo] = defaultdict(PassInfo)
    section = None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            section = line.strip().rstrip(":")
            continue
        if section not in SECTION_LEVEL:
            continue  # analyses, alias analyses, machine passes
        level, with_params = SECTION_LEVEL[section]
        entry = line.strip()
        if with_params:
            m = re.fullmatch(r"([^<]+)<(.*)>", entry)
            if not m:
                raise SystemExit(f"error: cannot parse `{entry}` in section `{section}`")
            name, params = m.group(1), m.group(2).split(";")
        else:
            name, params = entry, None
        info = passes[name]
        if level in info.levels and info.levels[level] is not None and params is None:
            pass  # keep the parameter list already seen
        else:
            info.levels[level] = params
        info.sections.append(section)
    required = {"Module passes", "CGSCC passes", "Function passes", "Loop passes"}
    seen = {s for info in passes.values() for s in info.sections}
    if not required <= seen:
        raise SystemExit(f"error: `{OPT} --print-passes` lacks sections {sorted(required - seen)}")
    return dict(passes)


# ---------------------------------------------------------------------------
# Building the rows.
# ---------------------------------------------------------------------------


@dataclass
class Row:
    flag: str
    pipeline: str
    llvm_name: str
    level: str
    element: str
    origin: str  # "compiler_gym" or "appended"


def split_element(element: str) -> tuple[str, list[str]]:
    m = re.fullmatch(r"([a-z0-9-]+)(?:<(.*)>)?", element)
    if not m:
        raise SystemExit(f"error: malformed pipeline element `{element}`")
    return m.group(1), (m.group(2).split(";") if m.group(2) else [])


def option_allowed(opt: str, accepted: list[str]) -> bool:
    for acc in accepted:
        if acc.endswith("=N") and opt.startswith(acc[:-1]):
            return True
        if acc.endswith("=S") and opt.startswith(acc[:-1]):
            return True
        if acc == opt:
            return True
    return False


def wrap(element: str, name: str, level: str) -> str:
    if level == "Module":
        return element
    if level == "Cgscc":
        return f"cgscc({element})"
    if level == "Function":
        return f"function({element})"
    if level == "Loop":
        manager = "loop-mssa" if name in LOOP_MSSA else "loop"
        return f"function({manager}({element}))"
    raise AssertionError(level)


def make_row(flag: str, element: str, origin: str, passes: dict[str, PassInfo]) -> Row:
    name, options = split_element(element)
    info = passes.get(name)
    if info is None:
        raise SystemExit(
            f"error: pass `{name}` (action {flag}) is not listed by `{OPT} --print-passes`"
        )
    if flag in LEVEL_OVERRIDE:
        level = LEVEL_OVERRIDE[flag]
        if level not in info.levels:
            raise SystemExit(
                f"error: pass `{name}` (action {flag}) has no {level}-level version; "
                f"it exists at {sorted(info.levels)}"
            )
    else:
        if len(info.levels) != 1:
            raise SystemExit(
                f"error: pass `{name}` (action {flag}) exists at several levels "
                f"{sorted(info.levels)}; add it to LEVEL_OVERRIDE"
            )
        level = next(iter(info.levels))
    if options:
        accepted = info.levels[level]
        if accepted is None:
            raise SystemExit(
                f"error: pass `{name}` (action {flag}) takes no options, got {options}"
            )
        for o in options:
            if not option_allowed(o, accepted):
                raise SystemExit(
                    f"error: option `{o}` of `{name}` (action {flag}) not in {accepted}"
                )
    if name in LOOP_MSSA and level != "Loop":
        raise SystemExit(f"error: LOOP_MSSA lists `{name}` but it is a {level} pass")
    return Row(flag, wrap(element, name, level), name, level, element, origin)


def build_rows(passes: dict[str, PassInfo], include_excluded: bool = False) -> list[Row]:
    if len(COMPILER_GYM_FLAGS) != 124 or len(set(COMPILER_GYM_FLAGS)) != 124:
        raise SystemExit("error: COMPILER_GYM_FLAGS must hold 124 distinct flags")
    for table in (RENAMED, OPTIONS, LEVEL_OVERRIDE, DROPPED, EXCLUDED, MISCOMPILING):
        for flag in table:
            if flag not in COMPILER_GYM_FLAGS and flag not in {a[0] for a in APPENDED}:
                raise SystemExit(f"error: {flag} is not an action flag")
    rows = []
    for flag in COMPILER_GYM_FLAGS:
        if flag in DROPPED:
            if flag[1:] in passes:
                raise SystemExit(
                    f"error: {flag} is listed as dropped but `{flag[1:]}` exists in LLVM 19"
                )
            continue
        if flag in EXCLUDED and not include_excluded:
            continue
        element = RENAMED.get(flag, flag[1:] + OPTIONS.get(flag, ""))
        rows.append(make_row(flag, element, "compiler_gym", passes))
    for flag, element, _why in APPENDED:
        if flag in COMPILER_GYM_FLAGS:
            raise SystemExit(f"error: appended {flag} duplicates a CompilerGym flag")
        if flag in EXCLUDED and not include_excluded:
            continue
        rows.append(make_row(flag, element, "appended", passes))
    flags = [r.flag for r in rows]
    if len(set(flags)) != len(flags):
        raise SystemExit("error: duplicate action flags")
    pipelines = [r.pipeline for r in rows]
    if len(set(pipelines)) != len(pipelines):
        raise SystemExit("error: two actions share a pipeline")
    # The miscompiling passes last, in the order they were added to MISCOMPILING (a newer one
    # goes after the older ones, whose PassesAllUnsound indices stay): the default space is
    # then a prefix.
    by_flag = {r.flag: r for r in rows}
    return sound_rows(rows) + [by_flag[f] for f in MISCOMPILING if f in by_flag]


def sound_rows(rows: list[Row]) -> list[Row]:
    """``rows`` without the passes of confirmed miscompiles: the default spaces' passes."""
    return [r for r in rows if r.flag not in MISCOMPILING]


# ---------------------------------------------------------------------------
# Test inputs.
# ---------------------------------------------------------------------------

SRC_LOOPS = r"""
typedef unsigned long size_t;
void *memcpy(void *, const void *, size_t);
#define N 48
static double A[N][N], B[N][N], C[N][N];
int G[1024];

void matmul(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
void column_major(int n) {          /* loop-interchange candidate */
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) C[i][j] += A[i][j] * 2.0;
}
void flatten_me(int *a, int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] = i + j;
}
void zero(int *a, int n) { for (int i = 0; i < n; i++) a[i] = 0; }
void copy(int *restrict d, const int *restrict s, int n) {
  for (int i = 0; i < n; i++) d[i] = s[i];
}
int unswitch_me(int *a, int n, int flag) {
  int s = 0;
  for (int i = 0; i < n; i++) { if (flag) s += a[i]; else s -= a[i] * 3; }
  return s;
}
void licm_me(int *a, int n, const int *p, int q) { for (int i = 0; i < n; i++) a[i] = *p * q + i; }
void saxpy(float *restrict y, const float *restrict x, float k, int n) {
  for (int i = 0; i < n; i++) y[i] += k * x[i];
}
long reduce(const long *a, int n) {
  long s = 0; for (int i = 0; i < n; i++) s += a[i] ^ (a[i] >> 3); return s;
}
void fuse(int *restrict a, int *restrict b, int n) {
  for (int i = 0; i < n; i++) a[i] = i * 7;
  for (int i = 0; i < n; i++) b[i] = i * 3;
}
unsigned dead_loop(int n) { unsigned x = 0; for (int i = 0; i < n; i++) x += 0; return x + 5; }
int bounds(const int *a, int n, int len) {
  int s = 0;
  for (int i = 0; i < n; i++) { if (i < 0 || i >= len) return -1; s += a[i]; }
  return s;
}
void jam(int *restrict a, const int *restrict b, int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i] += b[j] * i;
}
void distribute(int *a, const int *b, int *c, const int *d, int n) {
  for (int i = 0; i < n; i++) { a[i + 1] = a[i] + b[i]; c[i] = d[i] * 2; }
}
int popcount_loop(unsigned x) { int c = 0; while (x) { x &= x - 1; c++; } return c; }
void small_const(int *a) { for (int i = 0; i < 4; i++) a[i] = a[i] * 2 + 1; }
void strided(short *a, const short *b, int n) {
  for (int i = 0; i < n; i++) { a[2 * i] = b[2 * i] + 1; a[2 * i + 1] = b[2 * i + 1] + 2; }
}
void vers(int *a, int *b, int n, int k) { for (int i = 0; i < n; i++) a[i] = b[i] + k; }
int main(int argc, char **argv) {
  matmul(argc + 10); column_major(argc);
  zero(G, argc * 16); copy(G + 512, G, argc * 8);
  flatten_me(G, argc, 4); fuse(G, G + 256, argc * 4);
  int r = unswitch_me(G, argc * 32, argc > 2) + bounds(G, argc * 4, 1024);
  jam(G, G + 300, argc, argc + 1); distribute(G, G + 100, G + 200, G + 300, argc * 9);
  small_const(G); strided((short *)G, (short *)(G + 600), argc * 3); vers(G, G + 1, argc, 3);
  return r + popcount_loop(argc) + (int)dead_loop(argc) + (int)reduce((long *)G, argc) +
         (int)C[1][1];
}
"""

SRC_CONTROL = r"""
typedef unsigned long size_t;
double sqrt(double);
int printf(const char *, ...);
struct node { int v; struct node *next; };
struct pair { int a, b; };

int state_machine(const char *s) {
  int st = 0, count = 0;
  for (; *s; s++) {
    switch (st) {
    case 0: st = (*s == 'a') ? 1 : 0; break;
    case 1: st = (*s == 'b') ? 2 : (*s == 'a' ? 1 : 0); break;
    case 2: if (*s == 'c') { count++; st = 0; } else st = 3; break;
    default: st = 0; break;
    }
  }
  return count;
}
int classify(int c) {
  switch (c) {
  case 0: return 10; case 1: return 21; case 2: return 32; case 3: return 43;
  case 4: return 54; case 5: return 65; case 6: return 76; case 7: return 87;
  default: return -1;
  }
}
int sparse_switch(int c) {
  switch (c) { case 3: return 1; case 100: return 2; case 1000: return 3; case 77777: return 4; }
  return 0;
}
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int sum_list(struct node *n) { return n ? n->v + sum_list(n->next) : 0; }
static int helper(const int *p) { return *p + 1; }
static int unused_arg(int a, int b) { return a * 2; }
int call_helpers(int x) { int y = x * 3; return helper(&y) + unused_arg(x, y); }
static int f1(int x) { return x + 1; }
static int f2(int x) { return x * 2; }
int dispatch(int sel, int x) { int (*t[2])(int) = {f1, f2}; return t[sel & 1](x); }
int (*const table[3])(int) = {f1, f2, f1};
int via_table(int i, int x) { return table[i](x); }
int pair_eq(const struct pair *x, const struct pair *y) { return x->a == y->a && x->b == y->b; }
int divrem(int a, int b, int *r) { *r = a % b; return a / b; }
int float2int_me(short a, short b) { float x = a, y = b; return (int)(x + y); }
int expect_me(int x) { if (__builtin_expect(x > 100, 0)) return printf("big %d\n", x); return x; }
__attribute__((cold, noinline)) static void rare(int x) {
  printf("rare %d %d %d\n", x, x * 2, x * 3);
}
int maybe_rare(int x) { if (x == 12345) { rare(x); rare(x + 1); return 0; } return x + 1; }
int hoist_me(int c, int a, int b) { int r; if (c) r = a * b + 1; else r = a * b - 1; return r; }
double shrinkwrap(double x) { sqrt(x); return x * 2; }
struct big { int v[16]; };
void copy_big(struct big *d, const struct big *s) { struct big t = *s; t.v[0] = 1; *d = t; }
void dead_store(int *p) { *p = 1; *p = 2; }
long long consts(long long a) {
  return (a & 0x123456789abcLL) + (a | 0x123456789abcLL) + 0x123456789abdLL;
}
int sel(int a, int b, int c) { return c ? a / 3 : b / 3; }
int cmpchain(unsigned char *p) { return p[0] == 'x' && p[1] == 'y' && p[2] == 'z' && p[3] == 'w'; }
int atomic_inc(int *p) { return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST); }
int gep_offsets(int *a, int i) { return a[i + 5] + a[i + 9] + a[2 * i + 5]; }
int main(int argc, char **argv) {
  struct node n2 = {2, 0}, n1 = {1, &n2};
  struct pair p = {argc, 2}, q = {1, argc};
  int r; struct big b = {{0}}, c;
  copy_big(&c, &b);
  return state_machine(argv[0]) + classify(argc) + sparse_switch(argc) + fact(argc) +
         sum_list(&n1) + call_helpers(argc) + dispatch(argc, 3) + via_table(argc % 3, 4) +
         pair_eq(&p, &q) + divrem(argc, 3, &r) + r + float2int_me(argc, 2) + expect_me(argc) +
         maybe_rare(argc) + hoist_me(argc, 2, 3) + (int)shrinkwrap(argc) + c.v[0] +
         (int)consts(argc) + sel(argc, 4, 5) + cmpchain((unsigned char *)argv[0]) +
         atomic_inc(&r) + gep_offsets(&r, 0);
}
"""

# Compiled with -g so that the debug-info passes have something to do.
SRC_GLOBALS = r"""
typedef int v4si __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));
int printf(const char *, ...);
int unused_prototype(int);
static int counter;
const char *greeting = "hello";
const char *greeting2 = "hello";
static const int lut[8] = {1, 2, 4, 8, 16, 32, 64, 128};
int real_impl(int x) { return x + counter; }
int alias_impl(int) __attribute__((alias("real_impl")));
static int never_called(int x) { return x * 99; }
int twin_a(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 3; return s; }
int twin_b(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 3; return s; }
extern inline __attribute__((gnu_inline)) int avail(int x) { return x * 5; }
static int ping(int n);
static int pong(int n) { return n <= 0 ? 0 : 1 + ping(n - 1); }
static int ping(int n) { return n <= 0 ? 0 : 2 + pong(n - 2); }
unsigned rotl(unsigned x, unsigned s) { return (x << (s & 31)) | (x >> ((32 - s) & 31)); }
unsigned short narrow(unsigned char a, unsigned char b) {
  return (unsigned short)((unsigned)a + (unsigned)b);
}
v4si vadd(v4si a, v4si b) { return a + b * 2; }
float vsum(v4sf a) { return a[0] + a[1] + a[2] + a[3]; }
static int global_arr[4];
void touch_global(int i) { global_arr[i & 3] += lut[i & 7]; counter++; }
struct S { int a; long b; char c; } gs = {1, 2, 3};
long struct_sum(void) { return gs.a + gs.b + gs.c; }
__attribute__((always_inline)) static inline int must_inline(int x) { return x * x; }
int uses_inline(int y) {
  int s = 0; for (int i = 0; i < y; i++) { int t = must_inline(i); s += t; } return s;
}
int main(int argc, char **argv) {
  v4si a = {argc, 2, 3, 4};
  v4sf f = {1.0f, 2.0f, (float)argc, 4.0f};
  touch_global(argc);
  printf("%s %s %d\n", greeting, greeting2, alias_impl(argc));
  return twin_a(argc) + twin_b(argc + 1) + avail(argc) + ping(argc) + (int)rotl(argc, 3) +
         narrow(argc, 7) + vadd(a, a)[1] + (int)vsum(f) + (int)struct_sum() + uses_inline(argc);
}
"""

# Compiled with -fenable-matrix: the matrix intrinsics.
SRC_MATRIX = r"""
typedef float m4x4_t __attribute__((matrix_type(4, 4)));
typedef double m2x3_t __attribute__((matrix_type(2, 3)));
typedef double m3x2_t __attribute__((matrix_type(3, 2)));
typedef double m2x2_t __attribute__((matrix_type(2, 2)));
void mul4(m4x4_t *r, const m4x4_t *a, const m4x4_t *b) { *r = *a * *b + *a; }
m2x2_t mul23(m2x3_t a, m3x2_t b) { return a * b; }
m3x2_t tr(m2x3_t a) { return __builtin_matrix_transpose(a); }
void load(m4x4_t *r, const float *p, unsigned long stride) {
  *r = __builtin_matrix_column_major_load(p, 4, 4, stride);
}
float trace(m4x4_t m) { float s = 0; for (int i = 0; i < 4; i++) s += m[i][i]; return s; }
"""

# C++: exceptions (invoke/landingpad), a coroutine (coro.* intrinsics), virtual calls.
SRC_CXX = r"""
namespace std {
template <class R, class... Args> struct coroutine_traits {
  using promise_type = typename R::promise_type;
};
template <class P = void> struct coroutine_handle;
template <> struct coroutine_handle<void> {
  void *ptr = nullptr;
  static coroutine_handle from_address(void *a) noexcept {
    coroutine_handle h; h.ptr = a; return h;
  }
  void *address() const noexcept { return ptr; }
  void resume() const { __builtin_coro_resume(ptr); }
  void destroy() const { __builtin_coro_destroy(ptr); }
  bool done() const { return __builtin_coro_done(ptr); }
};
template <class P> struct coroutine_handle : coroutine_handle<void> {
  static coroutine_handle from_address(void *a) noexcept {
    coroutine_handle h; h.ptr = a; return h;
  }
  static coroutine_handle from_promise(P &p) noexcept {
    coroutine_handle h; h.ptr = __builtin_coro_promise(&p, alignof(P), true); return h;
  }
  P &promise() const { return *static_cast<P *>(__builtin_coro_promise(ptr, alignof(P), false)); }
};
struct suspend_always {
  bool await_ready() const noexcept { return false; }
  void await_suspend(coroutine_handle<>) const noexcept {}
  void await_resume() const noexcept {}
};
}  // namespace std

struct gen {
  struct promise_type {
    int value = 0;
    gen get_return_object() {
      return gen{std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(int v) noexcept { value = v; return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept {}
  };
  std::coroutine_handle<promise_type> h;
};
gen squares(int n) { for (int i = 0; i < n; ++i) co_yield i * i; }
int sum_squares(int n) {
  gen g = squares(n);
  int s = 0;
  for (;;) { g.h.resume(); if (g.h.done()) break; s += g.h.promise().value; }
  g.h.destroy();
  return s;
}

struct Err { int code; };
int may_throw(int x) { if (x < 0) throw Err{x}; return x * 2; }
int catcher(int x) {
  try { return may_throw(x) + may_throw(x - 5); } catch (const Err &e) { return e.code; }
}
struct Guard { int *p; ~Guard() { *p += 1; } };
int with_cleanup(int x, int *cnt) { Guard g{cnt}; return may_throw(x); }

struct Shape { virtual ~Shape() {} virtual int area() const = 0; };
struct Sq : Shape {
  int s; explicit Sq(int v) : s(v) {} int area() const override { return s * s; }
};
struct Rect : Shape {
  int w, h; Rect(int a, int b) : w(a), h(b) {} int area() const override { return w * h; }
};
int total_area(Shape *const *v, int n) {
  int t = 0; for (int i = 0; i < n; ++i) t += v[i]->area(); return t;
}
template <class T> T tmax(T a, T b) { return a < b ? b : a; }
int main(int argc, char **) {
  int cnt = 0;
  Sq a(argc); Rect b(argc, 3);
  Shape *v[2] = {&a, &b};
  return sum_squares(argc) + catcher(argc) + with_cleanup(argc, &cnt) + cnt + total_area(v, 2) +
         tmax(argc, 4) + (int)tmax(1.5, 2.5);
}
"""

# name -> (language, extra clang flags, source)
TEST_SOURCES: dict[str, tuple[str, list[str], str]] = {
    "loops": ("c", [], SRC_LOOPS),
    "control": ("c", [], SRC_CONTROL),
    "globals": ("c", ["-g"], SRC_GLOBALS),
    "matrix": ("c", ["-fenable-matrix"], SRC_MATRIX),
    "cxx": ("c++", ["-std=c++20", "-fexceptions", "-fcxx-exceptions"], SRC_CXX),
}

# Preparations applied to the raw clang output.
PREPS: dict[str, Optional[str]] = {
    "raw": None,
    "mem2reg": "function(mem2reg)",
    "O1": "default<O1>",
}


def build_inputs(
    workdir: Path, preps: Sequence[str], extra: Sequence[Path] = ()
) -> dict[str, Path]:
    """Compile the embedded programs; returns {"<name>.<prep>": path-to-.ll}."""
    srcdir = workdir / "src"
    srcdir.mkdir(parents=True, exist_ok=True)
    inputs: dict[str, Path] = {}
    raw: dict[str, Path] = {}
    for name, (lang, flags, text) in TEST_SOURCES.items():
        src = srcdir / (name + (".cpp" if lang == "c++" else ".c"))
        src.write_text(text)
        out = workdir / f"{name}.raw.ll"
        cmd = [
            CLANG,
            "-x",
            lang,
            "-O1",
            "-Xclang",
            "-disable-llvm-passes",
            "-emit-llvm",
            "-S",
            "-w",
            *flags,
            str(src),
            "-o",
            str(out),
        ]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
        if p.returncode != 0:
            raise SystemExit(
                f"error: failed to compile test input {name}:\n{' '.join(cmd)}\n{p.stderr}"
            )
        raw[name] = out
    for path in extra:
        name = path.stem.replace(".", "_")
        out = workdir / f"{name}.raw.ll"
        if path.suffix in (".ll", ".bc"):
            subprocess.run([OPT, "-passes=verify", "-S", str(path), "-o", str(out)], check=True)
        else:
            cmd = [
                CLANG,
                "-O1",
                "-Xclang",
                "-disable-llvm-passes",
                "-emit-llvm",
                "-S",
                "-w",
                str(path),
                "-o",
                str(out),
            ]
            subprocess.run(cmd, check=True, cwd=workdir)
        raw[name] = out
    for name, path in raw.items():
        for prep in preps:
            if PREPS[prep] is None:
                inputs[f"{name}.{prep}"] = path
                continue
            out = workdir / f"{name}.{prep}.ll"
            p = subprocess.run(
                [OPT, f"-passes={PREPS[prep]}", "-S", str(path), "-o", str(out)],
                capture_output=True,
                text=True,
                cwd=workdir,
            )
            if p.returncode != 0:
                raise SystemExit(f"error: preparing {name} with {PREPS[prep]} failed:\n{p.stderr}")
            inputs[f"{name}.{prep}"] = out
    return inputs


# ---------------------------------------------------------------------------
# Running opt.
# ---------------------------------------------------------------------------


@dataclass
class OptResult:
    ok: bool
    status: str  # "ok", "exit N", "signal N", "timeout"
    digest: str  # SHA-256 of the printed IR including use-list orders
    visible: str  # SHA-256 of the printed IR without the use-list order directives
    message: str


USELIST_LINE = re.compile(rb"^\s*(uselistorder(_bb)?\s|; uselistorder directives)")


def run_opt(
    pipeline: str, path: Path, cwd: Path, timeout: float, out_path: Optional[Path] = None
) -> OptResult:
    # -preserve-ll-uselistorder also prints use-list orders: a pass can leave an
    # in-memory use-list order that differs from run to run while the plain IR
    # text is identical, and a later pass in the same process may then diverge.
    cmd = [
        OPT,
        f"-passes={pipeline}",
        "-preserve-ll-uselistorder",
        "-S",
        str(path),
        "-o",
        str(out_path) if out_path else "-",
    ]
    try:
        p = subprocess.run(cmd, capture_output=True, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return OptResult(False, "timeout", "", "", f"no result after {timeout:.0f}s")
    err = p.stderr.decode("utf-8", "replace")
    first = next((line for line in err.splitlines() if line.strip()), "")
    if p.returncode != 0:
        status = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        return OptResult(False, status, "", "", first[:300])
    data = out_path.read_bytes() if out_path else p.stdout
    plain = b"\n".join(
        line for line in data.splitlines() if line.strip() and not USELIST_LINE.match(line)
    )
    return OptResult(
        True, "ok", hashlib.sha256(data).hexdigest(), hashlib.sha256(plain).hexdigest(), ""
    )


def classify(results: list[OptResult]) -> Optional[str]:
    """None if all runs agree; else "crash", "nondeterministic" or "uselist-only"."""
    if any(not r.ok for r in results):
        return "crash"
    if len({r.visible for r in results}) > 1:
        return "nondeterministic"
    if len({r.digest for r in results}) > 1:
        return "uselist-only"
    return None


def parallel_map(fn, items, jobs: int):
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


def validate(
    rows: list[Row], inputs: dict[str, Path], workdir: Path, jobs: int, timeout: float
) -> None:
    """Every pipeline must parse and run on every input; abort otherwise."""
    tasks = [(r, k) for r in rows for k in inputs]

    def one(task):
        row, key = task
        return row, key, run_opt(row.pipeline, inputs[key], workdir, timeout)

    failures = [(row, key, res) for row, key, res in parallel_map(one, tasks, jobs) if not res.ok]
    if failures:
        for row, key, res in failures:
            print(
                f"FAIL {row.flag:32s} {row.pipeline:45s} on {key}: {res.status}: {res.message}",
                file=sys.stderr,
            )
        raise SystemExit(f"error: {len(failures)} pipeline runs failed; passes.def not written")


# ---------------------------------------------------------------------------
# Determinism / crash checks.
# ---------------------------------------------------------------------------


def check_single(
    rows: list[Row], inputs: dict[str, Path], workdir: Path, runs: int, jobs: int, timeout: float
) -> dict[str, list[dict]]:
    """Each pass alone, `runs` times per input. Returns {flag: [problem, ...]}."""
    tasks = [(r, k, i) for r in rows for k in inputs for i in range(runs)]

    def one(task):
        row, key, _ = task
        return row.flag, key, run_opt(row.pipeline, inputs[key], workdir, timeout)

    results: dict[tuple[str, str], list[OptResult]] = defaultdict(list)
    for flag, key, res in parallel_map(one, tasks, jobs):
        results[(flag, key)].append(res)
    report: dict[str, list[dict]] = {}
    for row in rows:
        problems = []
        for key in inputs:
            rs = results[(row.flag, key)]
            kind = classify(rs)
            if kind:
                bad = [r for r in rs if not r.ok]
                problems.append(
                    {
                        "input": key,
                        "kind": kind,
                        "runs": len(rs),
                        "distinct_outputs": len({r.digest or r.status for r in rs}),
                        "status": bad[0].status if bad else "ok",
                        "message": bad[0].message if bad else "",
                    }
                )
        report[row.flag] = problems
    return report


def check_leaks(
    suspects: list[Row],
    rows: list[Row],
    inputs: dict[str, Path],
    workdir: Path,
    runs: int,
    jobs: int,
    timeout: float,
) -> dict[str, list[dict]]:
    """For passes whose only nondeterminism is the use-list order: does it show
    in the IR printed after any pass that follows it in the same process?"""
    tasks = [(s, r, k) for s in suspects for r in rows for k in inputs]

    def one(task):
        s, r, key = task
        pipeline = f"{s.pipeline},{r.pipeline}"
        rs = [run_opt(pipeline, inputs[key], workdir, timeout) for _ in range(runs)]
        return s.flag, r.flag, key, classify(rs)

    leaks: dict[str, list[dict]] = {s.flag: [] for s in suspects}
    for first, then, key, kind in parallel_map(one, tasks, jobs):
        if kind in ("nondeterministic", "crash"):
            leaks[first].append({"then": then, "input": key, "kind": kind})
    return leaks


def replay(
    seq: list[Row],
    path: Path,
    workdir: Path,
    tag: str,
    runs: int,
    timeout: float,
    stop_on_uselist: bool = True,
) -> dict:
    """Apply `seq` one pass per opt invocation (use-list orders kept in the
    intermediate files); return the first step that fails or diverges (a step
    that only changes use-list orders counts if `stop_on_uselist`)."""
    stepdir = workdir / "replay" / tag
    stepdir.mkdir(parents=True, exist_ok=True)
    cur = path
    notes = []
    for i, row in enumerate(seq):
        out = stepdir / f"step{i:02d}.ll"
        res = run_opt(row.pipeline, cur, workdir, timeout, out)
        if not res.ok and str(cur) + ":" in res.message:
            # LLVM 19 cannot always re-read the uselistorder directives it
            # printed ("wrong number of indexes"); go on without them.
            text = cur.read_bytes().splitlines()
            cur.write_bytes(b"\n".join(x for x in text if not USELIST_LINE.match(x)) + b"\n")
            notes.append(
                f"step {i}: input re-read without use-list orders "
                f"({res.message.split(': ', 2)[-1]})"
            )
            res = run_opt(row.pipeline, cur, workdir, timeout, out)
        if not res.ok:
            return {
                "step": i,
                "flag": row.flag,
                "kind": "crash",
                "status": res.status,
                "message": res.message,
                "input_ir": str(cur),
                "notes": notes,
            }
        kind = classify(
            [res] + [run_opt(row.pipeline, cur, workdir, timeout) for _ in range(runs - 1)]
        )
        if kind == "uselist-only" and not stop_on_uselist:
            notes.append(f"step {i}: {row.flag} gave run-dependent use-list orders")
        elif kind:
            return {"step": i, "flag": row.flag, "kind": kind, "input_ir": str(cur), "notes": notes}
        cur = out
    return {"step": None, "flag": None, "kind": "not reproduced pass by pass", "notes": notes}


def check_sequences(
    rows: list[Row],
    inputs: dict[str, Path],
    workdir: Path,
    count: int,
    length: int,
    runs: int,
    seed: int,
    jobs: int,
    timeout: float,
) -> list[dict]:
    """Random sequences of `length` actions in one opt invocation, `runs` times each."""
    rng = random.Random(seed)
    seqs = [[rng.choice(rows) for _ in range(length)] for _ in range(count)]
    tasks = [(s, k, i) for s in range(count) for k in inputs for i in range(runs)]

    def one(task):
        s, key, _ = task
        pipeline = ",".join(r.pipeline for r in seqs[s])
        return s, key, run_opt(pipeline, inputs[key], workdir, timeout)

    results: dict[tuple[int, str], list[OptResult]] = defaultdict(list)
    for s, key, res in parallel_map(one, tasks, jobs):
        results[(s, key)].append(res)
    problems = []
    for (s, key), rs in sorted(results.items()):
        kind = classify(rs)
        if kind is None:
            continue
        bad = [r for r in rs if not r.ok]
        problems.append(
            {
                "sequence": s,
                "input": key,
                "kind": kind,
                "status": bad[0].status if bad else "ok",
                "message": bad[0].message if bad else "",
                "flags": [r.flag for r in seqs[s]],
            }
        )

    by_flag = {r.flag: r for r in rows}

    def attribute(problem):
        seq = [by_flag[f] for f in problem["flags"]]
        tag = f"seq{problem['sequence']}_{problem['input']}"
        problem["culprit"] = replay(
            seq,
            inputs[problem["input"]],
            workdir,
            tag,
            runs,
            timeout,
            stop_on_uselist=problem["kind"] == "uselist-only",
        )
        return problem

    return parallel_map(attribute, problems, jobs)


# ---------------------------------------------------------------------------
# Output.
# ---------------------------------------------------------------------------


def render_def(rows: list[Row], version: str, header: Optional[list[str]] = None) -> str:
    """The .def file of ``rows``; ``header`` (comment lines) replaces passes.def's."""
    lines = header or [
        "// passes.def - action table of the LLVM PassesAll action space.",
        "//",
        "// GENERATED FILE, DO NOT EDIT. Regenerate with:",
        f"//   {GENERATOR_COMMAND}",
        f"// from `{OPT} --version`: {version}",
        "//",
        "// One row per action, in action-index order. Each pipeline text parses at",
        "// module level with PassBuilder::parsePassPipeline(ModulePassManager&, text).",
        "// Level is one of Module, Cgscc, Function, Loop.",
        "//",
        "// COMPILER_GYM_LLVM_MISCOMPILING_PASS rows (last) are passes with a confirmed",
        "// miscompile (PASSES.md): actions of the opt-in space PassesAllUnsound only. An",
        "// includer that does not define the macro leaves them out.",
        "//",
        "// name (action flag), pipeline text at module level, LLVM 19 pass name, level",
    ]
    miscompiling = any(r.flag in MISCOMPILING for r in rows)
    if miscompiling:
        lines += [
            "#ifndef COMPILER_GYM_LLVM_MISCOMPILING_PASS",
            "#define COMPILER_GYM_LLVM_MISCOMPILING_PASS(flag, pipeline, llvm_name, level)",
            "#endif",
        ]
    for r in rows:
        macro = "COMPILER_GYM_LLVM_" + ("MISCOMPILING_PASS" if r.flag in MISCOMPILING else "PASS")
        lines.append(f'{macro}("{r.flag}", "{r.pipeline}", "{r.llvm_name}", {r.level})')
    lines.append("")
    lines.append("#undef COMPILER_GYM_LLVM_PASS")
    if miscompiling:
        lines.append("#undef COMPILER_GYM_LLVM_MISCOMPILING_PASS")
    return "\n".join(lines) + "\n"


def render_markdown(rows: list[Row]) -> str:
    out = [
        "| # | action flag | pipeline (module level) | LLVM 19 pass | level |",
        "|---:|---|---|---|---|",
    ]
    for i, r in enumerate(rows):
        mark = " (appended)" if r.origin == "appended" else ""
        if r.flag in MISCOMPILING:
            mark += " (miscompiles: `PassesAllUnsound` only)"
        out.append(f"| {i} | `{r.flag}`{mark} | `{r.pipeline}` | `{r.llvm_name}` | {r.level} |")
    return "\n".join(out) + "\n"


def determinism_check(
    args, passes: dict[str, PassInfo], rows: list[Row], workdir: Path, version: str
) -> int:
    test_rows = rows
    if args.include_excluded:
        test_rows = build_rows(passes, include_excluded=True)
        test_rows += [make_row(f, e, "candidate", passes) for f, e in EXTRA_CANDIDATES]
    in_table = {r.flag for r in rows}
    inputs = build_inputs(workdir / "det", list(PREPS), args.extra_input)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    single = check_single(test_rows, inputs, workdir, args.runs, args.jobs, args.timeout)
    log(f"single-pass check: {len(test_rows)} passes x {len(inputs)} modules x {args.runs} runs")
    for flag, probs in single.items():
        for p in probs:
            log(
                f"  {flag} on {p['input']}: {p['kind']} "
                f"({p['distinct_outputs']} distinct in {p['runs']} runs"
                f"{'; ' + p['status'] + ': ' + p['message'] if p['kind'] == 'crash' else ''})"
            )

    suspects = [
        r
        for r in test_rows
        if single[r.flag] and all(p["kind"] == "uselist-only" for p in single[r.flag])
    ]
    suspects += [
        r
        for r in test_rows
        if (r.flag in args.leak_check or r.flag in EXCLUDED) and r not in suspects
    ]
    leak_inputs = {k: v for k, v in inputs.items() if not k.endswith(".raw")}
    leaks = check_leaks(
        suspects, test_rows, leak_inputs, workdir, args.leak_runs, args.jobs, args.timeout
    )
    log(
        f"use-list leak check of {[s.flag for s in suspects]}: pass followed by each of "
        f"{len(test_rows)} passes, {args.leak_runs} runs"
    )
    for flag, found in leaks.items():
        log(
            f"  {flag}: {len(found)} (next pass, module) pairs with differing IR"
            + (f", e.g. {found[:5]}" if found else "")
        )

    seq_rows = test_rows if args.include_excluded else rows
    seq = check_sequences(
        seq_rows,
        inputs,
        workdir,
        args.sequences,
        args.seq_length,
        args.seq_runs,
        args.seed,
        args.jobs,
        args.timeout,
    )
    log(
        f"sequence check: {args.sequences} random sequences of {args.seq_length} x "
        f"{len(inputs)} modules "
        f"x {args.seq_runs} runs; {len(seq)} (sequence, module) problems"
    )
    summary: dict[tuple[str, str, str], int] = defaultdict(int)
    for p in seq:
        c = p["culprit"]
        summary[(p["kind"], c["kind"], c["flag"] or "-")] += 1
        if p["kind"] != "uselist-only" or args.verbose:
            prefix = (
                "; prefix " + " ".join(p["flags"][: c["step"] + 1]) if c["step"] is not None else ""
            )
            log(
                f"  seq {p['sequence']} on {p['input']}: {p['kind']}"
                f"{' (' + p['status'] + ')' if p['kind'] == 'crash' else ''}"
                f"; pass by pass: {c['kind']} at step {c['step']} {c['flag'] or ''}"
                f"{prefix}"
            )
    for (kind, ckind, cflag), n in sorted(summary.items()):
        log(f"  {n:4d} x {kind} in one process; pass by pass: {ckind} {cflag}")
    if args.report:
        args.report.write_text(
            json.dumps(
                {
                    "llvm": version,
                    "inputs": sorted(inputs),
                    "single": single,
                    "leaks": leaks,
                    "sequences": seq,
                },
                indent=1,
            )
        )
        log(f"report written to {args.report}")

    # A table row that misbehaves on its own (or leaks nondeterminism into the
    # next pass) means EXCLUDED is out of date: fail.
    failing = sorted(
        {
            f
            for f, probs in single.items()
            if f in in_table and any(p["kind"] != "uselist-only" for p in probs)
        }
        | {f for f, found in leaks.items() if f in in_table and found}
    )
    if failing:
        log(f"error: table actions that crash or are nondeterministic: {failing}")
        return 1
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="passes.def to write")
    ap.add_argument("--no-write", action="store_true", help="validate only")
    ap.add_argument(
        "--print-markdown", action="store_true", help="print the action table as Markdown"
    )
    ap.add_argument(
        "--check-determinism",
        action="store_true",
        help="run every pass repeatedly and in random sequences, compare output hashes",
    )
    ap.add_argument(
        "--include-excluded",
        action="store_true",
        help="also test the EXCLUDED passes and EXTRA_CANDIDATES (determinism check)",
    )
    ap.add_argument("--runs", type=int, default=5, help="repetitions per (pass, input) [5]")
    ap.add_argument("--sequences", type=int, default=60, help="random sequences [60]")
    ap.add_argument("--seq-length", type=int, default=30, help="passes per random sequence [30]")
    ap.add_argument("--seq-runs", type=int, default=3, help="repetitions per (sequence, input) [3]")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random sequences [0]")
    ap.add_argument(
        "--extra-input",
        type=Path,
        action="append",
        default=[],
        help="additional .c/.ll/.bc file used by the determinism check",
    )
    ap.add_argument(
        "--leak-check",
        nargs="*",
        default=KNOWN_USELIST_NONDETERMINISM,
        help="flags to put through the use-list leak check besides the ones found "
        "by the single-pass check [%(default)s]",
    )
    ap.add_argument(
        "--leak-runs", type=int, default=3, help="repetitions per (pass, next pass, input) [3]"
    )
    ap.add_argument("--report", type=Path, help="write the determinism findings as JSON")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per opt run [120]")
    ap.add_argument("--keep-workdir", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every sequence problem")
    args = ap.parse_args()
    if args.check_determinism and min(args.runs, args.seq_runs, args.leak_runs) < 2:
        ap.error("--runs, --seq-runs and --leak-runs must be at least 2 to compare runs")

    for tool in (OPT, CLANG):
        if shutil.which(tool) is None:
            raise SystemExit(f"error: `{tool}` not found on PATH")
    version = opt_version()
    if " 19." not in version:
        raise SystemExit(f"error: expected LLVM 19, `{OPT} --version` says: {version}")
    passes = parse_print_passes()
    rows = build_rows(passes)

    if args.print_markdown:
        sys.stdout.write(render_markdown(rows))
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="gen_pass_table."))
    status = 0
    try:
        inputs = build_inputs(workdir, ["raw", "mem2reg"])
        validate(rows, inputs, workdir, args.jobs, args.timeout)
        print(f"validated {len(rows)} pipelines on {len(inputs)} modules", file=sys.stderr)

        if args.check_determinism:
            status = determinism_check(args, passes, rows, workdir, version)
            if status != 0:
                return status
    finally:
        if args.keep_workdir:
            print(f"workdir kept: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    if not args.no_write:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(render_def(rows, version))
        print(f"wrote {args.output} ({len(rows)} actions)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
