"""gcc-v0 through the public API, against the machine's GCC."""

import io
import json
import shutil
import subprocess

import numpy as np
import pytest

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.errors import BenchmarkInitError, EnvironmentNotSupported, ServiceError


@pytest.fixture
def env():
    with compiler_gym.make("gcc-v0", reward_space="obj_size") as e:
        e.reset(benchmark="builtin-v0/crc32")
        yield e


def _compiles(env) -> int:
    return json.loads(env._env.call("cache_stats"))["compiles"]


def test_spec_matches_the_live_compiler(env):
    spec = env.gcc_spec
    # CompilerGym's Gcc: bin as given, callable; its spec is this one.
    assert (spec.gcc.bin, spec.gcc.path) == ("gcc", shutil.which("gcc"))
    assert spec.gcc.spec is spec
    assert spec.version.startswith("gcc ")
    version = subprocess.run([spec.gcc.path, "--version"], capture_output=True, text=True)
    assert spec.gcc("--version", timeout=60) == version.stdout
    assert env.compiler_version == spec.version == version.stdout.splitlines()[0]
    assert len(env.choices) == len(spec.options)
    assert spec.options[0].name == "-O" and spec.options[0][6] == "-Os"
    kinds = {o.kind for o in spec.options}
    assert kinds == {"olevel", "flag", "enum", "int"}
    tree_pre = next(o for o in spec.options if str(o) == "-ftree-pre")
    assert (len(tree_pre), tree_pre[0], tree_pre[1]) == (2, "-ftree-pre", "-fno-tree-pre")
    threshold = next(o for o in spec.options if o.name == "--param=align-threshold")
    assert (threshold.min, threshold.max, threshold[99]) == (
        1,
        65536,
        "--param=align-threshold=100",
    )
    # Every action name is distinct, and -O0 comes first, as CompilerGym's.
    assert env.action_space.flags[0] == "-O0"
    assert len(set(env.action_space.flags)) == env.action_space.n


def test_each_action_changes_one_choice_and_the_command_line_says_so():
    # No reward, so nothing compiles: random options may well be a combination GCC refuses.
    env = compiler_gym.make("gcc-v0")
    env.reset(benchmark="builtin-v0/crc32")
    rng = np.random.default_rng(3)
    choices = env.choices
    for action in rng.integers(env.action_space.n, size=40):
        name = env.action_space.flags[action]
        _, _, done, info = env.step(int(action))
        assert not done
        after = env.choices
        changed = [i for i, (a, b) in enumerate(zip(choices, after, strict=True)) if a != b]
        assert len(changed) <= 1
        assert info["action_had_no_effect"] == (not changed)
        if changed:
            option = env.gcc_spec.options[changed[0]]
            assert name.startswith(option.name if option.kind != "flag" else "-f")
            line = env.command_line.split()
            if after[changed[0]] >= 0:
                assert option[after[changed[0]]] in line
            if "[" not in name:  # a set action: its argument is on the command line
                assert name in line
        choices = after
    env.close()


def test_obj_size_rewards_sum_to_the_size_change(env):
    start = env.obj_size
    total = 0.0
    for name in ["-O2", "-fno-inline", "-Os", "--param=max-inline-insns-auto[+10]", "-O3"]:
        _, reward, done, _ = env.step(env.action_space.flags.index(name))
        assert not done
        total += reward
    assert total == start - env.obj_size
    assert env.episode_reward == total
    assert env.obj_size == len(env.obj)
    assert len(env.obj_hash) == 32 and len(env.asm_hash) == 32
    assert env.asm_size == len(env.asm.encode())
    assert env.instruction_counts["ret"] >= 1


def test_the_compile_cache_hits(env):
    env.step(env.action_space.flags.index("-O2"))
    size = env.obj_size
    before = _compiles(env)
    # Back and forth to a command line already compiled: no compile.
    env.step(env.action_space.flags.index("-O1"))
    env.step(env.action_space.flags.index("-O2"))
    assert env.obj_size == size
    after_one = _compiles(env)
    assert after_one == before + 1  # -O1 only
    fork = env.fork()
    assert fork.obj_size == size
    fork.close()
    with compiler_gym.make("gcc-v0") as other:
        other.reset(benchmark="builtin-v0/crc32")
        other.step(other.action_space.flags.index("-O2"))
        assert other.obj_size == size
    assert _compiles(env) == after_one


def test_actions_are_named_by_their_flags_as_in_compiler_gym(env):
    assert env.action_space.names[0] == "-O0"
    # -Og: the compile cache is the process's, and a later test times an -O3 compile.
    env.step(env.action_space.names.index("-Og"))
    assert env.command_line == "gcc -Og -w -c src.c -o obj.o"


def test_choices_set_the_whole_state(env):
    choices = [-1] * len(env.gcc_spec.options)
    choices[0] = 6
    size = env.observation["obj_size"]
    env.choices = choices
    assert env.choices == choices
    assert env.command_line == "gcc -Os -w -c src.c -o obj.o"
    # The change counts as an action's would: the state stays valid.
    assert env.episode_reward == size - env.observation["obj_size"] != 0
    assert env.validate().okay()
    with pytest.raises(TypeError):
        env.choices = [1.7] + choices[1:]
    with pytest.raises(ValueError, match="expected"):
        env.choices = [1, 2]
    choices[0] = 8  # -O has 8 values
    with pytest.raises(ValueError, match="out of range"):
        env.choices = choices
    with pytest.raises(ValueError, match="not an option value"):
        env.commandline_to_choices("gcc -fno-such-option")


def test_compiler_gym_gcc_names(tmp_path):
    from compiler_gym.envs.gcc import Gcc
    from compiler_gym.envs.gcc.datasets import get_gcc_datasets
    from compiler_gym.envs.gcc.gcc_env import GccEnv

    gcc = Gcc("gcc")
    assert gcc.spec.options[0].name == "-O" and gcc.spec.gcc.bin == "gcc"
    with pytest.raises(ServiceError, match="exited with 1"):
        gcc("-c", "no-such-file.c", timeout=60, cwd=tmp_path)
    with pytest.raises(FileNotFoundError, match="not found: no-such-gcc"):
        Gcc("no-such-gcc")
    with pytest.raises(EnvironmentNotSupported, match="docker"):
        Gcc("docker:gcc:11.2.0")
    site = tmp_path / "site"
    assert {d.site_data_base for d in get_gcc_datasets("gcc", site)} == {site}
    with GccEnv(datasets_site_path=site, reward_space="obj_size") as env:
        assert {d.site_data_base for d in env.datasets} == {site}
        env.reset(benchmark="builtin-v0/crc32")
        # CompilerGym's session parameters: timeout, and choices as comma-separated text.
        assert env.send_param("timeout", "5") == "5.0" and env.timeout == 5.0
        choices = [-1] * len(env.gcc_spec.options)
        choices[0] = 6
        assert env.send_param("choices", ",".join(map(str, choices))) == ",".join(map(str, choices))
        assert env.command_line == "gcc -Os -w -c src.c -o obj.o"
        assert env.episode_reward > 0


def test_missing_or_non_gcc_compilers_are_typed_errors():
    # Each is also a ServiceError, as CompilerGym's tests expect of a bad gcc_bin.
    with pytest.raises(FileNotFoundError) as missing:
        compiler_gym.make("gcc-v0", gcc_bin="/no/such/gcc")
    assert isinstance(missing.value, ServiceError)
    with pytest.raises(FileNotFoundError):
        compiler_gym.make("gcc-v0", gcc_bin="no-such-gcc-command")
    with pytest.raises(ValueError, match="not a GCC") as not_gcc:
        compiler_gym.make("gcc-v0", gcc_bin=shutil.which("true"))
    assert isinstance(not_gcc.value, ServiceError)
    with compiler_gym.make("gcc-v0", gcc_bin="gcc-12") as env:
        env.reset()
        assert env.command_line.startswith("gcc-12 ")
    # A path runs as given, through its links: GCC names itself after it, as for CompilerGym's
    # `gcc_bin --version` (the file /usr/bin/gcc links to calls itself x86_64-linux-gnu-gcc-12).
    path = shutil.which("gcc")
    with compiler_gym.make("gcc-v0", gcc_bin=path) as env:
        version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        assert env.compiler_version == version.splitlines()[0]
        assert env.compiler_version.startswith("gcc ")
        assert env.gcc_spec.gcc.path == path


def test_a_failing_compile_ends_the_episode_and_the_env_resets(env):
    env.step(env.action_space.flags.index("-O2"))
    earned = env.episode_reward
    _, reward, done, info = env.multistep(
        [
            env.action_space.flags.index("-fsection-anchors"),
            env.action_space.flags.index("-fno-toplevel-reorder"),
        ]
    )
    assert done
    assert info["error_type"] == "ABORTED"
    assert "section anchors must be disabled" in info["error_details"]
    assert reward == -earned
    env.reset()
    observations, _, done, _ = env.multistep(
        [
            env.action_space.flags.index("-fsection-anchors"),
            env.action_space.flags.index("-fno-toplevel-reorder"),
        ],
        observation_spaces=["obj_size", "asm_size", "asm_hash"],
    )
    assert done and observations == [-1, -1, ""]  # CompilerGym's defaults: a size is never -1
    assert env.observation.spaces["obj_size"].default_value == -1
    assert env.observation.spaces["obj_size"].space.min == -1
    with pytest.raises(compiler_gym.SessionNotFound):
        env.step(0)
    env.reset()
    assert env.obj_size > 0
    # A compile past the time limit.
    env.timeout = 0.001
    _, _, done, info = env.step(env.action_space.flags.index("-O3"))
    assert done and info["error_type"] == "DEADLINE_EXCEEDED"
    env.timeout = 60
    env.reset()
    assert not env.step(env.action_space.flags.index("-O3"))[2]


def test_a_compile_past_the_timeout_is_a_service_error_that_code_can_retry(env):
    """gcc_autotuning's random search (CompilerGym's example) retries a failed compile with
    ``except ServiceError``: a compile past the time limit is one too (and a TimeoutError).
    Random choices of every option made GCC 12 run past 60 s there."""
    env.timeout = 0.001
    env.choices = [0] * len(env.gcc_spec.options)
    with pytest.raises(ServiceError, match="timed out after 0.001 s") as raised:
        env.observation["obj_size"]
    assert isinstance(raised.value, TimeoutError)
    assert type(raised.value) is compiler_gym.errors.ServiceTimeout
    env.timeout = 60
    env.reset()  # the example's retry: the default choices compile
    assert env.observation["obj_size"] > 0


def test_benchmarks_gcc_cannot_compile_are_benchmark_init_errors(tmp_path):
    bitcode = tmp_path / "x.bc"
    bitcode.write_bytes(b"BC\xc0\xde")
    with compiler_gym.make("gcc-v0") as env:
        with pytest.raises(BenchmarkInitError):
            env.reset(benchmark=compiler_gym.Benchmark.from_file("file:///x.bc", bitcode))
        broken = tmp_path / "broken.c"
        broken.write_text("#include <no_such_header.h>\n")
        with pytest.raises(BenchmarkInitError):
            env.reset(benchmark=compiler_gym.Benchmark.from_file("file:///broken.c", broken))
        env.reset(benchmark="builtin-v0/qsort")
        assert env.obj_size > 0


def test_state_round_trips_and_validates(env):
    for name in ["-Os", "-fno-tree-pre", "--param=align-threshold[+10]"]:
        env.step(env.action_space.flags.index(name))
    state = env.state
    assert state.commandline == (
        "gcc -Os -fno-tree-pre --param=align-threshold=10 -w -c src.c -o obj.o"
    )
    buffer = io.StringIO()
    compiler_gym.CompilerEnvStateWriter(buffer).write_state(state)
    buffer.seek(0)
    (read,) = list(compiler_gym.CompilerEnvStateReader(buffer))
    assert read == state
    result = env.validate(read)
    assert result.okay(), result.errors
    bad = CompilerEnvState(state.benchmark, state.commandline, state.walltime, state.reward + 1)
    assert not env.validate(bad).okay()
    with compiler_gym.make("gcc-v0", reward_space="obj_size") as replay:
        replay.apply(state)
        assert replay.choices == env.choices
        assert replay.episode_reward == state.reward


def test_make_vec_rows_equal_single_envs():
    rng = np.random.default_rng(7)
    benchmarks = ["builtin-v0/crc32", "builtin-v0/qsort", "builtin-v0/adpcm"]
    vec = compiler_gym.make_vec(
        "gcc-v0", num_envs=3, num_threads=2, benchmarks=benchmarks, reward_space="obj_size"
    )
    obs, _ = vec.reset()
    singles = [compiler_gym.make("gcc-v0", reward_space="obj_size") for _ in benchmarks]
    for single, benchmark in zip(singles, benchmarks, strict=True):
        single.reset(benchmark=benchmark)
    for _ in range(4):
        actions = rng.integers(vec.single_action_space.n, size=3)
        obs, rewards, terminated, _, info = vec.step(actions)
        for i, single in enumerate(singles):
            _, reward, done, _ = single.step(int(actions[i]))
            assert bool(terminated[i]) == done
            if not done:
                assert obs[i].tolist() == single.choices
                assert float(rewards[i]) == reward
    for single in singles:
        single.close()
    vec.close()


def test_make_vec_rows_of_a_failed_compile_read_the_sizes_default():
    with compiler_gym.make_vec(
        "gcc-v0", num_envs=2, benchmarks=["builtin-v0/crc32"], observation_space="obj_size"
    ) as vec:
        flags = vec.env_action_space.flags
        anchors, reorder = flags.index("-fsection-anchors"), flags.index("-fno-toplevel-reorder")
        obs, _ = vec.reset()
        assert (obs > 0).all()
        vec.step([anchors, anchors])
        obs, _, terminated, _, info = vec.step([reorder, 0])
        assert terminated.tolist() == [True, False]
        assert obs[0] == -1 and obs[1] > 0


def test_gymnasium_checks_pass():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("compiler_gym/gcc-v0", render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
