"""What every local source shares: serving on loopback (`LocalSource`), the exchange log, the
faults a test makes a request meet (hangs, failures, throttling with `Retry-After`), the calls it
makes out (hooks) awaited before it stops, and reading Basic credentials. Each stand-in gives
its routes, its authentication and its refusals in its vendor's own error shape."""

import asyncio
import base64
import binascii
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Self, TypeVar

import aiohttp
from aiohttp import web

from bot.clock import Clock
from bot.sync.standins.faults import Failure, Faults, Hang, Violation, take

Handler = Any  # aiohttp's middleware handler


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and the answer it got, as they crossed the wire."""

    method: str
    path: str
    query: dict[str, str]
    request_headers: dict[str, str]
    request_body: Any  # parsed JSON, or the text when it is not JSON, or None
    status: int
    response_headers: dict[str, str]
    response_body: Any
    at: datetime | None = None  # when the request arrived, by the stand-in's clock


def basic_credentials(header: str) -> tuple[str, str] | None:
    """The user and password of a Basic Authorization header (None when it is not one)."""
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return user, password


def parsed(text: str) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class LocalSource(ABC):
    """A stand-in's life on loopback and the faults tests ask of it; a subclass gives its routes
    (`routes`), its refusal (`refuse`, the vendor's error shape) and its own middlewares (auth)."""

    THROTTLED = "Too many requests."  # the message of a 429, in the vendor's words

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.exchanges: list[Exchange] = []
        self.faults = Faults()
        self.base_url = ""
        self._in_flight: set[asyncio.Task[None]] = set()
        self._settled = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._http: aiohttp.ClientSession | None = None

    @abstractmethod
    def routes(self) -> list[web.RouteDef]: ...

    @abstractmethod
    def middlewares(self) -> list[Any]:
        """The subclass's own middlewares, inside the log and the faults."""

    @abstractmethod
    def refuse(self, status: int, message: str, headers: dict[str, str] | None) -> web.Response: ...

    @abstractmethod
    def seed(self, count: int) -> Sequence[object]:
        """`count` items there to start with; their ids."""

    # Serving

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        app = web.Application(middlewares=[self._log, self._misbehave, *self.middlewares()])
        app.add_routes(self.routes())
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        self.base_url = f"http://{host}:{self._runner.addresses[0][1]}"
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))

    async def close(self) -> None:
        for hang in [*self.faults.held, *self.faults.hangs]:
            hang.release()
        await self.hooks_settled()
        if self._http is not None:
            await self._http.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    # The middlewares every stand-in has, outermost first

    @web.middleware
    async def _log(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every exchange noted, outermost so that it sees what the faults answer."""
        arrived_at = self.clock.now()
        text = await request.text()
        try:
            response = await handler(request)
        except web.HTTPException as refused:
            response = refused
        body = getattr(response, "text", None) if isinstance(response, web.Response) else None
        self.exchanges.append(
            Exchange(
                request.method,
                request.path,
                dict(request.query),
                dict(request.headers),
                parsed(text),
                response.status,
                dict(response.headers),
                parsed(body or ""),
                arrived_at,
            )
        )
        return response

    @web.middleware
    async def _misbehave(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Hangs and failures happen before the request is served, or, `after_change`, once it
        has been (the change made; its answer held or lost); a request over the throttling
        budget is answered 429 with `Retry-After`."""
        faults = self.faults
        # A request meets the faults queued for it when it arrives.
        hang = take(faults.hangs, request.path)
        failure = take(faults.failures, request.path)
        if hang is not None and not hang.after_change:
            await self._hold(hang)
        retry_after = faults.throttle_answer(request.method, request.path, self.clock.now())
        if retry_after is not None:
            if failure is not None:  # a throttled request was not served: the failure waits
                faults.failures.appendleft(failure)
            return self.refuse(429, self.THROTTLED, {"Retry-After": str(retry_after)})
        if failure is None or failure.after_change:
            response: web.StreamResponse = await handler(request)
        if hang is not None and hang.after_change:
            await self._hold(hang)
        if failure is None:
            return response
        headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after else None
        return self.refuse(failure.status, "The service is unavailable.", headers)

    async def _hold(self, hang: Hang) -> None:
        self.faults.held.append(hang)
        hang.arrived.set()
        await hang.released.wait()

    # Calls out (hooks)

    @property
    def http(self) -> aiohttp.ClientSession:
        assert self._http is not None, "the stand-in is not started"
        return self._http

    def spawn(self, call: Coroutine[Any, Any, None]) -> None:
        """Make a call out in the background; `hooks_settled` waits for it."""
        self._in_flight.add(asyncio.get_running_loop().create_task(self._settling(call)))

    async def _settling(self, call: Coroutine[Any, Any, None]) -> None:
        try:
            await call
        finally:
            async with self._settled:
                self._in_flight.discard(asyncio.current_task())
                self._settled.notify_all()

    async def hooks_settled(self) -> None:
        """Return once no call out is in flight."""
        async with self._settled:
            await self._settled.wait_for(lambda: not self._in_flight)

    # Faults

    def fail_next(
        self,
        count: int = 1,
        *,
        status: int = 500,
        retry_after: int | None = None,
        after_change: bool = False,
        path_part: str = "",
    ) -> None:
        """Answer the next `count` requests (whose path holds `path_part`) with `status` (a
        5xx): without serving them, or, `after_change`, once they are served (the change is
        made, its answer lost)."""
        failure = Failure(status, retry_after, after_change, path_part)
        self.faults.failures.extend([failure] * count)

    def hang_next(self, *, after_change: bool = False, path_part: str = "") -> Hang:
        """Hold the next request (whose path holds `path_part`) until the returned hang is
        released: before it is served, or, `after_change`, once it is (the change is made; its
        answer waits)."""
        hang = Hang(after_change=after_change, path_part=path_part)
        self.faults.hangs.append(hang)
        return hang

    def throttle(self, budget: int, *, window_seconds: float = 1.0) -> None:
        """Allow `budget` requests per window (windows from now, by the clock); the rest get 429
        with `Retry-After` the whole seconds left in the window."""
        self.faults.budget = budget
        self.faults.window = timedelta(seconds=window_seconds)
        self.faults.started = self.clock.now()
        self.faults.per_window = {}
        self.faults.allowed_at = None

    def stop_throttling(self) -> None:
        self.faults.budget = None

    @property
    def requests_per_window(self) -> dict[int, int]:
        """Requests that arrived in each throttle window (0 = the first), 429s included."""
        return dict(self.faults.per_window)

    @property
    def throttle_violations(self) -> list[Violation]:
        return list(self.faults.violations)

    def exchanges_to(self, method: str, path_part: str = "") -> list[Exchange]:
        """The logged exchanges of one method whose path holds `path_part`, oldest first."""
        return [x for x in self.exchanges if x.method == method and path_part in x.path]


Served = TypeVar("Served", bound=LocalSource)


async def serve_until(
    standin: Served,
    *,
    port: int,
    seed: int,
    stop: asyncio.Event,
    ready: Callable[[Served], None],
) -> None:
    """Serve the stand-in on `port` with `seed` items until `stop` is set (`python -m …`)."""
    await standin.start(port=port)
    try:
        standin.seed(seed)
        ready(standin)
        await stop.wait()
    finally:
        await standin.close()
