"""Searches that validate in the loop: a planted miscompiling action (the test builds' hook)
wins an unvalidated search, and the validated search with the same seed refuses it and
returns a state that validates."""

import pytest

import compiler_gym
from compiler_gym.envs.llvm_env import LlvmEnv, pass_table
from compiler_gym.search import SearchProgress, greedy_search, nevergrad_search, random_search
from conftest import DATA, planted_llvm_env

BENCHMARK = "benchmark://builtin-v0/crc32"


def planted_env(planted: int) -> LlvmEnv:
    """An llvm-ic-v0 env on BENCHMARK whose action ``planted`` runs its pass and then the
    miscompiling test pass (in its forks and in the replays of its ``validate`` too: both
    are of its class). The pass itself runs too, so the action earns what ``try_actions``
    (which has no hook) predicts; without it greedy would take the action forever."""
    pipeline = pass_table()[planted][1] + ",compiler-gym-test-miscompile"

    Planted = planted_llvm_env(planted, pipeline)
    env = Planted("llvm-ic-v0", benchmark=BENCHMARK)
    env.reset()
    return env


def actions_of(state) -> list[int]:
    with compiler_gym.make("llvm-ic-v0") as env:
        return env.commandline_to_actions(state.commandline)


def test_greedy_refuses_the_planted_step_and_takes_the_next_best():
    unvalidated = greedy_search("llvm-ic-v0", BENCHMARK, validate=False)
    planted = actions_of(unvalidated)[0]  # greedy's first choice: the most attractive action
    with planted_env(planted) as env:
        broken = greedy_search(env, validate=False)
        assert actions_of(broken)[0] == planted and not env.validate(broken).okay()
        env.reset()
        progress = SearchProgress()
        state = greedy_search(env, progress=progress)  # on by default: crc32 runs
        assert progress.validated and progress.refused >= 1 and progress.checks >= 2
        assert progress.check_seconds > 0 and progress.best_actions == env.actions
        assert actions_of(state)[0] != planted and state.reward > 0
        assert env.validate(state).okay()


@pytest.mark.parametrize("search", ["random", "nevergrad"])
def test_a_search_refuses_the_planted_state_that_wins_without_validation(search):
    if search == "random":
        run, kwargs = random_search, dict(episodes=16, num_envs=4, seed=2, patience=8)
    else:
        run, kwargs = nevergrad_search, dict(budget=16, num_envs=4, seed=1, episode_length=6)
    unvalidated, progress = run("llvm-ic-v0", BENCHMARK, validate=False, **kwargs)
    assert not progress.validated and progress.refused == 0 and progress.check_seconds == 0
    # Validation that refuses nothing changes nothing: the same best state and history.
    checked, checked_progress = run("llvm-ic-v0", BENCHMARK, **kwargs)
    assert checked_progress.validated and checked_progress.refused == 0
    assert checked_progress.checks >= 1 and checked == unvalidated
    assert [h[1:] for h in checked_progress.history] == [h[1:] for h in progress.history]
    planted = actions_of(unvalidated)[0]
    with planted_env(planted) as env:
        # The vector engine searches without the hook: the same episodes, the same winner,
        # whose program the hook breaks.
        broken, _ = run(env, validate=False, **kwargs)
        assert broken == unvalidated and not env.validate(broken).okay()
        state, progress = run(env, **kwargs)  # validation is on by default
        assert progress.validated and progress.refused >= 1 and progress.check_seconds > 0
        assert progress.episodes == 16 and state.reward <= unvalidated.reward
        assert env.validate(state).okay()
        # Checks replay in forks of the env: the env itself is where it was.
        assert env.actions == [] and str(env.benchmark.uri) == BENCHMARK


def test_validation_is_off_where_a_program_cannot_be_checked():
    """A benchmark that does not run, or a family without check_semantics: the search runs
    unchecked, whatever validate says, and says so."""
    benchmark = compiler_gym.make_benchmark(DATA / "instcount.ll")  # IR: nothing to run
    assert not benchmark.runnable
    kwargs = dict(reward_space="IrInstructionCount", episodes=4, num_envs=2, validate=True)
    state, progress = random_search("llvm-v0", benchmark, **kwargs)
    assert not progress.validated and progress.refused == progress.checks == 0
    assert state.reward >= 0
    progress = SearchProgress()
    greedy_search("llvm-v0", benchmark, "IrInstructionCount", validate=True, progress=progress)
    assert not progress.validated and progress.best_reward > 0
    # gcc-v0 runs crc32, but has no check_semantics.
    gcc = dict(reward_space="obj_size", episodes=2, num_envs=2, patience=2, validate=True)
    _, progress = random_search("gcc-v0", BENCHMARK, **gcc)
    assert not progress.validated and progress.refused == 0
    with pytest.raises(ValueError, match="sanitizers"):
        random_search("llvm-ic-v0", BENCHMARK, episodes=1, sanitizers=["thread"])


def test_the_search_tool_reports_the_candidates_it_refused(tmp_path, monkeypatch, capsys):
    """--validate (the default here) refuses what the check refuses and says how many;
    --no-validate takes the same search's broken winner. The check is stubbed: it fails
    every program that took greedy's first action."""
    from compiler_gym.bin import search
    from compiler_gym.compiler_env_state import CompilerEnvStateReader
    from compiler_gym.search.checking import SemanticsChecker

    first = actions_of(greedy_search("llvm-ic-v0", BENCHMARK, validate=False, max_steps=1))[0]
    monkeypatch.setattr(
        SemanticsChecker,
        "problems",
        lambda self, env: ["planted"] if first in env.actions else [],
    )
    csv = tmp_path / "out.csv"
    argv = ["--search", "greedy", "--benchmark", BENCHMARK, "--output", str(csv)]
    assert search.main(argv) == 0
    out, err = capsys.readouterr()
    (state,) = CompilerEnvStateReader.read_paths([str(csv)])
    assert first not in actions_of(state)
    assert "refused " in out and "refused 0," not in out and "checking" in out
    assert "validated 1 of 1 searches: " in err and " 0 candidates" not in err
    assert search.main([*argv, "--no-validate", "--sanitizer", "undefined"]) == 0
    out, err = capsys.readouterr()
    (state,) = CompilerEnvStateReader.read_paths([str(csv)])
    assert actions_of(state)[0] == first and "not validated" in out
    assert "validated 0 of 1 searches: 0 candidates refused" in err
