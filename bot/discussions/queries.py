"""What a discussion's lists accept: `$top`, `$skip`, `$orderby` on `createdDateTime` (messages),
`$count`, `$top`, `$skip` (comments); any other option is a 400."""

from collections.abc import Mapping

from bot.db.tables import DiscussionMessage
from bot.errors import BadRequest
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey
from bot.odata.query import Query, parse_query

# Not an API field: the row's own id breaks ties between messages of one instant.
_KEY = Property("_id", DiscussionMessage.id, PropertyKind.ID, sortable=False)
_CREATED = Property("createdDateTime", DiscussionMessage.created_at, PropertyKind.DATETIME)


def _messages(name: str) -> EntitySet:
    return EntitySet(
        name=name,
        properties={_CREATED.name: _CREATED},
        key=_KEY,
        default_order=(SortKey(_CREATED),),
    )


MESSAGES = _messages("messages")
COMMENTS = _messages("comments")
MESSAGE_OPTIONS = frozenset({"$top", "$skip", "$orderby"})
COMMENT_OPTIONS = frozenset({"$top", "$skip", "$count"})


def list_query(params: Mapping[str, str], entity: EntitySet, allowed: frozenset[str]) -> Query:
    """The request's options for a discussion list; one it does not take is a 400."""
    for name in params:
        if name.startswith("$") and name not in allowed:
            accepted = ", ".join(sorted(allowed))
            raise BadRequest(f"Unsupported query option: {name} (this list takes {accepted})")
    return parse_query(params, entity, count_by_default=entity is MESSAGES)
