"""The raw-driver ceiling's GET /odata/bugs: what the app runs for the benchmark's list (caller
and channel; the page with its version and assignees, compiled from the app's own query code;
the people it names; the count, statuses and projects only when the version moved), encoded as
the same JSON."""

from typing import Any

import orjson
from aiohttp import web

from bench.items import LIST_QUERY
from bench.raw_common import Compiled, details, people, project_refs, users_statement
from bench.raw_items_shared import PROJECTS, Handler, caller
from bot.items.queries import entity_set
from bot.items.read import items_statement
from bot.items.versions import VERSION, version_column
from bot.odata.query import apply, count_statement, parse_query
from bot.schemas import ItemKind

STATUSES = (
    "SELECT id, category, value FROM field_values "
    "WHERE channel_id = :c AND field = 'status' AND type = 'Bug'"
)
STAND_IN = "c" * 24  # the channel id compiled into the list's statements, replaced per request
# Where the hand-written PROJECTS puts each column.
PROJECT_AT = {
    name: index
    for index, name in enumerate(
        ("id", "enable_bug", "display_name", "hostname", "project_name", "source_id", "source")
    )
}


def _list_statements(dialect: Any) -> tuple[Compiled, Compiled, Compiled]:
    """The page (with its version) and the count of the benchmark's list, and the people look-up,
    as the app builds them."""
    query = parse_query(LIST_QUERY, entity_set(ItemKind.BUG))
    items = items_statement(STAND_IN, ItemKind.BUG)
    version = version_column(channel_id=STAND_IN, kind=ItemKind.BUG)
    page = Compiled(apply(items, query, keyed=True).add_columns(version), dialect)
    return page, Compiled(count_statement(items, query), dialect), users_statement(dialect)


def list_bugs_handler(db: Any) -> Handler:
    """The list's handler, with its statements compiled for the database's driver."""
    counts: dict[str, tuple[int, int]] = {}
    references: dict[str, tuple[int, dict[str, Any], dict[str, Any]]] = {}
    list_page, list_count, list_users = _list_statements(db.dialect)

    async def list_bugs(request: web.Request) -> web.Response:
        _user_id, channel, place = await caller(db, request)
        replace = {STAND_IN: channel}
        fetched = await db.rows(list_page.sql, list_page.args(replace))
        rows, at = fetched[:50], list_page.columns
        version = fetched[0][at[VERSION]]
        cached = counts.get(channel)
        if cached is None or cached[0] != version:
            counts[channel] = (
                version,
                (await db.rows(list_count.sql, list_count.args(replace)))[0][0],
            )
        count = counts[channel][1]
        # Statuses and projects are cached under the version too, as the app caches them.
        if references.get(channel, (None,))[0] != version:
            statuses = {row[0]: row for row in await db.rows(STATUSES, {"c": channel})}
            projects = project_refs(await db.rows(PROJECTS, {"c": channel}), PROJECT_AT)
            references[channel] = (version, statuses, projects)
        _version, statuses, projects = references[channel]
        assigned, users = await people(db.rows, list_users, rows, at)
        value = [
            details(row, at, ids, statuses, projects, users, place)
            for row, ids in zip(rows, assigned, strict=True)
        ]
        body = {"@odata.context": "x", "@odata.count": count, "value": value}
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    return list_bugs
