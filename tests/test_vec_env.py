"""compiler_gym.make_vec: the C++ vector engine from Python, as torch tensors."""

import numpy as np
import pytest
import torch

import compiler_gym

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


def test_cuda_without_a_gpu_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        compiler_gym.make_vec("llvm-v0", num_envs=2, device="cuda")


def test_gymnasium_make_vec_uses_the_engine():
    import gymnasium

    vec = gymnasium.make_vec(
        "compiler_gym/llvm-autophase-ic-v0", num_envs=3, vectorization_mode="vector_entry_point"
    )
    assert isinstance(vec, compiler_gym.CompilerVecEnv)
    obs, _ = vec.reset()
    assert tuple(obs.shape) == (3, 56)
    assert vec.single_observation_space.shape == (56,)
    _, rewards, terminated, truncated, _ = vec.step(vec.action_space.sample())
    assert rewards.shape == (3,) and not terminated.any() and not truncated.any()
    vec.close()
