"""The source's state catalogue, read again: on `POST /api/projects/{id}/refresh` and by the
poll at least daily. States gone there go with their mappings; new ones arrive unmapped, and
the sync log and the channel are told of them once (they are new only once)."""

from datetime import datetime, timedelta

from sqlalchemy import select

from bot.db.statements import Row
from bot.db.tables import Channel
from bot.db.uow import UnitOfWork
from bot.mappings.following import FollowingMappings
from bot.messaging import Messenger, SyncStatesAdded
from bot.projects import service as projects
from bot.projects.schemas import SourceState
from bot.sync import links, log

EVERY = timedelta(days=1)


def due(row: Row, now: datetime) -> bool:
    return row.states_read_at is None or now - row.states_read_at >= EVERY


async def keep(
    uow: UnitOfWork,
    *,
    project: Row,
    row: Row | None,
    states: list[dict[str, str]],
    messenger: Messenger,
) -> None:
    """The states just read, kept (`project` held for update); when they were read is written
    in the sync row `row` (held for update, its earlier changes written)."""
    added = await projects.take_source_states(
        uow, project, [SourceState(**s) for s in states], FollowingMappings()
    )
    if row is not None:
        before = dict(row)
        row["states_read_at"] = uow.clock.now()
        await links.write(uow, row, before)
    if not added:
        return
    names = tuple(state.name for state in added)
    await log.write(
        uow,
        project_id=project.id,
        level=log.WARNING,
        message=f"New states at {project.source} with no mapping yet: {', '.join(names)}. "
        "Items in them are Invalid until each is mapped.",
    )
    said = SyncStatesAdded(
        project=project.display_name, project_id=project.id, source=project.source, states=names
    )
    teams_id = await uow.value(select(Channel.teams_id).where(Channel.id == project.channel_id))
    await messenger.post(uow, channel_id=teams_id, said=said)
