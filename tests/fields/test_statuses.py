"""Statuses: create, change and delete, with the coded duplicate answer and the safety rules."""

from sqlalchemy import select

from bot.db.tables import Channel, FieldValue, Item
from tests.factories import CHANNEL, Factory

EXISTS = {"code": "Status already existed.", "message": "Status already existed."}
BASE = "http://127.0.0.1:3978"


async def statuses(
    factory: Factory, type_label: str = "Bug", channel: str = CHANNEL
) -> dict[str, FieldValue]:
    """The statuses of one kind in a channel (Team A's by default), by name."""
    async with factory.work() as uow:
        rows = await uow.session.scalars(
            select(FieldValue)
            .join(Channel, Channel.id == FieldValue.channel_id)
            .where(
                Channel.teams_id == channel,
                FieldValue.field == "status",
                FieldValue.type == type_label,
            )
        )
        return {row.name: row for row in rows}


async def test_create_status_answers_201_with_defaults(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.post(
        "/odata/status",
        json={"name": "In Review", "type": "Bug", "category": "Active"},
        headers=ada.in_channel(),
    )
    assert response.status == 201
    status = await response.json()
    link = f"{BASE}/odata/status('{status['_id']}')"
    assert status == {
        "@odata.context": f"{BASE}/odata/$metadata#status/$entity",
        "@odata.editLink": link,
        "@odata.id": link,
        "_id": status["_id"],
        "name": "In Review",
        "color": "#8a8886",
        "category": "Active",
        "description": "",
        "primary": False,
        "order": 4,
        "value": 50,
        "type": "Bug",
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }


async def test_duplicate_status_answers_the_coded_400(client, factory: Factory) -> None:
    ada = await factory.member()
    for name in ("in progress", "IN PROGRESS "):
        response = await client.post(
            "/odata/status",
            json={"name": name, "type": "Bug", "category": "Active"},
            headers=ada.in_channel(),
        )
        assert response.status == 400
        assert await response.json() == EXISTS
    assert len(await statuses(factory)) == 3


async def test_same_name_is_fine_for_the_other_kind(client, factory: Factory) -> None:
    ada = await factory.member()
    await client.post(
        "/odata/status",
        json={"name": "Review", "type": "Bug", "category": "Active"},
        headers=ada.in_channel(),
    )
    response = await client.post(
        "/odata/status",
        json={"name": "Review", "type": "Task", "category": "Active"},
        headers=ada.in_channel(),
    )
    assert response.status == 201


async def test_invalid_is_a_reserved_status_name(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.post(
        "/odata/status",
        json={"name": "invalid", "type": "Bug", "category": "New"},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("name: ")


async def test_bad_status_bodies_answer_400(client, factory: Factory) -> None:
    ada = await factory.member()
    for body in (
        {"type": "Bug", "category": "New"},
        {"name": "X", "type": "Story", "category": "New"},
        {"name": "X", "type": "Bug", "category": "Blocked"},
        {"name": "X", "type": "Bug", "category": "New", "color": "red"},
        {"name": "X", "type": "Bug", "category": "New", "order": -1},
    ):
        response = await client.post("/odata/status", json=body, headers=ada.in_channel())
        assert response.status == 400, body
    assert len(await statuses(factory)) == 3


async def test_making_a_status_primary_clears_the_other(client, factory: Factory) -> None:
    ada = await factory.member()
    before = await statuses(factory)
    response = await client.patch(
        f"/odata/status({before['In Progress'].id})",
        json={"primary": True},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    after = await statuses(factory)
    assert [name for name, row in after.items() if row.primary] == ["In Progress"]
    assert (await statuses(factory, "Task"))["Not Started"].primary  # the other kind is untouched


async def test_the_only_primary_cannot_be_demoted_or_deleted(client, factory: Factory) -> None:
    ada = await factory.member()
    primary = (await statuses(factory))["Not Started"]
    demote = await client.patch(
        f"/odata/status('{primary.id}')", json={"primary": False}, headers=ada.in_channel()
    )
    assert demote.status == 400
    delete = await client.delete(f"/odata/status({primary.id})", headers=ada.in_channel())
    assert delete.status == 400
    assert (await statuses(factory))["Not Started"].primary


async def test_the_last_done_status_cannot_be_deleted_or_moved(client, factory: Factory) -> None:
    ada = await factory.member()
    done = (await statuses(factory))["Completed"]
    assert (
        await client.delete(f"/odata/status({done.id})", headers=ada.in_channel())
    ).status == 400
    moved = await client.patch(
        f"/odata/status({done.id})", json={"category": "Active"}, headers=ada.in_channel()
    )
    assert moved.status == 400
    assert (await statuses(factory))["Completed"].category == "Done"


async def test_renaming_a_status_renames_it_on_its_items(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await (
        await client.post(
            "/odata/bugs", json={"name": "b", "status": "In Progress"}, headers=ada.in_channel()
        )
    ).json()
    status = (await statuses(factory))["In Progress"]
    response = await client.patch(
        f"/odata/status({status.id})", json={"name": "Doing"}, headers=ada.in_channel()
    )
    assert response.status == 204
    details = await (
        await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    ).json()
    assert details["status"] == "Doing"


async def test_renaming_onto_an_existing_name_answers_the_coded_400(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    status = (await statuses(factory))["In Progress"]
    response = await client.patch(
        f"/odata/status({status.id})", json={"name": "completed"}, headers=ada.in_channel()
    )
    assert response.status == 400
    assert await response.json() == EXISTS


async def test_deleting_a_status_makes_its_items_invalid(client, factory: Factory) -> None:
    ada = await factory.member()
    review = await (
        await client.post(
            "/odata/status",
            json={"name": "Review", "type": "Bug", "category": "Active"},
            headers=ada.in_channel(),
        )
    ).json()
    bug = await (
        await client.post(
            "/odata/bugs", json={"name": "b", "status": "Review"}, headers=ada.in_channel()
        )
    ).json()
    assert (
        await client.delete(f"/odata/status({review['_id']})", headers=ada.in_channel())
    ).status == 204
    details = await (
        await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    ).json()
    assert details["status"] == "Invalid"
    assert details["statusId"] == {"_id": None, "category": None}
    assert details["statusValue"] is None
    assert details["sync"]["status"] == "Svc_MAPPING_NOTFOUND"
    # Giving it a status again makes it valid.
    fixed = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"status": "Completed"}, headers=ada.in_channel()
    )
    assert fixed.status == 204
    async with factory.work() as uow:
        item = await uow.session.get(Item, bug["_id"])
        assert (item.status, item.sync_status) == ("Completed", None)


async def test_statuses_of_another_channel_are_not_found(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel("19:other@thread.tacv2", name="Other")
    other = (await statuses(factory, channel="19:other@thread.tacv2"))["In Progress"]
    for response in (
        await client.patch(
            f"/odata/status({other.id})", json={"name": "Stolen"}, headers=ada.in_channel()
        ),
        await client.delete(f"/odata/status({other.id})", headers=ada.in_channel()),
        await client.delete("/odata/status(nonsense)", headers=ada.in_channel()),
    ):
        assert response.status == 404
    async with factory.work() as uow:
        assert (await uow.session.get(FieldValue, other.id)).name == "In Progress"
