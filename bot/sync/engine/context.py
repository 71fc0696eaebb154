"""What the engine knows of one linked project while it works: its channel, its kinds' source
types, its mappings both ways, and the channel's team members by email."""

from dataclasses import dataclass, field

from sqlalchemy import select

from bot.db.tables import (
    Channel,
    FieldMapping,
    FieldValue,
    Project,
    ProjectSync,
    TeamMember,
    User,
)
from bot.db.uow import UnitOfWork
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind
from bot.sync.source import SourcePerson


@dataclass
class Values:
    """One field's mappings for one kind: source value → channel value, and back."""

    names: dict[str, str] = field(default_factory=dict)  # channel value id → its name
    inward: dict[str, str] = field(default_factory=dict)  # source value id → channel value id
    outward: dict[str, str] = field(default_factory=dict)  # channel value id → source value id
    primary: str | None = None  # the channel value id taken when a source value has none


@dataclass
class ProjectContext:
    project_id: str
    channel_id: str
    team_id: str
    source: SourceKind
    hostname: str
    source_id: str
    kinds: dict[str, ItemKind]  # the source's type name → our kind
    types: dict[ItemKind, str]  # our kind → the source's type name
    values: dict[tuple[ItemKind, str], Values]  # (kind, field) → its mappings
    members: dict[str, tuple[str, str]]  # a member's email, folded → (user id, display name)
    emails: dict[str, tuple[str, str]]  # user id → (email, display name)
    # A member's Entra object id (Planner names people by it) → (user id, display name)
    object_ids: dict[str, tuple[str, str]] = field(default_factory=dict)
    people: dict[str, SourcePerson] = field(default_factory=dict)  # user id → as sent out

    def mapped(self, kind: ItemKind, field_name: str) -> Values:
        return self.values.setdefault((kind, field_name), Values())

    def member_of(self, person: SourcePerson) -> tuple[str, str] | None:
        """The team member a source user is: by email (Azure DevOps, Jira), else by Entra
        object id (Planner)."""
        return self.members.get(fold(person.email or "")) or self.object_ids.get(person.id)


async def load(uow: UnitOfWork, project: Project, row: ProjectSync) -> ProjectContext:
    kinds = {name: ItemKind(kind.lower()) for kind, name in row.item_types.items()}
    team_id = await uow.value(select(Channel.team_id).where(Channel.id == project.channel_id))
    values: dict[tuple[ItemKind, str], Values] = {}
    catalogue = await uow.rows(
        select(
            FieldValue.id, FieldValue.name, FieldValue.field, FieldValue.type, FieldValue.primary
        )
        .where(FieldValue.channel_id == project.channel_id)
        .order_by(FieldValue.order, FieldValue.id)
    )
    for value in catalogue:
        mapped = values.setdefault((ItemKind(value["type"].lower()), value["field"]), Values())
        mapped.names[value["id"]] = value["name"]
        if value["primary"]:
            mapped.primary = value["id"]
    order = {state["id"]: at for at, state in enumerate(project.states)}
    mappings = await uow.rows(
        select(
            FieldMapping.field_id,
            FieldMapping.type,
            FieldMapping.entity_type,
            FieldMapping.source_value_id,
        ).where(FieldMapping.project_id == project.id, FieldMapping.enable.is_(True))
    )
    # Outbound, the source value first in the source's catalogue wins (docs/api.md, mappings).
    for mapping in sorted(mappings, key=lambda m: order.get(m["source_value_id"], len(order))):
        mapped = values.setdefault(
            (ItemKind(mapping["entity_type"].lower()), mapping["type"]), Values()
        )
        mapped.inward[mapping["source_value_id"]] = mapping["field_id"]
        mapped.outward.setdefault(mapping["field_id"], mapping["source_value_id"])
    people = await uow.rows(
        select(User.id, User.email, User.display_name, User.source_id)
        .join(TeamMember, TeamMember.user_id == User.id)
        .where(TeamMember.team_id == team_id)
    )
    return ProjectContext(
        project_id=project.id,
        channel_id=project.channel_id,
        team_id=team_id,
        source=SourceKind(project.source),
        hostname=project.hostname,
        source_id=project.source_id,
        kinds=kinds,
        types={kind: name for name, kind in kinds.items()},
        values=values,
        members={fold(p["email"]): (p["id"], p["display_name"]) for p in people if p["email"]},
        emails={p["id"]: (p["email"], p["display_name"]) for p in people if p["email"]},
        object_ids={p["source_id"]: (p["id"], p["display_name"]) for p in people},
        people={
            p["id"]: SourcePerson(
                id=p["source_id"], display_name=p["display_name"], email=p["email"]
            )
            for p in people
        },
    )


def fold(email: str) -> str:
    return email.strip().casefold()
