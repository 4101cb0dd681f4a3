"""A small Ray cluster on this machine for the Ray tests (ray.cluster_utils: a head and worker
nodes, each a raylet with one CPU, all on this machine), and how the tests find and kill
its workers (through /proc). Only processes this test process started are ever killed."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Small nodes: one CPU (the machine has two), the smallest object store Ray accepts.
NODE = {"num_cpus": 1, "object_store_memory": 80 * 2**20}


@dataclass(frozen=True)
class Proc:
    """A process: its id, parent's id, title (``argv[0]``, ``ray::<actor or task>`` for Ray's
    workers), command line and whether it is a zombie."""

    pid: int
    ppid: int
    title: str
    cmdline: str
    zombie: bool

    @property
    def is_ray(self) -> bool:
        """One of Ray's processes: a worker, or a daemon run from Ray's package."""
        return self.title.startswith("ray::") or f"{os.sep}ray{os.sep}" in self.cmdline

    def kill(self) -> None:
        """SIGKILL, as the kernel's OOM killer or a lost machine would end it."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


def _processes() -> dict[int, Proc]:
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # the name in parentheses may hold spaces
        pid = int(entry.name)
        title, cmdline = (a.decode(errors="replace") for a in (argv[0], b" ".join(argv)))
        table[pid] = Proc(pid, int(fields[1]), title, cmdline, fields[0] == "Z")
    return table


def descendants() -> list[Proc]:
    """The live processes this process started, directly or not."""
    table = _processes()
    children: dict[int, list[Proc]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc)
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return [p for p in found if not p.zombie]


def ray_workers(title: str) -> list[Proc]:
    """This test's Ray worker processes whose title starts with ``title``, e.g.
    ``ray::_RandomWorker``."""
    return [p for p in descendants() if p.title.startswith(title)]


def node_of(cluster, proc: Proc):
    """The cluster node whose raylet started ``proc``."""
    nodes = [cluster.head_node, *cluster.worker_nodes]
    raylets = {node.all_processes["raylet"][0].process.pid: node for node in nodes}
    table = _processes()
    pid = proc.ppid
    while pid in table:
        if pid in raylets:
            return raylets[pid]
        pid = table[pid].ppid
    raise LookupError(f"process {proc.pid} belongs to no node of the cluster")


def _ray_left() -> list[Proc]:
    return [p for p in descendants() if p.is_ray]


@contextlib.contextmanager
def ray_cluster(num_nodes: int = 3) -> Iterator[object]:
    """A cluster of ``num_nodes`` one-CPU nodes with this process connected to it; shut down
    at the end, and checked to have left none of Ray's processes behind (other tests' helper
    processes, such as multiprocessing's resource tracker, are theirs)."""
    import ray
    from ray.cluster_utils import Cluster

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # loopback only: no usage report
    cluster = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    try:
        for _ in range(num_nodes - 1):
            cluster.add_node(**NODE)
        ray.init(address=cluster.address, log_to_driver=False)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
        deadline = time.monotonic() + 20
        while _ray_left() and time.monotonic() < deadline:
            time.sleep(0.2)
        left = _ray_left()
        for proc in left:
            proc.kill()
        assert not left, f"Ray left processes behind: {[(p.pid, p.title) for p in left]}"
