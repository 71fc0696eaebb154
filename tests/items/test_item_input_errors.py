"""Item requests refused for their input: the exact 400 or 415 a user sees on create and PATCH
(bad fields, nulls, a foreign assignee or project, malformed JSON, another content type), and
not one row written or changed."""

from typing import Any

import pytest

from bot.items.schemas import ASSIGNEE_FORMS
from tests.factories import Factory
from tests.items.refusals import create, stored, team_b_member

STATUSES = "Completed, In Progress, Not Started"
PRIORITIES = "High, Low, Normal, Urgent"
SEVERITIES = "Critical, High, Low, Medium"

DEEPEST = 64  # levels of nesting a JSON field (`bucket`) may have


def nested(levels: int) -> list[Any]:
    """A `bucket` nested `levels` deep, itself the first level: `[[...["label"]...]]`."""
    value: list[Any] = ["label"]
    for _ in range(levels - 1):
        value = [value]
    return value


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
        {"bucket": nested(DEEPEST + 1)},
        f"bucket: must be nested at most {DEEPEST} levels deep",
        id="bucket-one-level-too-deep",
    ),
    pytest.param(
        {"bucket": nested(300)},  # deeper than the database's JSON serializer takes
        f"bucket: must be nested at most {DEEPEST} levels deep",
        id="bucket-nested-300-levels",
    ),
    pytest.param(
        {"assignedTo": "x"}, "assignedTo: Input should be a valid list", id="assignees-a-string"
    ),
    *(
        pytest.param(
            {"assignedTo": [bad]}, f"assignedTo.0: {ASSIGNEE_FORMS}", id=f"assignee-{name}"
        )
        for name, bad in [
            ("empty-object", {}),
            ("a-number", 5),
            ("null", None),
            ("empty-text", ""),
            ("too-long", "x" * 256),
            ("id-a-number", {"_id": 5}),
        ]
    ),
    pytest.param(
        {"assignedTo": ["nobody@contoso.test"]},
        "assignedTo: 'nobody@contoso.test' is not a member of this team",
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


async def test_a_bucket_nested_at_the_limit_is_stored_and_read_back(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    created = await create(client, ada, bucket=nested(DEEPEST))
    response = await client.get(f"/api/bugs/{created['_id']}/details", headers=ada.in_channel())
    assert response.status == 200, await response.text()
    assert (await response.json())["bucket"] == nested(DEEPEST)


async def test_assignee_from_another_team_is_named_only_as_the_caller_named_them(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bob = await team_b_member(factory)
    bug = await create(client, ada)
    before = await stored(factory)
    # Never Bob's UPN, which Ada cannot see: only the reference she sent.
    for sent, named in [
        (bob.user.id, bob.user.id),
        ({"_id": bob.user.id}, bob.user.id),
        ({"sourceId": bob.user.source_id}, bob.user.source_id),
        ({"email": bob.user.email}, bob.user.email),
    ]:
        error = {"error": f"assignedTo: '{named}' is not a member of this team"}
        refused = await client.post(
            "/odata/bugs", json={"name": "x", "assignedTo": [sent]}, headers=ada.in_channel()
        )
        assert (refused.status, await refused.json()) == (400, error)
        refused = await client.patch(
            f"/odata/bugs({bug['_id']})", json={"assignedTo": [sent]}, headers=ada.in_channel()
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
