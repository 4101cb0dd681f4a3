"""Trained-policy networks a user imports: the Autophase MLP and the ProGraML GNN.

    from compiler_gym.agents.mlp import MlpPolicy        # Autophase + action-history features
    from compiler_gym.agents.gnn import GnnPolicy, Graphs  # ProGraML graphs, message passing

The modules need PyTorch and are imported only when named (``import compiler_gym`` does not
import them, nor torch). :mod:`compiler_gym.agents.table` (no torch) maps a policy's outputs to
the current action table by flag name and runs its zero-shot episode; the PPO trainer of both
networks is :mod:`compiler_gym.train`.
"""
