"""Project rules: every channel has its native project, external ones come with their source's
catalogue and default mappings, credentials are sealed, and an item's project is of its channel."""

from dataclasses import dataclass
from typing import Any, Protocol

from cryptography.fernet import InvalidToken
from sqlalchemy import bindparam, delete, insert, select, update

from bot.db.changes import write_changes
from bot.db.statements import Prepared, Row
from bot.db.tables import FieldMapping, FieldValue, Item, Project
from bot.db.uow import UnitOfWork
from bot.errors import BadRequest, Conflict, Invalid, NotFound
from bot.fields import catalog_locks
from bot.fields.catalog import STATUS
from bot.ids import is_id, new_id
from bot.odata.query import Query, apply, count_statement, page
from bot.projects import credentials
from bot.projects.schemas import ProjectIn, ProjectOut, ProjectPatch, SourceState
from bot.projects.sources import PLANNER_PERCENT, SourceKind, states_of
from bot.schemas import ItemKind
from bot.sync_records.schemas import ProjectSyncOut

# The secrets a project may hold (sync.md: per source), by field name.
SECRET_NAMES = ("token", "password", "email", "tenant_id", "client_id", "client_secret")
PLANNER_TASKS_ONLY = "a Planner plan holds tasks only: a Planner project's enableBug is false"
NO_BUGS = "this project takes no bugs: its enableBug is false"
NATIVE_FIXED = ("hostname", "enable", "enable_bug", "states", "sync", *SECRET_NAMES)
# What an item takes from its project: every create reads it.
_ITEM_PROJECT = select(Project.id, Project.channel_id, Project.source, Project.enable_bug)
_NATIVE = Prepared(
    _ITEM_PROJECT.where(
        Project.channel_id == bindparam("channel_id"), Project.source == SourceKind.NATIVE
    )
)
_BY_ID = Prepared(_ITEM_PROJECT.where(Project.id == bindparam("project_id")))


class ProjectMappings(Protocol):
    """What keeps a project's mappings in step with its source's states
    (`bot.mappings.following`): the caller gives it, as mappings sit above projects."""

    async def configured(self, uow: UnitOfWork, *, project: Row) -> None:
        """The project was just configured: its source's default mappings."""

    async def states_replaced(
        self, uow: UnitOfWork, *, project: Row, before: set[str], map_added: bool
    ) -> None:
        """Its states changed (`before`: their ids before): the mappings follow, the added
        states mapped by default when `map_added`, and the mapping rule runs again."""


async def add_native_project(
    uow: UnitOfWork, *, channel_id: str, teams_channel_id: str, name: str
) -> Row:
    """The channel's own store, named after the channel (docs/api.md, Projects)."""
    now = uow.clock.now()
    project = Row(
        id=new_id(),
        channel_id=channel_id,
        source=SourceKind.NATIVE,
        source_id=teams_channel_id,
        display_name=name,
        project_name=name,
        hostname="",
        color="",
        enable=True,
        enable_bug=True,
        states=[],
        credentials=None,
        credential_names=[],
        created_at=now,
        updated_at=now,
    )
    await uow.execute(insert(Project).values(project))
    return project


async def follow_channel_rename(uow: UnitOfWork, *, channel_id: str, old: str, new: str) -> None:
    """The native project is named after its channel (docs/api.md): a channel renamed in Teams
    renames it, each of its two names that is still the channel's old one (a name given here
    stays as given)."""
    project = await uow.row(
        select(Project)
        .where(Project.channel_id == channel_id, Project.source == SourceKind.NATIVE)
        .with_for_update()
    )
    if project is None or old not in (project.display_name, project.project_name):
        return
    renamed: dict[str, Any] = {"updated_at": uow.clock.now()}
    if project.display_name == old:
        renamed["display_name"] = new
    if project.project_name == old:
        renamed["project_name"] = new
    await uow.execute(update(Project).where(Project.id == project.id).values(renamed))


@dataclass(frozen=True, slots=True)
class ItemProject:
    """A project as an item takes it."""

    id: str
    channel_id: str
    source: str
    enable_bug: bool

    def check_takes(self, kind: ItemKind) -> None:
        """An item of `kind` may enter the project: a bug only where `enableBug` is true (never
        a Planner plan's), else 400 naming `projectId`."""
        if kind is ItemKind.BUG and not self.enable_bug:
            raise Invalid(
                "projectId", PLANNER_TASKS_ONLY if self.source == SourceKind.PLANNER else NO_BUGS
            )


async def native_project(uow: UnitOfWork, *, channel_id: str) -> ItemProject:
    """The channel's own project."""
    project = await uow.row(_NATIVE, {"channel_id": channel_id})
    assert project is not None, "every channel gets its native project when it is added"
    return ItemProject(**project)


async def channel_project(uow: UnitOfWork, *, channel_id: str, project_id: str) -> ItemProject:
    """The project an item names, which must belong to the item's channel."""
    project = await uow.row(_BY_ID, {"project_id": project_id}) if is_id(project_id) else None
    if project is None or project["channel_id"] != channel_id:
        raise Invalid("projectId", f"'{project_id}' is not a project of this channel")
    return ItemProject(**project)


def project_out(project: Row, sync: ProjectSyncOut | None = None) -> ProjectOut:
    """The project as shown; `sync` as `bot.sync.links.sync_out` gives it (default: off)."""
    return ProjectOut.model_validate(
        {
            "id": project.id,
            "display_name": project.display_name,
            "project_name": project.project_name,
            "source": project.source,
            "source_id": project.source_id,
            "hostname": project.hostname,
            "enable": project.enable,
            "enable_bug": project.enable_bug,
            "color": project.color,
            "states": project.states,
            "has_credentials": project.credentials is not None,
            "credentials": [json_name(name) for name in project.credential_names],
            "sync": sync or ProjectSyncOut.off(),
            "created_at": project.created_at,
            "updated_at": project.updated_at,
        }
    )


async def list_projects(uow: UnitOfWork, *, query: Query) -> tuple[list[Row], int | None, bool]:
    statement = select(Project).where(Project.channel_id == _channel_id(uow))
    rows, more = page(await uow.rows(apply(statement, query)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    return rows, count, more


async def get_project(uow: UnitOfWork, *, project_id: str, for_update: bool = False) -> Row:
    """A project of the request's channel; anything else is a 404."""
    project = None
    if is_id(project_id):
        statement = select(Project).where(
            Project.id == project_id, Project.channel_id == _channel_id(uow)
        )
        project = await uow.row(statement.with_for_update() if for_update else statement)
    if project is None:
        raise NotFound(f"Project '{project_id}' not found.")
    return project


async def create_project(
    uow: UnitOfWork, *, body: ProjectIn, secret_key: str, mappings: ProjectMappings
) -> Row:
    """Configure an external project; it starts with its source's default mappings."""
    channel_id = _channel_id(uow)
    source = body.source
    if source is SourceKind.NATIVE:
        raise Invalid("source", "each channel has one Svc.Native project, made with the channel")
    if source.brings_states:
        if not body.hostname:
            raise Invalid("hostname", f"required for {source} projects")
        if not body.states:
            raise Invalid("states", f"required for {source} projects: their state catalogue")
    elif body.states is not None:
        raise Invalid("states", "Planner's states are fixed; send none")
    if source is SourceKind.PLANNER and "enable_bug" in body.model_fields_set and body.enable_bug:
        raise Invalid("enableBug", PLANNER_TASKS_ONLY)
    # Held alone (`catalog_locks`): a concurrent configure of the same project commits first
    # and is seen here, and the statuses the default mappings point at stay.
    await catalog_locks.take(uow, channel_id=channel_id)
    taken = await project_by_source(
        uow, channel_id=channel_id, source=source, source_id=body.source_id
    )
    if taken is not None:
        raise Conflict(f"{source} project '{body.source_id}' is already configured here.")
    now = uow.clock.now()
    project = Row(
        id=new_id(),
        channel_id=channel_id,
        source=source,
        source_id=body.source_id,
        display_name=body.display_name,
        project_name=body.project_name or body.display_name,
        hostname=body.hostname or "",
        color=body.color or "",
        enable=body.enable,
        enable_bug=body.enable_bug and source is not SourceKind.PLANNER,
        states=_stored_states(body.states),
        credentials=None,
        credential_names=[],
        created_at=now,
        updated_at=now,
    )
    _set_secrets(project, secret_key, _secrets(body.model_dump(by_alias=False), {}))
    await uow.execute(insert(Project).values(project))
    await mappings.configured(uow, project=project)
    return project


async def update_project(
    uow: UnitOfWork,
    *,
    project_id: str,
    patch: ProjectPatch,
    secret_key: str,
    mappings: ProjectMappings,
) -> Row:
    """Change what may change; a changed state catalogue keeps the mappings of kept states,
    drops those of removed ones and maps added ones by default."""
    # The statuses added states are mapped to stay until commit: their deletes hold it alone.
    # Taken before the project's row, as every holder of both takes them.
    await catalog_locks.take(uow, channel_id=_channel_id(uow))
    project = await get_project(uow, project_id=project_id, for_update=True)
    before = dict(project)
    source = SourceKind(project.source)
    # By field name: ApiModel dumps by alias (`displayName`) unless told otherwise.
    changes = patch.model_dump(exclude_unset=True, by_alias=False)
    for field in ("display_name", "project_name", "hostname", "enable", "enable_bug", "color"):
        if field in changes and changes[field] is None:
            raise Invalid(json_name(field), "must not be null")
    if changes.get("source") not in (None, source):
        raise Invalid("source", "a project cannot change its source")
    if changes.get("source_id") not in (None, project.source_id):
        raise Invalid("sourceId", "a project cannot change its sourceId")
    if source is SourceKind.NATIVE:
        fixed = [field for field in NATIVE_FIXED if field in changes]
        if fixed:
            raise Invalid(json_name(fixed[0]), "the native project's cannot change")
    if source is SourceKind.PLANNER and changes.get("enable_bug"):
        raise Invalid("enableBug", PLANNER_TASKS_ONLY)
    if "states" in changes:
        if not source.brings_states:
            raise Invalid("states", "Planner's states are fixed")
        if not patch.states:
            raise Invalid("states", "a project keeps at least one state")
        await _replace_states(uow, project, patch.states, mappings)
    for field in ("display_name", "project_name", "hostname", "enable", "enable_bug", "color"):
        if field in changes:
            project[field] = changes[field]
    if any(name in changes for name in SECRET_NAMES):
        _set_secrets(project, secret_key, _secrets(changes, held_secrets(secret_key, project)))
    project["updated_at"] = uow.clock.now()
    await write_changes(uow, Project.id, project, before)
    return project


async def delete_project(uow: UnitOfWork, *, project_id: str) -> None:
    """Remove an external project and its mappings; its items move to the channel's native
    project (sync.md, Unlinking)."""
    # Item writes adding to it hold the lock shared: their items move with the others.
    await catalog_locks.take(uow, channel_id=_channel_id(uow))
    project = await get_project(uow, project_id=project_id, for_update=True)
    if project.source == SourceKind.NATIVE:
        raise BadRequest("The channel's native project cannot be deleted.")
    await _move_items_to_native(uow, project)
    await uow.execute(delete(FieldMapping).where(FieldMapping.project_id == project.id))
    await uow.execute(delete(Project).where(Project.id == project.id))


async def _move_items_to_native(uow: UnitOfWork, project: Row) -> None:
    """The project's items become the channel's own: `sourceId` their own id, no sync problem,
    and an `Invalid` item takes its kind's primary status."""
    native = await native_project(uow, channel_id=project.channel_id)
    for kind in ItemKind:
        primary = await uow.row(
            select(FieldValue.id, FieldValue.name).where(
                FieldValue.channel_id == project.channel_id,
                FieldValue.type == kind.type_label,
                FieldValue.field == STATUS,
                FieldValue.primary.is_(True),
            )
        )
        if primary is None:
            continue
        await uow.execute(
            update(Item)
            .where(
                Item.project_id == project.id,
                Item.kind == kind.value,
                Item.status_id.is_(None),
            )
            .values(status=primary["name"], status_id=primary["id"])
        )
    await uow.execute(
        update(Item)
        .where(Item.project_id == project.id)
        .values(
            project_id=native.id,
            source=SourceKind.NATIVE.value,
            source_id=Item.id,
            sync_status=None,
            updated_at=uow.clock.now(),
        )
    )


async def source_statuses(
    uow: UnitOfWork, *, kind: ItemKind, project_id: str
) -> list[dict[str, Any]]:
    """The states an item of this project can be in at its source (docs/api.md, Projects)."""
    project = await get_project(uow, project_id=project_id)
    source = SourceKind(project.source)
    if source is SourceKind.PLANNER:
        return [
            {
                "id": state.id,
                "name": state.name,
                "percentComplete": PLANNER_PERCENT[state.category],
                "categoty": "",
            }
            for state in states_of(source, project.states)
            if state.category is not None
        ]
    if source.brings_states:
        return list(project.states)
    statuses = await uow.rows(
        select(FieldValue)
        .where(
            FieldValue.channel_id == project.channel_id,
            FieldValue.field == STATUS,
            FieldValue.type == kind.type_label,
        )
        .order_by(FieldValue.order, FieldValue.id)
    )
    return [{"id": s.id, "name": s.name, "category": s.category} for s in statuses]


async def take_source_states(
    uow: UnitOfWork, project: Row, states: list[SourceState], mappings: ProjectMappings
) -> list[SourceState]:
    """The catalogue as the source lists it now (sync.md, States): states it no longer has go
    with their mappings; new ones arrive unmapped, so their items are `Invalid` until someone
    maps them. The states added."""
    before = {state["id"] for state in project.states}
    if _stored_states(states) == project.states:
        return []
    await _replace_states(uow, project, states, mappings, map_added=False)
    await uow.execute(update(Project).where(Project.id == project.id).values(states=project.states))
    return [state for state in states if state.id not in before]


async def _replace_states(
    uow: UnitOfWork,
    project: Row,
    states: list[SourceState],
    mappings: ProjectMappings,
    *,
    map_added: bool = True,
) -> None:
    before = {state["id"] for state in project.states}
    project["states"] = _stored_states(states)
    await mappings.states_replaced(uow, project=project, before=before, map_added=map_added)


def _stored_states(states: list[SourceState] | None) -> list[dict[str, Any]]:
    return [state.model_dump(mode="json") for state in states or []]


def _secrets(sent: dict[str, Any], held: dict[str, str]) -> dict[str, str]:
    """The held secrets with the sent ones applied: a value replaces, null removes."""
    secrets = dict(held)
    for name in SECRET_NAMES:
        if name in sent:
            if sent[name] is None:
                secrets.pop(name, None)
            else:
                secrets[name] = sent[name].get_secret_value()
    return secrets


def _set_secrets(project: Row, secret_key: str, secrets: dict[str, str]) -> None:
    project["credentials"] = credentials.seal(secret_key, secrets)
    project["credential_names"] = sorted(secrets, key=SECRET_NAMES.index)


def held_secrets(secret_key: str, project: Row) -> dict[str, str]:
    """The project's secrets, unsealed (for the sync that uses them)."""
    try:
        return credentials.unseal(secret_key, project.credentials)
    except InvalidToken:  # sealed under an older SECRET_KEY: unreadable, so nothing is kept
        return {}


def json_name(field: str) -> str:
    head, *rest = field.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _channel_id(uow: UnitOfWork) -> str:
    assert uow.channel is not None, "project operations run in a channel"
    return uow.channel.channel_id


async def project_by_source(
    uow: UnitOfWork, *, channel_id: str, source: str, source_id: str
) -> str | None:
    """The id of the channel's project of this source and source id, if it has one."""
    return await uow.value(
        select(Project.id).where(
            Project.channel_id == channel_id,
            Project.source == source,
            Project.source_id == source_id,
        )
    )
