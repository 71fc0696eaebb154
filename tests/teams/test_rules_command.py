"""`rules` in a channel: each rule of that channel, what it does, and how its latest delivery went
("never fired" before the first); elsewhere, a line saying rules belong to a channel."""

from datetime import datetime, timedelta
from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import delete

from bot.db.tables import DeliveryAttempt, EventDefinition, EventDelivery
from bot.directory.users import find_user, user_out
from bot.events.notification_rules import DEFAULT_RULES
from bot.ids import new_id
from bot.teams.commands.rule_commands import RULES_IN_A_CHANNEL
from cards.rules import NO_RULES
from tests.cards.samples import text_of
from tests.conftest import START
from tests.factories import CHANNEL, TEAM, Factory
from tests.teams.activities import ADA, personal_message
from tests.teams.bot import Chat
from tests.teams.connector import Connector, TeamsMember

HOOK = "https://93.184.215.14/hooks/tracker"
DEFAULT_NAMES = [rule.event_name for rule in DEFAULT_RULES]  # every new channel's, all off


async def add_rule(
    client: TestClient, factory: Factory, member: TeamsMember, channel: str = CHANNEL, **fields: Any
) -> str:
    """A rule made through the REST API by `member`; its id."""
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=member.object_id))
    headers = {
        "Cookie": f"graphNodeCookie={await factory.session(user)}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": channel,
    }
    body = {
        "eventName": "Pager",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "actionType": "HTTP",
        "action": {"url": HOOK, "method": "PUT"},
        **fields,
    }
    response = await client.post("/odata/eventDefinitions", json=body, headers=headers)
    assert response.status == 201, await response.text()
    return str((await response.json())["_id"])


async def delivered(factory: Factory, definition_id: str, state: str, at: datetime) -> None:
    """A delivery of the rule as the sender records one, made at `at` and tried once then (the
    receiver answering 200, or 500 when it did not take it)."""
    delivery_id = new_id()
    async with factory.work() as uow:
        definition = await uow.get(EventDefinition, definition_id)
        assert definition is not None
        uow.add(
            EventDelivery(
                id=delivery_id,
                definition_id=definition_id,
                channel_id=definition.channel_id,
                event_id=new_id(),
                item_id=new_id(),
                trigger="ITEM_CREATED",
                webhook_id=f"msg_{new_id()}",
                request={},
                state=state,
                attempts=1,
                created_at=at,
                last_attempt_at=at,
                finished_at=None if state == "pending" else at,
            )
        )
        await uow.flush()
        outcome = {"pending": "retrying"}.get(state, state)
        uow.add(
            DeliveryAttempt(
                id=new_id(),
                delivery_id=delivery_id,
                at=at,
                outcome=outcome,
                latency_ms=12,
                response_code=200 if state == "succeeded" else 500,
                error=None,
            )
        )


def rules_shown(card: dict[str, Any], *, defaults: bool = False) -> dict[str, dict[str, str]]:
    """Each rule's facts by its name, as the card lists them; the default rules only if asked."""
    shown = {}
    for node in card["body"]:
        if node.get("type") != "Container":
            continue
        name = node["items"][0]["inlines"][0]["text"]
        if defaults or name not in DEFAULT_NAMES:
            shown[name] = {fact["title"]: fact["value"] for fact in node["items"][1]["facts"]}
    return shown


async def test_a_new_channel_lists_its_default_rules_all_off(chat: Chat) -> None:
    card = await chat.say("rules")
    assert "12 rules" in text_of(card)
    shown = rules_shown(card, defaults=True)
    assert list(shown) == DEFAULT_NAMES
    assert shown["Bug assigned"] == {
        "When": "A bug is updated",
        "Action": "A card in the item's thread",
        "State": "Off",
        "Last delivery": "never fired",
    }


async def test_no_rules_says_how_to_make_one(chat: Chat, factory: Factory) -> None:
    async with factory.work() as uow:
        await uow.execute(delete(EventDefinition))
    card = await chat.say("rules")
    assert "Rules" in text_of(card) and NO_RULES in text_of(card)


async def test_each_rule_shows_its_trigger_action_state_and_never_fired(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await add_rule(bot, factory, ADA)
    await add_rule(
        bot,
        factory,
        ADA,
        eventName="Tasks done *here*",
        entityType="task",
        triggerType="DUESOON",
        actionType="Notification",
        action={},
        enable=False,
    )
    card = await chat.say("rules")
    assert "14 rules" in text_of(card)
    assert rules_shown(card) == {
        "Pager": {
            "When": "A bug is created",
            "Action": "HTTP PUT 93.184.215.14",
            "State": "On",
            "Last delivery": "never fired",
        },
        "Tasks done *here*": {
            "When": "A task is due soon",
            "Action": "A card in the item's thread",
            "State": "Off",
            "Last delivery": "never fired",
        },
    }


async def test_the_latest_delivery_decides_the_outcome(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    pager = await add_rule(bot, factory, ADA)
    audit = await add_rule(bot, factory, ADA, eventName="Audit")
    await delivered(factory, pager, "succeeded", START)
    await delivered(factory, pager, "failed", START + timedelta(minutes=30))
    await delivered(factory, audit, "pending", START + timedelta(hours=2))
    shown = rules_shown(await chat.say("rules"))
    assert shown["Pager"]["Last delivery"] == "failed 2026-11-21 10:00 UTC, HTTP 500"
    assert shown["Audit"]["Last delivery"] == "retrying 2026-11-21 11:30 UTC, HTTP 500"


async def test_a_rule_the_service_switched_off_says_why(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    pager = await add_rule(bot, factory, ADA)
    async with factory.work() as uow:
        definition = await uow.get(EventDefinition, pager)
        assert definition is not None
        definition.enabled = False
        definition.disabled_reason = "The receiver answered 410 Gone."
    shown = rules_shown(await chat.say("rules"))
    assert shown["Pager"]["State"] == "Off: The receiver answered 410 Gone."


async def test_rules_of_another_channel_are_not_listed(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await add_rule(bot, factory, ADA, channel=TEAM, eventName="General's rule")
    await add_rule(bot, factory, ADA, eventName="Bugs' rule")
    assert list(rules_shown(await chat.say("rules"))) == ["Bugs' rule"]


async def test_in_a_personal_chat_rules_belong_to_a_channel(
    chat: Chat, connector: Connector
) -> None:
    connector.calls.clear()
    await chat.post(personal_message(chat.service_url, "rules"))
    assert connector.texts() == [RULES_IN_A_CHANNEL]
