"""Cross-team isolation, generated from the route table: every route, present and future, is probed.

Team A has a channel with a bug, a task and a custom status; Eve belongs to Team B alone. For each
channel route Eve tries Team A's context (403), Team A's ids under her own context (404, or no
Team A row in what she gets), bulk edits mixing both teams' ids, list filters naming Team A, and
body fields naming Team A's rows; Team A's rows must come out exactly as they went in. The same
requests made by Team A's own member then succeed, so the refusals came from the channel check and
not from a malformed probe. A new route without an entry in MATRIX fails here by name.
"""

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pydantic import BaseModel
from sqlalchemy import Table, select

from bot.app import ROUTE_TABLES
from bot.clock import FrozenClock
from bot.db.tables import (
    Base,
    Channel,
    FieldMapping,
    FieldValue,
    Item,
    ItemAssignee,
    ItemCounter,
    PendingEvent,
    Project,
    Team,
    TeamMember,
)
from bot.directory.queries import USERS
from bot.fields.queries import PRIORITIES, SEVERITIES, STATUSES
from bot.fields.schemas import LevelPatch, PriorityIn, SeverityIn, StatusIn, StatusPatch
from bot.items.queries import entity_set
from bot.items.schemas import BugCreate, BugPatch, BulkEdit, TaskCreate, TaskPatch
from bot.mappings.queries import MAPPINGS
from bot.mappings.schemas import MappingIn, MappingPatch
from bot.odata.model import EntitySet
from bot.projects.queries import PROJECTS
from bot.projects.schemas import ProjectIn, ProjectPatch
from bot.schemas import ItemKind
from bot.uow import ChannelScope
from bot.web.routing import Access, Endpoint
from tests.factories import CHANNEL, TEAM, Factory, Member

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
# Every name Team A's data carries, so a leak of any of it shows up in a response's text.
ALPHA = "ALPHA"
PATH_PARAMETER = re.compile(r"\{(\w+)(?::[^}]*)?\}")

ENDPOINTS: list[Endpoint] = [endpoint for table in ROUTE_TABLES for endpoint in table.endpoints]


def route_of(endpoint: Endpoint) -> str:
    return f"{endpoint.method} {endpoint.path}"


class Kind(StrEnum):
    """How a channel route is probed."""

    READ = "read"  # a GET about the caller's channel itself, no parameters
    LIST = "list"  # an OData collection of the caller's channel: also probed with $filter
    CREATE = "create"  # a POST that adds a row to the caller's channel
    KEYED = "keyed"  # path parameters name one row of the caller's channel
    BULK = "bulk"  # `ids` in the body, one result per id


class Target(StrEnum):
    """Which of a team's rows a route works on (its own member's request must succeed on it)."""

    BUG = "bug"
    TASK = "task"
    STATUS = "status"
    PRIORITY = "priority"
    SEVERITY = "severity"
    USER = "user"  # a member of the team
    PROJECT = "project"  # an external (Jira) project
    MAPPING = "mapping"  # one of that project's mappings


@dataclass(frozen=True)
class Probe:
    kind: Kind
    target: Target | None = None
    entity: EntitySet | None = None  # LIST: what `$filter` may name


# Lists whose entity set depends on the caller's channel are described for a stand-in channel:
# the probes only read which properties and collections a `$filter` may name.
_SOME_CHANNEL = ChannelScope(
    "t" * 24, "19:t@thread.tacv2", "c" * 24, "19:c@thread.tacv2", None, None
)
BUGS, TASKS = (entity_set(kind, _SOME_CHANNEL) for kind in (ItemKind.BUG, ItemKind.TASK))

# Every CHANNEL route, by "METHOD path". A new route must be added here (the tests say so).
MATRIX: dict[str, Probe] = {
    "GET /api/context": Probe(Kind.READ),
    "GET /api/users": Probe(Kind.LIST, Target.USER, USERS),
    "GET /api/bugs": Probe(Kind.LIST, Target.BUG, BUGS),
    "GET /odata/bugs": Probe(Kind.LIST, Target.BUG, BUGS),
    "POST /odata/bugs": Probe(Kind.CREATE, Target.BUG),
    "GET /api/bugs/{id}/details": Probe(Kind.KEYED, Target.BUG),
    "PATCH /odata/bugs({key})": Probe(Kind.KEYED, Target.BUG),
    "DELETE /odata/bugs({key})": Probe(Kind.KEYED, Target.BUG),
    "POST /api/bulk/bug": Probe(Kind.BULK, Target.BUG),
    "GET /api/tasks": Probe(Kind.LIST, Target.TASK, TASKS),
    "GET /odata/tasks": Probe(Kind.LIST, Target.TASK, TASKS),
    "POST /odata/tasks": Probe(Kind.CREATE, Target.TASK),
    "GET /api/tasks/{id}/details": Probe(Kind.KEYED, Target.TASK),
    "PATCH /odata/tasks({key})": Probe(Kind.KEYED, Target.TASK),
    "DELETE /odata/tasks({key})": Probe(Kind.KEYED, Target.TASK),
    "POST /api/bulk/task": Probe(Kind.BULK, Target.TASK),
    "GET /odata/status": Probe(Kind.LIST, Target.STATUS, STATUSES),
    "POST /odata/status": Probe(Kind.CREATE, Target.STATUS),
    "PATCH /odata/status({key})": Probe(Kind.KEYED, Target.STATUS),
    "DELETE /odata/status({key})": Probe(Kind.KEYED, Target.STATUS),
    "GET /api/priority": Probe(Kind.LIST, Target.PRIORITY, PRIORITIES),
    "POST /odata/priority": Probe(Kind.CREATE, Target.PRIORITY),
    "PATCH /odata/priority({key})": Probe(Kind.KEYED, Target.PRIORITY),
    "DELETE /odata/priority({key})": Probe(Kind.KEYED, Target.PRIORITY),
    "GET /api/severity": Probe(Kind.LIST, Target.SEVERITY, SEVERITIES),
    "POST /odata/severity": Probe(Kind.CREATE, Target.SEVERITY),
    "PATCH /odata/severity({key})": Probe(Kind.KEYED, Target.SEVERITY),
    "DELETE /odata/severity({key})": Probe(Kind.KEYED, Target.SEVERITY),
    "GET /api/projects": Probe(Kind.LIST, Target.PROJECT, PROJECTS),
    "POST /api/projects": Probe(Kind.CREATE, Target.PROJECT),
    "GET /api/projects/{id}": Probe(Kind.KEYED, Target.PROJECT),
    "PATCH /api/projects/{id}": Probe(Kind.KEYED, Target.PROJECT),
    "DELETE /api/projects/{id}": Probe(Kind.KEYED, Target.PROJECT),
    "GET /api/fields/bug/status/{project}": Probe(Kind.KEYED, Target.PROJECT),
    "GET /api/fields/task/status/{project}": Probe(Kind.KEYED, Target.PROJECT),
    "GET /odata/_fieldMappings": Probe(Kind.LIST, Target.MAPPING, MAPPINGS),
    "POST /odata/_fieldMappings": Probe(Kind.CREATE, Target.MAPPING),
    "PATCH /odata/_fieldMappings({key})": Probe(Kind.KEYED, Target.MAPPING),
    "DELETE /odata/_fieldMappings({key})": Probe(Kind.KEYED, Target.MAPPING),
}

# Stand-ins in BODIES for rows of the side a probe acts as (filled by `known_good(…, side)`).
OWN_PROJECT = "<own project>"
OWN_PRIORITY = "<own priority>"
JIRA_STATES = [
    {"id": "1", "name": "To Do", "category": "New"},
    {"id": "3", "name": "Done", "category": "Done"},
]

# A body each model accepts and that changes something, so a request that got through would show.
# The `ids` of a bulk edit are replaced by each probe's own.
BODIES: dict[type[BaseModel], dict[str, Any]] = {
    BugCreate: {"name": "Probe bug", "priority": "Low", "severity": "Critical"},
    TaskCreate: {"name": "Probe task", "priority": "Low"},
    BugPatch: {"name": "Probe renamed", "priority": "Low", "severity": "Critical"},
    TaskPatch: {"name": "Probe renamed", "priority": "Low"},
    BulkEdit: {"ids": ["0" * 24], "priority": "Low", "dueDate": "2027-01-01"},
    StatusIn: {"name": "Probe status", "type": "Bug", "category": "Active"},
    StatusPatch: {"color": "#123456", "description": "probed"},
    PriorityIn: {"name": "Probe priority", "type": "Bug"},
    SeverityIn: {"name": "Probe severity"},
    LevelPatch: {"color": "#123456", "description": "probed"},
    ProjectIn: {
        "displayName": "Probe project",
        "source": "Jira",
        "sourceId": "PROBE",
        "hostname": "probe.atlassian.net",
        "states": JIRA_STATES,
        "token": "probe-token",
    },
    ProjectPatch: {"displayName": "Probe renamed", "color": "#123456"},
    # Priorities map free source values, so this one is never a duplicate of a default mapping.
    MappingIn: {
        "fieldId": OWN_PRIORITY,
        "projectId": OWN_PROJECT,
        "sourceId": "Probe",
        "type": "priority",
        "entityType": "Bug",
    },
    MappingPatch: {"sourceName": "Probed", "enable": False},
}
# Body fields that name another row of the channel: naming Team A's row from Team B is a 400.
REFERENCES: dict[type[BaseModel], tuple[str, ...]] = {
    BugCreate: ("projectId", "status", "assignedTo"),
    TaskCreate: ("projectId", "status", "assignedTo"),
    BugPatch: ("projectId", "status", "assignedTo"),
    TaskPatch: ("projectId", "status", "assignedTo"),
    BulkEdit: ("status", "assignedTo"),
    StatusIn: (),
    StatusPatch: (),
    PriorityIn: (),
    SeverityIn: (),
    LevelPatch: (),
    ProjectIn: (),
    ProjectPatch: (),
    MappingIn: ("fieldId", "projectId"),
    MappingPatch: ("fieldId",),
}
# Fields a client may send but the server owns (api.md §1): ignored, whatever they name.
SERVER_OWNED = ("_id", "teamId", "channelId", "internalId", "createdBy")


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
            Target.MAPPING: self.mapping,
        }[target]


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


def fill(path: str, value: str) -> str:
    return PATH_PARAMETER.sub(lambda _match: value, path)


def known_good(endpoint: Endpoint, side: Side | None = None) -> dict[str, Any] | None:
    """A copy of the route's body the probe may change; with `side`, naming that side's rows."""
    if endpoint.body is None:
        return None
    assert endpoint.body in BODIES, missing_body(endpoint)
    body: dict[str, Any] = json.loads(json.dumps(BODIES[endpoint.body]))
    if side is not None:
        own = {OWN_PROJECT: side.project["_id"], OWN_PRIORITY: side.priority_id}
        body = {
            field: own.get(value, value) if isinstance(value, str) else value
            for field, value in body.items()
        }
    return body


def missing_body(endpoint: Endpoint) -> str:
    name = endpoint.body.__name__ if endpoint.body else "?"
    return (
        f"{route_of(endpoint)} takes a {name} body, which has no entry in BODIES (and REFERENCES) "
        "of tests/generated/test_cross_team.py: add a minimal valid body so the route is probed"
    )


def probe_of(endpoint: Endpoint) -> Probe:
    probe = MATRIX.get(route_of(endpoint))
    if probe is None:
        pytest.fail(
            f"{route_of(endpoint)} is a CHANNEL route without an entry in MATRIX of "
            "tests/generated/test_cross_team.py: add one (its Kind, Target and, for a list, "
            "its EntitySet) so Team B is probed against it",
            pytrace=False,
        )
    return probe


async def send(
    client: TestClient,
    method: str,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any] | None = None,
) -> tuple[int, Any, str]:
    """Status, JSON body (None when empty) and raw text of one request."""
    response = await client.request(method, url, headers=headers, json=body)
    text = await response.text()
    return response.status, (json.loads(text) if text else None), text


def assert_no_leak(text: str, world: World, *, sent: str, what: str) -> None:
    """None of Team A's strings in `text`, except those the request itself carried."""
    leaked = sorted(secret for secret in world.secrets if secret in text and secret not in sent)
    assert not leaked, f"{what}: Team A's {leaked} in the response {text[:500]}"


def assert_error(status: int, payload: Any, expected: int, what: str) -> None:
    assert status == expected, f"{what}: {status} {payload}"
    assert isinstance(payload, dict) and isinstance(payload.get("error"), str), f"{what}: {payload}"


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
    return Side(
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
    )


@pytest.fixture
async def world(client: TestClient, factory: Factory, clock: FrozenClock) -> World:
    ada = await factory.member(f"Ada {ALPHA}")
    await factory.team(TEAM_B, name="Team B", group_id="b0b0b0b0-0000-0000-0000-000000000002")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="Team B channel")
    eve = await factory.member("Eve", team_id=TEAM_B)
    a = await make_side(client, factory, ada, TEAM, CHANNEL, ALPHA)
    b = await make_side(client, factory, eve, TEAM_B, CHANNEL_B, "BRAVO")
    async with factory.work() as uow:
        session = uow.session
        team_pk = await session.scalar(select(Channel.team_id).where(Channel.id == a.channel_pk))
        statuses = list(
            await session.scalars(
                select(FieldValue.id).where(FieldValue.channel_id == a.channel_pk)
            )
        )
        projects = list(
            await session.scalars(select(Project.id).where(Project.channel_id == a.channel_pk))
        )
    assert team_pk is not None
    ids_a = [
        a.bug["_id"],
        a.task["_id"],
        a.status["_id"],
        a.priority["_id"],
        a.severity["_id"],
        statuses[0],
        projects[0],
        ada.user.id,
        statuses[0],
        projects[0],
        a.project["_id"],
        a.mapping["_id"],
    ]
    secrets = {ALPHA, TEAM, CHANNEL, team_pk, a.channel_pk, *ids_a, *statuses, *projects}
    # Whatever a probe could change would then show in updated_at too.
    clock.advance(timedelta(minutes=5))
    return World(a=a, b=b, eve=eve, ids_a=ids_a, secrets=secrets)


async def team_rows(factory: Factory, channel_pk: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the channel (and its team) in every table that holds them, in key order."""
    snapshot: dict[str, list[tuple[Any, ...]]] = {}
    async with factory.work() as uow:
        session = uow.session
        team_pk = await session.scalar(select(Channel.team_id).where(Channel.id == channel_pk))

        async def rows(model: type[Base], where: Callable[[Table], Any]) -> None:
            table = Base.metadata.tables[model.__tablename__]
            keys = list(table.primary_key.columns)
            result = await session.execute(select(table).where(where(table)).order_by(*keys))
            snapshot[table.name] = [tuple(row) for row in result]

        for model in (Item, FieldValue, PendingEvent, Project, ItemCounter, FieldMapping):
            await rows(model, lambda table: table.c.channel_id == channel_pk)
        items = select(Item.id).where(Item.channel_id == channel_pk)
        await rows(ItemAssignee, lambda table: table.c.item_id.in_(items))
        await rows(Channel, lambda table: table.c.id == channel_pk)
        await rows(Team, lambda table: table.c.id == team_pk)
        await rows(TeamMember, lambda table: table.c.team_id == team_pk)
    return snapshot


def channel_endpoints() -> Iterator[Any]:
    for endpoint in ENDPOINTS:
        if endpoint.access is Access.CHANNEL:
            yield pytest.param(endpoint, id=route_of(endpoint))


# --- the matrix covers the route table -------------------------------------------------------


def test_every_channel_route_has_a_matrix_entry() -> None:
    routes = {route_of(e) for e in ENDPOINTS if e.access is Access.CHANNEL}
    missing = sorted(routes - set(MATRIX))
    assert not missing, (
        f"CHANNEL routes without an entry in MATRIX of tests/generated/test_cross_team.py: "
        f"{missing}; add each with its Kind and Target so Team B is probed against it"
    )
    stale = sorted(set(MATRIX) - routes)
    assert not stale, f"MATRIX entries for routes that no longer exist: {stale}; remove them"


def test_every_body_model_has_a_known_good_body_and_its_references() -> None:
    for endpoint in ENDPOINTS:
        if endpoint.body is not None and endpoint.access is not Access.PUBLIC:
            assert endpoint.body in BODIES and endpoint.body in REFERENCES, missing_body(endpoint)
    for model, body in BODIES.items():
        model.model_validate(body)  # known-good means valid as written


def test_matrix_kinds_fit_their_routes() -> None:
    """A KEYED route has path parameters and the others none; LIST names its entity set."""
    for endpoint in ENDPOINTS:
        probe = MATRIX.get(route_of(endpoint))
        if probe is None:
            continue
        keyed = bool(PATH_PARAMETER.search(endpoint.path))
        assert keyed == (probe.kind is Kind.KEYED), route_of(endpoint)
        assert (probe.entity is not None) == (probe.kind is Kind.LIST), route_of(endpoint)
        assert (probe.kind is Kind.BULK) == (endpoint.body is BulkEdit), route_of(endpoint)
        if probe.kind is not Kind.READ:
            assert probe.target is not None, route_of(endpoint)


# --- every route needs credentials -----------------------------------------------------------


async def test_every_signed_in_route_answers_401_without_valid_credentials(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await make(client, ada.in_channel(), "/odata/bugs", name="Kept")
    before = await team_rows(factory, await _channel_pk(factory, CHANNEL))
    context = {"x-svc-teamid": TEAM, "x-svc-channelId": CHANNEL, "x-svc-entityId": "tab"}
    attempts = {
        "no credentials": {},
        "no credentials, no context": None,
        "an unknown Bearer token": {"Authorization": "Bearer " + "0" * 43},
        "an unknown cookie": {"Cookie": "graphNodeCookie=forged"},
        "an empty Bearer token": {"Authorization": "Bearer "},
    }
    failures = []
    checked = 0
    for endpoint in ENDPOINTS:
        if endpoint.access is Access.PUBLIC:
            continue
        body = known_good(endpoint)
        if body is not None and "ids" in body:
            body["ids"] = [bug["_id"]]
        url = fill(endpoint.path, bug["_id"])
        for label, credentials in attempts.items():
            headers = {} if credentials is None else {**context, **credentials}
            status, payload, _ = await send(client, endpoint.method, url, headers, body)
            checked += 1
            if status != 401 or not isinstance(payload, dict) or "error" not in payload:
                failures.append(f"{route_of(endpoint)} with {label}: {status} {payload}")
    assert not failures, "\n".join(failures)
    assert checked >= 5 * len(MATRIX)
    assert await team_rows(factory, await _channel_pk(factory, CHANNEL)) == before


async def _channel_pk(factory: Factory, channel: str) -> str:
    async with factory.work() as uow:
        pk = await uow.session.scalar(select(Channel.id).where(Channel.teams_id == channel))
    assert pk is not None
    return pk


# --- Team B against Team A, route by route ---------------------------------------------------


@pytest.mark.parametrize("endpoint", list(channel_endpoints()))
async def test_team_b_cannot_reach_team_a(
    client: TestClient, factory: Factory, world: World, endpoint: Endpoint
) -> None:
    probe = probe_of(endpoint)
    route = route_of(endpoint)
    before = await team_rows(factory, world.a.channel_pk)

    await _foreign_context(client, world, endpoint, probe)
    if probe.kind is Kind.KEYED:
        await _foreign_ids_in_path(client, world, endpoint)
    elif probe.kind is Kind.LIST:
        await _own_list(client, world, endpoint, probe)
        await _filters_naming_team_a(client, world, endpoint, probe, world.b, empty=True)
    elif probe.kind is Kind.READ:
        status, payload, text = await send(client, endpoint.method, endpoint.path, world.b.headers)
        assert status == endpoint.status, f"{route}: {status} {payload}"
        assert_no_leak(text, world, sent="", what=route)
    elif probe.kind is Kind.CREATE:
        await _create_with_server_owned_fields(client, factory, world, endpoint)
    elif probe.kind is Kind.BULK:
        await _mixed_bulk(client, world, endpoint, probe)
    await _references_to_team_a(client, world, endpoint, probe)

    after = await team_rows(factory, world.a.channel_pk)
    for table in before:
        assert after[table] == before[table], f"{route} changed Team A's {table}"

    await _team_a_itself_succeeds(client, world, endpoint, probe)


async def _foreign_context(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe
) -> None:
    """(a) Team A's context headers, or a mix of both teams': 403, whatever the request."""
    eve, route = world.eve, route_of(endpoint)
    target = world.a.row(probe.target)["_id"] if probe.target else world.a.bug["_id"]
    body = known_good(endpoint)
    if body is not None and "ids" in body:
        body["ids"] = [target]
    url = fill(endpoint.path, target)
    contexts = {
        "Team A's context": eve.in_channel(TEAM, CHANNEL),
        "Team B with Team A's channel": eve.in_channel(TEAM_B, CHANNEL),
        "Team A with Team B's channel": eve.in_channel(TEAM, CHANNEL_B),
        "Team A's context, headers upper-cased": {
            **eve.headers,
            "X-SVC-TEAMID": TEAM,
            "X-SVC-CHANNELID": CHANNEL,
        },
    }
    for label, headers in contexts.items():
        status, payload, text = await send(client, endpoint.method, url, headers, body)
        assert_error(status, payload, 403, f"{route} with {label}")
        assert_no_leak(text, world, sent=url + json.dumps(body) + str(headers), what=route)


async def _foreign_ids_in_path(client: TestClient, world: World, endpoint: Endpoint) -> None:
    """(b) Team B's own context, every Team A id in every path parameter, both key forms: 404."""
    route = route_of(endpoint)
    for value in world.ids_a:
        for form in (value, f"'{value}'"):
            url = fill(endpoint.path, form)
            body = known_good(endpoint)
            status, payload, text = await send(client, endpoint.method, url, world.b.headers, body)
            assert_error(status, payload, 404, f"{route} as {url}")
            assert_no_leak(text, world, sent=url, what=f"{route} as {url}")


async def _own_list(client: TestClient, world: World, endpoint: Endpoint, probe: Probe) -> None:
    """(b) Team B's list shows Team B's rows, none of Team A's."""
    route = route_of(endpoint)
    url = f"{endpoint.path}?$top=1000"
    status, payload, text = await send(client, "GET", url, world.b.headers)
    assert status == 200, f"{route}: {status} {payload}"
    ids = {row["_id"] for row in payload["value"]}
    assert probe.target is not None
    assert world.b.row(probe.target)["_id"] in ids, f"{route}: Team B's own row is missing"
    assert not ids & set(world.ids_a), f"{route}: Team A's rows listed"
    assert_no_leak(text, world, sent="", what=route)


def _filters(world: World, probe: Probe) -> Iterator[tuple[str, bool]]:
    """`$filter`s naming Team A's values, each with whether the entity set has its property."""
    assert probe.entity is not None
    properties = probe.entity.properties
    listed = ", ".join(f"'{value}'" for value in world.ids_a)
    yield f"teamId eq '{TEAM}'", "teamId" in properties
    yield f"channelId eq '{CHANNEL}'", "channelId" in properties
    yield f"_id in ({listed})", True
    assert probe.target is not None
    yield f"_id eq '{world.a.row(probe.target)['_id']}'", True
    yield f"tolower(channelId) eq '{CHANNEL.lower()}'", "channelId" in properties
    if "assignedTo" in probe.entity.collections:
        user = world.a.member.user
        yield f"assignedTo/any(u: u/_id eq '{user.id}')", True
        yield f"assignedTo/any(u: u/email eq '{user.email}')", True


async def _filters_naming_team_a(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe, side: Side, *, empty: bool
) -> None:
    """(d) Filters on Team A's values: empty for Team B (400 when the list has no such
    property); the same filters find Team A's rows for Team A's own member (`empty=False`)."""
    route = route_of(endpoint)
    for text, known in _filters(world, probe):
        response = await client.get(
            endpoint.path, params={"$filter": text, "$count": "true"}, headers=side.headers
        )
        payload = await response.json()
        what = f"{route} $filter={text}"
        if not known:
            assert_error(response.status, payload, 400, what)
            continue
        assert response.status == 200, f"{what}: {response.status} {payload}"
        if empty:
            assert payload["value"] == [] and payload["@odata.count"] == 0, f"{what}: {payload}"
        else:
            assert payload["value"], f"{what}: Team A's own member found nothing"


async def _create_with_server_owned_fields(
    client: TestClient, factory: Factory, world: World, endpoint: Endpoint
) -> None:
    """(b) A create in Team B's context naming Team A in server-owned fields makes a Team B row."""
    route = route_of(endpoint)
    body = known_good(endpoint, world.b)
    assert body is not None, route
    owned = {
        "_id": world.a.bug["_id"],
        "teamId": TEAM,
        "channelId": CHANNEL,
        "internalId": world.a.bug["internalId"],
        "createdBy": {"email": world.a.member.user.email},
    }
    assert set(owned) == set(SERVER_OWNED)
    status, payload, text = await send(
        client, endpoint.method, endpoint.path, world.b.headers, {**body, **owned}
    )
    assert status == endpoint.status, f"{route}: {status} {payload}"
    # Nothing Team A's was kept: the request's own Team A values do not come back either.
    assert_no_leak(text, world, sent="", what=route)
    async with factory.work() as uow:
        homes = [
            await uow.session.scalar(select(model.channel_id).where(model.id == payload["_id"]))
            for model in (Item, FieldValue, Project, FieldMapping)
        ]
    assert [home for home in homes if home] == [world.b.channel_pk], f"{route}: made in {homes}"


async def _mixed_bulk(client: TestClient, world: World, endpoint: Endpoint, probe: Probe) -> None:
    """(c) Team A's ids among Team B's: Svc_NOTFOUND for Team A's, success for Team B's own."""
    route = route_of(endpoint)
    assert probe.target is not None
    own = world.b.row(probe.target)["_id"]
    ids = [world.a.bug["_id"], own, world.a.task["_id"], world.b.status["_id"], *world.ids_a, own]
    body = {**(known_good(endpoint) or {}), "ids": ids}
    status, payload, _ = await send(client, endpoint.method, endpoint.path, world.b.headers, body)
    assert status == 200, f"{route}: {status} {payload}"
    assert [result["_id"] for result in payload] == ids
    for result in payload:
        if result["_id"] == own:
            assert result["status"] == "success", f"{route}: {result}"
        else:
            assert result == {
                "_id": result["_id"],
                "name": None,
                "status": "error",
                "error": "Svc_NOTFOUND",
            }, f"{route}: {result}"


async def _references_to_team_a(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe
) -> None:
    """A body field naming Team A's project, status or member, sent in Team B's context: 400."""
    if endpoint.body is None:
        return
    assert endpoint.body in REFERENCES, missing_body(endpoint)
    route = route_of(endpoint)
    own = world.b.row(probe.target)["_id"] if probe.target else ""
    url = fill(endpoint.path, own)
    for field in REFERENCES[endpoint.body]:
        body = known_good(endpoint, world.b)
        assert body is not None
        if "ids" in body:
            body["ids"] = [own]
        body[field] = world.reference(field)
        status, payload, text = await send(client, endpoint.method, url, world.b.headers, body)
        assert_error(status, payload, 400, f"{route} with Team A's {field}")
        assert_no_leak(text, world, sent=json.dumps(body), what=f"{route} with Team A's {field}")


async def _team_a_itself_succeeds(
    client: TestClient, world: World, endpoint: Endpoint, probe: Probe
) -> None:
    """The probes' requests, made by Team A's member in Team A, do what the route says."""
    route = route_of(endpoint)
    target = world.a.row(probe.target)["_id"] if probe.target else ""
    url = fill(endpoint.path, target)
    body = known_good(endpoint, world.a)
    if body is not None and "ids" in body:
        body["ids"] = [target]
    status, payload, _ = await send(client, endpoint.method, url, world.a.headers, body)
    assert status == endpoint.status, f"{route} for Team A itself: {status} {payload}"
    if probe.kind is Kind.LIST:
        assert target in {row["_id"] for row in payload["value"]}, route
        await _filters_naming_team_a(client, world, endpoint, probe, world.a, empty=False)
    if probe.kind is Kind.BULK:
        assert [result["status"] for result in payload] == ["success"], f"{route}: {payload}"
