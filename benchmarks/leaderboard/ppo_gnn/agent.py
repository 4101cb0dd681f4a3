"""The GNN agent of the llvm_instcount leaderboard: a relational graph convolutional network
over ProGraML graphs, trained with PPO (``train.py``) on the batches that
``make_vec(..., observation_space="Programl", device=...)`` assembles on the device.

Input: the engine's :class:`~compiler_gym.batches.GraphBatch` as the engine lays it out (node
text vocabulary ids ``x``, ``node_type``, ``ptr``, and per flow the CSR adjacency by source,
``csr[flow]``), on the batch's device (``cpu`` or ``cuda``), with no copy to the host. Nodes
start as the sum of a text and a type embedding; each layer adds to every node a ReLU of one
linear map of the node and its mean neighbour along each flow (control, data, call) in each
direction, then normalizes it (an R-GCN layer with a root weight, a residual connection and
LayerNorm). A graph is the mean and max of its nodes, plus log(1 + nodes) / 10 and the
histogram of the episode's actions divided by the episode length (as the Autophase MLP
agent's features, ``../ppo/agent.py``); two MLP heads give the action logits and the value.

The network runs on a :class:`Plan` of the graphs (plain PyTorch: sparse CSR products, no
PyTorch Geometric): each layer computes each distinct row of its sparse product once per
graph (nodes with equal rows get equal outputs: on the training programs 13% of the nodes
have distinct first-layer rows, 40% distinct second-layer rows), and the dense product runs
on the previous layer's distinct rows.
The numbers are those of one row per node up to float rounding.

The policy's outputs index the action table it was trained on (``actions.txt`` beside the
weights), mapped to the current table by flag name by the MLP agent's
:class:`TableAgent`, whose zero-shot episode (the most probable action at each of
``episode_length`` steps, rewound to the best prefix) :func:`run_agent` runs.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch
from torch import nn

from compiler_gym.compiler_env_state import CompilerEnvState

# torch's sparse CSR tensors warn once that they are in beta and unchecked: the plans build
# them sorted and in range.
warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "config.json"
WEIGHTS = HERE / "ppo_gnn-llvm_instcount.pt"
NUM_FLOWS = 3  # ProGraML's control, data and call edges
NUM_NODE_TYPES = 4  # instruction, variable, constant (and type, which the engine may add)


def _ppo_agent():
    """The MLP agent's module (``../ppo/agent.py``), loaded by path under its own name so that
    both agents' ``agent`` modules can be imported side by side."""
    name = "ppo_mlp_agent"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE.parent / "ppo" / "agent.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


ppo = _ppo_agent()
ACTIONS = ppo.ACTIONS


def load_config(path: Path = CONFIG) -> dict[str, Any]:
    """The training and evaluation settings (``config.json``)."""
    return ppo.load_config(path)


def vocabulary_size() -> int:
    """The number of entries of the engine's ProGraML node-text vocabulary; the id of an
    unknown text is this number."""
    import compiler_gym

    path = Path(compiler_gym.__file__).parent / "data" / "programl" / "vocabulary.txt"
    return len(path.read_text().splitlines())


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
        return self.ptr.numel() - 1

    @property
    def num_nodes(self) -> int:
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


class _SparseProduct(torch.autograd.Function):
    """``layer.matrix @ dense`` (a :class:`LayerPlan`'s constant weights); the backward pass
    multiplies by the transpose, built there (a sort of the entries by column: cheaper than
    adding each entry's share of the gradient into its row)."""

    @staticmethod
    def forward(ctx, dense: torch.Tensor, layer: LayerPlan) -> torch.Tensor:
        ctx.layer = layer
        return layer.matrix.to(dense.dtype) @ dense

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        layer = ctx.layer
        order = torch.argsort(layer.cols, stable=True)
        inputs = layer.inputs * RELATIONS
        transpose = torch.sparse_csr_tensor(
            _pointer(torch.bincount(layer.cols, minlength=inputs)),
            _at(layer.entry_rows, order),
            _at(layer.values, order).to(grad.dtype),
            (inputs, layer.rows),
        )
        return transpose @ grad, None


class FlowConv(nn.Module):
    """One relational graph convolution: ``LayerNorm(h + relu(W [h, mean_r(h) for each relation
    r]))``, the relations being each flow's successors and predecessors. The normalization
    keeps node states of any depth and graph size at one scale: without it, the pooled
    features grew to tens, saturated the heads' first tanh, and the trained policy ignored its
    input (the same distribution at every step).

    :meth:`forward` computes it on a layer's distinct rows (:class:`LayerPlan`), from the
    previous layer's rows: ``W [h, mean_r(h)]`` is ``sum_r mean_r(h W_r)`` (``W_r`` the block
    of ``W`` that reads relation ``r``), a product of the plan's matrix and ``h W`` laid out
    relation-major, so the dense product runs once per distinct input row."""

    def __init__(self, hidden: int, flows: int = NUM_FLOWS):
        super().__init__()
        self.linear = nn.Linear((1 + 2 * flows) * hidden, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h: torch.Tensor, plan: LayerPlan) -> torch.Tensor:
        """The layer's rows ``[plan.rows, hidden]`` from the previous layer's ``h``."""
        hidden = self.norm.normalized_shape[0]
        relations = self.linear.in_features // hidden
        # by_relation[c, (r, o)] = W[o, r * hidden + c]
        by_relation = self.linear.weight.view(hidden, relations, hidden).permute(2, 1, 0)
        # The bias goes with the node's own block, which each row holds once with weight 1:
        # added to the (fewer) input rows instead of the output rows.
        bias = torch.cat([self.linear.bias, self.linear.bias.new_zeros((relations - 1) * hidden)])
        table = torch.addmm(bias, h, by_relation.reshape(hidden, relations * hidden))
        y = _SparseProduct.apply(table.view(-1, hidden), plan)
        return self.norm(_at(h, plan.base) + torch.relu_(y))


class _MeanPool(torch.autograd.Function):
    """The mean over the nodes of each graph of the last layer's rows (``layer``), each row
    weighed by the nodes it stands for: one sparse product (a graph without nodes: zeros)."""

    @staticmethod
    def forward(ctx, h: torch.Tensor, layer: LayerPlan, nodes: torch.Tensor) -> torch.Tensor:
        weight = layer.count.to(h.dtype) / _at(nodes, layer.graph).to(h.dtype)
        ctx.save_for_backward(weight, layer.graph)
        pool = torch.sparse_csr_tensor(
            _pointer(layer.graph_rows),
            torch.arange(layer.rows, device=h.device),
            weight,
            (layer.graph_rows.numel(), layer.rows),
        )
        return pool @ h

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        weight, graph = ctx.saved_tensors
        return _at(grad, graph) * weight[:, None], None, None


class _MaxPool(torch.autograd.Function):
    """The maximum over each graph's rows (a graph without nodes: zeros); the gradient shared
    among the nodes that reach it (a row's share in proportion to the nodes it stands for), as
    a maximum over the nodes themselves shares it."""

    @staticmethod
    def forward(ctx, h: torch.Tensor, layer: LayerPlan) -> torch.Tensor:
        top = torch.segment_reduce(h, "max", lengths=layer.graph_rows)
        top.masked_fill_((layer.graph_rows == 0)[:, None], 0.0)
        ctx.save_for_backward(h, top, layer.count, layer.graph_rows, layer.graph)
        return top

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        h, top, count, graph_rows, graph = ctx.saved_tensors
        reach = (h == _at(top, graph)).to(h.dtype) * count[:, None].to(h.dtype)
        total = torch.segment_reduce(reach, "sum", lengths=graph_rows)
        return reach / _at(total, graph) * _at(grad, graph), None


class GnnPolicy(nn.Module):
    """The actor-critic network: ``forward(graphs, history)`` gives the action logits ``[G,
    num_actions]`` and the values ``[G]`` of ``G`` graphs (:class:`Graphs`, or their
    :class:`Plan`), ``history`` being the episode's action counts ``[G, num_actions]`` divided
    by the episode length."""

    def __init__(
        self,
        num_actions: int,
        vocabulary: int,
        hidden: int = 32,
        layers: int = 2,
        head: Sequence[int] = (128, 128),
    ):
        super().__init__()
        self.num_actions = num_actions
        self.vocabulary = vocabulary  # embedding rows: the vocabulary and one for unknown text
        self.text = nn.Embedding(vocabulary + 1, hidden)
        self.node_type = nn.Embedding(NUM_NODE_TYPES, hidden)
        self.convs = nn.ModuleList(FlowConv(hidden) for _ in range(layers))
        features = 2 * hidden + 1 + num_actions
        # As SB3's actor-critic (and the MLP agent's net_arch): tanh MLPs, orthogonal weights,
        # a near-uniform first policy.
        self.pi = _mlp(features, head, num_actions, gain=0.01)
        self.vf = _mlp(features, head, 1, gain=1.0)

    def plan(self, graphs: Graphs, distinct: bool = True) -> Plan:
        """The :class:`Plan` of ``graphs`` for this network's shape (not its weights)."""
        return Plan.build(graphs, self.vocabulary, len(self.convs), distinct)

    def embed(self, graphs: Graphs | Plan) -> torch.Tensor:
        """The graphs' embeddings ``[G, 2 * hidden + 1]``: mean and max of the nodes after the
        convolutions, and log(1 + nodes) / 10."""
        plan = graphs if isinstance(graphs, Plan) else self.plan(graphs)
        # The node table: a node starts as the sum of its text's and its type's embeddings.
        h = (self.text.weight[:, None, :] + self.node_type.weight[None, :, :]).flatten(0, 1)
        for conv, layer in zip(self.convs, plan.layers, strict=True):
            h = conv(h, layer)
        last = plan.layers[-1]
        mean = _MeanPool.apply(h, last, plan.nodes)
        top = _MaxPool.apply(h, last)
        size = torch.log1p(plan.nodes.to(h.dtype))[:, None] / 10
        return torch.cat([mean, top, size], dim=1)

    def heads(self, embedding: torch.Tensor, history: torch.Tensor):
        """The logits and values of graph embeddings (:meth:`embed`) and histories."""
        features = torch.cat([embedding, history.to(embedding.dtype)], dim=1)
        return self.pi(features), self.vf(features)[:, 0]

    def forward(self, graphs: Graphs | Plan, history: torch.Tensor):
        return self.heads(self.embed(graphs), history)


def _mlp(inputs: int, hidden: Sequence[int], outputs: int, gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(inputs, size), nn.Tanh()]
        inputs = size
    layers.append(nn.Linear(inputs, outputs))
    for i, layer in enumerate(layers):
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain if i == len(layers) - 1 else math.sqrt(2))
            nn.init.zeros_(layer.bias)
    return nn.Sequential(*layers)


def make_policy(config: dict, num_actions: int, vocabulary: Optional[int] = None) -> GnnPolicy:
    """The network of ``config["gnn"]`` (hidden, layers, head)."""
    return GnnPolicy(num_actions, vocabulary or vocabulary_size(), **config["gnn"])


def histograms(episodes: Sequence[Sequence[int]], num_actions: int, length: int, device="cpu"):
    """The episodes' action counts divided by the episode length, ``[len(episodes), A]``."""
    out = torch.zeros(len(episodes), num_actions)
    for i, actions in enumerate(episodes):
        if len(actions):
            out[i] = torch.bincount(
                torch.as_tensor(actions, dtype=torch.int64), minlength=num_actions
            )
    return (out / length).to(device)


def observe_graph(env, device: str = "cpu") -> Graphs:
    """``env``'s ProGraML graph as :class:`Graphs`: the engine's value, before the networkx
    graph that ``env.observation["Programl"]`` builds from it (as benchmarks/representations.py
    reads it)."""
    spec = env.observation.spaces["Programl"]
    return Graphs.from_engine_graph(env._env.observe(spec.index), device)


class GnnAgent(ppo.TableAgent):
    """The trained GNN policy: action probabilities for graphs, and its zero-shot episode
    (:meth:`TableAgent.episode`). Probabilities and episodes index the current action table.

    Sets PyTorch's CPU threads to the config's ``torch_threads`` (process-wide): the network's
    many small operations on one program's graph wait on each other's threads when the cores
    are busy (crc32's episode took 8.4 s with 2 threads on the 2 busy cores, 0.2 s with 1)."""

    observation_space = "Programl"

    def __init__(self, weights: Path = WEIGHTS, config: Path = CONFIG, device: str = "cpu"):
        self.config = load_config(config)
        self.device = device
        if self.config.get("torch_threads"):
            torch.set_num_threads(self.config["torch_threads"])
        state = torch.load(weights, map_location=device, weights_only=True)
        num_actions = len((Path(weights).parent / ACTIONS).read_text().split())
        self.policy = make_policy(self.config, num_actions, state["text.weight"].shape[0] - 1)
        self.policy.load_state_dict(state)
        self.policy.to(device).eval()
        self.map_actions(weights, num_actions, self.config["env"])

    def observe(self, env) -> Graphs:
        return observe_graph(env, self.device)

    def policy_probabilities(self, graphs: Graphs, episodes: list[list[int]]) -> np.ndarray:
        history = histograms(episodes, self.num_trained, self.config["episode_length"], self.device)
        with torch.no_grad():
            logits, _ = self.policy(graphs, history)
            return torch.softmax(logits.double(), dim=1).cpu().numpy()


def run_agent(
    env: Any, benchmark: Any = None, agent: Optional[GnnAgent] = None
) -> CompilerEnvState:
    """Runs the agent zero-shot on one program, as the leaderboard entry does, and returns the
    final state (see the MLP agent's ``run_agent``):

        from agent import run_agent                        # benchmarks/leaderboard/ppo_gnn
        state = run_agent("llvm-ic-v0", "builtin-v0/qsort")
        state = run_agent(env)                             # env stepped in place

    ``env`` is an env (stepped from the start of its benchmark, or of ``benchmark``, and left
    in the final state) or an env id, made here on ``benchmark`` and closed at the end; its
    reward space picks the best prefix. ``agent`` reuses a loaded :class:`GnnAgent` (default:
    the committed weights)."""
    return ppo.run_agent(env, benchmark, agent=agent or GnnAgent())
