"""Realistic inputs for the card builders: items, statuses and members as the API shows them."""

import json
from pathlib import Path
from typing import Any

import adaptive_cards
import jsonschema

from bot.directory.schemas import USER_SOURCE, UserOut
from bot.fields.defaults import PRIORITIES, SEVERITIES
from bot.fields.schemas import StatusOut
from bot.items.schemas import BugDetails, TaskDetails
from cards.form import ChannelChoices
from cards.layout import TEAMS_LIMIT_BYTES, Card, size_bytes
from cards.listing import ListRow

CHANNEL = "19:channel-a@thread.tacv2"
WHEN = "2026-11-21T09:30:00.000Z"
LONG = "Ünïcödé ✓ 🐞 " * 30  # long, multi-byte, and with characters JSON escapes as surrogates
SCHEMA = json.loads(
    (Path(adaptive_cards.__file__).parent / "schemas" / "schema-1.5.json").read_text()
)
VALIDATOR = jsonschema.Draft6Validator(SCHEMA)


def official(node: Any) -> Any:
    """The card as the Adaptive Cards 1.5 schema knows it: without what only Teams reads, its
    `msteams` key and every element's `targetWidth`."""
    if isinstance(node, list):
        return [official(item) for item in node]
    if isinstance(node, dict):
        return {k: official(v) for k, v in node.items() if k not in ("msteams", "targetWidth")}
    return node


def assert_valid(card: Card) -> None:
    """Valid Adaptive Card 1.5 once what only Teams reads is removed, and under 28 KB."""
    errors = [error.message[:200] for error in VALIDATOR.iter_errors(official(card))]
    assert not errors, errors
    assert size_bytes(card) < TEAMS_LIMIT_BYTES


def user(number: int, name: str | None = None) -> UserOut:
    return UserOut(
        id=f"{number:024x}",
        source_id=f"00000000-0000-0000-0000-{number:012x}",
        display_name=name or f"Person {number}",
        email=f"person{number}@contoso.test",
        username=f"person{number}@contoso.test",
        source=USER_SOURCE,
    )


def status(name: str, category: str, order: int, *, type: str = "Bug", primary: bool = False):
    link = f"http://127.0.0.1:3978/odata/status('{order:024x}')"
    return StatusOut.model_validate(
        {
            "@odata.context": "http://127.0.0.1:3978/odata/$metadata#status/$entity",
            "@odata.editLink": link,
            "@odata.id": link,
            "_id": f"{order:024x}",
            "name": name,
            "color": "#8a8886",
            "category": category,
            "description": "",
            "primary": primary,
            "order": order,
            "value": 0,
            "type": type,
            "createdAt": WHEN,
            "updatedAt": WHEN,
        }
    )


def statuses(type: str = "Bug") -> list[StatusOut]:
    return [
        status("In Progress", "Active", 2, type=type),
        status("Not Started", "New", 1, type=type, primary=True),
        status("Completed", "Done", 3, type=type),
    ]


def choices(type: str = "Bug", members: int = 3) -> ChannelChoices:
    return ChannelChoices(
        statuses=statuses(type),
        priorities=[value.name for value in PRIORITIES],
        severities=[value.name for value in SEVERITIES] if type == "Bug" else [],
        members=[user(number) for number in range(1, members + 1)],
    )


def details(number: int = 12, *, bug: bool = True, **changes: Any) -> TaskDetails:
    """A bug (or task) as GET /api/bugs/{id} answers it; `changes` by API name."""
    fields: dict[str, Any] = {
        "_id": f"{0xABC000 + number:024x}",
        "internalId": number,
        "name": f"Login fails on Safari {number}",
        "body": "Steps: open the page, sign in.",
        "owner": None,
        "status": "In Progress",
        "priority": "High",
        "source": "Svc.Native",
        "sourceId": f"{number}",
        "startDate": None,
        "dueDate": "2026-12-01T00:00:00.000Z",
        "completedDate": None,
        "effort": None,
        "phase": None,
        "phaseName": None,
        "bucket": [],
        "bucketName": None,
        "attachments": [],
        "createdAt": WHEN,
        "updatedAt": WHEN,
        "statusId": {"_id": f"{2:024x}", "category": "Active"},
        "statusValue": 50,
        "sync": {"status": None, "at": WHEN},
        "projectId": {
            "enableBug": True,
            "_id": f"{9:024x}",
            "displayName": "Channel A",
            "hostname": "teams",
            "projectName": "Channel A",
            "sourceId": CHANNEL,
        },
        "assignedTo": [user(1, "Ada Lovelace").model_dump(by_alias=True)],
        "channelId": CHANNEL,
        "teamId": "19:team-a@thread.tacv2",
        "groupId": None,
        "entityId": None,
        "createdBy": None,
        "updatedBy": None,
    }
    if bug:
        fields["severity"] = "Medium"
    fields.update(changes)
    return (BugDetails if bug else TaskDetails).model_validate(fields)


def bare(number: int = 3, *, bug: bool = True) -> TaskDetails:
    """Every optional field empty."""
    extra = {"severity": None} if bug else {}
    return details(number, bug=bug, body=None, dueDate=None, assignedTo=[], **extra)


def longest(number: int = 7, *, bug: bool = True) -> TaskDetails:
    """Maximum lengths and multi-byte text everywhere a user can type."""
    people = [user(n, LONG[:255]).model_dump(by_alias=True) for n in range(1, 51)]
    return details(number, bug=bug, name=LONG[:255], body=LONG * 5, assignedTo=people)


def list_rows(*items: TaskDetails) -> list[ListRow]:
    """The items as a list card's rows."""
    return [
        ListRow(
            id=item.id,
            internal_id=item.internal_id,
            name=item.name,
            status=item.status,
            channel_id=item.channel_id,
            assignees=[user.display_name for user in item.assigned_to],
            priority=item.priority,
            due_date=item.due_date,
            done=item.completed_date is not None,
        )
        for item in items
    ]


def walk(node: Any) -> list[dict[str, Any]]:
    """Every object in a card, depth first, to find inputs and actions wherever they sit."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(walk(value))
    return found


def actions(card: Card) -> list[dict[str, Any]]:
    return [node for node in walk(card) if str(node.get("type", "")).startswith("Action.")]


def inputs(card: Card) -> dict[str, dict[str, Any]]:
    return {
        node["id"]: node for node in walk(card) if str(node.get("type", "")).startswith("Input.")
    }


def action(card: Card, title: str) -> dict[str, Any]:
    return next(found for found in actions(card) if found.get("title") == title)


def text_of(card: Card) -> str:
    """All the text a user reads on the card, in order."""
    parts: list[str] = []
    for node in walk(card):
        for key in ("text", "title", "value", "label", "placeholder"):
            if isinstance(node.get(key), str) and node.get("type") != "Action.Execute":
                parts.append(node[key])
    return "\n".join(parts)


def facts(card: Card) -> dict[str, str]:
    """An item card's (or a thread root's) facts by label: its badges (Status, Priority,
    Severity), its stated facts (Assigned to, Due: label and value columns, or a FactSet), and its
    number (ID) as its line "Bug #12" shows it."""
    numbers = [
        node["text"].rsplit(" ", 1)[-1]
        for node in card["body"]
        if node.get("type") == "TextBlock" and "#" in node["text"]
    ]
    stated: dict[str, str] = {}
    for node in card["body"]:
        if node.get("type") == "FactSet":
            stated.update((fact["title"], fact["value"]) for fact in node["facts"])
        elif node.get("type") == "ColumnSet" and not any(c.get("style") for c in node["columns"]):
            labels, values = node["columns"]
            stated.update(
                zip(map(_shown, labels["items"]), map(_shown, values["items"]), strict=True)
            )
    return {**({"ID": numbers[0]} if numbers else {}), **badges(card), **stated}


def _shown(block: dict[str, Any]) -> str:
    """A TextBlock's or RichTextBlock's text."""
    if block["type"] == "RichTextBlock":
        return "".join(run["text"] for run in block["inlines"])
    return str(block["text"])


def badges(card: Card) -> dict[str, str]:
    """An item card's badges: the label's run, then the value's."""
    return {
        column["items"][0]["inlines"][0]["text"].strip(): column["items"][0]["inlines"][1]["text"]
        for node in card["body"]
        if node.get("type") == "ColumnSet"
        for column in node["columns"]
        if column.get("style")
    }


def said(card: Card) -> str:
    """The line at the top of a card answering a change: what the click or command did."""
    first = card["body"][0]
    return "".join(run["text"] for run in first.get("inlines", ())) if first else ""


def values(card: Card) -> dict[str, str]:
    """The card's inputs as they are filled, which Teams sends with any button that takes them."""
    filled = {key: node.get("value") for key, node in inputs(card).items()}
    return {key: value for key, value in filled.items() if isinstance(value, str)}


def beside_input(card: Card, input_id: str) -> str:
    """What the card shows right after an input: where a problem with it is told."""
    body = card["body"]
    at = next(index for index, node in enumerate(body) if node.get("id") == input_id)
    return text_of(body[at + 1]) if at + 1 < len(body) else ""


def root_title(card: Card) -> str:
    """A thread root card's title as the API's description gives it: "Bug #12: Login fails" (a
    deleted item's root: its one heading, marked "(deleted)")."""
    body = card["body"]
    if body[0].get("text", "").startswith("<at>"):  # the line @mentioning whom it tells
        body = body[1:]
    first, *rest = body
    if first["type"] == "TextBlock":  # the number, then the title as a heading
        return f"{first['text']}: {_shown(rest[0])}"
    return _shown(first)
