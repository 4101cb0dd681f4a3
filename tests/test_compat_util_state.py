"""CompilerGym's contracts for states, validation results, trajectory minimization,
make_benchmark and a few module names (issue 37 section 2, issue 38 part 5), on fixed inputs."""

import http.server
import io
import json
import threading
import warnings

import pytest

import compiler_gym
from compiler_gym import CompilerEnvState, CompilerEnvStateReader, CompilerEnvStateWriter
from compiler_gym.compiler_env_state import StateValidationError
from compiler_gym.errors import BenchmarkInitError
from compiler_gym.util.minimize_trajectory import (
    MinimizationError,
    bisect_trajectory,
    environment_validation_fails,
    minimize_trajectory_iteratively,
    random_minimization,
)
from compiler_gym.validation_error import ValidationError
from compiler_gym.validation_result import ValidationResult

# minimize_trajectory


class _Result:
    def __init__(self, ok: bool):
        self._ok = ok

    def okay(self) -> bool:
        return self._ok


class _Env:
    """The few members the minimizers use: its validation fails while action 3 is applied."""

    benchmark = "benchmark://fake-v0/p"

    def __init__(self, actions):
        self.actions = list(actions)
        self.replays = 0

    def reset(self, benchmark=None):
        self.actions = []
        self.replays += 1

    def multistep(self, actions):
        self.actions += list(actions)

    def validate(self):
        return _Result(3 not in self.actions)


def test_minimizers_are_generators_with_validation_failure_as_the_default_hypothesis():
    env = _Env([1, 2, 3, 4, 5, 6, 7, 8])
    steps = minimize_trajectory_iteratively(env)
    assert env.replays == 0  # nothing runs before the generator is iterated
    assert all(e is env for e in steps)
    assert env.actions == [3]
    env = _Env([1, 2, 3, 4, 5, 6, 7, 8])
    # Prefixes of 4, 2 and 3 actions tried: 4 and 3 keep the failure, then the final state.
    assert len(list(bisect_trajectory(env))) == 3 and env.actions == [1, 2, 3]
    env = _Env([1, 2, 3, 4, 5, 6, 7, 8])
    assert list(bisect_trajectory(env, reverse=True))[-1].actions == [3, 4, 5, 6, 7, 8]
    env = _Env([1, 2, 3, 4, 5, 6, 7, 8])
    for _ in random_minimization(env, seed=1):
        pass
    assert 3 in env.actions and len(env.actions) < 8
    with pytest.raises(MinimizationError, match="does not hold"):
        next(bisect_trajectory(_Env([1, 2]), environment_validation_fails))
    assert list(bisect_trajectory(_Env([]))) == []  # nothing to minimize


# CompilerEnvState


def test_state_validation_errors_are_pydantics():
    with pytest.raises(StateValidationError) as missing:
        CompilerEnvState()
    assert str(missing.value) == (
        "3 validation errors for CompilerEnvState\n"
        "benchmark\n  field required (type=value_error.missing)\n"
        "commandline\n  field required (type=value_error.missing)\n"
        "walltime\n  field required (type=value_error.missing)"
    )
    with pytest.raises(ValueError, match="Walltime cannot be negative") as negative:
        CompilerEnvState(benchmark="benchmark://cbench-v0/foo", walltime=-1, commandline="")
    assert negative.value.errors() == [
        {"loc": ("walltime",), "msg": "Walltime cannot be negative", "type": "assertion_error"}
    ]
    with pytest.raises(StateValidationError, match="value is not a valid float"):
        CompilerEnvState(benchmark="b://x/y", walltime=1, commandline="", reward="lots")
    with pytest.raises(StateValidationError, match="str type expected"):
        CompilerEnvState(benchmark="b://x/y", walltime=1, commandline=5)
    state = CompilerEnvState(benchmark="b://x/y", walltime="2.5", commandline="-a", reward=2)
    assert (state.walltime, state.reward) == (2.5, 2.0)  # coerced, as pydantic does
    state.walltime = 7  # other fields can be assigned, validated
    assert state.walltime == 7.0
    with pytest.raises(StateValidationError, match="Walltime cannot be negative"):
        state.walltime = -2
    with pytest.raises(TypeError, match="allow_mutation"):
        state.benchmark = "b://x/z"
    assert state == CompilerEnvState("b://x/y", "-a", 0.0) and state != 5


def test_state_csv_empty_walltime_is_zero_and_the_writer_closes_its_file(tmp_path):
    (state,) = CompilerEnvStateReader(
        io.StringIO("benchmark,reward,walltime,commandline\nb://x/y,,,-a -b\n")
    )
    assert (state.walltime, state.reward, state.commandline) == (0.0, None, "-a -b")
    with pytest.raises(ValueError, match=r"Expected 4 columns in the first row of CSV: \['abc'\]"):
        next(iter(CompilerEnvStateReader(io.StringIO("abc\n"))))
    f = open(tmp_path / "states.csv", "w")
    with CompilerEnvStateWriter(f) as writer:
        writer.write_state(CompilerEnvState("b://x/y", "-a", 5, 2), flush=True)
    assert f.closed
    assert (tmp_path / "states.csv").read_text() == (
        "benchmark,reward,walltime,commandline\nb://x/y,2.0,5.0,-a\n"
    )


@pytest.fixture
def http_csv():
    """A loopback HTTP server with /states.csv (and nothing else): its base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path != "/states.csv":
                self.send_error(404)
                return
            body = b"benchmark,reward,walltime,commandline\nb://x/y,2.0,5.0,-a -b -c\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_read_paths_reads_a_url(http_csv):
    states = list(CompilerEnvStateReader.read_paths([f"{http_csv}/states.csv"]))
    assert states == [CompilerEnvState("b://x/y", "-a -b -c", 5.0, 2.0)]
    with pytest.raises(OSError, match="missing.csv content could not be obtained: HTTP 404"):
        list(CompilerEnvStateReader.read_paths([f"{http_csv}/missing.csv"]))


# ValidationResult and ValidationError


def test_validation_result_str_json_join_and_equality():
    state = CompilerEnvState("benchmark://cbench-v1/crc32", "-a", 1.0, 1.05)
    assert str(ValidationResult(state=state, walltime=3)) == "✅  cbench-v1/crc32  1.0500"
    unrewarded = CompilerEnvState("generator://csmith-v0/1", "-a", 1.0)
    assert str(ValidationResult(state=unrewarded, walltime=3)) == "✅  generator://csmith-v0/1"
    crash = ValidationError(type="Runtime crash", data={"exit": 1})
    leak = ValidationError(type="Memory leak")
    failed = ValidationResult(
        state=state, walltime=1, errors=[crash, leak], benchmark_semantics_validation_failed=True
    )
    assert str(failed) == '❌  cbench-v1/crc32  Runtime crash: {"exit": 1}, Memory leak'
    assert json.loads(failed.json())["errors"] == [
        {"type": "Runtime crash", "data": {"exit": 1}},
        {"type": "Memory leak", "data": {}},
    ]
    assert crash.json() == '{"type": "Runtime crash", "data": {"exit": 1}}'
    assert sorted([crash, leak]) == [leak, crash]
    # Equal whatever the walltime and the order of the errors.
    reordered = ValidationResult(
        state=state, walltime=9, errors=[leak, crash], benchmark_semantics_validation_failed=True
    )
    assert failed == reordered and failed != ValidationResult(state=state, walltime=1)
    ok = ValidationResult(state=state, walltime=2, reward_validated=True)
    joined = ValidationResult.join([ok, failed])
    assert joined.walltime == 3 and joined.reward_validated
    assert joined.benchmark_semantics_validation_failed and joined.errors == [crash, leak]
    with pytest.raises(ValueError, match="No states to join"):
        ValidationResult.join([])
    with pytest.raises(ValueError, match="All states must be the same"):
        ValidationResult.join([ok, ValidationResult(state=unrewarded, walltime=1)])


def test_validating_a_rewarded_state_without_a_reward_space_warns():
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        assert env.reward_space is None
        state = CompilerEnvState(str(env.benchmark.uri), env.commandline(), 0.0, reward=1.0)
        with pytest.warns(UserWarning, match="environment has no reward space set"):
            result = env.validate(state)
        assert result.okay() and not result.reward_validated
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no reward, no warning
            env.validate(CompilerEnvState(str(env.benchmark.uri), env.commandline(), 0.0))


# make_benchmark


def test_make_benchmark_reads_and_compiles_when_called(tmp_path):
    source = tmp_path / "p.c"
    source.write_text('#include <stdio.h>\nint main(void) { printf("42\\n"); return 0; }\n')
    benchmark = compiler_gym.make_benchmark(source)
    source.unlink()  # held in memory: the file may go
    assert benchmark.runnable  # a main that links: runnable by default
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        assert env.observation["IsRunnable"] is True
        env.step(env.action_space["-mem2reg"])
        assert env.validate().benchmark_semantics_validated
    library = tmp_path / "lib.c"
    library.write_text("int f(int x) { return x + 1; }\n")
    assert not compiler_gym.make_benchmark(library).runnable  # no main
    library.write_text("int g(int);\nint main(void) { return g(1); }\n")
    assert not compiler_gym.make_benchmark(library).runnable  # does not link
    library.write_text("int main(void) { return 0; }\n")
    assert not compiler_gym.make_benchmark(library, runnable=False).runnable  # opted out
    bitcode = tmp_path / "p.bc"
    with compiler_gym.make("llvm-v0", benchmark=benchmark) as env:
        env.reset()
        env.write_bitcode(bitcode)
    from_bitcode = compiler_gym.make_benchmark(bitcode)
    bitcode.unlink()
    assert from_bitcode.data[:2] == b"BC" and not from_bitcode.runnable


def test_make_benchmark_raises_the_compilers_error(tmp_path):
    broken = tmp_path / "broken.c"
    broken.write_text("int main( { return 0; }\n")
    with pytest.raises(BenchmarkInitError, match=r"(?s)cannot compile .*broken\.c.*error:"):
        compiler_gym.make_benchmark(broken)
    with pytest.raises(BenchmarkInitError, match="expected"):
        compiler_gym.make_benchmark_from_source("int f( { }")


# Names CompilerGym scripts import


def test_compiler_gyms_module_names(tmp_path):
    import compiler_gym.errors.dataset_errors as dataset_errors
    from compiler_gym.errors import DownloadFailed, TooManyRequests
    from compiler_gym.random_search import replay_actions_from_logs
    from compiler_gym.spaces import Reward
    from compiler_gym.spaces.reward import Reward as RewardByItsModule
    from compiler_gym.third_party.autophase import AUTOPHASE_FEATURE_DIM

    assert AUTOPHASE_FEATURE_DIM == 56
    assert issubclass(TooManyRequests, DownloadFailed)
    assert dataset_errors.BenchmarkInitError is BenchmarkInitError
    assert RewardByItsModule is Reward
    assert compiler_gym.errors.ValidationError is compiler_gym.ValidationError
    (tmp_path / "random_search.json").write_text(
        json.dumps({"benchmark": "benchmark://builtin-v0/crc32", "reward": "IrInstructionCount"})
    )
    (tmp_path / "random_search_best_actions.txt").write_text("-mem2reg\n-gvn\n")
    with compiler_gym.make("llvm-v0") as env:
        replay_actions_from_logs(env, tmp_path)
        assert env.actions == [env.action_space["-mem2reg"], env.action_space["-gvn"]]
        assert env.reward_space.name == "IrInstructionCount"
        assert str(env.benchmark.uri) == "benchmark://builtin-v0/crc32"
        assert env.observation["Autophase"].shape == (AUTOPHASE_FEATURE_DIM,)
    assert (tmp_path / "random_search_best_actions_progress.csv").is_file()
