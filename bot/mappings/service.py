"""Mapping rules: one mapping per source value, values of the right field and kind, projects of
the channel that need them; every change re-judges the project's items (bot.mappings.rule)."""

from dataclasses import dataclass

from sqlalchemy import delete, insert, select

from bot.db.changes import write_changes
from bot.db.statements import Row
from bot.db.tables import FieldMapping, FieldValue
from bot.db.uow import UnitOfWork
from bot.errors import CodedBadRequest, Invalid, NotFound
from bot.fields import catalog_locks
from bot.ids import is_id, new_id
from bot.mappings import rule
from bot.mappings.queries import mappings_statement
from bot.mappings.schemas import MappedField, MappingIn, MappingPatch
from bot.odata.query import Query, apply, count_statement, page
from bot.projects import service as projects
from bot.projects.sources import AZURE_DEVOPS_SEVERITIES, SourceKind, SourceValue, states_of

DUPLICATE_MAPPING = "Duplicate mapping"


@dataclass(frozen=True)
class MappingView:
    """A mapping with what it renders from its value and project."""

    mapping: Row
    field_name: str
    project_hostname: str
    source: str


def _view(row: Row) -> MappingView:
    """The mapping's row beside its value's name and its project's host and source (a row of
    `mappings_statement`: the mapping's columns, `name`, `hostname` and `source`)."""
    return MappingView(row, row["name"], row["hostname"], row["source"])


async def list_mappings(
    uow: UnitOfWork, *, query: Query
) -> tuple[list[MappingView], int | None, bool]:
    statement = mappings_statement(_channel_id(uow))
    rows, more = page(await uow.rows(apply(statement, query)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    return [_view(row) for row in rows], count, more


async def get_mapping(uow: UnitOfWork, *, mapping_id: str) -> MappingView:
    row = None
    if is_id(mapping_id):
        statement = mappings_statement(_channel_id(uow)).where(FieldMapping.id == mapping_id)
        row = await uow.row(statement)
    if row is None:
        raise NotFound(f"Mapping '{mapping_id}' not found.")
    return _view(row)


async def create_mapping(uow: UnitOfWork, *, body: MappingIn) -> MappingView:
    """Map one source value to one channel value; the source value must not be mapped yet."""
    if body.type is MappedField.SEVERITY and body.entity_type != "Bug":
        raise Invalid("entityType", "only bugs have severities")
    # The value mapped stays until commit: its delete holds the catalogue alone.
    await catalog_locks.take(uow, channel_id=_channel_id(uow))
    project = await _external_project(uow, body.project_id)
    if body.source is not None and body.source != project.source:
        raise Invalid("source", f"'{body.source}' contradicts the project's source")
    value = await _channel_value(uow, body.field_id, body.type, body.entity_type)
    source_name = _source_value_name(project, body.type, body.source_id, body.source_name)
    await _refuse_duplicate(uow, project, body.type, body.entity_type, body.source_id)
    now = uow.clock.now()
    mapping = Row(
        id=new_id(),
        channel_id=project.channel_id,
        project_id=project.id,
        field_id=value.id,
        type=body.type,
        entity_type=body.entity_type,
        source_value_id=body.source_id,
        source_value_name=source_name,
        enable=body.enable,
        created_at=now,
        updated_at=now,
    )
    await uow.execute(insert(FieldMapping).values(mapping))
    await rule.refresh_items(uow, channel_id=project.channel_id, project_id=project.id)
    return MappingView(mapping, value.name, project.hostname, project.source)


async def update_mapping(uow: UnitOfWork, *, mapping_id: str, patch: MappingPatch) -> None:
    await catalog_locks.take(uow, channel_id=_channel_id(uow))  # as `create_mapping` does
    view = await get_mapping(uow, mapping_id=mapping_id)
    mapping = view.mapping
    before = dict(mapping)
    # By field name: ApiModel dumps by alias (`fieldId`) unless told otherwise.
    changes = patch.model_dump(exclude_unset=True, by_alias=False)
    for field, json_name in (
        ("field_id", "fieldId"),
        ("source_id", "sourceId"),
        ("source_name", "sourceName"),
        ("enable", "enable"),
    ):
        if field in changes and changes[field] is None:
            raise Invalid(json_name, "must not be null")
    fixed = {
        ("project_id", "projectId"): mapping.project_id,
        ("type", "type"): mapping.type,
        ("entity_type", "entityType"): mapping.entity_type,
        ("source", "source"): view.source,
    }
    for (field, json_name), current in fixed.items():
        if changes.get(field) not in (None, current):
            raise Invalid(json_name, "cannot change; delete the mapping and create another")
    project = await _external_project(uow, mapping.project_id, lock=True)
    if "field_id" in changes:
        value = await _channel_value(
            uow, changes["field_id"], MappedField(mapping.type), mapping.entity_type
        )
        mapping["field_id"] = value.id
    if "source_id" in changes and changes["source_id"] != mapping.source_value_id:
        await _refuse_duplicate(
            uow, project, MappedField(mapping.type), mapping.entity_type, changes["source_id"]
        )
        mapping["source_value_id"] = changes["source_id"]
        mapping["source_value_name"] = _source_value_name(
            project, MappedField(mapping.type), changes["source_id"], changes.get("source_name")
        )
    elif "source_name" in changes:
        mapping["source_value_name"] = changes["source_name"]
    if "enable" in changes:
        mapping["enable"] = changes["enable"]
    mapping["updated_at"] = uow.clock.now()
    await write_changes(uow, FieldMapping.id, mapping, before)
    await rule.refresh_items(uow, channel_id=project.channel_id, project_id=project.id)


async def delete_mapping(uow: UnitOfWork, *, mapping_id: str) -> None:
    view = await get_mapping(uow, mapping_id=mapping_id)
    await uow.execute(delete(FieldMapping).where(FieldMapping.id == view.mapping.id))
    await rule.refresh_items(
        uow, channel_id=view.mapping.channel_id, project_id=view.mapping.project_id
    )


async def _external_project(uow: UnitOfWork, project_id: str, *, lock: bool = True) -> Row:
    """The mapping's project, locked so two writers cannot both map one source value."""
    try:
        project = await projects.get_project(uow, project_id=project_id, for_update=lock)
    except NotFound:
        raise Invalid("projectId", f"'{project_id}' is not a project of this channel") from None
    if project.source == SourceKind.NATIVE:
        raise Invalid("projectId", "the native project needs no mapping")
    return project


async def _channel_value(
    uow: UnitOfWork, field_id: str, field: MappedField, entity_type: str
) -> Row:
    value = (
        await uow.row(select(FieldValue).where(FieldValue.id == field_id))
        if is_id(field_id)
        else None
    )
    if (
        value is None
        or value.channel_id != _channel_id(uow)
        or value.field != field
        or value.type != entity_type
    ):
        raise Invalid("fieldId", f"'{field_id}' is not a {field} of {entity_type} items here")
    return value


def _source_value_name(project: Row, field: MappedField, source_id: str, given: str | None) -> str:
    """The source value's name; a state or Azure DevOps severity must be in the catalogue."""
    source = SourceKind(project.source)
    catalogue: tuple[SourceValue, ...] | None = None
    if field is MappedField.STATUS:
        catalogue = states_of(source, project.states)
    elif field is MappedField.SEVERITY and source.maps_severity:
        catalogue = AZURE_DEVOPS_SEVERITIES
    if catalogue is None:  # priorities, and severities of sources without any: free values
        return given or source_id
    known = {value.id: value for value in catalogue}
    if source_id not in known:
        choices = ", ".join(known)
        raise Invalid(
            "sourceId",
            f"'{source_id}' is not a {field} of project '{project.display_name}' "
            f"(one of: {choices})",
        )
    return given or known[source_id].name


async def find_mapping(
    uow: UnitOfWork, *, project_id: str, field: MappedField, entity_type: str, source_id: str
) -> Row | None:
    """The project's mapping of this source value for this field and kind, if it has one (each
    source value is mapped once)."""
    return await uow.row(
        select(FieldMapping).where(
            FieldMapping.project_id == project_id,
            FieldMapping.type == field,
            FieldMapping.entity_type == entity_type,
            FieldMapping.source_value_id == source_id,
        )
    )


async def _refuse_duplicate(
    uow: UnitOfWork, project: Row, field: MappedField, entity_type: str, source_id: str
) -> None:
    taken = await find_mapping(
        uow, project_id=project.id, field=field, entity_type=entity_type, source_id=source_id
    )
    if taken is not None:
        raise CodedBadRequest(DUPLICATE_MAPPING)


def _channel_id(uow: UnitOfWork) -> str:
    assert uow.channel is not None, "mapping operations run in a channel"
    return uow.channel.channel_id
