"""The explorer's JSON API, against a running server: states as the env gives them, going back
to an earlier state, sessions that time out and are capped, the database endpoints, and a 4xx
JSON error for every kind of bad input while the server goes on serving."""

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

import compiler_gym
from compiler_gym.wrappers import SynchronousSqliteLogger

pytestmark = pytest.mark.timeout(120)

CRC32 = "benchmark://builtin-v0/crc32"
REWARD = "IrInstructionCountOz"
FLAGS = ["-mem2reg", "-gvn", "-simplifycfg"]


class ExplorerServer:
    """``python -m compiler_gym.bin.explorer --port 0 ARGS`` in a subprocess, for a ``with``
    block: ``url`` is where it listens; leaving the block stops it (SIGTERM, then SIGKILL). Its
    site data is an empty folder (``site_data``), as on a machine where no dataset that installs
    has been installed."""

    def __init__(self, *args: str):
        self.args = [sys.executable, "-m", "compiler_gym.bin.explorer", "--port", "0", *args]
        self.process = None
        self.url = None
        self.site_data = None

    def __enter__(self):
        self.site_data = Path(tempfile.mkdtemp(prefix="explorer-site-"))
        self.process = subprocess.Popen(
            self.args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "COMPILER_GYM_SITE_DATA": str(self.site_data)},
        )
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline and self.process.poll() is None:
            ready, _, _ = select.select([self.process.stdout], [], [], 1)
            if ready:
                line = self.process.stdout.readline()
                if line.startswith("compiler_gym explorer: "):
                    self.url = line.split(": ", 1)[1].strip().rstrip("/")
                    return self
        self.__exit__()
        raise RuntimeError(f"the explorer did not start: {line!r}")

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
        self.process.stdout.close()
        shutil.rmtree(self.site_data, ignore_errors=True)


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
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def test_describe_lists_the_env(client, logged_db, server):
    body = client.get("/api/v4/describe").json()
    assert body["database"] == str(logged_db)
    with compiler_gym.make("llvm-v0") as env:
        assert body["actions"] == {f: i for i, f in enumerate(env.action_space.flags)}
        assert body["rewards"] == list(env.reward.spaces)
        assert body["observations"] == list(env.observation.spaces)
        builtin = list(env.datasets["benchmark://builtin-v0"].benchmark_uris())
    datasets = {d["name"]: d for d in body["datasets"]}
    assert datasets["benchmark://builtin-v0"]["benchmarks"] == builtin
    assert datasets["benchmark://builtin-v0"]["truncated"] is False
    assert datasets["generator://csmith-v0"]["size"] is None
    assert datasets["generator://csmith-v0"]["truncated"] is True
    # Datasets that install (an extraction, downloads) are listed, not installed, so that the
    # server answers at once on a fresh machine.
    torture = datasets["benchmark://gcc-torture-v0"]
    assert torture["installed"] is False and torture["benchmarks"] == []
    assert torture["size"] is None and torture["truncated"] is True
    assert datasets["benchmark://builtin-v0"]["installed"] is True
    assert list(server.site_data.iterdir()) == []
    assert len(body["features"]["autophase"]) == 56 and len(body["features"]["instcount"]) == 70
    assert body["default_reward"] == "IrInstructionCountOz"
    assert body["state"] == {
        "headline": {"key": "ir_instruction_count", "label": "Instructions"},
        "text": {"key": "ir", "label": "IR"},
        "features": [
            {"key": "autophase", "title": "Autophase"},
            {"key": "instcount", "title": "InstCount"},
        ],
    }


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
        ("GET", f"/api/v4/step/{session}/" + ",".join(["1"] * 600), 413, "at most 512"),
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
    big = client.post("/api/v4/describe", content=b"x" * 20000)
    assert big.status_code == 413 and "at most 16384" in big.json()["error"]
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


def test_sessions_are_capped_and_time_out():
    with ExplorerServer("--max-sessions", "2", "--session-timeout", "1") as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
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
        httpx.Client(base_url=server.url, timeout=60) as client,
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
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        body = client.get("/api/v4/describe").json()
        assert body["state"]["features"] == [] and body["features"] == {}
        uri = quote("benchmark://loop_tool-cpu-v0/1024", safe="")
        states = client.get(f"/api/v4/start/flops/toggle_mode,up/{uri}?ir=1").json()["states"]
        assert [s["action_name"] for s in states] == [None, "toggle_mode", "up"]
        assert all(s["flops"] > 0 for s in states)
        assert states[2]["loop_tree"].startswith("for a in 1024 : L0 cpu_parallel [thread]")
        # "up" in select mode moved the cursor, not the loops: the same loop tree, another
        # state. (The mode is no observation, so toggle_mode alone keeps the hash.)
        assert states[1]["state_hash"] == states[0]["state_hash"] != states[2]["state_hash"]
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
