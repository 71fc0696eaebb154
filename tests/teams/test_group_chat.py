"""Group chats, as Teams sends them (a `19:…@thread.v2` conversation, the tenant alone in
channelData): commands work as in the 1:1 chat, answers go to the chat, and card buttons clicked
there act on the item's own channel with the rights of whoever clicks."""

from dataclasses import replace

import pytest
from aiohttp.test_utils import TestClient

from bot.directory.teams import upsert_team
from bot.directory.users import add_member, upsert_user
from cards.layout import Card
from cards.verbs import SELECT_PREFIX
from tests.cards.samples import action, actions, inputs, text_of
from tests.factories import CHANNEL, TEAM, TENANT, Factory
from tests.teams.activities import GRACE, GROUP_CHAT, MALLORY
from tests.teams.bot import Chat, facts, rest_items

BUGS, GENERAL = CHANNEL, TEAM  # Team A's channels (General's thread id is the team's)
TEAM_B = "19:team-b@thread.tacv2"


@pytest.fixture
def group(chat: Chat) -> Chat:
    """Ada in a group chat with the bot; `chat` is Ada in Team A's Bugs channel."""
    return replace(chat, group_chat=GROUP_CHAT)


async def statuses(client: TestClient, factory: Factory, channel: str) -> dict[str, str]:
    """The channel's bugs' statuses by name, as the REST API shows them."""
    found = await rest_items(client, factory, GRACE, channel=channel)
    return {item["name"]: item["status"] for item in found}


async def general_bug(chat: Chat, group: Chat) -> Card:
    """Bug #1 in Bugs and bug #1 in General; General's card, shown in the group chat."""
    await chat.say("new bug In Bugs")
    await chat.say("new bug In General", channel=GENERAL)
    choice = await group.say("bug 1")
    card = await group.click(action(choice, "Team A › General"))
    assert facts(card)["ID"] == "#1" and "In General" in text_of(card)
    return card


async def test_my_bugs_lists_my_items_of_every_channel_in_the_chat(chat: Chat, group: Chat) -> None:
    await chat.say("new bug In Bugs")
    await chat.say("bug/update/1/assigned/me")
    await chat.say("new bug In General", channel=GENERAL)
    await chat.say("bug/update/1/assigned/me", channel=GENERAL)
    await chat.say("new bug Not mine")
    shown = text_of(await group.say("my bugs"))
    assert "My bugs across channels" in shown
    assert "In Bugs" in shown and "In General" in shown and "Not mine" not in shown
    [reply] = group.connector.sent()  # a reply in the group chat, to the message
    assert reply.path.startswith(f"/v3/conversations/{GROUP_CHAT}/activities/")


async def test_a_number_in_one_channel_acts_at_once(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug Only here")
    card = await group.say("close bug 1")
    assert facts(card)["Status"] == "Completed" and "Only here" in text_of(card)
    assert await statuses(bot, factory, BUGS) == {"Only here": "Completed"}


async def test_a_number_in_two_channels_asks_which_and_acts_in_the_one_chosen(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug In Bugs")
    await chat.say("new bug In General", channel=GENERAL)
    choice = await group.say("bug/update/1/status/in-progress")
    assert "Several channels have a bug #1: which one?" in text_of(choice)
    assert sorted(button["title"] for button in actions(choice)) == [
        "Team A › Bugs",
        "Team A › General",
    ]
    assert await statuses(bot, factory, GENERAL) == {"In General": "Not Started"}
    card = await group.click(action(choice, "Team A › General"))
    assert facts(card)["Status"] == "In Progress" and "In General" in text_of(card)
    assert await statuses(bot, factory, GENERAL) == {"In General": "In Progress"}
    assert await statuses(bot, factory, BUGS) == {"In Bugs": "Not Started"}


async def test_new_bug_asks_for_the_channel(group: Chat, bot: TestClient, factory: Factory) -> None:
    choice = await group.say("new bug From the chat")
    assert "Which channel is the new bug for?" in text_of(choice)
    assert await statuses(bot, factory, BUGS) == {}  # nothing made until it is chosen
    card = await group.click(action(choice, "Team A › General"))
    assert facts(card)["ID"] == "#1" and "From the chat" in text_of(card)
    assert await statuses(bot, factory, GENERAL) == {"From the chat": "Not Started"}
    assert await statuses(bot, factory, BUGS) == {}


async def test_the_create_form_creates_in_the_channel_chosen(
    group: Chat, bot: TestClient, factory: Factory
) -> None:
    choice = await group.say("new task")
    form = await group.click(action(choice, "Team A › General"))
    assert action(form, "Create task")["data"]["channelId"] == GENERAL
    created = await group.click(action(form, "Create task"), title="From the form", status="")
    assert facts(created)["ID"] == "#1" and facts(created)["Status"] == "Not Started"
    [stored] = await rest_items(bot, factory, GRACE, of="task", channel=GENERAL)
    assert stored["name"] == "From the form"
    assert await rest_items(bot, factory, GRACE, of="task") == []


async def test_set_status_replaces_the_card(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await general_bug(chat, group)
    changed = await group.click(action(card, "Set status"), status="In Progress")
    assert facts(changed)["Status"] == "In Progress" and "In General" in text_of(changed)
    assert await statuses(bot, factory, GENERAL) == {"In General": "In Progress"}
    assert await statuses(bot, factory, BUGS) == {"In Bugs": "Not Started"}


async def test_assign_to_me_assigns_whoever_clicks(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await general_bug(chat, group)  # Ada's card; Grace, in the chat too, clicks it
    changed = await replace(group, sender=GRACE).click(action(card, "Assign to me"))
    assert facts(changed)["Assigned to"] == GRACE.name
    [general] = await rest_items(bot, factory, GRACE, channel=GENERAL)
    assert [person["displayName"] for person in general["assignedTo"]] == [GRACE.name]
    [bugs] = await rest_items(bot, factory, GRACE)
    assert bugs["assignedTo"] == []


async def test_edit_then_save(chat: Chat, group: Chat, bot: TestClient, factory: Factory) -> None:
    card = await general_bug(chat, group)
    form = await group.click(action(card, "Edit"))
    assert inputs(form)["title"]["value"] == "In General"
    grace_id = next(
        c["value"] for c in inputs(form)["assignees"]["choices"] if c["title"] == GRACE.name
    )
    saved = await group.click(
        action(form, "Save bug"),
        title="Renamed in the chat",
        priority="High",
        severity="Critical",
        assignees=grace_id,
        dueDate="2026-12-24",
    )
    assert "Renamed in the chat" in text_of(saved)
    assert facts(saved)["Due"] == "2026-12-24" and facts(saved)["Assigned to"] == GRACE.name
    [general] = await rest_items(bot, factory, GRACE, channel=GENERAL)
    assert (general["name"], general["priority"], general["severity"]) == (
        "Renamed in the chat",
        "High",
        "Critical",
    )
    [bugs] = await rest_items(bot, factory, GRACE)
    assert (bugs["name"], bugs["priority"]) == ("In Bugs", "Normal")


async def test_bulk_edit_of_a_channel_list_shared_in_the_chat(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    # The chat's own lists span channels and offer no bulk edit; a channel's list card does.
    for title in ("One", "Two", "Three"):
        await chat.say(f"new bug {title}")
    await chat.say("new bug General's one", channel=GENERAL)
    listing = await chat.say("bugs")
    ids = {item["internalId"]: item["_id"] for item in await rest_items(bot, factory, GRACE)}
    checked = {SELECT_PREFIX + ids[1]: "true", SELECT_PREFIX + ids[3]: "true"}
    form = await group.click(action(listing, "Bulk edit selected"), **checked)
    assert "Edit 2 bugs" in text_of(form)
    result = await group.click(action(form, "Apply to 2 bugs"), status="Completed", priority="")
    assert "2 of 2 bugs updated" in text_of(result)
    assert await statuses(bot, factory, BUGS) == {
        "One": "Completed",
        "Two": "Not Started",
        "Three": "Completed",
    }
    assert await statuses(bot, factory, GENERAL) == {"General's one": "Not Started"}


async def test_help_buttons_run_their_command_across_channels(chat: Chat, group: Chat) -> None:
    await chat.say("new bug Mine in General", channel=GENERAL)
    await chat.say("bug/update/1/assigned/me", channel=GENERAL)
    card = await group.say("help")
    shown = text_of(await group.click(action(card, "My bugs")))
    assert "My bugs across channels" in shown and "Mine in General" in shown


async def test_an_error_in_an_action_answers_the_error_card_and_changes_nothing(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await general_bug(chat, group)
    answer = await group.click(action(card, "Set status"), status="Shipped")
    assert "'Shipped' does not exist" in text_of(answer)
    assert await statuses(bot, factory, GENERAL) == {"In General": "Not Started"}


async def test_a_card_of_a_channel_one_may_not_act_in_is_refused(
    chat: Chat, group: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await general_bug(chat, group)
    async with factory.work() as uow:  # Mallory is known, as a member of another team only
        await upsert_team(uow, team_id=TEAM_B, name="Team B", tenant_id=TENANT)
        mallory = await upsert_user(
            uow, source_id=MALLORY.object_id, username=MALLORY.upn, display_name=MALLORY.name
        )
        await add_member(uow, team_id=TEAM_B, user_ref=mallory.id)
    for button in ("Assign to me", "Edit"):
        answer = await replace(group, sender=MALLORY).click(action(card, button))
        assert f"You are not a member of team '{TEAM}'." in text_of(answer)
        assert "In General" not in text_of(answer)
    [general] = await rest_items(bot, factory, GRACE, channel=GENERAL)
    assert general["assignedTo"] == []
