"""GET /api/users: the team's members in the API's user shape, as an OData collection."""

from urllib.parse import quote

from bot.directory.users import remove_member
from bot.errors import MUST_RUN_IN_TEAMS
from tests.factories import TEAM, Factory

BASE = "http://127.0.0.1:3978"
TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"


async def users(client, member, **options: str) -> dict:  # noqa: ANN001
    query = "&".join(f"{name}={quote(value)}" for name, value in options.items())
    response = await client.get(f"/api/users?{query}", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return await response.json()


async def test_lists_the_team_members_in_the_user_shape(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="B")
    await factory.member("Eve", team_id=TEAM_B)
    await factory.user("Not in any team")

    body = await users(client, ada)

    me = await (await client.get("/api/me", headers=ada.headers)).json()
    assert body == {
        "@odata.context": f"{BASE}/odata/$metadata#users",
        "@odata.count": 2,
        "value": [
            {**me, "mapping": []},
            {
                "_id": grace.user.id,
                "sourceId": grace.user.source_id,
                "displayName": "Grace Hopper",
                "email": "grace.hopper@contoso.test",
                "username": "grace.hopper@contoso.test",
                "source": "Microsoft.Graph.User",
                "mapping": [],
            },
        ],
    }


async def test_a_member_who_left_is_no_longer_listed(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    async with factory.work() as uow:
        await remove_member(uow, team_id=TEAM, user_ref=grace.user.id)
    body = await users(client, ada)
    assert [row["displayName"] for row in body["value"]] == ["Ada Lovelace"]


async def test_filter_orderby_select_top_and_next_link(client, factory: Factory) -> None:
    ada = await factory.member("Ada Lovelace")
    for name in ("Grace Hopper", "Alan Turing", "Barbara Liskov"):
        await factory.member(name)

    found = await users(client, ada, **{"$filter": "contains(email, 'HOPPER')"})
    assert [row["displayName"] for row in found["value"]] == ["Grace Hopper"]
    assert found["@odata.count"] == 1
    by_id = await users(client, ada, **{"$filter": f"_id eq '{ada.user.id}'"})
    assert [row["displayName"] for row in by_id["value"]] == ["Ada Lovelace"]

    selected = await users(
        client, ada, **{"$select": "displayName", "$orderby": "displayName desc"}
    )
    assert [row["displayName"] for row in selected["value"]] == [
        "Grace Hopper",
        "Barbara Liskov",
        "Alan Turing",
        "Ada Lovelace",
    ]
    assert all(set(row) == {"_id", "displayName"} for row in selected["value"])

    names = []
    page = await users(client, ada, **{"$top": "3", "$select": "username"})
    while True:
        names += [row["username"] for row in page["value"]]
        link = page.get("@odata.nextLink")
        if link is None:
            break
        response = await client.get(link.removeprefix(BASE), headers=ada.in_channel())
        page = await response.json()
    assert names == [
        "ada.lovelace@contoso.test",
        "alan.turing@contoso.test",
        "barbara.liskov@contoso.test",
        "grace.hopper@contoso.test",
    ]


async def test_refused_requests(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="B")
    eve = await factory.member("Eve", team_id=TEAM_B)

    outsider = await client.get("/api/users", headers=eve.in_channel())
    assert outsider.status == 403
    no_context = await client.get("/api/users", headers=ada.headers)
    assert no_context.status == 400
    assert await no_context.json() == {"code": MUST_RUN_IN_TEAMS, "message": MUST_RUN_IN_TEAMS}
    anonymous = await client.get("/api/users")
    assert anonymous.status == 401
    bad = await client.get(
        "/api/users", params={"$filter": "password eq 'x'"}, headers=ada.in_channel()
    )
    assert bad.status == 400
    assert await bad.json() == {"error": "Invalid $filter: unknown property 'password'"}
