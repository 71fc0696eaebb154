"""Rules changed, rotated and deleted at once: every request answers as if alone (never a 500),
and what is stored afterwards is what some order of them would leave."""

import asyncio

from aiohttp.test_utils import TestClient

from tests.events.definitions.helpers import PATH, create, read, stored_rows
from tests.factories import Factory

ROUNDS = 4


async def test_patch_rotate_and_delete_at_once_never_fail(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    headers = ada.in_channel()
    for _ in range(ROUNDS):
        made = await create(client, ada)
        url = f"{PATH}({made['_id']})"
        patch_name = client.patch(url, json={"eventName": "Renamed"}, headers=headers)
        delete_one = client.delete(url, headers=headers)
        patch_switch = client.patch(url, json={"enable": False}, headers=headers)
        rotate = client.post(f"/api/events/{made['_id']}/secret", headers=headers)
        delete_two = client.delete(url, headers=headers)
        answers = await asyncio.gather(patch_name, delete_one, patch_switch, rotate, delete_two)
        statuses = [answer.status for answer in answers]
        assert statuses[0] in (204, 404) and statuses[2] in (204, 404), statuses
        assert statuses[3] in (200, 404), statuses
        assert sorted([statuses[1], statuses[4]]) == [204, 404], statuses
        for answer in answers:
            if answer.status == 404:
                assert await answer.json() == {
                    "error": f"Event definition '{made['_id']}' not found."
                }
    assert await stored_rows(factory) == []


async def test_two_patches_at_once_both_land(client: TestClient, factory: Factory) -> None:
    """Each PATCH reads the rule after the other committed: neither undoes the other."""
    ada = await factory.member()
    headers = ada.in_channel()
    for _ in range(ROUNDS):
        made = await create(client, ada)
        url = f"{PATH}({made['_id']})"
        answers = await asyncio.gather(
            client.patch(url, json={"eventName": "Renamed"}, headers=headers),
            client.patch(url, json={"enable": False}, headers=headers),
            client.patch(url, json={"triggerType": "ITEM_DELETED"}, headers=headers),
        )
        assert [answer.status for answer in answers] == [204, 204, 204]
        after = await read(client, ada, made["_id"])
        assert (after["eventName"], after["enable"], after["triggerType"]) == (
            "Renamed",
            False,
            "ITEM_DELETED",
        )


async def test_creates_at_once_each_get_their_own_rule(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    made = await asyncio.gather(*(create(client, ada, eventName=f"Rule {n}") for n in range(8)))
    assert len({rule["_id"] for rule in made}) == len({rule["secret"] for rule in made}) == 8
    listed = await (await client.get(PATH, headers=ada.in_channel())).json()
    assert listed["@odata.count"] == 8
