"""How the cross-team tests probe each CHANNEL route, kept in one table so a new route is one entry.

MATRIX gives every route its Kind (how it is probed), its Target (which of a team's rows it works
on) and, for a list, the entity set a `$filter` may name. BODIES holds a known-good body per
request model and REFERENCES the body fields that name another row of the channel. The helpers
are pure: they look routes up and fill in paths and bodies.
"""

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest
from pydantic import BaseModel

from bot.app import ROUTE_TABLES
from bot.directory.queries import USERS
from bot.directory.schemas import ChannelSettingsPatch, UserPatch
from bot.discussions.schemas import CommentIn
from bot.events.definitions.queries import DEFINITIONS
from bot.events.schemas import DefinitionIn, DefinitionPatch, ExplainIn
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
from bot.web.routing import Endpoint

if TYPE_CHECKING:  # the world imports this module; known_good only names its type
    from tests.generated.cross_team_world import Side

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
    SYNCED_PROJECT = "synced project"  # an external (Jira) project whose sync is on
    MAPPING = "mapping"  # one of that project's mappings
    DEFINITION = "definition"  # an event rule
    ATTACHMENT = "attachment"  # a file of the bug: its path names the bug, then the file
    DISCUSSED_BUG = "discussed bug"  # a bug whose thread the bot has started
    DISCUSSED_TASK = "discussed task"
    DELIVERY = "delivery"  # a failed delivery of the rule: its path names the rule, then it


@dataclass(frozen=True)
class Probe:
    kind: Kind
    target: Target | None = None
    entity: EntitySet | None = None  # LIST: what `$filter` may name
    # Its work is done at the target's source, which this world does not run: Team A's own
    # request is answered the source's refusal (400 or 502), never a 404.
    at_source: bool = False


# The probes only read which properties and collections a `$filter` may name.
BUGS, TASKS = (entity_set(kind) for kind in (ItemKind.BUG, ItemKind.TASK))

# Every CHANNEL route, by "METHOD path". A new route must be added here (the tests say so).
MATRIX: dict[str, Probe] = {
    "GET /api/context": Probe(Kind.READ),
    "GET /api/channel/settings": Probe(Kind.READ),
    "PATCH /api/channel/settings": Probe(Kind.READ),
    "GET /api/users": Probe(Kind.LIST, Target.USER, USERS),
    "PATCH /api/users/{id}": Probe(Kind.KEYED, Target.USER),
    "GET /api/bugs": Probe(Kind.LIST, Target.BUG, BUGS),
    "GET /odata/bugs": Probe(Kind.LIST, Target.BUG, BUGS),
    "POST /odata/bugs": Probe(Kind.CREATE, Target.BUG),
    "GET /api/bugs/{id}/details": Probe(Kind.KEYED, Target.BUG),
    "GET /api/bugs/{id}/history": Probe(Kind.KEYED, Target.BUG),
    "PATCH /odata/bugs({key})": Probe(Kind.KEYED, Target.BUG),
    "DELETE /odata/bugs({key})": Probe(Kind.KEYED, Target.BUG),
    "POST /api/bulk/bug": Probe(Kind.BULK, Target.BUG),
    "GET /api/tasks": Probe(Kind.LIST, Target.TASK, TASKS),
    "GET /odata/tasks": Probe(Kind.LIST, Target.TASK, TASKS),
    "POST /odata/tasks": Probe(Kind.CREATE, Target.TASK),
    "GET /api/tasks/{id}/details": Probe(Kind.KEYED, Target.TASK),
    "GET /api/tasks/{id}/history": Probe(Kind.KEYED, Target.TASK),
    "GET /api/changes/stream": Probe(Kind.READ),
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
    "POST /api/projects/{id}/refresh": Probe(Kind.KEYED, Target.PROJECT, at_source=True),
    "GET /api/projects/{id}/sync": Probe(Kind.KEYED, Target.PROJECT),
    "POST /api/projects/{id}/sync": Probe(Kind.KEYED, Target.SYNCED_PROJECT),
    "POST /api/projects/{id}/sync/hook-secret": Probe(Kind.KEYED, Target.SYNCED_PROJECT),
    "GET /api/fields/bug/status/{project}": Probe(Kind.KEYED, Target.PROJECT),
    "GET /api/fields/task/status/{project}": Probe(Kind.KEYED, Target.PROJECT),
    "GET /odata/_fieldMappings": Probe(Kind.LIST, Target.MAPPING, MAPPINGS),
    "POST /odata/_fieldMappings": Probe(Kind.CREATE, Target.MAPPING),
    "PATCH /odata/_fieldMappings({key})": Probe(Kind.KEYED, Target.MAPPING),
    "DELETE /odata/_fieldMappings({key})": Probe(Kind.KEYED, Target.MAPPING),
    "GET /api/events": Probe(Kind.LIST, Target.DEFINITION, DEFINITIONS),
    "GET /odata/eventDefinitions": Probe(Kind.LIST, Target.DEFINITION, DEFINITIONS),
    "GET /api/events/triggers": Probe(Kind.READ),
    "GET /odata/eventDefinitions({key})": Probe(Kind.KEYED, Target.DEFINITION),
    "POST /odata/eventDefinitions": Probe(Kind.CREATE, Target.DEFINITION),
    "PATCH /odata/eventDefinitions({key})": Probe(Kind.KEYED, Target.DEFINITION),
    "DELETE /odata/eventDefinitions({key})": Probe(Kind.KEYED, Target.DEFINITION),
    "POST /api/events/{id}/secret": Probe(Kind.KEYED, Target.DEFINITION),
    "POST /api/events/{id}/test": Probe(Kind.KEYED, Target.DEFINITION),
    "GET /api/events/{id}/deliveries": Probe(Kind.KEYED, Target.DEFINITION),
    "POST /api/events/{id}/deliveries/{deliveryId}/resend": Probe(Kind.KEYED, Target.DELIVERY),
    "POST /api/files/{item}": Probe(Kind.KEYED, Target.BUG),
    "GET /api/files/{item}": Probe(Kind.KEYED, Target.BUG),
    "GET /api/files/{item}/{attachment}": Probe(Kind.KEYED, Target.ATTACHMENT),
    "DELETE /api/files/{item}/{attachment}": Probe(Kind.KEYED, Target.ATTACHMENT),
    "POST /api/bugs/{id}/messages": Probe(Kind.KEYED, Target.BUG),
    "GET /api/bugs/{id}/messages": Probe(Kind.KEYED, Target.DISCUSSED_BUG),
    "GET /api/bugs/{id}/comments": Probe(Kind.KEYED, Target.DISCUSSED_BUG),
    "POST /api/bugs/{id}/comments": Probe(Kind.KEYED, Target.DISCUSSED_BUG),
    "POST /api/tasks/{id}/messages": Probe(Kind.KEYED, Target.TASK),
    "GET /api/tasks/{id}/messages": Probe(Kind.KEYED, Target.DISCUSSED_TASK),
    "GET /api/tasks/{id}/comments": Probe(Kind.KEYED, Target.DISCUSSED_TASK),
    "POST /api/tasks/{id}/comments": Probe(Kind.KEYED, Target.DISCUSSED_TASK),
}

# Stand-ins in BODIES for rows of the side a probe acts as (filled by `known_good(…, side)`).
OWN_PROJECT = "<own project>"
OWN_PRIORITY = "<own priority>"
OWN_BUG = "<own bug>"
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
    UserPatch: {
        "mapping": [
            {
                "source": "Jira",
                "sourceId": "probe-account",
                "projectHostname": "probe.atlassian.net",
            }
        ]
    },
    # Priorities map free source values, so this one is never a duplicate of a default mapping.
    MappingIn: {
        "fieldId": OWN_PRIORITY,
        "projectId": OWN_PROJECT,
        "sourceId": "Probe",
        "type": "priority",
        "entityType": "Bug",
    },
    MappingPatch: {"sourceName": "Probed", "enable": False},
    DefinitionIn: {
        "eventName": "Probe rule",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "actionType": "HTTP",
        "action": {"url": "https://93.184.215.14/hooks/probe"},
    },
    DefinitionPatch: {"eventName": "Probe renamed", "enable": False},
    ExplainIn: {"itemId": OWN_BUG},
    ChannelSettingsPatch: {"dueSoonMinutes": 90},
    CommentIn: {"content": "Probe comment"},
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
    UserPatch: (),
    MappingIn: ("fieldId", "projectId"),
    MappingPatch: ("fieldId",),
    DefinitionIn: (),
    DefinitionPatch: (),
    # An item of another channel is a 404 here, not a 400 (tests/events/engine/test_explain.py).
    ExplainIn: (),
    ChannelSettingsPatch: (),
    CommentIn: (),
}
# Fields a client may send but the server owns (docs/api.md): ignored, whatever they name.
SERVER_OWNED = ("_id", "teamId", "channelId", "internalId", "createdBy")


def fill(path: str, value: str, *more: str) -> str:
    """The path with `value` in every parameter, or with `value, *more` in order."""
    if not more:
        return PATH_PARAMETER.sub(lambda _match: value, path)
    values = iter((value, *more))
    return PATH_PARAMETER.sub(lambda _match: next(values), path)


def form_of(endpoint: Endpoint) -> aiohttp.FormData | None:
    """A fresh multipart body for a route that takes a file (a form is sent once)."""
    if endpoint.form is None:
        return None
    form = aiohttp.FormData()
    form.add_field("file", b"probe", filename="probe.txt", content_type="text/plain")
    return form


def known_good(endpoint: Endpoint, side: "Side | None" = None) -> dict[str, Any] | None:
    """A copy of the route's body the probe may change; with `side`, naming that side's rows."""
    if endpoint.body is None:
        return None
    assert endpoint.body in BODIES, missing_body(endpoint)
    body: dict[str, Any] = json.loads(json.dumps(BODIES[endpoint.body]))
    if side is not None:
        own = {
            OWN_PROJECT: side.project["_id"],
            OWN_PRIORITY: side.priority_id,
            OWN_BUG: side.bug["_id"],
        }
        body = {
            field: own.get(value, value) if isinstance(value, str) else value
            for field, value in body.items()
        }
    return body


def missing_body(endpoint: Endpoint) -> str:
    name = endpoint.body.__name__ if endpoint.body else "?"
    return (
        f"{route_of(endpoint)} takes a {name} body, which has no entry in BODIES (and REFERENCES) "
        "of tests/generated/cross_team_matrix.py: add a minimal valid body so the route is probed"
    )


def probe_of(endpoint: Endpoint) -> Probe:
    probe = MATRIX.get(route_of(endpoint))
    if probe is None:
        pytest.fail(
            f"{route_of(endpoint)} is a CHANNEL route without an entry in MATRIX of "
            "tests/generated/cross_team_matrix.py: add one (its Kind, Target and, for a list, "
            "its EntitySet) so Team B is probed against it",
            pytrace=False,
        )
    return probe
