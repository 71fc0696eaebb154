"""Card buttons (Action.Execute): each changes the database through the services, as the REST
API then shows, and answers with the card that replaces the clicked one."""

from dataclasses import replace
from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from cards.verbs import SELECT_PREFIX
from cards.widths import NARROW, WIDE, laid_out
from tests.cards.samples import action, beside_input, inputs, said, text_of, values
from tests.factories import Factory, insert_copies
from tests.teams.activities import ADA, GRACE
from tests.teams.bot import Chat, facts, rest_items


async def test_set_status_replaces_the_card_saying_who_moved_it(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("new bug First")
    changed = await chat.click(action(card, "Set status"), status="In Progress")
    assert said(changed) == "Ada Lovelace moved #1 to In Progress"
    assert facts(changed)["Status"] == "In Progress"
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "In Progress"


async def test_a_click_that_changes_nothing_says_so(chat: Chat) -> None:
    card = await chat.say("new bug First")
    again = await chat.click(action(card, "Set status"), status="Not Started")
    assert said(again) == "Nothing changed" and facts(again)["Status"] == "Not Started"


async def test_one_click_moves_an_item_on_start_close_reopen(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("new bug First")
    started = await chat.click(action(card, "Start"))
    assert said(started) == "Ada Lovelace moved #1 to In Progress"
    closed = await chat.click(action(started, "Close"))
    assert facts(closed)["Status"] == "Completed"
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["completedDate"] is not None
    reopened = await chat.click(action(closed, "Reopen"))
    assert said(reopened) == "Ada Lovelace moved #1 to Not Started"


async def test_assign_to_me_adds_the_caller_to_the_assignees(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    card = await chat.say("bug/update/1/assigned/grace@contoso.test")
    changed = await chat.click(action(card, "Assign to me"))
    assert said(changed) == "Ada Lovelace assigned themselves to #1"
    assert facts(changed)["Assigned to"] == f"{GRACE.name}, {ADA.name}"
    [stored] = await rest_items(bot, factory, GRACE)
    assert [person["displayName"] for person in stored["assignedTo"]] == [GRACE.name, ADA.name]
    again = await chat.click(action(changed, "Assign to me"))
    assert said(again) == "Ada Lovelace is already assigned to #1"


async def test_the_card_says_who_created_it_and_who_changed_it_when(
    chat: Chat, clock: FrozenClock
) -> None:
    card = await chat.say("new bug First")
    assert "Created just now by Ada Lovelace" in text_of(card)
    clock.advance(timedelta(minutes=5))
    changed = await replace(chat, sender=GRACE).click(action(card, "Start"))
    assert "Created 5 min ago by Ada Lovelace · updated just now by Grace Hopper" in text_of(
        changed
    )
    clock.advance(timedelta(hours=3))
    assert "updated 3 h ago by Grace Hopper" in text_of(await chat.say("bug 1"))


async def test_edit_then_save(chat: Chat, bot: TestClient, factory: Factory) -> None:
    card = await chat.say("new bug First")
    form = await chat.click(action(card, "Edit"))
    assert inputs(form)["title"]["value"] == "First"
    grace_id = next(
        c["value"] for c in inputs(form)["assignees"]["choices"] if c["title"] == GRACE.name
    )
    saved = await chat.click(
        action(form, "Save bug"),
        title="First, renamed",
        priority="High",
        severity="Critical",
        assignees=grace_id,
        dueDate="2026-12-24",
    )
    assert said(saved) == (
        "Ada Lovelace changed the title, priority, severity, assignees and due date of #1"
    )
    assert "First, renamed" in text_of(saved)
    assert facts(saved)["Due"] == "2026-12-24" and facts(saved)["Assigned to"] == GRACE.name
    [stored] = await rest_items(bot, factory, GRACE)
    assert (stored["name"], stored["priority"], stored["severity"]) == (
        "First, renamed",
        "High",
        "Critical",
    )


async def test_the_form_sets_the_start_date_and_keeps_it_before_the_due_date(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    form = await chat.click(action(await chat.say("new bug First"), "Edit"))
    typed = {**values(form), "startDate": "2026-12-10", "dueDate": "2026-12-01"}
    again = await chat.click(action(form, "Save bug"), **typed)
    assert beside_input(again, "dueDate") == "must not be before the Start date"
    assert inputs(again)["startDate"]["value"] == "2026-12-10"
    [stored] = await rest_items(bot, factory, GRACE)
    assert (stored["startDate"], stored["dueDate"]) == (None, None)

    saved = await chat.click(
        action(again, "Save bug"), **{**values(again), "dueDate": "2026-12-24"}
    )
    assert said(saved) == "Ada Lovelace changed the start date and due date of #1"
    [stored] = await rest_items(bot, factory, GRACE)
    assert (stored["startDate"][:10], stored["dueDate"][:10]) == ("2026-12-10", "2026-12-24")
    edited = await chat.click(action(saved, "Edit"))
    assert inputs(edited)["startDate"]["value"] == "2026-12-10"


async def test_the_create_form_creates(chat: Chat, bot: TestClient, factory: Factory) -> None:
    form = await chat.say("new task")
    created = await chat.click(action(form, "Create task"), title="From the form", status="")
    assert said(created) == "Ada Lovelace created #1"
    assert facts(created)["ID"] == "#1" and facts(created)["Status"] == "Not Started"
    [stored] = await rest_items(bot, factory, GRACE, of="task")
    assert stored["name"] == "From the form"


async def test_bulk_edit_selected_rows(chat: Chat, bot: TestClient, factory: Factory) -> None:
    for title in ("One", "Two", "Three"):
        await chat.say(f"new bug {title}")
    listing = await chat.say("bugs")
    ids = {item["internalId"]: item["_id"] for item in await rest_items(bot, factory, GRACE)}
    checked = {SELECT_PREFIX + ids[1]: "true", SELECT_PREFIX + ids[3]: "true"}
    form = await chat.click(action(listing, "Bulk edit selected"), **checked)
    assert "Edit 2 bugs" in text_of(form)
    result = await chat.click(action(form, "Apply to 2 bugs"), status="Completed", priority="")
    assert "2 of 2 bugs updated" in text_of(result)
    stored = {item["internalId"]: item["status"] for item in await rest_items(bot, factory, GRACE)}
    assert stored == {1: "Completed", 2: "Not Started", 3: "Completed"}


async def test_bulk_edit_says_it_replaces_assignees_and_answers_what_changed(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    for title in ("One", "Two", "Three"):
        await chat.say(f"new bug {title}")
    await chat.say("assign bug 1 to me")
    listing = await chat.say("bugs")
    ids = {item["internalId"]: item["_id"] for item in await rest_items(bot, factory, GRACE)}
    checked = {SELECT_PREFIX + ids[1]: "true", SELECT_PREFIX + ids[3]: "true"}
    form = await chat.click(action(listing, "Bulk edit selected"), **checked)
    assignee = inputs(form)["assignee"]
    assert assignee["label"] == "Replace assignees with"
    [grace] = [each["value"] for each in assignee["choices"] if each["title"] == "Grace Hopper"]
    result = await chat.click(action(form, "Apply to 2 bugs"), assignee=grace, priority="High")
    assert text_of(result).startswith(
        "2 of 2 bugs updated: priority set to High, assignees set to Grace Hopper on #1, #3"
    )
    stored = {
        item["internalId"]: [user["displayName"] for user in item["assignedTo"]]
        for item in await rest_items(bot, factory, GRACE)
    }
    assert stored == {1: ["Grace Hopper"], 2: [], 3: ["Grace Hopper"]}


async def test_bulk_edit_of_two_hundred_rows_lists_them_as_they_now_stand(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug Copied")
    [first] = await rest_items(bot, factory, GRACE)
    await insert_copies(factory, first["_id"], 199)
    ids = [item["_id"] for item in await rest_items(bot, factory, GRACE, **{"$top": "1000"})]
    listing = await chat.say("bugs")
    checked = {SELECT_PREFIX + item_id: "true" for item_id in ids}
    form = await chat.click(action(listing, "Bulk edit selected"), **checked)
    result = await chat.click(action(form, "Apply to 200 bugs"), status="Completed", priority="")
    assert "200 of 200 bugs updated" in text_of(result)
    # The card's page: the first rows of the 200, newest first as the list orders them.
    shown = [key.removeprefix(SELECT_PREFIX) for key in inputs(result)]
    assert len(shown) > 1 and shown == ids[: len(shown)]
    answer = text_of(laid_out(result, WIDE))
    assert answer.startswith(
        "200 of 200 bugs updated: status set to Completed on #1, #2, #3, #4, #5, #6, #7, #8, #9, "
        "#10 and 190 more\n"
    )
    for width in (NARROW, WIDE):  # the line, then each row once, wherever it shows its fields
        assert text_of(laid_out(result, width)).count("Completed") == 1 + len(shown)
    stored = await rest_items(bot, factory, GRACE, **{"$top": "1000"})
    assert {item["status"] for item in stored} == {"Completed"}


async def test_bulk_edit_with_nothing_selected_shows_the_list_again_saying_so(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    for title in ("One", "Two"):
        await chat.say(f"new bug {title}")
    listing = await chat.say("bugs/name/o")
    answer = await chat.click(action(listing, "Bulk edit selected"))
    assert "Select at least one row" in text_of(answer)
    assert "One" in text_of(answer) and "Two" in text_of(answer)  # the same list
    [one] = await rest_items(bot, factory, GRACE, **{"$filter": "name eq 'One'"})
    form = await chat.click(
        action(answer, "Bulk edit selected"), **{SELECT_PREFIX + one["_id"]: "true"}
    )
    assert "Edit 1 bug" in text_of(form)


async def test_a_bulk_edit_refused_comes_back_as_the_form_with_the_problem(chat: Chat) -> None:
    await chat.say("new bug One")
    listing = await chat.say("bugs")
    [toggle] = [key for key in inputs(listing) if key.startswith(SELECT_PREFIX)]
    form = await chat.click(action(listing, "Bulk edit selected"), **{toggle: "true"})
    again = await chat.click(action(form, "Apply to 1 bug"), status="Shipped", priority="High")
    assert "'Shipped' does not exist in this channel" in beside_input(again, "status")
    assert inputs(again)["priority"]["value"] == "High"


async def test_help_buttons_run_their_command(chat: Chat) -> None:
    card = await chat.say("help")
    assert "No bugs here." in text_of(await chat.click(action(card, "My bugs")))


async def test_a_bad_status_shows_on_the_card_again_beside_the_status_and_changes_nothing(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("new bug First")
    answer = await chat.click(action(card, "Set status"), status="Shipped")
    assert beside_input(answer, "status").startswith("'Shipped' does not exist in this channel")
    assert facts(answer)["Status"] == "Not Started"
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "Not Started"
    fixed = await chat.click(action(answer, "Set status"), status="In Progress")
    assert facts(fixed)["Status"] == "In Progress"


async def test_an_empty_title_brings_the_form_back_as_typed(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("new bug First")
    form = await chat.click(action(card, "Edit"))
    again = await chat.click(action(form, "Save bug"), title="", description="Steps: none")
    assert beside_input(again, "title") == "A title is required"
    assert inputs(again)["description"]["value"] == "Steps: none"
    [stored] = await rest_items(bot, factory, GRACE)
    assert (stored["name"], stored["body"]) == ("First", None)


async def test_a_card_of_a_channel_one_may_not_act_in_is_refused(chat: Chat) -> None:
    card = await chat.say("new bug First")
    button = action(card, "Assign to me")
    button["data"]["channelId"] = "19:unknown@thread.tacv2"
    assert "is not known" in text_of(await chat.click(button))


async def test_a_tampered_card_is_out_of_date(chat: Chat) -> None:
    card = await chat.say("new bug First")
    button = {**action(card, "Assign to me"), "verb": "item.explode"}
    assert "out of date" in text_of(await chat.click(button))


@pytest.mark.parametrize(
    ("due", "beside"),
    [
        ("20261201", "“20261201”: must be an ISO 8601 date"),
        ("not-a-date", "“not-a-date”: must be an ISO 8601 date"),
        ("2026-02-30", "“2026-02-30”: must be an ISO 8601 date"),
    ],
)
async def test_a_bad_due_date_brings_the_form_back_as_typed_with_the_problem_beside_it(
    chat: Chat, bot: TestClient, factory: Factory, due: str, beside: str
) -> None:
    card = await chat.say("new bug First")
    form = await chat.click(action(card, "Edit"))
    again = await chat.click(
        action(form, "Save bug"), title="First, renamed", priority="High", dueDate=due
    )
    fields = inputs(again)
    assert (fields["title"]["value"], fields["priority"]["value"]) == ("First, renamed", "High")
    assert beside_input(again, "dueDate").startswith(beside)
    [stored] = await rest_items(bot, factory, GRACE)
    assert (stored["name"], stored["dueDate"]) == ("First", None)
    saved = await chat.click(action(again, "Save bug"), **values(again), dueDate="2026-12-01")
    assert facts(saved)["Due"] == "2026-12-01" and "First, renamed" in text_of(saved)
