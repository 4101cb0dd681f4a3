"""benchmarks/best_known_search.py: the resumable search for each program's best known state,
its committed tables, and the leaderboard entries reported as shares of it (issue 49, item 3)."""

import importlib.util
import io
import json
import math
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvState, CompilerEnvStateReader

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
spec = importlib.util.spec_from_file_location(
    "best_known_search", BENCHMARKS / "best_known_search.py"
)
best_known_search = importlib.util.module_from_spec(spec)
spec.loader.exec_module(best_known_search)

CRC32 = "benchmark://builtin-v0/crc32"


def test_rounds_go_to_the_program_searched_least_in_the_order_given():
    programs, spaces = ["a", "b"], ["PassesAll", "PassesParameterized"]
    progress = {}
    assert best_known_search.next_round(progress, spaces, programs) == ("PassesAll", "a")
    progress = {"PassesAll": {"a": {"rounds": 1}}}
    assert best_known_search.next_round(progress, spaces, programs) == (
        "PassesParameterized",
        "a",
    )
    progress["PassesParameterized"] = {"a": {"rounds": 1}, "b": {"rounds": 0}}
    assert best_known_search.next_round(progress, spaces, programs) == ("PassesAll", "b")


def test_a_state_is_taken_only_when_its_replay_is_valid_and_higher():
    with compiler_gym.make("llvm-ic-v0", benchmark=CRC32) as env:
        env.reset()
        env.multistep([env.action_space["-mem2reg"], env.action_space["-instcombine"]])
        good = env.state
    low = CompilerEnvState(
        CRC32, commandline="opt -mem2reg input.bc -o output.bc", walltime=0, reward=0.1
    )
    taken = best_known_search.accept("PassesAll", good, low)
    assert taken.commandline == good.commandline and taken.reward == pytest.approx(good.reward)
    # A state that claims more than its replay gives is not taken over an equal one.
    claimed = CompilerEnvState(
        CRC32, commandline=good.commandline, walltime=0, reward=good.reward + 1
    )
    assert best_known_search.accept("PassesAll", claimed, good) is None
    # Nor one that does not replay, nor one no higher than the best known.
    absent = CompilerEnvState(
        CRC32, commandline="opt -newgvn input.bc -o output.bc", walltime=0, reward=9
    )
    assert best_known_search.accept("PassesAll", absent, low) is None
    assert best_known_search.accept("PassesAll", low, good) is None


def test_a_run_starts_from_the_leaderboard_and_resumes_where_it_stopped(tmp_path):
    seeded = best_known_search.leaderboard_states()
    log = io.StringIO()
    tables = best_known_search.run(
        [CRC32], seconds=600, round_seconds=1.0, folder=tmp_path, max_rounds=2, log=log
    )
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert {s: list(p) for s, p in progress.items()} == {
        "PassesAll": [CRC32],
        "PassesParameterized": [CRC32],
    }
    assert all(progress[s][CRC32]["rounds"] == 1 for s in progress)
    for space in best_known_search.SPACES:
        # Never below the best committed entry in that space, and each row replays to it.
        assert tables[space][CRC32].reward >= seeded[space][CRC32].reward
        on_disk = best_known_search.read_table(tmp_path, space)
        assert on_disk[CRC32].commandline == tables[space][CRC32].commandline
    # A second run takes the tables and counts on, round by round.
    best_known_search.run(
        [CRC32], seconds=600, round_seconds=1.0, folder=tmp_path, max_rounds=1, log=log
    )
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress["PassesAll"][CRC32]["rounds"] == 2
    assert progress["PassesParameterized"][CRC32]["rounds"] == 1
    for space in best_known_search.SPACES:
        later = best_known_search.read_table(tmp_path, space)[CRC32]
        assert later.reward >= tables[space][CRC32].reward


def test_the_report_gives_each_entry_as_a_share_of_the_best_known(tmp_path):
    a, b = "benchmark://builtin-v0/a", "benchmark://builtin-v0/b"
    best = {"PassesAll": {a: 1.2, b: 1.0}, "PassesParameterized": {a: 1.1, b: 1.25}}
    for space, rewards in best.items():
        best_known_search.write_table(
            tmp_path / "tables",
            space,
            {
                u: CompilerEnvState(
                    u, commandline="opt input.bc -o output.bc", walltime=0, reward=r
                )
                for u, r in rewards.items()
            },
        )
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "x-llvm_instcount.csv").write_text(
        f"benchmark,reward,walltime,commandline\n{a},1.1,1,opt\n{b},1.0,1,opt\n"
    )
    found = best_known_search.report(tmp_path / "tables", entries)
    best_geomean = math.sqrt(1.2 * 1.25)
    assert found["programs"] == 2 and found["best_geomean"] == pytest.approx(best_geomean)
    x = found["entries"]["x"]
    assert x["geomean"] == pytest.approx(math.sqrt(1.1))
    assert x["of_best"] == pytest.approx(math.sqrt(1.1 / 1.2 * 1.0 / 1.25))
    assert x["headroom_share"] == pytest.approx((math.sqrt(1.1) - 1) / (best_geomean - 1))


def test_the_committed_tables_replay_and_are_at_least_every_entry():
    """Each row of benchmarks/best_known/ replays to its reward, its program running like the
    unoptimized one, and no committed leaderboard entry has a higher state in that space."""
    from compiler_gym.bin.validate import main as validate

    seeded = best_known_search.leaderboard_states()
    with compiler_gym.make("llvm-ic-v0") as env:
        programs = sorted(env.datasets["builtin-v0"].benchmark_uris())
    for space in best_known_search.SPACES:
        path = BENCHMARKS / "best_known" / f"{space}.csv"
        states = list(CompilerEnvStateReader.read_paths([str(path)]))
        assert [s.benchmark for s in states] == programs, space
        for state in states:
            assert state.reward >= seeded[space][state.benchmark].reward, state.benchmark
        # The tool finds the space that reads each command line.
        assert validate(["--env", "llvm-ic-v0", str(path)]) == 0, space


def test_the_per_program_table_takes_each_program_s_best_space(tmp_path):
    def state(uri, reward):
        return CompilerEnvState(
            uri, commandline="opt input.bc -o output.bc", walltime=0, reward=reward
        )

    a, b = "benchmark://builtin-v0/a", "benchmark://builtin-v0/b"
    best_known_search.write_table(tmp_path, "PassesAll", {a: state(a, 1.1), b: state(b, 0.9)})
    best_known_search.write_table(tmp_path, "PassesParameterized", {a: state(a, 1.05)})
    entry = tmp_path / "mine-llvm_instcount.csv"
    with open(entry, "w") as f, best_known_search.CompilerEnvStateWriter(f) as writer:
        writer.write_state(state(a, 1.1), flush=False)
        writer.write_state(state(b, 0.45), flush=False)
    assert best_known_search.per_program(tmp_path, entry).splitlines() == [
        "| program | PassesAll | PassesParameterized | best | mine | of best |",
        "|---|---:|---:|---:|---:|---:|",
        "| a | 1.1000 | 1.0500 | 1.1000 | 1.1000 | 1.0000 |",
        "| b | 0.9000 | - | 0.9000 | 0.4500 | 0.5000 |",
    ]
