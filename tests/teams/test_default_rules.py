"""Default notification rules: each channel the app finds gets, for bugs and for tasks, six
Notification rules, all off; a channel seen again never gets a second set, and a rule someone
deleted stays deleted."""

from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import delete

from bot.clock import FrozenClock
from bot.db.tables import EventDefinition
from bot.teams.roster import ONE_INSTALL
from tests.factories import CHANNEL, TEAM, Factory
from tests.teams.activities import ADA, installed, teams_activity
from tests.teams.bot import Post, api_headers

RELEASES = "19:releases@thread.tacv2"
DEFAULTS = {
    ("Bug created", "bug", "ITEM_CREATED"): [],
    ("Bug updated", "bug", "ITEM_UPDATED"): [],
    ("Bug assigned", "bug", "ITEM_UPDATED"): [
        {"ops": "and", "conditions": [{"field": "assignedTo", "ops": "Changed", "value": None}]}
    ],
    ("Bug moved to Done", "bug", "ITEM_UPDATED"): [
        {
            "ops": "and",
            "conditions": [{"field": "statusCategory", "ops": "ChangedTo", "value": "Done"}],
        }
    ],
    ("Bug due soon", "bug", "DUESOON"): [],
    ("Bug overdue", "bug", "OVERDUE"): [],
    ("Task created", "task", "ITEM_CREATED"): [],
    ("Task updated", "task", "ITEM_UPDATED"): [],
    ("Task assigned", "task", "ITEM_UPDATED"): [
        {"ops": "and", "conditions": [{"field": "assignedTo", "ops": "Changed", "value": None}]}
    ],
    ("Task moved to Done", "task", "ITEM_UPDATED"): [
        {
            "ops": "and",
            "conditions": [{"field": "statusCategory", "ops": "ChangedTo", "value": "Done"}],
        }
    ],
    ("Task due soon", "task", "DUESOON"): [],
    ("Task overdue", "task", "OVERDUE"): [],
}


async def rules_listed(
    client: TestClient, factory: Factory, channel: str = CHANNEL
) -> list[dict[str, Any]]:
    """The channel's rules as `GET /api/events` lists them to Ada."""
    response = await client.get("/api/events", headers=await api_headers(factory, ADA, channel))
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


def names(rules: list[dict[str, Any]]) -> list[str]:
    return [rule["eventName"] for rule in rules]


def channel_event(service_url: str, event_type: str, name: str = "Releases") -> dict[str, Any]:
    return teams_activity(
        "conversationUpdate",
        service_url,
        channel=RELEASES,
        channel_name=name,
        event_type=event_type,
    )


async def test_installing_gives_every_channel_twelve_notification_rules_all_off(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    assert (await post(installed(service_url))).status == 200

    for channel in (TEAM, CHANNEL):
        rules = await rules_listed(bot, factory, channel)
        shown = {
            (rule["eventName"], rule["entityType"], rule["triggerType"]): rule["conditions"]
            for rule in rules
        }
        assert shown == DEFAULTS
        assert names(rules) == [name for name, _kind, _trigger in DEFAULTS]  # in this order
        assert {rule["enable"] for rule in rules} == {False}
        assert {rule["actionType"] for rule in rules} == {"Notification"}
        assert {str(rule["action"]) for rule in rules} == {"{}"}
        assert {rule["conditionsOps"] for rule in rules} == {"and"}


async def test_a_default_rule_reads_as_one_made_through_the_api(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    headers = await api_headers(factory, ADA)
    default = next(
        rule
        for rule in await rules_listed(bot, factory)
        if rule["eventName"] == "Bug moved to Done"
    )
    body = {
        key: default[key]
        for key in ("eventName", "entityType", "triggerType", "conditions", "actionType", "action")
    }
    made = await bot.post("/odata/eventDefinitions", json=body, headers=headers)
    assert made.status == 201, await made.text()
    assert (await made.json())["conditions"] == default["conditions"]


async def test_a_channel_created_later_gets_them_and_a_rename_or_restore_adds_none(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    assert (await post(channel_event(service_url, "channelCreated"))).status == 200
    assert len(await rules_listed(bot, factory, RELEASES)) == 12

    await post(channel_event(service_url, "channelRenamed", "Shipping"))
    await post(channel_event(service_url, "channelDeleted", "Shipping"))
    await post(channel_event(service_url, "channelRestored", "Shipping"))
    await post(channel_event(service_url, "channelCreated", "Shipping"))  # Teams sent it again
    assert len(await rules_listed(bot, factory, RELEASES)) == 12


async def test_installing_again_makes_no_second_set(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    await post(installed(service_url))
    await post(teams_activity("installationUpdate", service_url, channel=TEAM, action="add"))
    assert len(await rules_listed(bot, factory)) == 12


async def test_a_deleted_default_stays_deleted(
    post: Post, bot: TestClient, service_url: str, factory: Factory
) -> None:
    await post(installed(service_url))
    await post(channel_event(service_url, "channelCreated"))
    for channel in (CHANNEL, RELEASES):
        rules = await rules_listed(bot, factory, channel)
        headers = await api_headers(factory, ADA, channel)
        overdue = next(rule["_id"] for rule in rules if rule["eventName"] == "Bug overdue")
        response = await bot.delete(f"/odata/eventDefinitions({overdue})", headers=headers)
        assert response.status == 204

    await post(installed(service_url))
    await post(channel_event(service_url, "channelRenamed", "Shipping"))
    await post(channel_event(service_url, "channelCreated", "Shipping"))

    for channel in (CHANNEL, RELEASES):
        left = names(await rules_listed(bot, factory, channel))
        assert len(left) == 11 and "Bug overdue" not in left


async def test_a_channel_from_before_gets_them_at_the_next_sync_unless_it_has_its_own(
    post: Post, bot: TestClient, service_url: str, factory: Factory, clock: FrozenClock
) -> None:
    # Team A and both channels recorded before default rules existed: none of them has a rule.
    await factory.team()
    await factory.channel(TEAM, name="General")
    await factory.channel(CHANNEL)
    await post(installed(service_url))  # records Ada, so she can make a rule below
    async with factory.work() as uow:
        await uow.execute(delete(EventDefinition))  # back to how those channels were before
    headers = await api_headers(factory, ADA)
    own = {
        "eventName": "Our own card",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "actionType": "Notification",
    }
    assert (await bot.post("/odata/eventDefinitions", json=own, headers=headers)).status == 201

    clock.advance(2 * ONE_INSTALL)  # a later install: its own sync
    await post(installed(service_url))  # the next sync

    assert len(await rules_listed(bot, factory, TEAM)) == 12
    assert names(await rules_listed(bot, factory)) == ["Our own card"]
