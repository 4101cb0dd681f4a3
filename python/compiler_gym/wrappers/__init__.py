"""Adapters from compiler_gym's environments to other RL libraries' interfaces."""
