"""Bodies of the four source kinds, and small helpers the project and mapping tests share."""

from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Channel, FieldValue
from tests.factories import CHANNEL, Factory, Member

CHANNEL_B = "19:channel-b@thread.tacv2"
TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_OF_TEAM_B = "19:channel-of-b@thread.tacv2"
UNKNOWN_ID = "0123456789abcdef01234567"
SECRET_TOKEN = "s3cret-token-do-not-show"
SECRET_PASSWORD = "hunter2-do-not-show"

JIRA_STATES = [
    {"id": "1", "name": "To Do", "category": "New"},
    {"id": "3", "name": "In Progress", "category": "Active"},
    {"id": "10001", "name": "Done", "category": "Done"},
]
ADO_STATES = [
    {"id": "New", "name": "New", "category": "New"},
    {"id": "Active", "name": "Active", "category": "Active"},
    {"id": "Resolved", "name": "Resolved", "category": "Active"},
    {"id": "Closed", "name": "Closed", "category": "Done"},
]
PLANNER_STATES = [
    {"id": "PLSTT-NotStarted", "name": "Not started", "percentComplete": 0, "categoty": ""},
    {"id": "PLSTT-InProgress", "name": "In progress", "percentComplete": 50, "categoty": ""},
    {"id": "PLSTT-Completed", "name": "Completed", "percentComplete": 100, "categoty": ""},
]
# A project's `sync` while it has never synced.
SYNC_OFF = {
    "enabled": False,
    "direction": "both",
    "intervalSeconds": 60,
    "itemTypes": {"Bug": "Bug", "Task": "Task"},
    "query": None,
    "state": "off",
    "lastPullAt": None,
    "lastPushAt": None,
    "pending": 0,
    "lastError": None,
}


def jira(**overrides: Any) -> dict[str, Any]:
    return {
        "displayName": "Sprint board",
        "source": "Jira",
        "sourceId": "SB",
        "hostname": "contoso.atlassian.net",
        "states": JIRA_STATES,
        **overrides,
    }


def azure_devops(**overrides: Any) -> dict[str, Any]:
    return {
        "displayName": "Fabrikam Fiber",
        "source": "Microsoft.Vsts",
        "sourceId": "6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c",
        "hostname": "dev.azure.com/fabrikam",
        "states": ADO_STATES,
        **overrides,
    }


def planner(**overrides: Any) -> dict[str, Any]:
    return {
        "displayName": "Launch plan",
        "source": "Microsoft.Planner",
        "sourceId": "xqQg5FS2LkCp935s-FIFm2QAFkHM",
        **overrides,
    }


async def add_project(client: TestClient, member: Member, body: dict[str, Any]) -> dict[str, Any]:
    """A project configured through the API (201 asserted)."""
    response = await client.post("/api/projects", json=body, headers=member.in_channel())
    assert response.status == 201, await response.text()
    return await response.json()


async def native_project(client: TestClient, member: Member) -> dict[str, Any]:
    listed = await client.get(
        "/api/projects", params={"$filter": "source eq 'Svc.Native'"}, headers=member.in_channel()
    )
    assert listed.status == 200
    (project,) = (await listed.json())["value"]
    return project


async def mappings_of(
    client: TestClient, member: Member, project_id: str, **where: str
) -> list[dict[str, Any]]:
    """The project's mappings, optionally only those of one `type` and `entityType`."""
    clauses = [f"projectId eq '{project_id}'"]
    clauses += [f"{field} eq '{value}'" for field, value in where.items()]
    response = await client.get(
        "/odata/_fieldMappings",
        params={"$filter": " and ".join(clauses), "$top": "1000"},
        headers=member.in_channel(),
    )
    assert response.status == 200, await response.text()
    return (await response.json())["value"]


def pairs(mappings: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    """(entityType, sourceId, fieldName) of each mapping: what maps to what, in short."""
    return {(m["entityType"], m["sourceId"], m["fieldName"]) for m in mappings}


async def field_ids(factory: Factory, field: str, type_label: str) -> dict[str, str]:
    """The ids of Team A's channel values of one field and kind, by name (read from the
    database: priorities and severities have no routes of their own yet)."""
    async with factory.work() as uow:
        rows = await uow.session.execute(
            select(FieldValue.name, FieldValue.id)
            .join(Channel, Channel.id == FieldValue.channel_id)
            .where(
                Channel.teams_id == CHANNEL,
                FieldValue.field == field,
                FieldValue.type == type_label,
            )
        )
        return {row.name: row.id for row in rows}


# An Azure DevOps project as a channel configures it, with a token.
ADO_PROJECT = {
    "displayName": "Web",
    "source": "Microsoft.Vsts",
    "sourceId": "web-project",
    "hostname": "dev.azure.com/contoso",
    "states": ADO_STATES,
    "token": SECRET_TOKEN,
}
