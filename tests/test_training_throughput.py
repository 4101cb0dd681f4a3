"""benchmarks/training_throughput.py: the rows it writes, one per agent, in the issue's schema."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load():
    name = "training_throughput"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / "training_throughput.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_one_row_per_agent_in_the_schema():
    throughput = _load()
    flags = {"num_envs": 64, "device": "cpu"}
    results = {
        "mlp": {"env_steps_per_s": 590.7, "train_steps_per_s": 585.6, "threads": 2, "x": 1},
        "gnn": {"env_steps_per_s": 356.6, "train_steps_per_s": 208.9, "threads": 2},
    }
    assert throughput.rows(results, flags) == [
        {
            "agent": "mlp",
            "num_envs": 64,
            "threads": 2,
            "device": "cpu",
            "env_steps_per_s": 590.7,
            "train_steps_per_s": 585.6,
        },
        {
            "agent": "gnn",
            "num_envs": 64,
            "threads": 2,
            "device": "cpu",
            "env_steps_per_s": 356.6,
            "train_steps_per_s": 208.9,
        },
    ]
    assert throughput._config_threads("gnn") == 2 and throughput._config_threads("mlp") == 2
