"""List, install and uninstall the datasets of an environment.

python -m compiler_gym.bin.datasets [--env llvm-v0] list
python -m compiler_gym.bin.datasets install generator://csmith-v0
python -m compiler_gym.bin.datasets uninstall generator://csmith-v0
"""

from __future__ import annotations

import sys

from tabulate import tabulate

import compiler_gym
from compiler_gym.errors import DatasetInitError
from compiler_gym.util.cli import argument_parser, check_dataset, clip, parse_args, user_errors

#: The widths of the license and description columns of ``list``.
LICENSE_WIDTH = 24
DESCRIPTION_WIDTH = 56


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns the exit status: 1 when a
    dataset is unknown or fails to install, else 0."""
    parser = argument_parser("compiler_gym.bin.datasets", __doc__)
    parser.add_argument(
        "--env",
        default="llvm-v0",
        help="the environment whose datasets to work on (default llvm-v0)",
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="command", help="list, install or uninstall"
    )
    sub.add_parser("list", help="the datasets, with sizes and licenses")
    for name, what in (
        ("install", "install datasets"),
        ("uninstall", "remove the files of datasets"),
    ):
        p = sub.add_parser(name, help=what, description=f"{what[0].upper()}{what[1:]}.")
        p.add_argument(
            "dataset", nargs="+", help="a dataset name, e.g. csmith-v0 or generator://csmith-v0"
        )
    args = parse_args(parser, argv)

    with compiler_gym.make(args.env) as env:
        if args.command == "list":
            # Long licenses and descriptions are cut, so that a row fits a wide terminal.
            rows = [
                (
                    d.name,
                    d.size_text,
                    clip(d.license, LICENSE_WIDTH),
                    "yes" if d.installed else "no",
                    clip(d.description, DESCRIPTION_WIDTH),
                )
                for d in env.datasets
            ]
            header = ("dataset", "size", "license", "installed", "description")
            print(tabulate(rows, header))
            return 0
        status = 0
        for name in args.dataset:
            try:
                dataset = check_dataset(env, name)
            except LookupError as e:
                print(f"error: {e}", file=sys.stderr)
                status = 1
                continue
            if args.command == "install":
                try:
                    dataset.install()
                except DatasetInitError as e:
                    print(f"error: {e}", file=sys.stderr)
                    status = 1
                    continue
                print(
                    f"{dataset.name}: installed"
                    if dataset.installed
                    else f"{dataset.name}: not installed (see its description)"
                )
            else:
                # Each dataset knows where its files are (CompilerGym's under llvm-v0/).
                dataset.uninstall()
                print(f"{dataset.name}: removed cached files")
        return status


if __name__ == "__main__":
    raise SystemExit(main())
