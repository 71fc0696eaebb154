"""Raw-driver ceiling of GET /api/bugs/{id}/messages?$top=50: the same reads with sqlite3 or
asyncpg, the same JSON encoded.

The caller-in-channel look-up is written out as the app runs it, the item-and-thread look-up
with the count mirrors `bot.discussions.service`, and the page statement is the app's own
(`bot.odata.query` over the messages table), compiled once at start-up. sqlite3 is called
directly, on the event loop: no thread hop.
"""

import hashlib
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from aiohttp import web
from sqlalchemy import select
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect

from bench import raw_common
from bench.raw_common import CALLER_IN_CHANNEL, Compiled, Driver
from bot.discussions.queries import MESSAGE_OPTIONS, MESSAGES, list_query
from bot.discussions.service import MESSAGES as TABLE
from bot.odata.query import apply
from bot.timestamps import format_timestamp

STAND_IN = "i" * 24
PAGE_SIZE = 50
ITEM = """
SELECT th.conversation_id, th.root_message_id, ch.name, t.name,
  (SELECT count(*) FROM discussion_messages m WHERE m.item_id = {0})
FROM items i JOIN channels ch ON ch.id = i.channel_id JOIN teams t ON t.id = ch.team_id
LEFT JOIN item_threads th ON th.item_id = i.id
WHERE i.id = {0} AND i.channel_id = {1} AND i.kind = 'bug'"""
PLACE = "SELECT t.tenant_id, t.group_id FROM teams t WHERE t.teams_id = {0}"
LINK = "https://teams.microsoft.com/l/message"
CARD = "application/vnd.microsoft.teams.card.o365connector"


def build(db: Driver) -> web.Application:
    dialect = db.sqlite and sqlite_dialect() or PGDialect_asyncpg()
    query = list_query({"$top": str(PAGE_SIZE)}, MESSAGES, MESSAGE_OPTIONS)
    statement = select(TABLE).where(TABLE.c.item_id == STAND_IN)
    page = Compiled(apply(statement, query), dialect)
    caller_sql = CALLER_IN_CHANNEL.format(db.marker(1), db.marker(2), db.marker(3))
    item_sql, place_sql = ITEM.format(db.marker(1), db.marker(2)), PLACE.format(db.marker(1))

    async def messages(request: web.Request) -> web.Response:
        team, channel = request.headers["x-svc-teamid"], request.headers["x-svc-channelId"]
        secret = hashlib.sha256(request.cookies["graphNodeCookie"].encode()).hexdigest()
        # sqlite3 binds `?` in the order they appear: the hash comes last in the text.
        caller_args = [team, channel, secret] if db.sqlite else [secret, team, channel]
        found = await db.rows(caller_sql, caller_args)
        if not found or found[0][2] is None or found[0][3] is None:
            raise web.HTTPForbidden
        item_id = request.match_info["id"]
        item_args = [item_id, item_id] if db.sqlite else [item_id]
        [thread] = await db.rows(item_sql, [*item_args, found[0][3]])
        [place] = await db.rows(place_sql, [team])
        _, root, channel_name, team_name, total = thread
        replace = {STAND_IN: item_id}
        rows = (await db.rows(page.sql, page.args(replace)))[:PAGE_SIZE]
        link = {
            "tenantId": place[0] or "",
            "groupId": place[1] or "",
            "parentMessageId": root,
            "teamName": team_name,
            "channelName": channel_name,
        }
        shown = [
            _message(row, page.columns, team, channel, urlencode(link, quote_via=quote))
            for row in rows
        ]
        body = {"@odata.context": "x", "@odata.count": total, "value": shown}
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    app = web.Application()
    app.router.add_get("/api/bugs/{id}/messages", messages)
    app.router.add_get("/healthz", _ok)
    return app


def _message(row: Any, at: dict[str, int], team: str, channel: str, query: str) -> dict[str, Any]:
    message_id = row[at["message_id"]]
    author = {"id": row[at["author_id"]], "displayName": row[at["author_name"]]}
    who: dict[str, Any] = {"application": None, "device": None, "conversation": None, "user": None}
    if row[at["author_kind"]] == "application":
        who["application"] = {**author, "applicationIdentityType": "bot"}
    else:
        who["user"] = {**author, "userIdentityType": "aadUser"}
    # A JSON column holds JSON's null for "no card", as SQLAlchemy writes None.
    stored = row[at["card"]]
    card = orjson.loads(stored) if stored is not None else None
    attachments = []
    if card is not None:
        text = orjson.dumps(card).decode()
        attachments = [
            {
                "id": message_id,
                "contentType": CARD,
                "contentUrl": None,
                "content": text,
                "name": None,
                "thumbnailUrl": None,
            }
        ]
    mentions = row[at["mentions"]]
    modified = row[at["modified_at"]]
    return {
        "id": message_id,
        "etag": _etag(modified),
        "replyToId": row[at["reply_to_id"]],
        "messageType": "message",
        "createdDateTime": _text(row[at["created_at"]]),
        "lastModifiedDateTime": _text(modified),
        "lastEditedDateTime": _text(row[at["edited_at"]]),
        "deletedDateTime": _text(row[at["deleted_at"]]),
        "subject": None,
        "summary": None,
        "chatId": None,
        "importance": "normal",
        "locale": "en-us",
        "webUrl": f"{LINK}/{quote(channel, safe=':@')}/{quote(message_id, safe='')}?{query}",
        "policyViolation": None,
        "from": who,
        "body": {"contentType": "html", "content": row[at["body"]]},
        "channelIdentity": {"teamId": team, "channelId": channel},
        "attachments": attachments,
        "mentions": orjson.loads(mentions) if isinstance(mentions, str) else mentions,
        "reactions": [],
    }


def _etag(value: Any) -> str:
    """The last change in milliseconds: sqlite3 gives the stored text, asyncpg a datetime."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value).replace(tzinfo=UTC)
    return str(int(value.timestamp() * 1000))


def _text(value: Any) -> str | None:
    """The API's text of a timestamp: SQLite's stored text reshaped, or asyncpg's datetime."""
    if value is None or isinstance(value, str):
        return raw_common.timestamp(value)
    return format_timestamp(value)


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
