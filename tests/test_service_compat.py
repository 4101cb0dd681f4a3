"""``compiler_gym.service`` (issue 52): the names CompilerGym's examples and users import from
it, mapped onto this package's (``proto.Benchmark`` and ``proto.File`` a benchmark an env
takes, ``ClientServiceCompilerEnv`` every env's class, ``ConnectionOpts``, the service
errors), and a typed error that says why for the names that only meant something to
CompilerGym's gRPC service."""

from __future__ import annotations

import importlib

import pytest

import compiler_gym
from compiler_gym import errors
from compiler_gym.registration import env_class


def test_the_import_lines_of_compilergyms_examples_run():
    namespace: dict = {}
    # benchmark_sensitivity_analysis.py, opentuner_.py, example services' tests, users.
    exec(
        "from compiler_gym.service.proto import Benchmark, File\n"
        "from compiler_gym.service.client_service_compiler_env import ClientServiceCompilerEnv\n"
        "from compiler_gym.service import SessionNotFound\n"
        "from compiler_gym.service import (ConnectionOpts, EnvironmentNotSupported, "
        "ServiceError, ServiceInitError, ServiceIsClosed, ServiceOSError, "
        "ServiceTransportError)\n"
        "from compiler_gym.service.connection import ConnectionOpts as ConnectionOpts2\n",
        namespace,
    )
    assert namespace["ConnectionOpts"] is namespace["ConnectionOpts2"]
    for name in ("EnvironmentNotSupported", "ServiceError", "ServiceIsClosed", "SessionNotFound"):
        assert namespace[name] is getattr(errors, name), name
    for name in ("ServiceInitError", "ServiceOSError", "ServiceTransportError"):
        assert issubclass(namespace[name], errors.ServiceError), name
        assert issubclass(namespace[name], OSError), name


def test_the_engines_service_errors_are_caught_by_their_compilergym_names():
    from compiler_gym.service import ServiceError, SessionNotFound

    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(SessionNotFound, match=r"Must call reset\(\) before step\(\)"):
            env.step(0)
        with pytest.raises(ServiceError):
            env.step(0)


def test_a_proto_benchmark_of_contents_is_a_benchmark_the_env_runs():
    from compiler_gym.service.proto import Benchmark, File

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        ir = env.observation["Ir"]
        assert env.observation["IrInstructionCount"] == 862
        benchmark = Benchmark(uri="benchmark://user-v0/crc32", program=File(contents=ir.encode()))
        assert isinstance(benchmark, compiler_gym.Benchmark)
        env.reset(benchmark=benchmark)
        assert env.benchmark is benchmark
        assert str(env.benchmark.uri) == "benchmark://user-v0/crc32"
        assert env.observation["IrInstructionCount"] == 862
        env.step(env.action_space["-mem2reg"])
        assert env.observation["IrInstructionCount"] == 433


def test_a_proto_benchmark_reads_its_program_file_and_follows_changes_to_it(tmp_path):
    from compiler_gym.service.proto import Benchmark, File

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        (tmp_path / "crc32.ll").write_text(env.observation["Ir"])
        env.step(env.action_space["-mem2reg"])
        (tmp_path / "crc32-mem2reg.ll").write_text(env.observation["Ir"])

        benchmark = Benchmark(
            uri="benchmark://user-v0/crc32", program=File(uri=(tmp_path / "crc32.ll").as_uri())
        )
        assert benchmark.files == [str(tmp_path / "crc32.ll")] and benchmark.data == b""
        env.reset(benchmark=benchmark)
        assert env.observation["IrInstructionCount"] == 862
        # CompilerGym's scripts change a benchmark's program in place (opentuner_.py).
        benchmark.program.uri = (tmp_path / "crc32-mem2reg.ll").as_uri()
        env.reset(benchmark=benchmark)
        assert env.observation["IrInstructionCount"] == 433


def test_a_proto_file_is_contents_or_a_local_uri_and_dynamic_config_is_the_services():
    from compiler_gym.service import RpcServiceNotIncluded
    from compiler_gym.service.proto import Benchmark, File

    with pytest.raises(ValueError, match="contents or its uri, not both"):
        File(contents=b"x", uri="file:///tmp/x.ll")
    with pytest.raises(ValueError, match=r"file:/// URI or a path.*download other URIs first"):
        File(uri="https://example.com/x.bc")
    benchmark = Benchmark(uri="benchmark://user-v0/x", program=File(contents=b"x"))
    benchmark.program.uri = "file:///tmp/x.ll"  # both set, in place: refused when it is used
    with pytest.raises(ValueError, match="not both"):
        benchmark.to_engine()
    with pytest.raises(TypeError, match="is a compiler_gym.service.proto.File"):
        benchmark.program = b"x"
    with pytest.raises(ValueError, match="one File, not 2"):
        benchmark.files = ["a.c", "b.c"]
    with pytest.raises(
        RpcServiceNotIncluded,
        match=r"proto\.BenchmarkDynamicConfig is part of CompilerGym's gRPC service layer.*"
        r"compile_args, link_args, run_args and runnable",
    ):
        Benchmark(uri="benchmark://user-v0/x", dynamic_config=object())


def test_every_env_is_a_client_service_compiler_env_which_cannot_be_made():
    from compiler_gym.service import RpcServiceNotIncluded
    from compiler_gym.service.client_service_compiler_env import ClientServiceCompilerEnv

    for env_id in compiler_gym.COMPILER_GYM_ENVS:
        assert issubclass(env_class(env_id), ClientServiceCompilerEnv), env_id
    with compiler_gym.make("gcc-v0") as env:
        assert isinstance(env, ClientServiceCompilerEnv)
    assert not isinstance(object(), ClientServiceCompilerEnv)
    with pytest.raises(RpcServiceNotIncluded, match=r"Make one with compiler_gym\.make\(id\)"):
        ClientServiceCompilerEnv(service="/path/to/compiler_gym-example-service")
    # What CompilerGym's example services register as their envs' entry point.
    with pytest.raises(errors.EnvironmentNotSupported):
        ClientServiceCompilerEnv(service="localhost:5000", rewards=[])


@pytest.mark.parametrize(
    "statement,name,hint",
    [
        ("from compiler_gym.service.proto import ActionSpace", "proto.ActionSpace", "NumPy"),
        ("from compiler_gym.service.proto import StepRequest", "proto.StepRequest", "NumPy"),
        ("from compiler_gym.service import CompilationSession", "CompilationSession", "family"),
        (
            "from compiler_gym.service.connection import CompilerGymServiceConnection",
            "connection.CompilerGymServiceConnection",
            "no connection",
        ),
        (
            "from compiler_gym.service.runtime import create_and_run_compiler_gym_service",
            "runtime",
            "docs/adding_a_family.md",
        ),
        ("import compiler_gym.service.compilation_session", "compilation_session", "family"),
        (
            "import compiler_gym.service.proto.compiler_gym_service_pb2",
            "proto.compiler_gym_service_pb2",
            "NumPy",
        ),
    ],
)
def test_a_name_only_the_rpc_service_had_raises_on_import_saying_why(statement, name, hint):
    from compiler_gym.service import RpcServiceNotIncluded

    with pytest.raises(RpcServiceNotIncluded) as caught:
        exec(statement, {})
    message = str(caught.value)
    assert f"compiler_gym.service.{name} is part of CompilerGym's gRPC service layer" in message
    assert "run in a C++ engine, in process" in message and hint in message
    # An ImportError, so that `try: import ... except ImportError` works as for any import.
    assert isinstance(caught.value, ImportError)


def test_a_name_compilergym_never_had_is_an_ordinary_import_error():
    from compiler_gym.service import RpcServiceNotIncluded

    with pytest.raises(ImportError) as caught:
        exec("from compiler_gym.service.proto import NoSuchMessage", {})
    assert not isinstance(caught.value, RpcServiceNotIncluded)
    proto = importlib.import_module("compiler_gym.service.proto")
    assert not hasattr(proto, "NoSuchMessage")


def test_make_accepts_connection_settings_and_refuses_a_service():
    from compiler_gym.service import ConnectionOpts, RpcServiceNotIncluded

    settings = ConnectionOpts(rpc_max_retries=1, rpc_init_max_seconds=0.5)
    assert (settings.init_max_attempts, settings.script_args) == (5, [])
    with compiler_gym.make("llvm-ic-v0", connection_settings=settings) as env:
        env.reset()
    with pytest.raises(RpcServiceNotIncluded, match="script_args=..., script_env=..."):
        compiler_gym.make("llvm-v0", connection_settings=ConnectionOpts(script_args=["-v"]))
    with pytest.raises(RpcServiceNotIncluded, match=r"make\(\.\.\., service=\.\.\.\)"):
        compiler_gym.make("llvm-v0", service="localhost:5000")
    with pytest.raises(TypeError, match="connection_settings is a compiler_gym.service"):
        compiler_gym.make("llvm-v0", connection_settings={"rpc_max_retries": 1})
