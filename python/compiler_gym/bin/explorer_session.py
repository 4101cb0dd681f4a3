"""The explorer's sessions: one person's episode tree on one env each, the bounds on a
request's work (actions, time, replays from checkpoints), and the parsing of what a request
names (actions, benchmarks). Used by :mod:`compiler_gym.bin.explorer`."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import unquote

import numpy as np

from compiler_gym.datasets import BenchmarkUri
from compiler_gym.envs.state_summary import StateSummary

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
