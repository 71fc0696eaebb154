"""`python app.py` (what `make run` does): serve; the app migrates, the demo is offered on start."""

import gc
import sys

from aiohttp import web

from bot import logs
from bot.app import create_app
from bot.db.uow import unit_of_work
from bot.demo import CHANNEL_ID, TEAM_ID, ensure_demo
from bot.keys import CLOCK, SESSIONS, SETTINGS
from bot.settings import Settings, SettingsError, ensure_secret_key, load_settings
from bot.web import server


async def offer_demo(app: web.Application) -> None:
    """on_startup, once the schema is at head: make sure the demo exists; say how to try it.
    No session is issued here: start-up output lands in logs, where a live one would leak."""
    async with unit_of_work(app[SESSIONS], app[CLOCK]) as uow:
        await ensure_demo(uow)
    print(how_to_try(app[SETTINGS]), flush=True)


async def freeze_startup_objects(_app: web.Application) -> None:
    """on_startup, last: what start-up built (modules, mappers, the bot SDK) lives as long as the
    process, so the collector's full passes need not scan it; they took ~100 ms each, every few
    hundred bot turns, over ~170k objects (docs/BENCHMARKS.md, bot turn)."""
    gc.freeze()


def how_to_try(settings: Settings) -> str:
    base = settings.public_url
    cookie = '"Cookie: graphNodeCookie=$COOKIE"'
    return "\n".join(
        [
            "",
            f"Demo ready: team {TEAM_ID}, channel {CHANNEL_ID}. Try, in this folder:",
            "  COOKIE=$(.venv/bin/python -m bot admin demo | python3 -c \\",
            "         'import json, sys; print(json.load(sys.stdin)[\"cookie\"])')",
            f"  curl -s {base}/api/me -H {cookie}",
            f"  curl -s {base}/api/context -H {cookie} \\",
            f"       -H 'x-svc-teamid: {TEAM_ID}' -H 'x-svc-channelId: {CHANNEL_ID}'",
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
    logs.configure(settings.log_level, settings.log_format)
    app = create_app(settings)
    if settings.should_seed_demo:
        # Runs after create_app's cleanup contexts have started, so the schema is at head.
        app.on_startup.append(offer_demo)
    app.on_startup.append(freeze_startup_objects)
    try:
        server.run(
            app,
            settings.host,
            settings.port,
            shutdown_seconds=settings.shutdown_seconds,
            keepalive_seconds=settings.keepalive_seconds,
        )
    except SettingsError as exc:  # the port in use, say
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
