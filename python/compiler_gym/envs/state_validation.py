"""Validation of a state (:meth:`CompilerEnv.validate`): replayed in a fresh env, its reward
checked, and the program's behaviour compared with the unoptimized one's."""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Iterable
from typing import Any, Optional

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.errors import ServiceError
from compiler_gym.validation_result import ValidationResult


def validate_state(
    env: Any, state: Optional[CompilerEnvState], sanitizers: Iterable[str]
) -> ValidationResult:
    """:meth:`CompilerEnv.validate` of ``env`` (see there): the current state when ``state``
    is None, else the recorded one."""
    sanitizers = set(sanitizers)
    if not sanitizers <= {"address", "undefined"}:
        raise ValueError(f"Unknown sanitizers: {sorted(sanitizers - {'address', 'undefined'})}")
    in_place = state is None
    state = state or env.state
    if state.reward is not None and env.reward_space is None:
        # CompilerGym's warning: the recorded reward cannot be checked.
        warnings.warn(
            "Validating state with reward, but environment has no reward space set",
            stacklevel=3,
        )
    start = time.time()
    errors: list[str] = []
    replay_failed = reward_failed = semantics_failed = run_failed = False
    replay = None
    try:  # a benchmark that cannot be found or loaded fails this state, not the caller
        replay = type(env)(
            env.env_id,
            datasets=env.datasets,
            isolation=env.isolation,
            parameters=env.parameters,
            # The Benchmark itself when it is this env's: a user benchmark (from files or
            # source) is in no dataset, so its URI alone cannot be resolved.
            benchmark=env.benchmark if str(env.benchmark) == state.benchmark else state.benchmark,
            # A Python reward keeps per-episode state: the replay gets its own.
            reward_space=copy.deepcopy(env.reward_space),
            action_space=env.action_space.name,
        )
        replay.apply(state)
        replayed = replay.state
        # A measured reward (Runtime) differs from run to run: only deterministic ones
        # can be checked by replay.
        reward_validated = (
            state.reward is not None
            and replay.reward_space is not None
            and replay.reward_space.deterministic
        )
        if reward_validated and not state.reward_equals(replayed):
            reward_failed = True
            errors.append(f"Expected reward {state.reward} but received reward {replayed.reward}")
        replay_errors = env._replay_errors(replay) if in_place else []
        errors += replay_errors
        replay_failed = bool(replay_errors)
        checked = env if in_place else replay
        try:
            semantic_errors = checked._semantic_validation_errors(sanitizers)
            cannot_run = None
        except ServiceError as e:  # no build or no run: the state replayed all the same
            semantic_errors, cannot_run = None, e
        if checked.benchmark.validation_callbacks():
            semantic_errors = (semantic_errors or []) + [
                str(e) for e in checked.benchmark.callback_errors(checked)
            ]
        semantics_validated = semantic_errors is not None
        semantics_failed = bool(semantic_errors)
        errors += semantic_errors or []
        if cannot_run is not None:
            errors.append(str(cannot_run))
            # The check builds and runs the unoptimized program first: when that program
            # runs, it was the actions' program that failed to build, a changed behaviour.
            replay.reset()
            try:
                replay._semantic_validation_errors(sanitizers)
                semantics_validated = semantics_failed = True
            except ServiceError:
                run_failed = True
    except (ValueError, LookupError, OSError, ServiceError) as e:
        errors.append(str(e))
        replay_failed = True
        reward_validated = semantics_validated = False
    finally:
        if replay is not None:
            replay.close()
    return ValidationResult(
        state=state,
        walltime=time.time() - start,
        reward_validated=reward_validated,
        benchmark_semantics_validated=semantics_validated,
        errors=errors,
        actions_replay_failed=replay_failed,
        reward_validation_failed=reward_failed,
        benchmark_semantics_validation_failed=semantics_failed,
        benchmark_run_failed=run_failed,
    )
