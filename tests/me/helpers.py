"""What the personal-view tests share: a world of teams and channels, and requests in it."""

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from aiohttp.test_utils import TestClient

from bot.directory.schemas import MembershipType
from tests.factories import CHANNEL, TEAM, Factory, Member

BASE = "http://127.0.0.1:3978"
CHANNEL_A2 = "19:channel-a2@thread.tacv2"
PRIVATE_A = "19:private-a@thread.tacv2"
TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
TEAM_C = "19:team-c@thread.tacv2"
CHANNEL_C = "19:channel-c@thread.tacv2"


def personal(member: Member, entity_id: str = "my-items") -> dict[str, str]:
    return {**member.headers, "x-svc-entityId": entity_id}


async def listing(client: TestClient, member: Member, path: str, **options: str) -> dict:
    """A personal list with these OData options (200 asserted)."""
    query = "&".join(f"{name}={quote(value)}" for name, value in options.items())
    response = await client.get(f"{path}?{query}" if query else path, headers=personal(member))
    assert response.status == 200, await response.text()
    return await response.json()


async def make(
    client: TestClient,
    member: Member,
    kind: str = "task",
    *,
    team: str = TEAM,
    channel: str = CHANNEL,
    **body: Any,
) -> dict:
    """An item made through the channel API (201 asserted)."""
    response = await client.post(
        f"/odata/{kind}s", json=body, headers=member.in_channel(team, channel)
    )
    assert response.status == 201, await response.text()
    return await response.json()


@dataclass
class World:
    """Ada belongs to Teams A (channels A, A2 and a private one) and B; Grace to Team A and B;
    Eve to Team C alone."""

    ada: Member
    grace: Member
    eve: Member


async def make_world(factory: Factory) -> World:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    await factory.channel(CHANNEL_A2, name="Releases")
    await factory.channel(PRIVATE_A, name="Secret plans")
    await factory.team(TEAM_B, name="Team B", group_id=None)
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="Ops")
    await factory.join(ada.user, TEAM_B)
    await factory.join(grace.user, TEAM_B)
    await factory.team(TEAM_C, name="Team C")
    await factory.channel(CHANNEL_C, team_id=TEAM_C, name="Elsewhere")
    eve = await factory.member("Eve", team_id=TEAM_C)
    return World(ada=ada, grace=grace, eve=eve)


async def make_private(factory: Factory, channel: str = PRIVATE_A) -> None:
    """The channel becomes private (its items stay): requests in it answer 403 from now on."""
    await factory.channel(channel, name="Secret plans", membership=MembershipType.PRIVATE)
