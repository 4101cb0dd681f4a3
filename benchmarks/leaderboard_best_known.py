"""Per program of builtin-v0, the best state any committed leaderboard entry found (every one
validated), and their geometric mean: how far above -Oz any of our methods has reached, the
figure a target over the whole suite is measured against.

    python3 benchmarks/leaderboard_best_known.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from compiler_gym.compiler_env_state import CompilerEnvStateReader

ENTRIES = Path(__file__).resolve().parent / "leaderboard"
SUFFIX = "-llvm_instcount.csv"


def best_known(entries: Path = ENTRIES) -> dict:
    """``{"programs": {uri: (reward, entry)}, "geomean": g, "entries": {entry: geomean}}``."""
    best: dict[str, tuple[float, str]] = {}
    geomeans = {}
    for path in sorted(entries.glob(f"*{SUFFIX}")):
        name = path.name.removesuffix(SUFFIX)
        states = list(CompilerEnvStateReader.read_paths([str(path)]))
        geomeans[name] = math.exp(sum(math.log(s.reward) for s in states) / len(states))
        for s in states:
            if s.reward > best.get(s.benchmark, (-math.inf, ""))[0]:
                best[s.benchmark] = (s.reward, name)
    geomean = math.exp(sum(math.log(r) for r, _ in best.values()) / len(best))
    return {"programs": dict(sorted(best.items())), "geomean": geomean, "entries": geomeans}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    found = best_known()
    for uri, (reward, entry) in found["programs"].items():
        print(f"{uri.rsplit('/', 1)[-1]:14} {reward:.4f}  {entry}")
    for entry, geomean in sorted(found["entries"].items(), key=lambda e: -e[1]):
        print(f"{entry:24} {geomean:.4f}")
    print(f"best known per program, geomean over {len(found['programs'])}: {found['geomean']:.4f}")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n")


if __name__ == "__main__":
    main()
