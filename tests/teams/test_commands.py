"""Chat commands in a channel: every form answers with the card a user expects, changes what the
REST API then shows, and refuses bad input with one friendly line."""

import pytest
from aiohttp.test_utils import TestClient

from bot.fields.defaults import STATUSES
from bot.teams.commands import card_data
from bot.teams.context import NOT_ON_ROSTER
from cards.listing import MAX_ROWS
from tests.cards.samples import action, actions, inputs, said, text_of
from tests.factories import Factory
from tests.teams.activities import GRACE, MALLORY
from tests.teams.bot import Chat, facts, rest_items
from tests.teams.connector import Connector, TeamsMember


async def test_new_bug_with_a_title_creates_it_with_the_channel_defaults(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("new bug Login fails on Safari")
    assert "Login fails on Safari" in text_of(card)
    assert facts(card) == {
        "ID": "#1",
        "Status": "Not Started",
        "Priority": "Normal",
        "Severity": "Medium",
        "Assigned to": "Nobody",
        "Due": "No due date",
    }
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["name"] == "Login fails on Safari" and stored["internalId"] == 1


async def test_new_bug_alone_sends_the_create_form(chat: Chat) -> None:
    card = await chat.say("new bug")
    assert "New bug" in text_of(card)
    assert {"title", "status", "priority", "severity", "assignees", "dueDate"} <= set(inputs(card))
    assert action(card, "Create bug")["verb"] == "item.save"


async def test_show_a_bug_by_number_in_both_grammars(chat: Chat) -> None:
    await chat.say("new bug First")
    for text in ("bug/1", "bug 1", "BUG #1"):
        card = await chat.say(text)
        assert facts(card)["ID"] == "#1" and "First" in text_of(card)


async def test_status_words_match_the_channels_statuses_without_case(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    card = await chat.say("bug/update/1/status/in-progress")
    assert facts(card)["Status"] == "In Progress"
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "In Progress"


async def test_priority_assign_close_and_clone(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    assert facts(await chat.say("bug/update/1/priority/urgent"))["Priority"] == "Urgent"
    assigned = await chat.say("bug/update/1/assigned/grace@contoso.test")
    assert facts(assigned)["Assigned to"] == GRACE.name
    assert facts(await chat.say("close bug 1"))["Status"] == "Completed"
    copy = await chat.say("bug/clone/1")
    assert said(copy) == "Ada Lovelace copied #1 as #2"
    assert facts(copy)["ID"] == "#2" and facts(copy)["Status"] == "Not Started"
    assert facts(copy)["Assigned to"] == GRACE.name
    stored = {item["internalId"]: item for item in await rest_items(bot, factory, GRACE)}
    assert stored[1]["status"] == "Completed" and stored[1]["completedDate"]
    assert stored[2]["priority"] == "Urgent"


async def test_assign_to_a_mentioned_person(chat: Chat, bot: TestClient, factory: Factory) -> None:
    await chat.say("new bug First")
    card = await chat.say(f"assign bug 1 to <at>{GRACE.name}</at>", people=(GRACE,))
    assert facts(card)["Assigned to"] == GRACE.name
    [stored] = await rest_items(bot, factory, GRACE)
    assert [person["displayName"] for person in stored["assignedTo"]] == [GRACE.name]


@pytest.mark.parametrize(
    ("command", "line"),
    [
        ("bug/update/1/status/in-progress", "Ada Lovelace moved #1 to In Progress"),
        ("bug/update/1/priority/urgent", "Ada Lovelace set the priority of #1 to Urgent"),
        ("bug/update/1/assigned/grace@contoso.test", "Ada Lovelace assigned #1 to Grace Hopper"),
        ("bug/update/1/assigned/me", "Ada Lovelace assigned themselves to #1"),
        ("close bug 1", "Ada Lovelace moved #1 to Completed"),
        ("bug/update/1/status/not-started", "Nothing changed"),
        ("bug/update/1/priority/normal", "Nothing changed"),
    ],
)
async def test_every_change_says_what_it_did(chat: Chat, command: str, line: str) -> None:
    assert said(await chat.say("new bug First")) == "Ada Lovelace created #1"
    assert said(await chat.say(command)) == line
    assert said(await chat.say("bug 1")) == ""  # showing is no change


async def test_reassigning_says_who_instead(chat: Chat) -> None:
    await chat.say("new bug First")
    await chat.say("bug/update/1/assigned/grace@contoso.test")
    card = await chat.say("bug/update/1/assigned/lin@contoso.test")
    assert said(card) == "Ada Lovelace assigned #1 to Lin Chen instead"


async def test_open_bugs_leave_the_done_ones_out(chat: Chat) -> None:
    for title in ("Open one", "Done one"):
        await chat.say(f"new bug {title}")
    await chat.say("close bug 2")
    for text in ("open bugs", "bugs/open"):
        shown = text_of(await chat.say(text))
        assert "Open bugs" in shown and "Open one" in shown and "Done one" not in shown


async def test_quick_filters_switch_between_mine_open_and_all(chat: Chat) -> None:
    for title in ("Mine", "Closed", "Someone's"):
        await chat.say(f"new bug {title}")
    await chat.say("bug/update/1/assigned/me")
    await chat.say("close bug 2")
    listing = await chat.say("bugs")
    assert action(listing, "All")["style"] == "positive"
    mine = await chat.click(action(listing, "Mine"))
    assert "Mine" in text_of(mine) and "Someone's" not in text_of(mine)
    assert action(mine, "Mine")["style"] == "positive"
    open_ = await chat.click(action(mine, "Open"))
    assert "Someone's" in text_of(open_) and "Closed" not in text_of(open_)
    every = await chat.click(action(open_, "All"))
    assert {"Mine", "Closed", "Someone's"} <= set(text_of(every).split("\n"))


async def test_lists_show_a_page_and_filter(chat: Chat) -> None:
    await chat.say("new bug Login fails")
    await chat.say("new bug Logout is slow")
    await chat.say("bug/update/2/assigned/me")
    await chat.say("bug/update/2/status/in-progress")
    everything = text_of(await chat.say("bugs"))
    assert "Login fails" in everything and "Logout is slow" in everything
    assert "1–2 of 2" in everything
    for text in ("bugs/my", "my bugs", "bugs/status/In-Progress", "bugs/name/LOGOUT"):
        shown = text_of(await chat.say(text))
        assert "Logout is slow" in shown and "Login fails" not in shown, text
    assert "No bugs here." in text_of(await chat.say("bugs/priority/low"))
    assert "No bugs here." in text_of(await chat.say("bugs/assigned/grace@contoso.test"))


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("bugs/name/it's", "It's broken"),
        ("bugs/name/S OR D", "Cats or dogs"),
        ("bugs/name/x') or ('a' eq 'a", None),
        ("bugs/priority/normal' or 'a' eq 'a", None),
        ("bugs/assigned/x' or tolower(a/email) ne 'x", None),
    ],
)
async def test_list_values_with_quotes_or_odata_words_are_only_text(
    chat: Chat, text: str, found: str | None
) -> None:
    for title in ("It's broken", "Its fine", "Cats or dogs", "Cats"):
        await chat.say(f"new bug {title}")
    await chat.say("bug/update/4/assigned/me")
    shown = text_of(await chat.say(text))
    if found is None:
        assert "No bugs here." in shown
    else:
        assert "1–1 of 1" in shown and found in shown


async def test_the_item_card_reads_its_kinds_statuses_not_the_roster(
    chat: Chat, monkeypatch: pytest.MonkeyPatch
) -> None:
    await chat.say("new bug First")

    async def no_roster(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the item card read the team's members")

    monkeypatch.setattr(card_data, "list_team_members", no_roster)
    card = await chat.say("bug 1")
    choices = [choice["title"] for choice in inputs(card)["status"]["choices"]]
    assert choices == [status.name for status in STATUSES]


async def test_a_long_list_offers_more(chat: Chat) -> None:
    last = MAX_ROWS + 2
    for number in range(last):
        await chat.say(f"new task Task {number}")
    card = await chat.say("tasks")
    assert f"1–{MAX_ROWS} of {last}" in text_of(card)
    following = await chat.click(action(card, "More"))
    assert f"{MAX_ROWS + 1}–{last} of {last}" in text_of(following)
    assert "Task 0" in text_of(following) and f"Task {last - 1}" in text_of(card)  # newest first
    back = await chat.click(action(following, "Previous"))
    assert f"1–{MAX_ROWS} of {last}" in text_of(back)
    assert "Previous" not in [b["title"] for b in back["actions"]]


async def test_a_list_seen_later_refreshes_to_the_same_page_as_it_is_now(chat: Chat) -> None:
    last = MAX_ROWS + 2
    for number in range(last):
        await chat.say(f"new task Task {number}")
    following = await chat.click(action(await chat.say("tasks"), "More"))
    await chat.say(f"new task Task {last}")
    refreshed = await chat.click(following["refresh"]["action"])
    # the same page, one more row after it
    assert f"{MAX_ROWS + 1}–{last + 1} of {last + 1}" in text_of(refreshed)
    assert "Task 0" in text_of(refreshed) and f"Task {last}" not in text_of(refreshed)


async def test_an_unknown_command_answers_with_the_short_help(chat: Chat) -> None:
    card = await chat.say("dance")
    assert said(card) == "I didn't understand 'dance'."
    assert "What I can do" in text_of(card) and "Did you mean" not in text_of(card)
    assert "bug/update/{id}/status/{status}" not in text_of(card)


@pytest.mark.parametrize("text", ["new rule", "create rule", "Add rule"])
async def test_asking_for_a_new_rule_says_where_rules_are_made(chat: Chat, text: str) -> None:
    card = await chat.say(text)
    assert said(card) == (
        "Rules are made through the API: POST /odata/eventDefinitions (docs/rules.md). Here, "
        "rules lists this channel's rules and settings switches its notifications on or off."
    )


async def test_a_typo_offers_the_command_it_resembles_as_a_button_that_runs_it(
    chat: Chat,
) -> None:
    await chat.say("new bug Mine")
    await chat.say("bug/update/1/assigned/me")
    card = await chat.say("bgus/my")
    assert said(card) == "I didn't understand 'bgus/my'. Did you mean bugs/my?"
    assert "What I can do" not in text_of(card)  # the line, not the help
    assert "Mine" in text_of(await chat.click(action(card, "bugs/my")))
    assert "What I can do" in text_of(await chat.click(action(card, "Help")))


async def test_help_is_five_everyday_commands_and_more_shows_every_one(chat: Chat) -> None:
    card = await chat.say("help")
    lines = [node for node in card["body"] if node.get("type") == "RichTextBlock"]
    assert len(lines) == 5 and "assign bug {id} to {name}" in text_of(card)
    assert "bug/update/{id}/status/{status}" not in text_of(card)
    every = await chat.click(action(card, "More commands"))
    assert "bug/update/{id}/status/{status}" in text_of(every)
    assert text_of(every) == text_of(await chat.say("help all"))


async def test_help_all_lists_each_command_once(chat: Chat) -> None:
    every = await chat.say("help all")
    lines = [
        node["inlines"][0]["text"] for node in every["body"] if node.get("type") == "RichTextBlock"
    ]
    assert len(lines) == len(set(lines))
    # The everyday line says `my bugs`; the shortcut running it is a button, not a second line.
    assert [line for line in lines if "my bugs" in line] == ["bugs, open bugs, my bugs"]
    assert "My bugs" in [found["title"] for found in actions(every)]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("bug 99", "There is no bug #99 in this channel."),
        ("bug/update/1/status/Shipped", "status: 'Shipped' does not exist in this channel"),
        (
            "bug/update/1/assigned/nobody@else.test",
            "assignedTo: 'nobody@else.test' is not a member of this team",
        ),
        # A change is judged as a PATCH body is, by the one helper cards use too.
        ("bug/update/1/priority/" + "x" * 256, "priority: String should have at most 255"),
        ("new bug " + "x" * 256, "name: String should have at most 255"),
        # A list's value is refused as the same text in a REST $filter is.
        ("bugs/name/a\x00b", "Invalid $filter: it contains characters that are not valid text"),
    ],
)
async def test_bad_input_is_one_friendly_line_and_changes_nothing(
    chat: Chat, bot: TestClient, factory: Factory, text: str, said: str
) -> None:
    await chat.say("new bug First")
    assert said in await chat.line(text)
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "Not Started" and stored["assignedTo"] == []


async def test_another_channels_number_is_not_found_here(chat: Chat, connector: Connector) -> None:
    await chat.say("new bug In the Bugs channel")
    general = connector.team_id  # the General channel's id is the team's
    assert await chat.line("bug 1", channel=general) == "There is no bug #1 in this channel."


async def test_someone_not_in_the_team_can_do_nothing(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    assert await chat.line("new bug Sneaky", sender=MALLORY) == NOT_ON_ROSTER
    assert await rest_items(bot, factory, GRACE) == []


async def test_assigning_someone_of_another_tenant_never_names_them(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await factory.team("19:team-b@thread.tacv2", name="Team B", tenant_id="tenant-b")
    bob = (await factory.member("Bob", team_id="19:team-b@thread.tacv2")).user
    await chat.say("new bug First")
    # Each names Bob only as the caller did: never his UPN, looked up in another tenant.
    mentioned = TeamsMember(bob.source_id, "who@knows.test", "Bobby")
    line = await chat.line("assign bug 1 to <at>Bobby</at>", people=(mentioned,))
    assert line == "assignedTo: 'Bobby' is not a member of this team"
    line = await chat.line(f"bug/update/1/assigned/{bob.source_id}")
    assert line == f"assignedTo: '{bob.source_id}' is not a member of this team"
    assert await chat.line("assign bug 1 to Bob") == (
        "Nobody on this team is called “Bob”: check the name, or @mention them."
    )
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["assignedTo"] == []
