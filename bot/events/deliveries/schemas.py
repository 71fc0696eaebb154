"""The delivery log in and out (docs/api.md, Deliveries)."""

from pydantic import Field

from bot.events.schemas import DeliveryState
from bot.schemas import ApiModel, CollectionPage, Timestamp, Trigger


class AttemptOut(ApiModel):
    """One try: when, how it ended, how long it took, what came back."""

    at: Timestamp
    outcome: str = Field(description="succeeded, retrying, failed, or stopped (rule switched off)")
    latency_ms: int | None = Field(alias="latencyMs")
    response_code: int | None = Field(alias="responseCode")
    error: str | None


class DeliveryOut(ApiModel):
    """One event sent by a rule: the request's target and every try, newest first."""

    id: str = Field(alias="_id")
    definition_id: str = Field(alias="definitionId")
    event_id: str = Field(alias="eventId")
    item_id: str = Field(alias="itemId")
    trigger_type: Trigger = Field(alias="triggerType")
    webhook_id: str = Field(alias="webhookId", description="The receiver's idempotency key")
    state: DeliveryState
    attempt_count: int = Field(alias="attemptCount")
    created_at: Timestamp = Field(alias="createdAt")
    last_attempt_at: Timestamp | None = Field(alias="lastAttemptAt")
    finished_at: Timestamp | None = Field(alias="finishedAt")
    url: str
    method: str
    waiting_for: str | None = Field(
        alias="waitingFor",
        description="What a pending delivery waits for (the channel's digest, its quiet hours, "
        "a retry); null otherwise",
    )
    attempts: list[AttemptOut]


class DeliveryPage(CollectionPage):
    value: list[DeliveryOut]
