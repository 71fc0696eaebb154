"""A channel's synced projects as its chat shows them (the `sync` command): all of them, or
the one a person names."""

from sqlalchemy import select

from bot.db.statements import Row
from bot.db.tables import Project, ProjectSync
from bot.db.uow import UnitOfWork
from bot.errors import BadRequest, NotFound
from bot.projects.sources import SourceKind
from bot.sync import links
from bot.sync_records.schemas import ProjectSyncShown, SyncCounts

NAME_SHOWN_MAX = 60
NO_SUCH = "This channel has no project called “{name}”. Type `sync` to see the synced ones."
NOT_SYNCING = (
    "“{name}” does not sync with its source: switch its sync on first (`sync.enabled` on the "
    "project)."
)


async def synced_projects(uow: UnitOfWork) -> list[ProjectSyncShown]:
    """The channel's projects whose sync is on, by name."""
    projects = await uow.rows(
        select(Project)
        .join(ProjectSync, ProjectSync.project_id == Project.id)
        .where(Project.channel_id == _channel_id(uow), ProjectSync.enabled.is_(True))
        .order_by(Project.display_name, Project.id)
    )
    return await _shown(uow, projects)


async def synced_project(uow: UnitOfWork, *, name: str) -> ProjectSyncShown:
    """The channel's project called `name` (its display name, else its id at the source, case
    ignored), which must sync."""
    projects = await uow.rows(
        select(Project)
        .where(Project.channel_id == _channel_id(uow), Project.source != SourceKind.NATIVE.value)
        .order_by(Project.display_name, Project.id)
    )
    wanted = name.strip().casefold()
    found = next((p for p in projects if p.display_name.casefold() == wanted), None) or next(
        (p for p in projects if p.source_id.casefold() == wanted), None
    )
    shown = _short(name)
    if found is None:
        raise NotFound(f"Project '{name}' not found.", said=NO_SUCH.format(name=shown))
    synced = await _shown(uow, [found])
    if not synced:
        said = NOT_SYNCING.format(name=_short(found.display_name))
        raise BadRequest(f"Project '{found.display_name}' does not sync.", said=said)
    return synced[0]


async def _shown(uow: UnitOfWork, projects: list[Row]) -> list[ProjectSyncShown]:
    held = await links.syncs_of(uow, [project.id for project in projects])
    shown = []
    for project in projects:
        if project.id not in held:
            continue
        row, pending = held[project.id]
        out = links.sync_out(row, pending)
        if not out.enabled:
            continue
        shown.append(
            ProjectSyncShown(
                project_id=project.id,
                name=project.display_name,
                source=project.source,
                state=out.state,
                pending=pending,
                last_error=out.last_error,
                counts=SyncCounts.model_validate(row.counts),
                last_pull_at=out.last_pull_at,
                last_push_at=out.last_push_at,
            )
        )
    return shown


def _short(name: str) -> str:
    line = " ".join(name.split())
    return line if len(line) <= NAME_SHOWN_MAX else line[: NAME_SHOWN_MAX - 1] + "…"


def _channel_id(uow: UnitOfWork) -> str:
    assert uow.channel is not None, "a channel's projects are read in the channel"
    return uow.channel.channel_id
