"""Routes for bugs and tasks, declared once per kind (the paths mirror each other)."""

from typing import Any

from pydantic import BaseModel

from bot.items import bulk, read
from bot.items import service as items
from bot.items.schemas import (
    BugCreate,
    BugCreated,
    BugDetails,
    BugPatch,
    BulkEdit,
    BulkResults,
    TaskCreate,
    TaskCreated,
    TaskDetails,
    TaskPatch,
)
from bot.schemas import ItemKind
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import Access, Call, Handler, RouteTable

routes = RouteTable(tag="items")

Models = tuple[type[TaskCreate], type[TaskPatch], type[TaskCreated], type[TaskDetails]]
MODELS: dict[ItemKind, Models] = {
    ItemKind.BUG: (BugCreate, BugPatch, BugCreated, BugDetails),
    ItemKind.TASK: (TaskCreate, TaskPatch, TaskCreated, TaskDetails),
}


def _declare(kind: ItemKind) -> None:
    create_model, patch_model, created_model, details_model = MODELS[kind]
    label, plural = kind.type_label.lower(), kind.plural

    async def create(call: Call) -> Any:
        created = await items.create_item(
            call.uow,
            kind=kind,
            body=call.body,
            entity_id=call.request.headers.get("x-svc-entityId"),
        )
        base = call.settings.public_url
        link = entity_link(base, plural, created.item.id)
        return created_model.model_validate(
            {
                **read.common_fields(created.item),
                "odata_context": entity_context(base, plural),
                "odata_edit_link": link,
                "odata_id": link,
                "project_id": created.item.project_id,
                "assigned_to": created.assignee_ids,
                "severity": created.item.severity,
            }
        )

    async def details(call: Call) -> read.Details:
        return await read.get_details(call.uow, kind=kind, item_id=call.request.match_info["id"])

    async def patch(call: Call) -> None:
        item_id = entity_key(call.request.match_info["key"])
        await items.update_item(call.uow, kind=kind, item_id=item_id, patch=call.body)

    async def remove(call: Call) -> None:
        item_id = entity_key(call.request.match_info["key"])
        await items.delete_item(call.uow, kind=kind, item_id=item_id)

    async def bulk_edit(call: Call) -> BulkResults:
        return BulkResults(await bulk.bulk_edit(call.uow, kind=kind, edit=call.body))

    declare: list[
        tuple[str, str, Handler, str, type[BaseModel] | None, int, type[BaseModel] | None]
    ] = [
        ("POST", f"/odata/{plural}", create, f"Create a {label}", create_model, 201, created_model),
        (
            "GET",
            f"/api/{plural}/{{id}}/details",
            details,
            f"A {label} in full",
            None,
            200,
            details_model,
        ),
        (
            "PATCH",
            f"/odata/{plural}({{key}})",
            patch,
            f"Change some fields of a {label}",
            patch_model,
            204,
            None,
        ),
        (
            "DELETE",
            f"/odata/{plural}({{key}})",
            remove,
            f"Delete a {label} for good",
            None,
            204,
            None,
        ),
        (
            "POST",
            f"/api/bulk/{label}",
            bulk_edit,
            f"Edit up to 1000 {plural} at once",
            BulkEdit,
            200,
            BulkResults,
        ),
    ]
    for method, path, handler, summary, body, status, response in declare:
        named: Handler = handler
        named.__name__ = f"{handler.__name__}_{label}"
        errors = (404,) if "{" in path else ()
        routes.route(
            method,
            path,
            access=Access.CHANNEL,
            summary=summary,
            body=body,
            status=status,
            response=response,
            errors=errors,
        )(named)


for _kind in ItemKind:
    _declare(_kind)
