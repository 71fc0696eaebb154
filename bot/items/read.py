"""Reading items in the details shape: the items alone, then what they refer to, in a few lookups.

The rows are rendered straight to JSON-ready dicts (the shape `schemas.TaskDetails` and
`BugDetails` document): lists render up to 1,000 of them, and building models only to dump them
again would double the cost.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import BindParameter, ColumnElement, Select, bindparam, select

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared
from bot.db.tables import FieldValue, Item, Project, User
from bot.db.types import UTCDateTime, timestamp_text
from bot.db.uow import ChannelScope, UnitOfWork
from bot.directory.schemas import UserOut
from bot.errors import ItemNotFound
from bot.fields.catalog import STATUS
from bot.files import service as files
from bot.files.links import DownloadLinks
from bot.ids import is_id
from bot.items import value_sorts, versions
from bot.items.assignees import assignee_ids
from bot.items.queries import place_values
from bot.odata.plans import ListStatements, counted
from bot.odata.query import Query, page
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind
from bot.sync_records import item_sync

ITEM = Item.__table__.c
FIELD_VALUE = FieldValue.__table__.c
PROJECT = Project.__table__.c
USER = User.__table__.c
Details = dict[str, Any]


# The item columns as details show them: timestamps come back as the API's text, and the
# assignees' ids come along.
SHOWN_ITEM_COLUMNS = (
    *(
        timestamp_text(column).label(column.name)
        if isinstance(column.type, UTCDateTime)
        else column
        for column in ITEM
    ),
    assignee_ids(ITEM.id).label("assignee_ids"),
)


def items_statement(channel_id: str | BindParameter[str], kind: ItemKind) -> Select[Any]:
    """The item columns of one channel (or the channel `channel_id` names by parameter) and
    kind; nothing joined, so counts stay on one index."""
    return select(*SHOWN_ITEM_COLUMNS).where(ITEM.channel_id == channel_id, ITEM.kind == kind.value)


async def get_details(
    uow: UnitOfWork, *, kind: ItemKind, item_id: str, links: DownloadLinks | None = None
) -> Details:
    """One item of the request's channel, or a 404 (never another channel's data); with
    `links`, its attachments too (cards, which show none, leave them out)."""
    scope = _scope(uow)
    row = None
    if is_id(item_id):
        statement = items_statement(scope.channel_id, kind).where(ITEM.id == item_id)
        row = await uow.row(statement)
    if row is None:
        raise ItemNotFound(kind.type_label, item_id)
    details = (await render(uow, kind, [row]))[0]
    if links is not None:
        details["attachments"] = await files.item_attachments(uow, item_id=item_id, links=links)
    return details


@dataclass(frozen=True)
class Page:
    rows: list[Details]
    count: int | None
    # The last row as read, sort values included, when more rows follow: the next link's key.
    last_read: Mapping[str, Any] | None


# The channel lists' page and count statements, prepared once per kind and shape: the channel
# is a parameter (`_CHANNEL`), bound per request.
_STATEMENTS = ListStatements()
_BY_VALUE = value_sorts.ValueSortedPages()
_CHANNEL = "channel_id"


async def list_items(uow: UnitOfWork, *, kind: ItemKind, query: Query) -> Page:
    """A page of the channel's items, the exact count if asked, and where the next page starts."""
    scope = _scope(uow)
    channel_id = scope.channel_id
    cache = uow.cache
    here = {_CHANNEL: channel_id, **place_values(scope)}

    def rows() -> Select[Any]:
        return items_statement(bindparam(_CHANNEL), kind)

    def version() -> tuple[ColumnElement[int], ...]:
        if cache is None:
            return ()
        return (versions.version_column(channel_id=bindparam(_CHANNEL), kind=kind),)

    field = value_sorts.sorted_field(query)
    if field is None:
        statement, values = _STATEMENTS.page((kind, cache is None), query, rows, version)
        fetched = await uow.rows(statement, {**values, **here})
    else:
        fetched = await _BY_VALUE.rows(
            uow, kind=kind, field=field, query=query, rows=rows, extra=version, here=here
        )
    # The version is read with the page, in the same snapshot, and before any count: nothing
    # cached under it is older than it says. An empty page caches nothing.
    seen = fetched[0][versions.VERSION] if cache and fetched else None
    page_rows, more = page(fetched, query)
    count = None
    if query.count:
        key = versions.count_key(query, channel_id=channel_id, kind=kind)
        count = cache.get(key, seen) if cache and key and seen is not None else None
        if count is None:
            counting = _STATEMENTS.count(kind, query, counted(rows, query))
            count = await uow.value(counting, here) or 0
            if cache and key and seen is not None:
                cache.put(key, seen, count)
    details = await render(uow, kind, page_rows, version=seen)
    return Page(details, count, page_rows[-1] if more else None)


# Items by id, newest first as a list's default order shows them; the channel by parameter.
_BY_IDS = {
    kind: Prepared(
        items_statement(bindparam(_CHANNEL), kind)
        .where(one_of_named(ITEM.id, "ids"))
        .order_by(ITEM.created_at.desc(), ITEM.id.desc())
    )
    for kind in ItemKind
}


async def get_many(uow: UnitOfWork, *, kind: ItemKind, item_ids: Sequence[str]) -> list[Details]:
    """The items of the request's channel among `item_ids`, newest first; an id of another
    channel's item, or of none, is left out."""
    if not item_ids:
        return []
    values = {_CHANNEL: _scope(uow).channel_id, "ids": list(item_ids)}
    return await render(uow, kind, await uow.rows(_BY_IDS[kind], values))


async def render(
    uow: UnitOfWork,
    kind: ItemKind,
    rows: Sequence[Mapping[str, Any]],
    *,
    version: int | None = None,
) -> list[Details]:
    """The details of item rows of the request's channel: statuses, projects and people looked
    up once for all of them (statuses and projects from the list cache while `version`, read
    first, holds)."""
    if not rows:
        return []
    scope = _scope(uow)
    key = versions.references_key(channel_id=scope.channel_id, kind=kind)
    cached = uow.cache.get(key, version) if uow.cache and version is not None else None
    statuses, projects = cached or await _references(uow, kind, scope)
    if uow.cache and version is not None and cached is None:
        uow.cache.put(key, version, (statuses, projects))
    place = Place(scope.teams_channel_id, scope.teams_team_id, scope.group_id)
    return await _render(uow, kind, rows, statuses, projects, lambda _row: place)


async def render_across_channels(
    uow: UnitOfWork, kind: ItemKind, rows: Sequence[Mapping[str, Any]]
) -> list[Details]:
    """The details of item rows of several channels (the personal views): each row carries its
    channel's Teams ids as `teams_channel_id`, `teams_team_id` and `group_id`; the statuses and
    projects the rows name are looked up by id."""
    if not rows:
        return []
    status_ids = list({row["status_id"] for row in rows if row["status_id"]})
    statuses = _by_id(await uow.rows(_STATUSES_BY_ID, {"ids": status_ids}))
    project_ids = list({row["project_id"] for row in rows})
    project_rows = await uow.rows(_PROJECTS_BY_ID, {"ids": project_ids})
    projects = {project["id"]: project_ref(project) for project in project_rows}
    return await _render(uow, kind, rows, statuses, projects, _own_place)


class Place(NamedTuple):
    """Where an item lives, as its details show it (Teams' own ids)."""

    channel_id: str
    team_id: str
    group_id: str | None


def _own_place(row: Mapping[str, Any]) -> Place:
    return Place(row["teams_channel_id"], row["teams_team_id"], row["group_id"])


async def _render(
    uow: UnitOfWork,
    kind: ItemKind,
    rows: Sequence[Mapping[str, Any]],
    statuses: Mapping[str, Any],
    projects: Mapping[str, dict[str, Any]],
    place_of: Callable[[Mapping[str, Any]], Place],
) -> list[Details]:
    users = await _people(uow, rows)
    # Each user's and status's shapes built once for the page, not once per row that names
    # them: a page's rows share a few people and statuses.
    shown = _Shown(
        assignees={user_id: _shown_user(user) for user_id, user in users.items()},
        creators={user_id: _created_by(user) for user_id, user in users.items()},
        editors={user_id: _updated_by(user) for user_id, user in users.items()},
        statuses={},
    )
    details = [_details(row, kind, place_of(row), statuses, projects, shown) for row in rows]
    # Synced items' sync problems (the source's refusal, people unmatched): one read a page.
    synced = [row["id"] for row in rows if row["source"] != SourceKind.NATIVE]
    said = await item_sync.problems(uow, synced) if synced else {}
    for shown_item, row in zip(details, rows, strict=True):
        if row["id"] in said:
            shown_item["sync"].update(said[row["id"]])
    return details


@dataclass(frozen=True, slots=True)
class _Shown:
    """The shapes a page's details embed, by user or status id."""

    assignees: dict[str, dict[str, Any]]
    creators: dict[str, dict[str, Any]]
    editors: dict[str, dict[str, Any]]
    statuses: dict[str | None, tuple[dict[str, Any], str | None]]


async def _references(
    uow: UnitOfWork, kind: ItemKind, scope: ChannelScope
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The channel's statuses of this kind and its projects, as item details embed them."""
    statuses = _by_id(
        await uow.rows(
            _statuses().where(
                FIELD_VALUE.channel_id == scope.channel_id,
                FIELD_VALUE.field == STATUS,
                FIELD_VALUE.type == kind.type_label,
            ),
        )
    )
    project_rows = await uow.rows(_projects().where(PROJECT.channel_id == scope.channel_id))
    return statuses, {project["id"]: project_ref(project) for project in project_rows}


def _statuses() -> Select[Any]:
    return select(FIELD_VALUE.id, FIELD_VALUE.category, FIELD_VALUE.value)


def _projects() -> Select[Any]:
    return select(*PROJECT)


_STATUSES_BY_ID = Prepared(_statuses().where(one_of_named(FIELD_VALUE.id, "ids")))
_PROJECTS_BY_ID = Prepared(_projects().where(one_of_named(PROJECT.id, "ids")))


def _by_id(rows: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {row["id"]: row for row in rows}


def common_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """What the created and the details shapes share, under the API's names (the row's
    timestamps already the API's text: SHOWN_ITEM_COLUMNS reads them so)."""
    return {
        "_id": row["id"],
        "internalId": row["internal_id"],
        "name": row["name"],
        "body": row["body"],
        "owner": row["owner"],
        "status": row["status"],
        "priority": row["priority"],
        "source": row["source"],
        "sourceId": row["source_id"],
        "startDate": row["start_date"],
        "dueDate": row["due_date"],
        "completedDate": row["completed_date"],
        "effort": row["effort"],
        "phase": row["phase"],
        "phaseName": row["phase_name"],
        "bucket": row["bucket"],
        "bucketName": row["bucket_name"],
        "attachments": [],
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
    }


def project_ref(project: Mapping[str, Any]) -> dict[str, Any]:
    """The project object embedded in an item (its `projectId`)."""
    return {
        "enableBug": project["enable_bug"],
        "_id": project["id"],
        "displayName": project["display_name"],
        "hostname": project["hostname"],
        "projectName": project["project_name"],
        "sourceId": project["source_id"],
    }


def _details(
    row: Mapping[str, Any],
    kind: ItemKind,
    place: Place,
    statuses: Mapping[str, Any],
    projects: Mapping[str, dict[str, Any]],
    shown: _Shown,
) -> Details:
    status_id = row["status_id"]
    status = shown.statuses.get(status_id)
    if status is None:
        found = statuses.get(status_id or "")
        category, value = (found["category"], found["value"]) if found else (None, None)
        status = shown.statuses[status_id] = ({"_id": status_id, "category": category}, value)
    details = common_fields(row)
    details.update(
        {
            "statusId": status[0],
            "statusValue": status[1],
            "sync": {"status": row["sync_status"], "at": row["sync_at"]},
            "projectId": projects[row["project_id"]],
            "assignedTo": [shown.assignees[user_id] for user_id in row["assignee_ids"]],
            "channelId": place.channel_id,
            "teamId": place.team_id,
            "groupId": place.group_id,
            "entityId": row["entity_id"],
            "createdBy": shown.creators.get(row["created_by"] or ""),
            "updatedBy": shown.editors.get(row["updated_by"] or ""),
        }
    )
    if kind is ItemKind.BUG:
        details["severity"] = row["severity"]
    return details


async def _people(
    uow: UnitOfWork, rows: Sequence[Mapping[str, Any]]
) -> dict[str, Mapping[str, Any]]:
    """Every user the rows name (assignees, creator, last editor), in one statement."""
    wanted = {user for row in rows for user in row["assignee_ids"]}
    wanted |= {row[key] for row in rows for key in ("created_by", "updated_by") if row[key]}
    if not wanted:
        return {}
    return _by_id(await uow.rows(_USERS, {"ids": list(wanted)}))


_USERS = Prepared(select(*USER).where(one_of_named(USER.id, "ids")))


# The API's User shape, from the directory's one definition of it (`UserOut`: its fields are the
# users table's columns), filled without validation: the row is the database's own.
_USER_FIELDS = tuple((field.alias or name, name) for name, field in UserOut.model_fields.items())


def _shown_user(user: Mapping[str, Any]) -> dict[str, Any]:
    return {alias: user[name] for alias, name in _USER_FIELDS}


def _created_by(user: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "source": user["source"],
        "email": user["email"] or user["username"],
        "name": user["display_name"],
        "sourceId": user["source_id"],
    }


def _updated_by(user: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "displayName": user["display_name"],
        "url": "",
        "_links": {"avatar": {"href": ""}},
        "id": user["source_id"],
        "uniqueName": user["username"],
        "imageUrl": "",
        "descriptor": "",
    }


def _scope(uow: UnitOfWork) -> ChannelScope:
    assert uow.channel is not None, "items are read in a channel"
    return uow.channel
