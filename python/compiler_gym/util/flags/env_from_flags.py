"""The environment flags and the environment they describe (CompilerGym's
``compiler_gym.util.flags.env_from_flags``).

``--env`` (default ``llvm-v0``), ``--observation``, ``--reward`` and ``--ls_env`` work as in
CompilerGym. Its service flags (``--service``, ``--local_service_binary``) have no meaning here,
where environments run in the engine rather than behind a gRPC service: setting one is a usage
error. Its connection settings (``--service_rpc_call_max_seconds`` and the others) are accepted
so that existing command lines parse, and have no effect.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Optional, Union

from absl import app, flags

import compiler_gym
from compiler_gym.datasets import Benchmark
from compiler_gym.envs import CompilerEnv
from compiler_gym.util.names import did_you_mean

flags.DEFINE_string("env", "llvm-v0", "The id of the environment to make (see --ls_env).")
flags.DEFINE_string(
    "service",
    None,
    "CompilerGym's <hostname>:<port> of a service to connect to; not supported here "
    "(environments run in process).",
)
flags.DEFINE_string(
    "local_service_binary",
    None,
    "CompilerGym's path of a service binary to run; not supported here (environments run in "
    "process).",
)
flags.DEFINE_string(
    "observation",
    None,
    "The observation space to use, instead of the environment's default.",
)
flags.DEFINE_string(
    "reward",
    None,
    "The reward space to use, instead of the environment's default.",
)
flags.DEFINE_boolean(
    "ls_env", False, "Print the ids of the environments that --env accepts, and exit."
)

# CompilerGym's connection settings: accepted, no effect (there is no gRPC connection).
_NO_EFFECT = "CompilerGym's service connection setting; accepted, no effect here."
flags.DEFINE_float("service_rpc_call_max_seconds", 300, _NO_EFFECT)
flags.DEFINE_float("service_init_max_seconds", 10, _NO_EFFECT)
flags.DEFINE_integer("service_init_max_attempts", 5, _NO_EFFECT)
flags.DEFINE_float("local_service_port_init_max_seconds", 10, _NO_EFFECT)
flags.DEFINE_float("local_service_exit_max_seconds", 10, _NO_EFFECT)
flags.DEFINE_float("service_rpc_init_max_seconds", 3, _NO_EFFECT)

FLAGS = flags.FLAGS

_GYMNASIUM_PREFIX = "compiler_gym/"


def env_from_flags(benchmark: Optional[Union[str, Benchmark]] = None) -> CompilerEnv:
    """Makes the environment the flags describe, on ``benchmark`` (default: the id's). With
    ``--ls_env`` prints the environment ids, one a line, and exits. ``app.UsageError`` for an
    empty or unknown ``--env`` and for the service flags; ``LookupError`` for an unknown
    observation or reward space. The caller closes the env (``with env_from_flags() as env``)."""
    if FLAGS.ls_env:
        print("\n".join(sorted(compiler_gym.env_ids())))
        sys.exit(0)
    if not FLAGS.env:
        raise app.UsageError("--env must be set")
    for name in ("service", "local_service_binary"):
        if FLAGS[name].value:
            raise app.UsageError(
                f"--{name} is not supported: environments run in this process "
                "(make(..., isolation='process') runs one in a worker process)"
            )
    env_id = FLAGS.env.removeprefix(_GYMNASIUM_PREFIX)
    known = compiler_gym.env_ids()
    if env_id not in known:
        raise app.UsageError(
            f"--env: unknown environment id {FLAGS.env!r}{did_you_mean(env_id, known)}"
        )

    kwargs = {"benchmark": benchmark}
    if FLAGS.observation:
        kwargs["observation_space"] = FLAGS.observation
    if FLAGS.reward:
        kwargs["reward_space"] = FLAGS.reward
    return compiler_gym.make(env_id, **kwargs)


@contextlib.contextmanager
def env_session_from_flags(
    benchmark: Optional[Union[str, Benchmark]] = None,
) -> Iterator[CompilerEnv]:
    """:func:`env_from_flags` as a ``with`` block that closes the env at its end."""
    with env_from_flags(benchmark=benchmark) as env:
        yield env


__all__ = ["env_from_flags", "env_session_from_flags"]
