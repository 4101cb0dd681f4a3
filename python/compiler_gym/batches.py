"""Batched forms of variable-size observations from the vector engine, as torch tensors.

``make_vec(..., observation_space=...)`` returns, per batch:

* a fixed-size space (Autophase, InstCount, ...): one ``[num_envs, D]`` tensor;
* a ragged space (``Inst2vecEmbeddingIndices``, ``Runtime``): a :class:`RaggedBatch`
  (``values`` back to back and ``offsets [num_envs + 1]``);
* ``Inst2vec``: a :class:`PaddedBatch` (``values [num_envs, L, 200]`` zero-padded, ``lengths``),
  gathered from the embedding table on the batch's device;
* ``Programl``: a :class:`GraphBatch` in PyTorch Geometric's layout (``x``, ``edge_index``,
  ``edge_attr``, ``batch``, ``ptr``), assembled by the engine's kernels on the batch's device.

All tensors share memory with the engine's buffers (DLPack); on ``device="cuda"`` they live on
the GPU and are ready on PyTorch's current stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch


def to_tensor(value: Any) -> torch.Tensor:
    """A torch view of an engine array (``_C.DeviceArray``) or NumPy array, without a copy."""
    if hasattr(value, "dtype") and str(value.dtype) == "bool":
        return torch.from_numpy(value)
    return torch.from_dlpack(value)


def to_numpy(value: Any) -> Any:
    """A batch output as a NumPy array on the host: NumPy arrays and lists as arrays, tensors and
    engine arrays through a view, copied back from the GPU on ``device="cuda"``."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__dlpack__"):
        return np.asarray(value)
    tensor = value if isinstance(value, torch.Tensor) else to_tensor(value)
    return tensor.detach().cpu().numpy()


@dataclass
class RaggedBatch:
    """Variable-length rows: row ``i`` is ``values[offsets[i]:offsets[i + 1]]``."""

    values: torch.Tensor
    offsets: torch.Tensor

    @classmethod
    def from_engine(cls, d: dict) -> RaggedBatch:
        """The batch of an engine slab's ragged output (``values`` and ``offsets``)."""
        return cls(to_tensor(d["values"]), to_tensor(d["offsets"]))

    def __len__(self) -> int:
        return self.offsets.numel() - 1

    def __getitem__(self, i: int) -> torch.Tensor:
        offsets = self.offsets.tolist() if self.offsets.is_cuda else self.offsets
        return self.values[int(offsets[i]) : int(offsets[i + 1])]

    def lengths(self) -> torch.Tensor:
        """The number of values of each row."""
        return self.offsets[1:] - self.offsets[:-1]


@dataclass
class PaddedBatch:
    """Sequences padded with zeros to the longest: ``values [N, L, D]`` and ``lengths [N]``."""

    values: torch.Tensor
    lengths: torch.Tensor

    @classmethod
    def from_engine(cls, d: dict) -> PaddedBatch:
        """The batch of an engine slab's padded output (``values`` and ``lengths``)."""
        return cls(to_tensor(d["values"]), to_tensor(d["lengths"]))

    def __len__(self) -> int:
        return self.values.shape[0]

    def __getitem__(self, i: int) -> torch.Tensor:
        return self.values[i, : int(self.lengths[i])]

    def mask(self) -> torch.Tensor:
        """``[N, L]`` bool: True where a position holds a value."""
        positions = torch.arange(self.values.shape[1], device=self.values.device)
        return positions[None, :] < self.lengths[:, None]


@dataclass
class GraphBatch:
    """Graphs of a batch in PyTorch Geometric's layout.

    ``x`` node-text vocabulary ids ``[N]``, ``node_type [N]``, ``edge_index [2, E]`` (global
    node ids), ``edge_flow [E]``, ``edge_position [E]``, ``edge_attr [E, 2]`` (flow, position),
    ``batch [N]`` (graph of each node), ``ptr [G + 1]`` (first node of each graph), and
    ``csr[flow] = (row_ptr [N + 1], col, edge_ids)``: the adjacency of each flow (0 control,
    1 data, 2 call) sorted by source node.
    """

    x: torch.Tensor
    node_type: torch.Tensor
    edge_index: torch.Tensor
    edge_flow: torch.Tensor
    edge_position: torch.Tensor
    batch: torch.Tensor
    ptr: torch.Tensor
    csr: list

    @classmethod
    def from_engine(cls, d: dict) -> GraphBatch:
        """The batch of an engine slab's graph output (PyG arrays and one CSR per flow)."""
        csr = [
            (to_tensor(r), to_tensor(c), to_tensor(e))
            for r, c, e in zip(d["csr_row_ptr"], d["csr_col"], d["csr_edge"], strict=True)
        ]
        return cls(
            x=to_tensor(d["x"]),
            node_type=to_tensor(d["node_type"]),
            edge_index=to_tensor(d["edge_index"]),
            edge_flow=to_tensor(d["edge_flow"]),
            edge_position=to_tensor(d["edge_position"]),
            batch=to_tensor(d["batch"]),
            ptr=to_tensor(d["ptr"]),
            csr=csr,
        )

    @property
    def edge_attr(self) -> torch.Tensor:
        """``[E, 2]``: each edge's flow and position."""
        return torch.stack([self.edge_flow, self.edge_position], dim=1)

    @property
    def num_graphs(self) -> int:
        """The number of graphs in the batch (``len(ptr) - 1``)."""
        return self.ptr.numel() - 1

    @property
    def num_nodes(self) -> int:
        """The number of nodes of all the batch's graphs together."""
        return self.x.numel()

    def to_pyg(self):
        """A ``torch_geometric.data.Batch`` (needs torch_geometric, not a dependency)."""
        from torch_geometric.data import Batch

        return Batch(
            x=self.x,
            node_type=self.node_type,
            edge_index=self.edge_index,
            edge_attr=self.edge_attr,
            batch=self.batch,
            ptr=self.ptr,
        )


def from_engine(value: Any) -> Any:
    """Turns one observation of an engine batch into tensors (see the module docstring)."""
    if isinstance(value, dict):
        if "edge_index" in value:
            return GraphBatch.from_engine(value)
        if "lengths" in value:
            return PaddedBatch.from_engine(value)
        return RaggedBatch.from_engine(value)
    if isinstance(value, list):  # text, bytes, JSON: one Python value per env
        return value
    return to_tensor(value)
