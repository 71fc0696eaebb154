"""Raw-driver ceiling of the items benchmarks: the app's statements with sqlite3 or asyncpg.

GET /odata/bugs runs what the app runs for the benchmark's list (caller and channel; the page
with its version and assignees, compiled from the app's own query code; the people it names; the
count, statuses and projects only when the version moved) and encodes the same JSON; POST
/odata/bugs runs the create transaction (caller and channel, field values, native project,
counter, item, event); POST /api/bulk/bug runs the bulk edit's transaction for a new status
(caller and channel, field values, external projects, the rows locked in id order, one UPDATE
per completed date, one event per changed item: one executemany on SQLite, one statement from
three arrays on PostgreSQL) and answers the same list; the database's triggers move the
version. sqlite3 is called directly, on the event loop: no thread hop.

This module is the entry point (`python -m bench.raw_items_server PORT URL`): it opens the
database's driver and routes each request. The routes are `raw_items_list`, `raw_items_create`
and `raw_items_bulk`, over the two drivers of `raw_items_drivers` and what the routes share in
`raw_items_shared`.
"""

import sys
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from bench import raw_common
from bench.raw_items_bulk import bulk_edit_handler
from bench.raw_items_create import create_bug_handler
from bench.raw_items_drivers import Postgres, Sqlite
from bench.raw_items_list import list_bugs_handler


def build(db: Any, base: str) -> web.Application:
    """The ceiling's routes; `base` starts its @odata links, as PUBLIC_URL does the app's."""
    app = web.Application()
    app.router.add_get("/odata/bugs", list_bugs_handler(db))
    app.router.add_post("/odata/bugs", create_bug_handler(db, base))
    app.router.add_post("/api/bulk/bug", bulk_edit_handler(db))
    app.router.add_get("/healthz", lambda _r: _ok())
    return app


async def _ok() -> web.Response:
    return web.Response(text="ok")


def main(port: int, database_url: str) -> None:
    base = f"http://127.0.0.1:{port}"  # the app's default PUBLIC_URL, on this port
    if database_url.startswith("sqlite"):
        app = build(Sqlite(database_url.split(":///", 1)[1]), base)
    else:
        holder: dict[str, Any] = {}

        async def pool(app: web.Application) -> AsyncIterator[None]:
            dsn = database_url.replace("postgresql+asyncpg", "postgresql")
            async with raw_common.pool(dsn, max_size=20) as created:
                holder["db"].pool = created
                yield

        holder["db"] = Postgres(None)
        app = build(holder["db"], base)
        app.cleanup_ctx.append(pool)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
