"""Raw-driver ceiling of GET /api/me: the same lookup with sqlite3 or asyncpg, bare handler."""

import hashlib
import sqlite3
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import orjson
from aiohttp import web

from bench import raw_common

LOOKUP = """
SELECT t.expires_at, t.revoked_at, u.id, u.source_id, u.display_name, u.email, u.username, u.source
FROM auth_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = {param}
"""


def user_json(row: tuple) -> bytes:  # type: ignore[type-arg]
    keys = ("_id", "sourceId", "displayName", "email", "username", "source")
    return orjson.dumps(dict(zip(keys, row[2:], strict=True)))


def secret_of(request: web.Request) -> str:
    return hashlib.sha256(request.cookies["graphNodeCookie"].encode()).hexdigest()


def sqlite_app(path: str) -> web.Application:
    connection = sqlite3.connect(path, check_same_thread=False)
    statement = LOOKUP.format(param="?")

    async def me(request: web.Request) -> web.Response:
        row = connection.execute(statement, (secret_of(request),)).fetchone()
        now = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ")
        if row is None or row[1] is not None or row[0] <= now:
            raise web.HTTPUnauthorized
        return web.Response(body=user_json(row), content_type="application/json")

    app = web.Application()
    app.router.add_get("/api/me", me)
    return app


def postgres_app(dsn: str) -> web.Application:
    statement = LOOKUP.format(param="$1")
    app = web.Application()
    pool_key = web.AppKey("pool", asyncpg.Pool)

    async def pool(app: web.Application) -> AsyncIterator[None]:
        async with raw_common.pool(dsn, max_size=10) as created:
            app[pool_key] = created
            yield

    async def me(request: web.Request) -> web.Response:
        row = await request.app[pool_key].fetchrow(statement, secret_of(request))
        if row is None or row[1] is not None or row[0] <= datetime.now(UTC):
            raise web.HTTPUnauthorized
        return web.Response(body=user_json(tuple(row)), content_type="application/json")

    app.cleanup_ctx.append(pool)
    app.router.add_get("/api/me", me)
    return app


async def healthz(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


def main(port: int, database_url: str) -> None:
    if database_url.startswith("sqlite"):
        app = sqlite_app(database_url.split(":///", 1)[1])
    else:
        app = postgres_app(database_url.replace("postgresql+asyncpg", "postgresql"))
    app.router.add_get("/healthz", healthz)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
