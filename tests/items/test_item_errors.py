"""Refused item requests: the exact 4xx a user sees, and not one row written or changed."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Base, Channel, Item, ItemAssignee, ItemCounter, PendingEvent
from tests.factories import CHANNEL, TEAM, Factory, Member

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
UNKNOWN_ID = "0123456789abcdef01234567"

STATUSES = "Completed, In Progress, Not Started"
PRIORITIES = "High, Low, Normal, Urgent"
SEVERITIES = "Critical, High, Low, Medium"

# A field (or pair) a user may send wrong, and the exact message they get; create and PATCH alike.
BAD_FIELDS = [
    pytest.param(
        {"status": "Nope"},
        f"status: 'Nope' does not exist in this channel (one of: {STATUSES})",
        id="unknown-status",
    ),
    pytest.param(
        {"status": ""},
        f"status: '' does not exist in this channel (one of: {STATUSES})",
        id="empty-status",
    ),
    pytest.param(
        {"priority": "Nope"},
        f"priority: 'Nope' does not exist in this channel (one of: {PRIORITIES})",
        id="unknown-priority",
    ),
    pytest.param(
        {"severity": "Nope"},
        f"severity: 'Nope' does not exist in this channel (one of: {SEVERITIES})",
        id="unknown-severity",
    ),
    pytest.param(
        {"startDate": "2026-11-20", "dueDate": "2026-11-19T23:59:59Z"},
        "dueDate: must not be before startDate",
        id="due-before-start",
    ),
    pytest.param(
        {"name": "x" * 256}, "name: String should have at most 255 characters", id="long-name"
    ),
    pytest.param({"name": "   "}, "name: String should have at least 1 character", id="blank-name"),
    pytest.param(
        # 32,769 characters but 65,538 bytes: the limit counts UTF-8 bytes.
        {"body": "é" * 32769},
        "body: Value error, must be at most 64 KiB of UTF-8",
        id="body-over-64-kib",
    ),
    pytest.param({"name": 5}, "name: Input should be a valid string", id="name-a-number"),
    pytest.param({"bucket": "x"}, "bucket: Input should be a valid list", id="bucket-a-string"),
    pytest.param(
        {"assignedTo": "x"}, "assignedTo: Input should be a valid list", id="assignees-a-string"
    ),
    pytest.param(
        {"assignedTo": ["nobody@contoso.test"]},
        "assignedTo: 'nobody@contoso.test' is not a known user",
        id="unknown-assignee",
    ),
    pytest.param(
        {"source": "Jira"},
        "source: 'Jira' contradicts the project's source 'Svc.Native'",
        id="contradicting-source",
    ),
    pytest.param(
        {"projectId": "f" * 24},
        f"projectId: '{'f' * 24}' is not a project of this channel",
        id="unknown-project",
    ),
    pytest.param(
        # Before year 1 once moved to UTC (was a 500).
        {"dueDate": "0001-01-01T00:00:00+01:00"},
        "dueDate: Value error, is outside the years 1 to 9999 in UTC",
        id="due-date-before-year-1-in-utc",
    ),
    pytest.param(
        # PostgreSQL text cannot hold U+0000 (was a 500 there).
        {"owner": "Ada\x00"},
        "owner: must not contain the NUL character (U+0000)",
        id="nul-character",
    ),
    pytest.param(
        {"bucket": [{"label": "a\x00"}]},
        "bucket.0.label: must not contain the NUL character (U+0000)",
        id="nul-character-nested",
    ),
]


async def stored(factory: Factory) -> dict[str, list[dict[str, Any]]]:
    """Every item, assignee, counter and pending event row: what a refusal must leave alone."""
    tables = [
        Base.metadata.tables[model.__tablename__]
        for model in (Item, ItemAssignee, ItemCounter, PendingEvent)
    ]
    async with factory.work() as uow:
        return {
            table.name: [
                dict(row._mapping)
                for row in await uow.session.execute(
                    select(table).order_by(*table.primary_key.columns)
                )
            ]
            for table in tables
        }


async def create(
    client: TestClient, member: Member, of: str = "bug", team_b: bool = False, **fields: Any
) -> dict[str, Any]:
    """A new item of kind `of`, created through the API."""
    headers = member.in_channel(TEAM_B, CHANNEL_B) if team_b else member.in_channel()
    response = await client.post(f"/odata/{of}s", json={"name": "A bug", **fields}, headers=headers)
    assert response.status == 201, await response.text()
    return await response.json()


async def team_b_member(factory: Factory) -> Member:
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B)
    return await factory.member("Bob", team_id=TEAM_B)


@pytest.mark.parametrize(("fields", "error"), BAD_FIELDS)
async def test_create_with_bad_input_answers_400_and_writes_nothing(
    client, factory: Factory, fields: dict[str, Any], error: str
) -> None:
    ada = await factory.member("Ada")
    await create(client, ada)
    before = await stored(factory)
    response = await client.post(
        "/odata/bugs", json={"name": "Valid", **fields}, headers=ada.in_channel()
    )
    assert (response.status, await response.json()) == (400, {"error": error})
    assert await stored(factory) == before
    assert (await create(client, ada))["internalId"] == 2


@pytest.mark.parametrize(("fields", "error"), BAD_FIELDS)
async def test_patch_with_bad_input_answers_400_and_changes_nothing(
    client, factory: Factory, fields: dict[str, Any], error: str
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada, body="Steps", assignedTo=[ada.user.id])
    before = await stored(factory)
    response = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"owner": "Ada", **fields}, headers=ada.in_channel()
    )
    assert (response.status, await response.json()) == (400, {"error": error})
    assert await stored(factory) == before


@pytest.mark.parametrize("field", ["name", "status", "priority", "severity", "projectId"])
async def test_patch_null_for_a_required_field_answers_400(
    client, factory: Factory, field: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    before = await stored(factory)
    response = await client.patch(
        f"/odata/bugs({bug['_id']})", json={field: None}, headers=ada.in_channel()
    )
    assert (response.status, await response.json()) == (
        400,
        {"error": f"{field}: must not be null"},
    )
    assert await stored(factory) == before


async def test_an_entity_id_header_over_255_characters_answers_400(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    before = await stored(factory)
    headers = {**ada.in_channel(), "x-svc-entityId": "e" * 256}  # was a 500 on PostgreSQL
    response = await client.post("/odata/bugs", json={"name": "A bug"}, headers=headers)
    assert (response.status, await response.json()) == (
        400,
        {"error": "x-svc-entityId: must be at most 255 characters"},
    )
    assert await stored(factory) == before


async def test_patch_due_date_before_the_stored_start_date_answers_400(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, startDate="2026-11-20")
    before = await stored(factory)
    response = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"dueDate": "2026-11-19"}, headers=ada.in_channel()
    )
    assert (response.status, await response.json()) == (
        400,
        {"error": "dueDate: must not be before startDate"},
    )
    assert await stored(factory) == before


async def test_name_of_255_characters_and_body_of_exactly_64_kib_are_accepted(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    created = await create(client, ada, name="n" * 255, body="é" * 32768)
    assert (len(created["name"]), len(created["body"].encode())) == (255, 65536)


async def test_assignee_from_another_team_answers_400_on_create_and_patch(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bob = await team_b_member(factory)
    bug = await create(client, ada)
    before = await stored(factory)
    error = {"error": "assignedTo: 'bob@contoso.test' is not a member of this team"}
    refused = await client.post(
        "/odata/bugs", json={"name": "x", "assignedTo": [bob.user.id]}, headers=ada.in_channel()
    )
    assert (refused.status, await refused.json()) == (400, error)
    refused = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={"assignedTo": [{"email": bob.user.email}]},
        headers=ada.in_channel(),
    )
    assert (refused.status, await refused.json()) == (400, error)
    assert await stored(factory) == before


async def test_project_of_another_channel_answers_400(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    await factory.channel("19:channel-a2@thread.tacv2", name="Other")
    other = await client.post(
        "/odata/bugs",
        json={"name": "Elsewhere"},
        headers=ada.in_channel(channel="19:channel-a2@thread.tacv2"),
    )
    foreign_project = (await other.json())["projectId"]
    bug = await create(client, ada)
    before = await stored(factory)
    error = {"error": f"projectId: '{foreign_project}' is not a project of this channel"}
    refused = await client.post(
        "/odata/bugs", json={"name": "x", "projectId": foreign_project}, headers=ada.in_channel()
    )
    assert (refused.status, await refused.json()) == (400, error)
    refused = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"projectId": foreign_project}, headers=ada.in_channel()
    )
    assert (refused.status, await refused.json()) == (400, error)
    assert await stored(factory) == before


@pytest.mark.parametrize("method", ["post", "patch"])
async def test_malformed_json_answers_400(client, factory: Factory, method: str) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    before = await stored(factory)
    path = "/odata/bugs" if method == "post" else f"/odata/bugs({bug['_id']})"
    headers = {**ada.in_channel(), "Content-Type": "application/json"}
    response = await getattr(client, method)(path, data=b'{"name": ', headers=headers)
    assert response.status == 400
    assert (await response.json())["error"].startswith("Malformed JSON: ")
    assert await stored(factory) == before


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
@pytest.mark.parametrize("method", ["post", "patch"])
async def test_a_body_that_is_not_json_answers_415(
    client, factory: Factory, method: str, content_type: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    before = await stored(factory)
    path = "/odata/bugs" if method == "post" else f"/odata/bugs({bug['_id']})"
    headers = {**ada.in_channel(), "Content-Type": content_type}
    response = await getattr(client, method)(path, data=b'{"name": "x"}', headers=headers)
    assert (response.status, await response.json()) == (
        415,
        {"error": "Content-Type must be application/json."},
    )
    assert await stored(factory) == before


SERVER_OWNED: dict[str, Any] = {
    "_id": "ffffffffffffffffffffffff",
    "internalId": 999,
    "createdAt": "2001-01-01T00:00:00Z",
    "updatedAt": "2001-01-01T00:00:00Z",
    "createdBy": {"source": "x", "email": "mallory@evil.test", "name": "M", "sourceId": "m"},
    "updatedBy": {"id": "m"},
    "teamId": TEAM_B,
    "channelId": CHANNEL_B,
    "sourceId": "forged",
    "kind": "task",
    "attachments": [{"filename": "x.exe"}],
}


async def test_server_owned_fields_in_a_create_are_ignored(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    created = await create(client, ada, **SERVER_OWNED)
    assert created["_id"] != SERVER_OWNED["_id"] and created["internalId"] == 1
    assert created["sourceId"] == created["_id"] and created["attachments"] == []
    assert created["createdAt"] == created["updatedAt"] == "2026-11-21T09:30:00.000Z"
    async with factory.work() as uow:
        item = await uow.session.scalar(select(Item))
        channel = await uow.session.scalar(select(Channel).where(Channel.teams_id == CHANNEL))
    assert item is not None and channel is not None
    assert (item.id, item.channel_id, item.kind) == (created["_id"], channel.id, "bug")
    assert item.created_by == item.updated_by == ada.user.id


async def test_server_owned_fields_in_a_patch_are_ignored(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    before = (await stored(factory))["items"]
    response = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={**SERVER_OWNED, "name": "Renamed"},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    after = (await stored(factory))["items"]
    assert after == [{**before[0], "name": "Renamed"}]


# Four ways to name an item the caller may not see; each answers as if it did not exist.
FLAVOURS = ["malformed", "unknown", "other-kind", "other-team"]


async def foreign_ids(client: TestClient, factory: Factory, ada: Member) -> dict[str, str]:
    task = await create(client, ada, "task", name="A task")
    bob = await team_b_member(factory)
    theirs = await create(client, bob, team_b=True, name="Team B's secret")
    return {
        "malformed": "not-an-id",
        "unknown": UNKNOWN_ID,
        "other-kind": task["_id"],
        "other-team": theirs["_id"],
    }


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("operation", ["details", "patch", "delete"])
async def test_an_id_not_in_the_channel_answers_404_and_shows_nothing(
    client, factory: Factory, flavour: str, operation: str
) -> None:
    ada = await factory.member("Ada")
    await create(client, ada)
    item_id = (await foreign_ids(client, factory, ada))[flavour]
    before = await stored(factory)
    headers = ada.in_channel()
    if operation == "details":
        response = await client.get(f"/api/bugs/{item_id}/details", headers=headers)
    elif operation == "patch":
        response = await client.patch(
            f"/odata/bugs('{item_id}')", json={"name": "Hijacked"}, headers=headers
        )
    else:
        response = await client.delete(f"/odata/bugs({item_id})", headers=headers)
    assert (response.status, await response.json()) == (
        404,
        {"error": f"Bug '{item_id}' not found."},
    )
    assert await stored(factory) == before


@pytest.mark.parametrize("operation", ["create", "details", "patch", "delete", "bulk"])
async def test_a_non_member_with_team_a_headers_gets_403_and_changes_nothing(
    client, factory: Factory, operation: str
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    bob = await team_b_member(factory)
    before = await stored(factory)
    headers = bob.in_channel(team=TEAM, channel=CHANNEL)
    response = await {
        "create": lambda: client.post("/odata/bugs", json={"name": "x"}, headers=headers),
        "details": lambda: client.get(f"/api/bugs/{bug['_id']}/details", headers=headers),
        "patch": lambda: client.patch(
            f"/odata/bugs({bug['_id']})", json={"name": "x"}, headers=headers
        ),
        "delete": lambda: client.delete(f"/odata/bugs({bug['_id']})", headers=headers),
        "bulk": lambda: client.post(
            "/api/bulk/bug", json={"ids": [bug["_id"]], "priority": "Low"}, headers=headers
        ),
    }[operation]()
    assert (response.status, await response.json()) == (
        403,
        {"error": f"You are not a member of team '{TEAM}'."},
    )
    assert await stored(factory) == before


async def test_a_channel_of_another_team_under_ones_own_team_gets_403(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    bob = await team_b_member(factory)
    before = await stored(factory)
    response = await client.get(
        f"/api/bugs/{bug['_id']}/details", headers=bob.in_channel(team=TEAM_B, channel=CHANNEL)
    )
    assert (response.status, await response.json()) == (
        403,
        {"error": f"Channel '{CHANNEL}' is not a channel of team '{TEAM_B}'."},
    )
    assert await stored(factory) == before
