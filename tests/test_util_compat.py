"""CompilerGym's helper modules that user scripts import: compiler_gym.util.{shell_format,
capture_output, tabulate, temporary_working_directory, statistics, logging, executor,
runfiles_path, flags} and the random_replay tool, on fixed inputs."""

import json
import logging
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from absl import app, flags

import compiler_gym
import compiler_gym.util.flags.episode_length  # noqa: F401
import compiler_gym.util.flags.episodes  # noqa: F401
import compiler_gym.util.flags.learning_rate  # noqa: F401
import compiler_gym.util.flags.nproc  # noqa: F401
import compiler_gym.util.flags.output_dir  # noqa: F401
import compiler_gym.util.flags.seed  # noqa: F401
from compiler_gym.bin import random_replay
from compiler_gym.datasets import Benchmark
from compiler_gym.random_search import random_search
from compiler_gym.util.capture_output import capture_output
from compiler_gym.util.executor import Executor
from compiler_gym.util.flags.benchmark_from_flags import benchmark_from_flags
from compiler_gym.util.flags.env_from_flags import env_from_flags, env_session_from_flags
from compiler_gym.util.logging import init_logging
from compiler_gym.util.runfiles_path import create_user_logs_dir, transient_cache_path
from compiler_gym.util.shell_format import ShellFormatCodes, emph, indent, join_cmd, plural
from compiler_gym.util.statistics import arithmetic_mean, geometric_mean, stdev
from compiler_gym.util.tabulate import tabulate
from compiler_gym.util.temporary_working_directory import temporary_working_directory

DATA = Path(__file__).parent / "data"
FLAGS = flags.FLAGS


# shell_format, capture_output, tabulate, statistics


def test_shell_format_exact_strings():
    assert emph("qsort") == "\033[1m\033[94mqsort\033[0m"
    assert emph(3) == ShellFormatCodes.BOLD + ShellFormatCodes.BLUE + "3" + ShellFormatCodes.END
    assert [plural(n, "pass", "passes") for n in (0, 1, 2)] == ["passes", "pass", "passes"]
    assert indent("a\n\nb", n=2) == "  a\n  \n  b"
    assert indent(12) == "    12"
    assert join_cmd(["opt", "-O2", "my file.ll", "it's", Path("/x")]) == (
        "opt -O2 'my file.ll' 'it'\"'\"'s' /x"
    )


def test_capture_output_captures_both_streams_and_restores_them():
    stdout, stderr = sys.stdout, sys.stderr
    with capture_output() as out:
        print("to stdout")
        print("to stderr", file=sys.stderr)
        sys.stdout.write("no newline")
    assert out.stdout == "to stdout\nno newline"
    assert out.stderr == "to stderr\n"
    assert (sys.stdout, sys.stderr) == (stdout, stderr)

    with pytest.raises(KeyError), capture_output() as out:
        print("before the error")
        raise KeyError("x")
    assert out.stdout == "before the error\n" and sys.stdout is stdout


def test_tabulate_csv_tsv_and_the_librarys_formats():
    rows = [("qsort", 0.5), ("a,b", 2)]
    assert tabulate(rows, headers=("benchmark", "reward"), tablefmt="csv") == (
        'benchmark,reward\nqsort,0.5\n"a,b",2\n'
    )
    assert tabulate(rows, headers=("benchmark", "reward"), tablefmt="tsv") == (
        "benchmark\treward\nqsort\t0.5\na,b\t2\n"
    )
    assert (
        tabulate([("x", 1)], headers=("name", "n"), tablefmt="plain") == "name      n\nx         1"
    )
    assert tabulate([("x", 1)], headers=("a", "b")).startswith("+-----+-----+\n| a   |   b |")


def test_statistics_are_zero_for_no_values():
    assert arithmetic_mean([1, 2, 3, 6]) == 3.0
    assert stdev([2, 4, 4, 4, 5, 5, 7, 9]) == 2.0  # the population deviation
    assert geometric_mean([1.0, 4.0]) == pytest.approx(2.0)
    assert arithmetic_mean([]) == stdev([]) == geometric_mean([]) == 0.0


def test_temporary_working_directory(tmp_path):
    start = os.getcwd()
    with temporary_working_directory() as d:
        assert Path.cwd() == d.resolve() and d.name.startswith("compiler_gym-")
        Path("file.txt").write_text("x")
    assert os.getcwd() == start and not d.exists()
    with pytest.raises(RuntimeError), temporary_working_directory(tmp_path) as d:
        assert d == tmp_path and Path.cwd() == tmp_path.resolve()
        raise RuntimeError
    assert os.getcwd() == start and tmp_path.is_dir()


def test_init_logging_prints_each_message_once_to_stdout():
    logger = logging.getLogger("test_util_compat")
    try:
        with capture_output() as out:
            init_logging(logging.INFO, logger=logger)
            init_logging(logging.WARNING, logger=logger)  # replaces, not adds
            logger.info("hidden")
            logger.warning("shown %d", 1)
        assert re.fullmatch(r"\d{4} \d\d:\d\d:\d\d test_util_compat\] shown 1\n", out.stdout)
        assert logger.level == logging.WARNING
    finally:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)


# runfiles_path


def test_create_user_logs_dir_under_the_logs_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_LOGS", str(tmp_path / "logs"))
    first = create_user_logs_dir("my_experiment")
    second = create_user_logs_dir("my_experiment")  # unique: waits for the next second
    for d in (first, second):
        relative = d.relative_to(tmp_path / "logs" / "my_experiment")
        assert re.fullmatch(r"\d{4}-\d\d-\d\d/\d\d-\d\d-\d\d", relative.as_posix())
        assert d.is_dir()
    assert first != second
    latest = tmp_path / "logs" / "my_experiment" / "latest"
    assert latest.is_symlink() and not os.readlink(latest).startswith("/")  # relative link
    assert latest.resolve() == second.resolve()
    assert sorted(p.name for p in latest.parent.iterdir()) == [first.parts[-2], "latest"]

    # Without the variable: `dir`, else ~/logs/compiler_gym.
    monkeypatch.delenv("COMPILER_GYM_LOGS")
    assert create_user_logs_dir("run", dir=tmp_path / "given").parent.parent == (
        tmp_path / "given" / "run"
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    home = create_user_logs_dir("run")
    assert home.parent.parent == tmp_path / "home" / "logs" / "compiler_gym" / "run"
    for bad in ("", "../escape", str(tmp_path / "absolute")):
        with pytest.raises(ValueError, match="relative path"):
            create_user_logs_dir(bad)


def test_transient_cache_path_makes_its_directory(tmp_path, monkeypatch):
    root = tmp_path / "transient"
    monkeypatch.setenv("COMPILER_GYM_TRANSIENT_CACHE", str(root))
    assert transient_cache_path(".") == root and root.is_dir()
    with tempfile.TemporaryDirectory(dir=transient_cache_path(".")) as d:  # CompilerGym's use
        assert Path(d).parent == root
    path = transient_cache_path("a", "b.txt")
    assert path == root / "a" / "b.txt" and path.parent.is_dir() and not path.exists()


# flags


@pytest.fixture
def parse_flags():
    """Parses a command line into absl's FLAGS, from their defaults (absl keeps the values of an
    earlier parse); the flags go back to their defaults after the test."""

    def parse(*args: str) -> list[str]:
        FLAGS.unparse_flags()
        return FLAGS(["prog", *args])

    yield parse
    FLAGS.unparse_flags()


def test_import_compiler_gym_does_not_import_absl():
    code = "import sys, compiler_gym; print(sorted(m for m in sys.modules if 'absl' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_each_flag_is_defined_by_one_module_with_compiler_gyms_default(parse_flags):
    parse_flags()
    defaults = {
        "benchmark_from_flags": {"benchmark": None},
        "env_from_flags": {"env": "llvm-v0", "observation": None, "reward": None, "ls_env": False},
        "episode_length": {"episode_length": 5},
        "episodes": {"episodes": 2000},
        "learning_rate": {"learning_rate": 0.008},
        "nproc": {"nproc": os.cpu_count()},
        "output_dir": {"output_dir": None},
        "seed": {"seed": 0xCC},
    }
    by_module = FLAGS.flags_by_module_dict()
    for module, values in defaults.items():
        defined = {f.name for f in by_module[f"compiler_gym.util.flags.{module}"]}
        assert set(values) <= defined, module
        assert {name: FLAGS[name].value for name in values} == values


def test_env_from_flags_makes_the_env_the_flags_describe(parse_flags):
    parse_flags(
        "--env=llvm-ic-v0",
        "--observation=Autophase",
        "--reward=IrInstructionCount",
        "--benchmark=builtin-v0/crc32",
    )
    assert benchmark_from_flags() == "builtin-v0/crc32"
    with env_from_flags(benchmark=benchmark_from_flags()) as env:
        assert env.env_id == "llvm-ic-v0"
        assert env.observation_space_spec.id == "Autophase"
        assert env.reward_space.name == "IrInstructionCount"
        assert env.reset().shape == (56,)
        assert str(env.benchmark.uri) == "benchmark://builtin-v0/crc32"


def test_env_session_from_flags_defaults_and_closes(parse_flags):
    parse_flags()
    assert benchmark_from_flags() is None
    with env_session_from_flags(benchmark="builtin-v0/qsort") as env:
        assert env.env_id == "llvm-v0" and env.reward_space is None
        env.reset()
    assert "closed" in repr(env)


def test_benchmark_from_flags_reads_a_file_uri(parse_flags):
    source = DATA / "instcount.ll"
    parse_flags(f"--benchmark=file://{source}")
    benchmark = benchmark_from_flags()
    assert isinstance(benchmark, Benchmark)
    assert str(benchmark.uri) == f"benchmark://user-v0{source}"
    assert benchmark.files == [str(source.resolve())]
    parse_flags("--benchmark=file:///no/such/file.ll")
    with pytest.raises(FileNotFoundError):
        benchmark_from_flags()


def test_flags_reject_bad_input(parse_flags):
    parse_flags("--env=llvm-v9")
    with pytest.raises(app.UsageError, match="did you mean 'llvm-v0'"):
        env_from_flags()
    parse_flags("--env=")
    with pytest.raises(app.UsageError, match="--env must be set"):
        env_from_flags()
    parse_flags("--service=localhost:5000")
    with pytest.raises(app.UsageError, match="--service is not supported"):
        env_from_flags()
    parse_flags("--reward=NoSuchReward")
    with pytest.raises(LookupError, match="NoSuchReward"):
        env_from_flags()
    for bad in ("--nproc=0", "--episode_length=0", "--seed=x"):
        with pytest.raises(flags.IllegalFlagValueError):
            parse_flags(bad)
    with pytest.raises(flags.UnrecognizedFlagError):
        parse_flags("--no_such_flag=1")


def test_ls_env_prints_the_ids_and_exits(parse_flags):
    parse_flags("--ls_env")
    with pytest.raises(SystemExit) as exit, capture_output() as out:
        env_from_flags()
    assert exit.value.code == 0
    assert out.stdout.splitlines() == sorted(compiler_gym.env_ids())


# executor


def test_local_executor_runs_jobs_in_processes_and_returns_results(tmp_path):
    executor = Executor(type="local", cpus=1)
    assert executor.type is Executor.Type.LOCAL and executor.block  # local always blocks
    with executor.get_executor(logs_dir=tmp_path) as ex:
        jobs = [ex.submit(math.factorial, 5), ex.submit(int, "ff", base=16)]
    assert [job.job_id for job in jobs] == [1, 2] and ex.jobs == jobs
    assert [job.result() for job in jobs] == [120, 255]
    # A job's exception is raised when the block waits for it.
    with pytest.raises(ValueError, match="math domain error"):
        with executor.get_executor(logs_dir=tmp_path) as ex:
            ex.submit(math.sqrt, -1)


def test_debug_executor_runs_jobs_once_in_this_process(tmp_path):
    calls = []

    def job(x):  # a closure: it could not be pickled into another process
        calls.append(x)
        return x * 2

    with Executor(type=Executor.Type.DEBUG).get_executor(logs_dir=tmp_path) as ex:
        submitted = ex.submit(job, 21)
        assert calls == [] and not submitted.done()
    assert calls == [21] and submitted.result() == 42 and calls == [21]

    with Executor(type="noop").get_executor(logs_dir=tmp_path) as ex:
        assert ex.submit(job, 1).result() is None
    assert calls == [21]


def test_executor_rejects_bad_settings(tmp_path):
    with pytest.raises(ValueError, match="unknown executor type 'cloud'; one of: slurm, local"):
        Executor(type="cloud")
    with pytest.raises(ValueError, match="slurm_partition"):
        Executor(type="slurm")
    for bad in ({"cpus": 0}, {"cpus": -2}, {"gpus": -1}, {"timeout_hours": 0}):
        with pytest.raises(ValueError):
            Executor(type="local", **bad)
    executor = Executor(type="local", cpus=-1)
    assert executor.cpus == os.cpu_count()
    with pytest.raises(AttributeError):
        executor.cpus = 2  # fixed once made
    assert Executor.get_default_local_executor() is Executor.get_default_local_executor()
    try:
        import submitit  # noqa: F401
    except ImportError:
        slurm = Executor(type="slurm", slurm_partition="learn")
        with pytest.raises(OSError, match="pip install submitit"):
            with slurm.get_executor(logs_dir=tmp_path):
                pass


# random_replay


@pytest.fixture(scope="module")
def search_logs(tmp_path_factory):
    """The log directory of a short random search on crc32."""
    outdir = tmp_path_factory.mktemp("random_search")
    env = random_search(
        lambda: compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32"),
        outdir=outdir,
        total_runtime=0.3,
        nproc=1,
    )
    env.close()
    return outdir


def test_random_replay_replays_the_best_actions(search_logs, capsys):
    metadata = json.loads((search_logs / "random_search.json").read_text())
    actions = (search_logs / "random_search_best_actions.txt").read_text().split()
    (search_logs / "random_search_best_actions_progress.csv").unlink()  # rewritten by the replay

    assert random_replay.main([f"--output_dir={search_logs}"]) == 0
    out = capsys.readouterr().out
    steps = re.findall(r"^Step \[(\d+) / (\d+)\]: .*action=(\S+)$", out, re.MULTILINE)
    assert steps == [(f"{i:03d}", f"{len(actions):03d}", a) for i, a in enumerate(actions, 1)]
    assert f"Episode reward: {metadata['best_reward']:.4f}" in out
    progress = (search_logs / "random_search_best_actions_progress.csv").read_text().splitlines()
    assert len(progress) == 1 + len(actions)

    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        if actions:
            env.multistep([env.action_space[a] for a in actions])
        final = env.observation["IrInstructionCount"]
    assert re.search(rf"^IR instruction count\s+862\s+\d+\s+{final}$", out, re.MULTILINE)


def test_random_replay_on_another_benchmark(search_logs, capsys):
    args = [f"--output_dir={search_logs}", "--benchmark=builtin-v0/qsort", "--env=llvm-v0"]
    assert random_replay.main(args) == 0
    assert "benchmark://builtin-v0/qsort" in capsys.readouterr().out


def test_random_replay_reports_bad_input(tmp_path, search_logs, capsys):
    assert random_replay.main([f"--output_dir={tmp_path}"]) == 2
    assert "not a random search's output directory" in capsys.readouterr().err

    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "random_search.json").write_text((search_logs / "random_search.json").read_text())
    (broken / "random_search_best_actions.txt").write_text("-mem2regg\n")
    assert random_replay.main([f"--output_dir={broken}"]) == 2
    assert "did you mean '-mem2reg'" in capsys.readouterr().err

    (broken / "random_search.json").write_text("{")
    assert random_replay.main([f"--output_dir={broken}"]) == 2
    assert "not JSON" in capsys.readouterr().err

    with pytest.raises(SystemExit):  # argparse: --output_dir is required
        random_replay.main([])
