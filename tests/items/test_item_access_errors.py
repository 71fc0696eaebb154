"""Item requests refused for where they point: an id not in the caller's channel answers 404 as
if it did not exist, and a team or channel the caller may not act in answers 403; not one row
written or changed."""

import pytest
from aiohttp.test_utils import TestClient

from tests.factories import CHANNEL, TEAM, Factory, Member
from tests.items.refusals import TEAM_B, create, stored, team_b_member

UNKNOWN_ID = "0123456789abcdef01234567"


# Four ways to name an item the caller may not see; each answers as if it did not exist.
FLAVOURS = ["malformed", "unknown", "other-kind", "other-team"]


async def foreign_ids(client: TestClient, factory: Factory, ada: Member) -> dict[str, str]:
    task = await create(client, ada, "task", name="A task")
    bob = await team_b_member(factory)
    theirs = await create(client, bob, team_b=True, name="Team B's secret")
    return {
        "malformed": "not-an-id",
        "unknown": UNKNOWN_ID,
        "other-kind": task["_id"],
        "other-team": theirs["_id"],
    }


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("operation", ["details", "patch", "delete"])
async def test_an_id_not_in_the_channel_answers_404_and_shows_nothing(
    client, factory: Factory, flavour: str, operation: str
) -> None:
    ada = await factory.member("Ada")
    await create(client, ada)
    item_id = (await foreign_ids(client, factory, ada))[flavour]
    before = await stored(factory)
    headers = ada.in_channel()
    if operation == "details":
        response = await client.get(f"/api/bugs/{item_id}/details", headers=headers)
    elif operation == "patch":
        response = await client.patch(
            f"/odata/bugs('{item_id}')", json={"name": "Hijacked"}, headers=headers
        )
    else:
        response = await client.delete(f"/odata/bugs({item_id})", headers=headers)
    assert (response.status, await response.json()) == (
        404,
        {"error": f"Bug '{item_id}' not found."},
    )
    assert await stored(factory) == before


@pytest.mark.parametrize("operation", ["create", "details", "patch", "delete", "bulk"])
async def test_a_non_member_with_team_a_headers_gets_403_and_changes_nothing(
    client, factory: Factory, operation: str
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    bob = await team_b_member(factory)
    before = await stored(factory)
    headers = bob.in_channel(team=TEAM, channel=CHANNEL)
    response = await {
        "create": lambda: client.post("/odata/bugs", json={"name": "x"}, headers=headers),
        "details": lambda: client.get(f"/api/bugs/{bug['_id']}/details", headers=headers),
        "patch": lambda: client.patch(
            f"/odata/bugs({bug['_id']})", json={"name": "x"}, headers=headers
        ),
        "delete": lambda: client.delete(f"/odata/bugs({bug['_id']})", headers=headers),
        "bulk": lambda: client.post(
            "/api/bulk/bug", json={"ids": [bug["_id"]], "priority": "Low"}, headers=headers
        ),
    }[operation]()
    assert (response.status, await response.json()) == (
        403,
        {"error": f"You are not a member of team '{TEAM}'."},
    )
    assert await stored(factory) == before


async def test_a_channel_of_another_team_under_ones_own_team_gets_403(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    bug = await create(client, ada)
    bob = await team_b_member(factory)
    before = await stored(factory)
    response = await client.get(
        f"/api/bugs/{bug['_id']}/details", headers=bob.in_channel(team=TEAM_B, channel=CHANNEL)
    )
    assert (response.status, await response.json()) == (
        403,
        {"error": f"Channel '{CHANNEL}' is not a channel of team '{TEAM_B}'."},
    )
    assert await stored(factory) == before
