"""The GNN agent of the llvm_instcount leaderboard: the package's ProGraML GNN policy
(:mod:`compiler_gym.agents.gnn`) with the committed weights and settings beside this file.

The policy's outputs index the action table it was trained on (``actions.txt`` beside the
weights), mapped to the current table by flag name (:class:`~compiler_gym.agents.table.
TableAgent`); :func:`run_agent` runs its zero-shot episode (the most probable action at each of
``episode_length`` steps, rewound to the best prefix). Training: ``train.py`` (the package's
trainer, :mod:`compiler_gym.train`). The names of the package's modules are re-exported here
so that ``from agent import GnnPolicy, Graphs, Plan, ...`` keeps working.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from compiler_gym.agents import gnn as _gnn
from compiler_gym.agents.gnn import (  # noqa: F401  (re-exported)
    FlowConv,
    GnnPolicy,
    Graphs,
    LayerPlan,
    Plan,
    histograms,
    make_policy,
    observe_graph,
    vocabulary_size,
)
from compiler_gym.agents.table import ACTIONS  # noqa: F401  (re-exported)
from compiler_gym.agents.table import load_config as _load_config
from compiler_gym.agents.table import run_agent as _run_agent
from compiler_gym.compiler_env_state import CompilerEnvState

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "config.json"
WEIGHTS = HERE / "ppo_gnn-llvm_instcount.pt"


def load_config(path: Path = CONFIG) -> dict[str, Any]:
    """The training and evaluation settings (``config.json``)."""
    return _load_config(path)


class GnnAgent(_gnn.GnnAgent):
    """The trained GNN policy (by default the committed weights and this entry's settings)."""

    def __init__(self, weights: Path = WEIGHTS, config: Path = CONFIG, device: str = "cpu"):
        super().__init__(weights, config, device)


def run_agent(
    env: Any, benchmark: Any = None, agent: Optional[GnnAgent] = None
) -> CompilerEnvState:
    """Runs the agent zero-shot on one program, as the leaderboard entry does, and returns the
    final state:

        from agent import run_agent                        # benchmarks/leaderboard/ppo_gnn
        state = run_agent("llvm-ic-v0", "builtin-v0/qsort")
        state = run_agent(env)                             # env stepped in place

    ``env`` is an env (stepped from the start of its benchmark, or of ``benchmark``, and left
    in the final state) or an env id, made here on ``benchmark`` and closed at the end; its
    reward space picks the best prefix. ``agent`` reuses a loaded :class:`GnnAgent` (default:
    the committed weights)."""
    return _run_agent(env, benchmark, agent=agent or GnnAgent())
