"""Service-hook subscriptions and their calls: on `workitem.created`, `workitem.updated` and
`workitem.deleted` each matching subscription's URL is called with its Basic credentials and
the event as the service publishes it. Calls run in background tasks and never hold a change."""

import base64
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiohttp

from bot.sync.standins.azure_devops.errors import bad_request
from bot.sync.standins.azure_devops.identities import Identity
from bot.sync.standins.azure_devops.store import WorkItem, iso

EVENT_TYPES = ("workitem.created", "workitem.updated", "workitem.deleted")
_MASK = "********"
_SECRET_INPUTS = ("basicAuthPassword",)


@dataclass(frozen=True, slots=True)
class HookCall:
    """One call the stand-in made: the event it published and what the receiver answered."""

    subscription_id: str
    event_type: str
    work_item_id: int
    url: str
    payload: dict[str, Any]
    status: int | None  # None when the receiver could not be reached
    error: str | None = None


def new_subscription(
    body: object, *, project_id: str, by: Identity, at: datetime
) -> dict[str, Any]:
    """A subscription from a create request, refused with 400 when the service would refuse it."""
    if not isinstance(body, dict):
        raise bad_request("The subscription is missing.")
    if body.get("publisherId") != "tfs":
        raise bad_request(f"VS1050009: Publisher '{body.get('publisherId')}' was not found.")
    if body.get("eventType") not in EVENT_TYPES:
        raise bad_request(f"VS1050010: Event type '{body.get('eventType')}' is not supported.")
    if body.get("consumerId") != "webHooks" or body.get("consumerActionId") != "httpRequest":
        raise bad_request("VS1050011: Only the webHooks consumer's httpRequest action is offered.")
    publisher = body.get("publisherInputs") or {}
    consumer = body.get("consumerInputs") or {}
    if not isinstance(publisher, dict) or not isinstance(consumer, dict):
        raise bad_request("publisherInputs and consumerInputs must be objects of strings.")
    if publisher.get("projectId") != project_id:
        raise bad_request(f"VS1050012: Project '{publisher.get('projectId')}' was not found.")
    url = consumer.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise bad_request("VS1050013: The consumer input 'url' must be an http or https URL.")
    return {
        "id": str(uuid.uuid4()),
        "publisherId": "tfs",
        "eventType": body["eventType"],
        "resourceVersion": str(body.get("resourceVersion") or "1.0"),
        "consumerId": "webHooks",
        "consumerActionId": "httpRequest",
        "publisherInputs": {k: str(v) for k, v in publisher.items()},
        "consumerInputs": {k: str(v) for k, v in consumer.items()},
        "status": "enabled",
        "createdBy": by.ref(),
        "createdDate": iso(at),
        "modifiedBy": by.ref(),
        "modifiedDate": iso(at),
    }


def shown(subscription: Mapping[str, Any], base_url: str) -> dict[str, Any]:
    """A subscription as the API shows it: the receiver's password masked."""
    consumer = {
        k: (_MASK if k in _SECRET_INPUTS else v) for k, v in subscription["consumerInputs"].items()
    }
    return {
        **subscription,
        "consumerInputs": consumer,
        "url": f"{base_url}/_apis/hooks/subscriptions/{subscription['id']}",
    }


def matches(subscription: Mapping[str, Any], event_type: str, item: WorkItem) -> bool:
    inputs = subscription["publisherInputs"]
    wanted_type = inputs.get("workItemType")
    area = inputs.get("areaPath")
    return (
        subscription["eventType"] == event_type
        and subscription["status"] == "enabled"
        and (not wanted_type or wanted_type.lower() == item.type.name.lower())
        and (not area or item.area_path.lower().startswith(area.lower()))
    )


def event(
    subscription: Mapping[str, Any],
    event_type: str,
    resource: dict[str, Any],
    *,
    item: WorkItem,
    notification_id: int,
    project_id: str,
    base_url: str,
    at: datetime,
) -> dict[str, Any]:
    """The event as a webHooks consumer receives it."""
    verb = event_type.removeprefix("workitem.")
    title = item.fields.get("System.Title", "")
    text = f"{item.type.name} #{item.id} ({title}) {verb}"
    return {
        "subscriptionId": subscription["id"],
        "notificationId": notification_id,
        "id": str(uuid.uuid4()),
        "eventType": event_type,
        "publisherId": "tfs",
        "message": {"text": text, "html": text, "markdown": text},
        "detailedMessage": {"text": text, "html": text, "markdown": text},
        "resource": resource,
        "resourceVersion": subscription["resourceVersion"],
        "resourceContainers": {
            "project": {"id": project_id, "baseUrl": f"{base_url}/"},
        },
        "createdDate": iso(at),
    }


async def call(
    http: aiohttp.ClientSession, subscription: Mapping[str, Any], payload: dict[str, Any]
) -> HookCall:
    inputs = subscription["consumerInputs"]
    headers = {}
    if inputs.get("basicAuthUsername") or inputs.get("basicAuthPassword"):
        pair = f"{inputs.get('basicAuthUsername', '')}:{inputs.get('basicAuthPassword', '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    resource = payload["resource"]
    item_id = int(resource.get("workItemId", resource.get("id", 0)))
    url = inputs["url"]
    try:
        async with http.post(url, json=payload, headers=headers) as response:
            await response.read()
            status: int | None = response.status
            error = None
    except (TimeoutError, aiohttp.ClientError) as failure:
        status, error = None, repr(failure)
    return HookCall(subscription["id"], payload["eventType"], item_id, url, payload, status, error)
