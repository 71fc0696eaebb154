"""Priorities: the OData list, create and change, the coded duplicate 400, one primary per kind."""

from datetime import timedelta

from bot.clock import FrozenClock
from tests.factories import CHANNEL, Factory, create_item
from tests.fields.helpers import BASE, field_values, stored_item

EXISTS = {"code": "Priority already existed.", "message": "Priority already existed."}


async def priorities(factory: Factory, type_label: str = "Bug", channel: str = CHANNEL) -> dict:
    return await field_values(factory, "priority", type_label, channel)


async def test_the_list_has_each_kinds_defaults_in_order(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.get("/api/priority", headers=ada.in_channel())
    assert response.status == 200
    page = await response.json()
    assert page["@odata.context"] == f"{BASE}/odata/$metadata#priority"
    assert page["@odata.count"] == 8
    assert [(row["type"], row["name"]) for row in page["value"]] == [
        (kind, name) for kind in ("Bug", "Task") for name in ("Urgent", "High", "Normal", "Low")
    ]
    normal = page["value"][2]
    link = f"{BASE}/odata/priority('{normal['_id']}')"
    assert normal == {
        "@odata.context": f"{BASE}/odata/$metadata#priority/$entity",
        "@odata.editLink": link,
        "@odata.id": link,
        "_id": normal["_id"],
        "type": "Bug",
        "name": "Normal",
        "color": "#0078d4",
        "order": 3,
        "value": 1,
        "primary": True,
        "description": "",
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }


async def test_the_list_takes_the_odata_options(client, factory: Factory) -> None:
    ada = await factory.member()

    async def listed(**options: str) -> dict:
        response = await client.get("/api/priority", params=options, headers=ada.in_channel())
        assert response.status == 200, await response.text()
        return await response.json()

    tasks = await listed(**{"$filter": "type eq 'Task' and value ge 2", "$orderby": "value"})
    assert [row["name"] for row in tasks["value"]] == ["High", "Urgent"]
    assert {row["type"] for row in tasks["value"]} == {"Task"}
    paged = await listed(**{"$orderby": "name desc,type", "$top": "2", "$skip": "1"})
    assert [(row["name"], row["type"]) for row in paged["value"]] == [
        ("Urgent", "Task"),
        ("Normal", "Bug"),
    ]
    assert paged["@odata.count"] == 8
    assert "@odata.nextLink" in paged
    selected = await listed(**{"$select": "name", "$filter": "primary eq true", "$count": "true"})
    assert [set(row) for row in selected["value"]] == [{"_id", "name"}] * 2
    assert selected["@odata.count"] == 2
    for bad in ({"$filter": "category eq 'New'"}, {"$orderby": "nonsense"}, {"$top": "-1"}):
        response = await client.get("/api/priority", params=bad, headers=ada.in_channel())
        assert response.status == 400, bad
        assert "error" in await response.json()


async def test_create_priority_answers_201_with_defaults(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.post(
        "/odata/priority", json={"name": "Someday", "type": "Task"}, headers=ada.in_channel()
    )
    assert response.status == 201
    made = await response.json()
    link = f"{BASE}/odata/priority('{made['_id']}')"
    assert made == {
        "@odata.context": f"{BASE}/odata/$metadata#priority/$entity",
        "@odata.editLink": link,
        "@odata.id": link,
        "_id": made["_id"],
        "type": "Task",
        "name": "Someday",
        "color": "#8a8886",
        "order": 5,
        "value": 0,
        "primary": False,
        "description": "",
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }
    # An item may take it at once.
    task = await create_item(client, ada, "task", priority="someday")
    assert task["priority"] == "Someday"


async def test_duplicate_priority_answers_the_coded_400(client, factory: Factory) -> None:
    ada = await factory.member()
    for name in ("high", " HIGH "):
        response = await client.post(
            "/odata/priority", json={"name": name, "type": "Bug"}, headers=ada.in_channel()
        )
        assert response.status == 400
        assert await response.json() == EXISTS
    assert len(await priorities(factory)) == 4


async def test_same_name_is_fine_for_the_other_kind(client, factory: Factory) -> None:
    ada = await factory.member()
    for kind in ("Bug", "Task"):
        response = await client.post(
            "/odata/priority", json={"name": "Blocker", "type": kind}, headers=ada.in_channel()
        )
        assert response.status == 201, kind


async def test_bad_priority_bodies_answer_400_and_add_nothing(client, factory: Factory) -> None:
    ada = await factory.member()
    for body in (
        {"type": "Bug"},
        {"name": "X"},
        {"name": "", "type": "Bug"},
        {"name": "x" * 256, "type": "Bug"},
        {"name": "X", "type": "Story"},
        {"name": "X", "type": "Bug", "color": "red"},
        {"name": "X", "type": "Bug", "order": -1},
        {"name": "X", "type": "Bug", "value": "high"},
        {"name": "X", "type": "Bug", "primary": None},
    ):
        response = await client.post("/odata/priority", json=body, headers=ada.in_channel())
        assert response.status == 400, body
        assert isinstance((await response.json())["error"], str), body
    assert len(await priorities(factory)) == 4


async def test_a_new_primary_priority_clears_the_old_one(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.post(
        "/odata/priority",
        json={"name": "Soon", "type": "Bug", "primary": True},
        headers=ada.in_channel(),
    )
    assert response.status == 201
    assert [name for name, row in (await priorities(factory)).items() if row.primary] == ["Soon"]
    assert (await priorities(factory, "Task"))["Normal"].primary  # the other kind is untouched
    # The new primary is what an item gets by default.
    assert (await create_item(client, ada))["priority"] == "Soon"


async def test_making_a_priority_primary_clears_the_other(client, factory: Factory) -> None:
    ada = await factory.member()
    high = (await priorities(factory))["High"]
    response = await client.patch(
        f"/odata/priority('{high.id}')", json={"primary": True}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert [name for name, row in (await priorities(factory)).items() if row.primary] == ["High"]
    assert (await priorities(factory, "Task"))["Normal"].primary


async def test_the_only_primary_cannot_be_demoted_or_deleted(client, factory: Factory) -> None:
    ada = await factory.member()
    normal = (await priorities(factory))["Normal"]
    demote = await client.patch(
        f"/odata/priority({normal.id})", json={"primary": False}, headers=ada.in_channel()
    )
    assert demote.status == 400
    assert "primary" in (await demote.json())["error"]
    delete = await client.delete(f"/odata/priority({normal.id})", headers=ada.in_channel())
    assert delete.status == 400
    assert "primary" in (await delete.json())["error"]
    assert (await priorities(factory))["Normal"].primary


async def test_patch_changes_what_it_names(client, factory: Factory, clock: FrozenClock) -> None:
    ada = await factory.member()
    low = (await priorities(factory))["Low"]
    clock.advance(timedelta(minutes=1))
    response = await client.patch(
        f"/odata/priority({low.id})",
        json={"color": "#123456", "description": "When there is time", "order": 9, "value": 5},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    changed = (await priorities(factory))["Low"]
    assert (changed.color, changed.description, changed.order, changed.value) == (
        "#123456",
        "When there is time",
        9,
        5,
    )
    assert changed.updated_at == clock.now() and changed.created_at == low.created_at


async def test_bad_patches_answer_400_and_change_nothing(client, factory: Factory) -> None:
    ada = await factory.member()
    low = (await priorities(factory))["Low"]
    for body in (
        {"name": None},
        {"color": None},
        {"order": None},
        {"type": "Task"},
        {"name": "Lowest", "type": "Task"},  # the good half is not kept either
        {"color": "blue"},
        {"name": ""},
    ):
        response = await client.patch(
            f"/odata/priority({low.id})", json=body, headers=ada.in_channel()
        )
        assert response.status == 400, body
    after = (await priorities(factory))["Low"]
    assert (after.name, after.color, after.type) == ("Low", low.color, "Bug")
    same_type = await client.patch(
        f"/odata/priority({low.id})", json={"type": "Bug"}, headers=ada.in_channel()
    )
    assert same_type.status == 204


async def test_renaming_a_priority_renames_it_on_its_items(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, priority="High")
    task = await create_item(client, ada, "task", priority="High")
    high = (await priorities(factory))["High"]
    response = await client.patch(
        f"/odata/priority({high.id})", json={"name": "P1"}, headers=ada.in_channel()
    )
    assert response.status == 204
    details = await (
        await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    ).json()
    assert details["priority"] == "P1"
    # The task's High is the Task kind's own priority: not renamed.
    assert (await stored_item(factory, task["_id"])).priority == "High"
    # A rename is no edit of the bug: it keeps its last change.
    assert details["updatedAt"] == bug["updatedAt"]
    # Items can use the new name, and the old one is gone.
    assert (await create_item(client, ada, priority="p1"))["priority"] == "P1"
    refused = await client.post(
        "/odata/bugs", json={"name": "b", "priority": "High"}, headers=ada.in_channel()
    )
    assert refused.status == 400


async def test_a_change_of_case_alone_is_a_rename(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, priority="High")
    high = (await priorities(factory))["High"]
    response = await client.patch(
        f"/odata/priority({high.id})", json={"name": "HIGH"}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert (await stored_item(factory, bug["_id"])).priority == "HIGH"
    assert "HIGH" in await priorities(factory)


async def test_renaming_onto_an_existing_name_answers_the_coded_400(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, priority="High")
    high = (await priorities(factory))["High"]
    response = await client.patch(
        f"/odata/priority({high.id})",
        json={"name": "urgent", "color": "#000000"},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert await response.json() == EXISTS
    assert (await stored_item(factory, bug["_id"])).priority == "High"
    assert (await priorities(factory))["High"].color == high.color


async def test_lists_and_counts_follow_a_rename(client, factory: Factory) -> None:
    """List, rename, list again: neither the cached count nor the rows are stale."""
    ada = await factory.member()
    for _ in range(2):
        await create_item(client, ada, priority="Low")

    async def listed(name: str) -> tuple[int, list[str]]:
        response = await client.get(
            "/api/bugs", params={"$filter": f"priority eq '{name}'"}, headers=ada.in_channel()
        )
        page = await response.json()
        return page["@odata.count"], [row["priority"] for row in page["value"]]

    assert await listed("Low") == (2, ["Low", "Low"])
    assert await listed("Trivial") == (0, [])
    low = (await priorities(factory))["Low"]
    renamed = await client.patch(
        f"/odata/priority({low.id})", json={"name": "Trivial"}, headers=ada.in_channel()
    )
    assert renamed.status == 204
    assert await listed("Low") == (0, [])
    assert await listed("Trivial") == (2, ["Trivial", "Trivial"])
    everything = await (await client.get("/api/bugs", headers=ada.in_channel())).json()
    assert [row["priority"] for row in everything["value"]] == ["Trivial", "Trivial"]


async def test_priorities_elsewhere_are_not_found(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel("19:other@thread.tacv2", name="Other")
    other = (await priorities(factory, channel="19:other@thread.tacv2"))["Low"]
    status = (await field_values(factory, "status"))["In Progress"]
    severity = (await field_values(factory, "severity"))["Low"]
    for key in (other.id, status.id, severity.id, "nonsense", "0" * 24):
        for response in (
            await client.patch(
                f"/odata/priority({key})", json={"name": "Stolen"}, headers=ada.in_channel()
            ),
            await client.delete(f"/odata/priority({key})", headers=ada.in_channel()),
        ):
            assert response.status == 404, key
            assert "error" in await response.json()
    assert "Low" in await priorities(factory, channel="19:other@thread.tacv2")
    assert (await field_values(factory, "severity"))["Low"].name == "Low"
    # The other channel's list is its own, and this one's does not show it.
    listed = await (await client.get("/api/priority", headers=ada.in_channel())).json()
    assert other.id not in {row["_id"] for row in listed["value"]}


async def test_another_team_cannot_see_or_change_priorities(client, factory: Factory) -> None:
    await factory.standard_team()
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    await factory.channel("19:channel-b@thread.tacv2", team_id="19:team-b@thread.tacv2")
    eve = await factory.member("Eve", team_id="19:team-b@thread.tacv2")
    low = (await priorities(factory))["Low"]
    in_team_a = eve.in_channel()
    for response in (
        await client.get("/api/priority", headers=in_team_a),
        await client.post("/odata/priority", json={"name": "X", "type": "Bug"}, headers=in_team_a),
        await client.patch(f"/odata/priority({low.id})", json={"name": "X"}, headers=in_team_a),
        await client.delete(f"/odata/priority({low.id})", headers=in_team_a),
    ):
        assert response.status == 403
    in_team_b = eve.in_channel("19:team-b@thread.tacv2", "19:channel-b@thread.tacv2")
    for response in (
        await client.patch(f"/odata/priority({low.id})", json={"name": "X"}, headers=in_team_b),
        await client.delete(f"/odata/priority({low.id})", headers=in_team_b),
    ):
        assert response.status == 404
    assert (await priorities(factory))["Low"].name == "Low"
    assert len(await priorities(factory)) == 4


async def test_priorities_need_a_session_and_the_teams_context(client, factory: Factory) -> None:
    ada = await factory.member()
    assert (await client.get("/api/priority")).status == 401
    no_context = await client.get("/api/priority", headers=ada.headers)
    assert no_context.status == 400
    assert await no_context.json() == {
        "code": "Must run inside Microsoft Teams.",
        "message": "Must run inside Microsoft Teams.",
    }
