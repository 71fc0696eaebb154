"""`GET/PATCH /api/channel/settings`: the channel's due-soon window, digest window and threshold,
and quiet hours; each follows the installation (or, quiet hours, is none) until the channel
sets its own, and `null` goes back."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from bot.app import create_app
from bot.clock import FrozenClock
from tests.factories import Factory, Member

PATH = "/api/channel/settings"
TEAM_B, CHANNEL_B = "19:team-b@thread.tacv2", "19:channel-b@thread.tacv2"
INSTALLATION = {
    "dueSoonMinutes": 1440,
    "dueSoonIsDefault": True,
    "digestWindowSeconds": 5,
    "digestWindowIsDefault": True,
    "digestThreshold": 5,
    "digestThresholdIsDefault": True,
    "quietHours": None,
    "quietHoursIsDefault": True,
}
NIGHTS = {"start": "22:00", "end": "07:30", "timeZone": "Europe/Paris"}
OWN = {
    "dueSoonMinutes": 90,
    "digestWindowSeconds": 60,
    "digestThreshold": 3,
    "quietHours": NIGHTS,
}


async def read(client: TestClient, member: Member) -> dict[str, Any]:
    response = await client.get(PATH, headers=member.in_channel())
    assert response.status == 200, await response.text()
    return dict(await response.json())


async def change(client: TestClient, member: Member, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.patch(PATH, json=body, headers=member.in_channel())
    assert response.status == 200, await response.text()
    answer = dict(await response.json())
    assert answer == await read(client, member)  # the answer is what is stored
    return answer


async def test_a_channel_follows_the_installation_until_it_sets_its_own(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    assert await read(client, ada) == INSTALLATION

    assert await change(client, ada, OWN) == {
        **OWN,
        "dueSoonIsDefault": False,
        "digestWindowIsDefault": False,
        "digestThresholdIsDefault": False,
        "quietHoursIsDefault": False,
    }
    assert (await change(client, ada, {}))["digestThreshold"] == 3  # nothing sent: no change

    reset = dict.fromkeys(OWN)
    assert await change(client, ada, reset) == INSTALLATION


async def test_the_installation_settings_are_what_a_channel_follows(
    factory: Factory, make_settings, db: str, aiohttp_client: AiohttpClient, clock: FrozenClock
) -> None:  # noqa: ANN001
    ada = await factory.member()
    settings = make_settings(db, NOTIFY_DIGEST_SECONDS=0, NOTIFY_DIGEST_THRESHOLD=40)
    client = await aiohttp_client(create_app(settings, clock=clock))
    shown = await read(client, ada)
    assert (shown["digestWindowSeconds"], shown["digestThreshold"]) == (0, 40)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dueSoonMinutes", 1),
        ("digestWindowSeconds", 0),  # no digests
        ("digestWindowSeconds", 3600),
        ("digestThreshold", 1),
        ("digestThreshold", 1000),
        ("quietHours", {"start": "08:00", "end": "18:00", "timeZone": "America/New_York"}),
        ("quietHours", {"start": "23:59", "end": "00:00", "timeZone": "UTC"}),
    ],
)
async def test_each_field_changes_alone_and_goes_back_with_null(
    client: TestClient, factory: Factory, field: str, value: object
) -> None:
    ada = await factory.member()
    flag = {
        "dueSoonMinutes": "dueSoonIsDefault",
        "digestWindowSeconds": "digestWindowIsDefault",
        "digestThreshold": "digestThresholdIsDefault",
        "quietHours": "quietHoursIsDefault",
    }[field]
    assert await change(client, ada, {field: value}) == {
        **INSTALLATION,
        field: value,
        flag: False,
    }
    assert await change(client, ada, {field: None}) == INSTALLATION


def quiet(**fields: object) -> dict[str, object]:
    return {"quietHours": {**NIGHTS, **fields}}


BAD = [
    *({"dueSoonMinutes": value} for value in (0, -5, 129601, "soon", "60", 1.5, True, [60])),
    *({"digestWindowSeconds": value} for value in (-1, 3601, "5", 2.5, False, {}, [5])),
    *({"digestThreshold": value} for value in (0, 1001, -3, "5", 1.5, True, [5])),
    *({"quietHours": value} for value in ("22:00-07:00", 2200, [], True)),
    {"quietHours": {"start": "22:00", "end": "07:30"}},  # no time zone
    {"quietHours": {"end": "07:30", "timeZone": "Europe/Paris"}},
    quiet(start="24:00"),
    quiet(start="7:30"),
    quiet(start="22:00:00"),
    quiet(start="22h00"),
    quiet(start="22:00\n"),
    quiet(start="  22:00"),
    quiet(start=2200),
    quiet(start=None),
    quiet(end=""),
    quiet(end="07:60"),
    quiet(end="22:00"),  # start == end
    quiet(timeZone="Mars/Olympus_Mons"),
    quiet(timeZone="europe/paris"),
    quiet(timeZone="Europe/Paris "),
    quiet(timeZone=""),
    quiet(timeZone="../../etc/passwd"),
    quiet(timeZone="Europe/" + "x" * 100),
    quiet(timeZone=1),
    {"digestThreshold": 9, "digestWindowSeconds": -1},  # one bad field: the good one waits too
]


def named(body: dict[str, Any]) -> str:
    """The field the error must name: the first one sent that is wrong."""
    field = "digestWindowSeconds" if len(body) > 1 else next(iter(body))
    value = body[field]
    if field == "quietHours" and isinstance(value, dict):
        missing = {"start", "end", "timeZone"} - set(value)
        wrong = [
            key
            for key in ("start", "end", "timeZone")
            if key in value and value[key] != NIGHTS[key]
        ]
        inner = sorted(missing) + wrong
        if inner == ["end"] and value["end"] == value["start"]:
            return "quietHours"  # the pair is wrong, not either time
        return f"quietHours.{inner[0]}"
    return field


@pytest.mark.parametrize("body", BAD, ids=lambda body: repr(body)[:60])
async def test_a_bad_value_is_a_400_naming_the_field_and_changes_nothing(
    client: TestClient, factory: Factory, body: dict[str, Any]
) -> None:
    ada = await factory.member()
    before = await change(client, ada, OWN)

    response = await client.patch(PATH, json=body, headers=ada.in_channel())

    assert response.status == 400
    error = (await response.json())["error"]
    assert error.startswith(f"{named(body)}: "), error
    assert await read(client, ada) == before


async def test_fields_the_api_does_not_know_are_ignored(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    body = {"digestThreshold": 7, "colour": "red", "quietHours": {**NIGHTS, "days": "weekdays"}}
    answer = await change(client, ada, body)
    assert (answer["digestThreshold"], answer["quietHours"]) == (7, NIGHTS)


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


async def test_another_teams_channel_can_be_neither_read_nor_changed(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B)
    bob = await factory.member("Bob", team_id=TEAM_B)
    # Team B's own member may, in Team B's channel.
    assert (
        await client.patch(PATH, json=OWN, headers=bob.in_channel(TEAM_B, CHANNEL_B))
    ).status == 200

    for headers in (ada.in_channel(TEAM_B, CHANNEL_B), ada.in_channel(channel=CHANNEL_B)):
        for method in ("GET", "PATCH"):
            response = await client.request(method, PATH, json=OWN, headers=headers)
            assert response.status == 403
    assert await read(client, ada) == INSTALLATION
