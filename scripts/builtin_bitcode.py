"""Writes each builtin-v0 program's bitcode as the LLVM env has it after reset (clang-19's -O0
build), for machines without clang-19 (the lent GPU machines): there ``file:///DIR/NAME.bc``
loads the same module as ``benchmark://builtin-v0/NAME`` does here.

    python3 scripts/builtin_bitcode.py DIR [NAME ...]     (default: every builtin-v0 program)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import compiler_gym


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with compiler_gym.make("llvm-v0") as env:
        names = args.names or [
            u.rsplit("/", 1)[1] for u in env.datasets["builtin-v0"].benchmark_uris()
        ]
        for name in names:
            env.reset(benchmark=f"benchmark://builtin-v0/{name}")
            env.write_bitcode(args.out / f"{name}.bc")
    print(f"{len(names)} programs' bitcode in {args.out}")


if __name__ == "__main__":
    main()
