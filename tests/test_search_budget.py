"""Time budgets (issue 49, defect 2): every search ends within its budget, on a large program
too, by checking the clock between the candidates of a round, not only between rounds.

Before, the pipeline search checked the clock between rounds of 32 pipelines only ("10 s"
took 12-165 s on programs above 10,000 instructions), greedy finished the step under way (121
candidates), nevergrad its batch of 8 trials, and a check that would end late was started."""

import time
from types import SimpleNamespace

import numpy as np
import pytest

import compiler_gym
from compiler_gym.search import SearchProgress, greedy_search, nevergrad_search, random_search
from compiler_gym.search import budget as budget_module
from compiler_gym.search.budget import CallCost, Deadline, try_within
from compiler_gym.search.sequence_library import SequenceLibrary, library_policy

BUDGET = 2.0
# The budget, with the 10% the issue allows: the engine cannot stop a candidate half way, so
# each call's end is predicted from the calls before it.
LIMIT = 1.1 * BUDGET
# The pipeline search of the leaderboard (benchmarks/leaderboard/pipeline_search.py).
PIPELINE_STARTS = SequenceLibrary(
    (("default<Oz>",), ("default<Oz>", "default<Oz>")), action_space="PassesParameterized"
)
LIBRARY = "benchmarks/leaderboard/sequence_library/library.txt"


def large_source(functions: int) -> str:
    """A C program of about ``100 * functions`` IR instructions (loops, branches, a switch
    and a table per function), which runs and prints one number."""
    parts = ["#include <stdio.h>\n"]
    for i in range(functions):
        parts.append(
            f"static int table{i}[16];\n"
            f"int f{i}(int n) {{\n"
            f"  int s = {i};\n"
            f"  for (int k = 0; k < 16; k++) table{i}[k] = (k * {i + 3}) ^ n;\n"
            "  for (int k = 0; k < n; k++) {\n"
            f"    if (k % 3 == {i % 3}) s += table{i}[k & 15] * k;\n"
            f"    else if (k % 5 == 1) s ^= (s << 2) + {i};\n"
            "    else s -= k / (1 + (s & 7));\n"
            "  }\n"
            "  switch (s & 3) { case 0: s += 1; break; case 1: s *= 3; break; default: s -= 2; }\n"
            "  return s;\n"
            "}\n"
        )
    calls = "".join(f"  total += f{i}(n);\n" for i in range(functions))
    parts.append(
        f'int main(void) {{\n  int n = 20; unsigned total = 0;\n{calls}  printf("%u\\n", total);'
        "\n  return 0;\n}\n"
    )
    return "".join(parts)


@pytest.fixture(scope="module")
def large():
    """A runnable program of more than 10,000 instructions, loaded once (loading a program
    is the process's, not a search's: the first reset parses it and computes its -Oz
    baseline)."""
    import nevergrad  # noqa: F401 - imported once per process, before any search's clock

    benchmark = compiler_gym.make_benchmark_from_source(large_source(110))
    with compiler_gym.make("llvm-ic-v0", benchmark=benchmark) as env:
        env.reset()
        assert env.observation["IrInstructionCount"] > 10_000 and benchmark.runnable
    return benchmark


def run(search: str, benchmark, runtime: float):
    """(state, progress, wall seconds of the call) of ``search`` with ``runtime``."""
    progress = SearchProgress()
    if search in ("greedy", "pipeline search", "sequence library"):
        env = compiler_gym.make("llvm-ic-v0", benchmark=benchmark)
        env.reset()
    start = time.perf_counter()
    if search == "greedy":
        state = greedy_search(env, runtime=runtime, progress=progress)
    elif search == "random":
        state, progress = random_search("llvm-ic-v0", benchmark, runtime=runtime)
    elif search == "nevergrad":
        state, progress = nevergrad_search("llvm-ic-v0", benchmark, runtime=runtime)
    elif search == "pipeline search":
        state = library_policy(
            env, PIPELINE_STARTS, refine_seconds=runtime, runtime=runtime, progress=progress
        )
    else:
        state = library_policy(
            env, SequenceLibrary.load(LIBRARY), runtime=runtime, progress=progress
        )
    seconds = time.perf_counter() - start
    if search in ("greedy", "pipeline search", "sequence library"):
        env.close()
    return state, progress, seconds


@pytest.mark.parametrize(
    "search", ["greedy", "random", "nevergrad", "pipeline search", "sequence library"]
)
def test_a_search_on_a_large_program_ends_within_its_budget(search, large):
    # Wall time on a shared machine: a load spike can stretch a check past what the timings so
    # far predicted. The budget's arithmetic is pinned exactly by the fake-clock tests below;
    # this checks it on the real engine and counts the best of three tries (before the checks
    # inside rounds, every try took 1.4 to 5 times the budget, so all three would fail).
    for _ in range(3):
        state, progress, seconds = run(search, large, BUDGET)
        if seconds <= LIMIT:
            break
    assert seconds <= LIMIT, f"{search} took {seconds:.2f} s of a {BUDGET} s budget"
    # The time ended it, and it says so (a fast machine may try the whole library first).
    assert progress.timed_out or (search == "sequence library" and progress.episodes == 15)
    assert progress.validation == "on"  # checks were part of the budget
    # What it returns is a state that replays to its reward, and runs like the unoptimized
    # program (or the start, when the budget was too short for a validated candidate).
    with compiler_gym.make("llvm-ic-v0", benchmark=large) as env:
        result = env.validate(state)
        assert result.okay(), result


def fake_clock(monkeypatch) -> SimpleNamespace:
    """The budgets' clock, made a counter that only the test advances."""
    clock = SimpleNamespace(now=0.0, calls=[])
    monkeypatch.setattr(budget_module, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    return clock


def test_greedy_cuts_a_step_short_and_takes_the_best_candidate_tried(monkeypatch):
    """A step's 121 candidates are tried in calls that fit the budget: where a wave of one
    candidate per thread takes 0.125 s (the clock of the test), a 1 s budget tries 7 waves
    of the first step (1, then up to 4 times the longest call, keeping the time of one to
    take the step), takes the best candidate of those and ends, where before it tried all
    121 and took the best of all (action 100)."""
    import importlib

    clock = fake_clock(monkeypatch)
    threads = 2
    monkeypatch.setattr(
        importlib.import_module("compiler_gym.search.greedy"), "engine_threads", lambda: threads
    )

    def try_actions(env, actions):
        clock.calls.append(len(actions))
        clock.now += 0.125 * -(-len(actions) // threads)
        return np.array([{3: 0.5, 100: 0.9}.get(a, 0.0) for a in actions])

    with compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        progress = SearchProgress()
        greedy_search(env, runtime=1.0, try_actions=try_actions, validate=False, progress=progress)
        assert clock.calls[:2] == [threads, 4 * threads] and sum(clock.calls) == 7 * threads
        assert clock.now == 0.875
        assert progress.timed_out and progress.best_actions == env.actions == [3]
        env.reset()
        greedy_search(env, max_steps=1, try_actions=try_actions, validate=False)
        assert env.actions == [100] and clock.calls[-1] == 121  # no budget: one call


def test_a_call_that_would_end_past_the_deadline_is_not_started(monkeypatch):
    """The cost model on a fake clock: each call costs 0.05 s plus 0.1 s per action on the
    busiest of 2 threads. The first call is one candidate per thread (or, for a long
    sequence, a prefix of 16 actions, timed but not kept); later calls are as large as fit,
    and predicted to take at most 4 times the longest call so far. No call ends past the
    deadline."""
    clock = fake_clock(monkeypatch)
    model = CallCost(2)

    class Env:
        def try_actions(self, candidates):
            lengths = [len(c) if isinstance(c, list) else 1 for c in candidates]
            clock.now += 0.05 + 0.1 * model.load(lengths)
            clock.calls.append(lengths)
            return np.zeros(len(candidates))

    cost = CallCost(2)
    rewards, cut = try_within(Env(), list(range(50)), Deadline(1.0, start=0.0), cost)
    # 0.15 s; then, at 0.15 s a wave and nothing per call, 8 (4 waves: 0.6 s, 4 times the
    # first call) in 0.45 s; then, with the fixed cost told apart, 6 in 0.35 s: 0.95 s, and
    # 0.15 s would not fit.
    assert clock.calls == [[1, 1], [1] * 8, [1] * 6]
    assert cut and len(rewards) == 16 and clock.now == pytest.approx(0.95)
    # Long sequences: a prefix times the pace, then whole ones as they fit.
    clock.now, clock.calls = 0.0, []
    sequences = [[0] * 20 for _ in range(6)]
    rewards, cut = try_within(Env(), sequences, Deadline(7.0, start=0.0), CallCost(2))
    assert clock.calls == [[16], [20, 20, 20, 20]]  # 1.65 s, then 4.05 s; 2.05 s won't fit
    assert cut and len(rewards) == 4 and clock.now == pytest.approx(5.7)
    # Without a budget, one call, as before.
    clock.calls = []
    rewards, cut = try_within(Env(), sequences, Deadline(None), CallCost(2))
    assert clock.calls == [[20] * 6] and not cut and len(rewards) == 6


def test_a_budget_is_zero_or_more_seconds():
    with pytest.raises(ValueError, match="a time budget is 0 seconds or more, got -1"):
        Deadline(-1)
    assert Deadline(0).expired() and not Deadline(None).expired()


def test_a_random_search_checks_a_prefix_under_way_and_uses_the_rest_of_its_budget(
    monkeypatch,
):
    """On a fake clock where a step of the episodes takes 0.01 s and a check of a program
    0.5 s, a 3 s random search with validation (CompilerGym's llvm_autotuning runs one and
    asserts that it took its 3 s) searches until its last step fits: the check of an episode
    under way that would be the new best is made when the time left no longer holds it and a
    step, and the search goes on after it. Before, it kept time for a check of its longest
    best prefix under way, whether or not that would be a new best, and stopped at 2.2 s."""
    import importlib

    clock = fake_clock(monkeypatch)
    checking = importlib.import_module("compiler_gym.search.checking")
    search = importlib.import_module("compiler_gym.search.random_search")
    for module in (checking, search):
        monkeypatch.setattr(module, "time", budget_module.time)

    def check(*args, **kwargs):
        clock.now += 0.5
        return []

    def probe(*args, **kwargs):
        clock.now += 0.5
        return None

    monkeypatch.setattr(checking, "program_problems", check)
    monkeypatch.setattr(checking, "run_reason", probe)
    step = search.RandomEpisodes.step

    def timed_step(self, *args, **kwargs):
        clock.now += 0.01
        return step(self, *args, **kwargs)

    monkeypatch.setattr(search.RandomEpisodes, "step", timed_step)
    state, progress = random_search(
        "llvm-ic-v0", "benchmark://builtin-v0/crc32", runtime=3.0, patience=350, num_envs=1
    )
    assert progress.validation == "on" and progress.timed_out
    # The last step ended where one more would not fit.
    assert 3.0 - 0.01 < clock.now <= 3.0 and progress.seconds == pytest.approx(clock.now)
    assert progress.checks >= 2 and progress.refused == 0  # the probe, then mid-run checks
    assert state.reward == progress.best_reward > 0
    with compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        assert env.validate(state).okay()
