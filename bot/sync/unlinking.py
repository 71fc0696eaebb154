"""Unlinking a project from its source: sync switched off removes the service hooks the link
made there, and deleting the project removes them too before its items move to the channel's
native project (sync.md, Unlinking). A source that cannot remove them (down, refusing) never
blocks either: the subscriptions left behind call a project whose sync is off or gone, and are
answered 401 without anything being read."""

import logging

from bot.db.statements import Row
from bot.db.uow import UnitOfWork
from bot.projects import service as projects
from bot.projects.sources import SourceKind
from bot.sync import links, log
from bot.sync.connectors import Connectors, Link, NoConnector
from bot.sync.source import SourceError, SourceNotFound, SourceUnauthorized

logger = logging.getLogger(__name__)

UNREMOVABLE = (SourceError, SourceUnauthorized, SourceNotFound, NoConnector)


async def remove_hooks(
    *,
    project: Row,
    row: Row,
    secret_key: str,
    connectors: Connectors,
) -> str | None:
    """The source's subscriptions for this project removed and forgotten (in `row`, to
    `links.write`); why some may be left there, when the source could not remove them (None:
    none are)."""
    ids, row["hook_ids"] = list(row.hook_ids), []
    if not ids:
        return None
    link = Link(
        kind=SourceKind(project.source),
        hostname=project.hostname,
        source_id=project.source_id,
        secrets=projects.held_secrets(secret_key, project),
    )
    try:
        await connectors.open(link).remove_hooks(ids)
    except UNREMOVABLE as exc:
        reason = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        return (
            f"{project.source} could not remove the service hook subscriptions "
            f"{', '.join(ids)} ({reason}); remove them there by hand. "
            "Meanwhile their calls are refused here."
        )
    return None


async def switched_off(
    uow: UnitOfWork, *, project: Row, row: Row, secret_key: str, connectors: Connectors
) -> None:
    """Sync just switched off: hooks removed (its poller and pushes find it off and end);
    the items and their links stay. `row`, held for update, has its earlier changes written."""
    before = dict(row)
    left = await remove_hooks(
        project=project, row=row, secret_key=secret_key, connectors=connectors
    )
    await links.write(uow, row, before)
    message = "Sync switched off: nothing is read or sent until it is switched on again."
    if left is None:
        await log.write(uow, project_id=project.id, message=message)
    else:
        await log.write(uow, project_id=project.id, level=log.WARNING, message=f"{message} {left}")


async def delete_project(
    uow: UnitOfWork, *, project_id: str, secret_key: str, connectors: Connectors
) -> None:
    """Unlink and delete an external project: its sync stops, its hooks are removed at the
    source, its items move to the channel's native project."""
    project = await projects.get_project(uow, project_id=project_id)
    row = await links.sync_row(uow, project.id)
    if row is not None and row.hook_ids:  # the row goes with the project: not written
        left = await remove_hooks(
            project=project, row=row, secret_key=secret_key, connectors=connectors
        )
        if left is not None:  # the project's own log goes with it
            logger.warning("project %s deleted: %s", project.id, left)
    await projects.delete_project(uow, project_id=project.id)
