"""Reading items in the details shape: one statement for the items, one for the people in them."""

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, Select, select

from bot.db.tables import Channel, FieldValue, Item, ItemAssignee, Project, Team, User
from bot.directory.service import user_out
from bot.errors import NotFound
from bot.ids import is_id
from bot.items.schemas import (
    Avatar,
    BugDetails,
    CreatedBy,
    Links,
    StatusRef,
    Sync,
    TaskDetails,
    UpdatedBy,
)
from bot.odata.query import Query, apply, count_statement, page
from bot.projects.service import project_ref
from bot.schemas import ItemKind
from bot.uow import UnitOfWork

Details = TaskDetails | BugDetails
# Item, status category, status value, project, Teams channel id, Teams team id, group id.
DetailsRows = Select[Item, str | None, int, Project, str, str, str | None]


def details_statement(channel_id: str, kind: ItemKind) -> DetailsRows:
    """Items of one channel and kind with their status, project, channel and team."""
    return (
        select(
            Item,
            FieldValue.category.label("status_category"),
            FieldValue.value.label("status_value"),
            Project,
            Channel.teams_id.label("teams_channel_id"),
            Team.teams_id.label("teams_team_id"),
            Team.group_id,
        )
        # Outer joins on primary keys: the databases drop them where nothing is read from them,
        # so counting the filtered items never touches these tables.
        .outerjoin(FieldValue, FieldValue.id == Item.status_id)
        .outerjoin(Project, Project.id == Item.project_id)
        .outerjoin(Channel, Channel.id == Item.channel_id)
        .outerjoin(Team, Team.id == Channel.team_id)
        .where(Item.channel_id == channel_id, Item.kind == kind.value)
    )


async def get_details(uow: UnitOfWork, *, kind: ItemKind, item_id: str) -> Details:
    """One item of the request's channel, or a 404 (never another channel's data)."""
    assert uow.channel is not None
    if not is_id(item_id):
        raise NotFound(f"{kind.type_label} '{item_id}' not found.")
    statement = details_statement(uow.channel.channel_id, kind).where(Item.id == item_id)
    rows = (await uow.session.execute(statement)).all()
    if not rows:
        raise NotFound(f"{kind.type_label} '{item_id}' not found.")
    return (await render(uow, kind, rows))[0]


async def list_items(
    uow: UnitOfWork, *, kind: ItemKind, query: Query
) -> tuple[list[Details], int | None, bool]:
    """A page of the channel's items, the exact count if asked, and whether more follow."""
    assert uow.channel is not None
    statement = details_statement(uow.channel.channel_id, kind)
    rows, more = page((await uow.session.execute(apply(statement, query))).all(), query)
    count = await uow.session.scalar(count_statement(statement, query)) if query.count else None
    return await render(uow, kind, rows), count, more


async def render(
    uow: UnitOfWork, kind: ItemKind, rows: Sequence[Row[*tuple[Any, ...]]]
) -> list[Details]:
    """The details of already selected rows, people loaded in two more statements."""
    item_ids = [row.Item.id for row in rows]
    assigned: dict[str, list[str]] = defaultdict(list)
    if item_ids:
        links = await uow.session.execute(
            select(ItemAssignee.item_id, ItemAssignee.user_id)
            .where(ItemAssignee.item_id.in_(item_ids))
            .order_by(ItemAssignee.item_id, ItemAssignee.position)
        )
        for item_id, user_id in links:
            assigned[item_id].append(user_id)
    people = {user for ids in assigned.values() for user in ids}
    people |= {u for row in rows for u in (row.Item.created_by, row.Item.updated_by) if u}
    users = {}
    if people:
        users = {
            u.id: u for u in await uow.session.scalars(select(User).where(User.id.in_(people)))
        }
    model = BugDetails if kind is ItemKind.BUG else TaskDetails
    return [model(**_fields(row, users, assigned[row.Item.id], kind)) for row in rows]


def _fields(
    row: Row[*tuple[Any, ...]], users: dict[str, User], assignees: list[str], kind: ItemKind
) -> dict[str, Any]:
    item: Item = row.Item
    fields = {
        **common_fields(item),
        "status_id": StatusRef(id=item.status_id, category=row.status_category),
        "status_value": row.status_value,
        "sync": Sync(status=item.sync_status, at=item.sync_at),
        "project_id": project_ref(row.Project),
        "assigned_to": [user_out(users[user_id]) for user_id in assignees],
        "channel_id": row.teams_channel_id,
        "team_id": row.teams_team_id,
        "group_id": row.group_id,
        "entity_id": item.entity_id,
        "created_by": _created_by(users.get(item.created_by or "")),
        "updated_by": _updated_by(users.get(item.updated_by or "")),
    }
    if kind is ItemKind.BUG:
        fields["severity"] = item.severity
    return fields


def common_fields(item: Item) -> dict[str, Any]:
    """What the created and the details shapes share, by field name."""
    return {
        "id": item.id,
        "internal_id": item.internal_id,
        "name": item.name,
        "body": item.body,
        "owner": item.owner,
        "status": item.status,
        "priority": item.priority,
        "source": item.source,
        "source_id": item.source_id,
        "start_date": item.start_date,
        "due_date": item.due_date,
        "completed_date": item.completed_date,
        "effort": item.effort,
        "phase": item.phase,
        "phase_name": item.phase_name,
        "bucket": item.bucket,
        "bucket_name": item.bucket_name,
        "attachments": [],
        "created_at": item.created_at,
        "updated_at": item.updated_at,
    }


def _created_by(user: User | None) -> CreatedBy | None:
    if user is None:
        return None
    return CreatedBy(
        source=user.source,
        email=user.email or user.username,
        name=user.display_name,
        source_id=user.source_id,
    )


def _updated_by(user: User | None) -> UpdatedBy | None:
    if user is None:
        return None
    return UpdatedBy(
        display_name=user.display_name,
        url="",
        links=Links(avatar=Avatar(href="")),
        id=user.source_id,
        unique_name=user.username,
        image_url="",
        descriptor="",
    )
