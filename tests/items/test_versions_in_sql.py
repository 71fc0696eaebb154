"""The database moves the list versions (migration 0008): a write made in plain SQL, through no
service, is seen by the next list, and moves the versions of the kinds its rows belong to."""

from typing import Any, cast

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import Table, text

from bot.db.tables import FieldMapping, FieldValue, Item, Project
from bot.ids import new_id
from tests.factories import CHANNEL, Factory, Member, create_item
from tests.projects.bodies import CHANNEL_B, add_project, jira

CHANNEL_ID = "SELECT id FROM channels WHERE teams_id = :teams_id"
IN_PROGRESS = {"$filter": "status eq 'In Progress'", "$count": "true"}
ITEMS, VALUES, MAPPINGS, PROJECTS = (
    cast(Table, model.__table__) for model in (Item, FieldValue, FieldMapping, Project)
)


async def sql(factory: Factory, statement: str, **values: Any) -> None:
    """One statement on a plain connection of its own, committed."""
    async with factory.engine.begin() as connection:
        await connection.execute(text(statement), values)


async def scalar(factory: Factory, statement: str, **values: Any) -> Any:
    async with factory.engine.connect() as connection:
        return await connection.scalar(text(statement), values)


def copy(table: Table, source: str, **changed: str) -> str:
    """An INSERT of a copy of the row whose id is the value `source` names, with the SQL of
    `changed` for some of its columns (every name quoted: `order` and `primary` are keywords)."""
    columns = list(table.c.keys())
    names = ", ".join(f'"{name}"' for name in columns)
    chosen = ", ".join(changed.get(name, f'"{name}"') for name in columns)
    return (
        f"INSERT INTO {table.name} ({names}) SELECT {chosen} FROM {table.name} WHERE id = :{source}"
    )


async def bugs(client: TestClient, member: Member, **options: str) -> dict[str, Any]:
    response = await client.get("/odata/bugs", params=options, headers=member.in_channel())
    assert response.status == 200, await response.text()
    return await response.json()


async def counted_twice(client: TestClient, member: Member, options: dict[str, str]) -> int:
    """The count, asked twice: the second answer is the cached one."""
    first = (await bugs(client, member, **options))["@odata.count"]
    assert (await bugs(client, member, **options))["@odata.count"] == first
    return first


async def test_a_count_follows_items_written_in_sql(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    ids = [(await create_item(client, ada, status="In Progress"))["_id"] for _ in range(2)]
    completed = await scalar(
        factory, "SELECT id FROM field_values WHERE type = 'Bug' AND name = 'Completed'"
    )
    assert await counted_twice(client, ada, IN_PROGRESS) == 2
    await sql(
        factory,
        "UPDATE items SET status = 'Completed', status_id = :status WHERE id = :id",
        status=completed,
        id=ids[0],
    )
    assert await counted_twice(client, ada, IN_PROGRESS) == 1
    await sql(
        factory,
        copy(ITEMS, "source", id=":id", internal_id="internal_id + 100"),
        id=new_id(),
        source=ids[1],
    )
    assert await counted_twice(client, ada, IN_PROGRESS) == 2
    await sql(factory, "DELETE FROM items WHERE id = :id", id=ids[1])
    assert await counted_twice(client, ada, IN_PROGRESS) == 1


async def test_a_count_on_assignees_follows_assignments_written_in_sql(
    client: TestClient, factory: Factory
) -> None:
    ada, grace = await factory.member("Ada"), await factory.member("Grace")
    ids = [(await create_item(client, ada, assignedTo=[ada.user.id]))["_id"] for _ in range(2)]
    # Never an empty page: a list that finds no rows reads no version, and caches nothing.
    mine = {"$filter": f"assignedTo/any(u: u/_id eq '{ada.user.id}')", "$count": "true"}
    assert await counted_twice(client, ada, mine) == 2
    await sql(factory, "DELETE FROM item_assignees WHERE item_id = :id", id=ids[0])
    assert await counted_twice(client, ada, mine) == 1
    await sql(
        factory,
        "INSERT INTO item_assignees (item_id, user_id, position, kind, channel_id, created_at) "
        "SELECT id, :user, 0, kind, channel_id, created_at FROM items WHERE id = :id",
        user=ada.user.id,
        id=ids[0],
    )
    assert await counted_twice(client, ada, mine) == 2
    await sql(
        factory,
        "UPDATE item_assignees SET user_id = :user WHERE item_id = :id",
        user=grace.user.id,
        id=ids[1],
    )
    assert await counted_twice(client, ada, mine) == 1


async def test_statuses_and_projects_written_in_sql_show_in_the_next_list(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    await create_item(client, ada, status="In Progress")

    async def first_row() -> dict[str, Any]:
        rows = [(await bugs(client, ada))["value"][0] for _ in range(2)]  # the second cached
        assert rows[0] == rows[1]
        return rows[0]

    before = await first_row()
    assert (before["statusId"]["category"], before["statusValue"]) == ("Active", 50)
    await sql(
        factory,
        "UPDATE field_values SET category = 'New', value = 10 WHERE id = :id",
        id=before["statusId"]["_id"],
    )
    after = await first_row()
    assert (after["statusId"]["category"], after["statusValue"]) == ("New", 10)
    await sql(
        factory,
        "UPDATE projects SET display_name = 'Renamed in SQL' WHERE id = :id",
        id=before["projectId"]["_id"],
    )
    assert (await first_row())["projectId"]["displayName"] == "Renamed in SQL"


async def test_without_its_counter_row_a_list_caches_nothing(
    client: TestClient, factory: Factory
) -> None:
    """A counter row is made with its channel; were one missing, no trigger could move it, and
    lists count afresh rather than trust a version they cannot read."""
    ada = await factory.member()
    ids = [(await create_item(client, ada, status="In Progress"))["_id"] for _ in range(2)]
    await sql(factory, "DELETE FROM item_counters WHERE kind = 'bug'")
    assert await counted_twice(client, ada, IN_PROGRESS) == 2
    await sql(factory, "DELETE FROM items WHERE id = :id", id=ids[0])
    assert await counted_twice(client, ada, IN_PROGRESS) == 1


# Each table's writes: the statement, and the kinds whose versions it moves in the channel of the
# rows it names (those `rows` made); the other channel's stay.
WRITES = {
    "item inserted": (
        copy(ITEMS, "bug", id=":new", internal_id="internal_id + 100"),
        {"bug"},
    ),
    "item updated": ("UPDATE items SET name = 'Renamed' WHERE id = :task", {"task"}),
    "item moved to the other kind": (
        "UPDATE items SET kind = 'task', internal_id = 100 WHERE id = :bug",
        {"bug", "task"},
    ),
    "item deleted": ("DELETE FROM items WHERE id = :task", {"task"}),
    "assignee inserted": (
        "INSERT INTO item_assignees (item_id, user_id, position, kind, channel_id, created_at) "
        "SELECT id, :grace, 1, kind, channel_id, created_at FROM items WHERE id = :task",
        {"task"},
    ),
    "assignee updated": ("UPDATE item_assignees SET position = 5 WHERE item_id = :bug", {"bug"}),
    "assignee deleted": ("DELETE FROM item_assignees WHERE item_id = :task", {"task"}),
    "field value inserted": (
        copy(VALUES, "low", id=":new", name="'Extra'", name_key="'extra'"),
        {"task"},
    ),
    "status updated": ("UPDATE field_values SET color = '#000000' WHERE id = :status", {"bug"}),
    "field value deleted": ("DELETE FROM field_values WHERE id = :low", {"task"}),
    "mapping inserted": (
        copy(MAPPINGS, "bug_mapping", id=":new", source_value_id="'other'"),
        {"bug"},
    ),
    "mapping updated": (
        "UPDATE field_mappings SET enable = enable WHERE id = :task_mapping",
        {"task"},
    ),
    "mapping deleted": ("DELETE FROM field_mappings WHERE id = :bug_mapping", {"bug"}),
    "project inserted": (
        copy(PROJECTS, "project", id=":new", source_id="'OTHER'"),
        {"bug", "task"},
    ),
    "project updated": ("UPDATE projects SET color = 'red' WHERE id = :native", {"bug", "task"}),
    "project deleted": ("DELETE FROM projects WHERE id = :project", {"bug", "task"}),
}


@pytest.fixture
async def rows(client: TestClient, factory: Factory) -> dict[str, str]:
    """A bug and a task assigned to Ada, an external project with its mappings, and another
    channel: the ids the statements above name."""
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    await factory.channel(CHANNEL_B, name="Other")
    bug = await create_item(client, ada, assignedTo=[ada.user.id])
    task = await create_item(client, ada, of="task", assignedTo=[ada.user.id])
    project = await add_project(client, ada, jira())
    here = {"bug": bug["_id"], "teams_id": CHANNEL}
    found = {
        name: await scalar(factory, f"{statement} AND channel_id = ({CHANNEL_ID})", **here)
        for name, statement in {
            "low": "SELECT id FROM field_values WHERE type = 'Task' AND name = 'Low'",
            "status": "SELECT min(id) FROM field_values WHERE type = 'Bug' AND field = 'status'",
            "native": "SELECT project_id FROM items WHERE id = :bug",
            "bug_mapping": "SELECT min(id) FROM field_mappings WHERE entity_type = 'Bug'",
            "task_mapping": "SELECT min(id) FROM field_mappings WHERE entity_type = 'Task'",
        }.items()
    }
    assert all(found.values()), found
    return {
        **found,
        "bug": bug["_id"],
        "task": task["_id"],
        "project": project["_id"],
        "grace": grace.user.id,
        "new": new_id(),
    }


async def versions(factory: Factory) -> dict[tuple[str, str], int]:
    async with factory.engine.connect() as connection:
        found = await connection.execute(
            text(
                "SELECT c.teams_id, v.kind, v.version FROM item_counters AS v "
                "JOIN channels AS c ON c.id = v.channel_id"
            )
        )
        return {(channel, kind): version for channel, kind, version in found}


@pytest.mark.parametrize("write", WRITES)
async def test_each_write_in_sql_moves_its_kinds_versions(
    factory: Factory, rows: dict[str, str], write: str
) -> None:
    statement, kinds = WRITES[write]
    before = await versions(factory)
    async with factory.engine.begin() as connection:
        changed = await connection.execute(text(statement), rows)
        assert changed.rowcount == 1  # type: ignore[attr-defined]
    after = await versions(factory)
    moved = {key for key in before if after[key] != before[key]}
    assert moved == {(CHANNEL, kind) for kind in kinds}
    assert all(after[key] > before[key] for key in moved)


async def test_a_statement_moves_a_version_once_on_postgresql_once_a_row_on_sqlite(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    for _ in range(3):
        await create_item(client, ada)
    before = await versions(factory)
    await sql(factory, "UPDATE items SET name = name || '.'")
    await sql(factory, "UPDATE items SET name = name || '.' WHERE id = 'none'")  # no row
    after = await versions(factory)
    moves = 1 if factory.engine.dialect.name == "postgresql" else 3
    assert {key: after[key] - before[key] for key in before} == {
        (CHANNEL, "bug"): moves,
        (CHANNEL, "task"): 0,
    }
