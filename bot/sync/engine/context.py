"""What the engine knows of one linked project while it works: its channel, its kinds' source
types, its mappings both ways, and the channel's team members as the source knows them."""

from dataclasses import dataclass, field

from sqlalchemy import select

from bot.db.statements import Row
from bot.db.tables import Channel, FieldMapping, FieldValue
from bot.db.uow import UnitOfWork
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind
from bot.sync.engine.people import People, load_people


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
    people: People  # the team's members as the source knows them

    def mapped(self, kind: ItemKind, field_name: str) -> Values:
        return self.values.setdefault((kind, field_name), Values())


async def load(uow: UnitOfWork, project: Row, row: Row) -> ProjectContext:
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
    source = SourceKind(project.source)
    people = await load_people(uow, team_id=team_id, source=source, hostname=project.hostname)
    return ProjectContext(
        project_id=project.id,
        channel_id=project.channel_id,
        team_id=team_id,
        source=source,
        hostname=project.hostname,
        source_id=project.source_id,
        kinds=kinds,
        types={kind: name for name, kind in kinds.items()},
        values=values,
        people=people,
    )
