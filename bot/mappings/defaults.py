"""The mappings a newly configured external project starts with, so it works at once (docs/api.md):
each source state → the channel status of its category with the lowest order, per kind; an Azure
DevOps project's severities → the channel's Bug severities of the same name."""

from typing import cast

from sqlalchemy import Table, select

from bot.db.statements import Row
from bot.db.tables import FieldMapping, FieldValue
from bot.db.uow import UnitOfWork
from bot.fields.catalog import PRIORITY, SEVERITY, STATUS, name_key
from bot.ids import new_id
from bot.projects.sources import AZURE_DEVOPS_SEVERITIES, SourceKind, SourceValue, severity_name
from bot.schemas import ItemKind

_MAPPINGS = cast(Table, FieldMapping.__table__)


async def add_default_mappings(
    uow: UnitOfWork, *, project: Row, states: tuple[SourceValue, ...], severities: bool = True
) -> None:
    """Map `states` (and, when asked, Azure DevOps' severities) for both kinds."""
    values = await uow.rows(
        select(FieldValue)
        .where(FieldValue.channel_id == project.channel_id)
        .order_by(FieldValue.order)
    )
    rows = []
    for kind in ItemKind:
        statuses = [v for v in values if v.field == STATUS and v.type == kind.type_label]
        for state in states:
            # Ordered by `order`: the first of the category is its lowest.
            status = next((s for s in statuses if s.category == state.category), None)
            if status is not None:
                rows.append(_row(uow, project, kind, STATUS, status, state))
    if severities and SourceKind(project.source).maps_severity:
        bug_severities = {
            v.name_key: v
            for v in values
            if v.field == SEVERITY and v.type == ItemKind.BUG.type_label
        }
        for severity in AZURE_DEVOPS_SEVERITIES:
            match = bug_severities.get(name_key(severity_name(severity)))
            if match is not None:
                rows.append(_row(uow, project, ItemKind.BUG, SEVERITY, match, severity))
    await uow.insert_many(_MAPPINGS, rows, {})


def _row(
    uow: UnitOfWork,
    project: Row,
    kind: ItemKind,
    field: str,
    value: Row,
    source_value: SourceValue,
) -> dict[str, object]:
    now = uow.clock.now()
    return {
        "id": new_id(),
        "channel_id": project.channel_id,
        "project_id": project.id,
        "field_id": value.id,
        "type": field,
        "entity_type": kind.type_label,
        "source_value_id": source_value.id,
        "source_value_name": source_value.name,
        "enable": True,
        "created_at": now,
        "updated_at": now,
    }


# A source's priorities, most urgent first, as the channel's priorities map them at the first
# link (docs/sync.md): the n-th band goes to the channel's n-th, the rest to its last.
SOURCE_PRIORITIES: dict[SourceKind, tuple[tuple[str, ...], ...]] = {
    SourceKind.AZURE_DEVOPS: (("1",), ("2",), ("3",), ("4",)),
    SourceKind.JIRA: (("Highest",), ("High",), ("Medium",), ("Low",), ("Lowest",)),
    SourceKind.PLANNER: (("0", "1"), ("2", "3", "4"), ("5", "6", "7"), ("8", "9", "10")),
}


async def add_priority_mappings(uow: UnitOfWork, *, project: Row) -> None:
    """At the first link of a project that syncs: its source's priorities mapped, for both
    kinds, unless it has priority mappings already."""
    source_values = SOURCE_PRIORITIES.get(SourceKind(project.source))
    held = await uow.value(
        select(FieldMapping.id).where(
            FieldMapping.project_id == project.id, FieldMapping.type == PRIORITY
        )
    )
    if not source_values or held is not None:
        return
    values = await uow.rows(
        select(FieldValue)
        .where(FieldValue.channel_id == project.channel_id, FieldValue.field == PRIORITY)
        .order_by(FieldValue.order, FieldValue.id)
    )
    rows = []
    for kind in ItemKind:
        ordered = [v for v in values if v.type == kind.type_label]
        for at, band in enumerate(source_values):
            if ordered:
                value = ordered[min(at, len(ordered) - 1)]
                rows += [
                    _row(uow, project, kind, PRIORITY, value, SourceValue(source, source))
                    for source in band
                ]
    await uow.insert_many(_MAPPINGS, rows, {})
