"""ProGraML graphs as the GNN reads them, and the plans of its message passing.

:class:`Graphs` holds the engine's :class:`~compiler_gym.batches.GraphBatch` layout (node text
vocabulary ids ``x``, ``node_type``, ``ptr``, and per flow the CSR adjacency by source) on its
device, with no copy to the host. A :class:`Plan` is what the network computes for a batch of
graphs, independent of its weights: each layer's distinct rows of its sparse product (plain
PyTorch sparse CSR products, no PyTorch Geometric). Nodes with equal rows get equal outputs,
so each distinct row is computed once per graph (on the training programs 13% of the nodes
have distinct first-layer rows, 40% distinct second-layer rows); the numbers are those of one
row per node up to float rounding. The network itself is :mod:`compiler_gym.agents.gnn`.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

# torch's sparse CSR tensors warn once that they are in beta and unchecked: the plans build
# them sorted and in range.
warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")

NUM_FLOWS = 3  # ProGraML's control, data and call edges
NUM_NODE_TYPES = 4  # instruction, variable, constant (and type, which the engine may add)


@dataclass
class Graphs:
    """ProGraML graphs as the network reads them: node text ids ``x [N]``, ``node_type [N]``,
    ``ptr [G + 1]`` (the first node of each graph) and, per flow, the CSR adjacency by source
    ``csr[flow] = (row_ptr [N + 1], col [E_flow])`` with batch-wide node ids (targets sorted
    within each source's row), all on one device."""

    x: torch.Tensor
    node_type: torch.Tensor
    ptr: torch.Tensor
    csr: list[tuple[torch.Tensor, torch.Tensor]]

    @classmethod
    def from_batch(cls, batch: Any, copy: bool = False) -> Graphs:
        """The graphs of an engine :class:`~compiler_gym.batches.GraphBatch`, on its device;
        ``copy``: in memory of their own (the engine's slabs are reused by later steps)."""

        def own(t: torch.Tensor) -> torch.Tensor:
            return t.clone() if copy else t

        return cls(
            own(batch.x),
            own(batch.node_type),
            own(batch.ptr),
            [(own(row_ptr), own(col)) for row_ptr, col, _ in batch.csr],
        )

    @classmethod
    def from_engine_graph(cls, graph: dict, device: str = "cpu") -> Graphs:
        """One graph from the engine's value of one env's ``Programl`` observation (parallel
        arrays: ``node_text_id``, ``node_type``, ``edge_source``, ``edge_target``,
        ``edge_flow``), laid out as the engine lays out a batch."""

        def tensor(name: str) -> torch.Tensor:  # (a copy: the engine's arrays are read-only)
            return torch.tensor(np.asarray(graph[name]), dtype=torch.int64)

        n = len(graph["node_type"])
        source, target, flow = tensor("edge_source"), tensor("edge_target"), tensor("edge_flow")
        csr = []
        for f in range(NUM_FLOWS):
            s, t = source[flow == f], target[flow == f]
            order = torch.argsort(s * max(n, 1) + t, stable=True)
            row_ptr = torch.zeros(n + 1, dtype=torch.int64)
            row_ptr[1:] = torch.cumsum(torch.bincount(s, minlength=n), 0)
            csr.append((row_ptr.to(device), t[order].to(device)))
        return cls(
            tensor("node_text_id").to(device),
            tensor("node_type").to(device),
            torch.tensor([0, n], dtype=torch.int64, device=device),
            csr,
        )

    @property
    def num_graphs(self) -> int:
        """The graphs of this batch."""
        return self.ptr.numel() - 1

    @property
    def num_nodes(self) -> int:
        """The nodes of all graphs together."""
        return self.x.numel()

    def split(self) -> list[Graphs]:
        """One :class:`Graphs` per graph (views of this one's memory)."""
        ptr = self.ptr.tolist()
        row_ptrs = [row_ptr.tolist() for row_ptr, _ in self.csr]
        out = []
        for g in range(self.num_graphs):
            a, b = ptr[g], ptr[g + 1]
            csr = []
            for (row_ptr, col), rows in zip(self.csr, row_ptrs, strict=True):
                csr.append((row_ptr[a : b + 1] - rows[a], col[rows[a] : rows[b]] - a))
            out.append(
                Graphs(
                    self.x[a:b],
                    self.node_type[a:b],
                    torch.tensor([0, b - a], dtype=self.ptr.dtype, device=self.ptr.device),
                    csr,
                )
            )
        return out

    def select(self, index: torch.Tensor) -> Graphs:
        """The graphs ``index`` (graph numbers on this batch's device) in one batch, in that
        order: one gather per array, without a loop over the graphs."""
        sizes = _at(self.ptr[1:] - self.ptr[:-1], index)
        starts = _at(self.ptr[:-1], index)
        total = int(sizes.sum())
        nodes = _ranges(starts, sizes, total)
        ptr = _pointer(sizes)
        csr = []
        for row_ptr, col in self.csr:
            first, last = _at(row_ptr, starts), _at(row_ptr, starts + sizes)
            edges = last - first
            count = int(edges.sum())
            kept = _at(col, _ranges(first, edges, count))
            shift = torch.repeat_interleave(ptr[:-1] - starts, edges, output_size=count)
            degrees = _at(row_ptr[1:] - row_ptr[:-1], nodes)
            csr.append((_pointer(degrees), kept + shift))
        return Graphs(_at(self.x, nodes), _at(self.node_type, nodes), ptr, csr)

    @staticmethod
    def collate(graphs: Sequence[Graphs]) -> Graphs:
        """The graphs of several :class:`Graphs` in one, in order."""
        device = graphs[0].x.device
        sizes = torch.tensor([g.num_nodes for g in graphs], dtype=torch.int64)
        starts = torch.cumsum(sizes, 0) - sizes
        ptr = torch.zeros(len(graphs) + 1, dtype=torch.int64)
        ptr[1:] = torch.cumsum(sizes, 0)
        csr = []
        for f in range(NUM_FLOWS):
            edges = torch.tensor([g.csr[f][1].numel() for g in graphs], dtype=torch.int64)
            edge_starts = torch.cumsum(edges, 0) - edges
            row_ptr = torch.cat(
                [torch.zeros(1, dtype=torch.int64, device=device)]
                + [g.csr[f][0][1:] + int(e) for g, e in zip(graphs, edge_starts, strict=True)]
            )
            col = torch.cat([g.csr[f][1] + int(s) for g, s in zip(graphs, starts, strict=True)])
            csr.append((row_ptr, col))
        return Graphs(
            torch.cat([g.x for g in graphs]),
            torch.cat([g.node_type for g in graphs]),
            ptr.to(device),
            csr,
        )

    def to(self, device: str) -> Graphs:
        """These graphs on ``device``."""
        return Graphs(
            self.x.to(device),
            self.node_type.to(device),
            self.ptr.to(device),
            [(r.to(device), c.to(device)) for r, c in self.csr],
        )


RELATIONS = 1 + 2 * NUM_FLOWS  # a node itself, then each flow's successors and predecessors
# The random weights of the row hashes that find equal rows (below 2**36, so that a row's sum
# of up to 2**27 of them stays an exact int64); any collision is caught by the comparison
# that follows, so the seed changes no result.
_HASH_BITS = 36


@dataclass
class LayerPlan:
    """One layer's sparse product over its distinct rows (see :class:`Plan`): ``matrix`` (a CSR
    tensor ``[rows, inputs * RELATIONS]``) maps the previous layer's distinct rows (the node
    table for the first layer), relation-major within each input, to this layer's rows;
    ``entry_rows`` and ``cols``/``values`` are its entries in COO form (the backward pass);
    ``base`` is each row's own input row (the residual); ``count`` the nodes each row stands
    for; ``graph_rows [G]`` and ``graph_entries [G]`` how many rows and entries each graph
    has. Rows and entries are graph-contiguous, in graph order."""

    cols: torch.Tensor
    values: torch.Tensor
    lengths: torch.Tensor
    base: torch.Tensor
    count: torch.Tensor
    graph_rows: torch.Tensor
    graph_entries: torch.Tensor
    inputs: int  # the rows of the table this layer reads (K for the first, else the previous)
    shift: bool  # whether ``cols`` and ``base`` index the previous layer's rows (not keys)

    @property
    def rows(self) -> int:
        """The distinct rows this layer computes."""
        return self.lengths.numel()

    @property
    def entry_rows(self) -> torch.Tensor:
        """The row of each entry."""
        return torch.repeat_interleave(
            torch.arange(self.rows, device=self.cols.device),
            self.lengths,
            output_size=self.cols.numel(),
        )

    @property
    def graph(self) -> torch.Tensor:
        """The graph of each row."""
        return torch.repeat_interleave(
            torch.arange(self.graph_rows.numel(), device=self.cols.device),
            self.graph_rows,
            output_size=self.rows,
        )

    @property
    def matrix(self) -> torch.Tensor:
        """The layer's weights as a sparse CSR tensor ``[rows, inputs * RELATIONS]``."""
        return torch.sparse_csr_tensor(
            _pointer(self.lengths),
            self.cols,
            self.values,
            (self.rows, self.inputs * RELATIONS),
        )


def _at(values: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``values[index]`` (``index_select``: several times faster on the CPU)."""
    return values.index_select(0, index)


def _pointer(lengths: torch.Tensor) -> torch.Tensor:
    """The offsets ``[len + 1]`` of consecutive segments of these lengths."""
    out = lengths.new_zeros(lengths.numel() + 1)
    torch.cumsum(lengths, 0, out=out[1:])
    return out


def _ranges(starts: torch.Tensor, lengths: torch.Tensor, total: int) -> torch.Tensor:
    """The indices ``start, ..., start + length - 1`` of each range, concatenated (``total``
    of them)."""
    before = torch.cumsum(lengths, 0) - lengths
    return torch.arange(total, device=starts.device) + torch.repeat_interleave(
        starts - before, lengths, output_size=total
    )


@dataclass
class Plan:
    """What the network computes for a batch of graphs, independent of its weights: for each
    layer, the distinct rows of its sparse product and their entries (:class:`LayerPlan`).

    A layer's output at a node depends only on the node's row of that layer's product over
    the previous layer's rows: the node's own row, and the mean over each relation's
    neighbours (the first layer reads the node table, a node's text id and type). Nodes whose
    rows hold the same entries get the same output, so each layer computes each distinct row
    of a graph once; rows are compared entry by entry, so this is exact (on the training
    programs 13% of the nodes have distinct first-layer rows, 40% distinct second-layer
    rows). The pooling weighs each last-layer row by the nodes it stands for.

    Plans of graphs, once built (:meth:`build`, the costly part: a sort per layer), are
    gathered into minibatches without rebuilding (:meth:`select`, :meth:`collate`)."""

    nodes: torch.Tensor  # [G] the nodes of each graph
    layers: list[LayerPlan]

    @property
    def num_graphs(self) -> int:
        """The graphs of this plan."""
        return self.nodes.numel()

    @classmethod
    def build(cls, graphs: Graphs, vocabulary: int, layers: int, distinct: bool = True) -> Plan:
        """The plan of ``layers`` layers for ``graphs`` (text ids past ``vocabulary``:
        unknown). ``distinct=False`` keeps one row per node (the same numbers, slower)."""
        device = graphs.x.device
        n, num_graphs = graphs.num_nodes, graphs.num_graphs
        nodes = torch.arange(n, device=device)
        sizes = graphs.ptr[1:] - graphs.ptr[:-1]
        graph = torch.repeat_interleave(
            torch.arange(num_graphs, device=device), sizes, output_size=n
        )
        # Every entry of the products, unordered: (node, neighbour, relation, weight), the
        # weight 1 / the node's degree in that relation (a mean), 1 for the node itself.
        rows, cols, relations = [nodes], [nodes], [torch.zeros_like(nodes)]
        weights = [torch.ones(n, device=device)]
        for flow, (row_ptr, col) in enumerate(graphs.csr):
            out_degree = row_ptr[1:] - row_ptr[:-1]
            source = torch.repeat_interleave(nodes, out_degree, output_size=col.numel())
            to_out = 1 / out_degree.clamp(min=1).float()
            to_in = 1 / torch.bincount(col, minlength=n).clamp(min=1).float()
            rows += [source, col]
            cols += [col, source]
            relations += [torch.full_like(col, 1 + 2 * flow), torch.full_like(col, 2 + 2 * flow)]
            weights += [_at(to_out, source), _at(to_in, col)]
        row, col, relation = torch.cat(rows), torch.cat(cols), torch.cat(relations)
        weight = torch.cat(weights)
        lengths = torch.bincount(row, minlength=n)
        starts = _pointer(lengths)[:-1]
        ids = graphs.x.clamp(0, vocabulary) * NUM_NODE_TYPES + graphs.node_type.clamp(
            0, NUM_NODE_TYPES - 1
        )
        inputs = (vocabulary + 1) * NUM_NODE_TYPES
        generator = torch.Generator(device=device).manual_seed(0)
        plans = []
        # The sort compares columns as graph-local ids (the same order within a node's row),
        # which fit int32 on batches of a few hundred thousand nodes: a sort twice as fast.
        local, span = ids, inputs
        for layer in range(layers):
            width = inputs * RELATIONS
            entry = _at(ids, col) * RELATIONS + relation
            # Each node's entries sorted by column: equal rows are equal sequences.
            key = row * (span * RELATIONS) + _at(local, col) * RELATIONS + relation
            order = torch.argsort(key.int() if n * span * RELATIONS < 2**31 else key)
            entry, value = _at(entry, order), _at(weight, order)
            if distinct:
                same = _equal_rows(entry, lengths, starts, graph, width, num_graphs, generator)
            else:
                same = nodes
            unique = torch.nonzero(same == nodes).flatten()  # in node order: graph-contiguous
            index = torch.empty_like(nodes)
            index[unique] = torch.arange(unique.numel(), device=device)
            ids_next = _at(index, same)
            plans.append(
                _layer_plan(
                    entry, value, lengths, starts, unique, ids, ids_next, graph, num_graphs,
                    inputs, shift=layer > 0,
                )
            )  # fmt: skip
            per_graph = plans[-1].graph_rows
            local = ids_next - _at(_pointer(per_graph)[:-1], graph)
            ids, inputs = ids_next, unique.numel()
            span = int(per_graph.max()) if per_graph.numel() else 0
        return cls(sizes, plans)

    @staticmethod
    def collate(plans: Sequence[Plan]) -> Plan:
        """The graphs of several plans in one, in order."""
        layers = []
        for depth in range(len(plans[0].layers)):
            parts = [p.layers[depth] for p in plans]
            inputs = [p.layers[depth - 1].rows if depth else 0 for p in plans]
            offsets = list(itertools.accumulate([0, *inputs[:-1]]))
            first = parts[0]
            cols, base = [], []
            for part, offset in zip(parts, offsets, strict=True):
                cols.append(part.cols + offset * RELATIONS if first.shift else part.cols)
                base.append(part.base + offset if first.shift else part.base)
            layers.append(
                LayerPlan(
                    torch.cat(cols),
                    torch.cat([p.values for p in parts]),
                    torch.cat([p.lengths for p in parts]),
                    torch.cat(base),
                    torch.cat([p.count for p in parts]),
                    torch.cat([p.graph_rows for p in parts]),
                    torch.cat([p.graph_entries for p in parts]),
                    sum(inputs) if first.shift else first.inputs,
                    first.shift,
                )
            )
        return Plan(torch.cat([p.nodes for p in plans]), layers)

    def select(self, index: torch.Tensor) -> Plan:
        """The plan of graphs ``index`` (a tensor of graph numbers, repeats allowed), in that
        order."""
        layers = []
        shift = None  # each selected graph's move in the previous layer's rows
        previous = 0  # the previous layer's rows in the selection
        for layer in self.layers:
            row_starts = _at(_pointer(layer.graph_rows), index)
            entry_starts = _at(_pointer(layer.graph_entries), index)
            rows, entries = _at(layer.graph_rows, index), _at(layer.graph_entries, index)
            total_rows, total_entries = int(rows.sum()), int(entries.sum())
            row_index = _ranges(row_starts, rows, total_rows)
            entry_index = _ranges(entry_starts, entries, total_entries)
            cols, base = _at(layer.cols, entry_index), _at(layer.base, row_index)
            if layer.shift:
                cols = cols + RELATIONS * torch.repeat_interleave(
                    shift, entries, output_size=total_entries
                )
                base = base + torch.repeat_interleave(shift, rows, output_size=total_rows)
            layers.append(
                LayerPlan(
                    cols,
                    _at(layer.values, entry_index),
                    _at(layer.lengths, row_index),
                    base,
                    _at(layer.count, row_index),
                    rows,
                    entries,
                    previous if layer.shift else layer.inputs,
                    layer.shift,
                )
            )
            shift = (torch.cumsum(rows, 0) - rows) - row_starts
            previous = total_rows
        return Plan(_at(self.nodes, index), layers)


def _equal_rows(entry, lengths, starts, graph, width, num_graphs, generator) -> torch.Tensor:
    """For each node, the first node of its graph whose sorted row ``entry`` (columns below
    ``width``) is the same sequence (itself if none): rows are grouped by a hash of their
    entries, then each is compared with its group's first, entry by entry, so that a hash
    collision only leaves a row on its own."""
    device = entry.device
    n, total = lengths.numel(), entry.numel()
    nodes = torch.arange(n, device=device)
    weight = torch.randint(1 << _HASH_BITS, (width,), generator=generator, device=device)
    salt = torch.randint(1 << _HASH_BITS, (num_graphs,), generator=generator, device=device)
    row = torch.repeat_interleave(nodes, lengths, output_size=total)
    digest = _at(salt, graph).index_add_(0, row, _at(weight, entry))
    _, group = torch.unique(digest, return_inverse=True)
    first = torch.full((n,), n, device=device).scatter_reduce_(0, group, nodes, "amin")
    candidate = _at(first, group)
    # Entry k of a row against entry k of its candidate (rows of other lengths or graphs
    # differ; their entries are not compared).
    alike = (_at(lengths, candidate) == lengths) & (_at(graph, candidate) == graph)
    partner = torch.arange(total, device=device) + _at(_at(starts, candidate) - starts, row)
    differ = (_at(entry, partner.clamp(max=total - 1)) != entry) & _at(alike, row)
    mismatched = torch.zeros(n, dtype=torch.int64, device=device).index_add_(0, row, differ.long())
    return torch.where(alike & (mismatched == 0), candidate, nodes)


def _layer_plan(entry, value, lengths, starts, unique, ids, ids_next, graph, num_graphs, inputs,
                shift) -> LayerPlan:  # fmt: skip
    """The :class:`LayerPlan` of the rows of nodes ``unique`` (sorted entries ``entry``),
    with a node's repeated columns merged into one entry (their weights summed)."""
    device = entry.device
    width = inputs * RELATIONS
    kept_lengths = _at(lengths, unique)
    total = int(kept_lengths.sum())
    index = _ranges(_at(starts, unique), kept_lengths, total)
    row = torch.repeat_interleave(
        torch.arange(unique.numel(), device=device), kept_lengths, output_size=total
    )
    merged, inverse = torch.unique_consecutive(row * width + _at(entry, index),
                                               return_inverse=True)  # fmt: skip
    values = torch.zeros(merged.numel(), dtype=value.dtype, device=device)
    values.index_add_(0, inverse, _at(value, index))
    new_lengths = torch.bincount(merged // width, minlength=unique.numel())
    kept_graph = _at(graph, unique)
    entries_per_graph = torch.zeros(num_graphs, dtype=torch.int64, device=device)
    entries_per_graph.index_add_(0, kept_graph, new_lengths)
    return LayerPlan(
        merged % width,
        values,
        new_lengths,
        _at(ids, unique),
        torch.bincount(ids_next, minlength=unique.numel()),
        torch.bincount(kept_graph, minlength=num_graphs),
        entries_per_graph,
        inputs,
        shift,
    )
