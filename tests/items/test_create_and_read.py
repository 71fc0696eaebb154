"""Creating a bug or task and reading it back, in their documented shapes."""

import re

from tests.factories import CHANNEL, TEAM, Factory

ID = re.compile(r"^[0-9a-f]{24}$")
MILLIS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
BASE = "http://127.0.0.1:3978"


async def test_create_bug_answers_201_in_the_documented_shape(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    body = {
        "name": "Login button does nothing",
        "body": "Steps: open, click.",
        "owner": "Ada Lovelace",
        "priority": "High",
        "status": "In Progress",
        "startDate": "2026-11-20",
        "dueDate": "2026-11-25T17:00:00+01:00",
        "effort": "3",
        "phase": None,
        "phaseName": None,
        "bucket": ["frontend"],
        "bucketName": "Frontend",
        "assignedTo": [{"_id": ada.user.id, "displayName": "ignored"}],
        "attachments": [{"name": "ignored: attachments are server-owned"}],
        "_id": "ffffffffffffffffffffffff",
        "internalId": 999,
    }
    response = await client.post("/odata/bugs", json=body, headers=ada.in_channel())
    assert response.status == 201
    created = await response.json()
    assert ID.match(created["_id"]) and created["_id"] != body["_id"]
    link = f"{BASE}/odata/bugs('{created['_id']}')"
    assert created == {
        "@odata.context": f"{BASE}/odata/$metadata#bugs/$entity",
        "@odata.editLink": link,
        "@odata.id": link,
        "_id": created["_id"],
        "internalId": 1,
        "sourceId": created["_id"],
        "source": "Svc.Native",
        "name": "Login button does nothing",
        "body": "Steps: open, click.",
        "owner": "Ada Lovelace",
        "priority": "High",
        "severity": "Medium",
        "status": "In Progress",
        "startDate": "2026-11-20T00:00:00.000Z",
        "dueDate": "2026-11-25T16:00:00.000Z",
        "completedDate": None,
        "effort": "3",
        "phase": None,
        "phaseName": None,
        "bucket": ["frontend"],
        "bucketName": "Frontend",
        "projectId": created["projectId"],
        "assignedTo": [ada.user.id],
        "attachments": [],
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }


async def test_create_with_only_a_name_takes_the_channel_defaults(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.post(
        "/odata/tasks", json={"name": "Write docs"}, headers=ada.in_channel()
    )
    assert response.status == 201
    created = await response.json()
    assert (created["status"], created["priority"], created["source"]) == (
        "Not Started",
        "Normal",
        "Svc.Native",
    )
    assert "severity" not in created
    assert created["bucket"] == [] and created["assignedTo"] == []


async def test_details_show_every_field(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    created = await (
        await client.post(
            "/odata/bugs",
            json={"name": "Crash", "assignedTo": [grace.user.username, {"email": ada.user.email}]},
            headers={**ada.in_channel(), "x-svc-entityId": "my-items"},
        )
    ).json()
    response = await client.get(f"/api/bugs/{created['_id']}/details", headers=grace.in_channel())
    assert response.status == 200
    details = await response.json()
    assert details["assignedTo"] == [
        grace.user.model_dump(mode="json"),
        ada.user.model_dump(mode="json"),
    ]
    assert details["statusId"]["category"] == "New" and ID.match(details["statusId"]["_id"])
    assert details["statusValue"] == 0
    assert details["sync"] == {"status": None, "at": "2026-11-21T09:30:00.000Z"}
    assert (details["channelId"], details["teamId"]) == (CHANNEL, TEAM)
    assert details["groupId"] == "a0a0a0a0-0000-0000-0000-000000000001"
    assert details["entityId"] == "my-items"
    assert details["createdBy"] == {
        "source": "Microsoft.Graph.User",
        "email": ada.user.email,
        "name": "Ada Lovelace",
        "sourceId": ada.user.source_id,
    }
    assert details["updatedBy"] == {
        "displayName": "Ada Lovelace",
        "url": "",
        "_links": {"avatar": {"href": ""}},
        "id": ada.user.source_id,
        "uniqueName": ada.user.username,
        "imageUrl": "",
        "descriptor": "",
    }
    assert details["projectId"] == {
        "enableBug": True,
        "_id": created["projectId"],
        "displayName": "Bugs",
        "hostname": "",
        "projectName": "Bugs",
        "sourceId": CHANNEL,
    }
    expected_keys = {
        "_id",
        "bucket",
        "attachments",
        "assignedTo",
        "channelId",
        "teamId",
        "groupId",
        "entityId",
        "sourceId",
        "source",
        "bucketName",
        "createdAt",
        "updatedAt",
        "createdBy",
        "updatedBy",
        "internalId",
        "name",
        "phase",
        "phaseName",
        "priority",
        "severity",
        "status",
        "statusId",
        "statusValue",
        "sync",
        "projectId",
        "body",
        "owner",
        "startDate",
        "dueDate",
        "completedDate",
        "effort",
    }
    assert set(details) == expected_keys
    assert all(MILLIS.match(details[key]) for key in ("createdAt", "updatedAt"))


async def test_creating_in_a_done_status_fills_the_completed_date(client, factory: Factory) -> None:
    ada = await factory.member()
    created = await (
        await client.post(
            "/odata/tasks",
            json={"name": "Done already", "status": "completed"},
            headers=ada.in_channel(),
        )
    ).json()
    assert created["status"] == "Completed"
    assert created["completedDate"] == "2026-11-21T09:30:00.000Z"


async def test_dates_before_year_1000_keep_four_digit_years(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.post(
        "/odata/tasks",
        json={"name": "Old", "startDate": "0235-10-18T23:44:33.498679-09:02"},
        headers=ada.in_channel(),
    )
    assert response.status == 201, await response.text()
    # Was "235-10-19T08:46:33.498Z": not ISO 8601, nor the document's date-time.
    assert (await response.json())["startDate"] == "0235-10-19T08:46:33.498Z"


async def test_internal_ids_count_per_channel_and_kind(client, factory: Factory) -> None:
    ada = await factory.member()
    numbers = []
    for path in ("/odata/bugs", "/odata/bugs", "/odata/tasks", "/odata/bugs"):
        created = await (
            await client.post(path, json={"name": "x"}, headers=ada.in_channel())
        ).json()
        numbers.append(created["internalId"])
    assert numbers == [1, 2, 1, 3]
