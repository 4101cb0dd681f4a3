"""compiler_gym.util.executor.Executor as CompilerGym's examples use it (issue 52, item 4): a
pydantic model that their configs build and serialise, and jobs that read the absl flags the
submitting script parsed, in worker processes as in this one."""

from __future__ import annotations

import json
import os
import pickle
import warnings
from collections.abc import Iterator, Mapping

import pydantic
import pytest
from absl import flags

from compiler_gym.util.executor import Executor, FrozenExecutorError

FLAGS = flags.FLAGS

# Defined at import, as a script defines its flags: a spawned worker that unpickles a job of
# this module imports it, and so defines them too (unparsed, until the job sets them).
if "executor_test_number" not in FLAGS:
    flags.DEFINE_integer("executor_test_number", 1, "a number jobs read", lower_bound=0)
    flags.DEFINE_multi_string("executor_test_words", [], "words jobs read")
    flags.DEFINE_bool("executor_test_switch", False, "a switch jobs read")


def read_flags() -> tuple:
    """A job: the flags as it sees them, and the process it ran in."""
    return (
        FLAGS.executor_test_number,
        list(FLAGS.executor_test_words),
        FLAGS.executor_test_switch,
        FLAGS["executor_test_number"].present,
        os.getpid(),
    )


def read_number() -> int:
    """A job that reads one flag."""
    return FLAGS.executor_test_number


@pytest.fixture
def absl_flags() -> Iterator[flags.FlagValues]:
    """absl's FLAGS, unparsed again after the test."""
    FLAGS.unparse_flags()
    yield FLAGS
    FLAGS.unparse_flags()


class ConfigNode(Mapping):
    """A read-only mapping that is not a dict, as Hydra's ``DictConfig`` is."""

    def __init__(self, items: dict):
        self._items = items

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class Experiment(pydantic.BaseModel):
    """A caller's model with an executor field, as llvm_autotuning's ``Experiment``."""

    executor: Executor
    num_replicas: int = 1


# -------------------------------------------------------------------------------------------
# The model.


def test_compilergym_s_fields_and_defaults():
    assert list(Executor.model_fields) == [
        "type",
        "slurm_partition",
        "cpus",
        "gpus",
        "timeout_hours",
        "block",
    ]
    assert Executor(type="debug").model_dump() == {
        "type": Executor.Type.DEBUG,
        "slurm_partition": None,
        "cpus": 1,
        "gpus": 0,
        "timeout_hours": 12.0,
        "block": False,
    }
    assert [t.value for t in Executor.Type] == ["slurm", "local", "debug", "noop"]
    # local and noop always block; the others keep what they are given.
    assert Executor(type="local", block=False).block is True
    assert Executor(type="noop").block is True
    assert Executor(type="debug", block=True).block is True
    assert Executor(type="slurm", slurm_partition="learn").block is False
    # -1 CPUs is every CPU for local; a slurm job keeps it for its scheduler.
    assert Executor(type="local", cpus=-1).cpus == os.cpu_count()
    assert Executor(type="slurm", slurm_partition="p", cpus=-1).cpus == -1


def test_round_trips_through_each_api_without_warnings():
    config = {"type": "slurm", "slurm_partition": "learn", "cpus": 8, "gpus": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pydantic v2 warns on v1 names it does not alias
        executor = Executor(**config)
        for parsed in (Executor.parse_obj(config), Executor.model_validate(config)):
            assert parsed == executor
        expected = {**config, "type": Executor.Type.SLURM, "timeout_hours": 12.0, "block": False}
        assert executor.dict() == executor.model_dump() == expected
        assert executor.dict()["type"] == "slurm"  # a str enum: equal to its name
        assert (
            json.loads(executor.json())
            == json.loads(executor.model_dump_json())
            == {
                **expected,
                "type": "slurm",
            }
        )
        assert Executor.parse_raw(executor.json()) == executor
        assert Executor.model_validate_json(executor.model_dump_json()) == executor
        assert Executor(**executor.dict()) == executor
        assert Executor(**json.loads(executor.json())) == executor
    assert hash(Executor(**config)) == hash(executor)  # frozen models hash by value
    # llvm_rl pickles its model, executor included, into each job.
    assert pickle.loads(pickle.dumps(executor)) == executor


def test_a_callers_model_builds_it_from_a_config_node():
    """llvm_autotuning's way: ``Experiment(**config)`` with the executor section a mapping
    (Hydra's DictConfig), unknown keys ignored as pydantic v1 ignored them."""
    experiment = Experiment(
        **ConfigNode({"executor": ConfigNode({"type": "local", "cpus": 3, "note": "x"})})
    )
    assert experiment.executor == Executor(type="local", cpus=3)
    assert experiment.executor.block is True
    assert Experiment.model_validate_json(experiment.model_dump_json()) == experiment
    with pytest.raises(pydantic.ValidationError) as error:
        Experiment(executor={"type": "cloud"})
    assert error.value.errors()[0]["loc"] == ("executor", "type")


@pytest.mark.parametrize(
    "config, loc, message",
    [
        ({"type": "cloud"}, "type", "unknown executor type 'cloud'; one of: slurm, local, debug"),
        ({"type": "slurm"}, "slurm_partition", "a slurm executor needs a slurm_partition"),
        ({"type": "local", "cpus": 0}, "cpus", "cpus is a positive integer or -1"),
        ({"type": "local", "cpus": -2}, "cpus", "cpus is a positive integer or -1"),
        ({"type": "local", "cpus": True}, "cpus", "cpus is an integer, not True"),
        ({"type": "local", "cpus": 2.5}, "cpus", "fractional part"),
        ({"type": "local", "gpus": -1}, "gpus", "gpus is an integer >= 0, not -1"),
        ({"type": "local", "timeout_hours": 0}, "timeout_hours", "must be positive, not 0"),
    ],
)
def test_bad_settings_are_pydantic_validation_errors(config, loc, message):
    with pytest.raises(pydantic.ValidationError, match=message) as error:
        Executor(**config)
    assert isinstance(error.value, ValueError)
    assert [e["loc"] for e in error.value.errors()] == [(loc,)]


def test_fields_are_fixed_once_made():
    executor = Executor(type="local", cpus=2)
    with pytest.raises(AttributeError):  # as the frozen dataclass it was
        executor.cpus = 3
    with pytest.raises(TypeError, match="'type'"):  # as CompilerGym's allow_mutation=False
        executor.type = "debug"
    with pytest.raises(FrozenExecutorError):
        del executor.gpus
    assert (executor.cpus, executor.type, executor.gpus) == (2, Executor.Type.LOCAL, 0)


# -------------------------------------------------------------------------------------------
# Jobs and the submitting script's absl flags.


def test_local_jobs_see_the_flags_parsed_when_they_were_submitted(absl_flags, tmp_path):
    absl_flags(["tune.py", "--executor_test_number=7", "--executor_test_words=a"])
    absl_flags.executor_test_switch = True  # set after parsing, as a script may
    with Executor(type="local", cpus=1).get_executor(logs_dir=tmp_path) as ex:
        first = ex.submit(read_flags)
        absl_flags.executor_test_number = 9
        absl_flags.executor_test_words = ["b", "c"]
        absl_flags.executor_test_switch = False
        second = ex.submit(read_flags)
    number, words, switch, present, pid = first.result()
    assert (number, words, switch, present) == (7, ["a"], True, 1)
    assert pid != os.getpid()
    # One worker ran both: the second job's flags replaced the first's, lists included.
    assert second.result() == (9, ["b", "c"], False, 1, pid)


def test_local_jobs_of_an_unparsed_script_find_the_flags_unparsed(absl_flags, tmp_path):
    """Nothing to pass on: a job reading a flag fails, as in the submitting process."""
    with pytest.raises(flags.UnparsedFlagAccessError):
        with Executor(type="local", cpus=1).get_executor(logs_dir=tmp_path) as ex:
            ex.submit(read_number)


def test_debug_jobs_see_the_flags_in_this_process(absl_flags, tmp_path):
    absl_flags(["tune.py", "--executor_test_number=5", "--executor_test_switch"])
    with Executor(type="debug").get_executor(logs_dir=tmp_path) as ex:
        job = ex.submit(read_flags)
    assert job.result() == (5, [], True, 1, os.getpid())
