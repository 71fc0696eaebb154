"""What every local stand-in of a source shares: the log of every exchange (which the tests
check against the vendor's description) and the faults tests ask for (fail the next requests,
hold one, throttle to a budget), as two aiohttp middlewares and the methods that queue them.
A stand-in says how its vendor words a throttled or failed answer (`refusal`)."""

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from aiohttp import web

from bot.clock import Clock
from bot.sync.standins.faults import Failure, Faults, Hang, Violation, take

THROTTLED = 429


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


class Recorder:
    """The exchange log and the faults; `_log` and `_misbehave` go first among a stand-in's
    middlewares, in that order."""

    clock: Clock

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []
        self.faults = Faults()

    def refusal(self, status: int, headers: dict[str, str] | None) -> web.Response:
        """The vendor's answer of `status` (429, or a failure's 5xx), with these headers."""
        raise NotImplementedError

    def release_all(self) -> None:
        """Every held request let go (at close)."""
        for hang in [*self.faults.held, *self.faults.hangs]:
            hang.release()

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

    # Middlewares, outermost first

    @web.middleware
    async def _log(self, request: web.Request, handler: Any) -> web.StreamResponse:
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
    async def _misbehave(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Hangs and failures happen before the request is served, or, `after_change`, once it
        has been (the change is made; its answer is held or lost)."""
        # A request meets the faults queued for it when it arrives.
        hang = take(self.faults.hangs, request.path)
        failure = take(self.faults.failures, request.path)
        if hang is not None and not hang.after_change:
            await self._hold(hang)
        retry_after = self.faults.throttle_answer(request.method, request.path, self.clock.now())
        if retry_after is not None:
            if failure is not None:  # a throttled request was not served: the failure waits
                self.faults.failures.appendleft(failure)
            return self.refusal(THROTTLED, {"Retry-After": str(retry_after)})
        if failure is None or failure.after_change:
            response: web.StreamResponse = await handler(request)
        if hang is not None and hang.after_change:
            await self._hold(hang)
        if failure is None:
            return response
        headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after else None
        return self.refusal(failure.status, headers)

    async def _hold(self, hang: Hang) -> None:
        self.faults.held.append(hang)
        hang.arrived.set()
        await hang.released.wait()


def parsed(text: str) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
