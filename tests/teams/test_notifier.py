"""Proactive sends as jobs: queued in a transaction, sent by the worker, retried when throttled."""

from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.engine import session_factory
from bot.db.tables import Job
from bot.jobs import queue
from bot.keys import WORKER
from bot.teams.keys import NOTIFIER
from bot.teams.outbound import notifier
from bot.teams.outbound.send_budget import SendBudget
from cards.mentions import mentioning
from tests.factories import CHANNEL, Factory
from tests.teams.activities import GRACE, LIN, TENANT, installed
from tests.teams.bot import Post
from tests.teams.connector import Connector, seen
from tests.teams.test_send_budget import VirtualTime

CARD = {
    "type": "AdaptiveCard",
    "version": "1.5",
    "body": [{"type": "TextBlock", "text": 'Bug 12 "quoted" <b>moved</b> to Done'}],
}
THREAD = f"{CHANNEL};messageid=1700000000123"


@pytest.fixture
async def installed_team(post: Post, service_url: str, connector: Connector) -> None:
    assert (await post(installed(service_url))).status == 200
    connector.calls.clear()


async def only_job(factory: Factory) -> Job:
    """The one notifier job (recurring jobs, such as the due-date sweep, run beside it)."""
    sends = (notifier.NEW_THREAD.name, notifier.REPLY.name, notifier.UPDATE.name)
    async with factory.work() as uow:
        [job] = (await uow.session.scalars(select(Job).where(Job.kind.in_(sends)))).all()
        return job


@pytest.mark.usefixtures("installed_team")
async def test_a_new_thread_queued_with_a_change_is_started_by_the_worker(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    async with factory.work() as uow:
        await notifier.queue_new_thread(
            uow, channel_id=CHANNEL, activity=notifier.message(card=CARD)
        )
    assert connector.calls == []  # nothing is sent by the transaction itself

    await bot.app[WORKER].run_once()
    [created] = connector.sent()
    assert created.path == "/v3/conversations"
    assert created.body["isGroup"] is True
    assert created.body["channelData"] == {"channel": {"id": CHANNEL}}
    assert created.body["tenantID"] == TENANT  # as the channel's reference holds it
    [attachment] = created.body["activity"]["attachments"]
    assert attachment == {"contentType": notifier.ADAPTIVE_CARD, "content": CARD}
    assert (await only_job(factory)).state == "done"


@pytest.mark.usefixtures("installed_team")
async def test_a_reply_queued_before_the_upgrade_is_sent_by_the_new_worker(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    old = {"conversationId": THREAD, "activity": {"type": "message", "text": "Assigned to you"}}
    async with factory.work() as uow:
        await queue.enqueue(uow, kind="teams.reply", payload=old)  # the row as it was stored

    await bot.app[WORKER].run_once()

    [reply] = connector.sent()
    assert reply.path == f"/v3/conversations/{THREAD}/activities/1700000000123"
    assert reply.body["text"] == "Assigned to you"
    assert (await only_job(factory)).state == "done"


@pytest.mark.usefixtures("installed_team")
async def test_a_reply_goes_to_its_thread(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    async with factory.work() as uow:
        await notifier.queue_reply(
            uow, conversation_id=THREAD, activity=notifier.message(text="Assigned to you")
        )
    await bot.app[WORKER].run_once()
    [reply] = connector.sent()
    assert reply.path == f"/v3/conversations/{THREAD}/activities/1700000000123"
    assert reply.body["text"] == "Assigned to you"
    assert reply.body["conversation"]["id"] == THREAD


@pytest.mark.usefixtures("installed_team")
async def test_a_sent_card_is_updated_in_place(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    async with factory.work() as uow:
        await notifier.queue_update(
            uow,
            conversation_id=THREAD,
            activity_id="1700000000555",
            activity=notifier.message(card=CARD),
        )
    await bot.app[WORKER].run_once()
    [update] = [call for call in connector.calls if call.method == "PUT"]
    assert update.path == f"/v3/conversations/{THREAD}/activities/1700000000555"
    assert update.body["attachments"][0]["content"] == CARD


@pytest.mark.usefixtures("installed_team")
@pytest.mark.parametrize("status", [429, 412, 502, 504])
async def test_throttling_is_retried_after_the_retry_after_teams_gives(
    status: int, bot: TestClient, connector: Connector, factory: Factory, clock: FrozenClock
) -> None:
    connector.refusals.append((status, {"Retry-After": "7"}))
    async with factory.work() as uow:
        await notifier.queue_reply(
            uow, conversation_id=THREAD, activity=notifier.message(text="hi")
        )
    worker = bot.app[WORKER]

    await worker.run_once()
    job = await only_job(factory)
    assert (job.state, job.run_at, job.last_error) == (
        "queued",
        clock.now() + timedelta(seconds=7),
        f"Teams answered {status}",
    )
    clock.advance(timedelta(seconds=6))
    await worker.run_once()
    assert len(connector.sent()) == 1  # not yet
    clock.advance(timedelta(seconds=1))
    await worker.run_once()
    assert len(connector.sent()) == 2  # refused once, then delivered
    assert (await only_job(factory)).state == "done"


@pytest.mark.usefixtures("installed_team")
async def test_throttling_without_retry_after_backs_off(
    bot: TestClient, connector: Connector, factory: Factory, clock: FrozenClock
) -> None:
    connector.refusals.append((429, {}))
    async with factory.work() as uow:
        await notifier.queue_reply(
            uow, conversation_id=THREAD, activity=notifier.message(text="hi")
        )
    await bot.app[WORKER].run_once()
    assert (await only_job(factory)).run_at == clock.now() + timedelta(seconds=5)


@pytest.mark.usefixtures("installed_team")
async def test_a_message_teams_refuses_for_good_is_not_retried(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    connector.refusals.append((403, {}))
    async with factory.work() as uow:
        await notifier.queue_reply(
            uow, conversation_id=THREAD, activity=notifier.message(text="hi")
        )
    await bot.app[WORKER].run_once()
    job = await only_job(factory)
    assert (job.state, job.last_error) == ("failed", "Teams refused the message: 403")


async def test_a_channel_without_a_reference_fails_with_a_reason(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    async with factory.work() as uow:
        await notifier.queue_new_thread(
            uow, channel_id=CHANNEL, activity=notifier.message(text="x")
        )
    await bot.app[WORKER].run_once()
    job = await only_job(factory)
    assert job.state == "failed"
    assert job.last_error is not None and "No conversation reference" in job.last_error
    assert connector.calls == []


@pytest.mark.usefixtures("installed_team")
async def test_sends_to_one_thread_are_paced_to_seven_a_second(
    bot: TestClient, connector: Connector, factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The app's sends wait on a budget that keeps virtual time, which moves only when a send
    # waits its turn: when each send was let go is then exact, however loaded the machine.
    time = VirtualTime()
    budget = SendBudget(session_factory(factory.engine), now=time.now, sleep=time.sleep)
    let_go: list[float] = []

    async def recorded(conversation: str, *, tenant: str | None) -> None:
        await SendBudget.wait_turn(budget, conversation, tenant=tenant)
        let_go.append(time.seconds)

    monkeypatch.setattr(budget, "wait_turn", recorded)
    monkeypatch.setattr(bot.app[NOTIFIER], "budget", budget)
    async with factory.work() as uow:
        for n in range(8):
            await notifier.queue_reply(
                uow, conversation_id=THREAD, activity=notifier.message(text=f"update {n}")
            )
    await bot.app[WORKER].run_once()
    assert len(connector.sent()) == 8
    # The first seven go at once; the eighth waits for the first second to pass.
    assert let_go[:7] == [0.0] * 7
    assert let_go[7] >= 1.0


PEOPLE = [
    {"id": GRACE.object_id, "name": "Grace Hopper"},
    {"id": LIN.object_id, "name": "Lin <Chen>"},
]


@pytest.mark.usefixtures("installed_team")
async def test_a_card_that_mentions_people_is_the_whole_message(
    bot: TestClient, connector: Connector, factory: Factory
) -> None:
    """The people a card tells are @mentioned inside it: a text beside a card is shown by some
    clients in place of the card (a notification read "@Alex Wilber" and nothing else)."""
    async with factory.work() as uow:
        await notifier.queue_reply(
            uow, conversation_id=THREAD, activity=notifier.message(card=mentioning(CARD, PEOPLE))
        )
    await bot.app[WORKER].run_once()
    [reply] = connector.sent()
    assert "text" not in reply.body
    [shown] = connector.seen()
    assert shown.text.splitlines() == [
        "Grace Hopper Lin <Chen>",
        'Bug 12 "quoted" <b>moved</b> to Done',
    ]
    assert shown.mentioned == [GRACE.object_id, LIN.object_id]


def test_teams_shows_a_card_not_a_text_beside_it() -> None:
    """What the stub checks of every card sent: a card with a text beside it is refused, and a
    mention counts only where its tag stands in the card."""
    beside = {
        "type": "message",
        "text": "<at>Grace Hopper</at>",
        "entities": [
            {
                "type": "mention",
                "text": "<at>Grace Hopper</at>",
                "mentioned": {"id": GRACE.object_id, "name": "Grace Hopper"},
            }
        ],
        "attachments": [{"contentType": notifier.ADAPTIVE_CARD, "content": CARD}],
    }
    with pytest.raises(AssertionError, match="a text beside a card"):
        seen(beside)
    untagged = mentioning(CARD, PEOPLE[:1])
    untagged["body"] = untagged["body"][1:]  # the entity without its tag in the card
    assert seen(notifier.message(card=untagged)).mentioned == []
