"""The sequence-library policy (compiler_gym.search.sequence_library): a deterministic
selection, deterministic candidates, states that replay, and a planted miscompile refused."""

import numpy as np
import pytest

import compiler_gym
from compiler_gym.envs.llvm_env import pass_table
from compiler_gym.search.sequence_library import (
    SequenceLibrary,
    improve_sequences,
    library_policy,
    mutants,
    reward_matrix,
    select_library,
)
from conftest import planted_llvm_env

BENCHMARK = "benchmark://builtin-v0/crc32"
LIBRARY = SequenceLibrary(
    (
        ("-mem2reg", "-instcombine", "-simplifycfg"),
        ("-sroa", "-gvn", "-instcombine", "-simplifycfg", "-dce"),
        ("-mem2reg",),
    )
)


def test_the_selection_is_a_greedy_cover_of_the_geometric_mean():
    rewards = np.array(
        [
            [1.0, 0.5, 0.5],
            [0.6, 1.2, 0.6],
            [0.9, 0.9, 0.9],
            [0.2, np.nan, 1.5],  # a failure counts as the floor
            [0.9, 0.9, 0.9],  # the same as row 2: never adds anything
        ]
    )
    # Row 2 alone is the best geomean; then row 3 raises program 2 most (log 1.5 - log 0.9),
    # then row 1 (program 1), then row 0 (program 0); row 4 adds nothing and ends it.
    assert select_library(rewards, 2) == [2, 3]
    assert select_library(rewards, 10) == [2, 3, 1, 0]
    assert select_library(rewards[::-1], 1) == [0]  # among equals, the lowest index


def test_mutants_are_one_edit_away_and_seeded():
    start = [5, 6, 7, 8]
    a = mutants(start, 50, 100, np.random.default_rng(3))
    assert a == mutants(start, 50, 100, np.random.default_rng(3))
    assert a != mutants(start, 50, 100, np.random.default_rng(4))
    for m in a:
        if len(m) != len(start):  # a pass deleted or inserted
            assert len(m) - len(start) in (-1, 1)
            shorter, longer = (m, start) if len(m) < len(start) else (start, m)
            assert any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))
        elif sorted(m) == sorted(start):  # two passes swapped (or one with itself)
            assert sum(x != y for x, y in zip(m, start, strict=True)) in (0, 2)
        else:  # one pass replaced
            assert sum(x != y for x, y in zip(m, start, strict=True)) == 1
    assert {len(m) for m in a} == {3, 4, 5}
    # From nothing, only an insertion is an edit.
    assert all(len(m) == 1 for m in mutants([], 5, 10, np.random.default_rng(0)))


def test_a_library_file_round_trips_and_names_unknown_flags(tmp_path):
    path = tmp_path / "library.txt"
    LIBRARY.save(path, header="three sequences\nfor a test")
    assert path.read_text().startswith("# three sequences\n# for a test\n-mem2reg -instcombine")
    assert SequenceLibrary.load(path) == LIBRARY
    with compiler_gym.make("llvm-v0") as env:
        flags = env.action_space.flags
        assert LIBRARY.actions(env)[2] == [flags.index("-mem2reg")]
        with pytest.raises(KeyError, match="-no-such-pass"):
            SequenceLibrary((("-mem2reg", "-no-such-pass"),)).actions(env)


def test_a_library_of_pipelines_names_its_action_space(tmp_path):
    """A library of the PassesParameterized space keeps its space in its file, and the policy
    resets an env in the default space into it: its state is an ``opt -passes=`` command line
    that validates, at least as good as -Oz (``default<Oz>`` is a sequence)."""
    path = tmp_path / "pipelines.txt"
    pipelines = SequenceLibrary(
        (("default<Oz>",), ("elim-avail-extern", "default<Oz>", "slp-vectorizer")),
        action_space="PassesParameterized",
    )
    pipelines.save(path, header="two pipelines")
    assert path.read_text().startswith("# two pipelines\n[PassesParameterized]\ndefault<Oz>\n")
    assert SequenceLibrary.load(path) == pipelines
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
        env.reset()
        state = library_policy(env, pipelines)
        assert env.action_space.name == "PassesParameterized"
        assert state.commandline.startswith("opt '-passes=") and state.reward >= 1.0
        assert env.validate(state).okay()
        with pytest.raises(KeyError, match="-mem2reg"):
            library_policy(env, LIBRARY)  # classic flags are not pipeline elements


def test_candidates_and_rewards_are_the_same_for_the_same_seed():
    with compiler_gym.make("llvm-ic-v0") as env:
        starts = LIBRARY.actions(env)
        benchmarks = [BENCHMARK, "benchmark://builtin-v0/bitcount"]
        first = improve_sequences(env, benchmarks, starts, seed=7, rounds=2, batch=4)
        assert first == improve_sequences(env, benchmarks, starts, seed=7, rounds=2, batch=4)
        rewards = reward_matrix(env, starts + first, benchmarks)
        # A climb keeps its start unless a mutant does better: never worse than the starts.
        for j in range(2):
            assert rewards[3 + j, j] >= rewards[:3, j].max()
        assert np.array_equal(rewards, reward_matrix(env, starts + first, benchmarks))


def test_the_policy_takes_the_best_candidate_and_its_state_replays():
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
        env.reset()
        expected = env.try_actions(LIBRARY.actions(env)).max()
        env.step(0)  # the policy starts from the benchmark's start
        state = library_policy(env, LIBRARY)
        assert state.reward == pytest.approx(expected, rel=1e-12)
        assert env.validate(state).okay()
        sha1 = env.observation["IrSha1"]
        climbed = library_policy(env, LIBRARY, refine_rounds=3, seed=1)
        assert climbed.reward >= state.reward
        assert library_policy(env, LIBRARY, refine_rounds=3, seed=1) == climbed
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as replay:
        replay.reset()
        replay.multistep(replay.commandline_to_actions(state.commandline))
        assert replay.observation["IrSha1"] == sha1
        assert replay.episode_reward == pytest.approx(state.reward, rel=1e-12)


def test_a_candidate_whose_program_breaks_is_refused():
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
        env.reset()
        actions = LIBRARY.actions(env)
        rewards = env.try_actions(actions)
    best, second = np.argsort(-rewards, kind="stable")[:2]
    planted = actions[best][-1]  # the last pass of the best sequence
    pipeline = pass_table()[planted][1] + ",compiler-gym-test-miscompile"
    Planted = planted_llvm_env(planted, pipeline)
    only_best = SequenceLibrary(
        tuple(s for s, a in zip(LIBRARY.sequences, actions, strict=True) if planted not in a)
    )
    with Planted("llvm-ic-v0", benchmark=BENCHMARK) as env:
        env.reset()
        broken = library_policy(env, LIBRARY, validate=False)
        assert broken.reward == rewards[best] and not env.validate(broken).okay()
        state = library_policy(env, LIBRARY)  # validation on: crc32 runs
        assert env.validate(state).okay()
        # The best sequence without the planted pass, whichever that is.
        env.reset()
        assert state.reward == pytest.approx(env.try_actions(only_best.actions(env)).max())
        assert state.reward <= rewards[second]


def test_a_library_over_two_spaces_takes_the_best_of_both(tmp_path):
    """A library may span action spaces: its file switches space with a ``[NAME]`` line, each
    sequence is tried in its own space, and the env ends in the winner's, its state replaying
    there. On crc32 ``default<Oz>`` (reward 1 exactly) beats ``-mem2reg`` and ``-sroa`` and
    loses to the committed classic library's best sequence (1.0665)."""
    classic = SequenceLibrary.load("benchmarks/leaderboard/sequence_library/library.txt")
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
        env.reset()
        best_classic = classic.sequences[int(np.argmax(env.try_actions(classic.actions(env))))]
    spaces = ("PassesAll", "PassesParameterized", "PassesAll")
    weak = SequenceLibrary((("-mem2reg",), ("default<Oz>",), ("-sroa",)), None, spaces)
    strong = SequenceLibrary((("-mem2reg",), ("default<Oz>",), best_classic), None, spaces)
    path = tmp_path / "mixed.txt"
    weak.save(path)
    assert path.read_text() == (
        "[PassesAll]\n-mem2reg\n[PassesParameterized]\ndefault<Oz>\n[PassesAll]\n-sroa\n"
    )
    assert SequenceLibrary.load(path) == SequenceLibrary(weak.sequences, "PassesAll", spaces)
    assert weak.runs() == [
        ("PassesAll", [0]),
        ("PassesParameterized", [1]),
        ("PassesAll", [2]),
    ]
    with pytest.raises(ValueError, match="2 spaces for 3 sequences"):
        SequenceLibrary(weak.sequences, None, spaces[:2])
    for library, space, reward in (
        (weak, "PassesParameterized", 1.0),
        (strong, "PassesAll", 1.0665),
    ):
        with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
            state = library_policy(env, library)
            assert env.action_space.name == space
            assert state.reward == pytest.approx(reward, abs=5e-5)
            assert env.validate(state).okay()
            climbed = library_policy(env, library, refine_rounds=2, seed=3)
            assert climbed.reward >= state.reward and env.action_space.name == space
            budgeted = library_policy(env, library, runtime=60, refine_rounds=2, seed=3)
            assert budgeted == climbed


def test_a_budgeted_climb_without_checks_keeps_the_budget():
    """With validation off (or a program that cannot run) the policy has no checker to hold
    its deadline: a budgeted climb still runs, and gives what the unbudgeted one does."""
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
        unbudgeted = library_policy(env, LIBRARY, refine_rounds=2, seed=5, validate=False)
        budgeted = library_policy(env, LIBRARY, runtime=60, refine_rounds=2, seed=5, validate=False)
        assert budgeted == unbudgeted and budgeted.reward > 1.0
