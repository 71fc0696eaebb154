"""Which channel a request acts in: the Teams headers, membership, and supported channel kinds."""

from bot.directory.schemas import MembershipType
from bot.directory.users import remove_member
from bot.errors import MUST_RUN_IN_TEAMS, PRIVATE_CHANNELS_UNSUPPORTED
from tests.factories import CHANNEL, TEAM, Factory

MISSING_CONTEXT = {"code": MUST_RUN_IN_TEAMS, "message": MUST_RUN_IN_TEAMS}


async def test_member_sees_the_channel_context(client, factory: Factory) -> None:
    member = await factory.member("Ada Lovelace")
    response = await client.get("/api/context", headers=member.in_channel())
    assert response.status == 200
    body = await response.json()
    assert body["team"]["teamId"] == TEAM
    assert body["team"]["groupId"] == "a0a0a0a0-0000-0000-0000-000000000001"
    assert body["channel"] == {
        "_id": body["channel"]["_id"],
        "channelId": CHANNEL,
        "teamId": TEAM,
        "name": "Bugs",
        "membershipType": "standard",
    }
    assert body["user"]["displayName"] == "Ada Lovelace"


async def test_header_names_are_case_insensitive(client, factory: Factory) -> None:
    member = await factory.member()
    headers = {**member.headers, "X-SVC-TEAMID": TEAM, "X-Svc-ChannelID": CHANNEL}
    assert (await client.get("/api/context", headers=headers)).status == 200


async def test_missing_team_header_answers_the_coded_body(client, factory: Factory) -> None:
    member = await factory.member()
    headers = {**member.headers, "x-svc-channelId": CHANNEL}
    response = await client.get("/api/context", headers=headers)
    assert response.status == 400
    assert await response.json() == MISSING_CONTEXT


async def test_missing_channel_header_answers_the_coded_body(client, factory: Factory) -> None:
    member = await factory.member()
    response = await client.get("/api/context", headers={**member.headers, "x-svc-teamid": TEAM})
    assert response.status == 400
    assert await response.json() == MISSING_CONTEXT


async def test_blank_context_headers_count_as_missing(client, factory: Factory) -> None:
    member = await factory.member()
    response = await client.get("/api/context", headers=member.in_channel(team=" ", channel=""))
    assert response.status == 400
    assert await response.json() == MISSING_CONTEXT


async def test_credentials_are_checked_before_the_context(client, factory: Factory) -> None:
    response = await client.get("/api/context")
    assert response.status == 401


async def test_non_member_gets_403(client, factory: Factory) -> None:
    await factory.standard_team()
    stranger = await factory.user("Eve")
    cookie = await factory.session(stranger)
    headers = {
        "Cookie": f"graphNodeCookie={cookie}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": CHANNEL,
    }
    response = await client.get("/api/context", headers=headers)
    assert response.status == 403
    assert await response.json() == {"error": f"You are not a member of team '{TEAM}'."}


async def test_unknown_team_looks_like_non_membership(client, factory: Factory) -> None:
    member = await factory.member()
    response = await client.get(
        "/api/context", headers=member.in_channel(team="19:nowhere@thread.tacv2")
    )
    assert response.status == 403
    assert await response.json() == {
        "error": "You are not a member of team '19:nowhere@thread.tacv2'."
    }


async def test_unknown_channel_answers_403(client, factory: Factory) -> None:
    member = await factory.member()
    response = await client.get(
        "/api/context", headers=member.in_channel(channel="19:nowhere@thread.tacv2")
    )
    assert response.status == 403
    assert "not a channel of team" in (await response.json())["error"]


async def test_channel_of_another_team_answers_403(client, factory: Factory) -> None:
    member = await factory.member()
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    await factory.channel("19:channel-b@thread.tacv2", team_id="19:team-b@thread.tacv2")
    response = await client.get(
        "/api/context", headers=member.in_channel(channel="19:channel-b@thread.tacv2")
    )
    assert response.status == 403


async def test_removed_member_loses_access(client, factory: Factory) -> None:
    member = await factory.member()
    async with factory.work() as uow:
        await remove_member(uow, team_id=TEAM, user_ref=member.user.username)
    response = await client.get("/api/context", headers=member.in_channel())
    assert response.status == 403


async def test_private_channel_answers_403_with_its_message(client, factory: Factory) -> None:
    member = await factory.member()
    await factory.channel("19:secret@thread.tacv2", membership=MembershipType.PRIVATE)
    response = await client.get(
        "/api/context", headers=member.in_channel(channel="19:secret@thread.tacv2")
    )
    assert response.status == 403
    assert await response.json() == {"error": PRIVATE_CHANNELS_UNSUPPORTED}


async def test_shared_channel_answers_403_with_its_message(client, factory: Factory) -> None:
    member = await factory.member()
    await factory.channel("19:shared@thread.tacv2", membership=MembershipType.SHARED)
    response = await client.get(
        "/api/context", headers=member.in_channel(channel="19:shared@thread.tacv2")
    )
    assert response.status == 403
    assert await response.json() == {"error": PRIVATE_CHANNELS_UNSUPPORTED}


async def test_private_channel_is_refused_to_non_members_as_non_membership(
    client, factory: Factory
) -> None:
    await factory.standard_team()
    await factory.channel("19:secret@thread.tacv2", membership=MembershipType.PRIVATE)
    stranger = await factory.user()
    cookie = await factory.session(stranger)
    headers = {
        "Cookie": f"graphNodeCookie={cookie}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": "19:secret@thread.tacv2",
    }
    response = await client.get("/api/context", headers=headers)
    assert await response.json() == {"error": f"You are not a member of team '{TEAM}'."}
