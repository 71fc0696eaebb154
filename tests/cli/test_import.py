"""`admin import` of a CSV: our columns, Jira's and Azure DevOps' recognised; items as the API
then shows them, numbered in file order; no pending events unless --events; a file with any bad
row imports nothing and names each bad row's line; a dry run writes nothing; what is no channel
or no CSV is refused; the progress bar is a terminal's alone."""

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.cli.imports import CHUNK
from bot.cli.progress import Progress
from bot.db.tables import ItemAssignee, PendingEvent
from tests.cli.helpers import Cli
from tests.factories import CHANNEL, TEAM, Factory, Member

WHERE = ("--team-id", TEAM, "--channel-id", CHANNEL)


async def run(cli: Cli, *argv: str, code: int = 0) -> dict[str, Any]:
    """The CLI from an async test: `main` runs its own event loop, so not on this one."""
    return await asyncio.to_thread(cli, *argv, code=code)


async def imported(cli: Cli, path: Path, *flags: str, code: int = 0) -> dict[str, Any]:
    return await run(cli, "admin", "import", *WHERE, str(path), *flags, code=code)


def csv_file(folder: Path, text: str, name: str = "items.csv") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


async def listed(client: TestClient, member: Member, of: str = "bugs") -> list[dict[str, Any]]:
    response = await client.get(
        f"/odata/{of}", params={"$orderby": "internalId"}, headers=member.in_channel()
    )
    assert response.status == 200, await response.text()
    return (await response.json())["value"]


async def count(factory: Factory, table: Any) -> int:
    async with factory.work(write=False) as uow:
        return int(await uow.value(select(func.count()).select_from(table)))


async def test_a_csv_with_our_columns_imports_every_row_as_the_api_shows_it(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member("Ada Lovelace")
    path = csv_file(
        tmp_path,
        "name,body,status,priority,severity,assignee UPN,start date,due date\n"
        'Login fails,"Steps:\nopen, click",In Progress,High,Critical,ada.lovelace@contoso.test,'
        "2026-12-01,2026-12-05T17:00:00Z\n"
        "Typo on the card,,,,,,,\n",
    )
    answer = await imported(cli, path)
    assert answer == {
        "file": str(path),
        "dryRun": False,
        "events": False,
        "items": {"bugs": 2, "tasks": 0},
        "valuesAdded": [],
        "projectsAdded": [],
        "mappingsAdded": 0,
        "mappingsChanged": 0,
        "rulesAdded": [],
        "rulesSwitchedOn": [],
        "needsAttention": [],
    }
    first, second = await listed(client, ada)
    assert first["internalId"] == 1 and second["internalId"] == 2
    assert (first["name"], first["body"], first["status"]) == (
        "Login fails",
        "Steps:\nopen, click",
        "In Progress",
    )
    assert (first["priority"], first["severity"]) == ("High", "Critical")
    assert [user["_id"] for user in first["assignedTo"]] == [ada.user.id]
    assert (first["startDate"], first["dueDate"]) == (
        "2026-12-01T00:00:00.000Z",
        "2026-12-05T17:00:00.000Z",
    )
    # What the row leaves out takes the channel's defaults, as a create through the API does.
    assert (second["status"], second["priority"], second["severity"]) == (
        "Not Started",
        "Normal",
        "Medium",
    )
    assert await count(factory, PendingEvent) == 0  # no rule fires, nobody is notified
    created = await client.post("/odata/bugs", json={"name": "After"}, headers=ada.in_channel())
    assert (await created.json())["internalId"] == 3  # the numbers go on from the import's


async def test_events_flag_records_one_item_created_per_imported_item(
    cli: Cli, database: str, factory: Factory, tmp_path: Path
) -> None:
    await factory.member()
    path = csv_file(tmp_path, "name\nOne\nTwo\nThree\n")
    assert (await imported(cli, path, "--events", "--kind", "task"))["items"]["tasks"] == 3
    async with factory.work(write=False) as uow:
        triggers = await uow.values(select(PendingEvent.trigger))
    assert triggers == ["ITEM_CREATED"] * 3


async def test_jira_and_azure_devops_exports_columns_are_recognised(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member("Ada Lovelace")
    jira = csv_file(
        tmp_path,
        "Issue Type,Issue key,Summary,Description,Status,Priority,Assignee,Due Date,Created,"
        "Labels,Labels\n"
        "Bug,WEB-1,Jira bug,From Jira,In Progress,Low,ada.lovelace@contoso.test,"
        "12/Jan/27 10:30 AM,03/Feb/26 9:15 AM,ui,login\n"
        "Task,WEB-2,Jira task,,Not Started,High,,,,,\n",
        "jira.csv",
    )
    azure = csv_file(
        tmp_path,
        "ID,Work Item Type,Title,State,Priority,Severity,Assigned To,Start Date,Target Date,"
        "Created Date\n"
        "41,Bug,Azure bug,Completed,Urgent,High,Ada Lovelace <ada.lovelace@contoso.test>,"
        "1/12/2027,1/20/2027 5:00:00 PM,2/3/2026 9:15:00 AM\n",
        "azure.csv",
    )
    assert (await imported(cli, jira))["items"] == {"bugs": 1, "tasks": 1}
    assert (await imported(cli, azure))["items"] == {"bugs": 1, "tasks": 0}

    jira_bug, azure_bug = await listed(client, ada)
    assert (jira_bug["name"], jira_bug["body"], jira_bug["priority"]) == (
        "Jira bug",
        "From Jira",
        "Low",
    )
    assert jira_bug["dueDate"] == "2027-01-12T10:30:00.000Z"
    assert jira_bug["createdAt"] == "2026-02-03T09:15:00.000Z"  # the original tracker's
    assert [user["_id"] for user in jira_bug["assignedTo"]] == [ada.user.id]
    assert (azure_bug["status"], azure_bug["priority"], azure_bug["severity"]) == (
        "Completed",
        "Urgent",
        "High",
    )
    assert azure_bug["completedDate"] is not None  # a Done status fills it, as on create
    assert [user["_id"] for user in azure_bug["assignedTo"]] == [ada.user.id]
    assert (azure_bug["startDate"], azure_bug["dueDate"]) == (
        "2027-01-12T00:00:00.000Z",
        "2027-01-20T17:00:00.000Z",
    )
    [jira_task] = await listed(client, ada, "tasks")
    assert (jira_task["name"], jira_task["priority"]) == ("Jira task", "High")


async def test_a_file_with_bad_rows_imports_nothing_and_names_each_bad_line(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    path = csv_file(
        tmp_path,
        "name,body,status,assignee,due date,start date\n"
        "Good one,,,,,\n"
        'Bad status,"two\nlines",Bogus,,,\n'  # the record starts on line 3
        "Not a member,,,nobody@contoso.test,,\n"
        "Bad date,,,,next week,\n"
        "Due before start,,,,2026-01-01,2026-02-01\n"
        ",,,,,\n"  # empty: skipped
        "Good two,,,,,\n",
    )
    failed = await imported(cli, path, code=1)
    assert failed["error"] == "4 of 6 records are wrong: nothing imported."
    assert failed["records"] == 6
    lines = {error["line"]: error["error"] for error in failed["errors"]}
    assert set(lines) == {3, 5, 6, 7}
    assert lines[3].startswith("status: 'Bogus' does not exist in this channel (one of: ")
    assert lines[5] == "assignedTo: 'nobody@contoso.test' is not a member of this team"
    assert "'next week' is not a date" in lines[6]
    assert lines[7] == "dueDate: must not be before startDate"
    assert await listed(client, ada) == []
    assert await count(factory, ItemAssignee) == 0


async def test_a_dry_run_checks_everything_and_writes_nothing(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    good = csv_file(tmp_path, "name,status\nOne,In Progress\nTwo,Completed\n")
    answer = await imported(cli, good, "--dry-run")
    assert (answer["dryRun"], answer["items"]) == (True, {"bugs": 2, "tasks": 0})
    bad = csv_file(tmp_path, "name,status\nOne,Nope\n", "bad.csv")
    failed = await imported(cli, bad, "--dry-run", code=1)
    assert failed["errors"] == [{"line": 2, "error": failed["errors"][0]["error"]}]
    assert await listed(client, ada) == []
    created = await client.post("/odata/bugs", json={"name": "First"}, headers=ada.in_channel())
    assert (await created.json())["internalId"] == 1  # no number was taken either


async def test_more_rows_than_a_chunk_import_in_file_order(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    rows = CHUNK * 2 + 3
    path = csv_file(
        tmp_path,
        "name,assignee\n"
        + "".join(f"Row {number},{ada.user.username}\n" for number in range(1, rows + 1)),
    )
    assert (await imported(cli, path))["items"]["bugs"] == rows
    response = await client.get(
        "/odata/bugs",
        params={"$orderby": "internalId desc", "$top": "1", "$count": "true"},
        headers=ada.in_channel(),
    )
    body = await response.json()
    assert body["@odata.count"] == rows
    assert (body["value"][0]["internalId"], body["value"][0]["name"]) == (rows, f"Row {rows}")
    assert await count(factory, ItemAssignee) == rows


@pytest.mark.parametrize(
    ("where", "error"),
    [
        (
            ("--team-id", "19:nope@thread.tacv2", "--channel-id", CHANNEL),
            "Team '19:nope@thread.tacv2' is not known.",
        ),
        (
            ("--team-id", TEAM, "--channel-id", "19:nope@thread.tacv2"),
            f"Channel '19:nope@thread.tacv2' is not a channel of team '{TEAM}'.",
        ),
    ],
)
async def test_an_unknown_team_or_channel_is_refused(
    cli: Cli,
    database: str,
    factory: Factory,
    tmp_path: Path,
    where: tuple[str, ...],
    error: str,
) -> None:
    await factory.standard_team()
    path = csv_file(tmp_path, "name\nOne\n")
    assert await run(cli, "admin", "import", *where, str(path), code=1) == {"error": error}
    exported = tmp_path / "out.json"
    assert await run(cli, "admin", "export", *where, "--out", str(exported), code=1) == {
        "error": error
    }
    assert not exported.exists()


@pytest.mark.parametrize(
    ("name", "content", "error"),
    [
        ("notes.txt", b"name\nOne\n", "notes.txt: import reads a .csv or a .json file"),
        ("items.json", b"name,status\nOne,New\n", "Not a JSON file"),
        ("items.csv", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "Not a CSV file"),
        ("items.csv", b"colour,size\nred,3\n", "Not an item CSV: no name column"),
    ],
)
async def test_a_file_that_is_no_csv_or_json_is_refused(
    cli: Cli,
    database: str,
    factory: Factory,
    tmp_path: Path,
    name: str,
    content: bytes,
    error: str,
) -> None:
    await factory.member()
    path = tmp_path / name
    path.write_bytes(content)
    failed = await imported(cli, path, code=1)
    assert failed["error"].startswith(error), failed


def test_the_progress_bar_is_drawn_for_a_terminal_only() -> None:
    drawn = io.StringIO()
    bar = Progress(200, out=drawn)
    bar.advance(100)
    bar.close(records=7)
    assert "[###############---------------]  50%" in drawn.getvalue()
    assert drawn.getvalue().endswith("[##############################] 100% 7 records\n")
    assert Progress(200)._out is None  # under pytest, stdout is no terminal: nothing drawn
