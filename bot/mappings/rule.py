"""The mapping rule (docs/api.md), everywhere: an external project's item uses only statuses (for
Azure DevOps, severities too) mapped to a value of its project's source; else it shows `Invalid`."""

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, case, exists, select, update

from bot.db.statements import Prepared
from bot.db.tables import FieldMapping, FieldValue, Item, Project
from bot.db.uow import UnitOfWork
from bot.errors import Invalid
from bot.fields.catalog import INVALID_STATUS, MAPPING_NOT_FOUND, SEVERITY, STATUS, CatalogValue
from bot.mappings.remap import remap
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind


@dataclass(frozen=True)
class ExternalProject:
    name: str
    source: SourceKind


@dataclass(frozen=True)
class Mappings:
    """For one channel and kind: its external projects and the values each has mapped."""

    projects: dict[str, ExternalProject]
    mapped: frozenset[tuple[str, str, str]]  # (project id, field, channel value id), enabled

    def unmapped_field(
        self, *, project_id: str, status_id: str | None, severity_id: str | None = None
    ) -> str | None:
        """`status` or `severity` when that value lacks a mapping for the project, else None."""
        project = self.projects.get(project_id)
        if project is None:  # the native project needs no mapping
            return None
        if status_id is not None and (project_id, STATUS, status_id) not in self.mapped:
            return STATUS
        if (
            project.source.maps_severity
            and severity_id is not None
            and (project_id, SEVERITY, severity_id) not in self.mapped
        ):
            return SEVERITY
        return None

    def refuse_unmapped(
        self, *, project_id: str, status: CatalogValue | None, severity: CatalogValue | None
    ) -> None:
        """The 400 of create and PATCH: it names the value and the project."""
        field = self.unmapped_field(
            project_id=project_id,
            status_id=status.id if status else None,
            severity_id=severity.id if severity else None,
        )
        if field is None:
            return
        value = status if field == STATUS else severity
        assert value is not None
        project = self.projects[project_id]
        raise Invalid(
            field,
            f"'{value.name}' is not mapped to a {field} of project '{project.name}' "
            f"({project.source}); map it first ({MAPPING_NOT_FOUND})",
        )


_PROJECT = cast(Table, Project.__table__).c
_MAPPING = cast(Table, FieldMapping.__table__).c
# Read by every change of an item's status or severity (a bulk edit's too).
_EXTERNAL_PROJECTS = Prepared(
    select(_PROJECT.id, _PROJECT.display_name, _PROJECT.source).where(
        _PROJECT.channel_id == bindparam("channel_id"), _PROJECT.source != SourceKind.NATIVE.value
    )
)
_ENABLED_MAPPINGS = Prepared(
    select(_MAPPING.project_id, _MAPPING.type, _MAPPING.field_id).where(
        _MAPPING.channel_id == bindparam("channel_id"),
        _MAPPING.entity_type == bindparam("entity_type"),
        _MAPPING.enable.is_(True),
    )
)


async def load_mappings(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> Mappings:
    """The channel's external projects and their enabled mappings."""
    projects = {
        row["id"]: ExternalProject(row["display_name"], SourceKind(row["source"]))
        for row in await uow.rows(_EXTERNAL_PROJECTS, {"channel_id": channel_id})
    }
    mapped: frozenset[tuple[str, str, str]] = frozenset()
    if projects:
        values = {"channel_id": channel_id, "entity_type": kind.type_label}
        rows = await uow.rows(_ENABLED_MAPPINGS, values)
        mapped = frozenset((row["project_id"], row["type"], row["field_id"]) for row in rows)
    return Mappings(projects, mapped)


async def refresh_items(uow: UnitOfWork, *, channel_id: str, project_id: str | None = None) -> None:
    """Store each external item's shown status again after mappings changed: its status's name
    when mapped, `Invalid` and `Svc_MAPPING_NOTFOUND` when not. Set-based; only rows that change
    are written, and only then do cached lists of that kind go."""
    now = uow.clock.now()
    for kind in ItemKind:
        await uow.execute(_refresh_statement(channel_id, kind, project_id, now))
    await remap(uow, channel_id=channel_id, project_id=project_id)


def _refresh_statement(channel_id: str, kind: ItemKind, project_id: str | None, now: datetime):  # noqa: ANN202 - an UPDATE statement
    is_mapped = exists().where(
        FieldMapping.project_id == Item.project_id,
        FieldMapping.type == STATUS,
        FieldMapping.entity_type == kind.type_label,
        FieldMapping.field_id == Item.status_id,
        FieldMapping.enable.is_(True),
    )
    status_name = select(FieldValue.name).where(FieldValue.id == Item.status_id).scalar_subquery()
    shown = case((is_mapped, status_name), else_=INVALID_STATUS)
    sync = case((is_mapped, None), else_=MAPPING_NOT_FOUND)
    scope = [
        Item.channel_id == channel_id,
        Item.kind == kind.value,
        Item.source != SourceKind.NATIVE,
        # Items whose status was deleted stay Invalid until they are given one.
        Item.status_id.is_not(None),
    ]
    if project_id is not None:
        scope.append(Item.project_id == project_id)
    return (
        update(Item)
        .where(*scope, (Item.status != shown) | Item.sync_status.is_distinct_from(sync))
        .values(status=shown, sync_status=sync, sync_at=now)
        .execution_options(synchronize_session=False)
    )
