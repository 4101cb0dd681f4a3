"""The explorer against the attacks of issue 51: a pasted pipeline nested 900 deep (a 500
RecursionError and two 3,000-line tracebacks per request), another site's page starting
sessions (a cross-site Origin, or an ``<img>`` that sends none), a name made to point at a
server bound to every address (DNS rebinding), one client taking every session, an idle
session holding its place for the whole timeout, and a ranking or a start that outlasts the
request's time (56.8 s and 36.6 s under load, past the 5 s budget).

Nothing here is timed: slow work is an env call held on an event until the test lets it go,
and idleness is a session's ``last_used`` set by the test."""

import asyncio
import threading
import time
from contextlib import asynccontextmanager
from types import SimpleNamespace

import httpx
import pytest
from test_explorer_api import ExplorerServer, FollowJobsAsync
from test_explorer_security import EXAMPLE, asgi_client, example_config

from compiler_gym.bin import explorer
from compiler_gym.bin.explorer_requests import _pipeline_leaves
from compiler_gym.envs.compiler_env import CompilerEnv

pytestmark = pytest.mark.timeout(300)

START = f"/api/v4/start/inversions/-/{EXAMPLE}"


def nested(depth: int) -> str:
    """A command line whose pipeline runs mem2reg inside ``depth`` function adaptors."""
    return "opt -passes=" + "function(" * depth + "mem2reg" + ")" * depth


@asynccontextmanager
async def raw_and_following(config: explorer.ExplorerConfig):
    """Two clients of the app of ``config`` run in this process: one that sees a 202 as it
    comes, one that follows jobs to their answers (for what a test does not look at)."""
    app = explorer.create_app(config)
    fastapi = app.app
    async with fastapi.router.lifespan_context(fastapi):
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url=OWN, timeout=60) as raw,
            httpx.AsyncClient(
                transport=FollowJobsAsync(transport), base_url=OWN, timeout=60
            ) as following,
        ):
            yield raw, following


def test_a_pipeline_nested_900_deep_is_refused_in_one_log_line():
    """900 adaptors deep (9 KB, within the request's size), pasted to replay: a 413 that names
    the limit and its option, and one line in the server's log, not a 500 RecursionError with
    two 3,000-line tracebacks."""
    text = nested(900)
    assert len(text.encode()) < explorer.ExplorerConfig().max_request_bytes
    with ExplorerServer("--env", "llvm-v0") as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            deep = client.get("/api/v4/commandline", params={"text": text})
            assert client.get("/api/v4/describe").status_code == 200  # still serving
    assert deep.status_code == 413, deep.text
    assert deep.json()["error"] == (
        "the -passes pipeline nests more than 400 adaptors deep at character 3608; this "
        "server reads at most 400 (--max-pipeline-depth)"
    )
    # Read once the server has exited and its output is read to the end.
    lines = [line for line in server.output().splitlines() if line.strip()]
    assert lines[0].startswith("compiler_gym explorer: http://127.0.0.1:")
    assert lines[1:] == ["refused a -passes pipeline nested more than 400 deep (9007 characters)"]


def test_pipelines_at_the_depth_limit_and_far_past_recursion():
    """400 deep is read (mem2reg), 401 refused; a pipeline far deeper than Python's recursion
    limit parses, when allowed, without it (the parser keeps its own stack)."""

    async def scenario():
        async with asgi_client(explorer.ExplorerConfig()) as c:
            at_limit = await c.get("/api/v4/commandline", params={"text": nested(400)})
            over = await c.get("/api/v4/commandline", params={"text": nested(401)})
            return at_limit, over

    at_limit, over = asyncio.run(scenario())
    assert at_limit.status_code == 200, at_limit.text
    assert at_limit.json()["flags"] == ["-mem2reg"]
    assert over.status_code == 413 and "more than 400 adaptors deep" in over.json()["error"]
    text = "function(" * 100_000 + "a" + ")" * 100_000
    (path,) = _pipeline_leaves(text, max_depth=100_000)
    assert len(path) == 100_001 and path[0] == "function" and path[-1] == "a"


# Requests as a browser sends them for another site's page, and for the explorer's own.
OWN = "http://localhost"  # the test clients' base URL: its Host is "localhost"
FOREIGN = [
    ({"Origin": "https://attacker.example"}, "'https://attacker.example'"),
    ({"Origin": "http://localhost:8000"}, "'http://localhost:8000'"),  # another port
    ({"Origin": "null"}, "'null'"),  # a sandboxed frame, a file
    ({"Origin": "http://localhost.attacker.example"}, "attacker"),
    ({"Origin": OWN, "Sec-Fetch-Site": "cross-site"}, "'cross-site'"),
    ({"Sec-Fetch-Site": "cross-site"}, "'cross-site'"),  # an <img>: no Origin
    ({"Sec-Fetch-Site": "same-site"}, "'same-site'"),  # another port of localhost
]


def test_another_sites_page_cannot_use_the_api(monkeypatch):
    """A start, a step, a stop or a read of the API from another site's page is refused (403)
    before any env work; the explorer's own page (its Origin, Sec-Fetch-Site same-origin),
    a typed URL and a script (neither header) are served; a link from elsewhere opens the page
    itself."""
    resets = []
    reset = CompilerEnv.reset
    monkeypatch.setattr(CompilerEnv, "reset", lambda env, *a, **k: resets.append(1) or reset(env))

    async def scenario():
        async with asgi_client(example_config()) as c:
            session = (await c.get(START)).json()["session_id"]
            resets.clear()
            for headers, quoted in FOREIGN:
                for path in (START, f"/api/v4/step/{session}/1", f"/api/v4/stop/{session}"):
                    response = await c.get(path, headers=headers)
                    assert response.status_code == 403, (headers, path, response.text)
                    error = response.json()["error"]
                    assert quoted in error and "the API answers its own page only" in error
                assert (await c.get("/api/v4/describe", headers=headers)).status_code == 403
            assert resets == []  # no session was started
            # The session is untouched: its start state has no child yet.
            step = await c.get(f"/api/v4/step/{session}/1", headers={"Origin": OWN})
            assert step.status_code == 200 and step.json()["states"][0]["id"] == 1
            for headers in (
                {"Origin": OWN, "Sec-Fetch-Site": "same-origin"},
                {"Sec-Fetch-Site": "none"},  # the URL typed in the address bar
                {"Origin": "HTTP://LOCALHOST"},
            ):
                assert (await c.get(START, headers=headers)).status_code == 200, headers
            page = await c.get("/", headers={"Sec-Fetch-Site": "cross-site"})
            assert page.status_code == 200 and "<title>compiler_gym explorer" in page.text

    asyncio.run(scenario())


def test_a_proxys_name_is_accepted_when_given(monkeypatch):
    """Behind a proxy named with --allowed-host, its pages' Origin and its Host are served;
    another name still is not."""
    config = example_config(
        allowed_hosts=explorer.LOOPBACK_NAMES | {"explorer.example"},
        origin_hosts=frozenset({"explorer.example"}),
    )

    async def scenario():
        async with asgi_client(config) as c:
            proxied = {"Host": "127.0.0.1:5000", "Origin": "https://explorer.example"}
            assert (await c.get(START, headers=proxied)).status_code == 200
            named = {"Host": "explorer.example", "Origin": "https://explorer.example"}
            assert (await c.get(START, headers=named)).status_code == 200
            other = {"Host": "127.0.0.1:5000", "Origin": "https://other.example"}
            assert (await c.get(START, headers=other)).status_code == 403

    asyncio.run(scenario())


def config_of(monkeypatch, *argv: str) -> explorer.ExplorerConfig:
    """The config ``main`` makes of ``argv`` (it binds its socket on port 0, then stops before
    serving)."""
    made = []

    def capture(config):
        made.append(config)
        raise explorer.ExplorerError(400, "stopped by the test")

    monkeypatch.setattr(explorer, "create_app", capture)
    assert explorer.main(["--port", "0", "--env", "example-v0", *argv]) == 2
    (config,) = made
    return config


def test_a_rebound_name_is_refused_on_every_address(monkeypatch, capsys):
    """Bound to every address (--host 0.0.0.0), a page whose name was made to point here (DNS
    rebinding: Host attacker.example) is refused; the machine's addresses and loopback names
    are served, and a name given with --allowed-host."""
    everywhere = config_of(monkeypatch, "--host", "0.0.0.0")
    assert "beyond this machine" in capsys.readouterr().err
    default = config_of(monkeypatch)
    monkeypatch.undo()  # create_app again

    async def status(config, host: str) -> int:
        async with asgi_client(config) as c:
            return (await c.get("/api/v4/describe", headers={"Host": host})).status_code

    def served(config, host: str) -> int:
        return asyncio.run(status(config, host))

    assert served(everywhere, "attacker.example:5000") == 400
    assert served(everywhere, "127.0.0.1.attacker.example") == 400
    assert served(everywhere, "box.example:5000") == 400
    for host in ("10.1.2.3:5000", "[fe80::1]:5000", "localhost:5000"):
        assert served(everywhere, host) == 200, host
    named = config_of(monkeypatch, "--host", "0.0.0.0", "--allowed-host", "Box.Example:80")
    monkeypatch.undo()
    assert served(named, "box.example:5000") == 200
    assert served(named, "attacker.example:5000") == 400
    assert served(default, "attacker.example:5000") == 400
    assert served(default, "10.1.2.3:5000") == 400  # bound to loopback: not an address of it
    assert served(default, "localhost:5000") == 200

    async def message():
        async with asgi_client(named) as c:
            return (await c.get("/", headers={"Host": "attacker.example"})).json()["error"]

    for wrong in ("https://box.example", "", "box/example", "[::1"):
        assert explorer.main(["--allowed-host", wrong]) == 2
        assert f"error: --allowed-host {wrong!r} is not a host name" in capsys.readouterr().err
    assert asyncio.run(message()) == (
        "Host 'attacker.example' is not this server's; use 127.0.0.1 (a server reached by "
        "another name: --allowed-host NAME)"
    )


def fake_session(session_id: str, client: str, last_used: float) -> SimpleNamespace:
    """What :class:`~compiler_gym.bin.explorer.Sessions` reads of a session."""
    return SimpleNamespace(
        id=session_id, client=client, last_used=last_used, lock=asyncio.Lock(), closed=False
    )


def fill(sessions: explorer.Sessions, *owners: str) -> list[SimpleNamespace]:
    """Opens a session per owner, each unused since ``100 - its index`` seconds ago."""
    now = time.monotonic()
    made = []
    for i, owner in enumerate(owners):
        assert sessions.reserve(owner) == []
        made.append(fake_session(f"s{i}", owner, now - 100 + i))
        sessions.add(made[-1])
    return made


def test_one_client_cannot_take_more_than_its_share():
    """At most max_per_client places per client, reserved or open; the others' places stay
    free for them; every request without a cookie is one client."""
    sessions = explorer.Sessions(6, 300, max_per_client=2)
    fill(sessions, "alice", "alice")
    with pytest.raises(explorer.ExplorerError) as refused:
        sessions.reserve("alice")
    assert refused.value.status == 429
    assert refused.value.message == (
        "this client has 2 sessions open, the most one client may "
        "(--max-sessions-per-client 2); stop one"
    )
    assert sessions.reserve("bob") == [] and sessions.reserve("bob") == []
    with pytest.raises(explorer.ExplorerError):
        sessions.reserve("bob")  # reserved places count too
    sessions.release("bob")
    assert sessions.held("bob") == 1 and sessions.held("carol") == 0
    assert sessions.reserve(explorer.ANONYMOUS) == [] and sessions.reserve("") == []
    assert sessions.reserve("carol") == []  # the sixth place
    with pytest.raises(explorer.ExplorerError) as full:
        sessions.reserve("dave")
    assert full.value.status == 429
    assert full.value.message == (
        "6 sessions are open, the most this server keeps (--max-sessions); stop one"
    )


def test_an_idle_session_gives_its_place_up_when_none_is_left():
    """When a start finds no place, the session unused longest gives its place up if unused for
    reclaim_after seconds (not one that a request is on); its next request says why. A client
    at its share gives up its own, never another's."""
    sessions = explorer.Sessions(3, 300, max_per_client=2, reclaim_after=50)
    a0, a1, b0 = fill(sessions, "alice", "alice", "bob")  # unused 100, 99 and 98 s
    assert sessions.reserve("carol") == [a0]
    sessions.add(fake_session("c0", "carol", time.monotonic()))
    with pytest.raises(explorer.ExplorerError) as gone:
        sessions.get("s0")
    assert gone.value.status == 404
    assert "was closed after 100 s unused, to make room for another" in gone.value.message
    # In use (a request holds its lock): kept, and the next one unused longest goes.
    asyncio.run(a1.lock.acquire())
    assert sessions.reserve("dave") == [b0]
    sessions.release("dave")
    # Alice at her share with a place free: her own idle session goes, not another's.
    sessions = explorer.Sessions(8, 300, max_per_client=2, reclaim_after=50)
    a0, b0, a1 = fill(sessions, "alice", "bob", "alice")
    assert sessions.reserve("alice") == [a0]
    # Unused for less than reclaim_after: kept, and the start refused.
    sessions = explorer.Sessions(2, 300, max_per_client=2, reclaim_after=1000)
    fill(sessions, "alice", "bob")
    with pytest.raises(explorer.ExplorerError) as refused:
        sessions.reserve("carol")
    assert refused.value.message == (
        "2 sessions are open, the most this server keeps (--max-sessions); stop one, or wait "
        "until one is unused for 1000 s (--reclaim-after)"
    )


def test_clients_are_told_apart_by_a_cookie():
    """The page sets a client cookie (HttpOnly, SameSite=Strict); a client at its share (4 of
    the 16 places) is refused while another starts; a start without a cookie gets one, and
    counts as every cookieless request's, so that dropping it gains no place."""

    async def scenario():
        async with asgi_client(example_config()) as c:
            page = await c.get("/")
            for _ in range(4):
                assert (await c.get(START)).status_code == 200
            fifth = await c.get(START)
            assert fifth.status_code == 429, fifth.text
            assert (
                "has 4 sessions open" in fifth.text and "--max-sessions-per-client 4" in fifth.text
            )
            cookie = page.headers["set-cookie"]
            assert cookie.startswith(f"{explorer.CLIENT_COOKIE}=")
            assert "HttpOnly" in cookie and "SameSite=strict" in cookie
            assert "set-cookie" not in (await c.get("/")).headers  # kept, not made again
            # Without a cookie (dropped each time, as another site's <img> has none): one
            # share between all such requests, whatever cookie each answer sets.
            cookies = set()
            for _ in range(4):
                c.cookies.clear()
                answer = await c.get(START)
                assert answer.status_code == 200
                cookies.add(answer.cookies[explorer.CLIENT_COOKIE])
            assert len(cookies) == 4
            c.cookies.clear()
            assert (await c.get(START)).status_code == 429
            # A cookie of its own: a share of its own.
            own = {"Cookie": f"{explorer.CLIENT_COOKIE}={'b' * 22}"}
            answer = await c.get(START, headers=own)
            assert answer.status_code == 200 and "set-cookie" not in answer.headers

    asyncio.run(scenario())


class Held:
    """An env method held until the test lets it go: slow work that no clock measures."""

    def __init__(self):
        self.entered = threading.Event()
        self.release = threading.Event()

    def patch(self, monkeypatch, name: str) -> None:
        """Holds ``CompilerEnv.name`` from now on."""
        original = getattr(CompilerEnv, name)

        def held(env, *args, **kwargs):
            self.entered.set()
            assert self.release.wait(120), "the test never let the call go"
            return original(env, *args, **kwargs)

        monkeypatch.setattr(CompilerEnv, name, held)


async def wait_for(event: threading.Event) -> None:
    """Waits (without blocking the event loop) for ``event``, set by a worker thread."""
    for _ in range(12000):
        if event.is_set():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the env call was never made")


def test_a_slow_ranking_answers_a_job_within_the_request(monkeypatch):
    """A ranking whose try_actions outlasts the request's time answers 202 with a job at the
    end of that time (it used to hold the request until the ranking ended); asked again, the
    same job; another ranking of the session waits its turn (503); the job's URL answers 202
    until the ranking ends, then the ranking, once."""
    held = Held()

    async def scenario():
        async with raw_and_following(example_config(max_request_seconds=0.2)) as (c, follow):
            body = (await follow.get(f"/api/v4/start/inversions/0/{EXAMPLE}")).json()
            session = body["session_id"]
            held.patch(monkeypatch, "try_actions")
            # The old server held this request until the ranking ended: it never would.
            first = await asyncio.wait_for(c.get(f"/api/v4/rank/{session}/0"), 60)
            assert first.status_code == 202, first.text
            job = first.json()
            assert (job["kind"], job["status"]) == ("rank", "running")
            assert job["poll"] == f"/api/v4/job/{job['job']}"
            assert first.headers["retry-after"] == "1"
            await wait_for(held.entered)
            again = await c.get(f"/api/v4/rank/{session}/0")
            assert again.status_code == 202 and again.json()["job"] == job["job"]
            other = await c.get(f"/api/v4/rank/{session}/1")
            assert other.status_code == 503 and "ranking the actions of state 0" in other.text
            assert (await c.get(job["poll"])).status_code == 202
            held.release.set()
            answer = await c.get(job["poll"])
            while answer.status_code == 202:  # the ranking's thread is handing it over
                answer = await c.get(job["poll"])
            assert answer.status_code == 200, answer.text
            # From the start state of example-v0/3, as the env's own try_actions gives.
            assert [(r["action_name"], r["reward"]) for r in answer.json()["ranking"]] == [
                ("swap-0", 1.0),
                ("swap-3", 1.0),
                ("swap-6", 1.0),
                ("swap-5", 0.0),
                ("swap-1", -1.0),
                ("swap-2", -1.0),
                ("swap-4", -1.0),
            ]
            gone = await c.get(job["poll"])
            assert gone.status_code == 404 and "already fetched" in gone.json()["error"]

    try:
        asyncio.run(scenario())
    finally:
        held.release.set()


def test_a_slow_start_answers_a_job_within_the_request(monkeypatch):
    """A start whose benchmark takes longer than the request's time to load (a generator's
    compile) answers 202 with a job; the job answers the session once it is made, and the
    session is there to step."""
    held = Held()

    async def scenario():
        async with raw_and_following(example_config(max_request_seconds=0.2)) as (c, _):
            held.patch(monkeypatch, "reset")
            first = await asyncio.wait_for(c.get(f"/api/v4/start/inversions/0/{EXAMPLE}"), 60)
            assert first.status_code == 202, first.text
            job = first.json()
            assert job["kind"] == "start" and first.headers["retry-after"] == "1"
            await wait_for(held.entered)
            held.release.set()
            answer = await c.get(job["poll"])
            while answer.status_code == 202:
                answer = await c.get(job["poll"])
            body = answer.json()
            assert [s["action_name"] for s in body["states"]] == [None, "swap-0"]
            step = await c.get(f"/api/v4/step/{body['session_id']}/1")
            assert step.status_code == 200 and step.json()["states"][0]["parent"] == 1

    try:
        asyncio.run(scenario())
    finally:
        held.release.set()


def test_unfetched_answers_are_bounded():
    """A job's answer that nobody fetches is forgotten once more than ``max_finished`` others
    have finished unfetched (an answer may hold a module's IR); a failed one's exception is
    retrieved, not logged as never seen."""

    async def scenario():
        jobs = explorer.Jobs(300, max_finished=2)

        async def work(i: int) -> int:
            if i == 0:
                raise explorer.ExplorerError(400, "failed")
            return i

        for i in range(4):
            task = asyncio.create_task(work(i))
            await asyncio.wait({task})
            jobs.add(f"j{i}", "start", task)
            await asyncio.sleep(0)  # the task's done callback
        with pytest.raises(explorer.ExplorerError, match="no job 'j0'"):
            jobs.get("j0")
        assert [jobs.get(f"j{i}").task.result() for i in (1, 2, 3)] == [1, 2, 3]

    asyncio.run(scenario())


def test_the_defaults():
    """The bounds as the issue asks and the docs say."""
    config = explorer.ExplorerConfig()
    assert (config.max_sessions, config.max_sessions_per_client) == (16, 4)
    assert (config.reclaim_after, config.max_pipeline_depth) == (60.0, 400)
    assert config.allowed_hosts == explorer.LOOPBACK_NAMES and not config.any_ip_address
