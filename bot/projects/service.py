"""Project rules: every channel has its native project; an item's project is of its channel."""

from sqlalchemy import select

from bot.db.tables import Project
from bot.errors import Invalid
from bot.ids import is_id, new_id
from bot.projects.schemas import NATIVE_SOURCE
from bot.uow import UnitOfWork


async def add_native_project(
    uow: UnitOfWork, *, channel_id: str, teams_channel_id: str, name: str
) -> Project:
    """The channel's own store, named after the channel (api.md §5)."""
    now = uow.clock.now()
    project = Project(
        id=new_id(),
        channel_id=channel_id,
        source=NATIVE_SOURCE,
        source_id=teams_channel_id,
        display_name=name,
        project_name=name,
        hostname="",
        color="",
        enable=True,
        enable_bug=True,
        created_at=now,
        updated_at=now,
    )
    uow.session.add(project)
    await uow.session.flush()
    return project


async def native_project(uow: UnitOfWork, *, channel_id: str) -> Project:
    project = await uow.session.scalar(
        select(Project).where(Project.channel_id == channel_id, Project.source == NATIVE_SOURCE)
    )
    assert project is not None, "every channel gets its native project when it is added"
    return project


async def channel_project(uow: UnitOfWork, *, channel_id: str, project_id: str) -> Project:
    """The project an item names, which must belong to the item's channel."""
    project = await uow.session.get(Project, project_id) if is_id(project_id) else None
    if project is None or project.channel_id != channel_id:
        raise Invalid("projectId", f"'{project_id}' is not a project of this channel")
    return project
