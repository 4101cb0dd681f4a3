"""ExampleEnv: the example family (``example-v0``), the template for a new one.

The C++ side is ``envs/example/example_env.{h,cc}``: a list of up to 8 integers that actions
sort by swapping neighbours, with the number of inversions as its cost. This module is all the
Python a family needs: a ``CompilerEnv`` subclass that names its engine family, its datasets,
and its own properties. ``compiler_gym.make`` finds it by the family's name
(``compiler_gym.envs.<family>_env``), and the vector engine, Gymnasium, state CSVs and
validation use it unchanged.

>>> env = compiler_gym.make("example-v0", observation_space="values")
>>> env.reset(benchmark="example-v0/3")
array([8, 0, 1, 2, 1, 8, 8, 5])
>>> env.multistep(env.sort_actions())[1:3]   # the reward is the inversions removed
(8.0, False)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Optional

import numpy as np

from compiler_gym.datasets import Benchmark, Dataset, Datasets
from compiler_gym.datasets.benchmark import BenchmarkUri
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.state_summary import StateSummary


class ExampleDataset(Dataset):
    """``benchmark://example-v0/<n>``, n in 0..99: 8 digits drawn from NumPy's generator
    seeded with n, as the text the C++ env reads (``"3 1 4 1 5 9 2 6"``)."""

    def __init__(self):
        super().__init__(
            name="benchmark://example-v0",
            description="Lists of 8 digits for the example family",
            license="MIT",
            size=100,
        )

    def benchmark_uris(self) -> Iterator[str]:
        for n in range(self.size):
            yield f"{self.name}/{n}"

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        if not uri.name.isdigit() or int(uri.name) >= self.size:
            raise LookupError(f"Benchmark not found: {uri}")
        digits = np.random.default_rng(int(uri.name)).integers(0, 10, size=8)
        return Benchmark(str(uri), data=" ".join(map(str, digits)).encode())


class ExampleEnv(CompilerEnv):
    """The example family: sort a list by swapping neighbours (``swap-i``); observations
    ``values``, ``program``, ``inversions``; rewards ``inversions`` and ``inversions_norm``."""

    family = "example"  # the engine's family: what make() finds this class by
    gymnasium_observation = "values"
    gymnasium_reward = "inversions"
    render_observation = "program"
    # What the explorer shows of a state: identified by its list, headed by the inversions.
    state_summary = StateSummary(
        identity=("program",),
        headline=("inversions", "Inversions", "inversions"),
        text=("program", "List"),
    )

    def __init__(self, env_id: str = "example-v0", datasets: Optional[Datasets] = None, **kwargs):
        super().__init__(env_id, datasets=datasets or Datasets([ExampleDataset()]), **kwargs)

    def sort_actions(self) -> list[int]:
        """Actions that sort the current list (a bubble sort, computed by the C++ env)."""
        return json.loads(self._env.call("sort_actions"))
