"""`admin export` writes a channel as the API shows it, with no secret (no signing secret, no
credentials, no header value) and no signed link in the file, and `admin import` of that file
fills another channel with the same items, adding the statuses they need; an item of a project
neither the file nor the target has is refused by name (tests/cli/test_import_config.py: the
configuration an import recreates)."""

import asyncio
import json
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from bot.db.tables import DiscussionMessage
from bot.ids import new_id
from tests.cli.helpers import Cli
from tests.factories import CHANNEL, TEAM, Factory, Member, create_item
from tests.files.helpers import uploaded
from tests.projects.bodies import ADO_PROJECT, SECRET_TOKEN

CHANNEL_B = "19:channel-b@thread.tacv2"
RULE = {
    "eventName": "Urgent bugs to the pager",
    "entityType": "bug",
    "triggerType": "ITEM_CREATED",
    "actionType": "HTTP",
    "action": {"url": "https://93.184.215.14/hooks/tracker", "method": "POST", "body": ""},
}


async def run(cli: Cli, *argv: str, code: int = 0) -> dict[str, Any]:
    return await asyncio.to_thread(cli, *argv, code=code)


async def post(client: TestClient, member: Member, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(path, json=body, headers=member.in_channel())
    assert response.status in (200, 201), await response.text()
    return await response.json()


async def a_channel_with_everything(
    client: TestClient, factory: Factory, ada: Member
) -> tuple[dict[str, Any], str]:
    """A custom status, an Azure DevOps project with a token, a rule with its secret, a bug
    assigned with a file and a reply in its discussion, and a task; the bug and the secret."""
    await post(
        client, ada, "/odata/status", {"name": "In Review", "type": "Bug", "category": "Active"}
    )
    await post(client, ada, "/api/projects", ADO_PROJECT)
    rule = await post(client, ada, "/odata/eventDefinitions", RULE)
    bug = await create_item(
        client,
        ada,
        name="Login fails",
        status="In Review",
        priority="High",
        dueDate="2026-12-01",
        bucket=["web"],
        assignedTo=[{"username": ada.user.username}],
    )
    await uploaded(client, ada, bug["_id"], content=b"repro steps")
    await create_item(client, ada, "task", name="Write notes")
    async with factory.work() as uow:
        uow.add(
            DiscussionMessage(
                id=new_id(),
                item_id=bug["_id"],
                message_id="1700000000001",
                reply_to_id="1700000000000",
                author_kind="user",
                author_id=ada.user.source_id,
                author_user_id=ada.user.id,
                author_name=ada.user.display_name,
                body="<p>Seen on Safari 17</p>",
                card=None,
                mentions=[],
                created_at=factory.clock.now(),
                modified_at=factory.clock.now(),
                edited_at=None,
                deleted_at=None,
            )
        )
    return bug, rule["secret"]


async def test_an_export_holds_the_channel_as_the_api_shows_it_and_no_secret(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member("Ada Lovelace")
    bug, secret = await a_channel_with_everything(client, factory, ada)
    out = tmp_path / "channel.json"
    answer = await run(
        cli, "admin", "export", "--team-id", TEAM, "--channel-id", CHANNEL, "--out", str(out)
    )
    assert answer == {
        "export": str(out),
        "statuses": 7,
        "priorities": 8,
        "severities": 4,
        "projects": 2,
        "mappings": 12,  # 4 states to statuses for bugs and tasks, 4 to severities
        "eventDefinitions": 1,
        "bugs": 1,
        "tasks": 1,
    }
    text = out.read_text()
    for never in (secret, "whsec_", SECRET_TOKEN, "downloadUrl", "@odata"):
        assert never not in text
    document = json.loads(text)
    assert (document["format"], document["version"]) == ("teams-tracker-export", 1)
    assert (document["team"]["teamId"], document["channel"]["channelId"]) == (TEAM, CHANNEL)
    [rule] = document["eventDefinitions"]
    assert rule["eventName"] == RULE["eventName"] and "secret" not in rule
    credentials = {project["source"]: project["hasCredentials"] for project in document["projects"]}
    assert credentials == {"Svc.Native": False, "Microsoft.Vsts": True}
    [exported] = document["bugs"]
    assert (exported["_id"], exported["status"], exported["dueDate"]) == (
        bug["_id"],
        "In Review",
        "2026-12-01T00:00:00.000Z",
    )
    assert exported["assignedTo"] == [ada.user.username]
    [attachment] = exported["attachments"]
    assert (attachment["filename"], attachment["size"]) == ("report.txt", len(b"repro steps"))
    [message] = exported["messages"]
    assert message["body"] == {"contentType": "html", "content": "<p>Seen on Safari 17</p>"}
    assert message["from"]["user"]["displayName"] == "Ada Lovelace"
    assert [task["name"] for task in document["tasks"]] == ["Write notes"]


async def test_an_http_rules_header_values_are_left_out_of_the_export(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    headers = [
        {"name": "Authorization", "value": "Bearer s3cr3t-bearer-token"},
        {"name": "X-Api-Key", "value": "s3cr3t-api-key"},
    ]
    await post(
        client,
        ada,
        "/odata/eventDefinitions",
        {**RULE, "action": {**RULE["action"], "headers": headers}},
    )
    out = tmp_path / "channel.json"
    await run(cli, "admin", "export", "--team-id", TEAM, "--channel-id", CHANNEL, "--out", str(out))
    written = out.read_bytes()
    for never in (b"s3cr3t", b"Bearer", b"api-key"):
        assert never not in written
    [rule] = json.loads(written)["eventDefinitions"]
    assert rule["action"]["headers"] == [
        {"name": "Authorization", "value": None},
        {"name": "X-Api-Key", "value": None},
    ]
    assert rule["action"]["url"] == RULE["action"]["url"]  # the rest of the action as it is


async def test_importing_an_export_fills_another_channel_with_the_same_items(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member("Ada Lovelace")
    await a_channel_with_everything(client, factory, ada)
    out = tmp_path / "channel.json"
    where = ("--team-id", TEAM, "--channel-id", CHANNEL)
    await run(cli, "admin", "export", *where, "--out", str(out))
    await factory.channel(CHANNEL_B, name="Other")
    into_b = ("--team-id", TEAM, "--channel-id", CHANNEL_B)

    answer = await run(cli, "admin", "import", *into_b, str(out))
    assert answer["items"] == {"bugs": 1, "tasks": 1}
    assert answer["valuesAdded"] == [{"section": "statuses", "name": "In Review", "type": "Bug"}]
    source = await client.get("/api/bugs", headers=ada.in_channel())
    copied = await client.get("/api/bugs", headers=ada.in_channel(channel=CHANNEL_B))
    [original], [copy] = (await source.json())["value"], (await copied.json())["value"]
    same = ("name", "status", "priority", "severity", "dueDate", "bucket", "createdAt")
    assert {key: copy[key] for key in same} == {key: original[key] for key in same}
    assert copy["_id"] != original["_id"] and copy["internalId"] == 1
    assert [user["_id"] for user in copy["assignedTo"]] == [ada.user.id]
    assert copy["statusId"]["category"] == "Active"

    # Imported again, nothing is added to the catalogue twice; the items are new copies.
    again = await run(cli, "admin", "import", *into_b, str(out))
    assert again["valuesAdded"] == [] and again["items"] == {"bugs": 1, "tasks": 1}


async def test_an_exported_item_of_a_project_neither_file_nor_channel_has_is_refused(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    project = await post(client, ada, "/api/projects", ADO_PROJECT)
    await create_item(client, ada, name="In Azure", projectId=project["_id"])
    out = tmp_path / "channel.json"
    await run(cli, "admin", "export", "--team-id", TEAM, "--channel-id", CHANNEL, "--out", str(out))
    # The file's own project (and so its mappings) taken out: the item has nowhere to go.
    document = json.loads(out.read_bytes())
    document["projects"] = [row for row in document["projects"] if row["source"] == "Svc.Native"]
    document["mappings"] = []
    out.write_bytes(json.dumps(document).encode())
    await factory.channel(CHANNEL_B, name="Other")
    failed = await run(
        cli, "admin", "import", "--team-id", TEAM, "--channel-id", CHANNEL_B, str(out), code=1
    )
    assert failed["errors"] == [
        {
            "at": "bugs[0]",
            "error": "projectId: Microsoft.Vsts project 'web-project' is not configured here",
        }
    ]
