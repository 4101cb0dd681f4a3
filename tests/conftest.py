"""Shared fixtures for the integration tests."""

import shutil
from pathlib import Path

import pytest

import compiler_gym

DATA = Path(__file__).parent / "data"


@pytest.fixture
def env():
    """llvm-v0 on the default benchmark, reset."""
    with compiler_gym.make("llvm-v0") as e:
        e.reset()
        yield e


@pytest.fixture(scope="session")
def opt19():
    path = shutil.which("opt-19")
    if path is None:
        pytest.skip("opt-19 is not installed")
    return path


def fixture_uri(name: str) -> str:
    return f"file://{DATA / name}"
