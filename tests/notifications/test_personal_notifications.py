"""Personal notifications from end to end: people add the app in their personal scope, items are
assigned through the REST API, the worker runs, and the local connector shows what reached each
1:1 chat; `notify off` and `notify on` typed there switch it."""

import logging
from typing import Any

import pytest

from bot.db import driver
from bot.discussions.personal import NO_CHAT, SWITCHED_OFF
from bot.keys import EVENT_PUMP
from cards.listing import MAX_ROWS
from tests.cards.samples import action, text_of
from tests.factories import insert_copies
from tests.notifications.conftest import PUBLIC_URL, Office
from tests.teams.activities import (
    ADA,
    GRACE,
    LIN,
    personal_message,
    personal_removed,
)
from tests.teams.bot import facts, sent_cards
from tests.teams.connector import TeamsMember

LOGGER = "bot.discussions.personal"


async def say(office: Office, who: TeamsMember, text: str) -> str:
    """The text of the card the bot answers `who` with in their 1:1 chat, on one line."""
    office.connector.calls.clear()
    await office.teams(personal_message(office.service_url, text, sender=who))
    [card] = sent_cards(office.connector)
    office.connector.calls.clear()
    return " ".join(text_of(card).split())


async def test_an_assignment_reaches_the_assignees_personal_chat_once(office: Office) -> None:
    await office.added_personally(GRACE)
    ada = await office.member(ADA)
    bug = await office.bug(ada, name="Checkout is down", priority="High")
    await office.assign(ada, bug["_id"], GRACE)
    await office.work_off()
    await office.work_off()  # a second pass sends nothing again

    [card] = office.personal_cards(GRACE)
    [sent] = office.connector.sent()
    assert not sent.body.get("replyToId")  # a message of its own, not a reply to the install
    shown = text_of(card)
    assert f"Ada Lovelace assigned you Bug #{bug['internalId']}" in shown
    assert "Checkout is down" in shown
    assert facts(card) == {"Status": "Not Started", "Priority": "High", "Due": "No due date"}
    assert action(card, "Open")["url"] == f"{PUBLIC_URL}/bugs/{bug['_id']}"


async def test_notify_off_stops_them_and_notify_on_brings_them_back(
    office: Office, caplog: pytest.LogCaptureFixture
) -> None:
    await office.added_personally(GRACE)
    ada = await office.member(ADA)
    first, second = await office.bug(ada, name="First"), await office.bug(ada, name="Second")
    assert (await say(office, GRACE, "notify")).startswith("Personal notifications are on")
    assert (await say(office, GRACE, "Notify OFF")).startswith("Personal notifications are off")
    assert (await say(office, GRACE, "notify")).startswith("Personal notifications are off")

    with caplog.at_level(logging.INFO, logger=LOGGER):
        await office.assign(ada, first["_id"], GRACE)
        await office.work_off()
    assert office.personal_cards(GRACE) == []
    assert (
        f"personal notification for {GRACE.upn} on item {first['_id']} not sent: {SWITCHED_OFF}"
        in caplog.messages
    )

    assert (await say(office, GRACE, "notify on")).startswith("Personal notifications are on")
    await office.assign(ada, second["_id"], GRACE)
    await office.work_off()
    [card] = office.personal_cards(GRACE)
    assert "Second" in text_of(card)


async def test_removing_the_app_from_the_personal_scope_stops_them_and_adding_it_resumes(
    office: Office, caplog: pytest.LogCaptureFixture
) -> None:
    await office.added_personally(GRACE)
    ada = await office.member(ADA)
    first, second = await office.bug(ada, name="First"), await office.bug(ada, name="Second")
    await office.teams(personal_removed(office.service_url, GRACE))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        await office.assign(ada, first["_id"], GRACE)
        await office.work_off()
    assert office.connector.sent() == []
    assert (
        f"personal notification for {GRACE.upn} on item {first['_id']} not sent: {NO_CHAT}"
        in caplog.messages
    )

    await office.added_personally(GRACE)
    await office.assign(ada, second["_id"], GRACE)
    await office.work_off()
    [card] = office.personal_cards(GRACE)
    assert "Second" in text_of(card)


async def test_a_message_in_the_personal_chat_is_enough_to_be_told(office: Office) -> None:
    """An app added before this feature sent its installation long ago: any message will do."""
    assert "My bugs" in await say(office, GRACE, "my bugs")
    ada = await office.member(ADA)
    bug = await office.bug(ada)
    await office.assign(ada, bug["_id"], GRACE)
    await office.work_off()
    assert len(office.personal_cards(GRACE)) == 1


async def test_assigning_yourself_tells_nobody(office: Office) -> None:
    await office.added_personally(ADA)
    ada = await office.member(ADA)
    bug = await office.bug(ada)
    await office.assign(ada, bug["_id"], ADA)
    await office.bug(ada, assignedTo=[ADA.upn])
    await office.work_off()
    assert office.connector.sent() == []


async def test_someone_without_a_personal_chat_is_not_told_and_the_log_says_why(
    office: Office, caplog: pytest.LogCaptureFixture
) -> None:
    ada = await office.member(ADA)
    bug = await office.bug(ada)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        await office.assign(ada, bug["_id"], LIN)
        await office.work_off()
    assert office.connector.sent() == []
    assert (
        f"personal notification for {LIN.upn} on item {bug['_id']} not sent: {NO_CHAT}"
        in caplog.messages
    )


async def test_creating_an_item_with_assignees_tells_each_but_its_creator(office: Office) -> None:
    for person in (ADA, GRACE, LIN):
        await office.added_personally(person)
    ada = await office.member(ADA)
    bug = await office.bug(ada, name="Payments fail", assignedTo=[ADA.upn, GRACE.upn, LIN.upn])
    await office.work_off()
    assert office.personal_cards(ADA) == []
    for person in (GRACE, LIN):
        [card] = office.personal_cards(person)
        assert f"Ada Lovelace assigned you Bug #{bug['internalId']}" in text_of(card)
        assert "Payments fail" in text_of(card)


async def test_only_the_people_an_update_adds_are_told(office: Office) -> None:
    for person in (GRACE, LIN):
        await office.added_personally(person)
    ada = await office.member(ADA)
    bug = await office.bug(ada, assignedTo=[GRACE.upn])
    await office.work_off()
    office.connector.calls.clear()
    await office.assign(ada, bug["_id"], GRACE, LIN)
    await office.work_off()
    assert office.personal_cards(GRACE) == []
    assert len(office.personal_cards(LIN)) == 1


async def test_an_assignment_undone_or_deleted_before_it_is_told_says_nothing(
    office: Office,
) -> None:
    await office.added_personally(GRACE)
    ada = await office.member(ADA)
    undone, deleted = await office.bug(ada), await office.bug(ada)
    await office.assign(ada, undone["_id"], GRACE)
    await office.assign(ada, undone["_id"])
    await office.assign(ada, deleted["_id"], GRACE)
    response = await office.client.delete(
        f"/odata/bugs({deleted['_id']})", headers=ada.in_channel()
    )
    assert response.status == 204, await response.text()
    await office.work_off()
    assert office.connector.sent() == []


async def test_a_bulk_edit_assigning_50_bugs_is_one_card_listing_them(office: Office) -> None:
    await office.added_personally(GRACE)
    ada = await office.member(ADA)
    first = await office.bug(ada, name="Bulk")
    await insert_copies(office.factory, first["_id"], 49)
    listed = await office.client.get("/odata/bugs", params={"$top": "50"}, headers=ada.in_channel())
    ids = [bug["_id"] for bug in (await listed.json())["value"]]
    assert len(ids) == 50
    await office.work_off()  # the first bug's creation, which told nobody
    response = await office.client.post(
        "/api/bulk/bug", json={"ids": ids, "assignedTo": [GRACE.upn]}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    await office.work_off()

    [card] = office.personal_cards(GRACE)
    shown = text_of(card)
    assert "Ada Lovelace assigned you 50 bugs" in shown
    assert f"1–{MAX_ROWS} of 50" in shown
    assert shown.count("Bulk") == MAX_ROWS


async def test_a_batch_of_150_assignments_costs_the_statements_of_one(
    office: Office, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever a batch holds (assignments, people without a chat, a deleted item), the pump's
    pass runs the same statements; only the messages it queues are one per person told."""
    await office.added_personally(GRACE)
    ada = await office.member(ADA)
    first = await office.bug(ada, name="Many")
    await insert_copies(office.factory, first["_id"], 151)
    listed = await office.client.get(
        "/odata/bugs", params={"$top": "152", "$orderby": "internalId"}, headers=ada.in_channel()
    )
    ids = [bug["_id"] for bug in (await listed.json())["value"]]
    await office.work_off()
    statements = 0

    async def counted(run: Any, *args: Any) -> Any:
        nonlocal statements
        statements += 1
        return await run(*args)

    monkeypatch.setattr(driver, "run", lambda *a, run=driver.run: counted(run, *a))
    monkeypatch.setattr(driver, "run_many", lambda *a, run=driver.run_many: counted(run, *a))

    async def one_pass() -> int:
        nonlocal statements
        statements = 0
        assert await office.client.app[EVENT_PUMP].run_once() > 0
        return statements

    async def delete(item_id: str) -> None:
        response = await office.client.delete(f"/odata/bugs({item_id})", headers=ada.in_channel())
        assert response.status == 204

    await office.assign(ada, ids[0], GRACE)
    await delete(ids[-1])
    one = await one_pass()
    response = await office.client.post(
        "/api/bulk/bug",
        json={"ids": ids[1:-1], "assignedTo": [GRACE.upn, LIN.upn]},
        headers=ada.in_channel(),
    )
    assert response.status == 200, await response.text()
    await delete(ids[-2])
    assert await one_pass() == one
    await office.work_off()
    assert len(office.personal_cards(GRACE)) == 2  # bug #1's card, then one listing 150
