"""The engine's spec rows as Python sees them: the gymnasium space a row describes, graph
values as networkx graphs, and attribute access to every field of a row (``engine/space.h``
lists the fields once). :mod:`compiler_gym.spaces` builds its spec classes on these."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np

if TYPE_CHECKING:  # networkx is imported where graphs are made: it took a third of the
    import networkx  # time of `import compiler_gym`


class _AnySpace(gymnasium.spaces.Space):
    """A space holding values of one Python type (text, bytes, dict) of any size."""

    def __init__(self, name: str, python_type: type, sample_value: Any):
        super().__init__(shape=None, dtype=None)
        self.name = name
        self._type = python_type
        self._sample = sample_value

    def contains(self, x: Any) -> bool:
        return isinstance(x, self._type)

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        return self._sample

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        types = self._type if isinstance(self._type, tuple) else (self._type,)
        return f"{'|'.join(t.__name__ for t in types)}Space({self.name})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, _AnySpace) and other._type is self._type and other.name == self.name
        )


_DTYPES = {
    "int64": np.int64,
    "float32": np.float32,
    "float64": np.float64,
    "bool": np.bool_,
    "uint8": np.uint8,
}


def _bound(value: float, dtype: Any) -> Any:
    if np.issubdtype(dtype, np.integer):
        if np.isinf(value):
            return np.iinfo(dtype).max if value > 0 else np.iinfo(dtype).min
        return int(value)
    return value


def gym_space(spec: dict) -> gymnasium.spaces.Space:
    """The gymnasium space of an engine observation row."""
    kind, name = spec["kind"], spec["name"]
    if kind in ("scalar", "vector"):
        dtype = _DTYPES[spec["dtype"]]
        shape = tuple(spec["shape"])
        if dtype is np.bool_:
            return gymnasium.spaces.Box(0, 1, shape=shape, dtype=np.bool_)
        if -1 in shape:
            # A variable number of values (e.g. one per measured run): a stacked sequence.
            element = gymnasium.spaces.Box(
                _bound(spec["low"], dtype), _bound(spec["high"], dtype), shape=(), dtype=dtype
            )
            return gymnasium.spaces.Sequence(element, stack=True)
        return gymnasium.spaces.Box(
            _bound(spec["low"], dtype), _bound(spec["high"], dtype), shape=shape, dtype=dtype
        )
    if kind == "ragged":
        # A variable number of rows of shape[1:]: a stacked sequence.
        dtype = _DTYPES[spec["dtype"]]
        element = gymnasium.spaces.Box(
            _bound(spec["low"], dtype),
            _bound(spec["high"], dtype),
            shape=tuple(spec["shape"][1:]),
            dtype=dtype,
        )
        return gymnasium.spaces.Sequence(element, stack=True)
    if kind == "graph":
        import networkx

        return _AnySpace(name, networkx.MultiDiGraph, networkx.MultiDiGraph())
    if kind == "text":
        return _AnySpace(name, str, "")
    if kind == "bytes":
        return _AnySpace(name, bytes, b"")
    if kind == "dict":  # any JSON value: a dict or a list
        return _AnySpace(name, (dict, list), {})
    return _AnySpace(name, object, None)


def graph_to_networkx(graph: dict) -> networkx.MultiDiGraph:
    """A ProGraML graph from the engine (parallel arrays) as a networkx ``MultiDiGraph``.

    Nodes carry ``type``, ``text``, ``full_text``, ``function``, ``block`` and ``text_id`` (the
    node text's vocabulary id); edges carry ``flow`` and ``position``, with keys numbering
    parallel edges in order, as in ``ProgramlJson``.
    """
    import networkx

    g = networkx.MultiDiGraph()
    columns = zip(
        graph["node_type"].tolist(),
        graph["node_text"],
        graph["node_full_text"],
        graph["node_function"].tolist(),
        graph["node_block"].tolist(),
        graph["node_text_id"].tolist(),
        strict=True,
    )
    g.add_nodes_from(
        (i, {"type": t, "text": x, "full_text": f, "function": fn, "block": b, "text_id": xi})
        for i, (t, x, f, fn, b, xi) in enumerate(columns)
    )
    g.add_edges_from(
        (s, d, {"flow": fl, "position": p})
        for s, d, fl, p in zip(
            graph["edge_source"].tolist(),
            graph["edge_target"].tolist(),
            graph["edge_flow"].tolist(),
            graph["edge_position"].tolist(),
            strict=True,
        )
    )
    return g


class EngineRow:
    """A spec made from a row of the engine's tables. Every field of the C++ struct
    (``SpaceSpec`` or ``RewardSpec`` in ``engine/space.h``, whose one field list also exports
    them) is an attribute of the same name, whether or not the class below names it: a field
    added in C++ reaches Python with no edit here."""

    def __getattr__(self, name: str) -> Any:
        row = self.__dict__.get("row") or {}
        if name in row:
            return row[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")


def from_row(cls: type, row: dict, **given: Any) -> Any:
    """An instance of the dataclass ``cls`` whose fields named as the row's take its values."""
    shared = {f.name: row[f.name] for f in fields(cls) if f.name in row and f.name not in given}
    return cls(row=row, **shared, **given)
