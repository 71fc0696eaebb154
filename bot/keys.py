"""Typed keys of the long-lived resources stored on the aiohttp application (the bot's own are
in `bot.teams.keys`, the web frame's in `bot.web.keys`)."""

from dataclasses import dataclass

import aiohttp
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.auth.sso import JwksKeys
from bot.changes.feed import ChangeFeed
from bot.clock import Clock
from bot.discussions.coalescer import Coalescer
from bot.discussions.threads import Discussions
from bot.events.delivery import Deliverer
from bot.events.pump import EventPump
from bot.events.sweep import DueSweep
from bot.files.links import DownloadLinks
from bot.files.store import FileStore
from bot.items.deletions import ItemDeletions
from bot.items.versions import VersionedCache
from bot.jobs.worker import Worker
from bot.messaging import Messenger
from bot.settings import Settings
from bot.sync.connectors import Connectors

SETTINGS = web.AppKey("settings", Settings)
CLOCK = web.AppKey("clock", Clock)
ENGINE = web.AppKey("engine", AsyncEngine)
SESSIONS = web.AppKey("sessions", async_sessionmaker[AsyncSession])
HTTP = web.AppKey("http", aiohttp.ClientSession)
SSO_KEYS = web.AppKey("sso_keys", JwksKeys)
ODATA_METADATA = web.AppKey("odata_metadata", bytes)  # the CSDL XML of /odata/$metadata
# Counts and item references of lists, valid while their version holds (bot.items.versions).
LIST_CACHE = web.AppKey("list_cache", VersionedCache)
# What the domain says in the chat (bot.messaging; Teams' is bot.teams.outbound.messenger).
MESSENGER: web.AppKey[Messenger] = web.AppKey("messenger")
# Starts discussions and posts comments, waiting for Teams (bot.discussions.threads).
DISCUSSIONS = web.AppKey("discussions", Discussions)
WORKER = web.AppKey("worker", Worker)
# Told of items about to be deleted: an item's thread outlives its rows (bot.items.deletions).
ITEM_DELETIONS = web.AppKey("item_deletions", ItemDeletions)
# Wakes the open change streams (bot.changes).
CHANGE_FEED = web.AppKey("change_feed", ChangeFeed)


@dataclass
class Shutdown:
    """Set when a shutdown begins: the time.monotonic() by which in-flight requests and jobs
    must have ended (they share the bound)."""

    deadline: float | None = None


SHUTDOWN = web.AppKey("shutdown", Shutdown)
# Hands committed item changes to the observers that act on them (bot.events.pump).
EVENT_PUMP = web.AppKey("event_pump", EventPump)
DUE_SWEEP = web.AppKey("due_sweep", DueSweep)
# Sends webhook deliveries (bot.events.delivery).
DELIVERER = web.AppKey("deliverer", Deliverer)
# What other features feed lines for an item's thread through (bot.discussions.coalescer).
THREAD_COALESCER = web.AppKey("thread_coalescer", Coalescer)
# Attachments' bytes, and the signed links that serve them (bot.files).
FILE_STORE = web.AppKey("file_store", FileStore)
DOWNLOAD_LINKS = web.AppKey("download_links", DownloadLinks)
# The sync connectors by source kind (bot.sync.connectors).
SYNC_CONNECTORS = web.AppKey("sync_connectors", Connectors)
