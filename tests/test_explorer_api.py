"""The explorer's JSON API, against a running server: states as the env gives them, going back
to an earlier state, sessions that time out and are capped, the database endpoints, and a 4xx
JSON error for every kind of bad input while the server goes on serving."""

import concurrent.futures
import difflib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, quote

import httpx
import numpy as np
import pytest

import compiler_gym
from compiler_gym.datasets.compilergym_llvm import DEFINITIONS
from compiler_gym.wrappers import SynchronousSqliteLogger

pytestmark = pytest.mark.timeout(120)

CRC32 = "benchmark://builtin-v0/crc32"
REWARD = "IrInstructionCountOz"
FLAGS = ["-mem2reg", "-gvn", "-simplifycfg"]


class ExplorerServer:
    """``python -m compiler_gym.bin.explorer --port 0 ARGS`` in a subprocess, for a ``with``
    block: ``url`` is where it listens; leaving the block stops it (SIGTERM, then SIGKILL). Its
    site data is an empty folder (``site_data``), as on a machine where no dataset that installs
    has been installed.

    A thread reads what the server prints (stdout and stderr) as it comes: a pipe left unread
    fills (64 KiB) and blocks the server mid-request. Each line is echoed to this process's
    stdout, so that pytest shows a failing test what the server printed during it;
    :meth:`output` has all of it."""

    def __init__(self, *args: str, preexec_fn=None):
        self.args = [sys.executable, "-m", "compiler_gym.bin.explorer", "--port", "0", *args]
        self.preexec_fn = preexec_fn  # run in the server's process before it starts
        self.process = None
        self.url = None
        self.site_data = None
        self._lines: list[str] = []
        self._started = threading.Event()
        self._reader = None

    def _read(self):
        for line in self.process.stdout:
            self._lines.append(line)
            try:
                sys.stdout.write(f"[explorer] {line}")
            except (ValueError, OSError):  # pytest's capture closed: go on draining
                pass
            if line.startswith("compiler_gym explorer: ") and self.url is None:
                self.url = line.split(": ", 1)[1].strip().rstrip("/")
                self._started.set()
        self._started.set()  # the server exited

    def output(self) -> str:
        """What the server has printed so far."""
        return "".join(self._lines)

    def __enter__(self):
        self.site_data = Path(tempfile.mkdtemp(prefix="explorer-site-"))
        self.process = subprocess.Popen(
            self.args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "COMPILER_GYM_SITE_DATA": str(self.site_data)},
            preexec_fn=self.preexec_fn,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if self._started.wait(60) and self.url is not None:
            return self
        self.__exit__()
        raise RuntimeError(f"the explorer did not start; it printed:\n{self.output()}")

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self.process.poll() is None

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=15)  # to the end of the pipe: the server has exited
        self.process.stdout.close()
        shutil.rmtree(self.site_data, ignore_errors=True)


def _job_poll(request: httpx.Request, response: httpx.Response):
    """The request that asks for the job a 202 answered (with the first request's headers, its
    cookie among them), or None for any other answer."""
    if response.status_code != 202:
        return None
    job = json.loads(response.content)["job"]
    url = request.url.copy_with(raw_path=f"/api/v4/job/{job}".encode())
    return httpx.Request("GET", url, headers=request.headers)


class FollowJobs(httpx.BaseTransport):
    """A transport that, as the page does, asks for the answer of a start or a ranking that
    outlasted its request (202 with a job) until it has it: a test on a busy machine sees the
    answer whether or not it came within the server's request time."""

    def __init__(self, inner: httpx.BaseTransport):
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """The request's answer, or its job's."""
        response = self.inner.handle_request(request)
        while True:
            response.read()
            poll = _job_poll(request, response)
            if poll is None:
                return response
            response.close()
            time.sleep(0.02)
            response = self.inner.handle_request(poll)

    def close(self) -> None:
        """Closes the transport it wraps."""
        self.inner.close()


class FollowJobsAsync(httpx.AsyncBaseTransport):
    """:class:`FollowJobs` for an async client (an app run in the test's process)."""

    def __init__(self, inner: httpx.AsyncBaseTransport):
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The request's answer, or its job's."""
        import asyncio

        response = await self.inner.handle_async_request(request)
        while True:
            await response.aread()
            poll = _job_poll(request, response)
            if poll is None:
                return response
            await response.aclose()
            await asyncio.sleep(0.02)  # the job's thread hands its result over on this loop
            response = await self.inner.handle_async_request(poll)

    async def aclose(self) -> None:
        """Closes the transport it wraps."""
        await self.inner.aclose()


def explorer_client(url, timeout: float = 60) -> httpx.Client:
    """A client of the explorer at ``url`` that follows jobs to their answers."""
    return httpx.Client(base_url=url, timeout=timeout, transport=FollowJobs(httpx.HTTPTransport()))


def episode(flags, benchmark=CRC32, reward=REWARD):
    """What a plain env gives along ``flags``: per state (start included) its reward (None at
    the start), instruction count, hash, Autophase and InstCount dicts and IR."""
    with compiler_gym.make("llvm-v0", benchmark=benchmark, reward_space=reward) as env:
        env.reset()
        states = []

        def record(reward):
            states.append(
                {
                    "reward": reward,
                    "ir_instruction_count": env.observation["IrInstructionCount"],
                    "state_hash": env.observation["IrSha1"],
                    "autophase": dict(env.observation["AutophaseDict"]),
                    "instcount": dict(env.observation["InstCountDict"]),
                    "ir": env.observation["Ir"],
                }
            )

        record(None)
        for flag in flags:
            _, r, _, _ = env.step(env.action_space[flag])
            record(r)
        return states


def check_state(got, expected, cumulative):
    assert got["reward"] == pytest.approx(expected["reward"])
    assert got["cumulative_reward"] == pytest.approx(cumulative)
    for key in ("ir_instruction_count", "state_hash", "autophase", "instcount"):
        assert got[key] == expected[key], key


@pytest.fixture(scope="module")
def logged_db(tmp_path_factory):
    """A database of one known episode on crc32, IR included."""
    db = tmp_path_factory.mktemp("explorer") / "explored.db"
    env = SynchronousSqliteLogger(
        compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD), db_path=db, log_ir=True
    )
    env.reset()
    env.multistep(FLAGS)
    env.reset()
    env.step("-sroa")  # a second branch from the start state
    env.close()
    return db


@pytest.fixture(scope="module")
def server(logged_db):
    with ExplorerServer("--db", str(logged_db)) as s:
        yield s


@pytest.fixture(scope="module")
def client(server):
    with explorer_client(server.url) as c:
        yield c


# What llvm-v0's spec gives: the test names its values rather than asking an env for them,
# which would compute them as the server does.
LLVM_REWARDS = [
    "IrInstructionCount",
    "IrInstructionCountNorm",
    "IrInstructionCountO3",
    "IrInstructionCountOz",
    "ObjectTextSizeBytes",
    "ObjectTextSizeNorm",
    "ObjectTextSizeO3",
    "ObjectTextSizeOz",
    "TextSizeBytes",
    "TextSizeNorm",
    "TextSizeO3",
    "TextSizeOz",
    "Runtime",
]
BUILTIN = [
    f"benchmark://builtin-v0/{name}"
    for name in (
        "adpcm aes bitcount blowfish boyer_moore bwt crc32 dct dijkstra fft hashtable huffman "
        "kmeans lpc lzw matmul md5 nbody patricia qsort regex sha256 sort_merge sudoku "
        "susan_edges susan_smooth"
    ).split()
]


def test_describe_lists_the_env(client, logged_db, server):
    body = client.get("/api/v4/describe").json()
    assert body["env"] == "llvm-v0" and body["database"] == str(logged_db)
    actions = body["actions"]
    assert len(actions) == 121
    assert list(actions)[:3] == ["-add-discriminators", "-adce", "-aggressive-instcombine"]
    assert list(actions.values()) == list(range(121))
    assert {f: actions[f] for f in FLAGS + ["-sroa"]} == {
        "-mem2reg": 96,
        "-gvn": 35,
        "-simplifycfg": 8,
        "-sroa": 103,
    }
    assert body["rewards"] == LLVM_REWARDS
    observations = body["observations"]
    assert len(observations) == 35
    assert observations[:4] == ["Ir", "IrSha1", "Bitcode", "BitcodeFile"]
    assert {"Autophase", "AutophaseDict", "InstCountDict", "Programl", "LexedIrTuple"} <= set(
        observations
    )
    assert body["default_benchmark"] == "benchmark://builtin-v0/qsort"
    assert body["default_reward"] == "IrInstructionCountOz"
    datasets = {d["name"]: d for d in body["datasets"]}
    compilergym = {n for n, row in DEFINITIONS.items() if not row.deprecated}
    assert set(datasets) == {
        "benchmark://builtin-v0",
        "generator://llvm-stress-v0",
        "generator://csmith-v0",
        "benchmark://gcc-torture-v0",
        "benchmark://pypi-c-v0",
        "benchmark://debian-c-v0",
        *compilergym,  # CompilerGym's, listed without downloading anything
    }
    assert datasets["benchmark://cbench-v1"]["installed"] is False
    builtin = datasets["benchmark://builtin-v0"]
    assert builtin["benchmarks"] == BUILTIN
    assert (builtin["installed"], builtin["size"], builtin["truncated"]) == (True, 26, False)
    csmith = datasets["generator://csmith-v0"]
    assert csmith["size"] is None and csmith["truncated"] is True
    assert (
        len(csmith["benchmarks"]) == 2000 and csmith["benchmarks"][0] == "generator://csmith-v0/0"
    )
    # Datasets that install (an extraction, downloads) are listed, not installed, so that the
    # server answers at once on a fresh machine.
    torture = datasets["benchmark://gcc-torture-v0"]
    assert torture["installed"] is False and torture["benchmarks"] == []
    assert torture["size"] is None and torture["truncated"] is True
    assert list(server.site_data.iterdir()) == []
    # Feature names from the engine's tables, in the order of the logged vectors.
    autophase, instcount = body["features"]["autophase"], body["features"]["instcount"]
    assert len(autophase) == 56 and autophase[:3] == ["BBNumArgsHi", "BBNumArgsLo", "onePred"]
    assert autophase[-1] == "testUnary"
    assert len(instcount) == 70 and instcount[:4] == [
        "TotalInstsCount",
        "TotalBlocksCount",
        "TotalFuncsCount",
        "RetCount",
    ]
    assert instcount[-1] == "FreezeCount"
    assert body["state"] == {
        "headline": {"key": "ir_instruction_count", "label": "Instructions"},
        "text": {"key": "ir", "label": "IR"},
        "features": [
            {"key": "autophase", "title": "Autophase"},
            {"key": "instcount", "title": "InstCount"},
        ],
    }


def test_feature_names_are_the_dict_observations_keys():
    """The tables describe reads give the keys the env's dict observations have."""
    with compiler_gym.make("llvm-v0", benchmark=CRC32) as env:
        tables = env.state_summary.feature_names()
        assert set(tables) == {"AutophaseDict", "InstCountDict"}
        env.reset()
        for space, names in tables.items():
            assert list(env.observation[space]) == names, space


def test_describe_starts_no_episode(monkeypatch):
    """Everything describe answers is in the env's spec or the engine's tables: no reset (an
    episode on the default benchmark, a compile for GCC)."""
    from compiler_gym.bin import explorer
    from compiler_gym.envs.compiler_env import CompilerEnv

    def refuse(self, *args, **kwargs):
        raise AssertionError("describe_env reset an env")

    monkeypatch.setattr(CompilerEnv, "reset", refuse)
    for env_id in ("llvm-v0", "gcc-v0", "loop_tool-v0"):
        info = explorer.describe_env(env_id, 10)
        assert info["env"] == env_id
    assert explorer.describe_env("llvm-v0", 10)["features"]["autophase"][0] == "BBNumArgsHi"
    # GCC's instruction counts have a key per mnemonic the assembly holds: no fixed names.
    assert explorer.describe_env("gcc-v0", 10)["features"] == {"instruction_counts": None}


def test_start_and_step_give_the_env_states(client):
    expected = episode(FLAGS)
    body = client.get(f"/api/v4/start/{REWARD}/{FLAGS[0]}/{quote(CRC32, safe='')}").json()
    session = body["session_id"]
    states = body["states"]
    assert [(s["id"], s["parent"], s["action_name"]) for s in states] == [
        (0, None, None),
        (1, 0, "-mem2reg"),
    ]
    assert states[0]["reward"] is None and states[0]["cumulative_reward"] == 0.0
    for key in ("ir_instruction_count", "state_hash", "autophase", "instcount"):
        assert states[0][key] == expected[0][key]
    check_state(states[1], expected[1], expected[1]["reward"])
    # Flags and indices both name actions; ir=1 adds the last state's IR.
    index = client.get("/api/v4/describe").json()["actions"]["-simplifycfg"]
    body = client.get(f"/api/v4/step/{session}/-gvn,{index}?ir=1").json()
    steps = body["states"]
    assert [(s["id"], s["parent"], s["action_name"]) for s in steps] == [
        (2, 1, "-gvn"),
        (3, 2, "-simplifycfg"),
    ]
    total = 0.0
    for got, want in zip([states[1]] + steps, expected[1:], strict=True):
        total += want["reward"]
        check_state(got, want, total)
    assert "ir" not in steps[0] and steps[1]["ir"] == expected[3]["ir"]
    assert steps[1]["commandline"] == "opt -mem2reg -gvn -simplifycfg input.bc -o output.bc"
    client.get(f"/api/v4/stop/{session}")


def test_going_back_steps_from_an_earlier_state(client):
    session = client.get(f"/api/v4/start/{REWARD}/-mem2reg,-gvn/{CRC32}").json()["session_id"]
    # Back to the state after -mem2reg, and another action from there.
    response = client.get(f"/api/v4/step/{session}/-dce?from=1")
    assert response.headers["server-timing"].startswith("env;dur=")
    branch = response.json()["states"]
    expected = episode(["-mem2reg", "-dce"])
    assert (branch[0]["id"], branch[0]["parent"]) == (3, 1)
    check_state(branch[0], expected[2], expected[1]["reward"] + expected[2]["reward"])
    # The same action from the same state is the same node, not a new one: no env work.
    again = client.get(f"/api/v4/step/{session}/-gvn?from=1")
    assert again.json()["states"][0]["id"] == 2
    assert again.headers["server-timing"] == 'env;dur=0.0000;desc="env"'
    # Without from, a step continues from the last state returned; an earlier state's IR.
    after = client.get(f"/api/v4/step/{session}/-sroa").json()["states"][0]
    assert after["parent"] == 2
    state = client.get(f"/api/v4/state/{session}/3?ir=1").json()["state"]
    assert state["ir"] == expected[2]["ir"] and state["parent"] == 1
    client.get(f"/api/v4/stop/{session}")


def test_concurrent_steps_from_one_state(client):
    """Eight clients at once, each an action from the start state of one session: each reward
    is the one the engine gives that action from there."""
    session = client.get(f"/api/v4/start/{REWARD}/-/{CRC32}").json()["session_id"]
    actions = list(range(0, 80, 10))
    with compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD) as env:
        env.reset()
        expected = env.try_actions(actions)
    results = {}

    def take(action):
        with httpx.Client(base_url=client.base_url, timeout=60) as c:
            results[action] = c.get(f"/api/v4/step/{session}/{action}?from=0").json()

    threads = [threading.Thread(target=take, args=(a,)) for a in actions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for action, reward in zip(actions, expected, strict=True):
        (state,) = results[action]["states"]
        assert state["parent"] == 0 and state["action"] == action
        assert state["reward"] == pytest.approx(reward)
    ids = sorted(results[a]["states"][0]["id"] for a in actions)
    assert ids == list(range(1, 9))
    client.get(f"/api/v4/stop/{session}")


def test_bad_input_answers_4xx_json_and_the_server_goes_on(server, client):
    session = client.get(f"/api/v4/start/{REWARD}/-/{CRC32}").json()["session_id"]
    stopped = client.get(f"/api/v4/start/{REWARD}/-/{CRC32}").json()["session_id"]
    assert client.get(f"/api/v4/stop/{stopped}").json() == {"session_id": stopped, "stopped": True}
    n = len(client.get("/api/v4/describe").json()["actions"])
    cases = [
        ("GET", f"/api/v4/start/{REWARD}/-/benchmark://builtin-v0/nope", 404, "not found"),
        ("GET", f"/api/v4/start/{REWARD}/-/benchmark://nope-v0/x", 404, "Dataset not found"),
        ("GET", f"/api/v4/start/NoSuchReward/-/{CRC32}", 400, "unknown reward space"),
        ("GET", f"/api/v4/start/{REWARD}/{n}/{CRC32}", 400, "out of range"),
        ("GET", f"/api/v4/step/{session}/{n}", 400, f"action {n} is out of range [0, {n})"),
        ("GET", f"/api/v4/step/{session}/-1", 400, "out of range"),
        ("GET", f"/api/v4/step/{session}/-no-such-pass", 400, "neither an action"),
        ("GET", f"/api/v4/step/{session}/1,,2", 400, "neither an action"),
        ("GET", f"/api/v4/step/{session}/%C2%B2", 400, "neither an action"),
        ("GET", f"/api/v4/start/{REWARD}/-/file:///etc/passwd", 400, "file:// benchmarks"),
        ("GET", f"/api/v4/step/{session}/-", 400, "no action"),
        ("GET", f"/api/v4/step/{session}/1?from=x", 400, "from"),
        ("GET", f"/api/v4/step/{session}/1?from=99", 404, "no state 99"),
        ("GET", f"/api/v4/state/{session}/99", 404, "no state 99"),
        ("GET", "/api/v4/step/no-such-session/1", 404, "no session"),
        ("GET", f"/api/v4/step/{stopped}/1", 404, "no session"),
        ("GET", f"/api/v4/stop/{stopped}", 404, "no session"),
        ("GET", f"/api/v4/start/{REWARD}", 404, "no such endpoint"),
        ("GET", "/api/v4/step", 404, "no such endpoint"),
        ("GET", "/api/v5/describe", 404, "no such endpoint"),
        ("GET", "/static/no-such-file.js", 404, "no such endpoint or file"),
        ("POST", "/api/v4/describe", 405, "Method Not Allowed"),
        ("GET", f"/api/v4/step/{session}/" + ",".join(["1"] * 100), 413, "at most 64"),
        ("GET", f"/api/v4/step/{session}/" + ",".join(["1"] * 9000), 414, "request target"),
        ("GET", "/api/v4/db/state/no-such-state", 404, "no state"),
        ("GET", "/api/v4/db/tree", 400, "benchmark"),
        ("GET", "/api/v4/db/tree?benchmark=benchmark://builtin-v0/qsort", 404, "no states"),
        ("GET", f"/api/v4/db/tree?benchmark={CRC32}&limit=0", 400, "limit"),
    ]
    for method, path, status, message in cases:
        response = client.request(method, path)
        assert response.status_code == status, (path, response.text)
        assert response.headers["content-type"] == "application/json", path
        body = response.json()
        assert body["status"] == status and message in body["error"], (path, body)
    # No endpoint takes a body: one is refused, unread, whatever its size or method.
    for method, content in [("POST", b"x" * 20000), ("GET", b"x"), ("GET", iter([b"x"] * 9))]:
        sent = client.request(method, "/api/v4/describe", content=content)
        assert sent.status_code == 413, (method, sent.text)
        assert sent.json()["error"] == f"{method} /api/v4/describe takes no request body"
    # A page elsewhere whose name was made to point here (DNS rebinding) is refused.
    rebound = client.get("/api/v4/describe", headers={"Host": "attacker.example:5000"})
    assert rebound.status_code == 400 and "'attacker.example'" in rebound.json()["error"]
    assert client.get("/api/v4/describe", headers={"Host": "localhost:1"}).status_code == 200
    # The server is still serving, and the session that saw the bad requests still works.
    assert server.alive()
    assert client.get("/api/v4/describe").status_code == 200
    state = client.get(f"/api/v4/step/{session}/-mem2reg").json()["states"][0]
    assert state["reward"] == pytest.approx(episode(["-mem2reg"])[1]["reward"])
    client.get(f"/api/v4/stop/{session}")


def run_guard(guard, method, path, headers, chunks):
    """One request through an ASGI ``guard``: its status, its JSON body (or None), and how
    many times the guard read the request's body."""
    import asyncio

    reads = []
    sent = []

    async def receive():
        reads.append(1)
        more = len(reads) < len(chunks)
        return {"type": "http.request", "body": chunks[len(reads) - 1], "more_body": more}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    asyncio.run(guard(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body) if body else None, len(reads)


def test_request_guard_refuses_bodies_unread():
    from compiler_gym.bin.explorer import RequestGuard

    seen = []

    async def app(scope, receive, send):
        message = await receive()
        seen.append(message["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    guard = RequestGuard(app, 100, None)
    chunked = {"transfer-encoding": "chunked"}
    # A GET with a body, however long (a chunked one says nothing of its length): answered
    # without reading any of it.
    status, body, reads = run_guard(guard, "GET", "/api/v4/describe", chunked, [b"x" * 60] * 1000)
    assert (status, reads) == (413, 0)
    assert body["error"] == "GET /api/v4/describe takes no request body"
    assert run_guard(guard, "GET", "/a", {"content-length": "5"}, [b"12345"])[::2] == (413, 0)
    # Without a body (or an empty one), the request goes on, unread by the guard.
    assert run_guard(guard, "GET", "/a", {"content-length": "0"}, [b""])[0] == 200
    assert run_guard(guard, "GET", "/a", {}, [b""])[0] == 200
    status, body, reads = run_guard(guard, "POST", "/a", {"content-length": "101"}, [b""])
    assert (status, reads) == (413, 0) and body["error"] == "POST /a takes no request body"


def test_a_server_that_prints_much_goes_on_serving():
    """The test server's output is drained as it comes: an access log of more than a pipe's
    64 KiB (about 8 KiB a request here) does not block the server."""
    with ExplorerServer("--access-log") as server:
        with httpx.Client(base_url=server.url, timeout=20) as client:
            path = "/api/v4/stop/" + "x" * 8000
            for _ in range(40):
                assert client.get(path).status_code == 404
        assert server.alive()
    # Counted once the server has exited and its pipe is read to the end: a request's access
    # line can be printed after its client has the response.
    assert server.output().count("GET /api/v4/stop/xxx") == 40


def test_the_database_keeps_one_connection_per_thread(logged_db, tmp_path, monkeypatch):
    """Each thread that reads the database opens one connection, reused by its later
    requests, which see what a writer adds meanwhile; closing the database closes them all,
    and later requests answer 503."""
    from compiler_gym.bin import explorer

    db = tmp_path / "growing.db"
    shutil.copy(logged_db, db)
    opened = []
    connect = sqlite3.connect

    def counting(*args, **kwargs):  # the explorer's (read-only) connections
        connection = connect(*args, **kwargs)
        if "mode=ro" in str(args[0]):
            opened.append(connection)
        return connection

    monkeypatch.setattr(sqlite3, "connect", counting)
    info = explorer.describe_env("llvm-v0", 1)
    database = explorer.ExploredDatabase(db, list(info["actions"]), info["features"])
    for _ in range(3):
        assert database.summary()["states"] == 5
    assert len(opened) == 1
    writer = SynchronousSqliteLogger(
        compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD), db_path=db
    )
    writer.reset()
    writer.step("-dce")
    writer.close()
    assert database.summary()["states"] == 6 and len(opened) == 1
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert pool.submit(database.summary).result()["states"] == 6
        list(pool.map(lambda _: database.tree(CRC32, 10), range(6)))
    assert 2 <= len(opened) <= 3  # this thread's and the pool's (one or two threads)
    database.close()
    for connection in opened:
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            connection.execute("SELECT 1")
    with pytest.raises(explorer.ExplorerError) as refused:
        database.summary()
    assert refused.value.status == 503


def test_the_server_closes_its_database_connections_when_it_stops(logged_db, monkeypatch):
    import asyncio

    from compiler_gym.bin import explorer

    opened = []
    connect = sqlite3.connect

    def counting(*args, **kwargs):
        opened.append(connect(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(sqlite3, "connect", counting)
    app = explorer.create_app(explorer.ExplorerConfig(db=logged_db))

    async def serve():  # the app's life, as uvicorn runs it: startup, requests, shutdown
        fastapi = app.app
        async with fastapi.router.lifespan_context(fastapi):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
                for _ in range(4):
                    assert (await c.get("/api/v4/db")).json()["states"] == 5

    asyncio.run(serve())
    assert opened
    for connection in opened:
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            connection.execute("SELECT 1")


def test_the_page_scripts_define_element_once():
    """charts.js draws with svg.js's element(), which no other script redefines (tree.js
    draws HTML rows), and every script the page imports is served from explorer_static."""
    from compiler_gym.bin import explorer

    scripts = sorted(explorer.STATIC_DIR.glob("*.js"))
    defining = [p.name for p in scripts if "function element(" in p.read_text()]
    assert defining == ["svg.js"]
    assert 'import { element } from "./svg.js";' in (explorer.STATIC_DIR / "charts.js").read_text()
    # No CDN: every import is a file of the folder, and the page loads nothing from elsewhere.
    imported = set()
    for script in scripts:
        imported |= set(re.findall(r'from "\./([a-z]+\.js)";', script.read_text()))
    assert imported == {"charts.js", "format.js", "panels.js", "picker.js", "svg.js", "tree.js"}
    assert imported | {"app.js"} == {p.name for p in scripts}
    page = (explorer.STATIC_DIR / "index.html").read_text()
    assert re.findall(r'(?:src|href)="([^"]+)"', page) == [
        "/static/favicon.svg",
        "/static/style.css",
        "/static/app.js",
    ]


def test_sessions_are_capped_and_time_out():
    with ExplorerServer("--max-sessions", "2", "--session-timeout", "1") as server:
        with explorer_client(server.url) as client:
            start = f"/api/v4/start/{REWARD}/-/{CRC32}"
            first = client.get(start).json()["session_id"]
            second = client.get(start).json()["session_id"]
            full = client.get(start)
            assert full.status_code == 429 and "2 sessions are open" in full.json()["error"]
            client.get(f"/api/v4/stop/{first}")
            third = client.get(start)
            assert third.status_code == 200
            time.sleep(2.5)  # past the timeout: the reaper closes both sessions
            for session in (second, third.json()["session_id"]):
                expired = client.get(f"/api/v4/step/{session}/-mem2reg")
                assert expired.status_code == 404 and "expired" in expired.json()["error"]
            # Their places are free again.
            assert client.get(start).status_code == 200 and client.get(start).status_code == 200


def test_database_endpoints_show_what_was_explored(client, logged_db):
    summary = client.get("/api/v4/db").json()
    assert summary == {
        "path": str(logged_db),
        "benchmarks": [{"uri": CRC32, "states": 5}],
        "states": 5,
        "transitions": 4,
    }
    first = client.get("/api/v4/db/tree", params={"benchmark": CRC32, "limit": 2}).json()
    assert first["truncated"] is True and [n["actions"] for n in first["nodes"]][0] == []
    assert len(first["nodes"]) == 2 and first["nodes"][1]["parent"] == 0
    tree = client.get("/api/v4/db/tree", params={"benchmark": CRC32}).json()
    assert tree["truncated"] is False
    nodes = tree["nodes"]
    assert [n["id"] for n in nodes] == list(range(5)) and nodes[0]["parent"] is None

    def path(node):  # the action names from the start state down to node, by parents
        names = []
        while node["parent"] is not None:
            names.append(node["action_name"])
            node = nodes[node["parent"]]
        return tuple(reversed(names))

    by_path = {path(n): n for n in nodes}
    assert set(by_path) == {(), ("-sroa",)} | {tuple(FLAGS[:k]) for k in (1, 2, 3)}
    with compiler_gym.make("llvm-v0") as env:
        for names, node in by_path.items():
            assert node["actions"] == [env.action_space[f] for f in names]
    expected = episode(FLAGS)
    assert by_path[()]["cumulative_reward"] == 0.0 and by_path[()]["reward"] is None
    total = 0.0
    for k in range(1, 4):
        total += expected[k]["reward"]
        check_state_row(by_path[tuple(FLAGS[:k])], expected[k], total)
    sroa = episode(["-sroa"])[1]
    check_state_row(by_path[("-sroa",)], sroa, sroa["reward"])
    state = client.get(f"/api/v4/db/state/{expected[2]['state_hash']}").json()
    assert state["autophase"] == expected[2]["autophase"]
    assert state["instcount"] == expected[2]["instcount"]
    assert state["ir"] == expected[2]["ir"]
    assert state["ir_instruction_count"] == expected[2]["ir_instruction_count"]


def check_state_row(node, expected, cumulative):
    assert node["reward"] == pytest.approx(expected["reward"])
    assert node["cumulative_reward"] == pytest.approx(cumulative)
    assert node["state_hash"] == expected["state_hash"]
    assert node["ir_instruction_count"] == expected["ir_instruction_count"]


def test_command_line_refusals(tmp_path):
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "compiler_gym.bin.explorer", "--port", "0", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )

    gcc = run("--env", "gcc-v0", "--db", str(logged_db_path(tmp_path)))
    assert gcc.returncode == 2 and "the database holds LLVM states" in gcc.stderr
    missing = run("--db", str(tmp_path / "missing.db"))
    assert missing.returncode == 2 and "no database" in missing.stderr
    not_a_db = tmp_path / "not.db"
    not_a_db.write_text(json.dumps({"not": "sqlite"}))
    bad = run("--db", str(not_a_db))
    assert bad.returncode == 2 and "error:" in bad.stderr


def logged_db_path(tmp_path) -> Path:
    """An empty database of the SQLite logger's schema."""
    db = tmp_path / "empty.db"
    SynchronousSqliteLogger(compiler_gym.make("llvm-v0"), db_path=db).close()
    return db


def test_other_families_show_their_own_state_summary():
    # gcc-v0: the object size, instruction counts and assembly of each state.
    with (
        ExplorerServer("--env", "gcc-v0") as server,
        explorer_client(server.url) as client,
    ):
        body = client.get("/api/v4/describe").json()
        assert body["default_reward"] == "obj_size"
        assert body["state"]["headline"] == {"key": "obj_size", "label": "Object bytes"}
        assert body["state"]["text"] == {"key": "asm", "label": "Assembly"}
        start = client.get(f"/api/v4/start/obj_size/-O2/{quote(CRC32, safe='')}?ir=1").json()
        with compiler_gym.make("gcc-v0", benchmark=CRC32, reward_space="obj_size") as env:
            env.reset()
            o0 = (env.obj_size, env.obj_hash, env.instruction_counts)
            _, reward, _, _ = env.step(env.action_space["-O2"])
            o2 = (env.obj_size, env.obj_hash, env.instruction_counts, env.asm)
        first, second = start["states"]
        assert (first["obj_size"], first["state_hash"], first["instruction_counts"]) == o0
        assert (second["obj_size"], second["state_hash"], second["instruction_counts"]) == o2[:3]
        assert second["reward"] == reward and second["asm"] == o2[3]
        # Going back replays the actions and checks the state's hash (the object's md5).
        state = client.get(f"/api/v4/state/{start['session_id']}/0?ir=1").json()["state"]
        assert state["state_hash"] == o0[1] and state["asm"].startswith("\t.file")

    # loop_tool-v0: GFLOP/s and the loop tree; the state hash covers the cursor too.
    with (
        ExplorerServer("--env", "loop_tool-v0") as server,
        explorer_client(server.url) as client,
    ):
        body = client.get("/api/v4/describe").json()
        assert body["state"]["features"] == [] and body["features"] == {}
        uri = quote("benchmark://loop_tool-cpu-v0/1024", safe="")
        start = client.get(f"/api/v4/start/flops/toggle_mode,up/{uri}?ir=1").json()
        states = start["states"]
        assert [s["action_name"] for s in states] == [None, "toggle_mode", "up"]
        assert all(s["flops"] > 0 for s in states)
        assert states[2]["loop_tree"].startswith("for a in 1024 : L0 cpu_parallel [thread]")
        # The same loop tree in all three: toggle_mode changes no observation but what up
        # and down do next, and "up" in select mode moved the cursor. Three states all the
        # same. (Going back to each replays it and checks its hash, the mode's part too.)
        session = start["session_id"]
        trees = [
            client.get(f"/api/v4/state/{session}/{i}?ir=1").json()["state"]["loop_tree"]
            for i in (0, 1)
        ]
        assert trees == [states[2]["loop_tree"]] * 2
        assert len({s["state_hash"] for s in states}) == 3
        # "up" from the start state, in size mode: the outer loop has no parent to trade
        # sizes with, so nothing changes, and the state is the start state again.
        (same,) = client.get(f"/api/v4/step/{session}/up?from=0").json()["states"]
        assert same["state_hash"] == states[0]["state_hash"]
        # A CUDA benchmark on a machine without a GPU is the client's to change: 400.
        from compiler_gym.envs.loop_tool import devices

        if devices()["cuda"]:
            uri = quote("benchmark://loop_tool-cuda-v0/1024", safe="")
            response = client.get(f"/api/v4/start/flops/-/{uri}")
            assert response.status_code == 400 and "NVIDIA GPU" in response.json()["error"]


def test_an_env_without_a_state_summary_is_refused(monkeypatch):
    from compiler_gym.bin import explorer
    from compiler_gym.envs.example_env import ExampleEnv

    monkeypatch.setattr(ExampleEnv, "state_summary", None)
    with pytest.raises(explorer.ExplorerError, match="names no state_summary"):
        explorer.describe_env("example-v0", 10)


def test_describe_names_how_each_reward_reads(client):
    """Counts and bytes are integers, normalized rewards ratios, runtimes seconds."""
    formats = client.get("/api/v4/describe").json()["reward_formats"]
    assert formats == {
        "IrInstructionCount": "count",
        "IrInstructionCountNorm": "ratio",
        "IrInstructionCountO3": "ratio",
        "IrInstructionCountOz": "ratio",
        "ObjectTextSizeBytes": "bytes",
        "ObjectTextSizeNorm": "ratio",
        "ObjectTextSizeO3": "ratio",
        "ObjectTextSizeOz": "ratio",
        "TextSizeBytes": "bytes",
        "TextSizeNorm": "ratio",
        "TextSizeO3": "ratio",
        "TextSizeOz": "ratio",
        "Runtime": "seconds",
    }
    from compiler_gym.bin import explorer

    for env_id, expected in [
        ("gcc-v0", {"asm_size": "bytes", "obj_size": "bytes", "asm_size_Os": "ratio"}),
        ("loop_tool-v0", {"flops": "float"}),
    ]:
        with compiler_gym.make(env_id) as env:
            got = {name: explorer.reward_format(env, name) for name in expected}
        assert got == expected, env_id


def test_benchmark_search(client):
    """The picker's search: every word in the URI, the name equal to the query first, then
    names that start with it; over every benchmark of the installed datasets (only
    builtin-v0 here: the server's site data is empty)."""

    def search(query, limit=50):
        response = client.get("/api/v4/benchmarks", params={"q": query, "limit": limit})
        assert response.status_code == 200, response.text
        return response.json()

    everything = search("", 500)
    assert everything == {"query": "", "total": 26, "benchmarks": BUILTIN, "truncated": False}
    assert search("", 5) == {"query": "", "total": 26, "benchmarks": BUILTIN[:5], "truncated": True}
    assert search("crc")["benchmarks"] == [CRC32]
    assert search("CRC32")["benchmarks"] == [CRC32]
    # The name equal to the query first, then names that start with it, then the rest.
    assert search("sort")["benchmarks"] == [
        "benchmark://builtin-v0/sort_merge",
        "benchmark://builtin-v0/qsort",
    ]
    assert search("su")["benchmarks"] == [
        "benchmark://builtin-v0/sudoku",
        "benchmark://builtin-v0/susan_edges",
        "benchmark://builtin-v0/susan_smooth",
    ]
    assert search("builtin susan smooth")["benchmarks"] == ["benchmark://builtin-v0/susan_smooth"]
    assert search("no-such-benchmark") == {
        "query": "no-such-benchmark",
        "total": 0,
        "benchmarks": [],
        "truncated": False,
    }
    for bad in ("0", "501", "x"):
        response = client.get("/api/v4/benchmarks", params={"q": "a", "limit": bad})
        assert response.status_code == 400 and "limit" in response.json()["error"]


def test_benchmark_index_lists_datasets_installed_since():
    """A dataset installed while the server runs is searched from then on; a generator never
    (its benchmarks are typed)."""
    from compiler_gym.bin.explorer import BenchmarkIndex

    class Dataset:
        def __init__(self, uris, installed=True, infinite=False):
            self.uris, self.installed, self.infinite = uris, installed, infinite
            self.listed = 0

        def benchmark_uris(self):
            self.listed += 1
            return iter(self.uris)

    later = Dataset(["benchmark://b-v0/zeta", "benchmark://b-v0/alpha"], installed=False)
    generator = Dataset(["generator://g-v0/0"], infinite=True)
    index = BenchmarkIndex(
        {
            "benchmark://a-v0": Dataset(["benchmark://a-v0/x"]),
            "benchmark://b-v0": later,
            "generator://g-v0": generator,
        }
    )
    assert index.search("", 10)["benchmarks"] == ["benchmark://a-v0/x"]
    later.installed = True
    assert index.search("", 10)["benchmarks"] == [
        "benchmark://a-v0/x",
        "benchmark://b-v0/alpha",
        "benchmark://b-v0/zeta",
    ]
    index.search("alpha", 10)
    assert later.listed == 1 and generator.listed == 0  # listed once, then kept


def test_diff_against_the_parent_state(client):
    """A state's IR against its parent's, as difflib's unified diff of the env's IRs; the
    start state has none, and a long replay does not change the answer."""
    expected = episode(["-mem2reg", "-gvn"])
    session = client.get(f"/api/v4/start/{REWARD}/-mem2reg,-gvn/{CRC32}").json()["session_id"]
    for node, parent, flag in [(1, 0, "-mem2reg"), (2, 1, "-gvn")]:
        response = client.get(f"/api/v4/diff/{session}/{node}")
        assert response.status_code == 200, response.text
        assert response.headers["server-timing"].startswith("env;dur=")
        body = response.json()
        lines = list(
            difflib.unified_diff(
                expected[parent]["ir"].splitlines(),
                expected[node]["ir"].splitlines(),
                f"state {parent}",
                f"state {node} ({flag})",
                lineterm="",
            )
        )
        assert body == {
            "session_id": session,
            "node": node,
            "parent": parent,
            "action_name": flag,
            "diff": "\n".join(lines),
            "added": sum(1 for line in lines[2:] if line.startswith("+")),
            "removed": sum(1 for line in lines[2:] if line.startswith("-")),
        }
        assert body["added"] > 0 and body["removed"] > 0
    # More context, or none.
    wide = client.get(f"/api/v4/diff/{session}/1?context=10").json()["diff"]
    bare = client.get(f"/api/v4/diff/{session}/1?context=0").json()["diff"]
    assert len(bare) < len(client.get(f"/api/v4/diff/{session}/1").json()["diff"]) < len(wide)
    # An action that changes nothing: an empty diff.
    (same,) = client.get(f"/api/v4/step/{session}/-gvn?from=2").json()["states"]
    assert same["state_hash"] == expected[2]["state_hash"]
    body = client.get(f"/api/v4/diff/{session}/{same['id']}").json()
    assert (body["diff"], body["added"], body["removed"]) == ("", 0, 0)
    for path, status, message in [
        (f"/api/v4/diff/{session}/0", 400, "start state"),
        (f"/api/v4/diff/{session}/99", 404, "no state 99"),
        (f"/api/v4/diff/{session}/1?context=-1", 400, "context"),
        ("/api/v4/diff/no-such-session/1", 404, "no session"),
    ]:
        response = client.get(path)
        assert response.status_code == status and message in response.json()["error"], path
    client.get(f"/api/v4/stop/{session}")


def test_text_diff_refuses_texts_too_long():
    from compiler_gym.bin.explorer_requests import MAX_DIFF_LINES, ExplorerError, text_diff

    assert text_diff("a\nb\nc", "a\nB\nc", "x", "y", 1) == {
        "diff": "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c",
        "added": 1,
        "removed": 1,
    }
    # "+++"/"---" lines of the text itself are counted; the two headers are not.
    assert text_diff("--x", "++x", "a", "b", 0)["diff"] == "--- a\n+++ b\n@@ -1 +1 @@\n---x\n+++x"
    assert text_diff("--x", "++x", "a", "b", 0)["added"] == 1
    with pytest.raises(ExplorerError) as refused:
        text_diff("x\n" * (MAX_DIFF_LINES + 1), "", "a", "b", 3)
    assert refused.value.status == 413


def test_ranking_of_every_action_from_a_state(client):
    """One try of every action from a state: the rewards env.try_actions gives there, best
    first, ties by action index, with the states the tree already holds."""
    session = client.get(f"/api/v4/start/{REWARD}/-mem2reg,-gvn/{CRC32}").json()["session_id"]
    with compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD) as env:
        env.reset()
        env.step(env.action_space["-mem2reg"])
        flags = env.action_space.flags
        rewards = env.try_actions(list(range(len(flags))))
    response = client.get(f"/api/v4/rank/{session}/1")
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["session_id"], body["node"], body["reward_space"]) == (session, 1, REWARD)
    ranking = body["ranking"]
    assert sorted(r["action"] for r in ranking) == list(range(len(flags)))
    for row in ranking:
        assert row["action_name"] == flags[row["action"]]
        expected = rewards[row["action"]]
        if np.isnan(expected):
            assert row["reward"] is None
        else:
            assert row["reward"] == pytest.approx(expected, abs=1e-12)
    order = sorted(
        range(len(flags)),
        key=lambda a: (np.isnan(rewards[a]), -np.nan_to_num(rewards[a], nan=0.0), a),
    )
    assert [r["action"] for r in ranking] == order
    assert ranking[0]["reward"] == pytest.approx(np.nanmax(rewards))
    # The action taken from there is marked with its state.
    assert [r["child"] for r in ranking if r["child"] is not None] == [2]
    assert next(r for r in ranking if r["action_name"] == "-gvn")["child"] == 2
    # Taking the best gives the reward it was ranked with; a state is ranked once.
    best = ranking[0]
    (taken,) = client.get(f"/api/v4/step/{session}/{best['action']}?from=1").json()["states"]
    assert taken["reward"] == pytest.approx(best["reward"])
    again = client.get(f"/api/v4/rank/{session}/1")
    assert again.headers["server-timing"] == 'env;dur=0.0000;desc="env"'
    assert (
        next(r for r in again.json()["ranking"] if r["action"] == best["action"])["child"]
        == taken["id"]
    )
    for path, status, message in [
        (f"/api/v4/rank/{session}/99", 404, "no state 99"),
        ("/api/v4/rank/no-such-session/0", 404, "no session"),
    ]:
        response = client.get(path)
        assert response.status_code == status and message in response.json()["error"], path
    client.get(f"/api/v4/stop/{session}")


def test_a_state_is_shared_by_its_link(client):
    """Each state has its link's fragment (benchmark, reward, actions by flag); the page
    served with it starts a session that reaches the same state."""
    body = client.get(f"/api/v4/start/{REWARD}/-mem2reg,-gvn,-simplifycfg/{CRC32}").json()
    last = body["states"][-1]
    share = last["share"]
    assert share == (
        "#benchmark=benchmark://builtin-v0/crc32&reward=IrInstructionCountOz"
        "&actions=-mem2reg,-gvn,-simplifycfg"
    )
    assert body["states"][0]["share"] == (
        "#benchmark=benchmark://builtin-v0/crc32&reward=IrInstructionCountOz&actions="
    )
    page = client.get("/" + share)  # the fragment stays in the browser; the page is served
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    # What the page does with it: URLSearchParams, then a start with those actions.
    params = parse_qs(share[1:], keep_blank_values=True)
    benchmark, reward = params["benchmark"][0], params["reward"][0]
    actions = params["actions"][0]
    again = client.get(f"/api/v4/start/{reward}/{actions}/{quote(benchmark, safe='')}").json()
    reached = again["states"][-1]
    for key in ("state_hash", "cumulative_reward", "commandline", "share", "autophase"):
        assert reached[key] == last[key], key
    # Any benchmark URI and flag is carried percent-encoded.
    from compiler_gym.bin.explorer import share_fragment

    odd = share_fragment("benchmark://x-v0/a b&c#d", "R", ["--param=a=1", "-f+g"])
    assert (
        odd == "#benchmark=benchmark://x-v0/a%20b%26c%23d&reward=R&actions=--param%3Da%3D1,-f%2Bg"
    )
    params = parse_qs(odd[1:])
    assert params["benchmark"] == ["benchmark://x-v0/a b&c#d"]
    assert params["actions"][0].split(",") == ["--param=a=1", "-f+g"]
    for session in (body["session_id"], again["session_id"]):
        client.get(f"/api/v4/stop/{session}")


def test_a_pasted_command_line_gives_its_actions(client, tmp_path):
    """The env's command line, its flags alone, opt's -passes pipelines and a state CSV row
    all give actions; nothing a command line names is read."""
    actions = client.get("/api/v4/describe").json()["actions"]

    def parse(text):
        response = client.get("/api/v4/commandline", params={"text": text})
        assert response.status_code == 200, (text, response.text)
        return response.json()

    body = parse("opt -mem2reg -gvn input.bc -o output.bc")
    assert body == {
        "benchmark": None,
        "actions": [actions["-mem2reg"], actions["-gvn"]],
        "flags": ["-mem2reg", "-gvn"],
        "ignored": ["opt", "input.bc", "-o", "output.bc"],
        "commandline": "opt -mem2reg -gvn input.bc -o output.bc",
    }
    cases = [
        ("-mem2reg -instcombine", ["-mem2reg", "-instcombine"]),
        ("mem2reg gvn", ["-mem2reg", "-gvn"]),
        (
            "opt-19 -passes='function(mem2reg),function(instcombine<no-verify-fixpoint>)' in.bc",
            ["-mem2reg", "-instcombine"],
        ),
        # By LLVM's pass name, by the pass's text with its parameters, inside adaptors.
        (
            "/usr/lib/llvm-19/bin/opt -S -passes=mem2reg,instcombine,early-cse<memssa>,licm "
            "x.ll -o -",
            ["-mem2reg", "-instcombine", "-early-cse-memssa", "-licm"],
        ),
        ("--passes 'function(loop(guard-widening),gvn)'", ["-loop-guard-widening", "-gvn"]),
        ("-passes=guard-widening,repeat<2>(sroa,dce)", ["-guard-widening"] + ["-sroa", "-dce"] * 2),
    ]
    for text, flags in cases:
        assert parse(text)["flags"] == flags, text
    # A state CSV row, with its header or not: its benchmark comes with it.
    row = "benchmark://builtin-v0/qsort,0.25,1.5,opt -mem2reg -sroa input.bc -o output.bc"
    for text in (row, f"benchmark,reward,walltime,commandline\n{row}\n"):
        body = parse(text)
        assert body["benchmark"] == "benchmark://builtin-v0/qsort"
        assert body["flags"] == ["-mem2reg", "-sroa"]
    # Every state's own command line gives its actions back, the start state's none.
    started = client.get(f"/api/v4/start/{REWARD}/-mem2reg,-gvn,-licm/{CRC32}").json()
    states = started["states"]
    assert states[0]["commandline"] == "opt  input.bc -o output.bc"  # CompilerGym's two spaces
    for state in states:
        flags = [s["action_name"] for s in states[1 : state["id"] + 1]]
        assert parse(state["commandline"])["flags"] == flags
    # A file a command line names is never opened: a secret's name is ignored, its text never
    # in the answer.
    secret = tmp_path / "secret.ll"
    secret.write_text("SECRET-CONTENT")
    body = parse(f"opt -mem2reg {secret} -o {tmp_path / 'out.bc'}")
    assert body["ignored"] == ["opt", str(secret), "-o", str(tmp_path / "out.bc")]
    assert "SECRET-CONTENT" not in json.dumps(body)
    for text, status, message in [
        ("", 400, "no command line"),
        ("-mem2rg", 400, "'-mem2rg' is not an action; did you mean '-mem2reg'?"),
        (f"opt @{secret}", 400, "names a response file, which is not read"),
        ("-passes=default<O3>", 400, "pass 'default<O3>' of -passes is not an action"),
        ("-passes=mem2reg,", 400, "malformed -passes pipeline"),
        ("-passes=function(gvn", 400, "expected ')'"),
        ("-passes=repeat<100000>(gvn)", 413, "more than 5000 actions"),
        ("opt 'unclosed", 400, "cannot split"),
        ("file:///etc/passwd,,0,-mem2reg", 400, "file:// benchmarks are not served"),
        ("benchmark://nope-v0/x,,0,-mem2reg", 404, "Dataset not found"),
        (f"{row}\n{row}", 400, "2 states in the CSV"),
    ]:
        response = client.get("/api/v4/commandline", params={"text": text})
        assert response.status_code == status, (text, response.text)
        assert message in response.json()["error"], (text, response.json())
        assert "SECRET-CONTENT" not in response.text
    client.get(f"/api/v4/stop/{started['session_id']}")
