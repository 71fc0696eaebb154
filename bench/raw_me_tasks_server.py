"""Raw-driver ceiling of GET /api/me/tasks: the app's statements with sqlite3 or asyncpg.

The page and count statements and the look-ups of statuses, projects and people are the app's
own, compiled once at start-up from `bot.me.queries` and `bot.items.read`'s columns for the
database's driver; the caller lookup is written out as the app runs it. The same JSON is encoded.
sqlite3 is called directly, on the event loop: no thread hop.
"""

import hashlib
import sys
from collections.abc import AsyncIterator

import orjson
from aiohttp import web
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect

from bench import raw_common
from bench.raw_common import (
    CALLER,
    Compiled,
    Driver,
    details,
    people,
    project_refs,
    projects_statement,
    statuses_statement,
    users_statement,
)
from bot.me.queries import my_items, my_items_count, my_items_statement
from bot.odata.query import apply, parse_query
from bot.schemas import ItemKind

STAND_IN = "u" * 24  # the user id compiled into the statements, replaced per request
PAGE_SIZE = 50


def build(db: Driver) -> web.Application:
    dialect = db.sqlite and sqlite_dialect() or PGDialect_asyncpg()
    entity = my_items(ItemKind.TASK)
    query = parse_query({"$top": str(PAGE_SIZE)}, entity, count_by_default=True)
    statement = my_items_statement(STAND_IN, ItemKind.TASK)
    page = Compiled(apply(statement, query, keyed=True), dialect)
    count = Compiled(my_items_count(STAND_IN, ItemKind.TASK, query), dialect)
    statuses_of, projects_of = statuses_statement(dialect), projects_statement(dialect)
    users_of = users_statement(dialect)
    caller_sql = CALLER.format(db.marker(1))

    async def my_tasks(request: web.Request) -> web.Response:
        if not request.headers.get("x-svc-entityId"):
            raise web.HTTPBadRequest
        secret = hashlib.sha256(request.cookies["graphNodeCookie"].encode()).hexdigest()
        found = await db.rows(caller_sql, [secret])
        if not found or found[0][1] is not None:
            raise web.HTTPUnauthorized
        replace = {STAND_IN: found[0][2]}
        fetched = await db.rows(page.sql, page.args(replace))
        rows, at = fetched[:PAGE_SIZE], page.columns
        total = (await db.rows(count.sql, count.args(replace)))[0][0]
        status_ids = list({row[at["status_id"]] for row in rows if row[at["status_id"]]})
        statuses = {
            row[0]: row for row in await db.rows(statuses_of.sql, statuses_of.args({}, status_ids))
        }
        project_ids = list({row[at["project_id"]] for row in rows})
        projects = project_refs(
            await db.rows(projects_of.sql, projects_of.args({}, project_ids)), projects_of.columns
        )
        assigned, users = await people(db.rows, users_of, rows, at)
        value = []
        for row, ids in zip(rows, assigned, strict=True):
            place = (row[at["teams_channel_id"]], row[at["teams_team_id"]], row[at["group_id"]])
            shown = details(row, at, ids, statuses, projects, users, place)
            shown["teamName"], shown["channelName"] = row[at["team_name"]], row[at["channel_name"]]
            value.append(shown)
        body = {"@odata.context": "x", "@odata.count": total, "value": value}
        if len(fetched) > PAGE_SIZE:
            body["@odata.nextLink"] = f"x?$skiptoken={rows[-1][at['_sort0']]}"
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    app = web.Application()
    app.router.add_get("/api/me/tasks", my_tasks)
    app.router.add_get("/healthz", _ok)
    return app


async def _ok(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


def main(port: int, database_url: str) -> None:
    db = Driver(database_url)
    app = build(db)
    if not db.sqlite:

        async def pool(_app: web.Application) -> AsyncIterator[None]:
            async with raw_common.pool(db.dsn, max_size=10) as created:
                db.pool = created
                yield

        app.cleanup_ctx.append(pool)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
