"""A database of what was explored: LLVM states and the transitions between them, in SQLite.

CompilerGym's ``SynchronousSqliteLogger`` wraps one env; :class:`SqliteWriter` is the writer
behind it, which many loggers (the envs of a ``make_vec``, threads) share. Tables, as
CompilerGym's:

- ``States(benchmark_uri, done, ir_instruction_count, state_id, actions)``: a state reached by
  an action sequence; ``state_id`` is the module's ``IrSha1``.
- ``Observations(state_id, ir_instruction_count, compressed_llvm_ir, autophase, instcount)``:
  per state, the feature vectors as JSON and, when asked for, the IR (zlib-compressed).
- ``StateTransitions(initial_state_id, action_value, end_state_id, reward)``.

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

from compiler_gym.wrappers.core import CompilerEnvWrapper

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
    ``close()`` flushes, and closes a writer the logger made."""

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
        if (db_path is None) == (writer is None):
            raise TypeError("SynchronousSqliteLogger needs one of db_path and writer")
        self._owns_writer = writer is None
        self.writer = writer or SqliteWriter(
            db_path, commit_frequency_in_seconds, max_step_buffer_length
        )
        self.log_ir = log_ir
        self._actions: list[int] = []
        self._state_id: Optional[str] = None

    def _record_state(self, done: bool) -> str:
        names = ["IrSha1", "IrInstructionCount", "Autophase", "InstCount"]
        if self.log_ir:
            names.append("Ir")
        values = dict(zip(names, (self.env.observation[n] for n in names), strict=True))
        state_id = values["IrSha1"]
        count = int(values["IrInstructionCount"])
        ir = zlib.compress(values["Ir"].encode()) if self.log_ir else None
        actions = " ".join(map(str, self._actions))
        uri = str(self.env.benchmark.uri)
        autophase = json.dumps([int(v) for v in values["Autophase"]])
        instcount = json.dumps([int(v) for v in values["InstCount"]])
        self.writer.add(
            state=(uri, int(done), count, state_id, actions),
            observation=(state_id, count, ir, autophase, instcount),
        )
        return state_id

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
    ):
        """Applies the actions one at a time, logging each transition (with the env's default
        reward) and each state reached; returns what the env's ``multistep`` would, the
        rewards summed over the actions."""
        if self.env.reward_space is None:
            raise ValueError("SynchronousSqliteLogger logs the env's reward: set a reward space")
        default = self.env.reward_space.name
        asked = reward_spaces if reward_spaces is not None else rewards
        names = None if asked is None else [r if isinstance(r, str) else r.name for r in asked]
        request = None if names is None else names + ([default] if default not in names else [])
        result, total = None, None
        for action in list(actions):
            observation, reward, done, info = self.env.step(
                action,
                observation_spaces=observation_spaces or observations,
                reward_spaces=request,
            )
            logged = reward if names is None else reward[request.index(default)]
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
            end_state = self._record_state(done)
            self.writer.add(transition=(self._state_id, index, end_state, float(logged)))
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
