"""A database of what was explored: LLVM states and the transitions between them, in SQLite.

CompilerGym's ``SynchronousSqliteLogger`` wraps one env; :class:`SqliteWriter` is the writer
behind it, which many loggers (the envs of a ``make_vec``, threads) share. Tables, as
CompilerGym's:

- ``States(benchmark_uri, done, ir_instruction_count, state_id, actions)``: a state reached by
  an action sequence; ``state_id`` is the module's ``IrSha1``.
- ``Observations(state_id, ir_instruction_count, compressed_llvm_ir, autophase, instcount)``:
  per state, the feature vectors as JSON and, when asked for, the IR (zlib-compressed).
- ``StateTransitions(initial_state_id, action_value, end_state_id, reward)``.

:func:`make_logged_vec` (:class:`SqliteLoggedVecEnv`) is ``make_vec`` with every row logged
through one writer.

Rows are buffered and written in one transaction per batch: when ``max_step_buffer_length``
rows are waiting, after ``commit_frequency_in_seconds``, on ``flush()`` and on ``close()``. The
database is in WAL mode, so a process killed mid-run loses at most the rows not yet committed
and leaves a readable file; readers (the explorer) do not block the writer.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from compiler_gym.envs.compiler_env import CompilerEnv, timeout_kwargs
from compiler_gym.envs.llvm_env import LlvmEnv
from compiler_gym.vector import CompilerVecEnv, _as_array
from compiler_gym.wrappers.core import (
    CompilerEnvWrapper,
    ConversionWrapperEnv,
    ObservationWrapper,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS States (
  benchmark_uri TEXT NOT NULL,
  done INTEGER NOT NULL,
  ir_instruction_count INTEGER NOT NULL,
  state_id TEXT NOT NULL,
  actions TEXT NOT NULL,
  PRIMARY KEY (benchmark_uri, actions)
);
CREATE TABLE IF NOT EXISTS Observations (
  state_id TEXT NOT NULL PRIMARY KEY,
  ir_instruction_count INTEGER NOT NULL,
  compressed_llvm_ir BLOB,
  autophase TEXT NOT NULL,
  instcount TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS StateTransitions (
  initial_state_id TEXT NOT NULL,
  action_value INTEGER NOT NULL,
  end_state_id TEXT NOT NULL,
  reward REAL NOT NULL,
  PRIMARY KEY (initial_state_id, action_value)
);
"""


# What a logged state needs from the engine, beside the caller's own observation space.
LOGGED_SPACES = ("IrSha1", "IrInstructionCount", "Autophase", "InstCount")


def _logged_spaces(log_ir: bool) -> list[str]:
    """The spaces a logger asks for: LOGGED_SPACES, and the IR when it logs that too."""
    return list(LOGGED_SPACES) + (["Ir"] if log_ir else [])


def _state_rows(
    uri: str,
    done: bool,
    actions: Iterable[int],
    state_id: str,
    count: Any,
    autophase: Any,
    instcount: Any,
    ir: Optional[str],
) -> tuple[tuple, tuple]:
    """The ``States`` and ``Observations`` rows of one state, in column order."""
    count = int(count)
    state = (uri, int(done), count, state_id, " ".join(map(str, actions)))
    observation = (
        state_id,
        count,
        None if ir is None else zlib.compress(ir.encode()),
        json.dumps([int(v) for v in autophase]),
        json.dumps([int(v) for v in instcount]),
    )
    return state, observation


class SqliteWriter:
    """The one writer of a database file: thread-safe, batching rows into transactions.

    >>> writer = SqliteWriter("explored.db")
    >>> loggers = [SynchronousSqliteLogger(env, writer=writer) for env in envs]
    >>> writer.close()
    """

    def __init__(
        self,
        db_path: Union[str, Path],
        commit_frequency_in_seconds: float = 300,
        max_step_buffer_length: int = 5000,
    ):
        self.db_path = Path(db_path)
        self.db_path.parent.mkdir(parents=True, exist_ok=True)  # as CompilerGym's logger
        self.commit_frequency_in_seconds = commit_frequency_in_seconds
        self.max_step_buffer_length = max_step_buffer_length
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(str(self.db_path), check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.executescript(SCHEMA)
        self._connection.commit()
        self._states: list[tuple] = []
        self._observations: list[tuple] = []
        self._transitions: list[tuple] = []
        self._last_commit = time.monotonic()
        self.rows_written = 0

    def add(
        self,
        state: Optional[tuple] = None,
        observation: Optional[tuple] = None,
        transition: Optional[tuple] = None,
    ) -> None:
        """Queues rows of the three tables (tuples in column order); commits when the batch
        is full or old enough."""
        with self._lock:
            if self._connection is None:
                raise ValueError(f"the writer of {self.db_path} is closed")
            if state is not None:
                self._states.append(state)
            if observation is not None:
                self._observations.append(observation)
            if transition is not None:
                self._transitions.append(transition)
            waiting = len(self._states) + len(self._observations) + len(self._transitions)
            old = time.monotonic() - self._last_commit >= self.commit_frequency_in_seconds
            if waiting >= self.max_step_buffer_length or old:
                self._commit_locked()

    def flush(self) -> None:
        """Writes every queued row in one transaction."""
        with self._lock:
            if self._connection is not None:
                self._commit_locked()

    def close(self) -> None:
        """Flushes and closes the database (twice is fine)."""
        with self._lock:
            if self._connection is None:
                return
            self._commit_locked()
            self._connection.close()
            self._connection = None

    def _commit_locked(self) -> None:
        rows = len(self._states) + len(self._observations) + len(self._transitions)
        with self._connection:  # one transaction; rolled back whole if it fails
            self._connection.executemany(
                "INSERT OR REPLACE INTO States VALUES (?, ?, ?, ?, ?)", self._states
            )
            self._connection.executemany(
                "INSERT OR IGNORE INTO Observations VALUES (?, ?, ?, ?, ?)", self._observations
            )
            self._connection.executemany(
                "INSERT OR REPLACE INTO StateTransitions VALUES (?, ?, ?, ?)", self._transitions
            )
        self._states, self._observations, self._transitions = [], [], []
        self._last_commit = time.monotonic()
        self.rows_written += rows

    def __enter__(self) -> SqliteWriter:
        return self

    def __exit__(self, *args) -> None:
        self.close()


class SynchronousSqliteLogger(CompilerEnvWrapper):
    """Logs every state an LLVM env reaches, and every transition, to a SQLite database
    (CompilerGym's wrapper). Give ``db_path`` for a database of its own, or ``writer`` to share
    one :class:`SqliteWriter` among many envs; ``log_ir`` also stores each state's IR.
    The reward logged is the env's reward space's (``IrInstructionCountOz`` when it has none).
    ``close()`` flushes, and closes a writer the logger made.

    Each step asks the env for the logged spaces beside the caller's, so that the engine
    computes them with the step; under a wrapper that converts observations (which would be
    given the logged ones too) they are read after the step instead."""

    def __init__(
        self,
        env: Any,
        db_path: Optional[Union[str, Path]] = None,
        commit_frequency_in_seconds: float = 300,
        max_step_buffer_length: int = 5000,
        writer: Optional[SqliteWriter] = None,
        log_ir: bool = False,
    ):
        super().__init__(env)
        # CompilerGym's checks: the env, however wrapped, is an LLVM one.
        if not isinstance(getattr(env, "unwrapped", None), LlvmEnv):
            raise TypeError("Requires LlvmEnv base environment")
        if (db_path is None) == (writer is None):
            raise TypeError("SynchronousSqliteLogger needs one of db_path and writer")
        self._owns_writer = writer is None
        self.writer = writer or SqliteWriter(
            db_path, commit_frequency_in_seconds, max_step_buffer_length
        )
        self.log_ir = log_ir
        self._actions: list[int] = []
        self._state_id: Optional[str] = None

    def fork(self) -> SynchronousSqliteLogger:
        """A logger over a fork of the env, writing through this logger's writer (which it
        does not close) from a copy of this episode's actions."""
        new = super().fork()
        new._actions = list(self._actions)
        new._owns_writer = False
        return new

    def _logged_names(self) -> list[str]:
        return _logged_spaces(self.log_ir)

    def _record_state(self, done: bool, values: Optional[list] = None) -> str:
        """Logs the state the env is in: ``values`` of :meth:`_logged_names` when the step
        that reached it computed them, else read from the env now."""
        names = self._logged_names()
        if values is None:
            values = [self.env.observation[n] for n in names]
        values = dict(zip(names, values, strict=True))
        state_id = values["IrSha1"]
        state, observation = _state_rows(
            str(self.env.benchmark.uri),
            done,
            self._actions,
            state_id,
            values["IrInstructionCount"],
            values["Autophase"],
            values["InstCount"],
            values.get("Ir"),
        )
        self.writer.add(state=state, observation=observation)
        return state_id

    def _observations_pass_through(self) -> bool:
        """Whether the wrappers under this one return the env's observations unconverted, so
        that the logged spaces can be asked for in the step beside the caller's."""
        env = self.env
        while isinstance(env, CompilerEnvWrapper):
            if isinstance(env, (ObservationWrapper, ConversionWrapperEnv)):
                return False
            env = env.env
        return isinstance(env, CompilerEnv)

    def reset(self, *args, **kwargs):
        """Resets the env and logs its starting state."""
        observation = self.env.reset(*args, **kwargs)
        self._actions = []
        self._state_id = self._record_state(done=False)
        return observation

    def multistep(
        self,
        actions: Iterable[Any],
        observation_spaces=None,
        reward_spaces=None,
        observations=None,
        rewards=None,
        timeout: Optional[float] = None,
    ):
        """Applies the actions one at a time, logging each transition (with the env's default
        reward) and each state reached; returns what the env's ``multistep`` would, the
        rewards summed over the actions. ``timeout`` bounds each step."""
        if self.env.reward_space is None:
            raise ValueError("SynchronousSqliteLogger logs the env's reward: set a reward space")
        default = self.env.reward_space.name
        asked = reward_spaces if reward_spaces is not None else rewards
        names = None if asked is None else [r if isinstance(r, str) else r.name for r in asked]
        request = None if names is None else names + ([default] if default not in names else [])
        actions = list(actions)
        if not actions:
            return self.env.multistep(
                [], observation_spaces=observation_spaces or observations, reward_spaces=names
            )
        if self._state_id is None and self.env.in_episode:
            # Wrapped mid-episode: the state it is in starts what this logger records.
            self._actions = list(self.env.actions)
            self._state_id = self._record_state(done=False)
        # The logged spaces are computed by the step itself, after the caller's (one call to
        # the engine, not one per space after it); without spaces of the caller's, the env's
        # default observation comes first, to be returned alone.
        asked_spaces = observation_spaces or observations
        logged = self._logged_names()
        together = self._observations_pass_through()
        own: list[Any] = []
        if together:
            if asked_spaces is not None:
                own = list(asked_spaces)
            elif self.env.unwrapped.observation_space_spec is not None:
                own = [self.env.unwrapped.observation_space_spec]
        result, total = None, None
        for action in actions:
            observation, reward, done, info = self.env.step(
                action,
                observation_spaces=own + logged if together else asked_spaces,
                reward_spaces=request,
                **timeout_kwargs(timeout),
            )
            values = None
            if together:
                values = observation[len(own) :]
                if asked_spaces is not None:
                    observation = observation[: len(own)]
                else:
                    observation = observation[0] if own else None
            logged_reward = reward if names is None else reward[request.index(default)]
            mine = reward if names is None else list(reward[: len(names)])
            if total is None:
                total = mine
            elif names is None:
                total += mine
            else:
                total = [a + b for a, b in zip(total, mine, strict=True)]
            index = self.env.action_space[action] if isinstance(action, str) else int(action)
            self._actions.append(index)
            result = (observation, total, done, info)
            if done and info.get("error_type"):
                break  # no state to log: the episode ended in an error
            # (LLVM's engine ends an episode only with an error: a state that is done here was
            # ended by a wrapper, after the step computed its observations.)
            end_state = self._record_state(done, values)
            self.writer.add(transition=(self._state_id, index, end_state, float(logged_reward)))
            self._state_id = end_state
            if done:
                break
        return result

    def flush(self) -> None:
        """Writes the queued rows now."""
        self.writer.flush()

    def close(self) -> None:
        """Flushes (closing a writer of its own), then closes the env."""
        if self._owns_writer:
            self.writer.close()
        else:
            self.writer.flush()
        self.env.close()


def _host(value: Any) -> Any:
    """A batch output readable on the host: lists and NumPy arrays as they are, device arrays
    (``device="cuda"``) copied back."""
    if isinstance(value, (list, np.ndarray)):
        return value
    from compiler_gym import batches

    return batches.to_numpy(value)


class SqliteLoggedVecEnv(CompilerVecEnv):
    """A :class:`~compiler_gym.vector.CompilerVecEnv` whose every row is logged to one SQLite
    database, as :class:`SynchronousSqliteLogger` logs one env: the states each row reaches and
    the transitions between them, through one :class:`SqliteWriter` (give ``db_path`` for a
    writer of its own, closed with the vector env, or ``writer`` to share one). Made by
    :func:`make_logged_vec`; ``reset``, ``step``, ``send`` and ``recv`` behave and return as
    ``make_vec``'s.

    How the rows' states are read: the logging spaces (``IrSha1``, ``IrInstructionCount``,
    ``Autophase``, ``InstCount``, and ``Ir`` with ``log_ir``) are the vector env's
    ``extra_observation_spaces``, computed by the engine with each row's step on its worker
    thread; the caller gets back only its own space. Reading them after the step instead would
    cost one ``try_actions`` per space and row (a state copy each), or a second episode per row.

    What is logged, per row: the state a reset reaches (no transition), and for each step the
    transition (previous state, action, new state, the row's reward in the vector env's reward
    space) and the new state, ``done`` where the episode was truncated there
    (``max_episode_steps``). A step that ends the episode in an error (or that terminates it:
    the engine observes nothing then) logs nothing. Either autoreset mode works: with
    ``same_step`` the state a truncated row reached comes from ``info["final_obs"]``'s slabs.

    Refused, because a row's state could not be named: ``random_benchmarks=True`` (the engine
    does not say which benchmark a row drew; rows take ``benchmarks[row % len(benchmarks)]``
    otherwise) and ``actions_per_step > 1`` (the states between a row's actions are not
    observed).
    """

    def __init__(
        self,
        id: str,
        num_envs: int,
        db_path: Optional[Union[str, Path]] = None,
        writer: Optional[SqliteWriter] = None,
        log_ir: bool = False,
        commit_frequency_in_seconds: float = 300,
        max_step_buffer_length: int = 5000,
        **kwargs: Any,
    ):
        if (db_path is None) == (writer is None):
            raise TypeError("SqliteLoggedVecEnv needs one of db_path and writer")
        if kwargs.get("random_benchmarks"):
            raise ValueError(
                "SqliteLoggedVecEnv cannot log random_benchmarks=True: the engine does not say "
                "which benchmark a row drew"
            )
        if kwargs.get("actions_per_step", 1) != 1:
            raise ValueError(
                "SqliteLoggedVecEnv logs one action per step (actions_per_step=1): the states "
                "between a row's actions are not observed"
            )
        if "extra_observation_spaces" in kwargs:
            raise TypeError("SqliteLoggedVecEnv sets extra_observation_spaces itself")
        spaces = _logged_spaces(log_ir)
        super().__init__(id, num_envs, extra_observation_spaces=spaces, **kwargs)
        if self._reward_space is None:
            self.close()
            raise ValueError("SqliteLoggedVecEnv logs the rewards: give the vector env a reward")
        self._same_step = kwargs.get("autoreset", "next_step") == "same_step"
        self._owns_writer = writer is None
        self.writer = writer or SqliteWriter(
            db_path, commit_frequency_in_seconds, max_step_buffer_length
        )
        self.log_ir = log_ir
        # Per row: the actions of its episode so far and the id of the state it is in (None
        # when it is in no state that was logged: before a reset, after an error).
        self._actions: list[list[int]] = [[] for _ in range(num_envs)]
        self._state_ids: list[Optional[str]] = [None] * num_envs
        self._sent: dict[int, int] = {}

    def _logged_outputs(self, outputs: Optional[list]) -> Optional[dict[str, Any]]:
        if outputs is None:
            return None
        return {name: _host(outputs[i]) for name, i in self._space_index.items()}

    def _log_state(self, values: dict[str, Any], row: int, env_id: int, done: bool) -> str:
        state_id = values["IrSha1"][row]
        state, observation = _state_rows(
            self.benchmark_uris[env_id % len(self.benchmark_uris)],
            done,
            self._actions[env_id],
            state_id,
            values["IrInstructionCount"][row],
            values["Autophase"][row],
            values["InstCount"][row],
            values["Ir"][row] if self.log_ir else None,
        )
        self.writer.add(state=state, observation=observation)
        return state_id

    def _on_batch(self, kind: str, batch: dict, actions: Optional[np.ndarray]) -> None:
        """Logs a batch from the engine: the states rows reached and the transitions."""
        if kind == "step":
            taken = {i: int(a) for i, a in enumerate(np.asarray(actions).reshape(-1))}
        elif kind == "recv":
            taken = {int(e): self._sent.pop(int(e)) for e in batch["env_ids"]}
        else:
            taken = None
        now = self._logged_outputs(batch["observations"])
        at_end = self._logged_outputs(batch.get("final_observations"))
        rewards = batch["rewards"][:, 0]
        for row, env_id in enumerate(int(e) for e in batch["env_ids"]):
            errored = bool(batch["error_type"][row])
            ended = bool(batch["terminated"][row])
            truncated = bool(batch["truncated"][row])
            reset_here = bool(batch["is_reset"][row])
            stepped = taken is not None and not (reset_here and not self._same_step)
            if stepped and not ended and not errored and self._state_ids[env_id] is not None:
                action = taken[env_id]
                self._actions[env_id].append(action)
                reached = at_end if (truncated and self._same_step) else now
                end_state = self._log_state(reached, row, env_id, done=truncated)
                self.writer.add(
                    transition=(self._state_ids[env_id], action, end_state, float(rewards[row]))
                )
                self._state_ids[env_id] = end_state
            if stepped and (ended or errored or truncated):
                self._state_ids[env_id] = None
            if reset_here and not (errored and not self._same_step):
                self._actions[env_id] = []
                self._state_ids[env_id] = self._log_state(now, row, env_id, done=False)
            elif reset_here:
                self._state_ids[env_id] = None

    def send(self, actions: Any, env_ids: Optional[Any] = None) -> None:
        """Queues one step for each listed env (all by default); :meth:`recv` logs it."""
        ids = np.arange(self.num_envs) if env_ids is None else _as_array(env_ids)
        array = _as_array(actions)
        super().send(array, ids)
        flat = np.asarray(array).reshape(-1)
        self._sent.update({int(e): int(a) for e, a in zip(np.asarray(ids), flat, strict=True)})

    def flush(self) -> None:
        """Writes the queued rows now."""
        self.writer.flush()

    def close_extras(self, **kwargs) -> None:
        """Closes the engine, then flushes the writer (closing one of its own)."""
        super().close_extras(**kwargs)
        if getattr(self, "_owns_writer", False):
            self.writer.close()
        elif hasattr(self, "writer"):
            self.writer.flush()


def make_logged_vec(
    id: str,
    num_envs: int,
    db_path: Optional[Union[str, Path]] = None,
    writer: Optional[SqliteWriter] = None,
    log_ir: bool = False,
    **kwargs: Any,
) -> SqliteLoggedVecEnv:
    """``make_vec`` whose every row logs its states and transitions to one SQLite database.

    >>> vec = make_logged_vec("llvm-ic-v0", 8, db_path="explored.db", benchmarks=uris)
    >>> vec.reset(); vec.step(actions); vec.close()   # close() flushes

    ``kwargs`` are ``make_vec``'s (see :class:`SqliteLoggedVecEnv` for the two it refuses), and
    ``commit_frequency_in_seconds`` and ``max_step_buffer_length`` a new writer's.
    """
    return SqliteLoggedVecEnv(id, num_envs, db_path=db_path, writer=writer, log_ir=log_ir, **kwargs)
