"""Cached list counts are never stale: every change in between is seen, in any process."""

import pytest
from aiohttp import web

from bot.app import create_app
from tests.factories import Factory

IN_PROGRESS = {"$filter": "status eq 'In Progress'"}


async def counted(client, member, options: dict[str, str] | None = None) -> int:  # noqa: ANN001
    response = await client.get("/odata/bugs", params=options or {}, headers=member.in_channel())
    assert response.status == 200
    return (await response.json())["@odata.count"]


async def test_counts_follow_every_kind_of_change(client, factory: Factory) -> None:
    ada = await factory.member()
    headers = ada.in_channel()
    assert await counted(client, ada, IN_PROGRESS) == 0
    ids = []
    for _ in range(3):  # create
        created = await client.post(
            "/odata/bugs", json={"name": "b", "status": "In Progress"}, headers=headers
        )
        ids.append((await created.json())["_id"])
        assert await counted(client, ada, IN_PROGRESS) == len(ids)
    await client.patch(f"/odata/bugs({ids[0]})", json={"status": "Completed"}, headers=headers)
    assert await counted(client, ada, IN_PROGRESS) == 2  # PATCH
    await client.post("/api/bulk/bug", json={"ids": ids, "status": "Not Started"}, headers=headers)
    assert await counted(client, ada, IN_PROGRESS) == 0  # bulk edit
    await client.post(
        "/api/bulk/bug", json={"ids": ids[:2], "status": "In Progress"}, headers=headers
    )
    assert await counted(client, ada, IN_PROGRESS) == 2
    await client.delete(f"/odata/bugs({ids[1]})", headers=headers)
    assert await counted(client, ada, IN_PROGRESS) == 1  # delete
    assert await counted(client, ada) == 2


async def test_counts_follow_status_renames_and_deletions(client, factory: Factory) -> None:
    ada = await factory.member()
    headers = ada.in_channel()
    review = await (
        await client.post(
            "/odata/status",
            json={"name": "Review", "type": "Bug", "category": "Active"},
            headers=headers,
        )
    ).json()
    await client.post("/odata/bugs", json={"name": "b", "status": "Review"}, headers=headers)
    assert await counted(client, ada, {"$filter": "status eq 'Review'"}) == 1
    await client.patch(f"/odata/status({review['_id']})", json={"name": "Checked"}, headers=headers)
    assert await counted(client, ada, {"$filter": "status eq 'Review'"}) == 0
    assert await counted(client, ada, {"$filter": "status eq 'Checked'"}) == 1
    await client.delete(f"/odata/status({review['_id']})", headers=headers)
    assert await counted(client, ada, {"$filter": "status eq 'Checked'"}) == 0
    assert await counted(client, ada, {"$filter": "status eq 'Invalid'"}) == 1


async def test_counts_on_assignees_follow_every_assignment_change(client, factory: Factory) -> None:
    ada, bob = await factory.member("Ada"), await factory.member("Bob")
    headers = ada.in_channel()
    mine = {"$filter": f"assignedTo/any(u: u/_id eq '{ada.user.id}')"}
    by_name = {"$filter": "assignedTo/any(u: u/displayName eq 'Ada')"}  # reads the users too
    assert await counted(client, ada, mine) == 0
    first = await (
        await client.post(
            "/odata/bugs", json={"name": "a", "assignedTo": [ada.user.id]}, headers=headers
        )
    ).json()
    assert await counted(client, ada, mine) == 1  # created assigned
    second = await (await client.post("/odata/bugs", json={"name": "b"}, headers=headers)).json()
    assert await counted(client, ada, mine) == 1
    await client.patch(
        f"/odata/bugs({second['_id']})", json={"assignedTo": [ada.user.id]}, headers=headers
    )
    assert await counted(client, ada, mine) == 2  # PATCH
    assert await counted(client, ada, by_name) == 2
    ids = [first["_id"], second["_id"]]
    edited = await client.post(
        "/api/bulk/bug", json={"ids": ids, "assignedTo": [bob.user.id]}, headers=headers
    )
    assert edited.status == 200
    assert await counted(client, ada, mine) == 0  # bulk edit
    assert await counted(client, ada, by_name) == 0
    await client.patch(
        f"/odata/bugs({first['_id']})", json={"assignedTo": [ada.user.id]}, headers=headers
    )
    assert await counted(client, ada, mine) == 1
    await client.patch(f"/odata/bugs({first['_id']})", json={"assignedTo": []}, headers=headers)
    assert await counted(client, ada, mine) == 0  # cleared
    await client.patch(
        f"/odata/bugs({second['_id']})", json={"assignedTo": [ada.user.id]}, headers=headers
    )
    assert await counted(client, ada, mine) == 1
    await client.delete(f"/odata/bugs({second['_id']})", headers=headers)
    assert await counted(client, ada, mine) == 0  # deleted


@pytest.fixture
async def second_process(settings, clock, aiohttp_client):  # noqa: ANN001, ANN201
    """Another app on the same database, with a cache of its own: a second process."""
    app: web.Application = create_app(settings, clock=clock)
    return await aiohttp_client(app)


async def test_a_change_through_another_process_is_seen(
    client, second_process, factory: Factory
) -> None:
    ada = await factory.member()
    assert await counted(client, ada, IN_PROGRESS) == 0
    assert await counted(second_process, ada, IN_PROGRESS) == 0
    await second_process.post(
        "/odata/bugs", json={"name": "b", "status": "In Progress"}, headers=ada.in_channel()
    )
    assert await counted(client, ada, IN_PROGRESS) == 1


async def test_status_changes_show_in_the_next_list(client, factory: Factory) -> None:
    ada = await factory.member()
    headers = ada.in_channel()
    await client.post("/odata/bugs", json={"name": "b", "status": "In Progress"}, headers=headers)

    async def first_row() -> dict:
        response = await client.get("/odata/bugs", headers=headers)
        return (await response.json())["value"][0]

    before = await first_row()
    assert (before["statusId"]["category"], before["statusValue"]) == ("Active", 50)
    status_id = before["statusId"]["_id"]
    await client.patch(
        f"/odata/status({status_id})", json={"category": "New", "value": 10}, headers=headers
    )
    after = await first_row()
    assert (after["statusId"]["category"], after["statusValue"]) == ("New", 10)
