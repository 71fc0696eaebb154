"""`create_app(settings)`: builds the web application; every long-lived resource in cleanup_ctx."""

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from importlib.metadata import version

import aiohttp
from aiohttp import web
from botframework.connector.auth import ServiceClientCredentialsFactory

from bot.auth import api as auth_api
from bot.auth.sso import JwksKeys
from bot.changes import api as changes_api
from bot.changes.feed import ChangeFeed
from bot.clock import Clock, SystemClock
from bot.db import checkpoints, signals
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate
from bot.directory import api as directory_api
from bot.discussions import api as discussions_api
from bot.discussions.coalescer import Coalescer, item_deleting
from bot.discussions.digests import Digester
from bot.discussions.notices import RuleNotices
from bot.discussions.personal import PersonalNotifications
from bot.discussions.refresh import ThreadRefresher
from bot.discussions.threads import Discussions
from bot.events import api as events_api
from bot.events import deliveries_api, engine, pump, ssrf, sweep
from bot.events.delivery import Deliverer
from bot.fields import api as fields_api
from bot.fields import levels_api
from bot.files import api as files_api
from bot.files.links import download_links
from bot.files.store import FileStore
from bot.items import api as items_api
from bot.items.deletions import ItemDeletions
from bot.items.versions import VersionedCache
from bot.jobs import wakeups
from bot.jobs.observed_worker import ObservedWorker
from bot.keys import (
    CHANGE_FEED,
    CLOCK,
    DELIVERER,
    DISCUSSIONS,
    DOWNLOAD_LINKS,
    DUE_SWEEP,
    ENGINE,
    EVENT_PUMP,
    FILE_STORE,
    HTTP,
    ITEM_DELETIONS,
    LIST_CACHE,
    MESSENGER,
    SESSIONS,
    SETTINGS,
    SHUTDOWN,
    SSO_KEYS,
    SYNC_CONNECTORS,
    THREAD_COALESCER,
    WORKER,
    Shutdown,
)
from bot.mappings import api as mappings_api
from bot.me import api as me_api
from bot.pages.routes import install_pages
from bot.projects import api as projects_api
from bot.settings import Settings
from bot.sync import api as sync_api
from bot.sync.address import source_http
from bot.sync.connectors import Connectors, register_all
from bot.sync.engine import comment_revisions, comments_out
from bot.sync.engine.runner import SyncEngine
from bot.tabs.routes import install_tabs
from bot.teams.handler import TrackerBot
from bot.teams.keys import BOT, BOT_HANDLER, NOTIFIER
from bot.teams.outbound.messenger import TeamsMessenger
from bot.teams.outbound.notifier import Notifier
from bot.teams.outbound.waited_posts import WaitedPosts
from bot.teams.transport import endpoint as bot_endpoint
from bot.teams.transport.adapter import create_runtime, dispose_runtime
from bot.web import meta, metrics_page, server
from bot.web.access_log import access_middleware
from bot.web.body import MAX_JSON_BODY
from bot.web.docs import install_docs
from bot.web.errors import error_middleware
from bot.web.fairness import ListsInFlight
from bot.web.keys import LISTS_IN_FLIGHT, METRICS, OPENAPI
from bot.web.metadata import install_metadata
from bot.web.openapi import OpenApiDocument
from bot.web.requestid import add_request_id
from bot.web.routing import RouteTable, install

ROUTE_TABLES: list[RouteTable] = [
    meta.routes,
    auth_api.routes,
    directory_api.routes,
    items_api.routes,
    fields_api.routes,
    levels_api.routes,
    projects_api.routes,
    mappings_api.routes,
    me_api.routes,
    events_api.routes,
    deliveries_api.routes,
    files_api.routes,
    discussions_api.routes,
    changes_api.routes,
    sync_api.routes,
]


def create_app(
    settings: Settings,
    *,
    clock: Clock | None = None,
    bot_credentials: ServiceClientCredentialsFactory | None = None,
) -> web.Application:
    """The app; `bot_credentials` replaces how the bot gets its outgoing tokens (test rigs)."""
    app = web.Application(
        middlewares=[access_middleware, error_middleware],
        client_max_size=MAX_JSON_BODY,
        handler_args=server.LIMITS,
    )
    app[SETTINGS] = settings
    app[CLOCK] = clock or SystemClock()
    app[LIST_CACHE] = VersionedCache()
    app[LISTS_IN_FLIGHT] = ListsInFlight(settings.lists_in_flight)
    app[SYNC_CONNECTORS] = Connectors()
    endpoints = install(app, ROUTE_TABLES)
    app[OPENAPI] = OpenApiDocument(
        endpoints,
        title="Teams tracker API",
        version=version("teams-tracker"),
        server=settings.public_url,
    )
    app.router.add_get("/openapi.json", meta.openapi_json)
    if settings.metrics_enabled:
        metrics_page.install(app)
    install_metadata(app, endpoints, settings.public_url)
    app.router.add_post(bot_endpoint.PATH, bot_endpoint.messages)
    install_docs(app)
    install_pages(app)
    install_tabs(app)
    app.on_response_prepare.append(add_request_id)
    app[SHUTDOWN] = Shutdown()
    app[CHANGE_FEED] = ChangeFeed()
    # A deleted item's thread outlives its rows (bot.discussions.coalescer).
    app[ITEM_DELETIONS] = ItemDeletions()
    app[ITEM_DELETIONS].observe(item_deleting)
    app.on_shutdown.append(_stop_claiming)
    app.on_shutdown.append(_end_change_streams)
    app.cleanup_ctx.extend(
        [
            _database,
            _changes,
            _files,
            _http_client,
            _sync_sources,
            _bot(bot_credentials),
            _webhooks,
            _jobs,
        ]
    )
    return app


async def _stop_claiming(app: web.Application) -> None:
    """Shutdown begins (the server stops accepting): the worker claims nothing more, and the
    in-flight requests and jobs share one bound, `SHUTDOWN_SECONDS`."""
    app[SHUTDOWN].deadline = time.monotonic() + app[SETTINGS].shutdown_seconds
    worker = app.get(WORKER)
    if worker is not None:
        worker.stop_claiming()


async def _end_change_streams(app: web.Application) -> None:
    """Open change streams end now: they would otherwise hold the shutdown to its bound."""
    app[CHANGE_FEED].close()


async def _changes(app: web.Application) -> AsyncIterator[None]:
    """Open change streams look at every commit that wrote item changes: this process's own
    at once, others' through the database (PostgreSQL)."""
    feed = app[CHANGE_FEED]
    with wakeups.listening(feed.wake):
        async with signals.listening(app[ENGINE], signals.WORK_TOPIC, feed.wake):
            yield


async def _database(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    engine = create_engine(
        settings.database_url, statement_timeout_s=settings.query_timeout_seconds
    )
    try:
        await migrate(engine)
        async with checkpoints.in_background(engine):
            app[ENGINE] = engine
            app[SESSIONS] = session_factory(engine)
            yield
    finally:
        await engine.dispose()


async def _files(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    store = FileStore(settings.attachments_dir)
    await asyncio.to_thread(store.open)
    app[FILE_STORE] = store
    app[DOWNLOAD_LINKS] = download_links(settings, app[CLOCK])
    try:
        yield
    finally:
        await store.settled()


async def _http_client(app: web.Application) -> AsyncIterator[None]:
    async with aiohttp.ClientSession() as http:
        app[HTTP] = http
        app[SSO_KEYS] = JwksKeys(http, app[SETTINGS].sso_jwks_url, app[CLOCK])
        yield


async def _sync_sources(app: web.Application) -> AsyncIterator[None]:
    """The connectors' HTTP client (every connection through the address rule) and the
    connectors themselves, by source kind."""
    settings = app[SETTINGS]
    allowed = ssrf.AllowList.parse(settings.sync_allowed_hosts)
    async with source_http(allowed) as http:
        register_all(
            app[SYNC_CONNECTORS],
            http,
            allowed=allowed,
            clock=app[CLOCK],
            authority=settings.entra_authority_url,
        )
        yield


def _bot(credentials: ServiceClientCredentialsFactory | None):  # noqa: ANN202 - a cleanup context
    async def bot(app: web.Application) -> AsyncIterator[None]:
        settings = app[SETTINGS]
        runtime = create_runtime(settings, app[HTTP], app[CLOCK], credentials=credentials)
        app[BOT] = runtime
        app[NOTIFIER] = notifier = Notifier(runtime, app[SESSIONS], app[CLOCK])
        # What the domain says, as Teams cards (bot.messaging, bot.teams.outbound.messenger).
        app[MESSENGER] = messenger = TeamsMessenger(notifier, public_url=settings.public_url)
        app[DISCUSSIONS] = discussions = Discussions(
            app[SESSIONS],
            app[CLOCK],
            WaitedPosts(messenger),
            wait=timedelta(seconds=settings.teams_wait_seconds),
            public_url=settings.public_url,
            cache=app[LIST_CACHE],
            onward=comments_out.note_comment,  # comments on synced items go on to their source
            revised=comment_revisions.note_revision,  # and so do their edits and deletions
        )
        app[BOT_HANDLER] = TrackerBot(
            app[SESSIONS],
            app[CLOCK],
            settings=settings,
            emulator_allowed=not runtime.verifies_senders,
            public_url=settings.public_url,
            cache=app[LIST_CACHE],
            discussions=discussions,
            files=app[FILE_STORE],
            deletions=app[ITEM_DELETIONS],
        )
        try:
            yield
        finally:
            dispose_runtime(runtime)

    return bot


async def _webhooks(app: web.Application) -> AsyncIterator[None]:
    async with Deliverer(
        app[SESSIONS], app[CLOCK], app[SETTINGS], app[MESSENGER]
    ).opened() as deliverer:
        app[DELIVERER] = deliverer
        yield


async def _jobs(app: web.Application) -> AsyncIterator[None]:
    counted = app[METRICS].outcomes if METRICS in app else None
    worker = ObservedWorker(
        app[SESSIONS], app[CLOCK], counted=counted, slots=app[SETTINGS].jobs_concurrency
    )
    app[NOTIFIER].register(worker)
    app[DELIVERER].register(worker)
    settings = app[SETTINGS]
    # Discussed items' threads: changes gathered per item, then one card update and one reply.
    window = timedelta(seconds=settings.thread_coalesce_seconds)
    app[THREAD_COALESCER] = coalescer = Coalescer(window=window, wake=worker.wake)
    # The engine turns committed events into deliveries; the Notification rules that matched
    # become notices for the items' threads (bot.events.engine, bot.discussions.notices).
    matching = functools.partial(engine.match, told=[RuleNotices(coalescer)])
    app[EVENT_PUMP] = event_pump = pump.EventPump(app[SESSIONS], app[CLOCK], [matching])
    worker.add_pass(event_pump.run_once, batch=pump.BATCH)
    event_pump.observe(coalescer.observe)
    # Whoever is assigned an item is told in their 1:1 chat with the bot.
    event_pump.observe(PersonalNotifications(app[MESSENGER]).observe)
    ThreadRefresher(app[SESSIONS], app[CLOCK], coalescer, settings, app[MESSENGER]).register(worker)
    Digester(app[MESSENGER], app[SESSIONS], app[CLOCK], settings).register(worker)
    SyncEngine(
        app[SESSIONS],
        app[CLOCK],
        app[SYNC_CONNECTORS],
        secret_key=settings.secret(),
        public_url=settings.public_url,
        messenger=app[MESSENGER],
    ).register(worker)
    app[DUE_SWEEP] = due_sweep = sweep.DueSweep(
        app[SESSIONS], app[CLOCK], default_window=timedelta(minutes=settings.due_soon_minutes)
    )
    await due_sweep.install()
    worker.register_recurring(
        sweep.KIND, due_sweep.handle, every=timedelta(seconds=settings.due_sweep_seconds)
    )
    app[WORKER] = worker
    poll = app[SETTINGS].jobs_poll_seconds
    if poll <= 0:  # tests run the worker's turns themselves
        yield
        return
    # A commit that writes work wakes the worker: this process's own at once, others' through
    # the database (PostgreSQL); the poll is the fallback.
    with wakeups.listening(worker.wake):
        async with signals.listening(app[ENGINE], signals.WORK_TOPIC, worker.wake):
            task = asyncio.create_task(worker.run_forever(poll))
            try:
                yield
            finally:
                # In-flight requests have ended (or run out of time); jobs get what is left.
                deadline = app[SHUTDOWN].deadline
                left = deadline - time.monotonic() if deadline else settings.shutdown_seconds
                await worker.drain(left)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
