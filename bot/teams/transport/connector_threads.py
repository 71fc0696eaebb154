"""The Bot Connector's own threads, and a bound on every wait on Teams.

botbuilder's connector client sends with blocking `requests` in a thread (msrest's driver): by
default in the event loop's default pool, where uploads write files, and for up to msrest's
100 s per read. A Teams that hangs would hold those threads long after the caller was answered
502. Every connector client the app builds is given a driver that runs in a pool of its own,
waiting on Teams (to connect, for each read) no longer than TEAMS_WAIT_SECONDS; it reads the
answer's body in that thread too, where msrest would read it later on the event loop.

msrest reads only JSON (or XML) bodies: a refusal in plain text (a 404 from Teams or a proxy)
made it raise a parsing error instead of the SDK's refusal. Such a body is dropped, so the
refusal carries its status like any other.
"""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import requests
from botbuilder.core import TurnContext
from botframework.connector.aio import ConnectorClient
from botframework.connector.aiohttp_bf_pipeline import AsyncBfPipeline
from botframework.connector.teams import TeamsConnectorClient
from msrest.exceptions import ClientRequestError
from msrest.universal_http import ClientRequest
from msrest.universal_http.async_requests import (
    AsyncRequestsClientResponse,
    AsyncRequestsHTTPSender,
)

# Calls to Teams one process has in flight; more wait their turn (the caller's wait still runs).
THREADS = 32


class ConnectorThreads:
    """The pool connector calls run in, and how long each wait on Teams may last."""

    def __init__(self, wait_seconds: float, *, threads: int = THREADS) -> None:
        self.wait_seconds = wait_seconds
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="bot-connector")

    def bound(self, client: ConnectorClient) -> ConnectorClient:
        """`client`, sending in this pool with every wait on Teams bounded."""
        config = client.config
        config.connection.timeout = self.wait_seconds
        config.driver = _PooledDriver(config, self._pool)
        config.pipeline = AsyncBfPipeline(config)  # the SDK's pipeline, built on config.driver
        return client

    def bound_teams(self, client: TeamsConnectorClient) -> TeamsConnectorClient:
        """The SDK's synchronous Teams client, its waits on Teams bounded; call it with `run`."""
        client.config.connection.timeout = self.wait_seconds
        return client

    async def run(self, call: Any, *args: Any) -> Any:
        """A call of the SDK's synchronous Teams client, in this pool."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, partial(call, *args))

    def close(self) -> None:
        """Queued calls are dropped; a running one ends within its bound."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def of_turn(turn_context: TurnContext) -> ConnectorThreads:
    """The threads of the app whose adapter (`bot.teams.transport.adapter`) runs this turn."""
    threads: ConnectorThreads = turn_context.adapter.bot_framework_authentication.threads
    return threads


class _PooledDriver(AsyncRequestsHTTPSender):
    """msrest's requests driver, sending in the given pool instead of the default one."""

    def __init__(self, config: Any, pool: ThreadPoolExecutor) -> None:
        super().__init__(config)
        self._pool = pool

    async def send(  # type: ignore[override]  # async, as msrest's own async driver
        self, request: ClientRequest, **kwargs: Any
    ) -> AsyncRequestsClientResponse:
        requests_kwargs = self._configure_send(request, **kwargs)
        session = requests_kwargs.pop("session", self.session)
        fetch = partial(_fetch, session, request.method, request.url, requests_kwargs)
        try:
            response = await asyncio.get_running_loop().run_in_executor(self._pool, fetch)
        except requests.RequestException as exc:
            raise ClientRequestError("Error occurred in request.", exc) from exc
        return AsyncRequestsClientResponse(request, response)


def _fetch(
    session: requests.Session, method: str, url: str, kwargs: dict[str, Any]
) -> requests.Response:
    response = session.request(method, url, **kwargs)
    _ = response.content  # read now, in this thread, within the same bound
    content_type = response.headers.get("Content-Type", "application/json")
    if response.status_code >= 400 and "json" not in content_type.lower():
        response._content = b""  # noqa: SLF001 - requests' cached body, read just above
    return response
