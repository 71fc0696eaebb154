"""What the status list exposes to OData."""

from bot.db.tables import FieldValue
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", FieldValue.id, K.ID)
_TYPE = Property("type", FieldValue.type, K.NAME)
_ORDER = Property("order", FieldValue.order, K.INTEGER)

STATUSES = EntitySet(
    name="status",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            _TYPE,
            _ORDER,
            Property("name", FieldValue.name, K.NAME),
            Property("category", FieldValue.category, K.NAME),
            Property("color", FieldValue.color, K.NAME),
            Property("description", FieldValue.description, K.TEXT),
            Property("primary", FieldValue.primary, K.BOOLEAN),
            Property("value", FieldValue.value, K.INTEGER),
            Property("createdAt", FieldValue.created_at, K.DATETIME),
            Property("updatedAt", FieldValue.updated_at, K.DATETIME),
        )
    },
    key=_KEY,
    default_order=(SortKey(_TYPE), SortKey(_ORDER)),  # each kind's workflow, in order
)
