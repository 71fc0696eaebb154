"""Every card: valid Adaptive Card 1.5, under Teams' 28 KB, what a user reads, what buttons send."""

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.directory.schemas import ChannelSettingsOut, QuietHours
from bot.events.schemas import ActionType, DeliveryState, NotificationRule, RuleSummary
from bot.schemas import ItemKind, Trigger
from cards import verbs
from cards.bulk import bulk_form
from cards.changes import Note
from cards.choice import MAX_PLACES, Place, channel_choice, person_choice
from cards.digest import Told, digest_card
from cards.form import ChannelChoices, Prefill, item_form
from cards.help import CommandHelp, error_card, help_card, suggestion_card
from cards.item import item_card
from cards.layout import Card, Problem, action_data, execute
from cards.listing import MAX_ROWS, ItemList, QuickFilters, list_card
from cards.mentions import mentioning
from cards.rules import (
    NEVER_FIRED,
    last_delivery,
    notifications_failing_card,
    rule_switched_off_card,
    rules_card,
)
from cards.settings import Note as SettingsNote
from cards.settings import Typed, settings_card
from cards.thread import deleted_root_card, root_card, root_description
from cards.verbs import (
    MAX_SELECTED,
    ApplyBulkEdit,
    BulkEdit,
    ItemAction,
    More,
    RunCommand,
    SaveItem,
    SaveSettings,
    SetStatus,
    SwitchRule,
    Verb,
    selected_ids,
)
from cards.widths import NARROW, STANDARD, WIDE, laid_out
from tests.cards.samples import (
    CHANNEL,
    LONG,
    WHEN,
    action,
    actions,
    assert_valid,
    bare,
    choices,
    details,
    facts,
    inputs,
    list_rows,
    longest,
    said,
    statuses,
    text_of,
    user,
    walk,
)
from tests.cards.sync_samples import sync_cards

BUG, TASK = ItemKind.BUG, ItemKind.TASK
URL = "https://tracker.example.test/bugs/000000000000000000abc00c"
LATER = datetime(2026, 11, 21, 9, 35, tzinfo=UTC)  # five minutes after the samples' WHEN
PAST_DUE = "2026-11-20T00:00:00.000Z"  # the day before the samples' WHEN
DONE = {"_id": f"{3:024x}", "category": "Done"}
FILTERS = QuickFilters(mine="my bugs", open="open bugs", all="bugs", current="bugs")
MANY_MEMBERS = ChannelChoices(
    statuses=statuses(),
    priorities=["Urgent", "High", "Normal", "Low"],
    severities=["Critical", "High", "Medium", "Low"],
    members=[user(number, LONG[:255]) for number in range(1, 51)],
)


def rule(number: int, name: str = "Pager", **fields: Any) -> RuleSummary:
    values: dict[str, Any] = {
        "name": f"{name} {number}",
        "entity_type": BUG,
        "trigger": Trigger.ITEM_UPDATED,
        "enabled": True,
        "action_type": ActionType.HTTP,
        "target": "POST hooks.example.com",
        "disabled_reason": None,
        "last_state": DeliveryState.SUCCEEDED,
        "last_at": datetime(2026, 11, 21, 9, 30, tzinfo=UTC),
    }
    return RuleSummary(**(values | fields))


LONGEST_RULES = [
    rule(n, LONG[:255], enabled=False, disabled_reason=LONG, target="POST " + LONG[:250])
    for n in range(50)
]


def notification_rule(number: int, name: str = "Bug assigned", **fields: Any) -> NotificationRule:
    values: dict[str, Any] = {
        "id": f"{number:024x}",
        "name": f"{name} {number}",
        "entity_type": BUG,
        "trigger": Trigger.ITEM_UPDATED,
        "enabled": False,
        "disabled_reason": None,
    }
    return NotificationRule(**(values | fields))


NOTIFICATION_RULES = [
    notification_rule(1),
    notification_rule(2, "Task overdue *now*", enabled=True, trigger=Trigger.OVERDUE),
    notification_rule(3, disabled_reason="Switched off by the service"),
]
LONGEST_NOTIFICATION_RULES = [
    notification_rule(n, LONG[:255], disabled_reason=LONG) for n in range(50)
]
DEFAULT_SETTINGS = ChannelSettingsOut(
    due_soon_minutes=1440,
    due_soon_is_default=True,
    digest_window_seconds=5,
    digest_window_is_default=True,
    digest_threshold=5,
    digest_threshold_is_default=True,
    quiet_hours=None,
    quiet_hours_is_default=True,
)
OWN_SETTINGS = DEFAULT_SETTINGS.model_copy(
    update={
        "due_soon_minutes": 90,
        "due_soon_is_default": False,
        "quiet_hours": QuietHours(start="22:00", end="07:00", time_zone="Europe/Paris"),
        "quiet_hours_is_default": False,
    }
)


def places(count: int) -> list[Place]:
    """Channels with the longest names, to choose among."""
    return [Place(f"19:team-{n}", f"19:channel-{n}", LONG, LONG) for n in range(count)]


def every_card() -> dict[str, Card]:
    """Each builder with realistic, empty, unicode and maximum inputs, bugs and tasks."""
    rows = [details(n) for n in range(1, 51)]
    return {
        "item bug": item_card(details(), item_url=URL, statuses=statuses()),
        "item task": item_card(details(bug=False), item_url=URL, statuses=statuses("Task")),
        "item bare bug": item_card(bare(), item_url=URL, statuses=statuses()),
        "item bare task": item_card(bare(bug=False), item_url=URL, statuses=statuses("Task")),
        "item longest": item_card(longest(), item_url=URL, statuses=statuses()),
        "item no statuses": item_card(details(status="Invalid"), item_url=URL, statuses=[]),
        "item mentioning": mentioning(
            item_card(details(), item_url=URL, statuses=statuses()),
            [{"id": f"29:{n}", "name": LONG[:255]} for n in range(50)],
        ),
        "item changed": item_card(
            longest(),
            item_url=URL,
            statuses=statuses(),
            now=LATER,
            note=Note(LONG * 3),
            problem=Problem(LONG * 3, "status"),
        ),
        "item overdue": item_card(
            details(dueDate=PAST_DUE), item_url=URL, statuses=statuses(), now=LATER
        ),
        "thread root bug": root_card(details(), item_url=URL, now=LATER),
        "thread root task": root_card(details(bug=False), item_url=URL, now=LATER),
        "thread root bare": root_card(bare(), item_url=URL),
        "thread root overdue": root_card(details(dueDate=PAST_DUE), item_url=URL, now=LATER),
        "thread root asking for mentions": root_card(
            longest(), item_url=URL, now=LATER, mention="Tracker"
        ),
        "thread root deleted": deleted_root_card(root_description(longest(), item_url=URL)),
        "form new bug": item_form(BUG, channel_id=CHANNEL, choices=choices()),
        "form new task": item_form(TASK, channel_id=CHANNEL, choices=choices("Task")),
        "form edit bug": item_form(BUG, channel_id=CHANNEL, choices=choices(), item=details()),
        "form edit longest": item_form(
            BUG, channel_id=CHANNEL, choices=MANY_MEMBERS, item=longest()
        ),
        "form from message": item_form(
            BUG,
            channel_id=CHANNEL,
            choices=MANY_MEMBERS,
            prefill=Prefill(title=LONG, description=LONG * 20),
            in_dialog=True,
        ),
        "form no members": item_form(
            TASK, channel_id=CHANNEL, choices=ChannelChoices([], [], [], [])
        ),
        "form again": item_form(
            BUG,
            channel_id=CHANNEL,
            choices=MANY_MEMBERS,
            item=longest(),
            prefill=Prefill(title=LONG, due_date=LONG),
            problem=Problem(LONG * 3, "dueDate"),
        ),
        "list channel": list_card(
            ItemList(
                "Bugs",
                BUG,
                list_rows(*rows),
                "bugs",
                CHANNEL,
                more=True,
                total=120,
                filters=FILTERS,
            )
        ),
        "list longest": list_card(
            ItemList(
                "Bugs",
                BUG,
                list_rows(*map(longest, range(1, 51))),
                "bugs",
                CHANNEL,
                skip=25,
                filters=FILTERS,
            ),
            problem=Problem(LONG * 3),
        ),
        "list personal": list_card(ItemList("My tasks", TASK, list_rows(*rows), "tasks/my")),
        "list empty": list_card(ItemList("Bugs", BUG, [], "bugs", CHANNEL)),
        "bulk": bulk_form(BUG, channel_id=CHANNEL, ids=[r.id for r in rows], choices=MANY_MEMBERS),
        "bulk again": bulk_form(
            BUG,
            channel_id=CHANNEL,
            ids=[f"{n:024x}" for n in range(MAX_SELECTED)],
            choices=MANY_MEMBERS,
            typed={"status": "Completed"},
            problem=Problem(LONG * 3, "assignedTo"),
        ),
        "bulk nothing to choose": bulk_form(
            TASK, channel_id=CHANNEL, ids=[rows[0].id], choices=ChannelChoices([], [], [], [])
        ),
        "help": help_card(
            [CommandHelp("bugs/my", "Bugs assigned to you", "My bugs", everyday=True)] * 40
        ),
        "help short": help_card(
            [CommandHelp("bugs/my", "Bugs assigned to you", "My bugs", everyday=True)] * 40,
            more="help all",
        ),
        "suggestion": suggestion_card(LONG, LONG, help_command="help"),
        "error": error_card(LONG * 10),
        "error with a way on": error_card(
            LONG * 10,
            [
                execute(
                    "Bugs",
                    More(verb=Verb.MORE, kind=BUG, channel_id=CHANNEL, command="bugs", skip=0),
                )
            ],
        ),
        "choice": channel_choice("Which channel?", command="bug 12", places=places(2)),
        "choice cut": channel_choice(LONG, command=LONG, places=places(MAX_PLACES + 2)),
        "person choice": person_choice(
            LONG,
            command_for=lambda person: f"bug/update/1/assigned/{person.username}",
            people=[user(n, LONG[:255]) for n in range(1, 9)],
            team_id="19:team-a",
            channel_id=CHANNEL,
        ),
        "rules": rules_card([rule(1), rule(2, action_type=ActionType.NOTIFICATION)], total=2),
        "rules none": rules_card([], total=0),
        "rule switched off": rule_switched_off_card(
            name="Pager " * 40, reason="The receiver answered 410 Gone. " * 20
        ),
        "rules longest": rules_card(LONGEST_RULES, total=120),
        "notifications failing": notifications_failing_card(
            failures=12, error="POST hooks.example.com answered 503 Service Unavailable"
        ),
        "digest": digest_card(
            [
                Told("Bug #12: Login fails on Safari 12: Ada moved it to Done", URL),
                Told("Task #4: Write the release notes: deleted", None),
            ],
            channel_id=CHANNEL,
            kinds={"bugs", "tasks"},
        ),
        "digest longest": digest_card(
            [Told(LONG * 3, f"{URL}{n}") for n in range(500)], channel_id=CHANNEL, kinds={"bugs"}
        ),
        "settings": settings_card(
            channel_id=CHANNEL, rules=NOTIFICATION_RULES, total=3, current=DEFAULT_SETTINGS
        ),
        "settings own": settings_card(
            channel_id=CHANNEL,
            rules=NOTIFICATION_RULES,
            total=3,
            current=OWN_SETTINGS,
            note=SettingsNote("Ada Lovelace saved the settings."),
        ),
        "settings refused": settings_card(
            channel_id=CHANNEL,
            rules=[],
            total=0,
            current=DEFAULT_SETTINGS,
            note=SettingsNote(LONG * 5, refused=True),
            typed=Typed(
                {verbs.DIGEST_WINDOW: "1e999", verbs.QUIET_TIME_ZONE: LONG * 5},
                dict.fromkeys((verbs.DIGEST_WINDOW, verbs.QUIET_HOURS), LONG * 5),
            ),
        ),
        "settings longest": settings_card(
            channel_id=CHANNEL, rules=LONGEST_NOTIFICATION_RULES, total=120, current=OWN_SETTINGS
        ),
        **sync_cards(),
    }


CARDS = every_card()


@pytest.mark.parametrize("name", CARDS)
def test_card_is_valid_adaptive_card_under_teams_limit(name: str) -> None:
    assert_valid(CARDS[name])


@pytest.mark.parametrize("name", CARDS)
def test_every_button_is_an_execute_with_its_verb_in_data(name: str) -> None:
    for found in actions(CARDS[name]):
        if found["type"] == "Action.OpenUrl":  # a link: nothing is sent to the bot
            assert found["url"].startswith("https://")
            continue
        if found["type"] == "Action.Submit":
            assert name == "form from message"
            continue
        assert found["type"] == "Action.Execute"
        assert found["verb"] == found["data"]["verb"] in set(Verb)


def submitted(card: Card, title: str, **typed: Any) -> dict[str, Any]:
    """What Teams sends for a button: its data merged with the inputs' values (and any typed)."""
    values = {key: node.get("value") for key, node in inputs(card).items()}
    values = {key: value for key, value in values.items() if value is not None}
    return {**action(card, title)["data"], **values, **typed}


def test_item_card_shows_the_number_once_the_title_as_heading_and_the_facts() -> None:
    card = item_card(details(12), item_url=URL, statuses=statuses())
    text = text_of(card)
    assert text.count("#12") == 1 and "Bug #12" in text
    heading = card["body"][1]["inlines"][0]
    assert (heading["text"], heading["size"], heading["weight"]) == (
        "Login fails on Safari 12",
        "large",
        "bolder",
    )
    assert "Steps: open the page, sign in." in text
    assert facts(card) == {
        "ID": "#12",
        "Status": "In Progress",
        "Priority": "High",
        "Severity": "Medium",
        "Assigned to": "Ada Lovelace",
        "Due": "2026-12-01",
    }


def due_block(card: Card) -> dict[str, Any]:
    """The TextBlock showing an item card's due date."""
    return next(
        node
        for node in walk(card)
        if node.get("type") == "TextBlock" and node["text"].startswith(("2026-", "No due"))
    )


def test_a_due_date_past_is_marked_overdue_in_red_until_the_item_is_done() -> None:
    overdue = item_card(details(dueDate=PAST_DUE), item_url=URL, statuses=statuses(), now=LATER)
    assert due_block(overdue)["color"] == "attention"
    assert facts(overdue)["Due"] == "2026-11-20 (overdue)"
    done = details(dueDate=PAST_DUE, status="Completed", statusId=DONE)
    for card in (
        item_card(done, item_url=URL, statuses=statuses(), now=LATER),
        item_card(details(), item_url=URL, statuses=statuses(), now=LATER),  # due next month
        item_card(bare(), item_url=URL, statuses=statuses(), now=LATER),  # no due date
    ):
        assert "color" not in due_block(card)
        assert "overdue" not in facts(card)["Due"]


def test_the_item_card_opens_the_items_page() -> None:
    for item in (details(), details(bug=False), bare()):
        card = item_card(item, item_url=URL, statuses=statuses())
        assert action(card, "Open") == {"type": "Action.OpenUrl", "title": "Open", "url": URL}


def test_status_priority_and_severity_are_coloured_badges() -> None:
    def styles(item: Any) -> list[str]:
        card = item_card(item, item_url=URL, statuses=statuses())
        [row] = [
            node for node in card["body"] if any("style" in c for c in node.get("columns", ()))
        ]
        return [column["style"] for column in row["columns"]]

    assert styles(details(status="In Progress", priority="Urgent", severity="High")) == [
        "accent",
        "attention",
        "warning",
    ]
    done = {"_id": f"{3:024x}", "category": "Done"}
    assert styles(details(statusId=done, status="Completed", priority="Low")) == [
        "good",
        "emphasis",
        "emphasis",
    ]
    gone = {"_id": None, "category": None}  # a status the channel no longer has
    assert styles(details(statusId=gone, status="Old", priority="Whenever")) == ["emphasis"] * 3


def test_the_description_shows_its_first_lines_trimmed() -> None:
    body = "First   line\n\n  Second\nThird\nFourth\nFifth"
    text = text_of(item_card(details(body=body), item_url=URL, statuses=statuses()))
    assert "First line\nSecond\nThird\n…" in text and "Fourth" not in text
    long = text_of(item_card(details(body="word " * 200), item_url=URL, statuses=statuses()))
    assert "word word…" in long and "word " * 60 not in long


def test_who_created_and_who_updated_it_and_when_relative_to_the_clock() -> None:
    item = details(
        createdBy={"source": "Svc.Native", "email": "a@x", "name": "Ada", "sourceId": "a"},
        updatedBy={
            "displayName": "Grace",
            "url": "",
            "_links": {"avatar": {"href": ""}},
            "id": "g",
            "uniqueName": "grace@x",
            "imageUrl": "",
            "descriptor": "",
        },
        createdAt="2026-11-19T09:30:00.000Z",
    )
    text = text_of(item_card(item, item_url=URL, statuses=statuses(), now=LATER))
    assert "Created 2 days ago by Ada · updated 5 min ago by Grace" in text
    assert "Created on 2026-11-19 by Ada" in text_of(
        item_card(item, item_url=URL, statuses=statuses())
    )
    assert "Created 5 min ago" in text_of(
        item_card(bare(), item_url=URL, statuses=statuses(), now=LATER)
    )


def test_a_bug_without_severity_says_not_set() -> None:
    shown = facts(item_card(bare(), item_url=URL, statuses=statuses()))
    assert (shown["Severity"], shown["Due"]) == ("Not set", "No due date")


def test_task_card_has_no_severity_and_empty_fields_read_plainly() -> None:
    shown = facts(item_card(bare(bug=False), item_url=URL, statuses=statuses("Task")))
    assert "Severity" not in shown
    assert (shown["Assigned to"], shown["Due"]) == ("Nobody", "No due date")


def test_many_assignees_are_summarised() -> None:
    shown = facts(item_card(longest(), item_url=URL, statuses=statuses()))
    assert shown["Assigned to"].endswith("and 47 more")


def test_item_card_status_choice_in_channel_order_with_current_selected() -> None:
    card = item_card(details(), item_url=URL, statuses=statuses() + statuses("Task"))
    status = inputs(card)["status"]
    assert [c["title"] for c in status["choices"]] == ["Not Started", "In Progress", "Completed"]
    assert status["value"] == "In Progress"


def test_item_card_buttons_carry_what_the_dispatcher_needs() -> None:
    item = details(12)
    card = item_card(item, item_url=URL, statuses=statuses())
    sent = submitted(card, "Set status", status="Completed")
    assert SetStatus.model_validate(sent) == SetStatus(
        verb=Verb.SET_STATUS,
        kind=BUG,
        item_id=item.id,
        channel_id=CHANNEL,
        number=12,  # said if the item is deleted before the click
        status="Completed",
    )
    for title, verb in (("Assign to me", Verb.ASSIGN_TO_ME), ("Edit", Verb.EDIT_ITEM)):
        data = ItemAction.model_validate(action(card, title)["data"])
        assert (data.verb, data.item_id, data.kind) == (verb, item.id, BUG)
        assert action(card, title)["associatedInputs"] == "none"
    assert [button["title"] for button in actions(card) if "title" in button] == [
        "Set status",  # under the status input
        "Close",
        "Assign to me",
        "Edit",
        "Discuss",
        "Open",
    ]


def test_an_item_card_without_statuses_to_choose_has_no_status_input() -> None:
    card = CARDS["item no statuses"]
    assert "status" not in inputs(card)
    assert [button["title"] for button in actions(card) if "title" in button] == [
        "Assign to me",
        "Edit",
        "Discuss",
        "Open",
    ]


@pytest.mark.parametrize(
    ("category", "status", "move", "to"),
    [
        ("New", "Not Started", "Start", "In Progress"),
        ("Active", "In Progress", "Close", "Completed"),
        ("Done", "Completed", "Reopen", "Not Started"),
    ],
)
def test_one_button_moves_the_item_on_from_its_status(
    category: str, status: str, move: str, to: str
) -> None:
    item = details(statusId={"_id": None, "category": category}, status=status)
    button = action(item_card(item, item_url=URL, statuses=statuses()), move)
    assert button["associatedInputs"] == "none"
    assert SetStatus.model_validate(button["data"]).status == to


def test_a_note_says_what_was_done_and_a_problem_shows_beside_the_status() -> None:
    card = item_card(
        details(),
        item_url=URL,
        statuses=statuses(),
        note=Note("Ada moved #12 to In Progress"),
        problem=Problem("'Shipped' does not exist in this channel", "status"),
    )
    assert said(card) == "Ada moved #12 to In Progress"
    assert card["body"][0]["inlines"][0]["color"] == "good"
    status_at = next(i for i, node in enumerate(card["body"]) if node.get("id") == "status")
    problem = card["body"][status_at + 1]["inlines"][0]
    assert (problem["text"], problem["color"]) == (
        "'Shipped' does not exist in this channel",
        "attention",
    )
    quiet = item_card(
        details(), item_url=URL, statuses=statuses(), note=Note("Nothing changed", changed=False)
    )
    assert quiet["body"][0]["inlines"][0]["isSubtle"] is True


def test_the_card_refreshes_itself_with_the_item_as_it_is() -> None:
    refresh = item_card(details(12), item_url=URL, statuses=statuses())["refresh"]["action"]
    assert ItemAction.model_validate(refresh["data"]).verb == Verb.SHOW_ITEM


def test_markup_in_a_title_is_shown_as_typed() -> None:
    card = item_card(
        details(name='**Bold** [x](https://evil) "q" <b>'), item_url=URL, statuses=statuses()
    )
    run = card["body"][1]["inlines"][0]
    assert (run["type"], run["text"]) == ("TextRun", '**Bold** [x](https://evil) "q" <b>')


def test_create_form_offers_the_channel_choices_and_defaults() -> None:
    card = item_form(BUG, channel_id=CHANNEL, choices=choices())
    fields = inputs(card)
    assert list(fields) == [
        "title",
        "description",
        "status",
        "priority",
        "severity",
        "assignees",
        "startDate",
        "dueDate",
    ]
    assert fields["status"]["value"] == "Not Started"  # the primary status
    assert [c["value"] for c in fields["priority"]["choices"]] == [
        "Urgent",
        "High",
        "Normal",
        "Low",
    ]
    assert [c["title"] for c in fields["assignees"]["choices"]] == [
        "Person 1",
        "Person 2",
        "Person 3",
    ]
    assert fields["assignees"]["isMultiSelect"] is True
    assert "Create bug" in [found["title"] for found in actions(card)]


def test_task_form_has_no_severity() -> None:
    assert "severity" not in inputs(item_form(TASK, channel_id=CHANNEL, choices=choices("Task")))


def test_edit_form_is_prefilled_and_saves_the_item() -> None:
    item = details(12, assignedTo=[user(2).model_dump(by_alias=True)])
    card = item_form(BUG, channel_id=CHANNEL, choices=choices(), item=item)
    fields = inputs(card)
    assert fields["title"]["value"] == item.name
    assert fields["description"]["value"] == item.body
    assert (fields["status"]["value"], fields["priority"]["value"]) == ("In Progress", "High")
    assert fields["severity"]["value"] == "Medium"
    assert fields["assignees"]["value"] == user(2).id
    assert fields["dueDate"]["value"] == "2026-12-01"
    sent = SaveItem.model_validate(submitted(card, "Save bug", description=""))
    assert (sent.item_id, sent.channel_id, sent.title) == (item.id, CHANNEL, item.name)
    assert (sent.assignees, sent.description, sent.due_date) == ([user(2).id], None, "2026-12-01")
    back = ItemAction.model_validate(action(card, "Cancel")["data"])
    assert (back.verb, back.item_id) == (Verb.SHOW_ITEM, item.id)


def test_form_from_a_message_is_prefilled_and_submits_in_a_dialog() -> None:
    card = item_form(
        BUG,
        channel_id=CHANNEL,
        choices=choices(),
        prefill=Prefill("Crash on save", "Stack…"),
        in_dialog=True,
    )
    fields = inputs(card)
    assert (fields["title"]["value"], fields["description"]["value"]) == ("Crash on save", "Stack…")
    button = action(card, "Create bug")
    assert button["type"] == "Action.Submit"
    sent = SaveItem.model_validate(submitted(card, "Create bug", assignees="a,b"))
    assert (sent.item_id, sent.title, sent.assignees) == (None, "Crash on save", ["a", "b"])


def test_a_long_description_is_not_offered_for_editing() -> None:
    card = item_form(BUG, channel_id=CHANNEL, choices=choices(), item=details(body="x" * 5000))
    assert "description" not in inputs(card)


def test_the_form_comes_back_as_typed_with_the_problem_beside_its_input() -> None:
    typed = {
        "title": "Renamed",
        "description": "",
        "status": "Shipped",
        "priority": "Low",
        "assignees": f"{user(2).id},{user(3).id}",
        "dueDate": "2026-12-24",
    }
    card = item_form(
        BUG,
        channel_id=CHANNEL,
        choices=choices(),
        item=details(12),
        prefill=Prefill.typed(typed),
        problem=Problem("'Shipped' does not exist in this channel", "status"),
    )
    fields = inputs(card)
    assert fields["title"]["value"] == "Renamed" and "value" not in fields["description"]
    assert "value" not in fields["status"] and fields["priority"]["value"] == "Low"
    assert fields["severity"]["value"] == "Medium"  # not typed: the item's
    assert fields["assignees"]["value"] == f"{user(2).id},{user(3).id}"
    assert fields["dueDate"]["value"] == "2026-12-24"
    status_at = next(i for i, node in enumerate(card["body"]) if node.get("id") == "status")
    problem = card["body"][status_at + 1]["inlines"][0]
    assert (problem["text"], problem["color"]) == (
        "'Shipped' does not exist in this channel",
        "attention",
    )


@pytest.mark.parametrize(
    ("field", "beside"), [("name", "title"), ("assignedTo", "assignees"), ("dueDate", "dueDate")]
)
def test_a_problem_named_by_the_apis_field_shows_beside_the_forms_input(
    field: str, beside: str
) -> None:
    card = item_form(BUG, channel_id=CHANNEL, choices=choices(), problem=Problem("No", field))
    at = next(i for i, node in enumerate(card["body"]) if node.get("id") == beside)
    assert card["body"][at + 1]["inlines"][0]["text"] == "No"


def test_a_due_date_the_date_input_cannot_show_is_quoted_beside_it() -> None:
    card = item_form(
        BUG,
        channel_id=CHANNEL,
        choices=choices(),
        prefill=Prefill.typed({"title": "T", "dueDate": "not-a-date"}),
        problem=Problem("must be an ISO 8601 date", "dueDate"),
    )
    assert "value" not in inputs(card)["dueDate"]
    assert card["body"][-1]["inlines"][0]["text"] == "“not-a-date”: must be an ISO 8601 date"
    assert inputs(card)["title"]["value"] == "T"


def test_assigned_members_stay_listed_when_the_member_list_is_cut() -> None:
    last = MANY_MEMBERS.members[-1]
    item = details(12, assignedTo=[last.model_dump(by_alias=True)])
    card = item_form(BUG, channel_id=CHANNEL, choices=MANY_MEMBERS, item=item)
    listed = [c["value"] for c in inputs(card)["assignees"]["choices"]]
    assert listed[0] == last.id
    if len(listed) < 50:
        assert f"{len(listed)} of 50 members listed" in text_of(card)


def test_a_field_without_values_has_no_input_on_the_forms() -> None:
    form = CARDS["form no members"]
    assert list(inputs(form)) == ["title", "description", "startDate", "dueDate"]
    assert "No team members to assign yet." in text_of(form)
    bulk = CARDS["bulk nothing to choose"]
    assert inputs(bulk) == {}
    assert "No team members to assign yet." in text_of(bulk)


def test_assignees_who_left_the_team_stay_listed_on_the_form() -> None:
    gone = user(99, "Grace Hopper")
    item = details(12, assignedTo=[gone.model_dump(by_alias=True)])
    for members in ([], [user(1)]):
        form = item_form(
            BUG, channel_id=CHANNEL, choices=ChannelChoices([], [], [], members), item=item
        )
        assignees = inputs(form)["assignees"]
        assert choice_titles(assignees) == ["Grace Hopper", *(m.display_name for m in members)]
        assert assignees["value"] == gone.id


def choice_titles(element: dict[str, Any]) -> list[str]:
    return [option["title"] for option in element["choices"]]


def list_rows_at(card: Card, width: str) -> list[list[str]]:
    """A list card's rows as Teams shows them at `width`: the text of each column (a line under
    the title joins the title's)."""
    shown = laid_out(card, width)
    rows = [node for node in shown["body"] if node.get("type") == "ColumnSet"]
    return [[text_of(column).replace("\n", " / ") for column in row["columns"]] for row in rows]


def test_a_wide_list_card_is_aligned_columns() -> None:
    card = list_card(
        ItemList("Bugs", BUG, list_rows(details(4), bare(5)), "bugs", CHANNEL, total=2)
    )
    assert "1–2 of 2" in text_of(card)
    assert list_rows_at(card, WIDE) == [
        ["#", "Title", "Status", "Priority", "Assignee", "Due"],
        ["#4", "Login fails on Safari 4", "In Progress", "High", "Ada Lovelace", "2026-12-01"],
        ["#5", "Login fails on Safari 5", "In Progress", "High", "Nobody", "–"],
    ]
    assert "More" not in [found.get("title") for found in actions(card)]
    assert "Previous" not in [found.get("title") for found in actions(card)]


@pytest.mark.parametrize("width", [NARROW, STANDARD])
def test_a_narrower_list_card_keeps_the_number_and_puts_the_fields_under_the_title(
    width: str,
) -> None:
    """A phone or a laptop's chat has no room for six columns: the number and the title stay,
    the other fields read as a line under the title, the date kept whole."""
    card = list_card(
        ItemList("Bugs", BUG, list_rows(details(4), bare(5)), "bugs", CHANNEL, total=2)
    )
    assert list_rows_at(card, width) == [
        ["#4", "Login fails on Safari 4 / In Progress · High · Ada Lovelace · due\u00a02026‑12‑01"],
        ["#5", "Login fails on Safari 5 / In Progress · High · Nobody"],
    ]


def due_colors(card: Card, width: str) -> dict[str, str | None]:
    """Each row's due date as Teams shows it at `width`, and its colour."""
    found = {}
    for node in walk(laid_out(card, width)):
        text = node.get("text")
        if node.get("type") in ("TextBlock", "TextRun") and isinstance(text, str):
            date = text.rsplit("\u00a0", 1)[-1].replace("‑", "-")
            if date[:4].isdigit():
                found[date] = node.get("color")
    return found


@pytest.mark.parametrize("width", [NARROW, WIDE])
def test_a_due_date_passed_on_an_item_not_done_shows_in_red(width: str) -> None:
    now = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
    rows = list_rows(
        details(1, dueDate="2026-12-01T00:00:00.000Z"),  # passed, in progress
        details(2, dueDate="2026-12-02T00:00:00.000Z", completedDate=WHEN),  # passed, done
        details(3, dueDate="2026-12-09T00:00:00.000Z"),  # still to come
    )
    card = list_card(ItemList("Bugs", BUG, rows, "bugs", CHANNEL, now=now))
    assert due_colors(card, width) == {
        "2026-12-01": "attention",
        "2026-12-02": None,
        "2026-12-09": None,
    }


def test_a_rows_title_opens_its_item_and_reads_as_a_link() -> None:
    row = list_rows(details(4))[0]
    card = list_card(ItemList("Bugs", BUG, [row], "bugs", CHANNEL))
    title = card["body"][-1]["columns"][1]
    assert title["items"][0]["inlines"][0]["color"] == "accent"
    opened = ItemAction.model_validate(title["selectAction"]["data"])
    assert (opened.verb, opened.item_id) == (Verb.SHOW_ITEM, row.id)


def test_a_later_page_offers_previous() -> None:
    rows = list_rows(*map(details, range(1, 11)))
    card = list_card(ItemList("Bugs", BUG, rows, "bugs/status/done", CHANNEL, skip=30, more=True))
    back = More.model_validate(action(card, "Previous")["data"])
    assert (back.command, back.skip) == ("bugs/status/done", 30 - MAX_ROWS)
    first = list_card(ItemList("Bugs", BUG, rows, "bugs", CHANNEL, skip=10))
    assert More.model_validate(action(first, "Previous")["data"]).skip == 0


def test_quick_filters_run_their_list_from_the_first_row_and_mark_the_current_one() -> None:
    rows = list_rows(*map(details, range(1, 4)))
    card = list_card(ItemList("Bugs", BUG, rows, "bugs", CHANNEL, skip=25, filters=FILTERS))
    sent = {
        title: More.model_validate(action(card, title)["data"]) for title in ("Mine", "Open", "All")
    }
    assert {title: (run.command, run.skip) for title, run in sent.items()} == {
        "Mine": ("my bugs", 0),
        "Open": ("open bugs", 0),
        "All": ("bugs", 0),
    }
    assert action(card, "All")["style"] == "positive" and "style" not in action(card, "Mine")
    chat = QuickFilters(mine=None, open="open bugs", all="bugs", current=None)
    in_chat = list_card(ItemList("My bugs", BUG, rows, "bugs", filters=chat))
    assert "Mine" not in [found.get("title") for found in actions(in_chat)]


def test_a_list_problem_shows_above_its_buttons() -> None:
    rows = list_rows(details(1))
    card = list_card(ItemList("Bugs", BUG, rows, "bugs", CHANNEL), problem=Problem("Tick one"))
    last = card["body"][-1]["inlines"][0]
    assert (last["text"], last["color"]) == ("Tick one", "attention")


def test_list_card_more_continues_after_the_rows_shown() -> None:
    rows = list_rows(*map(details, range(1, 41)))
    card = list_card(ItemList("Bugs", BUG, rows, "bugs/status/in progress", CHANNEL, skip=20))
    shown = sum(1 for key in inputs(card) if key.startswith("select:"))
    assert shown == MAX_ROWS
    more = More.model_validate(action(card, "More")["data"])
    assert (more.command, more.skip, more.channel_id) == (
        "bugs/status/in progress",
        20 + MAX_ROWS,
        CHANNEL,
    )


def test_list_card_cut_for_size_still_offers_the_rest() -> None:
    rows = list_rows(*map(longest, range(1, 51)))
    card = list_card(ItemList("Bugs", BUG, rows, "bugs", CHANNEL))
    shown = sum(1 for key in inputs(card) if key.startswith("select:"))
    assert 0 < shown < MAX_ROWS
    assert More.model_validate(action(card, "More")["data"]).skip == shown


def test_list_card_selection_feeds_bulk_edit() -> None:
    rows = list_rows(*map(details, range(1, 4)))
    card = list_card(ItemList("Bugs", BUG, rows, "bugs", CHANNEL))
    sent = submitted(card, "Bulk edit selected")
    sent.update({f"select:{rows[0].id}": "true", f"select:{rows[2].id}": "true"})
    sent[f"select:{rows[1].id}"] = "false"
    bulk = BulkEdit.model_validate(sent)
    assert (bulk.channel_id, bulk.command, bulk.skip) == (CHANNEL, "bugs", 0)
    assert selected_ids(sent) == [rows[0].id, rows[2].id]
    opened = ItemAction.model_validate(actions(card)[0]["data"])
    assert (opened.verb, opened.item_id) == (Verb.SHOW_ITEM, rows[0].id)


def test_a_rows_button_carries_what_the_item_action_model_dumps() -> None:
    row = list_rows(details(4))[0]
    card = list_card(ItemList("Bugs", BUG, [row], "bugs", CHANNEL))
    model = ItemAction(
        verb=Verb.SHOW_ITEM,
        kind=BUG,
        item_id=row.id,
        channel_id=row.channel_id,
        number=row.internal_id,
    )
    assert actions(card)[0]["data"] == action_data(model)


def test_personal_list_has_no_selection_and_no_bulk_edit() -> None:
    card = list_card(ItemList("My bugs", BUG, list_rows(details(1)), "bugs/my"))
    assert inputs(card) == {}
    assert "Bulk edit selected" not in [found.get("title") for found in actions(card)]


def test_empty_list_says_so() -> None:
    card = list_card(ItemList("Bugs", BUG, [], "bugs", CHANNEL))
    assert "No bugs here." in text_of(card)
    assert "actions" not in card  # no button: nothing to page through or edit


def test_bulk_form_carries_the_ids_and_leaves_empty_fields_unchanged() -> None:
    ids = ["a" * 24, "b" * 24]
    card = bulk_form(BUG, channel_id=CHANNEL, ids=ids, choices=choices())
    assert "Edit 2 bugs" in text_of(card)
    fields = inputs(card)
    assert list(fields) == ["status", "priority", "assignee"]
    assert all(field["placeholder"] == "Unchanged" for field in fields.values())
    sent = ApplyBulkEdit.model_validate(submitted(card, "Apply to 2 bugs", status="Completed"))
    assert (sent.ids, sent.status, sent.priority, sent.assignee) == (ids, "Completed", None, None)


def test_bulk_form_comes_back_as_typed_with_the_problem_beside_its_input() -> None:
    card = bulk_form(
        BUG,
        channel_id=CHANNEL,
        ids=["a" * 24],
        choices=choices(),
        typed={"status": "Completed", "priority": "Someday"},
        problem=Problem("'x' is not a member of this team", "assignedTo"),
    )
    fields = inputs(card)
    assert (fields["status"].get("value"), fields["priority"].get("value")) == ("Completed", None)
    assert card["body"][-1]["inlines"][0]["text"] == "'x' is not a member of this team"
    assert card["body"][-2]["id"] == "assignee"


def test_bulk_form_needs_a_selection() -> None:
    with pytest.raises(ValueError):
        bulk_form(BUG, channel_id=CHANNEL, ids=[], choices=choices())


HELP = [
    CommandHelp("bugs", "The channel's bugs", everyday=True),
    CommandHelp("bug/{id}", "One"),
    *(CommandHelp(f"c{n}", "Run it", f"C{n}") for n in range(6)),
]


def test_help_is_short_with_a_button_for_the_rest() -> None:
    card = help_card(HELP, more="help all")
    text = text_of(card)
    assert "The channel's bugs" in text and "bug/{id}" not in text
    assert [found["title"] for found in actions(card)] == ["C0", "C1", "C2", "C3", "More commands"]
    assert RunCommand.model_validate(action(card, "More commands")["data"]).command == "help all"
    everything = help_card(HELP)
    assert "bug/{id}" in text_of(everything) and "Every command" in text_of(everything)
    assert RunCommand.model_validate(action(everything, "C4")["data"]).command == "c4"


def test_a_shortcut_an_everyday_line_already_says_is_a_button_and_no_line() -> None:
    commands = [
        CommandHelp("bugs, my bugs", "The channel's bugs, yours", everyday=True),
        CommandHelp("my bugs", "Bugs assigned to you", "My bugs", listed=False),
        CommandHelp("bug/{id}", "One"),
    ]
    for card in (help_card(commands, more="help all"), help_card(commands)):
        assert "Bugs assigned to you" not in text_of(card)
        assert RunCommand.model_validate(action(card, "My bugs")["data"]).command == "my bugs"
    assert "bug/{id}" in text_of(help_card(commands))


def test_a_near_miss_offers_the_command_as_a_button() -> None:
    card = suggestion_card("bgus/my", "bugs/my", help_command="help")
    line = "".join(run["text"] for run in card["body"][0]["inlines"])
    assert line == "I didn't understand 'bgus/my'. Did you mean bugs/my?"
    assert RunCommand.model_validate(action(card, "bugs/my")["data"]).command == "bugs/my"
    assert RunCommand.model_validate(action(card, "Help")["data"]).command == "help"


def test_person_choice_runs_the_command_for_each_namesake() -> None:
    people = [user(1, "Grace Hopper"), user(2, "Grace Kelly")]
    card = person_choice(
        "Which Grace?",
        command_for=lambda person: f"bug/update/4/assigned/{person.username}",
        people=people,
        team_id="19:team-a",
        channel_id=CHANNEL,
    )
    sent = [RunCommand.model_validate(found["data"]) for found in actions(card)]
    assert [(run.command, run.channel_id) for run in sent] == [
        ("bug/update/4/assigned/person1@contoso.test", CHANNEL),
        ("bug/update/4/assigned/person2@contoso.test", CHANNEL),
    ]
    assert action(card, "Grace Kelly (person2@contoso.test)")


def test_channel_choice_runs_the_command_in_each_channel_offered() -> None:
    card = channel_choice("Which channel?", command="bug 12", places=places(MAX_PLACES + 2))
    sent = [RunCommand.model_validate(found["data"]) for found in actions(card)]
    assert [(run.command, run.team_id, run.channel_id) for run in sent] == [
        ("bug 12", f"19:team-{n}", f"19:channel-{n}") for n in range(MAX_PLACES)
    ]
    assert f"The first {MAX_PLACES} of {MAX_PLACES + 2} channels" in text_of(card)


def test_error_card_is_one_short_line_shown_as_typed() -> None:
    card = error_card("'*x*' is not a status")
    assert card["body"] == [
        {
            "type": "RichTextBlock",
            "inlines": [{"type": "TextRun", "text": "'*x*' is not a status", "color": "attention"}],
        }
    ]
    assert len(error_card("word " * 500)["body"][0]["inlines"][0]["text"]) <= 300


def test_rules_card_shows_what_each_rule_does_and_how_it_last_fired() -> None:
    never = rule(2, last_state=None, last_at=None, trigger=Trigger.OVERDUE, entity_type=TASK)
    card = rules_card([rule(1, "Pager *bold*"), never], total=2)
    text = text_of(card)
    assert "Pager *bold* 1" in text and "2 rules" in text
    assert "A bug is updated" in text and "HTTP POST hooks.example.com" in text
    assert "delivered 2026-11-21 09:30 UTC" in text
    assert "A task is overdue" in text and NEVER_FIRED in text


def test_rules_card_says_what_the_receiver_answered_when_a_delivery_did_not_go_through() -> None:
    at = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
    failed = rule(1, last_state=DeliveryState.FAILED, last_at=at, last_tries=1, last_code=410)
    unreachable = rule(2, last_state=DeliveryState.FAILED, last_at=at, last_tries=10)
    retrying = rule(3, last_state=DeliveryState.PENDING, last_at=at, last_tries=2, last_code=503)
    waiting = rule(4, last_state=DeliveryState.PENDING, last_at=None, last_tries=0)
    assert [last_delivery(r) for r in (failed, unreachable, retrying, waiting)] == [
        "failed 2026-11-21 10:00 UTC, HTTP 410",
        "failed 2026-11-21 10:00 UTC, no answer",
        "retrying 2026-11-21 10:00 UTC, HTTP 503",
        "pending",
    ]


def test_rules_card_cut_for_size_says_how_many_there_are() -> None:
    card = CARDS["rules longest"]
    shown = [node for node in card["body"] if node.get("type") == "Container"]
    assert 0 < len(shown) < 50
    assert f"{len(shown)} of 120 rules" in text_of(card)


def test_settings_card_switches_each_rule_and_saves_the_form() -> None:
    card = CARDS["settings"]
    text = text_of(card)
    assert "Task overdue *now* 2" in text and "Off: Switched off by the service" in text
    switches = [found for found in actions(card) if found["verb"] == Verb.SWITCH_RULE]
    assert [SwitchRule.model_validate(found["data"]).enable for found in switches] == [
        True,
        False,
        True,
    ]
    assert {found["associatedInputs"] for found in switches} == {"none"}
    saved = SaveSettings.model_validate(submitted(card, "Save", dueSoonMinutes=90))
    assert (saved.channel_id, saved.due_soon_minutes, saved.quiet_start) == (CHANNEL, "90", None)


def test_settings_card_shows_the_channels_own_values_and_the_installations_as_placeholders() -> (
    None
):
    form = inputs(CARDS["settings own"])
    assert form[verbs.DUE_SOON]["value"] == 90
    assert form[verbs.DIGEST_WINDOW]["placeholder"] == "The installation's: 5"
    assert [form[key]["value"] for key in (verbs.QUIET_START, verbs.QUIET_END)] == [
        "22:00",
        "07:00",
    ]
    assert form[verbs.QUIET_TIME_ZONE]["value"] == "Europe/Paris"


def test_settings_card_cut_for_size_keeps_the_form_and_says_how_many_rules_there_are() -> None:
    card = CARDS["settings longest"]
    shown = [node for node in card["body"] if node.get("type") == "ColumnSet"]
    assert 0 < len(shown) < 50
    assert f"{len(shown)} of 120 rules shown." in text_of(card)
    assert len(inputs(card)) == 6
