"""`python app.py` (what `make run` does): migrate, seed the demo, print how to try it, serve."""

import asyncio
import logging
import sys
from datetime import timedelta

from aiohttp import web

from bot.app import create_app
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate
from bot.demo import DemoOut, seed_demo
from bot.settings import Settings, SettingsError, ensure_secret_key, load_settings
from bot.uow import unit_of_work
from bot.web.requestid import RequestIdFilter

log = logging.getLogger("app")


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(
        logging.Formatter(
            "%(asctime)s %(levelname)s %(name)s request_id=%(request_id)s %(message)s"
        )
    )
    logging.basicConfig(level=level, handlers=[handler])


async def prepare(settings: Settings) -> DemoOut | None:
    """Bring the schema to head and, in local use, make sure the demo exists."""
    engine = create_engine(settings.database_url)
    try:
        await migrate(engine)
        if not settings.should_seed_demo:
            return None
        async with unit_of_work(session_factory(engine), SystemClock()) as uow:
            return await seed_demo(uow, session_ttl=timedelta(seconds=settings.session_ttl))
    finally:
        await engine.dispose()


def how_to_try(settings: Settings, demo: DemoOut) -> str:
    base = settings.public_url
    cookie = f"Cookie: graphNodeCookie={demo.cookie}"
    return "\n".join(
        [
            "",
            f"Demo ready: team {demo.team_id}, channel {demo.channel_id}. Try:",
            f"  curl -s {base}/api/me -H '{cookie}'",
            f"  curl -s {base}/api/context -H '{cookie}' \\",
            f"       -H 'x-svc-teamid: {demo.team_id}' -H 'x-svc-channelId: {demo.channel_id}'",
            f"API docs: {base}/docs",
            "",
        ]
    )


def main() -> int:
    try:
        settings = ensure_secret_key(load_settings())
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    demo = asyncio.run(prepare(settings))
    if demo is not None:
        print(how_to_try(settings, demo), flush=True)
    web.run_app(create_app(settings), host=settings.host, port=settings.port, print=log.info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
