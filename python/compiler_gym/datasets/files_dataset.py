"""CompilerGym's ``compiler_gym.datasets.files_dataset``: a dataset of a folder's files."""

from compiler_gym.datasets.user import FilesDataset

__all__ = ["FilesDataset"]
