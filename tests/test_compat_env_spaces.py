"""CompilerGym's documented behaviour of observation spaces, datasets, the env, wrappers and
``print_service_capabilities`` (issue 37, section 2): one test per item."""

import copy
import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pytest

import compiler_gym
from compiler_gym.datasets import Benchmark, BenchmarkUri, Dataset, FilesDataset
from compiler_gym.errors import SessionNotFound
from compiler_gym.spaces import Box, Dict, Reward, Scalar, Sequence
from compiler_gym.validation_error import ValidationError
from compiler_gym.wrappers import (
    ConstrainedCommandline,
    CycleOverBenchmarksIterator,
    ObservationWrapper,
    RewardWrapper,
    SynchronousSqliteLogger,
    ValidateBenchmarkAfterEveryStep,
)

CRC32 = "benchmark://builtin-v0/crc32"
QSORT = "benchmark://builtin-v0/qsort"
INT64_MAX = np.iinfo(np.int64).max


@pytest.fixture
def crc32():
    with compiler_gym.make("llvm-v0", benchmark=CRC32) as env:
        env.reset()
        yield env


# ------------------------------------------------------------------------------------------
# Observation spaces.


def test_observation_spaces_are_compiler_gyms_space_types(crc32):
    spaces = {name: spec.space for name, spec in crc32.observation.spaces.items()}
    # Every space carries its observation's name (LexedIrTuple's is "LexedToken", as there).
    assert {name for name, s in spaces.items() if s.name != name} == {"LexedIrTuple"}
    assert spaces["Ir"] == Sequence("Ir", size_range=(0, INT64_MAX), dtype=str)
    assert spaces["Ir"].dtype is str and spaces["IrSha1"].size_range == (40, 40)
    assert spaces["BitcodeFile"].size_range == (0, 4096)
    assert spaces["Bitcode"].dtype is np.int8 and spaces["Bitcode"].size_range == (0, INT64_MAX)
    instcount = spaces["InstCount"]
    assert isinstance(instcount, Box) and instcount.shape == (70,)
    assert instcount.dtype == np.int64 and instcount.low.min() == 0
    assert instcount.high.min() == INT64_MAX
    count = spaces["IrInstructionCount"]
    assert isinstance(count, Scalar) and (count.min, count.max) == (0, INT64_MAX)
    assert count.dtype == np.int64
    assert isinstance(spaces["IsRunnable"], Scalar) and spaces["IsRunnable"].dtype == bool
    runtime = spaces["Runtime"]
    assert isinstance(runtime, Sequence) and runtime.dtype is float
    assert (runtime.scalar_range.min, runtime.scalar_range.max) == (0.0, np.inf)
    autophase = spaces["AutophaseDict"]
    assert isinstance(autophase, Dict) and autophase.name == "AutophaseDict"
    assert len(autophase.spaces) == 56
    assert autophase["NumAddInst"] == Scalar("NumAddInst", min=0, max=None, dtype=int)
    assert isinstance(spaces["CpuInfo"], Dict) and spaces["CpuInfo"]["name"].dtype is str
    # Values as CompilerGym's: the bitcode an int8 array, the file's bytes.
    bitcode = crc32.observation["Bitcode"]
    assert isinstance(bitcode, np.ndarray) and bitcode.dtype == np.int8
    assert bitcode.tobytes() == Path(crc32.observation["BitcodeFile"]).read_bytes()
    for name in ("Ir", "IrSha1", "Bitcode", "InstCount", "IrInstructionCount", "IsRunnable"):
        assert spaces[name].contains(crc32.observation[name]), name
    assert spaces["InstCountDict"].contains(crc32.observation["InstCountDict"])
    assert not spaces["IrSha1"].contains("0" * 39)


# ------------------------------------------------------------------------------------------
# Datasets.


def test_dataset_name_is_read_only_and_its_site_data_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mine = Dataset("generator://mine-v3", "mine", "MIT", site_data_base="relative")
    with pytest.raises(AttributeError):
        mine.name = "benchmark://other-v0"
    assert mine.name == "generator://mine-v3" and mine.scheme == "generator"
    assert mine.has_site_data and mine.site_data_path.is_absolute()
    assert mine.site_data_path == tmp_path / "relative" / "generator" / "mine-v3"
    bare = Dataset("benchmark://bare-v0", "no site data", "MIT")
    assert not bare.has_site_data
    with pytest.raises(ValueError, match="Dataset has no site data path: benchmark://bare-v0"):
        _ = bare.site_data_path


def test_datasets_order_by_name_and_index_and_iterate_their_benchmarks():
    a, b = (Dataset(f"benchmark://{n}-v0", n, "MIT") for n in ("a", "b"))
    assert a < b and not b < a and a <= a and sorted([b, a]) == [a, b]
    assert a < "benchmark://b-v0"
    with compiler_gym.make("llvm-v0") as env:
        builtin = env.datasets["builtin-v0"]
        assert builtin["qsort"] == builtin.benchmark("qsort")
        assert builtin[QSORT].uri == QSORT
        first = next(iter(builtin))
        assert isinstance(first, Benchmark) and first.uri == next(builtin.benchmark_uris())


def test_files_dataset_takes_site_data_base_and_memoizes_uris(tmp_path):
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "a.c").write_text("int main(void) { return 0; }\n")
    memoized = FilesDataset(
        name="benchmark://memo-v0",
        dataset_root=tmp_path / "programs",
        site_data_base=tmp_path / "site",
    )
    fresh = FilesDataset(
        name="benchmark://fresh-v0", dataset_root=tmp_path / "programs", memoize_uris=False
    )
    assert memoized.site_data_path == tmp_path / "site" / "benchmark" / "memo-v0"
    assert list(memoized.benchmark_uris()) == ["benchmark://memo-v0/a"]
    assert list(fresh.benchmark_uris()) == ["benchmark://fresh-v0/a"]
    (tmp_path / "programs" / "b.c").write_text("int main(void) { return 1; }\n")
    assert list(memoized.benchmark_uris()) == ["benchmark://memo-v0/a"]  # listed once
    assert list(fresh.benchmark_uris()) == ["benchmark://fresh-v0/a", "benchmark://fresh-v0/b"]


def test_installing_a_deprecated_dataset_warns(tmp_path):
    old = Dataset("benchmark://old-v0", "old", "MIT", deprecated="Please use new-v1")
    with pytest.warns(DeprecationWarning, match="'benchmark://old-v0' is marked as deprecated"):
        old.install()
    (tmp_path / "p.c").write_text("int main(void) { return 0; }\n")
    files = FilesDataset(name="benchmark://oldfiles-v0", dataset_root=tmp_path, deprecated="x")
    with pytest.warns(DeprecationWarning, match="Please use new-v1|deprecated. x"):
        list(files.benchmark_uris())
    current = Dataset("benchmark://current-v0", "current", "MIT")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        current.install()


@pytest.mark.parametrize(
    "text, parts, canonical",
    [
        ("benchmark://test-v0", ("benchmark", "test-v0", "", {}, ""), "benchmark://test-v0"),
        ("test-v0", ("benchmark", "test-v0", "", {}, ""), "benchmark://test-v0"),
        (
            "generator://csmith-v0/this path has whitespace/in/it",
            ("generator", "csmith-v0", "/this path has whitespace/in/it", {}, ""),
            "generator://csmith-v0/this path has whitespace/in/it",
        ),
        ("cbench-v1/qsort", ("benchmark", "cbench-v1", "/qsort", {}, ""), None),
        (
            "generator://csmith-v0?a=b&c=d#foo",
            ("generator", "csmith-v0", "", {"a": ["b"], "c": ["d"]}, "foo"),
            "generator://csmith-v0?a=b&c=d#foo",
        ),
        ("", ("benchmark", "", "", {}, ""), "benchmark:"),
        ("generator:", ("generator", "", "", {}, ""), "generator:"),
    ],
)
def test_benchmark_uri_parses_as_compiler_gyms(text, parts, canonical):
    uri = BenchmarkUri.from_string(text)
    assert (uri.scheme, uri.dataset, uri.path, uri.params, uri.fragment) == parts
    assert str(uri) == (canonical or f"benchmark://{text}")


# ------------------------------------------------------------------------------------------
# The env.


def test_a_fork_used_as_a_context_manager_ends_its_episode(crc32):
    with crc32.fork() as fork:
        fork.step(fork.action_space["-mem2reg"])
        assert fork.in_episode
    assert fork.in_episode is False
    assert crc32.in_episode and crc32.actions == []


def test_send_params_before_reset_is_session_not_found():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(SessionNotFound, match=r"Must call reset\(\) before send_params\(\)"):
            env.send_params(("runtime_observation_count", 2))
        env.reset()
        assert env.send_params(("runtime_observation_count", 2)) == ["2"]


def test_compute_observation_of_an_unknown_space_is_value_error(crc32, tmp_path):
    from compiler_gym.envs.llvm import compute_observation

    bitcode = crc32.write_bitcode(tmp_path / "ir.bc")
    space = copy.copy(crc32.observation.spaces["Ir"])
    space.id = "NotARealName"  # as CompilerGym's own test makes an unknown space
    with pytest.raises(ValueError, match="Invalid observation space name: NOT_A_REAL_NAME"):
        compute_observation(space, bitcode)
    with pytest.raises(FileNotFoundError, match="missing.bc"):
        compute_observation(crc32.observation.spaces["Ir"], tmp_path / "missing.bc")


def test_env_metadata_has_compiler_gyms_render_modes_key(crc32):
    assert crc32.metadata["render.modes"] == ["human", "ansi"]
    assert crc32.metadata["render_modes"] == ["human", "ansi"]  # Gymnasium's key too


def test_reward_spaces_print_as_their_names(crc32, capsys):
    crc32.reward_space = "IrInstructionCountOz"
    print(crc32.reward_space)

    class Steps(Reward):
        def __init__(self):
            super().__init__(name="Steps")

    print(Steps())
    assert capsys.readouterr().out == "IrInstructionCountOz\nSteps\n"
    assert repr(crc32.reward.spaces["IrInstructionCount"]) == "IrInstructionCount"


def test_setting_the_benchmark_mid_episode_warns():
    with compiler_gym.make("llvm-v0") as env:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env.benchmark = CRC32  # before any episode: silent
            env.reset()
            env.reset(benchmark=QSORT)  # reset starts the episode at once: silent
        with pytest.warns(UserWarning, match=r"no effect until reset\(\) is called"):
            env.benchmark = CRC32
        assert env.benchmark.uri == QSORT
        env.reset()
        assert env.benchmark.uri == CRC32


# ------------------------------------------------------------------------------------------
# Wrappers.


def test_constrained_commandline_translates_lists_of_actions():
    flags = ["-mem2reg", "-gvn", "-simplifycfg"]
    with ConstrainedCommandline(compiler_gym.make("llvm-v0", benchmark=CRC32), flags) as env:
        inner = env.env.action_space
        assert env.action([2, 0]) == [inner["-simplifycfg"], inner["-mem2reg"]]
        assert env.action(1) == inner["-gvn"]
        assert env.reverse_action([inner["-gvn"], inner["-mem2reg"]]) == [1, 0]


def test_observation_and_reward_wrappers_are_abstract_and_rewards_count():
    class Incomplete(ObservationWrapper):
        pass

    class AlsoIncomplete(RewardWrapper):
        pass

    class Doubled(RewardWrapper):
        def convert_reward(self, reward):
            return 2 * reward

    with pytest.raises(TypeError, match="abstract"):
        Incomplete(None)
    with pytest.raises(TypeError, match="abstract"):
        AlsoIncomplete(None)
    env = compiler_gym.make("llvm-ic-v0", benchmark=CRC32)
    with Doubled(env) as doubled:
        doubled.reset()
        rewards = [doubled.step(doubled.action_space[f])[1] for f in ("-mem2reg", "-gvn")]
        with compiler_gym.make("llvm-ic-v0", benchmark=CRC32) as plain:
            plain.reset()
            raw = [plain.step(plain.action_space[f])[1] for f in ("-mem2reg", "-gvn")]
        assert rewards == pytest.approx([2 * r for r in raw])
        assert doubled.episode_reward == pytest.approx(2 * sum(raw))
        assert env.episode_reward == pytest.approx(2 * sum(raw))
        assert doubled.state.reward == pytest.approx(2 * sum(raw))
        doubled.reset()
        assert doubled.episode_reward == 0


def test_a_fork_of_cycle_over_benchmarks_iterator_starts_over():
    def benchmarks():
        return iter([CRC32, QSORT])

    with CycleOverBenchmarksIterator(compiler_gym.make("llvm-v0"), benchmarks) as env:
        env.reset()
        assert env.benchmark.uri == CRC32
        with env.fork() as fork:
            fork.reset()
            assert fork.benchmark.uri == CRC32  # a new iterator, from the start
        env.reset()
        assert env.benchmark.uri == QSORT
        env.reset()
        assert env.benchmark.uri == CRC32


def test_synchronous_sqlite_logger_checks_its_arguments(tmp_path):
    with compiler_gym.make("example-v0") as other:
        with pytest.raises(TypeError, match="Requires LlvmEnv base environment"):
            SynchronousSqliteLogger(other, tmp_path / "log.db")
    db = tmp_path / "not" / "yet" / "log.db"
    with SynchronousSqliteLogger(compiler_gym.make("llvm-ic-v0", benchmark=CRC32), db) as env:
        env.reset()
        env.step(env.action_space["-mem2reg"])
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM States").fetchone() == (2,)


def test_validate_after_every_step_runs_the_benchmarks_ivalidate(crc32):
    calls = []

    def after_two_steps(env):
        calls.append(len(env.actions))
        if len(env.actions) == 2:
            yield ValidationError("Too many steps", {"steps": 2})

    benchmark = Benchmark.from_file_contents(
        "benchmark://user-v0/checked", crc32.observation["Bitcode"]
    )
    benchmark.add_validation_callback(after_two_steps)
    with ValidateBenchmarkAfterEveryStep(compiler_gym.make("llvm-v0"), -5.0) as env:
        env.reset(benchmark=benchmark)
        assert env.step(env.action_space["-mem2reg"])[2] is False
        _, reward, done, info = env.step(env.action_space["-gvn"])
    assert calls == [1, 2] and done and reward == -5.0
    assert info["error_details"] == ValidationError("Too many steps", {"steps": 2})


# ------------------------------------------------------------------------------------------
# Missing names.


def test_print_service_capabilities(capsys):
    from compiler_gym.bin.service import print_service_capabilities

    with compiler_gym.make("llvm-v0") as env:
        print_service_capabilities(env)
        out = capsys.readouterr().out
        flags = env.action_space.flags
    for heading in ("Datasets", "Action spaces", "Observation spaces", "Reward spaces"):
        assert f"{heading}\n{'=' * len(heading)}\n" in out
    assert "benchmark://builtin-v0" in out and "IrInstructionCountOz" in out
    assert all(flag in out for flag in flags)  # every action, as CompilerGym lists them
