"""Errors of downloads: a failed or refused fetch, and a server that asks us to slow down."""

from compiler_gym.errors.dataset_errors import DatasetInitError


class DownloadFailed(DatasetInitError):
    """A download failed, or what it fetched does not match its sha256."""


class TooManyRequests(DownloadFailed):
    """The server refused a download with HTTP 429 (Too Many Requests): try again later."""
