"""What the mapping list exposes to OData: the mapping, its value's name and its project."""

from sqlalchemy import Select, select

from bot.db.tables import FieldMapping, FieldValue, Project
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", FieldMapping.id, K.ID)
_PROJECT = Property("projectId", FieldMapping.project_id, K.ID)
_TYPE = Property("type", FieldMapping.type, K.NAME)
_SOURCE_ID = Property("sourceId", FieldMapping.source_value_id, K.NAME)

MAPPINGS = EntitySet(
    name="_fieldMappings",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            _PROJECT,
            _TYPE,
            _SOURCE_ID,
            Property("fieldId", FieldMapping.field_id, K.ID),
            Property("fieldName", FieldValue.name, K.NAME),
            Property("projectHostname", Project.hostname, K.TEXT),
            Property("source", Project.source, K.NAME),
            Property("sourceName", FieldMapping.source_value_name, K.NAME),
            Property("enable", FieldMapping.enable, K.BOOLEAN),
            Property("entityType", FieldMapping.entity_type, K.NAME),
            Property("createdAt", FieldMapping.created_at, K.DATETIME),
            Property("updatedAt", FieldMapping.updated_at, K.DATETIME),
        )
    },
    key=_KEY,
    default_order=(SortKey(_PROJECT), SortKey(_TYPE), SortKey(_SOURCE_ID)),
)


def mappings_statement(channel_id: str) -> Select[FieldMapping, str, str, str]:
    """Each mapping with the name of its channel value and its project's host and source."""
    return (
        select(FieldMapping, FieldValue.name, Project.hostname, Project.source)
        .join(FieldValue, FieldValue.id == FieldMapping.field_id)
        .join(Project, Project.id == FieldMapping.project_id)
        .where(FieldMapping.channel_id == channel_id)
    )
