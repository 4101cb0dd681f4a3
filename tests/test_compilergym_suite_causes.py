"""Behaviours that CompilerGym's own test suite checks and this package now shares (issue 52,
item 5): each test pins one of them on inputs of our own."""

import json

import numpy as np
import pytest

import compiler_gym
from compiler_gym import CompilerEnvState, ValidationResult
from compiler_gym.datasets import FilesDataset
from compiler_gym.validation_error import ValidationError
from compiler_gym.wrappers import RuntimePointEstimateReward


def test_a_validation_result_reads_back_from_its_json():
    result = ValidationResult(
        state=CompilerEnvState(
            benchmark="benchmark://builtin-v0/crc32", commandline="opt -o x", walltime=1.0
        ),
        walltime=2.5,
        errors=[ValidationError(type="Output differs", data={"lines": [3, 4]}), "a message"],
        benchmark_semantics_validation_failed=True,
    )
    loaded = ValidationResult(**json.loads(result.json()))
    assert loaded == result
    assert isinstance(loaded.state, CompilerEnvState) and loaded.state.commandline == "opt -o x"
    assert loaded.errors[0] == ValidationError(type="Output differs", data={"lines": [3, 4]})
    assert loaded.errors[1] == "a message" and loaded.walltime == 2.5


def test_runtime_counts_are_refused_with_compiler_gyms_messages():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(
            ValueError, match=r"^runtimes_per_observation_count must be >= 1\. Received: -10$"
        ):
            RuntimePointEstimateReward(env, runtime_count=-10)
        with pytest.raises(
            ValueError,
            match=r"^warmup_runs_count_per_runtime_observation must be >= 0\. Received: -1$",
        ):
            RuntimePointEstimateReward(env, warmup_count=-1)
        env.reset()
        with pytest.raises(ValueError, match=r"^runtimes_per_observation_count must be >= 1\. "):
            env.runtime_observation_count = 0
        with pytest.raises(ValueError, match=r"Received: -5$"):
            env.send_param("llvm.set_runtimes_per_observation_count", "-5")
        with pytest.raises(ValueError, match=r"^warmup_runs_count_per_runtime_observation "):
            env.runtime_warmup_runs_count = -2
        assert env.runtime_observation_count == 1 and env.runtime_warmup_runs_count == 0
        env.runtime_observation_count = 3  # a good count still goes through
        assert env.runtime_observation_count == 3


def test_unknown_default_spaces_are_named_as_compiler_gym_names_them():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(LookupError) as error:
            env.reward_space = "invalid value"
        assert str(error.value) == "Reward space not found: invalid value"
        with pytest.raises(LookupError) as error:
            env.observation_space = "invalid value"
        assert str(error.value) == "Observation space not found: invalid value"
        with pytest.raises(LookupError) as error:
            env.observation_space = "Autophas"  # a close name is still suggested
        assert str(error.value).startswith(
            "Observation space not found: Autophas; did you mean 'Autophase'"
        )


def test_env_inst2vec_is_the_table_behind_the_inst2vec_observations():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        inst2vec = env.inst2vec
        vocab, embeddings = inst2vec.vocab, inst2vec.embeddings
        assert vocab["!UNK"] == len(vocab) - 1 and embeddings.dtype == np.float32
        assert embeddings.shape == (len(vocab), 200)
        statements = env.observation["Inst2vecPreprocessedText"]
        indices = env.observation["Inst2vecEmbeddingIndices"]
        assert inst2vec.encode(statements) == list(indices)
        assert inst2vec.encode(["not a statement"]) == [vocab["!UNK"]]
        np.testing.assert_array_equal(inst2vec.embed(indices), env.observation["Inst2vec"])
        assert env.inst2vec is inst2vec  # read once per process


def _folder(tmp_path):
    root = tmp_path / "files"
    (root / "sub").mkdir(parents=True)
    (root / "notes.txt").write_text("not a program")
    (root / "prog.c").write_text("int main(void) { return 0; }\n")
    (root / "sub" / "a.ll").write_text("define i32 @main() {\n  ret i32 0\n}\n")
    (root / "sub" / "b.jpg").write_bytes(b"\xff\xd8")
    (root / "z.txt").write_text("z")
    return root


def test_files_dataset_of_compiler_gyms_keyword_takes_every_file(tmp_path):
    root = _folder(tmp_path)
    every = FilesDataset(name="benchmark://files-v0", dataset_root=root)
    # A folder's files by name, then its subfolders; programs named without their suffix.
    assert list(every.benchmark_uris()) == [
        "benchmark://files-v0/notes.txt",
        "benchmark://files-v0/prog",
        "benchmark://files-v0/z.txt",
        "benchmark://files-v0/sub/a",
        "benchmark://files-v0/sub/b.jpg",
    ]
    assert every.size == 5
    notes = every.benchmark("benchmark://files-v0/notes.txt")
    assert notes.proto.uri == "benchmark://files-v0/notes.txt"
    assert notes.proto.program.contents == b"not a program"
    assert every.benchmark("files-v0/prog").files == []  # a program is compiled, as before
    jpg = FilesDataset(name="benchmark://jpg-v0", dataset_root=root, benchmark_file_suffix=".jpg")
    assert list(jpg.benchmark_uris()) == ["benchmark://jpg-v0/sub/b"]
    assert jpg.benchmark("jpg-v0/sub/b").proto.program.contents == b"\xff\xd8"
    # Our own keyword keeps to the programs, unless asked.
    programs = FilesDataset("benchmark://programs-v0", root)
    assert list(programs.benchmark_uris()) == [
        "benchmark://programs-v0/prog",
        "benchmark://programs-v0/sub/a",
    ]
    assert FilesDataset("benchmark://all-v0", root, every_file=True).size == 5
    with pytest.raises(ValueError, match="has 2 files"):
        _ = compiler_gym.datasets.Benchmark("benchmark://x-v0/y", files=["a", "b"]).proto


def test_is_runnable_and_is_buildable_are_platform_dependent():
    # Whether a user's program links is the host's affair (envs/llvm/llvm_spaces.cc).
    with compiler_gym.make("llvm-v0") as env:
        for name in ("IsRunnable", "IsBuildable"):
            assert env.observation.spaces[name].platform_dependent, name
        assert not env.observation.spaces["IrInstructionCount"].platform_dependent
