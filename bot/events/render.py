"""An HTTP rule's request, fixed when the event matches (docs/api.md, Event rules: the payload
and the body template). Pure: the sender later adds the signature headers and `X-Svc-Event`.

The body is the rule's template with each `{{item.<field>}}`, `{{event.<field>}}` or
`{{actor.<field>}}` replaced (a dotted path reaches inside: `{{item.statusId.category}}`,
`{{item.assignedTo.0.displayName}}`); a placeholder that names nothing is replaced by nothing.
The template is JSON when the rule's Content-Type header says so (`application/json`, `…+json`),
or, with no Content-Type, when it parses as JSON once every placeholder is taken out; then each
value is written JSON-escaped, as the inside of a JSON string. An empty template sends the
event's JSON payload.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

JSON_TYPE = "application/json"
TEXT_TYPE = "text/plain; charset=utf-8"
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


def payload(
    *,
    event_id: str,
    event_name: str,
    trigger: str,
    kind: str,
    place: Mapping[str, str | None],
    occurred_at: str,
    actor: Mapping[str, Any] | None,
    item: Mapping[str, Any],
    changes: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The event as an empty template sends it, and as `{{event.<field>}}` reads it."""
    return {
        "eventId": event_id,
        "eventName": event_name,
        "triggerType": trigger,
        "entityType": kind,
        "tenantId": place["tenantId"],
        "teamId": place["teamId"],
        "channelId": place["channelId"],
        "occurredAt": occurred_at,
        "actor": dict(actor) if actor else None,
        "item": dict(item),
        "changes": list(changes),
    }


def request(action: Mapping[str, Any], event: Mapping[str, Any]) -> dict[str, Any]:
    """The request the delivery sends: `{url, method, headers: [{name, value}], body}`."""
    headers = [dict(header) for header in action.get("headers") or []]
    template = action.get("body") or ""
    content_type = next(
        (header["value"] for header in headers if header["name"].lower() == "content-type"), None
    )
    if not template:
        body, as_json = orjson.dumps(event).decode(), True
    else:
        as_json = is_json(template, content_type)
        body = render(template, event, as_json=as_json)
    if content_type is None:
        headers.append({"name": "Content-Type", "value": JSON_TYPE if as_json else TEXT_TYPE})
    return {
        "url": action["url"],
        "method": action.get("method") or "POST",
        "headers": headers,
        "body": body,
    }


def is_json(template: str, content_type: str | None) -> bool:
    """Whether the template's values are written JSON-escaped (see the module's docstring)."""
    if content_type is not None:
        media = content_type.split(";", 1)[0].strip().lower()
        return media == JSON_TYPE or media.endswith("+json")
    try:
        orjson.loads(_PLACEHOLDER.sub("", template))
    except orjson.JSONDecodeError:
        return False
    return True


def render(template: str, event: Mapping[str, Any], *, as_json: bool) -> str:
    """The template with its placeholders replaced from the event."""
    roots = {"item": event.get("item") or {}, "event": event, "actor": event.get("actor") or {}}

    def value(match: re.Match[str]) -> str:
        text = _text(_lookup(roots, match.group(1)))
        return orjson.dumps(text).decode()[1:-1] if as_json else text

    return _PLACEHOLDER.sub(value, template)


def _lookup(roots: Mapping[str, Any], path: str) -> Any:
    """The value a dotted path names, or None when it names nothing."""
    root, *steps = path.split(".")
    found: Any = roots.get(root)
    if found is None or not steps:
        return None  # `{{item}}` alone names no field
    for step in steps:
        if isinstance(found, Mapping):
            found = found.get(step)
        elif isinstance(found, list) and step.isdigit() and int(step) < len(found):
            found = found[int(step)]
        else:
            return None
    return found


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return orjson.dumps(value).decode()  # an object or a list, as JSON
