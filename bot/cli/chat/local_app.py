"""`python -m bot chat --start`: an app of the console's own, on a temporary SQLite database
with the demo, for trying the bot with nothing else running; gone when the console ends."""

import socket
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

from aiohttp import web

from bot.app import create_app
from bot.cli.chat.connector import LOOPBACK
from bot.db.uow import unit_of_work
from bot.demo import seed_demo
from bot.keys import CLOCK, SESSIONS
from bot.settings import Settings, ensure_secret_key, load_settings
from bot.web.server import AppRunner


@asynccontextmanager
async def started() -> AsyncIterator[str]:
    """The app serving on a free loopback port, with the demo seeded; yields its URL."""
    with tempfile.TemporaryDirectory(prefix="tracker-chat-") as folder:
        settings = _settings(Path(folder), _free_port())
        app = create_app(settings)
        # No signal handlers: Ctrl-C ends the console, which then stops the app.
        runner = AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, settings.host, settings.port).start()
            async with unit_of_work(app[SESSIONS], app[CLOCK]) as uow:
                await seed_demo(uow, session_ttl=timedelta(seconds=settings.session_ttl))
            yield settings.public_url
        finally:
            await runner.cleanup()


def _settings(folder: Path, port: int) -> Settings:
    """Local settings whatever the environment says: SQLite in `folder`, no app id (the
    Emulator's mode), item links to this app; no `.env` read."""
    return ensure_secret_key(
        load_settings(
            _env_file=None,
            DATABASE_URL=f"sqlite+aiosqlite:///{folder / 'app.db'}",
            DATA_DIR=folder,
            HOST=LOOPBACK,
            PORT=port,
            PUBLIC_URL="",
            SEED_DEMO=True,
            MicrosoftAppId="",
            MicrosoftAppPassword="",
        )
    )


def _free_port() -> int:
    """A port nothing listens on now (the app's item links must name it before it listens)."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])
