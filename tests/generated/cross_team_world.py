"""The two teams the cross-team tests set against each other, their rows made through the API.

A Side is one team's channel, member and rows: a bug, a task, a status, a priority, a severity, a
Jira project and one of its mappings. A World is Team A's side and Team B's, with Team A's ids
and the strings only Team A's rows hold, which no answer to Team B may carry. `team_rows` takes
a channel's rows from every table, so a probe that changed any of them shows.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient
from sqlalchemy import Table, select

from bot.db.tables import (
    Attachment,
    Base,
    Channel,
    DiscussionMessage,
    EventDefinition,
    EventDelivery,
    FieldMapping,
    FieldValue,
    Item,
    ItemAssignee,
    ItemCounter,
    ItemThread,
    PendingEvent,
    Project,
    Team,
    TeamMember,
)
from bot.sync import links
from bot.sync_records.schemas import SyncState
from bot.teams.outbound import conversation_references
from tests.events.deliveries.factory import delivery as delivery_of
from tests.factories import Factory, Member
from tests.generated.cross_team_matrix import JIRA_STATES, Target
from tests.items.refusals import request_columns

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
# Every name Team A's data carries, so a leak of any of it shows up in a response's text.
ALPHA = "ALPHA"


@dataclass
class Side:
    """One team's channel, its member, and the rows made in it through the API."""

    member: Member
    team: str
    channel: str
    channel_pk: str
    bug: dict[str, Any]
    task: dict[str, Any]
    status: dict[str, Any]
    priority: dict[str, Any]
    severity: dict[str, Any]
    project: dict[str, Any]
    mapping: dict[str, Any]
    priority_id: str
    definition: dict[str, Any]
    attachment: dict[str, Any]
    delivery: dict[str, Any]  # the rule's failed delivery: _id, webhookId
    # Items whose thread the bot has started, through a local connector.
    discussed_bug: dict[str, Any] = field(default_factory=dict)
    discussed_task: dict[str, Any] = field(default_factory=dict)
    synced_project: dict[str, Any] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        return self.member.in_channel(self.team, self.channel)

    def row(self, target: Target) -> dict[str, Any]:
        if target is Target.USER:
            return {"_id": self.member.user.id}
        return {
            Target.BUG: self.bug,
            Target.TASK: self.task,
            Target.STATUS: self.status,
            Target.PRIORITY: self.priority,
            Target.SEVERITY: self.severity,
            Target.PROJECT: self.project,
            Target.SYNCED_PROJECT: self.synced_project,
            Target.MAPPING: self.mapping,
            Target.DEFINITION: self.definition,
            Target.ATTACHMENT: self.attachment,
            Target.DISCUSSED_BUG: self.discussed_bug,
            Target.DISCUSSED_TASK: self.discussed_task,
            Target.DELIVERY: self.delivery,
        }[target]

    def keys(self, target: Target | None) -> tuple[str, ...]:
        """What a path names for the row: its id, or for a file its bug's id then its own."""
        if target is None:
            return ("",)
        if target is Target.ATTACHMENT:
            return (self.bug["_id"], self.attachment["_id"])
        if target is Target.DELIVERY:
            return (self.definition["_id"], self.delivery["_id"])
        return (self.row(target)["_id"],)


@dataclass
class World:
    a: Side
    b: Side
    eve: Member  # Team B's member, in no way part of Team A
    ids_a: list[str]  # every row id of Team A's channel that a path could name
    secrets: set[str]  # strings only Team A's rows hold

    def reference(self, field: str) -> Any:
        """Team A's value for a body field that names a row of the channel."""
        values = {
            "projectId": self.a.bug["projectId"],
            "status": self.a.status["name"],
            "assignedTo": [self.a.member.user.id],
            "fieldId": self.a.priority_id,
        }
        assert field in values, f"REFERENCES names {field!r}: give it Team A's value here"
        return values[field]


async def make(client: TestClient, side_headers: dict[str, str], path: str, **body: Any) -> dict:
    response = await client.post(path, json=body, headers=side_headers)
    assert response.status == 201, await response.text()
    return await response.json()


async def make_side(
    client: TestClient, factory: Factory, member: Member, team: str, channel: str, label: str
) -> Side:
    headers = member.in_channel(team, channel)
    status = await make(
        client, headers, "/odata/status", name=f"{label} status", type="Bug", category="Active"
    )
    bug = await make(
        client,
        headers,
        "/odata/bugs",
        name=f"{label} bug",
        body=f"{label} body",
        status=status["name"],
        assignedTo=[member.user.id],
    )
    task = await make(
        client, headers, "/odata/tasks", name=f"{label} task", assignedTo=[member.user.id]
    )
    # Held by no item, so Team A's own member may delete them.
    priority = await make(client, headers, "/odata/priority", name=f"{label} priority", type="Bug")
    severity = await make(client, headers, "/odata/severity", name=f"{label} severity")
    project = await make(
        client,
        headers,
        "/api/projects",
        displayName=f"{label} project",
        source="Jira",
        sourceId=label,
        hostname=f"{label.lower()}.atlassian.net",
        states=JIRA_STATES,
    )
    mappings = await client.get(
        "/odata/_fieldMappings",
        params={"$filter": f"projectId eq '{project['_id']}'"},
        headers=headers,
    )
    mapping = (await mappings.json())["value"][0]
    definition = await make(
        client,
        headers,
        "/odata/eventDefinitions",
        eventName=f"{label} rule",
        entityType="bug",
        triggerType="ITEM_UPDATED",
        conditions=[
            {"ops": "and", "conditions": [{"field": "name", "ops": "Contains", "value": label}]}
        ],
        actionType="HTTP",
        action={"url": f"https://93.184.215.14/hooks/{label.lower()}"},
    )
    file = aiohttp.FormData()
    file.add_field("file", b"kept", filename=f"{label} notes.txt", content_type="text/plain")
    attached = await client.post(f"/api/files/{bug['_id']}", data=file, headers=headers)
    assert attached.status == 201, await attached.text()
    attachment = await attached.json()
    made = await delivery_of(factory, definition["_id"], failed=True)
    sent = {"_id": made.id, "webhookId": made.webhook_id}
    async with factory.work() as uow:
        channel_pk = await uow.session.scalar(select(Channel.id).where(Channel.teams_id == channel))
        priority_id = await uow.session.scalar(
            select(FieldValue.id).where(
                FieldValue.channel_id == channel_pk,
                FieldValue.field == "priority",
                FieldValue.type == "Bug",
                FieldValue.name == "Low",
            )
        )
    assert channel_pk is not None and priority_id is not None
    side = Side(
        member,
        team,
        channel,
        channel_pk,
        bug,
        task,
        status,
        priority,
        severity,
        project,
        mapping,
        priority_id,
        definition,
        attachment,
        sent,
    )
    side.synced_project = await synced_project(client, factory, headers, label)
    return side


async def synced_project(
    client: TestClient, factory: Factory, headers: dict[str, str], label: str
) -> dict[str, Any]:
    """A second Jira project with its sync switched on in the database (no source is reached:
    a run of its sync only logs that no Jira connector is installed)."""
    project = await make(
        client,
        headers,
        "/api/projects",
        displayName=f"{label} synced project",
        source="Jira",
        sourceId=f"{label}S",
        hostname=f"{label.lower()}-synced.atlassian.net",
        states=JIRA_STATES,
    )
    async with factory.work() as uow:
        held = await uow.row(select(Project).where(Project.id == project["_id"]))
        assert held is not None
        row = links.new_sync(held, uow.clock.now())
        row["enabled"], row["state"] = True, SyncState.IMPORTING.value
        await links.insert_row(uow, row)
    return project


async def discuss(client: TestClient, factory: Factory, side: Side, service_url: str) -> None:
    """The bot installed in the side's channel (its reference, reaching `service_url`) and a
    bug and a task of its discussed, through the API."""
    reference = {
        "serviceUrl": service_url,
        "channelId": "msteams",
        "bot": {"id": "28:probe-bot", "name": "Tracker"},
        "conversation": {"id": side.channel, "isGroup": True, "conversationType": "channel"},
    }
    async with factory.work() as uow:
        await conversation_references.save(uow, reference=reference, channel_ref=side.channel_pk)
    for of in ("bug", "task"):
        item = await make(client, side.headers, f"/odata/{of}s", name=f"Discussed {of}")
        started = await client.post(f"/api/{of}s/{item['_id']}/messages", headers=side.headers)
        assert started.status == 200, await started.text()
        setattr(side, f"discussed_{of}", item)


async def team_rows(factory: Factory, channel_pk: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the channel (and its team) in every table that holds them, in key order."""
    snapshot: dict[str, list[tuple[Any, ...]]] = {}
    async with factory.work() as uow:
        session = uow.session
        team_pk = await session.scalar(select(Channel.team_id).where(Channel.id == channel_pk))

        async def rows(model: type[Base], where: Callable[[Table], Any]) -> None:
            table = Base.metadata.tables[model.__tablename__]
            keys = list(table.primary_key.columns)
            result = await session.execute(
                select(*request_columns(table)).where(where(table)).order_by(*keys)
            )
            snapshot[table.name] = [tuple(row) for row in result]

        tables = (
            Item,
            FieldValue,
            PendingEvent,
            Project,
            ItemCounter,
            FieldMapping,
            EventDefinition,
            EventDelivery,
            Attachment,
            ItemThread,
        )
        for model in tables:
            await rows(model, lambda table: table.c.channel_id == channel_pk)
        items = select(Item.id).where(Item.channel_id == channel_pk)
        await rows(ItemAssignee, lambda table: table.c.item_id.in_(items))
        await rows(DiscussionMessage, lambda table: table.c.item_id.in_(items))
        await rows(Channel, lambda table: table.c.id == channel_pk)
        await rows(Team, lambda table: table.c.id == team_pk)
        await rows(TeamMember, lambda table: table.c.team_id == team_pk)
    return snapshot
