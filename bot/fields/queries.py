"""What the status, priority and severity lists expose to OData."""

from bot.db.tables import FieldValue
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", FieldValue.id, K.ID)
_TYPE = Property("type", FieldValue.type, K.NAME)
_ORDER = Property("order", FieldValue.order, K.INTEGER)
# Every field value has these; statuses add their category.
_COMMON = (
    _KEY,
    _TYPE,
    _ORDER,
    Property("name", FieldValue.name, K.NAME),
    Property("color", FieldValue.color, K.NAME),
    Property("description", FieldValue.description, K.TEXT),
    Property("primary", FieldValue.primary, K.BOOLEAN),
    Property("value", FieldValue.value, K.INTEGER),
    Property("createdAt", FieldValue.created_at, K.DATETIME),
    Property("updatedAt", FieldValue.updated_at, K.DATETIME),
)


def _field_values(name: str, *extra: Property) -> EntitySet:
    return EntitySet(
        name=name,
        properties={prop.name: prop for prop in (*_COMMON, *extra)},
        key=_KEY,
        default_order=(SortKey(_TYPE), SortKey(_ORDER)),  # each kind's values, in order
    )


STATUSES = _field_values("status", Property("category", FieldValue.category, K.NAME))
PRIORITIES = _field_values("priority")
SEVERITIES = _field_values("severity")
