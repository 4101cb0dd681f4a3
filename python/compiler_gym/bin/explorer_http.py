"""The explorer's HTTP layer below the app: the request guard (target size, Host, Origin,
bodies) and the connection bounds uvicorn lacks (header deadline, waiting connections, open
files). Used by :mod:`compiler_gym.bin.explorer`."""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Optional

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})

# What a browser says of where a request comes from (``Sec-Fetch-Site``) that the API
# answers: its own page, or a person typing its URL. ``same-site`` is refused too: another
# port of localhost is the same site.
_OWN_SITES = frozenset({b"same-origin", b"none"})


def _json_error(status: int, message: str, headers: Optional[dict[str, str]] = None):
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers)


def _host_name(host: str) -> str:
    """A Host header's name without its port: ``[::1]:5000`` is ``[::1]``."""
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.split(":", 1)[0]


def _is_ip_address(name: str) -> bool:
    """Whether a Host's name is an IP address (``10.0.0.2``, ``[fe80::1]``): a name no DNS
    answer can rebind."""
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
    except ValueError:
        return False
    return True


def _quoted(value: bytes, limit: int = 80) -> str:
    """A header's value for an error message, cut short."""
    text = value.decode("latin-1")
    return repr(text if len(text) <= limit else text[:limit] + "...")


class RequestGuard:
    """ASGI middleware that refuses, with a JSON error, before the app sees it, a request:

    - whose target (path and query) is longer than ``max_bytes`` (414);
    - whose Host is not one of ``allowed_hosts`` (any port: ``ssh -L 8080:localhost:5000``
      reaches it as ``localhost:8080``), or an IP address with ``any_ip_address`` (a server
      bound to every address), or is given twice (400): a page elsewhere that made its own name
      point here (DNS rebinding) must not read what the server answers;
    - of the API (``/api/``) that a browser sends for another site's page (403): an
      ``Origin`` other than ``http(s)://`` and the request's own Host (or a name of
      ``origin_hosts``, those of a proxy in front), or a ``Sec-Fetch-Site`` other than
      ``same-origin`` or ``none``, so that no page the user opens elsewhere can start or step
      sessions, even by an ``<img>`` that sends no Origin. Scripts send neither header;
    - that has a body (413: this API's endpoints take none). A body is refused unread, however
      large (uvicorn discards what arrives after the answer, until :class:`_ConnectionBounds`
      closes a connection that sends too much).

    ``allowed_hosts`` None checks no Host (only for tests of the other checks)."""

    def __init__(
        self,
        app: Callable,
        max_bytes: int,
        allowed_hosts: Optional[frozenset[str]],
        origin_hosts: frozenset[str] = frozenset(),
        any_ip_address: bool = False,
    ):
        self.app = app
        self.max_bytes = max_bytes
        self.allowed_hosts = allowed_hosts
        self.origin_hosts = origin_hosts
        self.any_ip_address = any_ip_address

    async def __call__(self, scope, receive, send):
        """Checks the request, then passes it on."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal = self.refusal(scope)
        if refusal is not None:
            return await _json_error(*refusal)(scope, receive, send)
        return await self.app(scope, receive, send)

    def refusal(self, scope) -> Optional[tuple[int, str]]:
        """The status and message a request is refused with, or None when it may go on."""
        target = len(scope.get("raw_path") or scope["path"].encode()) + len(
            scope.get("query_string", b"")
        )
        if target > self.max_bytes:
            return 414, f"request target of {target} bytes; at most {self.max_bytes}"
        raw = scope.get("headers") or []
        headers = dict(raw)
        hosts = [v for k, v in raw if k == b"host"]
        if len(hosts) > 1:  # which one a proxy or the check would read is anyone's guess
            return 400, "more than one Host header"
        host = hosts[0].decode("latin-1").lower() if hosts else None
        if self.allowed_hosts is not None and host is not None:
            name = _host_name(host)
            ip_ok = self.any_ip_address and _is_ip_address(name)
            if name not in self.allowed_hosts and not ip_ok:
                return (
                    400,
                    f"Host {name!r} is not this server's; use {min(self.allowed_hosts)} "
                    "(a server reached by another name: --allowed-host NAME)",
                )
        if scope["path"].startswith("/api/"):
            refused = self._foreign(raw, host)
            if refused is not None:
                return 403, refused
        length = headers.get(b"content-length")
        # HTTP/1.1 announces a body with one of these two headers.
        if (length is not None and length.strip() != b"0") or b"transfer-encoding" in headers:
            return 413, f"{scope.get('method', 'GET')} {scope['path']} takes no request body"
        return None

    def _foreign(self, raw: list, host: Optional[str]) -> Optional[str]:
        """Why an API request comes from another site's page, or None when it does not."""
        for key, value in raw:
            if key == b"origin" and not self._own_origin(value.decode("latin-1").lower(), host):
                return (
                    f"a request from the page of {_quoted(value)} is refused: the API answers "
                    "its own page only (behind a proxy of another name: --allowed-host NAME)"
                )
            if key == b"sec-fetch-site" and value.strip().lower() not in _OWN_SITES:
                return (
                    f"a {_quoted(value)} request is refused (Sec-Fetch-Site): the API answers "
                    "its own page only"
                )
        return None

    def _own_origin(self, origin: str, host: Optional[str]) -> bool:
        scheme, sep, authority = origin.partition("://")
        if not sep or scheme not in ("http", "https") or not authority or "/" in authority:
            return False  # "null" (a sandboxed frame, a file), or no origin at all
        return authority == host or _host_name(authority) in self.origin_hosts


class _ConnectionBounds:
    """What uvicorn's HTTP protocols lack, mixed into them by :func:`bounded_http_protocol`.

    uvicorn arms no timer on a new connection, and disarms its keep-alive timer on every byte
    received: a client that sends half a request, or a byte a second, holds its connection
    (and a file descriptor) for ever, and 150 of them used up a 128-descriptor limit. So:

    - a connection must send its request's headers within ``header_timeout`` seconds of
      connecting or of its previous response, however it trickles them (then 408, or a plain
      close when it sent nothing);
    - at most ``max_waiting`` connections wait for their headers; a new one closes the oldest
      rather than being refused, so a flood of idle connections costs its sender its oldest
      ones, not other clients their service (a real client sends its request at once);
    - at most ``max_header_bytes`` arrive before a request's headers end (431): httptools
      buffers a header whole, however long;
    - a client that reads nothing of its response for ``header_timeout`` seconds is closed,
      or it would hold its connection for ever.

    ``waiting`` is the made class's own (one per server): connection -> its timer, oldest
    first. Everything here runs on the event loop's thread."""

    header_timeout: float = 10.0
    max_waiting: int = 1024
    max_header_bytes: int = 65536
    waiting: OrderedDict

    def connection_made(self, transport) -> None:
        """Starts the connection's clock for its first request's headers."""
        self._received = 0  # bytes since the last request's headers ended
        self._stalled: Optional[asyncio.TimerHandle] = None
        super().connection_made(transport)
        self._await_headers()

    def connection_lost(self, exc) -> None:
        """Forgets the connection's timers."""
        self._headers_done()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Counts what arrives before the headers end; past ``max_header_bytes``, 431."""
        self._received += len(data)
        if self._received > self.max_header_bytes:
            self._refuse(431, "Request Header Fields Too Large", "request headers too long")
            return
        super().data_received(data)

    def on_response_complete(self) -> None:
        """After a response, the next request's headers are on the clock (unless they have
        come already, pipelined)."""
        super().on_response_complete()
        if not self.transport.is_closing() and self._between_requests():
            self._await_headers()

    def pause_writing(self) -> None:
        """The client is not reading: it has ``header_timeout`` seconds to start again."""
        super().pause_writing()
        if self._stalled is None:
            # abort(), not close(), which would wait to send what the client does not read.
            self._stalled = self.loop.call_later(self.header_timeout, self.transport.abort)

    def resume_writing(self) -> None:
        """The client reads again."""
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().resume_writing()

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _await_headers(self) -> None:
        waiting = self.waiting
        if self in waiting:
            return
        while len(waiting) >= self.max_waiting:
            oldest, timer = waiting.popitem(last=False)
            timer.cancel()
            oldest.transport.close()
        waiting[self] = self.loop.call_later(self.header_timeout, self._headers_too_late)

    def _request_begun(self) -> bool:
        """Whether part of the next request has come (the protocol's parser knows)."""
        return False

    def _headers_done(self) -> None:
        self._received = 0
        timer = self.waiting.pop(self, None)
        if timer is not None:
            timer.cancel()

    def _headers_too_late(self) -> None:
        self.waiting.pop(self, None)
        if self._received or self._request_begun():
            self._refuse(408, "Request Timeout", "request headers not sent in time")
        else:
            self.transport.close()

    def _refuse(self, status: int, reason: str, message: str) -> None:
        """Answers ``status`` when no response is under way on the connection, and closes it."""
        if self._between_requests() and not self.transport.is_closing():
            body = json.dumps({"error": message, "status": status}).encode()
            self.transport.write(
                f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
                + body
            )
        self._headers_done()
        self.transport.close()


def bounded_http_protocol(header_timeout: float, max_waiting: int, max_header_bytes: int) -> type:
    """uvicorn's HTTP protocol class (httptools', or h11's without it) with
    :class:`_ConnectionBounds`, for ``uvicorn.Config(http=...)``."""
    bounds = {
        "header_timeout": header_timeout,
        "max_waiting": max_waiting,
        "max_header_bytes": max_header_bytes,
        "waiting": OrderedDict(),
    }
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # no httptools: h11's, slower
        import h11
        from uvicorn.protocols.http.h11_impl import H11Protocol

        class BoundedH11Protocol(_ConnectionBounds, H11Protocol):
            def handle_events(self) -> None:
                super().handle_events()
                if self.conn.their_state is not h11.IDLE:  # a request's headers have come
                    self._headers_done()

            def _between_requests(self) -> bool:
                return super()._between_requests() and self.conn.their_state is h11.IDLE

            def _request_begun(self) -> bool:
                return bool(self.conn.trailing_data[0])

        return type("BoundedH11Protocol", (BoundedH11Protocol,), bounds)

    class BoundedHttpToolsProtocol(_ConnectionBounds, HttpToolsProtocol):
        _begun = False

        def on_message_begin(self) -> None:
            self._begun = True
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._begun = False
            self._headers_done()
            super().on_headers_complete()

        def _request_begun(self) -> bool:
            return self._begun

    return type("BoundedHttpToolsProtocol", (BoundedHttpToolsProtocol,), bounds)


# File descriptors kept for the process's own files (the engine, the database, logs): the
# rest are its connections'.
FD_RESERVE = 64


def connection_limits(fd_limit: int) -> tuple[int, int]:
    """For a process that may open ``fd_limit`` files: how many connections may wait for their
    request's headers, and uvicorn's ``limit_concurrency`` (connections and requests in all,
    past which requests answer 503). Together they stay within the descriptors left."""
    budget = max(48, fd_limit - FD_RESERVE)
    return max(16, min(1024, budget // 3)), max(32, min(4096, budget * 2 // 3))


def raise_open_files_limit() -> int:
    """Raises the soft limit on open files to the hard one (each connection is a file);
    returns the limit in force."""
    try:
        import resource
    except ImportError:  # not Unix
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft if soft != resource.RLIM_INFINITY else 1 << 20
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target
