"""Requests per second and latency of the explorer's ``step``, beside the env's own step time.

    python benchmarks/explorer_latency.py [--steps 400] [--clients 1 8] [--episode-length 40]

Measured in one run, on one machine:
  * env alone:    ``env.step`` in this process with what the server asks of it for a state
                  (Autophase, InstCount, IrInstructionCount, IrSha1 and the reward), along the
                  same random episodes the clients take;
  * server:       ``GET /api/v4/step/SESSION/ACTION`` on one explorer server on loopback
                  (``python -m compiler_gym.bin.explorer`` in a subprocess) from 1 and from 8
                  concurrent clients (threads, one keep-alive connection and one session at a
                  time each): requests per second, latency p50/p99, and the server's own time
                  per request, its latency less the env's share that the server reports
                  (``Server-Timing``);
  * cached step:  a step the tree already holds (no env work): the server's cost alone.
The target is a server overhead under 1 ms at p50.
"""

from __future__ import annotations

import argparse
import http.client
import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np

import compiler_gym
from compiler_gym.envs.llvm_env import LlvmEnv

# What the explorer observes of every state of an LLVM env.
STATE_SPACES = LlvmEnv.state_summary.spaces


def pct(values, q) -> float:
    return float(np.percentile(np.asarray(values), q))


def episodes(seed: int, count: int, length: int, actions: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, actions, size=length).tolist() for _ in range(count)]


def env_alone(benchmark: str, reward: str, plan: list[list[int]]) -> list[float]:
    """Seconds per ``env.step`` along the planned episodes."""
    times = []
    with compiler_gym.make("llvm-v0", benchmark=benchmark, reward_space=reward) as env:
        for actions in plan:
            env.reset()
            for action in actions:
                start = time.perf_counter()
                env.step(action, observation_spaces=STATE_SPACES, reward_spaces=[reward])
                times.append(time.perf_counter() - start)
    return times


def start_server(args) -> tuple[subprocess.Popen, str, int]:
    process = subprocess.Popen(
        [sys.executable, "-m", "compiler_gym.bin.explorer", "--port", "0"]
        + ["--max-sessions", str(4 * max(args.clients))]
        # The clients keep no cookie, so the server sees one client: it may hold every place.
        + ["--max-sessions-per-client", str(4 * max(args.clients))],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    addresses: queue.Queue = queue.Queue()

    def drain():
        # Everything the server prints is read, to the end: a pipe left unread fills (64 KiB
        # of tracebacks) and blocks the server. What follows its address goes to stderr.
        for line in process.stdout:
            found = re.search(r"http://([\d.]+):(\d+)/", line)
            if found and addresses.empty():
                addresses.put((found.group(1), int(found.group(2))))
            else:
                sys.stderr.write(line)
        addresses.put(None)  # it exited

    threading.Thread(target=drain, daemon=True).start()
    try:
        address = addresses.get(timeout=60)
    except queue.Empty:
        address = None
    if address is None:
        process.kill()
        raise SystemExit("the explorer did not start")
    return process, *address


def get(connection: http.client.HTTPConnection, path: str) -> tuple[dict, float, float]:
    """The body, the latency (s) and the env's share the server reports (s)."""
    start = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    latency = time.perf_counter() - start
    if response.status != 200:
        raise RuntimeError(f"{path}: {response.status} {body[:200]!r}")
    timing = response.getheader("Server-Timing", "env;dur=0")
    env_ms = float(re.search(r"dur=([\d.]+)", timing).group(1))
    return json.loads(body), latency, env_ms / 1e3


def run_clients(host, port, args, clients: int, plans: list[list[list[int]]], cached: bool):
    """Each client steps its planned episodes (one session each, started before the clock
    runs); returns (wall seconds, latencies, env shares)."""
    start_path = f"/api/v4/start/{args.reward}/-/{args.benchmark}"
    connections = [http.client.HTTPConnection(host, port, timeout=120) for _ in range(clients)]
    sessions = []
    for connection, plan in zip(connections, plans, strict=True):
        sessions.append([get(connection, start_path)[0]["session_id"] for _ in plan])
    if cached:  # every step is the start state's child by one action: made once, then reused
        for c, own in zip(connections, sessions, strict=True):
            for s in own:
                get(c, f"/api/v4/step/{s}/0?from=0")
    results = [[] for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)

    def client(i):
        connection = connections[i]
        barrier.wait()
        for session, actions in zip(sessions[i], plans[i], strict=True):
            for action in actions:
                if cached:
                    _, latency, env_s = get(connection, f"/api/v4/step/{session}/0?from=0")
                else:
                    _, latency, env_s = get(connection, f"/api/v4/step/{session}/{action}")
                results[i].append((latency, env_s))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    for c, own in zip(connections, sessions, strict=True):
        for s in own:
            get(c, f"/api/v4/stop/{s}")
        c.close()
    flat = [r for rs in results for r in rs]
    return wall, [r[0] for r in flat], [r[1] for r in flat]


def report(name, wall, latencies, env_shares):
    ms = np.asarray(latencies) * 1e3
    own = (np.asarray(latencies) - np.asarray(env_shares)) * 1e3
    print(
        f"{name:<22} {len(ms) / wall:8.1f} req/s   latency p50 {pct(ms, 50):7.3f} ms  "
        f"p99 {pct(ms, 99):7.3f} ms   env share p50 {pct(np.asarray(env_shares) * 1e3, 50):7.3f} ms"
        f"   server overhead p50 {pct(own, 50):6.3f} ms  p99 {pct(own, 99):6.3f} ms"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400, help="step requests per measurement")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--episode-length", type=int, default=40)
    parser.add_argument("--benchmark", default="benchmark://builtin-v0/crc32")
    parser.add_argument("--reward", default="IrInstructionCountOz")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with compiler_gym.make("llvm-v0") as env:
        n = env.action_space.n
    per_episode = args.episode_length
    count = max(1, args.steps // per_episode)
    plan = episodes(args.seed, count, per_episode, n)
    # Warm the benchmark cache, then the env alone along the same episodes the clients take.
    env_alone(args.benchmark, args.reward, plan[:1])
    env_s = env_alone(args.benchmark, args.reward, plan)
    ms = np.asarray(env_s) * 1e3
    print(f"{args.benchmark}, reward {args.reward}, {len(env_s)} steps per measurement")
    print(
        f"{'env alone':<22} {len(ms) / (ms.sum() / 1e3):8.1f} steps/s  step p50 "
        f"{pct(ms, 50):7.3f} ms  p99 {pct(ms, 99):7.3f} ms"
    )

    process, host, port = start_server(args)
    try:
        for clients in args.clients:
            # The same episodes, dealt out to the clients.
            plans = [plan[i::clients] for i in range(clients)]
            if any(not p for p in plans):
                plans = [episodes(args.seed + i, 1, per_episode, n) for i in range(clients)]
            wall, latencies, shares = run_clients(host, port, args, clients, plans, cached=False)
            report(f"server, {clients} client{'s' if clients > 1 else ''}", wall, latencies, shares)
        for clients in args.clients:
            plans = [[[0] * per_episode] * max(1, count // clients) for _ in range(clients)]
            wall, latencies, shares = run_clients(host, port, args, clients, plans, cached=True)
            report(f"cached step, {clients} cl.", wall, latencies, shares)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
