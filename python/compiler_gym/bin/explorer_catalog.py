"""What the explorer shows of an environment before any episode: its description for the
page (``/api/v4/describe``: actions, spaces, datasets, features, how each reward is formatted)
and the index of benchmarks that the page searches. Split from ``explorer.py``, which serves
them."""

from __future__ import annotations

import threading
from itertools import islice
from typing import Any

import compiler_gym
from compiler_gym.bin.explorer_requests import ExplorerError

__all__ = ["BenchmarkIndex", "describe_env", "reward_format"]


def reward_format(env: Any, name: str) -> str:
    """How the page shows a reward of ``env``'s space ``name``: ``"count"`` or ``"bytes"``
    (a difference of integer costs: an integer), ``"ratio"`` (normalized by the initial or a
    baseline cost: four decimals), ``"seconds"`` (a runtime: three significant digits and a
    unit) or ``"float"`` (any other number: three decimals)."""
    space = env.reward.spaces[name]
    kind = (getattr(space, "row", None) or {}).get("kind")
    if kind in ("norm_by_initial", "norm_by_baseline"):
        return "ratio"
    cost = env.observation.spaces.get(getattr(space, "cost_observation", None) or "")
    if kind == "delta" and cost is not None:
        if str(cost.dtype).startswith(("int", "uint")):
            return "bytes" if "byte" in f"{cost.id} {cost.doc}".lower() else "count"
        if "second" in f"{space.doc} {cost.doc}".lower():
            return "seconds"
    return "float"


class BenchmarkIndex:
    """The benchmarks a page may search: every benchmark of the env's installed finite
    datasets (1,785 with ``builtin-v0``, ``gcc-torture-v0`` and ``pypi-c-v0``; thousands more
    with CompilerGym's datasets), listed once per dataset when first searched. Generators
    (``generator://csmith-v0/SEED``) have no list; their benchmarks are typed. Its methods run
    on the server's worker threads."""

    def __init__(self, datasets: dict[str, Any]):
        self.datasets = datasets  # canonical name -> dataset
        self._uris: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _listed(self) -> list[str]:
        uris = []
        for name, dataset in self.datasets.items():
            if dataset.infinite or not dataset.installed:
                continue  # installed since the last search: listed now
            with self._lock:
                if name not in self._uris:
                    self._uris[name] = sorted(str(u) for u in dataset.benchmark_uris())
            uris += self._uris[name]
        return uris

    def search(self, query: str, limit: int) -> dict:
        """The benchmarks whose URI holds every word of ``query`` (any case), best first: the
        name equal to the query, then names that start with it, then URIs that hold it
        whole, then the rest, each in URI order; at most ``limit`` of them, with the number
        that matched."""
        words = query.lower().split()
        whole = " ".join(words)
        ranked = []
        for uri in self._listed():
            text = uri.lower()
            if not all(w in text for w in words):
                continue
            name = text.rsplit("/", 1)[-1]
            rank = (name != whole, not name.startswith(whole), whole not in text)
            ranked.append((rank, uri))
        ranked.sort()
        return {
            "query": query,
            "total": len(ranked),
            "benchmarks": [uri for _, uri in ranked[:limit]],
            "truncated": len(ranked) > limit,
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
            # How the page formats each reward (see reward_format).
            "reward_formats": {name: reward_format(env, name) for name in env.reward.spaces},
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
