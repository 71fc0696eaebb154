"""Sync routes: a project's sync status and log, starting it now, a new hook secret, and the
route the sources call when something changed (docs/sync.md)."""

from bot.sync import saving, status
from bot.sync_records.schemas import HookSecretOut, SyncStarted, SyncStatusOut
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="sync")


@routes.route(
    "GET",
    "/api/projects/{id}/sync",
    access=Access.CHANNEL,
    response=SyncStatusOut,
    errors=(404,),
    summary="The project's sync: state, pending changes, last error, counts and the last 100 "
    "log lines, newest first",
)
async def get_sync(call: Call) -> SyncStatusOut:
    return await status.status(call.uow, project_id=call.request.match_info["id"])


@routes.route(
    "POST",
    "/api/projects/{id}/sync",
    access=Access.CHANNEL,
    status=202,
    response=SyncStarted,
    errors=(400, 404),
    summary="Start the import (until one has finished) or a pull, now",
)
async def start_sync(call: Call) -> SyncStarted:
    state = await status.start_now(call.uow, project_id=call.request.match_info["id"])
    return SyncStarted(state=state)


@routes.route(
    "POST",
    "/api/projects/{id}/sync/hook-secret",
    access=Access.CHANNEL,
    response=HookSecretOut,
    errors=(400, 404),
    summary="A new hook secret (shown this once); the old one stops working",
)
async def renew_hook_secret(call: Call) -> HookSecretOut:
    secret = await saving.new_hook_secret(
        call.uow, project_id=call.request.match_info["id"], secret_key=call.settings.secret()
    )
    return HookSecretOut(hook_secret=secret)


@routes.route(
    "POST",
    "/api/sync/hooks/{id}",
    access=Access.PUBLIC,
    status=202,
    errors=(401,),
    headers=("Authorization", "X-Hub-Signature"),
    summary="A source's call saying something changed (Azure DevOps: Basic `tracker` and the "
    "hook secret; Jira: `X-Hub-Signature: sha256=…`): the project is read from its source now",
)
async def hook(call: Call) -> None:
    body = await call.request.read()
    await status.hook_called(
        call.uow,
        project_id=call.request.match_info["id"],
        authorization=call.request.headers.get("Authorization", ""),
        signature=call.request.headers.get("X-Hub-Signature", ""),
        body=body,
        secret_key=call.settings.secret(),
    )
