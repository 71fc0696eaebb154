"""A rule's header values are write-only (a header often carries a token): every answer shows
them as MASK, and a change that sends MASK back for a header keeps the value stored."""

from typing import Any

MASK = "••••••"


def masked(action: dict[str, Any]) -> dict[str, Any]:
    """The action as answers show it: each header's value replaced by MASK (an empty one, an
    imported header waiting for its value, stays empty)."""
    headers = action.get("headers")
    if not headers:
        return action
    shown = [{"name": h["name"], "value": MASK if h["value"] else ""} for h in headers]
    return {**action, "headers": shown}


def kept(action: Any, stored: dict[str, Any]) -> Any:
    """A changed action with each header sent as MASK given the stored value of the header
    of that name (names without case, in order); a MASK no stored header matches stays, for
    the check to refuse. Anything that is not an action's shape is left to the check."""
    if not isinstance(action, dict) or not isinstance(action.get("headers"), list):
        return action
    values: dict[str, list[str]] = {}
    for header in stored.get("headers") or []:
        values.setdefault(header["name"].lower(), []).append(header["value"])
    headers = []
    for header in action["headers"]:
        if isinstance(header, dict) and header.get("value") == MASK:
            name = header.get("name")
            left = values.get(name.lower(), []) if isinstance(name, str) else []
            if left:
                header = {**header, "value": left.pop(0)}
        headers.append(header)
    return {**action, "headers": headers}
