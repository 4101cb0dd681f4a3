"""The engine's spec rows as Python sees them: graph values as networkx graphs, and attribute
access to every field of a row (``engine/space.h`` lists the fields once).
:mod:`compiler_gym.spaces` builds its spec classes, and the space a row describes, on these."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # networkx is imported where graphs are made: it took a third of the
    import networkx  # time of `import compiler_gym`


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
