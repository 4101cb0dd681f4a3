"""More of CompilerGym's module paths that user scripts import: compiler_gym.util.{commands,
decorators, download, filesystem, parallelization, permutation}, the wrapper modules and the
random_eval tool, on fixed inputs."""

import hashlib
import importlib
import json
import math
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import compiler_gym
import compiler_gym.wrappers
from compiler_gym.bin import random_eval
from compiler_gym.errors import DownloadFailed
from compiler_gym.random_search import random_search
from compiler_gym.util.commands import Popen, communicate, run_command
from compiler_gym.util.decorators import frozen_class, memoized_property
from compiler_gym.util.download import download
from compiler_gym.util.filesystem import (
    atomic_file_write,
    get_storage_paths,
    is_in_memory,
    is_within_directory,
)
from compiler_gym.util.parallelization import thread_safe_tee
from compiler_gym.util.permutation import (
    convert_number_to_permutation,
    convert_permutation_to_number,
)
from compiler_gym.util.statistics import geometric_mean

# permutation


def test_permutations_are_numbered_as_compiler_gym_numbers_them():
    assert [convert_number_to_permutation(n, 3) for n in range(6)] == [
        [0, 2, 1],
        [1, 0, 2],
        [2, 0, 1],
        [0, 1, 2],
        [1, 2, 0],
        [2, 1, 0],
    ]
    assert convert_number_to_permutation(1000, 7) == [6, 4, 3, 0, 1, 5, 2]
    assert convert_number_to_permutation(123456789, 12) == [9, 7, 8, 11, 10, 3, 5, 0, 2, 1, 4, 6]
    assert convert_permutation_to_number([6, 4, 3, 0, 1, 5, 2]) == 1000
    assert convert_permutation_to_number([9, 7, 8, 11, 10, 3, 5, 0, 2, 1, 4, 6]) == 123456789
    assert convert_number_to_permutation(0, 0) == [] and convert_permutation_to_number([]) == 0


def test_permutation_numbers_round_trip():
    permutations = [convert_number_to_permutation(n, 5) for n in range(120)]
    assert len({tuple(p) for p in permutations}) == 120
    assert all(sorted(p) == [0, 1, 2, 3, 4] for p in permutations)
    assert [convert_permutation_to_number(p) for p in permutations] == list(range(120))
    # Beyond 20 elements the numbers outgrow 64 bits.
    last = math.factorial(30) - 1
    assert convert_permutation_to_number(convert_number_to_permutation(last, 30)) == last


def test_permutation_bad_input():
    with pytest.raises(ValueError):
        convert_number_to_permutation(6, 3)
    with pytest.raises(ValueError):
        convert_number_to_permutation(-1, 3)
    with pytest.raises(ValueError):
        convert_permutation_to_number([0, 0, 1])
    with pytest.raises(ValueError):
        convert_permutation_to_number([1, 2, 3])


# parallelization


def test_thread_safe_tee_gives_every_item_to_each_copy():
    count, copies, threads = 3000, 3, 6
    entered = threading.Lock()

    def source():
        for i in range(count):
            # Two threads inside at once would find the lock taken.
            assert entered.acquire(blocking=False), "the source was advanced concurrently"
            time.sleep(0)  # let another thread run here, if it can
            entered.release()
            yield i

    iterators = thread_safe_tee(source(), copies)
    assert len(iterators) == copies
    received = [[] for _ in range(copies)]
    errors = []

    def consume(seed):
        try:
            active = list(range(copies))
            k = seed
            while active:  # advance the copies in turn, each thread from another one
                k = (k + 1) % len(active)
                try:
                    received[active[k]].append(next(iterators[active[k]]))
                except StopIteration:
                    active.pop(k)
        except BaseException as e:
            errors.append(e)

    workers = [threading.Thread(target=consume, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors
    for items in received:
        assert sorted(items) == list(range(count))


# decorators


def test_memoized_property_is_computed_once_per_object():
    calls = []

    class Program:
        def __init__(self, name):
            self.name = name

        @memoized_property
        def ir(self):
            """The IR."""
            calls.append(self.name)
            return f"ir of {self.name}"

    a, b = Program("a"), Program("b")
    assert [a.ir, a.ir, b.ir, a.ir] == ["ir of a", "ir of a", "ir of b", "ir of a"]
    assert calls == ["a", "b"]
    assert Program.ir.__doc__ == "The IR."


def test_frozen_class_refuses_new_attributes():
    @frozen_class
    class Point:
        def __init__(self, x):
            self.x = x

        @memoized_property
        def double(self):
            return 2 * self.x

    p = Point(1)
    p.x = 3  # an attribute it has
    assert p.double == 6  # memoized on a frozen object
    with pytest.raises(TypeError, match="Cannot set attribute y on frozen class Point"):
        p.y = 1
    assert not hasattr(p, "y")

    @frozen_class
    class Point3(Point):
        def __init__(self, x, z):
            super().__init__(x)
            self.z = z  # after the base's __init__: still being constructed

    q = Point3(1, 2)
    assert (q.x, q.z) == (1, 2)
    with pytest.raises(TypeError):
        q.w = 0


# filesystem


def test_atomic_file_write_replaces_the_file_only_on_success(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_file_write(path, fileobj=True, mode="w") as f:
            f.write("new, but cut short")
            f.flush()
            assert path.read_text() == "old\n"
            raise RuntimeError("interrupted")
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]

    with pytest.raises(RuntimeError):
        with atomic_file_write(path) as tmp:
            tmp.write_text("new")
            raise RuntimeError("interrupted")
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]

    with atomic_file_write(path) as tmp:
        assert tmp.parent == tmp_path and tmp != path
        subprocess.run(["sh", "-c", f"echo new > '{tmp}'"], check=True)
    with atomic_file_write(tmp_path / "out.bin", fileobj=True) as f:
        f.write(b"\x00\x01")
    assert path.read_text() == "new\n"
    assert (tmp_path / "out.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin", "results.csv"]


def test_paths(tmp_path, monkeypatch):
    assert is_within_directory("/a/b", "/a/b")
    assert is_within_directory("/a/b", "/a/b/c/d.txt")
    assert is_within_directory("/a/b", "/a/b/c/../d")
    assert not is_within_directory("/a/b", "/a/bc")  # not a string prefix
    assert not is_within_directory("/a/b", "/a/b/../c")

    mounts = Path("/proc/self/mounts").read_text().split("\n")
    if any(line.split()[1:3] == ["/dev/shm", "tmpfs"] for line in mounts if line):
        assert is_in_memory("/dev/shm") and is_in_memory("/dev/shm/not/made/yet")
    assert not is_in_memory(Path(__file__))

    for name in ("CACHE", "TRANSIENT_CACHE", "SITE_DATA"):
        monkeypatch.setenv(f"COMPILER_GYM_{name}", str(tmp_path / name.lower()))
    assert get_storage_paths() == [
        tmp_path / "cache",
        tmp_path / "site_data",
        tmp_path / "transient_cache",
    ]


# commands


def _gone(pid: int, within: float = 5) -> bool:
    """Whether process ``pid`` ends (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_run_command_output_and_failures():
    assert run_command(["echo", "hello"], timeout=30) == "hello\n"
    with pytest.raises(OSError, match=r"(?s)returncode 3\n.*sh -c.*Stderr: oops"):
        run_command(["sh", "-c", "echo oops >&2; exit 3"], timeout=30)
    with pytest.raises(OSError, match=r"returncode -9 \(SIGKILL\)"):
        run_command(["sh", "-c", "kill -9 $$"], timeout=30)


def test_run_command_timeout_kills_the_command_and_its_children(tmp_path):
    pids = tmp_path / "pids"
    script = f"sleep 30 & echo $! > '{pids}'; wait"
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_command(["sh", "-c", script], timeout=0.5)
    assert time.monotonic() - start < 10
    assert _gone(int(pids.read_text()))


def test_communicate_and_popen_kill_a_sleep_on_timeout_and_exit(tmp_path):
    with Popen(["sleep", "30"], stdout=subprocess.PIPE) as process:
        with pytest.raises(subprocess.TimeoutExpired):
            communicate(process, timeout=0.2)
        assert process.returncode == -signal.SIGKILL  # killed and reaped before the raise
    assert _gone(process.pid)

    with Popen(["sleep", "30"]) as process:
        pass  # the block ends with the process running
    assert process.returncode == -signal.SIGKILL

    # A process group of its own: the shell's child goes with it.
    pids = tmp_path / "pids"
    with Popen(["sh", "-c", f"sleep 30 & echo $! > '{pids}'; wait"], start_new_session=True):
        deadline = time.monotonic() + 5
        while not (pids.is_file() and pids.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.02)
    assert _gone(int(pids.read_text()))

    with Popen(["true"]) as process:
        assert communicate(process, timeout=30) == (None, None)
    assert process.returncode == 0


# download


def test_download_checks_the_sha256_and_caches(tmp_path, http_dir, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    served, base = http_dir
    data = b"int main() { return 0; }\n" * 100
    (served / "prog.c").write_bytes(data)
    sha256 = hashlib.sha256(data).hexdigest()

    assert download(f"file://{served / 'prog.c'}") == data
    assert download(f"{base}/prog.c") == data
    assert not (tmp_path / "cache" / "downloads" / sha256).exists()  # cached only with sha256
    # The first URL is missing: the second is tried.
    assert download([f"{base}/missing.c", f"{base}/prog.c"], sha256=sha256) == data
    assert (tmp_path / "cache" / "downloads" / sha256).read_bytes() == data
    (served / "prog.c").unlink()
    assert download(f"{base}/prog.c", sha256=sha256.upper()) == data  # from the cache

    (served / "other.c").write_bytes(b"something else")
    wrong = hashlib.sha256(b"not it").hexdigest()
    for url in (f"{base}/other.c", f"file://{served / 'other.c'}"):
        with pytest.raises(DownloadFailed, match="sha256 mismatch"):
            download(url, sha256=wrong, max_retries=2)
    assert not (tmp_path / "cache" / "downloads" / wrong).exists()
    with pytest.raises(DownloadFailed):
        download(f"{base}/missing.c", max_retries=1)
    assert issubclass(DownloadFailed, OSError)
    with pytest.raises(ValueError):
        download([])
    downloads = tmp_path / "cache" / "downloads"
    assert not [p.name for p in downloads.iterdir() if p.name.endswith(".tmp")]


# random_eval


@pytest.fixture(scope="module")
def search_logs(tmp_path_factory):
    """A directory holding the log directory of a short random search on crc32."""
    root = tmp_path_factory.mktemp("random_eval")
    env = random_search(
        lambda: compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32"),
        outdir=root / "crc32",
        total_runtime=0.5,
        nproc=1,
    )
    env.close()
    return root


def _table_rows(out: str) -> dict:
    """A grid table's rows, by their first cell."""
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0]:
            rows[cells[0]] = cells
    return rows


def test_random_eval_summarizes_a_search(search_logs, capsys):
    metadata = json.loads((search_logs / "crc32" / "random_search.json").read_text())
    actions = (search_logs / "crc32" / "random_search_best_actions.txt").read_text().split()
    best = metadata["best_reward"]

    for output_dir in (search_logs, search_logs / "crc32"):  # a search's dir, or a parent
        assert random_eval.main([f"--output_dir={output_dir}"]) == 0
        rows = _table_rows(capsys.readouterr().out)
        benchmark, reward, best_text, found, episodes, n_actions = rows[
            "benchmark://builtin-v0/crc32"
        ]
        assert (reward, best_text) == ("IrInstructionCountOz", f"{best:.4f}")
        assert re.fullmatch(r"[\d.]+(us|ms|s)", found)
        assert (episodes, n_actions) == (f"{metadata['episodes']:,}", f"{len(actions):,}")
        assert rows["Geomean"][2] == f"{geometric_mean([best]):.4f}"
        assert rows["Average"][2] == f"{best:.4f}"


def test_random_eval_reads_compiler_gyms_logs_beside_ours(search_logs, tmp_path, capsys):
    theirs = tmp_path / "qsort"
    theirs.mkdir()
    (theirs / "random_search.json").write_text(
        json.dumps({"benchmark": "benchmark://cbench-v1/qsort", "reward": "IrInstructionCountOz"})
    )
    (theirs / "random_search_progress.csv").write_text(
        "runtime_seconds,total_episode_count,total_step_count,num_passes,reward\n"
        "1.500,10,200,12,1.02\n"
        "75.000,1234,25000,31,1.0625\n"
    )
    args = ["--output_dir", str(search_logs), str(tmp_path)]
    assert random_eval.main(args) == 0
    rows = _table_rows(capsys.readouterr().out)
    assert rows["benchmark://cbench-v1/qsort"][1:] == [
        "IrInstructionCountOz",
        "1.0625",
        "75.0s",
        "1,234",
        "31",
    ]
    best = json.loads((search_logs / "crc32" / "random_search.json").read_text())["best_reward"]
    assert rows["Geomean"][2] == f"{geometric_mean([best, 1.0625]):.4f}"


def test_random_eval_reports_bad_input(tmp_path, capsys):
    assert random_eval.main([f"--output_dir={tmp_path / 'missing'}"]) == 2
    assert "Directory not found" in capsys.readouterr().err
    assert random_eval.main([f"--output_dir={tmp_path}"]) == 2
    assert "no random search logs" in capsys.readouterr().err
    (tmp_path / "random_search.json").write_text("{not json")
    assert random_eval.main([f"--output_dir={tmp_path}"]) == 2
    assert "not JSON" in capsys.readouterr().err
    (tmp_path / "random_search.json").write_text("{}")
    (tmp_path / "random_search_progress.csv").write_text("runtime_seconds,reward\nsoon,1\n")
    assert random_eval.main([f"--output_dir={tmp_path}"]) == 2
    assert "unreadable search logs" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        random_eval.main([])  # --output_dir is required
    assert e.value.code == 2


# wrappers


WRAPPER_MODULES = {
    "commandline": ["CommandlineWithTerminalAction", "ConstrainedCommandline"],
    "counter": ["Counter"],
    "datasets": [
        "CycleOverBenchmarks",
        "CycleOverBenchmarksIterator",
        "IterateOverBenchmarks",
        "RandomOrderBenchmarks",
    ],
    "fork": ["ForkOnStep"],
    "time_limit": ["TimeLimit"],
    "validation": ["ValidateBenchmarkAfterEveryStep"],
}


@pytest.mark.parametrize("module", sorted(WRAPPER_MODULES))
def test_wrapper_modules_export_the_package_classes(module):
    mod = importlib.import_module(f"compiler_gym.wrappers.{module}")
    assert sorted(mod.__all__) == WRAPPER_MODULES[module]
    for name in mod.__all__:
        assert getattr(mod, name) is getattr(compiler_gym.wrappers, name)
        assert name in compiler_gym.wrappers.__all__


def test_a_wrapper_from_its_module_wraps_an_env():
    from compiler_gym.wrappers.counter import Counter
    from compiler_gym.wrappers.time_limit import TimeLimit

    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env = Counter(TimeLimit(env, max_episode_steps=2))
        env.reset()
        env.step(0)
        _, _, done, info = env.step(0)
        assert done and info["TimeLimit.truncated"]
        assert env.counters["step"] == 2
