"""The PassesParameterized action space: LLVM 19's passes with their options and the default
pipelines, as ``opt -passes=`` command lines that reproduce the env's module, state CSVs that
round-trip, and malformed pipelines refused by name."""

import re
import shlex
import subprocess

import pytest

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.envs.llvm_env import pass_table
from compiler_gym.envs.llvm_pipeline import PassPipeline, split_pipeline
from compiler_gym.third_party.llvm import opt_path

SPACE = "PassesParameterized"
BENCHMARK = "benchmark://builtin-v0/qsort"


@pytest.fixture(scope="module")
def env():
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK) as env:
        env.reset(action_space=SPACE)
        yield env


def test_the_table_holds_every_pass_its_options_and_the_default_pipelines(env):
    rows = pass_table(SPACE)
    space = env.action_space
    assert isinstance(space, PassPipeline) and space.n == len(rows)
    # Every PassesAll action first, as its pipeline element, in the same order.
    classic = pass_table()
    assert [r[1] for r in rows[: len(classic)]] == [r[1] for r in classic]
    names = space.flags
    assert names[classic.index(next(r for r in classic if r[0] == "-gvn"))] == "gvn"
    for name in ("gvn<no-pre>", "loop-unroll<O3>", "simplifycfg<switch-to-lookup>"):
        assert name in names
    assert "instcombine<no-verify-fixpoint;max-iterations=2>" in names
    assert names[-5:] == [f"default<{o}>" for o in ("O1", "O2", "O3", "Os", "Oz")]
    assert len(set(names)) == len(names)
    # No option that aborts the process (instcombine verifying its fixpoint).
    assert not [n for n in names if "<verify-fixpoint" in n or ";verify-fixpoint" in n]


def without_use_lists(ir: str) -> str:
    """IR text without what depends on use-list order (the predecessor comments), which
    bitcode written by opt does not keep."""
    return re.sub(r"\s*; preds = [^\n]*", "", ir)


def test_every_action_reproduces_with_opt(env, tmp_path):
    """Each action's ``opt -passes=`` command line, run by opt-19 on the benchmark's
    unoptimized module, gives the module the env's step gives (up to use-list order)."""
    env.reset(benchmark=BENCHMARK, action_space=SPACE)
    start = tmp_path / "input.bc"
    env.write_bitcode(start)
    mismatches = []
    with compiler_gym.make("llvm-v0") as other:
        for action in range(env.action_space.n):
            env.reset(benchmark=BENCHMARK, action_space=SPACE)
            _, _, done, info = env.step(action)
            assert not done, (env.action_space.flags[action], info)
            opt, passes, *_ = shlex.split(env.commandline())
            assert opt == "opt" and passes.startswith("-passes=")
            out = tmp_path / f"output{action}.bc"  # one URI each: benchmarks are cached
            subprocess.run([opt_path(), passes, start, "-o", out], check=True)
            other.reset(benchmark=f"file://{out}")
            if without_use_lists(other.observation["Ir"]) != without_use_lists(
                env.observation["Ir"]
            ):
                mismatches.append(env.action_space.flags[action])
    assert mismatches == []


def test_a_nested_pipeline_state_round_trips_through_a_csv(env, tmp_path):
    from compiler_gym.compiler_env_state import CompilerEnvStateReader, CompilerEnvStateWriter

    env.reset(benchmark=BENCHMARK, action_space=SPACE)
    space = env.action_space
    actions = [space["default<Oz>"], space["gvn<no-pre>"], space["loop-unroll<O3>"]]
    env.multistep(actions)
    command = env.commandline()
    assert command == (
        "opt '-passes=default<Oz>,function(gvn<no-pre>),function(loop-unroll<O3>)' "
        "input.bc -o output.bc"
    )
    path = tmp_path / "states.csv"
    with open(path, "w") as f:
        CompilerEnvStateWriter(f).write_state(env.state, flush=True)
    (state,) = CompilerEnvStateReader.read_paths([str(path)])
    assert state.commandline == command and space.from_string(state.commandline) == actions
    # Elements by name read the same as by their module-level text.
    assert space.from_string("opt -passes=default<Oz>,gvn<no-pre> in.bc") == actions[:2]
    # A fresh env in the classic space replays it: validate finds the space that reads it.
    with compiler_gym.make("llvm-ic-v0") as fresh:
        result = fresh.validate(state)
        assert result.okay(), result
    assert isinstance(state, CompilerEnvState)


@pytest.mark.parametrize(
    "commandline, message",
    [
        ("opt -passes=function(gvn),no-such-pass input.bc", "'no-such-pass'"),
        ("opt -passes=gvn<bogus> input.bc", "'gvn<bogus>'"),
        ("opt -passes=function(gvn input.bc", "Unclosed bracket"),
        ("opt -passes=gvn,,sroa input.bc", "Empty element at 4"),
        ("opt -passes=gvn)x input.bc", r"Unbalanced '\)' at 3"),
        ("opt -gvn input.bc", "Not an `opt -passes=...` command line"),
    ],
)
def test_a_malformed_pipeline_is_a_value_error_naming_the_bad_part(env, commandline, message):
    with pytest.raises(ValueError, match=message):
        env.action_space.from_string(commandline)


def test_split_pipeline_keeps_nesting():
    assert split_pipeline("function(sroa,early-cse<memssa>),cgscc(inline),default<Oz>") == [
        "function(sroa,early-cse<memssa>)",
        "cgscc(inline)",
        "default<Oz>",
    ]


def test_default_oz_as_an_action_is_the_oz_baseline(env):
    env.reset(benchmark=BENCHMARK, action_space=SPACE)
    env.reward_space = "IrInstructionCountOz"
    env.step(env.action_space["default<Oz>"])
    assert env.episode_reward == pytest.approx(1.0, abs=1e-12)
    assert env.observation["IrInstructionCount"] == env.observation["IrInstructionCountOz"]


NESTED = "function(sroa,early-cse<memssa>)"


def test_a_pipeline_action_of_several_passes_steps_forks_and_reproduces_with_opt(tmp_path):
    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK, action_space=SPACE) as env:
        env.reset()
        space = env.action_space
        start = tmp_path / "input.bc"
        env.write_bitcode(start)
        action = space[NESTED]
        assert action == space.n and space.pipeline_actions == [NESTED]
        assert space[NESTED] == action  # added once
        predicted = env.try_actions([[action]])[0]
        env.step(action)
        assert env.episode_reward == pytest.approx(predicted, rel=1e-12)
        assert env.commandline() == f"opt '-passes={NESTED}' input.bc -o output.bc"
        out = tmp_path / "o.bc"
        subprocess.run([opt_path(), f"-passes={NESTED}", start, "-o", out], check=True)
        with compiler_gym.make("llvm-v0", benchmark=f"file://{tmp_path / 'o.bc'}") as other:
            other.reset()
            assert without_use_lists(other.observation["Ir"]) == without_use_lists(
                env.observation["Ir"]
            )
        with env.fork() as fork:  # forks keep the env's pipeline actions
            assert fork.action_space.pipeline_actions == [NESTED]
            fork.step(fork.action_space["gvn<no-pre>"])
            assert fork.commandline() == (
                f"opt '-passes={NESTED},function(gvn<no-pre>)' input.bc -o output.bc"
            )
        # Actions taken keep their meaning: the list only grows.
        with pytest.raises(ValueError, match="can only be added to"):
            env.send_param("llvm.pipeline_actions", "cgscc(inline)")


def test_a_nested_pipeline_action_round_trips_through_a_csv_into_a_fresh_env(tmp_path):
    from compiler_gym.compiler_env_state import CompilerEnvStateReader, CompilerEnvStateWriter

    with compiler_gym.make("llvm-ic-v0", benchmark=BENCHMARK, action_space=SPACE) as env:
        env.reset()
        env.multistep([env.action_space["default<Oz>"], env.action_space[NESTED]])
        path = tmp_path / "states.csv"
        with open(path, "w") as f:
            CompilerEnvStateWriter(f).write_state(env.state, flush=True)
    (state,) = CompilerEnvStateReader.read_paths([str(path)])
    assert state.commandline == f"opt '-passes=default<Oz>,{NESTED}' input.bc -o output.bc"
    with compiler_gym.make("llvm-ic-v0") as fresh:
        result = fresh.validate(state)  # its replay adds the pipeline action as it reads
        assert result.okay(), result
        fresh.apply(state)
        assert fresh.action_space.name == SPACE
        assert fresh.action_space.pipeline_actions == [NESTED]
        assert fresh.episode_reward == pytest.approx(state.reward, rel=1e-12)


@pytest.mark.parametrize(
    "pipeline, message",
    [
        ("function(sroa,print<domtree>)", "at 14: 'print' is not a pass of the table"),
        ("instcombine<verify-fixpoint>", "option 'verify-fixpoint' of 'instcombine'"),
        ("gvn(sroa)", "'gvn' does not nest passes here"),
        ("function(sroa", "expected '\\)'"),
        ("function(ipsccp)", "unknown function pass 'ipsccp'"),
    ],
)
def test_a_malformed_pipeline_action_is_a_value_error_naming_the_bad_part(env, pipeline, message):
    env.reset(benchmark=BENCHMARK, action_space=SPACE)
    with pytest.raises(ValueError, match=message):
        env.action_space[pipeline]
    # In a command line, the same (an unclosed bracket already ends the split).
    in_csv = "Unclosed bracket" if pipeline.count("(") > pipeline.count(")") else message
    with pytest.raises(ValueError, match=in_csv):
        env.action_space.from_string(f"opt '-passes=default<Oz>,{pipeline}' in.bc")
    assert pipeline not in env.action_space.pipeline_actions


def test_the_space_pickles_without_its_env():
    """A pickled PassesParameterized space (a saved policy's settings hold one) is its table:
    it loads after its env has closed, with the same actions and no pipeline actions."""
    import pickle

    with compiler_gym.make("llvm-v0", action_space="PassesParameterized") as env:
        env.reset(benchmark="benchmark://builtin-v0/crc32")
        extra = env.action_space["function(sroa,early-cse<memssa>)"]
        oz = env.action_space["default<Oz>"]
        data = pickle.dumps(env.action_space)
    space = pickle.loads(data)
    assert extra == space.n and space.pipeline_actions == []
    assert space["default<Oz>"] == oz
    assert space.to_string([space["sroa"]]) == "opt '-passes=function(sroa)' input.bc -o output.bc"
