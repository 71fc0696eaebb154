"""A project's mappings follow its source's states (`bot.projects.service.ProjectMappings`): a
project configured starts with its source's default mappings; a changed state catalogue keeps
the mappings of kept states (under their new names), drops those of removed ones, maps added
ones by default when asked, and the mapping rule is applied to the project's items again."""

from sqlalchemy import delete, update

from bot.db.expressions import one_of
from bot.db.statements import Row
from bot.db.tables import FieldMapping
from bot.db.uow import UnitOfWork
from bot.fields.catalog import STATUS
from bot.mappings import rule
from bot.mappings.defaults import add_default_mappings
from bot.projects.sources import SourceKind, states_of


class FollowingMappings:
    async def configured(self, uow: UnitOfWork, *, project: Row) -> None:
        states = states_of(SourceKind(project.source), project.states)
        await add_default_mappings(uow, project=project, states=states)

    async def states_replaced(
        self, uow: UnitOfWork, *, project: Row, before: set[str], map_added: bool
    ) -> None:
        removed = before - {state["id"] for state in project.states}
        if removed:
            await uow.execute(
                delete(FieldMapping).where(
                    FieldMapping.project_id == project.id,
                    FieldMapping.type == STATUS,
                    one_of(FieldMapping.source_value_id, removed),
                )
            )
        for state in project.states:  # a renamed state keeps its mappings under its new name
            if state["id"] in before:
                await uow.execute(
                    update(FieldMapping)
                    .where(
                        FieldMapping.project_id == project.id,
                        FieldMapping.type == STATUS,
                        FieldMapping.source_value_id == state["id"],
                    )
                    .values(source_value_name=state["name"])
                )
        if map_added:
            added = tuple(
                s
                for s in states_of(SourceKind(project.source), project.states)
                if s.id not in before
            )
            await add_default_mappings(uow, project=project, states=added, severities=False)
        await rule.refresh_items(uow, channel_id=project.channel_id, project_id=project.id)
