"""The explorer's view of a state-transition database (``--db``): a database of
:class:`~compiler_gym.wrappers.SqliteWriter`, read-only, its benchmarks, a benchmark's states
as a tree and a state's features and IR. Used by :mod:`compiler_gym.bin.explorer`."""

from __future__ import annotations

import json
import sqlite3
import threading
import zlib
from pathlib import Path

from compiler_gym.bin.explorer_requests import ExplorerError, _finite


class ExploredDatabase:
    """A database of :class:`~compiler_gym.wrappers.SqliteWriter`, read-only: its benchmarks,
    a benchmark's states as a tree (a state's parent is the state of its actions but the last),
    a state's features and IR. Its methods run on the server's worker threads; :meth:`close`
    at shutdown."""

    def __init__(self, path: Path, flags: list[str], feature_names: dict[str, list[str]]):
        self.path = Path(path)
        self.flags = flags
        self.feature_names = feature_names
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        try:  # fails early on a file that is no such database
            self._connection().execute("SELECT COUNT(*) FROM States").fetchone()
        except BaseException:
            self.close()
            raise

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, made by its first request. One per thread: sqlite3's
        connections are not for sharing between threads, and the server's worker threads are
        few and live as long as it does (a connection per request cost 0.36 ms a request,
        the summary's query 0.01 ms). Read-only, so the writer may go on writing (WAL)."""
        connection = getattr(self._local, "connection", None)
        if connection is None:
            with self._lock:
                if self._closed:
                    raise ExplorerError(503, "the database is closed: the server is stopping")
                # Not checked against its thread: close() runs on another at shutdown.
                connection = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
                )
                self._connections.append(connection)
            self._local.connection = connection
        elif self._closed:
            raise ExplorerError(503, "the database is closed: the server is stopping")
        return connection

    def close(self) -> None:
        """Closes every thread's connection (twice is fine); later requests answer 503."""
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()

    def summary(self) -> dict:
        """The database's benchmarks with their numbers of states."""
        c = self._connection()
        benchmarks = c.execute(
            "SELECT benchmark_uri, COUNT(*) FROM States GROUP BY benchmark_uri "
            "ORDER BY benchmark_uri"
        ).fetchall()
        (transitions,) = c.execute("SELECT COUNT(*) FROM StateTransitions").fetchone()
        return {
            "path": str(self.path),
            "benchmarks": [{"uri": uri, "states": n} for uri, n in benchmarks],
            "states": sum(n for _, n in benchmarks),
            "transitions": transitions,
        }

    def tree(self, benchmark: str, limit: int) -> dict:
        """A benchmark's states, shortest action sequences first, at most ``limit``, each with
        its parent (the state of the longest prefix of its actions that is in the database) and
        the reward of the transition from its parent, when logged."""
        c = self._connection()
        states = c.execute(
            "SELECT actions, state_id, done, ir_instruction_count FROM States "
            "WHERE benchmark_uri = ? ORDER BY length(actions), actions LIMIT ?",
            (benchmark, limit + 1),
        ).fetchall()
        rewards = {
            (a, int(action)): reward
            for a, action, _, reward in c.execute(
                "SELECT t.initial_state_id, t.action_value, t.end_state_id, t.reward "
                "FROM StateTransitions t WHERE t.initial_state_id IN "
                "(SELECT state_id FROM States WHERE benchmark_uri = ?)",
                (benchmark,),
            )
        }
        if not states:
            raise ExplorerError(404, f"the database has no states of {benchmark!r}")
        truncated = len(states) > limit
        by_actions: dict[tuple[int, ...], int] = {}
        nodes = []
        for actions_text, state_id, done, count in states[:limit]:
            actions = tuple(int(a) for a in actions_text.split())
            parent = None
            for k in range(len(actions) - 1, -1, -1):
                if actions[:k] in by_actions:
                    parent = by_actions[actions[:k]]
                    break
            if parent is None and actions:
                continue  # its start state is not in the database: not part of this tree
            action = actions[-1] if actions else None
            reward = None
            if parent is not None and len(nodes[parent]["actions"]) == len(actions) - 1:
                reward = rewards.get((nodes[parent]["state_hash"], action))
                reward = None if reward is None else _finite(reward)
            # Known only along a path whose every transition was logged.
            if parent is None:
                cumulative = 0.0
            elif reward is None or nodes[parent]["cumulative_reward"] is None:
                cumulative = None
            else:
                cumulative = nodes[parent]["cumulative_reward"] + reward
            node = {
                "id": len(nodes),
                "parent": parent,
                "actions": list(actions),
                "action": action,
                "action_name": None if action is None else self._flag(action),
                "reward": reward,
                "cumulative_reward": cumulative,
                "done": bool(done),
                "state_hash": state_id,
                "ir_instruction_count": count,
            }
            by_actions[actions] = node["id"]
            nodes.append(node)
        return {"benchmark": benchmark, "nodes": nodes, "truncated": truncated}

    def _flag(self, action: int) -> str:
        return self.flags[action] if 0 <= action < len(self.flags) else str(action)

    def state(self, state_id: str) -> dict:
        """A state's instruction count, features (name: value) and IR (None unless logged)."""
        row = (
            self._connection()
            .execute(
                "SELECT ir_instruction_count, compressed_llvm_ir, autophase, instcount "
                "FROM Observations WHERE state_id = ?",
                (state_id,),
            )
            .fetchone()
        )
        if row is None:
            raise ExplorerError(404, f"the database has no state {state_id!r}")
        count, ir, autophase, instcount = row
        names = self.feature_names
        return {
            "state_hash": state_id,
            "ir_instruction_count": count,
            "autophase": dict(zip(names["autophase"], json.loads(autophase), strict=False)),
            "instcount": dict(zip(names["instcount"], json.loads(instcount), strict=False)),
            "ir": zlib.decompress(ir).decode() if ir is not None else None,
        }
