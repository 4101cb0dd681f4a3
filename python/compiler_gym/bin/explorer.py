"""The explorer: a web page over an environment, and over a database of what was explored.

    python -m compiler_gym.bin.explorer [--port 5000] [--db explored.db]    (compiler_gym-explorer)

Serves, on 127.0.0.1 unless told otherwise, a page where a person picks a benchmark and a reward,
takes actions, sees the tree of the actions taken with their rewards, the cumulative reward, the
state's headline number, features as charts and text (what the env's family names in its
``state_summary``: for LLVM the instruction count, Autophase and InstCount, and the IR; for GCC
the object size, instruction counts and assembly; for loop_tool the GFLOP/s and the loop tree),
and goes back to any earlier state to take another action from there. With ``--db`` (a database
of :class:`~compiler_gym.wrappers.SynchronousSqliteLogger` or ``make_logged_vec``, whose states
are LLVM's) the page also shows what was explored, per benchmark, as a tree.

The JSON API, in CompilerGym's shape (``ACTIONS``: comma-separated action indices or flags,
``-`` for none; ``BENCHMARK``: a URI, percent-encoded or not):

- ``GET /api/v4/describe``: actions (flag to index), observation and reward spaces, datasets,
  what a state shows (``state``: its headline, text and features' keys and titles), feature
  names (null for a feature whose names vary with the state), the database's path (or null),
  the server's ``limits`` (``max_actions_per_request``, ``max_request_seconds``);
- ``GET /api/v4/start/REWARD/ACTIONS/BENCHMARK``: a new session, its states (the start state,
  then one per action);
- ``GET /api/v4/step/SESSION/ACTIONS?from=NODE&ir=1``: one state per action, taken from
  state ``NODE`` of the session's tree (default: the last one returned); ``ir=1`` adds the
  text of the last state (LLVM's IR, GCC's assembly, ...);
- ``GET /api/v4/state/SESSION/NODE?ir=1``: one state again; ``GET /api/v4/stop/SESSION``;
- ``GET /api/v4/db``, ``/api/v4/db/tree?benchmark=URI``, ``/api/v4/db/state/STATE_ID``: the
  database's benchmarks, one benchmark's states as a tree, one state's features and IR.

A state is ``{id, parent, action, action_name, reward, cumulative_reward, done, state_hash,
commandline}`` and the family's headline and features under their keys (for LLVM
``ir_instruction_count``, ``autophase``, ``instcount``; features as name: value). Sessions
are envs of their own, closed after ``--session-timeout`` seconds unused; at most
``--max-sessions`` are open. Bad input answers with a 4xx status and ``{"error": message}``.
Session responses carry ``Server-Timing: env;dur=MS``, the time spent in the env.

Only benchmarks of the env's own datasets are served (``benchmark://`` and ``generator://``
URIs, checked once parsed): never a file of this machine. A benchmark of a dataset that is not
installed is refused (409, with the command that installs it) rather than installed by a
request. Every request's work is bounded:

- at most ``--max-actions-per-request`` actions (64; more is a 413);
- ``--max-request-seconds`` of env work (5): past it a start or step stops between actions and
  answers the states it took with ``"truncated": true`` (also set when the episode ended or the
  tree filled before the last action); the first action is always taken, so asking again with
  the actions left makes progress. ``truncated`` with no state means going back to a deep state
  took the time: asking again goes on from where it stopped. A state's text that could not be
  reached in time answers 503 with ``Retry-After``;
- going back to a state replays its actions from the deepest of a few forks of the env kept as
  checkpoints (every 32 actions deep), not from the start;
- a request waits at most ``max_lock_wait_seconds`` (10) for another one on its session
  (503 after), and is refused (4xx) before any env work when it cannot be served;
- a connection that has not sent its request's headers within ``--header-timeout`` seconds
  (10), or does not read its response for as long, is closed; connections that wait for their
  headers are capped (the oldest is closed for a new one), so idle connections cannot keep
  other clients out.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import math
import secrets
import socket
import sqlite3
import sys
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Optional
from urllib.parse import unquote

import numpy as np

import compiler_gym
from compiler_gym.datasets import BenchmarkUri
from compiler_gym.envs.compiler_env import StateSummary
from compiler_gym.errors import BenchmarkInitError, EnvironmentNotSupported
from compiler_gym.wrappers.sqlite_logger import LOGGED_SPACES

STATIC_DIR = Path(__file__).parent / "explorer_static"

logger = logging.getLogger(__name__)

# The URI schemes of datasets' benchmarks. Anything else (file://, a path) would let a client
# read this machine's files through the IR or a parse error.
BENCHMARK_SCHEMES = frozenset({"benchmark", "generator"})

# A session keeps a fork of its env at states this many actions deep, at most this many (least
# recently used first out): going back to a state replays at most CHECKPOINT_INTERVAL actions
# while its checkpoint is kept. A fork of an LLVM state is a copy of its module (about 10 ms for
# crc32, less than replaying one action), and 8 bound a session's memory to 8 modules more.
CHECKPOINT_INTERVAL = 32
MAX_CHECKPOINTS = 8


class ExplorerError(Exception):
    """A request the explorer refuses: an HTTP status (4xx for bad input), a message, and any
    headers to answer with (``Retry-After`` of a 503)."""

    def __init__(self, status: int, message: str, headers: Optional[dict[str, str]] = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def parse_actions(text: str, flags: list[str], limit: int) -> list[int]:
    """The actions of a URL segment: comma-separated indices or flags (``-mem2reg`` or
    ``mem2reg``), ``-`` or nothing for none. Raises :class:`ExplorerError` (400, or 413 past
    ``limit`` actions)."""
    text = unquote(text).strip()
    if text in ("", "-"):
        return []
    tokens = text.split(",")
    if len(tokens) > limit:
        raise ExplorerError(413, f"{len(tokens)} actions in one request; at most {limit}")
    index = None  # flags by name, made when a token is not a number
    actions = []
    for token in tokens:
        token = token.strip()
        try:
            value = int(token)
        except ValueError:
            value = None
        if value is not None:
            if not 0 <= value < len(flags):
                raise ExplorerError(400, f"action {value} is out of range [0, {len(flags)})")
            actions.append(value)
            continue
        if index is None:
            index = {f.lstrip("-"): i for i, f in enumerate(flags)}
            index.update({f: i for i, f in enumerate(flags)})
        if token in index:
            actions.append(index[token])
        else:
            raise ExplorerError(400, f"{token!r} is neither an action index nor a flag")
    return actions


def parse_benchmark_uri(text: str, datasets: Collection[str]) -> BenchmarkUri:
    """The parsed URI of a benchmark the explorer serves: a ``benchmark://`` or
    ``generator://`` URI (or CompilerGym's ``dataset/name`` shorthand) of one of ``datasets``
    (their canonical ``scheme://name``). Refuses anything else with :class:`ExplorerError`:
    400 for what is no such URI (a file, a path, control characters, ``..``), 404 for a dataset
    that is not the env's. Every check is on the parsed URI, the one the benchmark is then
    made from, so no spelling of a scheme (case, spaces, encodings) gets past it."""
    if not text:
        raise ExplorerError(400, "no benchmark given")
    # Whitespace and control characters (NUL above all) are in no benchmark's name; refused
    # before parsing, which would strip some and keep others.
    if any(c.isspace() or not c.isprintable() for c in text):
        raise ExplorerError(400, "a benchmark URI has no spaces or control characters")
    try:
        uri = BenchmarkUri.from_string(text)
    except ValueError:
        raise ExplorerError(
            400, "not a benchmark URI: name one of the env's datasets' (benchmark://DATASET/NAME)"
        ) from None
    if uri.scheme not in BENCHMARK_SCHEMES:
        # urlparse has lowercased the scheme; only its characters ([a-z0-9+.-]) are echoed.
        raise ExplorerError(
            400,
            f"{uri.scheme}:// benchmarks are not served; name one of the env's datasets' "
            "(benchmark:// or generator://)",
        )
    if uri.dataset_uri not in datasets:
        raise ExplorerError(404, f"Dataset not found: {uri.dataset_uri}")
    # Datasets find benchmarks by name, never by joining paths; these are refused anyway so
    # that no dataset written later can be walked out of.
    if "\\" in uri.path or any(part in (".", "..") for part in uri.path.split("/")):
        raise ExplorerError(400, "a benchmark's name has no '.' or '..' parts or backslashes")
    return uri


def install_command(env_id: str, dataset: str) -> str:
    """The command line that installs ``dataset`` of ``env_id``'s family."""
    env = "" if env_id == "llvm-v0" else f" --env {env_id}"
    return f"python3 -m compiler_gym.bin.datasets{env} install {dataset}"


def require_installed(dataset: Any, env_id: str) -> None:
    """Refuses (409) a benchmark of a dataset that is not installed: loading one would install
    it (downloads, or minutes of building) under a lock that other requests would wait on.
    Generators make each benchmark on demand and install nothing: they pass."""
    if not dataset.installed and not dataset.infinite:
        raise ExplorerError(
            409,
            f"{dataset.name} is not installed on the server; install it with "
            f"`{install_command(env_id, dataset.name)}`, then start again",
        )


def _finite(value: float) -> Optional[float]:
    """JSON has no NaN or infinity: such a reward is sent as null."""
    return value if math.isfinite(value) else None


@dataclass
class Node:
    """A state of a session's tree: the actions from the start state that reach it."""

    id: int
    parent: Optional[int]
    action: Optional[int]
    actions: tuple[int, ...]
    cumulative_reward: float
    done: bool
    state_hash: Optional[str]
    payload: dict[str, Any]
    children: dict[int, int] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        """The number of actions from the start state."""
        return len(self.actions)


class Session:
    """One person's episode tree on one env. Its methods do the env's work and run on worker
    threads, one at a time (the server holds :attr:`lock` around them).

    Each request's work ends by its ``deadline`` (a :func:`time.monotonic` time): the session
    stops between actions (and between chunks of a replay) once past it, having always taken
    the first action asked for, or one chunk of a replay, so that asking again makes progress.
    Going back to a state replays from the deepest checkpoint on its path (a fork of the env,
    kept every ``checkpoint_interval`` actions deep, at most ``max_checkpoints``)."""

    def __init__(
        self,
        session_id: str,
        env: Any,
        reward_space: str,
        max_nodes: int,
        checkpoint_interval: int = CHECKPOINT_INTERVAL,
        max_checkpoints: int = MAX_CHECKPOINTS,
    ):
        self.id = session_id
        self.env = env
        self.reward_space = reward_space
        self.max_nodes = max_nodes
        self.checkpoint_interval = checkpoint_interval
        self.max_checkpoints = max_checkpoints
        self.summary: StateSummary = env.state_summary
        self.nodes: list[Node] = []
        self.latest = 0  # the last state returned: where a step without ``from`` starts
        self.env_at: Optional[int] = None  # the node the env is in (None: unknown)
        # Node id -> a fork of the env in that node's state, least recently used first.
        self.checkpoints: OrderedDict[int, Any] = OrderedDict()
        self.last_used = time.monotonic()
        self.lock = asyncio.Lock()
        self.closed = False
        self.env_seconds = 0.0  # the env's share of the last request: its Server-Timing
        self.deadline = math.inf  # when the current request's work must stop

    def _env(self, call: Callable, *args, **kwargs) -> Any:
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            self.env_seconds += time.perf_counter() - start

    def _begin(self, deadline: float) -> None:
        self.env_seconds = 0.0
        self.deadline = deadline

    def _past_deadline(self) -> bool:
        return time.monotonic() >= self.deadline

    def _payload(self, node: Node, reward: Optional[float], values: Optional[list]) -> dict:
        flags = self.env.action_space.flags
        summary = self.summary
        headline = summary.headline[0]
        payload = {
            "id": node.id,
            "parent": node.parent,
            "action": node.action,
            "action_name": None if node.action is None else flags[node.action],
            "reward": None if reward is None else _finite(reward),
            "cumulative_reward": _finite(node.cumulative_reward),
            "done": node.done,
            "state_hash": node.state_hash,
            headline: None,
            "commandline": self.env.action_space.to_string(node.actions),
            **{key: None for key, _, _ in summary.features},
        }
        if values is not None:
            value = values[len(summary.identity)]
            payload[headline] = _finite(float(value)) if isinstance(value, float) else int(value)
            features = values[len(summary.identity) + 1 :]
            for (key, _, _), feature in zip(summary.features, features, strict=True):
                # JSON takes Python numbers: NumPy scalars become theirs.
                payload[key] = {
                    name: v.item() if isinstance(v, np.generic) else v
                    for name, v in feature.items()
                }
        return payload

    def _add(
        self, parent: Optional[int], action: Optional[int], reward: float, done: bool, values
    ) -> Node:
        if len(self.nodes) >= self.max_nodes:
            raise ExplorerError(409, f"the session's tree is full ({self.max_nodes} states)")
        base = self.nodes[parent] if parent is not None else None
        node = Node(
            id=len(self.nodes),
            parent=parent,
            action=action,
            actions=(base.actions + (action,)) if base else (),
            cumulative_reward=(base.cumulative_reward + reward) if base else 0.0,
            done=done,
            state_hash=(
                None
                if values is None
                else self._env(
                    self.summary.identify, self.env, values[: len(self.summary.identity)]
                )
            ),
            payload={},
        )
        node.payload = self._payload(node, reward if base else None, values)
        self.nodes.append(node)
        if base is not None:
            base.children[action] = node.id
        return node

    def _path(self, node_id: int) -> list[int]:
        """The node ids from the start state to ``node_id``: ``path[d]`` is its ancestor
        ``d`` actions deep."""
        path = []
        at: Optional[int] = node_id
        while at is not None:
            path.append(at)
            at = self.nodes[at].parent
        path.reverse()
        return path

    def _verify(self, node_id: int) -> None:
        """Checks that the env is in the node's state (actions are deterministic; the state's
        hash checks it)."""
        identity = [self._env(self.env.observation.__getitem__, o) for o in self.summary.identity]
        if self._env(self.summary.identify, self.env, identity) != self.nodes[node_id].state_hash:
            raise ExplorerError(500, f"replaying state {node_id} did not reach the same state")

    def _checkpoint(self, node_id: int) -> None:
        """Keeps a fork of the env, which is in the node's state, as a checkpoint."""
        if self.max_checkpoints <= 0:
            return
        if node_id in self.checkpoints:
            self.checkpoints.move_to_end(node_id)
            return
        try:
            fork = self._env(self.env.fork)
        except Exception as e:  # a family that cannot fork: replays from the start instead
            logger.warning("session %s keeps no checkpoints: fork failed: %r", self.id, e)
            self.max_checkpoints = 0
            return
        self.checkpoints[node_id] = fork
        while len(self.checkpoints) > self.max_checkpoints:
            _, evicted = self.checkpoints.popitem(last=False)
            evicted.close()

    def _goto(self, node_id: int) -> bool:
        """Puts the env in a node's state, from whichever is closest of where the env is (when
        the node lies below it), the deepest checkpoint on the node's path, and a reset. The
        actions are replayed a chunk at a time up to each checkpoint depth, where a checkpoint
        is made (a long replay is paid once); past the deadline it stops after a chunk, the env
        left at that chunk's node, and answers False (True once the env is in the state)."""
        if self.env_at == node_id:
            return True
        path = self._path(node_id)
        depth = len(path) - 1
        target = self.nodes[node_id]

        def on_path(node: Node) -> bool:
            return node.depth <= depth and path[node.depth] == node.id

        at = self.nodes[self.env_at] if self.env_at is not None else None
        here = at.depth if at is not None and on_path(at) else -1
        saved = max(
            (self.nodes[c].depth for c in self.checkpoints if on_path(self.nodes[c])),
            default=-1,
        )
        if here >= 0 and here >= saved:
            start = here  # steps forward from where the env is: no fork, no reset
        elif saved > 0:
            start = saved
            fork = self._env(self.checkpoints[path[saved]].fork)
            self.checkpoints.move_to_end(path[saved])
            self.env, old = fork, self.env
            old.close()
        else:
            start = 0
            self._env(self.env.reset)
        self.env_at = None  # until the replay is done
        interval = max(1, self.checkpoint_interval)
        first = True
        while start < depth:
            if not first and self._past_deadline():
                # Checked when its chunk ended: the next request goes on from here.
                self.env_at = path[start]
                return False
            first = False
            stop = min(depth, (start // interval + 1) * interval)
            # With the env's reward space: the next step's reward counts from this state.
            self._env(self.env.multistep, list(target.actions[start:stop]))
            start = stop
            if start < depth:
                self._verify(path[start])
                self._checkpoint(path[start])
        self._verify(node_id)
        self.env_at = node_id
        return True

    def start(
        self, actions: list[int], include_ir: bool, deadline: float = math.inf
    ) -> tuple[list[dict], bool]:
        """Resets the env and takes ``actions``: the start state and one state per action
        taken, and whether it stopped short of the last (see :meth:`step`)."""
        self._begin(deadline)
        self._env(self.env.reset)
        values = self._env(lambda: [self.env.observation[s] for s in self.summary.spaces])
        root = self._add(None, None, 0.0, False, values)
        self.env_at = root.id
        if not actions:
            return [(self._with_ir(root.id) if include_ir else None) or root.payload], False
        states, truncated = self._step(actions, root.id, include_ir)
        return [root.payload] + states, truncated

    def step(
        self,
        actions: list[int],
        from_node: Optional[int],
        include_ir: bool,
        deadline: float = math.inf,
    ) -> tuple[list[dict], bool]:
        """Takes ``actions`` one after the other from ``from_node`` (default: the latest
        state); a state's child by an action taken before is returned again, not recomputed.
        Answers the states taken and whether it stopped short of the last action: past the
        deadline, at the end of the episode, or with the tree full. Refuses (4xx), before any
        env work, a request that can take no action at all."""
        self._begin(deadline)
        return self._step(actions, from_node, include_ir)

    def _step(
        self, actions: list[int], from_node: Optional[int], include_ir: bool
    ) -> tuple[list[dict], bool]:
        node_id = self.latest if from_node is None else from_node
        self._check_node(node_id)
        self._check_first_action(node_id, actions)
        states = []
        truncated = False
        for action in actions:
            node = self.nodes[node_id]
            if node.done:  # the episode ended on the way
                truncated = True
                break
            if action not in node.children:
                # The first action is always taken (a request makes progress); later ones
                # only while there is time and room.
                full = len(self.nodes) >= self.max_nodes
                if full or (states and self._past_deadline()) or not self._goto(node_id):
                    truncated = True
                    break
                self._take(node_id, action)
            node_id = node.children[action]
            states.append(self.nodes[node_id].payload)
        if states:
            self.latest = node_id
            if include_ir:
                # Without the text when reaching the state took past the deadline: the page
                # asks for it with /state.
                states[-1] = self._with_ir(node_id) or states[-1]
        return states, truncated

    def _check_first_action(self, node_id: int, actions: list[int]) -> None:
        """Refuses, with no env work, a request whose first action cannot be taken: from a
        state where the episode ended, or a new state when the tree is full."""
        node = self.nodes[node_id]
        if not actions:
            return
        if node.done:
            raise ExplorerError(400, f"the episode ended at state {node_id}")
        if actions[0] not in node.children and len(self.nodes) >= self.max_nodes:
            raise ExplorerError(409, f"the session's tree is full ({self.max_nodes} states)")

    def _take(self, node_id: int, action: int) -> None:
        """Takes ``action`` in the env, which is in the state of ``node_id``: a new child."""
        self.env_at = None  # until the step is done
        observations, rewards, done, info = self._env(
            self.env.step,
            action,
            observation_spaces=self.summary.spaces,
            reward_spaces=[self.reward_space],
        )
        failed = bool(done and info.get("error_type"))
        child = self._add(
            node_id, action, float(rewards[0]), bool(done), None if failed else observations
        )
        if failed:
            child.payload["error"] = info.get("error_details") or info.get("error_type")
            return
        self.env_at = child.id
        if child.depth % max(1, self.checkpoint_interval) == 0:
            self._checkpoint(child.id)

    def _check_node(self, node_id: int) -> None:
        if not 0 <= node_id < len(self.nodes):
            raise ExplorerError(404, f"session {self.id} has no state {node_id}")

    def _with_ir(self, node_id: int) -> Optional[dict]:
        """The node's payload with its text, or None when reaching it took past the
        deadline."""
        node = self.nodes[node_id]
        key = self.summary.text[0]
        if node.state_hash is None:  # a state the episode ended in with an error
            return {**node.payload, key: None}
        if not self._goto(node_id):
            return None
        text = self._env(self.env.observation.__getitem__, self.env.render_observation)
        return {**node.payload, key: text}

    def state(self, node_id: int, include_ir: bool, deadline: float = math.inf) -> dict:
        """A state of the tree again, with its text (IR, assembly, ...) when asked for; 503
        with ``Retry-After`` when going back to it took past the deadline (asking again goes
        on from where it stopped)."""
        self._begin(deadline)
        self._check_node(node_id)
        if not include_ir:
            return self.nodes[node_id].payload
        payload = self._with_ir(node_id)
        if payload is None:
            raise ExplorerError(
                503,
                f"going back to state {node_id} took longer than a request may; ask again to "
                "go on from where it stopped",
                headers={"Retry-After": "0"},
            )
        return payload

    def close(self) -> None:
        """Closes the env and its checkpoints (twice is fine)."""
        if not self.closed:
            self.closed = True
            self.env.close()
            while self.checkpoints:
                self.checkpoints.popitem()[1].close()


class Sessions:
    """The open sessions: at most ``max_sessions``, each closed after ``timeout`` seconds
    unused. Used from the event loop only; env work runs on worker threads."""

    def __init__(self, max_sessions: int, timeout: float):
        self.max_sessions = max_sessions
        self.timeout = timeout
        self._sessions: dict[str, Session] = {}
        self._reserved = 0

    def __len__(self) -> int:
        return len(self._sessions)

    def reserve(self) -> None:
        """Holds a place for a session being made; raises 429 when every place is taken by
        a session in use."""
        if len(self._sessions) + self._reserved >= self.max_sessions:
            raise ExplorerError(
                429,
                f"{self.max_sessions} sessions are open (the most this server keeps); "
                "stop one or wait for one to time out",
            )
        self._reserved += 1

    def add(self, session: Session) -> None:
        """Registers a session made in a reserved place."""
        self._reserved -= 1
        self._sessions[session.id] = session

    def release(self) -> None:
        """Gives back a reserved place whose session could not be made."""
        self._reserved -= 1

    def get(self, session_id: str) -> Session:
        """An open session, marked as used now; 404 for an unknown, stopped or expired one."""
        session = self._sessions.get(session_id)
        if session is not None and time.monotonic() - session.last_used > self.timeout:
            session = None  # expired: the reaper closes it, whether or not it has run yet
        if session is None or session.closed:
            raise ExplorerError(
                404, f"no session {session_id!r} (never started, stopped or expired)"
            )
        session.last_used = time.monotonic()
        return session

    def pop(self, session_id: str) -> Session:
        """Removes an open session (the caller closes it)."""
        session = self.get(session_id)
        del self._sessions[session_id]
        return session

    def expired(self) -> list[Session]:
        """Removes and returns the sessions unused for longer than the timeout (not those
        in use now)."""
        now = time.monotonic()
        old = [
            s
            for s in self._sessions.values()
            if now - s.last_used > self.timeout and not s.lock.locked()
        ]
        for s in old:
            del self._sessions[s.id]
        return old

    def all(self) -> list[Session]:
        """Removes and returns every session."""
        sessions = list(self._sessions.values())
        self._sessions.clear()
        return sessions


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


def describe_env(env_id: str, max_benchmarks: int) -> dict:
    """What ``/api/v4/describe`` answers: actions (flag: index), observation and reward spaces,
    datasets with (up to ``max_benchmarks`` of) their benchmarks, feature names. A dataset that
    is not installed is listed without benchmarks: listing them would install it (a download or
    an extraction of minutes) before the server could answer; its benchmarks still start by URI.
    No episode is started: everything here is the env's spec or its family's tables."""
    with compiler_gym.make(env_id) as env:
        if env.state_summary is None:
            raise ExplorerError(400, f"{env_id}'s family names no state_summary to show")
        datasets = []
        for dataset in env.datasets:
            installed = dataset.installed
            uris = []
            if installed:
                uris = [str(u) for u in islice(dataset.benchmark_uris(), max_benchmarks)]
            unknown_size = dataset.infinite or not installed
            datasets.append(
                {
                    "name": str(dataset.name),
                    "description": dataset.description,
                    "installed": installed,
                    "size": None if unknown_size else dataset.size,
                    "benchmarks": uris,
                    "truncated": unknown_size or dataset.size > len(uris),
                }
            )
        summary = env.state_summary
        names = summary.feature_names()
        return {
            "env": env_id,
            "actions": {flag: i for i, flag in enumerate(env.action_space.flags)},
            "observations": list(env.observation.spaces),
            "rewards": list(env.reward.spaces),
            "default_benchmark": str(env.benchmark.uri),
            "default_reward": env.gymnasium_reward,
            "datasets": datasets,
            # What the page shows of a state: the keys of a state's headline, text, features.
            "state": {
                "headline": {"key": summary.headline[0], "label": summary.headline[1]},
                "text": {"key": summary.text[0], "label": summary.text[1]},
                "features": [{"key": k, "title": t} for k, t, _ in summary.features],
            },
            # Per feature, the names of its keys in order (a database's feature vectors follow
            # them); null where they vary with the state.
            "features": {k: names.get(o) for k, _, o in summary.features},
        }


LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})


@dataclass
class ExplorerConfig:
    """The server's settings (the command line's options)."""

    env: str = "llvm-v0"
    db: Optional[Path] = None
    max_sessions: int = 16
    session_timeout: float = 300.0
    max_nodes: int = 5000
    # 64 LLVM actions are about a second of work; a page sends one at a time.
    max_actions_per_request: int = 64
    # A request's env work stops between actions past this; the answer says "truncated".
    max_request_seconds: float = 5.0
    # How long a request waits for another one on its session (a step holds it for at most
    # max_request_seconds and one more action) before a 503.
    max_lock_wait_seconds: float = 10.0
    max_request_bytes: int = 16384
    max_benchmarks_per_dataset: int = 2000
    # The names a request's Host may give; None: any (a server bound to every address).
    allowed_hosts: Optional[frozenset[str]] = LOOPBACK_NAMES
    checkpoint_interval: int = CHECKPOINT_INTERVAL
    max_checkpoints: int = MAX_CHECKPOINTS


def _json_error(status: int, message: str, headers: Optional[dict[str, str]] = None):
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers)


def _host_name(host: str) -> str:
    """A Host header's name without its port: ``[::1]:5000`` is ``[::1]``."""
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.split(":", 1)[0]


class RequestGuard:
    """ASGI middleware that refuses, with a JSON error, a request whose target (path and query)
    is longer than ``max_bytes`` (414), whose Host is not one of ``allowed_hosts`` or is given
    twice (400: a page elsewhere that made its name point here, DNS rebinding, must not read
    what the server answers), or that has a body (413: this API's endpoints take none). A body
    is refused unread, however large (uvicorn discards what arrives after the answer, until
    :class:`_ConnectionBounds` closes a connection that sends too much)."""

    def __init__(self, app: Callable, max_bytes: int, allowed_hosts: Optional[frozenset[str]]):
        self.app = app
        self.max_bytes = max_bytes
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope, receive, send):
        """Checks the request, then passes it on."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        target = len(scope.get("raw_path") or scope["path"].encode()) + len(
            scope.get("query_string", b"")
        )
        if target > self.max_bytes:
            message = f"request target of {target} bytes; at most {self.max_bytes}"
            return await _json_error(414, message)(scope, receive, send)
        raw = scope.get("headers") or []
        headers = dict(raw)
        hosts = [v for k, v in raw if k == b"host"]
        if len(hosts) > 1:  # which one a proxy or the check would read is anyone's guess
            return await _json_error(400, "more than one Host header")(scope, receive, send)
        if self.allowed_hosts is not None and hosts:
            name = _host_name(hosts[0].decode("latin-1")).lower()
            if name not in self.allowed_hosts:
                message = f"Host {name!r} is not this server's; use {min(self.allowed_hosts)}"
                return await _json_error(400, message)(scope, receive, send)
        length = headers.get(b"content-length")
        # HTTP/1.1 announces a body with one of these two headers.
        if (length is not None and length.strip() != b"0") or b"transfer-encoding" in headers:
            message = f"{scope.get('method', 'GET')} {scope['path']} takes no request body"
            return await _json_error(413, message)(scope, receive, send)
        return await self.app(scope, receive, send)


class _ConnectionBounds:
    """What uvicorn's HTTP protocols lack, mixed into them by :func:`bounded_http_protocol`.

    uvicorn arms no timer on a new connection, and disarms its keep-alive timer on every byte
    received: a client that sends half a request, or a byte a second, holds its connection
    (and a file descriptor) for ever, and 150 of them used up a 128-descriptor limit. So:

    - a connection must send its request's headers within ``header_timeout`` seconds of
      connecting or of its previous response, however it trickles them (then 408, or a plain
      close when it sent nothing);
    - at most ``max_waiting`` connections wait for their headers; a new one closes the oldest
      rather than being refused, so a flood of idle connections costs its sender its oldest
      ones, not other clients their service (a real client sends its request at once);
    - at most ``max_header_bytes`` arrive before a request's headers end (431): httptools
      buffers a header whole, however long;
    - a client that reads nothing of its response for ``header_timeout`` seconds is closed,
      or it would hold its connection for ever.

    ``waiting`` is the made class's own (one per server): connection -> its timer, oldest
    first. Everything here runs on the event loop's thread."""

    header_timeout: float = 10.0
    max_waiting: int = 1024
    max_header_bytes: int = 65536
    waiting: OrderedDict

    def connection_made(self, transport) -> None:
        """Starts the connection's clock for its first request's headers."""
        self._received = 0  # bytes since the last request's headers ended
        self._stalled: Optional[asyncio.TimerHandle] = None
        super().connection_made(transport)
        self._await_headers()

    def connection_lost(self, exc) -> None:
        """Forgets the connection's timers."""
        self._headers_done()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Counts what arrives before the headers end; past ``max_header_bytes``, 431."""
        self._received += len(data)
        if self._received > self.max_header_bytes:
            self._refuse(431, "Request Header Fields Too Large", "request headers too long")
            return
        super().data_received(data)

    def on_response_complete(self) -> None:
        """After a response, the next request's headers are on the clock (unless they have
        come already, pipelined)."""
        super().on_response_complete()
        if not self.transport.is_closing() and self._between_requests():
            self._await_headers()

    def pause_writing(self) -> None:
        """The client is not reading: it has ``header_timeout`` seconds to start again."""
        super().pause_writing()
        if self._stalled is None:
            # abort(), not close(), which would wait to send what the client does not read.
            self._stalled = self.loop.call_later(self.header_timeout, self.transport.abort)

    def resume_writing(self) -> None:
        """The client reads again."""
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().resume_writing()

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _await_headers(self) -> None:
        waiting = self.waiting
        if self in waiting:
            return
        while len(waiting) >= self.max_waiting:
            oldest, timer = waiting.popitem(last=False)
            timer.cancel()
            oldest.transport.close()
        waiting[self] = self.loop.call_later(self.header_timeout, self._headers_too_late)

    def _request_begun(self) -> bool:
        """Whether part of the next request has come (the protocol's parser knows)."""
        return False

    def _headers_done(self) -> None:
        self._received = 0
        timer = self.waiting.pop(self, None)
        if timer is not None:
            timer.cancel()

    def _headers_too_late(self) -> None:
        self.waiting.pop(self, None)
        if self._received or self._request_begun():
            self._refuse(408, "Request Timeout", "request headers not sent in time")
        else:
            self.transport.close()

    def _refuse(self, status: int, reason: str, message: str) -> None:
        """Answers ``status`` when no response is under way on the connection, and closes it."""
        if self._between_requests() and not self.transport.is_closing():
            body = json.dumps({"error": message, "status": status}).encode()
            self.transport.write(
                f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
                + body
            )
        self._headers_done()
        self.transport.close()


def bounded_http_protocol(header_timeout: float, max_waiting: int, max_header_bytes: int) -> type:
    """uvicorn's HTTP protocol class (httptools', or h11's without it) with
    :class:`_ConnectionBounds`, for ``uvicorn.Config(http=...)``."""
    bounds = {
        "header_timeout": header_timeout,
        "max_waiting": max_waiting,
        "max_header_bytes": max_header_bytes,
        "waiting": OrderedDict(),
    }
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # no httptools: h11's, slower
        import h11
        from uvicorn.protocols.http.h11_impl import H11Protocol

        class BoundedH11Protocol(_ConnectionBounds, H11Protocol):
            def handle_events(self) -> None:
                super().handle_events()
                if self.conn.their_state is not h11.IDLE:  # a request's headers have come
                    self._headers_done()

            def _between_requests(self) -> bool:
                return super()._between_requests() and self.conn.their_state is h11.IDLE

            def _request_begun(self) -> bool:
                return bool(self.conn.trailing_data[0])

        return type("BoundedH11Protocol", (BoundedH11Protocol,), bounds)

    class BoundedHttpToolsProtocol(_ConnectionBounds, HttpToolsProtocol):
        _begun = False

        def on_message_begin(self) -> None:
            self._begun = True
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._begun = False
            self._headers_done()
            super().on_headers_complete()

        def _request_begun(self) -> bool:
            return self._begun

    return type("BoundedHttpToolsProtocol", (BoundedHttpToolsProtocol,), bounds)


# File descriptors kept for the process's own files (the engine, the database, logs): the
# rest are its connections'.
FD_RESERVE = 64


def connection_limits(fd_limit: int) -> tuple[int, int]:
    """For a process that may open ``fd_limit`` files: how many connections may wait for their
    request's headers, and uvicorn's ``limit_concurrency`` (connections and requests in all,
    past which requests answer 503). Together they stay within the descriptors left."""
    budget = max(48, fd_limit - FD_RESERVE)
    return max(16, min(1024, budget // 3)), max(32, min(4096, budget * 2 // 3))


def raise_open_files_limit() -> int:
    """Raises the soft limit on open files to the hard one (each connection is a file);
    returns the limit in force."""
    try:
        import resource
    except ImportError:  # not Unix
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft if soft != resource.RLIM_INFINITY else 1 << 20
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target


def create_app(config: ExplorerConfig):
    """The explorer's ASGI app (FastAPI): the API, the page, and the sessions' reaper."""
    from fastapi import FastAPI, Query
    from fastapi.exceptions import RequestValidationError
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.responses import FileResponse, JSONResponse
    from starlette.staticfiles import StaticFiles

    sessions = Sessions(config.max_sessions, config.session_timeout)
    info = describe_env(config.env, config.max_benchmarks_per_dataset)
    flags = list(info["actions"])
    missing = [o for o in LOGGED_SPACES if o not in info["observations"]]
    if config.db and missing:
        raise ExplorerError(
            400, f"the database holds LLVM states; {config.env} has no {', '.join(missing)}"
        )
    database = ExploredDatabase(config.db, flags, info["features"]) if config.db else None
    info["database"] = str(config.db) if config.db else None  # the page asks for it when set
    info["limits"] = {
        "max_actions_per_request": config.max_actions_per_request,
        "max_request_seconds": config.max_request_seconds,
    }
    # The datasets a benchmark may come from, by canonical name: the allow-list, and what
    # makes the benchmark a session's env is then made with.
    with compiler_gym.make(config.env) as catalog_env:
        catalog = {BenchmarkUri.from_string(d.name).dataset_uri: d for d in catalog_env.datasets}

    async def close_sessions(closing: list[Session]) -> None:
        for session in closing:
            await run_in_threadpool(session.close)

    async def reap() -> None:
        interval = max(0.1, min(5.0, config.session_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            await close_sessions(sessions.expired())

    @asynccontextmanager
    async def lifespan(app):
        reaper = asyncio.create_task(reap())
        try:
            yield
        finally:
            reaper.cancel()
            await close_sessions(sessions.all())
            if database is not None:
                database.close()

    app = FastAPI(title="compiler_gym explorer", lifespan=lifespan, docs_url=None, redoc_url=None)

    @app.exception_handler(ExplorerError)
    async def explorer_error(request, exc: ExplorerError):
        return _json_error(exc.status, exc.message, exc.headers)

    @app.exception_handler(HTTPException)
    async def http_error(request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such endpoint or file: {request.url.path}"
        return _json_error(exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request, exc: RequestValidationError):
        problems = [
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()
        ]
        return _json_error(400, "; ".join(problems))

    @app.exception_handler(Exception)
    async def internal_error(request, exc: Exception):
        # The type only: a message may quote what the env read (a file's line). The log,
        # which only the server's owner reads, has the rest.
        logger.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _json_error(500, f"internal error ({type(exc).__name__}); see the server's log")

    def with_timing(content: dict, session: Session):
        # The env's share of the request, for the page's developer tools and for
        # benchmarks/explorer_latency.py, which subtracts it to get the server's own time.
        ms = session.env_seconds * 1e3
        return JSONResponse(content, headers={"Server-Timing": f'env;dur={ms:.4f};desc="env"'})

    @asynccontextmanager
    async def holding(session: Session):
        """Holds the session's lock, waiting for it at most ``max_lock_wait_seconds``."""
        try:
            await asyncio.wait_for(session.lock.acquire(), config.max_lock_wait_seconds)
        except asyncio.TimeoutError:
            raise ExplorerError(
                503,
                f"session {session.id} is busy with another request; ask again",
                headers={"Retry-After": "1"},
            ) from None
        try:
            if session.closed:
                raise ExplorerError(404, f"session {session.id!r} was closed")
            yield
        finally:
            session.lock.release()

    def deadline() -> float:
        return time.monotonic() + config.max_request_seconds

    @app.get("/api/v4/describe")
    async def describe():
        return JSONResponse(info)

    def cannot_use(uri: BenchmarkUri, e: BaseException) -> ExplorerError:
        # Never the exception's message: loading a program may quote its lines (a parse
        # error), so a client is told the type, the log the rest.
        logger.warning("benchmark %s cannot be used: %r", uri, e)
        return ExplorerError(
            400, f"benchmark {uri} cannot be used ({type(e).__name__}); see the server's log"
        )

    def open_session(reward: str, uri: BenchmarkUri, actions: list[int], ir: bool, until: float):
        dataset = catalog[uri.dataset_uri]
        require_installed(dataset, config.env)  # again: it may have been uninstalled since
        try:
            # The parsed URI, not the client's text: what was checked is what is used.
            benchmark = dataset.benchmark_from_parsed_uri(uri)
        except LookupError:
            raise ExplorerError(404, f"Benchmark not found: {uri}") from None
        except (BenchmarkInitError, OSError, ValueError) as e:
            raise cannot_use(uri, e) from e
        try:
            env = compiler_gym.make(config.env, benchmark=benchmark, reward_space=reward)
        except (BenchmarkInitError, OSError, ValueError) as e:
            raise cannot_use(uri, e) from e
        session = Session(
            secrets.token_hex(8),
            env,
            reward,
            config.max_nodes,
            config.checkpoint_interval,
            config.max_checkpoints,
        )
        try:
            states, truncated = session.start(actions, ir, until)
        except EnvironmentNotSupported as e:  # a CUDA benchmark without a GPU: the machine's
            session.close()
            raise ExplorerError(400, f"benchmark {uri} cannot be used: {e}") from e
        except (BenchmarkInitError, OSError, ValueError) as e:
            session.close()
            raise cannot_use(uri, e) from e
        except BaseException:
            session.close()
            raise
        return session, states, truncated

    @app.get("/api/v4/start/{reward}/{actions}/{benchmark:path}")
    async def start(reward: str, actions: str, benchmark: str, ir: bool = False):
        until = deadline()
        if reward not in info["rewards"]:
            raise ExplorerError(
                400, f"unknown reward space {reward!r}; one of {', '.join(info['rewards'])}"
            )
        parsed = parse_actions(actions, flags, config.max_actions_per_request)
        uri = parse_benchmark_uri(unquote(benchmark), catalog)
        require_installed(catalog[uri.dataset_uri], config.env)
        await close_sessions(sessions.expired())  # not to refuse a place the reaper would free
        sessions.reserve()
        try:
            session, states, truncated = await run_in_threadpool(
                open_session, reward, uri, parsed, ir, until
            )
        except BaseException:
            sessions.release()
            raise
        sessions.add(session)
        body = {"session_id": session.id, "states": states, "truncated": truncated}
        return with_timing(body, session)

    @app.get("/api/v4/step/{session_id}/{actions}")
    async def step(
        session_id: str,
        actions: str,
        from_node: Optional[int] = Query(None, alias="from"),
        ir: bool = False,
    ):
        session = sessions.get(session_id)
        parsed = parse_actions(actions, flags, config.max_actions_per_request)
        if not parsed:
            raise ExplorerError(400, "no action to take")
        async with holding(session):
            # The deadline counts from when the session is ours: the wait is bounded apart.
            states, truncated = await run_in_threadpool(
                session.step, parsed, from_node, ir, deadline()
            )
        session.last_used = time.monotonic()
        body = {"session_id": session.id, "states": states, "truncated": truncated}
        return with_timing(body, session)

    @app.get("/api/v4/state/{session_id}/{node}")
    async def state(session_id: str, node: int, ir: bool = False):
        session = sessions.get(session_id)
        async with holding(session):
            payload = await run_in_threadpool(session.state, node, ir, deadline())
        return with_timing({"session_id": session.id, "state": payload}, session)

    @app.get("/api/v4/stop/{session_id}")
    async def stop(session_id: str):
        session = sessions.get(session_id)
        async with holding(session):
            sessions.pop(session_id)
            await run_in_threadpool(session.close)
        return JSONResponse({"session_id": session_id, "stopped": True})

    def need_database() -> ExploredDatabase:
        if database is None:
            raise ExplorerError(404, "no database: start the explorer with --db PATH")
        return database

    @app.get("/api/v4/db")
    async def db_summary():
        return JSONResponse(await run_in_threadpool(need_database().summary))

    @app.get("/api/v4/db/tree")
    async def db_tree(benchmark: str, limit: int = Query(2000, ge=1, le=100000)):
        return JSONResponse(await run_in_threadpool(need_database().tree, benchmark, limit))

    @app.get("/api/v4/db/state/{state_id}")
    async def db_state(state_id: str):
        return JSONResponse(await run_in_threadpool(need_database().state, state_id))

    @app.get("/")
    async def index():
        return FileResponse(STATIC_DIR / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # No endpoint takes a body: every request that sends one is refused unread.
    return RequestGuard(app, config.max_request_bytes, config.allowed_hosts)


def main(argv=None) -> int:
    """Runs the server until interrupted; returns 2 on bad options or missing packages."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000; 0: any free)")
    parser.add_argument("--env", default="llvm-v0", help="an environment id (default llvm-v0)")
    parser.add_argument("--db", type=Path, help="a database of SqliteWriter to show")
    parser.add_argument("--max-sessions", type=int, default=16, help="open sessions at most")
    parser.add_argument(
        "--session-timeout", type=float, default=300, help="seconds before an unused session ends"
    )
    parser.add_argument(
        "--max-request-bytes", type=int, default=16384, help="longest request target or body"
    )
    parser.add_argument(
        "--max-actions-per-request", type=int, default=64, help="actions in one request (64)"
    )
    parser.add_argument(
        "--max-request-seconds",
        type=float,
        default=5.0,
        help="env work of one request before it answers what it did, truncated (5)",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        help="seconds a connection has to send its request's headers, or to read (10)",
    )
    parser.add_argument("--access-log", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    bad = [
        name
        for name, value in [
            ("--max-actions-per-request", args.max_actions_per_request),
            ("--header-timeout", args.header_timeout),
        ]
        if not value > 0
    ]
    if bad or not args.max_request_seconds >= 0:
        print(f"error: {', '.join(bad) or '--max-request-seconds'} must be > 0", file=sys.stderr)
        return 2
    try:
        import fastapi  # noqa: F401  (create_app's)
        import uvicorn
    except ModuleNotFoundError as e:
        print(
            f"error: the explorer needs {e.name}: pip install 'compiler_gym[explorer]'",
            file=sys.stderr,
        )
        return 2
    if args.db is not None and not args.db.is_file():
        print(f"error: no database {args.db}", file=sys.stderr)
        return 2
    max_waiting, limit_concurrency = connection_limits(raise_open_files_limit())
    # The socket is bound here so that --port 0 can say which port it got.
    # IPPROTO_TCP explicitly: asyncio turns Nagle's algorithm off only on sockets that say
    # so, and with it on, a response's second write waits for the client's delayed ACK (40 ms).
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        print(f"error: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    # Listening before the address is printed: a client that reads it can connect at once
    # (its connection waits in the backlog until the server has started).
    sock.listen(2048)
    host, port = sock.getsockname()[:2]
    address = ipaddress.ip_address(host)
    allowed = LOOPBACK_NAMES
    if not address.is_loopback:
        print(
            f"warning: listening on {host}, beyond this machine; the explorer has no "
            "authentication",
            file=sys.stderr,
        )
        # Bound to every address, any name may reach it; else its own address too.
        bracketed = f"[{host}]" if address.version == 6 else host
        allowed = None if address.is_unspecified else LOOPBACK_NAMES | {bracketed}
    config = ExplorerConfig(
        env=args.env,
        db=args.db,
        max_sessions=args.max_sessions,
        session_timeout=args.session_timeout,
        max_actions_per_request=args.max_actions_per_request,
        max_request_seconds=args.max_request_seconds,
        max_request_bytes=args.max_request_bytes,
        allowed_hosts=allowed,
    )
    try:
        app = create_app(config)
    except (LookupError, sqlite3.Error, ExplorerError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    max_header_bytes = max(65536, 4 * args.max_request_bytes)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            http=bounded_http_protocol(args.header_timeout, max_waiting, max_header_bytes),
            ws="none",  # no endpoint is a websocket: no upgrade to another protocol's parser
            # uvicorn logs each request at "info": a level above it would drop them.
            log_level="info" if args.access_log else "warning",
            access_log=args.access_log,
            # Past this the HTTP layer refuses a request itself, without the JSON error.
            h11_max_incomplete_event_size=max_header_bytes,
            # An idle kept-alive connection holds a descriptor: a page reuses its own within
            # seconds, and opening a new one costs a millisecond on loopback.
            timeout_keep_alive=5,
            # Past this many connections and requests in all, requests answer 503 at once
            # rather than each connection taking a descriptor until none is left.
            limit_concurrency=limit_concurrency,
        )
    )
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    print(f"compiler_gym explorer: {url}", flush=True)
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
