"""The committed PPO leaderboard agent: its features, and its weights reproduce the
committed zero-shot results."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

import compiler_gym  # noqa: E402
from compiler_gym.compiler_env_state import CompilerEnvStateReader  # noqa: E402

HERE = Path(__file__).resolve().parent.parent / "benchmarks" / "leaderboard"
sys.path.insert(0, str(HERE / "ppo"))
from agent import Features, PpoAgent, run_agent  # noqa: E402


def test_features_normalize_autophase_and_count_the_episode_actions():
    features = Features(num_actions=4, episode_length=8)
    autophase = np.zeros((2, 56), np.int64)
    autophase[:, features.total_insts] = [100, 0]
    autophase[0, 0] = 25
    rows = features(autophase, [[1, 1, 3], []])
    assert rows.shape == (2, 61) and rows.dtype == np.float32
    assert rows[0, 0] == 0.25 and rows[0, features.total_insts] == 1.0
    assert rows[0, 56] == pytest.approx(np.log1p(100) / 10)
    assert rows[1, 56] == pytest.approx(np.log1p(1) / 10)  # an empty module counts as one
    assert list(rows[0, 57:]) == [0.0, 0.25, 0.0, 0.125]
    assert not rows[1, 57:].any()


def test_the_committed_weights_reproduce_the_zero_shot_results():
    states = {
        s.benchmark: s
        for s in CompilerEnvStateReader.read_paths([str(HERE / "ppo-llvm_instcount.csv")])
    }
    agent = PpoAgent()
    with compiler_gym.make("llvm-ic-v0") as env:
        for benchmark in sorted(states)[:4]:
            env.reset(benchmark=benchmark)
            actions = agent.episode(env)
            assert env.state.commandline == states[benchmark].commandline, benchmark
            assert env.episode_reward == pytest.approx(states[benchmark].reward)
            assert env.actions == actions


def test_a_table_change_maps_the_policy_by_flag_name(tmp_path):
    """Weights whose table names a pass the current table lacks, and lacks one it has: the
    missing pass gets probability 0, the pass the policy never saw is never chosen and leaves
    the input histogram, and the rest keep their relative probabilities."""
    ppo = HERE / "ppo"
    trained = (ppo / "actions.txt").read_text().split()
    renamed = trained[1]  # the policy's output 1 now names a pass that no table has
    (tmp_path / "actions.txt").write_text("\n".join([trained[0], "-no-such-pass", *trained[2:]]))
    (tmp_path / "weights.zip").symlink_to(ppo / "ppo-llvm_instcount.zip")
    original, changed = PpoAgent(), PpoAgent(tmp_path / "weights.zip")
    with compiler_gym.make("llvm-ic-v0") as env:
        env.reset(benchmark="builtin-v0/crc32")
        autophase = env.observation["Autophase"]
        unseen = list(env.action_space.flags).index(renamed)
    rows = np.repeat(autophase[None], 2, axis=0)
    p = original.probabilities(rows, [[0, 2], [0, 2]])
    q = changed.probabilities(rows, [[0, 2], [0, unseen, 2]])
    assert changed.to_env[1] == -1 and changed.to_policy[unseen] == -1
    assert np.allclose(q.sum(axis=1), 1.0)
    assert (q[:, unseen] == 0).all() and (p[:, unseen] > 0).all()
    assert np.allclose(q[0], q[1])  # the unseen action is not part of the policy's input
    kept = np.flatnonzero(q[0])
    assert np.allclose(q[0, kept] / p[0, kept], 1 / (1 - p[0, unseen]))


def test_the_agent_runs_on_one_program_outside_the_leaderboard():
    """run_agent on an env id and a benchmark, or on an env: the committed zero-shot state,
    and PPO + guided search (whose first episode is the zero-shot one) no worse."""
    (expected,) = [
        s
        for s in CompilerEnvStateReader.read_paths([str(HERE / "ppo-llvm_instcount.csv")])
        if s.benchmark == "benchmark://builtin-v0/crc32"
    ]
    agent = PpoAgent()
    state = run_agent("llvm-ic-v0", "builtin-v0/crc32", agent=agent)
    assert state.commandline == expected.commandline
    assert state.reward == pytest.approx(expected.reward)
    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/qsort") as env:
        env.reset()
        env.step(0)  # the agent starts from the benchmark's start, whatever came before
        searched = run_agent(env, "builtin-v0/crc32", search_time=1, agent=agent)
        assert searched == env.state and searched.benchmark == expected.benchmark
        assert searched.reward >= state.reward
        assert env.validate(searched).okay()
    with compiler_gym.make("llvm-v0") as env, pytest.raises(ValueError, match="reward space"):
        run_agent(env, "builtin-v0/crc32", agent=agent)


def test_the_guided_search_validates_in_the_loop():
    """PPO + guided search refuses a state whose program breaks: the zero-shot episode's first
    action planted to miscompile (the test builds' hook) makes the zero-shot state fail, and
    the search's state, checked in forks of the planted env, validates."""
    from test_search_validation import BENCHMARK, actions_of, planted_env

    from compiler_gym.search import SearchProgress

    agent = PpoAgent()
    planted = actions_of(run_agent("llvm-ic-v0", BENCHMARK, agent=agent))[0]
    with planted_env(planted) as env:
        assert not env.validate(run_agent(env, agent=agent)).okay()
        progress = SearchProgress()
        state = run_agent(env, search_time=1, agent=agent, progress=progress)
        # The policy favours the planted action: on a busy machine every candidate of a
        # short search may hold it, and then the benchmark as it is is the result.
        assert progress.validated and progress.checks >= 1 and state == env.state
        assert env.validate(state).okay()
        unchecked = SearchProgress()
        run_agent(env, search_time=0.5, agent=agent, validate=False, progress=unchecked)
        assert not unchecked.validated and unchecked.refused == 0


PARAMS = HERE / "ppo_params"


def test_the_pipeline_space_agent_reproduces_its_zero_shot_results():
    """The agent trained in the PassesParameterized space (``ppo_params``) reads its space and
    its start actions from the config beside its weights: it runs ``default<Oz>`` first, as
    its training programs had been, and its best prefix keeps it, so no state is below -Oz;
    its episodes replay the committed entry's states, on an env made in the default space."""
    agent = PpoAgent(PARAMS / "ppo-llvm_instcount.zip")
    assert agent.action_space == "PassesParameterized" and agent.features.size == 56 + 1 + 195
    assert agent.config["start_actions"] == ["default<Oz>"]
    states = {
        s.benchmark: s
        for s in CompilerEnvStateReader.read_paths([str(HERE / "ppo_params-llvm_instcount.csv")])
    }
    assert min(s.reward for s in states.values()) >= 1.0
    with compiler_gym.make("llvm-ic-v0") as env:
        for benchmark in sorted(states)[:3]:
            state = run_agent(env, benchmark, agent=agent)
            assert env.action_space.name == "PassesParameterized"
            assert state.commandline == states[benchmark].commandline, benchmark
            assert state.reward == pytest.approx(states[benchmark].reward)
            assert state.commandline.startswith("opt '-passes=default<Oz>")


def test_training_starts_from_the_programs_after_the_start_actions(tmp_path):
    """train.py with ``start_actions``: each training program is written after them (the
    policy's start state), and without them the programs are used as they are."""
    from train import started_programs

    config = {"env": "llvm-v0", "action_space": "PassesParameterized"}
    programs = ["benchmark://builtin-v0/crc32"]
    assert started_programs(config, programs, tmp_path) == programs
    config["start_actions"] = ["default<Oz>"]
    (uri,) = started_programs(config, programs, tmp_path)
    assert uri == (tmp_path / "00000.bc").resolve().as_uri()
    with compiler_gym.make("llvm-v0", benchmark=programs[0]) as env:
        env.reset()
        oz = env.observation["IrInstructionCountOz"]
        env.reset(benchmark=uri)
        assert env.observation["IrInstructionCount"] == oz
