"""`GET/PATCH /api/channel/settings`: the channel's due-soon window."""

import pytest
from aiohttp.test_utils import TestClient

from tests.factories import Factory, Member

PATH = "/api/channel/settings"


async def test_a_channel_follows_the_installation_window_until_it_sets_its_own(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    response = await client.get(PATH, headers=ada.in_channel())
    assert response.status == 200
    assert await response.json() == {"dueSoonMinutes": 1440, "dueSoonIsDefault": True}

    response = await client.patch(PATH, json={"dueSoonMinutes": 90}, headers=ada.in_channel())
    assert response.status == 200
    assert await response.json() == {"dueSoonMinutes": 90, "dueSoonIsDefault": False}
    response = await client.get(PATH, headers=ada.in_channel())
    assert await response.json() == {"dueSoonMinutes": 90, "dueSoonIsDefault": False}

    response = await client.patch(PATH, json={}, headers=ada.in_channel())
    assert await response.json() == {"dueSoonMinutes": 90, "dueSoonIsDefault": False}

    response = await client.patch(PATH, json={"dueSoonMinutes": None}, headers=ada.in_channel())
    assert await response.json() == {"dueSoonMinutes": 1440, "dueSoonIsDefault": True}


@pytest.mark.parametrize("value", [0, -5, 129601, "soon", 1.5, True, [60]])
async def test_a_bad_window_is_a_400_naming_the_field_and_changes_nothing(
    client: TestClient, factory: Factory, value: object
) -> None:
    ada = await factory.member()
    await client.patch(PATH, json={"dueSoonMinutes": 60}, headers=ada.in_channel())

    response = await client.patch(PATH, json={"dueSoonMinutes": value}, headers=ada.in_channel())

    assert response.status == 400
    assert "dueSoonMinutes" in (await response.json())["error"]
    response = await client.get(PATH, headers=ada.in_channel())
    assert (await response.json())["dueSoonMinutes"] == 60


async def test_outside_the_team_the_settings_are_refused(
    client: TestClient, factory: Factory
) -> None:
    await factory.member()
    outsider = await factory.user("Eve")  # signed in, not on the team's roster
    eve = Member(user=outsider, cookie=await factory.session(outsider))
    for method in ("GET", "PATCH"):
        response = await client.request(
            method, PATH, json={"dueSoonMinutes": 5}, headers=eve.in_channel()
        )
        assert response.status == 403
