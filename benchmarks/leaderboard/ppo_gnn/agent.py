"""The GNN agent of the llvm_instcount leaderboard: a relational graph convolutional network
in PyTorch Geometric over ProGraML graphs, trained with PPO (``train.py``) on the batches that
``make_vec(..., observation_space="Programl", device=...)`` assembles on the device.

Input: the engine's :class:`~compiler_gym.batches.GraphBatch` as the engine lays it out (node
text vocabulary ids ``x``, ``node_type``, ``ptr``, and per flow the CSR adjacency by source,
``csr[flow]``), on the batch's device (``cpu`` or ``cuda``), with no copy to the host. Nodes
start as the sum of a text and a type embedding; each layer adds to every node a ReLU of one
linear map of the node and its mean neighbour along each flow (control, data, call) in each
direction, then normalizes it (an R-GCN layer with a root weight, a residual connection and
LayerNorm; the six
aggregations are sparse products with PyG ``EdgeIndex`` objects made from the engine's CSR,
one sort per flow and batch for the other direction). A graph is the mean and max of its nodes
(``segment`` over ``ptr``), plus log(1 + nodes) / 10 and the histogram of the episode's actions
divided by the episode length (as the Autophase MLP agent's features, ``../ppo/agent.py``);
two MLP heads give the action logits and the value.

The policy's outputs index the action table it was trained on (``actions.txt`` beside the
weights), mapped to the current table by flag name by the MLP agent's
:class:`TableAgent`, whose zero-shot episode (the most probable action at each of
``episode_length`` steps, rewound to the best prefix) :func:`run_agent` runs.
"""

from __future__ import annotations

import importlib.util
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
from torch_geometric import EdgeIndex
from torch_geometric.utils import segment

from compiler_gym.compiler_env_state import CompilerEnvState

# PyG's EdgeIndex products go through torch's sparse CSR tensors, which warn once that they
# are in beta and unchecked: the CSR comes from the engine, which keeps its invariants.
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


def flow_relations(graphs: Graphs) -> list[tuple]:
    """Each flow's adjacency both ways as PyG ``EdgeIndex`` objects sorted by row, from the
    engine's CSR (row = source: a node's successors) and its transpose (row = target: its
    predecessors; built from the first's cached CSC form, so one sort per flow), each with its
    edges' weights for a mean (1 / the row's degree)."""
    n = graphs.num_nodes
    out = []
    for row_ptr, col in graphs.csr:
        row = torch.repeat_interleave(
            torch.arange(n, device=col.device), row_ptr[1:] - row_ptr[:-1], output_size=col.numel()
        )
        successors = EdgeIndex(torch.stack([row, col]), sparse_size=(n, n), sort_order="row")
        # The transpose from the CSC form (not from EdgeIndex.sort_by("col") after filling the
        # cache: torch_geometric 2.8.1 carries the row pointer over as the column pointer
        # there, and the products by the sorted index come out wrong).
        (col_ptr, sources), _ = successors.fill_cache_().get_csc()
        targets = torch.repeat_interleave(
            torch.arange(n, device=col.device), col_ptr[1:] - col_ptr[:-1], output_size=col.numel()
        )
        predecessors = EdgeIndex(
            torch.stack([targets, sources]), sparse_size=(n, n), sort_order="row"
        )
        out_degree = (row_ptr[1:] - row_ptr[:-1]).clamp(min=1).float()
        in_degree = (col_ptr[1:] - col_ptr[:-1]).clamp(min=1).float()
        out.append((successors, 1 / out_degree[row], predecessors, 1 / in_degree[targets]))
    return out


class FlowConv(nn.Module):
    """One relational graph convolution: ``LayerNorm(h + relu(W [h, mean_r(h) for each relation
    r]))``, the relations being each flow's successors and predecessors (see
    :func:`flow_relations`). The normalization keeps node states of any depth and graph size at
    one scale: without it, the pooled features grew to tens, saturated the heads' first tanh,
    and the trained policy ignored its input (the same distribution at every step)."""

    def __init__(self, hidden: int, flows: int = NUM_FLOWS):
        super().__init__()
        self.linear = nn.Linear((1 + 2 * flows) * hidden, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h: torch.Tensor, relations: Sequence[tuple]) -> torch.Tensor:
        messages = [h]
        for successors, to_successor, predecessors, to_predecessor in relations:
            messages.append(successors.matmul(h, input_value=to_successor))
            messages.append(predecessors.matmul(h, input_value=to_predecessor))
        return self.norm(h + torch.relu(self.linear(torch.cat(messages, dim=1))))


class GnnPolicy(nn.Module):
    """The actor-critic network: ``forward(graphs, history)`` gives the action logits ``[G,
    num_actions]`` and the values ``[G]`` of ``G`` graphs, ``history`` being the episode's
    action counts ``[G, num_actions]`` divided by the episode length."""

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

    def embed(self, graphs: Graphs) -> torch.Tensor:
        """The graphs' embeddings ``[G, 2 * hidden + 1]``: mean and max of the nodes after the
        convolutions, and log(1 + nodes) / 10."""
        text = graphs.x.clamp(0, self.vocabulary)  # a text id past the table: unknown
        h = self.text(text) + self.node_type(graphs.node_type.clamp(0, NUM_NODE_TYPES - 1))
        adjacencies = flow_relations(graphs)
        for conv in self.convs:
            h = conv(h, adjacencies)
        sizes = graphs.ptr[1:] - graphs.ptr[:-1]
        empty = (sizes == 0)[:, None]  # (an env whose episode ended in an error)
        mean = segment(h, graphs.ptr, reduce="mean").masked_fill(empty, 0.0)
        top = segment(h, graphs.ptr, reduce="max").masked_fill(empty, 0.0)
        size = torch.log1p(sizes.to(h.dtype))[:, None] / 10
        return torch.cat([mean, top, size], dim=1)

    def heads(self, embedding: torch.Tensor, history: torch.Tensor):
        """The logits and values of graph embeddings (:meth:`embed`) and histories."""
        features = torch.cat([embedding, history.to(embedding.dtype)], dim=1)
        return self.pi(features), self.vf(features)[:, 0]

    def forward(self, graphs: Graphs, history: torch.Tensor):
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
