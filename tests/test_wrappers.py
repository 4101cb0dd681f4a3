"""CompilerGym's wrappers, each against the same episode stepped on the bare env."""

import itertools

import numpy as np
import pytest

import compiler_gym
from compiler_gym.wrappers import (
    ActionWrapper,
    CommandlineWithTerminalAction,
    CompilerEnvWrapper,
    ConstrainedCommandline,
    Counter,
    CycleOverBenchmarks,
    CycleOverBenchmarksIterator,
    ForkOnStep,
    IterateOverBenchmarks,
    ObservationWrapper,
    RandomOrderBenchmarks,
    RewardWrapper,
    TimeLimit,
    ValidateBenchmarkAfterEveryStep,
)
from conftest import NEXT_STEP_PIPELINE

CRC32 = "benchmark://builtin-v0/crc32"
QSORT = "benchmark://builtin-v0/qsort"
FLAGS = ["-mem2reg", "-sroa", "-instcombine", "-simplifycfg", "-gvn"]


def bare(**kwargs):
    return compiler_gym.make("llvm-ic-v0", benchmark=CRC32, **kwargs)


def rewards_of(flags, benchmark=CRC32):
    """The rewards of ``flags`` stepped one by one on the bare env: the hand-computed side."""
    with compiler_gym.make("llvm-ic-v0", benchmark=benchmark) as env:
        env.reset()
        return [env.step(env.action_space[f])[1] for f in flags]


def test_the_base_wrapper_forwards_everything_and_sets_spaces_on_the_env():
    with CompilerEnvWrapper(bare()) as env:
        env.reset()
        assert env.unwrapped is env.env
        _, reward, done, _ = env.step(env.action_space["-mem2reg"])
        assert (reward, done) == (rewards_of(["-mem2reg"])[0], False)
        env.observation_space = "IrInstructionCount"
        assert env.env.observation_space_spec.id == "IrInstructionCount"
        observation, *_ = env.multistep([env.action_space[f] for f in FLAGS[1:3]])
        assert observation == env.observation["IrInstructionCount"]
        assert env.state.commandline == env.env.state.commandline
        fork = env.fork()
        assert isinstance(fork, CompilerEnvWrapper) and fork.env is not env.env
        assert fork.actions == env.actions
        fork.close()
        assert repr(env).startswith("CompilerEnvWrapper(LlvmEnv('llvm-ic-v0'")


def test_action_observation_and_reward_wrappers_convert():
    class ByFlag(ActionWrapper):
        def action(self, action):
            return self.env.action_space[action]

    class Doubled(RewardWrapper):
        def convert_reward(self, reward):
            return 2 * reward

    class Total(ObservationWrapper):
        def convert_observation(self, observation):
            return int(np.sum(observation))

    env = Total(Doubled(ByFlag(bare(observation_space="InstCount"))))
    with env:
        first = env.reset()
        observation, reward, _, _ = env.step("-mem2reg")
        assert reward == 2 * rewards_of(["-mem2reg"])[0]
        assert isinstance(first, int) and isinstance(observation, int) and observation < first
        assert env.actions == [env.action_space["-mem2reg"]]


def test_time_limit_ends_the_episode_after_n_steps():
    with TimeLimit(bare(), max_episode_steps=3) as env:
        env.reset()
        dones = [env.step(env.action_space[f])[2] for f in FLAGS[:2]]
        _, _, done, info = env.step(env.action_space[FLAGS[2]])
        assert dones == [False, False] and done and info["TimeLimit.truncated"]
        env.reset()
        _, _, done, info = env.multistep([env.action_space[f] for f in FLAGS[:2]])
        assert not done and "TimeLimit.truncated" not in info
        _, _, done, _ = env.multistep([env.action_space[f] for f in FLAGS[2:]])
        assert done and len(env.actions) == 5
    with pytest.raises(ValueError, match="at least 1"):
        TimeLimit(bare(), max_episode_steps=0)


def test_benchmark_iterators():
    with IterateOverBenchmarks(bare(), [CRC32, QSORT]) as env:
        env.reset()
        assert str(env.benchmark.uri) == CRC32
        env.reset()
        assert str(env.benchmark.uri) == QSORT
        with pytest.raises(StopIteration):
            env.reset()
        with pytest.raises(TypeError, match="chooses the benchmark"):
            env.reset(benchmark=CRC32)
    with CycleOverBenchmarks(bare(), [CRC32, QSORT]) as env:
        seen = []
        for _ in range(5):
            env.reset()
            seen.append(str(env.benchmark.uri))
        assert seen == [CRC32, QSORT, CRC32, QSORT, CRC32]
        # A fork goes on from the same point through its own copy of the iterator; with
        # fork_shares_iterator both draw from one.
        fork = TimeLimit(env, max_episode_steps=3).fork()
        try:
            fork.reset()
            env.reset()
            assert str(fork.benchmark.uri) == str(env.benchmark.uri) == QSORT
        finally:
            fork.close()
    with CycleOverBenchmarks(bare(), [CRC32, QSORT], fork_shares_iterator=True) as env:
        env.reset()
        with env.fork() as fork:
            fork.reset()
            env.reset()
            assert [str(fork.benchmark.uri), str(env.benchmark.uri)] == [QSORT, CRC32]
    made = []

    def make_iterator():
        made.append(1)
        return iter([QSORT])

    with CycleOverBenchmarksIterator(bare(), make_iterator) as env:
        for _ in range(3):
            env.reset()
            assert str(env.benchmark.uri) == QSORT
        assert len(made) == 3
    expected = np.random.default_rng(7).integers(2, size=6)
    with RandomOrderBenchmarks(bare(), [CRC32, QSORT], rng=np.random.default_rng(7)) as env:
        seen = []
        for _ in range(6):
            env.reset()
            seen.append(str(env.benchmark.uri))
        assert seen == [[CRC32, QSORT][i] for i in expected]


def test_counter_counts_calls():
    env = Counter(bare())
    env.reset()
    env.step(0)
    env.multistep([1, 2])
    env.fork().close()
    env.close()
    assert env.counters == {"close": 1, "fork": 1, "reset": 1, "step": 2}


def test_fork_on_step_undoes_steps():
    with ForkOnStep(bare()) as env:
        env.reset()
        for flag in FLAGS[:3]:
            env.step(env.action_space[flag])
        count = env.observation["IrInstructionCount"]
        env.undo()
        assert env.actions == [env.action_space[f] for f in FLAGS[:2]]
        assert env.episode_reward == pytest.approx(sum(rewards_of(FLAGS[:2])))
        env.step(env.action_space[FLAGS[2]])
        assert env.observation["IrInstructionCount"] == count
        env.reset()
        assert env.stack == [] and env.undo() is env.env


def test_constrained_commandline_maps_its_actions_to_the_envs():
    with ConstrainedCommandline(bare(), flags=FLAGS[::-1]) as env:
        assert env.action_space.n == 5 and env.action_space.flags == FLAGS[::-1]
        env.reset()
        rewards = [env.step(i)[1] for i in (4, 3, 2)]  # -mem2reg, -sroa, -instcombine
        assert rewards == rewards_of(FLAGS[:3])
        assert env.actions == [4, 3, 2]
        assert env.state.commandline.split()[1:4] == FLAGS[:3]
        assert env.validate().okay()
        for bad, message in ((5, "out of range"), (1.0, "must be an integer"), (True, "integer")):
            with pytest.raises(ValueError, match=message):
                env.step(bad)
    with pytest.raises(LookupError, match="did you mean '-gvn'"):
        ConstrainedCommandline(bare(), flags=["-gvnn"])
    # A flag listed twice is two actions (CompilerGym's llvm_rl example lists one twice).
    with ConstrainedCommandline(bare(), flags=["-mem2reg", "-sroa", "-mem2reg"]) as env:
        assert env.action_space.n == 3
        env.reset()
        env.step(2)
        assert env.actions == [0] and env.state.commandline.split()[1] == "-mem2reg"


def test_wrappers_try_their_own_actions_or_refuse():
    """try_actions through a wrapper answers for the wrapper's actions, as greedy_search needs."""
    from compiler_gym.search import greedy_search

    with ConstrainedCommandline(bare(), flags=FLAGS[:3]) as env:
        env.reset()
        assert env.try_actions([0, 1, [2, 0]]).tolist() == pytest.approx(
            [rewards_of(FLAGS[:1])[0], rewards_of(FLAGS[1:2])[0], sum(rewards_of(FLAGS[2::-2]))]
        )
        state = greedy_search(env, max_steps=3)
        assert state.commandline.split()[1] in FLAGS[:3]
    with CommandlineWithTerminalAction(bare()) as env:
        env.reset()
        end = env.action_space.n - 1
        mem2reg = env.action_space["-mem2reg"]
        assert env.try_actions([end, [mem2reg, end, mem2reg]]).tolist() == pytest.approx(
            [0.0, rewards_of(["-mem2reg"])[0]]
        )

    class Doubled(RewardWrapper):
        def convert_reward(self, reward):
            return 2 * reward

    with Doubled(bare()) as env:
        env.reset()
        with pytest.raises(NotImplementedError, match="converts rewards"):
            env.try_actions([0])


def test_a_user_wrapper_with_compiler_gyms_multistep_signature():
    """CompilerGym's wrappers call multistep by keyword, so ``multistep(self, actions,
    **kwargs)`` (how its wrappers and examples write it) receives step's arguments."""

    class Doubling(CompilerEnvWrapper):
        def multistep(self, actions, **kwargs):
            return self.env.multistep([a for a in actions for _ in range(2)], **kwargs)

    with TimeLimit(Doubling(bare()), max_episode_steps=10) as env:
        env.reset()
        mem2reg = env.action_space["-mem2reg"]
        _, reward, _, _ = env.step(mem2reg, reward_spaces=["IrInstructionCountOz"])
        assert reward == [pytest.approx(sum(rewards_of(["-mem2reg", "-mem2reg"])))]
        assert env.actions == [mem2reg, mem2reg]


def test_the_terminal_action_ends_the_episode_without_changing_the_program():
    with CommandlineWithTerminalAction(bare()) as env:
        env.reset()
        terminal = env.action_space.n - 1
        assert env.action_space.flags[-1] == "# end-of-episode"
        _, reward, done, _ = env.step(env.action_space["-mem2reg"])
        assert not done
        _, reward, done, info = env.step(terminal)
        assert done and reward == 0 and info["terminal_action"]
        env.reset()
        _, reward, done, _ = env.multistep([env.action_space["-mem2reg"], terminal, 0])
        assert done and env.actions == [env.env.action_space["-mem2reg"]]
        assert reward == rewards_of(["-mem2reg"])[0]
        with pytest.raises(ValueError, match=rf"out of range \[0, {terminal + 1}\)"):
            env.step(terminal + 1)


def test_validate_after_every_step_passes_a_sound_episode():
    with ValidateBenchmarkAfterEveryStep(bare()) as env:
        env.reset()
        for flag in FLAGS[:2]:
            _, reward, done, info = env.step(env.action_space[flag])
            assert not done and "error_details" not in info
    # newgvn after these two passes makes huffman fail (tests/test_leaderboard.py); it is no
    # longer an action, so the test hook runs it in the next step, which ends the episode with
    # the penalty.
    with ValidateBenchmarkAfterEveryStep(bare(), reward_penalty=-7.0) as env:
        env.reset(benchmark="benchmark://builtin-v0/huffman")
        for flag in ("-gvn", "-dse"):
            assert not env.step(flag)[2]
        env.unwrapped.send_param(NEXT_STEP_PIPELINE, "function(newgvn)")
        _, reward, done, info = env.step(0)
        assert done and reward == -7.0 and "invalid code lengths" in str(info["error_details"])


def test_a_compiler_gym_training_loop_runs_unchanged():
    # CompilerGym's documented pattern: a time limit over benchmarks in a cycle.
    env = TimeLimit(
        CycleOverBenchmarks(compiler_gym.make("llvm-autophase-ic-v0"), [CRC32, QSORT]),
        max_episode_steps=4,
    )
    lengths = []
    with env:
        for episode in range(4):
            env.reset()
            for step in itertools.count(1):
                _, _, done, _ = env.step(env.action_space.sample())
                if done:
                    lengths.append(step)
                    break
            assert str(env.benchmark.uri) == [CRC32, QSORT][episode % 2]
    assert lengths == [4, 4, 4, 4]


def test_compiler_gym_wrappers_on_the_gymnasium_face():
    from gymnasium.utils.env_checker import check_env

    from compiler_gym.gymnasium_env import CompilerGymnasiumEnv

    inner = ConstrainedCommandline(compiler_gym.make("llvm-autophase-ic-v0"), flags=FLAGS)
    env = CompilerGymnasiumEnv(env=TimeLimit(inner, max_episode_steps=3))
    try:
        assert env.action_space.n == 5
        check_env(env, skip_render_check=True)
        observation, info = env.reset(options={"benchmark": CRC32})
        assert info["benchmark"] == CRC32 and observation.shape == (56,)
        steps = [env.step(i)[1:4] for i in (0, 1, 2)]  # reward, terminated, truncated
        assert [s[1:] for s in steps] == [(False, False), (False, False), (False, True)]
        with compiler_gym.make("llvm-autophase-ic-v0", benchmark=CRC32) as bare_env:
            bare_env.reset()
            expected = [bare_env.step(bare_env.action_space[f])[1] for f in FLAGS[:3]]
        assert [s[0] for s in steps] == pytest.approx(expected)
    finally:
        env.close()
    with pytest.raises(TypeError, match="env_id or an env"):
        CompilerGymnasiumEnv()


def test_runtime_series_reward_counts_only_significant_changes():
    from compiler_gym.envs.llvm_rewards import RuntimeSeriesReward
    from compiler_gym.errors import ServiceError

    reward = RuntimeSeriesReward(runtime_count=10)
    view = {"IsRunnable": True, "Runtime": [1.0 + 0.01 * i for i in range(10)]}
    reward.reset("benchmark://builtin-v0/crc32", view)
    # Every run faster: significant, the medians' difference (1.045 - 0.545).
    faster = [0.5 + 0.01 * i for i in range(10)]
    assert reward.update([], [faster], view) == pytest.approx(0.5)
    # The same runs in another order: no change to speak of.
    assert reward.update([], [faster[::-1]], view) == 0.0
    # Overlapping runs that differ by one outlier: not significant either.
    assert reward.update([], [faster[:9] + [9.0]], view) == 0.0
    with pytest.raises(ServiceError, match="Expected 10 runtimes"):
        reward.update([], [[1.0]], view)


@pytest.mark.parametrize("series", [False, True])
def test_runtime_reward_wrappers(series):
    from compiler_gym.wrappers import RuntimePointEstimateReward, RuntimeSeriesEstimateReward

    make = RuntimeSeriesEstimateReward if series else RuntimePointEstimateReward
    env = make(
        compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32"), runtime_count=3, warmup_count=1
    )
    try:
        env.reset()
        assert env.reward_space.name == "runtime"
        assert env.unwrapped.runtime_observation_count == 3
        assert env.unwrapped.runtime_warmup_runs_count == 1
        start = list(env.reward_space.previous_runtimes)
        _, reward, _, _ = env.step(env.action_space["-mem2reg"])
        now = env.reward_space.previous_runtimes
        assert len(start) == len(now) == 3
        if not series:
            assert reward == pytest.approx(np.median(start) - np.median(now))
        fork = env.fork()
        assert isinstance(fork, make) and fork.reward_space.runtime_count == 3
        fork.close()
    finally:
        env.close()
