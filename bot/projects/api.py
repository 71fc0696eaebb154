"""Project routes, and the states of a project's source (docs/api.md, Projects)."""

from typing import Any

from bot.keys import MESSENGER, SYNC_CONNECTORS
from bot.projects import service as projects
from bot.projects.queries import PROJECTS
from bot.projects.schemas import (
    ProjectIn,
    ProjectOut,
    ProjectPage,
    ProjectPatch,
    ProjectSaved,
    SourceStatuses,
)
from bot.schemas import ItemKind
from bot.sync import links, saving, unlinking
from bot.web.collections import query_of, render_page
from bot.web.routing import Access, Call, RouteTable, named

routes = RouteTable(tag="projects")


@routes.route(
    "GET",
    "/api/projects",
    access=Access.CHANNEL,
    response=ProjectPage,
    summary="The channel's projects: its native one and the external ones configured (OData)",
)
async def list_projects(call: Call) -> dict[str, Any]:
    query = query_of(call, PROJECTS)
    rows, count, more = await projects.list_projects(call.uow, query=query)
    syncs = await links.syncs_of(call.uow, [row.id for row in rows])
    values = [
        projects.project_out(row, links.sync_out(*syncs.get(row.id, (None, 0)))).model_dump(
            mode="json"
        )
        for row in rows
    ]
    return render_page(call, PROJECTS, query, values, count, more)


@routes.route(
    "POST",
    "/api/projects",
    access=Access.CHANNEL,
    body=ProjectIn,
    status=201,
    response=ProjectSaved,
    errors=(409, 502),
    summary="Configure an external project; its states get default mappings. With `sync` "
    "enabled the link is checked at the source first (400, 502: nothing stored)",
)
async def create_project(call: Call) -> dict[str, Any]:
    return await saving.create_project(
        call.uow,
        body=call.body,
        secret_key=call.settings.secret(),
        connectors=call.request.app[SYNC_CONNECTORS],
    )


@routes.route(
    "GET",
    "/api/projects/{id}",
    access=Access.CHANNEL,
    response=ProjectOut,
    errors=(404,),
    summary="One project of the channel",
)
async def get_project(call: Call) -> ProjectOut:
    project = await projects.get_project(call.uow, project_id=call.request.match_info["id"])
    syncs = await links.syncs_of(call.uow, [project.id])
    return projects.project_out(project, links.sync_out(*syncs.get(project.id, (None, 0))))


@routes.route(
    "PATCH",
    "/api/projects/{id}",
    access=Access.CHANNEL,
    body=ProjectPatch,
    response=ProjectSaved,
    errors=(404, 502),
    summary="Change a project; a new state catalogue keeps the mappings of kept states; "
    "`sync` is merged, and a changed link is checked at the source (400, 502: nothing stored)",
)
async def update_project(call: Call) -> dict[str, Any]:
    return await saving.update_project(
        call.uow,
        project_id=call.request.match_info["id"],
        patch=call.body,
        secret_key=call.settings.secret(),
        connectors=call.request.app[SYNC_CONNECTORS],
        messenger=call.request.app[MESSENGER],
    )


@routes.route(
    "POST",
    "/api/projects/{id}/refresh",
    access=Access.CHANNEL,
    response=ProjectSaved,
    errors=(400, 404, 502),
    summary="Read an Azure DevOps or Jira project's states from its source again: states gone "
    "there go with their mappings, new ones arrive unmapped (the channel is told)",
)
async def refresh_project(call: Call) -> dict[str, Any]:
    return await saving.refresh_states(
        call.uow,
        project_id=call.request.match_info["id"],
        secret_key=call.settings.secret(),
        connectors=call.request.app[SYNC_CONNECTORS],
        messenger=call.request.app[MESSENGER],
    )


@routes.route(
    "DELETE",
    "/api/projects/{id}",
    access=Access.CHANNEL,
    status=204,
    errors=(400, 404),
    summary="Unlink and remove an external project: its sync stops, its hooks at the source are "
    "removed, its items move to the channel's native project",
)
async def delete_project(call: Call) -> None:
    await unlinking.delete_project(
        call.uow,
        project_id=call.request.match_info["id"],
        secret_key=call.settings.secret(),
        connectors=call.request.app[SYNC_CONNECTORS],
    )


def _declare_source_statuses(kind: ItemKind) -> None:
    async def source_statuses(call: Call) -> list[dict[str, Any]]:
        return await projects.source_statuses(
            call.uow, kind=kind, project_id=call.request.match_info["project"]
        )

    routes.route(
        "GET",
        f"/api/fields/{kind.value}/status/{{project}}",
        access=Access.CHANNEL,
        response=SourceStatuses,
        errors=(404,),
        summary=f"The states a {kind.value} of this project can take at its source",
    )(named(f"{kind.value}_source_statuses", source_statuses))


for _kind in ItemKind:
    _declare_source_statuses(_kind)
