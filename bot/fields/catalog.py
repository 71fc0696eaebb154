"""A channel's field values for one item kind, loaded in one query, for validating item changes."""

import dataclasses
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Table, bindparam, select

from bot.db import driver
from bot.db.tables import FieldValue
from bot.errors import Invalid
from bot.fields.schemas import Category
from bot.schemas import ItemKind
from bot.uow import UnitOfWork

STATUS, PRIORITY, SEVERITY = "status", "priority", "severity"
# Rows on the driver, not ORM objects: every create reads them, and nothing changes them.
_VALUES = driver.Prepared(
    select(*cast(Table, FieldValue.__table__).c).where(
        FieldValue.channel_id == bindparam("channel_id"), FieldValue.type == bindparam("type")
    )
)


def name_key(name: str) -> str:
    """How names compare: without case, Unicode-aware, ignoring outer spaces."""
    return name.strip().casefold()


@dataclass
class FieldValues:
    """The values of one field (status, priority or severity) for one kind: rows with every
    column of `FieldValue`."""

    field: str
    by_key: dict[str, driver.Row] = dataclasses.field(default_factory=dict)
    by_id: dict[str, driver.Row] = dataclasses.field(default_factory=dict)

    @property
    def primary(self) -> driver.Row | None:
        return next((value for value in self.by_id.values() if value.primary), None)

    def named(self, name: str) -> driver.Row:
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


async def load_catalog(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> Catalog:
    catalog = Catalog(FieldValues(STATUS), FieldValues(PRIORITY), FieldValues(SEVERITY))
    groups = {STATUS: catalog.statuses, PRIORITY: catalog.priorities, SEVERITY: catalog.severities}
    rows = await _VALUES.all(uow.reads, {"channel_id": channel_id, "type": kind.type_label})
    for value in rows:
        group = groups[value.field]
        group.by_key[value.name_key] = value
        group.by_id[value.id] = value
    return catalog
