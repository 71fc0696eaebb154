"""What the member list exposes to OData."""

from bot.db.tables import User
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", User.id, K.ID)
_DISPLAY_NAME = Property("displayName", User.display_name, K.TEXT)

USERS = EntitySet(
    name="users",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            Property("sourceId", User.source_id, K.NAME),
            _DISPLAY_NAME,
            Property("email", User.email, K.TEXT),
            Property("username", User.username, K.TEXT),
            Property("source", User.source, K.NAME),
        )
    },
    key=_KEY,
    default_order=(SortKey(_DISPLAY_NAME),),
    select_only=frozenset({"mapping"}),
)
