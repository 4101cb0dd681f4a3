"""Search baselines on fixed programs: exact results, and the same as the naive forms."""

import compiler_gym
from compiler_gym.search import greedy_search


def naive_greedy(env) -> list[int]:
    """The greedy search written on the public API: a fork per action per step."""
    while True:
        rewards = []
        for a in range(env.action_space.n):
            with env.fork() as fork:
                _, reward, done, _ = fork.step(a)
                rewards.append(float("-inf") if done else reward)
        best = max(range(len(rewards)), key=lambda a: (rewards[a], -a))
        if not rewards[best] > 0:
            return env.actions
        env.step(best)


def test_greedy_finds_the_known_sequence_and_equals_the_naive_search():
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        env.reset(benchmark="builtin-v0/crc32")
        state = greedy_search(env)
        assert state.commandline == (
            "opt -mem2reg -simplifycfg -instcombine -load-store-vectorizer -early-cse-memssa "
            "-elim-avail-extern -aggressive-instcombine -ipsccp -instcombine -jump-threading "
            "input.bc -o output.bc"
        )
        assert state.reward == 537.0
        assert env.observation["IrInstructionCount"] == 325
        found = env.actions
        env.reset()
        assert naive_greedy(env) == found
        assert env.validate(state).okay()


def test_greedy_stops_at_max_steps_and_needs_a_reward():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        try:
            greedy_search(env)
        except ValueError as e:
            assert "reward space" in str(e)
        else:
            raise AssertionError("greedy_search without a reward space")
        state = greedy_search(env, reward_space="IrInstructionCount", max_steps=2)
        assert state.commandline == "opt -mem2reg -simplifycfg input.bc -o output.bc"
