"""A rule the service switched off (its receiver answered 410, or every delivery failed for five
days) is announced once in its channel, and `rules` says why it is off."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.directory.users import find_user, user_out
from bot.keys import WORKER
from tests.cards.samples import assert_valid, text_of
from tests.events.deliveries.conftest import ALLOWED
from tests.events.deliveries.factory import attempts, delivery, rule_to, stored
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member
from tests.teams.activities import ADA
from tests.teams.bot import Chat
from tests.teams.connector import Connector


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
async def bot(
    db: str, make_settings, clock: FrozenClock, aiohttp_client: AiohttpClient
) -> TestClient:  # noqa: ANN001
    """The app in Emulator mode, allowed to call the loopback receiver."""
    settings = make_settings(db, JOBS_POLL_SECONDS=0, WEBHOOK_ALLOWED_HOSTS=ALLOWED)
    return await aiohttp_client(create_app(settings, clock=clock))


@pytest.fixture
async def receiver(aiohttp_server: AiohttpServer) -> AsyncIterator[Receiver]:
    receiver = Receiver()
    server = await aiohttp_server(receiver.app(), host="127.0.0.1")
    receiver.base_url = str(server.make_url("")).rstrip("/")
    yield receiver


def posted_cards(connector: Connector) -> list[dict]:
    """The cards of the posts the bot started in the channel (each valid, under the limit)."""
    cards = [
        attachment["content"]
        for call in connector.sent()
        if call.path == "/v3/conversations"
        for attachment in call.body["activity"].get("attachments") or ()
    ]
    for card in cards:
        assert_valid(card)
    return cards


async def ada_member(factory: Factory) -> Member:
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=ADA.object_id))
    return Member(user=user, cookie=await factory.session(user))


async def test_a_410_switches_the_rule_off_and_the_channel_is_told_once(
    bot: TestClient, chat: Chat, connector: Connector, factory: Factory, receiver: Receiver
) -> None:
    ada = await ada_member(factory)
    rule = await rule_to(bot, ada, receiver.url("/gone"), eventName="Pager duty")
    first = await delivery(factory, rule["_id"])
    connector.calls.clear()
    worker = bot.app[WORKER]
    await worker.run_once()
    second = await delivery(factory, rule["_id"])  # made as the first failed
    while await worker.run_once():
        pass

    assert len(receiver.requests) == 1  # the second was not sent to a receiver that is gone
    [card] = posted_cards(connector)
    shown = text_of(card)
    assert "A rule was switched off" in shown and "Pager duty" in shown
    assert "410 Gone" in shown
    response = await bot.get(f"/odata/eventDefinitions('{rule['_id']}')", headers=ada.in_channel())
    definition = await response.json()
    assert definition["enable"] is False
    assert definition["disabledReason"].startswith("The receiver answered 410 Gone on ")
    assert [t.outcome for t in await attempts(factory, first.id)] == ["failed"]
    assert [t.outcome for t in await attempts(factory, second.id)] == ["stopped"]

    rules = text_of(await chat.say("rules"))
    assert "Off: The receiver answered 410 Gone" in rules
    assert "failed" in rules


async def test_a_rule_whose_deliveries_all_failed_for_five_days_is_switched_off_once(
    bot: TestClient,
    chat: Chat,
    connector: Connector,
    factory: Factory,
    receiver: Receiver,
    clock: FrozenClock,
) -> None:
    ada = await ada_member(factory)
    rule = await rule_to(bot, ada, receiver.url("/refuse"), eventName="Flaky")
    worker = bot.app[WORKER]
    await delivery(factory, rule["_id"])
    await worker.run_once()
    clock.advance(timedelta(days=2))
    await delivery(factory, rule["_id"])
    await worker.run_once()

    clock.advance(timedelta(days=3))  # failing for five days now
    connector.calls.clear()
    await delivery(factory, rule["_id"])
    while await worker.run_once():
        pass

    [card] = posted_cards(connector)
    assert "Every delivery since" in text_of(card)
    ada = await ada_member(factory)  # a new session: days have passed
    response = await bot.get(f"/odata/eventDefinitions('{rule['_id']}')", headers=ada.in_channel())
    assert (await response.json())["enable"] is False


async def test_a_success_within_five_days_keeps_the_rule_on(
    bot: TestClient, chat: Chat, factory: Factory, receiver: Receiver, clock: FrozenClock
) -> None:
    ada = await ada_member(factory)
    rule = await rule_to(bot, ada, receiver.url("/refuse"))
    worker = bot.app[WORKER]
    await delivery(factory, rule["_id"])
    await worker.run_once()
    clock.advance(timedelta(days=4))
    await delivery(factory, rule["_id"], url=receiver.url("/ok"))
    await worker.run_once()
    clock.advance(timedelta(days=2))
    last = await delivery(factory, rule["_id"])
    await worker.run_once()

    assert (await stored(factory, last.id)).state == "failed"
    ada = await ada_member(factory)  # a new session: days have passed
    response = await bot.get(f"/odata/eventDefinitions('{rule['_id']}')", headers=ada.in_channel())
    assert (await response.json())["enable"] is True
