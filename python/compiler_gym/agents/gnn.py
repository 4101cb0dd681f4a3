"""The ProGraML GNN policy: a relational graph convolutional network over the engine's graphs.

Input: :class:`~compiler_gym.agents.gnn_graphs.Graphs` (the engine's
:class:`~compiler_gym.batches.GraphBatch` as ``make_vec(..., observation_space="Programl",
device=...)`` lays it out, on its device), or their :class:`~compiler_gym.agents.gnn_graphs.Plan`.
Nodes start as the sum of a text and a type embedding; each layer adds to every node a ReLU of
one linear map of the node and its mean neighbour along each flow (control, data, call) in
each direction, then normalizes it (an R-GCN layer with a root weight, a residual connection
and LayerNorm). A graph is the mean and max of its nodes, plus log(1 + nodes) / 10 and the
histogram of the episode's actions divided by the episode length (as the Autophase MLP's
features, :mod:`compiler_gym.agents.mlp`); two MLP heads give the action logits and the value.

    from compiler_gym.agents.gnn import GnnPolicy, Graphs
    policy = GnnPolicy(num_actions=124, vocabulary=vocabulary_size())
    logits, values = policy(Graphs.from_batch(obs), history)

:class:`GnnAgent` is a trained policy (a ``state_dict`` and the ``actions.txt`` beside it) as
a :class:`~compiler_gym.agents.table.TableAgent`: the leaderboard's ``ppo_gnn`` entry is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch
from torch import nn

from compiler_gym.agents.gnn_graphs import (
    NUM_FLOWS,
    NUM_NODE_TYPES,
    RELATIONS,
    Graphs,
    LayerPlan,
    Plan,
    _at,
    _pointer,
)
from compiler_gym.agents.mlp import tanh_mlp
from compiler_gym.agents.table import ACTIONS, TableAgent, load_config

__all__ = [
    "FlowConv",
    "GnnAgent",
    "GnnPolicy",
    "Graphs",
    "LayerPlan",
    "Plan",
    "histograms",
    "make_policy",
    "observe_graph",
    "vocabulary_size",
]


def vocabulary_size() -> int:
    """The number of entries of the engine's ProGraML node-text vocabulary; the id of an
    unknown text is this number."""
    import compiler_gym

    path = Path(compiler_gym.__file__).parent / "data" / "programl" / "vocabulary.txt"
    return len(path.read_text().splitlines())


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
    by the episode length.

    For the trainer (:mod:`compiler_gym.train`), a policy's states are what :meth:`observe`
    makes of an engine batch (here: plans), gathered with :meth:`select` and :meth:`collate`;
    :meth:`embed` turns states into embeddings (the costly part, which the trainer computes
    once per distinct state) and :meth:`heads` embeddings and histories into logits and
    values."""

    observation_space = "Programl"

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
        self.pi = tanh_mlp(features, head, num_actions, gain=0.01)
        self.vf = tanh_mlp(features, head, 1, gain=1.0)

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
        """The logits ``[G, num_actions]`` and values ``[G]`` of graphs and histories."""
        return self.heads(self.embed(graphs), history)

    def observe(self, batch: Any, rows: Optional[torch.Tensor] = None) -> Plan:
        """The states (plans) of an engine ``GraphBatch``'s graphs ``rows`` (all: None), built
        from the engine's memory (a plan holds no reference to it)."""
        graphs = Graphs.from_batch(batch)
        return self.plan(graphs if rows is None else graphs.select(rows))

    @staticmethod
    def select(states: Plan, index: torch.Tensor) -> Plan:
        """The states ``index`` (repeats allowed), in that order."""
        return states.select(index)

    @staticmethod
    def collate(states: Sequence[Plan]) -> Plan:
        """Several batches of states as one, in order."""
        return Plan.collate(states)

    @staticmethod
    def count(states: Plan) -> int:
        """The states in a batch."""
        return states.num_graphs


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


class GnnAgent(TableAgent):
    """A trained GNN policy: action probabilities for graphs, and its zero-shot episode
    (:meth:`TableAgent.episode`). Probabilities and episodes index the current action table.
    ``weights``: a ``state_dict`` file with ``actions.txt`` beside it; ``config``: the
    settings it was trained with (a JSON file or a dict: ``env``, ``episode_length``,
    ``gnn``, optionally ``torch_threads``).

    Sets PyTorch's CPU threads to the config's ``torch_threads`` (process-wide): the network's
    many small operations on one program's graph wait on each other's threads when the cores
    are busy (crc32's episode took 8.4 s with 2 threads on the 2 busy cores, 0.2 s with 1)."""

    observation_space = "Programl"

    def __init__(
        self, weights: Union[str, Path], config: Union[str, Path, dict], device: str = "cpu"
    ):
        self.config = config if isinstance(config, dict) else load_config(config)
        self.device = device
        if self.config.get("torch_threads"):
            torch.set_num_threads(self.config["torch_threads"])
        state = torch.load(weights, map_location=device, weights_only=True)
        num_actions = len((Path(weights).parent / ACTIONS).read_text().split())
        self.policy = make_policy(self.config, num_actions, state["text.weight"].shape[0] - 1)
        self.policy.load_state_dict(state)
        self.policy.to(device).eval()
        self.map_actions(weights, num_actions, self.config["env"], self.config.get("action_space"))

    def observe(self, env) -> Graphs:
        """``env``'s ProGraML graph on the agent's device."""
        return observe_graph(env, self.device)

    def policy_probabilities(self, graphs: Graphs, episodes: list[list[int]]) -> np.ndarray:
        """The network's probabilities over the trained table (see :class:`TableAgent`)."""
        history = histograms(episodes, self.num_trained, self.config["episode_length"], self.device)
        with torch.no_grad():
            logits, _ = self.policy(graphs, history)
            return torch.softmax(logits.double(), dim=1).cpu().numpy()
