"""What the project list exposes to OData."""

from bot.db.tables import Project
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", Project.id, K.ID)
_CREATED = Property("createdAt", Project.created_at, K.DATETIME)

PROJECTS = EntitySet(
    name="projects",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            Property("displayName", Project.display_name, K.TEXT),
            Property("projectName", Project.project_name, K.TEXT),
            Property("source", Project.source, K.NAME),
            Property("sourceId", Project.source_id, K.NAME),
            Property("hostname", Project.hostname, K.TEXT),
            Property("enable", Project.enable, K.BOOLEAN),
            Property("enableBug", Project.enable_bug, K.BOOLEAN),
            Property("color", Project.color, K.NAME),
            _CREATED,
            Property("updatedAt", Project.updated_at, K.DATETIME),
        )
    },
    key=_KEY,
    default_order=(SortKey(_CREATED),),  # the native project, made with the channel, first
    select_only=frozenset({"states", "hasCredentials", "credentials", "sync"}),
)
