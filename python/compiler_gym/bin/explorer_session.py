"""The explorer's sessions: one person's episode tree on one env each, the bounds on a
request's work (actions, time, replays from checkpoints), and what a session answers of a
state (its diff against its parent, every action's reward from it, a link that shares it).
What a request names (actions, benchmarks, a pasted command line) is parsed by
:mod:`compiler_gym.bin.explorer_requests`. Used by :mod:`compiler_gym.bin.explorer`."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from compiler_gym.bin.explorer_requests import (
    ExplorerError,
    _finite,
    share_fragment,
    text_diff,
)
from compiler_gym.envs.state_summary import StateSummary

logger = logging.getLogger(__name__)

# A session keeps a fork of its env at states this many actions deep, at most this many (least
# recently used first out): going back to a state replays at most CHECKPOINT_INTERVAL actions
# while its checkpoint is kept. A fork of an LLVM state is a copy of its module (about 10 ms for
# crc32, less than replaying one action), and 8 bound a session's memory to 8 modules more.
CHECKPOINT_INTERVAL = 32
MAX_CHECKPOINTS = 8

# The texts (IR, assembly) a session keeps of the states it read last, for diffs against a
# parent that was shown just before: at most this many, and this many bytes in all.
MAX_CACHED_TEXTS = 16
MAX_CACHED_TEXT_BYTES = 32 << 20

# The client of requests that name none (no cookie): they share one client's share of the
# sessions, so that requests that drop their cookie (a script, or another site's <img>) cannot
# take more places by it.
ANONYMOUS = ""


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
        client: str = ANONYMOUS,
    ):
        self.id = session_id
        self.client = client  # whose share of the places it takes (see Sessions)
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
        # What a state's link names: the benchmark as the env parsed it.
        self.benchmark = str(env.benchmark.uri) if getattr(env, "benchmark", None) else ""
        # Node id -> its text, read last at the end (MAX_CACHED_TEXTS, MAX_CACHED_TEXT_BYTES).
        self.texts: OrderedDict[int, str] = OrderedDict()
        self._text_bytes = 0
        # Node id -> every action's reward from it (try_actions), once asked for.
        self.rankings: dict[int, list[Optional[float]]] = {}

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
            "share": share_fragment(
                self.benchmark, self.reward_space, [flags[a] for a in node.actions]
            ),
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
        self._keep_text(node_id, text)
        return {**node.payload, key: text}

    def _keep_text(self, node_id: int, text: Any) -> None:
        if not isinstance(text, str) or len(text) > MAX_CACHED_TEXT_BYTES:
            return
        old = self.texts.pop(node_id, None)
        self._text_bytes += len(text) - (len(old) if old is not None else 0)
        self.texts[node_id] = text
        while len(self.texts) > MAX_CACHED_TEXTS or self._text_bytes > MAX_CACHED_TEXT_BYTES:
            self._text_bytes -= len(self.texts.popitem(last=False)[1])

    def _text(self, node_id: int) -> Optional[str]:
        """The node's text, kept or read (None when reaching it took past the deadline)."""
        if node_id in self.texts:
            self.texts.move_to_end(node_id)
            return self.texts[node_id]
        payload = self._with_ir(node_id)
        return None if payload is None else payload[self.summary.text[0]]

    def _retry(self, node_id: int) -> ExplorerError:
        return ExplorerError(
            503,
            f"going back to state {node_id} took longer than a request may; ask again to "
            "go on from where it stopped",
            headers={"Retry-After": "0"},
        )

    def diff(self, node_id: int, context: int, deadline: float = math.inf) -> dict:
        """The unified diff of a state's text (IR, assembly, ...) against its parent's:
        ``{"node", "parent", "action_name", "diff", "added", "removed"}``. 400 for the start
        state and for a state whose episode ended in an error (it has no text), 503 with
        ``Retry-After`` when going back to the states took past the deadline, 413 for texts
        too long to diff (:data:`MAX_DIFF_LINES`)."""
        self._begin(deadline)
        self._check_node(node_id)
        node = self.nodes[node_id]
        if node.parent is None:
            raise ExplorerError(400, f"state {node_id} is the start state: it has no parent")
        label = self.summary.text[1]
        if node.state_hash is None:
            raise ExplorerError(
                400, f"state {node_id} ended the episode in an error: it has no {label}"
            )
        # The parent first: the env then steps forward to the node, replaying one action.
        before = self._text(node.parent)
        if before is None:
            raise self._retry(node.parent)
        after = self._text(node_id)
        if after is None:
            raise self._retry(node_id)
        flag = self.env.action_space.flags[node.action]
        result = text_diff(
            before, after, f"state {node.parent}", f"state {node_id} ({flag})", context
        )
        return {"node": node_id, "parent": node.parent, "action_name": flag, **result}

    def rank(self, node_id: int, deadline: float = math.inf) -> dict:
        """Every action's reward from a state, best first, from one ``env.try_actions`` over
        all the actions (the engine tries them in parallel, the env's state untouched):
        ``{"node", "reward_space", "ranking": [{"action", "action_name", "reward", "child"}]}``
        where ``reward`` is None for an action that ended the episode in an error (last) and
        ``child`` is the state the action leads to when it is in the tree. 400 from a state
        where the episode ended, 503 with ``Retry-After`` when going back to it took past the
        deadline; the try itself is one call, not stopped by the deadline."""
        self._begin(deadline)
        self._check_node(node_id)
        node = self.nodes[node_id]
        if node.done:
            raise ExplorerError(400, f"the episode ended at state {node_id}")
        rewards = self.rankings.get(node_id)
        if rewards is None:
            if not self._goto(node_id):
                raise self._retry(node_id)
            flags = self.env.action_space.flags
            try:
                values = self._env(
                    self.env.try_actions, list(range(len(flags))), reward_space=self.reward_space
                )
            except (TypeError, ValueError) as e:
                raise ExplorerError(400, f"cannot rank the actions: {e}") from None
            rewards = [_finite(float(v)) for v in values]
            self.rankings[node_id] = rewards
        flags = self.env.action_space.flags
        order = sorted(
            range(len(rewards)),
            key=lambda a: (rewards[a] is None, -(rewards[a] or 0.0), a),
        )
        ranking = [
            {
                "action": a,
                "action_name": flags[a],
                "reward": rewards[a],
                "child": node.children.get(a),
            }
            for a in order
        ]
        return {"node": node_id, "reward_space": self.reward_space, "ranking": ranking}

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
            raise self._retry(node_id)
        return payload

    def close(self) -> None:
        """Closes the env and its checkpoints (twice is fine)."""
        if not self.closed:
            self.closed = True
            self.env.close()
            while self.checkpoints:
                self.checkpoints.popitem()[1].close()


class Sessions:
    """The open sessions: at most ``max_sessions``, at most ``max_per_client`` of them for one
    client (a cookie; :data:`ANONYMOUS` for every request without one), each closed after
    ``timeout`` seconds unused. When a start finds no place (its client's share, or every
    place, taken), the session unused longest of that client's (or of all) gives its place up,
    if it has been unused for ``reclaim_after`` seconds: an idle page does not keep another
    out for the whole timeout. Used from the event loop only; env work runs on worker
    threads."""

    def __init__(
        self,
        max_sessions: int,
        timeout: float,
        max_per_client: Optional[int] = None,
        reclaim_after: float = math.inf,
    ):
        self.max_sessions = max_sessions
        self.timeout = timeout
        self.max_per_client = max_sessions if max_per_client is None else max_per_client
        self.reclaim_after = reclaim_after
        self._sessions: dict[str, Session] = {}
        self._reserved: Counter[str] = Counter()
        # Sessions closed to make room, so that their next request says so (the newest 1024).
        self._reclaimed: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def held(self, client: str) -> int:
        """The places ``client``'s sessions take, open or being made."""
        return self._reserved[client] + sum(s.client == client for s in self._sessions.values())

    def reserve(self, client: str = ANONYMOUS) -> list[Session]:
        """Holds a place for a session of ``client`` being made. Answers the sessions that gave
        their place up for it (removed; the caller closes them); raises 429 when no place can
        be had."""
        reclaimed = []
        if math.isinf(self.reclaim_after):
            wait = "stop one"
        else:
            wait = (
                f"stop one, or wait until one is unused for {self.reclaim_after:g} s "
                "(--reclaim-after)"
            )
        if self.held(client) >= self.max_per_client:
            victim = self._idle_longest(client)
            if victim is None:
                raise ExplorerError(
                    429,
                    f"this client has {self.held(client)} sessions open, the most one client "
                    f"may (--max-sessions-per-client {self.max_per_client}); {wait}",
                )
            reclaimed.append(victim)
        elif len(self._sessions) + sum(self._reserved.values()) >= self.max_sessions:
            victim = self._idle_longest(None)
            if victim is None:
                raise ExplorerError(
                    429,
                    f"{self.max_sessions} sessions are open, the most this server keeps "
                    f"(--max-sessions); {wait}",
                )
            reclaimed.append(victim)
        for session in reclaimed:
            logger.info("session %s gave its place up to a new one", session.id)
            del self._sessions[session.id]
            self._reclaimed[session.id] = time.monotonic() - session.last_used
            while len(self._reclaimed) > 1024:
                self._reclaimed.popitem(last=False)
        self._reserved[client] += 1
        return reclaimed

    def _idle_longest(self, client: Optional[str]) -> Optional[Session]:
        """The session (of ``client``, or of any when None) unused longest, when it has been
        unused for ``reclaim_after`` seconds and no request is on it."""
        now = time.monotonic()
        idle = [
            s
            for s in self._sessions.values()
            if (client is None or s.client == client)
            and now - s.last_used >= self.reclaim_after
            and not s.lock.locked()
        ]
        return min(idle, key=lambda s: s.last_used, default=None)

    def add(self, session: Session) -> None:
        """Registers a session made in a place reserved for its client."""
        self.release(session.client)
        self._sessions[session.id] = session

    def release(self, client: str = ANONYMOUS) -> None:
        """Gives back a place reserved for ``client`` whose session could not be made."""
        self._reserved[client] -= 1
        if self._reserved[client] <= 0:
            del self._reserved[client]  # one entry per client ever seen would only grow

    def get(self, session_id: str) -> Session:
        """An open session, marked as used now; 404 for an unknown, stopped, expired or
        reclaimed one."""
        session = self._sessions.get(session_id)
        if session is not None and time.monotonic() - session.last_used > self.timeout:
            session = None  # expired: the reaper closes it, whether or not it has run yet
        if session is None and session_id in self._reclaimed:
            raise ExplorerError(
                404,
                f"session {session_id!r} was closed after "
                f"{self._reclaimed[session_id]:.0f} s unused, to make room for another; "
                "start again",
            )
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


@dataclass
class Job:
    """Work of a request that outlasted it (a start, a ranking): its task, whose result is the
    request's answer, and what it is for."""

    id: str
    kind: str
    task: asyncio.Task
    started: float
    key: Any = None  # what the work is on: asked again while it runs, the same job
    finished: Optional[float] = None

    def answer_running(self) -> dict:
        """What a request for the job answers while it runs (with status 202)."""
        return {
            "job": self.id,
            "kind": self.kind,
            "status": "running",
            "elapsed_seconds": round(time.monotonic() - self.started, 3),
            "poll": f"/api/v4/job/{self.id}",
        }


class Jobs:
    """The jobs whose request answered before they finished (202), until their answer is
    fetched (``GET /api/v4/job/ID``), or ``keep_seconds`` after they finished unfetched, or
    once ``max_finished`` newer ones have finished unfetched (an answer may hold a module's IR).
    Used from the event loop only. The jobs that run are bounded by what makes them: a start
    holds a session's place, and a session runs one ranking at a time."""

    def __init__(self, keep_seconds: float, max_finished: int = 64):
        self.keep_seconds = keep_seconds
        self.max_finished = max_finished
        self._jobs: dict[str, Job] = {}

    def __len__(self) -> int:
        return len(self._jobs)

    def add(self, job_id: str, kind: str, task: asyncio.Task, key: Any = None) -> Job:
        """Registers the job of ``task``."""
        job = Job(job_id, kind, task, time.monotonic(), key)
        task.add_done_callback(lambda _: setattr(job, "finished", time.monotonic()))
        self._jobs[job_id] = job
        finished = sorted(
            (j for j in self._jobs.values() if j.finished is not None), key=lambda j: j.finished
        )
        for old in finished[: max(0, len(finished) - self.max_finished)]:
            self._forget(old)
        return job

    def running(self, match: Callable[[Any], bool]) -> Optional[Job]:
        """A running job whose key ``match`` accepts, or None."""
        for job in self._jobs.values():
            if not job.task.done() and match(job.key):
                return job
        return None

    def get(self, job_id: str) -> Job:
        """A job; 404 for an unknown one, or one answered or expired."""
        job = self._jobs.get(job_id)
        if job is None:
            raise ExplorerError(
                404,
                f"no job {job_id!r} (never started, its answer already fetched, or unfetched "
                f"for {self.keep_seconds:g} s after it finished)",
            )
        return job

    def pop(self, job_id: str) -> None:
        """Forgets a job whose answer was given."""
        self._jobs.pop(job_id, None)

    def expire(self) -> None:
        """Forgets the jobs finished ``keep_seconds`` ago whose answer nobody fetched."""
        now = time.monotonic()
        for job in list(self._jobs.values()):
            if job.finished is not None and now - job.finished > self.keep_seconds:
                self._forget(job)

    def _forget(self, job: Job) -> None:
        if not job.task.cancelled():
            job.task.exception()  # retrieved: asyncio would log it as never seen
        del self._jobs[job.id]

    def tasks(self) -> list[asyncio.Task]:
        """The tasks of the jobs that still run."""
        return [job.task for job in self._jobs.values() if not job.task.done()]

    def clear(self) -> None:
        """Forgets every job (the server stops): those that ended, their answer unfetched,
        retrieved, so that asyncio logs none of them as never seen."""
        for job in list(self._jobs.values()):
            if job.task.done():
                self._forget(job)
        self._jobs.clear()
