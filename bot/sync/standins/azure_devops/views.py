"""The stand-in's objects as the service serves them (the description's schemas)."""

from collections.abc import Collection, Sequence
from typing import Any

from bot.sync.standins.azure_devops.process import WorkItemType
from bot.sync.standins.azure_devops.store import Comment, WorkItem, iso


def listed(values: Sequence[Any]) -> dict[str, Any]:
    """Lists come wrapped, as the service sends them (the description declares bare arrays)."""
    return {"count": len(values), "value": list(values)}


def work_item(
    item: WorkItem,
    org_url: str,
    project_id: str,
    *,
    fields: Collection[str] | None = None,
    links: bool = True,
) -> dict[str, Any]:
    url = f"{org_url}/{project_id}/_apis/wit/workitems/{item.id}"
    if fields is None:
        shown = dict(item.fields)
    else:
        wanted = {f.lower() for f in fields}
        shown = {k: v for k, v in item.fields.items() if k.lower() in wanted}
    view: dict[str, Any] = {"id": item.id, "rev": item.rev, "fields": shown, "url": url}
    if links:
        view["_links"] = {
            "self": {"href": url},
            "workItemComments": {"href": f"{url.replace('/workitems/', '/workItems/')}/comments"},
            "html": {"href": f"{org_url}/{project_id}/_workitems/edit/{item.id}"},
        }
    return view


def update(item: WorkItem, before: dict[str, Any], org_url: str, project_id: str) -> dict[str, Any]:
    """A `workitem.updated` event's resource: the revision's changes, and the item itself."""
    changes: dict[str, Any] = {}
    for name in sorted(set(before) | set(item.fields)):
        old, new = before.get(name), item.fields.get(name)
        if old != new:
            change = {}
            if old is not None:
                change["oldValue"] = old
            if new is not None:
                change["newValue"] = new
            changes[name] = change
    url = f"{org_url}/{project_id}/_apis/wit/workItems/{item.id}/updates/{item.rev}"
    return {
        "id": item.rev,
        "workItemId": item.id,
        "rev": item.rev,
        "revisedBy": item.fields["System.ChangedBy"],
        "revisedDate": item.fields["System.ChangedDate"],
        "fields": changes,
        "url": url,
        "revision": work_item(item, org_url, project_id, links=False),
    }


def comment(note: Comment, org_url: str, project_id: str) -> dict[str, Any]:
    modified_by = note.modified_by or note.by
    return {
        "workItemId": note.work_item_id,
        "id": note.id,
        "version": note.version,
        "text": note.text,
        "renderedText": note.text,
        "format": "html",
        "createdBy": note.by.ref(),
        "createdDate": iso(note.at),
        "modifiedBy": modified_by.ref(),
        "modifiedDate": iso(note.modified_at or note.at),
        "isDeleted": False,
        "url": f"{org_url}/{project_id}/_apis/wit/workItems/{note.work_item_id}/comments/{note.id}",
    }


def type_fields(type_: WorkItemType, org_url: str, *, expand: str | None) -> list[dict[str, Any]]:
    shown = []
    for field in type_.fields:
        view: dict[str, Any] = {
            "referenceName": field.reference_name,
            "name": field.name,
            "url": f"{org_url}/_apis/wit/fields/{field.reference_name}",
            "alwaysRequired": field.reference_name == "System.Title",
        }
        if expand in ("allowedValues", "all"):
            view["allowedValues"] = list(field.allowed)
            view["defaultValue"] = dict(type_.defaults).get(field.reference_name)
        shown.append(view)
    return shown
