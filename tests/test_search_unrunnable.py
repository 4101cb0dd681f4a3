"""A search that validates in the loop, on a program that cannot run in the sandbox (issue 49,
defect 1): the program is found out once, up front, reported once (a
ValidationUnavailableWarning and ``progress.validation``), and the search goes on unvalidated
(the default) or stops with a ValidationUnavailableError, never silently handing back its
start (before, every candidate was refused: reward 0 and no word)."""

import warnings

import pytest

import compiler_gym
from compiler_gym.search import (
    SearchProgress,
    ValidationUnavailableError,
    ValidationUnavailableWarning,
    greedy_search,
    nevergrad_search,
    random_search,
)
from compiler_gym.search.sequence_library import SequenceLibrary, library_policy

# Work for the passes to remove, and an exit status of 1: the unoptimized build "fails".
EXITS_1 = r"""
#include <stdio.h>
int squares(int n) { int s = 0; for (int i = 0; i < n; i++) { int t = i * i; s += t; } return s; }
int main(void) { printf("%d\n", squares(10)); return 1; }
"""
ABORTS = EXITS_1.replace("return 1; }", "__builtin_trap(); }")
# Prints a stack address and the clock: no two runs alike, so every check would fail.
CHANGES = EXITS_1.replace(
    'printf("%d\\n", squares(10)); return 1;',
    'int x; printf("%d %p %ld\\n", squares(10), (void *)&x, (long)__builtin_readcyclecounter());'
    " return 0;",
)
LIBRARY = SequenceLibrary((("-mem2reg", "-instcombine", "-simplifycfg"), ("-sroa",)))


@pytest.fixture(scope="module")
def exits_1():
    benchmark = compiler_gym.make_benchmark_from_source(EXITS_1)
    assert benchmark.runnable  # it builds and links: only running it shows the problem
    return benchmark


def run_search(search: str, benchmark, **kwargs):
    """(state, progress) of ``search`` on ``benchmark``, with a small fixed budget."""
    if search == "greedy":
        progress = SearchProgress()
        state = greedy_search("llvm-ic-v0", benchmark, progress=progress, **kwargs)
        return state, progress
    if search == "random":
        return random_search("llvm-ic-v0", benchmark, episodes=8, num_envs=2, seed=1, **kwargs)
    if search == "nevergrad":
        return nevergrad_search(
            "llvm-ic-v0", benchmark, budget=16, num_envs=2, episode_length=8, seed=1, **kwargs
        )
    progress = SearchProgress()
    with compiler_gym.make("llvm-ic-v0", benchmark=benchmark) as env:
        env.reset()
        state = library_policy(env, LIBRARY, progress=progress, **kwargs)
    return state, progress


SEARCHES = ["greedy", "random", "nevergrad", "library"]


@pytest.mark.parametrize("search", SEARCHES)
def test_a_program_that_fails_in_the_sandbox_is_reported_once_and_searched_unvalidated(
    search, exits_1
):
    with pytest.warns(ValidationUnavailableWarning) as caught:
        state, progress = run_search(search, exits_1)
    (warning,) = [w for w in caught if w.category is ValidationUnavailableWarning]  # once
    message = str(warning.message)
    assert f"{exits_1.uri} cannot be validated" in message
    assert "exit code 1" in message and "on_unrunnable='raise'" in message
    assert warning.filename == __file__  # it names the line that started the search
    assert progress.validation.startswith("unavailable: its unoptimized build fails")
    assert "exit code 1" in progress.validation and not progress.validated
    assert progress.refused == 0
    # Not the start handed back: the search went on, and found what it finds unvalidated.
    assert state.reward > 0
    assert state == run_search(search, exits_1, validate=False)[0]


@pytest.mark.parametrize("search", SEARCHES)
def test_on_unrunnable_raise_stops_before_searching(search, exits_1):
    with pytest.raises(ValidationUnavailableError, match="exit code 1") as raised:
        run_search(search, exits_1, on_unrunnable="raise")
    assert "validate=False" in str(raised.value) and isinstance(raised.value, ValueError)


def test_a_program_that_crashes_is_found_out_too():
    benchmark = compiler_gym.make_benchmark_from_source(ABORTS)
    with pytest.warns(ValidationUnavailableWarning, match="signal"):
        state, progress = run_search("random", benchmark)
    assert progress.validation.startswith("unavailable: ") and state.reward > 0


def test_a_program_whose_runs_differ_is_found_out_at_the_first_refusal():
    """Its unoptimized build runs, so the up-front run passes; the first candidate refused
    makes the search check its start, which fails as well: validation is unavailable, once,
    and the refusals before do not count."""
    benchmark = compiler_gym.make_benchmark_from_source(CHANGES)
    for search in ("greedy", "random", "library"):
        with pytest.warns(ValidationUnavailableWarning) as caught:
            state, progress = run_search(search, benchmark)
        assert len([w for w in caught if w.category is ValidationUnavailableWarning]) == 1
        assert progress.validation.startswith(
            "unavailable: its program already behaves unlike its unoptimized build"
        )
        assert progress.refused == 0 and state.reward > 0


def test_a_program_that_runs_is_validated_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ValidationUnavailableWarning)
        for search in ("greedy", "random", "library"):
            _, progress = run_search(search, "benchmark://builtin-v0/crc32")
            assert progress.validated and progress.validation == "on"
    _, progress = run_search("random", "benchmark://builtin-v0/crc32", validate=False)
    assert progress.validation == "off"


def test_on_unrunnable_is_one_of_two_choices(exits_1):
    with pytest.raises(ValueError, match=r"on_unrunnable must be one of \['warn', 'raise'\]"):
        run_search("random", exits_1, on_unrunnable="ignore")


def test_the_search_tool_reports_an_unrunnable_program(tmp_path, capsys):
    from compiler_gym.bin import search

    source = tmp_path / "exits_1.c"
    source.write_text(EXITS_1)
    build = f"gcc {source}"  # a command line's program runs (a program file's does not)
    argv = ["--search", "random", "--episodes", "4", "--benchmark-command", build]
    with pytest.warns(ValidationUnavailableWarning):
        assert search.main([*argv, "--output", str(tmp_path / "out.csv")]) == 0
    out, _ = capsys.readouterr()
    assert "not validated (unavailable: its unoptimized build fails" in out
    assert search.main([*argv, "--on-unrunnable", "raise"]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("error: random_search(): benchmark://user-v0/")
    assert "exit code 1" in err
