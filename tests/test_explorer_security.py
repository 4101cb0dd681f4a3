"""The explorer against a hostile client (issue 33): no file of the server's machine is read,
whatever the spelling of its URI, and no error echoes what a benchmark's loading read; every
request's work is bounded (actions, time, replays, lock waits) and refused before any env work
when it cannot be served; connections that do not send their headers are closed, and a flood
of them does not keep other clients out.

Work is counted (env calls, actions replayed), not timed: the tests run on busy 2-core machines,
so a time appears only as a generous upper bound, where the bug would hold on for ever."""

import asyncio
import os
import random
import resource
import secrets
import socket
import threading
import time
from contextlib import asynccontextmanager, closing
from urllib.parse import quote, urlsplit

import httpx
import pytest
from test_explorer_api import CRC32, REWARD, ExplorerServer, FollowJobsAsync, explorer_client

import compiler_gym
from compiler_gym.bin import explorer
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.errors import BenchmarkInitError

pytestmark = pytest.mark.timeout(300)

MARKER = f"EXPLORER_SECRET_{secrets.token_hex(8)}"
EXAMPLE = "benchmark://example-v0/3"


@pytest.fixture(scope="module")
def secrets_dir(tmp_path_factory):
    """Files the explorer must never show: LLVM IR that would come back whole as a benchmark's
    IR (the marker is a global's name, which printing the module keeps), and a text file whose
    first line a parse error would quote, and a C file."""
    folder = tmp_path_factory.mktemp("explorer-secrets")
    (folder / "secret.ll").write_text(
        f"@{MARKER} = global i32 7\n\ndefine i32 @main() {{\n  ret i32 0\n}}\n"
    )
    (folder / "secret.txt").write_text(f"{MARKER} the first line\nand more\n")
    (folder / "secret.c").write_text(f'const char *s = "{MARKER}";\nint main() {{ return 0; }}\n')
    return folder


@pytest.fixture(scope="module")
def server():
    with ExplorerServer() as s:
        yield s


@pytest.fixture(scope="module")
def client(server):
    with explorer_client(server.url) as c:
        yield c


def file_uri_variants(path) -> list[str]:
    """Spellings of ``path`` as a benchmark, each one that must be refused."""
    path = str(path)
    relative = os.path.relpath(path)
    return [
        f"file://{path}",
        f"FILE://{path}",
        f"File://{path}",
        f"fIlE://{path}",
        f" file://{path}",
        f"file://{path} ",
        f"\tfile://{path}",
        f"\nfile://{path}",
        f"file://{path}\r\n",
        f"%66ile://{path}",  # percent-encoded once more than the URL's own encoding
        f"%46%49%4C%45://{path}",
        f"%2566ile://{path}",
        f"file:{path}",
        f"file:/{path}",
        f"file:///{path}",
        f"file://localhost{path}",
        f"FILE:{path}",
        path,
        relative,
        f"./{relative}",
        "../" * 12 + path.lstrip("/"),
        f"benchmark://..{path}",
        f"benchmark://../../../../../..{path}",
        f"benchmark://builtin-v0/../../../../../..{path}",
        f"benchmark://builtin-v0/..%2F..%2F..%2F..{path}",
        f"benchmark://builtin-v0/..\\..\\..{path}",
        f"benchmark:///{path}",
        f"benchmark:{path}",
        f"generator://csmith-v0/../../../..{path}",
        f"benchmark://not-the-envs-v0{path}",
        f"benchmark://secret-v0/{os.path.basename(path)}",
        f"nosuchscheme://builtin-v0{path}",
        f"http://localhost{path}",
        f"file://{path}\x00",
        f"\x00file://{path}",
        f"benchmark://builtin-v0/crc32\x00{path}",
        f"file://{path}%00.bc",
        f"file\x00://{path}",
    ]


def start_path(benchmark: str, safe: str) -> str:
    """The start of a session on ``benchmark``, percent-encoded but for ``safe``."""
    return f"/api/v4/start/{REWARD}/-/{quote(benchmark, safe=safe)}"


def test_file_uris_in_any_spelling_are_refused(client, server, secrets_dir):
    """Each spelling of a file, sent with its characters percent-encoded and as they are
    (only what HTTP cannot carry encoded), is a 4xx JSON error that quotes none of it."""
    checked = 0
    for name in ("secret.ll", "secret.txt", "secret.c"):
        for variant in file_uri_variants(secrets_dir / name):
            for safe in ("", "/:%\\"):
                response = client.get(start_path(variant, safe))
                assert 400 <= response.status_code < 500, (variant, safe, response.text)
                assert MARKER not in response.text, (variant, response.text)
                assert response.headers["content-type"] == "application/json"
                checked += 1
    assert checked > 200
    # The checks refuse spellings, not benchmarks: a dataset's still starts, by URI or by
    # CompilerGym's shorthand, and so does its IR.
    for uri in (CRC32, "builtin-v0/crc32", "benchmark://builtin-v0/crc32?dataset=2"):
        response = client.get(start_path(uri, "") + "?ir=1")
        assert response.status_code == 200, (uri, response.text)
        body = response.json()
        assert body["truncated"] is False and "define" in body["states"][0]["ir"]
        client.get(f"/api/v4/stop/{body['session_id']}")
    assert server.alive()


def test_refusals_say_why(client):
    """A refused benchmark's error says what to change, with a status per kind."""
    cases = [
        ("file:///etc/passwd", 400, "file:// benchmarks are not served"),
        ("FILE:///etc/passwd", 400, "file:// benchmarks are not served"),
        ("/etc/passwd", 400, "not a benchmark URI"),
        ("benchmark://nope-v0/x", 404, "Dataset not found: benchmark://nope-v0"),
        ("benchmark://builtin-v0/../crc32", 400, "'..'"),
        ("benchmark://builtin-v0/crc32\x00", 400, "control characters"),
        ("benchmark://builtin-v0/nope", 404, "Benchmark not found: benchmark://builtin-v0/nope"),
    ]
    for uri, status, message in cases:
        response = client.get(start_path(uri, ""))
        assert response.status_code == status, (uri, response.text)
        assert message in response.json()["error"], (uri, response.json())


@asynccontextmanager
async def asgi_client(config: explorer.ExplorerConfig, raise_app_exceptions: bool = True):
    """An HTTP client of the explorer's ASGI app, run in this process (its startup and
    shutdown included), so that a test can patch what the app calls."""
    app = explorer.create_app(config)
    fastapi = app.app
    async with fastapi.router.lifespan_context(fastapi):
        transport = FollowJobsAsync(
            httpx.ASGITransport(app=app, raise_app_exceptions=raise_app_exceptions)
        )
        async with httpx.AsyncClient(
            transport=transport, base_url="http://localhost", timeout=60
        ) as c:
            yield c


def test_loading_errors_never_echo_what_was_read(monkeypatch):
    """A benchmark whose loading fails, whatever the exception says (a parse error quotes the
    line it read), is answered with the exception's type only."""
    from compiler_gym.datasets.builtin import BuiltinDataset

    original = BuiltinDataset.benchmark_from_parsed_uri

    def failing(kind):
        def load(self, uri):
            if uri.path == "/crc32":  # CompilerGym's path: with its leading /
                raise kind(f"error: {MARKER} on line 1")
            return original(self, uri)

        return load

    async def scenario():
        async with asgi_client(explorer.ExplorerConfig(), raise_app_exceptions=False) as c:
            for kind, status in [
                (BenchmarkInitError, 400),
                (ValueError, 400),
                (OSError, 400),
                (LookupError, 404),
                (RuntimeError, 500),  # unexpected: the server's generic 500
            ]:
                monkeypatch.setattr(BuiltinDataset, "benchmark_from_parsed_uri", failing(kind))
                response = await c.get(start_path(CRC32, ""))
                assert response.status_code == status, (kind, response.text)
                assert MARKER not in response.text, kind
                if status == 400:
                    assert kind.__name__ in response.json()["error"]
            monkeypatch.undo()

            # The same when the engine fails to load it, at reset.
            def reset(self, *args, **kwargs):
                raise BenchmarkInitError(f"parse error: {MARKER}")

            monkeypatch.setattr(CompilerEnv, "reset", reset)
            response = await c.get(start_path(CRC32, ""))
            assert response.status_code == 400 and MARKER not in response.text
            assert "BenchmarkInitError" in response.json()["error"]
            monkeypatch.undo()
            assert (await c.get(start_path(CRC32, ""))).status_code == 200

    asyncio.run(scenario())


# Fragments a URI fuzzer starts its strings with: schemes in several spellings, paths,
# encodings, the env's datasets.
URI_PREFIXES = [
    "",
    "file://",
    "FILE://",
    "file:",
    "%66ile://",
    "benchmark://",
    "BENCHMARK://",
    "generator://",
    "benchmark://builtin-v0/",
    "builtin-v0/",
    "benchmark://builtin-v0/..",
    "benchmark://../",
    "/",
    "../",
    "./",
    " ",
    "\x00",
    "%00",
    "%2e%2e/",
    "\\\\",
    "http://",
    "data:",
    "benchmark://gcc-torture-v0/",
]


def check_uri(client, uri: str) -> None:
    """Starts a session on ``uri``: answered below 500, with no secret in it."""
    response = client.get(start_path(uri, ""))
    assert response.status_code < 500, (uri, response.text)
    assert MARKER not in response.text, uri
    if response.status_code == 200:  # a benchmark after all: its session is stopped
        client.get(f"/api/v4/stop/{response.json()['session_id']}")


def test_fuzzed_benchmark_uris_never_5xx_nor_leak(client, server, secrets_dir):
    """Many random URI strings (hypothesis when installed, else a seeded generator), built
    around the secret files' paths: each answers below 500 and quotes none of them."""
    paths = [str(secrets_dir / n) for n in ("secret.ll", "secret.txt", "secret.c")]
    try:
        from hypothesis import HealthCheck, given, settings
        from hypothesis import strategies as st
    except ImportError:
        rng = random.Random(33)
        alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789/:.%-_?=&#@ \t\x00\\~"
        for _ in range(400):
            tail = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
            uri = rng.choice(URI_PREFIXES) + rng.choice(["", *paths]) + tail
            check_uri(client, uri)
    else:
        uris = st.builds(
            lambda prefix, path, tail: prefix + path + tail,
            st.sampled_from(URI_PREFIXES),
            st.sampled_from(["", *paths, *(p.upper() for p in paths)]),
            st.text(max_size=40),
        ) | st.text(max_size=80)

        @settings(
            max_examples=400,
            deadline=None,
            database=None,  # no .hypothesis folder left in the checkout
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(uris)
        def fuzz(uri):
            check_uri(client, uri)

        fuzz()
    assert server.alive()
    assert client.get("/api/v4/describe").status_code == 200


def raw_exchange(url: str, data: bytes, timeout: float = 30) -> bytes:
    """Sends ``data`` on a new connection to the server at ``url`` and reads until it closes
    (or ``timeout``); what came back, empty when the connection was closed or reset with no
    answer (a server that closes on unread data resets the connection, which can drop what
    it wrote before)."""
    host, port = urlsplit(url).hostname, urlsplit(url).port
    with closing(socket.create_connection((host, port), timeout=timeout)) as s:
        received = b""
        try:
            s.sendall(data)
            while chunk := s.recv(65536):
                received += chunk
        except (ConnectionResetError, BrokenPipeError):
            pass
        return received


def status_of(response: bytes):
    """The status of a raw HTTP response, None for none."""
    if not response.startswith(b"HTTP/1."):
        return None
    return int(response.split(b" ", 2)[1])


def test_odd_headers_are_refused_and_the_server_goes_on(server):
    """Odd Host headers, huge headers, duplicate or conflicting lengths, malformed lines: each
    a 4xx (or a connection closed unanswered, for what is too long to read), and the server
    serves the next client; then a seeded fuzz of random header lines, none a 5xx."""
    get = "GET /api/v4/describe HTTP/1.1\r\n"

    def request(*headers: str, line: str = get) -> bytes:
        return (line + "".join(f"{h}\r\n" for h in headers) + "Connection: close\r\n\r\n").encode(
            "latin-1"
        )

    refused = [
        request("Host: attacker.example"),
        request("Host: "),
        request("Host: ["),
        request("Host: [::1"),
        request("Host: localhost@attacker.example"),
        request("Host: 127.0.0.1.attacker.example:80"),
        request("Host: \xff\xfe"),
        request("Host: " + "a" * 8000),
        request("Host: localhost", "Host: attacker.example"),
        request("Host: localhost", "Content-Length: 0", "Content-Length: 5"),
        request("Host: localhost", "Content-Length: 5", "Transfer-Encoding: chunked"),
        request("Host: localhost", "Content-Length: -1"),
        request("Host: localhost", "Content-Length: 1e3"),
        request("Host: localhost", "Transfer-Encoding: chunked, identity"),
        request("Host: localhost", "No colon here"),
        request("Host: localhost", "Bad Name: x"),
        request("Host: localhost", "X-Null: a\x00b"),
        request("Host: localhost", "X-Folded: a", " folded"),
        request("Host: localhost", line="GET /api/v4/\xff HTTP/1.1\r\n"),
        request("Host: localhost", line="GARBAGE\r\n"),
        request("Host: localhost", line="GET /api/v4/describe HTTP/1.1 extra\r\n"),
    ]
    huge = [
        request("Host: localhost", "X-Big: " + "a" * 200_000),
        request("Host: localhost", *(f"X-{i}: {'b' * 30}" for i in range(5000))),
    ]
    for data in refused:
        status = status_of(raw_exchange(server.url, data))
        assert status is not None and 400 <= status < 500, (data[:120], status)
    for data in huge:
        status = status_of(raw_exchange(server.url, data))
        assert status is None or 400 <= status < 500, (data[:120], status)
    assert status_of(raw_exchange(server.url, request("Host: localhost"))) == 200

    rng = random.Random(33)
    names = [
        "Host",
        "Content-Length",
        "Transfer-Encoding",
        "Connection",
        "X-A",
        "Expect",
        "Upgrade",
    ]
    values = ["localhost", "0", "chunked", "close", "100-continue", "websocket", "", "\x00"]
    for _ in range(150):
        headers = []
        for _ in range(rng.randint(0, 6)):
            name = rng.choice(names + ["".join(chr(rng.randint(0, 255)) for _ in range(5))])
            value = rng.choice(values + ["".join(chr(rng.randint(0, 255)) for _ in range(20))])
            headers.append(f"{name}: {value}" * rng.choice([1, 1, 1, 2]))
        status = status_of(raw_exchange(server.url, request(*headers), timeout=60))
        assert status is None or status < 500, (headers, status)
    assert server.alive()
    with httpx.Client(base_url=server.url, timeout=60) as c:
        assert c.get("/api/v4/describe").status_code == 200


def limit_open_files(n: int):
    """A ``preexec_fn`` that gives the server at most ``n`` open files, soft and hard."""
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))


@pytest.fixture(scope="module")
def strict_server():
    """A server with a 1-second header timeout and 128 file descriptors in all (its hard
    limit: it cannot raise it)."""
    with ExplorerServer("--header-timeout", "1", preexec_fn=limit_open_files(128)) as s:
        yield s


def wait_closed(sock: socket.socket, bound: float = 30) -> bytes:
    """What the server sends on ``sock`` until it closes it; fails past ``bound`` seconds
    (the header timeout is 1 s: the bound is only there so that the bug fails, not hangs)."""
    sock.settimeout(bound)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server kept an idle connection open {bound} s")
    return received


def test_connections_without_their_headers_are_closed(strict_server):
    """Half a request line, nothing at all, a request trickled a byte at a time, the next
    request on a kept-alive connection: each closed after the header timeout, with a 408
    when something was sent."""
    address = (urlsplit(strict_server.url).hostname, urlsplit(strict_server.url).port)
    with closing(socket.create_connection(address)) as half:
        half.sendall(b"GET /api/v4/desc")
        assert status_of(wait_closed(half)) == 408
    with closing(socket.create_connection(address)) as silent:
        assert wait_closed(silent) == b""

    with closing(socket.create_connection(address)) as trickle:
        # uvicorn alone disarms its timer on every byte: a byte every 0.2 s held it for ever.
        closed = threading.Event()

        def send():
            for byte in b"GET /api/v4/describe HTTP/1.1\r\nX-Slow: " + b"a" * 1000:
                if closed.is_set():
                    return
                try:
                    trickle.sendall(bytes([byte]))
                except OSError:
                    return
                time.sleep(0.2)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        response = wait_closed(trickle)
        closed.set()
        sender.join(timeout=10)
        assert status_of(response) == 408

    with closing(socket.create_connection(address)) as kept:
        kept.sendall(b"GET /api/v4/describe HTTP/1.1\r\nHost: localhost\r\n\r\nGET /api/v4")
        response = wait_closed(kept)
        assert status_of(response) == 200 and b"HTTP/1.1 408" in response
    assert strict_server.alive()


def test_a_flood_of_idle_connections_does_not_keep_a_client_out():
    """150 connections that send half a request, to a server of 128 file descriptors whose
    header timeout (60 s) is no help: the server closes the oldest for the new ones, and a
    client is served, sessions included. (Before, the server ran out of descriptors and
    served no one until the idle connections went.)"""
    with ExplorerServer("--header-timeout", "60", preexec_fn=limit_open_files(128)) as server:
        flood(server)


def flood(server):
    """The flood of the test above, against ``server``."""
    address = (urlsplit(server.url).hostname, urlsplit(server.url).port)
    idle = []
    try:
        for _ in range(150):
            sock = socket.create_connection(address, timeout=30)
            sock.sendall(b"GET / HTTP/1.1\r\n")
            idle.append(sock)
        with explorer_client(server.url, timeout=30) as c:
            assert c.get("/api/v4/describe").status_code == 200
            started = c.get(start_path(CRC32, ""))
            assert started.status_code == 200, started.text
            assert c.get(f"/api/v4/step/{started.json()['session_id']}/-mem2reg").status_code == 200
            c.get(f"/api/v4/stop/{started.json()['session_id']}")
        # The oldest were closed by the server, long before their header timeout.
        for sock in idle[:100]:
            assert wait_closed(sock) == b""
    finally:
        for sock in idle:
            sock.close()
    assert server.alive()


class EnvWork:
    """Counts the env work the explorer does, by patching CompilerEnv: calls by name, and
    the actions applied (``step`` is a ``multistep`` of one)."""

    def __init__(self, monkeypatch):
        self.calls: list[str] = []
        self.actions = 0
        for name in ("reset", "multistep", "fork"):
            original = getattr(CompilerEnv, name)

            def counted(env, *args, _name=name, _original=original, **kwargs):
                self.calls.append(_name)
                if _name == "multistep":
                    self.actions += len(list(args[0]))
                return _original(env, *args, **kwargs)

            monkeypatch.setattr(CompilerEnv, name, counted)

    def clear(self) -> None:
        """Forgets what was counted."""
        self.calls.clear()
        self.actions = 0


def example_config(**kwargs) -> explorer.ExplorerConfig:
    """A server of example-v0, whose actions cost microseconds."""
    return explorer.ExplorerConfig(env="example-v0", **kwargs)


def actions_path(actions) -> str:
    """The ACTIONS segment of ``actions``."""
    return ",".join(str(a) for a in actions)


def test_actions_past_the_limit_are_413():
    """More actions than the limit, in a start or a step, are refused whole; the limit is
    in describe's ``limits`` for the page."""

    async def scenario():
        async with asgi_client(example_config(max_actions_per_request=8)) as c:
            too_many = await c.get(f"/api/v4/start/inversions/{actions_path([0] * 9)}/{EXAMPLE}")
            assert too_many.status_code == 413 and "at most 8" in too_many.json()["error"]
            body = (
                await c.get(f"/api/v4/start/inversions/{actions_path([0] * 8)}/{EXAMPLE}")
            ).json()
            assert len(body["states"]) == 9 and body["truncated"] is False
            session = body["session_id"]
            refused = await c.get(f"/api/v4/step/{session}/{actions_path([1] * 9)}")
            assert refused.status_code == 413
            limits = (await c.get("/api/v4/describe")).json()["limits"]
            assert limits["max_actions_per_request"] == 8

    assert explorer.ExplorerConfig().max_actions_per_request == 64  # the default

    asyncio.run(scenario())


def test_a_ranking_past_the_limit_is_413_before_any_work(monkeypatch):
    """A ranking tries every action in one call no deadline stops: past
    ``max_rank_actions`` actions (GCC's 2,369 compiles) it is refused before any env work; at
    or under, it is the env's try_actions, made once per state."""
    work = EnvWork(monkeypatch)
    tried = []
    original = CompilerEnv.try_actions

    def counted(env, actions, *args, **kwargs):
        tried.append(list(actions))
        return original(env, actions, *args, **kwargs)

    monkeypatch.setattr(CompilerEnv, "try_actions", counted)

    async def scenario(limit: int):
        async with asgi_client(example_config(max_rank_actions=limit)) as c:
            assert (await c.get("/api/v4/describe")).json()["limits"]["max_rank_actions"] == limit
            body = (await c.get(f"/api/v4/start/inversions/0,1/{EXAMPLE}")).json()
            session = body["session_id"]
            work.clear()
            response = await c.get(f"/api/v4/rank/{session}/0")
            return response.status_code, response.json()

    status, body = asyncio.run(scenario(6))
    assert status == 413 and "ranking 7 actions" in body["error"]
    assert "--max-rank-actions 6" in body["error"]
    assert work.calls == [] and tried == []
    status, body = asyncio.run(scenario(7))
    assert status == 200 and tried == [list(range(7))]
    # From the start state of example-v0/3 (the env's own try_actions gives these).
    assert [(r["action_name"], r["reward"]) for r in body["ranking"]] == [
        ("swap-0", 1.0),
        ("swap-3", 1.0),
        ("swap-6", 1.0),
        ("swap-5", 0.0),
        ("swap-1", -1.0),
        ("swap-2", -1.0),
        ("swap-4", -1.0),
    ]
    assert body["ranking"][0]["child"] == 1  # the start's state after swap-0 is in the tree
    assert explorer.ExplorerConfig().max_rank_actions == 1000  # the default


def test_work_past_the_deadline_answers_truncated():
    """With no time at all, a start or a step takes its first action only, and says so; the
    actions left, asked again, go on from there."""

    async def scenario():
        async with asgi_client(example_config(max_request_seconds=0)) as c:
            body = (await c.get(f"/api/v4/start/inversions/0,1,2,3/{EXAMPLE}")).json()
            assert [s["action_name"] for s in body["states"]] == [None, "swap-0"]
            assert body["truncated"] is True
            session = body["session_id"]
            step = (await c.get(f"/api/v4/step/{session}/1,2,3")).json()
            assert [s["action_name"] for s in step["states"]] == ["swap-1"]
            assert step["truncated"] is True and step["states"][0]["parent"] == 1
            # Children already taken cost no work: all come back.
            again = (await c.get(f"/api/v4/step/{session}/0,1?from=0")).json()
            assert [s["id"] for s in again["states"]] == [1, 2] and again["truncated"] is False
        async with asgi_client(example_config()) as c:
            body = (await c.get(f"/api/v4/start/inversions/0,1,2,3/{EXAMPLE}")).json()
            assert len(body["states"]) == 5 and body["truncated"] is False

    asyncio.run(scenario())


def test_refusals_come_before_any_env_work(monkeypatch):
    """Unknown session or state, a full tree, a done episode: refused with no reset, replay,
    step or fork. The full tree above all: its 409 used to come after replaying the state's
    actions (35 s for a state 4000 deep)."""
    work = EnvWork(monkeypatch)

    async def scenario():
        async with asgi_client(example_config(max_nodes=60)) as c:
            body = (
                await c.get(f"/api/v4/start/inversions/{actions_path([0] * 50)}/{EXAMPLE}")
            ).json()
            session = body["session_id"]
            # Another branch from the start state, so that the env is far from state 50.
            await c.get(f"/api/v4/step/{session}/{actions_path([1] * 9)}?from=0")
            assert len(body["states"]) + 9 == 60  # the tree is full
            work.clear()
            cases = [
                (f"/api/v4/step/{session}/2?from=50", 409, "tree is full"),
                (f"/api/v4/step/{session}/2", 409, "tree is full"),
                (f"/api/v4/step/{session}/2?from=600", 404, "no state 600"),
                (f"/api/v4/step/{session}/2?from=-1", 404, "no state -1"),
                (f"/api/v4/state/{session}/600?ir=1", 404, "no state 600"),
                ("/api/v4/step/no-such-session/2", 404, "no session"),
                (f"/api/v4/step/{session}/{actions_path([0] * 65)}", 413, "at most 64"),
                (f"/api/v4/start/inversions/-/{EXAMPLE}x", 404, "Benchmark not found"),
            ]
            for path, status, message in cases:
                response = await c.get(path)
                assert response.status_code == status, (path, response.text)
                assert message in response.json()["error"], path
            assert work.calls == []
            # A step by an action taken before is no work either, full tree or not.
            again = await c.get(f"/api/v4/step/{session}/0?from=0")
            assert again.json()["states"][0]["id"] == 1 and work.calls == []

    asyncio.run(scenario())

    # An episode that ended: its state takes no action, before any work.
    session = example_session()
    session.start([0, 1], include_ir=False)
    session.nodes[2].done = True
    work.clear()
    with pytest.raises(explorer.ExplorerError) as refused:
        session.step([3], 2, include_ir=False)
    assert refused.value.status == 400 and "episode ended" in refused.value.message
    assert work.calls == []
    # Ended on the way: the states up to its end come back, truncated, with no work after.
    session.nodes[2].done = False
    (child,), _ = session.step([4], 2, include_ir=False)
    session.nodes[child["id"]].done = True
    work.clear()
    states, truncated = session.step([4, 3], 2, include_ir=False)
    assert truncated is True and [s["id"] for s in states] == [child["id"]]
    assert work.calls == []
    session.close()


def example_session(**kwargs) -> explorer.Session:
    """A session of example-v0 (its Session's keyword arguments)."""
    env = compiler_gym.make("example-v0", benchmark=EXAMPLE, reward_space="inversions")
    return explorer.Session("test", env, "inversions", kwargs.pop("max_nodes", 5000), **kwargs)


def deep_session(**kwargs) -> tuple[explorer.Session, int]:
    """A session of the example env with a path 100 actions deep (node ``d`` is the state
    ``d`` actions deep), and a branch of its start state (its id): going there puts the env
    off the path."""
    session = example_session(**kwargs)
    deep = [i % 7 for i in range(100)]
    session.start(deep[:64], include_ir=False)
    states, _ = session.step(deep[64:], None, include_ir=False)
    assert [s["id"] for s in states] == list(range(65, 101))
    (branch,), _ = session.step([6], 0, include_ir=False)
    return session, branch["id"]


def test_going_back_to_a_deep_state_replays_at_most_the_checkpoint_distance(monkeypatch):
    """A path 100 actions deep keeps checkpoints at 32, 64 and 96: going back to any of its
    states from elsewhere replays the actions from the deepest of them above it (at most 32),
    the state checked by its hash; from a state above it, only the actions between; and a
    session keeps at most 8 checkpoints, the most recently used."""
    work = EnvWork(monkeypatch)
    session, branch = deep_session()
    assert sorted(session.nodes[n].depth for n in session.checkpoints) == [32, 64, 96]
    expected = {}
    with compiler_gym.make("example-v0", benchmark=EXAMPLE) as env:
        env.reset()
        for depth in range(1, 101):
            env.step((depth - 1) % 7)
            expected[depth] = env.observation["program"]
    for depth in (100, 70, 31, 33, 96, 5, 64, 99):
        session.state(branch, include_ir=True)  # the env off the path
        work.clear()
        state = session.state(depth, include_ir=True)
        assert state["program"] == expected[depth]
        checkpoint = max(d for d in (0, 32, 64, 96) if d <= depth)
        assert work.actions == depth - checkpoint <= explorer.CHECKPOINT_INTERVAL, depth
        assert work.calls.count("reset") == (checkpoint == 0)
    work.clear()
    session.state(40, include_ir=True)
    session.state(45, include_ir=True)
    assert work.actions == (40 - 32) + (45 - 40)
    # Deep branches: a checkpoint per 32 actions, the 8 most recently used kept.
    for action in range(2, 7):
        session.step([action] * 64, 64, include_ir=False)
        assert len(session.checkpoints) <= explorer.MAX_CHECKPOINTS
    assert len(session.checkpoints) == explorer.MAX_CHECKPOINTS
    session.close()
    assert not session.checkpoints


def test_a_long_replay_stops_at_the_deadline_and_goes_on(monkeypatch):
    """With no checkpoint on its path and no time, going back to a state 100 deep replays one
    chunk a request and answers 503 until the state is reached, each chunk's end kept as a
    checkpoint; a step from a state out of reach answers no state, truncated, and progress."""
    work = EnvWork(monkeypatch)
    session, branch = deep_session(max_checkpoints=0)
    session.max_checkpoints = explorer.MAX_CHECKPOINTS
    session.state(branch, include_ir=True)
    replayed = []
    for _ in range(10):
        work.clear()
        try:
            state = session.state(100, include_ir=True, deadline=0)
        except explorer.ExplorerError as e:
            assert e.status == 503 and e.headers == {"Retry-After": "0"}
            replayed.append(work.actions)
            continue
        replayed.append(work.actions)
        break
    assert replayed == [32, 32, 32, 4]
    assert state["state_hash"] == session.nodes[100].state_hash
    assert sorted(session.nodes[n].depth for n in session.checkpoints) == [32, 64, 96]
    # Without checkpoints, a step from state 100 when the time is out: no state yet.
    while session.checkpoints:
        session.checkpoints.popitem()[1].close()
    session.max_checkpoints = 0
    session.state(branch, include_ir=True)
    for progress in (32, 32, 32):
        work.clear()
        states, truncated = session.step([1], 100, include_ir=False, deadline=0)
        assert (states, truncated) == ([], True) and work.actions == progress
    work.clear()
    (state,), truncated = session.step([1], 100, include_ir=False, deadline=0)
    assert truncated is False and state["parent"] == 100 and work.actions == 4 + 1
    session.close()


def test_a_dataset_that_is_not_installed_is_refused_at_once(monkeypatch, tmp_path):
    """No request installs a dataset, or waits on another's install: 409 with the command
    that installs it, before any env is made; a generator starts as any benchmark."""
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path))
    import compiler_gym.datasets.install as install

    def refuse(*args, **kwargs):
        raise AssertionError("a request installed a dataset")

    async def scenario():
        async with asgi_client(explorer.ExplorerConfig()) as c:
            monkeypatch.setattr(install, "install_directory", refuse)
            monkeypatch.setattr(install, "file_lock", refuse)
            monkeypatch.setattr(compiler_gym, "make", refuse)
            for uri in ("benchmark://gcc-torture-v0/anything", "benchmark://pypi-c-v0/x"):
                response = await c.get(start_path(uri, ""))
                assert response.status_code == 409, response.text
                dataset = uri.rsplit("/", 1)[0]
                assert (
                    f"python3 -m compiler_gym.bin.datasets install {dataset}"
                    in response.json()["error"]
                )

    asyncio.run(scenario())
    assert explorer.install_command("gcc-v0", "benchmark://x-v0") == (
        "python3 -m compiler_gym.bin.datasets --env gcc-v0 install benchmark://x-v0"
    )


def test_a_request_waits_a_bounded_time_for_its_session(monkeypatch):
    """A request that finds its session busy waits at most max_lock_wait_seconds, then 503
    with Retry-After, instead of queueing behind it without bound."""
    release = threading.Event()
    entered = threading.Event()
    multistep = CompilerEnv.multistep

    def blocking(env, actions, *args, **kwargs):
        if list(actions) == [6]:  # the first request's action: held until the second answered
            entered.set()
            assert release.wait(60)
        return multistep(env, actions, *args, **kwargs)

    async def scenario():
        async with asgi_client(example_config(max_lock_wait_seconds=0.2)) as c:
            session = (await c.get(f"/api/v4/start/inversions/-/{EXAMPLE}")).json()["session_id"]
            monkeypatch.setattr(CompilerEnv, "multistep", blocking)
            first = asyncio.create_task(c.get(f"/api/v4/step/{session}/6"))
            while not entered.is_set():
                await asyncio.sleep(0.01)
            second = await c.get(f"/api/v4/step/{session}/5")
            assert second.status_code == 503 and second.headers["retry-after"] == "1"
            assert "busy" in second.json()["error"]
            release.set()
            assert (await first).status_code == 200
            assert (await c.get(f"/api/v4/step/{session}/5")).status_code == 200

    asyncio.run(scenario())


def test_connection_limits_fit_the_descriptors():
    """The waiting connections and uvicorn's concurrency limit stay within the descriptors
    the process has, beside its own."""
    for fds in (128, 256, 1024, 20000, 1 << 20):
        waiting, concurrency = explorer.connection_limits(fds)
        assert 16 <= waiting <= concurrency
        if fds >= 256:
            assert waiting + concurrency + explorer.FD_RESERVE <= fds
    assert explorer.connection_limits(128) == (21, 42)


def test_states_reached_from_a_checkpoint_are_the_envs(monkeypatch):
    """On LLVM: a step from a state reached by a checkpoint's fork and a replay gives the
    reward and state a plain env gives there (the fork carries the reward's bookkeeping)."""
    flags = ["-mem2reg", "-gvn", "-simplifycfg", "-sroa", "-instcombine", "-dce", "-licm"]
    with compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD) as env:
        actions = [env.action_space[flags[i % len(flags)]] for i in range(40)]
        env.reset()
        env.multistep(actions[:35])
        _, reward, _, _ = env.step(env.action_space["-early-cse"])
        expected = (reward, env.observation["IrSha1"])
    env = compiler_gym.make("llvm-v0", benchmark=CRC32, reward_space=REWARD)
    session = explorer.Session("llvm", env, REWARD, 5000)
    session.start(actions, include_ir=False)
    assert [session.nodes[n].depth for n in session.checkpoints] == [32]
    session.step([env.action_space["-dce"]], 0, include_ir=False)  # the env off the path
    work = EnvWork(monkeypatch)
    (state,), truncated = session.step([env.action_space["-early-cse"]], 35, include_ir=False)
    assert work.calls.count("reset") == 0 and work.actions == 3 + 1
    assert (state["reward"], state["state_hash"]) == (pytest.approx(expected[0]), expected[1])
    session.close()
