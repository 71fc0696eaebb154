"""`admin export`: one channel as a JSON document that `admin import` reads back.

Each section holds what the API's own GET of it answers (the same renderers), without the
`@odata` annotations: `statuses`, `priorities`, `severities`, `projects` (credentials never:
only `hasCredentials`), `mappings`, `eventDefinitions` (never their signing secrets, and an
HTTP action's headers by name only: each header's `value` is written as null, since headers
carry tokens and API keys), then `bugs` and `tasks` in the details shape, with `assignedTo` as
the assignees' UPNs, `attachments` as metadata (no download links: they are signed, and
short-lived), and `messages`, the item's discussion as its messages route shows them.

Items are read a page at a time, and written out as they come: the file grows, memory does not.
The reads run outside any transaction, so the app's writers never wait for an export; each page
is as of its own read."""

import argparse
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

from bot.cli.commands import work
from bot.db.uow import UnitOfWork
from bot.directory.teams import describe_channel, named_channel
from bot.discussions import pages, shapes
from bot.discussions.service import Place
from bot.errors import Conflict
from bot.events import service as events
from bot.events.api import definition_out
from bot.events.definitions.queries import DEFINITIONS
from bot.fields import levels
from bot.fields import service as fields
from bot.fields.api import status_out
from bot.fields.levels_api import level_out
from bot.fields.queries import PRIORITIES, SEVERITIES, STATUSES
from bot.files import service as files
from bot.items import read
from bot.items.queries import entity_set
from bot.mappings import service as mappings
from bot.mappings.api import mapping_out
from bot.mappings.queries import MAPPINGS
from bot.odata import keyset
from bot.odata.model import EntitySet
from bot.odata.query import MAX_TOP, Query, parse_query, with_cursor
from bot.projects import service as projects
from bot.projects.queries import PROJECTS
from bot.schemas import ItemKind
from bot.settings import Settings
from bot.timestamps import format_timestamp

FORMAT, VERSION = "teams-tracker-export", 1


async def export_channel(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    out: Path = args.out
    if out.exists():
        raise Conflict(f"{out} exists already: name a new file.")
    base = settings.public_url
    part = out.with_name(out.name + ".part")
    counts: dict[str, int] = {}
    async with work(settings, write=False) as uow:
        uow.channel = scope = await named_channel(
            uow, team_id=args.team_id, channel_id=args.channel_id
        )
        team, channel = await describe_channel(uow, scope=scope)
        place = Place(
            scope.tenant_id,
            scope.group_id,
            scope.teams_team_id,
            team.name,
            scope.teams_channel_id,
            channel.name,
        )
        sections: list[tuple[str, Callable[[], AsyncIterator[dict[str, Any]]]]] = [
            ("statuses", lambda: _values(uow, fields.list_statuses, STATUSES, base)),
            ("priorities", lambda: _levels(uow, levels.PRIORITY_SCALE, PRIORITIES, base)),
            ("severities", lambda: _levels(uow, levels.SEVERITY_SCALE, SEVERITIES, base)),
            ("projects", lambda: _projects(uow)),
            ("mappings", lambda: _mappings(uow, base)),
            ("eventDefinitions", lambda: _definitions(uow, base)),
            ("bugs", lambda: _items(uow, ItemKind.BUG, place)),
            ("tasks", lambda: _items(uow, ItemKind.TASK, place)),
        ]
        with part.open("wb") as written:
            head = {
                "format": FORMAT,
                "version": VERSION,
                "exportedAt": format_timestamp(datetime.now(UTC)),
                "team": team.model_dump(mode="json"),
                "channel": channel.model_dump(mode="json"),
            }
            written.write(orjson.dumps(head)[:-1])  # the object left open for the sections
            for name, rows in sections:
                counts[name] = await _section(written, name, rows())
            written.write(b"}\n")
    os.replace(part, out)
    return {"export": str(out), **counts}


async def _section(written: IO[bytes], name: str, rows: AsyncIterator[dict[str, Any]]) -> int:
    """`,"name":[…]`, one element a line, as the rows come."""
    written.write(b',\n"' + name.encode() + b'":[')
    count = 0
    async for row in rows:
        written.write((b"\n" if count == 0 else b",\n") + orjson.dumps(row))
        count += 1
    written.write(b"]")
    return count


def _plain(shape: dict[str, Any]) -> dict[str, Any]:
    """An API shape without its `@odata` annotations, which name this server's URLs."""
    return {key: value for key, value in shape.items() if not key.startswith("@odata.")}


ListPage = Callable[..., Awaitable[tuple[Sequence[Any], int | None, bool]]]


async def _pages(list_page: ListPage, entity: EntitySet, **kwargs: Any) -> AsyncIterator[Any]:
    """Every row a list service gives, a page of MAX_TOP at a time."""
    skip = 0
    while True:
        query = parse_query({"$top": str(MAX_TOP), "$skip": str(skip)}, entity)
        rows, _count, more = await list_page(query=query, **kwargs)
        for row in rows:
            yield row
        if not more:
            return
        skip += MAX_TOP


async def _values(
    uow: UnitOfWork, list_page: ListPage, entity: EntitySet, base: str
) -> AsyncIterator[dict[str, Any]]:
    async for status in _pages(list_page, entity, uow=uow):
        yield _plain(status_out(status, base).model_dump(mode="json"))


async def _levels(
    uow: UnitOfWork, scale: levels.Scale, entity: EntitySet, base: str
) -> AsyncIterator[dict[str, Any]]:
    async for level in _pages(levels.list_levels, entity, uow=uow, scale=scale):
        yield _plain(level_out(level, entity, base).model_dump(mode="json"))


async def _projects(uow: UnitOfWork) -> AsyncIterator[dict[str, Any]]:
    async for project in _pages(projects.list_projects, PROJECTS, uow=uow):
        yield projects.project_out(project).model_dump(mode="json")


async def _mappings(uow: UnitOfWork, base: str) -> AsyncIterator[dict[str, Any]]:
    async for view in _pages(mappings.list_mappings, MAPPINGS, uow=uow):
        yield _plain(mapping_out(view, base).model_dump(mode="json"))


async def _definitions(uow: UnitOfWork, base: str) -> AsyncIterator[dict[str, Any]]:
    assert uow.channel is not None
    async for definition in _pages(events.list_definitions, DEFINITIONS, uow=uow):
        yield _without_header_values(_plain(definition_out(definition, uow.channel, base)))


def _without_header_values(rule: dict[str, Any]) -> dict[str, Any]:
    """An HTTP rule's headers by name, each `value` null: a header's value is a credential
    (`Authorization: Bearer …`, an API key) as often as not, and an export holds none."""
    action = rule.get("action")
    if isinstance(action, dict) and action.get("headers"):
        headers = [{"name": header["name"], "value": None} for header in action["headers"]]
        rule["action"] = {**action, "headers": headers}
    return rule


async def _items(uow: UnitOfWork, kind: ItemKind, place: Place) -> AsyncIterator[dict[str, Any]]:
    """The channel's items of one kind by number, a page at a time (keyset), each with its
    attachments' metadata and its discussion."""
    query: Query | None = parse_query(
        {"$orderby": "internalId", "$top": str(MAX_TOP)}, entity_set(kind)
    )
    while query is not None:
        found = await read.list_items(uow, kind=kind, query=query)
        ids = [details["_id"] for details in found.rows]
        attached = await files.attachments_of(uow, item_ids=ids)
        discussed = await pages.messages_of(uow, item_ids=ids)
        for details in found.rows:
            item_id = details["_id"]
            details["assignedTo"] = [user["username"] for user in details["assignedTo"]]
            details["attachments"] = [_attachment(row) for row in attached.get(item_id, [])]
            details["messages"] = _messages(discussed.get(item_id, []), place)
            yield details
        query = _next(query, found.last_read)


def _next(query: Query, last_read: Any) -> Query | None:
    if last_read is None:
        return None
    if "_sort0" in last_read:
        return with_cursor(query, keyset.encode(query.order, last_read))
    return replace(query, skip=query.skip + query.top)


def _attachment(row: Any) -> dict[str, Any]:
    return {
        "_id": row["id"],
        "filename": row["filename"],
        "contentType": row["content_type"],
        "size": row["size"],
        "createdBy": row["created_by"],
        "createdAt": format_timestamp(row["created_at"]),
    }


def _messages(rows: list[Any], place: Place) -> list[dict[str, Any]]:
    if not rows:
        return []
    root = next((row["message_id"] for row in rows if row["reply_to_id"] is None), None)
    root_id = root or rows[0]["reply_to_id"]
    return [shapes.message(row, place, root_id=root_id) for row in rows]
