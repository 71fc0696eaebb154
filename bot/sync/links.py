"""A project's sync settings and state: merged on save, shown on the project, and its hook
secret (made once, kept only as a digest)."""

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.fernet import InvalidToken
from sqlalchemy import Select, func, insert, select, update

from bot.db.changes import write_changes
from bot.db.expressions import CountAdded
from bot.db.statements import Row
from bot.db.tables import DiscussionMessage, Item, ProjectSync, SyncComment
from bot.db.uow import UnitOfWork
from bot.errors import Invalid
from bot.projects import credentials
from bot.projects.sources import SourceKind
from bot.sync_records.schemas import (
    DEFAULT_INTERVAL_SECONDS,
    DEFAULT_ITEM_TYPES,
    Direction,
    ItemSyncStatus,
    ProjectSyncOut,
    SyncSettings,
    SyncState,
)

HOOKED = (SourceKind.AZURE_DEVOPS, SourceKind.JIRA)  # the sources that call our hook route
# The sources whose comments travel both ways (Planner keeps its own in group conversations).
COMMENTED = (SourceKind.AZURE_DEVOPS, SourceKind.JIRA)
# A comment of a synced item that waits to go out (`SyncComment` joined to its message): made
# here and not yet taken by the source, or edited or deleted here since it was.
COMMENT_WAITS = (
    SyncComment.source_comment_id.is_(None)
    | DiscussionMessage.deleted_at.is_not(None)
    | (SyncComment.text.is_not(None) & DiscussionMessage.edited_at.is_not(None))
)
EMPTY_COUNTS = {"imported": 0, "pushed": 0, "pulled": 0, "conflicts": 0, "errors": 0}


def new_sync(project: Row, now: Any) -> Row:
    """A project's first sync row, off, not yet stored (`insert`)."""
    return Row(
        project_id=project.id,
        enabled=False,
        direction=Direction.BOTH.value,
        interval_seconds=DEFAULT_INTERVAL_SECONDS,
        item_types=_synced_types(DEFAULT_ITEM_TYPES, SourceKind(project.source)),
        query=None,
        state=SyncState.OFF.value,
        last_pull_at=None,
        last_push_at=None,
        last_error=None,
        hook_secret=None,
        hook_ids=[],
        cursor=None,
        import_cursor=None,
        imported=False,
        polls=0,
        asked=0,
        counts=dict(EMPTY_COUNTS),
        told_paused=False,
        states_read_at=None,
        updated_at=now,
    )


async def insert_row(uow: UnitOfWork, row: Row) -> dict[str, Any]:
    """A new sync row stored; what it holds now, the `before` of its next `write`."""
    await uow.execute(insert(ProjectSync).values(row))
    return dict(row)


async def write(uow: UnitOfWork, row: Row, before: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of the sync row changed since `before`, written; what it holds now, the
    `before` of its next write. Written before the unit's next statement, where the ORM's flush
    wrote them: a statement after it sees the row as changed."""
    await write_changes(uow, ProjectSync.project_id, row, before)
    return dict(row)


async def add_to_count(
    uow: UnitOfWork, project_id: str, name: str, by: int = 1, **values: Any
) -> None:
    """Add to one of the project's counts (and set `values`) in one statement that reads the row
    as it stands: a writer that only counts (a push) holds the row from this statement to its
    commit, not for its whole transaction; best the last statement of it."""
    await uow.execute(
        update(ProjectSync)
        .where(ProjectSync.project_id == project_id)
        .values(counts=CountAdded(ProjectSync.counts, name, by), **values)
    )


def merge(row: Row, sent: SyncSettings, source: SourceKind) -> None:
    """The fields sent, over what is held; a field that may not be null refuses it."""
    changes = sent.model_dump(exclude_unset=True, by_alias=False)
    for field in ("enabled", "direction", "interval_seconds", "item_types"):
        if field in changes and changes[field] is None:
            raise Invalid(f"sync.{_json(field)}", "must not be null")
    if "item_types" in changes:
        row["item_types"] = _synced_types(dict(DEFAULT_ITEM_TYPES) | changes["item_types"], source)
    for field in ("enabled", "direction", "interval_seconds", "query"):
        if field in changes:
            value = changes[field]
            row[field] = value.value if isinstance(value, Direction) else value


def _synced_types(types: dict[str, str], source: SourceKind) -> dict[str, str]:
    if source is SourceKind.PLANNER:
        return {kind: name for kind, name in types.items() if kind != "Bug"}  # tasks only
    return dict(types)


async def sync_row(uow: UnitOfWork, project_id: str, *, for_update: bool = False) -> Row | None:
    """The project's sync row as read (changes to it are stored by `write`); `for_update`
    locks it until the unit ends."""
    statement = select(ProjectSync).where(ProjectSync.project_id == project_id)
    return await uow.row(statement.with_for_update() if for_update else statement)


async def syncs_of(uow: UnitOfWork, project_ids: Sequence[str]) -> dict[str, tuple[Row, int]]:
    """Each project's sync row and its pending count (projects never synced are left out)."""
    if not project_ids:
        return {}
    rows = await uow.rows(select(ProjectSync).where(ProjectSync.project_id.in_(project_ids)))
    if not rows:
        return {}
    synced = [row.project_id for row in rows]
    changed_items = (
        select(Item.project_id, func.count().label("pending"))
        .where(Item.project_id.in_(synced), Item.sync_status == ItemSyncStatus.PENDING)
        .group_by(Item.project_id)
    )
    # A comment made, edited or deleted here is a change too, until the source has taken it.
    waiting_comments = (
        select(Item.project_id, func.count().label("pending"))
        .join(SyncComment, SyncComment.item_id == Item.id)
        .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
        .where(Item.project_id.in_(synced), COMMENT_WAITS)
        .group_by(Item.project_id)
    )
    pending: dict[str, int] = {}
    for statement in (changed_items, waiting_comments):
        for counted in await uow.rows(statement):
            project_id = counted["project_id"]
            pending[project_id] = pending.get(project_id, 0) + int(counted["pending"])
    return {row.project_id: (row, pending.get(row.project_id, 0)) for row in rows}


def sync_out(row: Row | None, pending: int = 0) -> ProjectSyncOut:
    if row is None:
        return ProjectSyncOut.off()
    return ProjectSyncOut.model_validate(
        {
            "enabled": row.enabled,
            "direction": row.direction,
            "interval_seconds": row.interval_seconds,
            "item_types": row.item_types,
            "query": row.query,
            "state": row.state,
            "last_pull_at": row.last_pull_at,
            "last_push_at": row.last_push_at,
            "pending": pending,
            "last_error": row.last_error,
        }
    )


def new_hook_secret(row: Row, secret_key: str) -> str:
    """A new secret for the project's hook calls, sealed at rest (in `row`, to `write`); shown
    once."""
    secret = secrets.token_urlsafe(32)
    row["hook_secret"] = credentials.seal(secret_key, {"hookSecret": secret})
    return secret


def hook_secret(row: Row | None, secret_key: str) -> str | None:
    """The held secret of an enabled sync; None when there is none (or SECRET_KEY changed)."""
    if row is None or row.hook_secret is None or not row.enabled:
        return None
    try:
        return credentials.unseal(secret_key, row.hook_secret).get("hookSecret")
    except InvalidToken:
        return None


def password_matches(held: str | None, given: str) -> bool:
    """Azure DevOps' service hooks: Basic user `tracker`, the secret as password."""
    return held is not None and hmac.compare_digest(held.encode(), given.encode())


def signature_matches(held: str | None, body: bytes, signature: str) -> bool:
    """Jira: `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body keyed by the secret>`."""
    scheme, _, given = signature.partition("=")
    if held is None or scheme.strip().lower() != "sha256":
        return False
    expected = hmac.new(held.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), given.strip().lower().encode())


def _json(field: str) -> str:
    head, *rest = field.split("_")
    return head + "".join(part.capitalize() for part in rest)


def items_with_waiting_comments() -> Select[str]:
    """The ids of the items with a comment waiting to go out."""
    return (
        select(SyncComment.item_id)
        .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
        .where(COMMENT_WAITS)
    )
