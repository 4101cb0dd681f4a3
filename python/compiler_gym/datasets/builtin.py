"""benchmark://builtin-v0: C programs written for this project, runnable and self-checking."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cached_property

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.util.names import did_you_mean
from compiler_gym.util.runfiles import package_data_path


class UnknownInputDataset(LookupError, ValueError):
    """A ``?dataset=`` a program has no input for: a ``LookupError``, and a ``ValueError`` as
    CompilerGym's cBench raised ("Invalid dataset: N")."""


class BuiltinDataset(Dataset):
    """Programs from ``compiler_gym/data/builtin-v0``; ``?dataset=N`` picks the input size."""

    def __init__(self):
        self._root = package_data_path("builtin-v0")
        super().__init__(
            name="benchmark://builtin-v0",
            description="C programs in the domains of cBench/MiBench, written for compiler_gym",
            license="MIT",
            sort_order=-10,
        )

    @property
    def size(self) -> int:
        return len(self._manifest)

    @cached_property
    def _manifest(self) -> dict:
        with open(self._root / "manifest.json") as f:
            return {b["name"]: b for b in json.load(f)["benchmarks"]}

    def benchmark_uris(self) -> Iterator[str]:
        for name in sorted(self._manifest):
            yield f"{self.name}/{name}"

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        entry = self._manifest.get(uri.name)
        if entry is None:
            hint = did_you_mean(uri.name, self._manifest)
            raise LookupError(f"Benchmark not found: {uri}{hint}")
        dataset = uri.params.get("dataset", ["1"])[0]
        if dataset not in entry["datasets"]:
            raise UnknownInputDataset(
                f"Invalid dataset: {dataset}: {uri} has no input dataset {dataset!r} (choose "
                f"from {sorted(entry['datasets'])})"
            )
        return Benchmark(
            str(uri),
            files=[str(self._root / "src" / f"{uri.name}.c")],
            link_args=["-lm"] if entry.get("needs_libm") else [],
            run_args=[dataset],
            buildable=True,
            runnable=True,
            expected_output=entry["datasets"][dataset],
        )
