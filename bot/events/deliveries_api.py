"""Delivery log routes (docs/api.md, Deliveries): what a rule sent, every try, and resend."""

from typing import Any

from bot.db.statements import Row
from bot.events.deliveries import service as deliveries
from bot.events.deliveries.queries import DELIVERIES
from bot.events.deliveries.schemas import DeliveryOut, DeliveryPage
from bot.web.collections import query_of, render_page
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="events")


def delivery_out(delivery: Row, attempts: list[Any]) -> dict[str, Any]:
    """A delivery in the API's shape, JSON-ready: its target, never its headers or body."""
    return DeliveryOut.model_validate(
        {
            "id": delivery.id,
            "definition_id": delivery.definition_id,
            "event_id": delivery.event_id,
            "item_id": delivery.item_id,
            "trigger_type": delivery.trigger,
            "webhook_id": delivery.webhook_id,
            "state": delivery.state,
            "attempt_count": delivery.attempts,
            "created_at": delivery.created_at,
            "last_attempt_at": delivery.last_attempt_at,
            "finished_at": delivery.finished_at,
            "url": delivery.request.get("url", ""),
            "method": delivery.request.get("method", "POST"),
            "waiting_for": delivery.waiting_for,
            "attempts": [
                {
                    "at": attempt["at"],
                    "outcome": attempt["outcome"],
                    "latency_ms": attempt["latency_ms"],
                    "response_code": attempt["response_code"],
                    "error": attempt["error"],
                }
                for attempt in attempts
            ],
        }
    ).model_dump(mode="json")


@routes.route(
    "GET",
    "/api/events/{id}/deliveries",
    access=Access.CHANNEL,
    response=DeliveryPage,
    errors=(404,),
    summary="What the rule sent in the last 30 days, newest first, each with its tries (OData)",
)
async def list_deliveries(call: Call) -> dict[str, Any]:
    query = query_of(call, DELIVERIES)
    page, count, more = await deliveries.list_deliveries(
        call.uow, definition_id=call.request.match_info["id"], query=query
    )
    values = [delivery_out(delivery, attempts) for delivery, attempts in page]
    return render_page(call, DELIVERIES, query, values, count, more)


@routes.route(
    "POST",
    "/api/events/{id}/deliveries/{deliveryId}/resend",
    access=Access.CHANNEL,
    status=202,
    response=DeliveryOut,
    errors=(404, 409),
    summary="Send a finished delivery again: a new series of tries, the same webhook-id",
)
async def resend_delivery(call: Call) -> dict[str, Any]:
    match = call.request.match_info
    delivery, attempts = await deliveries.resend(
        call.uow, definition_id=match["id"], delivery_id=match["deliveryId"]
    )
    return delivery_out(delivery, attempts)
