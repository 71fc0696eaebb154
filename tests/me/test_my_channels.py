"""The channel picker: one row per channel the caller may read, its native project, its status."""

from sqlalchemy import update

from bot.db.tables import Channel, Project
from bot.errors import MUST_RUN_IN_TEAMS
from tests.factories import CHANNEL, TEAM, Factory
from tests.me.helpers import (
    BASE,
    CHANNEL_A2,
    CHANNEL_B,
    TEAM_B,
    listing,
    make,
    make_private,
    make_world,
    personal,
)


def row(team: str, team_name: str, channel: str, name: str, status: str = "New") -> dict:
    """A channel row as docs/api.md gives it (`_id` aside), the project named after the channel."""
    return {
        "displayName": name,
        "projectName": name,
        "color": "",
        "status": status,
        "teamId": team,
        "teamName": team_name,
        "channelId": channel,
        "channelName": name,
    }


def without_ids(body: dict) -> list[dict]:
    assert all(len(value["_id"]) == 24 for value in body["value"])
    return [{k: v for k, v in value.items() if k != "_id"} for value in body["value"]]


async def test_one_row_per_readable_channel_new_until_its_first_item(
    client, factory: Factory
) -> None:
    world = await make_world(factory)
    ada = world.ada
    await make_private(factory)

    for kind in ("task", "bug"):
        body = await listing(client, ada, f"/api/me/{kind}/channels")
        assert body["@odata.context"] == f"{BASE}/odata/$metadata#my{kind.title()}Channels"
        assert body["@odata.count"] == 3
        assert without_ids(body) == [
            row(TEAM, "Team A", CHANNEL, "Bugs"),
            row(TEAM, "Team A", CHANNEL_A2, "Releases"),
            row(TEAM_B, "Team B", CHANNEL_B, "Ops"),
        ]

    task = await make(client, ada, channel=CHANNEL_A2, name="First task")
    await make(client, ada, "bug", team=TEAM_B, channel=CHANNEL_B, name="First bug")
    # Deleting the only item does not make the channel new again: numbers are never reused.
    deleted = await client.delete(
        f"/odata/tasks('{task['_id']}')", headers=ada.in_channel(TEAM, CHANNEL_A2)
    )
    assert deleted.status == 204

    tasks = await listing(client, ada, "/api/me/task/channels")
    assert [value["status"] for value in tasks["value"]] == ["New", "Active", "New"]
    bugs = await listing(client, ada, "/api/me/bug/channels")
    assert [value["status"] for value in bugs["value"]] == ["New", "New", "Active"]
    # Eve sees her own team's channel only.
    eves = await listing(client, world.eve, "/api/me/task/channels")
    assert [value["channelName"] for value in eves["value"]] == ["Elsewhere"]


async def test_names_and_color_come_from_the_native_project(client, factory: Factory) -> None:
    world = await make_world(factory)
    async with factory.work() as uow:
        channel_pk = await uow.session.scalar(
            update(Channel)
            .where(Channel.teams_id == CHANNEL_A2)
            .values(name="Releases (renamed)")
            .returning(Channel.id)
        )
        await uow.session.execute(
            update(Project)
            .where(Project.channel_id == channel_pk)
            .values(display_name="Release train", project_name="REL", color="#ff8800ff")
        )

    body = await listing(
        client, world.ada, "/api/me/task/channels", **{"$filter": f"channelId eq '{CHANNEL_A2}'"}
    )

    assert without_ids(body) == [
        {
            "displayName": "Release train",
            "projectName": "REL",
            "color": "#ff8800ff",
            "status": "New",
            "teamId": TEAM,
            "teamName": "Team A",
            "channelId": CHANNEL_A2,
            "channelName": "Releases (renamed)",
        }
    ]
    assert body["value"][0]["_id"] == channel_pk


async def test_select_filter_count_orderby_and_top(client, factory: Factory) -> None:
    world = await make_world(factory)
    ada = world.ada
    await make_private(factory)
    await make(client, ada, "bug", channel=CHANNEL_A2, name="A bug")
    path = "/api/me/bug/channels"

    selected = await listing(client, ada, path, **{"$select": "channelName,status"})
    assert [set(value) for value in selected["value"]] == [{"_id", "channelName", "status"}] * 3

    active = await listing(client, ada, path, **{"$filter": "status eq 'Active'"})
    assert [value["channelName"] for value in active["value"]] == ["Releases"]
    assert active["@odata.count"] == 1

    team_a = await listing(
        client, ada, path, **{"$filter": "teamName eq 'TEAM A' and status ne 'Active'"}
    )
    assert [value["channelName"] for value in team_a["value"]] == ["Bugs"]

    texts = await listing(client, ada, path, **{"$filter": "contains(displayName, 'E')"})
    assert [value["channelName"] for value in texts["value"]] == ["Releases"]

    uncounted = await listing(client, ada, path, **{"$count": "false"})
    assert "@odata.count" not in uncounted

    ordered = await listing(client, ada, path, **{"$orderby": "status,channelName desc"})
    assert [value["channelName"] for value in ordered["value"]] == ["Releases", "Ops", "Bugs"]

    names = []
    page = await listing(client, ada, path, **{"$orderby": "channelName desc", "$top": "2"})
    assert page["@odata.count"] == 3
    while True:
        names += [value["channelName"] for value in page["value"]]
        link = page.get("@odata.nextLink")
        if link is None:
            break
        assert link.startswith(f"{BASE}{path}?")
        response = await client.get(link.removeprefix(BASE), headers=personal(ada))
        assert response.status == 200
        page = await response.json()
    assert names == ["Releases", "Ops", "Bugs"]


async def test_refused_requests(client, factory: Factory) -> None:
    world = await make_world(factory)
    ada = world.ada
    revoked = await client.delete("/api/auth/session", headers=world.grace.headers)
    assert revoked.status == 204
    for path in ("/api/me/task/channels", "/api/me/bug/channels"):
        no_entity = await client.get(path, headers=ada.headers)
        assert no_entity.status == 400
        assert await no_entity.json() == {"code": MUST_RUN_IN_TEAMS, "message": MUST_RUN_IN_TEAMS}
        anonymous = await client.get(path, headers={"x-svc-entityId": "tab"})
        assert anonymous.status == 401
        stale = await client.get(path, headers=personal(world.grace))
        assert stale.status == 401
        for option, value, error in (
            ("$filter", "groupId eq null", "Invalid $filter: unknown property 'groupId'"),
            ("$filter", "status eq", "Invalid $filter: unexpected 'eq' at character 8"),
            ("$orderby", "color sideways", "Invalid $orderby: expected 'property', "),
            ("$select", "bucket", "Invalid $select: unknown property 'bucket'"),
            ("$count", "maybe", "Invalid $count: expected true or false"),
        ):
            response = await client.get(path, params={option: value}, headers=personal(ada))
            assert response.status == 400, (option, value)
            assert (await response.json())["error"].startswith(error)
