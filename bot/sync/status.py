"""A project's sync as its channel reads and drives it, and the sources' hook calls."""

import base64
import binascii

from sqlalchemy import select

from bot.db.tables import Project
from bot.db.uow import UnitOfWork
from bot.errors import Invalid, Unauthorized
from bot.ids import is_id
from bot.projects import service as projects
from bot.projects.sources import SourceKind
from bot.sync import links, log
from bot.sync.engine.kinds import link_once, poll_at
from bot.sync_records.schemas import SyncCounts, SyncState, SyncStatusOut

HOOK_USER = "tracker"  # Azure DevOps service hooks' Basic user name
REFUSED = "The hook's credentials were refused."


async def status(uow: UnitOfWork, *, project_id: str) -> SyncStatusOut:
    project = await projects.get_project(uow, project_id=project_id)
    row, pending = (await links.syncs_of(uow, [project.id])).get(project.id, (None, 0))
    shown = links.sync_out(row, pending)
    lines = await log.last_lines(uow, project_id=project.id) if row else []
    return SyncStatusOut.model_validate(
        {
            "state": shown.state,
            "last_pull_at": shown.last_pull_at,
            "last_push_at": shown.last_push_at,
            "pending": pending,
            "last_error": shown.last_error,
            "counts": SyncCounts.model_validate(row.counts if row else {}),
            "log": lines,
        }
    )


async def start_now(uow: UnitOfWork, *, project_id: str) -> SyncState:
    """An import (until one has finished) or a pull, now."""
    project = await projects.get_project(uow, project_id=project_id)
    row = await links.sync_row(uow, project.id, for_update=True)
    if row is None or not row.enabled:
        raise Invalid("sync.enabled", "this project does not sync; enable its sync first")
    if row.state == SyncState.PAUSED:
        raise Invalid("credentials", "the source refused the credentials: save new ones first")
    if row.imported:
        await poll_at(uow, project_id=project.id, run_at=uow.clock.now())
    else:
        await link_once(uow, project_id=project.id)
    return SyncState(row.state)


async def hook_called(
    uow: UnitOfWork,
    *,
    project_id: str,
    authorization: str,
    signature: str,
    body: bytes,
    secret_key: str,
) -> None:
    """A source says something changed: with the right credentials, the project is polled now
    (the call's body is never trusted for content); with wrong or missing ones, 401."""
    row = await links.sync_row(uow, project_id) if is_id(project_id) else None
    held = links.hook_secret(row, secret_key)
    source = await uow.value(select(Project.source).where(Project.id == project_id))
    if row is None or held is None:
        raise Unauthorized(REFUSED)
    if source == SourceKind.JIRA:
        authentic = links.signature_matches(held, body, signature)
    else:
        authentic = _basic_matches(held, authorization)
    if not authentic:
        raise Unauthorized(REFUSED)
    if row.state == SyncState.PAUSED:
        return  # nothing is read until new credentials are saved
    await poll_at(uow, project_id=project_id, run_at=uow.clock.now())


def _basic_matches(held: str, authorization: str) -> bool:
    scheme, _, encoded = authorization.partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        user, _, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return user == HOOK_USER and links.password_matches(held, password)
