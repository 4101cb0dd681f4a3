"""compiler_gym.make_vec: the C++ vector engine from Python, as torch tensors."""

import numpy as np
import pytest
import torch

import compiler_gym
from compiler_gym.errors import EnvironmentNotSupported

URIS = [
    "benchmark://builtin-v0/qsort",
    "benchmark://builtin-v0/crc32",
    "benchmark://builtin-v0/sha256",
    "benchmark://builtin-v0/fft",
]


def test_step_matches_single_envs_and_is_zero_copy():
    vec = compiler_gym.make_vec("llvm-autophase-ic-v0", num_envs=4, num_threads=2, benchmarks=URIS)
    obs, _ = vec.reset()
    assert isinstance(obs, torch.Tensor) and obs.shape == (4, 56) and obs.dtype == torch.int64
    actions = np.array([3, 40, 60, 90])
    obs, rewards, terminated, truncated, info = vec.step(actions)
    assert not terminated.any() and not truncated.any()
    assert info["env_id"].tolist() == [0, 1, 2, 3]
    for i, uri in enumerate(URIS):
        with compiler_gym.make("llvm-autophase-ic-v0", benchmark=uri) as env:
            env.reset()
            single_obs, single_reward, _, _ = env.step(int(actions[i]))
            assert obs[i].tolist() == single_obs.tolist()
            assert rewards[i].item() == pytest.approx(single_reward)
    vec.close()


def test_error_stays_in_its_row(tmp_path):
    broken = tmp_path / "broken.ll"
    broken.write_text("this is not IR\n")
    benchmarks = [URIS[0], f"file://{broken}", URIS[1]]
    vec = compiler_gym.make_vec(
        "llvm-ic-v0", num_envs=3, benchmarks=benchmarks, observation_space="IrInstructionCount"
    )
    obs, info = vec.reset()
    assert info["error_type"].tolist() == ["", "BENCHMARK_INIT", ""]
    obs, rewards, terminated, _, info = vec.step([0, 0, 0])
    assert terminated.tolist() == [False, True, False]
    assert obs[0] > 0 and obs[2] > 0


def test_async_send_recv_returns_env_ids():
    vec = compiler_gym.make_vec(
        "llvm-ic-v0",
        num_envs=6,
        batch_size=2,
        num_threads=2,
        benchmarks=URIS,
        observation_space="IrInstructionCount",
    )
    vec.reset()
    vec.send(np.zeros(6, dtype=np.int32))
    seen = []
    for _ in range(3):
        obs, rewards, terminated, truncated, info = vec.recv(timeout=60)
        assert len(info["env_id"]) == 2
        seen += info["env_id"].tolist()
    assert sorted(seen) == list(range(6))
    with pytest.raises(RuntimeError, match="nothing sent"):
        vec.recv(timeout=0.01)


def test_same_outputs_on_any_thread_count():
    def run(threads, async_mode):
        vec = compiler_gym.make_vec(
            "llvm-v0",
            num_envs=4,
            num_threads=threads,
            benchmarks=URIS,
            observation_space="IrSha1",
            max_episode_steps=6,
            seed=3,
        )
        vec.reset()
        rng = np.random.default_rng(0)
        hashes = {i: [] for i in range(4)}
        for _ in range(10):
            actions = rng.integers(vec.single_action_space.n, size=4)
            if async_mode:
                vec.send(actions)
                obs, _, _, _, info = vec.recv()
            else:
                obs, _, _, _, info = vec.step(actions)
            for j, env_id in enumerate(info["env_id"].tolist()):
                hashes[env_id].append(obs[j])
        return hashes

    reference = run(1, False)
    assert run(2, False) == reference
    assert run(2, True) == reference


def test_recv_timeouts():
    with compiler_gym.make_vec("llvm-v0", num_envs=2, benchmarks=["builtin-v0/crc32"]) as vec:
        vec.reset()
        vec.send(np.array([0, 1]), np.array([0, 1]))
        for bad in (float("nan"), -1.0):
            with pytest.raises(ValueError, match="seconds >= 0"):
                vec.recv(timeout=bad)
        _, _, _, _, info = vec.recv(timeout=float("inf"))  # no limit (a TimeoutError, before)
        assert sorted(np.asarray(info["env_id"]).tolist()) == [0, 1]


def test_cuda_without_a_gpu_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(EnvironmentNotSupported, match="no CUDA device"):
        compiler_gym.make_vec("llvm-v0", num_envs=2, device="cuda")


def test_gymnasium_make_vec_uses_the_engine():
    import gymnasium

    vec = gymnasium.make_vec(
        "compiler_gym/llvm-autophase-ic-v0", num_envs=3, vectorization_mode="vector_entry_point"
    )
    assert isinstance(vec, compiler_gym.CompilerVecEnv)
    obs, _ = vec.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (3, 56)  # NumPy, as gymnasium's are
    assert vec.single_observation_space.shape == (56,)
    _, rewards, terminated, truncated, _ = vec.step(vec.action_space.sample())
    assert isinstance(rewards, np.ndarray) and rewards.shape == (3,)
    assert not terminated.any() and not truncated.any()
    vec.close()


def test_gymnasium_vector_wrappers_work_on_numpy_outputs():
    """RecordEpisodeStatistics (which writes info["episode"]), NormalizeReward and DictInfoToList
    over gymnasium.make_vec; an id without a default reward gets the gymnasium one."""
    import gymnasium
    from gymnasium.wrappers.vector import DictInfoToList, NormalizeReward, RecordEpisodeStatistics

    vec = gymnasium.make_vec(
        "compiler_gym/llvm-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        benchmarks=URIS[:2],
        max_episode_steps=3,
    )
    wrapped = DictInfoToList(NormalizeReward(RecordEpisodeStatistics(vec)))
    wrapped.reset(seed=0)
    mem2reg = vec.env_action_space.names.index("-mem2reg")
    for t in range(3):
        _, _, _, truncated, infos = wrapped.step(np.array([mem2reg, mem2reg]))
        assert len(infos) == 2 and infos[0]["elapsed_steps"] == t + 1
    assert truncated.all()
    assert infos[0]["episode"]["l"] == 3 and infos[1]["episode"]["l"] == 3
    # IrInstructionCountOz (llvm-v0 has no reward of its own): mem2reg shrinks both programs.
    assert infos[0]["episode"]["r"] > 0 and infos[1]["episode"]["r"] > 0
    wrapped.close()


def test_reset_seeds_decide_the_benchmarks_and_a_partial_reset_returns_every_row():
    def draw(vec, seed):
        obs, info = vec.reset(seed=seed)
        return obs.numpy().tolist(), vec.np_random_seed

    with compiler_gym.make_vec(
        "llvm-autophase-ic-v0", num_envs=4, benchmarks=URIS, random_benchmarks=True, seed=11
    ) as vec:
        first, np_seed = draw(vec, 3)
        assert np_seed == 3
        assert draw(vec, 3)[0] == first  # the same seed, the same programs
        assert draw(vec, [3, 4, 5, 6])[0] == first  # an int s stands for s, s + 1, ...
        assert draw(vec, None)[0] != first  # unseeded: the generators go on from seed 3's
        same, _ = draw(vec, [9, 9, 9, 9])
        assert same[0] == same[1] == same[2] == same[3]
        with pytest.raises(ValueError, match="seeds"):
            vec.reset(seed=[1, 2])
        with pytest.raises(ValueError, match="non-negative"):
            vec.reset(seed=-1)
        # make_vec(seed=3) starts where reset(seed=3) does.
        with compiler_gym.make_vec(
            "llvm-autophase-ic-v0", num_envs=4, benchmarks=URIS, random_benchmarks=True, seed=3
        ) as other:
            assert other.reset()[0].numpy().tolist() == first

        vec.reset(seed=3)
        stepped = vec.step(np.array([40, 40, 40, 40]))[0].numpy().copy()
        obs, info = vec.reset(options={"reset_mask": np.array([False, True, False, False])})
        assert obs.shape == (4, 56)
        assert info["is_reset"].tolist() == [False, True, False, False]
        assert obs[0].tolist() == stepped[0].tolist() and obs[2].tolist() == stepped[2].tolist()
        assert info["elapsed_steps"].tolist() == [1, 0, 1, 1]


def test_several_actions_per_step_have_a_space_of_that_shape():
    with compiler_gym.make_vec("llvm-ic-v0", num_envs=2, actions_per_step=3) as vec:
        assert vec.action_space.shape == (2, 3)
        assert vec.env_action_space.n == vec.single_action_space.nvec[0]
        vec.reset()
        _, _, terminated, _, info = vec.step(vec.action_space.sample())
        assert not terminated.any() and info["elapsed_steps"].tolist() == [1, 1]


def test_a_closed_vector_env_says_so():
    from compiler_gym.errors import ServiceIsClosed

    vec = compiler_gym.make_vec("llvm-ic-v0", num_envs=2)
    vec.close()
    vec.close()
    with pytest.raises(ServiceIsClosed):
        vec.reset()
    with pytest.raises(ServiceIsClosed):
        vec.step(np.array([0, 0]))


def test_same_step_autoreset_gives_the_ended_episodes_info_as_final_info():
    with compiler_gym.make_vec(
        "llvm-ic-v0", num_envs=2, max_episode_steps=2, autoreset="same_step", benchmarks=URIS[:2]
    ) as vec:
        vec.reset()
        vec.step(np.array([40, 40]))
        obs, _, _, truncated, info = vec.step(np.array([40, 40]))
        assert truncated.all() and info["_final_info"].all() and info["_final_obs"].all()
        assert info["final_info"]["elapsed_steps"].tolist() == [2, 2]
        assert info["final_info"]["episode_index"].tolist() == [0, 0]
        assert info["elapsed_steps"].tolist() == [0, 0]
        assert info["episode_index"].tolist() == [1, 1]
