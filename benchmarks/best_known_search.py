"""The best known state of each program, per action space: a long, resumable search whose
per-program bests are committed as tables (``benchmarks/best_known/<space>.csv``), so that a
policy is reported as a share of the best known, not only against -Oz (issue 49, item 3).

    python3 benchmarks/best_known_search.py --hours 2            # builtin-v0, both spaces
    python3 benchmarks/best_known_search.py --hours 8 --split held-out --max-instructions 20000
    python3 benchmarks/best_known_search.py --report             # the tables, and the shares

The search goes in rounds of ``--round-seconds`` on one (space, program) at a time, always the
one searched least so far (ties: the table's order), so that any number of runs, stopped
anywhere, add up to one long search. A round starts from the program's best known state:

* ``PassesAll`` (one LLVM pass per action): round ``r`` of a program is, by ``r % 3``, a fresh
  random search, a random search whose first episode follows the best known actions and goes
  on at random, or a greedy search stepping on from the best known state.
* ``PassesParameterized`` (pipelines with options, ``default<Oz>`` among them): a climb over
  pipelines from the best known one and from ``default<Oz>`` (seeded with ``r``).

Every search validates in the loop, and a result replaces a table's row only when it is
higher and ``env.validate()`` passes on its replay (its program runs like the unoptimized
one). Each table is rewritten whole (to a temporary file, then renamed) after each
improvement, and ``progress.json`` counts the rounds and seconds of every (space, program):
stopping at any point loses at most the round under way. Each run first takes the committed
leaderboard entries' states (each in the space that reads it) where they beat a row, so a
table starts from them and stays at least every entry (``--hours 0`` does only that).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Optional

import compiler_gym
from compiler_gym.compiler_env_state import (
    CompilerEnvState,
    CompilerEnvStateReader,
    CompilerEnvStateWriter,
)
from compiler_gym.search import greedy_search, random_search
from compiler_gym.search.sequence_library import SequenceLibrary, library_policy

HERE = Path(__file__).resolve().parent
TABLES = HERE / "best_known"
ENTRIES = HERE / "leaderboard"
SPACES = ("PassesAll", "PassesParameterized")
ENV = "llvm-ic-v0"  # reward IrInstructionCountOz: the leaderboard's


def geomean(values: Iterable[float]) -> float:
    """The geometric mean (0 when any value is 0 or less, as the leaderboard scores)."""
    values = list(values)
    if not values or min(values) <= 0:
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def read_table(folder: Path, space: str) -> dict[str, CompilerEnvState]:
    """The best known state of each program in ``space``'s table (empty when none)."""
    path = folder / f"{space}.csv"
    if not path.is_file():
        return {}
    return {s.benchmark: s for s in CompilerEnvStateReader.read_paths([str(path)])}


def write_table(folder: Path, space: str, table: dict[str, CompilerEnvState]) -> None:
    """Writes ``space``'s table whole, in program order, replacing the file atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{space}.csv"
    temporary = path.with_suffix(".csv.tmp")
    with open(temporary, "w", newline="") as f, CompilerEnvStateWriter(f) as writer:
        for uri in sorted(table):
            writer.write_state(table[uri], flush=False)
    os.replace(temporary, path)


def read_progress(folder: Path) -> dict[str, dict[str, dict[str, float]]]:
    """``{space: {uri: {"rounds": n, "seconds": s}}}`` of the runs so far."""
    path = folder / "progress.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def write_progress(folder: Path, progress: dict) -> None:
    """Writes ``progress.json`` atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "progress.json"
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(progress, indent=1, sort_keys=True) + "\n")
    os.replace(temporary, path)


def space_of(env: Any, commandline: str) -> Optional[str]:
    """The first of :data:`SPACES` whose action space reads ``commandline`` (None: neither)."""
    for space in SPACES:
        env.action_space = space
        try:
            env.action_space.from_string(commandline)
        except ValueError:
            continue
        return space
    return None


def leaderboard_states(entries: Path = ENTRIES) -> dict[str, dict[str, CompilerEnvState]]:
    """Per space, the best state of each program among the committed leaderboard entries."""
    best: dict[str, dict[str, CompilerEnvState]] = {space: {} for space in SPACES}
    with compiler_gym.make(ENV) as env:
        for path in sorted(entries.glob("*-llvm_instcount.csv")):
            for state in CompilerEnvStateReader.read_paths([str(path)]):
                space = space_of(env, state.commandline)
                if space is None:
                    continue
                held = best[space].get(state.benchmark)
                if held is None or state.reward > held.reward:
                    best[space][state.benchmark] = state
    return best


def search_round(
    space: str, uri: str, start: Optional[CompilerEnvState], round_index: int, seconds: float
) -> Optional[CompilerEnvState]:
    """One round on ``uri`` in ``space`` from its best known state ``start`` (None: from the
    program's start), seeded with ``round_index``; the state the round found, or None."""
    with compiler_gym.make(ENV, benchmark=uri, action_space=space) as env:
        env.reset()
        actions = env.commandline_to_actions(start.commandline) if start else []
        if space == "PassesParameterized":
            flags = [env.action_space.flags[a] for a in actions]
            starts = [tuple(flags)] if flags else []
            starts.append(("default<Oz>",))
            library = SequenceLibrary(tuple(starts), action_space=space)
            return library_policy(
                env, library, refine_seconds=seconds, runtime=seconds, seed=round_index
            )
        strategy = round_index % 3
        if strategy == 2 and actions:  # greedy, stepping on from the best known state
            env.multistep(actions)
            return greedy_search(env, runtime=seconds)
        state, _ = random_search(
            env,
            patience=50,
            runtime=seconds,
            num_envs=2,
            seed=round_index,
            first_episode=actions if strategy == 1 else (),
        )
        return state


def accept(space: str, state: Optional[CompilerEnvState], held: Optional[CompilerEnvState]):
    """``state`` when it beats ``held`` and replays valid (reward recomputed on the replay);
    else None."""
    if state is None or (held is not None and not state.reward > held.reward):
        return None
    with compiler_gym.make(ENV, action_space=space) as env:
        result = env.validate(state)
        if not result.okay():
            print(f"  refused on replay: {result}", file=sys.stderr)
            return None
        env.apply(state)
        if held is not None and not env.episode_reward > held.reward:
            return None  # the search's figure was above it, the replay's is not
        return CompilerEnvState(
            benchmark=state.benchmark,
            commandline=state.commandline,
            walltime=state.walltime,
            reward=env.episode_reward,
        )


def merge_entries(
    tables: dict[str, dict[str, CompilerEnvState]],
    programs: Sequence[str],
    folder: Path,
    log: Any = sys.stdout,
    entries: Path = ENTRIES,
) -> None:
    """Takes into ``tables`` (and their files) each committed leaderboard entry's state that
    beats the table's row (:func:`accept`: its replay higher and valid): a table starts from
    the entries, and is at least every entry that came later."""
    for space, states in leaderboard_states(entries).items():
        if space not in tables:
            continue
        taken = 0
        for uri, state in states.items():
            if uri not in programs:
                continue
            found = accept(space, state, tables[space].get(uri))
            if found is not None:
                tables[space][uri] = found
                taken += 1
        if taken or not (folder / f"{space}.csv").is_file():
            write_table(folder, space, tables[space])
            print(f"{space}: {taken} rows from the leaderboard entries", file=log, flush=True)


def next_round(progress: dict, spaces: Sequence[str], programs: Sequence[str]) -> tuple:
    """The (space, program) searched least so far: fewest rounds, then the order given."""
    order = [(s, p) for p in programs for s in spaces]
    return min(order, key=lambda sp: progress.get(sp[0], {}).get(sp[1], {}).get("rounds", 0))


def run(
    programs: Sequence[str],
    spaces: Sequence[str] = SPACES,
    seconds: float = 3600.0,
    round_seconds: float = 30.0,
    folder: Path = TABLES,
    max_rounds: Optional[int] = None,
    log: Any = sys.stdout,
) -> dict[str, dict[str, CompilerEnvState]]:
    """Searches for ``seconds`` (or ``max_rounds`` rounds) and returns the tables. Resumes
    from (and updates) the tables and progress in ``folder``."""
    tables = {space: read_table(folder, space) for space in spaces}
    merge_entries(tables, programs, folder, log)
    progress = read_progress(folder)
    end, rounds = time.monotonic() + seconds, 0
    while time.monotonic() + round_seconds <= end and (max_rounds is None or rounds < max_rounds):
        space, uri = next_round(progress, spaces, programs)
        counts = progress.setdefault(space, {}).setdefault(uri, {"rounds": 0, "seconds": 0.0})
        held = tables[space].get(uri)
        start = time.monotonic()
        found = accept(
            space, search_round(space, uri, held, int(counts["rounds"]), round_seconds), held
        )
        counts["rounds"] += 1
        counts["seconds"] = round(counts["seconds"] + time.monotonic() - start, 3)
        if found is not None:
            tables[space][uri] = found
            write_table(folder, space, tables[space])
            before = f"{held.reward:.4f}" if held else "none"
            print(f"{space:19} {uri}: {before} -> {found.reward:.4f}", file=log, flush=True)
        write_progress(folder, progress)
        rounds += 1
    return tables


def report(folder: Path = TABLES, entries: Path = ENTRIES) -> dict:
    """Each committed leaderboard entry against the best known (over both spaces, program by
    program): its geomean, the geomean of its reward over the best known per program, and its
    share of the best known's headroom above -Oz, ``(geomean - 1) / (best - 1)``."""
    tables = {space: read_table(folder, space) for space in SPACES}
    programs = sorted(set().union(*tables.values()))
    best = {uri: max(t[uri].reward for t in tables.values() if uri in t) for uri in programs}
    best_geomean = geomean(best.values())
    rows = {}
    for path in sorted(entries.glob("*-llvm_instcount.csv")):
        states = {s.benchmark: s for s in CompilerEnvStateReader.read_paths([str(path)])}
        if set(states) != set(programs):
            continue
        entry = geomean(s.reward for s in states.values())
        rows[path.name.removesuffix("-llvm_instcount.csv")] = {
            "geomean": entry,
            "of_best": geomean(states[u].reward / best[u] for u in programs),
            "headroom_share": (entry - 1) / (best_geomean - 1) if best_geomean > 1 else None,
        }
    return {
        "programs": len(programs),
        "best_geomean": best_geomean,
        "spaces": {s: geomean(t[u].reward for u in t) for s, t in tables.items() if t},
        "entries": rows,
    }


def per_program(folder: Path = TABLES, entry: Optional[Path] = None) -> str:
    """A markdown table of each program's best known reward in each space and over both,
    with ``entry``'s reward (a leaderboard CSV) and its share of the best where given."""
    tables = {space: read_table(folder, space) for space in SPACES}
    states = {}
    if entry is not None:
        states = {s.benchmark: s for s in CompilerEnvStateReader.read_paths([str(entry)])}
    name = entry.name.removesuffix("-llvm_instcount.csv") if entry is not None else ""
    head = ["program", *SPACES, "best"] + ([name, "of best"] if states else [])
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for uri in sorted(set().union(*tables.values())):
        rewards = [tables[space][uri].reward if uri in tables[space] else None for space in SPACES]
        best = max(r for r in rewards if r is not None)
        cells = [uri.rsplit("/", 1)[-1]] + [f"{r:.4f}" if r is not None else "-" for r in rewards]
        cells.append(f"{best:.4f}")
        if states:
            cells += [f"{states[uri].reward:.4f}", f"{states[uri].reward / best:.4f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=1.0, help="time to search, in all")
    parser.add_argument("--round-seconds", type=float, default=30.0, help="seconds per round")
    parser.add_argument("--spaces", nargs="+", default=list(SPACES), choices=SPACES)
    parser.add_argument("--split", help="a corpus split (held-out) instead of builtin-v0")
    parser.add_argument("--max-instructions", type=int, help="with --split: the largest")
    parser.add_argument("--folder", type=Path, default=TABLES, help="the tables' folder")
    parser.add_argument("--report", action="store_true", help="print the shares and stop")
    parser.add_argument(
        "--per-program",
        type=Path,
        nargs="?",
        const=False,
        help="print each program's best known as markdown (beside an entry CSV) and stop",
    )
    args = parser.parse_args(argv)
    if args.per_program is not None:
        print(per_program(args.folder, args.per_program or None))
        return
    if args.report:
        found = report(args.folder)
        print(f"best known over {found['programs']} programs: {found['best_geomean']:.4f}")
        for space, value in found["spaces"].items():
            print(f"  {space:19} {value:.4f}")
        print(f"{'entry':28} {'geomean':>8} {'of best':>8} {'headroom':>9}")
        for name, row in sorted(found["entries"].items(), key=lambda r: -r[1]["geomean"]):
            share = row["headroom_share"]
            share = f"{share:9.1%}" if share is not None else f"{'-':>9}"
            print(f"{name:28} {row['geomean']:8.4f} {row['of_best']:8.4f} {share}")
        return
    if args.split:
        from compiler_gym.datasets.corpus import corpus_uris

        programs = list(corpus_uris(args.split, max_instructions=args.max_instructions))
    else:
        with compiler_gym.make(ENV) as env:
            programs = sorted(env.datasets["builtin-v0"].benchmark_uris())
    run(programs, args.spaces, args.hours * 3600, args.round_seconds, args.folder)


if __name__ == "__main__":
    main()
