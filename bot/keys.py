"""Typed keys of the long-lived resources stored on the aiohttp application."""

import aiohttp
from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.auth.sso import JwksKeys
from bot.clock import Clock
from bot.items.versions import VersionedCache
from bot.settings import Settings

SETTINGS = web.AppKey("settings", Settings)
CLOCK = web.AppKey("clock", Clock)
ENGINE = web.AppKey("engine", AsyncEngine)
SESSIONS = web.AppKey("sessions", async_sessionmaker[AsyncSession])
HTTP = web.AppKey("http", aiohttp.ClientSession)
SSO_KEYS = web.AppKey("sso_keys", JwksKeys)
OPENAPI = web.AppKey("openapi", bytes)
ODATA_METADATA = web.AppKey("odata_metadata", bytes)  # the CSDL XML of /odata/$metadata
# Counts and item references of lists, valid while their version holds (bot.items.versions).
LIST_CACHE = web.AppKey("list_cache", VersionedCache)
