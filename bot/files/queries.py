"""What the attachment list exposes to OData queries."""

from bot.db.tables import Attachment
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", Attachment.id, K.ID)
_CREATED = Property("createdAt", Attachment.created_at, K.DATETIME)

ATTACHMENTS = EntitySet(
    name="attachments",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            Property("filename", Attachment.filename, K.TEXT),
            Property("size", Attachment.size, K.INTEGER),
            _CREATED,
        )
    },
    key=_KEY,
    default_order=(SortKey(_CREATED),),
    select_only=frozenset({"source", "sourceId", "sourceUrl", "downloadUrl"}),
)
