"""What CompilerGym's example programs need of the package beyond its own tests (issue 52's
target; the outcome per example is in docs/compilergym.md, "CompilerGym's example programs").

llvm_autotuning and gcc_autotuning define their configurations as pydantic 1 models
(``@root_validator`` without arguments, which pydantic 2 refuses when the class is made)
with a ``compiler_gym.util.executor.Executor`` field, so those examples run only where
pydantic 1 is installed, as it was with CompilerGym. These tests install pydantic 1 into a
temporary folder (``pip install --target``) and run the checks in a subprocess with it first
on the path; they skip and say why when pip cannot install it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import pip_install_into, run_python


@pytest.fixture(scope="module")
def pydantic_v1(tmp_path_factory) -> Path:
    """A folder holding pydantic 1 (installed with pip); skips when pip cannot."""
    target = tmp_path_factory.mktemp("pydantic-v1")
    return pip_install_into(target, ["pydantic>=1.10,<2"], "pydantic 1")


# A configuration as llvm_autotuning's experiment defines it (a pydantic 1 model with a root
# validator and an Executor field), parsed from a Hydra-like dict; then the executor runs a job.
PYDANTIC_V1_CONFIG = """
    import json, pickle
    import pydantic
    from pydantic import BaseModel, Field, ValidationError, root_validator
    from compiler_gym.util.executor import Executor, FrozenExecutorError

    class Experiment(BaseModel):
        experiment: str = "unnamed"
        executor: Executor = Field(default_factory=lambda: Executor(type="debug"))

        @root_validator
        def named(cls, values):
            if not values.get("experiment"):
                raise ValueError("experiment must be named")
            return values

    config = {"experiment": "exp", "executor": {"type": "local", "cpus": 2, "extra": 1}}
    experiment = Experiment(**config)
    executor = experiment.executor
    result = {
        "pydantic": pydantic.VERSION,
        "fields": {k: str(v) for k, v in executor.dict().items()},
        "round_trip": [
            Executor.parse_raw(executor.json()) == executor,
            Executor.model_validate(executor.model_dump()) == executor,
            Executor.model_validate_json(executor.model_dump_json()) == executor,
            pickle.loads(pickle.dumps(executor)) == executor,
            hash(Executor(type="local", cpus=2)) == hash(executor),
        ],
        "default_block": [Executor(type=t).block for t in ("local", "noop", "debug")],
        "every_cpu": Executor(type="slurm", slurm_partition="p", cpus=-1).cpus,
        "type": repr(Executor.Type.SLURM),
    }
    errors = []
    for bad in ({"type": "cloud"}, {"type": "slurm"}, {"type": "local", "cpus": True},
                {"type": "local", "cpus": 0}, {"type": "local", "gpus": -1},
                {"type": "local", "timeout_hours": 0}):
        try:
            Experiment(executor=bad)
        except ValidationError as e:
            errors.append(e.errors()[0]["msg"])
    result["errors"] = errors
    try:
        executor.cpus = 3
    except FrozenExecutorError as e:
        result["frozen"] = [str(e), isinstance(e, TypeError), isinstance(e, AttributeError)]
    with Executor(type="debug").get_executor(logs_dir=".") as ex:
        job = ex.submit(sum, [1, 2, 3])
    result["job"] = job.result()
    print(json.dumps(result))
"""


def test_executor_is_a_field_of_a_pydantic_v1_model(pydantic_v1: Path, tmp_path: Path):
    """With pydantic 1 installed, Executor is a pydantic 1 model: a field of a CompilerGym
    example's pydantic 1 configuration, with the same checks, messages and methods (both
    pydantic's names) as under pydantic 2."""
    result = run_python(PYDANTIC_V1_CONFIG, tmp_path, first_on_path=pydantic_v1)
    assert result["pydantic"].startswith("1.")
    assert result["fields"] == {
        "type": "Type.LOCAL",
        "slurm_partition": "None",
        "cpus": "2",
        "gpus": "0",
        "timeout_hours": "12.0",
        "block": "True",
    }
    assert result["round_trip"] == [True] * 5
    assert result["default_block"] == [True, True, False]
    assert result["every_cpu"] == -1  # -1 is every CPU of each slurm job, kept as given
    assert result["type"] == "<Type.SLURM: 'slurm'>"
    assert result["errors"] == [
        "unknown executor type 'cloud'; one of: slurm, local, debug, noop",
        "a slurm executor needs a slurm_partition",
        "cpus is an integer, not True",
        "cpus is a positive integer or -1 (every CPU), not 0",
        "gpus is an integer >= 0, not -1",
        "timeout_hours must be positive, not 0.0",
    ]
    assert result["frozen"] == ["cannot assign to field 'cpus': an Executor is fixed", True, True]
    assert result["job"] == 6


def test_executor_type_is_named_and_pickled_as_executor_type():
    """``Executor.Type`` prints and pickles as the Executor's attribute (a job's arguments
    cross processes by pickle), under the installed pydantic."""
    import pickle

    from compiler_gym.util.executor import Executor

    assert Executor.Type.__qualname__ == "Executor.Type"
    assert repr(Executor.Type.DEBUG) == "<Type.DEBUG: 'debug'>"
    assert pickle.loads(pickle.dumps(Executor.Type.LOCAL)) is Executor.Type.LOCAL
    executor = Executor(type="noop")
    assert pickle.loads(pickle.dumps(executor)) == executor
