"""JSON Patch documents as the work item routes take them: `add`, `replace`, `remove` and `test`
on `/fields/{reference name}`, and `test` on `/rev` (a stale one is refused with 412)."""

from typing import Any

from bot.sync.standins.azure_devops.errors import AdoError, bad_request
from bot.sync.standins.azure_devops.store import WorkItem

_STALE = (
    "TF26071: This work item has been changed by someone else since you opened it. You will need "
    "to refresh it and discard your changes."
)


def field_values(document: object, item: WorkItem | None) -> dict[str, Any]:
    """The fields a patch sets (None for removed ones), once its tests pass against `item`."""
    if not isinstance(document, list) or not document:
        raise bad_request(
            "You must pass a valid patch document in the body of the request.",
            "VssPropertyValidationException",
        )
    values: dict[str, Any] = {}
    for operation in document:
        if not isinstance(operation, dict) or not isinstance(operation.get("path"), str):
            raise bad_request("Each patch operation needs an `op` and a `path`.")
        op, path = operation.get("op"), operation["path"]
        if op == "test":
            _test(path, operation.get("value"), item)
            continue
        if not path.startswith("/fields/") or len(path) == len("/fields/"):
            raise bad_request(f"The path '{path}' is not supported for operation '{op}'.")
        name = path.removeprefix("/fields/")
        if op in ("add", "replace"):
            if "value" not in operation:
                raise bad_request(f"Operation '{op}' on '{path}' needs a value.")
            values[name] = operation["value"]
        elif op == "remove":
            values[name] = None
        else:
            raise bad_request(f"Operation '{op}' is not supported on work items.")
    return values


def _test(path: str, value: object, item: WorkItem | None) -> None:
    if item is None:
        raise bad_request("A new work item has nothing to test.")
    if path == "/rev":
        current: object = item.rev
    elif path.startswith("/fields/"):
        current = item.fields.get(path.removeprefix("/fields/"))
    else:
        raise bad_request(f"The path '{path}' is not supported for operation 'test'.")
    if str(current) != str(value):
        raise AdoError(412, _STALE, "WorkItemRevisionMismatchException")
