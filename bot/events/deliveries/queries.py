"""What the delivery log exposes to OData."""

from bot.db.tables import EventDelivery
from bot.odata.model import EntitySet, Property, SortKey
from bot.odata.model import PropertyKind as K

_KEY = Property("_id", EventDelivery.id, K.ID)
_CREATED = Property("createdAt", EventDelivery.created_at, K.DATETIME)

DELIVERIES = EntitySet(
    name="eventDeliveries",
    properties={
        prop.name: prop
        for prop in (
            _KEY,
            Property("webhookId", EventDelivery.webhook_id, K.NAME),
            Property("eventId", EventDelivery.event_id, K.ID),
            Property("itemId", EventDelivery.item_id, K.ID),
            Property("triggerType", EventDelivery.trigger, K.NAME),
            Property("state", EventDelivery.state, K.NAME),
            Property("attemptCount", EventDelivery.attempts, K.INTEGER),
            _CREATED,
            Property("lastAttemptAt", EventDelivery.last_attempt_at, K.DATETIME),
            Property("finishedAt", EventDelivery.finished_at, K.DATETIME),
        )
    },
    key=_KEY,
    default_order=(SortKey(_CREATED, descending=True),),  # newest first
    select_only=frozenset({"definitionId", "url", "method", "waitingFor", "attempts"}),
)
