"""Synced items and projects for the card builders: realistic, waiting, refused, the longest."""

from datetime import UTC, datetime
from typing import Any

from bot.items.schemas import TaskDetails
from bot.sync.whereabouts import synced_at
from bot.sync_records.schemas import ProjectSyncShown, SyncCounts, SyncError, SyncState
from cards.item import item_card
from cards.layout import Card
from cards.sync import sync_card, sync_paused_card, sync_states_added_card
from tests.cards.samples import LONG, WHEN, details, statuses

URL = "https://tracker.example.test/bugs/000000000000000000abc00c"
ORG_URL = "https://dev.azure.com/contoso"
LATER = datetime(2026, 11, 21, 9, 35, tzinfo=UTC)
PROJECT = {
    "enableBug": True,
    "_id": f"{10:024x}",
    "displayName": "Fabrikam",
    "hostname": ORG_URL,
    "projectName": "Fabrikam",
    "sourceId": "Fabrikam Web",
}


def synced_item(
    number: int = 12, *, source_id: str | None = "42", status: str | None = None, **sync: Any
) -> TaskDetails:
    """A bug of an Azure DevOps project, work item `source_id` there (None: not made there yet,
    its `sourceId` its own `_id`), with its `sync` status and the rest of its `sync`."""
    own_id = f"{0xABC000 + number:024x}"
    return details(
        number,
        source="Microsoft.Vsts",
        sourceId=source_id or own_id,
        projectId=PROJECT,
        sync={"status": status, "at": WHEN, **sync},
    )


def project(name: str = "Fabrikam", **fields: Any) -> ProjectSyncShown:
    values: dict[str, Any] = {
        "project_id": f"{10:024x}",
        "name": name,
        "source": "Microsoft.Vsts",
        "state": SyncState.RUNNING,
        "pending": 0,
        "last_error": None,
        "counts": SyncCounts(imported=120, pulled=4, pushed=2),
        "last_pull_at": datetime(2026, 11, 21, 9, 34, tzinfo=UTC),
        "last_push_at": None,
    }
    return ProjectSyncShown(**(values | fields))


REFUSED = SyncError(
    code="Unauthorized",
    message="TF400813: The user is not authorized to access this resource.",
    at=datetime(2026, 11, 21, 9, 30, tzinfo=UTC),
)
PAUSED = project("Contoso *web*", state=SyncState.PAUSED, pending=3, last_error=REFUSED)
LONGEST_PROJECTS = [
    project(
        LONG[:255],
        state=SyncState.FAILING,
        pending=2**31,
        last_error=SyncError(code=LONG[:255], message=LONG * 10, at=REFUSED.at),
        counts=SyncCounts(imported=2**40, pulled=2**40, pushed=2**40, conflicts=9, errors=9),
        last_push_at=REFUSED.at,
    )
    for _ in range(60)
]


def _item(item: TaskDetails, **options: Any) -> Card:
    return item_card(item, item_url=URL, statuses=statuses(), synced=synced_at(item, **options))


def sync_cards() -> dict[str, Card]:
    """Every sync card, for the gallery every card test runs over."""
    refused_longest = details(
        7,
        name=LONG[:255],
        body=LONG * 5,
        source="Microsoft.Vsts",
        sourceId=LONG[:255],
        projectId=PROJECT | {"hostname": LONG[:255], "sourceId": LONG[:255]},
        sync={"status": "Svc_SOURCE_ERROR", "at": WHEN, "code": LONG, "message": LONG * 10},
    )
    return {
        "item synced": _item(synced_item()),
        "item synced waiting": _item(synced_item(source_id=None, status="Svc_PENDING")),
        "item synced unmapped": _item(
            synced_item(status="Svc_MAPPING_NOTFOUND"), source_state="Resolved"
        ),
        "item synced refused longest": _item(refused_longest, source_state=LONG),
        "sync": sync_card([project(), PAUSED], now=LATER),
        "sync started": sync_card([project()], now=LATER, note="Ada started a pull."),
        "sync longest": sync_card(LONGEST_PROJECTS, now=LATER, note=LONG * 5),
        "sync paused notice": sync_paused_card(
            project="Fabrikam", project_id=f"{10:024x}", source="Microsoft.Vsts", reason=LONG
        ),
        "sync paused notice longest": sync_paused_card(
            project=LONG[:255], project_id=f"{10:024x}", source=LONG, reason=LONG * 10
        ),
        "sync new states": sync_states_added_card(
            project="Fabrikam", project_id=f"{10:024x}", source="Jira", states=["In Review"]
        ),
        "sync new states longest": sync_states_added_card(
            project=LONG[:255], project_id=f"{10:024x}", source=LONG, states=[LONG] * 40
        ),
    }
