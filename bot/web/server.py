"""Serving the app: aiohttp's runner, with the refusals aiohttp makes before the app runs (a
malformed request, a URL or header over its limit) in the API's error shape.

aiohttp answers those from its protocol handler, before routing and middleware, in plain text
that echoes the offending line, without `x-request-id`; it offers no hook for them
(aio-libs/aiohttp#3287), so the runner builds its connections with a handler that answers JSON.
`tests/web/test_server_refusals.py` pins this against the installed aiohttp.
"""

import asyncio
import errno
import logging
import signal
import socket

from aiohttp import web
from aiohttp.http_exceptions import LineTooLong

from bot.settings import SettingsError
from bot.web.errors import INTERNAL_ERROR, json_response
from bot.web.requestid import HEADER, choose_request_id

log = logging.getLogger(__name__)

# A 2 KB $filter of non-ASCII text is several times longer percent-encoded; aiohttp's default
# 8 KiB request line would refuse it before the app could answer.
MAX_REQUEST_LINE = 32 * 1024
MAX_HEADER_FIELD = 8190  # aiohttp's default, named so a refusal can say which limit was hit
LIMITS = {"max_line_size": MAX_REQUEST_LINE, "max_field_size": MAX_HEADER_FIELD}


class JsonErrorsHandler(web.RequestHandler):
    """aiohttp's connection handler, its own refusals answered as the API answers."""

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        request_id = choose_request_id(None)
        if status >= 500:
            self.log_exception("Error handling request (%s)", request_id, exc_info=exc)
        else:
            # The client's mistake: no traceback, and not its text, which may be any bytes.
            log.info("refused a malformed request (%s, %s)", type(exc).__name__, request_id)
        if request.writer.output_size > 0:  # as aiohttp's: a response has begun, drop it
            raise ConnectionError("a response is sent already; cannot send the error")
        body = INTERNAL_ERROR if status >= 500 else {"error": _what_is_wrong(exc)}
        response = json_response(body, status)
        response.headers[HEADER] = request_id
        response.force_close()
        return response


def _what_is_wrong(exc: BaseException | None) -> str:
    """The refusal in words, naming the limit, never repeating what was sent."""
    if isinstance(exc, LineTooLong):
        if exc.args[1] == MAX_REQUEST_LINE:
            return f"The URL is longer than {MAX_REQUEST_LINE // 1024} KiB."
        return f"A request header is longer than {MAX_HEADER_FIELD} bytes."
    return "The request is not valid HTTP."


class _Server(web.Server):
    def __call__(self) -> web.RequestHandler:
        return JsonErrorsHandler(self, loop=self._loop, **self._kwargs)


class AppRunner(web.AppRunner):
    """aiohttp's AppRunner, serving connections through JsonErrorsHandler."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _Server  # the same server, only its connection factory differs
        return server


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address of `host` (as aiohttp's TCPSite binds them), made before
    the app starts: a port in use is one line naming the setting, and nothing half started."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise SettingsError(f"Invalid setting HOST: {host} is not a known address") from exc
    bound: list[socket.socket] = []
    try:
        for family, kind, protocol, _, address in dict.fromkeys(addresses):
            sock = socket.socket(family, kind, protocol)
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.setblocking(False)
    except OSError as exc:
        for sock in bound:
            sock.close()
        raise _not_listening(host, port, exc) from exc
    return bound


def _not_listening(host: str, port: int, exc: OSError) -> SettingsError:
    if exc.errno == errno.EADDRINUSE:
        return SettingsError(
            f"Invalid setting PORT: {host}:{port} is in use by another program; "
            "stop it or choose another PORT"
        )
    if exc.errno == errno.EACCES:
        return SettingsError(f"Invalid setting PORT: {port} needs privileges this user lacks")
    return SettingsError(f"Invalid setting HOST: cannot listen on {host} ({exc.strerror})")


async def start(
    app: web.Application,
    host: str,
    port: int,
    *,
    shutdown_seconds: float = 60.0,
    keepalive_seconds: float = 15.0,
    signals: bool = True,
) -> AppRunner:
    """The app started and listening (port 0: any free port, in `runner.addresses`); on
    shutdown, requests in flight get `shutdown_seconds` to end. A connection is closed once it
    has sent no complete request for `keepalive_seconds`, since it opened or since its last
    answer (aiohttp's keep-alive timer: it bounds an idle connection and a request's headers)."""
    sockets = listening_sockets(host, port)
    # Not aiohttp's access log, which writes the raw request line (a download link's signature
    # in its query): the app's own (`bot.web.access_log`) writes one line per request.
    runner = AppRunner(
        app,
        handle_signals=signals,
        shutdown_timeout=shutdown_seconds,
        access_log=None,
        keepalive_timeout=keepalive_seconds,
    )
    try:
        await runner.setup()
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    try:
        for sock in sockets:
            await web.SockSite(runner, sock).start()
    except BaseException:
        await runner.cleanup()
        for sock in sockets:
            sock.close()
        raise
    return runner


def run(
    app: web.Application,
    host: str,
    port: int,
    *,
    shutdown_seconds: float,
    keepalive_seconds: float,
) -> None:
    """Serve until SIGINT or SIGTERM, then shut down in order: listening stops, requests in
    flight get `shutdown_seconds` to end, then the app's resources close (the worker drains).

    Not aiohttp's signal handling: it raises out of the event loop, and `asyncio.run` then
    cancels every task at once, jobs in flight included, before the app could drain them."""

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signal_number, stop.set)
        runner = await start(
            app,
            host,
            port,
            shutdown_seconds=shutdown_seconds,
            keepalive_seconds=keepalive_seconds,
            signals=False,
        )
        log.info("serving on http://%s:%s", host, port)
        try:
            await stop.wait()
            log.info("shutting down: in-flight work gets %g s", shutdown_seconds)
        finally:
            await runner.cleanup()

    asyncio.run(serve())
