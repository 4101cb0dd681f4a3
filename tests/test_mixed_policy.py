"""The shipped policy ``mixed-v0`` (a library over both LLVM action spaces, learned on the
corpus's train side by benchmarks/leaderboard/sequence_library/train.py): its choice follows
from the committed reward matrix, it never trained on a held-out program, it takes a fixed
state on a fixed program, and its committed held-out results replay."""

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvStateReader
from compiler_gym.datasets.corpus import group_of
from compiler_gym.optimize import POLICY_DIR
from compiler_gym.search.sequence_library import (
    SequenceLibrary,
    library_policy,
    select_library,
    size_runtime,
)

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = POLICY_DIR / "mixed-v0.txt"
MATRIX = ROOT / "benchmarks" / "leaderboard" / "sequence_library" / "mixed.npz"
ENTRY = ROOT / "benchmarks" / "leaderboard" / "sequence_library_mixed-llvm_instcount.csv"
HELD_OUT = sorted((ROOT / "benchmarks" / "held_out").glob("sequence_library_mixed-*.csv"))

spec = importlib.util.spec_from_file_location(
    "train", ROOT / "benchmarks" / "leaderboard" / "sequence_library" / "train.py"
)
train = importlib.util.module_from_spec(spec)
spec.loader.exec_module(train)


def test_the_library_is_the_cover_of_its_committed_reward_matrix():
    saved = np.load(MATRIX)
    programs = [str(p) for p in saved["programs"]]
    kept, relative = train.start_relative(programs, saved["rewards"], saved["counts"])
    assert len(programs) == 163 and len(kept) == 158  # -Oz grows 5 of them: left out
    chosen = select_library(relative, 64)
    library = SequenceLibrary.load(LIBRARY)
    assert len(chosen) == len(library.sequences) == 36
    assert [tuple(str(saved["candidates"][i]).split()) for i in chosen] == list(library.sequences)
    assert [str(saved["spaces"][i]) for i in chosen] == [library.space(i) for i in range(36)]
    assert {library.space(i) for i in range(36)} == {"PassesAll", "PassesParameterized"}


def test_start_relative_rewards_score_oz_as_one():
    # A program whose O0 baseline (always_inline inlined) exceeds its start: 100 -> 40 by -Oz
    # is a reward of 60/160 against the baseline of 200, and 1 against its start.
    rewards = np.array([[60 / 160, 0.5], [0.75, 0.25]])
    counts = np.array([[100, 200, 40], [50, 50, 60]])  # the second: -Oz grows it
    kept, relative = train.start_relative(["a", "b"], rewards, counts)
    assert kept == [0]
    assert relative[:, 0] == pytest.approx([1.0, 2.0])


def test_no_training_program_is_in_a_held_out_group():
    programs = {str(p) for p in np.load(MATRIX)["programs"]}
    assert all(group_of(uri).split == "train" for uri in programs)
    assert HELD_OUT
    for path in HELD_OUT:
        states = list(CompilerEnvStateReader.read_paths([str(path)]))
        assert states
        for state in states:
            assert state.benchmark not in programs
            assert group_of(state.benchmark).split == "held-out"


def test_the_policy_on_a_fixed_program_takes_a_fixed_state():
    entry = {s.benchmark: s for s in CompilerEnvStateReader.read_paths([str(ENTRY)])}
    crc32 = entry["benchmark://builtin-v0/crc32"]
    with compiler_gym.make("llvm-ic-v0", benchmark=crc32.benchmark) as env:
        state = library_policy(env, SequenceLibrary.load(LIBRARY))
        assert state.commandline == crc32.commandline
        assert state.reward == pytest.approx(crc32.reward, rel=1e-9)
        assert env.action_space.name == "PassesAll" and state.reward > 1.08


def test_the_budget_grows_with_the_program_up_to_its_cap():
    assert size_runtime(2372, 2.5, 0.4, 25) == 2.5  # builtin-v0's largest
    assert size_runtime(12851, 2.5, 0.4, 25) == pytest.approx(5.1404)
    assert size_runtime(69121, 2.5, 0.4, 25) == 25
    assert size_runtime(69121, 2.5) == 2.5


@pytest.mark.parametrize("path", HELD_OUT, ids=lambda p: p.stem)
def test_the_held_out_results_replay(path):
    from compiler_gym.bin.validate import main as validate

    states = list(CompilerEnvStateReader.read_paths([str(path)]))
    dataset = states[0].benchmark.split("//", 1)[1].split("/", 1)[0]
    with compiler_gym.make("llvm-v0") as env:
        if dataset == "pypi-c-v0" and not env.datasets[dataset].installed:
            pytest.skip("pypi-c-v0 is not installed (it needs PyPI's sdists)")
        if dataset == "debian-c-v0" and shutil.which("apt-get") is None:
            pytest.skip("debian-c-v0 needs Debian's apt-get")
    assert validate(["--env", "llvm-ic-v0", str(path)]) == 0, path
