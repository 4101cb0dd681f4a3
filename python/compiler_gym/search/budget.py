"""Time budgets of the searches: a :class:`Deadline`, and :func:`try_within`, which
evaluates a round of candidates (``try_actions``) in as few calls as fit before the deadline
and cuts the round short when the next call would not.

One candidate on a large program can take a second or more (a ``default<Oz>`` pipeline on
40,000 instructions), and one ``try_actions`` call of a round can take minutes, so checking the
clock between rounds is not enough to end a search on time. A search instead times its calls
and never starts one that its timings say would end past the budget::

    deadline = Deadline(runtime)            # None: no budget, one call per round as before
    cost = CallCost(threads)
    rewards, cut = try_within(env, candidates, deadline, cost)   # rewards of a prefix

:class:`CallCost` predicts a call from the lengths of its candidates (actions, on the engine's
threads) at the pace of the calls timed so far. Before any call nothing is known: the first
call is one candidate per thread, or, for long action sequences (a library's, 100 passes and
more), a short prefix of the first, which times the pace at little cost.
"""

from __future__ import annotations

import heapq
import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np

#: Sequences longer than this are timed first on a prefix of this many actions.
PROBE_ACTIONS = 16

#: A call is predicted to take at most this many times the longest call timed (or one wave):
#: a pace timed on a few candidates (a prefix's cheap passes: 0.006 s a pass where whole
#: sequences took 0.011 s) is tried on more before a long call is staked on it.
GROWTH = 4

#: What a pipeline element that runs a whole -O pipeline (``default<Oz>``) costs, in single
#: passes, for the predictions (LLVM 19's -Oz runs about this many on a function; on a
#: 40,000-instruction program one ``default<Oz>`` took 0.8 s, a single pass 10 to 25 ms).
WHOLE_PIPELINE_PASSES = 50


class Deadline:
    """When a time budget of ``seconds`` (None: no budget) that began at ``start``
    (``time.perf_counter()``; default now) runs out."""

    def __init__(self, seconds: Optional[float] = None, start: Optional[float] = None):
        if seconds is not None and not seconds >= 0:
            raise ValueError(f"a time budget is 0 seconds or more, got {seconds}")
        self.seconds = seconds
        self.start = time.perf_counter() if start is None else start

    @classmethod
    def at(cls, end: Optional[float]) -> Deadline:
        """The deadline at ``end`` (a ``time.perf_counter()`` time; None: none), however soon."""
        now = time.perf_counter()
        return cls(None if end is None else max(end - now, 0.0), now)

    def restart(self) -> None:
        """Starts the budget again now."""
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        """Seconds since the budget began."""
        return time.perf_counter() - self.start

    def left(self) -> float:
        """Seconds left (infinite without a budget; negative once it has run out)."""
        return math.inf if self.seconds is None else self.seconds - self.elapsed()

    def expired(self) -> bool:
        """Whether the budget has run out."""
        return self.left() <= 0

    def allows(self, seconds: float) -> bool:
        """Whether work that takes ``seconds`` and starts now ends within the budget."""
        return self.left() >= seconds

    def earlier(self, seconds: float) -> Deadline:
        """This deadline brought forward by ``seconds`` (time kept for work after a phase);
        no budget stays none."""
        if self.seconds is None:
            return self
        return Deadline(max(self.seconds - seconds, 0.0), self.start)


def engine_threads(num_threads: int = 0) -> int:
    """The threads an engine made with ``num_threads`` (0: one per core) evaluates on."""
    return num_threads or os.cpu_count() or 1


Weight = Callable[[int], float]


def action_weights(space: Any) -> Optional[Weight]:
    """What each action of ``space`` costs, in single passes, where they differ: for a space
    of pipeline elements (``PassesParameterized``), :data:`WHOLE_PIPELINE_PASSES` for a
    ``default<...>`` pipeline, else one per pass of the element; None (each action 1)
    elsewhere."""
    pipelines = getattr(space, "pipelines", None)
    if pipelines is None:
        return None
    texts = list(pipelines) + list(getattr(space, "pipeline_actions", []))

    def weight(text: str) -> float:
        if "default<" in text:
            return float(WHOLE_PIPELINE_PASSES * text.count("default<"))
        return float(text.count(",") + 1)

    weights = [weight(t) for t in texts]
    return lambda action: weights[action] if 0 <= action < len(weights) else 1.0


def length(candidate: Any, weight: Optional[Weight] = None) -> float:
    """The work of a candidate: an action or an action sequence, each action 1 or its
    ``weight``."""
    actions = candidate if isinstance(candidate, (list, tuple)) else [candidate]
    return float(sum(weight(int(a)) for a in actions)) if weight else float(len(actions))


class CallCost:
    """Predicts the seconds of a call that evaluates candidates of given lengths on
    ``threads`` threads from the calls timed so far (the last :data:`WINDOW`): a fixed cost
    per call (the engine copies the state to each of its threads) plus a pace per action,
    times the actions of the busiest thread (the engine hands each candidate, in order, to
    the first thread free: :meth:`load`).

    The fit is kept on the safe side: the fixed cost is at most the quickest call, and the
    pace the least that covers every call timed, so that a call predicted to fit does."""

    WINDOW = 8

    def __init__(self, threads: int):
        self.threads = max(1, int(threads))
        self.calls: list[tuple[float, float]] = []  # (load, seconds)

    def load(self, lengths: Sequence[float]) -> float:
        """The actions of the busiest thread when candidates of ``lengths`` go, in order, to
        the first of the threads free."""
        threads = [0] * min(self.threads, len(lengths))
        if not threads:
            return 0.0
        for n in lengths:
            heapq.heapreplace(threads, threads[0] + max(1.0, n))
        return float(max(threads))

    @property
    def known(self) -> bool:
        """Whether a call has been timed."""
        return bool(self.calls)

    @property
    def longest(self) -> float:
        """Seconds of the longest call timed (0 before any)."""
        return max((s for _, s in self.calls), default=0.0)

    def add(self, lengths: Sequence[float], seconds: float) -> None:
        """Records a call of candidates of ``lengths`` actions that took ``seconds``."""
        if len(lengths):
            self.calls = [*self.calls[-(self.WINDOW - 1) :], (self.load(lengths), seconds)]

    def fit(self) -> tuple[float, float]:
        """(seconds per call, seconds per action of the busiest thread); (0, 0) before any
        call."""
        if not self.calls:
            return 0.0, 0.0
        loads = np.array([n for n, _ in self.calls])
        seconds = np.array([s for _, s in self.calls])
        fixed = 0.0
        if len(set(loads)) > 1:
            design = np.c_[loads, np.ones_like(loads)]
            fixed = float(np.linalg.lstsq(design, seconds, rcond=None)[0][1])
        fixed = min(max(fixed, 0.0), float(seconds.min()))
        return fixed, float(((seconds - fixed) / loads).max())

    def predict(self, lengths: Sequence[float]) -> float:
        """Seconds a call of candidates of ``lengths`` actions is expected to take (0 before
        any call)."""
        if not len(lengths):
            return 0.0
        fixed, pace = self.fit()
        return fixed + pace * self.load(lengths)

    def predict_sequence(self, actions: float) -> float:
        """Seconds that stepping one sequence of ``actions`` actions (or work, :func:`length`)
        is expected to take."""
        return self.predict([actions])

    def most_that_fit(self, seconds: float, lengths: Sequence[float]) -> int:
        """How many of the candidates of ``lengths``, from the first, one call evaluates in
        ``seconds``; 0 when not even the first does."""
        k = 0
        while k < len(lengths) and self.predict(lengths[: k + 1]) <= seconds:
            k += 1
        return k


def try_within(
    env: Any,
    candidates: Sequence[Any],
    deadline: Deadline,
    cost: CallCost,
    try_actions: Optional[Callable[[Any, Sequence[Any]], np.ndarray]] = None,
    keep: Optional[Callable[[], float]] = None,
    weight: Optional[Weight] = None,
) -> tuple[np.ndarray, bool]:
    """The rewards of ``candidates`` (actions or action sequences) from ``env``'s current
    state (``env.try_actions``, or ``try_actions(env, candidates)``), evaluated in order in
    calls that ``cost`` predicts end before ``deadline``; returns the rewards of those
    evaluated (the first ones, NaN where one failed) and whether the deadline cut the round
    short. Without a budget, all in one call. Else every call is timed into ``cost``; before
    any, the first call is one candidate per thread, or a prefix of :data:`PROBE_ACTIONS`
    actions of the first candidate where it is longer (a timing, its reward unused); a call
    is then predicted to take at most :data:`GROWTH` times the longest so far, or one wave.
    ``keep()``, asked before each call, is the seconds to leave free for the work that
    follows the round. ``weight`` (:func:`action_weights`) says what each action costs where
    actions differ."""

    def call(batch: Sequence[Any]) -> np.ndarray:
        start = time.perf_counter()
        rewards = try_actions(env, batch) if try_actions else env.try_actions(batch)
        cost.add([length(c, weight) for c in batch], time.perf_counter() - start)
        return np.asarray(rewards, dtype=np.float64)

    candidates = list(candidates)
    if deadline.seconds is None:
        return call(candidates), False
    lengths = [length(c, weight) for c in candidates]
    first = length(candidates[0]) if candidates else 0
    if not cost.known and first > PROBE_ACTIONS and not deadline.expired():
        call([list(candidates[0][:PROBE_ACTIONS])])
    out: list[np.ndarray] = []
    done = 0
    while done < len(candidates):
        seconds = deadline.left() - (keep() if keep else 0.0)
        if seconds <= 0:
            break
        if cost.known:
            wave = cost.predict(lengths[done : done + cost.threads])
            k = cost.most_that_fit(min(seconds, max(GROWTH * cost.longest, wave)), lengths[done:])
        else:
            k = min(len(candidates) - done, cost.threads)
        if k == 0:
            break
        out.append(call(candidates[done : done + k]))
        done += k
    rewards = np.concatenate(out) if out else np.empty(0)
    return rewards, done < len(candidates)
