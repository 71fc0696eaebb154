"""The Azure DevOps connector through real HTTP against the local Azure DevOps; every exchange is
checked against the published description when the stand-in stops (tests/sync/conftest.py)."""

import logging
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import aiohttp
import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpServer

from bot.clock import FrozenClock
from bot.events import ssrf
from bot.fields.schemas import Category
from bot.projects.sources import SourceValue
from bot.sync.address import base_url, source_http
from bot.sync.azure_devops import AzureDevOpsSource, open_source
from bot.sync.azure_devops.known import FRESH, Known
from bot.sync.pacer import HostPacer
from bot.sync.source import (
    SourceChange,
    SourceError,
    SourceFields,
    SourceItem,
    SourceNotFound,
    SourcePerson,
    SourceRefused,
    SourceStale,
    SourceThrottled,
    SourceUnauthorized,
)
from bot.sync.standins.azure_devops import OWNER, AzureDevOpsStandin
from tests.sync.standin_fixtures import MakeAzureDevOps

LOOPBACK = ssrf.AllowList.parse(["127.0.0.1"])
TYPES = ("Bug", "Task")


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime(2026, 12, 7, 6, 0, tzinfo=UTC))


@pytest.fixture
async def standin(make_azure_devops: MakeAzureDevOps, clock: FrozenClock) -> AzureDevOpsStandin:
    return await make_azure_devops(clock=clock)  # type: ignore[no-any-return]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with source_http(LOOPBACK) as session:
        yield session


def source_of(
    standin: AzureDevOpsStandin,
    http: aiohttp.ClientSession,
    clock: FrozenClock,
    *,
    project: str = "Fabrikam",
    token: str | None = None,
    pacer: HostPacer | None = None,
    wiql_top: int = 20_000,
    known: Known | None = None,
) -> AzureDevOpsSource:
    return AzureDevOpsSource(
        http,
        base_url=base_url(standin.org_url, LOOPBACK),
        project=project,
        token=standin.token if token is None else token,
        clock=clock,
        pacer=pacer or HostPacer(),
        wiql_top=wiql_top,
        known=known or Known(),
    )


@pytest.fixture
def source(
    standin: AzureDevOpsStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> AzureDevOpsSource:
    return source_of(standin, http, clock)


def sent(standin: AzureDevOpsStandin, method: str, path_end: str) -> list:  # type: ignore[type-arg]
    return [x for x in standin.exchanges if x.method == method and x.path.endswith(path_end)]


async def everything(
    source: AzureDevOpsSource, cursor: str | None = None
) -> tuple[list[SourceItem], str]:
    items: list[SourceItem] = []
    last = cursor or ""
    async for page in source.changed_since(cursor, item_types=TYPES, query=None):
        items.extend(page.items)
        last = page.cursor
    return items, last


# The project


async def test_check_finds_the_project(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    project = await source.check()
    assert (project.id, project.name) == (standin.project_id, "Fabrikam")
    assert project.url == f"{standin.org_url}/Fabrikam"


async def test_a_linked_project_opens_under_the_address_rule(
    standin: AzureDevOpsStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    link = {"hostname": standin.org_url, "source_id": standin.project_id, "token": standin.token}
    opened = open_source(http, **link, allowed=LOOPBACK, clock=clock)
    assert (await opened.check()).name == "Fabrikam"
    with pytest.raises(ssrf.DestinationRefused) as refused:
        open_source(http, **link, allowed=ssrf.AllowList(), clock=clock)
    assert refused.value.field == "hostname"


async def test_connectors_of_one_process_read_a_projects_metadata_once_a_while(
    standin: AzureDevOpsStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    known = Known()
    item_id = standin.create("Task", {"System.Title": "T"})
    for _ in range(3):  # the engine opens a connector per task
        source = source_of(standin, http, clock, known=known)
        assert [item.id for item in await source.read([str(item_id)])] == [str(item_id)]
        assert [
            x.id
            async for page in source.changed_since(None, item_types=TYPES, query=None)
            for x in page.items
        ] == [str(item_id)]
    assert len(sent(standin, "GET", "/workitemtypes/Task/fields")) == 1
    assert len(sent(standin, "GET", f"/_apis/projects/{standin.project}")) == 1
    await source.check()  # a check reads it always: the credentials are what it checks
    assert len(sent(standin, "GET", f"/_apis/projects/{standin.project}")) == 2
    clock.advance(FRESH)
    await source_of(standin, http, clock, known=known).read([str(item_id)])
    assert len(sent(standin, "GET", "/workitemtypes/Task/fields")) == 2


async def test_a_wrong_token_is_unauthorized_and_never_shown(
    standin: AzureDevOpsStandin,
    http: aiohttp.ClientSession,
    clock: FrozenClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-pat-0c1d2e3f4a5b"
    with pytest.raises(SourceUnauthorized) as raised:
        await source_of(standin, http, clock, token=wrong).check()
    assert "401" in raised.value.message
    assert wrong not in str(raised.value) and wrong not in caplog.text


async def test_an_unknown_project_is_not_found(
    standin: AzureDevOpsStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    with pytest.raises(SourceNotFound):
        await source_of(standin, http, clock, project="Nowhere").check()


async def test_states_come_with_our_categories(source: AzureDevOpsSource) -> None:
    assert list(await source.states("Bug")) == [
        SourceValue("New", "New", Category.NEW),
        SourceValue("Active", "Active", Category.ACTIVE),
        SourceValue("Resolved", "Resolved", Category.ACTIVE),
        SourceValue("Closed", "Closed", Category.DONE),
    ]
    assert [s.category for s in await source.states("Task")][-1] is Category.DONE  # Removed


# Pulling


async def test_a_first_pull_reads_every_item_in_pages_of_200_oldest_first(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    made = []
    for n in range(450):
        clock.advance(timedelta(seconds=1))
        made.extend(standin.seed(1, types=(TYPES[n % 2],)))
    pages = [page async for page in source.changed_since(None, item_types=TYPES, query=None)]
    assert [len(page.items) for page in pages] == [200, 200, 50]
    assert [int(item.id) for page in pages for item in page.items] == made
    batches = sent(standin, "POST", "/_apis/wit/workitemsbatch")
    assert [len(x.request_body["ids"]) for x in batches] == [200, 200, 50]
    queries = sent(standin, "POST", "/_apis/wit/wiql")
    assert len(queries) == 1 and queries[0].query["timePrecision"] == "true"
    assert "[System.ChangedDate] >" not in queries[0].request_body["query"]
    assert [p.cursor for p in pages] == sorted(p.cursor for p in pages)

    # Nothing changed since: the next pull reads nothing.
    again, cursor = await everything(source, pages[-1].cursor)
    assert again == [] and cursor == pages[-1].cursor

    # Two changes there arrive, in the order they were made.
    clock.advance(timedelta(seconds=5))
    standin.change(made[10], {"System.Title": "Renamed there"})
    clock.advance(timedelta(seconds=1))
    standin.change(made[3], {"System.State": "Active"})
    changed, _ = await everything(source, pages[-1].cursor)
    assert [(int(i.id), i.fields.title) for i in changed] == [
        (made[10], "Renamed there"),
        (made[3], "Work item 0"),  # each seeded alone, so each is "Work item 0"
    ]
    assert changed[1].fields.state == "Active"


async def test_a_pull_past_the_wiql_limit_goes_on_from_where_the_answer_ended(
    make_azure_devops: MakeAzureDevOps, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    standin = await make_azure_devops(clock=clock, wiql_limit=150)
    made = standin.seed(420)  # many share a millisecond at the stand-in: ties across answers
    source = source_of(standin, http, clock, wiql_top=150)
    items, _ = await everything(source)
    assert sorted(int(i.id) for i in items) == made
    assert len({i.id for i in items}) == 420
    assert await source.ids_in_scope(item_types=TYPES, query=None) == {str(i) for i in made}


async def test_a_pull_stopped_midway_resumes_without_missing_an_item(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    made = standin.seed(450)
    first = await anext(aiter(source.changed_since(None, item_types=TYPES, query=None)))
    rest, _ = await everything(source, first.cursor)
    assert {int(i.id) for i in [*first.items, *rest]} == set(made)


async def test_a_query_narrows_the_pull_to_an_area(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    web_items = standin.seed(3, fields=lambda n: {"System.AreaPath": "Fabrikam\\Web"})
    standin.seed(2)
    pulled = [
        item
        async for page in source.changed_since(None, item_types=TYPES, query="Fabrikam\\Web")
        for item in page.items
    ]
    assert [int(item.id) for item in pulled] == web_items
    in_scope = await source.ids_in_scope(item_types=TYPES, query="Fabrikam\\Web")
    assert in_scope == {str(i) for i in web_items}


async def test_read_converts_the_fields_and_leaves_missing_ids_out(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    bug = standin.create(
        "Bug",
        {
            "System.Title": "Login fails",
            "Microsoft.VSTS.TCM.ReproSteps": '<p>Open <a href="https://x.example/">it</a></p>',
            "System.State": "Active",
            "Microsoft.VSTS.Common.Priority": 1,
            "Microsoft.VSTS.Common.Severity": "2 - High",
            "System.AssignedTo": "Ada Lovelace <ada@contoso.example>",
        },
    )
    task = standin.create(
        "Task",
        {
            "System.Title": "Write docs",
            "System.Description": "<ul><li>one</li><li>two</li></ul>",
            "Microsoft.VSTS.Scheduling.DueDate": "2026-12-24T00:00:00Z",
        },
    )
    found = await source.read([str(bug), "99999", str(task)])
    assert [i.id for i in found] == [str(bug), str(task)]
    got_bug, got_task = found
    assert got_bug.item_type == "Bug" and got_bug.fields.body == "Open [it](https://x.example/)"
    assert (got_bug.fields.state, got_bug.fields.priority, got_bug.fields.severity) == (
        "Active",
        "1",
        "2 - High",
    )
    assert [(p.display_name, p.email) for p in got_bug.fields.assignees] == [
        ("Ada Lovelace", "ada@contoso.example")
    ]
    assert got_bug.changed_by is not None and got_bug.changed_by.email == "riley@contoso.example"
    assert got_bug.url == f"{standin.org_url}/Fabrikam/_workitems/edit/{bug}"
    assert got_task.fields.body == "- one\n- two"
    assert got_task.fields.due_date == date(2026, 12, 24)
    assert "severity" not in got_task.fields.present


# Pushing


async def test_create_then_update_with_the_rev_guard(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    fields = SourceFields(
        title="From Teams",
        body="Steps:\n\n1. open\n2. click `Save`",
        priority="1",
        severity="2 - High",
        assignees=(SourcePerson("u1", "Ada", "ada@contoso.example"),),
    )
    created = await source.create(
        SourceChange(
            "Bug", fields, frozenset({"title", "body", "priority", "severity", "assignees"})
        )
    )
    there = standin.work_item(int(created.id))
    assert there is not None
    assert there["fields"]["System.Title"] == "From Teams"
    assert "<ol>" in there["fields"]["Microsoft.VSTS.TCM.ReproSteps"]
    assert there["fields"]["Microsoft.VSTS.Common.Priority"] == 1
    assert created.fields.body == fields.body and created.version == str(there["rev"])
    creates = sent(standin, "POST", "/workitems/$Bug")
    assert creates[0].request_headers["Content-Type"].startswith("application/json-patch+json")

    updated = await source.update(
        created.id,
        SourceChange(
            "Bug",
            SourceFields(title="Renamed here", due_date=date(2026, 12, 31)),
            frozenset({"title", "due_date"}),  # a Bug has no due date: not written
            version=created.version,
        ),
    )
    assert updated.fields.title == "Renamed here"
    assert int(updated.version) == int(created.version) + 1
    patch = sent(standin, "PATCH", f"/workitems/{created.id}")[0].request_body
    assert patch == [
        {"op": "test", "path": "/rev", "value": int(created.version)},
        {"op": "add", "path": "/fields/System.Title", "value": "Renamed here"},
    ]


async def test_an_update_of_fields_the_type_lacks_writes_nothing(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Bug", {"System.Title": "T"})
    read = (await source.read([str(item_id)]))[0]
    change = SourceFields(title="T", due_date=date(2026, 12, 31))
    same = await source.update(
        read.id, SourceChange("Bug", change, frozenset({"due_date"}), version=read.version)
    )
    assert same == read
    assert sent(standin, "PATCH", f"/workitems/{item_id}") == []


async def test_an_update_against_a_stale_rev_is_stale_and_changes_nothing(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Task", {"System.Title": "T"})
    read = (await source.read([str(item_id)]))[0]
    standin.change(item_id, {"System.Title": "Changed there"})
    with pytest.raises(SourceStale):
        await source.update(
            read.id,
            SourceChange(
                "Task", SourceFields(title="Here"), frozenset({"title"}), version=read.version
            ),
        )
    assert standin.work_item(item_id)["fields"]["System.Title"] == "Changed there"  # type: ignore[index]


async def test_a_value_the_source_refuses_is_refused_with_its_message(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Bug", {"System.Title": "T"})
    read = (await source.read([str(item_id)]))[0]
    with pytest.raises(SourceRefused) as raised:
        await source.update(
            read.id,
            SourceChange(
                "Bug", SourceFields(title="T", state="Nowhere"), frozenset({"state"}), read.version
            ),
        )
    assert raised.value.code and raised.value.message


async def test_delete_goes_to_the_recycle_bin_and_gone_already_is_fine(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Task", {"System.Title": "T"})
    await source.delete(str(item_id))
    assert standin.work_item(item_id) is None and standin.in_recycle_bin(item_id)
    await source.delete(str(item_id))
    await source.delete("424242")


# Comments


async def test_comments_travel_both_ways(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Task", {"System.Title": "T"})
    standin.comment(item_id, "<p>Seen <b>there</b></p>")
    made = await source.add_comment(
        str(item_id), "Said **here**\n\n- a\n- b", author_name="Ada <A&B>"
    )
    assert "<strong>Ada &lt;A&amp;B&gt;</strong>" in standin.comments(item_id)[-1]["text"]
    listed = await source.comments(str(item_id))
    assert [c.text for c in listed] == [
        "Seen **there**",
        "**Ada <A&B>**:\n\nSaid **here**\n\n- a\n- b",
    ]
    assert listed[1].id == made.id
    assert listed[0].author is not None and listed[0].author.email == "riley@contoso.example"


async def test_comments_are_read_past_one_page(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Task", {"System.Title": "T"})
    for n in range(205):
        standin.comment(item_id, f"<p>note {n}</p>")
    listed = await source.comments(str(item_id))
    assert [c.text for c in listed] == [f"note {n}" for n in range(205)]


# Service hooks


async def test_hooks_are_registered_for_the_three_events_and_removed(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    url = "https://tracker.example/api/sync/hooks/p1"
    made = await source.register_hooks(url, "hook-secret-123")
    assert made.problem is None and len(made.ids) == 3
    kept = standin.subscriptions
    assert sorted(kept[i]["eventType"] for i in made.ids) == [
        "workitem.created",
        "workitem.deleted",
        "workitem.updated",
    ]
    for i in made.ids:
        inputs = kept[i]["consumerInputs"]
        assert inputs["url"] == url and inputs["basicAuthUsername"] == "tracker"
        assert inputs["basicAuthPassword"] == "hook-secret-123"
        assert kept[i]["publisherInputs"]["projectId"] == standin.project_id
    await source.remove_hooks(made.ids)
    assert standin.subscriptions == {}
    await source.remove_hooks(made.ids)  # gone already


async def test_the_source_calls_the_hook_route_with_the_tracker_user_and_the_secret(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin, aiohttp_server: AiohttpServer
) -> None:
    heard: list[tuple[str, dict]] = []  # type: ignore[type-arg]

    async def hook(request: web.Request) -> web.Response:
        heard.append((request.headers.get("Authorization", ""), await request.json()))
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/api/sync/hooks/p1", hook)
    receiver = await aiohttp_server(app, host="127.0.0.1")
    made = await source.register_hooks(str(receiver.make_url("/api/sync/hooks/p1")), "s3cret")
    item_id = standin.create("Task", {"System.Title": "Made there"})
    standin.change(item_id, {"System.Title": "Changed there"})
    standin.delete(item_id)
    await standin.hooks_settled()
    assert [payload["eventType"] for _, payload in heard] == [
        "workitem.created",
        "workitem.updated",
        "workitem.deleted",
    ]
    assert {auth for auth, _ in heard} == {aiohttp.encode_basic_auth("tracker", "s3cret")}
    await source.remove_hooks(made.ids)
    standin.create("Task", {"System.Title": "Unheard"})
    await standin.hooks_settled()
    assert len(heard) == 3


async def test_a_token_without_hook_rights_gives_a_problem_and_no_subscription(
    standin: AzureDevOpsStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    standin.add_token("reader-pat", hooks=False)
    source = source_of(standin, http, clock, token="reader-pat")
    made = await source.register_hooks("https://tracker.example/h", "s3cret-hook")
    assert made.ids == [] and made.problem is not None and "403" in made.problem
    assert standin.subscriptions == {}
    assert len(await source.states("Task")) == 4  # polling carries on


# When things go wrong


async def test_a_throttled_source_is_left_alone_as_long_as_retry_after_says(
    standin: AzureDevOpsStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    pacer = HostPacer()
    one, other = (
        source_of(standin, http, clock, pacer=pacer),
        source_of(standin, http, clock, pacer=pacer),
    )
    standin.throttle(2, window_seconds=10)
    await one.states("Bug")
    await one.states("Task")
    with pytest.raises(SourceThrottled) as raised:
        await other.states("Bug")
    assert raised.value.retry_after == 10
    arrived = sum(standin.requests_per_window.values())
    for _ in range(9):
        clock.advance(timedelta(seconds=1))
        for source in (one, other):
            with pytest.raises(SourceThrottled):
                await source.states("Bug")
    assert sum(standin.requests_per_window.values()) == arrived  # nothing sent while held
    clock.advance(timedelta(seconds=1))
    assert len(await other.states("Bug")) == 4
    assert standin.throttle_violations == []


async def test_a_5xx_is_a_source_error_and_the_next_call_goes_through(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    standin.fail_next(1, status=500)
    with pytest.raises(SourceError) as raised:
        await source.states("Bug")
    assert not isinstance(raised.value, SourceThrottled)
    assert len(await source.states("Bug")) == 4


async def test_an_update_whose_answer_was_lost_is_stale_when_tried_again(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin
) -> None:
    item_id = standin.create("Task", {"System.Title": "T"})
    read = (await source.read([str(item_id)]))[0]
    change = SourceChange("Task", SourceFields(title="Here"), frozenset({"title"}), read.version)
    standin.fail_next(1, status=502, after_change=True)
    with pytest.raises(SourceError):
        await source.update(read.id, change)
    with pytest.raises(SourceStale):  # made the first time: the engine pulls and finds it so
        await source.update(read.id, change)
    assert (await source.read([read.id]))[0].fields.title == "Here"


async def test_a_503_holds_the_host_for_its_retry_after(
    source: AzureDevOpsSource, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    standin.fail_next(1, status=503, retry_after=7)
    with pytest.raises(SourceThrottled) as raised:
        await source.states("Task")
    assert raised.value.retry_after == 7
    asked = len(standin.exchanges)
    clock.advance(timedelta(seconds=6))
    with pytest.raises(SourceThrottled):
        await source.states("Task")
    assert len(standin.exchanges) == asked
    clock.advance(timedelta(seconds=1))
    assert len(await source.states("Task")) == 4


async def test_a_revoked_token_is_unauthorized_and_never_in_errors_or_logs(
    standin: AzureDevOpsStandin,
    source: AzureDevOpsSource,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    await source.check()
    standin.revoke_token()
    errors: list[Exception] = []
    for call in (source.states("Bug"), source.read(["1"]), source.comments("1")):
        with pytest.raises(SourceUnauthorized) as raised:
            await call
        errors.append(raised.value)
    for error in errors:
        assert standin.token not in str(error) and standin.token not in repr(vars(error))
    assert standin.token not in caplog.text
    assert OWNER  # the stand-in's token owner, for the record
