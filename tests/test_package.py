"""The package as a user meets it first: what `import compiler_gym` costs."""

import os
import subprocess
import sys
import tempfile

import numpy as np


def test_import_compiler_gym_does_not_import_torch_or_the_rl_libraries():
    # A single env needs none of them; make_vec imports torch with its first batch, and
    # networkx comes with the first graph space (an LLVM env's ProGraML).
    code = (
        "import sys, compiler_gym\n"
        "heavy = ('torch', 'torchrl', 'stable_baselines3', 'matplotlib', 'nevergrad', "
        "'networkx')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_make_vec_still_returns_torch_tensors():
    import compiler_gym

    with compiler_gym.make_vec("llvm-autophase-ic-v0", num_envs=2, num_threads=1) as vec:
        obs, _ = vec.reset()
        assert type(obs).__module__.startswith("torch") and tuple(obs.shape) == (2, 56)


def test_actions_by_flag_with_a_suggestion_for_a_typo():
    import pytest

    import compiler_gym

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        space = env.action_space
        assert space["-mem2reg"] == space["mem2reg"] == space.flags.index("-mem2reg")
        with pytest.raises(LookupError, match="did you mean '-mem2reg'"):
            space["-mem2regg"]
        env.reset()
        env.step("-mem2reg")
        env.multistep(["-sroa", space["-gvn"]])
        assert env.actions == [space["-mem2reg"], space["-sroa"], space["-gvn"]]
        with pytest.raises(LookupError, match="Unknown action"):
            env.step("-no-such-pass")
        assert len(env.actions) == 3


def test_deepcopy_forks_copy_refuses_and_a_closed_env_says_so():
    import copy

    import pytest

    import compiler_gym
    from compiler_gym.errors import ServiceIsClosed

    env = compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32")
    env.reset()
    env.step(env.action_space["-mem2reg"])
    with pytest.raises(TypeError, match="fork"):
        copy.copy(env)
    forked = copy.deepcopy(env)
    assert forked.actions == env.actions and forked.episode_reward == env.episode_reward
    forked.step(forked.action_space["-gvn"])
    assert len(forked.actions) == 2 and len(env.actions) == 1
    forked.close()
    env.close()
    env.close()  # twice is fine
    assert env.actions == []
    for call in (lambda: env.step(0), env.reset, lambda: env.observation["IrInstructionCount"]):
        with pytest.raises(ServiceIsClosed, match="LlvmEnv is closed"):
            call()


def test_the_gymnasium_face_refuses_a_float_action_too():
    import gymnasium
    import numpy as np
    import pytest

    import compiler_gym  # noqa: F401  (registers the ids)

    env = gymnasium.make("compiler_gym/llvm-v0")
    try:
        env.reset(options={"benchmark": "benchmark://builtin-v0/crc32"})
        with pytest.raises(ValueError, match="must be an integer, got 1.9"):
            env.step(1.9)
        env.step(np.int64(3))
        assert env.unwrapped.env.actions == [3]
    finally:
        env.close()


def test_reprs_say_what_things_are_and_unknown_names_suggest_the_closest():
    import pytest

    import compiler_gym

    with compiler_gym.make(
        "llvm-v0", benchmark="builtin-v0/crc32", observation_space="Autophase"
    ) as env:
        assert repr(env) == (
            "LlvmEnv('llvm-v0', benchmark='benchmark://builtin-v0/crc32', "
            "observation_space='Autophase', reward_space=None)"
        )
        assert repr(env.observation).startswith("ObservationView(")
        assert "Autophase" in repr(env.observation) and "IrSha1" in repr(env.observation)
        builtin = env.datasets["builtin-v0"]
        assert repr(builtin) == "BuiltinDataset('benchmark://builtin-v0', size=26)"
        assert str(builtin) == "benchmark://builtin-v0"
        assert "size=infinite" in repr(env.datasets["generator://csmith-v0"])
        cases = [
            (lambda: env.observation["Autophse"], "did you mean 'Autophase'"),
            (lambda: env.reward["IrInstructionCountOZ"], "did you mean 'IrInstructionCountOz'"),
            (lambda: setattr(env, "reward_space", "IrInstructionCountO"), "'IrInstructionCountOz'"),
            (lambda: env.datasets["builtin-v1"], "did you mean 'benchmark://builtin-v0'"),
            (lambda: env.datasets.benchmark("builtin-v0/qsrt"), "did you mean 'qsort'"),
            (lambda: compiler_gym.make("llvm-ic-v1"), "did you mean 'llvm-ic-v0'"),
        ]
        for call, message in cases:
            with pytest.raises(LookupError, match=message):
                call()
    assert repr(env) == "LlvmEnv('llvm-v0', closed)"


def test_spec_metadata_and_send_params():
    import pytest

    import compiler_gym

    with compiler_gym.make("llvm-v0") as env:
        assert env.spec.id == "compiler_gym/llvm-v0"
        assert env.metadata["render_modes"] == ["human", "ansi"]
        env.reset()  # CompilerGym's send_params needs an episode
        assert env.send_params(
            ("runtime_observation_count", 3), ("runtime_warmup_runs_count", 1)
        ) == ["3", "1"]
        assert env.runtime_observation_count == 3 and env.runtime_warmup_runs_count == 1
        with pytest.raises(ValueError):
            env.send_params(("runtime_observation_count", 0))
        # CompilerGym's names for the same settings.
        assert env.send_param("llvm.set_runtimes_per_observation_count", 7) == "7"
        assert env.send_param("llvm.get_runtimes_per_observation_count", "") == "7"
        assert env.runtime_observation_count == 7
        assert env.send_param("llvm.set_warmup_runs_count_per_runtime_observation", 2) == "2"
        assert env.send_param("llvm.get_warmup_runs_count_per_runtime_observation", "") == "2"
        with pytest.raises(ValueError):
            env.send_param("llvm.set_runtimes_per_observation_count", -1)


def test_compiler_gyms_llvm_module(tmp_path):
    import pytest

    import compiler_gym
    from compiler_gym.envs.llvm import (
        LlvmEnv,
        compute_observation,
        get_system_library_flags,
        make_benchmark,
    )
    from compiler_gym.errors import BenchmarkInitError

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        assert isinstance(env, LlvmEnv)
        env.reset()
        env.step(env.action_space["-mem2reg"])
        bitcode = env.write_bitcode(str(tmp_path / "crc32.bc"))
        expected = env.observation["IrInstructionCount"], env.observation["IrSha1"]
    assert (
        compute_observation("IrInstructionCount", bitcode),
        compute_observation(env.observation.spaces["IrSha1"], bitcode),
    ) == expected
    (tmp_path / "broken.bc").write_bytes(b"BC\xc0\xde" + bytes(64))
    with pytest.raises(BenchmarkInitError):
        compute_observation("IrInstructionCount", tmp_path / "broken.bc")
    with pytest.raises(FileNotFoundError):
        compute_observation("IrInstructionCount", tmp_path / "missing.bc")
    with pytest.raises(ValueError, match="space name: IR_SHA; did you mean 'IrSha1'"):
        compute_observation("IrSha", bitcode)
    flags = get_system_library_flags()
    assert flags[0::2] == ["-isystem"] * (len(flags) // 2) and len(flags) >= 2
    assert make_benchmark(bitcode).data == bitcode.read_bytes()  # read when made


def test_user_rewards_as_compiler_gym_writes_them():
    import pytest

    import compiler_gym
    from compiler_gym.spaces import (
        Commandline,
        DefaultRewardFromObservation,
        NamedDiscrete,
        Reward,
        Scalar,
    )

    class Shrink(Reward):  # CompilerGym's documented pattern
        def __init__(self):
            super().__init__(
                name="shrink",
                observation_spaces=["IrInstructionCount"],
                default_value=0,
                default_negates_returns=True,
                deterministic=True,
                platform_dependent=False,
            )
            self.previous = None

        def reset(self, benchmark, observation_view):
            self.previous = observation_view["IrInstructionCount"]

        def update(self, actions, observations, observation_view):
            reward = float(self.previous - observations[0])
            self.previous = observations[0]
            return reward

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reward.add_space(Shrink())
        env.reward.add_space(DefaultRewardFromObservation("IrInstructionCount", name="growth"))
        env.reward_space = "shrink"
        env.reset()
        _, rewards, _, _ = env.step(
            env.action_space["-mem2reg"],
            reward_spaces=["shrink", "growth", env.reward.spaces["IrInstructionCount"]],
        )
        # The engine's delta reward, the user's, and the observation's growth agree.
        assert rewards[0] == rewards[2] > 0 and rewards[1] == -rewards[0]
        assert env.episode_reward == rewards[0]
        assert env.reward.spaces["shrink"].range == (-float("inf"), float("inf"))
        with pytest.raises(TypeError, match="compiler_gym.spaces.Reward"):
            env.reward.add_space("shrink")
        with pytest.raises(ValueError, match="the environment's own"):
            env.reward.add_space(DefaultRewardFromObservation("IrInstructionCount"))
        assert isinstance(env.action_space, NamedDiscrete) and isinstance(
            env.action_space, Commandline
        )
        assert (
            env.action_space.names[env.action_space["gvn"]] == "-gvn"
        )  # as CompilerGym names them
    space = NamedDiscrete(["a", "b", "c"], name="letters")
    assert space["c"] == 2 and space.to_string([2, 0]) == "c a" and space.from_string("b") == [1]
    with pytest.raises(LookupError, match="did you mean 'b'"):
        space["bb"]
    count = Scalar("count", min=0, max=10, dtype=np.int64)
    assert count.contains(3) and not count.contains(11) and not count.contains(2.5)
    assert not count.contains(True) and count.contains(count.sample())


def test_compiler_gyms_dataset_names(tmp_path):
    import pickle

    import pytest

    import compiler_gym
    from compiler_gym.datasets import (
        BenchmarkSource,
        BenchmarkUri,
        Dataset,
        FilesDataset,
        round_robin_iterables,
    )

    uri = BenchmarkUri.from_string("generator://csmith-v0/12?b=2&a=1#frag")
    parts = (uri.scheme, uri.dataset, uri.path, uri.fragment)
    assert parts == ("generator", "csmith-v0", "/12", "frag")
    assert uri.params == {"a": ["1"], "b": ["2"]}
    assert str(uri) == "generator://csmith-v0/12?a=1&b=2#frag"
    assert BenchmarkUri.canonicalize("builtin-v0/qsort") == "benchmark://builtin-v0/qsort"
    assert BenchmarkUri.from_string("builtin-v0/qsort") == "benchmark://builtin-v0/qsort"
    assert uri.startswith("generator://csmith") and uri.endswith("#frag")
    assert list(round_robin_iterables([[1, 2, 3], "ab", []])) == [1, "a", 2, "b", 3]

    with compiler_gym.make("llvm-v0") as env:
        builtin = env.datasets["builtin-v0"]
        assert builtin == "benchmark://builtin-v0" and builtin == env.datasets["builtin-v0"]
        assert pickle.loads(pickle.dumps(builtin)) == builtin
        assert (builtin.protocol, builtin.version) == ("benchmark", 0)
        (source,) = builtin.benchmark("qsort").sources
        assert isinstance(source, BenchmarkSource) and source.filename.endswith(".c")
        assert builtin.benchmark("qsort").write_sources_to_directory(tmp_path / "src") == 1
        assert (tmp_path / "src" / source.filename).read_bytes() == source.contents

    mine = Dataset(
        "benchmark://mine-v2", "my programs", "MIT", site_data_base=tmp_path, validatable="Yes"
    )
    assert mine.site_data_path == tmp_path / "benchmark" / "mine-v2" and mine.version == 2
    (tmp_path / "programs" / "sub").mkdir(parents=True)
    for name in ("a.c", "b.c", "sub/c.c", "sub/d.ll"):
        (tmp_path / "programs" / name).write_text("int main(void) { return 0; }\n")
    by_glob = FilesDataset(
        name="benchmark://globbed-v0", dataset_root=tmp_path / "programs", file_glob="sub/*"
    )
    assert list(by_glob.benchmark_uris()) == [
        "benchmark://globbed-v0/sub/c",
        "benchmark://globbed-v0/sub/d",
    ]
    by_suffix = FilesDataset(
        name="benchmark://suffixed-v0",
        dataset_root=tmp_path / "programs",
        benchmark_file_suffix=".c",
    )
    assert [u.rsplit("/", 1)[-1] for u in by_suffix.benchmark_uris()] == ["a", "b", "c"]
    with pytest.raises(TypeError, match="one of root and dataset_root"):
        FilesDataset("benchmark://none-v0")

    # CompilerGym's module of the LLVM datasets; a site_data_base moves where they install.
    from compiler_gym.envs.llvm.datasets import CsmithDataset, GccTortureDataset, get_llvm_datasets

    default = get_llvm_datasets()
    moved = get_llvm_datasets(site_data_base=tmp_path / "site")
    with compiler_gym.make("llvm-v0") as env:
        names = [d.name for d in env.datasets.datasets()]
    assert [d.name for d in moved] == [d.name for d in default] == names
    torture = next(d for d in moved if isinstance(d, GccTortureDataset))
    assert torture.root == tmp_path / "site" / "benchmark" / "gcc-torture-v0"
    assert next(d for d in default if isinstance(d, GccTortureDataset)).root != torture.root
    assert any(isinstance(d, CsmithDataset) for d in moved)


def test_the_service_tool_describes_an_environment(capsys):
    from compiler_gym.bin import service

    assert service.main(["--ls_env"]) == 0
    assert "llvm-ic-v0" in capsys.readouterr().out.split()
    assert service.main(["--env", "llvm-v0", "--actions"]) == 0
    out = capsys.readouterr().out
    for title in ("Datasets", "Action spaces", "Observation spaces", "Reward spaces"):
        assert f"{title}\n{'=' * len(title)}\n" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["IrInstructionCountOz"][1:4] == ["(-inf,", "inf)", "yes"]
    assert rows["Autophase"][-2:] == ["yes", "no"]  # deterministic, not platform dependent
    assert "-mem2reg" in out and "benchmark://builtin-v0" in out
    assert service.main(["--env", "llvm-v1"]) == 2
    assert "did you mean 'llvm-v0'" in capsys.readouterr().err


def test_logging_is_quiet_unless_asked_and_check_env_prints_little(capsys):
    import os

    import gymnasium
    from gymnasium.utils.env_checker import check_env

    # CompilerGym's levels: 1 warnings, 2 info, 3 debug; none printed below the level.
    code = (
        "import logging, compiler_gym; log = logging.getLogger('compiler_gym.x');"
        "log.debug('d'); log.info('i'); log.warning('w')"
    )
    for debug, expected in (
        ("", []),
        ("0", []),
        ("1", ["w"]),
        ("2", ["i", "w"]),
        ("3", ["d", "i", "w"]),
    ):
        out = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "COMPILER_GYM_DEBUG": debug},
            capture_output=True,
            text=True,
            check=True,
        )
        printed = [line.rsplit(": ", 1)[-1] for line in out.stderr.splitlines()]
        assert out.stdout == "" and printed == expected
    env = gymnasium.make("compiler_gym/llvm-v0", render_mode="human")
    try:
        check_env(env.unwrapped)
        env.unwrapped.render()
    finally:
        env.close()
    printed = capsys.readouterr().out
    assert 0 < len(printed) < 20_000 and "render_mode='ansi' returns them all" in printed


def test_try_actions_takes_flags_too():
    import pytest

    import compiler_gym

    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        space = env.action_space
        by_flag = env.try_actions(["-mem2reg", ["-sroa", "-gvn"]])
        by_index = env.try_actions([space["-mem2reg"], [space["-sroa"], space["-gvn"]]])
        assert list(by_flag) == list(by_index) and by_flag[0] > 0
        with pytest.raises(LookupError, match="did you mean"):
            env.try_actions(["-mem2rg"])


def test_every_status_code_maps_to_one_exception():
    """The single table in torch_ext/errors.cc, walked code by code: each raises its type."""
    import builtins

    import pytest

    import compiler_gym.errors
    from compiler_gym import _C

    table = dict(_C.status_codes())
    assert table["NO_EPISODE"] == "SessionNotFound"
    assert table["FAILED_PRECONDITION"] == "RuntimeError"
    assert table["UNAVAILABLE"] == "EnvironmentNotSupported"
    assert table["BENCHMARK_INIT"] == "BenchmarkInitError"
    assert table["NOT_FOUND"] == "FileNotFoundError"
    for code, name in table.items():
        expected = getattr(compiler_gym.errors, name, None) or getattr(builtins, name)
        with pytest.raises(expected, match=f"walked {code}") as raised:
            _C.raise_status_for_testing(code, f"walked {code}")
        assert type(raised.value) is expected, code


def test_preconditions_that_are_not_a_missing_episode():
    """A recv() with nothing sent and a missing vocabulary are not SessionNotFound."""
    import pytest

    import compiler_gym
    import compiler_gym.errors

    with compiler_gym.make_vec("llvm-v0", num_envs=2) as vec:
        vec.reset()
        with pytest.raises(RuntimeError, match="nothing sent") as raised:
            vec.recv()
        assert not isinstance(raised.value, compiler_gym.errors.SessionNotFound)
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(compiler_gym.errors.SessionNotFound):
            env.observation["IrInstructionCount"]
    script = (
        "import compiler_gym\n"
        "env = compiler_gym.make('llvm-v0')\n"
        "env.reset()\n"
        "try:\n"
        "    env.observation['Inst2vec']\n"
        "except FileNotFoundError as e:\n"
        "    print('FileNotFoundError', e)\n"
    )
    with tempfile.TemporaryDirectory() as empty:
        out = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "COMPILER_GYM_DATA_DIR": empty},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert out.stdout.startswith("FileNotFoundError"), out.stdout + out.stderr


def test_the_committed_stubs_match_the_module(tmp_path):
    """python/compiler_gym/_C.pyi is what scripts/gen_stubs.sh makes of the built module."""
    from pathlib import Path

    import compiler_gym

    committed = Path(compiler_gym.__file__).parent / "_C.pyi"
    subprocess.run(
        [sys.executable, "-m", "pybind11_stubgen", "compiler_gym._C", "-o", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    generated = (tmp_path / "compiler_gym" / "_C.pyi").read_text()
    lines = committed.read_text().splitlines(keepends=True)
    assert "".join(lines[1:]) == generated, "stale stubs: run scripts/gen_stubs.sh"


def test_compiler_gyms_space_classes():
    import numpy as np
    import pytest

    from compiler_gym.spaces import Box, Dict, Scalar, Sequence

    box = Box(low=0, high=4, name="b", shape=(2,), dtype=np.int64)
    assert box.name == "b" and box.contains(np.array([1, 4])) and not box.contains(np.array([5, 0]))
    both = Dict({"b": box, "s": Scalar("s", 0, 1)}, name="d")
    assert both.name == "d" and set(both.spaces) == {"b", "s"}
    text = Sequence("ir", size_range=(1, 4), dtype=str)
    assert text.contains("abc") and not text.contains("") and not text.contains(b"ab")
    assert not text.contains("abcde")
    numbers = Sequence("v", size_range=(0, None), dtype=np.int64, scalar_range=Scalar("x", 0, 9))
    assert numbers.contains(np.array([1, 2, 9])) and not numbers.contains(np.array([10]))
    assert not numbers.contains(np.array([[1]]))
    assert Sequence("ir", (1, 4), str) == text != numbers
    with pytest.raises(NotImplementedError):
        text.sample()

    from compiler_gym.spaces import CommandlineFlag, Discrete, Permutation, SpaceSequence, Tuple

    order = Permutation("order", Scalar("i", 1, 4, dtype=np.int64))
    assert order.contains(np.array([2, 4, 1, 3])) and not order.contains(np.array([1, 1, 2, 3]))
    assert not order.contains(np.array([1, 2, 3])) and not order.contains(np.array([0, 1, 2, 3]))
    order.seed(0)
    assert sorted(order.sample().tolist()) == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="bounded"):
        Permutation("p", Scalar("i", 0, None))
    choices = SpaceSequence("picks", Discrete(3, "pick"), size_range=(1, 2))
    assert choices.contains([0, 2]) and not choices.contains([]) and not choices.contains([0, 3])
    assert not choices.contains([0, 1, 2])
    choices.seed(1)
    assert choices.contains(choices.sample()) and choices == SpaceSequence(
        "picks", Discrete(3, "pick"), (1, 2)
    )
    pair = Tuple([Discrete(2, "a"), box], name="pair")
    assert pair.name == "pair" and pair.contains((1, np.array([0, 0])))
    flag = CommandlineFlag(name="mem2reg", flag="-mem2reg", description="Promote memory")
    assert flag.flag == "-mem2reg"


def test_each_family_under_compiler_gyms_module_name():
    from compiler_gym.envs import gcc_env, llvm_env, loop_tool_env
    from compiler_gym.envs.gcc import GccEnv
    from compiler_gym.envs.llvm import LlvmEnv
    from compiler_gym.envs.loop_tool import LoopToolEnv

    assert GccEnv is gcc_env.GccEnv and LlvmEnv is llvm_env.LlvmEnv
    assert LoopToolEnv is loop_tool_env.LoopToolEnv


def test_compiler_gyms_type_hint_names():
    import typing

    from compiler_gym.util.gym_type_hints import ActionType, ObservationType, RewardType, StepType

    assert RewardType is float and isinstance(ObservationType, typing.TypeVar)
    assert typing.get_origin(StepType) is tuple and ActionType.__name__ == "ActionType"


def test_compiler_gym_module_paths_name_the_same_objects():
    # CompilerGym's module paths of the classes and functions users import.
    import importlib

    import compiler_gym.datasets as datasets
    import compiler_gym.envs.llvm as llvm
    from compiler_gym.envs.llvm_env import LlvmEnv

    expected = {
        "compiler_gym.datasets.uri": {"BenchmarkUri": datasets.BenchmarkUri},
        "compiler_gym.datasets.datasets": {"Datasets": datasets.Datasets},
        "compiler_gym.datasets.files_dataset": {"FilesDataset": datasets.FilesDataset},
        "compiler_gym.datasets.tar_dataset": {"TarDataset": datasets.TarDataset},
        "compiler_gym.envs.llvm.llvm_env": {"LlvmEnv": LlvmEnv},
        "compiler_gym.envs.llvm.compute_observation": {
            "compute_observation": llvm.compute_observation
        },
        "compiler_gym.envs.llvm.llvm_benchmark": {
            "make_benchmark": datasets.make_benchmark,
            "ClangInvocation": datasets.ClangInvocation,
            "get_system_library_flags": llvm.get_system_library_flags,
            "merge_benchmarks": llvm.merge_benchmarks,
            "split_benchmark_by_function": llvm.split_benchmark_by_function,
        },
    }
    for module, names in expected.items():
        imported = importlib.import_module(module)
        for name, value in names.items():
            assert getattr(imported, name) is value, f"{module}.{name}"
