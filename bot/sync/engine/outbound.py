"""An item's changes here, as the source takes them: its fields in the source's terms, through
the mappings the other way, and only those changed since the last sync."""

from datetime import datetime
from typing import Any

from sqlalchemy import select

from bot.db.statements import Row
from bot.db.tables import ItemAssignee
from bot.db.uow import UnitOfWork
from bot.schemas import ItemKind
from bot.sync.engine.context import ProjectContext
from bot.sync.source import SourceChange, SourceFields
from bot.sync_records.outbox import FIELDS


async def change_of(uow: UnitOfWork, ctx: ProjectContext, item: Row, record: Row) -> SourceChange:
    """The item's fields for the source; `changed` the dirty ones (every field on a create)."""
    kind = ItemKind(item.kind)
    statuses = ctx.mapped(kind, "status")
    priorities = ctx.mapped(kind, "priority")
    severities = ctx.mapped(kind, "severity")
    priority_id = _id_of(priorities.names, item.priority)
    severity_id = _id_of(severities.names, item.severity)
    people = await uow.values(
        select(ItemAssignee.user_id)
        .where(ItemAssignee.item_id == item.id)
        .order_by(ItemAssignee.position)
    )
    assignees = tuple(
        person for person in (ctx.people.person(user) for user in people) if person is not None
    )
    fields = SourceFields(
        title=item.name,
        body=item.body or "",
        state=statuses.outward.get(item.status_id or ""),
        priority=priorities.outward.get(priority_id or ""),
        severity=severities.outward.get(severity_id or "") if kind is ItemKind.BUG else None,
        assignees=assignees,
        start_date=_day(item.start_date),
        due_date=_day(item.due_date),
        present=frozenset(FIELDS.values()),
    )
    if record.source_item_id is None:
        changed = frozenset(FIELDS.values())
    else:
        changed = frozenset(record.dirty)
    # A value with no mapping stays here: sending it would clear the source's.
    changed -= {name for name in ("state", "priority", "severity") if getattr(fields, name) is None}
    reaching = frozenset(state for state, v in statuses.inward.items() if v == item.status_id)
    return SourceChange(
        item_type=ctx.types[kind],
        fields=fields,
        changed=changed,
        version=record.version,
        states=reaching,
    )


def _id_of(names: dict[str, str], name: str | None) -> str | None:
    return next((value_id for value_id, n in names.items() if n == name), None)


def _day(moment: datetime | None) -> Any:
    return moment.date() if moment else None
