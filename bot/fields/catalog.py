"""A channel's field values for one item kind, loaded in one query, for validating item changes."""

import dataclasses
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Select, Table, bindparam, select

from bot.db.statements import Prepared, Row
from bot.db.tables import FieldValue
from bot.db.uow import UnitOfWork
from bot.errors import Invalid
from bot.fields import catalog_locks
from bot.fields.schemas import Category
from bot.schemas import ItemKind

STATUS, PRIORITY, SEVERITY = "status", "priority", "severity"
# What an item shows, and its sync error, while no mapping gives its status (`bot.mappings.rule`).
INVALID_STATUS = "Invalid"
MAPPING_NOT_FOUND = "Svc_MAPPING_NOTFOUND"

_VALUE = cast(Table, FieldValue.__table__).c
# What validating an item change reads of each value: rows, not ORM objects, since every
# create reads them and nothing changes them.
_CHECKED = Prepared(
    select(
        _VALUE.id, _VALUE.field, _VALUE.name, _VALUE.name_key, _VALUE.category, _VALUE.primary
    ).where(_VALUE.channel_id == bindparam("channel_id"), _VALUE.type == bindparam("type"))
)


def name_key(name: str) -> str:
    """How names compare: without case, Unicode-aware, ignoring outer spaces."""
    return name.strip().casefold()


@dataclass(frozen=True, slots=True)
class CatalogValue:
    """A status, priority or severity as an item write checks it."""

    id: str
    field: str
    name: str
    name_key: str
    category: str | None
    primary: bool


@dataclass
class FieldValues:
    """The values of one field (status, priority or severity) for one kind."""

    field: str
    by_key: dict[str, CatalogValue] = dataclasses.field(default_factory=dict)
    by_id: dict[str, CatalogValue] = dataclasses.field(default_factory=dict)

    @property
    def primary(self) -> CatalogValue | None:
        return next((value for value in self.by_id.values() if value.primary), None)

    def named(self, name: str) -> CatalogValue:
        """The value with this name, or a 400 naming the field and the choices."""
        found = self.by_key.get(name_key(name))
        if found is None:
            choices = ", ".join(sorted(value.name for value in self.by_id.values()))
            raise Invalid(
                self.field, f"'{name}' does not exist in this channel (one of: {choices})"
            )
        return found


@dataclass
class Catalog:
    statuses: FieldValues
    priorities: FieldValues
    severities: FieldValues

    def is_done(self, status_id: str | None) -> bool:
        status = self.statuses.by_id.get(status_id or "")
        return status is not None and status.category == Category.DONE


async def load_catalog_to_write(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> Catalog:
    """The catalog an item write checks its names against, held against renames and deletes
    of values until the write commits (`catalog_locks`)."""
    await catalog_locks.share(uow, channel_id=channel_id)
    return await load_catalog(uow, channel_id=channel_id, kind=kind)


async def load_catalog(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> Catalog:
    """The channel's statuses, priorities and severities of one kind."""
    catalog = Catalog(FieldValues(STATUS), FieldValues(PRIORITY), FieldValues(SEVERITY))
    groups = {STATUS: catalog.statuses, PRIORITY: catalog.priorities, SEVERITY: catalog.severities}
    rows = await uow.rows(_CHECKED, {"channel_id": channel_id, "type": kind.type_label})
    for row in rows:
        value = CatalogValue(**row)
        group = groups[value.field]
        group.by_key[value.name_key] = value
        group.by_id[value.id] = value
    return catalog


async def shown_values(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> list[Row]:
    """The channel's statuses, priorities and severities of one kind, whole, for showing."""
    return await uow.rows(_shown(channel_id, kind))


async def load_statuses(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> list[Row]:
    """The kind's statuses alone, whole, for showing them (an item card's choices)."""
    return await uow.rows(_shown(channel_id, kind).where(FieldValue.field == STATUS))


def _shown(channel_id: str, kind: ItemKind) -> Select[FieldValue]:
    return (
        select(FieldValue)
        .where(FieldValue.channel_id == channel_id, FieldValue.type == kind.type_label)
        .order_by(FieldValue.order, FieldValue.id)
    )
