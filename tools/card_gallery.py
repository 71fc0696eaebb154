"""One realistic card of each builder, as a channel would see it: what `make cards` renders to
docs/cards/ (the tests' cards are the stress cases: empty, longest, unicode)."""

from datetime import datetime, timedelta
from typing import Any

from bot.directory.schemas import ChannelSettingsOut, QuietHours, UserOut
from bot.events.schemas import ActionType, DeliveryState, NotificationRule, RuleSummary
from bot.fields.defaults import PRIORITIES, SEVERITIES
from bot.items.schemas import TaskDetails
from bot.schemas import ItemKind, Trigger
from bot.teams.commands.command_list import COMMANDS
from cards.assigned import assigned_card, assigned_list_card
from cards.bulk import bulk_form
from cards.changes import Note
from cards.choice import Place, channel_choice, person_choice
from cards.digest import Told, digest_card
from cards.form import ChannelChoices, item_form
from cards.help import error_card, help_card, note_card, suggestion_card
from cards.item import item_card
from cards.layout import Card, execute
from cards.listing import ItemList, QuickFilters, list_card
from cards.rules import notifications_failing_card, rule_switched_off_card, rules_card
from cards.settings import settings_card
from cards.thread import root_card
from cards.verbs import More, Verb
from tests.cards.samples import CHANNEL, WHEN, details, list_rows, statuses, user

BUG, TASK = ItemKind.BUG, ItemKind.TASK
CREATED = datetime.fromisoformat(WHEN)
NOW = CREATED + timedelta(days=2, hours=3)
PUBLIC_URL = "https://tracker.contoso.com"
PEOPLE = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson", "Linus Torvalds"]


def person(number: int, name: str, upn: str | None = None) -> UserOut:
    """A teammate whose email and UPN are, unless given, their first name at contoso.com."""
    at = upn or f"{name.split()[0].lower()}@contoso.com"
    return user(number, name).model_copy(update={"email": at, "username": at})


TEAM = [person(number, name) for number, name in enumerate(PEOPLE, start=1)]
ACTIVE = {"_id": f"{2:024x}", "category": "Active"}
NEW = {"_id": f"{1:024x}", "category": "New"}
DONE = {"_id": f"{3:024x}", "category": "Done"}
# (number, title, status, its category, priority, severity, assignees, due in days or None)
BUGS: list[tuple[int, str, str, dict[str, str], str, str, list[int], int | None]] = [
    (42, "Checkout button does nothing on Safari", "In Progress", ACTIVE, "Urgent", "Critical",
     [1], 3),
    (41, "Invoice PDF shows the wrong VAT rate", "Not Started", NEW, "High", "High", [2], 5),
    (39, "Search ignores accents (café ≠ cafe)", "In Progress", ACTIVE, "Normal", "Medium",
     [3, 4], 9),
    (37, "Password reset mail arrives twice", "Not Started", NEW, "Normal", "Low", [], 1),
    (35, "Dark mode: grey text on grey buttons", "In Progress", ACTIVE, "Low", "Low", [5], 14),
    (33, "Export to CSV cuts names at 32 characters", "Completed", DONE, "High", "Medium",
     [1], -2),
    (30, "Typo on the sign-up page", "Completed", DONE, "Low", "Low", [2], None),
]  # fmt: skip


DESCRIPTIONS = {
    42: {
        "body": "Since Monday's release the Pay button does not respond on Safari 17 (macOS and "
        "iOS); Chrome and Firefox work.\nThe console shows nothing.\nSeen by three customers."
    }
}


def bug(number: int, **changes: Any) -> TaskDetails:
    """A bug of BUGS by its number, as the API shows it."""
    _, title, status, category, priority, severity, assigned, due = next(
        row for row in BUGS if row[0] == number
    )
    fields: dict[str, Any] = {
        "name": title,
        "status": status,
        "statusId": category,
        "priority": priority,
        "severity": severity,
        "assignedTo": [TEAM[n - 1].model_dump(by_alias=True) for n in assigned],
        "dueDate": (CREATED + timedelta(days=due)).isoformat() if due is not None else None,
        "completedDate": NOW.isoformat() if category is DONE else None,
        "createdBy": {
            "source": "Teams",
            "email": "grace@contoso.com",
            "name": "Grace Hopper",
            "sourceId": "00000000-0000-0000-0000-000000000002",
        },
        "updatedAt": (NOW - timedelta(minutes=25)).isoformat(),
        "updatedBy": {
            "displayName": "Ada Lovelace",
            "url": "",
            "_links": {"avatar": {"href": ""}},
            "id": "00000000-0000-0000-0000-000000000001",
            "uniqueName": "ada@contoso.com",
            "imageUrl": "",
            "descriptor": "aad.ada",
        },
    }
    return details(number, **(fields | DESCRIPTIONS.get(number, {}) | changes))


def rule(name: str, trigger: Trigger, action: ActionType, **fields: Any) -> RuleSummary:
    values: dict[str, Any] = {
        "name": name,
        "entity_type": BUG,
        "trigger": trigger,
        "enabled": True,
        "action_type": action,
        "target": "POST hooks.contoso.com" if action is ActionType.HTTP else None,
        "disabled_reason": None,
        "last_state": DeliveryState.SUCCEEDED,
        "last_at": NOW - timedelta(hours=2),
    }
    return RuleSummary(**(values | fields))


def notification(number: int, name: str, trigger: Trigger, **fields: Any) -> NotificationRule:
    values: dict[str, Any] = {
        "id": f"{number:024x}",
        "name": name,
        "entity_type": BUG,
        "trigger": trigger,
        "enabled": True,
        "disabled_reason": None,
    }
    return NotificationRule(**(values | fields))


SETTINGS = ChannelSettingsOut(
    due_soon_minutes=1440,
    due_soon_is_default=True,
    digest_window_seconds=300,
    digest_window_is_default=False,
    digest_threshold=5,
    digest_threshold_is_default=True,
    quiet_hours=QuietHours(start="20:00", end="08:00", time_zone="Europe/Paris"),
    quiet_hours_is_default=False,
)


def item_url(number: int) -> str:
    return f"{PUBLIC_URL}/bugs/{0xABC000 + number:024x}"


def gallery() -> dict[str, Card]:
    """Each card by the name of its picture."""
    bugs = [bug(row[0]) for row in BUGS]
    channel_choices = ChannelChoices(
        statuses(), [p.name for p in PRIORITIES], [s.name for s in SEVERITIES], TEAM
    )
    return {
        "item": item_card(bug(42), item_url=item_url(42), statuses=statuses(), now=NOW),
        "item-changed": item_card(
            bug(42, status="Completed", statusId=DONE),
            item_url=item_url(42),
            statuses=statuses(),
            now=NOW,
            note=Note("Ada Lovelace set the status of Bug #42 to Completed"),
        ),
        "item-overdue": item_card(
            bug(42, dueDate=(NOW - timedelta(days=1)).isoformat()),
            item_url=item_url(42),
            statuses=statuses(),
            now=NOW,
        ),
        "thread-root": root_card(bug(42), item_url=item_url(42), now=NOW, mention="Tracker"),
        "list": list_card(
            ItemList(
                "Bugs",
                BUG,
                list_rows(*bugs),
                "bugs",
                CHANNEL,
                total=len(bugs),
                filters=QuickFilters(mine="my bugs", open="open bugs", all="bugs", current="bugs"),
                now=NOW,
            )
        ),
        "form": item_form(BUG, channel_id=CHANNEL, choices=channel_choices),
        "bulk": bulk_form(
            BUG, channel_id=CHANNEL, ids=[b.id for b in bugs[:3]], choices=channel_choices
        ),
        "help": help_card(COMMANDS, more="help all"),
        "suggestion": suggestion_card("bgus", "bugs", help_command="help"),
        "error": error_card(
            "There is no bug #420 in this channel.",
            [
                execute(
                    "Bugs",
                    More(verb=Verb.MORE, kind=BUG, channel_id=CHANNEL, command="bugs", skip=0),
                )
            ],
        ),
        "note": note_card(
            "You'll hear from me when you're assigned an item. Type `notify off` to stop."
        ),  # fmt: skip
        "choice": channel_choice(
            "Which channel's bug 12?",
            command="bug 12",
            places=[
                Place("19:web", "19:web-general", "Web shop", "General"),
                Place("19:web", "19:web-payments", "Web shop", "Payments"),
                Place("19:apps", "19:apps-ios", "Mobile apps", "iOS"),
            ],
        ),
        "person-choice": person_choice(
            "Which Ada?",
            command_for=lambda person: f"bug/update/42/assigned/{person.username}",
            people=[TEAM[0], person(6, "Ada Byron", "ada.byron@contoso.com")],
            team_id="19:web",
            channel_id=CHANNEL,
        ),
        "rules": rules_card(
            [
                rule("Tell the pager about urgent bugs", Trigger.ITEM_UPDATED, ActionType.HTTP),
                rule("New bugs to the thread", Trigger.ITEM_CREATED, ActionType.NOTIFICATION),
                rule(
                    "Overdue bugs to the old tracker",
                    Trigger.OVERDUE,
                    ActionType.HTTP,
                    enabled=False,
                    disabled_reason="The receiver answered 410 Gone",
                    last_state=DeliveryState.FAILED,
                    last_code=410,
                ),
            ],
            total=3,
        ),
        "rule-switched-off": rule_switched_off_card(
            name="Overdue bugs to the old tracker",
            reason="The receiver answered 410 Gone: it no longer takes these requests.",
        ),
        "notifications-failing": notifications_failing_card(
            failures=12, error="The Bot Connector answered 403 Forbidden"
        ),
        "settings": settings_card(
            channel_id=CHANNEL,
            rules=[
                notification(1, "New bugs to the thread", Trigger.ITEM_CREATED),
                notification(2, "Overdue bugs", Trigger.OVERDUE, enabled=False),
            ],
            total=2,
            current=SETTINGS,
        ),
        "digest": digest_card(
            [
                Told(
                    "Bug #42: Checkout button does nothing on Safari: Ada moved it to Completed",
                    item_url(42),
                ),
                Told(
                    "Bug #41: Invoice PDF shows the wrong VAT rate: Grace assigned it to Alan",
                    item_url(41),
                ),
                Told(
                    "Bug #39: Search ignores accents: Alan set its priority to High", item_url(39)
                ),
                Told("Task #7: Plan the release: Katherine deleted it", None),
            ],
            channel_id=CHANNEL,
            kinds={"bugs", "tasks"},
        ),  # fmt: skip
        "assigned": assigned_card(bug(41), actor="Grace Hopper", item_url=item_url(41)),
        "assigned-list": assigned_list_card(
            list_rows(*bugs[:3]), kind=BUG, actor="Grace Hopper", now=NOW
        ),
    }
