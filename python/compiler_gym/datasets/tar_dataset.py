"""CompilerGym's ``compiler_gym.datasets.tar_dataset``: a dataset of a tarball's files."""

from compiler_gym.datasets.user import TarDataset

__all__ = ["TarDataset"]
