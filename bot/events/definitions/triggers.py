"""The ten triggers (five per item kind) and their list, which takes `$filter` and `$orderby`
like every list: the rows are a constant table in the statement, so the database filters them
with the same SQL as any other list."""

from sqlalchemy import Integer, String, literal, select, union_all

from bot.events.schemas import display_name
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey
from bot.schemas import ItemKind, Trigger

# Task forms first, then bug forms, each in the triggers' own order.
ROWS = [(kind, trigger) for kind in (ItemKind.TASK, ItemKind.BUG) for trigger in Trigger]

_TABLE = union_all(
    *(
        select(
            literal(position, Integer).label("position"),
            literal(kind.value, String).label("entity_type"),
            literal(trigger.value, String).label("name"),
            literal(display_name(kind, trigger), String).label("display_name"),
        )
        for position, (kind, trigger) in enumerate(ROWS)
    )
).subquery("triggers")

K = PropertyKind
_POSITION = Property("position", _TABLE.c.position, K.INTEGER)
TRIGGERS = EntitySet(
    name="triggers",
    properties={
        prop.name: prop
        for prop in (
            Property("entityType", _TABLE.c.entity_type, K.NAME),
            Property("name", _TABLE.c.name, K.NAME),
            Property("displayName", _TABLE.c.display_name, K.TEXT),
        )
    },
    key=_POSITION,  # not a field of the answer: it only keeps the order stable
    default_order=(SortKey(_POSITION),),
)
LIST = select(_TABLE.c.entity_type, _TABLE.c.name, _TABLE.c.display_name)
