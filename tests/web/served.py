"""The app served as `python app.py` serves it (bot.web.server), on a free local port: aiohttp's
test server differs (it cancels a handler whose client leaves, and answers its own refusals as
stock aiohttp does), so tests of what reaches the wire before the app runs use this."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web

from bot.web import server


@asynccontextmanager
async def served(app: web.Application) -> AsyncIterator[tuple[str, int]]:
    """The host and port where `app` listens until the block ends."""
    runner = await server.start(app, "127.0.0.1", 0)
    try:
        host, port = runner.addresses[0][:2]
        yield host, port
    finally:
        await runner.cleanup()
