"""The explorer: a web page over an environment, and over a database of what was explored.

    python -m compiler_gym.bin.explorer [--port 5000] [--db explored.db]    (compiler_gym-explorer)

Serves, on 127.0.0.1 unless told otherwise, a page where a person picks a benchmark and a reward,
takes actions, sees the tree of the actions taken with their rewards, the cumulative reward, the
state's headline number, features as charts and text (what the env's family names in its
``state_summary``: for LLVM the instruction count, Autophase and InstCount, and the IR; for GCC
the object size, instruction counts and assembly; for loop_tool the GFLOP/s and the loop tree),
and goes back to any earlier state to take another action from there; for research, the page
also searches the benchmarks as one types, shows a state's text diffed against its parent's,
ranks every action's reward from a state, links to each state (benchmark, reward and actions in
the URL's fragment) and replays a command line pasted in. With ``--db`` (a database
of :class:`~compiler_gym.wrappers.SynchronousSqliteLogger` or ``make_logged_vec``, whose states
are LLVM's) the page also shows what was explored, per benchmark, as a tree.

The JSON API, in CompilerGym's shape (``ACTIONS``: comma-separated action indices or flags,
``-`` for none; ``BENCHMARK``: a URI, percent-encoded or not):

- ``GET /api/v4/describe``: actions (flag to index), observation and reward spaces (with how
  each reward reads: ``reward_formats``, count, bytes, ratio, seconds or float), datasets,
  what a state shows (``state``: its headline, text and features' keys and titles), feature
  names (null for a feature whose names vary with the state), the database's path (or null),
  the server's ``limits`` (``max_actions_per_request``, ``max_request_seconds``,
  ``max_rank_actions``, ``max_sessions``, ``max_sessions_per_client``);
- ``GET /api/v4/start/REWARD/ACTIONS/BENCHMARK``: a new session, its states (the start state,
  then one per action);
- ``GET /api/v4/step/SESSION/ACTIONS?from=NODE&ir=1``: one state per action, taken from
  state ``NODE`` of the session's tree (default: the last one returned); ``ir=1`` adds the
  text of the last state (LLVM's IR, GCC's assembly, ...);
- ``GET /api/v4/state/SESSION/NODE?ir=1``: one state again; ``GET /api/v4/stop/SESSION``;
- ``GET /api/v4/diff/SESSION/NODE?context=3``: the unified diff of a state's text against its
  parent's; ``GET /api/v4/rank/SESSION/NODE``: every action's reward from a state, best first
  (one ``env.try_actions`` over all the actions);
- ``GET /api/v4/job/JOB``: the answer of a start or a ranking that outlasted its request, which
  answered ``202 {job, kind, status: "running", elapsed_seconds, poll}`` instead: 202 again
  (after waiting for it for up to a request's time) until it has ended, then its answer, once;
- ``GET /api/v4/benchmarks?q=WORDS&limit=50``: the installed datasets' benchmarks whose URI
  holds every word (the page's picker); ``GET /api/v4/commandline?text=TEXT``: the actions
  (and any benchmark) of a command line pasted to replay, ``opt -passes=...``, flags or a
  state CSV row;
- ``GET /api/v4/db``, ``/api/v4/db/tree?benchmark=URI``, ``/api/v4/db/state/STATE_ID``: the
  database's benchmarks, one benchmark's states as a tree, one state's features and IR.

A state is ``{id, parent, action, action_name, reward, cumulative_reward, done, state_hash,
commandline, share}`` (``share``: the fragment of the page's URL that opens it again,
``#benchmark=URI&reward=NAME&actions=FLAG,FLAG``) and the family's headline and features under
their keys (for LLVM
``ir_instruction_count``, ``autophase``, ``instcount``; features as name: value). Sessions
are envs of their own, closed after ``--session-timeout`` seconds unused; at most
``--max-sessions`` are open, at most ``--max-sessions-per-client`` of them one client's (the
``explorer_client`` cookie that the page sets; every request without one counts as one
client); a start that finds no place takes that of the session unused longest, if unused for
``--reclaim-after`` seconds (60). Bad input answers with a 4xx status and
``{"error": message}``.
Session responses carry ``Server-Timing: env;dur=MS``, the time spent in the env.

Only the explorer's own page may use the API: a request whose ``Origin`` is another's, or
whose ``Sec-Fetch-Site`` is not ``same-origin`` or ``none``, is refused (403), and one whose
Host is not a loopback name, an address the server listens on or an ``--allowed-host`` is
refused (400: DNS rebinding). Only benchmarks of the env's own datasets are served
(``benchmark://`` and ``generator://`` URIs, checked once parsed): never a file of this
machine. A benchmark of a dataset that is not
installed is refused (409, with the command that installs it) rather than installed by a
request. Every request's work is bounded:

- at most ``--max-actions-per-request`` actions (64; more is a 413); a pasted pipeline nests
  at most ``--max-pipeline-depth`` adaptors (400; more is a 413 and one line in the log);
- ``--max-request-seconds`` of env work (5): past it a start or step stops between actions and
  answers the states it took with ``"truncated": true`` (also set when the episode ended or the
  tree filled before the last action); the first action is always taken, so asking again with
  the actions left makes progress. ``truncated`` with no state means going back to a deep state
  took the time: asking again goes on from where it stopped. A state's text that could not be
  reached in time answers 503 with ``Retry-After``. A start (making a benchmark and its env)
  or a ranking (one ``try_actions``) is one call no deadline stops: past the time it goes on as
  a job, and the request answers 202 (one ranking at a time per session);
- going back to a state replays its actions from the deepest of a few forks of the env kept as
  checkpoints (every 32 actions deep), not from the start;
- a request waits at most ``max_lock_wait_seconds`` (10) for another one on its session
  (503 after), and is refused (4xx) before any env work when it cannot be served;
- a connection that has not sent its request's headers within ``--header-timeout`` seconds
  (10), or does not read its response for as long, is closed; connections that wait for their
  headers are capped (the oldest is closed for a new one), so idle connections cannot keep
  other clients out.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import re
import secrets
import socket
import sqlite3
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Optional
from urllib.parse import unquote

import compiler_gym
from compiler_gym.bin.explorer_catalog import BenchmarkIndex, describe_env, reward_format
from compiler_gym.bin.explorer_database import ExploredDatabase
from compiler_gym.bin.explorer_http import (
    FD_RESERVE,
    LOOPBACK_NAMES,
    RequestGuard,
    _host_name,
    _json_error,
    bounded_http_protocol,
    connection_limits,
    raise_open_files_limit,
)
from compiler_gym.bin.explorer_requests import (
    BENCHMARK_SCHEMES,
    MAX_PIPELINE_DEPTH,
    CommandlineParser,
    ExplorerError,
    install_command,
    parse_actions,
    parse_benchmark_uri,
    require_installed,
    share_fragment,
)
from compiler_gym.bin.explorer_session import (
    ANONYMOUS,
    CHECKPOINT_INTERVAL,
    MAX_CHECKPOINTS,
    Job,
    Jobs,
    Node,
    Session,
    Sessions,
)
from compiler_gym.datasets import BenchmarkUri
from compiler_gym.errors import BenchmarkInitError, EnvironmentNotSupported
from compiler_gym.wrappers.sqlite_logger import LOGGED_SPACES

STATIC_DIR = Path(__file__).parent / "explorer_static"

# The cookie that tells one client's requests from another's, for its share of the sessions.
# Its value is a random token that the page's first load (or a first start) sets; any value of
# this form is taken as it is: a client cannot be told apart from one that makes up another.
CLIENT_COOKIE = "explorer_client"
_CLIENT_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")

logger = logging.getLogger(__name__)

# What tests and tools use of the explorer, its sessions and its HTTP layer alike.
__all__ = [
    "ANONYMOUS",
    "BENCHMARK_SCHEMES",
    "CHECKPOINT_INTERVAL",
    "CLIENT_COOKIE",
    "FD_RESERVE",
    "LOOPBACK_NAMES",
    "MAX_CHECKPOINTS",
    "MAX_PIPELINE_DEPTH",
    "STATIC_DIR",
    "BenchmarkIndex",
    "CommandlineParser",
    "ExploredDatabase",
    "ExplorerConfig",
    "ExplorerError",
    "Job",
    "Jobs",
    "Node",
    "RequestGuard",
    "Session",
    "Sessions",
    "bounded_http_protocol",
    "connection_limits",
    "create_app",
    "describe_env",
    "install_command",
    "main",
    "parse_actions",
    "parse_benchmark_uri",
    "raise_open_files_limit",
    "require_installed",
    "reward_format",
    "share_fragment",
]


@dataclass
class ExplorerConfig:
    """The server's settings (the command line's options)."""

    env: str = "llvm-v0"
    db: Optional[Path] = None
    max_sessions: int = 16
    # One client's share of them (a cookie; requests without one share one share).
    max_sessions_per_client: int = 4
    session_timeout: float = 300.0
    # A session unused this long gives its place up to a start that finds none.
    reclaim_after: float = 60.0
    max_nodes: int = 5000
    # 64 LLVM actions are about a second of work; a page sends one at a time.
    max_actions_per_request: int = 64
    # A request's env work stops between actions past this; the answer says "truncated".
    max_request_seconds: float = 5.0
    # How long a request waits for another one on its session (a step holds it for at most
    # max_request_seconds and one more action) before a 503.
    max_lock_wait_seconds: float = 10.0
    max_request_bytes: int = 16384
    max_benchmarks_per_dataset: int = 2000
    # A ranking tries every action in one call that no deadline stops: LLVM's 122 take 0.1-1 s,
    # GCC's 2,369 (a compile each) minutes, so past this many actions it is refused.
    max_rank_actions: int = 1000
    # The names a request's Host may give (any port); None: any (tests of other checks).
    allowed_hosts: Optional[frozenset[str]] = LOOPBACK_NAMES
    # Any IP address as the Host too (a server bound to every address: it has them all).
    any_ip_address: bool = False
    # Names of a proxy in front (--allowed-host) whose pages' Origin the API answers.
    origin_hosts: frozenset[str] = frozenset()
    # The adaptors a pasted -passes pipeline may nest.
    max_pipeline_depth: int = MAX_PIPELINE_DEPTH
    checkpoint_interval: int = CHECKPOINT_INTERVAL
    max_checkpoints: int = MAX_CHECKPOINTS


def create_app(config: ExplorerConfig):
    """The explorer's ASGI app (FastAPI): the API, the page, and the sessions' reaper."""
    from fastapi import Cookie, FastAPI, Query
    from fastapi.exceptions import RequestValidationError
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.responses import FileResponse, JSONResponse
    from starlette.staticfiles import StaticFiles

    sessions = Sessions(
        config.max_sessions,
        config.session_timeout,
        config.max_sessions_per_client,
        config.reclaim_after,
    )
    # Starts and rankings that outlast their request, answered by GET /api/v4/job/ID.
    jobs = Jobs(config.session_timeout, max_finished=4 * config.max_sessions)
    info = describe_env(config.env, config.max_benchmarks_per_dataset)
    flags = list(info["actions"])
    missing = [o for o in LOGGED_SPACES if o not in info["observations"]]
    if config.db and missing:
        raise ExplorerError(
            400, f"the database holds LLVM states; {config.env} has no {', '.join(missing)}"
        )
    database = ExploredDatabase(config.db, flags, info["features"]) if config.db else None
    info["database"] = str(config.db) if config.db else None  # the page asks for it when set
    info["limits"] = {
        "max_actions_per_request": config.max_actions_per_request,
        "max_request_seconds": config.max_request_seconds,
        "max_rank_actions": config.max_rank_actions,
        "max_sessions": config.max_sessions,
        "max_sessions_per_client": config.max_sessions_per_client,
    }
    # The datasets a benchmark may come from, by canonical name: the allow-list, and what
    # makes the benchmark a session's env is then made with.
    with compiler_gym.make(config.env) as catalog_env:
        catalog = {BenchmarkUri.from_string(d.name).dataset_uri: d for d in catalog_env.datasets}
        commandlines = CommandlineParser.of_env(catalog_env, config.max_pipeline_depth)
        action_space = catalog_env.action_space  # its command line: to_string
    benchmark_index = BenchmarkIndex(catalog)

    async def close_sessions(closing: list[Session]) -> None:
        for session in closing:
            await run_in_threadpool(session.close)

    async def reap() -> None:
        interval = max(0.1, min(5.0, config.session_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            await close_sessions(sessions.expired())
            jobs.expire()

    stopping = False

    @asynccontextmanager
    async def lifespan(app):
        nonlocal stopping
        reaper = asyncio.create_task(reap())
        try:
            yield
        finally:
            reaper.cancel()
            stopping = True  # a start that ends now closes its session
            running = jobs.tasks()
            if running:  # their threads hold sessions' envs: not closed under them
                await asyncio.wait(running, timeout=config.max_request_seconds + 5)
            jobs.clear()
            await close_sessions(sessions.all())
            if database is not None:
                database.close()

    app = FastAPI(title="compiler_gym explorer", lifespan=lifespan, docs_url=None, redoc_url=None)

    @app.exception_handler(ExplorerError)
    async def explorer_error(request, exc: ExplorerError):
        return _json_error(exc.status, exc.message, exc.headers)

    @app.exception_handler(HTTPException)
    async def http_error(request, exc: HTTPException):
        message = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such endpoint or file: {request.url.path}"
        return _json_error(exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request, exc: RequestValidationError):
        problems = [
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()
        ]
        return _json_error(400, "; ".join(problems))

    @app.exception_handler(Exception)
    async def internal_error(request, exc: Exception):
        # The type only: a message may quote what the env read (a file's line). The log,
        # which only the server's owner reads, has the rest.
        logger.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _json_error(500, f"internal error ({type(exc).__name__}); see the server's log")

    def with_timing(content: dict, session: Session):
        # The env's share of the request, for the page's developer tools and for
        # benchmarks/explorer_latency.py, which subtracts it to get the server's own time.
        ms = session.env_seconds * 1e3
        return JSONResponse(content, headers={"Server-Timing": f'env;dur={ms:.4f};desc="env"'})

    @asynccontextmanager
    async def holding(session: Session):
        """Holds the session's lock, waiting for it at most ``max_lock_wait_seconds``."""
        try:
            await asyncio.wait_for(session.lock.acquire(), config.max_lock_wait_seconds)
        except asyncio.TimeoutError:
            raise ExplorerError(
                503,
                f"session {session.id} is busy with another request; ask again",
                headers={"Retry-After": "1"},
            ) from None
        try:
            if session.closed:
                raise ExplorerError(404, f"session {session.id!r} was closed")
            yield
        finally:
            session.lock.release()

    def deadline() -> float:
        return time.monotonic() + config.max_request_seconds

    def client_of(cookie: Optional[str]) -> tuple[str, Optional[str]]:
        """The client a request's cookie names, and a cookie to set when it names none (its
        requests until then are :data:`ANONYMOUS`'s)."""
        if cookie is not None and _CLIENT_TOKEN.fullmatch(cookie):
            return cookie, None
        return ANONYMOUS, secrets.token_urlsafe(16)

    def with_cookie(response, cookie: Optional[str]):
        if cookie is not None:
            # Strict: another site's request, which the guard refuses anyway, carries none.
            response.set_cookie(CLIENT_COOKIE, cookie, httponly=True, samesite="strict")
        return response

    def job_running(job: Job) -> JSONResponse:
        return JSONResponse(job.answer_running(), status_code=202, headers={"Retry-After": "1"})

    async def answer(job: Job, until: float):
        """The job's answer when it ends by ``until``; else 202 with the job, which
        ``/api/v4/job/ID`` answers (the page asks it until it has ended)."""
        remaining = until - time.monotonic()
        if remaining > 0 and not job.task.done():
            # A wait, not wait_for: the job goes on when this request's time is up.
            await asyncio.wait({job.task}, timeout=remaining)
        if not job.task.done():
            return job_running(job)
        jobs.pop(job.id)
        if job.task.cancelled():
            raise ExplorerError(503, "the server is stopping")
        return job.task.result()  # its exception, if it raised, answers as the request's

    @app.get("/api/v4/describe")
    async def describe():
        return JSONResponse(info)

    def cannot_use(uri: BenchmarkUri, e: BaseException) -> ExplorerError:
        # Never the exception's message: loading a program may quote its lines (a parse
        # error), so a client is told the type, the log the rest.
        logger.warning("benchmark %s cannot be used: %r", uri, e)
        return ExplorerError(
            400, f"benchmark {uri} cannot be used ({type(e).__name__}); see the server's log"
        )

    def open_session(
        reward: str, uri: BenchmarkUri, actions: list[int], ir: bool, until: float, client: str
    ):
        dataset = catalog[uri.dataset_uri]
        require_installed(dataset, config.env)  # again: it may have been uninstalled since
        try:
            # The parsed URI, not the client's text: what was checked is what is used.
            benchmark = dataset.benchmark_from_parsed_uri(uri)
        except LookupError:
            raise ExplorerError(404, f"Benchmark not found: {uri}") from None
        except (BenchmarkInitError, OSError, ValueError) as e:
            raise cannot_use(uri, e) from e
        try:
            env = compiler_gym.make(config.env, benchmark=benchmark, reward_space=reward)
        except (BenchmarkInitError, OSError, ValueError) as e:
            raise cannot_use(uri, e) from e
        session = Session(
            secrets.token_hex(8),
            env,
            reward,
            config.max_nodes,
            config.checkpoint_interval,
            config.max_checkpoints,
            client,
        )
        try:
            states, truncated = session.start(actions, ir, until)
        except EnvironmentNotSupported as e:  # a CUDA benchmark without a GPU: the machine's
            session.close()
            raise ExplorerError(400, f"benchmark {uri} cannot be used: {e}") from e
        except (BenchmarkInitError, OSError, ValueError) as e:
            session.close()
            raise cannot_use(uri, e) from e
        except BaseException:
            session.close()
            raise
        return session, states, truncated

    @app.get("/api/v4/start/{reward}/{actions}/{benchmark:path}")
    async def start(
        reward: str,
        actions: str,
        benchmark: str,
        ir: bool = False,
        explorer_client: Optional[str] = Cookie(None, alias=CLIENT_COOKIE),
    ):
        until = deadline()
        if reward not in info["rewards"]:
            raise ExplorerError(
                400, f"unknown reward space {reward!r}; one of {', '.join(info['rewards'])}"
            )
        parsed = parse_actions(actions, flags, config.max_actions_per_request)
        uri = parse_benchmark_uri(unquote(benchmark), catalog)
        require_installed(catalog[uri.dataset_uri], config.env)
        client, cookie = client_of(explorer_client)
        await close_sessions(sessions.expired())  # not to refuse a place the reaper would free
        await close_sessions(sessions.reserve(client))

        async def make():
            try:
                session, states, truncated = await run_in_threadpool(
                    open_session, reward, uri, parsed, ir, until, client
                )
            except BaseException:
                sessions.release(client)
                raise
            if stopping:
                sessions.release(client)
                await run_in_threadpool(session.close)
                raise ExplorerError(503, "the server is stopping")
            # Used now, however long the making took: not a place to reclaim at once.
            session.last_used = time.monotonic()
            sessions.add(session)
            body = {"session_id": session.id, "states": states, "truncated": truncated}
            return with_timing(body, session)

        # Making a benchmark (a generator's compile) and the env is one call that no deadline
        # stops: past the request's time, the start answers as a job.
        job = jobs.add(secrets.token_hex(16), "start", asyncio.create_task(make()))
        return with_cookie(await answer(job, until), cookie)

    @app.get("/api/v4/step/{session_id}/{actions}")
    async def step(
        session_id: str,
        actions: str,
        from_node: Optional[int] = Query(None, alias="from"),
        ir: bool = False,
    ):
        session = sessions.get(session_id)
        parsed = parse_actions(actions, flags, config.max_actions_per_request)
        if not parsed:
            raise ExplorerError(400, "no action to take")
        async with holding(session):
            # The deadline counts from when the session is ours: the wait is bounded apart.
            states, truncated = await run_in_threadpool(
                session.step, parsed, from_node, ir, deadline()
            )
        session.last_used = time.monotonic()
        body = {"session_id": session.id, "states": states, "truncated": truncated}
        return with_timing(body, session)

    @app.get("/api/v4/state/{session_id}/{node}")
    async def state(session_id: str, node: int, ir: bool = False):
        session = sessions.get(session_id)
        async with holding(session):
            payload = await run_in_threadpool(session.state, node, ir, deadline())
        return with_timing({"session_id": session.id, "state": payload}, session)

    @app.get("/api/v4/diff/{session_id}/{node}")
    async def diff(session_id: str, node: int, context: int = Query(3, ge=0, le=1000)):
        session = sessions.get(session_id)
        async with holding(session):
            payload = await run_in_threadpool(session.diff, node, context, deadline())
        return with_timing({"session_id": session.id, **payload}, session)

    @app.get("/api/v4/rank/{session_id}/{node}")
    async def rank(session_id: str, node: int):
        until = deadline()
        session = sessions.get(session_id)
        if len(flags) > config.max_rank_actions:
            raise ExplorerError(
                413,
                f"ranking {len(flags)} actions is more work than this server does in a request "
                f"(--max-rank-actions {config.max_rank_actions})",
            )
        # One ranking at a time per session: asked again, the one that runs answers.
        running = jobs.running(lambda key: key is not None and key[0] == session.id)
        if running is not None:
            if running.key == (session.id, node):
                return job_running(running)
            raise ExplorerError(
                503,
                f"session {session.id} is ranking the actions of state {running.key[1]}; ask "
                "again when it is done",
                headers={"Retry-After": "1"},
            )

        async def ranking():
            async with holding(session):
                # The deadline of going back to the state counts from when the session is ours.
                payload = await run_in_threadpool(session.rank, node, deadline())
            session.last_used = time.monotonic()
            return with_timing({"session_id": session.id, **payload}, session)

        # try_actions is one call that no deadline stops (56.8 s for a large program on a busy
        # machine): past the request's time, the ranking answers as a job.
        job = jobs.add(
            secrets.token_hex(16), "rank", asyncio.create_task(ranking()), (session.id, node)
        )
        return await answer(job, until)

    @app.get("/api/v4/job/{job_id}")
    async def job_answer(job_id: str):
        """A job's answer once it has ended (then forgotten); while it runs, 202 after waiting
        for it for at most a request's time."""
        return await answer(jobs.get(job_id), deadline())

    @app.get("/api/v4/benchmarks")
    async def benchmarks(q: str = "", limit: int = Query(50, ge=1, le=500)):
        return JSONResponse(await run_in_threadpool(benchmark_index.search, q, limit))

    @app.get("/api/v4/commandline")
    async def commandline(text: str):
        parsed = commandlines.parse(text)
        if parsed["benchmark"] is not None:
            # Checked as a start's would be: only the env's own datasets' benchmarks.
            parsed["benchmark"] = str(parse_benchmark_uri(parsed["benchmark"], catalog))
        parsed["flags"] = [flags[a] for a in parsed["actions"]]
        parsed["commandline"] = action_space.to_string(parsed["actions"])
        return JSONResponse(parsed)

    @app.get("/api/v4/stop/{session_id}")
    async def stop(session_id: str):
        session = sessions.get(session_id)
        async with holding(session):
            sessions.pop(session_id)
            await run_in_threadpool(session.close)
        return JSONResponse({"session_id": session_id, "stopped": True})

    def need_database() -> ExploredDatabase:
        if database is None:
            raise ExplorerError(404, "no database: start the explorer with --db PATH")
        return database

    @app.get("/api/v4/db")
    async def db_summary():
        return JSONResponse(await run_in_threadpool(need_database().summary))

    @app.get("/api/v4/db/tree")
    async def db_tree(benchmark: str, limit: int = Query(2000, ge=1, le=100000)):
        return JSONResponse(await run_in_threadpool(need_database().tree, benchmark, limit))

    @app.get("/api/v4/db/state/{state_id}")
    async def db_state(state_id: str):
        return JSONResponse(await run_in_threadpool(need_database().state, state_id))

    @app.get("/")
    async def index(explorer_client: Optional[str] = Cookie(None, alias=CLIENT_COOKIE)):
        _, cookie = client_of(explorer_client)
        return with_cookie(FileResponse(STATIC_DIR / "index.html"), cookie)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # No endpoint takes a body: every request that sends one is refused unread.
    return RequestGuard(
        app,
        config.max_request_bytes,
        config.allowed_hosts,
        origin_hosts=config.origin_hosts,
        any_ip_address=config.any_ip_address,
    )


def main(argv=None) -> int:
    """Runs the server until interrupted; returns 2 on bad options or missing packages."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000; 0: any free)")
    parser.add_argument("--env", default="llvm-v0", help="an environment id (default llvm-v0)")
    parser.add_argument("--db", type=Path, help="a database of SqliteWriter to show")
    parser.add_argument("--max-sessions", type=int, default=16, help="open sessions at most")
    parser.add_argument(
        "--max-sessions-per-client",
        type=int,
        default=4,
        help="open sessions of one client (a browser's cookie) at most (4)",
    )
    parser.add_argument(
        "--session-timeout", type=float, default=300, help="seconds before an unused session ends"
    )
    parser.add_argument(
        "--reclaim-after",
        type=float,
        default=60,
        help="seconds unused after which a session gives its place up to a start that finds "
        "none (60)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the server is reached by (a proxy's, a machine's): its requests' "
        "Host and its pages' Origin are accepted (repeatable)",
    )
    parser.add_argument(
        "--max-pipeline-depth",
        type=int,
        default=MAX_PIPELINE_DEPTH,
        help=f"adaptors a pasted -passes pipeline may nest ({MAX_PIPELINE_DEPTH})",
    )
    parser.add_argument(
        "--max-request-bytes", type=int, default=16384, help="longest request target or body"
    )
    parser.add_argument(
        "--max-actions-per-request", type=int, default=64, help="actions in one request (64)"
    )
    parser.add_argument(
        "--max-request-seconds",
        type=float,
        default=5.0,
        help="env work of one request before it answers what it did, truncated (5)",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        help="seconds a connection has to send its request's headers, or to read (10)",
    )
    parser.add_argument(
        "--max-rank-actions",
        type=int,
        default=1000,
        help="the most actions a ranking of every action tries in one request (1000)",
    )
    parser.add_argument("--access-log", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    # What the server's modules log for its owner (a benchmark that failed to load, a request
    # refused as hostile: what "see the server's log" points to) is shown, one line each,
    # however quiet the package's own level ($COMPILER_GYM_DEBUG) is.
    bin_logger = logging.getLogger("compiler_gym.bin")
    bin_logger.setLevel(min(bin_logger.getEffectiveLevel(), logging.WARNING))
    bad = [
        name
        for name, value in [
            ("--max-actions-per-request", args.max_actions_per_request),
            ("--header-timeout", args.header_timeout),
            ("--max-sessions-per-client", args.max_sessions_per_client),
            ("--max-pipeline-depth", args.max_pipeline_depth),
        ]
        if not value > 0
    ]
    if bad or not args.max_request_seconds >= 0:
        print(f"error: {', '.join(bad) or '--max-request-seconds'} must be > 0", file=sys.stderr)
        return 2
    if not args.reclaim_after >= 0:
        print("error: --reclaim-after must be >= 0", file=sys.stderr)
        return 2
    names = set()
    for name in args.allowed_host:
        host_name = _host_name(name.strip().lower())  # a port given is not part of the check
        if host_name in ("", "[") or "://" in name or any(c in host_name for c in "/@ \t"):
            print(f"error: --allowed-host {name!r} is not a host name", file=sys.stderr)
            return 2
        names.add(host_name)
    try:
        import fastapi  # noqa: F401  (create_app's)
        import uvicorn
    except ModuleNotFoundError as e:
        print(
            f"error: the explorer needs {e.name}: pip install 'compiler_gym[explorer]'",
            file=sys.stderr,
        )
        return 2
    if args.db is not None and not args.db.is_file():
        print(f"error: no database {args.db}", file=sys.stderr)
        return 2
    max_waiting, limit_concurrency = connection_limits(raise_open_files_limit())
    # The socket is bound here so that --port 0 can say which port it got.
    # IPPROTO_TCP explicitly: asyncio turns Nagle's algorithm off only on sockets that say
    # so, and with it on, a response's second write waits for the client's delayed ACK (40 ms).
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        print(f"error: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    # Listening before the address is printed: a client that reads it can connect at once
    # (its connection waits in the backlog until the server has started).
    sock.listen(2048)
    host, port = sock.getsockname()[:2]
    address = ipaddress.ip_address(host)
    allowed = LOOPBACK_NAMES | names
    if not address.is_loopback:
        print(
            f"warning: listening on {host}, beyond this machine; the explorer has no "
            "authentication",
            file=sys.stderr,
        )
        # Bound to every address, any of them may be the Host (no DNS answer rebinds an
        # address); else its own. A name needs --allowed-host.
        bracketed = f"[{host}]" if address.version == 6 else host
        if not address.is_unspecified:
            allowed |= {bracketed}
    config = ExplorerConfig(
        env=args.env,
        db=args.db,
        max_sessions=args.max_sessions,
        max_sessions_per_client=args.max_sessions_per_client,
        session_timeout=args.session_timeout,
        reclaim_after=args.reclaim_after,
        max_actions_per_request=args.max_actions_per_request,
        max_request_seconds=args.max_request_seconds,
        max_request_bytes=args.max_request_bytes,
        max_rank_actions=args.max_rank_actions,
        allowed_hosts=allowed,
        any_ip_address=address.is_unspecified,
        origin_hosts=frozenset(names),
        max_pipeline_depth=args.max_pipeline_depth,
    )
    try:
        app = create_app(config)
    except (LookupError, sqlite3.Error, ExplorerError) as e:
        sock.close()
        print(f"error: {e}", file=sys.stderr)
        return 2
    max_header_bytes = max(65536, 4 * args.max_request_bytes)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            http=bounded_http_protocol(args.header_timeout, max_waiting, max_header_bytes),
            ws="none",  # no endpoint is a websocket: no upgrade to another protocol's parser
            # uvicorn logs each request at "info": a level above it would drop them.
            log_level="info" if args.access_log else "warning",
            access_log=args.access_log,
            # Past this the HTTP layer refuses a request itself, without the JSON error.
            h11_max_incomplete_event_size=max_header_bytes,
            # An idle kept-alive connection holds a descriptor: a page reuses its own within
            # seconds, and opening a new one costs a millisecond on loopback.
            timeout_keep_alive=5,
            # Past this many connections and requests in all, requests answer 503 at once
            # rather than each connection taking a descriptor until none is left.
            limit_concurrency=limit_concurrency,
        )
    )
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    print(f"compiler_gym explorer: {url}", flush=True)
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
