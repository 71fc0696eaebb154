"""A channel's field values for one item kind, loaded in one query, for validating item changes."""

import dataclasses
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import ColumnElement, Select, Table, bindparam, select

from bot.db import driver
from bot.db.tables import FieldValue
from bot.errors import Invalid
from bot.fields import catalog_locks
from bot.fields.schemas import Category
from bot.schemas import ItemKind
from bot.uow import UnitOfWork

STATUS, PRIORITY, SEVERITY = "status", "priority", "severity"
_VALUE = cast(Table, FieldValue.__table__).c
# What validating an item change reads of each value. Rows on the driver, not ORM objects:
# every create reads them, and nothing changes them.
_CHECKED = (_VALUE.id, _VALUE.field, _VALUE.name, _VALUE.name_key, _VALUE.category, _VALUE.primary)


def _values(*columns: ColumnElement[Any]) -> Select[Any]:
    return select(*columns).where(
        _VALUE.channel_id == bindparam("channel_id"), _VALUE.type == bindparam("type")
    )


_CHECKED_VALUES, _WHOLE_VALUES = (
    driver.Prepared(_values(*_CHECKED)),
    driver.Prepared(_values(*_VALUE)),
)
_WHOLE_STATUSES = driver.Prepared(_values(*_VALUE).where(_VALUE.field == STATUS))


def name_key(name: str) -> str:
    """How names compare: without case, Unicode-aware, ignoring outer spaces."""
    return name.strip().casefold()


@dataclass
class FieldValues:
    """The values of one field (status, priority or severity) for one kind: rows of the
    columns validation reads, or of every column of `FieldValue` when asked."""

    field: str
    by_key: dict[str, driver.Row] = dataclasses.field(default_factory=dict)
    by_id: dict[str, driver.Row] = dataclasses.field(default_factory=dict)

    @property
    def primary(self) -> driver.Row | None:
        return next((value for value in self.by_id.values() if value["primary"]), None)

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


async def load_catalog_to_write(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> Catalog:
    """The catalog an item write checks its names against, held against renames and deletes
    of values until the write commits (`catalog_locks`)."""
    await catalog_locks.share(uow, channel_id=channel_id)
    return await load_catalog(uow, channel_id=channel_id, kind=kind)


async def load_statuses(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> list[driver.Row]:
    """The kind's statuses alone, every column, for showing them (an item card's choices)."""
    return await _WHOLE_STATUSES.all(uow.reads, {"channel_id": channel_id, "type": kind.type_label})


async def load_catalog(
    uow: UnitOfWork, *, channel_id: str, kind: ItemKind, whole: bool = False
) -> Catalog:
    """The catalog; `whole`: its rows hold every column, for showing the values."""
    catalog = Catalog(FieldValues(STATUS), FieldValues(PRIORITY), FieldValues(SEVERITY))
    groups = {STATUS: catalog.statuses, PRIORITY: catalog.priorities, SEVERITY: catalog.severities}
    values = _WHOLE_VALUES if whole else _CHECKED_VALUES
    rows = await values.all(uow.reads, {"channel_id": channel_id, "type": kind.type_label})
    for value in rows:  # by subscript: every create reads a channel's dozen values
        group = groups[value["field"]]
        group.by_key[value["name_key"]] = value
        group.by_id[value["id"]] = value
    return catalog
