"""The CompilerGym API of the LLVM environment: steps, observations, rewards, fork, errors."""

import subprocess
import time

import numpy as np
import pytest

import compiler_gym
from compiler_gym.errors import BenchmarkInitError, ServiceError, SessionNotFound
from conftest import fixture_uri, step_pipeline_for_testing


def test_make_all_llvm_ids():
    for env_id in [
        "llvm-v0",
        "llvm-ic-v0",
        "llvm-codesize-v0",
        "llvm-autophase-ic-v0",
        "llvm-autophase-codesize-v0",
        "llvm-ir-ic-v0",
        "llvm-ir-codesize-v0",
    ]:
        with compiler_gym.make(env_id) as env:
            assert env.benchmark == "benchmark://builtin-v0/qsort"
            obs = env.reset()
            if "autophase" in env_id:
                assert obs.shape == (56,) and obs.dtype == np.int64
            elif "-ir-" in env_id:
                assert "define" in obs
            else:
                assert obs is None
            if env_id == "llvm-v0":
                assert env.reward_space is None
            else:
                assert env.reward_space.name.endswith("Oz")


def test_unknown_id():
    with pytest.raises(LookupError):
        compiler_gym.make("llvm-v1000")


def test_compiler_gym_usage_example():
    env = compiler_gym.make(
        "llvm-v0",
        benchmark="builtin-v0/qsort",
        observation_space="Autophase",
        reward_space="IrInstructionCount",
    )
    observation = env.reset()
    assert observation.shape == (56,)
    observation, reward, done, info = env.step(env.action_space.flags.index("-mem2reg"))
    assert not done and reward > 0 and not info["action_had_no_effect"]
    assert env.episode_reward == reward
    env.close()


def test_reward_equals_observation_delta(env):
    ir = env.observation["IrInstructionCount"]
    o0 = env.observation["IrInstructionCountO0"]
    oz = env.observation["IrInstructionCountOz"]
    o3 = env.observation["IrInstructionCountO3"]
    assert ir == o0  # the unoptimized program is the O0 baseline here
    prev = ir
    for flag in ["-mem2reg", "-instcombine", "-simplifycfg"]:
        a = env.action_space.flags.index(flag)
        _, rewards, _, _ = env.step(
            a,
            reward_spaces=[
                "IrInstructionCount",
                "IrInstructionCountNorm",
                "IrInstructionCountOz",
                "IrInstructionCountO3",
            ],
        )
        now = env.observation["IrInstructionCount"]
        assert rewards[0] == prev - now
        assert rewards[1] == pytest.approx((prev - now) / o0)
        assert rewards[2] == pytest.approx((prev - now) / max(o0 - oz, 1))
        assert rewards[3] == pytest.approx((prev - now) / max(o0 - o3, 1))
        prev = now


def test_oz_episode_total_is_one_when_matching_oz():
    with compiler_gym.make("llvm-ic-v0", benchmark=fixture_uri("instcount.ll")) as env:
        env.reset()
        oz = env.observation["IrInstructionCountOz"]
        o0 = env.observation["IrInstructionCountO0"]
        flags = env.action_space.flags
        env.step(flags.index("-mem2reg"))
        now = env.observation["IrInstructionCount"]
        assert now > oz
        assert env.episode_reward == pytest.approx((o0 - now) / max(o0 - oz, 1))
        # mem2reg then simplifycfg makes this fixture exactly as small as -Oz does.
        env.step(flags.index("-simplifycfg"))
        assert env.observation["IrInstructionCount"] == oz
        assert env.episode_reward == pytest.approx(1.0)


def test_object_text_size_reward(env):
    env.reward_space = "ObjectTextSizeBytes"
    env.reset()
    before = env.observation["ObjectTextSizeBytes"]
    assert before == env.observation["ObjectTextSizeO0"]
    _, reward, _, _ = env.step(env.action_space.flags.index("-mem2reg"))
    after = env.observation["ObjectTextSizeBytes"]
    assert reward == before - after
    assert after < before


def test_observation_spaces_are_the_engine_table(env):
    names = set(env.observation.spaces)
    for name in [
        "Ir",
        "IrSha1",
        "Bitcode",
        "BitcodeFile",
        "InstCount",
        "InstCountDict",
        "InstCountNorm",
        "InstCountNormDict",
        "Autophase",
        "AutophaseDict",
        "IrInstructionCount",
        "IrInstructionCountO0",
        "IrInstructionCountO3",
        "IrInstructionCountOz",
        "ObjectTextSizeBytes",
        "ObjectTextSizeO0",
        "ObjectTextSizeO3",
        "ObjectTextSizeOz",
        "TextSizeBytes",
        "TextSizeO0",
        "TextSizeO3",
        "TextSizeOz",
        "IsBuildable",
        "IsRunnable",
        "Buildtime",
        "Runtime",
        "RuntimeO0",
        "CpuInfo",
    ]:
        assert name in names
    # IrInstructionCount, ObjectTextSize and TextSize with 4 formulas each, and Runtime.
    assert len(env.reward.spaces) == 13


def test_observation_values(env):
    counts = env.observation["InstCount"]
    assert counts.shape == (70,) and counts[0] == counts[3:].sum()
    norm = env.observation["InstCountNorm"]
    assert norm.dtype == np.float32 and norm.shape == (69,)
    np.testing.assert_allclose(norm, counts[1:] / max(counts[0], 1), rtol=1e-6)
    d = env.observation["InstCountDict"]
    assert d["TotalInstsCount"] == counts[0] and len(d) == 70
    nd = env.observation["InstCountNormDict"]
    assert len(nd) == 69 and "TotalBlocksDensity" in nd
    ad = env.observation["AutophaseDict"]
    assert list(ad.values()) == env.observation["Autophase"].tolist()
    assert env.observation.IrInstructionCount() == counts[0]
    assert env.observation["IsBuildable"] is True and env.observation["IsRunnable"] is True
    cpu = env.observation["CpuInfo"]
    assert cpu["cores_count"] >= 1 and cpu["name"]
    # CompilerGym's keys in its order: each cache level's size and count (HostCaches in
    # envs/llvm/runtime_test.cc pins the counting).
    levels = ("l1i", "l1d", "l2", "l3", "l4")
    caches = [f"{level}_cache_{what}" for level in levels for what in ("size", "count")]
    assert list(cpu) == ["name", "cores_count", *caches]
    assert all((cpu[f"{c}_cache_size"] == -1) == (cpu[f"{c}_cache_count"] == 0) for c in levels)
    assert env.observation["TextSizeBytes"] >= env.observation["ObjectTextSizeBytes"]
    sha = env.observation["IrSha1"]
    assert len(sha) == 40 and int(sha, 16) >= 0
    path = env.observation["BitcodeFile"]
    with open(path, "rb") as f:
        assert f.read() == env.observation["Bitcode"].tobytes()


def test_ir_sha1_changes_iff_module_changes(env):
    sha = env.observation["IrSha1"]
    a = env.action_space.flags.index("-mem2reg")
    _, _, _, info = env.step(a)
    assert not info["action_had_no_effect"]
    sha2 = env.observation["IrSha1"]
    assert sha2 != sha
    _, _, _, info = env.step(a)
    assert info["action_had_no_effect"]
    assert env.observation["IrSha1"] == sha2


def test_multistep_and_lazy_spaces(env):
    flags = ["-mem2reg", "-instcombine", "-gvn"]
    actions = [env.action_space.flags.index(f) for f in flags]
    obs, rewards, done, info = env.multistep(
        actions,
        observation_spaces=["IrInstructionCount", "Autophase"],
        reward_spaces=["IrInstructionCount"],
    )
    assert not done
    assert obs[0] == env.observation["IrInstructionCount"]
    assert obs[1].shape == (56,)
    assert rewards[0] == env.observation["IrInstructionCountO0"] - obs[0]
    assert env.actions == actions


def test_raw_step_seed_and_send_param_as_compiler_gym_calls_them(env):
    mem2reg = env.action_space.flags.index("-mem2reg")
    observations, rewards, done, _ = env.raw_step([mem2reg], ["IrInstructionCount"], [])
    assert (observations, rewards, done) == ([env.observation["IrInstructionCount"]], [], False)
    assert env.actions == [mem2reg]
    # A reward counts from its own last value: the episode's start, then this call.
    gain = env.observation["IrInstructionCountO0"] - env.observation["IrInstructionCount"]
    observations, rewards, _, _ = env.raw_step([], [], ["IrInstructionCount"])
    assert (observations, rewards) == ([], [gain])
    assert env.raw_step([], [], ["IrInstructionCount"])[1] == [0.0]
    # gym's seed(): the same seed, the same samples.
    assert env.seed(5) == [5]
    first = [env.action_space.sample() for _ in range(8)]
    env.seed(5)
    assert [env.action_space.sample() for _ in range(8)] == first
    # Settings outlive a reset here, so resend_on_reset has nothing to add.
    assert env.send_param("runtime_observation_count", 3, resend_on_reset=True) == "3"
    env.reset()
    assert env.get_param("runtime_observation_count") == "3"


def test_lexed_ir_tuple_is_lexed_irs_tokens(env, tmp_path):
    from compiler_gym.envs.llvm.lexed_ir import LexedIrTuple, LexedToken

    columns = env.observation["LexedIr"]
    tokens = env.observation["LexedIrTuple"]
    assert len(tokens) == len(columns["token_id"]) > 100
    assert tokens[0] == LexedToken(
        columns["token_id"][0],
        columns["token_kind"][0],
        columns["token_category"][0],
        columns["token_value"][0],
    )
    assert env.observation.spaces["LexedIrTuple"].space.contains(tokens)
    assert not env.observation.spaces["LexedIrTuple"].space.contains(columns)
    env.write_bitcode(tmp_path / "module.bc")
    assert LexedIrTuple(tmp_path / "module.bc") == tokens
    with env.fork() as fork:
        assert fork.observation["LexedIrTuple"] == tokens


def test_third_party_llvm_tools_are_the_engines_llvm(env, tmp_path):
    from compiler_gym.third_party import llvm

    version = subprocess.run([llvm.opt_path(), "--version"], capture_output=True, text=True)
    assert "LLVM version 19." in version.stdout
    assert llvm.download_llvm_files() == llvm.opt_path().parent.parent
    # opt's mem2reg on the env's bitcode gives the module the env's -mem2reg gives.
    env.write_bitcode(tmp_path / "in.bc")
    subprocess.run(
        [llvm.opt_path(), "-passes=mem2reg", tmp_path / "in.bc", "-o", tmp_path / "out.bc"],
        check=True,
    )
    env.step(env.action_space["-mem2reg"])
    with compiler_gym.make("llvm-v0", benchmark=f"file://{tmp_path / 'out.bc'}") as other:
        other.reset()
        assert other.observation["IrInstructionCount"] == env.observation["IrInstructionCount"]


def test_fork_steps_like_original(env):
    env.reward_space = "IrInstructionCount"
    env.reset()
    env.step(env.action_space.flags.index("-mem2reg"))
    fork = env.fork()
    try:
        assert fork.actions == env.actions
        assert fork.episode_reward == env.episode_reward
        for flag in ["-instcombine", "-simplifycfg", "-gvn"]:
            a = env.action_space.flags.index(flag)
            r1 = env.step(a)
            r2 = fork.step(a)
            assert r1[1] == r2[1] and r1[2] == r2[2]
            assert env.observation["IrSha1"] == fork.observation["IrSha1"]
        assert fork.episode_reward == env.episode_reward
        # Independent: stepping the fork does not move the original.
        fork.step(fork.action_space.flags.index("-adce"))
        assert len(fork.actions) == len(env.actions) + 1
    finally:
        fork.close()


def test_out_of_range_action_raises_and_env_survives(env):
    with pytest.raises(ValueError):
        env.step(env.action_space.n)
    with pytest.raises(ValueError):
        env.step(-1)
    with pytest.raises(LookupError, match="Unknown action 'not an action'"):
        env.step("not an action")  # a flag that is not one
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(None)
    assert env.actions == []
    _, _, done, _ = env.step(0)
    assert not done


def test_unknown_space_names_raise(env):
    with pytest.raises(KeyError):
        env.observation["NotASpace"]
    with pytest.raises(KeyError):
        env.reward["NotAReward"]
    with pytest.raises(LookupError):
        env.observation_space = "NotASpace"
    with pytest.raises(LookupError):
        env.reward_space = "NotAReward"
    assert env.observation["IrInstructionCount"] > 0


def test_bad_benchmarks_raise_typed_errors(tmp_path):
    corrupt = tmp_path / "corrupt.bc"
    corrupt.write_bytes(b"BC\xc0\xde" + b"\x7f" * 64)
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(BenchmarkInitError):
            env.reset(benchmark=f"file://{corrupt}")
        with pytest.raises(LookupError):
            env.reset(benchmark="benchmark://builtin-v0/not-a-program")
        with pytest.raises(FileNotFoundError):
            env.reset(benchmark="file:///nonexistent/x.bc")
        broken = tmp_path / "broken.c"
        broken.write_text("int main( { return 0; }\n")
        with pytest.raises(BenchmarkInitError):
            env.reset(benchmark=compiler_gym.make_benchmark(broken))
        # Still usable.
        env.reset(benchmark="benchmark://builtin-v0/qsort")
        assert env.observation["IrInstructionCount"] > 0


def test_step_before_reset_raises():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(SessionNotFound, match=r"Must call reset\(\) before step\(\)"):
            env.step(0)


def test_make_benchmark_from_source_and_files(tmp_path):
    src = "int sq(int x) { return x * x; }\nint main(void) { return sq(3) - 9; }\n"
    b = compiler_gym.make_benchmark_from_source(src)
    with compiler_gym.make("llvm-v0", benchmark=b) as env:
        env.reset()
        assert "define" in env.observation["Ir"] and "@sq" in env.observation["Ir"]
        ll = tmp_path / "out.ll"
        bc = tmp_path / "out.bc"
        env.write_ir(ll)
        env.write_bitcode(bc)
        count = env.observation["IrInstructionCount"]
    with compiler_gym.make("llvm-v0", benchmark=compiler_gym.make_benchmark([bc])) as env:
        env.reset()
        assert env.observation["IrInstructionCount"] == count
    with compiler_gym.make("llvm-v0", benchmark=compiler_gym.make_benchmark(ll)) as env:
        env.reset()
        assert env.observation["IrInstructionCount"] == count


def test_clang_invocations_as_compiler_gym_makes_them(tmp_path, monkeypatch):
    """make_benchmark takes CompilerGym's ClangInvocation (flags, system_includes, timeout);
    the command it describes makes the bitcode the env starts from."""
    import subprocess

    from compiler_gym.envs.llvm import ClangInvocation, make_benchmark

    source = tmp_path / "n.c"
    source.write_text("#include <stdio.h>\nint n(void) { return N; }\n")
    invocation = ClangInvocation.from_c_file(source, copt=["-DN=42"], timeout=60)
    benchmark = make_benchmark(invocation)
    assert benchmark.files == [] and benchmark.compile_args == ["-DN=42"]  # compiled, in memory
    assert benchmark.build_timeout_seconds == 60
    # Optimization levels are the environment's business: dropped, as from a command line.
    optimized = ClangInvocation.from_c_file(source, copt=["-DN=42", "-O3", "-c"])
    assert make_benchmark(optimized).compile_args == ["-DN=42"]
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        assert "ret i32 42" in env.observation["Ir"]
        count = env.observation["IrInstructionCount"]
        command = invocation.command(tmp_path / "n.bc")
        # CompilerGym's order: the output, the system's include directories, the arguments.
        at = command.index("-c")
        assert command[at : at + 4] == ["-c", "-o", str(tmp_path / "n.bc"), "-isystem"]
        assert command[-2:] == ["-DN=42", str(source)] and "/usr/include" in command
        subprocess.run(command, check=True)
        env.reset(benchmark=make_benchmark(tmp_path / "n.bc"))
        assert env.observation["IrInstructionCount"] == count

        # Without the system's include directories, <stdio.h> is not found.
        no_system = ClangInvocation.from_c_file(source, ["-DN=1"], system_includes=False)
        with pytest.raises(BenchmarkInitError, match="stdio.h"):
            env.reset(benchmark=make_benchmark(no_system))
        plain = tmp_path / "plain.c"  # needs no system header
        plain.write_text("int f(void) { return 1; }\n")
        assert make_benchmark(plain, system_includes=False).compile_args == ["-nostdlibinc"]

        # Sources of one benchmark share their flags.
        other = tmp_path / "m.c"
        other.write_text("int m(void) { return 1; }\n")
        with pytest.raises(ValueError, match="one set of flags"):
            make_benchmark([invocation, ClangInvocation.from_c_file(other, ["-DN=1"])])
        both = make_benchmark([invocation, ClangInvocation.from_c_file(other, ["-DN=42"])])
        env.reset(benchmark=both)
        assert "@m(" in env.observation["Ir"] and "ret i32 42" in env.observation["Ir"]
        with pytest.raises(ValueError, match="timeout"):
            ClangInvocation.from_c_file(source, timeout=0)

        # The timeout bounds clang: one that hangs is a BenchmarkInitError, not a hang.
        hanging = tmp_path / "clang-hangs"
        hanging.write_text("#!/bin/sh\nsleep 60\n")
        hanging.chmod(0o755)
        monkeypatch.setenv("COMPILER_GYM_CLANG", str(hanging))
        with pytest.raises(BenchmarkInitError, match="timed out after 1 s"):
            env.reset(benchmark=make_benchmark(other, copt=["-DHANG"], timeout=1))


def test_a_runnable_cxx_benchmark_links_with_the_cxx_library():
    src = (
        "#include <vector>\n#include <cstdio>\n"
        "int main() { std::vector<int> v(10, 2); int s = 0; for (int x : v) s += x;"
        ' std::printf("%d\\n", s); return s == 20 ? 0 : 1; }\n'
    )
    b = compiler_gym.make_benchmark_from_source(src, lang="c++", runnable=True)
    with compiler_gym.make("llvm-ic-v0", benchmark=b) as env:
        env.reset()
        assert env.observation["TextSizeBytes"] > 0
        env.step(env.action_space["-mem2reg"])
        assert env.validate().okay()


def test_benchmark_setter_applies_on_reset(env):
    with pytest.warns(UserWarning, match="no effect until reset"):  # CompilerGym's warning
        env.benchmark = "benchmark://builtin-v0/crc32"
    assert str(env.benchmark.uri) == "benchmark://builtin-v0/qsort"  # still in use
    env.reset()
    assert str(env.benchmark.uri) == "benchmark://builtin-v0/crc32"


def test_commandline_round_trip(env):
    space = env.action_space
    actions = [0, 5, space.n - 1, 17, 17]
    cmd = space.to_string(actions)
    assert cmd.startswith("opt -add-discriminators ") and cmd.endswith(" input.bc -o output.bc")
    assert space.from_string(cmd) == actions
    with pytest.raises(ValueError):
        space.from_string("opt -not-a-pass input.bc -o output.bc")
    env.multistep(actions[:3])
    assert env.commandline() == space.to_string(actions[:3])


@pytest.mark.parametrize("failure", ["compiler-gym-test-fatal-error", "compiler-gym-test-segfault"])
def test_crashing_pass_stays_in_its_env(failure):
    with compiler_gym.make("llvm-v0") as victim, compiler_gym.make("llvm-v0") as bystander:
        victim.reset()
        bystander.reset()
        done, message = step_pipeline_for_testing(victim, failure)
        assert done and "crashed" in message
        with pytest.raises(SessionNotFound):
            victim.observation["IrInstructionCount"]
        # The process survived, the other env goes on, and the victim resets cleanly.
        _, _, done, _ = bystander.step(bystander.action_space.flags.index("-mem2reg"))
        assert not done
        victim.reset()
        assert (
            victim.observation["IrInstructionCount"]
            == bystander.observation["IrInstructionCountO0"]
        )


def test_code_generation_error_is_contained():
    # LLVM reports this assembler error by exiting the process unless the context's diagnostic
    # handler intervenes; it must be a ServiceError, and the env must go on.
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=fixture_uri("undefined_asm_label.ll"))
        with pytest.raises(ServiceError, match="Undefined temporary symbol .Lcompiler_gym_nowhere"):
            env.observation["ObjectTextSizeBytes"]
        assert env.observation["IrInstructionCount"] == 2
        _, _, done, _ = env.step(env.action_space.flags.index("-mem2reg"))
        assert not done


def test_a_reward_space_set_mid_episode_counts_from_there():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/qsort") as env:
        env.reset()
        assert env.episode_reward is None
        env.step(env.action_space.flags.index("-mem2reg"))
        env.reward_space = "IrInstructionCount"
        assert env.episode_reward == 0.0
        _, reward, _, _ = env.step(env.action_space.flags.index("-instcombine"))
        assert env.episode_reward == reward != 0
        env.reward_space = "IrInstructionCountOz"  # another one: counted from here again
        assert env.episode_reward == 0.0


def test_compiler_gym_api_details(env, capsys):
    """Spaces equal their names; render; a fork copies added Python rewards; the datasets'
    benchmarks; a benchmark that is neither a URI nor a Benchmark."""
    from compiler_gym.spaces import DefaultRewardFromObservation

    env.observation_space = "Autophase"
    env.reward_space = "IrInstructionCount"
    assert env.reward_space == "IrInstructionCount" and env.reward_space != "IrInstructionCountOz"
    assert env.observation_space_spec == "Autophase"
    assert env.reward.spaces["IrInstructionCountOz"] != env.reward_space
    env.reward.add_space(DefaultRewardFromObservation("IrInstructionCount", name="shrink"))
    env.reset()
    assert env.render("ansi") == env.observation["Ir"]
    assert env.render() is None and capsys.readouterr().out.strip() == env.observation["Ir"].strip()
    with pytest.raises(ValueError, match="render mode"):
        env.render("rgb_array")

    fork = env.fork()
    try:
        mem2reg = env.action_space["-mem2reg"]
        _, parent, _, _ = env.step(mem2reg, reward_spaces=["shrink"])
        _, forked, _, _ = fork.step(mem2reg, reward_spaces=["shrink"])
        assert parent == forked and parent[0] != 0
        assert fork.reward.spaces["shrink"] is not env.reward.spaces["shrink"]
    finally:
        fork.close()

    assert env.reward_space.range == env.reward_space.reward_range == env.reward_range
    # CompilerGym's Reward attributes on the engine's rewards too.
    oz = env.reward.spaces["IrInstructionCountOz"]
    assert oz.observation_spaces == ["IrInstructionCount", "IrInstructionCountOz"]
    assert env.reward.spaces["IrInstructionCount"].observation_spaces == ["IrInstructionCount"]
    assert (oz.min, oz.max, oz.default_value, oz.default_negates_returns) == (
        -np.inf,
        np.inf,
        0.0,
        True,
    )
    assert oz.reward_on_error(7.5) == -7.5
    walltime = env.episode_walltime
    time.sleep(0.01)
    assert 0 < walltime < env.episode_walltime  # read when asked, not at the last step
    first = next(env.datasets.benchmarks())
    assert str(first.uri) == next(env.datasets.benchmark_uris())
    with pytest.raises(TypeError, match="URI or a Benchmark"):
        env.benchmark = 123


def test_versions_and_the_reward_space_spec(env):
    """compiler_version is the LLVM the engine links (llvm-config-19 says which), version the
    package's; reward_space_spec is the reward space's spec."""
    import shutil
    import subprocess

    config = shutil.which("llvm-config-19") or "/usr/lib/llvm-19/bin/llvm-config"
    llvm = subprocess.run([config, "--version"], capture_output=True, text=True, check=True)
    assert env.compiler_version == llvm.stdout.strip()
    assert env.version == compiler_gym.__version__
    assert env.reward_space_spec is None
    env.reward_space = "IrInstructionCountOz"
    assert (
        env.reward_space_spec is env.reward_space
        and env.reward_space_spec == "IrInstructionCountOz"
    )


def test_derived_observation_spaces(env):
    """CompilerGym's add_derived_space: computed from the base space's value, in observations,
    steps, forks and as the default observation; an error's observation is its default."""
    env.observation.add_derived_space("IrLen", "Ir", translate=len)
    env.observation.add_derived_space(
        "InstCount2", "IrInstructionCount", translate=lambda n: 2 * n, default_value=-1
    )
    ir = env.observation["Ir"]
    assert env.observation["IrLen"] == len(ir)
    assert env.observation["InstCount2"] == 2 * env.observation["IrInstructionCount"]
    with pytest.raises(ValueError, match="exists already"):
        env.observation.add_derived_space("IrLen", "Ir", translate=len)
    with pytest.raises(KeyError, match="Unknown observation space"):
        env.observation.add_derived_space("X", "NoSuchSpace", translate=len)
    # Derived from a derived space: both translations apply, in order.
    env.observation.add_derived_space("InstCount2Plus1", "InstCount2", translate=lambda n: n + 1)
    assert env.observation["InstCount2Plus1"] == 2 * env.observation["IrInstructionCount"] + 1

    env.observation_space = "InstCount2"
    assert env.reset() == 2 * env.observation["IrInstructionCount"]
    fork = env.fork()
    try:
        fork.observation.add_derived_space("ForkOnly", "Ir", translate=len)
        assert "ForkOnly" not in env.observation.spaces
        mem2reg = env.action_space["-mem2reg"]
        observation, _, _, _ = env.step(mem2reg, observation_spaces=["IrLen", "InstCount2"])
        forked, _, _, _ = fork.step(mem2reg, observation_spaces=["IrLen", "InstCount2"])
        assert (
            observation
            == forked
            == [len(env.observation["Ir"]), 2 * env.observation["IrInstructionCount"]]
        )
    finally:
        fork.close()
    assert env.observation.spaces["InstCount2"].default_value == -1
    assert env.observation.spaces["IrLen"].default_value == 0  # len("")


def test_split_benchmark_by_function_and_merge_benchmarks():
    from compiler_gym.envs.llvm import merge_benchmarks, split_benchmark_by_function

    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        original = env.observation["Ir"]
        count = env.observation["IrInstructionCount"]
        defined = [
            line.split("@", 1)[1].split("(", 1)[0]
            for line in original.splitlines()
            if line.startswith("define ")
        ]
        parts = split_benchmark_by_function("benchmark://builtin-v0/crc32")
        assert [str(p.uri) for p in parts] == [
            f"benchmark://builtin-v0/crc32/{name}" for name in defined
        ]
        total = 0
        for part in parts:
            env.reset(benchmark=part)
            ir = env.observation["Ir"]
            assert sum(line.startswith("define ") for line in ir.splitlines()) == 1
            total += env.observation["IrInstructionCount"]
        assert total == count
        merged = merge_benchmarks(parts)
        assert str(merged.uri).startswith("benchmark://llvm-link-v0/")
        env.reset(benchmark=merged)
        assert env.observation["IrInstructionCount"] == count
    with pytest.raises(ValueError, match="cannot merge"):
        merge_benchmarks([parts[0], parts[0]])  # one function defined twice


@pytest.mark.parametrize(
    "reproducer,flags,message",
    [
        (
            "loop_fusion.ll",
            ["-licm", "-mem2reg", "-loop-rotate", "-loop-fusion"],
            "PHI node entries do not match predecessors",
        ),
        (
            "iroutliner.ll",
            ["-early-cse-memssa", "-jump-threading", "-dce", "-sroa", "-iroutliner"],
            "Instruction does not dominate all uses",
        ),
    ],
)
def test_llvm_bugs_found_by_the_miscompile_hunt_end_the_episode(reproducer, flags, message):
    """LLVM 19 passes that make invalid IR of these reduced csmith modules (envs/llvm/PASSES.md,
    "Miscompile hunts"): the step ends the episode with the verifier's words, and the env goes
    on with the next episode."""
    from pathlib import Path

    path = Path(__file__).parent.parent / "envs" / "llvm" / "reproducers" / reproducer
    benchmark = compiler_gym.make_benchmark(str(path))
    # -iroutliner miscompiles too (below): only the opt-in space has it.
    with compiler_gym.make("llvm-v0", benchmark=benchmark, action_space="PassesAllUnsound") as env:
        env.reset()
        _, _, done, info = env.multistep(flags[:-1])
        assert not done
        _, _, done, info = env.step(flags[-1])
        assert done and info["error_type"] == "INTERNAL"
        assert f"after pass {flags[-1]}" in info["error_details"]
        assert message in info["error_details"]
        env.reset()
        assert not env.step(env.action_space["-mem2reg"])[2]


def test_a_state_with_a_miscompiling_pass_replays_only_in_the_opt_in_space():
    """A state recorded under PassesAllUnsound that uses -iroutliner: an env of the default
    space does not fall back to the opt-in one (it names it instead); one made with it
    replays the state."""
    state = compiler_gym.CompilerEnvState(
        benchmark="benchmark://builtin-v0/crc32",
        commandline="opt -mem2reg -iroutliner input.bc -o output.bc",
        walltime=0,
    )
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(ValueError) as error:
            env.apply(state)
        assert "Unknown flag in command line: '-iroutliner'" in str(error.value)
        assert "only the opt-in action space 'PassesAllUnsound' reads it" in str(error.value)
        result = env.validate(state)
        assert result.actions_replay_failed and "PassesAllUnsound" in result.error_details
    with compiler_gym.make("llvm-v0", action_space="PassesAllUnsound") as env:
        env.apply(state)
        assert env.actions == [env.action_space["-mem2reg"], 121]
        assert env.commandline() == state.commandline


@pytest.mark.parametrize(
    "reproducer,flags,problems",
    [
        (
            "iroutliner_miscompile_2.ll",
            ["-loop-rotate", "-early-cse-memssa", "-break-crit-edges"],
            ["killed by signal 11", 'expected "checksum = 0", got ""'],
        ),
        (
            "iroutliner_miscompile_1.ll",
            ["-loop-rotate", "-dse", "-reg2mem", "-early-cse-memssa"],
            ["killed by signal 11", "the unoptimized one ended with exit code 0"],
        ),
    ],
)
def test_iroutliner_miscompiles_found_by_the_miscompile_hunt(reproducer, flags, problems):
    """LLVM 19's -iroutliner miscompiles these reduced csmith programs, which run clean under
    ASan, UBSan and MSan at -O0 (envs/llvm/PASSES.md, "Miscompile hunts"): the sequence before
    it keeps the program's behaviour, and after it validate() reports how the program broke.
    The default spaces refuse it; the opt-in PassesAllUnsound has it, as its last action."""
    from pathlib import Path

    from compiler_gym.envs.llvm_env import pass_table

    path = Path(__file__).parent.parent / "envs" / "llvm" / "reproducers" / reproducer
    benchmark = compiler_gym.make_benchmark(str(path))
    benchmark.buildable = benchmark.runnable = True
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        env.multistep(flags)
        with pytest.raises(
            LookupError, match="'-iroutliner' is not in PassesAll: it is in the opt-in"
        ):
            env.step("-iroutliner")
        assert env.actions == [env.action_space[f] for f in flags]
        assert env.validate().okay()
        with pytest.raises(ValueError, match="out of range"):
            env.step(env.action_space.n)  # the opt-in space's index of -iroutliner
    sound = [row[0] for row in pass_table("PassesAll")]
    assert "-iroutliner" not in sound and "iroutliner" not in [
        row[0] for row in pass_table("PassesParameterized")
    ]
    assert [row[0] for row in pass_table("PassesAllUnsound")] == [*sound, "-iroutliner", "-newgvn"]
    with compiler_gym.make("llvm-v0", benchmark=benchmark, action_space="PassesAllUnsound") as env:
        env.reset()
        env.multistep(flags)
        assert env.validate().okay()
        env.step(env.action_space["-iroutliner"])
        result = env.validate()
        assert not result.okay()
        for problem in problems:
            assert problem in result.error_details
