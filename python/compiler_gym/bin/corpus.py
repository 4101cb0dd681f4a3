"""The training corpus and its held-out split (compiler_gym.datasets.corpus).

python -m compiler_gym.bin.corpus groups
python -m compiler_gym.bin.corpus list --split train > train.txt
python -m compiler_gym.bin.corpus list --split held-out --max-instructions 20000
python -m compiler_gym.bin.corpus stats --group csmith-v0 --sample 200 --json stats.json

``list`` prints a split's benchmark URIs (``--split train`` or ``held-out``), one a line, in a
fixed order; with ``--max-instructions`` (or ``--min-instructions``) only the programs that
load and whose unoptimized IR is that size (each loaded once, then cached). ``stats`` loads
each group's programs (or an evenly spaced ``--sample`` of them) and reports how many load,
their IR instructions and the seconds it took, with a sample's figures scaled to the whole
group (``--json`` writes them too). Both take ``--group`` (repeatable) to choose groups,
``--no-install`` to skip the groups whose dataset is not installed (gcc-torture-v0 and
pypi-c-v0 download on first use), and ``--quiet`` for no progress bar."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path

from tabulate import tabulate

from compiler_gym.datasets import corpus
from compiler_gym.envs.llvm_env import llvm_datasets
from compiler_gym.util.cli import argument_parser, parse_args, user_errors


def _add_selection(parser, split_required: bool) -> None:
    parser.add_argument(
        "--split",
        required=split_required,
        help="train or held-out" + ("" if split_required else " (default: both)"),
    )
    parser.add_argument(
        "--group",
        action="append",
        dest="groups",
        metavar="NAME",
        help="only this group (repeatable; see the groups command)",
    )
    parser.add_argument(
        "--no-install",
        dest="install",
        action="store_false",
        help="skip the groups whose dataset is not installed instead of installing it",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns the exit status (2 for
    an unknown split or group)."""
    parser = argument_parser("compiler_gym.bin.corpus", __doc__)
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="command", help="groups, list or stats"
    )
    sub.add_parser("groups", help="the corpus groups: split, dataset and selection rule")
    listing = sub.add_parser("list", help="the benchmark URIs of a split, one a line")
    _add_selection(listing, split_required=True)
    listing.add_argument(
        "--max-instructions", type=int, help="only programs of at most this many IR instructions"
    )
    listing.add_argument(
        "--min-instructions", type=int, default=0, help="only programs of at least this many"
    )
    stats = sub.add_parser("stats", help="programs, loads, instructions and seconds per group")
    _add_selection(stats, split_required=False)
    stats.add_argument(
        "--sample",
        type=int,
        help="measure at most this many programs of each group (evenly spaced)",
    )
    stats.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parse_args(parser, argv)

    if args.command == "groups":
        rows = [(g.name, g.split, g.dataset, g.rule, g.note) for g in corpus.GROUPS]
        print(tabulate(rows, ("group", "split", "dataset", "programs", "what")))
        return 0
    chosen = corpus.groups(args.split, args.groups)  # LookupError for unknown names: status 2
    if args.command == "list":
        uris = corpus.corpus_uris(
            args.split,
            max_instructions=args.max_instructions,
            min_instructions=args.min_instructions,
            group_names=[g.name for g in chosen],
            install=args.install,
            progress=not args.quiet,
        )
        try:
            for uri in uris:
                print(uri, flush=args.max_instructions is not None)
        except BrokenPipeError:  # `| head`: the reader has all it wants
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return _stats(args, chosen)


def _stats(args, chosen: list) -> int:
    datasets = llvm_datasets()
    if not args.install:
        chosen = [g for g in chosen if corpus.available(g, datasets)]
    results = []
    with corpus.InstructionCounter() as counter:
        for g in chosen:
            results.append(
                corpus.group_stats(g, counter, datasets, args.sample, progress=not args.quiet)
            )
            r = results[-1]
            # One line per group as it ends: a long run shows its figures as they come.
            print(
                f"{r['group']}: {r['loaded']}/{r['measured']} of {r['programs']} loaded, "
                f"{r['instructions']} instructions, {r['seconds']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    header = ("group", "split", "programs", "measured", "loaded", "instructions", "median")
    header += ("largest", "seconds", "est. instructions", "est. seconds")
    rows = [
        (r["group"], r["split"], r["programs"], r["measured"], r["loaded"], r["instructions"])
        + (r["median_instructions"], r["max_instructions"], r["seconds"])
        + (r["estimated_instructions"], r["estimated_seconds"])
        for r in results
    ]
    print(tabulate(rows, header))
    if args.json:
        report = {
            "command": "python -m compiler_gym.bin.corpus " + " ".join(sys.argv[1:]),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "sample": args.sample,
            "groups": results,
        }
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
