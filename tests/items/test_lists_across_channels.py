"""The same list asked in many channels, and of many callers, shares its prepared statements:
each answer is still its own channel's or caller's, place properties included."""

from aiohttp.test_utils import TestClient

from tests.factories import CHANNEL, TEAM, Factory, Member

OTHER = "19:channel-b@thread.tacv2"


async def _names(client: TestClient, headers: dict[str, str], **params: str) -> list[str]:
    response = await client.get("/odata/bugs", params=params, headers=headers)
    assert response.status == 200, await response.text()
    return [bug["name"] for bug in (await response.json())["value"]]


async def _bug(client: TestClient, member: Member, channel: str, name: str, **fields) -> None:  # noqa: ANN003
    response = await client.post(
        "/odata/bugs", json={"name": name, **fields}, headers=member.in_channel(TEAM, channel)
    )
    assert response.status == 201, await response.text()


async def test_each_channel_lists_its_own_items_with_the_same_query(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    await factory.channel(OTHER, name="Ops")
    await _bug(client, ada, CHANNEL, "Printer on fire")
    await _bug(client, ada, OTHER, "Disk full")
    here, there = ada.in_channel(TEAM, CHANNEL), ada.in_channel(TEAM, OTHER)
    for _ in range(2):  # the second round runs the statements prepared by the first
        assert await _names(client, here, **{"$orderby": "internalId desc"}) == ["Printer on fire"]
        assert await _names(client, there, **{"$orderby": "internalId desc"}) == ["Disk full"]
        # The place properties are each channel's own.
        mine = {"$filter": f"channelId eq '{CHANNEL}' and teamId eq '{TEAM}'"}
        assert await _names(client, here, **mine) == ["Printer on fire"]
        assert await _names(client, there, **mine) == []
        assert await _names(client, there, **{"$filter": f"channelId eq '{OTHER}'"}) == [
            "Disk full"
        ]


async def test_each_caller_sees_their_own_items_in_the_personal_view(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    await _bug(client, ada, CHANNEL, "Ada's", assignedTo=[ada.user.id])
    await _bug(client, ada, CHANNEL, "Grace's", assignedTo=[grace.user.id])
    for _ in range(2):
        for member, expected in ((ada, ["Ada's"]), (grace, ["Grace's"])):
            response = await client.get(
                "/api/me/bugs", headers={**member.headers, "x-svc-entityId": "mybugs"}
            )
            assert response.status == 200, await response.text()
            assert [bug["name"] for bug in (await response.json())["value"]] == expected
