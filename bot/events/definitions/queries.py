"""What the event rule lists expose to OData."""

from bot.db.tables import EventDefinition
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey

K = PropertyKind
_KEY = Property("_id", EventDefinition.id, K.ID)
_CREATED = Property("createdAt", EventDefinition.created_at, K.DATETIME)

DEFINITIONS = EntitySet(
    name="eventDefinitions",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            Property("eventName", EventDefinition.name, K.TEXT),
            Property("entityType", EventDefinition.kind, K.NAME),
            Property("triggerType", EventDefinition.trigger, K.NAME),
            Property("enable", EventDefinition.enabled, K.BOOLEAN),
            Property("conditionsOps", EventDefinition.conditions_op, K.NAME),
            Property("actionType", EventDefinition.action_type, K.NAME),
            Property("disabledReason", EventDefinition.disabled_reason, K.TEXT),
            _CREATED,
            Property("updatedAt", EventDefinition.updated_at, K.DATETIME),
        )
    },
    key=_KEY,
    default_order=(SortKey(_CREATED),),  # in the order they were made
    select_only=frozenset({"tenantId", "teamId", "channelId", "conditions", "action"}),
)
