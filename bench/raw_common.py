"""What the raw-driver ceilings share: the app's statements compiled once for the driver, and
the rows turned into the app's JSON by hand, with no SQLAlchemy at run time.

Each ceiling runs the statements the app runs for the same request (compiled from the app's own
query code at start-up, with stand-in values replaced per request) and encodes the same JSON.
"""

import json
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg
from sqlalchemy import Select, select
from sqlalchemy.engine import Dialect

from bot.db.expressions import one_of
from bot.db.tables import FieldValue, Project, User
from bot.db.text import register_sqlite_functions

USER = User.__table__.c
PROJECT = Project.__table__.c
FIELD_VALUE = FieldValue.__table__.c
# The caller by session hash, as `bot.auth.service` reads it (with the channel for channel routes).
CALLER = (
    "SELECT t.expires_at, t.revoked_at, u.id FROM auth_tokens t JOIN users u ON u.id = t.user_id "
    "WHERE t.token_hash = {0}"
)
CALLER_IN_CHANNEL = """
SELECT t.expires_at, u.id, tm.user_id, ch.id
FROM auth_tokens t JOIN users u ON u.id = t.user_id
LEFT JOIN teams tt ON tt.teams_id = {1}
LEFT JOIN team_members tm ON tm.team_id = tt.id AND tm.user_id = u.id
LEFT JOIN channels ch ON ch.teams_id = {2}
WHERE t.token_hash = {0}"""
_SQLITE_STORED_LENGTH = len("2026-11-22 09:30:00.000000")


class Compiled:
    """One of the app's statements as the driver takes it: values equal to a stand-in are
    replaced per request; list values are bound as the driver needs them (one_of)."""

    def __init__(self, statement: Select[Any], dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self.values = [compiled.params[name] for name in compiled.positiontup or ()]
        self.columns = {
            column.key: index for index, column in enumerate(statement.selected_columns)
        }
        self.sqlite = dialect.name == "sqlite"

    def args(self, replace: dict[str, Any], ids: Sequence[str] = ()) -> list[Any]:
        """The values for one request: stand-ins replaced, a list value (one_of) set to `ids`."""
        values = []
        for value in self.values:
            if isinstance(value, list):
                value = json.dumps(list(ids)) if self.sqlite else list(ids)
            elif isinstance(value, str):
                value = replace.get(value, value)
            values.append(value)
        return values


class Driver:
    """sqlite3 on the event loop, or an asyncpg pool."""

    def __init__(self, database_url: str) -> None:
        self.sqlite = database_url.startswith("sqlite")
        self.connection: sqlite3.Connection | None = None
        self.pool: asyncpg.Pool | None = None
        if self.sqlite:
            path = database_url.split(":///", 1)[1]
            self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            register_sqlite_functions(self.connection)  # the items' indexes call them
        self.dsn = database_url.replace("postgresql+asyncpg", "postgresql")

    def marker(self, number: int) -> str:
        return "?" if self.sqlite else f"${number}"

    async def rows(self, sql: str, args: Sequence[Any]) -> list[Sequence[Any]]:
        if self.connection is not None:
            return self.connection.execute(sql, list(args)).fetchall()
        assert self.pool is not None
        return await self.pool.fetch(sql, *args)


def pool(dsn: str, max_size: int) -> asyncpg.Pool:
    """The ceilings' asyncpg pool. Its reset on release sends nothing: the ceilings change no
    session state, and asyncpg's own reset, a round trip per release, cost the ceilings more
    than the app's pool pays (SQLAlchemy's reset is a rollback, which outside a transaction
    sends nothing)."""
    return asyncpg.create_pool(dsn, min_size=2, max_size=max_size, reset=_keep_as_is)


async def _keep_as_is(_connection: asyncpg.Connection) -> None:
    return None


def users_statement(dialect: Dialect) -> Compiled:
    return Compiled(select(*USER).where(one_of(USER.id, ["stand-in"])), dialect)


def statuses_statement(dialect: Dialect) -> Compiled:
    """The statuses rows name, as the personal views look them up."""
    columns = (FIELD_VALUE.id, FIELD_VALUE.category, FIELD_VALUE.value)
    return Compiled(select(*columns).where(one_of(FIELD_VALUE.id, ["stand-in"])), dialect)


def projects_statement(dialect: Dialect) -> Compiled:
    """The projects rows name, as the personal views look them up."""
    return Compiled(select(*PROJECT).where(one_of(PROJECT.id, ["stand-in"])), dialect)


def project_refs(rows: Sequence[Sequence[Any]], at: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Projects by id, as items embed them."""
    return {
        row[at["id"]]: {
            "enableBug": bool(row[at["enable_bug"]]),
            "_id": row[at["id"]],
            "displayName": row[at["display_name"]],
            "hostname": row[at["hostname"]],
            "projectName": row[at["project_name"]],
            "sourceId": row[at["source_id"]],
        }
        for row in rows
    }


def timestamp(value: str | None) -> str | None:
    """The API's text of a timestamp column read with `timestamp_text` (SQLite: reshaped)."""
    if value is None or len(value) != _SQLITE_STORED_LENGTH:
        return value
    return f"{value[:10]}T{value[11:23]}Z"


def ids_in_order(value: Any) -> list[str]:
    """An `assignee_ids` column: PostgreSQL's array, or SQLite's `[[position, id], …]`."""
    if value is None:
        return []
    if isinstance(value, str):
        return [user_id for _position, user_id in sorted(json.loads(value))]
    return list(value)


def user(row: Sequence[Any], at: dict[str, int]) -> dict[str, Any]:
    return {
        "_id": row[at["id"]],
        "sourceId": row[at["source_id"]],
        "displayName": row[at["display_name"]],
        "email": row[at["email"]],
        "username": row[at["username"]],
        "source": row[at["source"]],
    }


def details(
    row: Sequence[Any],
    at: dict[str, int],
    assigned: list[str],
    statuses: dict[str, Any],
    projects: dict[str, Any],
    users: dict[str, dict[str, Any]],
    place: tuple[str, str, str | None],
) -> dict[str, Any]:
    """An item's details, as `bot.items.read` renders them (`assigned`: its assignees' ids)."""
    status = statuses.get(row[at["status_id"]])
    creator, editor = users.get(row[at["created_by"]]), users.get(row[at["updated_by"]])
    bucket = row[at["bucket"]]
    shown = {
        "_id": row[at["id"]],
        "internalId": row[at["internal_id"]],
        "name": row[at["name"]],
        "body": row[at["body"]],
        "owner": row[at["owner"]],
        "status": row[at["status"]],
        "priority": row[at["priority"]],
        "source": row[at["source"]],
        "sourceId": row[at["source_id"]],
        "startDate": timestamp(row[at["start_date"]]),
        "dueDate": timestamp(row[at["due_date"]]),
        "completedDate": timestamp(row[at["completed_date"]]),
        "effort": row[at["effort"]],
        "phase": row[at["phase"]],
        "phaseName": row[at["phase_name"]],
        "bucket": json.loads(bucket) if isinstance(bucket, str) else bucket,
        "bucketName": row[at["bucket_name"]],
        "attachments": [],
        "createdAt": timestamp(row[at["created_at"]]),
        "updatedAt": timestamp(row[at["updated_at"]]),
        "statusId": {"_id": row[at["status_id"]], "category": status[1] if status else None},
        "statusValue": status[2] if status else None,
        "sync": {"status": row[at["sync_status"]], "at": timestamp(row[at["sync_at"]])},
        "projectId": projects[row[at["project_id"]]],
        "assignedTo": [users[user_id] for user_id in assigned],
        "channelId": place[0],
        "teamId": place[1],
        "groupId": place[2],
        "entityId": row[at["entity_id"]],
        "createdBy": creator
        and {
            "source": creator["source"],
            "email": creator["email"] or creator["username"],
            "name": creator["displayName"],
            "sourceId": creator["sourceId"],
        },
        "updatedBy": editor
        and {
            "displayName": editor["displayName"],
            "url": "",
            "_links": {"avatar": {"href": ""}},
            "id": editor["sourceId"],
            "uniqueName": editor["username"],
            "imageUrl": "",
            "descriptor": "",
        },
    }
    if "severity" in at and row[at["kind"]] == "bug":
        shown["severity"] = row[at["severity"]]
    return shown


Run = Callable[[str, list[Any]], Awaitable[Sequence[Sequence[Any]]]]


async def people(
    run: Run, users_of: Compiled, rows: Sequence[Sequence[Any]], at: dict[str, int]
) -> tuple[list[list[str]], dict[str, dict[str, Any]]]:
    """Each row's assignee ids, and every user the rows name (assignees, creators, last
    editors) looked up in one statement, as `bot.items.read` does."""
    assigned = [ids_in_order(row[at["assignee_ids"]]) for row in rows]
    wanted = {user_id for ids in assigned for user_id in ids}
    wanted |= {row[at[key]] for row in rows for key in ("created_by", "updated_by") if row[at[key]]}
    if not wanted:
        return assigned, {}
    found = await run(users_of.sql, users_of.args({}, list(wanted)))
    return assigned, {row[0]: user(row, users_of.columns) for row in found}
