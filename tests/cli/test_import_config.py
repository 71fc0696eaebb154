"""`admin import` of an export recreates the channel's configuration in another: its external
project (without credentials), the file's mappings over the project's defaults, its rules (HTTP
ones switched off with the reason, their header values empty; Notification ones as they were,
the off defaults switched on rather than doubled); a second import adds no configuration; a dry
run leaves none; a rule or project the target refuses makes the whole import write nothing and
is named, with what needed it; a project the target has keeps its own mappings."""

import asyncio
import json
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from bot.events.notification_rules import add_default_rules
from tests.cli.helpers import Cli
from tests.factories import CHANNEL, TEAM, Factory, Member, create_item
from tests.projects.bodies import ADO_PROJECT, ADO_STATES

CHANNEL_B = "19:channel-b@thread.tacv2"
CHANNEL_C = "19:channel-c@thread.tacv2"
HEADER_VALUE = "Bearer s3cr3t-pager-token"
PAGER = {
    "eventName": "Urgent bugs to the pager",
    "entityType": "bug",
    "triggerType": "ITEM_CREATED",
    "actionType": "HTTP",
    "action": {
        "url": "https://93.184.215.14/hooks/tracker",
        "method": "POST",
        "headers": [{"name": "Authorization", "value": HEADER_VALUE}],
        "body": "",
    },
}
REVIEWS = {
    "eventName": "Bug in review",
    "entityType": "bug",
    "triggerType": "ITEM_UPDATED",
    "conditions": [
        {
            "ops": "and",
            "conditions": [{"field": "status", "ops": "ChangedTo", "value": "In Review"}],
        }
    ],
    "actionType": "Notification",
}
IMPORTED_REASON = (
    "Imported: set its header values (Authorization), give the receiver its new signing secret "
    "(rotate it to see it), then switch it on"
)


async def run(cli: Cli, *argv: str, code: int = 0) -> dict[str, Any]:
    return await asyncio.to_thread(cli, *argv, code=code)


async def call(
    client: TestClient,
    member: Member,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    channel: str = CHANNEL,
) -> Any:
    response = await client.request(
        method, path, json=body, headers=member.in_channel(channel=channel)
    )
    assert response.status in (200, 201, 204), await response.text()
    return None if response.status == 204 else await response.json()


async def listed(client: TestClient, member: Member, path: str, channel: str) -> list[Any]:
    return (await call(client, member, "GET", path, channel=channel))["value"]


async def with_default_rules(factory: Factory, channel: str, name: str) -> None:
    """The channel as the app installs it: with the default Notification rules, all off."""
    recorded = await factory.channel(channel, name=name)
    async with factory.work() as uow:
        await add_default_rules(uow, channel_ids=[recorded.id])


async def exported_channel(
    cli: Cli, factory: Factory, client: TestClient, ada: Member, out: Path
) -> dict[str, Any]:
    """A channel with an Azure DevOps project (a token; its Resolved bugs mapped to a custom
    status; a priority mapped), an HTTP rule with a header, a Notification rule on, a default
    one switched on and one changed, and a bug in the project; written to `out`."""
    await with_default_rules(factory, CHANNEL, "Bugs")
    project = await call(client, ada, "POST", "/api/projects", ADO_PROJECT)
    review = await call(
        client,
        ada,
        "POST",
        "/odata/status",
        {"name": "In Review", "type": "Bug", "category": "Active"},
    )
    [resolved] = [
        mapping
        for mapping in await listed(client, ada, "/odata/_fieldMappings", CHANNEL)
        if (mapping["sourceId"], mapping["entityType"]) == ("Resolved", "Bug")
    ]
    await call(
        client,
        ada,
        "PATCH",
        f"/odata/_fieldMappings({resolved['_id']})",
        {"fieldId": review["_id"]},
    )
    [high] = [
        level
        for level in await listed(client, ada, "/api/priority", CHANNEL)
        if (level["name"], level["type"]) == ("High", "Bug")
    ]
    priority = {"type": "priority", "entityType": "Bug", "sourceId": "2", "sourceName": "2"}
    await call(
        client,
        ada,
        "POST",
        "/odata/_fieldMappings",
        {**priority, "fieldId": high["_id"], "projectId": project["_id"]},
    )
    await call(client, ada, "POST", "/odata/eventDefinitions", PAGER)
    await call(client, ada, "POST", "/odata/eventDefinitions", REVIEWS)
    rules = {rule["eventName"]: rule for rule in await listed(client, ada, "/api/events", CHANNEL)}
    switched = f"/odata/eventDefinitions({rules['Bug created']['_id']})"
    await call(client, ada, "PATCH", switched, {"enable": True})
    changed = f"/odata/eventDefinitions({rules['Task overdue']['_id']})"
    condition = {"field": "priority", "ops": "Is", "value": "Urgent"}
    await call(
        client,
        ada,
        "PATCH",
        changed,
        {"enable": True, "conditions": [{"ops": "and", "conditions": [condition]}]},
    )
    await create_item(
        client, ada, name="Checkout 500s", projectId=project["_id"], status="In Review"
    )
    where = ("--team-id", TEAM, "--channel-id", CHANNEL)
    await run(cli, "admin", "export", *where, "--out", str(out))
    document: dict[str, Any] = json.loads(out.read_bytes())
    return document


async def test_an_import_recreates_the_projects_mappings_and_rules_of_the_export(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member("Ada Lovelace")
    out = tmp_path / "channel.json"
    document = await exported_channel(cli, factory, client, ada, out)
    assert HEADER_VALUE.encode() not in out.read_bytes()
    rules_at = {rule["eventName"]: at for at, rule in enumerate(document["eventDefinitions"])}
    [web_at] = [
        at for at, row in enumerate(document["projects"]) if row["sourceId"] == "web-project"
    ]
    await with_default_rules(factory, CHANNEL_B, "Other")
    into_b = ("--team-id", TEAM, "--channel-id", CHANNEL_B)

    answer = await run(cli, "admin", "import", *into_b, str(out))
    assert answer["items"] == {"bugs": 1, "tasks": 0}
    assert answer["projectsAdded"] == [
        {"displayName": "Web", "source": "Microsoft.Vsts", "sourceId": "web-project"}
    ]
    # The priority mapping is new; Resolved's default mapping (to In Progress) became the file's.
    assert (answer["mappingsAdded"], answer["mappingsChanged"]) == (1, 1)
    # Rules are listed by when they were made: these were made at one (frozen) instant.
    assert sorted(answer["rulesAdded"], key=str) == [
        {"eventName": REVIEWS["eventName"], "entityType": "bug", "enable": True},
        {"eventName": PAGER["eventName"], "entityType": "bug", "enable": False},
    ]
    assert answer["rulesSwitchedOn"] == [{"eventName": "Bug created", "entityType": "bug"}]
    assert sorted(answer["needsAttention"], key=lambda entry: entry["what"]) == [
        {
            "at": f"projects[{web_at}]",
            "what": "project 'Web'",
            "todo": "set its token or password (PATCH /api/projects/{id}): an export holds none",
        },
        {
            "at": f"eventDefinitions[{rules_at['Task overdue']}]",
            "what": "rule 'Task overdue' (task)",
            "todo": "a different rule of this name is here: left as it is",
        },
        {
            "at": f"eventDefinitions[{rules_at[PAGER['eventName']]}]",
            "what": f"rule '{PAGER['eventName']}' (bug)",
            "todo": IMPORTED_REASON,
        },
    ]

    here = {row["source"]: row for row in await listed(client, ada, "/api/projects", CHANNEL_B)}
    assert set(here) == {"Svc.Native", "Microsoft.Vsts"}  # the channel's own native one alone
    native, web = here["Svc.Native"], here["Microsoft.Vsts"]
    assert native["sourceId"] == CHANNEL_B
    assert (web["source"], web["sourceId"], web["hostname"]) == (
        "Microsoft.Vsts",
        "web-project",
        ADO_PROJECT["hostname"],
    )
    assert web["states"] == ADO_STATES and web["hasCredentials"] is False
    mapped = {
        (mapping["type"], mapping["entityType"], mapping["sourceId"]): mapping["fieldName"]
        for mapping in await listed(client, ada, "/odata/_fieldMappings", CHANNEL_B)
    }
    source_mapped = {
        (mapping["type"], mapping["entityType"], mapping["sourceId"]): mapping["fieldName"]
        for mapping in document["mappings"]
    }
    assert mapped == source_mapped
    assert mapped[("status", "Bug", "Resolved")] == "In Review"

    rules = await listed(client, ada, "/api/events", CHANNEL_B)
    assert len(rules) == 12 + 2  # the defaults, not doubled, and the two new ones
    by_name = {rule["eventName"]: rule for rule in rules}
    pager = by_name[PAGER["eventName"]]
    assert (pager["enable"], pager["disabledReason"]) == (False, IMPORTED_REASON)
    assert pager["action"]["headers"] == [{"name": "Authorization", "value": ""}]
    assert pager["action"]["url"] == PAGER["action"]["url"]
    assert by_name[REVIEWS["eventName"]]["enable"] is True
    assert by_name[REVIEWS["eventName"]]["conditions"] == REVIEWS["conditions"]
    assert by_name["Bug created"]["enable"] is True
    assert by_name["Task overdue"]["enable"] is False  # the channel's own, left as it is
    assert by_name["Bug updated"]["enable"] is False

    [bug] = await listed(client, ada, "/api/bugs", CHANNEL_B)
    assert (bug["name"], bug["status"]) == ("Checkout 500s", "In Review")
    assert (bug["projectId"]["_id"], bug["source"]) == (web["_id"], "Microsoft.Vsts")

    # Imported again: the items are copied again, the configuration is all there already.
    again = await run(cli, "admin", "import", *into_b, str(out))
    assert again["items"] == {"bugs": 1, "tasks": 0}
    assert again["projectsAdded"] == again["rulesAdded"] == again["rulesSwitchedOn"] == []
    assert (again["mappingsAdded"], again["mappingsChanged"]) == (0, 0)
    assert [entry["what"] for entry in again["needsAttention"]] == ["rule 'Task overdue' (task)"]
    assert len(await listed(client, ada, "/api/projects", CHANNEL_B)) == 2
    assert len(await listed(client, ada, "/odata/_fieldMappings", CHANNEL_B)) == len(mapped)
    assert len(await listed(client, ada, "/api/events", CHANNEL_B)) == 14


async def test_a_dry_run_says_what_it_would_add_and_leaves_nothing(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    out = tmp_path / "channel.json"
    await exported_channel(cli, factory, client, ada, out)
    await factory.channel(CHANNEL_C, name="Empty")
    into_c = ("--team-id", TEAM, "--channel-id", CHANNEL_C)

    answer = await run(cli, "admin", "import", *into_c, str(out), "--dry-run")
    assert answer["dryRun"] is True and answer["items"] == {"bugs": 1, "tasks": 0}
    assert [project["sourceId"] for project in answer["projectsAdded"]] == ["web-project"]
    assert len(answer["rulesAdded"]) == 14  # a channel without defaults takes every rule
    [native] = await listed(client, ada, "/api/projects", CHANNEL_C)
    assert native["source"] == "Svc.Native"
    await assert_nothing_imported(client, ada, CHANNEL_C)


async def test_a_rule_the_target_refuses_makes_the_import_write_nothing(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    out = tmp_path / "channel.json"
    document = await exported_channel(cli, factory, client, ada, out)
    loopback = {**PAGER, "eventName": "To my laptop"}
    loopback["action"] = {**PAGER["action"], "url": "http://127.0.0.1:8080/hook"}
    unknown = {**REVIEWS, "eventName": "Exploded", "triggerType": "ITEM_EXPLODED"}
    first_bad = len(document["eventDefinitions"])
    document["eventDefinitions"] += [loopback, unknown]
    out.write_bytes(json.dumps(document).encode())
    await factory.channel(CHANNEL_C, name="Empty")
    into_c = ("--team-id", TEAM, "--channel-id", CHANNEL_C)

    failed = await run(cli, "admin", "import", *into_c, str(out), code=1)
    assert failed["error"].startswith("2 of ") and failed["error"].endswith(
        "records are wrong: nothing imported."
    )
    assert failed["errors"] == [
        {
            "at": f"eventDefinitions[{first_bad}]",
            "error": "action.url: 127.0.0.1 is loopback, not a global unicast address",
        },
        {
            "at": f"eventDefinitions[{first_bad + 1}]",
            "error": "triggerType: Input should be 'ITEM_CREATED', 'ITEM_UPDATED', 'DUESOON', "
            "'ITEM_DELETED' or 'OVERDUE'",
        },
    ]
    assert len(await listed(client, ada, "/api/projects", CHANNEL_C)) == 1
    await assert_nothing_imported(client, ada, CHANNEL_C)


async def test_a_project_the_target_refuses_is_named_and_so_is_what_needs_it(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    out = tmp_path / "channel.json"
    document = await exported_channel(cli, factory, client, ada, out)
    [web_at] = [at for at, row in enumerate(document["projects"]) if row["source"] != "Svc.Native"]
    document["projects"][web_at]["states"] = []  # as if Azure DevOps brought no states
    out.write_bytes(json.dumps(document).encode())
    await factory.channel(CHANNEL_C, name="Empty")
    into_c = ("--team-id", TEAM, "--channel-id", CHANNEL_C)

    failed = await run(cli, "admin", "import", *into_c, str(out), code=1)
    first, *others = failed["errors"]
    assert first == {
        "at": f"projects[{web_at}]",
        "error": "states: required for Microsoft.Vsts projects: their state catalogue",
    }
    assert {error["at"].split("[")[0] for error in others} == {"mappings", "bugs"}
    assert len(others) == len(document["mappings"]) + 1
    assert {error["error"] for error in others} == {
        "projectId: Microsoft.Vsts project 'web-project' is not configured here"
    }
    assert await listed(client, ada, "/api/events", CHANNEL_C) == []


async def test_a_project_the_target_has_keeps_its_own_mappings(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    out = tmp_path / "channel.json"
    document = await exported_channel(cli, factory, client, ada, out)
    document["bugs"] = []
    out.write_bytes(json.dumps(document).encode())
    await factory.channel(CHANNEL_C, name="Configured")
    await call(client, ada, "POST", "/api/projects", ADO_PROJECT, channel=CHANNEL_C)  # its defaults
    into_c = ("--team-id", TEAM, "--channel-id", CHANNEL_C)

    answer = await run(cli, "admin", "import", *into_c, str(out))
    assert answer["projectsAdded"] == []
    assert (answer["mappingsAdded"], answer["mappingsChanged"]) == (1, 0)  # the priority's
    [resolved_at] = [
        at
        for at, row in enumerate(document["mappings"])
        if (row["type"], row["entityType"], row["sourceId"]) == ("status", "Bug", "Resolved")
    ]
    [kept] = [entry for entry in answer["needsAttention"] if entry["at"].startswith("mappings")]
    assert kept == {
        "at": f"mappings[{resolved_at}]",
        "what": "Microsoft.Vsts project 'web-project': Bug status 'Resolved'",
        "todo": "mapped here to 'In Progress', in the file to 'In Review': left as it is here",
    }
    [resolved] = [
        mapping
        for mapping in await listed(client, ada, "/odata/_fieldMappings", CHANNEL_C)
        if (mapping["type"], mapping["entityType"], mapping["sourceId"])
        == ("status", "Bug", "Resolved")
    ]
    assert resolved["fieldName"] == "In Progress"


async def assert_nothing_imported(client: TestClient, member: Member, channel: str) -> None:
    """No mapping, rule or bug in `channel` (an empty channel has only its native project)."""
    for path in ("/odata/_fieldMappings", "/api/events", "/api/bugs"):
        assert await listed(client, member, path, channel) == [], path
