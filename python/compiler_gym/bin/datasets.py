"""List, install and uninstall the datasets of an environment.

python -m compiler_gym.bin.datasets [--env llvm-v0] list
python -m compiler_gym.bin.datasets install generator://csmith-v0
python -m compiler_gym.bin.datasets uninstall generator://csmith-v0
"""

from __future__ import annotations

import argparse
import shutil

from tabulate import tabulate

import compiler_gym
from compiler_gym.errors import DatasetInitError
from compiler_gym.util.cli import user_errors
from compiler_gym.util.runfiles import cache_path, site_data_path


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns the exit status: 1 when a
    dataset is unknown or fails to install, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="llvm-v0")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the datasets, with sizes and licenses")
    for name in ("install", "uninstall"):
        p = sub.add_parser(name)
        p.add_argument("dataset", nargs="+")
    args = parser.parse_args(argv)

    with compiler_gym.make(args.env) as env:
        if args.command == "list":
            rows = [
                (d.name, d.size_text, d.license, "yes" if d.installed else "no", d.description)
                for d in env.datasets
            ]
            header = ("dataset", "size", "license", "installed", "description")
            print(tabulate(rows, header))
            return 0
        status = 0
        for name in args.dataset:
            try:
                dataset = env.datasets.dataset(name)
            except LookupError as e:
                print(f"error: {e}")
                status = 1
                continue
            if args.command == "install":
                try:
                    dataset.install()
                except DatasetInitError as e:
                    print(f"error: {e}")
                    status = 1
                    continue
                print(
                    f"{dataset.name}: installed"
                    if dataset.installed
                    else f"{dataset.name}: not installed (see its description)"
                )
            else:
                # Generated and downloaded files live under the cache and site-data dirs.
                short = dataset.name.split("://")[-1]
                for root in (cache_path(short), site_data_path(short)):
                    shutil.rmtree(root, ignore_errors=True)
                print(f"{dataset.name}: removed cached files")
        return status


if __name__ == "__main__":
    raise SystemExit(main())
