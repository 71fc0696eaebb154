"""My tasks and bugs: items of every channel the caller may read that are assigned to them."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.directory.users import remove_member
from bot.errors import MUST_RUN_IN_TEAMS
from tests.factories import CHANNEL, TEAM, Factory
from tests.me.helpers import (
    BASE,
    CHANNEL_A2,
    CHANNEL_B,
    PRIVATE_A,
    TEAM_B,
    listing,
    make,
    make_private,
    make_world,
    personal,
)


async def test_my_tasks_are_the_assigned_tasks_of_every_channel_in_the_details_shape(
    client, factory: Factory, clock: FrozenClock
) -> None:
    world = await make_world(factory)
    ada, grace = world.ada, world.grace
    in_a = await make(client, grace, name="In A", assignedTo=[ada.user.id, grace.user.id])
    clock.advance(timedelta(minutes=1))
    in_a2 = await make(client, grace, channel=CHANNEL_A2, name="In A2", assignedTo=[ada.user.id])
    clock.advance(timedelta(minutes=1))
    in_b = await make(
        client, grace, team=TEAM_B, channel=CHANNEL_B, name="In B", assignedTo=[ada.user.id]
    )
    await make(client, grace, name="Grace's alone", assignedTo=[grace.user.id])
    await make(client, grace, name="Nobody's")
    await make(client, grace, "bug", name="A bug, not a task", assignedTo=[ada.user.id])

    body = await listing(client, ada, "/api/me/tasks")

    assert body["@odata.context"] == f"{BASE}/odata/$metadata#myTasks"
    assert body["@odata.count"] == 3
    assert "@odata.nextLink" not in body
    expected = []
    for made, team, channel, names in (
        (in_b, TEAM_B, CHANNEL_B, ("Team B", "Ops")),
        (in_a2, TEAM, CHANNEL_A2, ("Team A", "Releases")),
        (in_a, TEAM, CHANNEL, ("Team A", "Bugs")),
    ):
        details = await client.get(
            f"/api/tasks/{made['_id']}/details", headers=grace.in_channel(team, channel)
        )
        assert details.status == 200
        expected.append({**await details.json(), "teamName": names[0], "channelName": names[1]})
    assert body["value"] == expected  # newest first


async def test_my_bugs_are_bugs_only_with_their_severity(client, factory: Factory) -> None:
    world = await make_world(factory)
    ada = world.ada
    bug = await make(
        client, ada, "bug", name="Crash", severity="Critical", assignedTo=[ada.user.id]
    )
    await make(client, ada, "task", name="A task", assignedTo=[ada.user.id])

    body = await listing(client, ada, "/api/me/bugs")

    assert body["@odata.context"] == f"{BASE}/odata/$metadata#myBugs"
    assert [(row["_id"], row["severity"]) for row in body["value"]] == [(bug["_id"], "Critical")]
    assert body["value"][0]["channelName"] == "Bugs"


async def test_items_of_channels_the_caller_may_not_read_are_never_listed(
    client, factory: Factory
) -> None:
    world = await make_world(factory)
    ada, grace = world.ada, world.grace
    both = [ada.user.id, grace.user.id]
    await make(client, grace, channel=PRIVATE_A, name="Private", assignedTo=both)
    await make(client, grace, team=TEAM_B, channel=CHANNEL_B, name="Team B's", assignedTo=both)
    await make(client, grace, name="Still visible", assignedTo=both)
    await make_private(factory)
    async with factory.work() as uow:
        await remove_member(uow, team_id=TEAM_B, user_ref=ada.user.id)

    for kind in ("tasks", "bugs"):
        mine = await listing(client, ada, f"/api/me/{kind}", **{"$filter": "name ne 'x'"})
        names = [row["name"] for row in mine["value"]]
        assert names == (["Still visible"] if kind == "tasks" else [])
        assert mine["@odata.count"] == len(names)
    # Grace still belongs to Team B; the private channel is closed to everyone.
    graces = await listing(client, grace, "/api/me/tasks", **{"$orderby": "name"})
    assert [row["name"] for row in graces["value"]] == ["Still visible", "Team B's"]
    # Eve, in Team C alone, sees nothing at all, not even through filters naming Team A.
    for text in (f"teamId eq '{TEAM}'", f"channelId eq '{PRIVATE_A}'", "status ne 'x'"):
        eves = await listing(client, world.eve, "/api/me/tasks", **{"$filter": text})
        assert eves["value"] == [] and eves["@odata.count"] == 0


async def test_filters_on_fields_assignees_and_where_items_live(client, factory: Factory) -> None:
    world = await make_world(factory)
    ada, grace = world.ada, world.grace
    await make(client, grace, name="Started", status="In Progress", assignedTo=[ada.user.id])
    await make(
        client,
        grace,
        channel=CHANNEL_A2,
        name="Shared",
        assignedTo=[ada.user.id, grace.user.id],
        dueDate="2026-12-24",
    )
    await make(
        client, grace, team=TEAM_B, channel=CHANNEL_B, name="Ops work", assignedTo=[ada.user.id]
    )

    async def names(text: str) -> list[str]:
        body = await listing(client, ada, "/api/me/tasks", **{"$filter": text, "$orderby": "name"})
        assert body["@odata.count"] == len(body["value"])
        return [row["name"] for row in body["value"]]

    assert await names("status eq 'In Progress'") == ["Started"]
    assert await names("channelName eq 'releases'") == ["Shared"]  # text ignores case
    assert await names(f"teamId eq '{TEAM_B}'") == ["Ops work"]
    assert await names(f"channelId eq '{CHANNEL}'") == ["Started"]
    assert await names("startswith(teamName, 'team a')") == ["Shared", "Started"]
    assert await names("groupId eq null") == ["Ops work"]  # Team B has no group id
    assert await names(f"assignedTo/any(u: u/email eq '{grace.user.email}')") == ["Shared"]
    assert await names("dueDate ge 2026-12-01 or contains(name, 'ops')") == ["Ops work", "Shared"]
    assert await names("statusValue eq 50") == ["Started"]


async def test_the_invalid_view_lists_my_items_whose_status_is_gone(
    client, factory: Factory
) -> None:
    world = await make_world(factory)
    ada, grace = world.ada, world.grace
    review = await client.post(
        "/odata/status",
        json={"name": "Review", "type": "Task", "category": "Active"},
        headers=grace.in_channel(),
    )
    assert review.status == 201
    lost = await make(client, grace, name="Lost", status="Review", assignedTo=[ada.user.id])
    await make(client, grace, name="Fine", status="Review", assignedTo=[grace.user.id])
    await make(client, grace, name="Also fine", assignedTo=[ada.user.id])
    deleted = await client.delete(
        f"/odata/status('{(await review.json())['_id']}')", headers=grace.in_channel()
    )
    assert deleted.status == 204

    body = await listing(client, ada, "/api/me/tasks", **{"$filter": "status eq 'Invalid'"})

    assert body["@odata.count"] == 1
    (row,) = body["value"]
    assert row["_id"] == lost["_id"]
    assert row["status"] == "Invalid"
    assert row["sync"]["status"] == "Svc_MAPPING_NOTFOUND"
    assert row["statusId"] == {"_id": None, "category": None}


async def test_orderby_top_skip_count_select_and_next_links(client, factory: Factory) -> None:
    world = await make_world(factory)
    ada = world.ada
    for number, channel in enumerate([CHANNEL, CHANNEL_A2, CHANNEL, CHANNEL_A2, CHANNEL]):
        await make(
            client,
            ada,
            channel=channel,
            name=f"Task {number}",
            dueDate=f"2026-12-0{number + 1}",
            assignedTo=[ada.user.id],
        )

    first = await listing(
        client,
        ada,
        "/api/me/tasks",
        **{"$orderby": "dueDate desc", "$top": "2", "$select": "name,channelName"},
    )
    assert first["@odata.count"] == 5
    assert [row["name"] for row in first["value"]] == ["Task 4", "Task 3"]
    assert first["value"][1] == {
        "_id": first["value"][1]["_id"],
        "name": "Task 3",
        "channelName": "Releases",
    }
    names = [row["name"] for row in first["value"]]
    link = first.get("@odata.nextLink")
    while link is not None:
        assert link.startswith(f"{BASE}/api/me/tasks?")
        following = await client.get(link.removeprefix(BASE), headers=personal(ada))
        assert following.status == 200
        page = await following.json()
        assert all(set(row) == {"_id", "name", "channelName"} for row in page["value"])
        names += [row["name"] for row in page["value"]]
        link = page.get("@odata.nextLink")
    assert names == ["Task 4", "Task 3", "Task 2", "Task 1", "Task 0"]

    skipped = await listing(
        client,
        ada,
        "/api/me/tasks",
        **{"$orderby": "channelName,name desc", "$skip": "1", "$top": "3", "$count": "false"},
    )
    assert "@odata.count" not in skipped
    assert [row["name"] for row in skipped["value"]] == ["Task 2", "Task 0", "Task 3"]


async def test_refused_requests(client, factory: Factory) -> None:
    world = await make_world(factory)
    ada = world.ada
    missing = {"code": MUST_RUN_IN_TEAMS, "message": MUST_RUN_IN_TEAMS}
    for path in ("/api/me/tasks", "/api/me/bugs"):
        no_entity = await client.get(path, headers=ada.headers)
        assert no_entity.status == 400
        assert await no_entity.json() == missing
        blank = await client.get(path, headers={**ada.headers, "x-svc-entityId": "  "})
        assert blank.status == 400
        for headers in ({"x-svc-entityId": "tab"}, {}):
            anonymous = await client.get(path, headers=headers)
            assert anonymous.status == 401
            assert "error" in await anonymous.json()
        for option, value, error in (
            ("$filter", "nope eq 1", "Invalid $filter: unknown property 'nope'"),
            (
                "$filter",
                "teamName eq 3",
                "Invalid $filter: 'teamName' takes text (a quoted string), not a whole number",
            ),
            ("$orderby", "bucket", "Invalid $orderby: 'bucket' cannot be sorted"),
            ("$select", "name,secret", "Invalid $select: unknown property 'secret'"),
            ("$top", "-1", "Invalid $top: expected a whole number, 0 or more"),
            ("$skiptoken", "garbage!", "Invalid $skiptoken: not a token this service made"),
            ("$expand", "x", "Unsupported query option: $expand"),
        ):
            response = await client.get(path, params={option: value}, headers=personal(ada))
            assert response.status == 400, (option, value)
            assert await response.json() == {"error": error}
